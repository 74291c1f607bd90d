"""Where a benchmark run writes, and what it needs installed.

A run writes where ``--out`` says; without ``--out`` (and ``--quick`` is no exception) it
writes to a new scratch folder, printed, never over the results committed in
``benchmarks/results/``: replacing those is done on purpose, with
``--out benchmarks/results``.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import sys
import tempfile
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

BENCH_PACKAGES = {"scipy": "SciPy", "matplotlib": "Matplotlib", "tqdm": "tqdm"}
"""Import name and name of each package of trample's ``bench`` extra."""
# trample is not on the package index: the extras install from a clone of it.
INSTALL_BENCH = "pip install '.[bench]' (in a clone of trample)"


def missing_packages() -> list[str]:
    """The names of the ``bench`` extra's packages that cannot be imported."""
    return [name for module, name in BENCH_PACKAGES.items()
            if importlib.util.find_spec(module) is None]


def missing_message(missing: list[str]) -> str:
    """The one line that says what is missing and how to install it."""
    verb = "is" if len(missing) == 1 else "are"
    return (f"benchmarks: {', '.join(missing)} {verb} not installed (the baselines need "
            f"SciPy, the plot Matplotlib, the progress bar tqdm): {INSTALL_BENCH}")


@contextmanager
def bench_extra(module: str) -> Iterator[None]:
    """Around the imports that need the bench extra: in a benchmark run as a command
    (``module`` is ``"__main__"``) a missing package is named, with the command that
    installs it, and the run exits with status 2; a module imported by another lets the
    ImportError go on."""
    try:
        yield
    except ImportError as exc:
        if module == "__main__":
            print(missing_message(missing_packages() or [exc.name or str(exc)]),
                  file=sys.stderr)
            sys.exit(2)
        raise


def output_folder(out: Path | None, what: str) -> Path:
    """``out``, made; without it a new scratch folder, whose path is printed."""
    if out is None:
        out = Path(tempfile.mkdtemp(prefix=f"trample-{what}-"))
        print(f"benchmarks: writing to {out} (a scratch folder; --out DIR to choose one)",
              file=sys.stderr)
    out.mkdir(parents=True, exist_ok=True)
    return out


def write_study(out: Path | None, name: str, results: object, text: str) -> Path:
    """A study's ``name``.json (``results``) and ``name``.md (``text``, also printed) in
    :func:`output_folder`; the folder."""
    folder = output_folder(out, name)
    (folder / f"{name}.json").write_text(json.dumps(results, indent=1) + "\n")
    (folder / f"{name}.md").write_text(text)
    print(text)
    return folder


def add_study_out(parser: argparse.ArgumentParser, name: str) -> None:
    """A study's ``--out``: the directory for ``name``.md and ``name``.json."""
    parser.add_argument("--out", type=Path,
                        help=f"directory for {name}.md and {name}.json (default: a new "
                             "scratch folder, printed)")


def check_seconds(parser: argparse.ArgumentParser, seconds: float, flag: str) -> None:
    """Refuse (exit 2, naming ``flag``) a time limit that is not in (0, 3600] seconds."""
    if not 0 < seconds <= 3600:
        parser.error(f"{flag} must be more than 0 and at most 3600 seconds")


def run_study(out: Path | None, name: str, work: Callable[[], Any],
              markdown: Callable[[Any], str], failure: type[Exception]) -> int:
    """A solving study's end: OR-Tools loaded and one tiny combat solved before any clock
    starts, then ``work()``'s results written (:func:`write_study`); 0, or 1 with the
    message of a ``failure`` it raised (an illegal answer, a disagreement)."""
    from ortools.sat.python import cp_model  # noqa: F401  (load before any clock starts)

    from benchmarks import generators
    from trample.solver.interface import api

    api.solve(generators.tiny(3, 0))
    try:
        results = work()
    except failure as exc:
        print(f"benchmarks.{name}: {exc}", file=sys.stderr)
        return 1
    write_study(out, name, results, markdown(results))
    return 0
