"""The JSON game state and its actions: round trips, every action, field paths in errors."""

from __future__ import annotations

import copy
import json
from dataclasses import replace
from typing import Any

import pytest

from trample.models.document.errors import InputError
from trample.models.game.cards import get_card, load_card
from trample.models.game.state import (
    PLUS_ONE,
    CombatDeclaration,
    GameState,
    add_card,
    create_token,
    enter_card,
    grant_keyword,
    move_permanent,
    new_game,
    replace_permanent,
)
from trample.models.game.state_json import (
    ACTIONS,
    apply,
    combat_document_json,
    state_from_json,
    state_to_json,
)
from trample.solver.interface.game_loop import apply as apply_judged

CUSTOM = load_card({"name": "Test Fixture Custom Ox", "layout": "normal", "mana_cost": "{2}",
                    "type_line": "Creature — Ox", "power": "2", "toughness": "4",
                    "keywords": ["Vigilance"], "oracle_text": "Vigilance"})


def rich_state() -> tuple[GameState, dict[str, str]]:
    """A state with something in every field."""
    ids: dict[str, str] = {}
    state = new_game(("ap", "dp"))
    for name in ["Grizzly Bears", "Sol Ring", "Forest", "Llanowar Elves"]:
        state, ids[f"lib {name}"] = add_card(state, "ap", "library", get_card(name))
    state, ids["gy creature"] = add_card(state, "dp", "graveyard", get_card("Grizzly Bears"))
    state, ids["gy saga"] = add_card(state, "dp", "graveyard", get_card("Hidetsugu Consumes All"))
    state, ids["hand"] = add_card(state, "ap", "hand", get_card("Teachings of the Kirin"))
    state, ids["hidetsugu"], _ = enter_card(state, get_card("Hidetsugu Consumes All"), "ap")
    state, ids["teachings"], _ = enter_card(state, get_card("Teachings of the Kirin"), "ap")
    state, ids["vessel"], _ = enter_card(state, get_card("Hidetsugu Consumes All"), "ap",
                                         face="back")
    state, ids["orochi"], _ = enter_card(state, get_card("Teachings of the Kirin"), "ap",
                                         face="back")
    state, ids["ox"], _ = enter_card(state, CUSTOM, "dp")
    state, ids["bears"], _ = enter_card(state, get_card("Grizzly Bears"), "dp")
    state, ids["jace"], _ = enter_card(state, get_card("Jace Beleren"), "dp")
    state, ids["manifest"], _ = enter_card(state, get_card("Kazandu Mammoth"), "dp",
                                           face_down=True)
    state, _ = create_token(state, get_card("Incubator // Phyrexian"), "ap")
    ids["incubator"] = state.battlefield[-1].id
    state, _ = create_token(state, get_card("Spirit"), "dp")
    state, _ = move_permanent(state, state.battlefield[-1].id, "exile")
    state, ids["master"], _ = enter_card(state, get_card("Master of the Hunt"), "dp")
    state = replace_permanent(state, replace(state.permanent(ids["bears"]), damage=1,
                                             deathtouch_damaged=True, tapped=True))
    state = replace_permanent(state, replace(state.permanent(ids["vessel"]),
                                             counters=((PLUS_ONE, 2),), transformations=3))
    state, _ = grant_keyword(state, ids["vessel"], "Double strike")
    state = replace(state, combat=CombatDeclaration(
        attacks=((ids["vessel"], ids["jace"]), (ids["orochi"], "dp")),
        blocks=((ids["ox"], (ids["vessel"], ids["orochi"])),),
        defenders=((ids["jace"], "planeswalker", "dp"),)),
        damage_this_turn=((ids["vessel"], "dp", 4),), turn=3)
    return state, ids


def test_round_trip_is_exact() -> None:
    state, _ = rich_state()
    doc = state_to_json(state)
    text = json.dumps(doc)
    again = state_from_json(json.loads(text))
    assert again == state
    assert state_to_json(again) == doc
    assert [c["name"] for c in doc["cards"]] == ["Test Fixture Custom Ox"]
    assert doc["stack"] and doc["combat"]["blocks"]
    assert {"id": doc["players"][1]["exile"][0]["id"], "card": "Spirit", "token": True} in \
        doc["players"][1]["exile"]


def test_defaults_are_filled_in() -> None:
    doc = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": 7}],
           "battlefield": [{"id": "o1", "card": "Grizzly Bears", "owner": "dp"}],
           "next_id": 2}
    state = state_from_json(doc)
    perm = state.permanent("o1")
    assert (perm.controller, perm.face, perm.summoning_sick, perm.counters) == (
        "dp", "front", False, ())
    assert state.player("dp").life == 7 and state.player("ap").life == 20


def test_apply_does_not_change_its_input_and_returns_json() -> None:
    state, ids = rich_state()
    doc = state_to_json(state)
    before = copy.deepcopy(doc)
    out = apply(doc, {"action": "transform", "object": ids["vessel"]})
    assert doc == before
    assert out["events"] == [{"event": "Transformed", "object": ids["vessel"],
                              "from_face": "Vessel of the All-Consuming",
                              "to_face": "Hidetsugu Consumes All",
                              "into": "Hidetsugu Consumes All", "converted": False}]
    assert state_from_json(out["state"]).permanent(ids["vessel"]).face == "front"
    json.dumps(out)


def _events(out: dict[str, Any]) -> list[str]:
    return [e["event"] for e in out["events"]]


def test_every_action() -> None:
    state, ids = rich_state()
    doc = state_to_json(state)
    hid_trigger = next(t.id for t in state.stack if t.source == ids["hidetsugu"])
    cases: list[tuple[dict[str, Any], list[str]]] = [
        ({"action": "transform", "object": ids["orochi"], "since": 0}, ["Transformed"]),
        ({"action": "convert", "object": ids["orochi"]}, ["Transformed"]),
        ({"action": "turn_face_up", "object": ids["manifest"]}, ["TurnedFaceUp"]),
        ({"action": "turn_face_down", "object": ids["bears"]}, ["TurnedFaceDown"]),
        ({"action": "mill", "player": "ap", "count": 2}, ["ZoneChange", "ZoneChange", "Milled"]),
        ({"action": "mill", "player": "ap", "count": 4, "as": "choice", "into": "exile"},
         ["ZoneChange"] * 4 + ["Milled"]),
        ({"action": "create_token", "card": "Spirit", "controller": "dp"}, ["TokenCreated"]),
        ({"action": "put_onto_battlefield", "object": ids["hand"], "controller": "ap"},
         ["ZoneChange", "CounterAdded", "AbilityTriggered"]),
        ({"action": "put_onto_battlefield", "object": ids["gy saga"], "transformed": True},
         ["ZoneChange"]),
        ({"action": "add_counters", "object": ids["bears"], "kind": "+1/+1", "amount": 2},
         ["CounterAdded"]),
        ({"action": "add_lore_counter", "object": ids["teachings"]},
         ["CounterAdded", "AbilityTriggered"]),
        ({"action": "begin_precombat_main"}, ["CounterAdded", "AbilityTriggered"] * 2),
        ({"action": "resolve_trigger", "trigger": hid_trigger},
         ["ZoneChange", "ZoneChange", "AbilityResolved"]),
        ({"action": "resolve_chapter", "object": ids["hidetsugu"], "chapter": 1},
         ["ZoneChange", "ZoneChange", "AbilityResolved"]),
        ({"action": "activate_transform", "object": ids["incubator"]}, ["AbilityTriggered"]),
        ({"action": "activate_master_of_the_hunt", "object": ids["master"]},
         ["AbilityTriggered"]),
        ({"action": "orochi_attack_trigger", "object": ids["orochi"], "mode": "creature",
          "target": ids["gy creature"]}, ["AbilityTriggered", "ZoneChange", "TokenCreated",
                                          "AbilityResolved"]),
        ({"action": "declare_combat", "attacks": {ids["orochi"]: "dp"},
          "blocks": {ids["ox"]: [ids["orochi"]]}}, ["AbilityTriggered"]),
        # The first-strike step (the Vessel has double strike): lethal to the Ox, the rest
        # tramples over to Jace (702.19b).
        ({"action": "deal_combat_damage",
          "assignment": [{"source": ids["vessel"], "target": ids["ox"], "amount": 4},
                         {"source": ids["vessel"], "target": ids["jace"], "amount": 1}]},
         ["DamageDealt", "DamageDealt", "CounterRemoved", "AbilityTriggered"]),
        ({"action": "combat_damage_step", "step": "regular",
          "assignment": [{"source": ids["vessel"], "target": ids["ox"], "amount": 5},
                         {"source": ids["orochi"], "target": ids["ox"], "amount": 1},
                         {"source": ids["ox"], "target": ids["orochi"], "amount": 2}]},
         # The Ox, Orochi, the deathtouch-damaged bears, the exiled Spirit token (704.5d).
         ["DamageDealt", "DamageDealt", "DamageDealt", "AbilityTriggered", "ZoneChange",
          "ZoneChange", "ZoneChange", "ZoneChange", "CounterAdded", "AbilityResolved"]),
        # The exiled Spirit token ceases to exist (704.5d); the bears had deathtouch damage.
        ({"action": "state_based_actions"}, ["ZoneChange", "ZoneChange"]),
        ({"action": "destroy", "object": ids["ox"]}, ["ZoneChange"]),
        ({"action": "grant_keyword", "object": ids["ox"], "keyword": "Flying"},
         ["KeywordGranted"]),
        ({"action": "end_combat"}, []),
        ({"action": "begin_turn", "player": "dp"}, []),
        ({"action": "cleanup"}, []),
    ]
    # combat_damage needs a way to choose splits (the solver): tests/test_game_solver.py.
    assert {c[0]["action"] for c in cases} == set(ACTIONS) - {"combat_damage"}
    # No combat damage while the chapter abilities wait (500.2): those steps start from the
    # same state with its stack resolved away.
    resolved = {**doc, "stack": []}
    for action, kinds in cases:
        # The solver's validator judges the combat damage splits (trample apply does).
        damage = action["action"] in {"deal_combat_damage", "combat_damage_step"}
        out = apply_judged(resolved if damage else doc, action)
        assert _events(out) == kinds, action
        assert state_to_json(state_from_json(out["state"])) == out["state"]


def test_json_transform_since_stamp() -> None:
    # seed ¶6 through JSON: "since" is the transform count when the ability went on the stack.
    state, ids = rich_state()
    doc = state_to_json(state)
    vessel = ids["vessel"]
    assert apply(doc, {"action": "transform", "object": vessel, "since": 2})["events"] == []
    out = apply(doc, {"action": "transform", "object": vessel, "since": 3})
    assert _events(out) == ["Transformed"]


def test_combat_document_json() -> None:
    state, ids = rich_state()
    doc = combat_document_json(state_to_json(state))
    assert doc["step"] == "first_strike"  # the Vessel has double strike
    vessel = next(c for c in doc["creatures"] if c["id"] == ids["vessel"])
    assert (vessel["power"], vessel["attacking"], vessel["keywords"]) == (
        5, ids["jace"], ["double strike", "trample"])
    assert doc["planeswalkers"] == [{"id": ids["jace"], "controller": "dp", "loyalty": 3,
                                     "in_combat": True}]


def _bad(mutate: Any) -> dict[str, Any]:
    state, _ = rich_state()
    doc = state_to_json(state)
    mutate(doc)
    return doc


@pytest.mark.parametrize(("mutate", "path"), [
    (lambda d: d.pop("players"), "state.players"),
    (lambda d: d.update(players=[]), "state.players"),
    (lambda d: d.update(format="other"), "state.format"),
    (lambda d: d.update(extra=1), "state.extra"),
    (lambda d: d.update(active_player="zz"), "state.active_player"),
    (lambda d: d["players"][0].update(id="o77"), "state.players[0].id"),
    (lambda d: d["players"][0].update(life="20"), "state.players[0].life"),
    (lambda d: d["players"][0]["library"][0].update(card="Black Lotus"),
     "state.players[0].library[0].card"),
    (lambda d: d["players"][0]["library"][1].update(id=d["players"][0]["library"][0]["id"]),
     "state.players[0].library[1].id"),
    (lambda d: d["battlefield"][0].update(face="side"), "state.battlefield[0].face"),
    (lambda d: d["battlefield"][-1].update(card="Grizzly Bears", face="back"),
     "state.battlefield[-1].face"),
    (lambda d: d["battlefield"][0].update(counters={"lore": -1}),
     "state.battlefield[0].counters.lore"),
    (lambda d: d["battlefield"][0].update(owner="nobody"), "state.battlefield[0].owner"),
    (lambda d: d["battlefield"][0].update(damage=True), "state.battlefield[0].damage"),
    (lambda d: d["battlefield"][0].update(granted="Flying"), "state.battlefield[0].granted"),
    (lambda d: d["stack"][0].update(controller=5), "state.stack[0].controller"),
    (lambda d: d.update(next_id=3), "state.next_id"),
    (lambda d: d["damage_this_turn"][0].update(amount=0), "state.damage_this_turn[0].amount"),
    (lambda d: d["combat"]["defenders"][0].update(kind="creature"),
     "state.combat.defenders[0].kind"),
    (lambda d: d["cards"][0].update(power=2), "state.cards[0].power"),
])
def test_bad_states_name_the_field(mutate: Any, path: str) -> None:
    doc = _bad(mutate)
    with pytest.raises(InputError) as info:
        apply(doc, {"action": "cleanup"})
    if path.endswith("[-1].face"):
        path = path.replace("[-1]", f"[{len(doc['battlefield']) - 1}]")
    assert info.value.path == path


@pytest.mark.parametrize(("action", "path"), [
    ("transform", "action"),
    ({"object": "o1"}, "action.action"),
    ({"action": "fly"}, "action.action"),
    ({"action": "transform"}, "action.object"),
    ({"action": "transform", "object": "o999"}, "action.object"),
    ({"action": "transform", "object": "o9", "color": "red"}, "action.color"),
    ({"action": "mill", "player": "ap", "count": -2}, "action.count"),
    ({"action": "mill", "player": "zz", "count": 1}, "action.player"),
    ({"action": "mill", "player": "ap", "count": 9, "as": "choice"}, "action.count"),
    ({"action": "mill", "player": "ap", "count": 1, "as": "maybe"}, "action.as"),
    ({"action": "deal_combat_damage", "assignment": [{"source": "o9", "target": "dp"}]},
     "action.assignment[0].amount"),
    ({"action": "resolve_trigger", "trigger": "t999"}, "action.trigger"),
    ({"action": "create_token", "card": "Goblin", "controller": "ap"}, "action.card"),
    ({"action": "declare_combat", "attacks": {"o999": "dp"}}, "action.attacks.o999"),
    ({"action": "combat_damage_step", "step": "third", "assignment": []}, "action.step"),
])
def test_bad_actions_name_the_field(action: Any, path: str) -> None:
    state, _ = rich_state()
    with pytest.raises(InputError) as info:
        apply(state_to_json(state), action)
    assert info.value.path == path
