"""``python -m benchmarks.scaled``: the benchmark's combats with every amount multiplied.

Exact methods that are fast on the benchmark's amounts (toughness 1-6, power up to a few
thousand) can fall off a cliff when the same combats come in wide amounts: a knapsack
table grows with the power, CP-SAT without its LP relaxation closes in a step at a time,
and HiGHS is not given amounts past 2^28. Here the benchmark's own combats (the same
seeds as ``python -m benchmarks``) are solved end to end under a time limit with every
amount multiplied by each of :data:`FACTORS`, plus noise below half the factor (so that
no common divisor brings them back: :func:`benchmarks.generators.scaled`), under the
benchmark's objective. Every answer must be legal (exit 1 names the combat if not).

Results go to ``scaled.md`` and ``scaled.json`` in ``--out``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from collections.abc import Sequence
from typing import Any

from tqdm import tqdm

from benchmarks import generators, runner
from benchmarks.output import add_study_out, check_seconds, run_study
from trample.solver.interface import api

INSTANCES = (("gang", 1000), ("widegang", 1000), ("armies", 100), ("shared5", 100),
             ("shared30", 30), ("shared30", 100), ("tokens", 30), ("tokens", 100),
             ("ranks", 160), ("pileup", 200))
"""The benchmark's (family, size) solved here."""
FACTORS = (1, 2**10, 2**20, 2**29)
"""What every amount is multiplied by (1: the benchmark's combat itself)."""
QUICK = ((("armies", 10), ("shared30", 30)), (1, 2**20))
"""``--quick``: these instances at these factors."""


class Illegal(Exception):
    """An answer the validator refuses."""


def run(instances: Sequence[tuple[str, int]], factors: Sequence[int], seeds: int,
        time_limit: float) -> dict[str, Any]:
    """Solve each instance's first ``seeds`` combats at every factor."""
    rows: list[dict[str, Any]] = []
    total = len(instances) * len(factors) * seeds
    with tqdm(total=total, file=sys.stderr, unit="solve", dynamic_ncols=True) as bar:
        for family, size in instances:
            for seed in range(seeds):
                name, _, doc = runner.FAMILIES[family].make(
                    size, runner._seed(family, size, seed))
                for factor in factors:
                    combat = generators.scaled(doc, factor, random.Random(seed))
                    started = time.perf_counter()
                    answer = api.solve(combat, objective=list(runner.TERMS),
                                       time_limit=time_limit)
                    seconds = time.perf_counter() - started
                    if not api.validate(combat, answer["assignment"])["legal"]:
                        raise Illegal(f"{name}, seed {seed}, amounts x{factor}: the answer "
                                      "is not legal")
                    rows.append({"instance": name, "seed": seed, "factor": factor,
                                 "seconds": seconds, "status": answer["status"]})
                    bar.update()
    return {"seeds": seeds, "time_limit": time_limit, "factors": list(factors),
            "rows": rows}


def _factor(factor: int) -> str:
    return "x1" if factor == 1 else f"x2^{factor.bit_length() - 1}"


def markdown(results: dict[str, Any]) -> str:
    """One row per instance, one column per factor: the median time over the seeds and
    how many of them were not proved within the limit."""
    factors = results["factors"]
    lines = [
        "# The benchmark's combats in wide amounts",
        "",
        f"`python -m benchmarks.scaled`: each instance's first {results['seeds']} "
        "combats (the benchmark's seeds), every amount multiplied by the factor plus "
        "noise below half of it, solved end to end under the benchmark's objective, "
        f"time limit {results['time_limit']:g} s. Median time over the seeds; "
        "\"n unproved\": answered `feasible` at the limit.",
        "",
        "| instance | " + " | ".join(_factor(f) for f in factors) + " |",
        "| --- |" + " ---: |" * len(factors),
    ]
    names = list(dict.fromkeys(r["instance"] for r in results["rows"]))
    for name in names:
        cells = []
        for factor in factors:
            rows = [r for r in results["rows"]
                    if r["instance"] == name and r["factor"] == factor]
            median = statistics.median(r["seconds"] for r in rows)
            cell = f"{median * 1000:.1f} ms" if median < 1 else f"{median:.2f} s"
            unproved = sum(r["status"] != "optimal" for r in rows)
            cells.append(cell + (f", {unproved} unproved" if unproved else ""))
        lines.append(f"| {name} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.scaled",
        description="Solve the benchmark's combats with every amount multiplied by 2^10, "
                    "2^20 and 2^29.")
    parser.add_argument("--seeds", type=int, default=3, help="combats per instance (3)")
    parser.add_argument("--time-limit", type=float, default=10.0,
                        help="each solve's time limit, seconds (10)")
    parser.add_argument("--quick", action="store_true",
                        help="two small instances, one seed, x1 and x2^20, time limit 5 s "
                             "(a smoke test)")
    add_study_out(parser, "scaled")
    args = parser.parse_args(argv)
    if args.seeds < 1:
        parser.error("--seeds must be at least 1")
    check_seconds(parser, args.time_limit, "--time-limit")
    instances, factors = INSTANCES, FACTORS
    if args.quick:
        (instances, factors), args.seeds, args.time_limit = QUICK, 1, 5.0
    return run_study(args.out, "scaled",
                     lambda: run(instances, factors, args.seeds, args.time_limit),
                     markdown, Illegal)


if __name__ == "__main__":
    raise SystemExit(main())
