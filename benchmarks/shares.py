"""``python -m benchmarks.shares``: trample against the monolithic models as more of the
blockers are shared.

The benchmark's families share 5% or 30% of the blockers; here 30 attackers and 90
blockers (or tokens) are drawn with 30%, 50% and 70% of them blocking two or three
attackers, on seeds of their own, and each is solved by trample end to end (reading
included, median of ``--repeat``) and once by each monolithic model of the benchmark
(:mod:`benchmarks.baselines`: HiGHS through SciPy, CP-SAT with two workers) under
``--baseline-limit``. Where two methods both prove their answer, the objectives must be
equal (exit 1 names the instance if not).

Results go to ``shares.md`` and ``shares.json`` in ``--out``.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from tqdm import tqdm

from benchmarks import generators
from benchmarks.baselines import Outcome, monolithic_cpsat, monolithic_milp
from benchmarks.generators import Document
from benchmarks.output import add_study_out, check_seconds, write_study
from benchmarks.settings import time_solve
from trample.models.document.combat import Combat
from trample.solver import native
from trample.solver.optimize.objectives import ASSIGNED_TERMS, evaluate
from trample.solver.rules.assignment import Amounts, parse_assignment
from trample.solver.rules.legal_space import LegalSpace, legal_space

SHARES = (0.3, 0.5, 0.7)
"""The shares of blockers that block two or three attackers."""
FAMILIES: dict[str, Callable[[int, int, float, int], Document]] = {
    "shared": generators.shared_blockers,
    "tokens": generators.token_swarm,
}
"""Family -> its generator (attackers, blockers, share, seed)."""
SEED_BASE = 7_000
"""Seeds here start at this, apart from the benchmark's and the tests'."""


def _baseline(name: str, model: Callable[[LegalSpace, Sequence[str], float], Outcome],
              doc: Document, limit: float) -> dict[str, Any]:
    """One solve of the whole combat by a monolithic model, timed from the document (as
    trample's solves are: reading it and its legal space included)."""
    started = time.perf_counter()
    outcome = model(legal_space(Combat.from_json(doc), "attackers"), ASSIGNED_TERMS, limit)
    return {"name": name, "seconds": time.perf_counter() - started,
            "status": outcome.status, "amounts": outcome.amounts}


def _assessed(space: LegalSpace, amounts: Amounts) -> tuple[int, ...]:
    """A split's value on the assigned-damage terms, on which the benchmark assesses every
    method (trample maximizes its default objective, whose terms equal these up to
    constants)."""
    got = evaluate(space, amounts, ASSIGNED_TERMS)
    return tuple(got[t] for t in ASSIGNED_TERMS)


def run(families: Sequence[str], shares: Sequence[float], seeds: int, attackers: int,
        repeat: int, baseline_limit: float) -> dict[str, Any]:
    """Every instance by every method; raises ``SystemExit(1)`` on a mismatch."""
    rows: list[dict[str, Any]] = []
    # OR-Tools, HiGHS and the first solve's caches load before anything is timed.
    time_solve(generators.shared_blockers(6, 18, 0.5, 0), 1, 60.0)
    monolithic_milp(legal_space(Combat.from_json(generators.tiny(2, 0)), "attackers"),
                    ASSIGNED_TERMS, 60.0)
    jobs = [(f, share, SEED_BASE + k) for f in families for share in shares
            for k in range(seeds)]
    for family, share, seed in tqdm(jobs, desc="shares", unit="instance", file=sys.stderr):
        try:
            doc = FAMILIES[family](attackers, 3 * attackers, share, seed)
        except ValueError as exc:  # a few attackers, all unblockable: nothing to measure
            print(f"shares: {family} {share:.0%} seed {seed} left out: {exc}",
                  file=sys.stderr)
            continue
        space = legal_space(Combat.from_json(doc), "attackers")
        seconds, answer = time_solve(doc, repeat, 3600.0)
        row: dict[str, Any] = {"family": family, "share": share, "seed": seed,
                               "attackers": attackers, "trample": seconds,
                               "status": answer["status"]}
        proved: dict[str, tuple[int, ...]] = {}
        if answer["status"] == "optimal":
            proved["trample"] = _assessed(space, parse_assignment(space.combat,
                                                               answer["assignment"]))
        for peer in (_baseline("highs", monolithic_milp, doc, baseline_limit),
                     _baseline("cpsat", monolithic_cpsat, doc, baseline_limit)):
            row[peer["name"]] = {"seconds": peer["seconds"], "status": peer["status"]}
            if peer["status"] == "optimal" and peer["amounts"] is not None:
                proved[peer["name"]] = _assessed(space, peer["amounts"])
        if len(set(proved.values())) > 1:
            print(f"mismatch on {family} {share:.0%} seed {seed}: {proved}", file=sys.stderr)
            raise SystemExit(1)
        rows.append(row)
    return {"meta": {"when": time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()),
                     "cpus": os.cpu_count(), "python": platform.python_version(),
                     "trample_build": native.describe(), "repeat": repeat,
                     "baseline_limit": baseline_limit},
            "rows": rows}


def _fmt(seconds: float) -> str:
    return f"{seconds * 1e3:.1f} ms" if seconds < 1 else f"{seconds:.2f} s"


def _peer(row: dict[str, Any], name: str) -> str:
    peer = row[name]
    ratio = peer["seconds"] / row["trample"]
    if peer["status"] == "optimal":
        return f"{_fmt(peer['seconds'])}, {ratio:.1f}x"
    return f"> {_fmt(peer['seconds'])} ({peer['status']}), ≥ {ratio:.1f}x"


def markdown(results: dict[str, Any]) -> str:
    """One line per instance, then the least ratio per family and share."""
    meta = results["meta"]
    lines = [
        "# trample against the monolithic models as blockers are shared more",
        "",
        f"`python -m benchmarks.shares`, {meta['when']}, {meta['cpus']} CPUs (shared, "
        f"noisy), trample: {meta.get('trample_build', 'pure Python')}; trample's time is "
        f"the median of {meta['repeat']} end-to-end solves (reading included), each "
        f"peer's one solve of the whole combat under {meta['baseline_limit']:g} s "
        "(\"x\": how many times longer than trample; \"≥\": stopped by the limit). "
        "Every answer proved by two methods has the same objective.",
        "",
        "| family | shared | seed | trample | HiGHS (MILP) | CP-SAT (monolithic) |",
        "| --- | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in results["rows"]:
        lines.append(f"| {r['family']}-A{r['attackers']} | {r['share']:.0%} | {r['seed']} "
                     f"| {_fmt(r['trample'])} ({r['status']}) | {_peer(r, 'highs')} "
                     f"| {_peer(r, 'cpsat')} |")
    lines += ["", "| family | shared | instances | least HiGHS / trample "
                  "| least CP-SAT / trample |", "| --- | ---: | ---: | ---: | ---: |"]
    groups: dict[tuple[str, float], list[dict[str, Any]]] = {}
    for r in results["rows"]:
        groups.setdefault((r["family"], r["share"]), []).append(r)
    for (family, share), rows in groups.items():
        least = {name: min(r[name]["seconds"] / r["trample"] for r in rows)
                 for name in ("highs", "cpsat")}
        lines.append(f"| {family} | {share:.0%} | {len(rows)} | {least['highs']:.1f}x "
                     f"| {least['cpsat']:.1f}x |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.shares",
        description="Time trample, HiGHS and CP-SAT on combats where 30%, 50% and 70% of "
                    "the blockers block two or three attackers.")
    parser.add_argument("--family", action="append", choices=list(FAMILIES),
                        help="a family to run (repeatable; default: both)")
    parser.add_argument("--share", action="append", type=float,
                        help="a share of shared blockers, 0 to 1 (repeatable; default: "
                             "0.3, 0.5 and 0.7)")
    parser.add_argument("--seeds", type=int, default=3, help="instances per share (3)")
    parser.add_argument("--attackers", type=int, default=30,
                        help="attackers per combat, 3 blockers each (30)")
    parser.add_argument("--repeat", type=int, default=5, help="trample's solves (5)")
    parser.add_argument("--baseline-limit", type=float, default=20.0,
                        help="each monolithic model's time limit, seconds (20)")
    parser.add_argument("--quick", action="store_true",
                        help="10 attackers, one seed, one solve each, the monolithic "
                             "models at most 5 s (a smoke test)")
    add_study_out(parser, "shares")
    args = parser.parse_args(argv)
    if args.seeds < 1 or args.repeat < 1 or not 2 <= args.attackers <= 400:
        parser.error("--seeds and --repeat must be at least 1, --attackers 2 to 400")
    check_seconds(parser, args.baseline_limit, "--baseline-limit")
    shares = args.share or list(SHARES)
    if any(not 0 <= s <= 1 for s in shares):
        parser.error("--share must be between 0 and 1")
    if args.quick:
        args.attackers, args.seeds, args.repeat = 10, 1, 1
        args.baseline_limit = min(args.baseline_limit, 5.0)
    results = run(args.family or list(FAMILIES), shares, args.seeds, args.attackers,
                  args.repeat, args.baseline_limit)
    write_study(args.out, "shares", results, markdown(results))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
