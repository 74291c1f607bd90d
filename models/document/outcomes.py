"""What dealt combat damage does: prevention, multipliers, and the results of damage.

Legality is judged on *assigned* damage (702.19b); this module turns an assignment into
what it does. The *dealt* damage of a (source, target) pair is 0 if a ``prevention``
entry matches it, else the assigned amount times every matching multiplier's factor
(with prevention of all damage and multipliers only, their order does not matter,
616.1). Then the results of damage (120.3, 510.2): to a player, life loss, or poison
counters from a source with infect, plus the total toxic value of each source with toxic
that dealt them damage (702.164c); to a creature, -1/-1 counters from a source with wither
or infect, else marked damage, and deathtouch noted (702.2b); to a planeswalker or a
battle, that many loyalty or defense counters removed; lifelink gains its controller that
much life (120.3f). Last, the state-based actions of 704.5 say who loses and what dies.

The solver's objective terms and the game's damage read this one implementation.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Literal

from trample.models.document.assignment import Pair
from trample.models.document.combat import ANY, Combat, Creature
from trample.models.document.keywords import DEATHTOUCH, INDESTRUCTIBLE

INFECT = "infect"
WITHER = "wither"
LIFELINK = "lifelink"
POISON_TO_LOSE = 10
"""704.5c: a player with ten or more poison counters loses the game."""


Result = Literal["life", "poison", "counters", "damage", "loyalty", "defense"]
"""What damage does to what it is dealt to (120.3a-e, h)."""


def result_of(keywords: Collection[str], kind: str) -> Result:
    """What damage from a source with ``keywords`` does to a ``kind`` of object: to a
    player, life loss, or poison counters with infect (120.3a-b); to a creature, marked
    damage, or -1/-1 counters with wither or infect (120.3d-e); to a planeswalker or a
    battle, loyalty or defense counters removed (120.3c, h)."""
    if kind == "player":
        return "poison" if INFECT in keywords else "life"
    if kind == "creature":
        return "counters" if WITHER in keywords or INFECT in keywords else "damage"
    return "loyalty" if kind == "planeswalker" else "defense"


def gains_life(keywords: Collection[str]) -> bool:
    """Lifelink: damage from the source also makes its controller gain that much life
    (120.3f)."""
    return LIFELINK in keywords


def notes_deathtouch(keywords: Collection[str]) -> bool:
    """Damage from a source with deathtouch marks a creature for 704.5h (702.2b)."""
    return DEATHTOUCH in keywords


def toxic_total(keywords: Collection[str]) -> int:
    """The sum of the ``toxic N`` among normalized ``keywords`` (702.164c)."""
    return sum(int(k[6:]) for k in keywords if k.startswith("toxic ") and k[6:].isdigit())


def has_lost(life: int, poison: int) -> bool:
    """704.5a, 704.5c: life 0 or less, or ten or more poison counters."""
    return life <= 0 or poison >= POISON_TO_LOSE


def dies(toughness: int, damage: int, indestructible: bool, deathtouched: bool) -> str | None:
    """The state-based action that puts a creature into the graveyard, if one does:
    toughness 0 or less even if indestructible (704.5f); unless indestructible, damage
    reaching toughness (704.5g) or deathtouch damage (704.5h)."""
    if toughness <= 0:
        return "704.5f"
    if indestructible:
        return None
    if damage >= toughness:
        return "704.5g"
    return "704.5h" if deathtouched else None


def _matches(entry_source: str, entry_target: str, source: str, target: str) -> bool:
    return entry_source in (ANY, source) and entry_target in (ANY, target)


@dataclass(frozen=True, slots=True)
class Effects:
    """The damage effects of a combat, with each pair's factor computed once."""

    combat: Combat
    _factors: dict[Pair, int] = field(default_factory=dict, compare=False,
                                                  repr=False)

    def factor(self, source: str, target: str) -> int:
        """Dealt damage per point assigned from ``source`` to ``target``: 0 when prevented,
        else the product of every matching multiplier (1 when none matches)."""
        combat = self.combat
        if not combat.prevention and not combat.multipliers:
            return 1
        pair = (source, target)
        found = self._factors.get(pair)
        if found is None:
            if any(_matches(e.source, e.target, source, target) for e in combat.prevention):
                found = 0
            else:
                found = 1
                for m in combat.multipliers:
                    if _matches(m.source, m.target, source, target):
                        found *= m.factor
            self._factors[pair] = found
        return found


def effects(combat: Combat) -> Effects:
    """The :class:`Effects` of ``combat``."""
    return Effects(combat)


def has_outcome_effects(combat: Combat, sources: Iterable[Creature]) -> bool:
    """Whether anything changes what the damage of ``sources`` does from what the assigned
    amounts say: prevention, a factor other than 1, a loss threshold, a player already at
    ten or more poison counters, or infect, wither, lifelink or toxic on a source."""
    if combat.prevention or combat.loss_thresholds:
        return True
    if any(m.factor != 1 for m in combat.multipliers):
        return True
    if any(p.poison >= POISON_TO_LOSE for p in combat.players):
        return True
    return any(s.toxic or s.has(INFECT) or s.has(WITHER) or s.has(LIFELINK) for s in sources)


@dataclass(slots=True)
class Outcome:
    """What one side's dealt damage does, before state-based actions."""

    life_loss: dict[str, int] = field(default_factory=dict)
    poison: dict[str, int] = field(default_factory=dict)
    life_gain: dict[str, int] = field(default_factory=dict)
    """Per player: the life its sources with lifelink gained it."""
    damage: dict[str, int] = field(default_factory=dict)
    """Per creature: new marked damage."""
    counters: dict[str, int] = field(default_factory=dict)
    """Per creature: new -1/-1 counters."""
    deathtouched: set[str] = field(default_factory=set)
    loyalty_loss: dict[str, int] = field(default_factory=dict)
    defense_loss: dict[str, int] = field(default_factory=dict)
    by_source: dict[Pair, int] = field(default_factory=dict)
    """Dealt damage per (source, player), for loss thresholds."""


def _add(table: dict[str, int], key: str, amount: int) -> None:
    table[key] = table.get(key, 0) + amount


def deal(combat: Combat, amounts: Mapping[Pair, int],
         fx: Effects | None = None) -> Outcome:
    """What the assignment ``amounts`` ((source, target) -> assigned) does (120.3)."""
    fx = fx or effects(combat)
    out = Outcome()
    for (source_id, target), assigned in amounts.items():
        if assigned <= 0:
            continue
        dealt = assigned * fx.factor(source_id, target)
        if dealt <= 0:
            continue
        source = combat.creature(source_id)
        result = result_of(source.keywords, combat.kind(target))
        if result == "life":
            _add(out.life_loss, target, dealt)
        elif result == "poison":
            _add(out.poison, target, dealt)
        elif result == "counters":
            _add(out.counters, target, dealt)
        elif result == "damage":
            _add(out.damage, target, dealt)
        elif result == "loyalty":
            _add(out.loyalty_loss, target, dealt)
        else:
            _add(out.defense_loss, target, dealt)
        if result in ("life", "poison"):
            pair = (source_id, target)
            if source.toxic and pair not in out.by_source:
                _add(out.poison, target, source.toxic)  # 702.164c: once per player
            out.by_source[pair] = out.by_source.get(pair, 0) + dealt
        elif result in ("counters", "damage") and notes_deathtouch(source.keywords):
            out.deathtouched.add(target)
        if gains_life(source.keywords):
            _add(out.life_gain, source.controller, dealt)
    return out


def player_loses(combat: Combat, player_id: str, out: Outcome) -> bool:
    """704.5a-c, and a reached loss threshold: life 0 or less, ten or more poison
    counters, or the damage one source dealt reaching its threshold."""
    player = next(p for p in combat.players if p.id == player_id)
    if has_lost(player.life - out.life_loss.get(player_id, 0),
                player.poison + out.poison.get(player_id, 0)):
        return True
    return any(t.player == player_id
               and t.already + out.by_source.get((t.source, player_id), 0) >= t.threshold
               for t in combat.loss_thresholds)


def creature_dies(creature: Creature, out: Outcome) -> bool:
    """704.5f-h: toughness (after new -1/-1 counters) 0 or less, even if indestructible;
    else, unless indestructible, marked damage reaching toughness, or deathtouch."""
    return dies(creature.toughness - out.counters.get(creature.id, 0),
                creature.damage + out.damage.get(creature.id, 0),
                creature.has(INDESTRUCTIBLE), creature.id in out.deathtouched) is not None


def planeswalker_dies(loyalty: int, walker_id: str, out: Outcome) -> bool:
    """704.5i: loyalty 0 or less."""
    return loyalty - out.loyalty_loss.get(walker_id, 0) <= 0


def battle_dies(defense: int, battle_id: str, out: Outcome) -> bool:
    """704.5v: defense 0 or less."""
    return defense - out.defense_loss.get(battle_id, 0) <= 0


@dataclass(frozen=True, slots=True)
class StepResult:
    """One combat damage step dealt and its state-based actions performed."""

    outcome: Outcome
    """What both sides' damage did."""
    died: frozenset[str]
    """Creatures put into the graveyard (704.5f-h)."""
    lost: frozenset[str]
    """Players who lost the game: life 0 or less after lifelink's gains (dealt at the same
    time, 510.2), ten or more poison counters, or a reached loss threshold."""
    walkers_died: frozenset[str]
    battles_died: frozenset[str]
    after: Combat | None
    """The combat of the regular step that follows (:func:`next_combat`); None when the
    step was dealt as the last (``deal_step(..., last=True)``)."""


def deal_step(combat: Combat, amounts: Mapping[Pair, int], *,
              last: bool = False) -> StepResult:
    """Deal both sides' ``amounts`` at once (510.2), perform state-based actions (704.5)
    and build the combat of the regular step that follows (not when ``last``: the
    regular step itself, whose following combat nobody reads)."""
    out = deal(combat, amounts)
    died = frozenset(c.id for c in combat.creatures if creature_dies(c, out))
    lost = set()
    for p in combat.players:
        life = p.life - out.life_loss.get(p.id, 0) + out.life_gain.get(p.id, 0)
        if has_lost(life, p.poison + out.poison.get(p.id, 0)) or any(
                t.player == p.id
                and t.already + out.by_source.get((t.source, p.id), 0) >= t.threshold
                for t in combat.loss_thresholds):
            lost.add(p.id)
    walkers = frozenset(w.id for w in combat.planeswalkers
                        if planeswalker_dies(w.loyalty, w.id, out))
    battles = frozenset(b.id for b in combat.battles if battle_dies(b.defense, b.id, out))
    after = None if last else _next_combat(combat, out, died, frozenset(lost), walkers,
                                           battles)
    return StepResult(out, died, frozenset(lost), walkers, battles, after)


def _next_combat(combat: Combat, out: Outcome, died: frozenset[str], lost: frozenset[str],
                 walkers: frozenset[str], battles: frozenset[str]) -> Combat:
    """The regular step's combat: dead creatures left out (506.4); an attacker whose
    blockers are all gone stays blocked (509.1h); dead planeswalkers and battles removed
    from combat; marked damage, -1/-1 counters (as lower power and toughness), loyalty,
    defense, life and poison carried over, and the damage each source dealt added to its
    loss thresholds (an entry whose player lost, or whose source died, is dropped)."""
    from dataclasses import replace

    players = tuple(replace(p, life=p.life - out.life_loss.get(p.id, 0)
                            + out.life_gain.get(p.id, 0),
                            poison=p.poison + out.poison.get(p.id, 0))
                    for p in combat.players)
    creatures = []
    for c in combat.creatures:
        if c.id in died:
            continue
        counters = out.counters.get(c.id, 0)
        blocked = c.blocked
        blocking = tuple(a for a in c.blocking if a not in died)
        if c.is_attacking and combat.is_blocked(c) and not any(
                b not in died for b in combat.blockers_of(c.id)):
            blocked = True
        creatures.append(replace(c, power=c.power - counters,
                                 toughness=c.toughness - counters,
                                 damage=c.damage + out.damage.get(c.id, 0),
                                 blocked=blocked, blocking=blocking))
    planeswalkers = tuple(replace(w, loyalty=w.loyalty - out.loyalty_loss.get(w.id, 0),
                                  in_combat=w.in_combat and w.id not in walkers)
                          for w in combat.planeswalkers)
    battle_list = tuple(replace(b, defense=b.defense - out.defense_loss.get(b.id, 0),
                                in_combat=b.in_combat and b.id not in battles)
                        for b in combat.battles)
    alive = {c.id for c in creatures}

    def kept(entry_source: str, entry_target: str) -> bool:
        return (entry_source == ANY or entry_source in alive) and (
            entry_target == ANY or entry_target not in died)

    thresholds = []
    for t in combat.loss_thresholds:
        already = t.already + out.by_source.get((t.source, t.player), 0)
        if t.source in alive and t.player not in lost and already < t.threshold:
            thresholds.append(replace(t, already=already))
    return Combat(combat.active_player, players, tuple(creatures), planeswalkers,
                  battle_list, "regular",
                  tuple(e for e in combat.prevention if kept(e.source, e.target)),
                  tuple(m for m in combat.multipliers if kept(m.source, m.target)),
                  tuple(thresholds))
