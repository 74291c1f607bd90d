"""The legal assignment nearest a vector of numbers, with CP-SAT, exactly.

For spaces too large to look at one assignment at a time. Three stages on one model of
the legal space (the gates of 702.19b-e encoded as in :mod:`trample.solver.optimize.cpsat`, but
every condition reified both ways, so that fixing a stage's optimum keeps exactly the
assignments that reach it):

1. minimize the L1 distance, scaled to integers by the common denominator of the
   numbers' fractions (when that is large, digit by digit, after a cut to the
   assignments nearly as near on a coarse scale); then keep the assignments at that
   distance;
2. maximize each term of the side's default objective in turn, keeping its optimum;
3. among what is left, the first in enumeration order: enumeration walks the parts,
   then each part's sources, taking at each the moves of the counting dynamic program in
   order, then compositions with their first slot largest; so the first assignment is
   found by fixing the sources one after the other, each to its first move with a
   completion left (a CP-SAT feasibility check per move tried, starting from a known
   solution so that only earlier moves need trying), then each slot to its largest
   value left.

A deadline or a cancel stops it at any run: every legal assignment a run finds is kept
(the greedy split to begin with), and the nearest of them is the answer, not proved
(:class:`Nearest`).
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import ceil, floor, inf, lcm

from ortools.sat.python import cp_model

from trample.models.document.assignment import Pair
from trample.models.document.errors import InternalError
from trample.solver.count.census import Census
from trample.solver.count.declared import Move
from trample.solver.optimize.cancel import Cancel
from trample.solver.optimize.cpsat import build_group, run_status
from trample.solver.optimize.greedy import greedy
from trample.solver.optimize.objectives import DEFAULTS
from trample.solver.optimize.status import RunStatus
from trample.solver.rules.assignment import Amounts
from trample.solver.rules.legal_space import LegalSpace

BASE = 2**20
"""Base of the digits in which a distance with fine fractions is minimized."""
COARSE = 2**16
"""Scale of the approximate distance that first narrows the search (fine fractions)."""


def distance(chosen: Mapping[Pair, int], values: Mapping[Pair, Fraction]) -> Fraction:
    """The L1 distance between an assignment and the numbers, over every pair (pairs left
    out of either are 0)."""
    zero = Fraction(0)
    total = sum((abs(v) for p, v in values.items() if p not in chosen), zero)
    total += sum((abs(a - values.get(p, zero)) for p, a in chosen.items()), zero)
    return total


@dataclass(frozen=True, slots=True)
class Nearest:
    """What :func:`nearest` found: the assignment, and whether it is proved to be the
    one asked for (False when a deadline or a cancel stopped the search first: then it
    is the nearest legal assignment found)."""

    amounts: Amounts
    exact: bool


class _Stopped(Exception):
    """A run ended by the deadline or a cancel."""


class _Runs:
    """The CP-SAT runs of one projection: one solver, each run within what is left of the
    deadline and stopped by the cancel; the nearest legal assignment any run found
    (later ones first among equals: they satisfy more of the stages) is kept."""

    def __init__(self, x: Mapping[Pair, cp_model.IntVar], values: Mapping[Pair, Fraction],
                 start: Amounts, deadline: float | None, cancel: Cancel | None) -> None:
        self.solver = cp_model.CpSolver()
        self.solver.parameters.num_workers = 1
        self.solver.parameters.random_seed = 0
        self.x, self.values = x, values
        self.deadline, self.cancel = deadline, cancel
        self.best, self.best_distance = start, distance(start, values)

    def _keep(self) -> Amounts:
        found = {p: self.solver.value(v) for p, v in self.x.items()}
        d = distance({p: a for p, a in found.items() if a > 0}, self.values)
        if d <= self.best_distance:
            self.best, self.best_distance = found, d
        return found

    def _stop(self) -> None:
        self.solver.parameters.max_time_in_seconds = 0.0
        self.solver.stop_search()

    def solve(self, model: cp_model.CpModel) -> RunStatus:
        """One run; :class:`_Stopped` when the deadline or the cancel ended it before it
        settled (its solution, if any, kept first)."""
        left = inf if self.deadline is None else self.deadline - time.monotonic()
        if left <= 0 or (self.cancel is not None and self.cancel.is_set()):
            raise _Stopped
        self.solver.parameters.max_time_in_seconds = left
        code = RunStatus.UNKNOWN
        if self.cancel is None:
            code = run_status(self.solver.solve(model))
        else:
            with self.cancel.watching(self._stop) as running:
                if running:
                    code = run_status(self.solver.solve(model))
        settled = code is RunStatus.OPTIMAL or code is RunStatus.INFEASIBLE or (
            code is RunStatus.FEASIBLE and not model.has_objective())
        if code.found:
            self._keep()
        if not settled and code.stopped:
            raise _Stopped
        return code

    def optimum(self, model: cp_model.CpModel, expression: cp_model.LinearExprT) -> int:
        """Solve to optimality; the expression's value, exactly (the solver reports the
        objective as a float, too coarse for large scaled distances)."""
        code = self.solve(model)
        if code is not RunStatus.OPTIMAL:
            raise InternalError(f"project: CP-SAT ended {code.value}")
        return int(self.solver.value(expression))

    def values_found(self) -> dict[Pair, int]:
        """The last run's assignment."""
        return {p: self.solver.value(v) for p, v in self.x.items()}


def _matches(move: Move, mine: Mapping[str, int], recipients: list[str]) -> bool:
    placed = set()
    for target, a in move.exact:
        placed.add(target)
        if mine.get(target, 0) != a:
            return False
    for slot in move.slots:
        placed.add(slot.target)
        if mine.get(slot.target, 0) < slot.lower:
            return False
    return all(mine.get(t, 0) == 0 for t in recipients if t not in placed)


def _minimize_exactly(model: cp_model.CpModel, runs: _Runs,
                      terms: list[tuple[int, cp_model.IntVar, int]]) -> None:
    """Minimize sum(coefficient * variable) (each variable between 0 and the bound that
    follows it), the coefficients of any size, and keep the assignments at the minimum.

    The sum is written in base :data:`BASE`, digit by digit with carries (digit j of
    the sum is ``B * carry[j+1] + r[j] - carry[j]``), so that every expression the solver
    sees has small coefficients; the sum is then least when the top digit with its carry
    is least, then each remainder from the top down.
    """
    if not terms:
        return
    width = 1
    while any(abs(c) >= BASE**width for c, _, _ in terms):
        width += 1
    carry: cp_model.LinearExprT = 0
    low = high = 0  # bounds of the carry
    remainders: list[cp_model.IntVar] = []
    for j in range(width):
        digit_terms = []
        for c, var, top in terms:
            d = (abs(c) // BASE**j) % BASE
            if d:
                digit_terms.append((d if c > 0 else -d, var, top))
        lo = low + sum(d * top for d, _, top in digit_terms if d < 0)
        hi = high + sum(d * top for d, _, top in digit_terms if d > 0)
        digit = carry + sum(d * var for d, var, _ in digit_terms)
        if j == width - 1:
            stages: list[cp_model.LinearExprT] = [digit, *reversed(remainders)]
            break
        r = model.new_int_var(0, BASE - 1, f"r{j}")
        low, high = (lo - (BASE - 1)) // BASE, hi // BASE + 1
        c_next = model.new_int_var(low, high, f"carry{j + 1}")
        model.add(digit == BASE * c_next + r)
        remainders.append(r)
        carry = c_next
    for stage in stages:
        if isinstance(stage, int):
            continue
        model.minimize(stage)
        model.add(stage == runs.optimum(model, stage))


def _cut_near(model: cp_model.CpModel, runs: _Runs,
              x: Mapping[Pair, cp_model.IntVar], legal: Mapping[Pair, Fraction],
              inside: Mapping[Pair, Fraction], power: Mapping[str, int]) -> None:
    """Keep only the assignments nearly as near as the nearest, measured on a coarse scale.

    With fine fractions the exact stages are slow to prove from scratch. On the scale
    ``COARSE`` each |x - v| of a pair is approximated within 1 by the plain L1 model
    (e >= Sx - ceil(Sv), e >= floor(Sv) - Sx), which the solver handles well (the other
    pairs' distances are linear, so exact); every exact optimum is then within twice the
    total error of the approximate optimum, so the cut loses none of them.
    """
    errors: list[cp_model.LinearExprT] = []
    for p, v in legal.items():
        if p not in inside:  # linear: |x - v| is x - v or v - x, exactly
            errors.append(COARSE * x[p] if v <= 0 else -COARSE * x[p])
            continue
        high, low = ceil(COARSE * v), floor(COARSE * v)
        e = model.new_int_var(0, COARSE * (power[p[0]] + 1) + abs(high),
                              f"coarse[{p[0]}->{p[1]}]")
        model.add(e >= COARSE * x[p] - high)
        model.add(e >= low - COARSE * x[p])
        errors.append(e)
    total = sum(errors)
    model.minimize(total)
    model.add(total <= runs.optimum(model, total) + 2 * len(inside))


def nearest(space: LegalSpace, census: Census, values: Mapping[Pair, Fraction],
            lexicographic: Sequence[Pair] | None = None, deadline: float | None = None,
            cancel: Cancel | None = None) -> Nearest:
    """The legal assignment nearest ``values`` over the legal pairs, ties to the default
    objective and then to the first in enumeration order (pairs that are not legal add
    the same to every distance, so they play no part). With ``lexicographic``, the last
    tie-break is the smallest amounts over those pairs in lexicographic order instead
    (the order of a union of spaces, :mod:`trample.solver.actions.union`).

    A ``deadline`` (a :func:`time.monotonic` instant) or a ``cancel`` that stops a run
    ends the search: the answer is then the nearest legal assignment found (at worst the
    greedy split), not exact."""
    # The legal space's model, as the search builds it (the rules, and each term of the
    # default objective as an expression), without symmetry breaking: the nearest split
    # to a given vector is not one of a class of interchangeable ones.
    built = build_group(space, [s for s in space.sources if s.recipients],
                        DEFAULTS[space.side], symmetry=False)
    runs = _Runs(built.x, values, greedy(space), deadline, cancel)
    try:
        return Nearest(_search(space, census, values, lexicographic, built.model, built.x,
                               built.expressions, runs), True)
    except _Stopped:
        return Nearest({p: a for p, a in runs.best.items() if a > 0}, False)


def _search(space: LegalSpace, census: Census, values: Mapping[Pair, Fraction],
            lexicographic: Sequence[Pair] | None, model: cp_model.CpModel,
            x: Mapping[Pair, cp_model.IntVar], expressions: Sequence[cp_model.LinearExprT],
            runs: _Runs) -> Amounts:
    """The stages of :func:`nearest` (:class:`_Stopped` when a run is stopped)."""

    # 1. The least distance, exactly. For an integer x, with v = n + f (n whole,
    # 0 <= f < 1): |x - v| = |x - n| + f - 2f [x > n]; times the common denominator D of
    # the fractions f, every coefficient is whole.
    power = {s.id: s.power for s in space.sources}
    legal = {p: values.get(p, Fraction(0)) for p in space.pairs}
    inside = {p: v for p, v in legal.items() if 0 < v < power[p[0]]}
    scale = lcm(*(v.denominator for v in inside.values())) if inside else 1
    terms: list[tuple[int, cp_model.IntVar, int]] = []
    for p, v in legal.items():
        if p not in inside:
            # |x - v| is linear here.
            terms.append((scale if v <= 0 else -scale, x[p], power[p[0]]))
            continue
        whole = floor(v)
        part = v - whole
        top = max(whole, power[p[0]] - whole)
        a = model.new_int_var(0, top, f"a[{p[0]}->{p[1]}]")
        model.add(a >= x[p] - whole)
        model.add(a >= whole - x[p])
        terms.append((scale, a, top))
        if part:
            above = model.new_bool_var(f"above[{p[0]}->{p[1]}]")
            model.add(x[p] >= whole + 1).only_enforce_if(above)
            terms.append((-2 * int(part * scale), above, 1))
    if inside and scale > COARSE:
        _cut_near(model, runs, x, legal, inside, power)
    _minimize_exactly(model, runs, terms)

    # 2. The default objective, term by term.
    for expression in expressions:
        if isinstance(expression, int):
            continue
        model.maximize(expression)
        model.add(expression >= runs.optimum(model, expression))
    model.clear_objective()  # type: ignore[no-untyped-call]
    code = runs.solve(model)
    if not code.found:
        raise InternalError(f"project: CP-SAT ended {code.value}")
    incumbent = runs.values_found()

    if lexicographic is not None:
        # 3'. The lexicographically smallest among those left: each pair in turn at its
        # least amount.
        for p in lexicographic:
            if p in x:
                model.minimize(x[p])
                model.add(x[p] == runs.optimum(model, x[p]))
        model.clear_objective()  # type: ignore[no-untyped-call]
        code = runs.solve(model)
        if not code.found:
            raise InternalError(f"project: CP-SAT ended {code.value}")
        found = runs.values_found()
        return {p: n for p, n in found.items() if n > 0}

    # 3. The first in enumeration order among those left.
    for ps in census.parts:
        state = ps.start
        ps.renew()
        for layer, s in enumerate(ps.sources):
            recipients = [r.id for r in s.recipients]
            mine = {t: incumbent[(s.id, t)] for t in recipients}
            live = [mv for mv in ps.moves_from(layer, state) if ps.after(layer, mv.next_state)]
            at = next((i for i, mv in enumerate(live) if _matches(mv, mine, recipients)),
                      None)
            if at is None:
                raise InternalError("project: a legal assignment fits no move")
            chosen = live[at]
            for move in live[:at]:
                lit = model.new_bool_var("try")
                _impose(model, x, s.id, recipients, move, lit)
                model.clear_assumptions()
                model.add_assumptions([lit])
                try:
                    code = runs.solve(model)
                finally:
                    model.clear_assumptions()
                if code.found:
                    chosen = move
                    incumbent = runs.values_found()
                    model.add(lit == 1)
                    break
                model.add(lit == 0)
            else:
                _impose(model, x, s.id, recipients, chosen, True)
            # Compositions come first slot largest first: while some assignment left
            # has this source's slots lexicographically larger, take it.
            column = [x[(s.id, slot.target)] for slot in chosen.slots]
            while True:
                lit = model.new_bool_var("larger")
                current = [incumbent[(s.id, slot.target)] for slot in chosen.slots]
                _lexicographically_larger(model, column, current, lit)
                model.add_assumptions([lit])
                try:
                    code = runs.solve(model)
                finally:
                    model.clear_assumptions()
                if not code.found:
                    model.add(lit == 0)
                    break
                incumbent = runs.values_found()
            for t in recipients:
                model.add(x[(s.id, t)] == incumbent[(s.id, t)])
            state = chosen.next_state
    return {p: a for p, a in incumbent.items() if a > 0}


def _lexicographically_larger(model: cp_model.CpModel, column: list[cp_model.IntVar],
                              values: list[int], lit: cp_model.IntVar) -> None:
    """When ``lit`` holds, ``column`` is lexicographically larger than ``values``: equal
    up to some position, larger there (a chain of prefix literals, linear in size)."""
    equal: cp_model.IntVar | bool = True  # the prefix before position j is equal
    larger = []
    for var, value in zip(column, values, strict=True):
        here = model.new_bool_var("first_larger")
        model.add(var >= value + 1).only_enforce_if(here)
        if equal is not True:
            model.add_implication(here, equal)
        larger.append(here)
        prefix = model.new_bool_var("prefix_equal")
        model.add(var == value).only_enforce_if(prefix)
        if equal is not True:
            model.add_implication(prefix, equal)
        equal = prefix
    model.add_bool_or(larger).only_enforce_if(lit)


def _impose(model: cp_model.CpModel, x: Mapping[Pair, cp_model.IntVar], source: str,
            recipients: list[str], move: Move, lit: cp_model.IntVar | bool) -> None:
    """The source's amounts lie in ``move`` (when ``lit`` holds)."""
    placed = set()
    constraints = []
    for target, a in move.exact:
        placed.add(target)
        constraints.append(model.add(x[(source, target)] == a))
    for slot in move.slots:
        placed.add(slot.target)
        constraints.append(model.add(x[(source, slot.target)] >= slot.lower))
    for t in recipients:
        if t not in placed:
            constraints.append(model.add(x[(source, t)] == 0))
    if lit is not True:
        for c in constraints:
            c.only_enforce_if(lit)
