"""The objective terms of SPEC §4 and their value for an assignment."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from trample.models.combat import Combat, brief_repr
from trample.models.errors import InputError
from trample.solver.rules import LegalSpace, Side

TERMS: tuple[str, ...] = ("lethal", "kills", "planeswalker_kills", "battle_kills",
                          "player_damage", "planeswalker_damage", "battle_damage")
BOTH_SIDES = frozenset({"kills"})
DEFAULTS: dict[Side, tuple[str, ...]] = {"attackers": TERMS, "blockers": ("kills",)}


def parse_objective(raw: object, side: Side, path: str = "objective") -> tuple[str, ...]:
    """Check a list of terms (or a comma-separated string) for ``side``; None: default."""
    if raw is None:
        return DEFAULTS[side]
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
    return ()


DAMAGE_KINDS = {"player_damage": "player", "planeswalker_damage": "planeswalker",
                "battle_damage": "battle"}


@dataclass(frozen=True, slots=True)
class Scoring:
    """What each term reads, derived once per legal space, so that scoring an assignment
    costs time in proportion to the assignment, not to the combat."""

    killable: dict[str, int]
    """Opposing creatures in combat that lethal damage destroys and that some source may
    assign to, with their values."""
    kills_constant: int
    """Value of the killable creatures already lethally damaged, whatever is assigned."""
    thresholds: dict[str, dict[str, int]]
    """Per threshold term: the targets that can still be reached, with their thresholds."""
    threshold_constant: dict[str, frozenset[str]]
    """Per threshold term: the targets at their threshold whatever is assigned."""
    kind: dict[str, str]
    """The kind of everything a source may assign to."""


def scoring(space: LegalSpace) -> Scoring:
    """The space's :class:`Scoring` (computed on first use, then kept with the space)."""
    found = space.memo.get("scoring")
    if isinstance(found, Scoring):
        return found
    combat = space.combat
    kind: dict[str, str] = {r.id: r.kind for s in space.sources for r in s.recipients}
    killable = {c.id: c for c in space.kill_candidates if space.is_killable(c)}
    thresholds: dict[str, dict[str, int]] = {}
    constant: dict[str, frozenset[str]] = {}
    for term in ("lethal", "planeswalker_kills", "battle_kills"):
        targets = threshold_targets(combat, term)
        thresholds[term] = {t.id: t.need for t in targets if t.need > 0 and t.id in kind}
        constant[term] = frozenset(t.id for t in targets if t.need <= 0)
    found = Scoring(
        {cid: c.value for cid, c in killable.items() if c.lethal_need > 0 and cid in kind},
        sum(c.value for c in killable.values() if c.lethal_need <= 0),
        thresholds, constant, kind)
    space.memo["scoring"] = found
    return found


def evaluate(space: LegalSpace, amounts: Mapping[tuple[str, str], int],
             terms: Sequence[str], exclude: frozenset[str] = frozenset()) -> dict[str, int]:
    """The value of each term for a (legal) assignment, in the order of ``terms``.

    Threshold terms leave out the targets in ``exclude`` (used to score one part of a
    combat while another part decides those targets).
    """
    score = scoring(space)
    received = space.received(amounts)
    damage: dict[str, int] = {}  # per kind of target, in one pass
    kind = score.kind
    for target, got in received.items():
        k = kind[target]
        damage[k] = damage.get(k, 0) + got
    values: dict[str, int] = {}
    for term in terms:
        if term == "kills":
            touched = space.deathtouched(amounts)
            killable = score.killable
            hit = set(received) | touched
            values[term] = score.kills_constant + sum(
                killable[c] for c in hit
                if c in killable and space.is_lethally_assigned(c, received, touched))
        elif term in DAMAGE_KINDS:
            values[term] = damage.get(DAMAGE_KINDS[term], 0)
        else:
            constant = score.threshold_constant[term]
            values[term] = sum(1 for t, need in score.thresholds[term].items()
                               if t not in exclude and received.get(t, 0) >= need) \
                + (sum(1 for t in constant if t not in exclude) if constant else 0)
    return values
