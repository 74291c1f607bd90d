"""Known answers, each citing its source: SPEC.md's examples and the Comprehensive Rules'.

Every answer is also checked against the brute-force oracle (tests/brute.py).
"""

from __future__ import annotations

import copy
from typing import Any

import documents
import pytest
from documents import creature

from trample.models.document.combat import Combat
from trample.models.document.errors import InputError
from trample.solver.interface import api

import brute
from conftest import SPEC_EXAMPLE


def entries(*triples: tuple[str, str, int]) -> list[dict[str, Any]]:
    return [{"source": s, "target": t, "amount": a} for s, t, a in triples]


def as_set(result: list[dict[str, Any]]) -> frozenset[tuple[str, str, int]]:
    return frozenset((e["source"], e["target"], e["amount"]) for e in result)


def combat(*creatures: dict[str, Any], planeswalkers: list[dict[str, Any]] | None = None,
           players: list[dict[str, Any]] | None = None, **extra: Any) -> dict[str, Any]:
    return documents.combat(creatures, planeswalkers or (), players=players, **extra)


def all_legal(doc: dict, side: str = "attackers") -> set[frozenset[tuple[str, str, int]]]:
    found = {as_set(a["assignment"]) for a in api.enumerate_assignments(doc, side=side)}
    assert found == set(brute.legal_assignments(doc, side))
    assert api.count(doc, side=side)["count"] == len(found)
    return found


# SPEC §1: the example combat document.


def test_spec_example_legal_space() -> None:
    """SPEC §1/§2: vessel (5, trample) attacks jace; wall (toughness 4, 1 marked) needs 3."""
    assert all_legal(SPEC_EXAMPLE) == {
        as_set(entries(("vessel", "wall", 5))),
        as_set(entries(("vessel", "wall", 4), ("vessel", "jace", 1))),
        as_set(entries(("vessel", "wall", 3), ("vessel", "jace", 2))),
    }


def test_spec_example_assignment_is_legal() -> None:
    """SPEC §3: the example assignment (3 to wall, 2 to jace) is legal."""
    result = api.validate(SPEC_EXAMPLE, entries(("vessel", "wall", 3), ("vessel", "jace", 2)))
    assert result == {"legal": True, "violations": []}


def test_spec_example_solve() -> None:
    """The default objective: kill the wall (value 3), then damage jace."""
    result = api.solve(SPEC_EXAMPLE)
    assert result["status"] == "optimal"
    assert result["step"] == "regular" and result["side"] == "attackers"
    assert as_set(result["assignment"]) == as_set(entries(("vessel", "wall", 3),
                                                          ("vessel", "jace", 2)))
    assert result["objective"] == {"losses": 0, "deaths": 3, "survivals": 1,
                                   "planeswalker_deaths": 0,
                                   "battle_deaths": 0, "poison": 0, "life_loss": 0,
                                   "loyalty_loss": 2, "defense_loss": 0, "life_gain": 0}
    plain = api.solve(SPEC_EXAMPLE, objective=["lethal", "kills", "planeswalker_kills",
                                               "battle_kills", "player_damage",
                                               "planeswalker_damage", "battle_damage"])
    assert plain["assignment"] == result["assignment"]
    assert plain["objective"] == {"lethal": 0, "kills": 3, "planeswalker_kills": 0,
                                  "battle_kills": 0, "player_damage": 0,
                                  "planeswalker_damage": 2, "battle_damage": 0}


def test_spec_example_document_carries_options() -> None:
    """SPEC §5: the document may carry side and objective; options override them."""
    doc = {**SPEC_EXAMPLE, "objective": ["planeswalker_damage"]}
    assert api.solve(doc)["objective"] == {"planeswalker_damage": 2}
    assert api.solve(doc, objective=["kills"])["objective"] == {"kills": 3}
    assert api.count({**SPEC_EXAMPLE, "side": "blockers"})["count"] == 1


def test_spec_violation_message() -> None:
    """The message a player understands, for a trampler that passes damage too early."""
    doc = copy.deepcopy(SPEC_EXAMPLE)
    doc["creatures"][0]["power"] = 4
    doc["creatures"][0]["attacking"] = "dp"
    result = api.validate(doc, entries(("vessel", "wall", 2), ("vessel", "dp", 2)))
    assert result["legal"] is False
    assert result["violations"] == [{
        "rule": "702.19b", "source": "vessel", "target": "dp",
        "message": "vessel assigns 2 to dp, but wall (toughness 4, 1 damage marked) has "
                   "been assigned 2 of the 3 it needs first (702.19b)"}]


def test_cr_510_1c_five_splits() -> None:
    """CR 510.1c example: a 4/3 blocked by a 2/3 and a 1/1 has exactly five legal splits
    (it may divide its 4 damage any way between them, lethal or not)."""
    doc = combat(creature("a", "ap", 4, 3, attacking="dp"),
                 creature("b", "dp", 2, 3, blocking=["a"]),
                 creature("c", "dp", 1, 1, blocking=["a"]))
    legal = all_legal(doc)
    assert len(legal) == 5
    assert {sum(a for (_, t, a) in split if t == "b") for split in legal} == {0, 1, 2, 3, 4}


def test_cr_702_19b_shared_blocker() -> None:
    """CR 702.19b example: a 1/1 and a 3/3 trampler are blocked by one 2/2; the 1/1
    assigns 1 to it, so the trampler needs to assign only 1 to it and may assign 2 to
    the player."""
    doc = combat(creature("small", "ap", 1, 1, attacking="dp"),
                 creature("tramp", "ap", 3, 3, keywords=["Trample"], attacking="dp"),
                 creature("bear", "dp", 2, 2, blocking=["small", "tramp"]))
    best = entries(("small", "bear", 1), ("tramp", "bear", 1), ("tramp", "dp", 2))
    assert api.validate(doc, best)["legal"]
    too_far = entries(("small", "bear", 1), ("tramp", "dp", 3))
    assert not api.validate(doc, too_far)["legal"]
    result = api.solve(doc, objective=["player_damage"])
    assert result["objective"] == {"player_damage": 2}
    assert as_set(result["assignment"]) == as_set(best)
    all_legal(doc)


def test_cr_702_19b_protection() -> None:
    """CR 702.19b example: a 6/6 trampler blocked by a 2/2 with protection may assign 2 to
    the blocker and 4 to the player: lethal damage ignores what prevention would do."""
    doc = combat(creature("big", "ap", 6, 6, keywords=["Trample"], attacking="dp"),
                 creature("pro", "dp", 2, 2, keywords=["Protection from green"],
                          blocking=["big"]))
    assert api.validate(doc, entries(("big", "pro", 2), ("big", "dp", 4)))["legal"]
    result = api.solve(doc)
    assert as_set(result["assignment"]) == as_set(entries(("big", "pro", 2), ("big", "dp", 4)))
    all_legal(doc)


def test_cr_702_19c_trample_over_planeswalkers() -> None:
    """CR 702.19c example: a 1/1 and a 7/7 with trample over planeswalkers attack a
    planeswalker with loyalty 3; the 1/1 assigns 1, so the 7/7 may assign 2 to the
    planeswalker and 5 to its controller."""
    doc = combat(creature("small", "ap", 1, 1, attacking="pw"),
                 creature("big", "ap", 7, 7, keywords=["Trample over planeswalkers"],
                          attacking="pw"),
                 planeswalkers=[{"id": "pw", "controller": "dp", "loyalty": 3}])
    good = entries(("small", "pw", 1), ("big", "pw", 2), ("big", "dp", 5))
    assert api.validate(doc, good)["legal"]
    short = entries(("small", "pw", 1), ("big", "pw", 1), ("big", "dp", 6))
    result = api.validate(doc, short)
    assert [v["rule"] for v in result["violations"]] == ["702.19c"]
    solved = api.solve(doc, objective=["player_damage"])
    assert solved["objective"] == {"player_damage": 5}
    all_legal(doc)


def test_702_19d_blocked_with_no_blockers_left() -> None:
    """CR 702.19d: a blocked trampler whose blockers are gone assigns all to its target;
    without trample it assigns nothing (510.1c)."""
    tramp = combat(creature("t", "ap", 4, 4, keywords=["trample"], attacking="dp",
                            blocked=True))
    assert all_legal(tramp) == {as_set(entries(("t", "dp", 4)))}
    plain = combat(creature("t", "ap", 4, 4, attacking="dp", blocked=True))
    assert all_legal(plain) == {frozenset()}


def test_702_19e_planeswalker_removed_from_combat() -> None:
    """CR 702.19e: trample over planeswalkers, planeswalker removed from combat: all its
    damage to the controller; 702.19f: without it, none to the player."""
    walkers = [{"id": "pw", "controller": "dp", "loyalty": 3, "in_combat": False}]
    top = combat(creature("t", "ap", 4, 4, keywords=["trample over planeswalkers"],
                          attacking="pw"), planeswalkers=walkers)
    assert all_legal(top) == {as_set(entries(("t", "dp", 4)))}
    plain = combat(creature("t", "ap", 4, 4, keywords=["trample"], attacking="pw"),
                   planeswalkers=walkers)
    assert all_legal(plain) == {frozenset()}
    result = api.validate(plain, entries(("t", "dp", 4)))
    assert [v["rule"] for v in result["violations"]] == ["702.19f"]


def test_deathtouch_makes_one_lethal() -> None:
    """CR 702.2c and 702.19b: with deathtouch, 1 damage is lethal for trample."""
    doc = combat(creature("t", "ap", 5, 5, keywords=["Trample", "Deathtouch"],
                          attacking="dp"),
                 creature("w", "dp", 0, 8, blocking=["t"]))
    result = api.solve(doc)
    assert as_set(result["assignment"]) == as_set(entries(("t", "w", 1), ("t", "dp", 4)))
    all_legal(doc)


def test_first_strike_steps() -> None:
    """CR 510.4: in the first-strike step only first and double strikers assign; in the
    regular step double strikers and those without first strike."""
    doc = combat(creature("fs", "ap", 2, 2, keywords=["First strike"], attacking="dp"),
                 creature("ds", "ap", 3, 3, keywords=["Double_Strike"], attacking="dp"),
                 creature("plain", "ap", 4, 4, attacking="dp"))
    first = api.solve(doc)
    assert first["step"] == "first_strike"
    assert first["objective"]["life_loss"] == 5
    regular = api.solve({**doc, "step": "regular"})
    assert regular["objective"]["life_loss"] == 7


def test_blockers_side() -> None:
    """510.1d: a blocker divides its damage among the attackers it blocks; trample does
    nothing for a blocker (702.19a)."""
    doc = combat(creature("a1", "ap", 2, 2, attacking="dp"),
                 creature("a2", "ap", 2, 3, attacking="dp", value=5),
                 creature("b", "dp", 3, 3, keywords=["trample"], blocking=["a1", "a2"]))
    legal = all_legal(doc, "blockers")
    assert len(legal) == 4
    result = api.solve(doc, side="blockers")
    assert result["objective"] == {"life_kept": 0, "survivals": 1, "deaths": 5,
                                   "life_gain": 0}
    with pytest.raises(InputError, match="attackers' only"):
        api.solve(doc, side="blockers", objective=["lethal"])


def test_input_error_names_the_field() -> None:
    """SPEC §1: input errors name the offending field."""
    doc = combat(creature("a", "ap", 2, 2, attacking="dp"),
                 creature("b", "dp", 2, 2, blocking=["a"]),
                 creature("c", "dp", 2, 2, blocking=["ghost"]))
    with pytest.raises(InputError) as info:
        api.solve(doc)
    assert str(info.value) == "creatures[2].blocking[0]: 'ghost' is not an attacking creature"


@pytest.mark.parametrize(("keyword", "read"), [
    ("Banding", "banding"),
    ("bands with other legendary creatures", "bands with other legendary creatures"),
    ("Bands_With-Other Dinosaurs", "bands with other dinosaurs")])
def test_banding_keywords_are_read(keyword: str, read: str) -> None:
    """702.22: banding only moves who divides damage; an unblocked attacker with it
    still has its one split."""
    doc = combat(creature("a", "ap", 2, 2, keywords=[keyword], attacking="dp"))
    assert Combat.from_json(doc).creature("a").keywords == {read}
    assert api.count(doc)["count"] == 1


@pytest.mark.parametrize("spelling", ["trample over planeswalkers",
                                      "Trample_Over-Planeswalkers", "TRAMPLE  OVER_planeswalkers"])
def test_keyword_spellings(spelling: str) -> None:
    """SPEC §1: keywords match case-insensitively with _, - and spaces equal."""
    doc = combat(creature("t", "ap", 4, 4, keywords=[spelling], attacking="pw"),
                 planeswalkers=[{"id": "pw", "controller": "dp", "loyalty": 1}])
    assert api.validate(doc, entries(("t", "pw", 1), ("t", "dp", 3)))["legal"]
