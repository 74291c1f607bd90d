"""``python -m benchmarks.wide``: small combats of wide amounts, the search as shipped
against CP-SAT's quick first try.

A small model (at most ``SearchSettings.small_model`` variables) is first searched the
quick way (no presolve, no LP relaxation), unless an amount can exceed
``SearchSettings.quick_widest``: without the relaxation CP-SAT closes in on wide amounts a
step at a time. Here random small combats of wide amounts
(:func:`benchmarks.generators.wide_amounts`, seeds of their own) are solved end to end
under a time limit, each under the default objective and under the assigned-damage terms,
once as shipped and once with every small model searched the quick way. Every answer must
be legal, and where both are proved their objectives must be equal (exit 1 names the
combat if not).

Results go to ``wide.md`` and ``wide.json`` in ``--out``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from tqdm import tqdm

from benchmarks import generators
from benchmarks.output import add_study_out, check_seconds, run_study
from trample.solver.interface import api
from trample.solver.optimize.search_settings import SHIPPED

SEED_BASE = 9_000
"""Seeds here start at this, apart from the benchmark's, the other studies' and the tests'."""
OBJECTIVES: dict[str, list[str] | None] = {
    "default": None, "assigned": ["lethal", "kills", "player_damage"]}
"""Each combat is solved under these objectives (None: the default one)."""
SETTINGS = {"shipped": SHIPPED, "quick way": replace(SHIPPED, quick_widest=2**41)}
"""The searches compared: as shipped, and every small model searched the quick way."""
SLOW = 1.0
"""Seconds past which a solve counts as slow in the table."""


class Disagreement(Exception):
    """Two proved answers with different objectives, or an illegal answer."""


def run(seeds: int, per_seed: int, time_limit: float) -> dict[str, Any]:
    """Solve every combat under every objective with each of :data:`SETTINGS`."""
    rows: list[dict[str, Any]] = []
    total = seeds * per_seed * len(OBJECTIVES) * len(SETTINGS)
    with tqdm(total=total, file=sys.stderr, unit="solve", dynamic_ncols=True) as bar:
        for seed in range(SEED_BASE, SEED_BASE + seeds):
            rng = random.Random(seed)
            for k in range(per_seed):
                doc = generators.wide_amounts(rng)
                for objective_name, objective in OBJECTIVES.items():
                    proved: dict[str, Any] = {}
                    for name, settings in SETTINGS.items():
                        started = time.perf_counter()
                        answer = api.solve(doc, objective=objective, time_limit=time_limit,
                                           settings=settings)
                        seconds = time.perf_counter() - started
                        where = f"seed {seed}, combat {k}, {objective_name} objective, {name}"
                        if not api.validate(doc, answer["assignment"])["legal"]:
                            raise Disagreement(f"{where}: the answer is not legal")
                        if answer["status"] == "optimal":
                            proved[name] = answer["objective"]
                        rows.append({"seed": seed, "combat": k, "objective": objective_name,
                                     "settings": name, "seconds": seconds,
                                     "status": answer["status"]})
                        bar.update()
                    if len(set(map(str, proved.values()))) > 1:
                        raise Disagreement(f"seed {seed}, combat {k}, {objective_name} "
                                           f"objective: proved objectives differ: {proved}")
    return {"seeds": seeds, "per_seed": per_seed, "time_limit": time_limit,
            "scales": list(generators.WIDE_SCALES), "rows": rows}


def markdown(results: dict[str, Any]) -> str:
    """The table: per search, solves, unproved, slow, total, median and slowest time."""
    lines = [
        "# Small combats of wide amounts",
        "",
        f"`python -m benchmarks.wide`: {results['seeds']} seeds x {results['per_seed']} "
        f"combats (2-5 attackers, 2-7 blockers, amounts up to "
        f"{', '.join(map(str, results['scales']))}), each under the default and the "
        f"assigned-damage objective, end to end, time limit {results['time_limit']:g} s. "
        "\"quick way\": every small model's first try without presolve or LP relaxation.",
        "",
        f"| search | solves | not proved | over {SLOW:g} s | total | median | slowest |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for name in SETTINGS:
        rows = [r for r in results["rows"] if r["settings"] == name]
        times = [r["seconds"] for r in rows]
        if not times:
            continue
        lines.append(
            f"| {name} | {len(rows)} | {sum(r['status'] != 'optimal' for r in rows)} "
            f"| {sum(t > SLOW for t in times)} | {sum(times):.1f} s "
            f"| {statistics.median(times) * 1000:.1f} ms | {max(times):.2f} s |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.wide",
        description="Solve small combats of wide amounts as shipped and with CP-SAT's "
                    "quick first try on every small model.")
    parser.add_argument("--seeds", type=int, default=8, help="seeds (8)")
    parser.add_argument("--per-seed", type=int, default=60, help="combats per seed (60)")
    parser.add_argument("--time-limit", type=float, default=5.0,
                        help="each solve's time limit, seconds (5)")
    parser.add_argument("--quick", action="store_true",
                        help="one seed of 3 combats, time limit 1 s (a smoke test)")
    add_study_out(parser, "wide")
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.per_seed < 1:
        parser.error("--seeds and --per-seed must be at least 1")
    check_seconds(parser, args.time_limit, "--time-limit")
    if args.quick:
        args.seeds, args.per_seed, args.time_limit = 1, 3, 1.0
    return run_study(args.out, "wide",
                     lambda: run(args.seeds, args.per_seed, args.time_limit),
                     markdown, Disagreement)


if __name__ == "__main__":
    raise SystemExit(main())
