"""SPEC §11 on boards whose answers are worked out by hand from the rules, each also
checked against the brute force of tests/brute_blocks.py."""

from __future__ import annotations

import copy

import brute_blocks

from trample.solver.interface import api

DEFAULT = brute_blocks.DEFAULT_TERMS


def board(life: int, attackers: list[dict], blockers: list[dict]) -> dict:
    """One attacking player `ap` (life 20) against `dp`; attackers attack `dp`."""
    creatures = [{"controller": "ap", "attacking": "dp", **a} for a in attackers]
    creatures += [{"controller": "dp", **b} for b in blockers]
    return {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": life}],
            "creatures": creatures}


def decl(*pairs: tuple[str, str]) -> list[dict]:
    return [{"blocker": b, "attacker": a} for b, a in pairs]


def pairs_of(entries: list[dict]) -> set[tuple[str, str]]:
    return {(e["blocker"], e["attacker"]) for e in entries}


def value(answer: dict) -> dict[str, int]:
    return dict(answer["objective"])


def assert_best_block(doc: dict, blocks: set[tuple[str, str]], **terms: int) -> dict:
    """best_block answers ``blocks`` with these objective terms, as the brute force does."""
    got = api.best_block(doc, ties=True)
    assert got["status"] == "optimal"
    assert pairs_of(got["blocks"]) == blocks
    for term, expected in terms.items():
        assert got["objective"][term] == expected, term
    least, first, ties = brute_blocks.best_block(doc)
    assert first == blocks
    assert tuple(got["objective"].values()) == least
    assert got["ties"] == ties
    return got


def test_a_menace_attacker_blocked_by_one_creature_is_illegal() -> None:
    # CR 702.111b: a creature with menace can't be blocked except by two or more.
    doc = board(20, [{"id": "m", "power": 3, "toughness": 3, "keywords": ["Menace"]}],
                [{"id": "x", "power": 1, "toughness": 1},
                 {"id": "y", "power": 1, "toughness": 1}])
    one = api.check_blocks(doc, decl(("x", "m")))
    assert one["legal"] is False
    assert [(v["rule"], v["attacker"]) for v in one["violations"]] == [("509.1b", "m")]
    assert api.check_blocks(doc, decl(("x", "m"), ("y", "m")))["legal"] is True
    # No block, or both: the two declarations of one blocker are refused.
    assert api.count_blocks(doc)["count"] == 2 == brute_blocks.count(doc)
    assert api.enumerate_blocks(doc)["declarations"] == [[], decl(("x", "m"), ("y", "m"))]


def test_a_lure_makes_every_creature_able_to_block_it_do_so() -> None:
    # CR 509.1c: the declaration must obey as many requirements as possible; a lure is one
    # requirement for each creature of its defending player.
    doc = board(20, [{"id": "lure", "power": 1, "toughness": 1, "lure": True},
                     {"id": "big", "power": 5, "toughness": 5}],
                [{"id": "x", "power": 1, "toughness": 1},
                 {"id": "y", "power": 1, "toughness": 1},
                 {"id": "tapped", "power": 1, "toughness": 1, "tapped": True}])
    checked = api.check_blocks(doc, decl(("x", "lure"), ("y", "big")))
    assert checked["legal"] is False
    assert checked["requirements"] == {"obeyed": 1, "max": 2}
    assert [v["rule"] for v in checked["violations"]] == ["509.1c"]
    # The tapped creature can't block (509.1a): the only legal declaration is both
    # untapped creatures on the lure, whatever it costs the defender.
    assert api.enumerate_blocks(doc)["declarations"] == [decl(("x", "lure"), ("y", "lure"))]
    assert api.count_blocks(doc)["count"] == 1 == brute_blocks.count(doc)
    assert_best_block(doc, {("x", "lure"), ("y", "lure")}, life_loss=5)


def test_a_flyer_can_be_blocked_only_by_flying_or_reach() -> None:
    # CR 702.9b (flying), 702.17b (reach).
    doc = board(20, [{"id": "bird", "power": 2, "toughness": 2, "keywords": ["flying"]}],
                [{"id": "bear", "power": 2, "toughness": 2},
                 {"id": "spider", "power": 2, "toughness": 4, "keywords": ["Reach"]},
                 {"id": "drake", "power": 2, "toughness": 1, "keywords": ["Flying"]}])
    assert api.block_pairs(doc)["pairs"] == [["spider", "bird"], ["drake", "bird"]]
    checked = api.check_blocks(doc, decl(("bear", "bird")))
    assert checked["legal"] is False
    assert [(v["rule"], v["blocker"], v["attacker"]) for v in checked["violations"]] == [
        ("509.1a", "bear", "bird")]
    assert api.check_blocks(doc, decl(("spider", "bird")))["legal"] is True
    # The spider kills the bird and survives: the defender's best trade.
    assert_best_block(doc, {("spider", "bird")}, trade=-1, life_loss=0)


def test_a_chump_block_saves_the_game_at_low_life_and_only_then() -> None:
    # CR 510.1c: a blocked creature without trample deals no damage to the player; the
    # default objective puts the game first and the material second.
    attackers = [{"id": "giant", "power": 5, "toughness": 5}]
    blockers = [{"id": "squire", "power": 1, "toughness": 1, "value": 3}]
    low = board(4, attackers, blockers)
    assert_best_block(low, {("squire", "giant")}, losses=0, trade=3, life_loss=0)
    high = board(20, attackers, blockers)
    assert_best_block(high, set(), losses=0, trade=0, life_loss=5)


def test_a_gang_block_kills_a_big_attacker() -> None:
    # CR 509.1a, 510.1c: two blockers deal 4 to the 4/4; it can kill only one of them.
    doc = board(20, [{"id": "wurm", "power": 4, "toughness": 4, "value": 5}],
                [{"id": "x", "power": 2, "toughness": 3},
                 {"id": "y", "power": 2, "toughness": 3}])
    got = assert_best_block(doc, {("x", "wurm"), ("y", "wurm")}, trade=1 - 5, life_loss=0)
    # Either blocker alone dies for nothing.
    alone = api.evaluate_blocks(doc, [decl(("x", "wurm")), decl(("y", "wurm"))])
    assert [value(r)["trade"] for r in alone["results"]] == [1, 1]
    assert got["ties"] == 1


def test_first_strike_and_deathtouch_blockers_together_stop_a_trampler() -> None:
    # CR 702.7b: the first striker deals its damage first; CR 702.19b: the trampler must
    # assign lethal damage to every blocker (1 to the deathtouch one, 3 to the 3/3 already
    # counted) before the player; CR 702.2b: the deathtouch blocker then kills it.
    doc = board(3, [{"id": "trampler", "power": 4, "toughness": 4, "value": 3,
                     "keywords": ["trample"]}],
                [{"id": "knight", "power": 3, "toughness": 3, "keywords": ["first strike"]},
                 {"id": "viper", "power": 1, "toughness": 1, "keywords": ["deathtouch"]}])
    got = assert_best_block(doc, {("knight", "trampler"), ("viper", "trampler")},
                            losses=0, trade=2 - 3, life_loss=0)
    assert got["ties"] == 1
    results = api.evaluate_blocks(doc, [decl(("viper", "trampler")),
                                        decl(("knight", "trampler"))])["results"]
    # The viper alone lets 3 trample over: the defender loses.
    assert value(results[0])["losses"] == 1
    # The knight alone survives nothing: 3 to it, 1 over; the trampler lives.
    assert (value(results[1])["losses"], value(results[1])["trade"],
            value(results[1])["life_loss"]) == (0, 1, 1)


def test_a_first_strike_deathtouch_blocker_kills_before_it_is_dealt_damage() -> None:
    # CR 702.7b, 702.2b: it deals lethal damage in the first-strike step, the attacker
    # leaves combat (506.4) and deals none.
    doc = board(20, [{"id": "giant", "power": 6, "toughness": 6, "value": 4}],
                [{"id": "asp", "power": 1, "toughness": 1,
                  "keywords": ["first strike", "deathtouch"]}])
    assert_best_block(doc, {("asp", "giant")}, trade=-4, life_loss=0)


def test_a_value_1_blocker_trades_for_a_value_5_attacker() -> None:
    # SPEC §11: `trade` comes right after the game in the default objective.
    doc = board(20, [{"id": "dragon", "power": 3, "toughness": 3, "value": 5}],
                [{"id": "pawn", "power": 3, "toughness": 3, "value": 1},
                 {"id": "queen", "power": 3, "toughness": 3, "value": 5}])
    assert_best_block(doc, {("pawn", "dragon")}, trade=1 - 5, life_loss=0)
    # Blocking with the creature of equal value is a trade of nothing.
    results = api.evaluate_blocks(doc, [decl(("queen", "dragon"))])["results"]
    assert value(results[0])["trade"] == 0


def test_survivals_counts_the_creatures_that_stay_home() -> None:
    # SPEC §11: `survivals` counts every creature of the active player alive at the end.
    doc = board(20, [{"id": "bear", "power": 2, "toughness": 2, "value": 2}],
                [{"id": "wall", "power": 2, "toughness": 4}])
    doc["creatures"].append({"id": "home", "controller": "ap", "power": 1, "toughness": 1,
                             "value": 7})
    results = api.evaluate_blocks(doc, [[], decl(("wall", "bear"))],
                                  objective=["survivals", "life_loss"])["results"]
    assert [tuple(value(r).values()) for r in results] == [(9, 2), (7, 0)]


def test_the_best_attack_sends_what_the_blocks_cannot_stop() -> None:
    # CR 508.1a, 509.1a: one blocker stops one attacker; with 5 life the defender loses
    # to two 5/5s, and still blocks one with its deathtouch creature (trade 1 - 5).
    attackers = [{"id": f"g{i}", "controller": "ap", "power": 5, "toughness": 5,
                  "value": 5} for i in range(2)]
    doc = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": 5}],
           "creatures": [*attackers, {"id": "asp", "controller": "dp", "power": 1,
                                      "toughness": 1, "keywords": ["deathtouch"]}]}
    got = api.best_attack(doc, ties=True)
    assert got["status"] == "optimal"
    assert [(a["attacker"], a["target"]) for a in got["attacks"]] == [("g0", "dp"),
                                                                      ("g1", "dp")]
    assert (value(got)["losses"], value(got)["trade"]) == (1, 1 - 5)
    assert got["ties"] == 1
    # One 5/5 alone is blocked and dies (trade 1 - 5): keeping it home is better.
    one = copy.deepcopy(doc)
    one["creatures"] = [c for c in one["creatures"] if c["id"] != "g1"]
    alone = api.best_attack(one, ties=True)
    assert alone["attacks"] == [] and alone["ties"] == 1
    assert (value(alone)["losses"], value(alone)["trade"]) == (0, 0)
    for each, answer in ((doc, got), (one, alone)):
        best, first, ties, block = brute_blocks.best_attack(each)
        assert tuple((a["attacker"], a["target"]) for a in answer["attacks"]) == first
        assert tuple(answer["objective"].values()) == best
        assert answer["ties"] == ties
        assert pairs_of(answer["blocks"]) == block


def test_creatures_that_may_not_attack_stay_home() -> None:
    # CR 302.6 (summoning sickness, unless haste), 702.3b (defender), 508.1a (tapped),
    # 508.1d (must attack): only the hasty creature may attack, and it must.
    creatures = [
        {"id": "sick", "power": 3, "toughness": 3, "summoning_sick": True},
        {"id": "wall", "power": 0, "toughness": 5, "keywords": ["Defender"]},
        {"id": "tired", "power": 3, "toughness": 3, "tapped": True},
        {"id": "hasty", "power": 1, "toughness": 1, "summoning_sick": True,
         "keywords": ["haste"], "must_attack": True},
    ]
    doc = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp"}],
           "creatures": [{"controller": "ap", **c} for c in creatures]}
    doc["creatures"].append({"id": "guard", "controller": "dp", "power": 2,
                             "toughness": 2})
    got = api.best_attack(doc, ties=True)
    assert [(a["attacker"], a["target"]) for a in got["attacks"]] == [("hasty", "dp")]
    assert pairs_of(got["blocks"]) == {("guard", "hasty")}
    assert got["ties"] == 1
    assert brute_blocks.attack_declarations(doc) == [(("hasty", "dp"),)]
