"""Who chooses how each creature's combat damage is assigned: the side of a request.

A creature's split is chosen by its controller's side (``attackers`` for an attacking
creature, ``blockers`` for a blocking one), unless the choice moves to the other side:
an attacker blocked by a creature with banding, or by a band's worth of "bands with
other Q" creatures, has its damage divided by the defending player (702.22j); a blocker
of such an attacker, by the active player (702.22k); and an effect may give the choice
to the opponent (``assigned_by: opponent``, Defensive Formation). The legal space
(:func:`~trample.solver.rules.legal_space.legal_space`) reads it from here, as does
the game loop's judge of a whole step.
"""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from typing import Literal

from trample.models.document.combat import NO_EFFECTS, Combat, Creature

Side = Literal["attackers", "blockers"]
"""The side of a request: whose choices of split it is about."""
SIDES: tuple[Side, ...] = ("attackers", "blockers")

Reason = Literal["702.22j", "702.22k", "effect"]
"""Why the other side chooses a creature's split."""

_KEPT = "moved choices"
"""The key of :func:`moved_choices`'s answer in the combat's ``memo``."""


def moved_choices(combat: Combat) -> dict[str, Reason]:
    """The creatures in combat whose split the other side chooses, and why: "702.22j"
    (an attacker blocked by a band's worth of blockers), "702.22k" (a blocker of a
    band), or "effect" (``assigned_by: opponent``); empty in most combats. Worked out on
    first use, then kept with the combat."""
    memo = combat.memo
    found: dict[str, Reason] | None = memo.get(_KEPT)
    if found is None:
        found = memo[_KEPT] = _moved(combat)
    return found


def _moved(combat: Combat) -> dict[str, Reason]:
    for c in combat.creatures:
        # Cheap first: most documents have neither banding nor assigned_by.
        if (c.effects is not NO_EFFECTS and c.effects.assigned_by != "controller") or (
                c.keywords and _may_band(c.keywords)):
            break
    else:
        return {}
    moved: dict[str, Reason] = {}
    for c in combat.creatures:
        if c.is_attacking:
            if _banded(combat.creature(b) for b in combat.blockers_of(c.id)):
                moved[c.id] = "702.22j"
            elif c.assigned_by == "opponent":
                moved[c.id] = "effect"
        elif c.is_blocking:
            if _banded(combat.creature(a) for a in c.blocking):
                moved[c.id] = "702.22k"
            elif c.assigned_by == "opponent":
                moved[c.id] = "effect"
    return moved


def moved_by(combat: Combat, creature_id: str) -> Reason | None:
    """Why the other side chooses ``creature_id``'s split, or ``None`` when its own side
    does (:func:`moved_choices`)."""
    return moved_choices(combat).get(creature_id)


def chooser(combat: Combat, creature: Creature) -> Side | None:
    """The side that chooses how ``creature``'s combat damage is assigned: its
    controller's, or the other side's when banding (702.22j-k) or an effect moves the
    choice; ``None`` for a creature neither attacking nor blocking."""
    if creature.is_attacking:
        own: Side = "attackers"
    elif creature.is_blocking:
        own = "blockers"
    else:
        return None
    if creature.id in moved_choices(combat):
        return "blockers" if own == "attackers" else "attackers"
    return own


@lru_cache(maxsize=1024)
def _may_band(keywords: frozenset[str]) -> bool:
    """Whether a set of keywords has banding or a ``bands with other Q`` (the same few
    sets recur on thousands of creatures)."""
    return any(k.startswith("band") for k in keywords)


def _banded(creatures: Iterable[Creature]) -> bool:
    """Whether these creatures (one's blockers, or the attackers it blocks) include one
    with banding, or a Q creature with ``bands with other Q`` and another Q creature
    (702.22j-k)."""
    group = list(creatures)
    for x in group:
        if x.has_banding:
            return True
        for quality in x.bands_with & x.qualities:
            if any(y is not x and quality in y.qualities for y in group):
                return True
    return False
