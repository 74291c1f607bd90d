"""The same model of a group as CP-SAT's, solved as a MILP by HiGHS, lexicographically.

The model is the one :func:`trample.solver.optimize.cpsat.build_group` builds, by the same code,
recorded as integer rows (:func:`trample.solver.optimize.cpsat.build_rows`, so every constraint
and term added there carries over): integer variables with their domains, linear
constraints (an enforcement literal becomes a big-M from the variables' bounds, which are
small: power and toughness), ``bool_or`` and ``bool_and``. :func:`translate` reads the
same rows back from a CP-SAT model's proto (the tests check the two agree).

HiGHS answers in floating point. Each term is divided by the gcd of its coefficients (a
creature's value may be 2^40; blockers all worth that much make a term that counts
them). The terms are maximized as one sum weighted in mixed radix when its range is
small enough for HiGHS's floating point (:data:`MAX_RANGE`), else one term at a time,
each fixed at its optimum before the next; a term or a row wider than that is not given
to HiGHS at all. Each answer is rounded, checked against the rows in exact
integer arithmetic, and its terms' values counted exactly. A stage is proved only when
HiGHS's upper bound, floored, equals that value; any other outcome but a time limit gives
up (``None``), and the caller solves the group with CP-SAT instead.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import floor, gcd, inf
from typing import Any

import numpy as np
from highspy import _core as highs  # the plain solver: highspy.Highs prints a banner

from trample.solver.optimize.cpsat import GroupResult, build_rows, weighted_bound_digits
from trample.solver.optimize.highs import HEURISTICS_OFF, new_highs, run_status
from trample.solver.optimize.objectives import evaluate
from trample.solver.optimize.rows import Linear, Row, Translation, literal_form, literals_sum
from trample.solver.optimize.search_settings import SHIPPED, SearchSettings
from trample.solver.optimize.status import RunStatus
from trample.solver.rules.assignment import Amounts
from trample.solver.rules.legal_space import LegalSpace, Source

INT64_MIN = -(2**63)
INT64_MAX = 2**63 - 1
"""The ends of a CP-SAT domain that stand for no bound (:func:`translate`)."""
ABSOLUTE_GAP = 0.5
"""HiGHS may stop once its bound is within this of the value found: every term has
integer coefficients, so a gap below 1 proves the floored bound."""
MAX_RANGE = 2**28
"""The widest objective HiGHS is given (how many values a term divided by its
coefficients' gcd, or the terms' weighted sum, can take, less one), and the largest
coefficient, bound or side of a row. A group beyond it is left to CP-SAT at once, without
a HiGHS run. Why: HiGHS prunes a node of its search whose LP bound is worse than its best
assignment's by one unit less :data:`FEASIBILITY`, and an LP's floating-point error grows
with the objective's magnitude, about 7e-16 of it (measured: 0.003 on the 2^42 of four
blockers worth -2^40 each; the optimum's node was pruned and a worse assignment answered
as optimal). At 2^28 that error is 2e-7, five times below the tolerance. Terms are
weighted into one sum only within this range too (the benchmark families' sums stay
under 2^21)."""
FEASIBILITY = 1e-6
"""HiGHS's MIP feasibility tolerance (its default), also the margin of its pruning
(:data:`MAX_RANGE`); an answer is rounded and checked exactly whatever it is."""
BOUND_SLACK = 1e-6
"""Floating-point noise forgiven on HiGHS's bound before flooring it (far below 1)."""

KINDS = ("linear", "bool_or", "bool_and", "at_most_one", "exactly_one")
"""The constraints of a CP-SAT model this translation knows (any other: CP-SAT solves)."""

def translate(model: object, expressions: Sequence[object]) -> Translation | None:
    """The rows of ``model`` (a :class:`cp_model.CpModel`) and the forms of ``expressions``,
    or None when the model holds a constraint this translation does not know."""
    from ortools.sat.python import cp_model, cp_model_helper

    assert isinstance(model, cp_model.CpModel)
    proto = model.proto
    parsed = _parsed(model)
    source: Any = proto if parsed is None else parsed
    domains = [var.domain for var in source.variables]
    if any(len(domain) != 2 for domain in domains):
        return None  # a domain with holes
    lower = [domain[0] for domain in domains]
    upper = [domain[1] for domain in domains]
    rows: list[Row] = []
    for ct in source.constraints:
        when = tuple(ct.enforcement_literal)
        # Most constraints are linear: that one is tested first and its fields read once.
        kind = ct.WhichOneof("constraint") if parsed is not None else \
            "linear" if ct.has_linear() else \
            next((k for k in KINDS if getattr(ct, f"has_{k}")()), None)
        if kind == "linear":
            linear = ct.linear
            domain = linear.domain
            form = dict(zip(linear.vars, linear.coeffs, strict=True))
            if len(domain) != 2 or (form and min(form) < 0):
                return None
            lo, hi = domain
            rows.append(Row((form, 0), None if lo <= INT64_MIN else lo,
                             None if hi >= INT64_MAX else hi, when))
        elif kind == "bool_and":
            rows.extend(Row(literal_form(ref), 1, None, when) for ref in ct.bool_and.literals)
        elif kind in KINDS:
            lo, hi = {"bool_or": (1, None), "at_most_one": (None, 1),
                      "exactly_one": (1, 1)}[kind]
            rows.append(Row(literals_sum(getattr(ct, kind).literals), lo, hi, when))
        else:
            return None
    terms: list[Linear | None] = []
    constants: list[int] = []
    for expression in expressions:
        if isinstance(expression, int):
            terms.append(None)
            constants.append(expression)
            continue
        # The expression flattened by OR-Tools itself, four times sooner than through
        # the model's objective (which the other path reads back).
        flat = cp_model_helper.FlatIntExpr(expression)  # type: ignore[arg-type]
        merged: dict[int, int] = {}
        for var, c in zip(flat.vars, flat.coeffs, strict=True):
            merged[var.index] = merged.get(var.index, 0) + c
        if min(merged, default=0) >= 0:
            terms.append(({i: c for i, c in merged.items() if c != 0}, 0))
            constants.append(flat.offset)
            continue
        model.maximize(expression)  # type: ignore[arg-type]
        objective = proto.objective
        sign = objective.scaling_factor
        if sign not in (1, -1) or any(v < 0 for v in objective.vars):
            model.clear_objective()  # type: ignore[no-untyped-call]
            return None
        s = int(sign)
        terms.append(({v: s * c for v, c in zip(objective.vars, objective.coeffs,
                                                strict=True)}, 0))
        constants.append(s * int(objective.offset))
        model.clear_objective()  # type: ignore[no-untyped-call]
    return Translation(lower, upper, rows, terms, constants)


def _parsed(model: object) -> Any:
    """The model's proto as a protobuf message, read back from its serialized bytes in an
    in-memory file, or None where that is not available (then the proto is read field by
    field through OR-Tools' wrapper, five times slower: each read makes a new wrapper).
    (``Any``: protobuf's messages are untyped here.)"""
    from ortools.sat import cp_model_pb2
    from ortools.sat.python import cp_model

    assert isinstance(model, cp_model.CpModel)
    if not hasattr(os, "memfd_create"):
        return None
    try:
        fd = os.memfd_create("trample-model")
    except OSError:
        return None
    try:
        if not model.export_to_file(f"/proc/self/fd/{fd}"):
            return None
        os.lseek(fd, 0, os.SEEK_SET)
        chunks = []
        while chunk := os.read(fd, 1 << 20):
            chunks.append(chunk)
        return cp_model_pb2.CpModelProto.FromString(b"".join(chunks))
    except Exception:  # any failure of this shortcut: the wrapper is read instead
        return None
    finally:
        os.close(fd)


def _span(form: Linear, lower: list[int], upper: list[int]) -> tuple[int, int]:
    """The least and greatest value of ``form`` over the variables' bounds."""
    coefs, k = form
    least = k + sum(c * (lower[i] if c > 0 else upper[i]) for i, c in coefs.items())
    most = k + sum(c * (upper[i] if c > 0 else lower[i]) for i, c in coefs.items())
    return least, most


def _value(form: Linear, values: Sequence[int]) -> int:
    coefs, k = form
    return k + sum(c * values[i] for i, c in coefs.items())


def holds(t: Translation, values: Sequence[int]) -> bool:
    """Whether integer ``values`` satisfy every row of ``t`` (exactly)."""
    if any(not lo <= v <= hi for lo, v, hi in zip(t.lower, values, t.upper, strict=True)):
        return False
    for row in t.rows:
        if any(_value(literal_form(ref), values) != 1 for ref in row.when):
            continue
        v = _value(row.form, values)
        if (row.lo is not None and v < row.lo) or (row.hi is not None and v > row.hi):
            return False
    return True


def _big_m_rows(t: Translation) -> list[tuple[dict[int, float], float, float]]:
    """Each row as ``lo <= sum(coef * var) <= hi`` without enforcement: an enforced side
    relaxed by M times the number of its false literals, M the least that frees it."""
    out: list[tuple[dict[int, float], float, float]] = []
    for row in t.rows:
        coefs, k = row.form
        if not row.when:
            out.append(({i: float(c) for i, c in coefs.items()},
                        -inf if row.lo is None else float(row.lo - k),
                        inf if row.hi is None else float(row.hi - k)))
            continue
        # false_count = off_k + sum(off[i] * var_i): how many enforcement literals are false.
        off: dict[int, int] = {}
        off_k = 0
        for ref in row.when:
            lit, lk = literal_form(ref)
            off_k += 1 - lk
            for i, c in lit.items():
                off[i] = off.get(i, 0) - c
        least, most = _span(row.form, t.lower, t.upper)
        for side in ("hi", "lo"):
            bound = row.hi if side == "hi" else row.lo
            if bound is None:
                continue
            big = most - bound if side == "hi" else bound - least
            if big <= 0:
                continue  # the side holds whatever the variables
            sign = -1 if side == "hi" else 1  # form - M*false <= hi; form + M*false >= lo
            merged = dict(coefs)
            for i, c in off.items():
                merged[i] = merged.get(i, 0) + sign * big * c
            rhs = float(bound - k - sign * big * off_k)
            out.append(({i: float(c) for i, c in merged.items() if c != 0},
                        rhs if side == "lo" else -inf, rhs if side == "hi" else inf))
    return out


def _highs(t: Translation, heuristics: bool = False) -> highs._Highs | None:
    """A HiGHS instance holding ``t`` (no objective yet), or None when a number of ``t``
    is too large for it (:data:`MAX_RANGE`); with ``heuristics``, HiGHS's primal
    heuristics run as by default (:data:`HEURISTICS_OFF`)."""
    rows = _big_m_rows(t)
    n = len(t.lower)
    lower = np.array(t.lower, dtype=np.float64)
    upper = np.array(t.upper, dtype=np.float64)
    starts = np.zeros(len(rows), dtype=np.int32)
    index: list[int] = []
    values: list[float] = []
    for r, (coefs, _, _) in enumerate(rows):
        starts[r] = len(index)
        for i in sorted(coefs):
            index.append(i)
            values.append(coefs[i])
    row_lower = np.array([lo for _, lo, _ in rows], dtype=np.float64)
    row_upper = np.array([hi for _, _, hi in rows], dtype=np.float64)
    matrix = np.array(values, dtype=np.float64)
    sides = np.concatenate((row_lower[np.isfinite(row_lower)],
                            row_upper[np.isfinite(row_upper)], lower, upper, matrix))
    if sides.size and np.abs(sides).max() > MAX_RANGE:
        return None
    h: highs._Highs = new_highs(("mip_rel_gap", 0.0), ("mip_abs_gap", ABSOLUTE_GAP),
                  ("mip_feasibility_tolerance", FEASIBILITY),
                  *(() if heuristics else HEURISTICS_OFF))
    empty_i = np.zeros(0, dtype=np.int32)
    h.addCols(n, np.zeros(n), lower, upper, 0, empty_i, empty_i, np.zeros(0))
    h.changeColsIntegrality(n, np.arange(n, dtype=np.int32),
                            np.full(n, highs.HighsVarType.kInteger))
    h.addRows(len(rows), row_lower, row_upper, len(index), starts,
              np.array(index, dtype=np.int32), matrix)
    h.changeObjectiveSense(highs.ObjSense.kMaximize)
    return h


def _add_row(h: highs._Highs, coefs: dict[int, float], lo: float, hi: float) -> None:
    index = np.array(sorted(coefs), dtype=np.int32)
    values = np.array([coefs[i] for i in sorted(coefs)], dtype=np.float64)
    h.addRow(lo, hi, len(index), index, values)


@dataclass(frozen=True, slots=True)
class _Term:
    """A term as ``unit * form + constant``: ``form`` the term's form divided by the gcd
    of its coefficients (``unit``; None for a term constant over the group), its value in
    [low, low + span]."""

    form: Linear | None
    unit: int
    constant: int
    low: int
    span: int

    def value(self, reduced: int) -> int:
        """The term's value where its reduced form is worth ``reduced``."""
        return self.unit * reduced + self.constant


def _reduce(t: Translation, lows: Sequence[int], spans: Sequence[int]) -> list[_Term]:
    """Each term of ``t`` divided by its coefficients' gcd (exact: every value of the form
    is a multiple of it), its range from the model's bounds on the term (``lows``,
    ``spans``): blockers all worth 2^40 make a term of unit 2^40 whose form counts
    them."""
    out: list[_Term] = []
    for form, k, low, span in zip(t.terms, t.constants, lows, spans, strict=True):
        if form is None or not form[0]:
            out.append(_Term(None, 1, k + (0 if form is None else form[1]), 0, 0))
            continue
        g = gcd(*form[0].values())
        reduced: Linear = ({i: c // g for i, c in form[0].items()}, 0)
        least = -(-(low - k - form[1]) // g)
        most = (low + span - k - form[1]) // g
        out.append(_Term(reduced, g, k + form[1], least, max(most - least, 0)))
    return out


def _weighted(terms: list[_Term]) -> tuple[Linear, list[int]] | None:
    """The reduced terms as one sum, each outweighing everything after it (mixed-radix
    weights from the terms' ranges), and the weights; None when the sum's range is wider
    than :data:`MAX_RANGE`."""
    weights: list[int] = []
    weight = 1
    for term in reversed(terms):
        weights.append(weight)
        weight *= term.span + 1
    if weight - 1 > MAX_RANGE:
        return None
    weights.reverse()
    total: dict[int, int] = {}
    for w, term in zip(weights, terms, strict=True):
        for i, c in ({} if term.form is None else term.form[0]).items():
            total[i] = total.get(i, 0) + w * c
    return ({i: c for i, c in total.items() if c != 0}, 0), weights


def solve_group(space: LegalSpace, sources: Sequence[Source], terms: Sequence[str],
                deadline: float | None = None, exclude: frozenset[str] = frozenset(),
                hint: Callable[[], Amounts] | None = None, settings: SearchSettings = SHIPPED,
                cap: int | None = None) -> GroupResult | None:
    """Maximize ``terms`` lexicographically over the amounts of ``sources`` (as
    :func:`trample.solver.optimize.cpsat.solve_group`), by HiGHS: each term divided by the gcd of
    its coefficients, in one solve of the terms weighted in mixed radix when the sum's
    range is small (:data:`MAX_RANGE`), else one term at a time, each fixed at its
    optimum before the next.

    Returns None when HiGHS cannot settle the group exactly (a constraint it does not
    know, a number too large for its floating point (:data:`MAX_RANGE`, found before any
    run), an answer that fails the exact check, a bound that does not prove it): the
    caller then asks CP-SAT. A stage stopped by ``deadline`` ends the search with its best
    checked assignment (or ``hint()``, a legal split asked for only then) and the bound
    HiGHS proved (status ``feasible``).
    With ``cap`` (one term only), the term's value is held at most ``cap``: the optimum
    is then the least of the cap and the term's optimum, often proved at once.
    """
    started = time.monotonic()
    # Without the orders on interchangeable creatures that help CP-SAT: HiGHS detects
    # the symmetry itself, and proves the benchmark families' groups 10 to 35% sooner
    # without them.
    built = build_rows(space, sources, terms, exclude, symmetry=False, settings=settings,
                       ceiled=True)
    t = built.translation
    reduced = _reduce(t, built.lows, built.spans)
    if cap is not None:
        [term] = reduced
        if term.form is not None:
            t.rows.append(Row(term.form, None, (cap - term.constant) // term.unit, ()))
    weighted = _weighted(reduced) if sum(r.form is not None for r in reduced) > 1 else None
    if weighted is None and any(r.span > MAX_RANGE for r in reduced):
        return None  # a term too wide for HiGHS's floating point: CP-SAT searches
    x_index = built.index
    # Capped, the search ends at the first assignment that reaches the cap: finding
    # one is the heuristics' work (without them, twice as long on a token swarm's part).
    h = _highs(t, heuristics=cap is not None)
    if h is None:
        return None
    n = len(t.lower)
    lows = [r.low for r in reduced]
    spans = [r.span for r in reduced]
    highs_of = [r.low + r.span for r in reduced]
    # Each stage: a form to maximize (reduced), its greatest value.
    stages: list[tuple[Linear | None, int]]
    if weighted is not None:
        whole, weights = weighted
        stages = [(whole, sum(w * hi for w, hi in zip(weights, highs_of, strict=True)))]
    else:
        weights = []
        stages = [(r.form, hi) for r, hi in zip(reduced, highs_of, strict=True)]
    best: list[int] | None = None
    proved: list[int] = []
    """Each settled term's optimum, reduced."""
    bound: list[int] | None = None
    """Reduced, when a stage stops early: a lexicographic bound on the reduced terms."""
    runs = 0
    for stage, (form, ceiling) in enumerate(stages):
        if form is None:
            proved.append(0)
            continue
        remaining = None if deadline is None else deadline - time.monotonic()
        if remaining is not None and remaining <= 0:
            bound = [*(proved if not weights else []), *highs_of[len(proved):]]
            break
        h.setOptionValue("time_limit", inf if remaining is None else max(remaining, 0.001))
        cost = np.zeros(n)
        for i, c in form[0].items():
            cost[i] = float(c)
        h.changeColsCost(n, np.arange(n, dtype=np.int32), cost)
        # No start from the previous stage's answer: given one (setSolution), HiGHS 1.16
        # answered it back unchanged as optimal for another objective.
        h.run()
        runs += 1
        status = run_status(h)
        info = h.getInfo()
        found: list[int] | None = None
        if status.found:
            values = [round(v) for v in h.getSolution().col_value]
            if holds(t, values) and all(_value(r.form, values) >= p for r, p in
                                        zip(reduced, proved, strict=False)
                                        if r.form is not None):
                found = values
        top = info.mip_dual_bound
        top_int = ceiling if not np.isfinite(top) else min(floor(top + BOUND_SLACK), ceiling)
        if found is not None:
            value = _value(form, found)
            if status is RunStatus.OPTIMAL and top_int == value:
                best = found
                if weights:
                    proved = [0 if r.form is None else _value(r.form, found)
                              for r in reduced]
                else:
                    proved.append(value)
                    _add_row(h, {i: float(c) for i, c in form[0].items()}, float(value),
                             inf)
                continue
        if not status.stopped:
            return None  # not proved, and not for lack of time: CP-SAT settles it
        if found is not None:
            best = found
        if weights:
            bound = weighted_bound_digits(top_int, weights, lows, spans)
        else:
            bound = [*proved, top_int, *highs_of[stage + 1:]]
        break
    amounts: Amounts
    if best is not None:
        amounts = {pair: best[i] for pair, i in x_index.items()}
    elif bound is not None and hint is not None:
        amounts = dict(hint())
    elif bound is not None:
        return GroupResult(RunStatus.UNKNOWN, {}, time.monotonic() - started, runs,
                           (0,) * len(terms))
    else:
        # Every term is constant: any legal assignment is optimal; HiGHS finds one.
        h.run()
        if not run_status(h).found:
            return None
        values = [round(v) for v in h.getSolution().col_value]
        if not holds(t, values):
            return None
        amounts = {pair: values[i] for pair, i in x_index.items()}
    gap = (0,) * len(terms)
    if bound is not None:
        got = evaluate(space, amounts, terms, exclude)
        base = evaluate(space, {}, terms, exclude)
        gap = tuple(max(r.value(b) - (got[term] - base[term]), 0)
                    for r, b, term in zip(reduced, bound, terms, strict=True))
    return GroupResult(RunStatus.OPTIMAL if bound is None else RunStatus.FEASIBLE,
                       {pair: a for pair, a in amounts.items() if a > 0},
                       time.monotonic() - started, runs, gap)


def relaxed_bound(space: LegalSpace, sources: Sequence[Source], term: str,
                  settings: SearchSettings = SHIPPED, root: bool = False,
                  deadline: float | None = None) -> int | None:
    """An upper bound on ``term`` over the amounts of ``sources`` without a search, floored:
    the linear relaxation of the group's model (one LP), or with ``root`` HiGHS's bound
    at the root of its search (the LP strengthened by presolve and cuts, one node);
    None when HiGHS gives none (or ``deadline`` strikes first, or the model's numbers
    are too large for it, :data:`MAX_RANGE`)."""
    if deadline is not None and deadline <= time.monotonic():
        return None
    built = build_rows(space, sources, [term], settings=settings, ceiled=True)
    t = built.translation
    [reduced] = _reduce(t, built.lows, built.spans)
    form = reduced.form
    if form is None:
        return reduced.constant
    if reduced.span > MAX_RANGE:
        return None
    h = _highs(t)
    if h is None:
        return None
    if deadline is not None:
        h.setOptionValue("time_limit", max(deadline - time.monotonic(), 0.001))
    n = len(t.lower)
    if root:
        h.setOptionValue("mip_max_nodes", 1)
    else:
        h.changeColsIntegrality(n, np.arange(n, dtype=np.int32),
                                np.full(n, highs.HighsVarType.kContinuous))
    cost = np.zeros(n)
    for i, c in form[0].items():
        cost[i] = float(c)
    h.changeColsCost(n, np.arange(n, dtype=np.int32), cost)
    h.run()
    status = run_status(h)
    if root:
        top: float = h.getInfo().mip_dual_bound
        # A bound HiGHS proved holds wherever it stopped (node or time limit).
        if not (status is RunStatus.OPTIMAL or status.stopped) or not np.isfinite(top):
            return None
    elif status is not RunStatus.OPTIMAL:
        return None
    else:
        top = h.getInfo().objective_function_value
    return reduced.value(min(floor(top + BOUND_SLACK), reduced.low + reduced.span))
