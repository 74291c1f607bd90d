"""Dealing damage (120) and the state-based actions that follow it (704.5).

Damage is dealt from an :class:`~trample.models.document.assignment.Assignment` whose ids are the
state's permanent and player ids (combat damage only once the rules passed it, see
:func:`trample.models.game.combat_steps.deal_combat_damage`). All damage of one step is dealt
at once (510.2): the characteristics of every source are read before any of it is
dealt. Its results (120.3):

* to a player: that much life lost, or poison counters from a source with infect;
* to a planeswalker: that many loyalty counters removed;
* to a battle: that many defense counters removed;
* to a creature: damage marked, or -1/-1 counters from a source with wither or infect;
  deathtouch marks the creature for 704.5h;
* a source with lifelink makes its controller gain that much life;
* combat damage from a source with toxic gives the player poison counters equal to its
  total toxic value (702.164c).

What damage does and which state-based actions follow are read from
:mod:`trample.models.document.outcomes`, the implementation the solver's objective reads too.

Damage dealt to each player by each source is tallied for the turn (Vessel of the
All-Consuming asks for it). Triggers on damage are found by
:func:`trample.models.game.seeds.damage_triggers`; this module knows no card by name.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import replace
from typing import Any

from trample.models.document.assignment import Assignment
from trample.models.document.errors import InputError
from trample.models.document.outcomes import (
    dies,
    gains_life,
    has_lost,
    notes_deathtouch,
    result_of,
    toxic_total,
)
from trample.models.game.events import (
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
from trample.models.game.sagas import is_saga_to_sacrifice
from trample.models.game.state import (
    DEFENSE,
    LOYALTY,
    MINUS_ONE,
    PLUS_ONE,
    ZONES,
    GameState,
    Permanent,
    PlayerState,
    Transition,
    counters_add,
    move_permanents,
    replace_permanents,
    replace_player,
)


def deal_damage(state: GameState, assignment: Assignment | Iterable[Mapping[str, Any]],
                path: str = "assignment") -> Transition:
    """Deal noncombat damage: every entry at once; see the module docstring.

    Combat damage is dealt by :func:`trample.models.game.combat_steps.deal_combat_damage`,
    which first has the assignment judged against the rules. InputError names an entry
    whose source is not a permanent or whose target is not a player, creature,
    planeswalker or battle.
    """
    return _deal_all(state, _assignment(assignment, path), combat=False, path=path)


def _assignment(entries: Assignment | Iterable[Mapping[str, Any]], path: str) -> Assignment:
    return entries if isinstance(entries, Assignment) else \
        Assignment.from_json(list(entries), path)


def check_ids(state: GameState, assignment: Assignment, path: str = "assignment") -> None:
    """InputError naming the first entry whose source is not a permanent or whose target
    is not a player, creature, planeswalker or battle."""
    for source, target, _ in assignment.listed():
        if state.find_permanent(source) is None:
            where = assignment.path_of((source, target), source, path)
            raise InputError(f"{where}.source",
                             f"{source!r} is not a permanent on the battlefield")
        if not state.has_player(target):
            perm = state.find_permanent(target)
            if perm is None or not (perm.is_creature or perm.is_planeswalker
                                    or perm.is_battle):
                where = assignment.path_of((source, target), source, path)
                raise InputError(f"{where}.target", f"{target!r} is not a player, "
                                 "creature, planeswalker or battle")


def _deal_all(state: GameState, assignment: Assignment, *, combat: bool,
              path: str = "assignment") -> Transition:
    """Deal ``assignment`` at once (510.2) once its ids are checked. It judges no rule of
    combat damage assignment: combat damage goes through
    :func:`trample.models.game.combat_steps.deal_combat_damage`, which does."""
    check_ids(state, assignment, path)
    before = state
    # The characteristics of every source are read before any damage is dealt (510.2).
    sources: dict[str, Permanent] = {}
    for source in assignment.sources():
        perm = before.find_permanent(source)
        assert perm is not None
        sources[source] = perm
    events: list[Event] = []
    gained: dict[str, int] = {}
    changed: dict[str, Permanent] = {}
    tally = {(s, p): n for s, p, n in state.damage_this_turn}
    poisoned: set[tuple[str, str]] = set()
    players = {p.id: p for p in state.players}
    for source_id, target, amount in assignment.entries:
        src = sources[source_id]
        events.append(DamageDealt(source_id, target, amount, combat))
        keywords = src.combat_keywords
        if target in players:
            player = players[target]
            if result_of(keywords, "player") == "poison":
                player = replace(player, poison=player.poison + amount)
                events.append(PoisonCountersAdded(player.id, amount))
            else:
                player = replace(player, life=player.life - amount)
                events.append(LifeLost(player.id, amount))
            toxic = toxic_total(keywords) if combat and amount > 0 else 0
            if toxic and (source_id, target) not in poisoned:
                poisoned.add((source_id, target))  # once per player it dealt damage to
                player = replace(player, poison=player.poison + toxic)
                events.append(PoisonCountersAdded(player.id, toxic))
            players[target] = player
            tally[(source_id, target)] = tally.get((source_id, target), 0) + amount
        else:
            perm = changed.get(target) or state.permanent(target)
            changed[target], more = _damage_permanent(perm, src, amount)
            events += more
        if gains_life(keywords):
            gained[src.id] = gained.get(src.id, 0) + amount
    for source_id, amount in gained.items():
        controller = players[sources[source_id].controller]
        players[controller.id] = replace(controller, life=controller.life + amount)
        events.append(LifeGained(controller.id, amount))
    state = replace_permanents(state, changed.values())
    state = replace(state, players=tuple(players[p.id] for p in state.players),
                    damage_this_turn=tuple(sorted((s, p, n) for (s, p), n in tally.items())))
    return state, events


def _damage_permanent(perm: Permanent, src: Permanent,
                      amount: int) -> tuple[Permanent, list[Event]]:
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
        keywords = src.combat_keywords
        if result_of(keywords, "creature") == "counters":
            perm = replace(perm, counters=counters_add(perm.counters, MINUS_ONE, amount))
            events.append(CounterAdded(perm.id, MINUS_ONE, amount))
        else:
            perm = replace(perm, damage=perm.damage + amount)
        if notes_deathtouch(keywords):
            perm = replace(perm, deathtouch_damaged=True)
    return perm, events


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
        if p.lost or not has_lost(p.life, p.poison):
            continue
        if p.life <= 0:
            losers.append((p.id, "704.5a: life total 0 or less"))
        else:
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
        events.append(ZoneChange(oid, None, name, owner, zone, "none",
                                 "704.5d: a token outside the battlefield ceases to exist"))
    if ceasing:
        state = replace(state, players=tuple(_without_tokens(p) for p in state.players))
    state, more = move_permanents(state, [(oid, "graveyard", cause) for oid, cause in leaving])
    events += more
    cancelled: list[Permanent] = []
    for oid, pairs in annihilate:
        perm = state.permanent(oid)
        counters = counters_add(counters_add(perm.counters, PLUS_ONE, -pairs), MINUS_ONE, -pairs)
        cancelled.append(replace(perm, counters=counters))
        events += [CounterRemoved(oid, PLUS_ONE, pairs), CounterRemoved(oid, MINUS_ONE, pairs)]
    return replace_permanents(state, cancelled), events


def _without_tokens(player: PlayerState) -> PlayerState:
    """The player with no token left in any zone but the battlefield (704.5d)."""
    for zone in ZONES:
        cards = player.zone(zone)
        if any(c.token for c in cards):
            player = player.with_zone(zone, tuple(c for c in cards if not c.token))
    return player


_DEATH_CAUSES = {"704.5f": "704.5f: toughness 0 or less",
                 "704.5g": "704.5g: destroyed by lethal damage",
                 "704.5h": "704.5h: destroyed by deathtouch damage"}


def _leaves_because(state: GameState, perm: Permanent) -> str | None:
    """Why a state-based action puts ``perm`` into its owner's graveyard, if one does."""
    if perm.is_creature:
        rule = dies(perm.toughness, perm.damage, perm.has_keyword("indestructible"),
                    perm.deathtouch_damaged)
        if rule is not None:
            return _DEATH_CAUSES[rule]
    if perm.is_planeswalker and perm.counter(LOYALTY) == 0:
        return "704.5i: planeswalker with 0 loyalty"
    if perm.is_battle and perm.counter(DEFENSE) == 0:
        return "704.5v: battle with 0 defense"
    if is_saga_to_sacrifice(state, perm):
        return "714.4: sacrificed after its final chapter"
    return None
