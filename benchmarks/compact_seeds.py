"""``python -m benchmarks.compact_seeds``: trample against the compact MILP over many
seeds of one family and size, not the benchmark's one instance.

The benchmark (``python -m benchmarks``) times one combat per family and size (seed 0 of
:func:`benchmarks.runner._seed`). On the coupled families the compact MILP's time varies
several-fold from one combat to the next while trample's does not, so one instance says
little about whether trample is twice as fast. For each ``family=size`` named and each
seed, in one process and interleaved so that every method sees the same machine load:

- trample end to end on the compact model's question (``api.solve`` with the terms
  :func:`benchmarks.compact.question` gives, a new combat each run);
- the compact MILP in highspy and in SciPy's HiGHS (:data:`benchmarks.runner.COMPACT`),
  the faster of the two being the peer, as in the benchmark's report;

each timed in CPU time (``time.process_time``, every thread of the process) and wall time,
median of ``--repeat`` runs. Every answer is checked: trample's must be legal, and each
compact MILP's proved answer legal and equal to trample's on the terms it weighs (a
difference stops the study, exit 1, naming the combat).

Example: ``python -m benchmarks.compact_seeds shared30=30 shared30=100 --seeds 8``.
``--set NAME=VALUE`` (repeatable) runs trample with that field of its
:class:`~trample.solver.optimize.search_settings.SearchSettings` changed from the shipped
one (a number, or ``true``/``false``), e.g. ``--set kill_steps=true``.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import fields, replace
from typing import Any

from benchmarks import compact
from benchmarks.checks import MethodResult, Mismatch, assess
from benchmarks.output import add_study_out, write_study
from benchmarks.runner import COMPACT, FAMILIES, _seed, family_sizes
from trample.models.document.combat import Combat
from trample.solver.interface import api
from trample.solver.optimize.search_settings import SHIPPED, SearchSettings
from trample.solver.rules.assignment import parse_assignment
from trample.solver.rules.legal_space import legal_space

TARGET = 2.0
"""How many times faster than the compact MILP trample is to be (the speed target)."""


def _timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """CPU and wall seconds of one call, and what it returned."""
    cpu, wall = time.process_time(), time.perf_counter()
    value = fn()
    return time.process_time() - cpu, time.perf_counter() - wall, value


def settings_from(pairs: Sequence[str]) -> SearchSettings:
    """The shipped search settings with each ``NAME=VALUE`` of ``pairs`` changed: a field
    of :class:`SearchSettings` that holds a bool, an int or a float. Raises ValueError
    naming what is wrong."""
    known = {f.name: f for f in fields(SearchSettings)}
    changes: dict[str, bool | int | float] = {}
    for pair in pairs:
        name, _, raw = pair.partition("=")
        current = getattr(SHIPPED, name, None) if name in known else None
        if name not in known or type(current) not in (bool, int, float):
            raise ValueError(f"{pair!r}: not a setting of a number or true/false")
        if type(current) is bool:
            if raw.lower() not in ("true", "false"):
                raise ValueError(f"{pair!r}: give true or false")
            changes[name] = raw.lower() == "true"
        else:
            try:
                changes[name] = type(current)(raw)
            except ValueError:
                raise ValueError(f"{pair!r}: give a number") from None
    return replace(SHIPPED, **changes)  # type: ignore[arg-type]


def measure(name: str, doc: dict[str, Any], repeat: int, time_limit: float,
            settings: SearchSettings = SHIPPED) -> dict[str, Any]:
    """trample and each compact MILP on ``doc``, interleaved ``repeat`` times: median CPU
    and wall time per method (seconds), the ratios of the faster compact MILP to trample,
    and the terms compared. Raises :class:`Mismatch` when an answer is illegal or a
    proved compact answer differs from trample's on those terms."""
    terms = list(compact.question(doc))
    space = legal_space(Combat.from_json(doc), "attackers")

    def ours() -> Any:
        api.forget_spaces()  # a new combat each run, never the cache's answer
        return api.solve(doc, objective=terms, time_limit=time_limit, settings=settings)

    methods: dict[str, Callable[[], Any]] = {"trample": ours}
    for method, backend in COMPACT.items():
        methods[method] = (lambda b: lambda: compact.compact_milp(doc, time_limit, b))(backend)
    for fn in methods.values():
        fn()  # OR-Tools and HiGHS loaded, and the code warm, outside the timings
    cpu: dict[str, list[float]] = {m: [] for m in methods}
    wall: dict[str, list[float]] = {m: [] for m in methods}
    last: dict[str, Any] = {}
    for _ in range(repeat):
        for method, fn in methods.items():
            c, w, last[method] = _timed(fn)
            cpu[method].append(c)
            wall[method].append(w)

    answer = last["trample"]
    mine = MethodResult("trample", status=answer["status"])
    assess(mine, space, parse_assignment(space.combat, answer["assignment"]), terms)
    if mine.legal is not True:
        raise Mismatch(f"{name}: trample answered an illegal assignment ({mine.note})")
    for method in COMPACT:
        out = last[method]
        theirs = MethodResult(method, status=out.status)
        assess(theirs, space, out.amounts, terms)
        if theirs.legal is False:
            raise Mismatch(f"{name}: {method} answered an illegal assignment ({theirs.note})")
        if out.status == "optimal" and mine.status == "optimal" \
                and theirs.objective != mine.objective:
            raise Mismatch(f"{name}: trample {mine.objective} and {method} "
                           f"{theirs.objective} differ on {', '.join(terms)}")

    med_cpu = {m: statistics.median(v) for m, v in cpu.items()}
    med_wall = {m: statistics.median(v) for m, v in wall.items()}
    peer_cpu = min(med_cpu[m] for m in COMPACT)
    peer_wall = min(med_wall[m] for m in COMPACT)
    return {"instance": name, "terms": terms, "status": mine.status,
            "objective": list(mine.objective or ()), "cpu": med_cpu, "wall": med_wall,
            "ratio_cpu": peer_cpu / med_cpu["trample"] if med_cpu["trample"] > 0 else None,
            "ratio_wall": peer_wall / med_wall["trample"]}


def _spread(values: Sequence[float]) -> str:
    ordered = sorted(values)
    return (f"{ordered[0]:.2f} / {statistics.median(ordered):.2f} / {ordered[-1]:.2f}"
            if ordered else "-")


def report(rows: Sequence[dict[str, Any]], argv: Sequence[str]) -> str:
    """The study's Markdown: one row per combat, then each instance's spread over seeds."""
    lines = ["# trample against the compact MILP, seed by seed", "",
             f"`python -m benchmarks.compact_seeds {' '.join(argv)}`. Median of the runs, "
             "methods interleaved; CPU time counts every thread of the process. The peer "
             "is the faster compact MILP (highspy or SciPy's HiGHS); ratio = its time / "
             "trample's (the target: at least 2).", "",
             "| combat | seed | trample CPU | trample wall | compact MILP CPU | compact "
             "MILP wall | ratio CPU | ratio wall |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for row in rows:
        peer_cpu = min(row["cpu"][m] for m in COMPACT)
        peer_wall = min(row["wall"][m] for m in COMPACT)
        ratio_cpu = "-" if row["ratio_cpu"] is None else f"{row['ratio_cpu']:.2f}"
        lines.append(f"| {row['instance']} | {row['seed']} "
                     f"| {1e3 * row['cpu']['trample']:.1f} ms "
                     f"| {1e3 * row['wall']['trample']:.1f} ms "
                     f"| {1e3 * peer_cpu:.1f} ms | {1e3 * peer_wall:.1f} ms "
                     f"| {ratio_cpu} | {row['ratio_wall']:.2f} |")
    lines += ["", "Over the seeds (least / median / most ratio; seeds at 2x or more):", "",
              "| combat | seeds | ratio CPU | ratio wall | 2x in CPU | 2x in wall |",
              "| --- | ---: | ---: | ---: | ---: | ---: |"]
    for instance in dict.fromkeys(r["instance"] for r in rows):
        mine = [r for r in rows if r["instance"] == instance]
        cpus = [r["ratio_cpu"] for r in mine if r["ratio_cpu"] is not None]
        walls = [r["ratio_wall"] for r in mine]
        lines.append(f"| {instance} | {len(mine)} | {_spread(cpus)} | {_spread(walls)} "
                     f"| {sum(c >= TARGET for c in cpus)} of {len(cpus)} "
                     f"| {sum(w >= TARGET for w in walls)} of {len(walls)} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Measure each ``family=size`` over ``--seeds`` seeds; write compact_seeds.md and
    .json. Exit 1 when an answer fails its check, 2 on bad usage."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m benchmarks.compact_seeds",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("instances", nargs="+", help="family=size, e.g. shared30=30")
    parser.add_argument("--seeds", type=int, default=8, help="seeds 0 to N-1 (default 8)")
    parser.add_argument("--repeat", type=int, default=5, help="runs per method (default 5)")
    parser.add_argument("--time-limit", type=float, default=60.0,
                        help="seconds per solve, every method (default 60)")
    parser.add_argument("--set", action="append", default=[], metavar="NAME=VALUE",
                        help="run trample with this search setting changed (repeatable)")
    add_study_out(parser, "compact_seeds")
    args = parser.parse_args(args_list)
    try:
        settings = settings_from(args.set)
    except ValueError as exc:
        parser.error(str(exc))
    if args.seeds < 1 or args.repeat < 1:
        parser.error("--seeds and --repeat must be at least 1")
    if not 0 < args.time_limit <= 3600:
        parser.error("--time-limit must be more than 0 and at most 3600 seconds")
    plan = family_sizes(parser, args.instances)
    rows: list[dict[str, Any]] = []
    failure: str | None = None
    for family, size in plan:
        for seed in range(args.seeds):
            name, _, doc = FAMILIES[family].make(size, _seed(family, size, seed))
            try:
                compact.question(doc)
            except compact.Unmodeled as exc:
                parser.error(f"{family}={size}: the compact model does not cover it ({exc})")
            try:
                row = measure(name, doc, args.repeat, args.time_limit, settings)
            except Mismatch as exc:
                failure = str(exc)
                break
            row["seed"] = seed
            rows.append(row)
            print(f"{name} seed {seed}: ratio CPU {row['ratio_cpu'] or 0:.2f} "
                  f"wall {row['ratio_wall']:.2f}", file=sys.stderr, flush=True)
        if failure:
            break
    write_study(args.out, "compact_seeds", {"argv": args_list, "rows": rows,
                                            "failure": failure}, report(rows, args_list))
    if failure:
        print(f"compact_seeds: correctness check failed: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
