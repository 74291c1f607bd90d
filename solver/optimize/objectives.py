"""The objective terms and their value for an assignment.

Two families of terms: those on *assigned* damage (``lethal``, ``kills``, ...), and those on
what the *dealt* damage does (``losses``, ``deaths``, ``poison``, ...), read from
:mod:`trample.models.document.outcomes` (prevention, multipliers, infect, wither, lifelink, toxic,
loss thresholds). On a combat where none of those apply (:attr:`Scoring.plain`) each
outcome term equals an assigned-damage term or a constant (:data:`PLAIN_TERMS`), and the
search runs on those.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from trample.models.document.assignment import Pair
from trample.models.document.combat import Combat, Creature, brief_repr
from trample.models.document.errors import InputError
from trample.models.document.keywords import INDESTRUCTIBLE
from trample.models.document.outcomes import (
    Effects,
    Outcome,
    battle_dies,
    creature_dies,
    deal,
    dies,
    effects,
    has_outcome_effects,
    planeswalker_dies,
    player_loses,
)
from trample.solver.rules.choosers import Side, moved_choices
from trample.solver.rules.legal_space import LegalSpace, Source, mode_space, modes_of

ASSIGNED_TERMS: tuple[str, ...] = ("lethal", "kills", "planeswalker_kills", "battle_kills",
                                   "player_damage", "planeswalker_damage", "battle_damage")
"""Terms on assigned damage (702.19b: what legality judges)."""
OUTCOME_TERMS: tuple[str, ...] = ("losses", "deaths", "planeswalker_deaths", "battle_deaths",
                                  "poison", "life_loss", "loyalty_loss", "defense_loss",
                                  "life_gain")
"""Terms on what the dealt damage does (:mod:`trample.models.document.outcomes`)."""
OWN_TERMS: tuple[str, ...] = ("survivals", "life_kept")
"""Terms on what a side's dealt damage does to its own creatures and players: constant
unless the side chooses the split of a creature of the other side (702.22j-k, or an
effect), whose damage goes to the side's own creatures and players."""
TERMS: tuple[str, ...] = OUTCOME_TERMS + OWN_TERMS + ASSIGNED_TERMS
BOTH_SIDES = frozenset({"kills", "deaths", "life_gain", "survivals", "life_kept"})
DEFAULTS: dict[Side, tuple[str, ...]] = {
    "attackers": ("losses", "deaths", "survivals", "planeswalker_deaths", "battle_deaths",
                  "poison", "life_loss", "loyalty_loss", "defense_loss", "life_gain"),
    "blockers": ("life_kept", "survivals", "deaths", "life_gain"),
}

PLAIN_TERMS: dict[str, str | None] = {
    "losses": "lethal", "deaths": "kills", "planeswalker_deaths": "planeswalker_kills",
    "battle_deaths": "battle_kills", "poison": None, "life_loss": "player_damage",
    "loyalty_loss": "planeswalker_damage", "defense_loss": "battle_damage",
    "life_gain": None, "survivals": None, "life_kept": None,
}
"""On a plain combat, the assigned-damage term each outcome term equals up to a constant
(``deaths`` also counts an indestructible creature of toughness 0 or less, whatever
is assigned), or None when it is a constant (no infect, toxic or lifelink; no creature
of the other side whose split this side chooses, so nothing reaches the side's own)."""
OUTCOME_THRESHOLD_TERMS = frozenset({"losses", "planeswalker_deaths", "battle_deaths"})
OUTCOME_DAMAGE_KINDS = {"life_loss": "player", "loyalty_loss": "planeswalker",
                        "defense_loss": "battle"}


def term_names(raw: object, path: str = "objective") -> list[str]:
    """The term names of an objective: a list of strings, or a comma-separated string;
    at least one (which terms exist is the caller's to check)."""
    if isinstance(raw, str):
        terms = [t.strip() for t in raw.split(",") if t.strip()]
    elif isinstance(raw, list):
        terms = []
        for i, t in enumerate(raw):
            if not isinstance(t, str):
                raise InputError(f"{path}[{i}]", "must be a term name (a string)")
            terms.append(t)
    else:
        raise InputError(path, "must be a list of term names")
    if not terms:
        raise InputError(path, "must name at least one term")
    return terms


def parse_objective(raw: object, side: Side, path: str = "objective") -> tuple[str, ...]:
    """Check a list of terms (or a comma-separated string) for ``side``; None: default."""
    if raw is None:
        return DEFAULTS[side]
    terms = term_names(raw, path)
    seen: set[str] = set()
    for i, term in enumerate(terms):
        where = f"{path}[{i}]"
        if term not in TERMS:
            raise InputError(where, f"unknown term {brief_repr(term)} (terms: "
                             f"{', '.join(TERMS)})")
        if side != "attackers" and term not in BOTH_SIDES:
            raise InputError(where, f"{term!r} applies to side 'attackers' only")
        if term in seen:
            raise InputError(where, f"{term!r} is listed twice")
        seen.add(term)
    return tuple(terms)


@dataclass(frozen=True, slots=True)
class ThresholdTarget:
    """A player, planeswalker or battle whose term counts 1 once damage reaches ``need``."""

    id: str
    need: int


def lethal_targets(combat: Combat) -> tuple[ThresholdTarget, ...]:
    """`lethal`: every player but the active player; dead once damage reaches life."""
    return tuple(ThresholdTarget(p.id, p.life) for p in combat.defending_players)


def walker_targets(combat: Combat) -> tuple[ThresholdTarget, ...]:
    """`planeswalker_kills`: planeswalkers in combat (attacked, not removed, 506.4)."""
    return tuple(ThresholdTarget(w.id, w.loyalty) for w in combat.planeswalkers
                 if w.in_combat and combat.attacked(w.id))


def battle_targets(combat: Combat) -> tuple[ThresholdTarget, ...]:
    """`battle_kills`: battles in combat (attacked, not removed)."""
    return tuple(ThresholdTarget(b.id, b.defense) for b in combat.battles
                 if b.in_combat and combat.attacked(b.id))


def threshold_targets(combat: Combat, term: str) -> tuple[ThresholdTarget, ...]:
    """The targets a threshold term counts; empty for the other terms."""
    if term == "lethal":
        return lethal_targets(combat)
    if term == "planeswalker_kills":
        return walker_targets(combat)
    if term == "battle_kills":
        return battle_targets(combat)
    if term in OUTCOME_THRESHOLD_TERMS:
        base = PLAIN_TERMS[term]
        assert base is not None
        return threshold_targets(combat, base)
    return ()


DAMAGE_KINDS = {"player_damage": "player", "planeswalker_damage": "planeswalker",
                "battle_damage": "battle"}


@dataclass(frozen=True, slots=True)
class OutcomeTables:
    """What the outcome terms read beyond the assigned-damage terms (prevention and
    factors, who is lost or dead whatever is assigned), derived once per legal space and
    only when something asks for it: a plain combat (:attr:`Scoring.plain`) scores its
    outcome terms without them."""

    effects: Effects
    candidates: dict[str, Creature]
    """The opposing creatures in combat, whose deaths ``deaths`` counts."""
    deaths_constant: int
    """Value of the candidates that die whatever is assigned."""
    gone: dict[str, frozenset[str]]
    """Per outcome threshold term: the targets lost or dead whatever is assigned."""
    thresholds: dict[str, dict[str, int]]
    """Per outcome threshold term: the reachable targets not already gone, with the
    damage plain damage needs."""
    life: dict[str, int]
    """Loyalty of planeswalkers and defense of battles, by id."""


@dataclass(frozen=True, slots=True)
class Scoring:
    """What each term reads, derived once per legal space, so that scoring an assignment
    costs time in proportion to the assignment, not to the combat.

    The fields are what the assigned-damage terms read; the outcome terms' own tables
    (:class:`OutcomeTables`: ``effects``, ``candidates``, ``deaths_constant``, ``gone``,
    ``life`` and the outcome terms' ``thresholds``) are built on first use, which a plain
    combat's scoring never needs.
    """

    combat: Combat = field(repr=False, compare=False)
    candidates_in_order: tuple[Creature, ...] = field(repr=False, compare=False)
    """The opposing creatures in combat (:attr:`LegalSpace.kill_candidates`)."""
    killable: dict[str, int]
    """Opposing creatures in combat that lethal damage destroys and that some source may
    assign to, with their values."""
    kills_constant: int
    """Value of the killable creatures already lethally damaged, whatever is assigned."""
    assigned_thresholds: dict[str, dict[str, int]]
    """Per assigned-damage threshold term: the targets that can still be reached, with
    their thresholds."""
    threshold_constant: dict[str, frozenset[str]]
    """Per threshold term: the targets at their threshold whatever is assigned."""
    kind: dict[str, str]
    """The kind of everything a source may assign to."""
    plain: bool
    """Nothing makes dealt damage differ from assigned damage in its results: the outcome
    terms equal assigned-damage terms (:data:`PLAIN_TERMS`) up to a constant."""
    deaths_extra: int
    """On a plain combat, ``deaths`` less ``kills``: the value of the indestructible
    candidates of toughness 0 or less, which die whatever is assigned (indestructible
    does not save them)."""
    _later: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """What is built on first use. (Not the space itself: the space keeps its scoring,
    and a reference back would make every request's space garbage for the cycle
    collector instead of freed at once.)"""

    @property
    def outcome(self) -> OutcomeTables:
        """The outcome terms' tables (built on first use, then kept)."""
        found = self._later.get("outcome")
        if found is None:
            found = self._later["outcome"] = outcome_tables(self)
        return found

    @property
    def thresholds(self) -> dict[str, dict[str, int]]:
        """Per threshold term, assigned-damage and outcome alike: the targets that can
        still be reached, with their thresholds."""
        found = self._later.get("thresholds")
        if found is None:
            found = self._later["thresholds"] = {**self.assigned_thresholds,
                                                 **self.outcome.thresholds}
        return found

    def needs(self, term: str) -> dict[str, int] | None:
        """:attr:`thresholds`' entry for ``term`` (None for a term without thresholds),
        building the outcome tables only for an outcome threshold term."""
        if term in OUTCOME_THRESHOLD_TERMS:
            return self.outcome.thresholds.get(term)
        return self.assigned_thresholds.get(term)

    @property
    def effects(self) -> Effects:
        """The combat's prevention and factors (:class:`OutcomeTables`)."""
        return self.outcome.effects

    @property
    def candidates(self) -> dict[str, Creature]:
        """The opposing creatures in combat, by id (:class:`OutcomeTables`)."""
        return self.outcome.candidates

    @property
    def deaths_constant(self) -> int:
        """Value of the candidates that die whatever is assigned (:class:`OutcomeTables`)."""
        return self.outcome.deaths_constant

    @property
    def gone(self) -> dict[str, frozenset[str]]:
        """Per outcome threshold term, the targets already gone (:class:`OutcomeTables`)."""
        return self.outcome.gone

    @property
    def life(self) -> dict[str, int]:
        """Loyalty and defense by id (:class:`OutcomeTables`)."""
        return self.outcome.life


def scoring(space: LegalSpace) -> Scoring:
    """The space's :class:`Scoring` (computed on first use, then kept with the space)."""
    found = space.memo.get("scoring")
    if found is not None:
        return found  # type: ignore[no-any-return]
    combat = space.combat
    kind: dict[str, str] = {r.id: r.kind for s in space.sources for r in s.recipients}
    killable: dict[str, int] = {}
    kills_constant = deaths_extra = 0
    for c in space.kill_candidates:
        if not space.is_killable(c):  # lethal damage spares it, 0 toughness does not
            if dies(c.toughness, c.damage, True, False) is not None:
                deaths_extra += c.value
        elif space.is_lethally_assigned(c.id, _NONE_RECEIVED, ()):  # already lethally damaged
            kills_constant += c.value
        elif c.id in kind:
            killable[c.id] = c.value
    # lethal_targets without the targets built: every player but the active player.
    active = combat.active_player
    lethal: dict[str, int] = {}
    lost: list[str] = []
    for p in combat.players:
        if p.id != active:
            if p.life <= 0:
                lost.append(p.id)
            elif p.id in kind:
                lethal[p.id] = p.life
    thresholds: dict[str, dict[str, int]] = {"lethal": lethal}
    constant: dict[str, frozenset[str]] = {"lethal": frozenset(lost) if lost else _NO_TARGETS}
    for term, present in (("planeswalker_kills", combat.planeswalkers),
                          ("battle_kills", combat.battles)):
        if not present:  # most combats: no planeswalker, no battle
            thresholds[term], constant[term] = {}, _NO_TARGETS
            continue
        targets = threshold_targets(combat, term)
        thresholds[term] = {t.id: t.need for t in targets if t.need > 0 and t.id in kind}
        constant[term] = frozenset(t.id for t in targets if t.need <= 0) if targets \
            else frozenset()
    plain = not has_outcome_effects(combat, [combat.creature(s.id) for s in space.sources]) \
        and not chooses_for_other_side(space)
    found = space.memo["scoring"] = Scoring(combat, space.kill_candidates, killable,
                                            kills_constant, thresholds, constant, kind,
                                            plain, deaths_extra)
    return found


_NO_TARGETS: frozenset[str] = frozenset()


def outcome_tables(score: Scoring) -> OutcomeTables:
    """The :class:`OutcomeTables` of a space's scoring (:attr:`Scoring.outcome` keeps
    them)."""
    combat = score.combat
    kind = score.kind
    nothing = Outcome()
    gone = {
        "losses": frozenset(p.id for p in combat.defending_players
                            if player_loses(combat, p.id, nothing)),
        "planeswalker_deaths": score.threshold_constant["planeswalker_kills"],
        "battle_deaths": score.threshold_constant["battle_kills"],
    }
    thresholds: dict[str, dict[str, int]] = {}
    for term in OUTCOME_THRESHOLD_TERMS:
        base = PLAIN_TERMS[term]
        assert base is not None
        # The reachable targets not already gone; the need is what plain damage needs.
        thresholds[term] = {t.id: t.need for t in threshold_targets(combat, base)
                            if t.id in kind and t.id not in gone[term]}
    candidates = {c.id: c for c in score.candidates_in_order}
    life = {w.id: w.loyalty for w in combat.planeswalkers}
    life.update({b.id: b.defense for b in combat.battles})
    return OutcomeTables(
        effects(combat), candidates,
        sum(c.value for c in candidates.values() if creature_dies(c, nothing)), gone,
        thresholds, life)


def chooses_for_other_side(space: LegalSpace) -> bool:
    """Whether the space's side chooses the split of a creature of the other side
    (702.22j-k, or ``assigned_by: opponent``): that creature's damage goes to the side's
    own creatures and players, so ``survivals`` and ``life_kept`` can vary."""
    moved = moved_choices(space.combat)
    return bool(moved) and any(s.id in moved for s in space.sources)


@dataclass(frozen=True, slots=True)
class _Own:
    """The side's own creatures in combat that ``survivals`` counts."""

    alive: dict[str, Creature]
    """Those alive when nothing is dealt (toughness above 0, marked damage below it unless
    indestructible)."""
    total: int
    """The sum of their values: ``survivals`` when nothing reaches them."""
    reachable: bool
    """Whether a source of the space may assign to one of them."""


def _own(space: LegalSpace) -> _Own:
    """The space's :class:`_Own` (computed on first use, then kept with the space)."""
    found = space.memo.get("own creatures")
    if isinstance(found, _Own):
        return found
    combat = space.combat
    mine = combat.attackers if space.side == "attackers" else combat.blockers
    alive = {c.id: c for c in mine
             if dies(c.toughness, c.damage, c.has(INDESTRUCTIBLE), False) is None}
    reachable = chooses_for_other_side(space) and any(c in scoring(space).kind for c in alive)
    found = space.memo["own creatures"] = _Own(alive, sum(c.value for c in alive.values()),
                                               reachable)
    return found


def own_creatures(space: LegalSpace) -> dict[str, Creature]:
    """The side's own creatures in combat that ``survivals`` counts (alive when nothing is
    dealt: the attacking ones for ``attackers``, the blocking ones for ``blockers``)."""
    return _own(space).alive


def own_players(space: LegalSpace) -> frozenset[str]:
    """The side's own players, whose life ``life_kept`` counts: the active player for
    ``attackers``, every other player for ``blockers``."""
    combat = space.combat
    if space.side == "attackers":
        return frozenset((combat.active_player,))
    return frozenset(p.id for p in combat.defending_players)


def evaluate(space: LegalSpace, amounts: Mapping[Pair, int],
             terms: Sequence[str], exclude: frozenset[str] = frozenset()) -> dict[str, int]:
    """The value of each term for a (legal) assignment, in the order of ``terms``.

    Threshold terms leave out the targets in ``exclude`` (used to score one part of a
    combat while another part decides those targets). On a space whose attackers may
    assign as though unblocked, the assignment is scored in the space of the set of
    splits it belongs to (:func:`~trample.solver.rules.legal_space.modes_of`). On a plain combat
    (:attr:`Scoring.plain`) an outcome term is the assigned-damage term it equals plus its
    constant (:data:`PLAIN_TERMS`, :attr:`Scoring.deaths_extra`; ``survivals`` is the value
    of the side's own creatures alive before damage): what dealing the damage would give
    (:func:`dealt_values`, which the tests compare), without dealing it.
    """
    if space.alternatives:
        space = mode_space(space, modes_of(space, amounts))
    score = scoring(space)
    if not score.plain:
        return _evaluate(space, score, amounts, terms, exclude)
    asked = terms if type(terms) is tuple else tuple(terms)
    plan = _PLAIN_PLANS.get(asked)
    if plan is None:
        plan = _plain_plan(asked)
    bases, shifted = plan
    # The same split is scored again and again in one solve (a candidate, the part's
    # answer, the whole answer on the objective asked): the last few are kept, by value.
    key = (tuple(amounts.items()), bases, exclude)
    kept: dict[Any, dict[str, int]] | None = score._later.get("scored")
    if kept is None:
        kept = score._later["scored"] = {}
    assigned = kept.get(key)
    if assigned is None:
        assigned = _evaluate(space, score, amounts, bases, exclude)
        if len(kept) >= 8:
            kept.clear()
        kept[key] = assigned
    return plain_values(space, score, assigned, terms, shifted)


def plain_values(space: LegalSpace, score: Scoring, assigned: Mapping[str, int],
                 terms: Sequence[str], shifted: bool) -> dict[str, int]:
    """On a plain combat, the value of each of ``terms`` (a new dict, in their order) from
    ``assigned``, the values of the assigned-damage terms they read (:func:`plain_plan`),
    and whether any of them is an outcome term (``shifted``)."""
    if not shifted:
        return dict(assigned) if list(assigned) == list(terms) else \
            {term: assigned[term] for term in terms}
    values: dict[str, int] = {}
    for term in terms:
        base = PLAIN_TERMS.get(term, term)
        if base is not None:
            values[term] = assigned[base] + (score.deaths_extra if term == "deaths" else 0)
        else:  # nothing reaches the side's own creatures: they all survive that were alive
            values[term] = _own_total(space) if term == "survivals" else 0
    return values


def _own_total(space: LegalSpace) -> int:
    """``_own(space).total``, without building the rest when it is not built yet."""
    found = space.memo.get("own creatures")
    if isinstance(found, _Own):
        return found.total
    attackers = space.side == "attackers"
    total = 0
    for c in space.combat.creatures:
        if (c.attacking is not None if attackers else c.blocking) \
                and dies(c.toughness, c.damage, c.has(INDESTRUCTIBLE), False) is None:
            total += c.value  # alive before damage
    return total


def plain_plan(terms: Sequence[str]) -> tuple[tuple[str, ...], bool]:
    """The assigned-damage terms that ``terms`` read on a plain combat (each once, in the
    order first read), and whether any of ``terms`` is an outcome term."""
    asked = terms if type(terms) is tuple else tuple(terms)
    plan = _PLAIN_PLANS.get(asked)
    return _plain_plan(asked) if plan is None else plan


def _plain_plan(terms: tuple[str, ...]) -> tuple[tuple[str, ...], bool]:
    """The assigned-damage terms that ``terms`` read on a plain combat, and whether any
    of ``terms`` is an outcome term (kept: a handful of objectives are asked again and
    again)."""
    plan = (tuple(dict.fromkeys(b for b in (PLAIN_TERMS.get(t, t) for t in terms)
                                if b is not None)),
            any(t in PLAIN_TERMS for t in terms))
    if len(_PLAIN_PLANS) < 1_000:
        _PLAIN_PLANS[terms] = plan
    return plan


_PLAIN_PLANS: dict[tuple[str, ...], tuple[tuple[str, ...], bool]] = {}


def assigned_values(space: LegalSpace, score: Scoring, amounts: Mapping[Pair, int],
                    terms: Sequence[str]) -> dict[str, int]:
    """The values of assigned-damage ``terms`` for a legal assignment, no target left out
    (what :func:`evaluate` reads them from; no keeping of the last few scored)."""
    return _evaluate(space, score, amounts, terms, _NOTHING)


_NOTHING: frozenset[str] = frozenset()
_NONE_RECEIVED: dict[str, int] = {}
"""Damage received before any is assigned (read, never changed)."""


def dealt_values(space: LegalSpace, amounts: Mapping[Pair, int],
                 terms: Sequence[str], exclude: frozenset[str] = frozenset()) -> dict[str, int]:
    """:func:`evaluate` with every outcome term read from the damage dealt
    (:func:`~trample.models.document.outcomes.deal`), plain combat or not: the reference that the
    plain shortcut of :func:`evaluate` must agree with."""
    return _evaluate(space, scoring(space), amounts, terms, exclude)


def _evaluate(space: LegalSpace, score: Scoring, amounts: Mapping[Pair, int],
              terms: Sequence[str], exclude: frozenset[str]) -> dict[str, int]:
    """:func:`evaluate`, outcome terms from the damage dealt. (Written as plain loops: a
    tiny solve scores a handful of candidates, and this is most of its time.)"""
    received = space.received(amounts)
    values: dict[str, int] = {}
    damage: dict[str, int] | None = None
    out: Outcome | None = None
    for term in terms:
        if term in _ASSIGNED_THRESHOLD_TERMS:
            total = 0
            for t, need in score.assigned_thresholds[term].items():
                if received.get(t, 0) >= need and t not in exclude:
                    total += 1
            constant = score.threshold_constant[term]
            if constant:
                total += len(constant - exclude) if exclude else len(constant)
            values[term] = total
        elif term == "kills":
            touched = space.deathtouched(amounts)
            killable = score.killable
            lethal = space.thresholds
            total = score.kills_constant
            for c, got in received.items():
                worth = killable.get(c)
                if worth is not None and (got >= lethal[c] or c in touched):
                    total += worth
            values[term] = total
        elif term in DAMAGE_KINDS:
            if damage is None:
                damage = damage_by_kind(score, received)
            values[term] = damage.get(DAMAGE_KINDS[term], 0)
        else:
            if out is None:
                out = deal(space.combat, amounts, score.effects)
            values[term] = _outcome_value(space, score.outcome, out, term, exclude)
    return values


def damage_by_kind(score: Scoring, received: Mapping[str, int]) -> dict[str, int]:
    """The damage ``received`` totals per kind of target (player, planeswalker, battle,
    creature), in one pass."""
    damage: dict[str, int] = {}
    kind = score.kind
    for target, got in received.items():
        k = kind[target]
        damage[k] = damage.get(k, 0) + got
    return damage


_ASSIGNED_THRESHOLD_TERMS = frozenset({"lethal", "planeswalker_kills", "battle_kills"})


def _outcome_value(space: LegalSpace, score: OutcomeTables, out: Outcome, term: str,
                   exclude: frozenset[str]) -> int:
    """The value of one outcome term, in time proportional to what was dealt."""
    combat = space.combat
    if term == "deaths":
        total = score.deaths_constant
        hit = set(out.damage) | set(out.counters) | out.deathtouched
        for cid in hit:
            creature = score.candidates.get(cid)
            if creature is None or creature_dies(creature, Outcome()):
                continue
            if creature_dies(creature, out):
                total += creature.value
        return total
    if term == "survivals":
        mine = _own(space)
        if not mine.reachable:
            return mine.total
        alive = mine.alive
        hit = set(out.damage) | set(out.counters) | out.deathtouched
        return mine.total - sum(alive[c].value for c in hit
                               if c in alive and creature_dies(alive[c], out))
    if term == "life_kept":
        if space.side == "attackers":
            return -out.life_loss.get(combat.active_player, 0)
        return -sum(v for p, v in out.life_loss.items() if p != combat.active_player)
    if term == "poison":
        return sum(out.poison.values())
    if term == "life_loss":
        return sum(out.life_loss.values())
    if term == "loyalty_loss":
        return sum(out.loyalty_loss.values())
    if term == "defense_loss":
        return sum(out.defense_loss.values())
    if term == "life_gain":
        own = {combat.active_player} if space.side == "attackers" else \
            {p.id for p in combat.defending_players}
        return sum(v for p, v in out.life_gain.items() if p in own)
    gone = score.gone[term]
    counted = score.thresholds[term]
    total = sum(1 for t in gone if t not in exclude)
    if term == "losses":
        hit = set(out.life_loss) | set(out.poison) | {p for _, p in out.by_source}
        return total + sum(1 for p in hit if p in counted and p not in exclude
                           and player_loses(combat, p, out))
    if term == "planeswalker_deaths":
        return total + sum(1 for w in out.loyalty_loss if w in counted and w not in exclude
                           and planeswalker_dies(score.life[w], w, out))
    return total + sum(1 for b in out.defense_loss if b in counted and b not in exclude
                       and battle_dies(score.life[b], b, out))


def identical_creatures(space: LegalSpace, sources: Sequence[Source]
                        ) -> list[tuple[str, list[str]]]:
    """Classes of interchangeable creatures among the recipients of ``sources`` (a group
    closed under coupling), each with the first source that may assign to them.

    Two creatures are interchangeable when the same sources may assign to them under the
    same conditions, they gate the same recipients, need the same damage for lethal and are
    worth the same to every term: exchanging every amount assigned to one with every
    amount assigned to the other maps each legal assignment to a legal one of the same
    objective. So some optimum assigns non-increasing amounts from the first source along
    each class, and the search may require it.
    """
    score = scoring(space)
    senders: dict[str, list[tuple[str, tuple[str, ...], str | None]]] = {}
    gates: dict[str, list[Pair]] = {}
    for s in sources:
        for r in s.recipients:
            if r.kind == "creature":
                senders.setdefault(r.id, []).append((s.id, r.requires_lethal,
                                                     r.requires_loyalty))
            for wall in r.requires_lethal:
                gates.setdefault(wall, []).append((s.id, r.id))
    classes: dict[tuple[object, ...], tuple[str, list[str]]] = {}
    for creature, who in senders.items():
        signature: tuple[object, ...] = (tuple(who), space.need[creature],
                                         score.killable.get(creature),
                                         tuple(gates.get(creature, ())))
        if not score.plain:
            # What dealt damage does may tell two creatures apart: the factors from each
            # sender, and what decides their death.
            c = space.combat.creature(creature)
            candidate = score.candidates.get(creature)
            mine = own_creatures(space).get(creature)  # survivals, under 702.22j-k
            signature += (tuple(score.effects.factor(s, creature) for s, _, _ in who),
                          None if candidate is None else candidate.value,
                          None if mine is None else mine.value,
                          c.toughness, c.damage, c.has(INDESTRUCTIBLE))
        classes.setdefault(signature, (who[0][0], []))[1].append(creature)
    return [(first, members) for first, members in classes.values() if len(members) > 1]
