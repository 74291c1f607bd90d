"""Dealing damage (120) and the state-based actions that follow it (704.5).

Combat damage is dealt from an assignment: a list of ``{"source", "target", "amount"}``
entries whose ids are those of the combat/1 document built from the state (permanent and
player ids). All damage of one step is dealt at once (510.2): the characteristics of every
source are read before any of it is dealt. Its results (120.3):

* to a player: that much life lost, or poison counters from a source with infect;
* to a planeswalker: that many loyalty counters removed;
* to a battle: that many defense counters removed;
* to a creature: damage marked, or -1/-1 counters from a source with wither or infect;
  deathtouch marks the creature for 704.5h;
* a source with lifelink makes its controller gain that much life.

Damage dealt to each player by each source is tallied for the turn (Vessel of the
All-Consuming asks for it). Triggers on damage are found by
:func:`trample.models.seeds.damage_triggers`; this module knows no card by name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from typing import Any

from .errors import InputError
from .events import (
    CounterAdded,
    CounterRemoved,
    DamageDealt,
    Event,
    LifeGained,
    LifeLost,
    PlayerLost,
    PoisonCountersAdded,
    ZoneChange,
)
from .game import (
    DEFENSE,
    LOYALTY,
    MINUS_ONE,
    PLUS_ONE,
    ZONES,
    GameState,
    Permanent,
    Transition,
    counters_add,
    move_permanent,
    replace_permanent,
    replace_player,
)
from .sagas import is_saga_to_sacrifice


@dataclass(frozen=True, slots=True)
class DamageEntry:
    """One entry of an assignment: ``source`` deals ``amount`` to ``target``."""

    source: str
    target: str
    amount: int

    def to_json(self) -> dict[str, Any]:
        """``{"source", "target", "amount"}``."""
        return {"source": self.source, "target": self.target, "amount": self.amount}


def parse_assignment(entries: object, path: str = "assignment") -> tuple[DamageEntry, ...]:
    """Check a JSON assignment (SPEC §3) into entries; InputError names the bad field."""
    if not isinstance(entries, list):
        raise InputError(path, "expected a list of {source, target, amount} entries")
    out: list[DamageEntry] = []
    seen: set[tuple[str, str]] = set()
    for i, raw in enumerate(entries):
        where = f"{path}[{i}]"
        if isinstance(raw, DamageEntry):
            entry = raw
        else:
            if not isinstance(raw, Mapping):
                raise InputError(where, "expected an object")
            for key in ("source", "target"):
                if not isinstance(raw.get(key), str):
                    raise InputError(f"{where}.{key}", "expected an id string")
            amount = raw.get("amount")
            if not isinstance(amount, int) or isinstance(amount, bool):
                raise InputError(f"{where}.amount", "expected an integer")
            extra = set(raw) - {"source", "target", "amount"}
            if extra:
                raise InputError(f"{where}.{sorted(extra)[0]}", "unknown field")
            entry = DamageEntry(raw["source"], raw["target"], amount)
        if entry.amount < 0:
            raise InputError(f"{where}.amount", "must be 0 or more")
        if (entry.source, entry.target) in seen:
            raise InputError(where, f"duplicate pair ({entry.source!r}, {entry.target!r})")
        seen.add((entry.source, entry.target))
        out.append(entry)
    return tuple(out)


def _tally(tally: tuple[tuple[str, str, int], ...], source: str, player: str,
           amount: int) -> tuple[tuple[str, str, int], ...]:
    totals = {(s, p): n for s, p, n in tally}
    totals[(source, player)] = totals.get((source, player), 0) + amount
    return tuple(sorted((s, p, n) for (s, p), n in totals.items()))


def deal_damage(state: GameState, entries: Iterable[DamageEntry | Mapping[str, Any]], *,
                combat: bool, path: str = "assignment") -> Transition:
    """Deal every entry's damage at once (510.2 for combat damage); see the module docstring.

    Entries of amount 0 deal no damage (120.8). InputError names an entry whose source is
    not a permanent or whose target is not a player, creature, planeswalker or battle.
    """
    checked = parse_assignment(list(entries), path)
    before = state
    sources: dict[str, Permanent] = {}
    for i, entry in enumerate(checked):
        src = before.find_permanent(entry.source)
        if src is None:
            raise InputError(f"{path}[{i}].source",
                             f"{entry.source!r} is not a permanent on the battlefield")
        sources[entry.source] = src
        if not before.has_player(entry.target):
            target = before.find_permanent(entry.target)
            if target is None or not (target.is_creature or target.is_planeswalker
                                      or target.is_battle):
                raise InputError(f"{path}[{i}].target", f"{entry.target!r} is not a player, "
                                 "creature, planeswalker or battle")
    events: list[Event] = []
    gained: dict[str, int] = {}
    for entry in checked:
        if entry.amount == 0:
            continue
        src, amount = sources[entry.source], entry.amount
        events.append(DamageDealt(entry.source, entry.target, amount, combat))
        if state.has_player(entry.target):
            player = state.player(entry.target)
            if src.has_keyword("infect"):
                player = replace(player, poison=player.poison + amount)
                events.append(PoisonCountersAdded(player.id, amount))
            else:
                player = replace(player, life=player.life - amount)
                events.append(LifeLost(player.id, amount))
            state = replace_player(state, player)
            state = replace(state, damage_this_turn=_tally(state.damage_this_turn,
                                                           entry.source, player.id, amount))
        else:
            state, more = _damage_permanent(state, state.permanent(entry.target), src, amount)
            events += more
        if src.has_keyword("lifelink"):
            gained[src.id] = gained.get(src.id, 0) + amount
    for source_id, amount in gained.items():
        controller = state.player(sources[source_id].controller)
        state = replace_player(state, replace(controller, life=controller.life + amount))
        events.append(LifeGained(controller.id, amount))
    return state, events


def _damage_permanent(state: GameState, perm: Permanent, src: Permanent,
                      amount: int) -> Transition:
    events: list[Event] = []
    if perm.is_planeswalker:
        taken = min(amount, perm.counter(LOYALTY))
        perm = replace(perm, counters=counters_add(perm.counters, LOYALTY, -amount))
        events.append(CounterRemoved(perm.id, LOYALTY, taken))
    if perm.is_battle:
        taken = min(amount, perm.counter(DEFENSE))
        perm = replace(perm, counters=counters_add(perm.counters, DEFENSE, -amount))
        events.append(CounterRemoved(perm.id, DEFENSE, taken))
    if perm.is_creature:
        if src.has_keyword("wither") or src.has_keyword("infect"):
            perm = replace(perm, counters=counters_add(perm.counters, MINUS_ONE, amount))
            events.append(CounterAdded(perm.id, MINUS_ONE, amount))
        else:
            perm = replace(perm, damage=perm.damage + amount)
        if src.has_keyword("deathtouch"):
            perm = replace(perm, deathtouch_damaged=True)
    return replace_permanent(state, perm), events


def deal_combat_damage(state: GameState,
                       assignment: Iterable[DamageEntry | Mapping[str, Any]]) -> Transition:
    """Deal one combat damage step's assignment at once (510.2); no state-based actions yet."""
    return deal_damage(state, assignment, combat=True)


# -- state-based actions ------------------------------------------------------------------------


def check_state_based_actions(state: GameState) -> Transition:
    """Perform state-based actions until there are none (704.3).

    704.5a life 0 or less and 704.5c ten poison counters lose the game; 704.5d tokens
    outside the battlefield cease to exist; 704.5f toughness 0 or less: to the graveyard;
    704.5g lethal damage and 704.5h deathtouch damage: destroyed unless indestructible;
    704.5i a planeswalker with no loyalty and 704.5v a battle with no defense: to the
    graveyard; 704.5q +1/+1 and -1/-1 counters cancel; 714.4 a finished Saga is sacrificed.
    """
    events: list[Event] = []
    while True:
        state, more = _check_once(state)
        if not more:
            return state, events
        events += more


def _check_once(state: GameState) -> Transition:
    events: list[Event] = []
    losers: list[tuple[str, str]] = []
    for p in state.players:
        if not p.lost and p.life <= 0:
            losers.append((p.id, "704.5a: life total 0 or less"))
        elif not p.lost and p.poison >= 10:
            losers.append((p.id, "704.5c: ten or more poison counters"))
    leaving: list[tuple[str, str]] = []  # (object, cause)
    annihilate: list[tuple[str, int]] = []
    for perm in state.battlefield:
        cause = _leaves_because(state, perm)
        if cause is not None:
            leaving.append((perm.id, cause))
        pairs = min(perm.counter(PLUS_ONE), perm.counter(MINUS_ONE))
        if pairs and cause is None:
            annihilate.append((perm.id, pairs))
    ceasing = [(p.id, obj.id, obj.card.name, zone) for p in state.players for zone in ZONES
               for obj in p.zone(zone) if obj.token]
    # Deathtouch damage counts "since the last time state-based actions were checked".
    state = replace(state, battlefield=tuple(
        replace(p, deathtouch_damaged=False) if p.deathtouch_damaged else p
        for p in state.battlefield))
    for pid, reason in losers:
        state = replace_player(state, replace(state.player(pid), lost=True))
        events.append(PlayerLost(pid, reason))
    for owner, oid, name, zone in ceasing:
        player = state.player(owner)
        state = replace_player(state, player.with_zone(
            zone, tuple(c for c in player.zone(zone) if c.id != oid)))
        events.append(ZoneChange(oid, None, name, owner, zone, "none",
                                 "704.5d: a token outside the battlefield ceases to exist"))
    for oid, cause in leaving:
        state, more = move_permanent(state, oid, "graveyard", cause)
        events += more
    for oid, pairs in annihilate:
        perm = state.permanent(oid)
        counters = counters_add(counters_add(perm.counters, PLUS_ONE, -pairs), MINUS_ONE, -pairs)
        state = replace_permanent(state, replace(perm, counters=counters))
        events += [CounterRemoved(oid, PLUS_ONE, pairs), CounterRemoved(oid, MINUS_ONE, pairs)]
    return state, events


def _leaves_because(state: GameState, perm: Permanent) -> str | None:
    """Why a state-based action puts ``perm`` into its owner's graveyard, if one does."""
    if perm.is_creature:
        if perm.toughness <= 0:
            return "704.5f: toughness 0 or less"
        if not perm.has_keyword("indestructible"):
            if perm.damage >= perm.toughness:
                return "704.5g: destroyed by lethal damage"
            if perm.deathtouch_damaged:
                return "704.5h: destroyed by deathtouch damage"
    if perm.is_planeswalker and perm.counter(LOYALTY) == 0:
        return "704.5i: planeswalker with 0 loyalty"
    if perm.is_battle and perm.counter(DEFENSE) == 0:
        return "704.5v: battle with 0 defense"
    if is_saga_to_sacrifice(state, perm):
        return "714.4: sacrificed after its final chapter"
    return None
