"""Tests of the brute-force oracle on banding and damage-assignment effects, on answers
worked out by hand from the rules.

Who chooses: 702.22j (an attacker blocked by a creature with banding, or by a Q
creature with "bands with other Q" and another Q creature, has its damage assigned by
the defending player), 702.22k (the same for a blocker of such attackers, by the active
player), and the `assigned_by` field (Defensive Formation). How much: 510.1a and the
`assigns` field (Doran, the Siege Tower). Where: `as_though_unblocked` (Thorn
Elemental), a union of the splits as blocked (510.1c, 702.19b-e) and as unblocked
(510.1b, 702.19c, 702.19e). Every count and value below is derived in its comment.
"""

from __future__ import annotations

import copy

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

try:
    from . import brute, brute_actions, brute_plan, strategies
    from .documents import A, combat, creature
except ImportError:  # tests/ is not a package: pytest puts tests/ on sys.path
    import brute_actions
    import brute_plan
    from documents import A, combat, creature

    import brute
    import strategies

ATTACKERS = "attackers"
BLOCKERS = "blockers"


def legal_set(doc, side):
    result = brute.legal_assignments(doc, side)
    assert len(result) == len(set(result)), "legal_assignments repeated an assignment"
    for assignment in result:
        assert brute.is_legal(doc, side, {(s, t): a for s, t, a in assignment})
    return set(result)


def best(doc, side, terms):
    """The optimum and how many legal assignments reach it."""
    values = [brute.objective(doc, side, a, terms) for a in legal_set(doc, side)]
    top = max(values)
    return top, values.count(top)


# ---------------------------------------------------------------------------
# Reading the fields
# ---------------------------------------------------------------------------


def test_bands_with_other_and_qualities_are_normalized_as_keywords():
    c = creature("w", "dp", 1, 1, keywords=["Bands_with-other  Wolves of the Hunt", "Flying"],
                 qualities=["WOLVES of  the hunt", "Legendary"])
    assert brute.bands_with_other(c) == {"wolves of the hunt"}
    assert brute.qualities(c) == {"wolves of the hunt", "legendary"}
    # A bare "bands with other" names no quality: it is no band keyword at all.
    assert brute.bands_with_other(creature("x", "dp", 1, 1, keywords=["bands with other"])) \
        == set()


@pytest.mark.parametrize("assigns, power, toughness, expected", [
    (None, 3, 5, 3),          # 510.1a: its power
    ("power", 3, 5, 3),
    ("toughness", 0, 5, 5),   # Doran, the Siege Tower: its toughness
    ("toughness", 4, 2, 2),
    ("none", 3, 5, 0),        # it assigns no combat damage
])
def test_assigned_amount(assigns, power, toughness, expected):
    extra = {} if assigns is None else {"assigns": assigns}
    assert brute.assigned_amount(creature("c", "ap", power, toughness, **extra)) == expected


# ---------------------------------------------------------------------------
# 702.22j: a trampler blocked by a creature with banding
# ---------------------------------------------------------------------------


def trampler_vs_band(banding=True):
    # ap's 5/5 trampler attacks dp; dp's 1/2 wall blocks it.
    wall_keywords = ["Banding"] if banding else []
    return combat([
        creature("tr", "ap", 5, 5, keywords=["Trample"], attacking="dp"),
        creature("wall", "dp", 1, 2, keywords=wall_keywords, blocking=["tr"]),
    ])


def test_trampler_blocked_by_banding_is_assigned_by_the_defending_player():
    doc = trampler_vs_band()
    # 702.22j: blocked by a creature with banding, so the defending player divides it.
    assert brute.chooser_side(doc, "tr") == BLOCKERS
    assert brute.chooser_side(doc, "wall") == BLOCKERS
    assert brute.assigning_sources(doc, ATTACKERS) == []
    assert legal_set(doc, ATTACKERS) == {frozenset()}
    # The trampler's splits do not change (702.19b): wall gets a, dp gets 5 - a, dp > 0
    # only once the wall (toughness 2) is lethally assigned, a >= 2: a = 2, 3, 4, 5.
    # Even 5 on the wall, 3 past lethal, is legal. The wall's 1 always goes to tr.
    assert legal_set(doc, BLOCKERS) == {
        A(("tr", "wall", 5), ("wall", "tr", 1)),
        A(("tr", "wall", 4), ("tr", "dp", 1), ("wall", "tr", 1)),
        A(("tr", "wall", 3), ("tr", "dp", 2), ("wall", "tr", 1)),
        A(("tr", "wall", 2), ("tr", "dp", 3), ("wall", "tr", 1)),
    }
    assert not brute.is_legal(doc, BLOCKERS, {("tr", "wall"): 1, ("tr", "dp"): 4,
                                              ("wall", "tr"): 1})  # 702.19b
    assert not brute.is_legal(doc, BLOCKERS, {("tr", "wall"): 5})  # the wall must assign
    # The active player does not choose the trampler's damage any more.
    assert not brute.is_legal(doc, ATTACKERS, {("tr", "wall"): 5})
    assert brute.other_side_rule(doc, "tr") == "702.22j"
    # The control: without banding the active player divides the same four splits.
    plain = trampler_vs_band(banding=False)
    assert brute.chooser_side(plain, "tr") == ATTACKERS
    assert len(legal_set(plain, ATTACKERS)) == 4
    assert legal_set(plain, BLOCKERS) == {A(("wall", "tr", 1))}
    assert brute.other_side_rule(plain, "tr") == "510.1"


def test_banding_defender_keeps_life_and_its_creatures():
    doc = trampler_vs_band()
    terms = brute.default_objective_10(BLOCKERS)
    assert terms == ["life_kept", "survivals", "deaths", "life_gain"]
    # All 5 on the wall: dp loses nothing; the wall (toughness 2) dies, so no blocker
    # survives; tr takes the wall's 1 of its 5 toughness: no attacker dies.
    assert brute.objective(doc, BLOCKERS, {("tr", "wall"): 5, ("wall", "tr"): 1}, terms) \
        == (0, 0, 0, 0)
    # 2 on the wall, 3 trample over to dp: dp loses 3 life.
    assert brute.objective(doc, BLOCKERS, {("tr", "wall"): 2, ("tr", "dp"): 3,
                                           ("wall", "tr"): 1}, terms) == (-3, 0, 0, 0)
    assert best(doc, BLOCKERS, terms) == ((0, 0, 0, 0), 1)
    # The attackers' side assigns nothing: its one empty assignment keeps tr alive
    # (survivals 1) and dp loses nothing (life_loss 0).
    assert best(doc, ATTACKERS, ["survivals", "life_loss", "life_kept"]) == ((1, 0, 0), 1)


def test_banding_defender_spreads_the_damage_to_keep_a_creature():
    # As above with a second blocker, dp's 0/10 (no banding needed: one is enough). tr
    # may trample over only once the wall (2) and the 0/10 (10) are both lethally
    # assigned, 12 > 5, so all 5 go to the two: wall a, big 5 - a, a = 0..5: 6 splits.
    doc = trampler_vs_band()
    doc["creatures"].append(creature("big", "dp", 0, 10, blocking=["tr"]))
    assert len(legal_set(doc, BLOCKERS)) == 6
    terms = brute.default_objective_10(BLOCKERS)
    # The wall lives with a <= 1 and the 0/10 always does: survivals 2 for a = 0, 1.
    assert brute.objective(doc, BLOCKERS, {("tr", "big"): 5, ("wall", "tr"): 1}, terms) \
        == (0, 2, 0, 0)
    assert brute.objective(doc, BLOCKERS, {("tr", "wall"): 5, ("wall", "tr"): 1}, terms) \
        == (0, 1, 0, 0)
    assert best(doc, BLOCKERS, terms) == ((0, 2, 0, 0), 2)


def test_lethal_is_judged_over_the_requesting_sides_assignment_only():
    # ap's 3/3 u is blocked by dp's 1/1 banding b1 and 0/2 b2; ap's 3/3 trampler v is
    # blocked by b2 alone. u's damage is dp's to divide (702.22j), v's is ap's. In ap's
    # request v may trample over only once b2 (toughness 2) is lethally assigned by ap's
    # own splits: b2 a = 2 or 3, dp 3 - a; whatever dp would put on b2 with u does not
    # count. 2 assignments. In dp's: u's 3 between b1 and b2 (4 ways), b1's 1 to u.
    doc = combat([
        creature("u", "ap", 3, 3, attacking="dp"),
        creature("v", "ap", 3, 3, keywords=["trample"], attacking="dp"),
        creature("b1", "dp", 1, 1, keywords=["banding"], blocking=["u"]),
        creature("b2", "dp", 0, 2, blocking=["u", "v"]),
    ])
    assert [brute.chooser_side(doc, c) for c in ("u", "v", "b1", "b2")] \
        == [BLOCKERS, ATTACKERS, BLOCKERS, BLOCKERS]
    assert legal_set(doc, ATTACKERS) == {A(("v", "b2", 3)),
                                         A(("v", "b2", 2), ("v", "dp", 1))}
    assert not brute.is_legal(doc, ATTACKERS, {("v", "dp"): 3})
    assert legal_set(doc, BLOCKERS) == {A(("u", "b1", k), ("u", "b2", 3 - k), ("b1", "u", 1))
                                        for k in range(4)}


# ---------------------------------------------------------------------------
# 702.22k: a band blocked by one creature
# ---------------------------------------------------------------------------


def band_blocked_by_one(both_banding=True):
    # ap's 2/4 and 2/2, both with banding, attack dp as a band; dp's 3/3 blocks both.
    return combat([
        creature("a1", "ap", 2, 4, keywords=["banding"], attacking="dp"),
        creature("a2", "ap", 2, 2, keywords=["banding"] if both_banding else [],
                 attacking="dp"),
        creature("b", "dp", 3, 3, blocking=["a1", "a2"]),
    ])


@pytest.mark.parametrize("both_banding", [True, False])
def test_band_blocked_by_one_creature(both_banding):
    doc = band_blocked_by_one(both_banding)
    # 702.22k: b blocks a creature with banding (one is enough), so the active player
    # divides b's 3 between a1 and a2: 0..3 to a1, 4 ways; a1 and a2 each have one
    # recipient, b, and give it 2.
    assert brute.chooser_side(doc, "b") == ATTACKERS
    assert brute.chooser_side(doc, "a1") == ATTACKERS
    assert brute.other_side_rule(doc, "b") == "702.22k"
    assert legal_set(doc, ATTACKERS) == {
        A(("a1", "b", 2), ("a2", "b", 2), ("b", "a1", x), ("b", "a2", 3 - x))
        for x in range(4)
    }
    assert legal_set(doc, BLOCKERS) == {frozenset()}
    assert not brute.is_legal(doc, BLOCKERS, {("b", "a1"): 3})
    # In document order: a1, a2, then b's attackers in the order of its `blocking`.
    assert brute_actions.pair_order(doc, ATTACKERS) == [
        ("a1", "b"), ("a2", "b"), ("b", "a1"), ("b", "a2")]
    assert brute_actions.pair_order(doc, BLOCKERS) == []


def test_band_keeps_both_attackers_alive():
    doc = band_blocked_by_one()
    terms = brute.default_objective_10(ATTACKERS)
    # b takes 2 + 2 = 4 >= 3 and dies in every split: deaths 1. b's split (to a1, to a2):
    # (0, 3) and (1, 2) kill a2 (toughness 2): survivals 1; (2, 1) and (3, 0) kill
    # nobody (a1 has toughness 4): survivals 2. Nothing else happens.
    split = {("a1", "b"): 2, ("a2", "b"): 2}
    assert brute.objective(doc, ATTACKERS, {**split, ("b", "a2"): 3}, terms) \
        == (0, 1, 1, 0, 0, 0, 0, 0, 0, 0)
    assert brute.objective(doc, ATTACKERS, {**split, ("b", "a1"): 3}, terms) \
        == (0, 1, 2, 0, 0, 0, 0, 0, 0, 0)
    assert best(doc, ATTACKERS, terms) == ((0, 1, 2, 0, 0, 0, 0, 0, 0, 0), 2)
    # The active player's own life is never at stake here: life_kept 0.
    assert best(doc, ATTACKERS, ["life_kept"]) == ((0,), 4)


# ---------------------------------------------------------------------------
# as_though_unblocked: Thorn Elemental
# ---------------------------------------------------------------------------


def thorn(keywords=(), **extra):
    # ap's 7/7 Thorn Elemental attacks dp; dp's two 2/2s block it.
    return combat([
        creature("thorn", "ap", 7, 7, keywords=list(keywords), attacking="dp",
                 as_though_unblocked=True, **extra),
        creature("x", "dp", 2, 2, blocking=["thorn"]),
        creature("y", "dp", 2, 2, blocking=["thorn"]),
    ])


def test_thorn_elemental_union_of_its_two_kinds_of_split():
    doc = thorn()
    # As blocked (510.1c): any split of 7 between x and y, 8 of them. As unblocked
    # (510.1b): all 7 to dp, 1. No split is both: 9.
    legal = legal_set(doc, ATTACKERS)
    as_blocked = {A(("thorn", "x", k), ("thorn", "y", 7 - k)) for k in range(8)}
    assert legal == as_blocked | {A(("thorn", "dp", 7))}
    assert len(legal) == 9
    # It cannot mix the two: something to a blocker and something to dp.
    assert not brute.is_legal(doc, ATTACKERS, {("thorn", "x"): 3, ("thorn", "dp"): 4})
    assert not brute.is_legal(doc, ATTACKERS, {("thorn", "x"): 2, ("thorn", "y"): 2,
                                               ("thorn", "dp"): 3})
    assert brute.recipients(doc, ATTACKERS, "thorn") == ["x", "y", "dp"]
    assert brute_actions.pair_order(doc, ATTACKERS) == [
        ("thorn", "x"), ("thorn", "y"), ("thorn", "dp")]
    # Its best: kill both (x >= 2, y >= 2) rather than 7 to dp; or, asked for life
    # loss, all 7 to dp. The blockers' damage is not this side's: thorn survives.
    assert best(doc, ATTACKERS, brute.default_objective_10(ATTACKERS)) \
        == ((0, 2, 1, 0, 0, 0, 0, 0, 0, 0), 4)  # x = 2..5 kills both
    assert best(doc, ATTACKERS, ["life_loss"]) == ((7,), 1)


def test_thorn_elemental_with_trample():
    doc = thorn(keywords=["trample"])
    # As blocked (702.19b): with nothing to dp, 8 splits; dp gets k > 0 only when
    # x >= 2 and y >= 2 with x + y = 7 - k: k = 1 (x = 2, 3, 4), k = 2 (x = 2, 3),
    # k = 3 (x = 2): 6. As unblocked: all 7 to dp, which as blocked is illegal (no
    # blocker lethally assigned) and legal in its own mode. 8 + 6 + 1 = 15.
    legal = legal_set(doc, ATTACKERS)
    assert len(legal) == 15
    assert A(("thorn", "dp", 7)) in legal
    assert brute.is_legal(doc, ATTACKERS, {("thorn", "x"): 2, ("thorn", "y"): 2,
                                           ("thorn", "dp"): 3})
    assert not brute.is_legal(doc, ATTACKERS, {("thorn", "x"): 1, ("thorn", "dp"): 6})
    pairs = brute_actions.pair_order(doc, ATTACKERS)
    vectors = [brute_actions.as_vector(
        pairs, [{"source": s, "target": t, "amount": n} for s, t, n in a]) for a in legal]
    # By the amount to dp: 0 -> 8, 1 -> 3, 2 -> 2, 3 -> 1, 7 -> 1.
    assert brute_actions.options(pairs, vectors, {}, ("thorn", "dp")) \
        == [[0, 8], [1, 3], [2, 2], [3, 1], [7, 1]]
    # Nothing to x: all 7 to y (as blocked) or all 7 to dp (as unblocked).
    assert brute_actions.count(pairs, vectors, {("thorn", "x"): 0}) == 2


def thorn_over_planeswalker(with_imp=False):
    # ap's 4/4 with trample over planeswalkers and as_though_unblocked attacks jace
    # (dp's, loyalty 2); dp's 1/1 x blocks it.
    creatures = [
        creature("thorn", "ap", 4, 4, keywords=["trample over planeswalkers"],
                 attacking="jace", as_though_unblocked=True),
        creature("x", "dp", 1, 1, blocking=["thorn"]),
    ]
    if with_imp:
        creatures.append(creature("imp", "ap", 2, 2, attacking="jace"))
    return combat(creatures, planeswalkers=[{"id": "jace", "controller": "dp",
                                              "loyalty": 2}])


def test_thorn_over_planeswalkers_union():
    doc = thorn_over_planeswalker()
    # (x, jace, dp) summing to 4. As blocked (702.19c): jace > 0 needs x >= 1; dp > 0
    # needs x >= 1 and jace >= 2: (4,0,0), (3,1,0), (2,2,0), (1,3,0), (1,2,1): 5.
    # As unblocked (702.19c): (jace, dp), dp > 0 needs jace >= 2: (4,0), (3,1), (2,2): 3.
    # The first all give x >= 1, the second x = 0: 5 + 3 = 8.
    legal = legal_set(doc, ATTACKERS)
    assert len(legal) == 8
    assert A(("thorn", "jace", 2), ("thorn", "dp", 2)) in legal
    assert A(("thorn", "x", 1), ("thorn", "jace", 2), ("thorn", "dp", 1)) in legal
    assert A(("thorn", "jace", 1), ("thorn", "dp", 3)) not in legal
    assert brute_actions.pair_order(doc, ATTACKERS) == [
        ("thorn", "x"), ("thorn", "jace"), ("thorn", "dp")]


def test_thorn_over_planeswalkers_loyalty_over_the_whole_assignment():
    doc = thorn_over_planeswalker(with_imp=True)
    # imp, unblocked, gives its 2 to jace: jace is loyalty-assigned whatever thorn does.
    # As unblocked: any (jace, dp) of 4, 5 splits. As blocked: jace or dp > 0 needs
    # x >= 1: x = 4: 1, x = 3: 2, x = 2: 3, x = 1: 4, 10 splits. Disjoint: 15.
    assert len(legal_set(doc, ATTACKERS)) == 15
    assert brute.is_legal(doc, ATTACKERS, {("thorn", "dp"): 4, ("imp", "jace"): 2})
    assert not brute.is_legal(doc, ATTACKERS, {("thorn", "dp"): 4})  # imp must assign


def test_thorn_when_what_it_attacks_left_combat():
    gone = [{"id": "jace", "controller": "dp", "loyalty": 2, "in_combat": False}]
    # Without trample over planeswalkers: as blocked, 3 to its one blocker x (2/2); as
    # unblocked, nothing (506.4c, 510.1b): the empty split. 2 assignments.
    plain = combat([
        creature("thorn", "ap", 3, 3, attacking="jace", as_though_unblocked=True),
        creature("x", "dp", 2, 2, blocking=["thorn"]),
    ], planeswalkers=gone)
    assert legal_set(plain, ATTACKERS) == {A(("thorn", "x", 3)), frozenset()}
    assert brute_actions.pair_order(plain, ATTACKERS) == [("thorn", "x")]
    # With it: as blocked (702.19e), x gets 3 or x 2 and jace's controller 1; as
    # unblocked (702.19e), all 3 to jace's controller. 3 assignments.
    top = copy.deepcopy(plain)
    top["creatures"][0]["keywords"] = ["trample over planeswalkers"]
    assert legal_set(top, ATTACKERS) == {
        A(("thorn", "x", 3)), A(("thorn", "x", 2), ("thorn", "dp", 1)), A(("thorn", "dp", 3))}
    assert brute_actions.pair_order(top, ATTACKERS) == [("thorn", "x"), ("thorn", "dp")]


def test_thorn_whose_blockers_are_gone_and_thorn_unblocked():
    # blocked: true, no blocker left, no trample: as blocked it assigns nothing (510.1c),
    # as unblocked all 3 to dp: 2 assignments.
    doc = combat([creature("thorn", "ap", 3, 3, attacking="dp", blocked=True,
                           as_though_unblocked=True)])
    assert legal_set(doc, ATTACKERS) == {frozenset(), A(("thorn", "dp", 3))}
    # Unblocked, the flag changes nothing: all 3 to dp.
    del doc["creatures"][0]["blocked"]
    assert legal_set(doc, ATTACKERS) == {A(("thorn", "dp", 3))}


@pytest.mark.parametrize("blocker_extra", [
    {"keywords": ["Banding"]},  # 702.22j gives thorn's damage to the defending player
    {},
])
def test_thorn_whose_damage_the_defending_side_assigns_is_refused(blocker_extra):
    doc = combat([
        creature("thorn", "ap", 7, 7, attacking="dp", as_though_unblocked=True,
                 **({} if blocker_extra else {"assigned_by": "opponent"})),
        creature("x", "dp", 2, 2, blocking=["thorn"], **blocker_extra),
    ])
    assert brute.chooser_side(doc, "thorn") == BLOCKERS
    for side in (ATTACKERS, BLOCKERS):
        with pytest.raises(ValueError, match="as_though_unblocked"):
            brute.legal_assignments(doc, side)
        with pytest.raises(ValueError, match="as_though_unblocked"):
            brute.is_legal(doc, side, {})


# ---------------------------------------------------------------------------
# How much: Doran, the Siege Tower and "assigns no combat damage"
# ---------------------------------------------------------------------------


def test_doran_assigns_its_toughness():
    # A 0/5 that assigns damage equal to its toughness: 5, though its power is 0.
    doran = creature("doran", "ap", 0, 5, attacking="dp", assigns="toughness")
    doc = combat([doran])
    assert brute.assigning_sources(doc, ATTACKERS) == [("doran", 5)]
    assert legal_set(doc, ATTACKERS) == {A(("doran", "dp", 5))}
    # Blocked by two 1/1s: any split of 5 between them, 6; each 1/1 gives it 1.
    blocked = combat([doran, creature("x", "dp", 1, 1, blocking=["doran"]),
                      creature("y", "dp", 1, 1, blocking=["doran"])])
    assert len(legal_set(blocked, ATTACKERS)) == 6
    assert not brute.is_legal(blocked, ATTACKERS, {})  # 0 power, yet it must assign 5
    # A blocker that assigns its toughness: the 0/4 wall gives its attacker 4.
    wall = combat([creature("a", "ap", 2, 5, attacking="dp"),
                   creature("wall", "dp", 0, 4, blocking=["a"], assigns="toughness")])
    assert legal_set(wall, BLOCKERS) == {A(("wall", "a", 4))}
    # The same creature by power assigns nothing (510.1a).
    by_power = copy.deepcopy(blocked)
    del by_power["creatures"][0]["assigns"]
    assert legal_set(by_power, ATTACKERS) == {frozenset()}


def test_assigns_none():
    doc = combat([creature("a", "ap", 3, 3, attacking="dp", assigns="none"),
                  creature("x", "dp", 2, 2, blocking=["a"], assigns="none")])
    for side in (ATTACKERS, BLOCKERS):
        assert brute.assigning_sources(doc, side) == []
        assert legal_set(doc, side) == {frozenset()}
    assert not brute.is_legal(doc, ATTACKERS, {("a", "dp"): 3})


# ---------------------------------------------------------------------------
# assigned_by: "opponent" (Defensive Formation), both ways
# ---------------------------------------------------------------------------


def test_defensive_formation_unblocked_attacker():
    # dp assigns the damage of ap's 3/3 with lifelink attacking dp: its one split, 3 to
    # dp, is now dp's: life_kept -3, and the 3 life ap gains is not dp's life_gain.
    doc = combat([creature("a", "ap", 3, 3, attacking="dp", assigned_by="opponent",
                           keywords=["lifelink"])])
    assert brute.chooser_side(doc, "a") == BLOCKERS
    assert brute.other_side_rule(doc, "a") == "510.1"
    assert legal_set(doc, BLOCKERS) == {A(("a", "dp", 3))}
    assert legal_set(doc, ATTACKERS) == {frozenset()}
    assert best(doc, BLOCKERS, brute.default_objective_10(BLOCKERS)) == ((-3, 0, 0, 0), 1)
    assert brute.results(doc, {("a", "dp"): 3})["life_gained"] == {"ap": 3}
    # The attackers' empty assignment: a survives, no life lost, no life gained.
    assert best(doc, ATTACKERS, ["survivals", "life_loss", "life_gain"]) == ((1, 0, 0), 1)


def test_defensive_formation_blocked_attacker_spares_the_valued_blocker():
    # ap's 3/3 blocked by dp's 1/1 x (value 3) and 1/1 y, assigned by dp: any split of 3
    # between x and y (4), each blocker gives it 1. x survives only with 0 on it, then
    # survivals 3; y survives only with 0 on it, then survivals 1; a takes 2 < 3.
    doc = combat([creature("a", "ap", 3, 3, attacking="dp", assigned_by="opponent"),
                  creature("x", "dp", 1, 1, blocking=["a"], value=3),
                  creature("y", "dp", 1, 1, blocking=["a"])])
    assert len(legal_set(doc, BLOCKERS)) == 4
    assert best(doc, BLOCKERS, brute.default_objective_10(BLOCKERS)) == ((0, 3, 0, 0), 1)
    assert brute.optimum(doc, BLOCKERS, ["survivals"]) == (3,)
    assert brute.objective(doc, BLOCKERS, {("a", "x"): 3, ("x", "a"): 1, ("y", "a"): 1},
                           ["survivals", "deaths"]) == (1, 0)


def test_assigned_by_opponent_on_a_blocker_and_both_ways():
    # dp's 2/2 b blocks ap's 1/1 a1 and 3/3 a2 and is assigned by ap: ap divides b's 2
    # (3 ways) and gives a1's 1 and a2's 3 to b.
    b = creature("b", "dp", 2, 2, blocking=["a1", "a2"], assigned_by="opponent")
    a1 = creature("a1", "ap", 1, 1, attacking="dp")
    a2 = creature("a2", "ap", 3, 3, attacking="dp")
    doc = combat([a1, a2, b])
    assert brute.chooser_side(doc, "b") == ATTACKERS
    assert brute.other_side_rule(doc, "b") == "510.1"
    assert legal_set(doc, ATTACKERS) == {
        A(("a1", "b", 1), ("a2", "b", 3), ("b", "a1", k), ("b", "a2", 2 - k))
        for k in range(3)}
    assert legal_set(doc, BLOCKERS) == {frozenset()}
    # Both ways: a1 also assigned by dp. Each side now holds the other's creature.
    both = copy.deepcopy(doc)
    both["creatures"][0]["assigned_by"] = "opponent"
    assert legal_set(both, BLOCKERS) == {A(("a1", "b", 1))}
    assert legal_set(both, ATTACKERS) == {
        A(("a2", "b", 3), ("b", "a1", k), ("b", "a2", 2 - k)) for k in range(3)}


def test_several_reasons_do_not_move_the_damage_back():
    # Blocked by a creature with banding AND assigned_by opponent: still dp's.
    doc = trampler_vs_band()
    doc["creatures"][0]["assigned_by"] = "opponent"
    assert brute.chooser_side(doc, "tr") == BLOCKERS
    assert len(legal_set(doc, BLOCKERS)) == 4
    assert brute.other_side_rule(doc, "tr") == "702.22j"  # banding moved it
    # A blocker of a band, itself assigned_by opponent: still ap's.
    band = band_blocked_by_one()
    band["creatures"][2]["assigned_by"] = "opponent"
    assert brute.chooser_side(band, "b") == ATTACKERS


# ---------------------------------------------------------------------------
# bands with other Q
# ---------------------------------------------------------------------------


def blocked_by_legends(first_keywords, first_qualities, second_qualities):
    # ap's 4/4 a attacks dp; dp's 1/1 b1 and 1/1 b2 block it.
    return combat([
        creature("a", "ap", 4, 4, attacking="dp"),
        creature("b1", "dp", 1, 1, keywords=first_keywords, qualities=first_qualities,
                 blocking=["a"]),
        creature("b2", "dp", 1, 1, qualities=second_qualities, blocking=["a"]),
    ])


@pytest.mark.parametrize("first_keywords, first_qualities, second_qualities, moved", [
    (["Bands with other Legendary"], ["Legendary"], ["legendary"], True),
    (["bands_with_other legendary"], ["LEGENDARY"], ["Legendary", "Elf"], True),
    (["Bands with other Legendary"], ["Legendary"], [], False),  # no other legend
    (["Bands with other Legendary"], [], ["Legendary"], False),  # b1 is no legend itself
    ([], ["Legendary"], ["Legendary"], False),                   # nobody bands
    (["Bands with other Legendary"], ["Legendary"], ["Dinosaur"], False),
    (["Bands with other Wolves of the Hunt"], ["Wolves of the Hunt"],
     ["wolves  of the hunt"], True),
])
def test_bands_with_other_blockers(first_keywords, first_qualities, second_qualities, moved):
    doc = blocked_by_legends(first_keywords, first_qualities, second_qualities)
    assert brute.chooser_side(doc, "a") == (BLOCKERS if moved else ATTACKERS)
    # a's splits: 4 between b1 and b2, 5 ways, on whichever side chooses them; b1 and b2
    # each give a 1 on the blockers' side.
    expected = {A(("a", "b1", k), ("a", "b2", 4 - k)) for k in range(5)}
    if moved:
        assert legal_set(doc, ATTACKERS) == {frozenset()}
        assert legal_set(doc, BLOCKERS) == {s | A(("b1", "a", 1), ("b2", "a", 1))
                                            for s in expected}
        assert brute.other_side_rule(doc, "a") == "702.22j"
    else:
        assert legal_set(doc, ATTACKERS) == expected
        assert legal_set(doc, BLOCKERS) == {A(("b1", "a", 1), ("b2", "a", 1))}


def test_a_lone_legend_with_bands_with_other_moves_nothing():
    doc = blocked_by_legends(["Bands with other Legendary"], ["Legendary"], [])
    del doc["creatures"][2]  # b1 alone: "another Q creature" is missing
    assert brute.chooser_side(doc, "a") == ATTACKERS


@pytest.mark.parametrize("second_qualities, moved", [(["dinosaur"], True), ([], False)])
def test_bands_with_other_attackers(second_qualities, moved):
    # ap's 2/2 dinosaurs a1 (bands with other Dinosaur) and a2 attack; dp's 3/3 c blocks
    # both: 702.22k when a2 is a Dinosaur too.
    doc = combat([
        creature("a1", "ap", 2, 2, keywords=["Bands with other Dinosaur"],
                 qualities=["Dinosaur"], attacking="dp"),
        creature("a2", "ap", 2, 2, qualities=second_qualities, attacking="dp"),
        creature("c", "dp", 3, 3, blocking=["a1", "a2"]),
    ])
    assert brute.chooser_side(doc, "c") == (ATTACKERS if moved else BLOCKERS)
    splits = {A(("c", "a1", k), ("c", "a2", 3 - k)) for k in range(4)}
    own = A(("a1", "c", 2), ("a2", "c", 2))
    if moved:
        assert legal_set(doc, ATTACKERS) == {own | s for s in splits}
        assert legal_set(doc, BLOCKERS) == {frozenset()}
    else:
        assert legal_set(doc, ATTACKERS) == {own}
        assert legal_set(doc, BLOCKERS) == splits


# ---------------------------------------------------------------------------
# 510.4: the step filter after the chooser
# ---------------------------------------------------------------------------


def test_step_filter_applies_to_moved_creatures():
    # dp's 2/2 first strike banding blocker fs blocks ap's 3/3 a: both are dp's to
    # assign. In the first-strike step only fs assigns (a has no first strike); in the
    # regular step only a does, all 3 on its one blocker.
    doc = combat([creature("a", "ap", 3, 3, attacking="dp"),
                  creature("fs", "dp", 2, 2, keywords=["first strike", "banding"],
                           blocking=["a"])])
    assert brute.effective_step(doc) == "first_strike"
    assert legal_set(doc, BLOCKERS) == {A(("fs", "a", 2))}
    assert legal_set(doc, ATTACKERS) == {frozenset()}
    doc["step"] = "regular"
    assert legal_set(doc, BLOCKERS) == {A(("a", "fs", 3))}
    assert legal_set(doc, ATTACKERS) == {frozenset()}


# ---------------------------------------------------------------------------
# Both steps (plan): the same choosers in each step
# ---------------------------------------------------------------------------


def test_plan_banding_first_striker_takes_the_trample_choice():
    # ap's 4/4 trampler tr attacks dp; dp's 2/2 first strike banding bd blocks it.
    # First strike: only bd assigns, 2 to tr (4 toughness: lives). Regular: tr's split is
    # dp's (bd still blocks it): bd a >= 2 (a < 2 would send the rest to dp without bd
    # lethally assigned), dp 4 - a; dp answers a = 4. bd dies, tr lives, no life lost.
    doc = combat([creature("tr", "ap", 4, 4, keywords=["trample"], attacking="dp"),
                  creature("bd", "dp", 2, 2, keywords=["first strike", "banding"],
                           blocking=["tr"])])
    assert brute_plan.PLAN_TERMS[6] == "life_loss"
    assert brute_plan.plan_value(doc) == (0, 1, 1, 0, 0, 0, 0, 0, 0, 0)
    # The control: without banding ap chooses a = 2 and dp loses 2.
    doc["creatures"][1]["keywords"] = ["first strike"]
    assert brute_plan.plan_value(doc) == (0, 1, 1, 0, 0, 0, 2, 0, 0, 0)


def test_plan_banding_blocker_dead_after_first_strike_gives_the_choice_back():
    # ap's 3/3 double strike trampler tr attacks dp; dp's 1/1 banding bd blocks it.
    # First strike: tr's split is dp's: bd a in 1..3, dp 3 - a; dp answers a = 3. bd dies.
    # Regular: tr is still blocked (509.1h) but by no creature with banding: ap assigns
    # it, everything past its no blockers (702.19d), 3 to dp. Life lost: 0 + 3.
    doc = combat([creature("tr", "ap", 3, 3, keywords=["trample", "double strike"],
                           attacking="dp"),
                  creature("bd", "dp", 1, 1, keywords=["banding"], blocking=["tr"])])
    nxt = brute_plan.step(doc, {("tr", "bd"): 3})[0]
    assert [c["id"] for c in nxt["creatures"]] == ["tr"]
    assert nxt["creatures"][0]["blocked"] is True
    assert brute.chooser_side(nxt, "tr") == ATTACKERS
    assert legal_set(nxt, ATTACKERS) == {A(("tr", "dp", 3))}
    assert brute_plan.plan_value(doc) == (0, 1, 1, 0, 0, 0, 3, 0, 0, 0)
    # Without banding ap chooses a = 1 first (bd needs 1): 2 + 3 = 5.
    doc["creatures"][1]["keywords"] = []
    assert brute_plan.plan_value(doc) == (0, 1, 1, 0, 0, 0, 5, 0, 0, 0)


def test_plan_band_divides_the_blockers_damage_in_the_regular_step():
    # ap's 2/4 first strike a1 and 2/2 a2, both with banding, attack dp; dp's 3/3 b
    # blocks both. First strike: a1 gives b 2 (3 toughness: lives); b does not strike
    # first. Regular: a2 gives b 2 (4 in all: b dies); b's 3 is ap's to divide (702.22k):
    # all 3 on a1 (toughness 4) and both attackers live.
    doc = combat([
        creature("a1", "ap", 2, 4, keywords=["banding", "first strike"], attacking="dp"),
        creature("a2", "ap", 2, 2, keywords=["banding"], attacking="dp"),
        creature("b", "dp", 3, 3, blocking=["a1", "a2"]),
    ])
    assert brute_plan.plan_value(doc) == (0, 1, 2, 0, 0, 0, 0, 0, 0, 0)
    # The control: without banding dp divides b's 3 and puts 2 or more on a2.
    for c in doc["creatures"][:2]:
        c["keywords"] = [k for k in c["keywords"] if k != "banding"]
    assert brute_plan.plan_value(doc) == (0, 1, 1, 0, 0, 0, 0, 0, 0, 0)


# ---------------------------------------------------------------------------
# Consistency on generated documents
# ---------------------------------------------------------------------------

FAST = settings(max_examples=40, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@FAST
@given(strategies.combats(max_sources=3), st.sampled_from([ATTACKERS, BLOCKERS]))
def test_own_side_terms_are_constant_without_moved_creatures(doc, side):
    # SPEC §10: where each side assigns only its own creatures, survivals and life_kept
    # do not depend on the assignment, so §10's default orders as §7's.
    if strategies.split_count(doc, side) > 400:
        return
    values = {brute.objective(doc, side, a, ["survivals", "life_kept"])
              for a in brute.legal_assignments(doc, side)}
    assert len(values) == 1


@FAST
@given(strategies.combats(max_sources=3, rich=True), st.data())
def test_as_though_unblocked_is_the_union_of_two_documents(doc, data):
    # With one blocked attacker t given as_though_unblocked: its legal assignments are
    # those of the document without the flag, together with those of the document in
    # which nobody blocks t (its blockers still block whatever else they block).
    attackers = [c for c in doc["creatures"] if c.get("attacking") is not None
                 and (c.get("blocked") is True or any(
                     c["id"] in (b.get("blocking") or []) for b in doc["creatures"]))]
    if not attackers or strategies.split_count(doc, ATTACKERS) > 300:
        return
    t = data.draw(st.sampled_from(attackers))["id"]
    doc = {**doc, "step": brute.effective_step(doc)}  # a blocker of t only may strike first
    flagged = copy.deepcopy(doc)
    next(c for c in flagged["creatures"] if c["id"] == t)["as_though_unblocked"] = True
    unblocked = copy.deepcopy(doc)
    for c in unblocked["creatures"]:
        if c["id"] == t:
            c.pop("blocked", None)
        elif t in (c.get("blocking") or []):
            c["blocking"] = [a for a in c["blocking"] if a != t]
    # A creature that blocked only t is no longer blocking: it gave nothing on this side.
    expected = set(brute.legal_assignments(doc, ATTACKERS)) \
        | set(brute.legal_assignments(unblocked, ATTACKERS))
    assert legal_set(flagged, ATTACKERS) == expected


@st.composite
def banded_combats(draw):
    """A small combat with §10's fields sprinkled over it: banding, bands with other,
    qualities, assigns, assigned_by, and as_though_unblocked where it is allowed."""
    doc = copy.deepcopy(draw(strategies.combats(max_sources=3, rich=True)))
    for c in doc["creatures"]:
        roll = draw(st.integers(0, 9))
        if roll == 0:
            c["keywords"] = [*c.get("keywords", []), "Banding"]
        elif roll == 1:
            c["keywords"] = [*c.get("keywords", []), "Bands with other Legendary"]
        if draw(st.booleans()):
            c["qualities"] = ["legendary"]
        c["assigns"] = draw(st.sampled_from(["power", "power", "toughness", "none"]))
        if draw(st.integers(0, 4)) == 0:
            c["assigned_by"] = "opponent"
    for c in doc["creatures"]:
        if c.get("attacking") is not None and draw(st.booleans()) \
                and brute.chooser_side(doc, c["id"]) == ATTACKERS:
            c["as_though_unblocked"] = True
    return doc


def _small(doc, side):
    return all(brute.assigned_amount(c) <= 6 for c in doc["creatures"]) \
        and strategies.split_count(doc, side) <= 1500


@FAST
@given(banded_combats(), st.sampled_from([ATTACKERS, BLOCKERS]), st.data())
def test_judging_agrees_with_enumerating(doc, side, data):
    # Every legal assignment comes from creatures that belong to the side; an assignment
    # is legal exactly when the enumeration lists it.
    if not _small(doc, side):
        return
    legal = legal_set(doc, side)
    for assignment in legal:
        assert all(brute.chooser_side(doc, s) == side for s, _t, _n in assignment)
    proposal = data.draw(strategies.proposals(doc, side))
    positive = frozenset((s, t, n) for (s, t), n in proposal.items() if n > 0)
    assert brute.is_legal(doc, side, proposal) == (positive in legal)
