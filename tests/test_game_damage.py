"""Dealing damage (120.3, 510.2) and state-based actions (704.5)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import pytest

from trample.models.document.assignment import Assignment
from trample.models.document.errors import InputError
from trample.models.game.cards import get_card, load_card
from trample.models.game.damage import _deal_all, check_state_based_actions, deal_damage
from trample.models.game.events import (
    CounterAdded,
    CounterRemoved,
    DamageDealt,
    LifeGained,
    LifeLost,
    PlayerLost,
    PoisonCountersAdded,
    ZoneChange,
)
from trample.models.game.state import (
    DEFENSE,
    LOYALTY,
    MINUS_ONE,
    PLUS_ONE,
    GameState,
    Transition,
    add_counters,
    create_token,
    enter_card,
    move_permanent,
    new_game,
    replace_permanent,
    replace_player,
)


def _with(*names: str, controller: str = "ap") -> tuple[GameState, list[str]]:
    state = new_game()
    ids = []
    for name in names:
        state, oid, _ = enter_card(state, get_card(name), controller)
        ids.append(oid)
    return state, ids


def deal_combat_damage(state: GameState, entries: list[dict[str, object]]) -> Transition:
    """The mechanics of dealing combat damage (120.3), apart from whether the split is
    legal: these states declare no combat (tests/test_game_legality.py judges splits)."""
    return _deal_all(state, Assignment.from_json(entries), combat=True)


def _causes(events: Sequence[object]) -> list[str]:
    return [e.cause for e in events if isinstance(e, ZoneChange)]


def test_damage_to_a_player_is_life_loss_and_is_tallied() -> None:
    # 120.3a; the tally is what Vessel of the All-Consuming reads.
    state, (bears,) = _with("Grizzly Bears")
    after, events = deal_combat_damage(state, [{"source": bears, "target": "dp", "amount": 2}])
    assert after.player("dp").life == 18
    assert events == [DamageDealt(bears, "dp", 2, True), LifeLost("dp", 2)]
    assert after.damage_dealt(bears, "dp") == 2
    after, _ = deal_damage(after, Assignment(((bears, "dp", 3),)))
    assert after.damage_dealt(bears, "dp") == 5 and after.damage_dealt(bears, "ap") == 0


def test_infect_damage_to_a_player_is_poison_and_ten_loses() -> None:
    # 120.3b, 702.90b, 704.5c
    state, (elf,) = _with("Glistener Elf")
    state = replace_player(state, replace(state.player("dp"), poison=9))
    after, events = deal_combat_damage(state, [{"source": elf, "target": "dp", "amount": 1}])
    assert after.player("dp").life == 20 and after.player("dp").poison == 10
    assert PoisonCountersAdded("dp", 1) in events
    after, events = check_state_based_actions(after)
    assert after.player("dp").lost
    assert events == [PlayerLost("dp", "704.5c: ten or more poison counters")]


def test_life_zero_or_less_loses() -> None:
    # 704.5a
    state, (bears,) = _with("Grizzly Bears")
    state = replace_player(state, replace(state.player("dp"), life=2))
    after, _ = deal_combat_damage(state, [{"source": bears, "target": "dp", "amount": 2}])
    after, events = check_state_based_actions(after)
    assert events == [PlayerLost("dp", "704.5a: life total 0 or less")]
    assert check_state_based_actions(after) == (after, [])  # once only


def test_damage_to_a_planeswalker_removes_loyalty_then_704_5i() -> None:
    # 120.3c, 704.5i
    state, (bears,) = _with("Grizzly Bears")
    state, jace, _ = enter_card(state, get_card("Jace Beleren"), "dp")
    assert state.permanent(jace).counter(LOYALTY) == 3
    after, events = deal_combat_damage(state, [{"source": bears, "target": jace, "amount": 2}])
    assert after.permanent(jace).counter(LOYALTY) == 1
    assert CounterRemoved(jace, LOYALTY, 2) in events
    after, _ = deal_combat_damage(after, [{"source": bears, "target": jace, "amount": 5}])
    assert after.permanent(jace).counter(LOYALTY) == 0
    after, events = check_state_based_actions(after)
    assert after.find_permanent(jace) is None
    assert _causes(events) == ["704.5i: planeswalker with 0 loyalty"]
    assert after.player("dp").life == 20  # not redirected (the redirection rule is gone)


def test_damage_to_a_battle_removes_defense_then_704_5v() -> None:
    # 120.3h, 704.5v
    state, (bears,) = _with("Grizzly Bears")
    state, battle, _ = enter_card(state, get_card("Invasion of Zendikar"), "ap")
    assert state.permanent(battle).counter(DEFENSE) == 3
    assert state.permanent(battle).protector == "dp"
    after, _ = deal_combat_damage(state, [{"source": bears, "target": battle, "amount": 3}])
    after, events = check_state_based_actions(after)
    assert _causes(events) == ["704.5v: battle with 0 defense"]


def test_damage_to_a_creature_is_marked_then_704_5g() -> None:
    # 120.3e, 704.5g
    state, (bears, elves) = _with("Grizzly Bears", "Llanowar Elves")
    after, _ = deal_combat_damage(state, [{"source": elves, "target": bears, "amount": 1}])
    assert after.permanent(bears).damage == 1
    assert check_state_based_actions(after) == (after, [])
    after, _ = deal_combat_damage(after, [{"source": elves, "target": bears, "amount": 1}])
    after, events = check_state_based_actions(after)
    assert _causes(events) == ["704.5g: destroyed by lethal damage"]
    assert [c.card.name for c in after.player("ap").graveyard] == ["Grizzly Bears"]


def test_wither_and_infect_damage_to_a_creature_are_minus_counters_then_704_5f() -> None:
    # 120.3d, 702.80a (wither), 702.90b (infect), 704.5f
    state, (bears, ram, elf) = _with("Grizzly Bears", "Boggart Ram-Gang", "Glistener Elf")
    after, events = deal_combat_damage(state, [{"source": ram, "target": bears, "amount": 1},
                                               {"source": elf, "target": bears, "amount": 1}])
    perm = after.permanent(bears)
    assert (perm.damage, perm.counter(MINUS_ONE), perm.toughness) == (0, 2, 0)
    assert events.count(CounterAdded(bears, MINUS_ONE, 1)) == 2
    after, events = check_state_based_actions(after)
    assert _causes(events) == ["704.5f: toughness 0 or less"]


def test_deathtouch_destroys_then_the_mark_is_gone() -> None:
    # 702.2b, 704.5h
    state, (bears, rats, myr) = _with("Grizzly Bears", "Typhoid Rats", "Darksteel Myr")
    after, _ = deal_combat_damage(state, [{"source": rats, "target": bears, "amount": 1},
                                          {"source": rats, "target": myr, "amount": 0}])
    assert after.permanent(bears).deathtouch_damaged
    assert not after.permanent(myr).deathtouch_damaged  # 0 damage is no damage (120.8)
    after, events = check_state_based_actions(after)
    assert _causes(events) == ["704.5h: destroyed by deathtouch damage"]


def test_indestructible_ignores_g_and_h_but_not_f() -> None:
    # 702.12b, 704.5f-h (RULES.md: "Indestructible ignores g and h")
    state, (myr, rats, ram) = _with("Darksteel Myr", "Typhoid Rats", "Boggart Ram-Gang")
    after, _ = deal_combat_damage(state, [{"source": rats, "target": myr, "amount": 1}])
    after, events = check_state_based_actions(after)
    assert after.find_permanent(myr) is not None and events == []
    assert not after.permanent(myr).deathtouch_damaged  # "since the last check"
    after, _ = deal_combat_damage(after, [{"source": ram, "target": myr, "amount": 1}])
    after, events = check_state_based_actions(after)
    assert _causes(events) == ["704.5f: toughness 0 or less"]


def test_lifelink_gains_with_the_damage() -> None:
    # 120.3f, 702.15b: one life gain event per source, at the same time as the damage.
    state, (hawk,) = _with("Vampire Nighthawk")
    state, bears, _ = enter_card(state, get_card("Grizzly Bears"), "dp")
    state = replace_player(state, replace(state.player("ap"), life=1))
    after, events = deal_combat_damage(state, [{"source": hawk, "target": bears, "amount": 1},
                                               {"source": hawk, "target": "dp", "amount": 1}])
    assert after.player("ap").life == 3 and after.player("dp").life == 19
    assert events[-1] == LifeGained("ap", 2)


def test_all_damage_of_a_step_is_dealt_at_once() -> None:
    # 510.2: both creatures deal damage, although each is lethal to the other, and a source
    # with wither that is itself given -1/-1 counters still deals damage as it was.
    state, (bears,) = _with("Grizzly Bears")
    state, ram, _ = enter_card(state, get_card("Boggart Ram-Gang"), "dp")
    after, events = deal_combat_damage(state, [{"source": bears, "target": ram, "amount": 2},
                                               {"source": ram, "target": bears, "amount": 3}])
    assert [e for e in events if isinstance(e, DamageDealt)] == [
        DamageDealt(bears, ram, 2, True), DamageDealt(ram, bears, 3, True)]
    assert after.permanent(bears).counter(MINUS_ONE) == 3
    after, events = check_state_based_actions(after)
    assert sorted(_causes(events)) == ["704.5f: toughness 0 or less"]
    assert after.permanent(ram).damage == 2  # 3/3 with 2 damage survives


def test_plus_and_minus_counters_annihilate() -> None:
    # 704.5q
    state, (bears,) = _with("Grizzly Bears")
    state, _ = add_counters(state, bears, PLUS_ONE, 2)
    state, _ = add_counters(state, bears, MINUS_ONE, 3)
    after, events = check_state_based_actions(state)
    assert after.permanent(bears).counters == ((MINUS_ONE, 1),)
    assert events == [CounterRemoved(bears, PLUS_ONE, 2), CounterRemoved(bears, MINUS_ONE, 2)]


def test_tokens_outside_the_battlefield_cease_to_exist() -> None:
    # 704.5d
    state = new_game()
    state, _ = create_token(state, get_card("Spirit"), "ap")
    spirit = state.battlefield[-1].id
    state, _ = move_permanent(state, spirit, "graveyard")
    assert len(state.player("ap").graveyard) == 1
    after, events = check_state_based_actions(state)
    assert after.player("ap").graveyard == ()
    assert isinstance(events[0], ZoneChange) and events[0].new_object is None


def test_a_creature_and_planeswalker_gets_both_results() -> None:
    # 120.3c and 120.3e both apply to a permanent that is both.
    card = load_card({"name": "Test Fixture Walker", "layout": "normal", "mana_cost": "{3}",
                      "type_line": "Legendary Planeswalker Creature — Test", "power": "2",
                      "toughness": "5", "loyalty": "4"})
    state, (bears,) = _with("Grizzly Bears")
    state, walker, _ = enter_card(state, card, "dp")
    after, _ = deal_combat_damage(state, [{"source": bears, "target": walker, "amount": 2}])
    perm = after.permanent(walker)
    assert (perm.damage, perm.counter(LOYALTY)) == (2, 2)


@pytest.mark.parametrize(("assignment", "path", "reason"), [
    ({"source": "o1"}, "assignment", "must be a list"),
    ([{"source": "o1", "target": "dp"}], "assignment[0].amount", "required field is missing"),
    ([{"source": "o1", "target": "dp", "amount": -1}], "assignment[0].amount", "at least 0"),
    ([{"source": "o1", "target": "dp", "amount": 1.5}], "assignment[0].amount", "integer"),
    ([{"source": "o1", "target": "dp", "amount": True}], "assignment[0].amount", "integer"),
    ([{"source": "o1", "target": "dp", "amount": 1},
      {"source": "o1", "target": "dp", "amount": 1}], "assignment[1]", "appears twice"),
    ([{"source": "o9", "target": "dp", "amount": 1}], "assignment[0].source", "not a permanent"),
    ([{"source": "o1", "target": "zz", "amount": 1}], "assignment[0].target", "not a player"),
    ([{"source": "o1", "target": "o2", "amount": 1}], "assignment[0].target", "not a player"),
    ([{"source": "o1", "target": "dp", "amount": 1, "x": 1}], "assignment[0].x", "unknown"),
    ([3], "assignment[0]", "must be an object"),
])
def test_bad_assignments_name_the_field(assignment: object, path: str, reason: str) -> None:
    state, _ = _with("Grizzly Bears", "Forest")
    with pytest.raises(InputError) as info:
        deal_damage(state, Assignment.from_json(assignment))
    assert info.value.path == path and reason in info.value.reason


def test_damage_never_mutates_its_input() -> None:
    state, (bears, rats) = _with("Grizzly Bears", "Typhoid Rats")
    before = repr(state)
    deal_combat_damage(state, [{"source": rats, "target": bears, "amount": 1}])
    check_state_based_actions(replace_permanent(state, replace(state.permanent(bears),
                                                               damage=5)))
    assert repr(state) == before
