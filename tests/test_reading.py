"""Reading JSON into typed values: one toolkit for combat documents, game states, actions
and cards (the same wording, the same bounds, full field paths that exist in the input);
keywords and their misspellings; NumPy integers; hostile game states."""

from __future__ import annotations

import copy
import json
import random
import subprocess
import sys
from fnmatch import fnmatchcase
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from trample.models.document.combat import Combat
from trample.models.document.errors import InputError
from trample.models.document.keywords import OTHER_KEYWORDS, read_keyword
from trample.models.document.reading import MAX_MAGNITUDE
from trample.models.game.cards import card_from_json, mana_value_of_cost
from trample.models.game.state_json import apply, state_from_json
from trample.solver.interface import api
from trample.solver.interface import serve as engine

from conftest import SPEC_EXAMPLE

ROOT = Path(__file__).resolve().parent.parent
TEACHINGS = json.loads((ROOT / "tests/data/teachings_state.json").read_text())
CLEANUP = {"action": "cleanup"}


def combat_with(**creature: Any) -> dict[str, Any]:
    doc = copy.deepcopy(SPEC_EXAMPLE)
    doc["creatures"][0].update(creature)
    return doc


def refusal(call: Any) -> InputError:
    with pytest.raises(InputError) as info:
        call()
    return info.value


def serve_error(method: str, params: dict[str, Any]) -> str:
    response = engine.handle({"jsonrpc": "2.0", "method": method, "params": params, "id": 1})
    assert response is not None and response["error"]["code"] == -32602, response
    message = response["error"]["message"]
    assert isinstance(message, str)
    return message


def cli(*args: str, stdin: bytes = b"") -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "trample.solver", *args], input=stdin,
                          capture_output=True, timeout=120)


def refused_on_the_command_line(result: subprocess.CompletedProcess[bytes]) -> str:
    assert result.returncode == 2, result
    lines = result.stderr.decode().strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in lines[0], result.stderr[-2000:]
    return lines[0]


# -- one toolkit: the same wording and bounds in the combat and the state readers ----------


@pytest.mark.parametrize(("value", "reason"), [
    (2**100, "1267650600228229401496703205376 is out of range (magnitude at most 2^40)"),
    (MAX_MAGNITUDE + 1, "1099511627777 is out of range (magnitude at most 2^40)"),
    ("20", "must be an integer, not a string"),
    (True, "must be an integer, not a boolean"),
    (20.0, "must be an integer, not a float"),
])
def test_life_is_read_alike_in_a_combat_and_in_a_state(value: Any, reason: str) -> None:
    doc = copy.deepcopy(SPEC_EXAMPLE)
    doc["players"][1]["life"] = value
    in_combat = refusal(lambda: Combat.from_json(doc))
    assert (in_combat.path, in_combat.reason) == ("players[1].life", reason)
    state = copy.deepcopy(TEACHINGS)
    state["players"][1]["life"] = value
    in_state = refusal(lambda: apply(state, CLEANUP))
    assert (in_state.path, in_state.reason) == ("state.players[1].life", reason)


def test_unknown_fields_are_named_alike() -> None:
    doc = combat_with(toughnes=4)
    in_combat = refusal(lambda: Combat.from_json(doc))
    assert in_combat.path == "creatures[0].toughnes"
    assert in_combat.reason.startswith("unknown field (accepted: as_though_unblocked, ")
    state = copy.deepcopy(TEACHINGS)
    state["battlefield"][0]["tapd"] = True
    in_state = refusal(lambda: apply(state, CLEANUP))
    assert in_state.path == "state.battlefield[0].tapd"
    assert in_state.reason.startswith("unknown field (accepted: card, controller, counters, ")


@pytest.mark.parametrize(("mutate", "path", "reason"), [
    (lambda s: s["players"][0].pop("id"), "state.players[0].id", "required field is missing"),
    (lambda s: s["players"][0].update(poison=-1), "state.players[0].poison",
     "must be at least 0, not -1"),
    (lambda s: s["players"][0].update(lost="no"), "state.players[0].lost",
     "must be true or false, not a string"),
    (lambda s: s["players"][0].update(library={}), "state.players[0].library",
     "must be a list, not an object"),
    (lambda s: s["battlefield"][0].update(counters={"lore": 2**41}),
     "state.battlefield[0].counters.lore", "2199023255552 is out of range (magnitude at most "
     "2^40)"),
    (lambda s: s["battlefield"][0].update(counters={"+1/+1": -1}),
     "state.battlefield[0].counters.'+1/+1'", "must be at least 0, not -1"),
    (lambda s: s["stack"][0].update(ability=""), "state.stack[0].ability",
     "must be a non-empty string"),
    (lambda s: s["battlefield"][0].update(damage=10**30), "state.battlefield[0].damage",
     "1000000000000000000000000000000 is out of range (magnitude at most 2^40)"),
    (lambda s: s["battlefield"][0].update(owner="x" * 201), "state.battlefield[0].owner",
     "id is longer than 200 characters"),
    (lambda s: s.update(turn=2**40 + 1), "state.turn",
     "1099511627777 is out of range (magnitude at most 2^40)"),
    (lambda s: s.update(next_id=-(10**50)), "state.next_id",
     "-100000000000000000000000000000000000000000000000000 is out of range (magnitude at most "
     "2^40)"),
    (lambda s: s["stack"][0].update(stamp=2**60), "state.stack[0].stamp",
     "1152921504606846976 is out of range (magnitude at most 2^40)"),
    (lambda s: s["players"][1].update(library=[{"id": "o1", "card": "Forest"}] * 20_001),
     "state.players[1].library", "has 20,001 entries; the limit is 20,000"),
    (lambda s: s["stack"][0].update(name=7), "state.stack[0].name",
     "must be a string, not an integer"),
    (lambda s: s["battlefield"][0].update(counters={"lore": 1, "x" * 1001: 1}),
     f"state.battlefield[0].counters.'{'x' * 27}...{'x' * 28}'",
     "key is longer than 1,000 characters"),
])
def test_bad_states_are_refused_with_the_combat_wording(mutate: Any, path: str,
                                                         reason: str) -> None:
    state = copy.deepcopy(TEACHINGS)
    mutate(state)
    error = refusal(lambda: apply(state, CLEANUP))
    assert (error.path, error.reason) == (path, reason)


def test_a_huge_life_is_refused_by_the_state_reader_on_the_command_line_and_in_serve() -> None:
    state = copy.deepcopy(TEACHINGS)
    state["players"][1]["life"] = 2**100
    line = refused_on_the_command_line(cli("apply", "-", json.dumps(CLEANUP),
                                           stdin=json.dumps(state).encode()))
    assert line.startswith("trample: state.players[1].life: 12676506002282294014967032")
    assert serve_error("apply", {"state": state, "action": CLEANUP}).startswith(
        "params.state.players[1].life: 12676506002282294014967032")


def _leaves(value: Any, path: str) -> list[tuple[str, Any, Any]]:
    """(path, container, key) of every integer and boolean in a JSON value."""
    found: list[tuple[str, Any, Any]] = []
    items = value.items() if isinstance(value, dict) else enumerate(value)
    for key, item in items:
        where = f"{path}[{key}]" if isinstance(value, list) else f"{path}.{key}"
        if isinstance(item, (dict, list)):
            found += _leaves(item, where)
        elif isinstance(item, (bool, int)):
            found.append((where, value, key))
    return found


def _a_full_state() -> dict[str, Any]:
    state = copy.deepcopy(TEACHINGS)
    state["damage_this_turn"] = [{"source": "o4", "player": "opponent", "amount": 3}]
    state["players"][0]["exile"] = [{"id": "o20", "card": "Spirit", "token": True}]
    state["next_id"] = 21
    return state


def test_every_integer_and_boolean_of_a_state_is_checked_at_its_path() -> None:
    leaves = _leaves(_a_full_state(), "state")
    assert len(leaves) >= 20
    for where, _, _ in leaves:
        for bad, reason in ((2**41, "2199023255552 is out of range (magnitude at most 2^40)"),
                            ("1", "must be"), (None, "must be")):
            state = _a_full_state()
            target = next((c, k) for w, c, k in _leaves(state, "state") if w == where)
            if isinstance(target[0][target[1]], bool) and bad == 2**41:
                reason = "must be true or false, not an integer"
            target[0][target[1]] = bad
            error = refusal(lambda state=state: apply(state, CLEANUP))
            assert error.path == where, (where, bad, str(error))
            assert error.reason.startswith(reason), (where, bad, str(error))


# -- game-state bounds: cards, and integers that grow --------------------------------------


def with_card(mutate: Any) -> dict[str, Any]:
    state = copy.deepcopy(TEACHINGS)
    card = {"name": "Odd Bear", "layout": "normal", "mana_cost": "{1}{G}",
            "type_line": "Creature — Bear", "power": "2", "toughness": "2",
            "keywords": ["Reach"]}
    mutate(card)
    state["cards"] = [card]
    state["battlefield"].append({"id": "o5", "card": "Odd Bear", "owner": "opponent"})
    state["next_id"] = 6
    return state


BAD_CARDS = [
    (lambda c: c.update(mana_cost="{²}"), "state.cards[0].mana_cost",
     "'{²}' is not a mana symbol (generic mana is written with the digits 0-9)"),
    (lambda c: c.update(mana_cost="{" + "9" * 400 + "}"), "state.cards[0].mana_cost",
     "generic mana '{999*999}' is out of range (at most 2^40)"),
    (lambda c: c.update(mana_cost="{" + "9" * 4301 + "}"), "state.cards[0].mana_cost",
     "is longer than 1,000 characters"),
    (lambda c: c.update(mana_cost="{1099511627776}{1}"), "state.cards[0].mana_cost",
     "the mana value is out of range (at most 2^40)"),
    (lambda c: c.update(power="9" * 400), "state.cards[0].power",
     "'999*999' is out of range (magnitude at most 2^40)"),
    (lambda c: c.update(cmc=float("nan")), "state.cards[0].cmc",
     "must be a number of magnitude at most 2^40, not nan"),
    (lambda c: c.update(keywords=["Trampel"]), "state.cards[0].keywords[0]",
     "unknown keyword 'Trampel': did you mean 'trample'?"),
    (lambda c: c.update(name=""), "state.cards[0].name", "must be a non-empty string"),
]


@pytest.mark.parametrize(("mutate", "path", "reason"), BAD_CARDS)
def test_bad_cards_in_a_state_are_input_errors(mutate: Any, path: str, reason: str) -> None:
    state = with_card(mutate)
    error = refusal(lambda: apply(state, CLEANUP))
    assert error.path == path and fnmatchcase(error.reason, reason)
    assert len(error.reason) < 200
    assert serve_error("apply", {"state": state, "action": CLEANUP}) == \
        f"params.{path}: {error.reason}"


def test_bad_mana_costs_are_refused_on_the_command_line() -> None:
    for mutate, path, reason in BAD_CARDS[:3]:
        state = with_card(mutate)
        line = refused_on_the_command_line(cli("apply", "-", json.dumps(CLEANUP),
                                               stdin=json.dumps(state).encode()))
        prefix = f"trample: {path}: "
        assert line.startswith(prefix) and fnmatchcase(line[len(prefix):], reason)


def test_unusual_real_mana_costs_are_read() -> None:
    assert mana_value_of_cost("{1000000}") == 1_000_000  # Gleemax
    assert mana_value_of_cost("{½}{∞}{2/W}{X}") == 4
    state = with_card(lambda c: c.update(mana_cost="{1000000}{½}", power="*",
                                         toughness="1+*"))
    assert apply(state, CLEANUP)["state"]["cards"][0]["mana_cost"] == "{1000000}{½}"


@pytest.mark.parametrize(("field", "action", "path"), [
    ("next_id", {"action": "resolve_chapter", "object": "o4", "chapter": 1}, "state.next_id"),
    ("turn", {"action": "begin_turn", "player": "opponent"}, "state.turn"),
])
def test_a_transition_that_would_grow_past_the_bound_is_refused(
        field: str, action: dict[str, Any], path: str) -> None:
    state = copy.deepcopy(TEACHINGS)
    state[field] = MAX_MAGNITUDE
    error = refusal(lambda: apply(state, action))
    assert error.path == path and "past the limit (magnitude at most 2^40)" in error.reason
    assert serve_error("apply", {"state": state, "action": action}).startswith(
        f"params.{path}: would become ")
    line = refused_on_the_command_line(cli("apply", "-", json.dumps(action),
                                           stdin=json.dumps(state).encode()))
    assert line.startswith(f"trample: {path}: would become ")
    # One below the bound, the same transition is fine, and its output reads back.
    state[field] = MAX_MAGNITUDE - 10
    out = apply(state, action)["state"]
    assert state_from_json(out).turn == out["turn"]


def test_counters_that_would_grow_past_the_bound_are_refused() -> None:
    state = copy.deepcopy(TEACHINGS)
    state["battlefield"][0]["counters"] = {"+1/+1": MAX_MAGNITUDE}
    action = {"action": "add_counters", "object": "o4", "kind": "+1/+1", "amount": 1}
    error = refusal(lambda: apply(state, action))
    assert error.path == "state.battlefield[0].counters.'+1/+1'"


# -- keywords ----------------------------------------------------------------------------

REAL_KEYWORDS = [
    # Evergreen and common keyword abilities, keyword actions and ability words as cards
    # and Scryfall spell them, with parameters where they take one.
    "Deathtouch", "Defender", "Double strike", "Enchant", "Equip", "Equip {2}", "First strike",
    "Flash", "Flying", "Haste", "Hexproof", "Hexproof from blue", "Indestructible",
    "Intimidate", "Lifelink", "Menace", "Protection", "Protection from green",
    "Protection from everything", "Prowess", "Reach", "Shroud", "Trample", "Vigilance",
    "Ward", "Ward 2", "Ward {2}", "Ward—Pay 3 life", "Fear", "Infect", "Wither", "Toxic",
    "Toxic 2", "Forestwalk", "Swampwalk", "Islandwalk", "Mountainwalk", "Plainswalk",
    "Landwalk", "Flanking", "Rampage 2", "Bushido 1", "Exalted", "Annihilator 2", "Afflict 3",
    "Persist", "Undying", "Riot", "Skulk", "Shadow", "Horsemanship", "Changeling",
    "Cycling", "Cycling {2}", "Landcycling", "Kicker", "Flashback", "Madness", "Morph",
    "Megamorph", "Disguise", "Suspend", "Cascade", "Convoke", "Delve", "Affinity for artifacts",
    "Evoke", "Dash", "Blitz", "Escape", "Foretell", "Embalm", "Eternalize", "Unearth",
    "Split second", "Storm", "Crew 3", "Fabricate 2", "Training", "Mentor", "Modular 2",
    "Devour 1", "Bloodthirst 2", "Outlast", "Renown 1", "Evolve", "Extort", "Battle cry",
    "Living weapon", "Myriad", "Melee", "Partner", "Companion", "Mutate", "Daybound",
    "Nightbound", "Decayed", "Backup 1", "Bargain", "Offspring", "Saddle 2", "Enlist",
    "Ravenous", "Squad", "Prototype", "Reconfigure", "Level up", "Totem armor", "Umbra armor",
    "Soulbond", "Phasing", "Echo", "Fading", "Vanishing", "Cumulative upkeep", "Provoke",
    "Frenzy", "Graft", "Absorb", "Dethrone", "Tribute", "Ingest", "Devoid", "Emerge",
    "Surge", "Aftermath", "Assist", "Jump-start", "Afterlife 1", "Spectacle", "Boast",
    "Cleave", "Casualty 1", "Read ahead", "Compleated", "Mobilize 2", "Exhaust",
    "Transform", "Mill", "Scry", "Surveil", "Explore", "Investigate", "Amass", "Proliferate",
    "Fight", "Connive", "Incubate", "Discover", "Food", "Treasure", "Landfall", "Raid",
    "Morbid", "Threshold", "Delirium", "Metalcraft", "Constellation", "Heroic", "Magecraft",
    "Revolt", "Ferocious", "Formidable", "Hellbent", "Imprint", "Kinship", "Spell mastery",
    "Coven", "Eerie", "Survival", "Valiant", "Celebration", "Domain", "Converge",
]


@pytest.mark.parametrize("keyword", REAL_KEYWORDS)
def test_real_keywords_are_never_taken_for_typos(keyword: str) -> None:
    doc = combat_with(keywords=[keyword])
    Combat.from_json(doc)
    card_from_json({"name": "X", "keywords": [keyword]})
    assert read_keyword(keyword)[1] is None


def test_every_word_of_the_keyword_lists_is_accepted() -> None:
    refused = [w for w in OTHER_KEYWORDS if read_keyword(w)[1] is not None]
    assert refused == []


@pytest.mark.parametrize(("keyword", "meant"), [
    ("Trampel", "trample"), ("trampel", "trample"), ("Tramp le", "trample"),
    ("doublestrike", "double strike"), ("Double-Strik", "double strike"),
    ("death touch", "deathtouch"), ("Deathtuch", "deathtouch"), ("dethtouch", "deathtouch"),
    ("firststrike", "first strike"), ("frist strike", "first strike"),
    ("Indestructable", "indestructible"), ("lifelnk", "lifelink"), ("infekt", "infect"),
    ("Trample over planeswalker", "trample over planeswalkers"),
    ("trampleoverplaneswalkers", "trample over planeswalkers"),
])
def test_misspelt_keywords_are_refused_with_a_suggestion(keyword: str, meant: str) -> None:
    doc = combat_with(keywords=["Flying", keyword])
    error = refusal(lambda: Combat.from_json(doc))
    assert (error.path, error.reason) == (
        "creatures[0].keywords[1]", f"unknown keyword {keyword!r}: did you mean {meant!r}?")
    card = refusal(lambda: card_from_json({"name": "X", "keywords": [keyword]}, "cards[3]"))
    assert card.path == "cards[3].keywords[0]" and "did you mean" in card.reason


def test_the_command_line_and_serve_refuse_a_misspelt_keyword() -> None:
    doc = combat_with(keywords=["Trampel"])
    message = "creatures[0].keywords[0]: unknown keyword 'Trampel': did you mean 'trample'?"
    assert serve_error("count", {"combat": doc}) == f"params.combat.{message}"
    line = refused_on_the_command_line(cli("count", "-", stdin=json.dumps(doc).encode()))
    assert line == f"trample: {message}"


@pytest.mark.parametrize(("given", "read"), [
    (["TRAMPLE"], {"trample"}), (["Trample_Over-Planeswalkers"], {"trample over planeswalkers"}),
    (["first  strike", "Double_Strike"], {"first strike", "double strike"}),
    (["Toxic 2", "Infect", "Wither", "Lifelink"], {"toxic 2", "infect", "wither", "lifelink"}),
    (["toxic_3"], {"toxic 3"}), (["toxic 1", "Toxic-1", "toxic 2"], {"toxic 4"}),
])
def test_recognized_keywords_are_matched_loosely_and_kept(given: list[str],
                                                          read: set[str]) -> None:
    creature = Combat.from_json(combat_with(keywords=given)).creature("vessel")
    # Toxic is kept as its total (702.164c: the instances add up), the rest as keywords.
    toxic = sum(int(k.split()[1]) for k in read if k.startswith("toxic"))
    assert creature.keywords == {k for k in read if not k.startswith("toxic")}
    assert creature.toxic == toxic


@pytest.mark.parametrize(("keyword", "reason"), [
    ("Bands with other", "'Bands with other': 'bands with other' needs a quality, as in "
                         "'bands with other legendary creatures'"),
    ("Toxic 0", "'Toxic 0': toxic needs a number of at least 1"),
    ("Toxic -1", "'Toxic -1': toxic needs a number of at least 1"),
])
def test_unsupported_keywords_keep_their_message(keyword: str, reason: str) -> None:
    error = refusal(lambda: Combat.from_json(combat_with(keywords=[keyword])))
    assert (error.path, error.reason) == ("creatures[0].keywords[0]", reason)


def test_granted_keywords_in_a_state_are_read_with_the_same_rule() -> None:
    state = copy.deepcopy(TEACHINGS)
    state["battlefield"][0]["granted"] = ["Flying", "doublestrike"]
    error = refusal(lambda: apply(state, CLEANUP))
    assert (error.path, error.reason) == (
        "state.battlefield[0].granted[1]",
        "unknown keyword 'doublestrike': did you mean 'double strike'?")


# -- NumPy integers ----------------------------------------------------------------------


def test_numpy_integers_are_taken_wherever_integers_are() -> None:
    doc = copy.deepcopy(SPEC_EXAMPLE)
    doc["creatures"][0]["power"] = np.int64(5)
    doc["creatures"][1]["damage"] = np.int32(1)
    doc["players"][1]["life"] = np.uint8(20)
    combat = Combat.from_json(doc)
    assert combat == Combat.from_json(SPEC_EXAMPLE)
    assert type(combat.creature("vessel").power) is int
    assert api.count(doc) == {"count": 3}
    assert len(list(api.enumerate_assignments(doc, limit=np.int64(2)))) == 2
    assert len(list(api.sample(doc, n=np.int16(3), seed=np.int64(1)))) == 3
    assert api.solve(doc, time_limit=np.int64(5))["status"] == "optimal"
    assignment = [{"source": "vessel", "target": "wall", "amount": np.int64(5)}]
    assert api.validate(doc, assignment)["legal"] is True
    big = copy.deepcopy(SPEC_EXAMPLE)
    big["creatures"][0]["power"] = np.uint64(2**63)
    assert refusal(lambda: Combat.from_json(big)).reason == \
        "9223372036854775808 is out of range (magnitude at most 2^40)"
    state = copy.deepcopy(TEACHINGS)
    state["players"][0]["life"] = np.int64(7)
    assert apply(state, CLEANUP)["state"]["players"][0]["life"] == 7
    milled = apply(state, {"action": "mill", "player": "you", "count": np.int64(2)})
    assert len(milled["state"]["players"][0]["graveyard"]) == 2
    json.dumps(apply(state, CLEANUP))  # plain ints out


def test_booleans_are_still_not_integers() -> None:
    doc = combat_with(power=np.bool_(True))
    assert refusal(lambda: Combat.from_json(doc)).path == "creatures[0].power"


def test_sample_takes_a_numpy_generator_or_a_random_as_its_seed() -> None:
    doc = SPEC_EXAMPLE

    def draws(seed: object) -> list[Any]:
        return [a["assignment"] for a in api.sample(doc, n=20, seed=seed)]

    first = draws(np.random.default_rng(7))
    assert first == draws(np.random.default_rng(7))
    assert first == draws(int(np.random.default_rng(7).integers(2**40)))
    assert draws(random.Random(3)) == draws(random.Random(3))
    assert len({json.dumps(a) for a in first}) == 3  # all three assignments, uniform draws
    generator = np.random.default_rng(7)
    assert draws(generator) != draws(generator)  # the generator advances
    assert refusal(lambda: list(api.sample(doc, seed="7"))).path == "seed"


# -- the parsing benchmark ---------------------------------------------------------------


def test_the_parsing_benchmark_runs_and_names_every_defect() -> None:
    if str(ROOT) not in sys.path:  # benchmarks/ is not installed: import it from the checkout
        sys.path.insert(0, str(ROOT))
    from benchmarks import parsing

    rows = parsing.measure(repeat=1, quick=True)
    assert [r["document"] for r in rows] == list(parsing.DOCUMENTS)
    assert all(r["from_json"] > 0 for r in rows)
    found = parsing.messages()
    assert len(found) == len(parsing.BROKEN)
    for _, ours, _ in found:
        assert ours.startswith("creatures["), ours
