"""``python -m benchmarks``: run the benchmark suite and write its results.

Exit status 0 when every correctness check passed, 1 when one failed (the message names
the instance and the methods; the results so far are still written), 2 on bad usage or
when the ``bench`` extra is not installed (``pip install '.[bench]'`` in a clone of trample).

Run it from the root of a clone (``benchmarks/`` is not installed with trample; the
current folder is what makes it importable).
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path

from benchmarks.output import bench_extra, missing_message, missing_packages, output_folder

with bench_extra(__name__):
    from benchmarks.report import write_all
    from benchmarks.runner import ALIASES, FAMILIES, Config, run
    from trample.models.document.errors import TrampleError

QUICK = {"repeat": 1, "repeat_budget": 2.0, "min_time": 0.0, "time_limit": 2.0,
         "trample_time_limit": 10.0,
         "tiny_solves": 300, "serve_requests": 50, "tiny_pool": 30}


def _families(values: list[str] | None, parser: argparse.ArgumentParser) -> tuple[str, ...]:
    if not values:
        return tuple(FAMILIES)
    chosen: list[str] = []
    for value in values:
        for name in (v.strip() for v in value.split(",") if v.strip()):
            for family in ALIASES.get(name, (name,)):
                if family not in FAMILIES:
                    parser.error(f"unknown family {name!r} (families: "
                                 f"{', '.join([*FAMILIES, *ALIASES])})")
                if family not in chosen:
                    chosen.append(family)
    return tuple(chosen)


def _sizes(values: list[str] | None, families: Sequence[str],
           parser: argparse.ArgumentParser) -> dict[str, tuple[int, ...]]:
    sizes: dict[str, tuple[int, ...]] = {}
    for value in values or []:
        name, _, numbers = value.rpartition("=")
        try:
            parsed = tuple(int(n) for n in numbers.split(",") if n.strip())
        except ValueError:
            parser.error(f"--sizes {value!r}: sizes are comma-separated integers")
        if not parsed or min(parsed) < 1:
            parser.error(f"--sizes {value!r}: give positive sizes")
        for family in ALIASES.get(name, (name,)) if name else families:
            if family not in FAMILIES:
                parser.error(f"--sizes {value!r}: unknown family {name!r}")
            sizes[family] = parsed
    return sizes


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line, run, write results.json, results.md, summary.md and
    time_vs_size.png; the exit status."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    missing = missing_packages()
    if missing:  # checked before a run that would fail at its end, writing the plot
        print(missing_message(missing), file=sys.stderr)
        return 2
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks",
        description="trample against the same whole-combat model in HiGHS (MILP) and in "
                    "CP-SAT, greedy and brute force on generated combats: times, peak "
                    "memory, growth exponents.",
        epilog="families: " + "; ".join(f"{f.name}: {f.size_meaning}"
                                        for f in FAMILIES.values()))
    parser.add_argument("--family", action="append",
                        help="family to run (repeatable or comma list; 'shared' = shared5 "
                             "and shared30; default all)")
    parser.add_argument("--sizes", action="append",
                        help="sizes, e.g. '100,1000' (every chosen family) or 'gang=100,1000' "
                             "(repeatable)")
    parser.add_argument("--repeat", type=int, help="runs per method; the median is reported "
                        "(default 5, 1 with --quick)")
    parser.add_argument("--quick", action="store_true",
                        help="small sizes, short limits: under a minute")
    parser.add_argument("--out", type=Path,
                        help="output folder (default: a new scratch folder, printed; the "
                             "committed results are replaced only with --out "
                             "benchmarks/results)")
    parser.add_argument("--time-limit", type=float,
                        help="seconds per baseline solve; a baseline stopped by it is "
                        "reported as '> limit' (default 60, 2 with --quick)")
    parser.add_argument("--repeat-budget", type=float,
                        help="a method's runs stop once they took this many seconds in all "
                             "(default 10, 2 with --quick)")
    parser.add_argument("--min-time", type=float,
                        help="a method's timed runs go on past --repeat until they took "
                             "this many seconds, so that a fast method is timed at the pace "
                             "it keeps in a loop (default 0.2, 0 with --quick)")
    parser.add_argument("--trample-time-limit", type=float,
                        help="trample's own time limit (default 60, 10 with --quick)")
    parser.add_argument("--seed", type=int, default=0, help="base seed of the generators")
    parser.add_argument("--workers", type=int, default=1, metavar="N",
                        help="run N instances at once in worker processes (default 1; every "
                             "instance is still checked; timings then share the cores)")
    parser.add_argument("--ray", nargs="?", const=True, metavar="ADDRESS",
                        help="run the instances as Ray tasks: on a new local Ray (with "
                             "--workers CPUs if given), or on the cluster at ADDRESS; pip "
                             "install '.[ray]' in a clone of trample")
    args = parser.parse_args(args_list)

    cfg = Config(**QUICK) if args.quick else Config()  # type: ignore[arg-type]
    cfg.quick = args.quick
    cfg.families = _families(args.family, parser)
    cfg.sizes = _sizes(args.sizes, cfg.families, parser)
    cfg.seed = args.seed
    if args.repeat is not None:
        if args.repeat < 1:
            parser.error("--repeat must be at least 1")
        cfg.repeat = args.repeat
    if args.time_limit is not None:
        if args.time_limit <= 0:
            parser.error("--time-limit must be positive")
        cfg.time_limit = args.time_limit
    if args.repeat_budget is not None:
        if args.repeat_budget <= 0:
            parser.error("--repeat-budget must be positive")
        cfg.repeat_budget = args.repeat_budget
    if args.min_time is not None:
        if args.min_time < 0:
            parser.error("--min-time must not be negative")
        cfg.min_time = args.min_time
    if args.trample_time_limit is not None:
        if args.trample_time_limit <= 0:
            parser.error("--trample-time-limit must be positive")
        cfg.trample_time_limit = args.trample_time_limit

    if args.workers < 1:
        parser.error("--workers must be at least 1")
    cfg.fan_out = args.workers
    cfg.ray = args.ray

    out = output_folder(args.out, "benchmarks")
    try:
        results, failure = run(cfg, args_list)
    except TrampleError as exc:  # --ray without Ray, or an unreachable cluster
        print(f"benchmarks: {exc}", file=sys.stderr)
        return 2
    write_all(results, out)
    print(f"benchmarks: {results['checks']['instances_checked']} instances checked in "
          f"{results['meta']['wall_time']:.1f} s; results in {out}", file=sys.stderr)
    if failure is not None:
        print(f"benchmarks: correctness check failed: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
