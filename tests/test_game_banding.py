"""Bands, Doran, the Siege Tower and Thorn Elemental in the game model (702.22, 510.1a).

The game declares attacking bands and writes what they, Doran and Thorn Elemental change
into the combat/1 document (``keywords``, ``qualities``, ``assigns``,
``as_though_unblocked``); who then assigns which damage is the solver's rule (702.22j-k).

Most tests read the document as a dict. The tests in the last section, "read by the
combat/1 reader", need :meth:`Combat.from_json` (and the solver behind ``trample apply``)
to accept those fields.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from types import FrameType
from typing import Any

import pytest

from trample.models.document.combat import Combat
from trample.models.document.errors import InputError
from trample.models.game.banding import bands_with_other, check_band, quality_of
from trample.models.game.cards import get_card, load_card
from trample.models.game.combat_steps import (
    combat_document,
    combat_of,
    deal_combat_damage,
    declare_combat,
    run_combat_damage,
)
from trample.models.game.state import (
    CombatDeclaration,
    GameState,
    destroy,
    enter_card,
    grant_keyword,
    new_game,
    replace_permanent,
)
from trample.models.game.state_json import apply, state_from_json, state_to_json
from trample.solver.interface import protocol, serve
from trample.solver.interface.game_loop import apply as apply_judged
from trample.solver.interface.game_loop import judge, solver_assign

BANDING_REMINDER = (
    "Banding (Any creatures with banding, and up to one without, can attack in a band. "
    "Bands are blocked as a group. If any creatures with banding you control are blocking "
    "or being blocked by a creature, you divide that creature's combat damage, not its "
    "controller, among any of the creatures it's being blocked by or is blocking.)")
WOLVES = "Wolves of the Hunt"


def battlefield(*cards: tuple[str, str]) -> tuple[GameState, list[str]]:
    """A game of ap and dp (ap active) with these (card, controller) on the battlefield,
    none summoning sick; tokens are tokens."""
    state = new_game()
    ids = []
    for name, who in cards:
        card = get_card(name)
        state, oid, _ = enter_card(state, card, who, token=card.layout == "token")
        ids.append(oid)
    return state, ids


def creature(doc: dict[str, Any], oid: str) -> dict[str, Any]:
    found = [c for c in doc["creatures"] if c["id"] == oid]
    assert len(found) == 1, (oid, doc)
    return found[0]


def refused(call: Any, path: str, *fragments: str) -> str:
    with pytest.raises(InputError) as info:
        call()
    assert info.value.path == path, str(info.value)
    for fragment in fragments:
        assert fragment in info.value.reason, info.value.reason
    return info.value.reason


# -- the cards -------------------------------------------------------------------------------


def test_benalish_hero_and_mesa_pegasus_have_banding() -> None:
    hero, pegasus = get_card("Benalish Hero"), get_card("Mesa Pegasus")
    assert (hero.front.mana_cost, hero.front.type_line, hero.front.power,
            hero.front.toughness) == ("{W}", "Creature — Human Soldier", "1", "1")
    assert hero.front.oracle_text == BANDING_REMINDER
    assert hero.front.has_keyword("banding") and hero.mana_value == 1
    assert (pegasus.front.mana_cost, pegasus.front.type_line, pegasus.front.power,
            pegasus.front.toughness) == ("{1}{W}", "Creature — Pegasus", "1", "1")
    assert pegasus.front.oracle_text == "Flying\n" + BANDING_REMINDER
    assert pegasus.front.has_keyword("Flying") and pegasus.front.has_keyword("Banding")


def test_doran_and_thorn_elemental() -> None:
    doran, thorn = get_card("Doran, the Siege Tower"), get_card("Thorn Elemental")
    assert (doran.front.mana_cost, doran.front.type_line, doran.front.power,
            doran.front.toughness) == ("{W}{B}{G}", "Legendary Creature — Treefolk Shaman",
                                       "0", "5")
    assert doran.front.oracle_text == ("Each creature assigns combat damage equal to its "
                                       "toughness rather than its power.")
    assert (thorn.front.mana_cost, thorn.front.type_line, thorn.front.power,
            thorn.front.toughness) == ("{5}{G}{G}", "Creature — Elemental", "7", "7")
    assert thorn.front.oracle_text == ("You may have this creature assign its combat damage "
                                       "as though it weren't blocked.")
    assert thorn.mana_value == 7 and doran.mana_value == 3


def test_master_of_the_hunt_and_its_wolves() -> None:
    master, wolves = get_card("Master of the Hunt"), get_card(WOLVES)
    assert (master.front.mana_cost, master.front.type_line, master.front.power,
            master.front.toughness) == ("{2}{G}{G}", "Creature — Human", "2", "2")
    assert master.front.oracle_text.startswith(
        "{2}{G}{G}: Create a 1/1 green Wolf creature token named Wolves of the Hunt. It has "
        "\"bands with other creatures named Wolves of the Hunt.\"")
    # The token definition the ability makes.
    assert wolves.layout == "token"
    assert (wolves.front.type_line, wolves.front.power, wolves.front.toughness) == (
        "Token Creature — Wolf", "1", "1")
    assert wolves.front.oracle_text == "Bands with other creatures named Wolves of the Hunt"
    state, (master_id, wolf) = battlefield(("Master of the Hunt", "ap"), (WOLVES, "ap"))
    # Master's text grants the ability to the token; Master itself does not band.
    assert bands_with_other(state.permanent(master_id)) == ()
    (quality,) = bands_with_other(state.permanent(wolf))
    assert (quality.text, quality.kind) == (WOLVES, "name")
    assert quality.held_by(state.permanent(wolf))
    assert not quality.held_by(state.permanent(master_id))


def test_master_of_the_hunt_makes_wolves_that_band() -> None:
    state, (master, hero) = battlefield(("Master of the Hunt", "ap"), ("Benalish Hero", "ap"))
    doc = state_to_json(state)
    for _ in range(2):
        out = apply(doc, {"action": "activate_master_of_the_hunt", "object": master})
        (trigger,) = [e["trigger"] for e in out["events"] if e["event"] == "AbilityTriggered"]
        out = apply(out["state"], {"action": "resolve_trigger", "trigger": trigger})
        assert [e["event"] for e in out["events"]] == ["TokenCreated", "AbilityResolved"]
        doc = out["state"]
    wolves = [b for b in doc["battlefield"] if b["card"] == WOLVES]
    assert len(wolves) == 2 and all(w["token"] and w["controller"] == "ap" for w in wolves)
    # Summoning sick as they enter; a turn later they attack in a band.
    turned = apply(doc, {"action": "begin_turn", "player": "ap"})["state"]
    w1, w2 = (w["id"] for w in wolves)
    attacks = {w1: "dp", w2: "dp", master: "dp"}
    out = apply(turned, {"action": "declare_combat", "attacks": attacks, "bands": [[w1, w2]]})
    assert out["state"]["combat"]["bands"] == [[w1, w2]]
    # Master of the Hunt has no banding and is not named Wolves of the Hunt.
    refused(lambda: apply(turned, {"action": "declare_combat", "attacks": attacks,
                                   "bands": [[w1, w2, master]]}), "action.bands[0]",
            "702.22c")
    # With a Benalish Hero, a Wolf is the one member without banding.
    out = apply(turned, {"action": "declare_combat", "attacks": {w1: "dp", hero: "dp"},
                         "bands": [[hero, w1]]})
    assert out["state"]["combat"]["bands"] == [[hero, w1]]
    refused(lambda: apply(doc, {"action": "activate_master_of_the_hunt", "object": hero}),
            "action.object", "not a Master of the Hunt")


def test_cards_with_banding_keywords_load() -> None:
    # Scryfall lists "Banding" and a bare "Bands with other"; the text names the quality.
    card = load_card({"name": "Test Fixture Shelter Legend", "layout": "normal",
                      "type_line": "Legendary Creature — Human", "power": "2",
                      "toughness": "2", "keywords": ["Bands with other"],
                      "oracle_text": "Bands with other legends (reminder text.)"})
    state, oid, _ = enter_card(new_game(), card, "ap")
    (quality,) = bands_with_other(state.permanent(oid))
    assert quality == quality_of("legends")
    assert (quality.text, quality.kind, quality.value) == ("legendary", "supertype",
                                                          "Legendary")


@pytest.mark.parametrize(("text", "name", "holder", "other"), [
    ("creatures named Wolves of the Hunt", WOLVES, WOLVES, "Grizzly Bears"),
    ("legends", "legendary", "Doran, the Siege Tower", "Grizzly Bears"),
    ("Bears", "Bears", "Grizzly Bears", "Llanowar Elves"),
    ("Wolves", "Wolves", WOLVES, "Grizzly Bears"),
])
def test_qualities(text: str, name: str, holder: str, other: str) -> None:
    quality = quality_of(text)
    assert quality.text == name
    state, (has, lacks) = battlefield((holder, "ap"), (other, "ap"))
    assert quality.held_by(state.permanent(has))
    assert not quality.held_by(state.permanent(lacks))
    face_down = replace(state.permanent(has), face_down=True)
    assert not quality.held_by(face_down)  # no name, no types (708.2a)


# -- declaring a band (702.22c-d) ------------------------------------------------------------


def test_creatures_with_banding_and_one_without_form_a_band() -> None:
    # CR 702.22c: one or more with banding and up to one without.
    state, (hero, pegasus, bears) = battlefield(
        ("Benalish Hero", "ap"), ("Mesa Pegasus", "ap"), ("Grizzly Bears", "ap"))
    new, _ = declare_combat(state, {hero: "dp", pegasus: "dp", bears: "dp"},
                            bands=[[hero, pegasus, bears]])
    assert new.combat is not None and new.combat.bands == ((hero, pegasus, bears),)
    assert all(new.permanent(a).tapped for a in (hero, pegasus, bears))


def test_two_creatures_without_banding_are_no_band() -> None:
    state, (hero, bears, elves) = battlefield(
        ("Benalish Hero", "ap"), ("Grizzly Bears", "ap"), ("Llanowar Elves", "ap"))
    attacks = {hero: "dp", bears: "dp", elves: "dp"}
    refused(lambda: declare_combat(state, attacks, bands=[[hero, bears, elves]]),
            "bands[0]", f"{bears!r} and {elves!r} have no banding", "702.22c")
    refused(lambda: declare_combat(state, attacks, bands=[[bears, elves]]), "bands[0]",
            "702.22c")
    # Declared in two bands instead, each is legal.
    new, _ = declare_combat(state, attacks, bands=[[hero, bears]])
    assert new.combat is not None and new.combat.bands == ((hero, bears),)


def test_bands_with_other_wolves_of_the_hunt() -> None:
    # 702.22c: Q creatures of which one has "bands with other Q", any number of them.
    state, (w1, w2, w3, bears, hero) = battlefield(
        (WOLVES, "ap"), (WOLVES, "ap"), (WOLVES, "ap"), ("Grizzly Bears", "ap"),
        ("Benalish Hero", "ap"))
    attacks = dict.fromkeys((w1, w2, w3, bears, hero), "dp")
    new, _ = declare_combat(state, attacks, bands=[[w1, w2, w3]])
    assert new.combat is not None and new.combat.bands == ((w1, w2, w3),)
    # Grizzly Bears is not named Wolves of the Hunt, and nobody has banding.
    refused(lambda: declare_combat(state, attacks, bands=[[w1, w2, bears]]), "bands[0]",
            "702.22c", "'Wolves of the Hunt' is a quality of every member")
    # A wolf is the one creature without banding in a Benalish Hero's band.
    declare_combat(state, attacks, bands=[[hero, w1]])
    refused(lambda: declare_combat(state, attacks, bands=[[hero, w1, bears]]), "bands[0]")


def test_bands_with_other_legends_granted_until_end_of_turn() -> None:
    state, (doran, gisela, bears) = battlefield(
        ("Doran, the Siege Tower", "ap"), ("Gisela, the Broken Blade", "ap"),
        ("Grizzly Bears", "ap"))
    state, _ = grant_keyword(state, doran, "Bands with other legends")
    attacks = {doran: "dp", gisela: "dp", bears: "dp"}
    new, _ = declare_combat(state, attacks, bands=[[gisela, doran]])
    doc = combat_document(new)
    for oid in (doran, gisela):
        assert creature(doc, oid)["qualities"] == ["legendary"]
    assert "bands with other legendary" in creature(doc, doran)["keywords"]
    assert "bands with other legendary" not in creature(doc, gisela)["keywords"]
    assert "qualities" not in creature(doc, bears)
    refused(lambda: declare_combat(state, attacks, bands=[[doran, bears]]), "bands[0]")


@pytest.mark.parametrize(("bands", "path", "fragment"), [
    ([["H"]], "bands[0]", "at least two"),                        # a band of one
    ([["H", "E"]], "bands[0][1]", "is not an attacking creature"),  # E does not attack
    ([["H", "D"]], "bands[0][1]", "is not an attacking creature"),  # dp's creature
    ([["H", "P"], ["P", "B"]], "bands[1][0]", "only one band"),
    ([["H", "J"]], "bands[0][1]", "702.22d"),                     # attacks Jace, not dp
    ([["H", "P", "H"]], "bands[0][2]", "only one band"),
])
def test_bad_bands_name_the_field(bands: list[list[str]], path: str, fragment: str) -> None:
    state, ids = battlefield(("Benalish Hero", "ap"), ("Mesa Pegasus", "ap"),
                             ("Grizzly Bears", "ap"), ("Llanowar Elves", "ap"),
                             ("Benalish Hero", "dp"), ("Jace Beleren", "dp"),
                             ("Benalish Hero", "ap"))
    names = dict(zip("HPBEDWJ", ids, strict=True))
    attacks = {names["H"]: "dp", names["P"]: "dp", names["B"]: "dp",
               names["J"]: names["W"]}
    given = [[names[m] for m in band] for band in bands]
    refused(lambda: declare_combat(state, attacks, bands=given), path, fragment)


def test_a_band_may_attack_a_planeswalker_or_a_battle() -> None:
    state, (hero, pegasus, jace, invasion) = battlefield(
        ("Benalish Hero", "ap"), ("Mesa Pegasus", "ap"), ("Jace Beleren", "dp"),
        ("Invasion of Zendikar // Awakened Skyclave", "ap"))
    assert state.permanent(invasion).protector == "dp"
    for target in (jace, invasion):
        new, _ = declare_combat(state, {hero: target, pegasus: target},
                                bands=[[hero, pegasus]])
        assert new.combat is not None and new.combat.bands == ((hero, pegasus),)


def test_check_band_reads_the_abilities_the_members_have_now() -> None:
    state, (bears, elves) = battlefield(("Grizzly Bears", "ap"), ("Llanowar Elves", "ap"))
    refused(lambda: check_band(state, [bears, elves], "here"), "here", "702.22c")
    state, _ = grant_keyword(state, bears, "Banding")
    check_band(state, [bears, elves], "here")


# -- blocks and removal from combat (702.22f, h) ---------------------------------------------


def banded_attack() -> tuple[GameState, dict[str, str]]:
    """Hero, Pegasus and Thorn Elemental attack dp in one band, Bears alone; dp's Wall
    blocks Pegasus."""
    state, ids = battlefield(("Benalish Hero", "ap"), ("Mesa Pegasus", "ap"),
                             ("Thorn Elemental", "ap"), ("Grizzly Bears", "ap"),
                             ("Grizzly Bears", "dp"))
    hero, pegasus, thorn, bears, wall = ids
    state, _ = grant_keyword(state, wall, "Reach")  # CR 702.9b: to block the flying Pegasus
    state, _ = declare_combat(state, dict.fromkeys((hero, pegasus, thorn, bears), "dp"),
                              {wall: [pegasus]}, bands=[[hero, pegasus, thorn]])
    return state, dict(zip(("hero", "pegasus", "thorn", "bears", "wall"), ids, strict=True))


def test_a_block_on_one_member_blocks_the_whole_band() -> None:
    # CR 702.22h: each other creature in the band becomes blocked by that blocker.
    state, o = banded_attack()
    doc = combat_document(state)
    assert creature(doc, o["wall"])["blocking"] == [o["hero"], o["pegasus"], o["thorn"]]
    assert "blocking" not in creature(doc, o["bears"])
    assert state.combat is not None
    assert state.combat.blockers_of(o["hero"]) == (o["wall"],)
    assert state.combat.was_blocked(o["thorn"]) and not state.combat.was_blocked(o["bears"])
    # Only the declared block is kept in the state; the band does the rest.
    assert state_to_json(state)["combat"]["blocks"] == {o["wall"]: [o["pegasus"]]}


def test_blocking_two_members_of_one_band_blocks_each_once() -> None:
    state, ids = battlefield(("Benalish Hero", "ap"), ("Mesa Pegasus", "ap"),
                             ("Grizzly Bears", "dp"))
    hero, pegasus, wall = ids
    state, _ = grant_keyword(state, wall, "Reach")  # CR 702.9b: to block the flying Pegasus
    state, _ = declare_combat(state, {hero: "dp", pegasus: "dp"}, {wall: [pegasus, hero]},
                              bands=[[hero, pegasus]])
    assert creature(combat_document(state), wall)["blocking"] == [hero, pegasus]


def test_a_member_removed_from_combat_leaves_the_band() -> None:
    # CR 702.22f: the rest of the band stays blocked by the blocker of the member that
    # left; the member that left is in no combat at all.
    state, o = banded_attack()
    state, _ = destroy(state, o["pegasus"])
    doc = combat_document(state)
    assert [c["id"] for c in doc["creatures"]] == [o["hero"], o["thorn"], o["bears"], o["wall"]]
    assert creature(doc, o["wall"])["blocking"] == [o["hero"], o["thorn"]]
    # A band of one: only the Hero is left, still blocked.
    state, _ = destroy(state, o["thorn"])
    assert creature(combat_document(state), o["wall"])["blocking"] == [o["hero"]]
    # Its blocker gone, the Hero stays blocked (509.1h, 506.4).
    state, _ = destroy(state, o["wall"])
    assert creature(combat_document(state), o["hero"])["blocked"] is True
    assert "blocked" not in creature(combat_document(state), o["bears"])


def test_a_member_that_changes_control_leaves_the_band() -> None:
    state, o = banded_attack()
    state = replace_permanent(state, replace(state.permanent(o["hero"]), controller="dp"))
    doc = combat_document(state)
    assert creature(doc, o["wall"])["blocking"] == [o["pegasus"], o["thorn"]]
    assert o["hero"] not in [c["id"] for c in doc["creatures"]]


def test_a_band_lasts_when_a_member_loses_banding() -> None:
    # CR 702.22e: granted banding wears off; the band does not.
    state, (bears, elves, ox, wall) = battlefield(
        ("Grizzly Bears", "ap"), ("Llanowar Elves", "ap"), ("Grizzly Bears", "ap"),
        ("Grizzly Bears", "dp"))
    state, _ = grant_keyword(state, bears, "Banding")
    state, _ = grant_keyword(state, ox, "Banding")
    state, _ = declare_combat(state, {bears: "dp", elves: "dp", ox: "dp"}, {wall: [elves]},
                              bands=[[bears, elves, ox]])
    for oid in (bears, ox):
        state = replace_permanent(state, replace(state.permanent(oid), granted=()))
    assert creature(combat_document(state), wall)["blocking"] == [bears, elves, ox]
    again = state_from_json(state_to_json(state))  # the state reads back as it is
    assert again == state


# -- the combat/1 document ---------------------------------------------------------------------


def test_banding_keywords_and_qualities_in_the_document() -> None:
    state, (w1, w2, hero, wall, blocker) = battlefield(
        (WOLVES, "ap"), (WOLVES, "ap"), ("Benalish Hero", "ap"), ("Grizzly Bears", "dp"),
        ("Benalish Hero", "dp"))
    state, _ = declare_combat(state, {w1: "dp", w2: "dp", hero: "dp"},
                              {wall: [w1], blocker: [hero]}, bands=[[w1, w2]])
    doc = combat_document(state)
    for wolf in (w1, w2):
        entry = creature(doc, wolf)
        assert entry["keywords"] == ["bands with other wolves of the hunt"]
        assert entry["qualities"] == [WOLVES]
    assert creature(doc, wall)["blocking"] == [w1, w2]
    # Banding on a blocker needs no declaration: the keyword is all the solver needs.
    assert creature(doc, blocker)["keywords"] == ["banding"]
    assert creature(doc, hero)["keywords"] == ["banding"]
    for oid in (hero, wall, blocker):
        assert "qualities" not in creature(doc, oid)
    assert not any("assigns" in c or "as_though_unblocked" in c for c in doc["creatures"])


def test_doran_makes_every_creature_assign_by_toughness() -> None:
    state, (bears, thorn, wall, doran) = battlefield(
        ("Grizzly Bears", "ap"), ("Thorn Elemental", "ap"), ("Grizzly Bears", "dp"),
        ("Doran, the Siege Tower", "dp"))
    declared, _ = declare_combat(state, {bears: "dp", thorn: "dp"}, {wall: [bears]})
    doc = combat_document(declared)
    # Doran is not in combat; its ability applies to every creature that is.
    assert [c["id"] for c in doc["creatures"]] == [bears, thorn, wall]
    assert all(c["assigns"] == "toughness" for c in doc["creatures"])
    assert "as_though_unblocked" not in creature(doc, thorn)  # unblocked
    # Doran in combat, blocking: itself too.
    declared, _ = declare_combat(state, {bears: "dp"}, {doran: [bears]})
    assert creature(combat_document(declared), doran)["assigns"] == "toughness"
    # Face down it has no ability; gone, nothing changes.
    hidden = replace_permanent(declared, replace(declared.permanent(doran), face_down=True))
    assert not any("assigns" in c for c in combat_document(hidden)["creatures"])
    gone, _ = destroy(declared, doran)
    assert not any("assigns" in c for c in combat_document(gone)["creatures"])


def test_doran_under_either_player() -> None:
    state, (bears, _) = battlefield(("Grizzly Bears", "ap"),
                                        ("Doran, the Siege Tower", "ap"))
    state, _ = declare_combat(state, {bears: "dp"})
    assert creature(combat_document(state), bears)["assigns"] == "toughness"


def test_thorn_elemental_blocked_may_assign_as_though_unblocked() -> None:
    state, (thorn, wall, other) = battlefield(
        ("Thorn Elemental", "ap"), ("Grizzly Bears", "dp"), ("Thorn Elemental", "dp"))
    blocked, _ = declare_combat(state, {thorn: "dp"}, {wall: [thorn]})
    assert creature(combat_document(blocked), thorn)["as_though_unblocked"] is True
    # Its blocker gone, it is still blocked (509.1h): the option stays.
    gone, _ = destroy(blocked, wall)
    entry = creature(combat_document(gone), thorn)
    assert entry["blocked"] is True and entry["as_though_unblocked"] is True
    # Unblocked, or blocking, it has nothing to choose.
    unblocked, _ = declare_combat(state, {thorn: "dp"})
    assert "as_though_unblocked" not in creature(combat_document(unblocked), thorn)
    blocking, _ = declare_combat(state, {thorn: "dp"}, {other: [thorn]})
    doc = combat_document(blocking)
    assert "as_though_unblocked" not in creature(doc, other)
    assert creature(doc, thorn)["as_though_unblocked"] is True


def test_thorn_elemental_blocked_through_its_band() -> None:
    state, o = banded_attack()
    doc = combat_document(state)
    assert creature(doc, o["thorn"])["as_though_unblocked"] is True
    assert "as_though_unblocked" not in creature(doc, o["hero"])


def test_a_combat_without_bands_or_effects_is_unchanged() -> None:
    state, (bears, wall) = battlefield(("Grizzly Bears", "ap"), ("Grizzly Bears", "dp"))
    state, _ = declare_combat(state, {bears: "dp"}, {wall: [bears]})
    doc = combat_document(state)
    assert doc == combat_of(state).to_json()
    assert Combat.from_json(doc) == combat_of(state)


def test_the_document_follows_the_first_strike_step() -> None:
    state, (hero, ace, wall) = battlefield(("Benalish Hero", "ap"), ("Fencing Ace", "ap"),
                                           ("Grizzly Bears", "dp"))
    state, _ = declare_combat(state, {hero: "dp", ace: "dp"}, {wall: [hero]},
                              bands=[[hero, ace]])
    doc = combat_document(state)
    assert doc["step"] == "first_strike"
    assert creature(doc, wall)["blocking"] == [hero, ace]
    assert combat_document(state, "regular")["step"] == "regular"


# -- the state JSON and apply ------------------------------------------------------------------


def test_bands_round_trip_through_the_state_json() -> None:
    state, o = banded_attack()
    written = state_to_json(state)
    assert written["combat"]["bands"] == [[o["hero"], o["pegasus"], o["thorn"]]]
    assert state_from_json(written) == state
    assert json.loads(json.dumps(written)) == written
    # A combat without bands writes an empty list and reads back.
    plain = replace(state, combat=CombatDeclaration(attacks=((o["bears"], "dp"),)))
    assert state_to_json(plain)["combat"]["bands"] == []
    assert state_from_json(state_to_json(plain)) == plain


@pytest.mark.parametrize(("bands", "path"), [
    ("o1", "state.combat.bands"),
    ([["o1", 3]], "state.combat.bands[0][1]"),
    ([["o1", ""]], "state.combat.bands[0][1]"),
    ([["o1", "o9"]], "state.combat.bands[0][1]"),     # o9 is not attacking
    ([["o1"]], "state.combat.bands[0]"),
    ([["o1", "o2"], ["o2", "o3"]], "state.combat.bands[1][0]"),
    ([["o1", "o2"], "o3"], "state.combat.bands[1]"),
    ([["o1", "o2", "o3", "o4", "o5"]], "state.combat.bands[0]"),  # more than the attackers
])
def test_bad_bands_in_a_state(bands: object, path: str) -> None:
    state, _ = banded_attack()
    written = state_to_json(state)
    written["combat"]["bands"] = bands
    refused(lambda: state_from_json(written, "state"), path)


def test_bands_in_a_state_must_attack_the_same_thing() -> None:
    state, ids = battlefield(("Benalish Hero", "ap"), ("Mesa Pegasus", "ap"),
                             ("Jace Beleren", "dp"))
    hero, pegasus, jace = ids
    state, _ = declare_combat(state, {hero: "dp", pegasus: jace})
    written = state_to_json(state)
    written["combat"]["bands"] = [[hero, pegasus]]
    refused(lambda: state_from_json(written, "state"), "state.combat.bands[0][1]", "702.22d")


def test_declare_combat_action_with_bands() -> None:
    state, ids = battlefield(("Benalish Hero", "ap"), ("Mesa Pegasus", "ap"),
                             ("Grizzly Bears", "ap"), ("Llanowar Elves", "ap"),
                             ("Grizzly Bears", "dp"))
    hero, pegasus, bears, elves, wall = ids
    action = {"action": "declare_combat", "attacks": {hero: "dp", pegasus: "dp", bears: "dp"},
              "bands": [[hero, pegasus, bears]], "blocks": {wall: [bears]}}
    out = apply(state_to_json(state), action)
    assert out["state"]["combat"]["bands"] == [[hero, pegasus, bears]]
    new = state_from_json(out["state"])
    assert creature(combat_document(new), wall)["blocking"] == [hero, pegasus, bears]
    bad = {**action, "attacks": {**action["attacks"], elves: "dp"},
           "bands": [[hero, bears, elves]]}
    refused(lambda: apply(state_to_json(state), bad), "action.bands[0]", "702.22c")
    refused(lambda: apply(state_to_json(state), {**action, "bands": [[hero]]}),
            "action.bands[0]", "at least two")
    refused(lambda: apply(state_to_json(state), {**action, "bands": {"a": 1}}),
            "action.bands", "must be a list")
    refused(lambda: apply(state_to_json(state), {**action, "bands": [[hero, wall]]}),
            "action.bands[0][1]", "not an attacking creature")


def test_trample_apply_refuses_an_illegal_band(tmp_path: Path) -> None:
    state, (bears, elves) = battlefield(("Grizzly Bears", "ap"), ("Llanowar Elves", "ap"))
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state_to_json(state)))
    action = {"action": "declare_combat", "attacks": {bears: "dp", elves: "dp"},
              "bands": [[bears, elves]]}
    result = subprocess.run([sys.executable, "-m", "trample.solver", "apply", str(path),
                             json.dumps(action)], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 2, result
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr
    assert lines[0].startswith("trample: ") and "action.bands[0]" in lines[0]
    assert "702.22c" in lines[0]


def test_serve_apply_refuses_an_illegal_band() -> None:
    state, (hero, bears, elves) = battlefield(
        ("Benalish Hero", "ap"), ("Grizzly Bears", "ap"), ("Llanowar Elves", "ap"))
    answer = serve.handle({"jsonrpc": "2.0", "method": "apply", "id": 7, "params": {
        "state": state_to_json(state),
        "action": {"action": "declare_combat",
                   "attacks": {hero: "dp", bears: "dp", elves: "dp"},
                   "bands": [[hero, bears, elves]]}}})
    assert answer is not None
    assert answer["error"]["code"] == protocol.INVALID_PARAMS
    assert "action.bands[0]" in answer["error"]["message"]


def _document_calls(n: int) -> int:
    """Python calls made reading a state of ``n`` bands of two Benalish Heroes, each band
    blocked through one member, and writing its combat document."""
    state = new_game(("ap", "dp"))
    hero, bears = get_card("Benalish Hero"), get_card("Grizzly Bears")
    attacks: dict[str, str] = {}
    bands, blocks = [], {}
    for _ in range(n):
        state, a, _ = enter_card(state, hero, "ap")
        state, b, _ = enter_card(state, hero, "ap")
        state, w, _ = enter_card(state, bears, "dp")
        attacks.update({a: "dp", b: "dp"})
        bands.append([a, b])
        blocks[w] = [b]
    state, _ = declare_combat(state, attacks, blocks, bands)
    doc = state_to_json(state)
    count = 0

    def trace(frame: FrameType, event: str, arg: object) -> Any:
        # Every line run, loop iterations included, so that a scan of the bands per
        # block shows even inside a comprehension (which makes no call).
        nonlocal count
        count += 1
        return trace

    sys.settrace(trace)
    try:
        written = combat_document(state_from_json(doc))
    finally:
        sys.settrace(None)
    assert len(written["creatures"]) == 3 * n
    return count


def test_bands_cost_linear_operations() -> None:
    # Expanding blocks over bands looks members up, not scans them: four times the bands
    # cost about four times the lines run, not sixteen.
    small, large = _document_calls(100), _document_calls(400)
    assert large < 6 * small, (small, large)


# -- read by the combat/1 reader -----------------------------------------------------------
# These need Combat.from_json (and the solver) to read the fields of who assigns how much.


def test_reader_reads_the_band_document() -> None:
    state, o = banded_attack()
    doc = combat_document(state)
    fight = combat_of(state)
    assert fight == Combat.from_json(doc)
    assert fight.creature(o["hero"]).has("banding")
    assert set(fight.blockers_of(o["thorn"])) == {o["wall"]}


def test_reader_reads_doran_and_thorn_elemental() -> None:
    state, (thorn, wall, _) = battlefield(
        ("Thorn Elemental", "ap"), ("Grizzly Bears", "dp"), ("Doran, the Siege Tower", "dp"))
    state, _ = declare_combat(state, {thorn: "dp"}, {wall: [thorn]})
    assert combat_of(state) == Combat.from_json(combat_document(state))


def test_reader_reads_the_wolves() -> None:
    state, (w1, w2, wall) = battlefield((WOLVES, "ap"), (WOLVES, "ap"),
                                        ("Grizzly Bears", "dp"))
    state, _ = declare_combat(state, {w1: "dp", w2: "dp"}, {wall: [w2]}, bands=[[w1, w2]])
    fight = combat_of(state)
    assert fight == Combat.from_json(combat_document(state))
    assert fight.blockers_of(w1) == (wall,)


def test_thorn_elemental_tramples_over_the_blocker_to_win() -> None:
    # dp at 7: Thorn Elemental blocked by Grizzly Bears assigns all 7 to dp as though it
    # weren't blocked, and dp loses (the solver's first attacking term is losses).
    state, (thorn, wall) = battlefield(("Thorn Elemental", "ap"), ("Grizzly Bears", "dp"))
    written = state_to_json(state)
    written["players"][1]["life"] = 7
    out = apply_judged(written, {"action": "declare_combat", "attacks": {thorn: "dp"},
                                 "blocks": {wall: [thorn]}})
    out = apply_judged(out["state"], {"action": "combat_damage"})
    dp = out["state"]["players"][1]
    assert dp["life"] == 0 and dp["lost"] is True


def test_doran_deals_damage_by_toughness() -> None:
    # Doran blocks Grizzly Bears: under its own ability it assigns 5, its toughness.
    state, (bears, doran) = battlefield(("Grizzly Bears", "ap"),
                                        ("Doran, the Siege Tower", "dp"))
    out = apply_judged(state_to_json(state), {"action": "declare_combat",
                                              "attacks": {bears: "dp"},
                                              "blocks": {doran: [bears]}})
    out = apply_judged(out["state"], {"action": "combat_damage"})
    dealt = [e for e in out["events"] if e["event"] == "DamageDealt"]
    assert {(e["source"], e["target"], e["amount"]) for e in dealt} == {
        (doran, bears, 5), (bears, doran, 2)}


def test_thorn_elemental_blocked_by_banding_is_refused_not_guessed() -> None:
    # 702.22j gives the defending player the division while Thorn Elemental's controller
    # has its own choice: combat/1 does not combine the two, and the game says so rather
    # than drop either.
    state, (thorn, hero) = battlefield(("Thorn Elemental", "ap"), ("Benalish Hero", "dp"))
    state, _ = declare_combat(state, {thorn: "dp"}, {hero: [thorn]})
    doc = combat_document(state)
    assert creature(doc, thorn)["as_though_unblocked"] is True
    assert creature(doc, hero)["keywords"] == ["banding"]
    fight = combat_of(state)  # the game builds the combat; the rules refuse it
    assert fight.creature(thorn).as_though_unblocked
    for run in (lambda: run_combat_damage(state, solver_assign(), judge),
                lambda: deal_combat_damage(state, [{"source": thorn, "target": "dp",
                                                    "amount": 7}], judge)):
        reason = refused(run, "combat", "702.22j")
        assert "as_though_unblocked" in reason, reason
