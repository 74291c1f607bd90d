"""``python -m benchmarks.kill_branch``: would a branch and bound of its own, with the
ceiling on ``kills`` as its bound, settle the coupled groups sooner than the search?

For each ``family=size`` named and each seed, trample solves the combat on one thread
(the compact model's question, :func:`benchmarks.compact.question`) and every group it
searches is kept (what :func:`trample.solver.optimize.solve._search` is given). Each
group is then searched again as shipped (CPU time, the least of ``--repeat`` runs) and
measured, in CPU time:

- ``kills``: the ceiling (:func:`~trample.solver.optimize.kill_bound.kills_ceiling`), the
  most kills of any split (HiGHS on the model of options for ``kills`` alone), the
  answer's kills (after ``lethal`` where asked), the greedy split's kills;
- the root: the linear relaxation of the model of each source's options
  (:func:`~trample.solver.optimize.kill_steps.steps_model`, whose relaxation is the
  ceiling's Lagrangian bound) on ``kills`` alone and on the whole question, against the
  optimum in the model's units;
- a depth-first branch and bound on that relaxation (warm-started dual simplex in HiGHS,
  binaries branched first, the most fractional one, the value's floor compared with the
  best split known; no cuts, no presolve): its nodes and time, found from nothing and
  with the optimum given (so only the proof is left), up to ``--nodes`` nodes;
- a dive from the root (the binary of least value fixed at 0, or at 1 when that drops
  the relaxation below the root's floor, until the point is integral): whether it
  reaches the root's value, and its time.

The branch and bound here is a measuring device, written with HiGHS's linear programs;
the study asks how many nodes any method with this bound needs. Example:
``python -m benchmarks.kill_branch shared30=30 tokens=30 --seeds 8``.
"""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np
from highspy import _core as highs

from benchmarks import compact
from benchmarks.output import add_study_out, write_study
from benchmarks.runner import FAMILIES, _seed, family_sizes
from trample.solver import native
from trample.solver.interface import api
from trample.solver.optimize import solve
from trample.solver.optimize.greedy import greedy
from trample.solver.optimize.highs import new_highs
from trample.solver.optimize.kill_bound import kills_ceiling
from trample.solver.optimize.kill_steps import score_of, steps_model
from trample.solver.optimize.objectives import evaluate
from trample.solver.optimize.search_settings import SHIPPED
from trample.solver.rules.legal_space import LegalSpace, Part, Source

EPS = 1e-6
"""Floating-point noise forgiven on a relaxation's value and on a column's integrality."""


@dataclass(frozen=True)
class Group:
    """One group the search was given, and its answer."""

    instance: str
    seed: int
    space: LegalSpace
    parts: tuple[Part, ...]
    terms: tuple[str, ...]
    exclude: frozenset[str]
    answer: dict[tuple[str, str], int]

    @property
    def sources(self) -> list[Source]:
        """The group's sources."""
        return [s for part in self.parts for s in part.sources]


def collect(family: str, size: int, seed: int) -> list[Group]:
    """The groups trample searches on the combat ``family=size`` of ``seed``, one
    thread, asked the compact model's question."""
    name, _, doc = FAMILIES[family].make(size, _seed(family, size, seed))
    terms = list(compact.question(doc))
    kept: list[Group] = []
    original = solve._search

    def spied(space: LegalSpace, group: Sequence[Part], terms_: Sequence[str],
              exclude: frozenset[str], *args: Any, **kwargs: Any) -> Any:
        found = original(space, group, terms_, exclude, *args, **kwargs)
        kept.append(Group(name, seed, space, tuple(group), tuple(terms_), exclude,
                          dict(found[1])))
        return found

    solve._search = spied  # type: ignore[assignment]
    try:
        api.forget_spaces()
        api.solve(doc, objective=terms, settings=replace(SHIPPED, threads=1))
    finally:
        solve._search = original  # type: ignore[assignment]
    return kept


def _cpu(fn: Callable[[], Any], repeat: int) -> float:
    """The least CPU seconds of ``repeat`` calls."""
    best = math.inf
    for _ in range(repeat):
        started = time.process_time()
        fn()
        best = min(best, time.process_time() - started)
    return best


def _relaxation(lp: Any) -> Any:
    """A HiGHS instance holding ``lp``'s linear relaxation (no presolve)."""
    saved = lp.integrality_
    lp.integrality_ = []
    h = new_highs(("presolve", "off"))
    h.passModel(lp)
    lp.integrality_ = saved
    return h


def branch_and_bound(lp: Any, best: float, cap: int) -> tuple[int, float, float | None]:
    """Depth first on ``lp``'s relaxation from the best value known ``best``: the nodes
    solved, their CPU seconds, and the best value when every node is settled (None past
    ``cap`` nodes)."""
    h = _relaxation(lp)
    n = lp.num_col_
    columns = np.arange(n, dtype=np.int32)
    low0, high0 = np.array(lp.col_lower_), np.array(lp.col_upper_)
    binary = (low0 == 0) & (high0 == 1)
    stack = [(low0, high0)]
    nodes, seconds = 0, 0.0
    while stack:
        low, high = stack.pop()
        nodes += 1
        if nodes > cap:
            return nodes - 1, seconds, None
        h.changeColsBounds(n, columns, low, high)
        started = time.process_time()
        h.run()
        seconds += time.process_time() - started
        if h.getModelStatus() != highs.HighsModelStatus.kOptimal:
            continue
        value = h.getInfo().objective_function_value
        if math.floor(value + EPS) <= best:
            continue
        x = np.array(h.getSolution().col_value)
        frac = np.abs(x - np.round(x))
        if (frac[binary] > EPS).any():
            frac = np.where(binary, frac, 0.0)
        j = int(np.argmax(frac))
        if frac[j] <= EPS:
            best = math.floor(value + EPS)
            continue
        down_high, up_low = high.copy(), low.copy()
        down_high[j] = math.floor(x[j])
        up_low[j] = math.ceil(x[j])
        stack.append((low, down_high))
        stack.append((up_low, high))
    return nodes, seconds, best


def _milp_optimum(lp: Any) -> int:
    """The optimum of ``lp`` (every column integer), by HiGHS to a zero gap."""
    h = new_highs(("mip_rel_gap", 0.0), ("mip_abs_gap", 0.5))
    h.passModel(lp)
    h.run()
    if h.getModelStatus() != highs.HighsModelStatus.kOptimal:
        raise AssertionError("HiGHS did not prove the model of options")
    return round(h.getInfo().objective_function_value)


def dive(lp: Any) -> tuple[float, bool, float]:
    """The root relaxation's value, whether a dive from it reaches that value's floor at
    an integral point, and the dive's CPU seconds (root included)."""
    started = time.process_time()
    h = _relaxation(lp)
    h.run()
    root = h.getInfo().objective_function_value
    target = math.floor(root + EPS)
    binary = (np.array(lp.col_lower_) == 0) & (np.array(lp.col_upper_) == 1)
    x = np.array(h.getSolution().col_value)

    def holds() -> bool:
        return (h.getModelStatus() == highs.HighsModelStatus.kOptimal
                and math.floor(h.getInfo().objective_function_value + EPS) >= target)

    while True:
        frac = np.abs(x - np.round(x))
        if frac.max() <= EPS:
            return root, True, time.process_time() - started
        open_ = np.where((frac > EPS) & binary)[0]
        if not len(open_):
            open_ = np.where(frac > EPS)[0]
        j = int(open_[np.argmin(x[open_])])
        settled = False
        for v in (math.floor(x[j]), math.ceil(x[j])):
            h.changeColBounds(j, float(v), float(v))
            h.run()
            if holds():
                settled = True
                break
        if not settled:
            return root, False, time.process_time() - started
        x = np.array(h.getSolution().col_value)


def measure(group: Group, repeat: int, cap: int) -> dict[str, Any]:
    """The figures of one group (module docstring)."""
    space, sources, terms = group.space, group.sources, list(group.terms)
    present = _cpu(lambda: solve._search(space, list(group.parts), terms, group.exclude,
                                         None, replace(SHIPPED, threads=1)), repeat)
    ceiling = kills_ceiling(space, sources)
    kills = {"ceiling": None if ceiling is None else ceiling.value,
             "optimum": evaluate(space, group.answer, ["kills"], group.exclude)["kills"],
             "greedy": evaluate(space, greedy(space, sources), ["kills"],
                                group.exclude)["kills"]}
    row: dict[str, Any] = {"instance": group.instance, "seed": group.seed,
                           "sources": len(sources),
                           "pairs": sum(len(s.recipients) for s in sources),
                           "present": present, "kills": kills}
    row["kills_model"] = None
    for label, asked in (("kills_model", ["kills"]), ("question", terms)):
        if label == "kills_model" and "kills" not in terms:
            continue
        model = steps_model(space, sources, asked, group.exclude)
        if model is None:
            row[label] = None
            continue
        optimum = _milp_optimum(model.lp)
        if label == "question":
            answered = score_of(space, group.answer, asked, group.exclude, model.scale)
            if answered != optimum:
                raise AssertionError(f"{group.instance} seed {group.seed}: the search's "
                                     f"answer is worth {answered}, the model's optimum "
                                     f"{optimum}")
        else:
            # Alone, not after ``lethal``: the most kills of any split, in the ceiling's
            # units.
            kills["alone"] = optimum + evaluate(space, {}, ["kills"], group.exclude)["kills"]
        root, reached, dive_seconds = dive(model.lp)
        found = branch_and_bound(model.lp, -math.inf, cap)
        proof = branch_and_bound(model.lp, optimum, cap)
        if found[2] is not None and found[2] != optimum:
            raise AssertionError(f"{group.instance} seed {group.seed}: the branch and bound "
                                 f"found {found[2]}, the search {optimum} ({label})")
        row[label] = {"optimum": optimum, "root": root,
                      "tight": math.floor(root + EPS) == optimum,
                      "dive": {"reached": reached and math.floor(root + EPS) == optimum,
                               "seconds": dive_seconds},
                      "search": {"nodes": found[0], "seconds": found[1],
                                 "settled": found[2] is not None},
                      "proof": {"nodes": proof[0], "seconds": proof[1],
                                "settled": proof[2] is not None}}
    return row


def _ms(seconds: float) -> str:
    return f"{1e3 * seconds:.1f}"


def report(rows: Sequence[dict[str, Any]], argv: Sequence[str], cap: int) -> str:
    """The study's Markdown: one row per group, then a summary per instance."""
    lines = ["# A branch and bound with the ceiling on kills, on the searched groups", "",
             f"`python -m benchmarks.kill_branch {' '.join(argv)}`. CPU ms, one thread. "
             "`root`: the relaxation's value less the optimum (the question in the "
             f"model's weighted units). Nodes up to {cap}; `>` not settled.", "",
             "| group | seed | pairs | search as shipped | kills: ceiling / most / "
             "answer / greedy | kills: root gap, nodes (found / proof) | question: root gap, nodes "
             "(found / proof), B&B ms | dive reaches, ms |",
             "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]

    def nodes(part: dict[str, Any], key: str) -> str:
        mark = "" if part[key]["settled"] else ">"
        return f"{mark}{part[key]['nodes']}"

    for row in rows:
        k, q = row.get("kills_model"), row.get("question")
        kills = row["kills"]
        kcell = "-" if k is None else (f"{k['root'] - k['optimum']:.2f}, "
                                       f"{nodes(k, 'search')} / {nodes(k, 'proof')}")
        qcell = "-" if q is None else (f"{q['root'] - q['optimum']:.2f}, "
                                       f"{nodes(q, 'search')} / {nodes(q, 'proof')}, "
                                       f"{_ms(q['search']['seconds'])}")
        dcell = "-" if q is None else (f"{'yes' if q['dive']['reached'] else 'no'}, "
                                       f"{_ms(q['dive']['seconds'])}")
        lines.append(f"| {row['instance']} | {row['seed']} | {row['pairs']} "
                     f"| {_ms(row['present'])} | {kills['ceiling']} / {kills.get('alone', '-')} / "
                     f"{kills['optimum']} / {kills['greedy']} | {kcell} | {qcell} | {dcell} |")
    lines += ["", "Per instance: groups; the ceiling on kills at the most kills of any split; the "
              "relaxation's floor at the optimum (kills alone, the question); groups "
              "the branch and bound settles from nothing within 10 nodes (kills, "
              "question); median nodes to settle the question from nothing and with the "
              "optimum given; dives that reach the optimum; CPU of the search as shipped "
              "and of the branch and bound on the question, summed (unsettled at the "
              "cap's time).", "",
              "| instance | groups | ceiling tight | root tight (kills / question) | "
              "settled in 10 nodes (kills / question) | median nodes, question (found / "
              "proof) | dives at the optimum | search as shipped, ms | B&B, ms |",
              "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for instance in dict.fromkeys(r["instance"] for r in rows):
        mine = [r for r in rows if r["instance"] == instance]
        ks = [r["kills_model"] for r in mine if r.get("kills_model")]
        qs = [r["question"] for r in mine if r.get("question")]

        def small(parts: list[dict[str, Any]]) -> int:
            return sum(p["search"]["settled"] and p["search"]["nodes"] <= 10 for p in parts)

        lines.append(
            f"| {instance} | {len(mine)} "
            f"| {sum(r['kills']['ceiling'] == r['kills'].get('alone') for r in mine)} "
            f"| {sum(k['tight'] for k in ks)} / {sum(q['tight'] for q in qs)} "
            f"| {small(ks)} / {small(qs)} "
            f"| {statistics.median(q['search']['nodes'] for q in qs) if qs else '-'} / "
            f"{statistics.median(q['proof']['nodes'] for q in qs) if qs else '-'} "
            f"| {sum(q['dive']['reached'] for q in qs)} "
            f"| {_ms(sum(r['present'] for r in mine))} "
            f"| {_ms(sum(q['search']['seconds'] for q in qs))} |")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Measure each ``family=size`` over ``--seeds`` seeds; write kill_branch.md and
    .json. Exit 2 on bad usage."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m benchmarks.kill_branch",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("instances", nargs="+", help="family=size, e.g. shared30=30")
    parser.add_argument("--seeds", type=int, default=8, help="seeds 0 to N-1 (default 8)")
    parser.add_argument("--repeat", type=int, default=3,
                        help="runs of the search as shipped per group (default 3)")
    parser.add_argument("--nodes", type=int, default=2000,
                        help="the branch and bound's node cap (default 2000)")
    add_study_out(parser, "kill_branch")
    args = parser.parse_args(args_list)
    if args.seeds < 1 or args.repeat < 1 or args.nodes < 1:
        parser.error("--seeds, --repeat and --nodes must be at least 1")
    plan = family_sizes(parser, args.instances)
    modules = native.status()["modules"]
    if isinstance(modules, list) and "trample.solver.optimize.solve" in modules:
        parser.error("the study reads the groups the search is given by replacing "
                     "solve._search, which the compiled build's callers do not see: run "
                     "it from the sources (TRAMPLE_PURE=1)")
    rows: list[dict[str, Any]] = []
    for family, size in plan:
        for seed in range(args.seeds):
            for group in collect(family, size, seed):
                rows.append(measure(group, args.repeat, args.nodes))
                print(f"{group.instance} seed {seed}: {len(rows)} groups", file=sys.stderr,
                      flush=True)
    write_study(args.out, "kill_branch", rows, report(rows, args_list, args.nodes))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
