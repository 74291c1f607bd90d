"""Transform and convert (701.27, 701.28, 712) and turning face up or down.

Paragraphs 1-7 of both seed documents are the same text; each test runs with both seed
cards (``seed`` parameter 000 = Hidetsugu Consumes All, 001 = Teachings of the Kirin).
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from trample.models.document.errors import InputError
from trample.models.game.cards import Card, Face, get_card, load_card
from trample.models.game.events import (
    AbilityResolved,
    Event,
    Transformed,
    TurnedFaceDown,
    TurnedFaceUp,
    ZoneChange,
    transforms,
    transforms_into,
    turned_face_down,
    turned_face_up,
)
from trample.models.game.seeds import activate_transform_ability, resolve_trigger
from trample.models.game.state import (
    PLUS_ONE,
    FaceSide,
    GameState,
    add_card,
    add_counters,
    create_token,
    enter_card,
    move_permanent,
    new_game,
    put_onto_battlefield,
    replace_permanent,
)
from trample.models.game.transform import (
    TransformStamp,
    can_transform,
    convert,
    stamp,
    transform,
    turn_face_down,
    turn_face_up,
    why_not_transform,
)

SEEDS = {
    "000": ("Hidetsugu Consumes All", "Vessel of the All-Consuming"),
    "001": ("Teachings of the Kirin", "Kirin-Touched Orochi"),
}


@pytest.fixture(params=sorted(SEEDS))
def seed(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _seed_permanent(seed: str, face: FaceSide = "front") -> tuple[GameState, str]:
    state = new_game()
    state, oid, _ = enter_card(state, get_card(SEEDS[seed][0]), "ap", face=face)
    return state, oid


def _permanent(name: str, face: FaceSide = "front") -> tuple[GameState, str]:
    state = new_game()
    state, oid, _ = enter_card(state, get_card(name), "ap", face=face)
    return state, oid


# -- seed ¶1 -------------------------------------------------------------------------------


def test_transform_turns_it_over_and_keeps_the_object(seed: str) -> None:
    # seed 000 ¶1 / seed 001 ¶1 "To transform a permanent, turn it over so that its other
    # face is up. Only transforming tokens and permanents represented by transforming
    # double-faced cards can transform."
    front, back = SEEDS[seed]
    state, oid = _seed_permanent(seed)
    assert state.permanent(oid).name == front
    after, events = transform(state, oid)
    perm = after.permanent(oid)
    assert (perm.face, perm.name, perm.transformations) == ("back", back, 1)
    assert [type(e) for e in events] == [Transformed]
    assert events[0] == Transformed(oid, front, back, get_card(front).faces[1])
    assert len(after.battlefield) == len(state.battlefield)
    again, events = transform(after, oid)
    assert (again.permanent(oid).face, again.permanent(oid).name) == ("front", front)
    assert isinstance(events[0], Transformed) and events[0].to_face == front


def test_a_transforming_token_transforms() -> None:
    # seed 000 ¶1 / seed 001 ¶1 "Only transforming tokens and permanents ... can transform."
    state = new_game()
    state, events = create_token(state, get_card("Incubator // Phyrexian"), "ap")
    token = state.battlefield[-1].id
    after, events = transform(state, token)
    assert after.permanent(token).name == "Phyrexian"
    assert after.permanent(token).token and after.permanent(token).is_creature
    assert [type(e) for e in events] == [Transformed]


def test_transforming_keeps_counters_damage_and_status(seed: str) -> None:
    # seed ¶1 "turn it over": the same object; RULES.md "Transforming keeps the same object:
    # counters, marked damage, attachments and effects stay."
    state, oid = _seed_permanent(seed, "back")
    state, _ = add_counters(state, oid, PLUS_ONE, 2)
    state = replace_permanent(state, replace(state.permanent(oid), damage=1, tapped=True,
                                             summoning_sick=True))
    once, _ = transform(state, oid)
    perm = once.permanent(oid)
    assert (perm.id, perm.counter(PLUS_ONE), perm.damage, perm.tapped, perm.summoning_sick) \
        == (oid, 2, 1, True, True)
    twice, _ = transform(once, oid)
    assert replace(twice.permanent(oid), transformations=0) == state.permanent(oid)


# -- seed ¶2 -------------------------------------------------------------------------------


def test_transforming_is_not_turning_face_up_or_down(seed: str) -> None:
    # seed 000 ¶2 / seed 001 ¶2 "Although transforming a permanent uses the same physical
    # action as turning a permanent face up or face down, they are different game actions."
    state, oid = _seed_permanent(seed)
    after, events = transform(state, oid)
    assert not any(isinstance(e, (TurnedFaceUp, TurnedFaceDown)) for e in events)
    assert not any(turned_face_down(e, oid) or turned_face_up(e, oid) for e in events)
    assert any(transforms(e, oid) for e in events)
    assert not after.permanent(oid).face_down


def test_turning_face_down_and_up_never_triggers_transform_abilities() -> None:
    # seed 000 ¶2 / seed 001 ¶2 "Abilities that trigger when a permanent is turned face
    # down won't trigger when that permanent transforms, and so on."
    state, bears = _permanent("Grizzly Bears")
    down, events = turn_face_down(state, bears)
    assert events == [TurnedFaceDown(bears)]
    assert down.permanent(bears).face_down and down.permanent(bears).power == 2
    assert down.permanent(bears).name == ""
    assert not any(transforms(e, bears) or transforms_into(e, lambda f: True) for e in events)
    up, events = turn_face_up(down, bears)
    assert events == [TurnedFaceUp(bears, "Grizzly Bears")]
    assert not any(transforms(e, bears) for e in events)
    assert up.permanent(bears).transformations == 0


def test_a_face_down_double_faced_permanent_turned_up_is_not_transformed(seed: str) -> None:
    # seed ¶2: a manifested double-faced card turned face up shows its front face; that is
    # turning face up, not transforming.
    state = new_game()
    state, oid, _ = enter_card(state, get_card(SEEDS[seed][0]), "ap", face_down=True)
    up, events = turn_face_up(state, oid)
    assert [type(e) for e in events] == [TurnedFaceUp]
    assert not any(transforms_into(e, lambda f: True) for e in events)
    assert up.permanent(oid).face == "front" and up.permanent(oid).transformations == 0


def test_a_double_faced_permanent_cannot_be_turned_face_down(seed: str) -> None:
    # seed ¶2 and 712: turning face down is its own action, and double-faced permanents
    # can't be turned face down, so the instruction does nothing.
    state, oid = _seed_permanent(seed, "back")
    after, events = turn_face_down(state, oid)
    assert (after, events) == (state, [])


# -- seed ¶3 -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", ["Grizzly Bears", "Gisela, the Broken Blade", "Forest"])
def test_transforming_a_single_faced_or_meld_permanent_does_nothing(name: str) -> None:
    # seed 000 ¶3 / seed 001 ¶3 "If a spell or ability instructs a player to transform a
    # permanent that isn't represented by a transforming token or a transforming
    # double-faced card, nothing happens."
    state, oid = _permanent(name)
    assert transform(state, oid) == (state, [])
    assert convert(state, oid) == (state, [])
    reason = why_not_transform(state, oid)
    assert reason is not None and reason.startswith("701.27c")


def test_transforming_a_single_faced_token_does_nothing() -> None:
    # seed 000 ¶3 / seed 001 ¶3 "... isn't represented by a transforming token ..."
    state = new_game()
    state, _ = create_token(state, get_card("Spirit"), "ap")
    spirit = state.battlefield[-1].id
    assert transform(state, spirit) == (state, [])
    assert not can_transform(state, spirit)


def test_a_face_down_double_faced_permanent_cannot_transform(seed: str) -> None:
    # seed ¶3 and RULES.md: "A face-down double-faced permanent cannot transform."
    state = new_game()
    state, oid, _ = enter_card(state, get_card(SEEDS[seed][0]), "ap", face_down=True)
    assert transform(state, oid) == (state, [])
    assert why_not_transform(state, oid) == "face down: a face-down permanent can't transform"


# -- seed ¶4 -------------------------------------------------------------------------------


def test_transforming_into_an_instant_face_does_nothing() -> None:
    # seed 000 ¶4 / seed 001 ¶4 "If a spell or ability instructs a player to transform a
    # permanent, and the face that permanent would transform into is represented by an
    # instant or sorcery card face ... nothing happens."
    state, shrine = _permanent("Test Fixture Shrine // Test Fixture Insight")
    assert transform(state, shrine) == (state, [])
    reason = why_not_transform(state, shrine)
    assert reason is not None and reason.startswith("701.27d")


def test_a_transforming_token_created_with_an_instant_face_does_not_transform() -> None:
    # seed 000 ¶4 / seed 001 ¶4 "... or is a transforming token that was created with an
    # instant or sorcery face, nothing happens."
    state = new_game()
    state, _ = create_token(state, get_card("Test Fixture Shrine // Test Fixture Insight"), "ap")
    token = state.battlefield[-1]
    assert token.token and token.card.is_transforming
    assert transform(state, token.id) == (state, [])


def test_a_modal_dfc_transforms_but_never_into_its_instant_face() -> None:
    # seed ¶4 with RULES.md: since September 2025 modal double-faced cards can transform.
    state, springs = _permanent("Sink into Stupor // Soporific Springs", face="back")
    assert transform(state, springs) == (state, [])
    state, mammoth = _permanent("Kazandu Mammoth // Kazandu Valley")
    after, events = transform(state, mammoth)
    assert after.permanent(mammoth).name == "Kazandu Valley"
    assert [type(e) for e in events] == [Transformed]


def test_a_card_with_an_instant_back_face_is_not_returned_transformed() -> None:
    # seed ¶4 and 712: put onto the battlefield transformed, such a card stays where it is.
    state = new_game()
    state, card = add_card(state, "ap", "graveyard", get_card("Test Fixture Shrine"))
    assert put_onto_battlefield(state, card, transformed=True) == (state, [])
    state, bears = add_card(state, "ap", "graveyard", get_card("Grizzly Bears"))
    assert put_onto_battlefield(state, bears, transformed=True) == (state, [])


# -- seed ¶5 -------------------------------------------------------------------------------


def test_transforms_into_holds_right_after_a_transform(seed: str) -> None:
    # seed 000 ¶5 / seed 001 ¶5 "Some triggered abilities trigger when an object
    # "transforms into" an object with a specified characteristic. Such an ability
    # triggers if the object either transforms or converts ... and has the specified
    # characteristic immediately after it does so."
    front, back = SEEDS[seed]
    state, oid = _seed_permanent(seed)
    after, events = transform(state, oid)
    assert transforms_into(events[0], lambda f: f.is_creature)
    assert transforms_into(events[0], lambda f: f.name == back)
    assert not transforms_into(events[0], lambda f: f.is_saga)
    _, events = transform(after, oid)
    assert not transforms_into(events[0], lambda f: f.is_creature)
    assert transforms_into(events[0], lambda f: f.name == front and f.is_saga)


def test_transforms_into_also_triggers_on_convert(seed: str) -> None:
    # seed 000 ¶5 / seed 001 ¶5 "... triggers if the object either transforms or converts"
    state, oid = _seed_permanent(seed)
    after, events = convert(state, oid)
    assert len(events) == 1
    event = events[0]
    assert isinstance(event, Transformed) and event.converted
    assert transforms_into(event, lambda f: f.is_creature)
    assert after.permanent(oid).transformations == 1


def test_transforms_into_never_matches_other_events(seed: str) -> None:
    # seed ¶5: only a transform or a convert; turning face up into a creature is neither,
    # and neither is returning to the battlefield transformed (a zone change).
    state = new_game()
    state, oid, _ = enter_card(state, get_card("Grizzly Bears"), "ap")
    state, down = turn_face_down(state, oid)
    _, up = turn_face_up(state, oid)
    state, card = add_card(state, "ap", "exile", get_card(SEEDS[seed][0]))
    _, returned = put_onto_battlefield(state, card, transformed=True)
    assert isinstance(returned[0], ZoneChange) and returned[0].transformed
    events: list[Event] = [*down, *up, *returned]
    assert not any(transforms_into(e, lambda f: f.is_creature) for e in events)


# -- seed ¶6 -------------------------------------------------------------------------------


def test_an_ability_of_the_permanent_transforms_it_only_if_not_transformed_since(
        seed: str) -> None:
    # seed 000 ¶6 / seed 001 ¶6 "If an activated or triggered ability of a permanent that
    # isn't a delayed triggered ability of that permanent tries to transform it, the
    # permanent does so only if it hasn't transformed or converted since the ability was
    # put onto the stack."
    state, oid = _seed_permanent(seed)
    first, second = stamp(state, oid), stamp(state, oid)  # two abilities put on the stack
    once, events = transform(state, oid, since=first)
    assert len(events) == 1 and once.permanent(oid).face == "back"
    # "... if the permanent has already transformed or converted, an instruction to do
    # either is ignored."
    assert transform(once, oid, since=second) == (once, [])
    assert convert(once, oid, since=second) == (once, [])
    reason = why_not_transform(once, oid, since=second)
    assert reason is not None and reason.startswith("701.27f")
    # A spell's instruction (no stamp) is not limited by this rule.
    twice, events = transform(once, oid)
    assert twice.permanent(oid).face == "front" and len(events) == 1


def test_transform_twice_in_response_through_the_stack() -> None:
    # seed 000 ¶6 / seed 001 ¶6: two activations of Incubator's "{2}: Transform this
    # artifact." in response to each other: the first transforms it, the second is ignored.
    state = new_game()
    state, _ = create_token(state, get_card("Incubator // Phyrexian"), "ap")
    token = state.battlefield[-1].id
    state, _ = activate_transform_ability(state, token)
    state, _ = activate_transform_ability(state, token)
    older, newer = state.stack
    assert older.stamp == newer.stamp == 0
    state, events = resolve_trigger(state, newer.id)
    assert state.permanent(token).name == "Phyrexian"
    assert [type(e) for e in events] == [Transformed, AbilityResolved]
    after, events = resolve_trigger(state, older.id)
    assert after.permanent(token) == state.permanent(token)
    assert events == [AbilityResolved(older.id, "transform_self")]
    assert after.stack == ()


def test_a_delayed_trigger_counts_from_when_it_was_created(seed: str) -> None:
    # seed 000 ¶6 / seed 001 ¶6 "If a delayed triggered ability of a permanent tries to
    # transform that permanent, the permanent does so only if it hasn't transformed or
    # converted since that delayed triggered ability was created."
    state, oid = _seed_permanent(seed)
    state, _ = transform(state, oid)
    created = stamp(state, oid)  # the delayed trigger is created after that transform
    after, events = transform(state, oid, since=created)
    assert len(events) == 1 and after.permanent(oid).face == "front"
    assert transform(after, oid, since=created) == (after, [])


def test_a_stamp_names_its_own_object() -> None:
    state, oid = _seed_permanent("000")
    with pytest.raises(InputError, match="stamp"):
        transform(state, oid, since=TransformStamp("o999", 0))


def test_a_returned_permanent_is_a_new_object_for_the_stamp_rule(seed: str) -> None:
    # seed ¶6 with 400.7: after exile and return it is a new object, so an ability of the
    # old object has nothing to transform.
    state, oid = _seed_permanent(seed)
    old = stamp(state, oid)
    state, events = move_permanent(state, oid, "exile")
    exiled = events[0]
    assert isinstance(exiled, ZoneChange) and exiled.new_object is not None
    state, events = put_onto_battlefield(state, exiled.new_object, transformed=True)
    new = state.battlefield[-1]
    assert new.id != oid and new.is_transformed_permanent and new.transformations == 0
    assert state.find_permanent(oid) is None
    with pytest.raises(InputError):
        transform(state, old.object, since=old)


# -- seed ¶7 -------------------------------------------------------------------------------


def test_a_transformed_permanent_is_back_face_up(seed: str) -> None:
    # seed 000 ¶7 / seed 001 ¶7 "Some spells and abilities refer to a "transformed
    # permanent." This phrase refers to a permanent on the battlefield with its back face
    # up that's also a transforming double-faced card or a transforming token. A permanent
    # with its front face up is never considered a transformed permanent, even if it had
    # its back face up previously."
    state, oid = _seed_permanent(seed)
    assert not state.permanent(oid).is_transformed_permanent
    state, _ = transform(state, oid)
    assert state.permanent(oid).is_transformed_permanent
    state, _ = transform(state, oid)
    perm = state.permanent(oid)
    assert perm.transformations == 2 and not perm.is_transformed_permanent


def test_transformed_permanent_tokens_and_modal_cards() -> None:
    # seed 000 ¶7 / seed 001 ¶7: a transforming token counts; a modal double-faced card
    # played back face up is not a transforming double-faced card; a face-down one is not.
    state = new_game()
    state, _ = create_token(state, get_card("Incubator // Phyrexian"), "ap")
    token = state.battlefield[-1].id
    state, _ = transform(state, token)
    assert state.permanent(token).is_transformed_permanent
    state, valley, _ = enter_card(state, get_card("Kazandu Mammoth"), "ap", face="back")
    assert not state.permanent(valley).is_transformed_permanent
    state, down, _ = enter_card(state, get_card("Hidetsugu Consumes All"), "ap",
                                face="back", face_down=True)
    assert not state.permanent(down).is_transformed_permanent


def test_custom_transforming_card_loaded_from_scryfall_json() -> None:
    # seed ¶1: any transforming double-faced card loaded from Scryfall data transforms.
    card: Card = load_card({
        "object": "card", "name": "Delver of Secrets // Insectile Aberration",
        "layout": "transform", "cmc": 1.0, "keywords": ["Flying", "Transform"],
        "card_faces": [
            {"name": "Delver of Secrets", "mana_cost": "{U}", "type_line": "Creature — Human "
             "Wizard", "oracle_text": "At the beginning of your upkeep, look at the top card "
             "of your library. You may reveal that card. If an instant or sorcery card is "
             "revealed this way, transform this creature.", "power": "1", "toughness": "1"},
            {"name": "Insectile Aberration", "mana_cost": "", "type_line": "Creature — Human "
             "Insect", "oracle_text": "Flying", "power": "3", "toughness": "2"}]})
    state = new_game()
    state, oid, _ = enter_card(state, card, "ap")
    after, events = transform(state, oid)
    face: Face = after.permanent(oid).characteristics
    assert (face.name, after.permanent(oid).power, after.permanent(oid).keywords) == (
        "Insectile Aberration", 3, ("Flying",))
    assert len(events) == 1
