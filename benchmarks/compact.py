"""The compact MILP a user with a MIP solver would write for these combats, read straight
from the combat/1 document (no part of trample is used to build or solve it).

The formulation:

- an integer amount per legal (source, recipient) pair (SPEC §2's table); a source with
  one recipient has no choice and is folded into constants;
- each source assigns exactly its power (510.1a);
- per blocker that matters (one whose death is worth something, or that stands between a
  trampler and what it attacks) one binary "lethally assigned", deathtouch included in
  the same row: ``sum(other damage) + need * sum(deathtouch damage) >= need * lethal``
  (702.2c: any amount from a deathtouch source is lethal); a creature of negative value
  gets the converse rows too, so that the model cannot kill it while claiming it alive;
- per trampler the 702.19b gate as big-M rows: ``amount past the blockers <= power *
  lethal[b]`` for each of its blockers ``b``; trample over planeswalkers likewise gates
  the planeswalker's controller on a binary "loyalty-assigned" (702.19c, e);
- per defending player within reach a binary "dealt lethal damage";
- only the terms of SPEC §4 that can vary on the combat (of ``lethal``, ``kills``,
  ``planeswalker_kills``, ``player_damage``, ``planeswalker_damage``), as one weighted sum
  whose weights make it lexicographic (each term outweighs the whole range of the later
  ones);
- one HiGHS solve, relative gap 0: by default through highspy (the HiGHS trample
  itself uses), or through SciPy (``scipy.optimize.milp``), see :func:`compact_milp`.

It covers the regular damage step of the benchmark's families (trample, trample over
planeswalkers, deathtouch, indestructible, marked damage, values, planeswalkers in and
out of combat); a document with anything else (first strike, banding, battles,
damage-assignment effects, prevention, a ``blocked`` attacker with no blocker) is refused
with :class:`Unmodeled`.
"""

from __future__ import annotations

import math
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_array

from benchmarks.baselines import MAX_WEIGHTED, Outcome, Status

TERM_ORDER = ("lethal", "kills", "planeswalker_kills", "player_damage", "planeswalker_damage")
"""The terms the compact model can hold, most important first (SPEC §4's default order
without the battle terms)."""
CREATURE_FIELDS = frozenset({"id", "controller", "power", "toughness", "damage", "value",
                             "keywords", "attacking", "blocking", "name"})
DOCUMENT_FIELDS = frozenset({"format", "active_player", "players", "creatures",
                             "planeswalkers", "step", "side", "objective", "time_limit"})
UNMODELED_KEYWORDS = ("first strike", "double strike", "banding", "bands with other")

Pair = tuple[str, str]
Lit = int | bool
"""A 0/1 column of the model by index, or a constant."""


class Unmodeled(ValueError):
    """The document holds something the compact model does not cover."""


def _keywords(creature: Mapping[str, Any]) -> set[str]:
    return {re.sub(r"[\s_-]+", " ", str(k)).strip().lower()
            for k in creature.get("keywords", ())}


@dataclass
class CompactModel:
    """The columns, rows and weighted objective of one combat, and how to read an answer."""

    terms: tuple[str, ...]
    lower: list[int] = field(default_factory=list)
    upper: list[int] = field(default_factory=list)
    names: list[str] = field(default_factory=list)
    rows: list[int] = field(default_factory=list)
    cols: list[int] = field(default_factory=list)
    data: list[int] = field(default_factory=list)
    row_lower: list[float] = field(default_factory=list)
    row_upper: list[float] = field(default_factory=list)
    amounts: dict[int, Pair] = field(default_factory=dict)
    """The amount columns and their (source, recipient) pairs."""
    fixed: dict[Pair, int] = field(default_factory=dict)
    """Pairs with no choice: a source with one recipient gives it all its power."""
    objective: dict[int, int] = field(default_factory=dict)
    offset: int = 0

    def column(self, name: str, lower: int, upper: int) -> int:
        """A new integer column; its index."""
        self.names.append(name)
        self.lower.append(lower)
        self.upper.append(upper)
        return len(self.names) - 1

    def row(self, coefs: Mapping[int, int], lower: float, upper: float) -> None:
        """``lower <= sum(coef * column) <= upper``."""
        r = len(self.row_lower)
        for col, coef in coefs.items():
            self.rows.append(r)
            self.cols.append(col)
            self.data.append(coef)
        self.row_lower.append(lower)
        self.row_upper.append(upper)

    def span(self, coefs: Mapping[int, int]) -> int:
        """How far sum(coef * column) can move over the columns' bounds."""
        return sum(abs(c) * (self.upper[v] - self.lower[v]) for v, c in coefs.items())


def build(doc: Mapping[str, Any]) -> CompactModel:
    """The compact model of the attackers' regular-step assignment of ``doc``.

    Raises :class:`Unmodeled` for a document outside what the model covers (see the
    module's docstring).
    """
    extra = set(doc) - DOCUMENT_FIELDS
    if extra:
        raise Unmodeled(f"document field {sorted(extra)[0]!r} is not modeled")
    if doc.get("side", "attackers") != "attackers":
        raise Unmodeled("only the attackers' assignment is modeled")
    active = doc["active_player"]
    life = {p["id"]: p.get("life", 20) for p in doc["players"]}
    walkers = {w["id"]: w for w in doc.get("planeswalkers", ())}
    creatures = doc["creatures"]
    blockers_of: dict[str, list[str]] = {}
    for c in creatures:
        if set(c) - CREATURE_FIELDS:
            raise Unmodeled(f"creature field {sorted(set(c) - CREATURE_FIELDS)[0]!r} of "
                            f"{c['id']} is not modeled")
        if any(k.startswith(UNMODELED_KEYWORDS) for k in _keywords(c)):
            raise Unmodeled(f"{c['id']}: first strike, double strike and banding are not "
                            "modeled")
        for a in c.get("blocking", ()):
            blockers_of.setdefault(a, []).append(c["id"])
    if doc.get("step", "regular") != "regular":
        raise Unmodeled("only the regular damage step is modeled")

    m = CompactModel(terms=())
    into: dict[str, dict[int, int]] = {}  # recipient -> amount columns (coefficient 1)
    deathtouch_into: dict[str, dict[int, int]] = {}
    fixed_into: dict[str, int] = {}
    fixed_deathtouch: set[str] = set()
    gates: list[tuple[int, int, list[str], str | None]] = []
    """(amount column, the source's power, blockers that must be lethally assigned,
    planeswalker that must be loyalty-assigned)."""

    # Who assigns to whom (SPEC §2), and all of its power (510.1a).
    for a in creatures:
        target = a.get("attacking")
        power = a.get("power", 0)
        if target is None or power <= 0:
            continue
        kw = _keywords(a)
        over_walkers = "trample over planeswalkers" in kw
        trample = over_walkers or "trample" in kw
        deathtouch = "deathtouch" in kw
        walker = walkers.get(target)
        live = target in life or (walker is not None and walker.get("in_combat", True))
        blockers = blockers_of.get(a["id"], [])
        recipients: list[tuple[str, bool, str | None]] = []  # (id, past blockers, walker)
        if not blockers:
            if live:
                recipients.append((target, False, None))
            if walker is not None and over_walkers:
                recipients.append((walker["controller"], False, target if live else None))
        else:
            recipients += [(b, False, None) for b in blockers]
            if trample and live:
                recipients.append((target, True, None))
            if trample and walker is not None and over_walkers:
                recipients.append((walker["controller"], True, target if live else None))
        if not recipients:  # 506.4c: nothing left to assign to
            continue
        if len(recipients) == 1:
            (r, _, _), = recipients
            m.fixed[(a["id"], r)] = power
            fixed_into[r] = fixed_into.get(r, 0) + power
            if deathtouch:
                fixed_deathtouch.add(r)
            continue
        total: dict[int, int] = {}
        for r, past, walker_first in recipients:
            col = m.column(f"{a['id']}->{r}", 0, power)
            m.amounts[col] = (a["id"], r)
            total[col] = 1
            (deathtouch_into if deathtouch and r not in life and r not in walkers
             else into).setdefault(r, {})[col] = 1
            if past or walker_first is not None:
                gates.append((col, power, blockers if past else [], walker_first))
        m.row(total, power, power)

    # One binary per blocker that matters: lethally assigned (510.1e, 702.2c).
    gating = {b for _, _, walls, _ in gates for b in walls}
    lethal: dict[str, Lit] = {}
    kills: dict[int, int] = {}
    kills_constant = 0
    for c in creatures:
        if not c.get("blocking"):
            continue
        cid = c["id"]
        value = 0 if "indestructible" in _keywords(c) else c.get("value", 1)
        need = c["toughness"] - c.get("damage", 0) - fixed_into.get(cid, 0)
        plain, touch = into.get(cid, {}), deathtouch_into.get(cid, {})
        lit: Lit
        if need <= 0 or cid in fixed_deathtouch:
            lit = True
        elif not plain and not touch:
            lit = False
        elif value == 0 and cid not in gating:
            continue
        else:
            lit = m.column(f"lethal[{cid}]", 0, 1)
            m.row({**plain, **{v: need for v in touch}, lit: -need}, 0, math.inf)
            if value < 0:  # the converse: not lethal unless the binary says so
                reach = sum(m.upper[v] for v in plain)
                if reach >= need:
                    m.row({**plain, lit: -(reach - need + 1)}, -math.inf, need - 1)
                for v in touch:
                    m.row({v: 1, lit: -m.upper[v]}, -math.inf, 0)
        lethal[cid] = lit
        if value != 0:
            if lit is True:
                kills_constant += value
            elif lit is not False:
                kills[lit] = value

    # Planeswalkers in combat: loyalty-assigned (702.19c).
    loyal: dict[str, Lit] = {}
    for wid, w in walkers.items():
        if not w.get("in_combat", True):
            continue
        need = w["loyalty"] - fixed_into.get(wid, 0)
        incoming = into.get(wid, {})
        if need <= 0:
            loyal[wid] = True
        elif sum(m.upper[v] for v in incoming) < need:
            loyal[wid] = False
        else:
            b = m.column(f"loyal[{wid}]", 0, 1)
            m.row({**incoming, b: -need}, 0, math.inf)
            loyal[wid] = b

    # 702.19b-e: past the blockers only once each is lethally assigned, to the
    # planeswalker's controller only once the planeswalker is loyalty-assigned.
    for col, power, walls, walker_id in gates:
        for lit in [*(lethal.get(b, False) for b in walls),
                    *([loyal[walker_id]] if walker_id is not None else [])]:
            if lit is False:
                m.upper[col] = 0
            elif lit is not True:
                m.row({col: 1, lit: -power}, -math.inf, 0)

    # Defending players within reach: dealt lethal damage (SPEC §4 ``lethal``).
    lethal_players: dict[int, int] = {}
    lethal_constant = 0
    for pid, points in life.items():
        if pid == active:
            continue
        need = points - fixed_into.get(pid, 0)
        incoming = into.get(pid, {})
        if need <= 0:
            lethal_constant += 1
        elif sum(m.upper[v] for v in incoming) >= need:
            b = m.column(f"dead[{pid}]", 0, 1)
            m.row({**incoming, b: -need}, 0, math.inf)
            lethal_players[b] = 1

    expressions = {
        "lethal": (lethal_players, lethal_constant),
        "kills": (kills, kills_constant),
        "planeswalker_kills": ({v: 1 for v in loyal.values() if not isinstance(v, bool)},
                               sum(1 for v in loyal.values() if v is True)),
        "player_damage": ({v: 1 for p in life if p != active for v in into.get(p, {})},
                          sum(n for p, n in fixed_into.items() if p in life and p != active)),
        "planeswalker_damage": ({v: 1 for w in walkers for v in into.get(w, {})},
                                sum(n for w, n in fixed_into.items() if w in walkers)),
    }
    varying = [t for t in TERM_ORDER if m.span(expressions[t][0]) > 0] or ["kills"]
    m.terms = tuple(varying)
    weight = 1
    for term in reversed(varying):
        coefs, constant = expressions[term]
        for v, c in coefs.items():
            m.objective[v] = m.objective.get(v, 0) + weight * c
        m.offset += weight * constant
        weight *= m.span(coefs) + 1
    if weight >= MAX_WEIGHTED:
        raise Unmodeled("the weighted objective does not fit in 2**53")
    return m


def question(doc: Mapping[str, Any]) -> tuple[str, ...]:
    """The terms the compact model weighs for ``doc`` (those that can vary on it), the
    question trample is asked alongside it."""
    return build(doc).terms


Backend = Literal["highspy", "scipy", "scipy-presolve"]
BACKENDS: tuple[Backend, ...] = ("highspy", "scipy", "scipy-presolve")


def compact_milp(doc: Mapping[str, Any], time_limit: float,
                 backend: Backend = "highspy") -> Outcome:
    """Build the compact model of ``doc`` and solve it with HiGHS (relative gap 0) under
    ``time_limit``; the assignment, and the terms it weighs in ``extra["terms"]``.

    ``backend``: ``highspy``, the HiGHS that trample depends on (1.16), called directly;
    ``scipy``, ``scipy.optimize.milp`` with presolve off; ``scipy-presolve``, with it on.
    SciPy's bundled HiGHS (1.12 in SciPy 1.17) answers some of these models wrong with
    presolve on: a proved "optimum" short of the real one (``python -m
    benchmarks.compact`` counts them)."""
    try:
        m = build(doc)
    except Unmodeled as exc:
        return Outcome("skipped", None, note=str(exc))
    n = len(m.names)
    if n == 0:  # no choice anywhere: the one legal assignment
        return Outcome("optimal", dict(m.fixed), m.offset, m.offset,
                       extra={"terms": list(m.terms), "columns": 0, "rows": 0})
    cost = np.zeros(n)
    for v, w in m.objective.items():
        cost[v] = -w  # both minimize
    extra: dict[str, object] = {"terms": list(m.terms), "columns": n,
                                "rows": len(m.row_lower), "backend": backend}
    if backend in ("scipy", "scipy-presolve"):
        solved = _scipy(m, cost, time_limit, presolve=backend == "scipy-presolve")
    else:
        solved = _highspy(m, cost, time_limit)
    proved, values, objective, bound, message = solved
    extra["message"] = message
    bound_value = None if bound is None or not np.isfinite(bound) else m.offset - bound
    if values is None:
        return Outcome("unknown", None, bound=bound_value, extra=extra)
    amounts = dict(m.fixed)
    for col, pair in m.amounts.items():
        amount = round(values[col])
        if amount > 0:
            amounts[pair] = amount
    status: Status = "optimal" if proved else "feasible"
    return Outcome(status, amounts, m.offset - objective, bound_value, extra=extra)


Solved = tuple[bool, Sequence[float] | None, float, float | None, str]
"""Proved optimal, the column values (None: no solution), the objective, the dual bound
and the solver's word on it."""


def _matrix(m: CompactModel, n: int) -> Any:
    return coo_array((m.data, (m.rows, m.cols)), shape=(len(m.row_lower), n)).tocsr()


def _scipy(m: CompactModel, cost: np.ndarray, time_limit: float, presolve: bool) -> Solved:
    n = len(cost)
    constraints = [LinearConstraint(_matrix(m, n), m.row_lower, m.row_upper)] \
        if m.row_lower else []
    result = milp(cost, integrality=np.ones(n), bounds=Bounds(m.lower, m.upper),
                  constraints=constraints,
                  options={"time_limit": time_limit, "mip_rel_gap": 0.0,
                           "presolve": presolve})
    bound = getattr(result, "mip_dual_bound", None)
    return (result.status == 0, result.x, float(result.fun) if result.x is not None
            else math.nan, bound, str(result.message))


def _highspy(m: CompactModel, cost: np.ndarray, time_limit: float) -> Solved:
    from highspy import _core as highs  # the plain solver: highspy.Highs prints a banner

    from trample.solver.optimize.highs import THREADS

    n = len(cost)
    h = highs._Highs()
    # HiGHS's scheduler is one per process and refuses a run that asks for another
    # number of threads than it was started with: with HiGHS's default here, every later
    # HiGHS search of trample in this process was refused (and settled by CP-SAT: a
    # token swarm of 30 x 90 took 1.4 s instead of 25 ms). So the same number as trample.
    for option, value in (("output_flag", False), ("mip_rel_gap", 0.0),
                          ("time_limit", time_limit), ("threads", THREADS)):
        h.setOptionValue(option, value)
    empty = np.zeros(0, dtype=np.int32)
    h.addCols(n, cost, np.array(m.lower, dtype=np.float64),
              np.array(m.upper, dtype=np.float64), 0, empty, empty, np.zeros(0))
    h.changeColsIntegrality(n, np.arange(n, dtype=np.int32),
                            np.full(n, highs.HighsVarType.kInteger))
    if m.row_lower:
        a = _matrix(m, n)
        h.addRows(a.shape[0], np.array(m.row_lower, dtype=np.float64),
                  np.array(m.row_upper, dtype=np.float64), a.nnz,
                  a.indptr[:-1].astype(np.int32), a.indices.astype(np.int32),
                  a.data.astype(np.float64))
    h.run()
    status = h.getModelStatus()
    info = h.getInfo()
    has = info.primal_solution_status == 2  # kSolutionStatusFeasible
    return (status == highs.HighsModelStatus.kOptimal and has,
            list(h.getSolution().col_value) if has else None,
            info.objective_function_value, info.mip_dual_bound,
            h.modelStatusToString(status))


# -- which HiGHS ---------------------------------------------------------------------------

def study(seeds: int, repeat: int, time_limit: float) -> dict[str, Any]:
    """Each backend on small combats (its proved answers against trample's and brute
    force's, on the model's terms) and on the benchmark's coupled instances (median time
    of ``repeat`` runs, the backends taken in turn)."""
    import statistics
    import time

    from benchmarks import generators
    from benchmarks.baselines import brute_force
    from benchmarks.checks import MethodResult, assess
    from benchmarks.runner import FAMILIES, _seed
    from trample.models.document.combat import Combat
    from trample.solver.interface import api
    from trample.solver.rules.assignment import parse_assignment
    from trample.solver.rules.legal_space import legal_space

    wrong: dict[str, list[str]] = {b: [] for b in BACKENDS}
    checked = 0
    for seed in range(seeds):
        docs = {f"small-{seed}": generators.small_combat(seed),
                f"pileup-A3-{seed}": generators.planeswalker_pileup(3, seed)}
        for label, doc in docs.items():
            terms = question(doc)
            space = legal_space(Combat.from_json(doc), "attackers")
            answer = api.solve(doc, objective=list(terms))
            mine = MethodResult("trample", status=answer["status"])
            assess(mine, space, parse_assignment(space.combat, answer["assignment"]), terms)
            brute = brute_force(space, terms)
            if brute.status == "optimal":
                exact = MethodResult("brute", status="optimal")
                assess(exact, space, brute.amounts, terms)
                if exact.objective != mine.objective:
                    raise AssertionError(f"{label}: trample and brute force differ")
            checked += 1
            for backend in BACKENDS:
                out = compact_milp(doc, time_limit, backend)
                theirs = MethodResult(backend, status=out.status)
                assess(theirs, space, out.amounts, terms)
                if out.status != "optimal" or not theirs.legal \
                        or theirs.objective != mine.objective:
                    wrong[backend].append(label)
    timings: dict[str, dict[str, float]] = {}
    for family, size in (("shared5", 30), ("shared5", 100), ("shared30", 30),
                         ("shared30", 100), ("tokens", 30), ("tokens", 100),
                         ("pileup", 200), ("ranks", 160)):
        name, _, doc = FAMILIES[family].make(size, _seed(family, size, 0))
        times: dict[str, list[float]] = {b: [] for b in BACKENDS}
        for _ in range(repeat):
            for backend in BACKENDS:
                started = time.perf_counter()
                compact_milp(doc, time_limit, backend)
                times[backend].append(time.perf_counter() - started)
        timings[name] = {b: statistics.median(t) for b, t in times.items()}
    return {"checked": checked, "wrong": wrong, "timings": timings}


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m benchmarks.compact``: which HiGHS the compact model is solved with."""
    import argparse

    from benchmarks.output import add_study_out, write_study

    parser = argparse.ArgumentParser(prog="python -m benchmarks.compact",
                                     description=study.__doc__)
    parser.add_argument("--seeds", type=int, default=500)
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--time-limit", type=float, default=60.0)
    add_study_out(parser, "compact")
    args = parser.parse_args(argv)
    results = study(args.seeds, args.repeat, args.time_limit)
    lines = ["# The compact MILP: which HiGHS", "",
             f"{results['checked']} small combats (the search loop's, and pile-ups of 3 "
             "attackers on planeswalkers), each backend's answer against trample's (itself "
             "checked against brute force where it runs) on the model's terms:", "",
             "| backend | wrong or unproved | first ones |", "| --- | ---: | --- |"]
    for backend, found in results["wrong"].items():
        lines.append(f"| {backend} | {len(found)} | {', '.join(found[:5]) or '-'} |")
    lines += ["", f"Median time of {args.repeat} runs, backends in turn:", "",
              "| instance | " + " | ".join(BACKENDS) + " |",
              "| --- |" + " ---: |" * len(BACKENDS)]
    for name, row in results["timings"].items():
        lines.append(f"| {name} | " + " | ".join(f"{1e3 * row[b]:.1f} ms" for b in BACKENDS)
                     + " |")
    write_study(args.out, "compact", results, "\n".join(lines) + "\n")
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main())
