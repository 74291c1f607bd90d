"""The baselines trample is measured against, all reading the same legal space.

- :func:`greedy_declared` and :func:`greedy_by_value`: the greedy rule of open-source
  engines (lethal damage to blockers in order, the rest past them), in declaration order
  and with each source's blockers sorted by ``value``, highest first.
- :func:`monolithic_cpsat`: ONE CP-SAT model of the whole combat, no decomposition and no
  fast paths, the lexicographic objective of SPEC §4 as one weighted sum.
- :func:`monolithic_milp`: the same model as a MILP (indicator constraints as big-M),
  solved by the HiGHS that SciPy bundles (``scipy.optimize.milp``).
- :func:`brute_force`: every legal assignment, when there are at most 20,000.

The model (:func:`build_model`) is written once as variables and linear rows, some
enforced only when a 0/1 variable takes a value; the CP-SAT and MILP versions only
translate it.
"""

from __future__ import annotations

import math
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Literal

import numpy as np
from scipy.optimize import Bounds, LinearConstraint, milp
from scipy.sparse import coo_array

from trample.solver.count.census import Census
from trample.solver.count.work import CountOutOfReach
from trample.solver.optimize.greedy import greedy
from trample.solver.optimize.objectives import DAMAGE_KINDS, threshold_targets
from trample.solver.optimize.solve import best_of
from trample.solver.rules.assignment import Amounts
from trample.solver.rules.legal_space import LegalSpace, Recipient, Source

BRUTE_LIMIT = 20_000
"""Brute force runs only on combats with at most this many legal assignments."""
BRUTE_WORK = 20_000
"""Work allowed to the exact counter before brute force gives up on an instance."""
MAX_WEIGHTED = 2**53
"""The weighted objective must stay exact in a double (CP-SAT and HiGHS report floats)."""

Status = Literal["optimal", "feasible", "unknown", "heuristic", "skipped"]


@dataclass
class Outcome:
    """What a baseline answered: an assignment (or None), whether it is proved optimal,
    and for the exact models the weighted objective, its best bound and the gap."""

    status: Status
    amounts: Amounts | None
    objective_value: float | None = None
    bound: float | None = None
    note: str = ""
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def gap(self) -> float | None:
        """|bound - objective| / max(1, |objective|), in weighted-objective units."""
        if self.objective_value is None or self.bound is None:
            return None
        return abs(self.bound - self.objective_value) / max(1.0, abs(self.objective_value))


# -- greedy -------------------------------------------------------------------------------

def greedy_declared(space: LegalSpace) -> Outcome:
    """The greedy rule, blockers in declaration order."""
    return Outcome("heuristic", greedy(space))


def greedy_by_value(space: LegalSpace) -> Outcome:
    """The greedy rule, each source's blockers sorted by ``value`` (highest first); the
    player, planeswalker or battle past them stays last."""
    combat = space.combat

    def order(s: Source) -> list[Recipient]:
        return sorted(s.recipients, key=lambda r: (
            r.kind != "creature", -combat.creature(r.id).value if r.kind == "creature" else 0))

    return Outcome("heuristic", greedy(space, order=order))


# -- the monolithic model -----------------------------------------------------------------

Sense = Literal["==", "<=", ">="]
Literal01 = int | bool
"""A 0/1 model variable by index, or a constant."""


@dataclass(frozen=True, slots=True)
class Row:
    """sum(coef * var) SENSE rhs, enforced only when variable ``when[0]`` equals ``when[1]``
    (always when ``when`` is None)."""

    coefs: dict[int, int]
    sense: Sense
    rhs: int
    when: tuple[int, bool] | None = None


@dataclass
class Model:
    """Integer variables, linear rows and one weighted objective (to maximize)."""

    names: list[str] = field(default_factory=list)
    lower: list[int] = field(default_factory=list)
    upper: list[int] = field(default_factory=list)
    rows: list[Row] = field(default_factory=list)
    x: dict[tuple[str, str], int] = field(default_factory=dict)
    objective: dict[int, int] = field(default_factory=dict)
    offset: int = 0
    weights: tuple[int, ...] = ()

    def var(self, name: str, lower: int, upper: int) -> int:
        """A new integer variable; its index."""
        self.names.append(name)
        self.lower.append(lower)
        self.upper.append(upper)
        return len(self.names) - 1

    def span(self, coefs: dict[int, int]) -> tuple[int, int]:
        """The least and greatest value of sum(coef * var) over the variables' bounds."""
        lo = sum(c * (self.lower[v] if c > 0 else self.upper[v]) for v, c in coefs.items())
        hi = sum(c * (self.upper[v] if c > 0 else self.lower[v]) for v, c in coefs.items())
        return lo, hi


def build_model(space: LegalSpace, terms: Sequence[str]) -> Model:
    """The whole combat as one model: amounts, lethal and threshold indicators, the gates
    of SPEC §2, and the terms of SPEC §4 as one lexicographic weighted sum.

    Weights are mixed-radix: term i weighs the product of (range + 1) of every later term,
    so one unit of an earlier term outweighs any change in all later ones.
    """
    combat = space.combat
    m = Model()
    into: dict[str, list[int]] = {}
    deathtouch_into: dict[str, list[int]] = {}

    # Variables: the amount each source assigns to each of its recipients.
    for s in space.sources:
        for r in s.recipients:
            v = m.var(f"{s.id}->{r.id}", 0, s.power)
            m.x[(s.id, r.id)] = v
            into.setdefault(r.id, []).append(v)
            if s.deathtouch and r.kind == "creature":
                deathtouch_into.setdefault(r.id, []).append(v)

    # 510.1a: a creature that assigns combat damage assigns all of it.
    for s in space.sources:
        if s.recipients:
            m.rows.append(Row({m.x[(s.id, r.id)]: 1 for r in s.recipients}, "==", s.power))

    reach_memo: dict[tuple[str, int], Literal01] = {}

    def reach(target: str, need: int) -> Literal01:
        """A 0/1 equal to [damage assigned to target >= need], both directions."""
        if need <= 0:
            return True
        incoming = into.get(target, [])
        if not incoming:
            return False
        if (target, need) not in reach_memo:
            b = m.var(f"reach[{target}]", 0, 1)
            total = dict.fromkeys(incoming, 1)
            m.rows.append(Row(total, ">=", need, (b, True)))
            m.rows.append(Row(total, "<=", need - 1, (b, False)))
            reach_memo[(target, need)] = b
        return reach_memo[(target, need)]

    lethal_memo: dict[str, Literal01] = {}

    def lethal(creature: str) -> Literal01:
        """510.1e, 702.2c: marked plus assigned damage reaches toughness, or deathtouch."""
        if creature in lethal_memo:
            return lethal_memo[creature]
        reached = reach(creature, combat.creature(creature).lethal_need)
        touches = []
        for v in deathtouch_into.get(creature, []):
            t = m.var(f"touch[{m.names[v]}]", 0, 1)
            m.rows.append(Row({v: 1}, ">=", 1, (t, True)))
            m.rows.append(Row({v: 1}, "<=", 0, (t, False)))
            touches.append(t)
        out: Literal01
        if reached is True or not touches:
            out = reached
        else:
            out = m.var(f"lethal[{creature}]", 0, 1)
            either = touches if reached is False else [reached, *touches]
            for t in either:  # lethal >= each way of getting there
                m.rows.append(Row({out: 1, t: -1}, ">=", 0))
            m.rows.append(Row({out: 1, **{t: -1 for t in either}}, "<=", 0))
        lethal_memo[creature] = out
        return out

    def gate(v: int, lit: Literal01) -> None:
        """The amount ``v`` is 0 unless ``lit`` holds."""
        if lit is False:
            m.rows.append(Row({v: 1}, "<=", 0))
        elif lit is not True:
            m.rows.append(Row({v: 1}, "<=", 0, (lit, False)))

    # 702.19b-e: a gated recipient gets damage only once its blockers are lethally
    # assigned and, for trample over planeswalkers, the planeswalker is loyalty-assigned.
    for s in space.sources:
        for r in s.recipients:
            for wall in r.requires_lethal:
                gate(m.x[(s.id, r.id)], lethal(wall))
            if r.requires_loyalty is not None:
                walker = r.requires_loyalty
                gate(m.x[(s.id, r.id)], reach(walker, combat.planeswalker(walker).loyalty))

    # The terms of SPEC §4, each as (coefficients, constant).
    expressions: list[tuple[dict[int, int], int]] = []
    for term in terms:
        coefs: dict[int, int] = {}
        constant = 0
        parts: list[tuple[int, Literal01]] = []
        if term == "kills":
            parts = [(c.value, lethal(c.id)) for c in space.kill_candidates
                     if space.is_killable(c) and c.value != 0]
        elif term in DAMAGE_KINDS:
            kind = DAMAGE_KINDS[term]
            parts = [(1, v) for (_, t), v in m.x.items() if combat.kind(t) == kind]
        else:
            parts = [(1, reach(t.id, t.need)) for t in threshold_targets(combat, term)]
        for coef, lit in parts:
            if lit is True:
                constant += coef
            elif lit is not False:
                coefs[lit] = coefs.get(lit, 0) + coef
        expressions.append((coefs, constant))

    # Mixed-radix weights, last term weight 1.
    weights = [1] * len(expressions)
    for i in range(len(expressions) - 2, -1, -1):
        lo, hi = m.span(expressions[i + 1][0])
        weights[i] = weights[i + 1] * (hi - lo + 1)
    m.weights = tuple(weights)
    for w, (coefs, constant) in zip(weights, expressions, strict=True):
        m.offset += w * constant
        for v, c in coefs.items():
            m.objective[v] = m.objective.get(v, 0) + w * c
    lo, hi = m.span(m.objective)
    if max(abs(lo), abs(hi)) + abs(m.offset) >= MAX_WEIGHTED:
        raise ValueError("the weighted objective does not fit in 2**53")
    return m


def _amounts(m: Model, values: Sequence[float]) -> Amounts:
    return {pair: a for pair, v in m.x.items() if (a := round(values[v])) > 0}


# -- CP-SAT -------------------------------------------------------------------------------

def monolithic_cpsat(space: LegalSpace, terms: Sequence[str], time_limit: float,
                     workers: int = 2, checkpoints: Sequence[float] = ()) -> Outcome:
    """Solve :func:`build_model` with CP-SAT (``workers`` workers, fixed seed) under
    ``time_limit``; with ``checkpoints``, also the gap at each of those times."""
    from ortools.sat.python import cp_model

    try:
        m = build_model(space, terms)
    except ValueError as exc:
        return Outcome("skipped", None, note=str(exc))
    model = cp_model.CpModel()
    v = [model.new_bool_var(n) if (lo, hi) == (0, 1) else model.new_int_var(lo, hi, n)
         for n, lo, hi in zip(m.names, m.lower, m.upper, strict=True)]
    for row in m.rows:
        expr = sum(c * v[i] for i, c in row.coefs.items())
        if row.sense == "==":
            ct = model.add(expr == row.rhs)
        elif row.sense == "<=":
            ct = model.add(expr <= row.rhs)
        else:
            ct = model.add(expr >= row.rhs)
        if row.when is not None:
            b = v[row.when[0]]
            ct.only_enforce_if(b if row.when[1] else ~b)
    model.maximize(sum(c * v[i] for i, c in m.objective.items()) + m.offset)

    solver = cp_model.CpSolver()
    solver.parameters.num_workers = workers
    solver.parameters.random_seed = 0
    solver.parameters.max_time_in_seconds = time_limit
    timeline: list[tuple[float, str, float]] = []
    started = time.perf_counter()
    callback = None
    if checkpoints:
        solver.best_bound_callback = lambda bound: timeline.append(
            (time.perf_counter() - started, "bound", bound))

        class Recorder(cp_model.CpSolverSolutionCallback):
            def on_solution_callback(self) -> None:
                timeline.append((time.perf_counter() - started, "objective",
                                 self.objective_value))

        callback = Recorder()
    code = solver.solve(model, callback)
    elapsed = time.perf_counter() - started
    extra: dict[str, object] = {"workers": workers, "status_name": solver.status_name(code)}
    if checkpoints:
        extra["gaps_at"] = {f"{t:g}": _gap_at(timeline, t, elapsed, code == cp_model.OPTIMAL)
                            for t in checkpoints}
    if code not in (cp_model.OPTIMAL, cp_model.FEASIBLE):
        return Outcome("unknown", None, bound=solver.best_objective_bound, extra=extra)
    amounts = _amounts(m, [solver.value(x) for x in v])
    status: Status = "optimal" if code == cp_model.OPTIMAL else "feasible"
    return Outcome(status, amounts, solver.objective_value, solver.best_objective_bound,
                   extra=extra)


def _gap_at(timeline: list[tuple[float, str, float]], t: float, elapsed: float,
            proved: bool) -> float | None:
    """The gap known at time ``t`` (0 after a proof, None before any solution)."""
    if proved and elapsed <= t:
        return 0.0
    objective = bound = None
    for when, kind, value in timeline:
        if when > t:
            break
        if kind == "objective":
            objective = value
        else:
            bound = value
    if objective is None or bound is None:
        return None
    return abs(bound - objective) / max(1.0, abs(objective))


# -- MILP (HiGHS through SciPy) -----------------------------------------------------------

def monolithic_milp(space: LegalSpace, terms: Sequence[str], time_limit: float) -> Outcome:
    """Solve :func:`build_model` as a MILP: an enforced row becomes a big-M row, with M
    the least that leaves the row free when it is not enforced."""
    try:
        m = build_model(space, terms)
    except ValueError as exc:
        return Outcome("skipped", None, note=str(exc))
    rows: list[int] = []
    cols: list[int] = []
    data: list[float] = []
    lb: list[float] = []
    ub: list[float] = []

    def add(coefs: dict[int, int], lo: float, hi: float) -> None:
        r = len(lb)
        for i, c in coefs.items():
            rows.append(r)
            cols.append(i)
            data.append(c)
        lb.append(lo)
        ub.append(hi)

    for row in m.rows:
        senses = ("<=", ">=") if row.sense == "==" and row.when else (row.sense,)
        for sense in senses:
            if row.when is None:
                lo = row.rhs if sense in ("==", ">=") else -math.inf
                hi = row.rhs if sense in ("==", "<=") else math.inf
                add(row.coefs, lo, hi)
                continue
            b, value = row.when
            least, most = m.span(row.coefs)
            if sense == "<=":
                big = most - row.rhs  # expr <= rhs + big * [not enforced]
                if big <= 0:
                    continue
                if value:
                    add({**row.coefs, b: big}, -math.inf, row.rhs + big)
                else:
                    add({**row.coefs, b: -big}, -math.inf, row.rhs)
            else:
                big = row.rhs - least  # expr >= rhs - big * [not enforced]
                if big <= 0:
                    continue
                if value:
                    add({**row.coefs, b: -big}, row.rhs - big, math.inf)
                else:
                    add({**row.coefs, b: big}, row.rhs, math.inf)
    n = len(m.names)
    c = np.zeros(n)
    for i, w in m.objective.items():
        c[i] = -w  # milp minimizes
    a = coo_array((data, (rows, cols)), shape=(len(lb), n)).tocsr()
    result = milp(c, integrality=np.ones(n), bounds=Bounds(m.lower, m.upper),
                  constraints=LinearConstraint(a, lb, ub),
                  options={"time_limit": time_limit, "mip_rel_gap": 0.0, "presolve": True})
    extra: dict[str, object] = {"highs_status": int(result.status), "message": result.message}
    bound = getattr(result, "mip_dual_bound", None)
    bound_value = None if bound is None or not np.isfinite(bound) else m.offset - bound
    if result.x is None:
        return Outcome("unknown", None, bound=bound_value, extra=extra)
    status: Status = "optimal" if result.status == 0 else "feasible"
    return Outcome(status, _amounts(m, result.x), m.offset - float(result.fun), bound_value,
                   extra=extra)


# -- brute force --------------------------------------------------------------------------

def brute_force(space: LegalSpace, terms: Sequence[str]) -> Outcome:
    """The best of every legal assignment (exact counter's enumeration), when there are at
    most :data:`BRUTE_LIMIT` of them."""
    try:
        census = Census(space, work_limit=BRUTE_WORK)
    except CountOutOfReach:
        return Outcome("skipped", None, note="count out of reach")
    total = census.count()
    if total > BRUTE_LIMIT:
        return Outcome("skipped", None, note=f"{digits(total)} legal assignments")
    best = best_of(space, census.enumerate(), terms)
    return Outcome("optimal", best, extra={"assignments": total})


def digits(n: int) -> str:
    """A count for people: 1,234 or ~1e2500 (without converting huge integers to text)."""
    if n < 10**12:
        return f"{n:,}"
    # No str(n): Python refuses to convert integers of more than 4,300 digits.
    exponent = int((n.bit_length() - 1) * math.log10(2))
    while 10 ** (exponent + 1) <= n:
        exponent += 1
    while 10**exponent > n:
        exponent -= 1
    return f"~1e{exponent}"
