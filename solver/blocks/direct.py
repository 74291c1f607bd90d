"""The plays of a part of the common shape worked out from the creatures' numbers (SPEC
§11): one attacker attacking a player, blockers of its own, no effects, keywords among
trample, deathtouch, first and double strike and lifelink. The same plays as dealing each
step on the game model's combats, without building a combat per step; any other part is
dealt by the game model (:class:`~trample.solver.blocks.value.Evaluator`)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from trample.models.document.combat import ANY, NO_EFFECTS, Combat, Creature
from trample.models.document.keywords import (
    BANDING,
    BANDS_WITH_OTHER,
    DEATHTOUCH,
    DOUBLE_STRIKE,
    FIRST_STRIKE,
    RECOGNIZED,
    TRAMPLE,
)
from trample.models.document.outcomes import (
    LIFELINK,
    StepResult,
    creature_dies,
    deal_step,
    has_lost,
)
from trample.models.document.outcomes import (
    Outcome as Dealt,
)
from trample.solver.blocks.outcome import Outcome
from trample.solver.rules.assignment import Amounts


def quiet_step(combat: Combat, amounts: Amounts) -> StepResult:
    """``deal_step(combat, amounts)``. A step in which nothing is dealt (the first-strike
    step of a part without first or double strike) on a combat where nothing is already
    dead, lost or past its threshold changes nothing but the step: its result is built
    directly, without rebuilding every object of the combat."""
    if amounts or not _quiet(combat):
        return deal_step(combat, amounts)
    none: frozenset[str] = frozenset()
    return StepResult(Dealt(), none, none, none, none, replace(combat, step="regular"))


def _quiet(combat: Combat) -> bool:
    """Nothing in ``combat`` dies, loses or leaves combat with no damage dealt, and every
    effect and loss threshold carries over to the next step as it is."""
    nothing = Dealt()
    alive = {c.id for c in combat.creatures}
    return (combat.step == "first_strike"
            and not any(creature_dies(c, nothing) for c in combat.creatures)
            and not any(has_lost(p.life, p.poison) for p in combat.players)
            and all(w.loyalty > 0 for w in combat.planeswalkers)
            and all(b.defense > 0 for b in combat.battles)
            and all(t.source in alive and t.already < t.threshold
                    for t in combat.loss_thresholds)
            and all(e.source == ANY or e.source in alive for e in combat.prevention)
            and all(m.source == ANY or m.source in alive for m in combat.multipliers))


DIRECT_KEYWORDS = frozenset({TRAMPLE, DEATHTOUCH, FIRST_STRIKE, DOUBLE_STRIKE, LIFELINK})
"""The keywords that change damage which :func:`direct_quick` works with; a creature with
any other (infect, wither, indestructible, banding...) sends a part to the game model."""
DIRECT_TERMS = frozenset({"deaths", "survivals", "trade", "planeswalker_deaths",
                          "battle_deaths", "poison", "life_loss", "loyalty_loss",
                          "defense_loss", "life_gain"})
"""The terms :func:`direct_quick` scores (with no planeswalker or battle attacked, no
infect or toxic, the ones about them are 0)."""


def plain_creature(c: Creature) -> bool:
    """Nothing about the creature but power, toughness, value and the keywords of
    :data:`DIRECT_KEYWORDS` changes what its damage, or damage to it, does."""
    if c.damage or c.toughness <= 0 or c.toxic or c.effects != NO_EFFECTS:
        return False
    return all(k in DIRECT_KEYWORDS or not (k in RECOGNIZED or k == BANDING
                                            or k.startswith(BANDS_WITH_OTHER))
               for k in c.keywords)


def _deals(c: Creature, step: int) -> bool:
    """510.4: first or double strike in the first-strike step (0); double strike or no
    first strike in the regular one (1)."""
    if step == 0:
        return FIRST_STRIKE in c.keywords or DOUBLE_STRIKE in c.keywords
    return DOUBLE_STRIKE in c.keywords or FIRST_STRIKE not in c.keywords


def plain_part(part: Combat, rest: Sequence[str]
               ) -> tuple[Creature, list[Creature]] | None:
    """The attacker and blockers of a part of the common shape, whose plays
    :func:`direct_quick` and
    :meth:`~trample.solver.blocks.value.Evaluator._last_step` work out from the creatures'
    numbers: one attacker attacking a player, blockers that block it alone, no effects
    (prevention, multipliers, loss thresholds), every creature :func:`plain_creature`, the terms
    among :data:`DIRECT_TERMS`. None for any other part."""
    if part.prevention or part.multipliers or part.loss_thresholds \
            or part.step != "first_strike" or not DIRECT_TERMS.issuperset(rest):
        return None
    attacker: Creature | None = None
    blockers: list[Creature] = []
    for c in part.creatures:
        if not plain_creature(c):
            return None
        if c.attacking is not None:
            if attacker is not None or c.blocking:
                return None
            attacker = c
        elif c.blocking:
            blockers.append(c)
        else:
            return None
    if attacker is None or attacker.blocked is not None \
            or attacker.controller != part.active_player:
        return None
    target = attacker.attacking
    assert target is not None
    if part.kind(target) != "player" or target == part.active_player \
            or any(b.blocking != (attacker.id,) or b.controller == part.active_player
                   for b in blockers):
        return None
    return attacker, blockers


def direct_quick(part: Combat, opponents: Sequence[str], rest: Sequence[str]
                 ) -> Outcome | None:
    """:meth:`~trample.solver.blocks.value.Evaluator.part_quick` worked out from the
    creatures' numbers, for the common part: one attacker attacking a player, blockers
    that block it alone, no effects (prevention, multipliers, loss thresholds), every
    creature :func:`plain_creature`. The same
    play as dealing each step on the game model's combats: the defenders' forced reply
    (each blocker's power to the attacker), the attacker's greedy split (lethal damage to
    each blocker in order, 1 with deathtouch, 702.2c; the rest to the player once every
    blocker is lethally assigned with trample, 702.19b, else to the last blocker), both
    dealt at once (510.2), the dead gone before the regular step (506.4), a blocked
    attacker left without blockers assigning nothing without trample (510.1c, 702.19d).
    None for any other part."""
    shape = plain_part(part, rest)
    if shape is None:
        return None
    a, blockers = shape
    return quick_numbers(a, blockers, part.active_player, opponents, rest)


def quick_numbers(a: Creature, blockers: Sequence[Creature], active: str,
                  opponents: Sequence[str], rest: Sequence[str]) -> Outcome:
    """:func:`direct_quick` of a part whose shape :func:`plain_part` has found (or that
    is known to have it): the attacker and its blockers in the document's order."""
    target = a.attacking
    assert target is not None
    blocked = bool(blockers)
    deathtouch, trample = DEATHTOUCH in a.keywords, TRAMPLE in a.keywords
    marked = {b.id: 0 for b in blockers}
    alive = list(blockers)
    hurt = 0
    a_dead = False
    died: set[str] = set()
    lost_life = [0, 0]
    gained: list[dict[str, int]] = [{}, {}]
    splits: list[Amounts] = []
    for step in (0, 1):
        by_a: Amounts = {}
        by_blockers: Amounts = {}
        hit = 0
        touched = False
        gain = gained[step]
        if not a_dead:
            for b in alive:
                if b.power > 0 and _deals(b, step):
                    by_blockers[(b.id, a.id)] = b.power
                    hit += b.power
                    touched = touched or DEATHTOUCH in b.keywords
                    if LIFELINK in b.keywords:
                        gain[b.controller] = gain.get(b.controller, 0) + b.power
            if a.power > 0 and _deals(a, step) and (alive or trample or not blocked):
                remaining = a.power
                lethal = True
                for b in alive:
                    need = b.toughness - marked[b.id]
                    amount = min(1 if deathtouch else need, remaining)
                    if amount > 0:
                        by_a[(a.id, b.id)] = amount
                        remaining -= amount
                    lethal = lethal and amount > 0 and (deathtouch or amount >= need)
                if remaining > 0:
                    if not blocked or (trample and lethal):
                        by_a[(a.id, target)] = remaining
                    else:
                        last = (a.id, alive[-1].id)
                        by_a[last] = by_a.get(last, 0) + remaining
                dealt = sum(by_a.values())
                lost_life[step] = by_a.get((a.id, target), 0)
                if LIFELINK in a.keywords:
                    gain[a.controller] = gain.get(a.controller, 0) + dealt
        splits += [by_a, by_blockers]
        now_dead = []
        for b in alive:
            amount = by_a.get((a.id, b.id), 0)
            marked[b.id] += amount
            if marked[b.id] >= b.toughness or (deathtouch and amount > 0):
                now_dead.append(b.id)
        hurt += hit
        if hurt >= a.toughness or touched:
            a_dead = True
            died.add(a.id)
        died.update(now_dead)
        alive = [b for b in alive if b.id not in died]
    players: list[tuple[int, int, int, bool]] = []
    for p in opponents:
        n1 = (lost_life[0] if p == target else 0) - gained[0].get(p, 0)
        n2 = n1 + (lost_life[1] if p == target else 0) - gained[1].get(p, 0)
        players.append((n1, n2, 0, False))
    deaths = sum(b.value for b in blockers if b.id in died)
    lost_value = a.value if a_dead else 0
    found = {"deaths": deaths, "survivals": a.value - lost_value,
             "trade": deaths - lost_value, "life_loss": sum(lost_life),
             "life_gain": sum(g.get(active, 0) for g in gained)}
    return Outcome(tuple(players), tuple(found.get(t, 0) for t in rest),
                   (splits[0], splits[1], splits[2], splits[3]))
