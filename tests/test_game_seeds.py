"""The seed cards' abilities: Sagas (714), Hidetsugu Consumes All // Vessel of the
All-Consuming and Teachings of the Kirin // Kirin-Touched Orochi."""

from __future__ import annotations

from dataclasses import replace

import pytest

from trample.models.document.errors import InputError
from trample.models.game.cards import get_card, load_card
from trample.models.game.damage import check_state_based_actions, deal_damage
from trample.models.game.events import (
    AbilityResolved,
    AbilityTriggered,
    CounterAdded,
    Event,
    PlayerLost,
    TokenCreated,
    Transformed,
    ZoneChange,
    transforms,
)
from trample.models.game.sagas import add_lore_counter, begin_precombat_main
from trample.models.game.seeds import (
    HIDETSUGU,
    OROCHI,
    TEACHINGS,
    VESSEL,
    damage_triggers,
    orochi_attack_trigger,
    resolve_all,
    resolve_chapter,
    resolve_trigger,
)
from trample.models.game.state import (
    LORE,
    PLUS_ONE,
    FaceSide,
    GameState,
    add_card,
    add_counters,
    begin_turn,
    create_token,
    destroy,
    enter_card,
    move_permanent,
    new_game,
    put_onto_battlefield,
)
from trample.models.game.transform import turn_face_down


def _triggered(events: list[Event]) -> list[AbilityTriggered]:
    return [e for e in events if isinstance(e, AbilityTriggered)]


def _saga(name: str, *, controller: str = "ap",
          owner: str | None = None) -> tuple[GameState, str, list[Event]]:
    return enter_card(new_game(), get_card(name), controller, owner=owner)


def _to_chapter(state: GameState, saga: str, chapter: int) -> GameState:
    """Resolve chapters 1 .. chapter-1, adding lore counters as the turns go by."""
    for n in range(1, chapter):
        state, _ = resolve_chapter(state, saga, n)
        state, _ = add_lore_counter(state, saga)
    return state


# -- Sagas -----------------------------------------------------------------------------------


@pytest.mark.parametrize("name", [HIDETSUGU, TEACHINGS])
def test_a_saga_enters_with_a_lore_counter_and_chapter_one_triggers(name: str) -> None:
    # 714.3a; 714.2b
    state, saga, events = _saga(name)
    assert state.permanent(saga).counter(LORE) == 1
    assert events[0] == CounterAdded(saga, LORE, 1)
    [trigger] = _triggered(events)
    assert (trigger.ability, trigger.chapter, trigger.source) == ("chapter", 1, saga)
    assert state.stack[0].name == name


def test_precombat_main_adds_lore_to_the_active_players_sagas_only() -> None:
    # 714.3b
    state, mine, _ = _saga(HIDETSUGU)
    state, theirs, _ = enter_card(state, get_card(TEACHINGS), "dp")
    state, _ = resolve_all(state)
    state, events = begin_precombat_main(state)
    assert state.permanent(mine).counter(LORE) == 2
    assert state.permanent(theirs).counter(LORE) == 1
    assert [(t.source, t.chapter) for t in _triggered(events)] == [(mine, 2)]


def test_each_chapter_reached_triggers_once() -> None:
    # 714.2b: "the number of lore counters becomes at least its chapter number"
    state, saga, _ = _saga(TEACHINGS)
    state, events = add_counters(state, saga, LORE, 2)
    assert [t.chapter for t in _triggered(events)] == [2, 3]
    state, events = add_lore_counter(state, saga)
    assert _triggered(events) == []


def test_a_finished_saga_is_sacrificed_once_no_chapter_waits() -> None:
    # 714.4
    saga_card = load_card({
        "name": "Test Fixture Saga", "layout": "saga", "mana_cost": "{1}",
        "type_line": "Enchantment — Saga",
        "oracle_text": "I — Draw a card.\nII — Draw a card."})
    state, saga, _ = enter_card(new_game(), saga_card, "ap")
    state, _ = add_lore_counter(state, saga)
    assert check_state_based_actions(state) == (state, [])  # chapters still waiting
    state = replace(state, stack=())
    state, events = check_state_based_actions(state)
    assert [e.cause for e in events if isinstance(e, ZoneChange)] == [
        "714.4: sacrificed after its final chapter"]


# -- Hidetsugu Consumes All -------------------------------------------------------------------


def test_hidetsugu_chapter_one_destroys_each_nonland_permanent_of_mana_value_one_or_less(
) -> None:
    # "I — Destroy each nonland permanent with mana value 1 or less."
    relic = load_card({"name": "Test Fixture Relic", "layout": "normal", "mana_cost": "{1}",
                       "type_line": "Artifact", "keywords": ["Indestructible"],
                       "oracle_text": "Indestructible"})
    state, saga, _ = _saga(HIDETSUGU)
    doomed, spared = [], []
    for name, who in [("Llanowar Elves", "dp"), ("Sol Ring", "ap"), ("Ornithopter", "dp")]:
        state, oid, _ = enter_card(state, get_card(name), who)
        doomed.append(oid)
    state, _ = create_token(state, get_card("Spirit"), "dp")
    doomed.append(state.battlefield[-1].id)
    state, down, _ = enter_card(state, get_card("Grizzly Bears"), "dp")
    state, _ = turn_face_down(state, down)  # face down: mana value 0 (708.2a)
    doomed.append(down)
    keep: list[tuple[str, FaceSide]] = [("Forest", "front"), ("Grizzly Bears", "front"),
                                        ("Teachings of the Kirin", "back"),
                                        ("Darksteel Myr", "front")]
    for name, face in keep:
        state, oid, _ = enter_card(state, get_card(name), "dp", face=face)
        spared.append(oid)
    state, oid, _ = enter_card(state, relic, "dp")
    spared.append(oid)
    after, events = resolve_chapter(state, saga, 1)
    assert sorted(e.object for e in events if isinstance(e, ZoneChange)) == sorted(doomed)
    assert {p.id for p in after.battlefield} == {saga, *spared}
    # Kirin-Touched Orochi (back face up) has the front face's mana value 2 (712.8e).
    assert state.permanent(spared[2]).mana_value == 2
    after, events = check_state_based_actions(after)
    assert [e.card for e in events if isinstance(e, ZoneChange)] == ["Spirit"]  # 704.5d


def test_hidetsugu_chapter_two_exiles_all_graveyards() -> None:
    # "II — Exile all graveyards."
    state, saga, _ = _saga(HIDETSUGU)
    for who, name in [("ap", "Forest"), ("dp", "Grizzly Bears"), ("dp", TEACHINGS)]:
        state, _ = add_card(state, who, "graveyard", get_card(name))
    state = _to_chapter(state, saga, 2)
    after, events = resolve_chapter(state, saga, 2)
    assert all(p.graveyard == () for p in after.players)
    assert [c.card.front.name for c in after.player("dp").exile] == ["Grizzly Bears", TEACHINGS]
    assert len([e for e in events if isinstance(e, ZoneChange)]) == 3


@pytest.mark.parametrize(("name", "back"), [(HIDETSUGU, VESSEL), (TEACHINGS, OROCHI)])
def test_chapter_three_returns_a_new_object_transformed(name: str, back: str) -> None:
    # "III — Exile this Saga, then return it to the battlefield transformed under your
    # control." RULES.md: a new object (400.7), no counters, back face up, summoning sick,
    # not the transform action.
    state, saga, _ = _saga(name, controller="ap", owner="dp")
    state = _to_chapter(state, saga, 3)
    assert state.permanent(saga).counter(LORE) == 3
    after, events = resolve_chapter(state, saga, 3)
    assert after.find_permanent(saga) is None
    new = after.battlefield[-1]
    assert (new.name, new.face, new.counters, new.summoning_sick) == (back, "back", (), True)
    assert (new.owner, new.controller, new.transformations) == ("dp", "ap", 0)
    assert new.id != saga and new.is_transformed_permanent
    moves = [e for e in events if isinstance(e, ZoneChange)]
    assert [(m.from_zone, m.to_zone, m.transformed) for m in moves] == [
        ("battlefield", "exile", False), ("exile", "battlefield", True)]
    assert moves[1].new_object == new.id
    assert not any(isinstance(e, Transformed) for e in events)
    assert not any(transforms(e, saga) or transforms(e, new.id) for e in events)
    assert check_state_based_actions(after) == (after, [])  # nothing to sacrifice (714.4)


def test_chapter_three_does_nothing_if_the_saga_is_gone() -> None:
    state, saga, _ = _saga(HIDETSUGU)
    state = _to_chapter(state, saga, 3)
    state, _ = destroy(state, saga)
    after, events = resolve_chapter(state, saga, 3)
    assert events == [AbilityResolved(state.stack[-1].id, "chapter", False)]
    assert after.battlefield == () and len(after.player("ap").graveyard) == 1


def test_chapter_three_of_a_token_copy_exiles_it_for_good() -> None:
    # 111.8: a token that left the battlefield can't come back; it ceases to exist.
    state = new_game()
    state, _ = create_token(state, get_card(HIDETSUGU), "ap")
    saga = state.battlefield[-1].id
    state = _to_chapter(state, saga, 3)
    after, events = resolve_chapter(state, saga, 3)
    assert after.battlefield == () and len(after.player("ap").exile) == 1
    assert [e.to_zone for e in events if isinstance(e, ZoneChange)] == ["exile"]
    after, _ = check_state_based_actions(after)
    assert after.player("ap").exile == ()


# -- Teachings of the Kirin ---------------------------------------------------------------------


def test_teachings_chapter_one_mills_three_and_makes_a_spirit() -> None:
    # "I — Mill three cards. Create a 1/1 colorless Spirit creature token."
    state, saga, _ = _saga(TEACHINGS)
    for name in ["Forest", "Grizzly Bears", "Sol Ring", "Llanowar Elves"]:
        state, _ = add_card(state, "ap", "library", get_card(name))
    after, events = resolve_chapter(state, saga, 1)
    assert [c.card.name for c in after.player("ap").graveyard] == [
        "Forest", "Grizzly Bears", "Sol Ring"]
    spirit = after.battlefield[-1]
    assert (spirit.name, spirit.token, spirit.power, spirit.toughness) == ("Spirit", True, 1, 1)
    assert spirit.controller == "ap" and spirit.card.front.type_line == "Token Creature — Spirit"
    assert any(isinstance(e, TokenCreated) for e in events)


def test_teachings_chapter_two_counter_on_target_creature_you_control() -> None:
    # "II — Put a +1/+1 counter on target creature you control."
    state, saga, _ = _saga(TEACHINGS)
    state, bears, _ = enter_card(state, get_card("Grizzly Bears"), "ap")
    state, theirs, _ = enter_card(state, get_card("Grizzly Bears"), "dp")
    state = _to_chapter(state, saga, 2)
    after, events = resolve_chapter(state, saga, 2, target=bears)
    assert after.permanent(bears).counter(PLUS_ONE) == 1 and after.permanent(bears).power == 3
    assert events[-1] == AbilityResolved(state.stack[-1].id, "chapter", False)
    # An illegal target (a creature an opponent controls): the ability does nothing.
    after, events = resolve_chapter(state, saga, 2, target=theirs)
    assert after.permanent(theirs).counter(PLUS_ONE) == 0
    assert isinstance(events[-1], AbilityResolved) and events[-1].fizzled


def test_unknown_trigger_and_chapter() -> None:
    state, saga, _ = _saga(TEACHINGS)
    with pytest.raises(InputError) as info:
        resolve_trigger(state, "t999")
    assert info.value.path == "trigger"
    with pytest.raises(InputError) as info:
        resolve_chapter(state, saga, 2)
    assert info.value.path == "chapter"


# -- Vessel of the All-Consuming ----------------------------------------------------------------


def _vessel() -> tuple[GameState, str]:
    state = new_game()
    state, oid, _ = enter_card(state, get_card(HIDETSUGU), "ap", face="back")
    return state, oid


def _deal(state: GameState, *entries: tuple[str, str, int]) -> tuple[GameState, list[Event]]:
    state, events = deal_damage(state, [{"source": s, "target": t, "amount": n}
                                        for s, t, n in entries])
    state, more = damage_triggers(state, events)
    return state, events + more


def test_vessel_gets_one_counter_per_damage_event() -> None:
    # "Whenever this creature deals damage, put a +1/+1 counter on it." Damage to two
    # recipients at once is one event: one trigger.
    state, vessel = _vessel()
    state, bears, _ = enter_card(state, get_card("Grizzly Bears"), "dp")
    state, events = _deal(state, (vessel, bears, 2), (vessel, "dp", 1))
    assert [t.ability for t in _triggered(events)] == ["vessel_counter"]
    state, _ = resolve_all(state)
    assert state.permanent(vessel).counter(PLUS_ONE) == 1
    assert state.permanent(vessel).power == 4
    # Noncombat damage is damage too.
    state, events = deal_damage(state, [{"source": vessel, "target": "dp", "amount": 1}])
    state, more = damage_triggers(state, events)
    assert [t.ability for t in _triggered(more)] == ["vessel_counter"]


def test_vessel_makes_a_player_lose_at_ten_damage_in_a_turn() -> None:
    # "Whenever this creature deals damage to a player, if it has dealt 10 or more damage to
    # that player this turn, they lose the game."
    state, vessel = _vessel()
    state = replace(state, players=tuple(replace(p, life=40) for p in state.players))
    state, events = _deal(state, (vessel, "dp", 6))
    assert [t.ability for t in _triggered(events)] == ["vessel_counter"]
    state, events = _deal(state, (vessel, "dp", 4))
    assert [t.ability for t in _triggered(events)] == ["vessel_counter", "vessel_lose"]
    state, events = resolve_all(state)
    assert state.player("dp").lost and state.player("dp").life == 30
    assert any(isinstance(e, PlayerLost) and VESSEL in e.reason for e in events)


def test_vessel_tally_is_per_turn_per_player_and_per_object() -> None:
    state, vessel = _vessel()
    state, _ = _deal(state, (vessel, "dp", 9))
    state, _ = begin_turn(state, "ap")
    state, events = _deal(state, (vessel, "dp", 1))
    assert [t.ability for t in _triggered(events)] == ["vessel_counter"]
    # A new object (exiled and returned) has dealt no damage yet (400.7).
    state, _ = _deal(state, (vessel, "dp", 8))
    state, moved = move_permanent(state, vessel, "exile")
    exiled = moved[0]
    assert isinstance(exiled, ZoneChange) and exiled.new_object
    state, _ = put_onto_battlefield(state, exiled.new_object, transformed=True)
    new = state.battlefield[-1].id
    state, events = _deal(state, (new, "dp", 3))
    assert "vessel_lose" not in [t.ability for t in _triggered(events)]
    assert state.damage_dealt(new, "dp") == 3


def test_vessel_lose_checks_its_condition_again_on_resolution() -> None:
    # 603.4 intervening "if"
    state, vessel = _vessel()
    state, _ = _deal(state, (vessel, "dp", 10))
    lose = next(t for t in state.stack if t.ability == "vessel_lose")
    state = replace(state, damage_this_turn=())
    after, events = resolve_trigger(state, lose.id)
    assert not after.player("dp").lost
    assert events == [AbilityResolved(lose.id, "vessel_lose", True)]


def test_vessel_counter_does_nothing_once_it_is_gone() -> None:
    state, vessel = _vessel()
    state, _ = _deal(state, (vessel, "dp", 1))
    state, _ = destroy(state, vessel)
    _, events = resolve_all(state)
    assert not any(isinstance(e, CounterAdded) for e in events)


# -- Kirin-Touched Orochi -------------------------------------------------------------------


def _orochi() -> tuple[GameState, str, dict[str, str]]:
    state = new_game()
    state, orochi, _ = enter_card(state, get_card(TEACHINGS), "ap", face="back")
    cards = {}
    for name in ["Grizzly Bears", HIDETSUGU, "Sol Ring"]:
        state, cid = add_card(state, "dp", "graveyard", get_card(name))
        cards[name] = cid
    return state, orochi, cards


def test_orochi_creature_mode_exiles_a_creature_card_and_makes_a_spirit() -> None:
    # "• Exile target creature card from a graveyard. When you do, create a 1/1 colorless
    # Spirit creature token."
    state, orochi, cards = _orochi()
    after, events = orochi_attack_trigger(state, orochi, "creature", cards["Grizzly Bears"])
    assert [c.card.name for c in after.player("dp").exile] == ["Grizzly Bears"]
    spirit = after.battlefield[-1]
    assert (spirit.name, spirit.controller, spirit.token) == ("Spirit", "ap", True)
    assert after.stack == () and isinstance(events[-1], AbilityResolved)


def test_orochi_noncreature_mode_exiles_and_puts_a_counter() -> None:
    # "• Exile target noncreature card from a graveyard. When you do, put a +1/+1 counter
    # on target creature you control." In a graveyard Hidetsugu Consumes All has only its
    # front face (712.8a), so it is a noncreature card.
    state, orochi, cards = _orochi()
    after, _ = orochi_attack_trigger(state, orochi, "noncreature", cards[HIDETSUGU],
                                     counter_target=orochi)
    assert [c.card.front.name for c in after.player("dp").exile] == [HIDETSUGU]
    assert after.permanent(orochi).counter(PLUS_ONE) == 1 and after.permanent(orochi).power == 2


@pytest.mark.parametrize(("mode", "card", "path"), [
    ("creature", HIDETSUGU, "target"), ("noncreature", "Grizzly Bears", "target"),
    ("artifact", "Sol Ring", "mode"),
])
def test_orochi_targets_must_fit_the_mode(mode: str, card: str, path: str) -> None:
    state, orochi, cards = _orochi()
    with pytest.raises(InputError) as info:
        orochi_attack_trigger(state, orochi, mode, cards[card])
    assert info.value.path == path


def test_orochi_cannot_target_a_token_or_a_card_outside_a_graveyard() -> None:
    state, orochi, _ = _orochi()
    state, _ = create_token(state, get_card("Spirit"), "dp")
    state, _ = move_permanent(state, state.battlefield[-1].id, "graveyard")
    token_card = state.player("dp").graveyard[-1].id
    with pytest.raises(InputError):
        orochi_attack_trigger(state, orochi, "creature", token_card)
    state, in_library = add_card(state, "dp", "library", get_card("Grizzly Bears"))
    with pytest.raises(InputError):
        orochi_attack_trigger(state, orochi, "creature", in_library)
    with pytest.raises(InputError):
        orochi_attack_trigger(state, "o999", "creature", in_library)


def test_orochi_counter_on_an_opponents_creature_does_nothing_but_the_card_is_exiled() -> None:
    state, orochi, cards = _orochi()
    state, theirs, _ = enter_card(state, get_card("Grizzly Bears"), "dp")
    after, _ = orochi_attack_trigger(state, orochi, "noncreature", cards["Sol Ring"],
                                     counter_target=theirs)
    assert after.permanent(theirs).counters == ()
    assert [c.card.name for c in after.player("dp").exile] == ["Sol Ring"]
