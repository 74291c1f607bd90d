"""Cards and faces: Scryfall-shaped loading, layouts, mana values, the bundled seed cards."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trample.models.document.errors import InputError, TrampleError
from trample.models.game.cards import (
    Card,
    bundled_cards,
    card_from_json,
    get_card,
    load_card,
    load_cards,
    mana_value_of_cost,
)
from trample.models.game.state import enter_card, new_game

SEED_DIR = Path(__file__).resolve().parent / "data" / "seeds"

HIDETSUGU_TEXT = (
    "(As this Saga enters and after your draw step, add a lore counter.)\n"
    "I — Destroy each nonland permanent with mana value 1 or less.\n"
    "II — Exile all graveyards.\n"
    "III — Exile this Saga, then return it to the battlefield transformed under your control."
)
VESSEL_TEXT = (
    "Trample\n"
    "Whenever this creature deals damage, put a +1/+1 counter on it.\n"
    "Whenever this creature deals damage to a player, if it has dealt 10 or more damage to "
    "that player this turn, they lose the game."
)
TEACHINGS_TEXT = (
    "(As this Saga enters and after your draw step, add a lore counter.)\n"
    "I — Mill three cards. Create a 1/1 colorless Spirit creature token.\n"
    "II — Put a +1/+1 counter on target creature you control.\n"
    "III — Exile this Saga, then return it to the battlefield transformed under your control."
)
OROCHI_TEXT = (
    "Whenever this creature attacks, choose one —\n"
    "• Exile target creature card from a graveyard. When you do, create a 1/1 colorless "
    "Spirit creature token.\n"
    "• Exile target noncreature card from a graveyard. When you do, put a +1/+1 counter on "
    "target creature you control."
)


def _seed_title(name: str) -> str:
    """``name``, checked against the seed documents' first lines."""
    titles = [p.read_text(encoding="utf-8").splitlines()[0] for p in SEED_DIR.glob("*.txt")]
    assert len(titles) == 2 and name in titles
    return name


def test_seed_000_title_is_the_bundled_hidetsugu_card() -> None:
    # seed 000 ¶0 "Hidetsugu Consumes All // Vessel of the All-Consuming"
    card = get_card(_seed_title("Hidetsugu Consumes All // Vessel of the All-Consuming"))
    assert (card.layout, card.set, card.collector_number) == ("transform", "neo", "221")
    front, back = card.faces
    assert (front.name, front.mana_cost, front.type_line) == (
        "Hidetsugu Consumes All", "{1}{B}{R}", "Enchantment — Saga")
    assert front.oracle_text == HIDETSUGU_TEXT
    assert front.chapters == (1, 2, 3) and front.final_chapter == 3
    assert (back.name, back.mana_cost, back.type_line) == (
        "Vessel of the All-Consuming", "", "Enchantment Creature — Ogre Shaman")
    assert (back.power, back.toughness, back.keywords) == ("3", "3", ("Trample",))
    assert back.oracle_text == VESSEL_TEXT
    assert card.mana_value == 3 and card.cmc == 3.0


def test_seed_001_title_is_the_bundled_teachings_card() -> None:
    # seed 001 ¶0 "Teachings of the Kirin // Kirin-Touched Orochi"
    card = get_card(_seed_title("Teachings of the Kirin // Kirin-Touched Orochi"))
    assert (card.layout, card.set, card.collector_number) == ("transform", "neo", "212")
    front, back = card.faces
    assert (front.name, front.mana_cost, front.type_line) == (
        "Teachings of the Kirin", "{1}{G}", "Enchantment — Saga")
    assert front.oracle_text == TEACHINGS_TEXT
    assert (back.name, back.type_line, back.power, back.toughness) == (
        "Kirin-Touched Orochi", "Enchantment Creature — Snake Monk", "1", "1")
    assert back.oracle_text == OROCHI_TEXT
    assert card.mana_value == 2


def test_bundled_cards_cover_every_layout_the_model_needs() -> None:
    layouts = {card.layout for card in bundled_cards().values()}
    assert {"transform", "modal_dfc", "meld", "token", "double_faced_token",
            "normal"} <= layouts
    fixture = get_card("Test Fixture Shrine // Test Fixture Insight")
    assert "TEST FIXTURE" in fixture.front.oracle_text
    assert fixture.back is not None and fixture.back.is_instant_or_sorcery


def test_get_card_by_front_face_name_and_unknown_card() -> None:
    assert get_card("Teachings of the Kirin").name == \
        "Teachings of the Kirin // Kirin-Touched Orochi"
    with pytest.raises(InputError, match="unknown card"):
        get_card("Black Lotus")


@pytest.mark.parametrize(("cost", "value"), [
    ("{1}{B}{R}", 3), ("{G}", 1), ("", 0), ("{0}", 0), ("{X}{R}", 1), ("{R/G}{R/G}{R/G}", 3),
    ("{2/W}", 2), ("{G/W/P}", 1), ("{10}{G}{G}", 12), ("{C}", 1),
])
def test_mana_value_of_cost(cost: str, value: int) -> None:
    assert mana_value_of_cost(cost) == value


def test_back_face_mana_value_is_the_front_face_mana_value_on_the_battlefield() -> None:
    # RULES.md: "With the back face up, its mana value is computed from the front face's".
    state = new_game()
    state, vessel, _ = enter_card(state, get_card("Hidetsugu Consumes All"), "ap", face="back")
    state, orochi, _ = enter_card(state, get_card("Teachings of the Kirin"), "ap", face="back")
    state, valley, _ = enter_card(state, get_card("Kazandu Mammoth"), "ap", face="back")
    assert state.permanent(vessel).mana_value == 3
    assert state.permanent(orochi).mana_value == 2
    # A modal double-faced card uses the face that is up: Kazandu Valley has no mana cost.
    assert state.permanent(valley).mana_value == 0


def test_load_one_card_object_a_list_and_a_bulk_file(tmp_path: Path) -> None:
    obj = {"object": "card", "name": "Grizzly Bears", "layout": "normal", "cmc": 2.0,
           "mana_cost": "{1}{G}", "type_line": "Creature — Bear", "oracle_text": "",
           "power": "2", "toughness": "2", "keywords": [], "colors": ["G"],
           "prices": {"usd": "0.10"}}
    one = load_card(obj)
    assert one == get_card("Grizzly Bears")
    many = load_cards([obj, get_card("Forest").to_json()])
    assert [c.name for c in many] == ["Grizzly Bears", "Forest"]
    bulk = tmp_path / "bulk.json"
    bulk.write_text(json.dumps([c.to_json() for c in bundled_cards().values()]),
                    encoding="utf-8")
    loaded = load_cards(bulk)
    assert loaded == list(bundled_cards().values())
    assert load_cards(str(bulk)) == loaded


def test_scryfall_faces_without_keywords_get_the_keywords_their_text_names() -> None:
    # Scryfall lists keywords on the card, not on its faces.
    raw = {"object": "card", "name": "Hidetsugu Consumes All // Vessel of the All-Consuming",
           "layout": "transform", "cmc": 3.0, "keywords": ["Trample"],
           "card_faces": [
               {"object": "card_face", "name": "Hidetsugu Consumes All",
                "mana_cost": "{1}{B}{R}", "type_line": "Enchantment — Saga",
                "oracle_text": HIDETSUGU_TEXT},
               {"object": "card_face", "name": "Vessel of the All-Consuming", "mana_cost": "",
                "type_line": "Enchantment Creature — Ogre Shaman", "oracle_text": VESSEL_TEXT,
                "power": "3", "toughness": "3", "color_indicator": ["B", "R"]}]}
    card = card_from_json(raw)
    assert card.front.keywords == ()
    assert card.faces[1].keywords == ("Trample",)
    assert card.is_transforming and card.faces[1].is_creature


def test_card_json_round_trip_for_every_bundled_card() -> None:
    for card in bundled_cards().values():
        assert Card.from_json(card.to_json()) == card


def test_meld_and_single_faced_cards_are_not_transforming() -> None:
    assert not get_card("Gisela, the Broken Blade").is_transforming
    assert not get_card("Grizzly Bears").is_transforming
    assert not get_card("Spirit").is_transforming
    assert get_card("Incubator // Phyrexian").is_transforming
    assert get_card("Sink into Stupor // Soporific Springs").is_transforming


@pytest.mark.parametrize(("raw", "path"), [
    ({"layout": "normal"}, "name"),
    ({"name": 3}, "name"),
    ({"name": "X", "card_faces": []}, "card_faces"),
    ({"name": "X", "card_faces": [{"name": "A"}, {"type_line": "Land"}]}, "card_faces[1].name"),
    ({"name": "X", "keywords": "Flying"}, "keywords"),
    ({"name": "X", "cmc": "three"}, "cmc"),
    ({"name": "X", "power": 2}, "power"),
])
def test_bad_card_objects_name_the_field(raw: dict[str, object], path: str) -> None:
    with pytest.raises(InputError) as info:
        card_from_json(raw)
    assert info.value.path == path
    assert isinstance(info.value, TrampleError)


def test_bad_list_entry_names_its_index() -> None:
    with pytest.raises(InputError) as info:
        load_cards([get_card("Forest").to_json(), {"name": "Y", "type_line": 5}])
    assert info.value.path == "[1].type_line"


def test_unreadable_bulk_file(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("[{", encoding="utf-8")
    with pytest.raises(InputError, match="cannot read cards"):
        load_cards(bad)
