"""The CP-SAT model of a group of coupled sources, solved lexicographically.

The only module that imports OR-Tools. Every constraint family reads the legal space
(:mod:`trample.solver.rules.legal_space`); nothing here re-derives a rule.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, replace
from functools import partial
from itertools import pairwise
from math import floor, inf, prod
from typing import Any

from ortools.sat.python import cp_model

from trample.models.document.assignment import Pair
from trample.models.document.errors import InternalError
from trample.models.document.keywords import DEATHTOUCH, INDESTRUCTIBLE
from trample.models.document.outcomes import (
    INFECT,
    LIFELINK,
    POISON_TO_LOSE,
    WITHER,
    Outcome,
    creature_dies,
)
from trample.solver.optimize import isolated
from trample.solver.optimize.cancel import Cancel
from trample.solver.optimize.fastpath import ceilings
from trample.solver.optimize.isolated import Answer, NoChildProcess
from trample.solver.optimize.kill_bound import Ceiling, kills_ceiling
from trample.solver.optimize.objectives import (
    DAMAGE_KINDS,
    OUTCOME_DAMAGE_KINDS,
    PLAIN_TERMS,
    Scoring,
    evaluate,
    identical_creatures,
    own_creatures,
    own_players,
    scoring,
)
from trample.solver.optimize.rows import RowModel, Translation
from trample.solver.optimize.search_settings import SHIPPED, SearchSettings
from trample.solver.optimize.status import RunStatus
from trample.solver.rules.assignment import Amounts
from trample.solver.rules.legal_space import LegalSpace, Source

MAX_WEIGHT = 2**50
"""Largest product of term ranges for which the terms are combined into one weighted sum."""


@dataclass(frozen=True, slots=True)
class GroupResult:
    """The best assignment found for a group, and whether it is proved optimal."""

    status: RunStatus
    """``OPTIMAL``, ``FEASIBLE`` or ``UNKNOWN`` (stopped before any split: ``amounts``
    empty)."""
    amounts: Amounts
    wall_time: float
    stages: int
    gap: tuple[int, ...]
    """How much each term could still gain: the proved bound minus the value found, a
    lexicographic upper bound on the improvement (all zero when optimal)."""


class SearchFailed(InternalError):
    """CP-SAT answered a status that a correct model of a legal space cannot have."""


_RUN_STATUS = {
    cp_model.OPTIMAL: RunStatus.OPTIMAL,
    cp_model.FEASIBLE: RunStatus.FEASIBLE,
    cp_model.UNKNOWN: RunStatus.UNKNOWN,
    cp_model.INFEASIBLE: RunStatus.INFEASIBLE,
    cp_model.MODEL_INVALID: RunStatus.INVALID,
}


def run_status(code: cp_model.CpSolverStatus) -> RunStatus:
    """CP-SAT's status code as a :class:`RunStatus`: the one place that reads CP-SAT's
    codes (a search stopped by its time or work limit, or by ``stop_search``, is
    ``FEASIBLE`` with a solution and ``UNKNOWN`` without)."""
    return _RUN_STATUS.get(code, RunStatus.INVALID)


class _Model(cp_model.CpModel):
    """A CP-SAT model without the camel-case aliases that ``CpModel()`` attaches to every
    instance (about 0.4 ms per model, more than solving many of ours)."""

    widest = 1
    """The largest value an integer variable made by :meth:`new_int_var` can take (the
    others are Boolean)."""

    def _add_pre_pep8_methods(self) -> None:
        pass

    def new_int_var(self, lb: Any, ub: Any, name: str) -> cp_model.IntVar:
        if ub > self.widest:
            self.widest = int(ub)
        return super().new_int_var(lb, ub, name if name.isascii() else _printable(name))

    def new_bool_var(self, name: str) -> cp_model.IntVar:
        return super().new_bool_var(name if name.isascii() else _printable(name))


def _printable(name: str) -> str:
    """A variable's name (made of ids) as OR-Tools takes it: valid UTF-8. JSON lets a
    string hold a lone surrogate escape (``"\\udcff"``), which OR-Tools refuses with a
    TypeError; it is written as its escape."""
    return name.encode("utf-8", "backslashreplace").decode("utf-8")


_local = threading.local()


def _solver() -> cp_model.CpSolver:
    """This thread's solver: making one costs about a millisecond, more than many solves."""
    solver = getattr(_local, "solver", None)
    if solver is None:
        solver = _local.solver = cp_model.CpSolver()
    return solver


def _widest(model: cp_model.CpModel) -> int:
    """The largest value a variable of ``model`` can take: kept by a model of ours as its
    integer variables are made (reading every domain back costs 2-3 us a variable, a
    third of a millisecond a run on a part of 150 variables); read from any other."""
    if isinstance(model, _Model):
        return model.widest
    return max((v.domain[len(v.domain) - 1] for v in model.proto.variables), default=0)


class Effort:
    """What is left of a group's total effort (:attr:`SearchSettings.effort`, CP-SAT's
    deterministic time), spent by each run of its search in turn."""

    __slots__ = ("left",)

    def __init__(self, left: float) -> None:
        self.left = left


def _effort(settings: SearchSettings) -> Effort | None:
    return None if settings.effort is None else Effort(settings.effort)


def _run(model: cp_model.CpModel, x: dict[Pair, cp_model.IntVar],
         best: Amounts | None, deadline: float | None,
         settings: SearchSettings, effort: Effort | None = None
         ) -> tuple[RunStatus, Answer]:
    """Solve ``model`` deterministically: one worker for a bounded effort (most models
    are proved there), then, if not proved, a portfolio of workers whose search is
    interleaved in a fixed order. The first try on a small model is the quick one (no
    presolve, no LP relaxation, no hint), unless its amounts are wide
    (:data:`QUICK_WIDEST`): then it is presolved (without probing) and gets the full
    relaxation. With ``effort``, each run ends at what is left of it and spends it. Only
    a wall-clock ``deadline`` can make the outcome depend on the machine. The portfolio
    runs in a child process (:mod:`trample.solver.optimize.isolated`) unless
    ``settings.isolate`` is off: a C++ exception in one of its worker threads would end
    this process."""
    code = RunStatus.UNKNOWN
    solver = _solver()
    answer: Answer = solver
    variables = model.proto.variables
    size = len(variables)
    small = size <= settings.small_model
    wide = _widest(model) > (settings.quick_widest if small else settings.relaxed_widest)
    phases = ["quick" if small and not wide else "first"]
    if settings.second_try:
        phases.append("portfolio")
    # 2 is CP-SAT's default; 0 skips the detection that overran time limits on big models.
    symmetry_level = 2 if size <= settings.symmetry_detection_variables else 0
    for k, phase in enumerate(phases):
        remaining = None if deadline is None else deadline - time.monotonic()
        if k > 0 and remaining is not None and remaining <= 0:
            break
        # Every parameter that changes is set each time: the solver is reused.
        params = solver.parameters
        params.random_seed = 0
        portfolio = phase == "portfolio"
        params.num_workers = settings.portfolio_workers if portfolio else 1
        params.interleave_search = portfolio
        quick = phase == "quick"
        relaxed = wide and phase == "first"
        params.cp_model_presolve = not quick
        params.cp_model_probing_level = 0 if relaxed else 2
        params.linearization_level = 0 if quick else 2 if relaxed else 1
        params.symmetry_level = symmetry_level
        params.max_deterministic_time = inf if portfolio else settings.quick_deterministic_time
        if effort is not None:
            params.max_deterministic_time = min(params.max_deterministic_time,
                                                max(effort.left, 0.0))
        if remaining is None:
            params.max_time_in_seconds = inf
        else:
            # Kept back: CP-SAT stops late on big models, and the answer must still be
            # read back and checked within the deadline.
            keep = min(size * settings.stop_seconds_per_variable, remaining / 2)
            params.max_time_in_seconds = max(remaining - keep, 0.001)
        # The interleaved portfolio goes on searching after one of its workers has closed
        # the search (proved the optimum), up to its time limit, and then past it by
        # seconds: its log's "#Done" line is the only word of that, so it is stopped there.
        params.log_search_progress = portfolio
        params.log_to_stdout = False
        solver.log_callback = partial(_stop_when_done, solver) if portfolio else None
        model.clear_hints()  # type: ignore[no-untyped-call]
        if best is not None and (not quick or settings.hint_small_models):
            for pair, var in x.items():
                model.add_hint(var, best.get(pair, 0))
        cancel = settings.cancel
        if portfolio and settings.isolate:
            if settings.cancelled():
                break  # cancelled before this phase: the last phase's answer stands
            code, answer = _solve(solver, model, isolate=True, cancel=cancel)
        elif cancel is None:
            code, answer = _solve(solver, model)
        else:
            with cancel.watching(partial(_stop, solver)) as running:
                if running:
                    code, answer = _solve(solver, model)
            if not running:
                break  # cancelled before this phase: the last phase's answer stands
        if effort is not None:
            effort.left -= answer.deterministic_time
        if code is RunStatus.FEASIBLE:
            best = {pair: answer.value(var) for pair, var in x.items()}
        elif code is not RunStatus.UNKNOWN:
            break  # OPTIMAL, or a status the caller reports as a failure
        if settings.cancelled():
            break
    return code, answer


CRASHES = (IndexError, RuntimeError, ValueError)
"""What a C++ exception inside CP-SAT reaches Python as (and a child process that died,
:class:`~trample.solver.optimize.isolated.ChildDied`, a ``RuntimeError``)."""


def _solve(solver: cp_model.CpSolver, model: cp_model.CpModel, isolate: bool = False,
           cancel: Cancel | None = None) -> tuple[RunStatus, Answer]:
    """``solver.solve(model)``, tried again without the hint, then without presolve, if
    CP-SAT fails inside. Its 9.15 presolve can throw when it carries a hint across a
    reduced domain (``absl::btree_map::at``, or-tools issue 5288): a planeswalker pile-up
    with every amount multiplied by 2^29 did, at any parameters, with presolve and the
    greedy split's hint, and was proved without the hint. With ``isolate`` each try runs
    in a child process with ``solver``'s parameters, stopped by ``cancel``
    (:func:`trample.solver.optimize.isolated.solve`), where an abort ends the child."""

    def attempt() -> tuple[cp_model.CpSolverStatus, Answer]:
        if isolate:
            try:
                return isolated.solve(model, solver.parameters, cancel)
            except NoChildProcess:
                pass  # no child can start here: in this process, as before
            if cancel is not None:
                with cancel.watching(partial(_stop, solver)) as running:
                    return (solver.solve(model) if running else cp_model.UNKNOWN), solver
        return solver.solve(model), solver

    try:
        code, answer = attempt()
        return run_status(code), answer
    except CRASHES as failed:
        error: Exception = failed
    if len(model.proto.solution_hint.vars) > 0:
        model.clear_hints()  # type: ignore[no-untyped-call]
        try:
            code, answer = attempt()
            return run_status(code), answer
        except CRASHES as failed:
            error = failed
    if solver.parameters.cp_model_presolve:
        solver.parameters.cp_model_presolve = False
        try:
            code, answer = attempt()
            return run_status(code), answer
        except CRASHES as failed:
            error = failed
    raise SearchFailed(f"CP-SAT failed inside: {type(error).__name__}: {error}") from error


def _stop_when_done(solver: cp_model.CpSolver, line: str) -> None:
    """Stop ``solver`` when a line of its log says that a worker closed the search. The
    status stays CP-SAT's own: ``OPTIMAL`` only if it holds the proof."""
    if line.startswith("#Done"):
        solver.stop_search()


def _stop(solver: cp_model.CpSolver) -> None:
    """Stop ``solver``'s search from another thread. Its time limit is zeroed as well, for
    a search about to start (``stop_search`` reaches only one already started)."""
    solver.parameters.max_time_in_seconds = 0.0
    solver.stop_search()


def _failure(code: RunStatus, model: cp_model.CpModel) -> SearchFailed:
    """The error for a status no correct model of a legal space has (the legal space
    always holds an assignment, and the model is built from it)."""
    if code is RunStatus.INFEASIBLE:
        return SearchFailed("CP-SAT proved the model infeasible, but the legal space is "
                            "never empty: the model of the rules is broken")
    if code is RunStatus.INVALID:
        why = model.validate() or "no reason given"
        return SearchFailed(f"CP-SAT found the model invalid: {why}")
    return SearchFailed(f"CP-SAT answered an unexpected status {code!r}")


@dataclass(frozen=True, slots=True)
class GroupModel:
    """The CP-SAT model of a group without an objective, with the terms to maximize: what
    every backend (CP-SAT here, HiGHS in :mod:`trample.solver.optimize.milp`) solves."""

    model: cp_model.CpModel
    x: dict[Pair, cp_model.IntVar]
    """The amount each source assigns to each of its recipients."""
    expressions: list[cp_model.LinearExprT]
    """Each term's value over the group, in the objective's order."""
    lows: list[int]
    spans: list[int]
    """Each term's range: its value lies in [low, low + span]."""
    lethal: dict[str, cp_model.IntVar | bool]
    """The literal of each creature the model asks about: true only if the creature is
    lethally assigned (true exactly so when it is worth less than nothing to ``kills``),
    or a constant."""


def build_group(space: LegalSpace, sources: Sequence[Source], terms: Sequence[str],
                exclude: frozenset[str] = frozenset(), symmetry: bool | None = None,
                settings: SearchSettings = SHIPPED, ceiled: bool = False) -> GroupModel:
    """The model of ``sources`` (closed under coupling, see :func:`solve_group`) and the
    linear expression of each of ``terms`` over it, unweighted.

    With ``ceiled``, a gated pair's domain ends at what its source can legally give it
    (:func:`trample.solver.optimize.fastpath.ceilings`): every legal assignment stays inside, and
    HiGHS's linear relaxation is tighter (on token swarms its bound on the damage past
    the blockers falls by a fifth). CP-SAT's short first try, without presolve, was
    measured to lose its way on some groups of shared blockers with them."""
    model = _Model()
    x, expressions, lows, spans, lethal = _build(model, space, sources, terms, exclude,
                                                 symmetry, settings, ceiled)
    return GroupModel(model, x, expressions, lows, spans, lethal)


@dataclass(frozen=True, slots=True)
class RowGroup:
    """A group's model recorded as exact integer rows (:func:`build_rows`)."""

    translation: Translation
    index: dict[Pair, int]
    """Each pair's variable."""
    lows: list[int]
    spans: list[int]
    """Each term's range: its value lies in [low, low + span]."""


def build_rows(space: LegalSpace, sources: Sequence[Source], terms: Sequence[str],
               exclude: frozenset[str] = frozenset(), symmetry: bool | None = None,
               settings: SearchSettings = SHIPPED, ceiled: bool = False) -> RowGroup:
    """The model :func:`build_group` builds, by the same code, recorded as integer rows
    (:class:`trample.solver.optimize.rows.RowModel`) without a CP-SAT model: what HiGHS solves."""
    model = RowModel()
    x, expressions, lows, spans, _ = _build(model, space, sources, terms, exclude, symmetry,
                                            settings, ceiled)
    return RowGroup(model.translation(expressions), {p: v.index for p, v in x.items()},
                    lows, spans)


def _build(model: Any, space: LegalSpace, sources: Sequence[Source], terms: Sequence[str],
           exclude: frozenset[str], symmetry: bool | None, settings: SearchSettings,
           ceiled: bool) -> tuple[dict[Pair, Any], list[Any], list[int],
                                  list[int], dict[str, Any]]:
    """Build the model of :func:`build_group` with ``model``'s calls (an OR-Tools
    ``CpModel``, or a :class:`trample.solver.optimize.rows.RowModel` recording rows: ``Any``,
    since both answer the same calls): the variables of the pairs, the terms'
    expressions, their ranges and the creatures' lethal literals."""
    # Variables: the amount each source assigns to each of its recipients.
    x: dict[Pair, cp_model.IntVar] = {}
    into: dict[str, list[cp_model.IntVar]] = {}
    deathtouch_into: dict[str, list[cp_model.IntVar]] = {}
    deathtouch = space.deathtouch_pairs
    by_id = {s.id: s for s in sources}
    most = ceilings(space, sources) if ceiled else {}
    for s in sources:
        for r in s.recipients:
            var = model.new_int_var(0, most.get((s.id, r.id), s.power), f"{s.id}->{r.id}")
            x[(s.id, r.id)] = var
            into.setdefault(r.id, []).append(var)
            if (s.id, r.id) in deathtouch:
                deathtouch_into.setdefault(r.id, []).append(var)

    # 510.1a: a creature that assigns combat damage assigns all of it.
    for s in sources:
        model.add(sum(x[(s.id, r.id)] for r in s.recipients) == s.power)

    if settings.symmetry if symmetry is None else symmetry:
        for first, members in identical_creatures(space, sources):
            column = [x[(first, c)] for c in members]
            for higher, lower in pairwise(column):
                model.add(higher >= lower)

    # Literals for "damage reaches a threshold" imply the threshold is reached. Only a
    # literal that counts against the objective (a creature of negative value for
    # `kills`) must also be false when the threshold is not reached; everywhere else the
    # maximization (or the gate it opens) makes the one direction enough, and a model
    # with half the constraints solves faster.
    exact = {c for c, v in scoring(space).killable.items() if v < 0} if "kills" in terms \
        else set()

    reach: dict[tuple[str, int, bool], cp_model.IntVar] = {}

    def at_least(target: str, need: int, both: bool = False) -> cp_model.IntVar | bool:
        """A literal that implies [damage assigned to target >= need] (and, with
        ``both``, is implied by it); one per target, need and direction, however many
        gates and terms read it (a planeswalker's loyalty gates every trampler over it:
        a row over all its senders for each of them made pile-ups quadratic)."""
        incoming = into.get(target, [])
        if need <= 0:
            return True
        if not incoming:
            return False
        key = (target, need, both)
        if key in reach:
            return reach[key]
        lit: cp_model.IntVar = model.new_bool_var(f"reach[{target}]")
        reach[key] = lit
        total = sum(incoming)
        model.add(total >= need).only_enforce_if(lit)
        if both:
            model.add(total <= need - 1).only_enforce_if(~lit)
        return lit

    # 510.1e, 702.2c: lethally assigned = marked + assigned damage reaches toughness, or a
    # source with deathtouch assigns at least 1.
    lethal: dict[str, cp_model.IntVar | bool] = {}

    def lethally_assigned(creature: str) -> cp_model.IntVar | bool:
        if creature in lethal:
            return lethal[creature]
        both = creature in exact
        reached = at_least(creature, space.thresholds[creature], both)
        touches: list[cp_model.IntVar] = []
        for var in deathtouch_into.get(creature, []):
            t = model.new_bool_var(f"deathtouch[{var.name}]")
            model.add(var >= 1).only_enforce_if(t)
            if both:
                model.add(var == 0).only_enforce_if(~t)
            touches.append(t)
        if reached is True or not touches:
            lethal[creature] = reached
            return reached
        lit: cp_model.IntVar = model.new_bool_var(f"lethal[{creature}]")
        either = [*touches] if reached is False else [reached, *touches]
        model.add_bool_or(either).only_enforce_if(lit)
        if both:
            for t in either:
                model.add_implication(t, lit)
        lethal[creature] = lit
        return lit

    # 702.19b-e: a gated recipient gets damage only once its blockers are lethally assigned
    # and, for trample over planeswalkers, the planeswalker is loyalty-assigned (the
    # conditions are the legal space's).
    conditions = space.conditions
    for s in sources:
        for r in s.recipients:
            if not r.gated:
                continue
            var = x[(s.id, r.id)]
            for condition in conditions[r]:
                lit = (lethally_assigned(condition.item) if condition.kind == "lethal"
                       else at_least(condition.item, condition.threshold))
                if lit is False:
                    model.add(var == 0)
                elif lit is not True:
                    model.add(var == 0).only_enforce_if(~lit)

    # The objective terms (SPEC §4), as linear expressions over this group's variables,
    # each with bounds on its value (for the weighted form below).
    score = scoring(space)
    receivers = set(into)
    # The outcome terms' expressions (and the tables under them) only when one is asked.
    outcome = _Outcomes(model, space, score, x, exclude) \
        if any(t in PLAIN_TERMS for t in terms) else None
    expressions: list[cp_model.LinearExprT] = []
    spans: list[int] = []
    lows: list[int] = []
    for term in terms:
        lows.append(0)
        if term == "kills":
            worth = [(c, v) for c, v in score.killable.items() if c in receivers and v != 0]
            expressions.append(sum(v * lethally_assigned(c) for c, v in worth))
            spans.append(sum(abs(v) for _, v in worth))
            lows[-1] = sum(v for _, v in worth if v < 0)
        elif term in DAMAGE_KINDS:
            kind = DAMAGE_KINDS[term]
            pairs = [(s, v) for (s, t), v in x.items() if score.kind[t] == kind]
            expressions.append(sum(v for _, v in pairs))
            spans.append(sum(by_id[s].power for s in {s for s, _ in pairs}))
        elif term in PLAIN_TERMS:
            assert outcome is not None
            expression, low, span = outcome.term(term)
            expressions.append(expression)
            lows[-1] = low
            spans.append(span)
        else:
            need = score.needs(term)
            assert need is not None, term
            reached = [at_least(t, n) for t, n in need.items()
                       if t in receivers and t not in exclude]
            expressions.append(sum(reached))
            spans.append(len(reached))
    return x, expressions, lows, spans, lethal


def solve_group(space: LegalSpace, sources: Sequence[Source], terms: Sequence[str],
                deadline: float | None = None, exclude: frozenset[str] = frozenset(),
                hint: Amounts | None = None, weighted: bool | None = None,
                symmetry: bool | None = None,
                settings: SearchSettings = SHIPPED) -> GroupResult:
    """Maximize ``terms`` lexicographically over the amounts of ``sources``.

    ``sources`` must be closed under coupling (a union of parts of ``space``, and for each
    threshold term every source that can reach its target, unless the target is in
    ``exclude``: threshold terms then leave it out). With ``weighted`` (by default, when
    the weights fit comfortably in 64 bits) the terms are one weighted sum solved once;
    otherwise each term is maximized in
    turn and then fixed at its optimum; a stage stopped by ``deadline`` ends the search
    with the best assignment of that stage (status ``feasible``). With ``symmetry``,
    interchangeable creatures (:func:`identical_creatures`) get their amounts from one
    source in non-increasing order (by default as ``settings`` say). When ``kills`` is the
    first term with a choice, its search starts from a proved ceiling on it
    (:func:`_kills_from_ceiling`).

    CP-SAT's statuses map as follows: OPTIMAL proves a stage; FEASIBLE and UNKNOWN (the
    time limit struck) end the search with the best assignment so far and a bound;
    INFEASIBLE, MODEL_INVALID or any other status raise :class:`SearchFailed`, an
    :class:`InternalError` (the caller saves the request for a bug report).
    """
    started = time.monotonic()
    built = build_group(space, sources, terms, exclude, symmetry, settings)
    model, x, expressions = built.model, built.x, built.expressions
    lows, spans = built.lows, built.spans
    if weighted is None:
        weighted = prod(span + 1 for span in spans) < MAX_WEIGHT
    weights: list[int] = []
    if weighted and len(expressions) > 1:
        # One solve: each term outweighs everything after it, so the weighted optimum is
        # the lexicographic one.
        weight = 1
        for span in reversed(spans):
            weights.append(weight)
            weight *= span + 1
        weights.reverse()
        expressions = [sum(w * e for w, e in zip(weights, expressions, strict=True))]
    kills = _kills_start(space, sources, terms, built, settings)
    effort = _effort(settings)
    # The stage that ranks splits by `kills` first: the weighted sum, or its own stage.
    kills_stage = -1 if kills is None else 0 if len(expressions) == 1 else kills[0]

    status = RunStatus.OPTIMAL
    bound: list[int] | None = None  # the proved upper bound, per term
    # A legal assignment to start from (e.g. the greedy one): the first hint, and the
    # answer if the time limit leaves no room for a stage.
    best: Amounts | None = None if hint is None else {p: hint.get(p, 0) for p in x}
    stages = 0
    proved: list[int] = []  # the optimum of each stage fixed so far
    for stage, expression in enumerate(expressions):
        if isinstance(expression, int):
            proved.append(expression)
            continue  # constant over this group: nothing to choose
        remaining = None if deadline is None else deadline - time.monotonic()
        stopped = settings.cancelled()
        if (stopped or (remaining is not None and remaining <= 0)) and best is not None:
            status = RunStatus.FEASIBLE
            break
        model.maximize(expression)
        if stage == kills_stage and kills is not None:
            code, solver, best = _kills_from_ceiling(model, x, best, deadline, settings,
                                                     *kills[1:], built.lethal, effort)
        else:
            code, solver = _run(model, x, best, deadline, settings, effort)
        stages += 1
        if code is RunStatus.OPTIMAL:
            best = {pair: solver.value(var) for pair, var in x.items()}
            proved.append(int(solver.objective_value))
            model.add(expression >= proved[-1])
            continue
        if code is RunStatus.FEASIBLE:
            best = {pair: solver.value(var) for pair, var in x.items()}
            bound = _bound(solver, code, weights, lows, spans, stage, proved)
            status = RunStatus.FEASIBLE
            break
        if code is RunStatus.UNKNOWN:
            bound = _bound(solver, code, weights, lows, spans, stage, proved)
            status = RunStatus.UNKNOWN if best is None else RunStatus.FEASIBLE
            break
        raise _failure(code, model)
    if best is None and status is RunStatus.OPTIMAL:
        # Every term is constant: any legal assignment is optimal.
        model.clear_objective()  # type: ignore[no-untyped-call]
        code, solver = _run(model, x, None, deadline, settings, effort)
        if code.found:
            best = {pair: solver.value(var) for pair, var in x.items()}
        elif code is RunStatus.UNKNOWN:
            status = RunStatus.UNKNOWN
        else:
            raise _failure(code, model)
    if status is not RunStatus.OPTIMAL and bound is None:
        # Stopped between stages: the stages done are proved, the rest only bounded by
        # each term's range.
        highs = [lo + span for lo, span in zip(lows, spans, strict=True)]
        done = [] if weights else proved
        bound = [*done, *highs[len(done):]]
    gap = (0,) * len(terms)
    if status is not RunStatus.OPTIMAL and bound is not None:
        # The bound is on the terms' expressions over this group; the value found is the
        # same quantity: the objective of the group's amounts less what no amount changes.
        got = evaluate(space, best or {}, terms, exclude)
        base = evaluate(space, {}, terms, exclude)
        gap = tuple(max(b - (got[t] - base[t]), 0)
                    for b, t in zip(bound, terms, strict=True))
    amounts = {pair: a for pair, a in (best or {}).items() if a > 0}
    return GroupResult(status, amounts, time.monotonic() - started, stages, gap)


def _kills_start(space: LegalSpace, sources: Sequence[Source], terms: Sequence[str],
                 built: GroupModel, settings: SearchSettings
                 ) -> tuple[int, cp_model.LinearExprT, int, Ceiling] | None:
    """When ``kills`` is the first of ``terms`` that varies over the group and a ceiling
    on it is proved below the top of its range
    (:func:`trample.solver.optimize.kill_bound.kills_ceiling`): the term's index, its expression,
    the bottom of its range and the ceiling."""
    if not settings.kills_first or len(sources) < 2:
        return None
    first = next((i for i, e in enumerate(built.expressions) if not isinstance(e, int)),
                 None)
    if first is None or terms[first] != "kills":
        return None
    ceiling = kills_ceiling(space, sources)
    if ceiling is None or ceiling.value >= built.lows[first] + built.spans[first]:
        return None
    return first, built.expressions[first], built.lows[first], ceiling


def _attempt(model: cp_model.CpModel, x: dict[Pair, cp_model.IntVar],
             kills: cp_model.LinearExprT, k: int, best: Amounts | None,
             deadline: float | None, settings: SearchSettings, effort: Effort | None,
             decided: Sequence[tuple[cp_model.IntVar, bool]] = ()
             ) -> tuple[RunStatus, Answer]:
    """The best split of ``model`` (its objective) that kills at least ``k``: a copy of
    the model with that one constraint more (the same model whatever was tried before),
    and each literal of ``decided`` fixed (proved: every split that kills ``k`` kills, or
    spares, its creature), searched by one worker for the first try's effort (and within
    ``effort``)."""
    trial = _Model()
    trial.proto.copy_from(model.proto)
    trial.widest = _widest(model)
    trial.add(kills >= k)
    for literal, killed in decided:
        trial.add(literal == int(killed))
    return _run(trial, x, best, deadline, replace(settings, second_try=False), effort)


def _kills_from_ceiling(model: cp_model.CpModel, x: dict[Pair, cp_model.IntVar],
                        best: Amounts | None, deadline: float | None,
                        settings: SearchSettings, kills: cp_model.LinearExprT, low: int,
                        ceiling: Ceiling, lethal: dict[str, cp_model.IntVar | bool],
                        effort: Effort | None = None
                        ) -> tuple[RunStatus, Answer, Amounts | None]:
    """The stage that ranks splits by ``kills`` first (the model's objective), searched
    from ``ceiling`` (proved: no split kills more) down. The best split that kills at
    least k is the best of all once k + 1 is proved out of reach; so k = ceiling, then
    one less while CP-SAT proves it out of reach (up to ``settings.kills_descent``
    values, each a single-worker try, :func:`_attempt`), then, if none was settled, the
    usual search with ``kills`` at most the last value not proved out of reach.

    Measured on the coupled parts of 30% shared blockers at 30 x 90 (seeds 0-23), the
    ceiling is the optimum on about two parts in three and 1 to 3 above it on the
    others, and proving a value out of reach takes a millisecond or two where proving
    the optimum from below took most of the search. (Two values searched side by side
    on two threads, the lower stopped once the higher is settled, took 3% to 17% longer
    in all: the lower one's search mostly runs for nothing.)

    Each try starts with the creatures the ceiling's prices decide for ``k`` fixed
    (:meth:`~trample.solver.optimize.kill_bound.Ceiling.decided`, by their ``lethal`` literals;
    unless ``settings.kills_fixing`` is off), and a value that a creature decides both
    ways is out of reach without a try (tried values count all the same). Returns the
    status, what the search answered (its solver), and the best split known (a start for
    what follows)."""
    proved_below = ceiling.value  # every value above this is out of reach
    for k in range(ceiling.value, max(ceiling.value - settings.kills_descent, low - 1), -1):
        if effort is not None and effort.left <= 0:
            break  # the group's effort is spent: k stays possible
        decided = ceiling.decided(k) if settings.kills_fixing else []
        if len({c for c, _ in decided}) < len(decided):  # a creature decided both ways
            proved_below = k - 1
            continue
        literals = [(lit, killed) for c, killed in decided
                    if not isinstance(lit := lethal.get(c, True), bool)]
        code, solver = _attempt(model, x, kills, k, best, deadline, settings, effort,
                                literals)
        if code is RunStatus.OPTIMAL:
            return code, solver, best
        if code is RunStatus.FEASIBLE:  # a split at k, not proved best
            best = {pair: solver.value(var) for pair, var in x.items()}
        if code is not RunStatus.INFEASIBLE:
            break  # not settled (its effort, the clock or a cancel): k stays possible
        proved_below = k - 1
    model.add(kills <= proved_below)  # proved: no split kills more
    code, solver = _run(model, x, best, deadline, settings, effort)
    return code, solver, best


def reaches(space: LegalSpace, sources: Sequence[Source], target: str, need: int,
            deadline: float | None = None,
            settings: SearchSettings = SHIPPED) -> bool | None:
    """Whether some legal assignment of ``sources`` (closed under coupling, as for
    :func:`solve_group`) assigns ``target`` at least ``need`` in all: True or False when
    proved, None when ``deadline`` or a cancel came first. Each gated pair's domain ends
    at its legal ceiling (:func:`~trample.solver.optimize.fastpath.ceilings`), as HiGHS's models'
    do: every legal assignment stays inside."""
    built = build_group(space, sources, [], settings=settings, ceiled=True)
    into = [var for (_, t), var in built.x.items() if t == target]
    if not into:
        return need <= 0
    built.model.add(sum(into) >= need)
    code, _ = _run(built.model, built.x, None, deadline, settings)
    if code is RunStatus.INFEASIBLE:
        return False
    if code.found:
        return True
    if code is RunStatus.UNKNOWN:
        return None
    raise _failure(code, built.model)


class _Outcomes:
    """The outcome terms as linear expressions over the amounts: dealt damage is the
    assigned amount times the pair's factor (0 when prevented), so every result of
    damage is a weighted sum and every state-based action a threshold on one
    (:mod:`trample.models.document.outcomes` cites the rules). Literals
    imply their threshold; only a creature of negative value also gets the converse (the
    maximization makes the one direction enough everywhere else)."""

    def __init__(self, model: cp_model.CpModel, space: LegalSpace, score: Scoring,
                 x: dict[Pair, cp_model.IntVar], exclude: frozenset[str]) -> None:
        self.model, self.space, self.score, self.exclude = model, space, score, exclude
        combat = space.combat
        self.power = {s.id: s.power for s in space.sources}
        self.creature = {sid: combat.creature(sid) for sid, _ in x}
        # (source, target, factor, variable) of each pair that deals damage.
        self.into: dict[str, list[tuple[str, int, cp_model.IntVar]]] = {}
        self.kind = score.kind
        for (sid, tid), var in x.items():
            f = score.effects.factor(sid, tid)
            if f > 0:
                self.into.setdefault(tid, []).append((sid, f, var))
        self.toxic: dict[Pair, cp_model.IntVar] = {}

    def _linear(self, pairs: list[tuple[str, int, cp_model.IntVar]]
                ) -> tuple[cp_model.LinearExprT, int]:
        """The sum of dealt damage over ``pairs``, and its largest value."""
        most: dict[str, int] = {}
        for sid, f, _ in pairs:
            most[sid] = max(most.get(sid, 0), f)
        return (sum(f * var for _, f, var in pairs),
                sum(self.power[sid] * f for sid, f in most.items()))

    def _reach(self, pairs: list[tuple[str, int, cp_model.IntVar]], need: int,
               both: bool = False, extra: cp_model.LinearExprT = 0) -> cp_model.IntVar | bool:
        if need <= 0:
            return True
        if not pairs and isinstance(extra, int):
            return extra >= need
        lit = self.model.new_bool_var("outcome")
        total = sum([*(f * var for _, f, var in pairs), extra])
        self.model.add(total >= need).only_enforce_if(lit)
        if both:
            self.model.add(total <= need - 1).only_enforce_if(~lit)
        return lit

    def _any(self, lits: list[cp_model.IntVar | bool], both: bool) -> cp_model.IntVar | bool:
        if any(lit is True for lit in lits):
            return True
        open_lits = [lit for lit in lits if lit is not False]
        if not open_lits:
            return False
        if len(open_lits) == 1:
            return open_lits[0]
        lit = self.model.new_bool_var("any")
        self.model.add_bool_or(open_lits).only_enforce_if(lit)
        if both:
            for other in open_lits:
                self.model.add_implication(other, lit)
        return lit

    def _toxic(self, sid: str, player: str, var: cp_model.IntVar) -> cp_model.IntVar:
        """A literal that implies the source dealt the player damage (toxic)."""
        lit = self.toxic.get((sid, player))
        if lit is None:
            lit = self.toxic[(sid, player)] = self.model.new_bool_var(f"toxic[{sid}]")
            self.model.add(var >= 1).only_enforce_if(lit)
        return lit

    def _poison(self, player: str) -> tuple[cp_model.LinearExprT, int]:
        pairs = self.into.get(player, [])
        infect = [p for p in pairs if self.creature[p[0]].has(INFECT)]
        expression, most = self._linear(infect)
        parts = [expression]
        for sid, _, var in pairs:
            toxic = self.creature[sid].toxic
            if toxic:
                parts.append(toxic * self._toxic(sid, player, var))
                most += toxic
        return sum(parts), most

    def _loses(self, player_id: str) -> cp_model.IntVar | bool:
        combat = self.space.combat
        player = next(p for p in combat.players if p.id == player_id)
        pairs = self.into.get(player_id, [])
        life = [p for p in pairs if not self.creature[p[0]].has(INFECT)]
        poison, _ = self._poison(player_id)
        conditions = [self._reach(life, player.life),
                      self._reach([], POISON_TO_LOSE - player.poison, extra=poison)]
        for t in combat.loss_thresholds:
            if t.player == player_id:
                own = [p for p in pairs if p[0] == t.source]
                conditions.append(self._reach(own, t.threshold - t.already))
        return self._any(conditions, False)

    def _dies(self, creature_id: str, both: bool) -> cp_model.IntVar | bool:
        creature = self.space.combat.creature(creature_id)
        pairs = self.into.get(creature_id, [])
        if creature.has(INDESTRUCTIBLE):
            counters = [p for p in pairs if self.creature[p[0]].has(WITHER)
                        or self.creature[p[0]].has(INFECT)]
            return self._reach(counters, creature.toughness, both)
        conditions = [self._reach(pairs, creature.lethal_need, both)]
        conditions += [self._reach([p], 1, both) for p in pairs
                       if self.creature[p[0]].has(DEATHTOUCH)]
        return self._any(conditions, both)

    def term(self, term: str) -> tuple[cp_model.LinearExprT, int, int]:
        """The term's expression over this group, its lowest value and its range."""
        score, exclude = self.score, self.exclude
        if term == "deaths":
            nothing = _nothing()
            worth = [(c, creature.value) for c, creature in score.candidates.items()
                     if c in self.into and creature.value != 0
                     and not creature_dies(creature, nothing)]
            deaths: cp_model.LinearExprT = sum(v * self._dies(c, v < 0) for c, v in worth)
            return (deaths, sum(v for _, v in worth if v < 0),
                    sum(abs(v) for _, v in worth))
        if term == "survivals":
            # The side's own creatures that its damage may kill (a creature of the other
            # side whose split it chooses, 702.22j-k): each death takes its value away.
            # A creature worth more than 0 gets both directions of its literal, since
            # the maximization would otherwise leave it false.
            mine = own_creatures(self.space)
            worth = [(c, mine[c].value) for c in self.into
                     if c in mine and mine[c].value != 0]
            lost: cp_model.LinearExprT = sum(-v * self._dies(c, v > 0) for c, v in worth)
            return (lost, -sum(v for _, v in worth if v > 0),
                    sum(abs(v) for _, v in worth))
        if term == "life_kept":
            players = own_players(self.space)
            pairs = [p for t, ps in self.into.items() if t in players for p in ps
                     if not self.creature[p[0]].has(INFECT)]
            loss, most = self._linear(pairs)
            return -loss, -most, most
        if term == "poison":
            parts: list[cp_model.LinearExprT] = []
            span = 0
            for target in self.into:
                if self.kind[target] == "player":
                    poison, most = self._poison(target)
                    parts.append(poison)
                    span += most
            return sum(parts), 0, span
        if term in OUTCOME_DAMAGE_KINDS:
            kind = OUTCOME_DAMAGE_KINDS[term]
            pairs = [p for t, ps in self.into.items() if self.kind[t] == kind for p in ps
                     if kind != "player" or not self.creature[p[0]].has(INFECT)]
            loss, most = self._linear(pairs)
            return loss, 0, most
        if term == "life_gain":
            combat = self.space.combat
            own = {combat.active_player} if self.space.side == "attackers" else \
                {p.id for p in combat.defending_players}
            pairs = [p for ps in self.into.values() for p in ps
                     if self.creature[p[0]].has(LIFELINK)
                     and self.creature[p[0]].controller in own]
            gain, most = self._linear(pairs)
            return gain, 0, most
        targets = [t for t in score.thresholds[term] if t in self.into and t not in exclude]
        if term == "losses":
            lits = [self._loses(t) for t in targets]
        else:
            lits = [self._reach(self.into[t], score.life[t]) for t in targets]
        return sum(lits), 0, len(targets)


def _nothing() -> Outcome:
    return Outcome()


def _bound(solver: Answer, code: RunStatus, weights: list[int],
           lows: list[int], spans: list[int], stage: int,
           proved: list[int]) -> list[int] | None:
    """The per-term lexicographic upper bound after a stage stopped early.

    Weighted (one stage): the bound on the weighted sum, read back digit by digit in the
    mixed radix of the weights. Staged: the terms already fixed at their optimum, the
    stopped term at CP-SAT's bound, the later ones at the top of their range.
    """
    if not code.stopped:
        return None
    highs = [lo + span for lo, span in zip(lows, spans, strict=True)]
    if code is RunStatus.UNKNOWN:
        return [*proved[:stage], *highs[stage:]]
    top = floor(solver.best_objective_bound + 1e-6)
    if not weights:
        return [*proved[:stage], min(top, highs[stage]), *highs[stage + 1:]]
    return weighted_bound_digits(top, weights, lows, spans)


def weighted_bound_digits(top: int, weights: list[int], lows: list[int],
                          spans: list[int]) -> list[int]:
    """A bound ``top`` on the weighted sum, read back as a lexicographic bound per term:
    digit by digit in the mixed radix of the weights, each term in [low, low + span]
    (every backend's weighted bound reads back this way)."""
    highs = [lo + span for lo, span in zip(lows, spans, strict=True)]
    rest = top - sum(w * lo for w, lo in zip(weights, lows, strict=True))
    out: list[int] = []
    for i, (w, lo, span) in enumerate(zip(weights, lows, spans, strict=True)):
        digit = max(rest // w, 0)
        if digit > span:
            return out + highs[i:]
        out.append(lo + digit)
        rest -= digit * w
    return out
