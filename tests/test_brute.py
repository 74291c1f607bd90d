"""Tests of the brute-force oracle itself, on answers worked out by hand.

Every known answer cites where it comes from: a Comprehensive Rules example (CR numbers
as in SPEC.md, September 2025) or a SPEC.md section. The hypothesis tests at the end
check the oracle's internal consistency on generated documents.
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

try:
    from . import brute, strategies
    from .documents import A, combat, creature
except ImportError:  # tests/ is not a package: pytest puts tests/ on sys.path
    from documents import A, combat, creature

    import brute
    import strategies

ATTACKERS = "attackers"
BLOCKERS = "blockers"


# ---------------------------------------------------------------------------
# Helpers to write documents and assignments briefly
# ---------------------------------------------------------------------------


def as_dict(assignment):
    return {(s, t): a for s, t, a in assignment}


def legal_set(doc, side=ATTACKERS):
    result = brute.legal_assignments(doc, side)
    assert len(result) == len(set(result)), "legal_assignments repeated an assignment"
    return set(result)


# SPEC §1: the example document, verbatim.
SPEC_EXAMPLE = {
    "active_player": "ap",
    "players": [{"id": "ap", "life": 20}, {"id": "dp", "life": 20}],
    "creatures": [
        {
            "id": "vessel",
            "controller": "ap",
            "power": 5,
            "toughness": 5,
            "keywords": ["Trample"],
            "attacking": "jace",
        },
        {
            "id": "wall",
            "controller": "dp",
            "power": 0,
            "toughness": 4,
            "damage": 1,
            "value": 3,
            "blocking": ["vessel"],
        },
    ],
    "planeswalkers": [{"id": "jace", "controller": "dp", "loyalty": 3}],
    "battles": [{"id": "invasion", "protector": "dp", "defense": 5}],
    "step": "regular",
}


# ---------------------------------------------------------------------------
# Small pieces
# ---------------------------------------------------------------------------


def test_weak_compositions():
    assert brute.weak_compositions(4, 2) == [(0, 4), (1, 3), (2, 2), (3, 1), (4, 0)]
    assert len(brute.weak_compositions(5, 3)) == 21  # C(7, 2)
    assert brute.weak_compositions(3, 1) == [(3,)]
    assert brute.weak_compositions(0, 0) == [()]
    assert brute.weak_compositions(2, 0) == []


@pytest.mark.parametrize(
    "spelling, expected",
    [
        ("Trample_Over-Planeswalkers", "trample over planeswalkers"),  # SPEC §1 keywords
        ("FIRST STRIKE", "first strike"),
        ("double-strike", "double strike"),
        ("  Deathtouch ", "deathtouch"),
        ("first__strike", "first strike"),
        ("trample  over - planeswalkers", "trample over planeswalkers"),
        ("Flying", "flying"),
    ],
)
def test_normalize_keyword(spelling, expected):
    assert brute.normalize_keyword(spelling) == expected


def test_default_objective():
    # SPEC §7 defaults; SPEC §4's, before them, are `plain_objective`.
    assert brute.default_objective(ATTACKERS) == [
        "losses", "deaths", "planeswalker_deaths", "battle_deaths", "poison", "life_loss",
        "loyalty_loss", "defense_loss", "life_gain",
    ]
    assert brute.default_objective(BLOCKERS) == ["deaths", "life_gain"]
    assert brute.plain_objective(ATTACKERS) == [
        "lethal",
        "kills",
        "planeswalker_kills",
        "battle_kills",
        "player_damage",
        "planeswalker_damage",
        "battle_damage",
    ]
    assert brute.plain_objective(BLOCKERS) == ["kills"]


def test_effective_step():
    # SPEC §1 `step`: explicit value wins; else first_strike iff a creature that is
    # attacking or blocking has first strike or double strike.
    plain = creature("x", "ap", 2, 2, attacking="dp")
    assert brute.effective_step(combat([plain])) == "regular"
    assert brute.effective_step(combat([plain], step="first_strike")) == "first_strike"
    fs = creature("y", "ap", 2, 2, attacking="dp", keywords=["First_Strike"])
    assert brute.effective_step(combat([plain, fs])) == "first_strike"
    assert brute.effective_step(combat([plain, fs], step="regular")) == "regular"
    ds_blocker = creature("z", "dp", 1, 1, blocking=["x"], keywords=["DOUBLE STRIKE"])
    assert brute.effective_step(combat([plain, ds_blocker])) == "first_strike"
    # A first striker that neither attacks nor blocks does not count.
    idle = creature("w", "dp", 1, 1, keywords=["first strike"])
    assert brute.effective_step(combat([plain, idle])) == "regular"


# ---------------------------------------------------------------------------
# Known answers: who assigns, and to whom (SPEC §2)
# ---------------------------------------------------------------------------


def test_cr_510_1c_blocked_by_two_any_split():
    # CR 510.1c example: a 4/3 (no trample) blocked by a 2/3 and a 1/1 may split its 4
    # damage among them in any way: 0+4, 1+3, 2+2, 3+1, 4+0, five legal splits.
    doc = combat(
        [
            creature("big", "ap", 4, 3, attacking="dp"),
            creature("b23", "dp", 2, 3, blocking=["big"]),
            creature("b11", "dp", 1, 1, blocking=["big"]),
        ]
    )
    assert brute.assigning_sources(doc, ATTACKERS) == [("big", 4)]
    assert brute.recipients(doc, ATTACKERS, "big") == ["b23", "b11"]
    expected = {A(("big", "b23", k), ("big", "b11", 4 - k)) for k in range(5)}
    assert legal_set(doc) == expected
    assert len(expected) == 5
    # Nothing to the player without trample.
    assert not brute.is_legal(doc, ATTACKERS, {("big", "b23"): 3, ("big", "dp"): 1})


def test_cr_702_19b_other_attacker_counts_toward_lethal():
    # CR 702.19b example: a 1/1 and a 3/3 trampler are both blocked by one 2/2. The 1/1
    # assigns 1 to the 2/2, so the trampler needs to assign only 1 to it and may assign
    # 2 to the player. Worked out: the 1/1 must give 1 to the 2/2; the 3/3 gives x to the
    # 2/2 and 3-x to dp, and dp > 0 needs 1+x >= 2. So x in {1, 2, 3}: 3 assignments.
    doc = combat(
        [
            creature("small", "ap", 1, 1, attacking="dp"),
            creature("tram", "ap", 3, 3, attacking="dp", keywords=["Trample"]),
            creature("bear", "dp", 2, 2, blocking=["small", "tram"]),
        ]
    )
    legal = legal_set(doc)
    good = {("small", "bear"): 1, ("tram", "bear"): 1, ("tram", "dp"): 2}
    assert brute.is_legal(doc, ATTACKERS, good)
    assert A(("small", "bear", 1), ("tram", "bear", 1), ("tram", "dp", 2)) in legal
    assert not brute.is_legal(doc, ATTACKERS, {("small", "bear"): 1, ("tram", "dp"): 3})
    assert legal == {
        A(("small", "bear", 1), ("tram", "bear", x), ("tram", "dp", 3 - x)) for x in (1, 2, 3)
    }
    # Blockers side: the 2/2 splits 2 among the two attackers it blocks (510.1d): 3 ways.
    assert legal_set(doc, BLOCKERS) == {
        A(("bear", "small", k), ("bear", "tram", 2 - k)) for k in range(3)
    }


def test_cr_702_19b_protection_does_not_change_lethal():
    # CR 702.19b example: a 6/6 trampler blocked by a 2/2 with protection from green
    # (an unknown keyword here, ignored): it may assign 2 to the blocker and 4 to the
    # player. x to the 2/2 with x >= 2 or x = 6: x in {2, ..., 6}, 5 assignments.
    doc = combat(
        [
            creature("wurm", "ap", 6, 6, attacking="dp", keywords=["trample"]),
            creature("knight", "dp", 2, 2, blocking=["wurm"], keywords=["Protection from Green"]),
        ]
    )
    assert brute.is_legal(doc, ATTACKERS, {("wurm", "knight"): 2, ("wurm", "dp"): 4})
    assert not brute.is_legal(doc, ATTACKERS, {("wurm", "knight"): 1, ("wurm", "dp"): 5})
    assert legal_set(doc) == {A(("wurm", "knight", x), ("wurm", "dp", 6 - x)) for x in range(2, 7)}


def test_cr_702_19c_trample_over_planeswalkers():
    # CR 702.19c example: a 1/1 (no trample) and a 7/7 with trample over planeswalkers
    # attack a planeswalker with loyalty 3; the 1/1 assigns 1 to it, so the 7/7 may
    # assign 2 to the planeswalker and 5 to its controller. Worked out: the 7/7 gives x
    # to pw and 7-x to dp; dp > 0 needs 1+x >= 3. x in {2, ..., 7}: 6 assignments.
    doc = combat(
        [
            creature("mite", "ap", 1, 1, attacking="pw"),
            creature("titan", "ap", 7, 7, attacking="pw", keywords=["Trample Over Planeswalkers"]),
        ],
        planeswalkers=[{"id": "pw", "controller": "dp", "loyalty": 3}],
    )
    assert brute.recipients(doc, ATTACKERS, "titan") == ["pw", "dp"]
    assert brute.recipients(doc, ATTACKERS, "mite") == ["pw"]
    assert brute.is_legal(
        doc, ATTACKERS, {("mite", "pw"): 1, ("titan", "pw"): 2, ("titan", "dp"): 5}
    )
    assert not brute.is_legal(
        doc, ATTACKERS, {("mite", "pw"): 1, ("titan", "pw"): 1, ("titan", "dp"): 6}
    )
    assert legal_set(doc) == {
        A(("mite", "pw", 1), ("titan", "pw", x), ("titan", "dp", 7 - x)) for x in range(2, 8)
    }


def test_702_19c_blocked_top_attacking_planeswalker():
    # SPEC §2 row "blocked, trample over planeswalkers, T a live planeswalker": a 4/4 TOP
    # blocked by a 1/1, attacking pw with loyalty 2. y to the 1/1, p to pw, c to dp,
    # y+p+c = 4; p > 0 needs y >= 1; c > 0 needs y >= 1 and p >= 2. By hand:
    # y=4: (p,c)=(0,0). y=3: (1,0) [(0,1) fails p >= 2]. y=2: (2,0) [(1,1), (0,2) fail].
    # y=1: (3,0), (2,1) [(1,2), (0,3) fail]. y=0: nothing (p or c > 0 without lethal).
    # Five legal assignments.
    doc = combat(
        [
            creature("top", "ap", 4, 4, attacking="pw", keywords=["trample_over_planeswalkers"]),
            creature("chump", "dp", 1, 1, blocking=["top"]),
        ],
        planeswalkers=[{"id": "pw", "controller": "dp", "loyalty": 2}],
    )
    assert brute.recipients(doc, ATTACKERS, "top") == ["chump", "pw", "dp"]
    expected = set()
    for y in range(5):
        for p in range(5 - y):
            c = 4 - y - p
            if p > 0 and y < 1:
                continue
            if c > 0 and not (y >= 1 and p >= 2):
                continue
            expected.add(A(("top", "chump", y), ("top", "pw", p), ("top", "dp", c)))
    # Written out: y=4 (0,0); y=3 (1,0); y=2 (2,0); y=1 (3,0), (2,1); y=0 nothing legal.
    assert expected == {
        A(("top", "chump", 4)),
        A(("top", "chump", 3), ("top", "pw", 1)),
        A(("top", "chump", 2), ("top", "pw", 2)),
        A(("top", "chump", 1), ("top", "pw", 3)),
        A(("top", "chump", 1), ("top", "pw", 2), ("top", "dp", 1)),
    }
    assert legal_set(doc) == expected


def test_spec_example_document():
    # SPEC §1 example, side attackers. vessel (5/5, plain trample) attacks jace (live:
    # in_combat defaults to true) and is blocked by wall (0/4, 1 damage: needs 3). Row
    # "blocked, trample, T live": recipients wall and jace; jace > 0 only if wall gets
    # >= 3. Of the 6 splits x to wall (x = 0..5), x = 0, 1, 2 send damage to jace
    # without lethal on wall: illegal. Legal: wall 3 + jace 2, wall 4 + jace 1, wall 5.
    # dp is never a recipient (702.19f: plain trample attacking a planeswalker).
    doc = copy.deepcopy(SPEC_EXAMPLE)
    assert brute.effective_step(doc) == "regular"
    assert brute.assigning_sources(doc, ATTACKERS) == [("vessel", 5)]
    assert brute.recipients(doc, ATTACKERS, "vessel") == ["wall", "jace"]
    legal = legal_set(doc)
    assert legal == {
        A(("vessel", "wall", 3), ("vessel", "jace", 2)),
        A(("vessel", "wall", 4), ("vessel", "jace", 1)),
        A(("vessel", "wall", 5)),
    }
    # SPEC §3 example assignment: wall 3, jace 2 is legal.
    assert brute.is_legal(doc, ATTACKERS, {("vessel", "wall"): 3, ("vessel", "jace"): 2})
    assert not brute.is_legal(doc, ATTACKERS, {("vessel", "wall"): 2, ("vessel", "jace"): 3})
    assert not brute.is_legal(doc, ATTACKERS, {("vessel", "wall"): 3, ("vessel", "dp"): 2})
    # Objectives (SPEC §4 defaults): lethal 0 (dp at 20); kills 3 (wall, value 3, is
    # lethally assigned in every legal assignment); planeswalker_kills 0 (jace gets at
    # most 2 < 3); battle_kills 0 (nobody attacks invasion, so it is not in combat);
    # player_damage 0; planeswalker_damage at most 2; battle_damage 0.
    terms = brute.plain_objective(ATTACKERS)
    all_to_wall = (0, 3, 0, 0, 0, 0, 0)
    assert brute.objective(doc, ATTACKERS, A(("vessel", "wall", 5)), terms) == all_to_wall
    assert brute.optimum(doc, ATTACKERS, terms) == (0, 3, 0, 0, 0, 2, 0)
    # The same in the outcome terms of §7 (no §7 fields: the same values, plus zeros).
    terms = brute.default_objective(ATTACKERS)
    all_to_wall = (0, 3, 0, 0, 0, 0, 0, 0, 0)
    assert brute.objective(doc, ATTACKERS, A(("vessel", "wall", 5)), terms) == all_to_wall
    assert brute.optimum(doc, ATTACKERS, terms) == (0, 3, 0, 0, 0, 0, 2, 0, 0)
    # Side blockers: wall has power 0 and assigns nothing (510.1a): one legal (empty).
    assert brute.assigning_sources(doc, BLOCKERS) == []
    assert brute.legal_assignments(doc, BLOCKERS) == [frozenset()]
    assert brute.optimum(doc, BLOCKERS, ["kills"]) == (0,)


def test_deathtouch_makes_one_lethal():
    # CR 702.2c / 702.19b: with deathtouch, 1 is lethal. A 3/3 deathtouch trampler
    # blocked by a 4/4: x to the 4/4 with x >= 1: x in {1, 2, 3}.
    doc = combat(
        [
            creature("dt", "ap", 3, 3, attacking="dp", keywords=["Deathtouch", "trample"]),
            creature("ox", "dp", 2, 4, blocking=["dt"]),
        ]
    )
    assert legal_set(doc) == {A(("dt", "ox", x), ("dt", "dp", 3 - x)) for x in (1, 2, 3)}
    assert brute.is_legal(doc, ATTACKERS, {("dt", "ox"): 1, ("dt", "dp"): 2})
    assert not brute.is_legal(doc, ATTACKERS, {("dt", "dp"): 3})
    # kills: 1 deathtouch damage kills the 4/4 (value 1 by default).
    assert brute.objective(doc, ATTACKERS, {("dt", "ox"): 1, ("dt", "dp"): 2}, ["kills"]) == (1,)
    assert brute.optimum(doc, ATTACKERS, ["player_damage", "kills"]) == (2, 1)


def test_deathtouch_of_another_source_counts():
    # SPEC §2: lethally assigned is judged over the whole assignment; a 1/1 deathtouch
    # (no trample) and a 3/3 trampler both blocked by a 5/5: the deathtouch point makes
    # the 5/5 lethally assigned, so the trampler may send all 3 to the player.
    doc = combat(
        [
            creature("asp", "ap", 1, 1, attacking="dp", keywords=["deathtouch"]),
            creature("tram", "ap", 3, 3, attacking="dp", keywords=["TRAMPLE"]),
            creature("giant", "dp", 5, 5, blocking=["asp", "tram"]),
        ]
    )
    assert legal_set(doc) == {
        A(("asp", "giant", 1), ("tram", "giant", x), ("tram", "dp", 3 - x)) for x in range(4)
    }


def test_indestructible_blocker_still_needs_lethal():
    # CR 702.19b / SPEC §2: indestructible does not change lethal damage. A 5/5 trampler
    # blocked by a 3/3 indestructible: x >= 3 to it, x in {3, 4, 5}.
    doc = combat(
        [
            creature("t", "ap", 5, 5, attacking="dp", keywords=["trample"]),
            creature("god", "dp", 3, 3, blocking=["t"], keywords=["Indestructible"]),
        ]
    )
    assert legal_set(doc) == {A(("t", "god", x), ("t", "dp", 5 - x)) for x in (3, 4, 5)}
    # kills: an indestructible creature is never counted (SPEC §4).
    assert brute.optimum(doc, ATTACKERS, ["kills"]) == (0,)
    assert brute.optimum(doc, ATTACKERS, ["player_damage"]) == (2,)


def test_already_lethal_blocker():
    # SPEC §2 / project decision: need = toughness - damage; need <= 0 is lethal with
    # nothing assigned. A 3/3 trampler blocked by a 2/2 with 2 damage marked: every
    # split of 3 between the 2/2 and dp is legal (4 of them).
    doc = combat(
        [
            creature("t", "ap", 3, 3, attacking="dp", keywords=["trample"]),
            creature("hurt", "dp", 2, 2, damage=2, blocking=["t"]),
        ]
    )
    assert legal_set(doc) == {A(("t", "hurt", x), ("t", "dp", 3 - x)) for x in range(4)}
    assert brute.objective(doc, ATTACKERS, {("t", "dp"): 3}, ["kills"]) == (1,)
    # Toughness 0: also lethal with nothing.
    doc["creatures"][1] = creature("zero", "dp", 1, 0, blocking=["t"])
    assert brute.is_legal(doc, ATTACKERS, {("t", "dp"): 3})


def test_two_tramplers_share_one_blocker():
    # CR 702.19b ("damage from other creatures being assigned during the same step"):
    # two 2/2 tramplers blocked by one 3/3. x1, x2 to the 3/3; a trampler sends its rest
    # to dp only if x1 + x2 >= 3. (2,2), (1,2), (2,1) legal; every other pair sends
    # something past an unlethal blocker: 3 legal.
    doc = combat(
        [
            creature("t1", "ap", 2, 2, attacking="dp", keywords=["trample"]),
            creature("t2", "ap", 2, 2, attacking="dp", keywords=["trample"]),
            creature("wall", "dp", 0, 3, blocking=["t1", "t2"]),
        ]
    )
    assert legal_set(doc) == {
        A(("t1", "wall", 2), ("t2", "wall", 2)),
        A(("t1", "wall", 1), ("t1", "dp", 1), ("t2", "wall", 2)),
        A(("t1", "wall", 2), ("t2", "wall", 1), ("t2", "dp", 1)),
    }


def test_first_strike_step():
    # CR 510.4 / SPEC §2: in the first_strike step only first strike and double strike
    # creatures assign; in the regular step double strike and no first strike.
    doc = combat(
        [
            creature("fs", "ap", 2, 2, attacking="dp", keywords=["First Strike"]),
            creature("ds", "ap", 3, 3, attacking="dp", keywords=["double_strike"]),
            creature("plain", "ap", 1, 1, attacking="dp"),
            creature("blk", "dp", 1, 1, blocking=["plain"], keywords=["first-strike"]),
        ]
    )
    assert brute.effective_step(doc) == "first_strike"
    assert brute.assigning_sources(doc, ATTACKERS) == [("fs", 2), ("ds", 3)]
    assert brute.legal_assignments(doc, ATTACKERS) == [A(("fs", "dp", 2), ("ds", "dp", 3))]
    assert brute.assigning_sources(doc, BLOCKERS) == [("blk", 1)]
    # Not assigning in this step: "plain" may not give anything, even to its blocker.
    assert not brute.is_legal(
        doc, ATTACKERS, {("fs", "dp"): 2, ("ds", "dp"): 3, ("plain", "blk"): 1}
    )
    doc["step"] = "regular"
    assert brute.assigning_sources(doc, ATTACKERS) == [("ds", 3), ("plain", 1)]
    assert brute.legal_assignments(doc, ATTACKERS) == [A(("ds", "dp", 3), ("plain", "blk", 1))]
    assert brute.assigning_sources(doc, BLOCKERS) == []
    assert brute.legal_assignments(doc, BLOCKERS) == [frozenset()]


def test_blocked_true_no_blockers_trample():
    # CR 702.19d / SPEC §2: a trampler that was blocked but whose blockers are all gone
    # assigns all its damage to what it attacks ("all B lethally assigned" holds).
    doc = combat([creature("t", "ap", 4, 4, attacking="dp", blocked=True, keywords=["Trample"])])
    assert brute.recipients(doc, ATTACKERS, "t") == ["dp"]
    assert brute.legal_assignments(doc, ATTACKERS) == [A(("t", "dp", 4))]


def test_blocked_true_no_blockers_top_attacking_planeswalker():
    # CR 702.19d with 702.19c: a 4/4 TOP blocked, blockers gone, attacking a live pw with
    # loyalty 3: p to pw, 4-p to dp, dp > 0 needs p >= 3: p in {3, 4}.
    keywords = ["TRAMPLE OVER PLANESWALKERS"]
    doc = combat(
        [creature("t", "ap", 4, 4, attacking="pw", blocked=True, keywords=keywords)],
        planeswalkers=[{"id": "pw", "controller": "dp", "loyalty": 3}],
    )
    assert legal_set(doc) == {A(("t", "pw", 4)), A(("t", "pw", 3), ("t", "dp", 1))}


def test_blocked_true_no_blockers_no_trample():
    # CR 510.1c / SPEC §2 "blocked, no trample, B empty": assigns nothing.
    doc = combat([creature("x", "ap", 4, 4, attacking="dp", blocked=True)])
    assert brute.recipients(doc, ATTACKERS, "x") == []
    assert brute.assigning_sources(doc, ATTACKERS) == []
    assert brute.legal_assignments(doc, ATTACKERS) == [frozenset()]
    assert brute.is_legal(doc, ATTACKERS, {})
    assert brute.is_legal(doc, ATTACKERS, {("x", "dp"): 0})  # a zero entry means nothing
    assert not brute.is_legal(doc, ATTACKERS, {("x", "dp"): 4})


def test_702_19e_top_planeswalker_removed_from_combat():
    # CR 702.19e: TOP attacking a planeswalker removed from combat: unblocked, all its
    # damage goes to the controller; blocked, the controller only after lethal to B.
    pw = {"id": "pw", "controller": "dp", "loyalty": 4, "in_combat": False}
    top = creature("t", "ap", 3, 3, attacking="pw", keywords=["trample over planeswalkers"])
    doc = combat([top], planeswalkers=[pw])
    assert brute.recipients(doc, ATTACKERS, "t") == ["dp"]
    assert brute.legal_assignments(doc, ATTACKERS) == [A(("t", "dp", 3))]
    # planeswalker_kills: a planeswalker out of combat never counts (SPEC §4).
    assert brute.optimum(doc, ATTACKERS, ["player_damage", "planeswalker_kills"]) == (3, 0)

    blocker = creature("b", "dp", 1, 2, blocking=["t"])
    doc = combat([top, blocker], planeswalkers=[pw])
    assert brute.recipients(doc, ATTACKERS, "t") == ["b", "dp"]
    assert legal_set(doc) == {A(("t", "b", x), ("t", "dp", 3 - x)) for x in (2, 3)}

    # The same with plain trample: out-of-combat target, so only the blockers (SPEC §2
    # "blocked, trample, T not live, otherwise"), and nothing at all when unblocked.
    plain = creature("t", "ap", 3, 3, attacking="pw", keywords=["trample"])
    doc = combat([plain, blocker], planeswalkers=[pw])
    assert brute.recipients(doc, ATTACKERS, "t") == ["b"]
    assert brute.legal_assignments(doc, ATTACKERS) == [A(("t", "b", 3))]
    doc = combat([plain], planeswalkers=[pw])
    assert brute.legal_assignments(doc, ATTACKERS) == [frozenset()]


def test_702_19f_plain_trample_never_reaches_controller():
    # CR 702.19f: without trample over planeswalkers, an attacker of a planeswalker
    # never assigns to its controller, whatever its power.
    pw = {"id": "pw", "controller": "dp", "loyalty": 2}
    t = creature("t", "ap", 5, 5, attacking="pw", keywords=["Trample"])
    doc = combat([t], planeswalkers=[pw])
    assert brute.recipients(doc, ATTACKERS, "t") == ["pw"]
    assert brute.legal_assignments(doc, ATTACKERS) == [A(("t", "pw", 5))]
    assert not brute.is_legal(doc, ATTACKERS, {("t", "pw"): 2, ("t", "dp"): 3})
    doc = combat([t, creature("b", "dp", 1, 1, blocking=["t"])], planeswalkers=[pw])
    assert brute.recipients(doc, ATTACKERS, "t") == ["b", "pw"]
    assert legal_set(doc) == {A(("t", "b", x), ("t", "pw", 5 - x)) for x in range(1, 6)}


def test_battle_targets():
    # SPEC §2: a battle in combat is a live target; removed from combat it is not.
    battle = {"id": "bt", "protector": "dp", "defense": 3}
    t = creature("t", "ap", 2, 2, attacking="bt", keywords=["trample"])
    doc = combat([t, creature("b", "dp", 1, 1, blocking=["t"])], battles=[battle])
    assert legal_set(doc) == {A(("t", "b", 2)), A(("t", "b", 1), ("t", "bt", 1))}
    doc["battles"][0]["in_combat"] = False
    assert legal_set(doc) == {A(("t", "b", 2))}


def test_blocker_side():
    # CR 510.1d / 702.19a: a blocker splits its damage among the attackers it blocks in
    # any way; trample on a blocker does nothing. A 3/3 trample blocker blocking two
    # attackers: 4 splits. Its power never reaches the attacking player.
    doc = combat(
        [
            creature("a1", "ap", 1, 1, attacking="dp"),
            creature("a2", "ap", 1, 1, attacking="dp"),
            creature("b", "dp", 3, 3, blocking=["a1", "a2"], keywords=["Trample"]),
        ]
    )
    assert brute.recipients(doc, BLOCKERS, "b") == ["a1", "a2"]
    assert legal_set(doc, BLOCKERS) == {A(("b", "a1", k), ("b", "a2", 3 - k)) for k in range(4)}
    assert not brute.is_legal(doc, BLOCKERS, {("b", "a1"): 2, ("b", "ap"): 1})
    # kills for side blockers: the attackers (value 1 each); both can die (1 + 2).
    assert brute.optimum(doc, BLOCKERS, ["kills"]) == (2,)
    assert brute.objective(doc, BLOCKERS, {("b", "a1"): 3}, ["kills"]) == (1,)


def test_nonpositive_power_assigns_nothing():
    # CR 510.1a: power 0 or less assigns nothing.
    doc = combat(
        [
            creature("zero", "ap", 0, 1, attacking="dp"),
            creature("neg", "ap", -2, 1, attacking="dp"),
        ]
    )
    assert brute.assigning_sources(doc, ATTACKERS) == []
    assert brute.legal_assignments(doc, ATTACKERS) == [frozenset()]


def test_is_legal_rejects_wrong_sums_and_targets():
    # SPEC §3: exactly its power, to its recipients, from assigning creatures only.
    doc = combat(
        [
            creature("x", "ap", 3, 3, attacking="dp"),
            creature("idle", "ap", 2, 2),
        ]
    )
    assert brute.is_legal(doc, ATTACKERS, {("x", "dp"): 3})
    assert brute.is_legal(doc, ATTACKERS, {("x", "dp"): 3, ("idle", "dp"): 0})
    assert not brute.is_legal(doc, ATTACKERS, {("x", "dp"): 2})
    assert not brute.is_legal(doc, ATTACKERS, {("x", "dp"): 4})
    assert not brute.is_legal(doc, ATTACKERS, {})
    assert not brute.is_legal(doc, ATTACKERS, {("x", "dp"): 2, ("x", "ap"): 1})
    assert not brute.is_legal(doc, ATTACKERS, {("x", "dp"): 3, ("idle", "dp"): 1})
    # As a frozenset of triples too.
    assert brute.is_legal(doc, ATTACKERS, A(("x", "dp", 3)))


# ---------------------------------------------------------------------------
# Known answers: objectives (SPEC §4)
# ---------------------------------------------------------------------------


def test_objective_lethal_counts_every_defending_player():
    # SPEC §4 lethal: players other than the active one, attacked or not, with life
    # minus assigned damage <= 0. d1 at 3 takes 3 (lethal); d2 at 0 takes nothing (lethal
    # all the same); d3 at 5 takes 2 (not); ap at -5 is the active player (never counted).
    players = [
        {"id": "ap", "life": -5},
        {"id": "d1", "life": 3},
        {"id": "d2", "life": 0},
        {"id": "d3", "life": 5},
    ]
    doc = combat(
        [
            creature("x", "ap", 3, 3, attacking="d1"),
            creature("y", "ap", 2, 2, attacking="d3"),
        ],
        players=players,
    )
    assignment = {("x", "d1"): 3, ("y", "d3"): 2}
    assert brute.is_legal(doc, ATTACKERS, assignment)
    assert brute.objective(doc, ATTACKERS, assignment, ["lethal", "player_damage"]) == (2, 5)
    # life defaults to 20.
    doc["players"] = [{"id": "ap"}, {"id": "d1"}, {"id": "d3", "life": 2}]
    doc["creatures"][0]["power"] = 20
    assert brute.objective(doc, ATTACKERS, {("x", "d1"): 20, ("y", "d3"): 2}, ["lethal"]) == (2,)
    assert brute.objective(doc, ATTACKERS, {("x", "d1"): 19, ("y", "d3"): 1}, ["lethal"]) == (0,)


def test_objective_kills_values_and_indestructible():
    # SPEC §4 kills, side attackers: sum of `value` (default 1, may be negative) of the
    # blockers lethally assigned and not indestructible. Blockers: neg (2/2, value -2),
    # ind (1/1 indestructible, value 4), dflt (3/3, no value -> 1), dead (2/2 with 5
    # damage: lethal with nothing assigned, value 7). An idle creature never counts.
    doc = combat(
        [
            creature("a", "ap", 6, 6, attacking="dp"),
            creature("neg", "dp", 0, 2, value=-2, blocking=["a"]),
            creature("ind", "dp", 0, 1, value=4, blocking=["a"], keywords=["indestructible"]),
            creature("dflt", "dp", 0, 3, blocking=["a"]),
            creature("dead", "dp", 0, 2, damage=5, value=7, blocking=["a"]),
            creature("idle", "dp", 0, 0, value=100),
        ]
    )
    k = ["kills"]
    assert brute.objective(doc, ATTACKERS, {("a", "ind"): 6}, k) == (7,)
    assert brute.objective(doc, ATTACKERS, {("a", "neg"): 2, ("a", "dflt"): 4}, k) == (6,)
    assert brute.objective(doc, ATTACKERS, {("a", "dflt"): 3, ("a", "ind"): 3}, k) == (8,)
    # Best: kill dflt (3), avoid neg: 7 + 1 = 8.
    assert brute.optimum(doc, ATTACKERS, k) == (8,)


def test_objective_planeswalker_and_battle_kills():
    # SPEC §4 (project reading): "in combat" = in_combat not false AND attacked by some
    # creature; a kill = total assigned >= loyalty (defense), so <= 0 counts with nothing.
    doc = combat(
        [
            creature("x", "ap", 2, 2, attacking="pw_hit"),
            creature("y", "ap", 1, 1, attacking="pw_zero"),
            creature("z", "ap", 3, 3, attacking="bt_hit"),
            creature("w", "ap", 1, 1, attacking="pw_out", keywords=["trample over planeswalkers"]),
            creature("v", "ap", 1, 1, attacking="bt_out"),
        ],
        planeswalkers=[
            {"id": "pw_hit", "controller": "dp", "loyalty": 2},  # gets 2: killed
            {"id": "pw_zero", "controller": "dp", "loyalty": 0},  # attacked, 0 loyalty
            {"id": "pw_idle", "controller": "dp", "loyalty": 0},  # not attacked
            {"id": "pw_out", "controller": "dp", "loyalty": -1, "in_combat": False},
        ],
        battles=[
            {"id": "bt_hit", "protector": "dp", "defense": 4},  # gets 3: survives
            {"id": "bt_idle", "protector": "dp", "defense": -1},  # not attacked
            {"id": "bt_out", "protector": "dp", "defense": 0, "in_combat": False},
        ],
    )
    legal = brute.legal_assignments(doc, ATTACKERS)
    # x -> pw_hit 2, y -> pw_zero 1, z -> bt_hit 3, w -> dp 1 (702.19e), v nothing.
    assert legal == [A(("x", "pw_hit", 2), ("y", "pw_zero", 1), ("z", "bt_hit", 3), ("w", "dp", 1))]
    terms = [
        "planeswalker_kills",
        "battle_kills",
        "player_damage",
        "planeswalker_damage",
        "battle_damage",
        "lethal",
    ]
    assert brute.objective(doc, ATTACKERS, legal[0], terms) == (2, 0, 1, 3, 3, 0)
    # bt_hit with defense 3 instead: killed.
    doc["battles"][0]["defense"] = 3
    assert brute.objective(doc, ATTACKERS, legal[0], ["battle_kills"]) == (1,)


def test_objective_damage_sums_and_lexicographic_optimum():
    # SPEC §4: lexicographic, first term most important. A 4/4 TOP blocked by a 2/2,
    # attacking pw (loyalty 1) of dp at life 3. Legal (y to the 2/2, p pw, c dp):
    # c > 0 needs y >= 2 and p >= 1, so the most player damage is y=2, p=1, c=1.
    doc = combat(
        [
            creature("t", "ap", 4, 4, attacking="pw", keywords=["Trample-Over-Planeswalkers"]),
            creature("b", "dp", 1, 2, blocking=["t"], value=5),
        ],
        planeswalkers=[{"id": "pw", "controller": "dp", "loyalty": 1}],
        players=[{"id": "ap", "life": 20}, {"id": "dp", "life": 3}],
    )
    assert brute.optimum(doc, ATTACKERS, ["player_damage"]) == (1,)
    assert brute.optimum(doc, ATTACKERS, ["planeswalker_damage"]) == (2,)  # y=2, p=2
    assert brute.optimum(doc, ATTACKERS, ["lethal"]) == (0,)
    best = (0, 5, 1, 0, 1, 1, 0)
    assert brute.optimum(doc, ATTACKERS, brute.plain_objective(ATTACKERS)) == best
    best = (0, 5, 1, 0, 0, 1, 1, 0, 0)  # SPEC §7's terms: the same, with poison, life_gain 0
    assert brute.optimum(doc, ATTACKERS, brute.default_objective(ATTACKERS)) == best
    assert brute.optimum(doc, ATTACKERS, ["planeswalker_damage", "kills"]) == (2, 5)
    assert brute.objective(doc, ATTACKERS, {("t", "b"): 1, ("t", "pw"): 3}, ["kills"]) == (0,)


def test_objective_rejects_attacker_terms_for_blockers():
    # SPEC §4: a term that does not apply to the side is an input error.
    with pytest.raises(ValueError):
        brute.objective(SPEC_EXAMPLE, BLOCKERS, {}, ["player_damage"])
    with pytest.raises(ValueError):
        brute.objective(SPEC_EXAMPLE, ATTACKERS, {}, ["nonsense"])


# ---------------------------------------------------------------------------
# The oracle on generated documents
# ---------------------------------------------------------------------------


def assert_valid_document(doc):
    """The SPEC §1 validity rules the strategy promises."""
    players = [p["id"] for p in doc["players"]]
    creatures = {c["id"]: c for c in doc["creatures"]}
    pws = {p["id"]: p for p in doc.get("planeswalkers", [])}
    battles = {b["id"]: b for b in doc.get("battles", [])}
    ids = players + list(creatures) + list(pws) + list(battles)
    assert len(ids) == len(set(ids))
    active = doc["active_player"]
    assert active in players and len(players) >= 2
    assert "side" not in doc
    assert doc.get("step", "regular") in ("first_strike", "regular")

    def defender(target):
        if target in players:
            return target
        if target in pws:
            return pws[target]["controller"]
        return battles[target]["protector"]

    for c in creatures.values():
        assert c["controller"] in players
        assert isinstance(c["power"], int) and isinstance(c["toughness"], int)
        assert c.get("damage", 0) >= 0
        assert not ("attacking" in c and "blocking" in c)
        if "attacking" in c:
            assert c["controller"] == active
            assert defender(c["attacking"]) != active
        if "blocking" in c:
            assert c["controller"] != active
            assert c["blocking"] and len(set(c["blocking"])) == len(c["blocking"])
            for aid in c["blocking"]:
                assert "attacking" in creatures[aid]
                assert defender(creatures[aid]["attacking"]) == c["controller"]
        if "blocked" in c:
            assert "attacking" in c
            if c["blocked"] is False:
                assert not any(c["id"] in b.get("blocking", []) for b in creatures.values())
    for pw in pws.values():
        assert pw["controller"] in players
    for battle in battles.values():
        assert battle["protector"] in players


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=strategies.combats(), side=st.sampled_from([ATTACKERS, BLOCKERS]))
def test_generated_legal_assignments_are_consistent(doc, side):
    assert_valid_document(doc)
    assert strategies.split_count(doc, side) <= strategies.SPLIT_BUDGET
    legal = brute.legal_assignments(doc, side)
    # At least one: each assigning creature can always put all its power on a recipient
    # without a condition (a blocker, or the target when it has no blocker).
    assert len(legal) >= 1
    assert len(legal) == len(set(legal))
    sources = dict(brute.assigning_sources(doc, side))
    for assignment in legal:
        assert brute.is_legal(doc, side, as_dict(assignment))
        given_by = {}
        for source, target, amount in assignment:
            assert amount > 0
            assert target in brute.recipients(doc, side, source)
            given_by[source] = given_by.get(source, 0) + amount
        assert given_by == sources
    terms = brute.default_objective(side)
    best = brute.optimum(doc, side, terms)
    assert best == max(brute.objective(doc, side, a, terms) for a in legal)


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=strategies.combats(), side=st.sampled_from([ATTACKERS, BLOCKERS]),
       data=st.data())
def test_optima_are_the_optimum_of_each_list_of_terms(doc, side, data):
    """``optima`` (one enumeration for several objectives) gives what ``optimum`` gives
    for each, whatever terms the lists share and in whatever order."""
    every = brute.default_objective_10(side)
    lists = [data.draw(st.permutations(every)) for _ in range(data.draw(st.integers(1, 3)))]
    lists = [terms[: data.draw(st.integers(1, len(terms)))] for terms in lists]
    assert brute.optima(doc, side, *lists) == [brute.optimum(doc, side, t) for t in lists]


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), side=st.sampled_from([ATTACKERS, BLOCKERS]))
def test_proposals_judged_like_the_enumeration(data, side):
    # A proposal is legal iff its positive part is one of the enumerated assignments:
    # checks that the enumeration misses nothing is_legal accepts.
    doc = data.draw(strategies.combats())
    proposal = data.draw(strategies.proposals(doc, side))
    assert all(isinstance(a, int) and a >= 0 for a in proposal.values())
    positive = frozenset((s, t, a) for (s, t), a in proposal.items() if a > 0)
    legal = set(strategies.cached_legal_assignments(doc, side))
    assert brute.is_legal(doc, side, proposal) == (positive in legal)
