"""Run one fuzz target under atheris (libFuzzer), coverage-guided over trample's own code.

From the repository root::

    python -m tests.fuzz.run --target parser --seconds 600
    python -m tests.fuzz.run --target serve --runs 20000 --work /tmp/fuzz-serve
    python -m tests.fuzz.run --target validator --replay crash-1234abcd

Targets: ``parser`` (``Combat.from_json``), ``validator`` (``api.validate``), ``serve``
(``serve.respond`` and the serve loop), ``solve`` (solve, count, enumerate and sample on
small valid combats, against the brute-force oracle), ``game`` (``trample apply``: game
states and actions, its output read back). New interesting inputs go to the
``corpus/`` of the working directory (``--work``, default ``<tmp>/trample-fuzz/<target>``),
never to the committed seed corpus ``tests/fuzz/corpus/<target>/``, which is read as
well. A crash is written to the working directory as ``crash-<sha1>`` and the process
ends with a nonzero status;
``--replay FILE`` runs one input again without libFuzzer, with its full traceback.
Extra arguments after ``--`` go to libFuzzer unchanged (e.g. ``-- -jobs=2``).
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEEDS = HERE / "corpus"
TARGETS = ("parser", "validator", "serve", "solve", "game")


def main(argv: list[str] | None = None) -> int:
    """Parse the options, then fuzz (never returns unless replaying) or replay."""
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz.run", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", choices=TARGETS, required=True)
    parser.add_argument("--seconds", type=int, default=60, help="total fuzzing time")
    parser.add_argument("--runs", type=int, default=-1, help="stop after this many inputs")
    parser.add_argument("--work", type=Path, help="working corpus and crash directory")
    parser.add_argument("--timeout", type=int, default=60, help="seconds one input may take")
    parser.add_argument("--replay", type=Path, nargs="+", help="run these inputs once")
    parser.add_argument("--seed", type=int, default=0, help="libFuzzer's random seed")
    parser.add_argument("libfuzzer", nargs="*", help="further libFuzzer flags (after --)")
    args = parser.parse_args(argv)

    import atheris

    with atheris.instrument_imports(include=["trample"]):
        for package in ("trample.models", "trample.solver"):
            for module in pkgutil.iter_modules(importlib.import_module(package).__path__):
                if module.name not in ("cli", "demo", "demo_game", "__main__"):
                    importlib.import_module(f"{package}.{module.name}")
    from tests.fuzz.harnesses import TARGETS as FUNCTIONS

    one_input = FUNCTIONS[args.target]
    if args.replay:
        for path in args.replay:
            one_input(path.read_bytes())
            print(f"{path}: no crash")
        return 0

    work = args.work or Path(tempfile.gettempdir()) / "trample-fuzz" / args.target
    corpus = work / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    flags = [f"-max_total_time={args.seconds}", f"-timeout={args.timeout}",
             f"-artifact_prefix={work}/", f"-seed={args.seed}", "-rss_limit_mb=4096",
             "-print_final_stats=1", *args.libfuzzer]
    if args.runs >= 0:
        flags.append(f"-runs={args.runs}")
    atheris.Setup([sys.argv[0], *flags, str(corpus), str(SEEDS / args.target)], one_input)
    atheris.Fuzz()
    return 0  # pragma: no cover - atheris.Fuzz() exits the process


if __name__ == "__main__":
    sys.exit(main())
