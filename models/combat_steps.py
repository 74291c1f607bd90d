"""From a game state to combat/1 documents and back: the combat damage steps.

:func:`declare_combat` records attacks and blocks. :func:`combat_document` builds the
combat/1 document (SPEC §1) of the coming combat damage step from the state: creatures'
power and toughness with their counters, damage already marked (so the regular step sees
what the first-strike step did, 510.4), keywords, planeswalker loyalty, battle defense,
and what left combat (506.4: an attacker whose blockers are all gone stays blocked;
a planeswalker or battle that left is no longer in combat).

:func:`combat_damage_step` runs one step: it asks ``assign`` for an assignment of the
document, deals it all at once (510.2), puts the triggered abilities of that damage on
the stack, performs state-based actions, resolves those abilities (Vessel's +1/+1 counter,
its lose-the-game check) and performs state-based actions again. :func:`run_combat_damage`
runs the first-strike step first when an attacking or blocking creature has first strike
or double strike (510.4), so a double-striking Vessel assigns its regular damage with the
counter it got from its first-strike damage.

The assignment rules themselves live in the solver: ``assign`` is where it plugs in.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from .combat import Combat
from .damage import (
    DamageEntry,
    check_state_based_actions,
    deal_combat_damage,
)
from .errors import InputError
from .events import AbilityTriggered, Event
from .game import (
    DEFENSE,
    LOYALTY,
    CombatDeclaration,
    GameState,
    Transition,
    put_trigger,
    replace_permanent,
)
from .seeds import OROCHI, damage_triggers, resolve_all

Assign = Callable[[dict[str, Any]], Sequence[DamageEntry | Mapping[str, Any]]]
"""Given a combat/1 document, the assignment to deal: ``[{"source", "target", "amount"}]``."""

STEPS = ("first_strike", "regular")


def declare_combat(state: GameState, attacks: Mapping[str, str],
                   blocks: Mapping[str, Sequence[str]] | None = None) -> Transition:
    """Declare attackers (508) and blockers (509) and keep them in ``state.combat``.

    ``attacks`` maps each attacking creature of the active player to the player,
    planeswalker or battle it attacks; ``blocks`` maps each blocking creature to the
    attackers it blocks. Attacking creatures without vigilance become tapped; each
    attacking Kirin-Touched Orochi's attack trigger goes on the stack. InputError names
    a bad entry (``attacks.o4``, ``blocks.o7[0]``).
    """
    blocks = blocks or {}
    defenders: list[tuple[str, str, str]] = []
    events: list[Event] = []
    for aid, target in attacks.items():
        path = f"attacks.{aid}"
        perm = state.find_permanent(aid)
        if perm is None or not perm.is_creature:
            raise InputError(path, f"{aid!r} is not a creature on the battlefield")
        if perm.controller != state.active_player:
            raise InputError(path, f"{aid!r} is not controlled by the active player")
        if perm.tapped:
            raise InputError(path, f"{aid!r} is tapped and can't attack (508.1a)")
        if perm.summoning_sick and not perm.has_keyword("haste"):
            raise InputError(path, f"{aid!r} is summoning sick and can't attack (302.6)")
        if state.has_player(target):
            if target == state.active_player or state.player(target).lost:
                raise InputError(path, f"{target!r} is not a defending player")
            continue
        victim = state.find_permanent(target)
        if victim is not None and victim.is_planeswalker and \
                victim.controller != state.active_player:
            entry = (target, "planeswalker", victim.controller)
        elif victim is not None and victim.is_battle and victim.protector is not None and \
                victim.protector != state.active_player:
            entry = (target, "battle", victim.protector)
        else:
            raise InputError(path, f"{target!r} is not a player, planeswalker or battle "
                                   "the active player can attack")
        if entry not in defenders:
            defenders.append(entry)
    for bid, attacked in blocks.items():
        perm = state.find_permanent(bid)
        if perm is None or not perm.is_creature or perm.tapped:
            raise InputError(f"blocks.{bid}", f"{bid!r} is not an untapped creature")
        if perm.controller == state.active_player:
            raise InputError(f"blocks.{bid}", f"{bid!r} is controlled by the active player")
        for i, aid in enumerate(attacked):
            if aid not in attacks:
                raise InputError(f"blocks.{bid}[{i}]", f"{aid!r} is not an attacking creature")
    combat = CombatDeclaration(
        attacks=tuple(attacks.items()),
        blocks=tuple((b, tuple(a)) for b, a in blocks.items()),
        defenders=tuple(defenders),
    )
    state = replace(state, combat=combat)
    for aid in attacks:
        perm = state.permanent(aid)
        if not perm.has_keyword("vigilance"):
            state = replace_permanent(state, replace(perm, tapped=True))
        if perm.name == OROCHI:
            state, more = put_trigger(state, "orochi_attack", aid, perm.controller)
            events += more
    return state, events


def end_combat(state: GameState) -> Transition:
    """The end of combat step: forget attacks and blocks (511.3)."""
    return replace(state, combat=None), []


def _creature_entry(state: GameState, oid: str) -> dict[str, Any] | None:
    perm = state.find_permanent(oid)
    if perm is None or not perm.is_creature:
        return None
    keywords = list(dict.fromkeys(perm.keywords))
    return {"id": perm.id, "controller": perm.controller, "power": perm.power,
            "toughness": perm.toughness, "damage": perm.damage, "keywords": keywords}


def combat_document(state: GameState, step: str | None = None,
                    combat: CombatDeclaration | None = None) -> dict[str, Any]:
    """The combat/1 document (SPEC §1) of a combat damage step of ``state``.

    ``step`` is ``"first_strike"`` or ``"regular"``; by default ``"first_strike"`` when a
    creature in the document has first strike or double strike (510.4). ``combat``
    defaults to ``state.combat``. Ids are the game's own object and player ids.
    """
    combat = combat if combat is not None else state.combat
    if combat is None:
        raise InputError("combat", "no attackers and blockers were declared")
    if step is not None and step not in STEPS:
        raise InputError("step", f"expected 'first_strike' or 'regular', got {step!r}")
    creatures: list[dict[str, Any]] = []
    in_combat_attackers: set[str] = set()
    for aid, target in combat.attacks:
        entry = _creature_entry(state, aid)
        perm = state.find_permanent(aid)
        # Removed from combat when it left or changed controller (506.4).
        if entry is None or perm is None or perm.controller != state.active_player:
            continue
        entry["attacking"] = target
        in_combat_attackers.add(aid)
        creatures.append(entry)
    for bid, attacked in combat.blocks:
        entry = _creature_entry(state, bid)
        perm = state.find_permanent(bid)
        if entry is None or perm is None or perm.controller == state.active_player:
            continue
        still = [a for a in attacked if a in in_combat_attackers]
        if still:
            entry["blocking"] = still
            creatures.append(entry)
    blocked_now = {a for c in creatures for a in c.get("blocking", [])}
    for entry in creatures:
        aid = entry["id"]
        if "attacking" in entry and combat.was_blocked(aid) and aid not in blocked_now:
            entry["blocked"] = True  # 509.1h, 702.19d: blocked, and all its blockers are gone
    planeswalkers: list[dict[str, Any]] = []
    battles: list[dict[str, Any]] = []
    for oid, kind, controller in combat.defenders:
        perm = state.find_permanent(oid)
        if kind == "battle":
            live = perm is not None and perm.is_battle and perm.protector == controller
            battles.append({"id": oid, "protector": controller,
                            "defense": perm.counter(DEFENSE) if perm is not None and live else 0,
                            "in_combat": live})
        else:
            live = perm is not None and perm.is_planeswalker and perm.controller == controller
            planeswalkers.append({"id": oid, "controller": controller,
                                  "loyalty": perm.counter(LOYALTY)
                                  if perm is not None and live else 0,
                                  "in_combat": live})
    doc: dict[str, Any] = {
        "active_player": state.active_player,
        "players": [{"id": p.id, "life": p.life} for p in state.players],
        "creatures": creatures,
    }
    if planeswalkers:
        doc["planeswalkers"] = planeswalkers
    if battles:
        doc["battles"] = battles
    # Parsing checks the document and applies SPEC §1's default step (510.4).
    doc["step"] = step if step is not None else Combat.from_json(doc).step
    return doc


def has_first_strike_step(doc: Mapping[str, Any]) -> bool:
    """Whether a creature of the document has first strike or double strike (510.4)."""
    fighting = Combat.from_json({**doc, "step": None}).creatures
    return any(c.has_first_strike for c in fighting if c.is_attacking or c.is_blocking)


def game_over(state: GameState) -> bool:
    """Whether at most one player has not lost (104.2a)."""
    return sum(1 for p in state.players if not p.lost) <= 1


def combat_damage_step(state: GameState, step: str, assign: Assign,
                       combat: CombatDeclaration | None = None) -> Transition:
    """Run one combat damage step; see the module docstring.

    ``assign`` gets the step's combat/1 document and returns its assignment.
    """
    doc = combat_document(state, step, combat)
    state, events = deal_combat_damage(state, list(assign(doc)))
    state, triggered = damage_triggers(state, events)
    trigger_ids = [e.trigger for e in triggered if isinstance(e, AbilityTriggered)]
    state, sba = check_state_based_actions(state)
    state, resolved = resolve_all(state, trigger_ids)
    state, sba_after = check_state_based_actions(state)
    return state, [*events, *triggered, *sba, *resolved, *sba_after]


def run_combat_damage(state: GameState, assign: Assign,
                      combat: CombatDeclaration | None = None) -> Transition:
    """Run the combat damage step(s): first-strike then regular if needed (510.4)."""
    first = combat_document(state, None, combat)
    events: list[Event] = []
    if first["step"] == "first_strike":
        state, events = combat_damage_step(state, "first_strike", assign, combat)
        if game_over(state):
            return state, events
    state, more = combat_damage_step(state, "regular", assign, combat)
    return state, events + more
