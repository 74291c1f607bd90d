"""The abilities of the seed cards, as transitions the caller invokes.

Hidetsugu Consumes All // Vessel of the All-Consuming (NEO 221) and Teachings of the
Kirin // Kirin-Touched Orochi (NEO 212). Triggered abilities wait in
:attr:`~trample.models.game.state.GameState.stack` until :func:`resolve_trigger` resolves them;
the caller chooses the order, the modes and the targets.

* Chapter abilities (``ability="chapter"``) trigger from lore counters (see
  :mod:`trample.models.game.sagas`).
* Vessel of the All-Consuming: :func:`damage_triggers` finds its two abilities in the
  events of dealt damage. "Whenever this creature deals damage" triggers once per damage
  event, however many recipients; "whenever it deals damage to a player, if it has dealt
  10 or more damage to that player this turn" triggers per player and checks its "if"
  both when it triggers and when it resolves (603.4).
* Kirin-Touched Orochi: :func:`orochi_attack_trigger` with the mode and the targets; the
  reflexive "when you do" ability resolves right after (603.12).
* ``ability="transform_self"``: an ability of a permanent that transforms it (e.g.
  Incubator's "{2}: Transform this artifact."), put on the stack by
  :func:`activate_transform_ability`. It transforms the permanent only if it has not
  transformed or converted since then (seed ¶6).
* ``ability="create_wolves"``: Master of the Hunt's ability, put on the stack by
  :func:`trample.models.game.banding.activate_master_of_the_hunt`: its controller creates a
  Wolves of the Hunt token.

Chapter III of both Sagas exiles the Saga and returns it transformed: a new object, back
face up, with no counters, summoning sick, and not the transform action, so "whenever this
transforms" does not trigger (400.7, RULES.md).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import replace
from typing import Literal

from trample.models.document.combat import LossThreshold
from trample.models.document.errors import InputError
from trample.models.game.banding import CREATE_WOLVES, create_wolves
from trample.models.game.cards import get_card
from trample.models.game.events import AbilityResolved, DamageDealt, Event, PlayerLost, ZoneChange
from trample.models.game.mill import mill
from trample.models.game.state import (
    PLUS_ONE,
    GameState,
    Transition,
    Trigger,
    add_counters,
    create_token,
    destroy,
    move_card,
    move_permanent,
    put_onto_battlefield,
    put_trigger,
    remove_trigger,
    replace_player,
)
from trample.models.game.transform import TransformStamp, transform

HIDETSUGU = "Hidetsugu Consumes All"
VESSEL = "Vessel of the All-Consuming"
TEACHINGS = "Teachings of the Kirin"
OROCHI = "Kirin-Touched Orochi"
SPIRIT = "Spirit"
"""The 1/1 colorless Spirit creature token both Teachings and Orochi create."""

OrochiMode = Literal["creature", "noncreature"]
ChapterEffect = Callable[[GameState, Trigger, str | None], tuple[GameState, list[Event], bool]]


# -- Vessel of the All-Consuming ---------------------------------------------------------------


def damage_triggers(state: GameState, events: list[Event]) -> Transition:
    """Put on the stack the abilities that trigger on the damage in ``events`` (510.2).

    Call it with the events of one damage event (one combat damage step), after the
    damage was dealt.
    """
    by_source: dict[str, list[str]] = {}
    for event in events:
        if isinstance(event, DamageDealt) and event.amount > 0:
            by_source.setdefault(event.source, []).append(event.target)
    out: list[Event] = []
    for source, targets in by_source.items():
        perm = state.find_permanent(source)
        if perm is None or perm.name != VESSEL:
            continue
        state, more = put_trigger(state, "vessel_counter", source, perm.controller)
        out += more
        for player in dict.fromkeys(t for t in targets if state.has_player(t)):
            # Intervening "if" (603.4): it triggers only if the condition holds now.
            if state.damage_dealt(source, player) >= 10:
                state, more = put_trigger(state, "vessel_lose", source, perm.controller,
                                          player=player)
                out += more
    return state, out


def loss_thresholds(state: GameState, creatures: Iterable[str]) -> tuple[LossThreshold, ...]:
    """Vessel of the All-Consuming's clause for each Vessel among ``creatures``, as combat/1
    loss thresholds: each opponent of its controller still in the game loses once the
    damage it dealt them this turn reaches 10. Its ability triggers only when it deals
    damage, so a player it already dealt 10 or more needs one more point (the threshold
    is one past the tally)."""
    out: list[LossThreshold] = []
    for cid in creatures:
        perm = state.find_permanent(cid)
        if perm is None or perm.name != VESSEL:
            continue
        for player in state.players:
            if player.id == perm.controller or player.lost:
                continue
            already = state.damage_dealt(cid, player.id)
            out.append(LossThreshold(cid, player.id, max(10, already + 1), already))
    return tuple(out)


def _vessel_counter(state: GameState, trigger: Trigger) -> tuple[GameState, list[Event], bool]:
    # "put a +1/+1 counter on it": nothing if it has left the battlefield.
    if state.find_permanent(trigger.source) is None:
        return state, [], True
    state, events = add_counters(state, trigger.source, PLUS_ONE, 1)
    return state, events, False


def _vessel_lose(state: GameState, trigger: Trigger) -> tuple[GameState, list[Event], bool]:
    player = trigger.player
    if player is None or state.damage_dealt(trigger.source, player) < 10:
        return state, [], True
    if state.player(player).lost:
        return state, [], False
    state = _lose(state, player)
    return state, [PlayerLost(player, f"{VESSEL}: it dealt 10 or more damage to that "
                                      "player this turn")], False


def _lose(state: GameState, player: str) -> GameState:
    return replace_player(state, replace(state.player(player), lost=True))


# -- chapter abilities --------------------------------------------------------------------------


def _hidetsugu_i(state: GameState, trigger: Trigger,
                 target: str | None) -> tuple[GameState, list[Event], bool]:
    """I — Destroy each nonland permanent with mana value 1 or less (all at once)."""
    doomed = [p.id for p in state.battlefield if not p.is_land and p.mana_value <= 1]
    events: list[Event] = []
    for oid in doomed:
        state, more = destroy(state, oid, f"{HIDETSUGU} chapter I")
        events += more
    return state, events, False


def _hidetsugu_ii(state: GameState, trigger: Trigger,
                  target: str | None) -> tuple[GameState, list[Event], bool]:
    """II — Exile all graveyards."""
    events: list[Event] = []
    for player in state.players:
        for obj in player.graveyard:
            state, more = move_card(state, obj.id, "exile", f"{HIDETSUGU} chapter II")
            events += more
    return state, events, False


def _exile_and_return_transformed(state: GameState, trigger: Trigger,
                                  target: str | None) -> tuple[GameState, list[Event], bool]:
    """III — Exile this Saga, then return it to the battlefield transformed under your
    control: a new object (400.7), not a transform."""
    if state.find_permanent(trigger.source) is None:
        return state, [], False
    cause = f"{trigger.name} chapter III"
    state, events = move_permanent(state, trigger.source, "exile", cause)
    exiled = events[0]
    assert isinstance(exiled, ZoneChange) and exiled.new_object is not None
    state, more = put_onto_battlefield(state, exiled.new_object, trigger.controller,
                                       transformed=True, cause=cause)
    return state, events + more, False


def _teachings_i(state: GameState, trigger: Trigger,
                 target: str | None) -> tuple[GameState, list[Event], bool]:
    """I — Mill three cards. Create a 1/1 colorless Spirit creature token."""
    state, events = mill(state, trigger.controller, 3)
    state, more = create_token(state, get_card(SPIRIT), trigger.controller)
    return state, events + more, False


def _counter_on_creature_you_control(state: GameState, controller: str,
                                     target: str | None) -> tuple[GameState, list[Event], bool]:
    """Put a +1/+1 counter on target creature you control; illegal target: nothing (608.2b)."""
    perm = state.find_permanent(target) if target is not None else None
    if perm is None or not perm.is_creature or perm.controller != controller:
        return state, [], True
    state, events = add_counters(state, perm.id, PLUS_ONE, 1)
    return state, events, False


def _teachings_ii(state: GameState, trigger: Trigger,
                  target: str | None) -> tuple[GameState, list[Event], bool]:
    """II — Put a +1/+1 counter on target creature you control."""
    return _counter_on_creature_you_control(state, trigger.controller, target)


CHAPTERS: dict[tuple[str, int], ChapterEffect] = {
    (HIDETSUGU, 1): _hidetsugu_i,
    (HIDETSUGU, 2): _hidetsugu_ii,
    (HIDETSUGU, 3): _exile_and_return_transformed,
    (TEACHINGS, 1): _teachings_i,
    (TEACHINGS, 2): _teachings_ii,
    (TEACHINGS, 3): _exile_and_return_transformed,
}
"""The chapter abilities the model knows, by (Saga name, chapter number)."""


# -- Kirin-Touched Orochi -----------------------------------------------------------------------


def _orochi(state: GameState, trigger: Trigger, mode: str | None, target: str | None,
            counter_target: str | None) -> tuple[GameState, list[Event], bool]:
    if mode not in ("creature", "noncreature"):
        raise InputError("mode", "choose 'creature' or 'noncreature'")
    found = state.find_card(target) if target is not None else None
    if found is None or found[1] != "graveyard" or found[2].token:
        raise InputError("target", f"{target!r} is not a card in a graveyard")
    # In a graveyard a double-faced card has only its front face (712.8a).
    is_creature_card = found[2].card.front.is_creature
    if is_creature_card != (mode == "creature"):
        raise InputError("target", f"{target!r} is not a {mode} card")
    state, events = move_card(state, found[2].id, "exile", f"{OROCHI} attack trigger")
    if not events:
        return state, [], True
    # "When you do" (603.12): the reflexive ability resolves next.
    if mode == "creature":
        state, more = create_token(state, get_card(SPIRIT), trigger.controller)
        return state, events + more, False
    state, more, _ = _counter_on_creature_you_control(state, trigger.controller,
                                                       counter_target)
    return state, events + more, False


def orochi_attack_trigger(state: GameState, orochi: str, mode: str, target: str,
                          counter_target: str | None = None) -> Transition:
    """Kirin-Touched Orochi attacks: choose a mode and targets, and resolve it.

    ``mode`` is ``"creature"`` (exile target creature card from a graveyard; when you do,
    create a 1/1 Spirit) or ``"noncreature"`` (exile target noncreature card from a
    graveyard; when you do, put a +1/+1 counter on ``counter_target``, a creature you
    control). Uses the trigger :func:`~trample.models.game.combat_steps.declare_combat` put on
    the stack if there is one.
    """
    pending = [t for t in state.stack if t.ability == "orochi_attack" and t.source == orochi]
    events: list[Event] = []
    if pending:
        trigger_id = pending[0].id
    else:
        perm = state.permanent(orochi)
        if perm.name != OROCHI:
            raise InputError("object", f"{orochi!r} is not {OROCHI}")
        state, events = put_trigger(state, "orochi_attack", orochi, perm.controller)
        trigger_id = state.stack[-1].id
    state, more = resolve_trigger(state, trigger_id, mode=mode, target=target,
                                  counter_target=counter_target)
    return state, events + more


# -- activated transform abilities ------------------------------------------------------------


def activate_transform_ability(state: GameState, object_id: str) -> Transition:
    """Put on the stack an ability of the permanent that transforms it ("{2}: Transform
    this artifact."), stamped with its transform count now (seed ¶6)."""
    perm = state.permanent(object_id)
    return put_trigger(state, "transform_self", object_id, perm.controller)


# -- resolving ------------------------------------------------------------------------------------


def resolve_trigger(state: GameState, trigger_id: str, *, target: str | None = None,
                    mode: str | None = None, counter_target: str | None = None) -> Transition:
    """Resolve the waiting ability ``trigger_id`` and remove it from the stack.

    ``target`` is the target of a targeted chapter ability (Teachings II) or of Orochi's
    mode; ``mode`` and ``counter_target`` are Orochi's. An ability whose targets are all
    illegal does nothing (608.2b); the final AbilityResolved event says so.
    """
    trigger = state.find_trigger(trigger_id)
    if trigger is None:
        raise InputError("trigger", f"no ability {trigger_id!r} on the stack")
    rest = remove_trigger(state, trigger_id)
    fizzled: bool
    if trigger.ability == "chapter":
        effect = CHAPTERS.get((trigger.name, trigger.chapter))
        if effect is None:
            raise InputError("trigger", f"chapter {trigger.chapter} of {trigger.name!r} "
                                        "is not modelled")
        state, events, fizzled = effect(rest, trigger, target)
    elif trigger.ability == "vessel_counter":
        state, events, fizzled = _vessel_counter(rest, trigger)
    elif trigger.ability == "vessel_lose":
        state, events, fizzled = _vessel_lose(rest, trigger)
    elif trigger.ability == "orochi_attack":
        state, events, fizzled = _orochi(rest, trigger, mode, target, counter_target)
    elif trigger.ability == CREATE_WOLVES:
        state, events, fizzled = create_wolves(rest, trigger)
    elif trigger.ability == "transform_self":
        if rest.find_permanent(trigger.source) is None:
            state, events, fizzled = rest, [], False
        else:
            state, events = transform(rest, trigger.source,
                                      since=TransformStamp(trigger.source, trigger.stamp))
            fizzled = False
    else:
        raise InputError("trigger", f"ability {trigger.ability!r} is not modelled")
    return state, [*events, AbilityResolved(trigger.id, trigger.ability, fizzled)]


def resolve_chapter(state: GameState, saga: str, chapter: int,
                    target: str | None = None) -> Transition:
    """Resolve the waiting chapter ``chapter`` ability of ``saga`` (the first one waiting)."""
    for trigger in state.stack:
        if trigger.ability == "chapter" and trigger.source == saga and trigger.chapter == chapter:
            return resolve_trigger(state, trigger.id, target=target)
    raise InputError("chapter", f"no chapter {chapter} ability of {saga!r} on the stack")


def resolve_all(state: GameState, trigger_ids: list[str] | None = None) -> Transition:
    """Resolve waiting abilities that need no choices, oldest first (or those listed)."""
    events: list[Event] = []
    ids = trigger_ids if trigger_ids is not None else [t.id for t in state.stack]
    for tid in ids:
        if state.find_trigger(tid) is not None:
            state, more = resolve_trigger(state, tid)
            events += more
    return state, events
