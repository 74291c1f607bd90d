"""Run one fuzz target under atheris (libFuzzer), coverage-guided over trample's own code.

From the repository root::

    python -m tests.fuzz.run --target parser --seconds 600
    python -m tests.fuzz.run --target serve --runs 20000 --work /tmp/fuzz-serve
    python -m tests.fuzz.run --target validator --replay crash-1234abcd

Targets: ``parser`` (``Combat.from_json``), ``validator`` (``api.validate``), ``serve``
(``serve.respond`` and the serve loop), ``solve`` (solve, count, enumerate and sample on
small valid combats, against the brute-force oracle), ``blocks`` (SPEC §11 on small
boards: every listed or answered declaration legal, the best block the least of them),
``game`` (``trample apply``: game states and actions, its output read back). New
interesting inputs go to the ``corpus/`` of the working directory (``--work``, default
``<tmp>/trample-fuzz/<target>``), never to the committed seed corpus
``tests/fuzz/corpus/<target>/``, which is read as well. A crash is written to the working
directory as ``crash-<sha1>`` and the process ends with a nonzero status;
``--replay FILE`` runs one input again without libFuzzer, with its full traceback.
Extra arguments after ``--`` go to libFuzzer unchanged (e.g. ``-- -jobs=2``).

``--target`` given several times fuzzes each of those targets for ``--seconds`` at once,
in a process of its own forked once the code is instrumented (instrumenting takes longer
than a short run): each works in ``<work>/<target>`` (default
``<tmp>/trample-fuzz/<target>``) and writes its output to ``fuzz.log`` there; a line per
target gives its exit status, and the status is nonzero when any target's is::

    python -m tests.fuzz.run --target parser --target serve --seconds 60 --work /tmp/fuzz
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys
import tempfile
import traceback
from pathlib import Path

HERE = Path(__file__).resolve().parent
SEEDS = HERE / "corpus"
TARGETS = ("parser", "validator", "serve", "solve", "game", "blocks")
SKIPPED = ("cli", "demo", "demo_game", "__main__", "_root")
"""Modules not instrumented: entry points (run on import) and the package's own root."""


def main(argv: list[str] | None = None) -> int:
    """Parse the options, then fuzz (never returns unless replaying or fuzzing several
    targets) or replay."""
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz.run", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--target", choices=TARGETS, required=True, action="append",
                        help="the target (several: each in a process of its own, at once)")
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
        # Every module of the sub-packages (models.document, solver.optimize, ...): one
        # imported after this block would run uninstrumented, unseen by the fuzzer.
        for package in ("trample.models", "trample.solver"):
            found = importlib.import_module(package).__path__
            for module in pkgutil.walk_packages(found, prefix=f"{package}."):
                last = module.name.rsplit(".", 1)[-1]
                if last not in SKIPPED and ".examples" not in module.name:
                    importlib.import_module(module.name)
    from tests.fuzz.harnesses import TARGETS as FUNCTIONS

    targets = list(dict.fromkeys(args.target))
    if args.replay:
        if len(targets) > 1:
            parser.error("--replay takes one --target")
        for path in args.replay:
            FUNCTIONS[targets[0]](path.read_bytes())
            print(f"{path}: no crash")
        return 0
    if len(targets) > 1:
        return fuzz_each(FUNCTIONS, targets, args)
    work = args.work or Path(tempfile.gettempdir()) / "trample-fuzz" / targets[0]
    fuzz(FUNCTIONS[targets[0]], targets[0], work, args)
    return 0  # pragma: no cover - libFuzzer exits the process


def fuzz_each(functions: dict, targets: list[str], args: argparse.Namespace) -> int:
    """Fork a process per target, each fuzzing it with its output in its ``fuzz.log``;
    wait for them all. The exit status: 0 when every one's was 0, else 1."""
    root = args.work or Path(tempfile.gettempdir()) / "trample-fuzz"
    sys.stdout.flush()
    sys.stderr.flush()
    children = {}
    for target in targets:
        work = root / target
        work.mkdir(parents=True, exist_ok=True)
        log = work / "fuzz.log"
        pid = os.fork()
        if pid == 0:  # the child: libFuzzer ends it, as it ends a run of one target
            try:
                fd = os.open(log, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
                os.dup2(fd, 1)
                os.dup2(fd, 2)
                fuzz(functions[target], target, work, args)
            except SystemExit:
                raise  # a finding: the crash file is written on the way out
            except BaseException:
                traceback.print_exc()
                sys.stderr.flush()
            os._exit(70)  # fuzzing failed to start
        children[target] = (pid, log)
    worst = 0
    for target, (pid, log) in children.items():
        _, status = os.waitpid(pid, 0)
        code = os.waitstatus_to_exitcode(status)
        print(f"{target}: exit status {code}; its output in {log}", flush=True)
        worst = worst or (code != 0)
    return int(worst)


def fuzz(one_input, target: str, work: Path, args: argparse.Namespace) -> None:
    """Fuzz ``one_input`` in ``work`` under libFuzzer (which ends the process)."""
    import atheris

    corpus = work / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    flags = [f"-max_total_time={args.seconds}", f"-timeout={args.timeout}",
             f"-artifact_prefix={work}/", f"-seed={args.seed}", "-rss_limit_mb=4096",
             "-print_final_stats=1", *args.libfuzzer]
    if args.runs >= 0:
        flags.append(f"-runs={args.runs}")
    atheris.Setup([sys.argv[0], *flags, str(corpus), str(SEEDS / target)], one_input)
    atheris.Fuzz()  # exits the process


if __name__ == "__main__":
    sys.exit(main())
