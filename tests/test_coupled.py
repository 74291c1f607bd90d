"""Coupled parts: the exact bounds and reductions the search of a coupled group starts
from, checked against every legal assignment the brute force lists."""

from __future__ import annotations

import os

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trample.models.document.combat import Combat
from trample.solver.optimize import milp
from trample.solver.optimize.cpsat import build_group, reaches
from trample.solver.optimize.fastpath import ceilings, most_to
from trample.solver.optimize.greedy import greedy
from trample.solver.optimize.search_settings import SearchSettings
from trample.solver.optimize.solve import _reaches
from trample.solver.rules.legal_space import legal_space

import brute
from strategies import cached_legal_assignments, combats, contests, pileups, token_swarms

SIDES = st.sampled_from(["attackers", "blockers"])
SMALL = settings(max_examples=40, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
COMBATS = st.one_of(combats(rich=True), contests(), token_swarms())


@SMALL
@given(doc=COMBATS, side=SIDES)
def test_every_legal_assignment_keeps_within_the_ceilings(doc: dict, side: str) -> None:
    space = legal_space(Combat.from_json(doc), side)
    most = ceilings(space, space.sources)
    for pair, ceiling in most.items():
        assert 0 <= ceiling < space.by_id[pair[0]].power
    for assignment in cached_legal_assignments(doc, side):
        for source, target, amount in assignment:
            assert amount <= most.get((source, target), amount), (source, target)


@SMALL
@given(doc=st.one_of(COMBATS, pileups()), side=SIDES)
def test_no_legal_assignment_gives_a_target_more_than_most_to(doc: dict, side: str) -> None:
    """Each part's bound on what it can give a player, planeswalker or battle holds for
    every legal assignment the brute force lists (the part's sources summed)."""
    space = legal_space(Combat.from_json(doc), side)
    legal = cached_legal_assignments(doc, side)
    for part in space.parts:
        ids = {s.id for s in part.sources}
        targets = {r.id for s in part.sources for r in s.recipients if r.kind != "creature"}
        for target in targets:
            most = most_to(space, part.sources, target)
            for assignment in legal:
                got = sum(a for s, t, a in assignment if t == target and s in ids)
                assert got <= most, (target, most, sorted(assignment))


@SMALL
@given(doc=st.one_of(COMBATS, pileups()), side=SIDES)
def test_whether_a_part_reaches_a_target_is_what_the_brute_force_says(doc: dict,
                                                                    side: str) -> None:
    """``reaches`` answers yes exactly up to the most damage a legal assignment has the
    part's sources deal the target, and no from one more."""
    space = legal_space(Combat.from_json(doc), side)
    legal = cached_legal_assignments(doc, side)
    for part in space.parts:
        ids = {s.id for s in part.sources}
        targets = {r.id for s in part.sources for r in s.recipients if r.kind != "creature"}
        for target in sorted(targets):
            most = max(sum(a for s, t, a in assignment if t == target and s in ids)
                       for assignment in legal)
            assert reaches(space, part.sources, target, 0)
            assert reaches(space, part.sources, target, most), (target, most)
            assert reaches(space, part.sources, target, most + 1) is False, (target, most)


@pytest.mark.sources
@pytest.mark.parametrize("life", [3, 4, 5, 6])
def test_the_last_part_of_a_bound_is_asked_whether_it_reaches(monkeypatch, life: int) -> None:  # type: ignore[no-untyped-def]
    """With every part past the packed search of small parts, the parts before the last
    give their most damage and the last is asked only whether it reaches what they leave;
    the answer is the brute force's optimum whatever the life."""
    from trample.solver.interface import api
    from trample.solver.optimize import solve

    asked: list[int] = []
    original = solve._can_reach

    def spy(space, part, target, need, deadline, settings):  # type: ignore[no-untyped-def]
        found = original(space, part, target, need, deadline, settings)
        asked.append(need)
        return found

    monkeypatch.setattr(solve, "_can_reach", spy)
    doc = _walled(life)
    terms = ["lethal", "kills", "player_damage"]
    settings = SearchSettings(milp_probe_pairs=1, threads=1)
    result = api.solve(doc, objective=terms, settings=settings)
    assert result["status"] == "optimal"
    assert tuple(result["objective"].values()) == brute.optimum(doc, "attackers", terms)
    # 3: the greedy split reaches it; 5 and 6: the ceilings (1 + 1 + 2) settle it; 4:
    # the exact round runs, and its last part is asked.
    if life == 4:
        assert len(asked) == 1 and 0 < asked[0] <= life, asked
    else:
        assert not asked


@SMALL
@given(doc=st.one_of(contests(), token_swarms(), pileups()))
def test_bounds_asked_part_by_part_keep_the_optimum(doc: dict) -> None:
    """Every part past the packed search of small parts (so that contested targets are
    bounded part by part, the last one asked whether it reaches): the optimum is still
    the brute force's."""
    from trample.solver.interface import api

    terms = ["lethal", "planeswalker_kills", "kills", "player_damage", "planeswalker_damage"]
    settings = SearchSettings(milp_probe_pairs=1, threads=1)
    result = api.solve(doc, side="attackers", objective=terms, settings=settings)
    assert result["status"] == "optimal"
    assert tuple(result["objective"].values()) == brute.optimum(doc, "attackers", terms)


def test_groups_with_their_own_targets_left_out_are_solved_as_alone() -> None:
    """``solve_groups`` with a set of left-out targets per group answers each group as a
    call of its own with that set would, in every mix of the two sets (only groups of
    the same set are searched as one model); and the set matters here: a part that
    counts the player's life splits otherwise than one that leaves it out."""
    from itertools import product

    from trample.solver.optimize.solve import solve_groups

    # A trampler of power 3 passes 1 to the player at 1 life only by killing a blocker
    # worth -3 as well as one worth 0; one of power 1 behind a 1/1 cannot pass.
    creatures = [
        {"id": "a", "controller": "p", "power": 3, "toughness": 3,
         "keywords": ["trample"], "attacking": "d"},
        {"id": "n", "controller": "d", "power": 0, "toughness": 1, "value": -3,
         "blocking": ["a"]},
        {"id": "c", "controller": "d", "power": 0, "toughness": 1, "value": 0,
         "blocking": ["a"]},
        {"id": "e", "controller": "p", "power": 1, "toughness": 1,
         "keywords": ["trample"], "attacking": "d"},
        {"id": "f", "controller": "d", "power": 0, "toughness": 1, "value": 0,
         "blocking": ["e"]},
    ]
    doc = {"active_player": "p", "players": [{"id": "p"}, {"id": "d", "life": 1}],
           "creatures": creatures}
    space = legal_space(Combat.from_json(doc), "attackers")
    terms = ["lethal", "kills", "player_damage"]
    groups = [[part] for part in space.parts]
    # Every group searched as a model of its own (none packed with another), on two
    # threads, so that the two ways must give the same splits.
    settings = SearchSettings(milp_probe_pairs=1, milp_alike=10**9, threads=2)
    sets = (frozenset(), frozenset({"d"}))
    alone = {e: [solve_groups(space, [g], terms, e, None, settings)[0] for g in groups]
             for e in sets}
    assert alone[sets[0]] != alone[sets[1]]
    for mix in product(sets, repeat=len(groups)):
        together = solve_groups(space, groups, terms, frozenset(), None, settings, list(mix))
        assert together == [alone[e][k] for k, e in enumerate(mix)], mix


def test_most_to_takes_the_loyalty_once_from_those_that_pass() -> None:
    """Two unblocked 4- and 3-power creatures with trample over planeswalkers on a
    planeswalker of loyalty 3, and a 2-power one whose 1/1 and 0/5 blockers keep it off
    the planeswalker: 702.19c, the two give the planeswalker 3 first, so at most 4 goes
    to its controller (each alone could send all its power but what the other lacks)."""
    doc = {"active_player": "a",
           "players": [{"id": "a"}, {"id": "d", "life": 20}],
           "planeswalkers": [{"id": "pw", "controller": "d", "loyalty": 3}],
           "creatures": [
               {"id": "x", "controller": "a", "power": 4, "toughness": 4,
                "keywords": ["trample over planeswalkers"], "attacking": "pw"},
               {"id": "y", "controller": "a", "power": 3, "toughness": 3,
                "keywords": ["trample over planeswalkers"], "attacking": "pw"},
               {"id": "z", "controller": "a", "power": 2, "toughness": 2,
                "keywords": ["trample"], "attacking": "pw"},
               {"id": "b1", "controller": "d", "power": 0, "toughness": 1,
                "blocking": ["z"]},
               {"id": "b2", "controller": "d", "power": 0, "toughness": 5,
                "blocking": ["z"]}],
           "step": "regular"}
    space = legal_space(Combat.from_json(doc), "attackers")
    [part] = [p for p in space.parts if len(p.sources) == 3]
    assert most_to(space, part.sources, "d") == 4
    best = max(sum(a for _, t, a in assignment if t == "d")
               for assignment in brute.legal_assignments(doc, "attackers"))
    assert best == 4


def test_a_trampler_keeps_back_what_its_own_blockers_need() -> None:
    """A 5-power trampler blocked by a 2/2 of its own and a 3/3 it shares with a 1-power
    attacker: at most 5 - 2 - (3 - 1) = 1 goes past them; a 1/1 deathtouch trampler
    blocked by a 0/4 gets nothing past it only if the blocker is shared with nobody."""
    doc = {"active_player": "a",
           "players": [{"id": "a"}, {"id": "d", "life": 20}],
           "creatures": [
               {"id": "big", "controller": "a", "power": 5, "toughness": 5,
                "keywords": ["trample"], "attacking": "d"},
               {"id": "small", "controller": "a", "power": 1, "toughness": 1,
                "attacking": "d"},
               {"id": "dt", "controller": "a", "power": 1, "toughness": 1,
                "keywords": ["trample", "deathtouch"], "attacking": "d"},
               {"id": "own", "controller": "d", "power": 0, "toughness": 2,
                "blocking": ["big"]},
               {"id": "shared", "controller": "d", "power": 0, "toughness": 3,
                "blocking": ["big", "small"]},
               {"id": "wall", "controller": "d", "power": 0, "toughness": 4,
                "blocking": ["dt"]}],
           "step": "regular"}
    space = legal_space(Combat.from_json(doc), "attackers")
    most = ceilings(space, space.sources)
    assert most[("big", "d")] == 1
    assert most[("dt", "d")] == 0
    assert ("small", "shared") not in most


@pytest.mark.sources  # (replaces the fast reading, inside the compiled module)
@SMALL
@given(doc=COMBATS, side=SIDES, data=st.data())
def test_the_translation_reads_the_same_model_either_way(doc: dict, side: str,
                                                        data: st.DataObject) -> None:
    """HiGHS's rows come from the serialized proto when an in-memory file is at hand; the
    field-by-field reading through OR-Tools' wrapper gives the same translation."""
    space = legal_space(Combat.from_json(doc), side)
    terms = brute.default_objective(side)
    if side == "attackers":
        terms = data.draw(st.permutations(terms))
    sources = [s for s in space.sources if s.recipients]
    if not sources:
        return
    built = build_group(space, sources, terms, ceiled=data.draw(st.booleans()))
    fast = milp.translate(built.model, built.expressions)
    original = milp._parsed
    try:
        milp._parsed = lambda model: None  # type: ignore[assignment]
        slow = milp.translate(built.model, built.expressions)
    finally:
        milp._parsed = original  # type: ignore[assignment]
    assert fast == slow
    assert milp._parsed(built.model) is not None or not hasattr(os, "memfd_create")


def _walled(life: int, power: int = 5) -> dict:
    """Two tramplers of power 5 on a player, each behind a 0/2 and a 2/2 of its own and
    sharing a 0/3, a trampler of power 2 unblocked, and a 3/3 held by a 0/4: each of the
    two can pass at most 1 (5 less its own blockers' 4), never both (the 0/3 needs 3 of
    the 2 they have left), so the player can get at most 2 + 1 = 3 of their 12 power.
    """
    creatures = [{"id": f"a{i}", "controller": "a", "power": power, "toughness": 5,
                  "keywords": ["trample"], "attacking": "d"} for i in range(2)]
    for i in range(2):
        creatures.append({"id": f"w{i}", "controller": "d", "power": 0, "toughness": 2,
                          "value": 1, "blocking": [f"a{i}"]})
        creatures.append({"id": f"v{i}", "controller": "d", "power": 2, "toughness": 2,
                          "value": 2, "blocking": [f"a{i}"]})
    creatures.append({"id": "s", "controller": "d", "power": 0, "toughness": 3,
                      "value": 1, "blocking": ["a0", "a1"]})
    creatures.append({"id": "u", "controller": "a", "power": 3, "toughness": 3,
                      "attacking": "d"})
    creatures.append({"id": "x", "controller": "d", "power": 0, "toughness": 4,
                      "value": 1, "blocking": ["u"]})
    creatures.append({"id": "z", "controller": "a", "power": 2, "toughness": 2,
                      "keywords": ["trample"], "attacking": "d"})
    return {"active_player": "a",
            "players": [{"id": "a"}, {"id": "d", "life": life}],
            "creatures": creatures, "step": "regular"}


@pytest.mark.sources
def test_a_contested_player_out_of_reach_is_settled_without_a_search(monkeypatch) -> None:
    """The player is reached by two parts (the tramplers sharing a blocker, and an
    unblocked trampler): where the senders' ceilings show the life out of reach, no
    part's most damage is searched; every answer is the brute force's optimum."""
    from trample.solver.interface import api
    from trample.solver.optimize import solve

    searched: list[bool] = []
    original = solve._most_damage

    def spy(*args: object, **kwargs: object) -> int:
        searched.append(not args[-1])
        return original(*args, **kwargs)  # type: ignore[arg-type]

    packed = solve._most_damage_of_small

    def spy_packed(*args: object, **kwargs: object) -> int:
        searched.append(True)
        return packed(*args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(solve, "_most_damage", spy)
    monkeypatch.setattr(solve, "_most_damage_of_small", spy_packed)
    for life, searches in ((5, False), (4, True), (3, None)):
        searched.clear()
        doc = _walled(life)
        space = legal_space(Combat.from_json(doc), "attackers")
        assert len(space.parts) == 3 and sum(s.power for s in space.sources) >= life
        terms = ["lethal", "kills", "player_damage"]
        result = api.solve(doc, objective=terms)
        assert result["status"] == "optimal"
        assert tuple(result["objective"].values()) == brute.optimum(doc, "attackers", terms)
        if searches is not None:
            # 5: the ceilings (1 + 1 + 2) settle it; 4: they do not, the exact most does.
            assert searched and any(searched) == searches, searched


@SMALL
@given(doc=st.one_of(contests(), token_swarms(), combats(rich=True)), side=SIDES)
def test_a_witness_of_reach_never_overstates(doc: dict, side: str) -> None:
    """The greedy witness that parts reach a contested target (which spares the exact
    bound) holds only up to the most damage a legal assignment deals that target, and
    always for no damage at all (its split is legal)."""
    space = legal_space(Combat.from_json(doc), side)
    most: dict[str, int] = {}
    for assignment in cached_legal_assignments(doc, side):
        got: dict[str, int] = {}
        for _, target, amount in assignment:
            got[target] = got.get(target, 0) + amount
        for target, amount in got.items():
            most[target] = max(most.get(target, 0), amount)

    def rest() -> dict[tuple[str, str], int]:
        return greedy(space)

    for target in {r.id for s in space.sources for r in s.recipients if r.kind != "creature"}:
        parts = [p for p in space.parts if any(s.recipient(target) is not None
                                               for s in p.sources)]
        assert _reaches(space, parts, target, 0, rest)
        assert not _reaches(space, parts, target, most.get(target, 0) + 1, rest)


def test_a_group_too_big_to_inspect_is_judged_once(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Whether a group has few enough assignments to look at each does not depend on the
    terms: the second look (for a contested target's most damage) builds nothing."""
    from trample.solver.optimize import solve

    creatures: list[dict] = [{"id": f"A{a}", "controller": "P1", "power": 3,
                              "toughness": 3, "keywords": ["trample"], "attacking": "P2"}
                             for a in range(3)]
    creatures += [{"id": f"b{b}", "controller": "P2", "power": 1, "toughness": 1 + b % 3,
                   "blocking": ["A0", "A1", "A2"]} for b in range(4)]
    doc = {"active_player": "P1", "players": [{"id": "P1"}, {"id": "P2", "life": 30}],
           "creatures": creatures}
    space = legal_space(Combat.from_json(doc), "attackers")
    built: list[object] = []
    original = solve.PartSpace

    def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
        built.append(args[1])
        return original(*args, **kwargs)

    monkeypatch.setattr(solve, "PartSpace", counted)
    [part] = space.parts
    assert solve._by_inspection(space, [part], ["kills"], frozenset()) is None
    assert built == [part]
    assert solve._by_inspection(space, [part], ["player_damage"], frozenset()) is None
    assert built == [part]
    # Another space of the same combat judges afresh.
    again = legal_space(Combat.from_json(doc), "attackers")
    assert solve._by_inspection(again, list(again.parts), ["kills"], frozenset()) is None
    assert len(built) == 2


def test_a_group_a_greedy_split_shows_reaching_is_searched_at_once() -> None:
    """Life 2 is within the greedy split's reach (the unblocked trampler's 2): the parts
    that reach the player are one group from the start; at 4 and 5 no split reaches it,
    and each part is searched alone. (At 3 only a split that sends 1 past the shared
    blockers does, which the greedy one does not find: searched alone, then bounded.)"""
    from trample.solver.interface import api
    from trample.solver.optimize import solve

    terms = ["lethal", "kills", "player_damage"]
    for life, early in ((2, True), (3, False), (4, False), (5, False)):
        doc = _walled(life)
        space = legal_space(Combat.from_json(doc), "attackers")
        disputed = solve.contested(space, terms)
        found, _ = solve._early_groups(space, terms, disputed)
        if early:
            [group] = found
            assert set(group) == {i for members in disputed.values() for i in members}
        else:
            assert found == []
        result = api.solve(doc, objective=terms)
        assert result["status"] == "optimal"
        assert tuple(result["objective"].values()) == brute.optimum(doc, "attackers", terms)


@pytest.mark.parametrize(("family", "attackers", "seed"), [
    ("shared_blockers", 100, 4), ("shared_blockers", 400, 0), ("token_swarm", 100, 3),
    ("token_swarm", 30, 0)])
def test_only_token_swarms_groups_are_packed_into_one_search(family: str, attackers: int,
                                                             seed: int) -> None:
    """The searches the coupled groups are packed into (``solve._units``): every group
    in exactly one; a token swarm's groups (mostly interchangeable creatures) all in one;
    a large group of shared blockers alone, though it holds enough interchangeable
    creatures to skip CP-SAT's short try (30% shared at 100 x 300, seed 4, has two, and
    at 400 x 1,200 every large part does: packed into one model, HiGHS took 1.45x the work
    of the two apart, on one thread)."""
    from benchmarks import generators
    from trample.solver.optimize.solve import _pairs, _token_swarm, _units

    doc = getattr(generators, family)(attackers, 3 * attackers, 0.3, seed)
    space = legal_space(Combat.from_json(doc), "attackers")
    groups = [[part] for part in space.parts]
    hard = [i for i, group in enumerate(groups) if len(group[0].sources) > 1]
    shipped = SearchSettings()
    units = _units(space, groups, hard, shipped)
    assert sorted(i for unit in units for i in unit) == sorted(hard)
    shaped = [i for i in hard if _token_swarm(space, groups[i], shipped)]
    large = [i for i in hard if _pairs(groups[i]) >= shipped.milp_pairs]
    if family == "token_swarm":
        assert shaped and shaped in units
    else:
        assert len([i for i in shaped if i in large]) >= 2
        for unit in units:
            assert len([i for i in unit if i in large]) <= 1, unit


# -- spies on the searches ---------------------------------------------------------------

def _cp_sat_efforts(monkeypatch: pytest.MonkeyPatch) -> list[float | None]:
    """The effort (``SearchSettings.effort``) of each CP-SAT search asked from now on."""
    from trample.solver.optimize import cpsat

    efforts: list[float | None] = []
    real = cpsat.solve_group

    def spy(*args, settings, **kwargs):  # type: ignore[no-untyped-def]
        efforts.append(settings.effort)
        return real(*args, settings=settings, **kwargs)

    monkeypatch.setattr(cpsat, "solve_group", spy)
    return efforts


def _sources_asked(monkeypatch: pytest.MonkeyPatch, module: object, name: str) -> list[int]:
    """How many sources each call of ``module.name(space, sources, ...)`` from now on had."""
    asked: list[int] = []
    real = getattr(module, name)

    def spy(space, sources, *args, **kwargs):  # type: ignore[no-untyped-def]
        asked.append(len(sources))
        return real(space, sources, *args, **kwargs)

    monkeypatch.setattr(module, name, spy)
    return asked


# -- small groups CP-SAT does not prove at once ------------------------------------------------

@SMALL
@given(doc=st.one_of(contests(), token_swarms(), pileups()), side=SIDES)
def test_small_groups_past_cp_sat_s_effort_go_to_highs_and_keep_the_optimum(doc: dict,
                                                                            side: str) -> None:
    """With no effort for CP-SAT's first try, every small group it searches is handed to
    HiGHS (then to CP-SAT's full search if HiGHS cannot settle it): the optimum is still
    the brute force's."""
    from trample.solver.interface import api

    objective = ["kills"] if side == "blockers" else \
        ["lethal", "planeswalker_kills", "kills", "player_damage", "planeswalker_damage"]
    settings = SearchSettings(milp_rescue_effort=0.0, threads=1)
    result = api.solve(doc, side=side, objective=objective, settings=settings)
    assert result["status"] == "optimal"
    assert tuple(result["objective"].values()) == brute.optimum(doc, side, objective)


@pytest.mark.sources  # (spies on HiGHS's search, called from inside a compiled module)
def test_a_small_group_goes_to_highs_only_past_cp_sat_s_effort(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Three tramplers behind the same three 1/5 walls: CP-SAT's first try proves the
    group within the shipped effort, so HiGHS is not asked; with none, HiGHS answers the
    same optimum."""
    from test_search_limits import shared_blockers_combat

    from trample.solver.interface import api

    doc = shared_blockers_combat(life=30)  # out of reach: one group, searched once
    asked = _sources_asked(monkeypatch, milp, "solve_group")
    shipped = api.solve(doc, settings=SearchSettings(threads=1))
    assert shipped["status"] == "optimal" and not asked
    api.forget_spaces()
    rescued = api.solve(doc, settings=SearchSettings(milp_rescue_effort=0.0, threads=1))
    assert asked == [3]
    assert rescued["status"] == "optimal"
    assert rescued["objective"] == shipped["objective"]
    assert api.validate(doc, rescued["assignment"])["legal"]


# -- mid-sized groups of many shared blockers ---------------------------------------------

@SMALL
@given(doc=st.one_of(contests(), token_swarms(), pileups()), side=SIDES,
       sent=st.sampled_from([{"milp_shared": 1}, {"milp_kinds": 1.0}]))
def test_groups_sent_to_highs_at_once_keep_the_optimum(doc: dict, side: str,
                                                       sent: dict) -> None:
    """Every group with a creature blocking two of its sources, or every group whatever
    its kinds of creatures, sent to HiGHS without CP-SAT's short try: the optimum is
    still the brute force's."""
    from trample.solver.interface import api

    objective = ["kills"] if side == "blockers" else \
        ["lethal", "planeswalker_kills", "kills", "player_damage", "planeswalker_damage"]
    settings = SearchSettings(milp_probe_pairs=1, threads=1, **sent)
    result = api.solve(doc, side=side, objective=objective, settings=settings)
    assert result["status"] == "optimal"
    assert tuple(result["objective"].values()) == brute.optimum(doc, side, objective)


@pytest.mark.parametrize(("setting", "sends", "keeps"), [
    ("milp_shared", 3, 4),  # three walls, each blocking all three tramplers
    ("milp_kinds", 0.34, 0.3)])  # one kind (5 for lethal, worth 1) for three walls
def test_a_group_of_shared_or_alike_blockers_skips_cp_sat_s_short_try(
        monkeypatch, setting: str, sends: float, keeps: float) -> None:  # type: ignore[no-untyped-def]
    """Three tramplers behind the same three walls, searched as a mid-sized group: past
    the limit, HiGHS proves it and CP-SAT is not asked; short of it, CP-SAT's short try
    comes first. Both answer the same optimum, legal."""
    from test_search_limits import shared_blockers_combat

    from trample.solver.interface import api

    doc = shared_blockers_combat(life=30)  # out of reach: one group, searched once
    efforts = _cp_sat_efforts(monkeypatch)
    answers = {}
    for value in (sends, keeps):
        efforts.clear()
        api.forget_spaces()
        settings = SearchSettings(milp_probe_pairs=1, threads=1, **{setting: value})
        answers[value] = api.solve(doc, settings=settings)
        assert efforts == ([] if value == sends else [settings.milp_probe_time]), value
        assert answers[value]["status"] == "optimal"
        assert api.validate(doc, answers[value]["assignment"])["legal"]
    assert answers[sends]["objective"] == answers[keeps]["objective"]


# -- groups searched at once on the legal ceilings' word ----------------------------------

@SMALL
@given(doc=st.one_of(contests(), token_swarms(), pileups()))
def test_groups_taken_at_once_on_the_ceilings_keep_the_optimum(doc: dict) -> None:
    """Every group with a contested target the legal ceilings do not rule out searched at
    once, counting it, by HiGHS when no split is known to reach it: the optimum is still
    the brute force's."""
    from trample.solver.interface import api

    terms = ["lethal", "planeswalker_kills", "kills", "player_damage", "planeswalker_damage"]
    settings = SearchSettings(milp_probe_pairs=1, early_rest=10.0, threads=1)
    result = api.solve(doc, side="attackers", objective=terms, settings=settings)
    assert result["status"] == "optimal"
    assert tuple(result["objective"].values()) == brute.optimum(doc, "attackers", terms)


def test_a_group_of_one_searched_part_is_searched_at_once_unless_out_of_reach(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The two walled tramplers of power 6 (8 pairs, too many splits to look at each) and
    the unblocked one (1 pair) on the player: the ceilings (2 + 2 + 2) rule out life 7
    only. At life 3 the greedy split reaches it; at 4 (reachable) and 5 (not) no split is
    known to, and the group is taken all the same, since its one large part holds all but
    an eighth of its pairs, and HiGHS searches it without CP-SAT's short try; with no
    share left to the other parts, only the group the greedy split shows is taken. Every
    answer is the brute force's optimum."""
    from dataclasses import replace

    from trample.solver.interface import api
    from trample.solver.optimize import solve

    efforts = _cp_sat_efforts(monkeypatch)
    rows = _sources_asked(monkeypatch, milp, "build_rows")
    terms = ["lethal", "kills", "player_damage"]
    # (Without the program that settles some such groups without search.)
    taken = SearchSettings(milp_probe_pairs=8, early_rest=0.125, dynamic_program=False,
                           threads=1)
    for life, expected in ((3, [True]), (4, [False]), (5, [False]), (7, [])):
        doc = _walled(life, power=6)
        space = legal_space(Combat.from_json(doc), "attackers")
        disputed = solve.contested(space, terms)
        early, witnessed = solve._early_groups(space, terms, disputed, taken)
        assert witnessed == expected, life
        if early:
            [group] = early
            assert set(group) == {i for members in disputed.values() for i in members}
        alone = solve._early_groups(space, terms, disputed,
                                       replace(taken, early_rest=0.0))
        assert alone[1] == [w for w in expected if w], life
        efforts.clear()
        rows.clear()
        api.forget_spaces()
        result = api.solve(doc, objective=terms, settings=taken)
        assert result["status"] == "optimal"
        assert tuple(result["objective"].values()) == brute.optimum(doc, "attackers", terms)
        if expected == [False]:  # HiGHS searched the group of three, CP-SAT did not try
            assert rows[:1] == [3] and taken.milp_probe_time not in efforts, (life, rows, efforts)
        if expected == [True]:  # CP-SAT's short try proved the group
            assert efforts == [taken.milp_probe_time] and not rows, (life, rows, efforts)
