"""``python -m benchmarks.coupled``: where ``solve`` spends its time on coupled parts.

For each instance (``family=size``, as ``python -m benchmarks`` names them), in one
process and interleaved so that both see the same machine load:

- trample end to end (``trample.solver.interface.api.solve``) and the whole combat as one MILP in
  SciPy's HiGHS (:func:`benchmarks.baselines.monolithic_milp`), each timed in CPU time
  (``time.process_time``, every thread of the process) and wall time, median of
  ``--repeat`` runs;
- with ``--profile``, one more run of trample on one thread with every search of a group
  traced: which backend, how many sources and (source, recipient) pairs, how many terms,
  its status and CPU time; and each bound on a contested target's damage (the senders'
  ceilings, then the exact most), with the part's size and the bound.

Example: ``python -m benchmarks.coupled tokens=100 shared30=100 --repeat 5 --profile``.
"""

from __future__ import annotations

import argparse
import statistics
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from benchmarks import baselines
from benchmarks.runner import FAMILIES, TERMS, _seed
from trample.models.document.combat import Combat
from trample.solver.interface import api
from trample.solver.optimize import cpsat, milp, solve
from trample.solver.rules.legal_space import legal_space


def _timed(fn: Callable[[], object]) -> tuple[float, float]:
    """CPU and wall seconds of one call."""
    cpu, wall = time.process_time(), time.perf_counter()
    fn()
    return time.process_time() - cpu, time.perf_counter() - wall


@contextmanager
def _traced(lines: list[str]) -> Iterator[None]:
    """Record every group search and contested-target bound while inside."""
    saved: list[tuple[Any, str, Any]] = []

    def wrap(module: Any, name: str, label: str) -> None:
        original = getattr(module, name)
        saved.append((module, name, original))

        def traced(space: Any, sources: Any, terms: Any, *args: Any, **kwargs: Any) -> Any:
            cpu = time.process_time()
            found = original(space, sources, terms, *args, **kwargs)
            pairs = sum(len(s.recipients) for s in sources)
            status = "none" if found is None else found.status
            lines.append(f"  {label:6s} sources {len(sources):4d} pairs {pairs:5d} "
                         f"terms {len(terms)} -> {status:8s} "
                         f"{1000 * (time.process_time() - cpu):8.1f} ms")
            return found

        setattr(module, name, traced)

    wrap(milp, "solve_group", "HiGHS")
    wrap(cpsat, "solve_group", "CP-SAT")
    most_name = "_most_damage"
    most = getattr(solve, most_name)
    saved.append((solve, most_name, most))

    def bound(space: Any, part: Any, target: str, *args: Any) -> int:
        cpu = time.process_time()
        found = most(space, part, target, *args)
        how = "ceiling" if args[-1] else "exact"
        lines.append(f"  bound on {target} ({how}): part of {len(part.sources)} sources "
                     f"-> {found} ({1000 * (time.process_time() - cpu):.1f} ms)")
        return found

    setattr(solve, most_name, bound)
    small_name = "_most_damage_of_small"
    small = getattr(solve, small_name)
    saved.append((solve, small_name, small))

    def bounds(space: Any, parts: Any, target: str, *args: Any) -> int:
        cpu = time.process_time()
        found = small(space, parts, target, *args)
        lines.append(f"  bound on {target} (exact, packed): {len(parts)} parts "
                     f"-> {found} ({1000 * (time.process_time() - cpu):.1f} ms)")
        return found

    setattr(solve, small_name, bounds)
    try:
        yield
    finally:
        for module, name, original in saved:
            setattr(module, name, original)


def _measure(name: str, doc: dict[str, Any], repeat: int, profile: bool) -> None:
    api.solve(doc)  # loads OR-Tools and HiGHS outside the timings
    ours: list[tuple[float, float]] = []
    theirs: list[tuple[float, float]] = []
    for _ in range(repeat):
        api.forget_spaces()  # a new combat each run, never the cache's answer
        ours.append(_timed(lambda: api.solve(doc)))
        theirs.append(_timed(lambda: baselines.monolithic_milp(
            legal_space(Combat.from_json(doc), "attackers"), TERMS, 60)))
    cpu_t = statistics.median(c for c, _ in ours)
    wall_t = statistics.median(w for _, w in ours)
    cpu_h = statistics.median(c for c, _ in theirs)
    wall_h = statistics.median(w for _, w in theirs)
    print(f"{name:20s} trample cpu {1000 * cpu_t:8.1f} ms wall {1000 * wall_t:8.1f} | "
          f"HiGHS cpu {1000 * cpu_h:8.1f} wall {1000 * wall_h:8.1f} | "
          f"HiGHS / trample: cpu {cpu_h / cpu_t:5.2f} wall {wall_h / wall_t:5.2f}",
          flush=True)
    if profile:
        lines: list[str] = []
        with _traced(lines):
            cpu, _ = _timed(lambda: api.solve(doc, settings=solve.SearchSettings(threads=1)))
        print("\n".join(lines))
        print(f"  (one thread: {1000 * cpu:.1f} ms CPU in all)", flush=True)


def main(argv: list[str] | None = None) -> int:
    """Measure each instance named on the command line; print one line per instance."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.coupled",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("instances", nargs="+", help="family=size, e.g. tokens=100")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", action="store_true")
    args = parser.parse_args(argv)
    for spec in args.instances:
        family, size = spec.split("=")
        name, _, doc = FAMILIES[family].make(int(size), _seed(family, int(size), args.seed))
        _measure(name, doc, args.repeat, args.profile)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
