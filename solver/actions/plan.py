"""Both combat damage steps at once: the attackers' first-strike split chosen knowing the
regular step (``plan``).

The rules order four choices (510.1, 510.4): the attackers' first-strike split, the
defending players' reply, then, on the combat that remains after first-strike damage and
state-based actions, the attackers' regular split and the defenders' reply. The
attackers' objective is scored on the whole combat (:func:`score`); the defenders choose
what is worst for it (zero-sum). The search is an exact minimax on lexicographic
vectors with alpha-beta cut-offs. Each side's split in each step covers the creatures
whose split it chooses (702.22j-k: :func:`~trample.solver.rules.legal_space.legal_space`). In the
regular step, when no defending creature has lifelink and each side chooses only its own
creatures' splits, every term depends on one side's split only (the attackers' damage
decides losses, deaths and the damage terms; the defenders' decides survivals), so the
step's value is the attackers' best plus the defenders' worst, found without pairing
them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

from trample.models.document.combat import Combat, brief_repr
from trample.models.document.errors import InputError
from trample.models.document.outcomes import StepResult, deal_step
from trample.models.document.tiny import Tiny
from trample.solver.actions.plan_numbers import (
    NumericPlan,
    numeric_plan,
    regular_combat,
    tiny_plan,
)
from trample.solver.actions.union import census_of
from trample.solver.count.work import CountOutOfReach
from trample.solver.optimize.cancel import Cancel
from trample.solver.optimize.objectives import battle_targets, term_names, walker_targets
from trample.solver.optimize.status import Status
from trample.solver.rules.assignment import Amounts
from trample.solver.rules.choosers import moved_choices
from trample.solver.rules.legal_space import legal_space

PLAN_TERMS: tuple[str, ...] = ("losses", "deaths", "survivals", "planeswalker_deaths",
                               "battle_deaths", "poison", "life_loss", "loyalty_loss",
                               "defense_loss", "life_gain")
"""The terms of ``plan``'s default objective, in order."""
PLAN_EXTRA_TERMS: tuple[str, ...] = ("trade",)
"""Terms ``plan`` accepts beyond its default ones: ``trade``, the value of the defending
players' creatures that die minus the value of the active player's creatures that die
(SPEC §11)."""
ACCEPTED_TERMS: tuple[str, ...] = PLAN_TERMS + PLAN_EXTRA_TERMS

MAX_PLAN_SIZE = 2_000_000
"""The largest combat planned: the product of the numbers of legal splits of the four
choices (the regular step's counted on the combat before first-strike damage)."""

PROVING_LEAVES = 2_000
"""Lines a stopped search (a deadline passed, a cancel) may still score to prove the
value of its first candidate split when it has proved none: a fixed amount of work (well
under a second), so that a tiny combat always gets an answer and a large one is refused
soon after its time is up, whatever the machine."""

Vector = tuple[int, ...]


class _Stopped(Exception):
    """The search was stopped (deadline, cancel or its budget of lines) inside a
    candidate's evaluation: what that candidate's evaluation found is no guarantee."""


def parse_plan_objective(raw: object, path: str = "objective",
                         default: tuple[str, ...] = PLAN_TERMS, what: str = "plan"
                         ) -> tuple[str, ...]:
    """A list of plan terms (or a comma-separated string); None: ``default``."""
    if raw is None:
        return default
    terms = term_names(raw, path)
    for i, term in enumerate(terms):
        if term not in ACCEPTED_TERMS:
            raise InputError(f"{path}[{i}]", f"unknown term {brief_repr(term)} for {what} "
                             f"(terms: {', '.join(ACCEPTED_TERMS)})")
        if term in terms[:i]:
            raise InputError(f"{path}[{i}]", f"{term!r} is listed twice")
    return tuple(terms)


@dataclass(frozen=True, slots=True)
class Plan:
    """The attackers' first-strike split, the value it guarantees, and one principal line."""

    status: Status
    objective: dict[str, int]
    first_strike: Amounts
    blockers_first_strike: Amounts
    attackers_regular: Amounts
    blockers_regular: Amounts
    leaves: int
    """Complete lines scored (a measure of the search's work)."""
    ordered: bool = False
    """Whether each of the four splits lists its positive amounts in the legal space's
    canonical order already (sources in document order, each one's blockers in document
    order, then the player), so that its items are the answer's entries as they are: so
    for the numbers' path (:mod:`.plan_numbers`), whose answers are written without the
    legal spaces."""


class Scorer:
    """The attackers' objective over a whole line of play."""

    def __init__(self, combat: Combat, terms: Sequence[str]) -> None:
        self.combat = combat
        self.terms = tuple(terms)
        self.opponents = frozenset(p.id for p in combat.defending_players)
        self.blockers = {c.id: c.value for c in combat.blockers}
        self.attackers = {c.id: c.value for c in combat.attackers}
        self.walkers = frozenset(t.id for t in walker_targets(combat))
        self.battles = frozenset(t.id for t in battle_targets(combat))

    def score(self, first: StepResult | None, second: StepResult) -> Vector:
        steps = (second,) if first is None else (first, second)
        died = second.died if first is None else first.died | second.died
        return tuple(_TERMS[t](self, steps, died) for t in self.terms)

    def _deaths(self, died: frozenset[str]) -> int:
        return sum(v for c, v in self.blockers.items() if c in died)

    def _losses(self, steps: Sequence[StepResult]) -> int:
        return len(frozenset().union(*(s.lost for s in steps)) & self.opponents)

    def _poison(self, steps: Sequence[StepResult]) -> int:
        return sum(n for s in steps for p, n in s.outcome.poison.items()
                   if p in self.opponents)

    def _life_loss(self, steps: Sequence[StepResult]) -> int:
        return sum(n for s in steps for p, n in s.outcome.life_loss.items()
                   if p in self.opponents)


Steps = Sequence[StepResult]
_TERMS: dict[str, Callable[[Scorer, Steps, frozenset[str]], int]] = {
    # Each term on its own, so that a line is scored for the terms asked only.
    "losses": lambda s, steps, died: s._losses(steps),
    "deaths": lambda s, steps, died: s._deaths(died),
    "survivals": lambda s, steps, died: sum(v for c, v in s.attackers.items()
                                            if c not in died),
    "trade": lambda s, steps, died: s._deaths(died) - sum(
        v for c, v in s.attackers.items() if c in died),
    "planeswalker_deaths": lambda s, steps, died: len(
        frozenset().union(*(r.walkers_died for r in steps)) & s.walkers),
    "battle_deaths": lambda s, steps, died: len(
        frozenset().union(*(r.battles_died for r in steps)) & s.battles),
    "poison": lambda s, steps, died: s._poison(steps),
    "life_loss": lambda s, steps, died: s._life_loss(steps),
    "loyalty_loss": lambda s, steps, died: sum(sum(r.outcome.loyalty_loss.values())
                                               for r in steps),
    "defense_loss": lambda s, steps, died: sum(sum(r.outcome.defense_loss.values())
                                               for r in steps),
    "life_gain": lambda s, steps, died: sum(
        r.outcome.life_gain.get(s.combat.active_player, 0) for r in steps),
}


SPLITS_PER_CHECK = 256
"""Splits :func:`splits` lists between two calls of its ``check``."""


def splits(combat: Combat, side: Literal["attackers", "blockers"],
           check: Callable[[], None] | None = None) -> list[Amounts]:
    """Every legal split of one side in one step, in enumerate's order (the one split
    when no source has a choice); ``check`` is called every :data:`SPLITS_PER_CHECK`
    (it raises to stop the listing)."""
    space = legal_space(combat, side)
    forced = space.forced
    if forced is not None:
        return [forced]
    out: list[Amounts] = []
    for i, a in enumerate(census_of(space, ordered=True).enumerate()):
        if check is not None and i % SPLITS_PER_CHECK == SPLITS_PER_CHECK - 1:
            check()
        out.append(dict(a))
    return out


def _count(combat: Combat, side: Literal["attackers", "blockers"]) -> int:
    try:
        return census_of(legal_space(combat, side)).count()
    except CountOutOfReach:
        return MAX_PLAN_SIZE + 1


def plan_size(combat: Combat) -> int:
    """The product of the numbers of legal splits of the four choices (the regular
    step's counted on the combat as it is, before first-strike damage)."""
    regular = Combat(combat.active_player, combat.players, combat.creatures,
                     combat.planeswalkers, combat.battles, "regular", combat.prevention,
                     combat.multipliers, combat.loss_thresholds)
    size = 1
    steps = [combat, regular] if combat.step == "first_strike" else [regular]
    sides: tuple[Literal["attackers", "blockers"], ...] = ("attackers", "blockers")
    for step in steps:
        for side in sides:
            size *= max(_count(step, side), 1)
            if size > MAX_PLAN_SIZE:
                return size
    return size


class _Search:
    """The minimax search, stopped by a ``deadline``, a ``cancel`` or ``max_leaves``:
    each is looked at before every line scored and every split listed, so that the
    overrun is at most one line's work (or, before any value is proved,
    :data:`PROVING_LEAVES` lines)."""

    def __init__(self, combat: Combat, terms: Sequence[str], deadline: float | None,
                 cancel: Cancel | None = None, max_leaves: int | None = None) -> None:
        self.combat = combat
        self.scorer = Scorer(combat, terms)
        self.deadline = deadline
        self.cancel = cancel
        self.max_leaves = max_leaves
        self.leaves = 0
        self.proved = False
        """Whether some candidate split of the first choice has a proved value: from then
        on a stop is obeyed at once."""

    def stopped(self) -> bool:
        """Whether the deadline has passed, the request was cancelled or the budget of
        lines is spent."""
        return (self.max_leaves is not None and self.leaves >= self.max_leaves) \
            or (self.cancel is not None and self.cancel.is_set()) \
            or (self.deadline is not None and time.monotonic() > self.deadline)

    def _check(self) -> None:
        """Raise :class:`_Stopped` when the search must end: at once once a value is
        proved, else after :data:`PROVING_LEAVES` lines (or the budget)."""
        if self.stopped() and (self.proved or self.leaves >= PROVING_LEAVES
                               or (self.max_leaves is not None
                                   and self.leaves >= self.max_leaves)):
            raise _Stopped

    def _splits(self, combat: Combat, side: Literal["attackers", "blockers"]) -> list[Amounts]:
        return splits(combat, side, self._check)

    def regular(self, first: StepResult | None, combat: Combat, alpha: Vector | None,
                beta: Vector | None, top: list[tuple[Vector, Amounts, Amounts]] | None = None
                ) -> tuple[Vector, Amounts, Amounts]:
        """The value of the regular step on ``combat`` for the attackers (max over their
        split of the min over the defenders'), with its principal splits. With ``top``
        (the regular step is the first choice), each attackers' split whose value is
        proved, when it is the best so far, is put there: what a stopped search
        answers."""
        attacks = self._splits(combat, "attackers")
        replies = self._splits(combat, "blockers")
        separable = not moved_choices(combat) \
            and not any(c.has("lifelink") for c in combat.blockers)
        # Pairing the splits scores at most len(attacks) * len(replies) lines, the sum
        # len(attacks) + len(replies) + 1: when one side has a single split (a forced
        # reply, the usual case of small combats) or both have two, pairing is no dearer,
        # and it finds the same value and the same principal splits (the first best
        # attack, its first worst reply: adding a constant vector keeps lexicographic
        # order).
        if separable and len(attacks) * len(replies) > len(attacks) + len(replies) + 1:
            # Every term depends on one side's split: value(a, b) = value(a, {}) +
            # value({}, b) - value({}, {}), and lexicographic order respects sums. Not
            # so when a side chooses a creature of the other's (702.22j-k): then both
            # splits damage the same creatures and players. The defenders' worst reply
            # first: from then on each split of the attackers has a proved value.
            base = self._leaf(first, combat, {})
            vb, worst_b = min((self._leaf(first, combat, b), i) for i, b in enumerate(replies))
            found: tuple[Vector, Amounts, Amounts] | None = None
            for a in attacks:
                va = self._leaf(first, combat, a)
                value = tuple(x + y - z for x, y, z in zip(va, vb, base, strict=True))
                if found is None or value > found[0]:
                    found = (value, a, replies[worst_b])
                    if top is not None:
                        top.append(found)
                        self.proved = True
            assert found is not None
            return found
        best: tuple[Vector, Amounts, Amounts] | None = None
        for a in attacks:
            low: tuple[Vector, Amounts] | None = None
            for b in replies:
                v = self._leaf(first, combat, {**a, **b})
                if low is None or v < low[0]:
                    low = (v, b)
                if best is not None and low[0] <= best[0]:
                    break  # this split cannot beat the best one
                if alpha is not None and low[0] <= alpha:
                    break
            assert low is not None
            if best is None or low[0] > best[0]:
                best = (low[0], a, low[1])
                if top is not None:
                    top.append(best)
                    self.proved = True
                if beta is not None and best[0] >= beta:
                    break  # the defenders will not let the line come here
        assert best is not None
        return best

    def _leaf(self, first: StepResult | None, combat: Combat, amounts: Amounts) -> Vector:
        self._check()
        self.leaves += 1
        return self.scorer.score(first, deal_step(combat, amounts, last=True))

    def run(self) -> Plan:
        """The plan; ``feasible`` with the best split whose value is proved when the
        search is stopped; :class:`_Stopped` when it is stopped before any is."""
        combat = self.combat
        if combat.step != "first_strike":
            top: list[tuple[Vector, Amounts, Amounts]] = []
            try:
                value, a2, b2 = self.regular(None, combat, None, None, top)
            except _Stopped:
                if not top:
                    raise
                return self._plan("feasible", top[-1][0], {}, {}, *top[-1][1:])
            return self._plan("optimal", value, {}, {}, a2, b2)
        attacks = self._splits(combat, "attackers")
        replies = self._splits(combat, "blockers")
        best: tuple[Vector, Amounts, Amounts, Amounts, Amounts] | None = None
        status: Status = "optimal"
        for a1 in attacks:
            low: tuple[Vector, Amounts, Amounts, Amounts] | None = None
            try:
                for b1 in replies:
                    first = deal_step(combat, {**a1, **b1})
                    assert first.after is not None
                    alpha = None if best is None else best[0]
                    beta = None if low is None else low[0]
                    value, a2, b2 = self.regular(first, first.after, alpha, beta)
                    if low is None or value < low[0]:
                        low = (value, b1, a2, b2)
                    if best is not None and low[0] <= best[0]:
                        break
            except _Stopped:
                if best is None:
                    raise
                status = "feasible"
                break
            assert low is not None
            if best is None or low[0] > best[0]:
                best = (low[0], a1, *low[1:])
            self.proved = True
        assert best is not None
        return self._plan(status, *best)

    def guarantee(self, a1: Amounts) -> Vector:
        """What the first-strike split ``a1`` guarantees: the defenders' worst reply."""
        low: Vector | None = None
        for b1 in self._splits(self.combat, "blockers"):
            first = deal_step(self.combat, {**a1, **b1})
            assert first.after is not None
            value, _, _ = self.regular(first, first.after, None, low)
            low = value if low is None or value < low else low
        assert low is not None
        return low

    def _plan(self, status: Status, value: Vector, a1: Amounts, b1: Amounts, a2: Amounts,
              b2: Amounts) -> Plan:
        return Plan(status, dict(zip(self.scorer.terms, value, strict=True)), a1, b1, a2,
                    b2, self.leaves)


def plan_combat(combat: Combat, terms: Sequence[str] = PLAN_TERMS,
         deadline: float | None = None, max_size: int = MAX_PLAN_SIZE,
         cancel: Cancel | None = None, max_leaves: int | None = None) -> Plan:
    """The attackers' best first-strike split against the defenders' worst replies, with
    the value it guarantees (exact minimax, lexicographic). A combat whose four choices
    have more than ``max_size`` splits in product is refused, never estimated.

    A ``deadline`` (a :func:`time.monotonic` instant) that passes, a ``cancel`` that is
    set, or ``max_leaves`` lines scored stop the search: it answers ``feasible`` with the
    best split fully examined (its value is guaranteed). Stopped before any split is
    fully examined, it goes on for at most :data:`PROVING_LEAVES` lines in all to prove
    the first one, and past them refuses the combat (:class:`InputError` naming its
    size): a value it has not proved is never given.

    A combat whose blockers each block one attacker is planned on numbers
    (:mod:`.plan_numbers`: the same value and line) unless a budget of lines is given or
    the search is stopped before that is done; every other combat by the search here."""
    if max_leaves is None:
        # A budget of lines counts the general search's lines: only that search obeys it.
        quick = numeric_plan(combat, terms, max_size, _stopper(deadline, cancel))
        if quick is not None:
            return _quick_plan(terms, quick)
    size = plan_size(combat)
    if size > max_size:
        raise InputError("combat", f"too large to plan exactly: the four choices have "
                         f"{'more than ' if size > MAX_PLAN_SIZE else ''}{size:,} legal "
                         f"splits in product (the limit is {max_size:,})")
    search = _Search(combat, terms, deadline, cancel, max_leaves)
    try:
        return search.run()
    except _Stopped:
        why = "the request was cancelled" if cancel is not None and cancel.is_set() else \
            "the search was stopped" if deadline is None else "the time limit ran out"
        raise InputError("combat", f"too large to plan within the request's limits: {why} "
                         f"before the value of any split was proved ({search.leaves:,} "
                         f"lines scored; the four choices have {size:,} legal splits in "
                         "product)") from None


def plan_tiny(tiny: Tiny, terms: Sequence[str] = PLAN_TERMS, deadline: float | None = None,
              cancel: Cancel | None = None) -> Plan | None:
    """:func:`plan_combat`'s answer for a combat read by
    :func:`~trample.models.document.tiny.read_tiny` when the numbers' path takes it (the
    same plan, without building the :class:`Combat`), else None: :func:`plan_combat`
    then answers for it."""
    quick = tiny_plan(tiny, terms, MAX_PLAN_SIZE, _stopper(deadline, cancel))
    return None if quick is None else _quick_plan(terms, quick)


def _stopper(deadline: float | None, cancel: Cancel | None) -> Callable[[], bool]:
    """Whether the numbers' path must stop: ``cancel`` is set or ``deadline`` passed."""
    def stopped() -> bool:
        return (cancel is not None and cancel.is_set()) \
            or (deadline is not None and time.monotonic() > deadline)
    return stopped


def _quick_plan(terms: Sequence[str], quick: NumericPlan) -> Plan:
    return Plan("optimal", dict(zip(terms, quick.value, strict=True)), quick.first_strike,
                quick.blockers_first_strike, quick.attackers_regular, quick.blockers_regular,
                quick.leaves, True)


def guarantee(combat: Combat, first_strike: Amounts,
              terms: Sequence[str] = PLAN_TERMS) -> dict[str, int]:
    """The value a first-strike split of the attackers guarantees over the whole combat
    (the defenders answering worst in each step, the attackers best in the regular one)."""
    value = _Search(combat, terms, None).guarantee(first_strike)
    return dict(zip(terms, value, strict=True))


def regular_document(combat: Combat, attackers: Amounts, blockers: Amounts) -> Combat:
    """The regular step's combat after the two first-strike splits (both legal)."""
    both = {**attackers, **blockers}
    quick = regular_combat(combat, both)
    if quick is not None:
        return quick
    after = deal_step(combat, both).after
    assert after is not None
    return after


__all__ = ["ACCEPTED_TERMS", "MAX_PLAN_SIZE", "PLAN_TERMS", "Plan", "guarantee",
           "parse_plan_objective",
           "plan_combat", "plan_size", "plan_tiny", "regular_document"]
