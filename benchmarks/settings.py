"""``python -m benchmarks.settings``: what each search setting of trample is worth.

trample searches the coupled parts of a combat with CP-SAT, and these settings of that
search were chosen by measurement: interchangeable creatures get ordered amounts
(symmetry breaking); a group whose first term is ``kills`` is searched from a proved
ceiling on it down; small models are searched first without presolve, without LP
relaxation and without the greedy split as a hint; independent parts are searched on
several threads at once. This runs
``trample.solver.interface.api.solve`` end to end on combats where CP-SAT does the work, with all
settings as shipped and then with each one switched off in turn (one off as shipped,
switched on), and reports the time of each against the shipped one, measured in the same
run. Every configuration must reach the same proved objective (exit 1 names the instance
if one does not).

Results go to ``settings.md`` and ``settings.json`` in ``--out``.
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from tqdm import tqdm

from benchmarks import generators
from benchmarks.generators import Document
from benchmarks.output import add_study_out, check_seconds, write_study
from trample.solver import native
from trample.solver.interface import api
from trample.solver.optimize.search_settings import SearchSettings

CONFIGS: dict[str, dict[str, Any]] = {
    "as shipped": {},
    "no symmetry breaking": {"symmetry": False},
    "no ceiling on kills (searched from below)": {"kills_first": False},
    "no creatures decided by the ceiling's prices": {"kills_fixing": False},
    "greedy hint in the first try": {"hint_small_models": True},
    "presolve, LP and hint in the first try": {"small_model": -1},
    "one thread": {"threads": 1},
    "CP-SAT only (no HiGHS)": {"backend": "cpsat"},
    "HiGHS for every coupled part": {"backend": "milp"},
    "no dynamic program (every coupled group searched)": {"dynamic_program": False},
    "CP-SAT's short try on groups of many shared blockers or few kinds":
        {"milp_shared": 10**9, "milp_kinds": 0.0},
    "no group taken at once on the ceilings' word": {"early_rest": -1.0},
    "each source's options for HiGHS (kill_steps, off as shipped)": {"kill_steps": True},
}
"""Each configuration: the fields of :class:`SearchSettings` it changes from the shipped
ones."""

Maker = Callable[[int], Document]

FAMILIES: dict[str, tuple[str, Maker, Maker]] = {
    "shared5": ("100 attackers, 300 blockers, 5% blocking 2-3",
                lambda seed: generators.shared_blockers(100, 300, 0.05, seed),
                lambda seed: generators.shared_blockers(10, 30, 0.05, seed)),
    "shared30-A30": ("30 attackers, 90 blockers, 30% blocking 2-3",
                     lambda seed: generators.shared_blockers(30, 90, 0.3, seed),
                     lambda seed: generators.shared_blockers(10, 30, 0.3, seed)),
    "shared30-A100": ("100 attackers, 300 blockers, 30% blocking 2-3",
                      lambda seed: generators.shared_blockers(100, 300, 0.3, seed),
                      lambda seed: generators.shared_blockers(12, 36, 0.3, seed)),
    "shared50-A30": ("30 attackers, 90 blockers, 50% blocking 2-3",
                     lambda seed: generators.shared_blockers(30, 90, 0.5, seed),
                     lambda seed: generators.shared_blockers(10, 30, 0.5, seed)),
    "tokens": ("30 attackers, 90 tokens of four kinds, 30% blocking 2-3",
               lambda seed: generators.token_swarm(30, 90, 0.3, seed),
               lambda seed: generators.token_swarm(10, 30, 0.3, seed)),
    "ranks": ("160 tramplers on 80 players, two each, each with blockers of its own",
              lambda seed: generators.split_ranks(160, seed),
              lambda seed: generators.split_ranks(20, seed)),
    "pileup": ("200 attackers on 4 planeswalkers and a player",
               lambda seed: generators.planeswalker_pileup(200, seed),
               lambda seed: generators.planeswalker_pileup(20, seed)),
}
"""Family -> (what an instance is, full-size maker, quick maker)."""


def configured(changes: dict[str, Any]) -> SearchSettings:
    """The shipped settings with ``changes`` applied: a value passed to each solve, so
    nothing global changes while other threads search."""
    return SearchSettings(**changes)


def time_solve(doc: Document, repeat: int, time_limit: float,
               settings: SearchSettings | None = None) -> tuple[float, dict[str, Any]]:
    """Median seconds of ``repeat`` end-to-end solves with ``settings``, and the last
    answer. Each solve reads the document afresh, as the benchmark's runs do: with the
    cache of recent small documents left on, the first configuration of an instance paid
    the reading and the legal space that every later one found kept (the pile-up of 200
    as shipped 9.5 ms, against 8.4 to 8.7 for settings that do not touch it)."""
    times = []
    answer: dict[str, Any] = {}
    chosen = SearchSettings() if settings is None else settings
    for _ in range(repeat):
        api.forget_spaces()
        started = time.perf_counter()
        answer = dict(api.solve(doc, time_limit=time_limit, settings=chosen))
        times.append(time.perf_counter() - started)
    return statistics.median(times), answer


def run(families: Sequence[str], seeds: int, repeat: int, quick: bool,
        time_limit: float) -> dict[str, Any]:
    """Every configuration on every instance; raises ``SystemExit(1)`` on a mismatch."""
    rows: list[dict[str, Any]] = []
    jobs = [(f, s) for f in families for s in range(seeds)]
    for family, seed in tqdm(jobs, desc="settings", unit="instance", file=sys.stderr):
        _, full, small = FAMILIES[family]
        doc = (small if quick else full)(seed)
        row: dict[str, Any] = {"family": family, "seed": seed, "seconds": {}}
        reference: tuple[str, dict[str, int]] | None = None
        # Round after round, every configuration once in each, forward then backward, so
        # that neither what the process warms up on a new instance nor what the solve
        # before leaves behind (the slowest configuration's) falls on one configuration
        # each time: each has other neighbours from one round to the next.
        times: dict[str, list[float]] = {name: [] for name in CONFIGS}
        for round_ in range(repeat):
            turn = list(CONFIGS.items())
            for name, changes in turn if round_ % 2 == 0 else reversed(turn):
                seconds, answer = time_solve(doc, 1, time_limit, configured(changes))
                got = (answer["status"], answer["objective"])
                if reference is None:
                    reference = got
                elif got != reference:
                    print(f"mismatch on {family} seed {seed}: {name} gives {got}, the "
                          f"shipped settings {reference}", file=sys.stderr)
                    raise SystemExit(1)
                times[name].append(seconds)
        row["seconds"] = {name: statistics.median(spent) for name, spent in times.items()}
        row["status"] = reference[0] if reference else None
        rows.append(row)
    return {"meta": {"when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                     "cpus": os.cpu_count(), "python": platform.python_version(),
                     "trample_build": native.describe(),
                     "repeat": repeat, "seeds": seeds, "quick": quick},
            "configs": CONFIGS, "rows": rows}


def _fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def markdown(results: dict[str, Any]) -> str:
    """The table: per family, the total of the instances' median times per configuration,
    and its ratio to the shipped settings (above 1: switching the setting off is slower)."""
    meta = results["meta"]
    names = list(results["configs"])
    lines = [
        "# What each search setting is worth",
        "",
        f"`python -m benchmarks.settings`, {meta['when']}, {meta['cpus']} CPUs (shared, "
        f"noisy), trample: {meta.get('trample_build', 'pure Python')}; "
        f"{meta['seeds']} seeds per family, median of {meta['repeat']} end-to-end "
        "solves per instance (parsing included; the configurations in turn, one solve "
        "each per round, forward then backward), summed over the family's instances. "
        "Each column switches one setting off; the ratio is its time over the shipped "
        "settings' time in this run (above 1: the setting pays). Every configuration "
        "reached the same proved objective on every instance.",
        "",
        "| family | instances | " + " | ".join(names) + " |",
        "| --- | --- | " + " | ".join("---" for _ in names) + " |",
    ]
    for family, (what, _, _) in FAMILIES.items():
        rows = [r for r in results["rows"] if r["family"] == family]
        if not rows:
            continue
        totals = {n: sum(r["seconds"][n] for r in rows) for n in names}
        base = totals[names[0]]
        cells = [_fmt(base)] + [f"{_fmt(totals[n])}, {totals[n] / base:.2f}x"
                                for n in names[1:]]
        lines.append(f"| {family} | {what} | " + " | ".join(cells) + " |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.settings",
        description="Time trample's solve with each CP-SAT search setting switched off in "
                    "turn, on combats where CP-SAT does the work.")
    parser.add_argument("--family", action="append", choices=list(FAMILIES),
                        help="a family to run (repeatable; default: all)")
    parser.add_argument("--seeds", type=int, default=3, help="instances per family (3)")
    parser.add_argument("--repeat", type=int, default=3, help="solves per instance (3)")
    parser.add_argument("--time-limit", type=float, default=60.0,
                        help="trample's time limit per solve, seconds (60)")
    parser.add_argument("--quick", action="store_true",
                        help="small instances, one solve each (a smoke test)")
    add_study_out(parser, "settings")
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.repeat < 1:
        parser.error("--seeds and --repeat must be at least 1")
    check_seconds(parser, args.time_limit, "--time-limit")
    repeat = 1 if args.quick else args.repeat
    results = run(args.family or list(FAMILIES), args.seeds, repeat, args.quick,
                  args.time_limit)
    write_study(args.out, "settings", results, markdown(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
