"""The ceiling on ``kills`` (trample.solver.optimize.kill_bound) and the search that starts from it
(trample.solver.optimize.cpsat): the ceiling is never below any legal assignment's kills, the
brute force's, is exact where no creature is shared, and the search from it reaches the
brute force's optimum however many values it tries on the way down."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from trample.models.document.combat import Combat
from trample.solver.optimize import cpsat, kill_bound
from trample.solver.optimize.kill_bound import kills_ceiling
from trample.solver.optimize.objectives import evaluate, scoring
from trample.solver.optimize.search_settings import SearchSettings
from trample.solver.optimize.solve import mode_vectors
from trample.solver.rules.legal_space import LegalSpace, legal_space, mode_space

import brute
from strategies import cached_legal_assignments, combats, contests, pileups, token_swarms

SIDES = st.sampled_from(["attackers", "blockers"])
SMALL = settings(max_examples=80, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


@st.composite
def shared_blocks(draw: st.DrawFn) -> dict:
    """Two or three attackers (some with trample or deathtouch) and two to four blockers,
    each blocking one to three of them (as a creature able to block several does), of
    varied lethal damage and value, some worth less than nothing (and sometimes every
    value times 2^37, near the largest a document may give)."""
    scale = draw(st.sampled_from([1, 1, 1, 2**37]))
    attackers = []
    for i in range(draw(st.integers(2, 3))):
        creature = {"id": f"a{i}", "controller": "ap", "power": draw(st.integers(1, 4)),
                    "toughness": 5, "attacking": "dp"}
        keywords = draw(st.lists(st.sampled_from(["Trample", "Deathtouch"]), unique=True))
        if keywords:
            creature["keywords"] = keywords
        attackers.append(creature)
    ids = [a["id"] for a in attackers]
    blockers = []
    for j in range(draw(st.integers(2, 4))):
        toughness = draw(st.integers(1, 4))
        blockers.append({"id": f"b{j}", "controller": "dp", "power": 0,
                         "toughness": toughness, "damage": draw(st.integers(0, toughness - 1)),
                         "value": draw(st.integers(-2, 6)) * scale,
                         "blocking": draw(st.lists(st.sampled_from(ids), min_size=1,
                                                   max_size=3, unique=True))})
    return {"format": "combat/1", "active_player": "ap",
            "players": [{"id": "ap", "life": 20}, {"id": "dp", "life": draw(st.integers(1, 8))}],
            "creatures": attackers + blockers, "step": "regular"}


COMBATS = st.one_of(combats(rich=True), contests(), token_swarms(), pileups(), shared_blocks())


def _spaces(doc: dict, side: str) -> list[LegalSpace]:
    """The space, or each of its sets of splits when an attacker may assign as though
    unblocked (the legal assignments are their union)."""
    space = legal_space(Combat.from_json(doc), side)
    if not space.alternatives:
        return [space]
    return [mode_space(space, modes) for modes in mode_vectors(space)]


def _ceiling(space: LegalSpace) -> int | None:
    found = kills_ceiling(space, [s for s in space.sources if s.recipients])
    return None if found is None else found.value


@SMALL
@given(doc=COMBATS, side=SIDES)
def test_no_legal_assignment_kills_more_than_the_ceiling(doc: dict, side: str) -> None:
    """Every legal assignment the brute force lists kills at most the ceiling (over all
    the sources, as one group), plus what is dead whatever is assigned."""
    spaces = _spaces(doc, side)
    found = [_ceiling(space) for space in spaces]
    if any(c is None for c in found):
        return
    top = max(c for c in found if c is not None) + scoring(spaces[0]).kills_constant
    for assignment in cached_legal_assignments(doc, side):
        assert brute.objective(doc, side, assignment, ["kills"])[0] <= top


@SMALL
@given(doc=st.one_of(combats(rich=True), pileups()), side=SIDES)
def test_without_shared_creatures_the_ceiling_is_the_optimum(doc: dict, side: str) -> None:
    """Where each creature has one source that can assign to it and none is worth less
    than nothing, the ceiling is each source's own knapsack, exactly the most kills."""
    space = legal_space(Combat.from_json(doc), side)
    senders: dict[str, int] = {}
    for s in space.sources:
        for r in s.recipients:
            senders[r.id] = senders.get(r.id, 0) + 1
    killable = scoring(space).killable
    if space.alternatives or any(n > 1 for c, n in senders.items() if c in killable) or \
            any(v < 0 for v in killable.values()):
        return
    ceiling = _ceiling(space)
    assert ceiling is not None
    best = brute.optimum(doc, side, ["kills"])[0]
    event(f"kills {'0' if best == 0 else 'above 0'}")
    assert ceiling + scoring(space).kills_constant == best


@SMALL
@given(doc=st.one_of(COMBATS, shared_blocks()), side=SIDES)
def test_what_the_ceiling_decides_holds_on_every_split_that_kills_enough(doc: dict,
                                                                        side: str) -> None:
    """For each k up to the ceiling, every legal assignment the brute force lists that
    kills at least k (besides what is dead whatever is assigned) kills each creature the
    ceiling decides killed and spares each one it decides spared; where it decides one
    both ways, none kills k."""
    space = legal_space(Combat.from_json(doc), side)
    if space.alternatives:
        return
    ceiling = kills_ceiling(space, [s for s in space.sources if s.recipients])
    if ceiling is None:
        return
    constant = scoring(space).kills_constant
    assignments = cached_legal_assignments(doc, side)
    kills = [brute.objective(doc, side, a, ["kills"])[0] - constant for a in assignments]
    for k in range(ceiling.value - 3, ceiling.value + 1):
        decided = ceiling.decided(k)
        both = {c for c, killed in decided if (c, not killed) in decided}
        event(f"decided {'none' if not decided else 'some'}"
              f"{', one both ways' if both else ''}")
        for assignment, killed_here in zip(assignments, kills, strict=True):
            if killed_here < k:
                continue
            assert not both, (k, both)
            for creature, killed in decided:
                assert brute.is_lethally_assigned(doc, assignment, creature) == killed, \
                    (k, creature, killed)


def _statuses_of_runs(monkeypatch: Any) -> list[str]:
    """The list each CP-SAT run of :mod:`trample.solver.optimize.cpsat` appends its status to."""
    statuses: list[str] = []
    original = cpsat._run

    def spied(*args: Any) -> Any:
        code, solver = original(*args)
        statuses.append(solver.status_name(code))
        return code, solver

    monkeypatch.setattr(cpsat, "_run", spied)
    return statuses


def test_a_creature_decided_both_ways_skips_the_try(monkeypatch: Any) -> None:
    """A ceiling that rules out every k of 1 and more by one creature both ways (true of
    BELOW: nothing can die there): the descent tries none of them, and the one search left
    finds the optimum."""
    space = legal_space(Combat.from_json(BELOW), "attackers")
    sources = [s for s in space.sources if s.recipients]
    monkeypatch.setattr(cpsat, "kills_ceiling",
                        lambda *_: kill_bound.Ceiling(4, (("b0", 0, 0),)))
    assert kill_bound.Ceiling(4, (("b0", 0, 0),)).decided(1) == [("b0", False), ("b0", True)]
    statuses = _statuses_of_runs(monkeypatch)
    terms = ["kills", "player_damage"]
    for fixing, seen in ((True, ["OPTIMAL"]), (False, ["INFEASIBLE"] * 4 + ["OPTIMAL"])):
        statuses.clear()
        found = cpsat.solve_group(space, sources, terms,
                                  settings=SearchSettings(kills_fixing=fixing))
        assert statuses == seen, fixing
        assert found.status == "optimal"
        assert tuple(evaluate(space, found.amounts, terms).values()) == \
            brute.optimum(BELOW, "attackers", terms)


@settings(max_examples=200, deadline=None)
@given(items=st.lists(st.tuples(st.integers(1, 12), st.integers(1, 9)), max_size=8),
       capacity=st.integers(0, 40))
def test_the_knapsack_steps_are_the_table(items: list[tuple[int, int]],
                                          capacity: int) -> None:
    """The steps of each source's knapsack read back, amount by amount, as the table of
    the best value within each amount (filled here plainly, every set tried), and only
    where it rises."""
    best = [0] * (capacity + 1)
    for chosen in range(1 << len(items)):
        need = sum(n for k, (n, _) in enumerate(items) if chosen >> k & 1)
        value = sum(v for k, (_, v) in enumerate(items) if chosen >> k & 1)
        for d in range(need, capacity + 1):
            best[d] = max(best[d], value)
    steps = kill_bound._knapsack(items, capacity)
    assert steps[0] == (0, 0)
    assert [d for d, _ in steps] == [d for d in range(capacity + 1)
                                     if d == 0 or best[d] > best[d - 1]]
    assert all(best[d] == f for d, f in steps)


@settings(max_examples=200, deadline=None)
@given(items=st.lists(st.tuples(st.integers(1, 12), st.integers(1, 9)), min_size=1,
                      max_size=7),
       capacity=st.integers(0, 40), rate=st.integers(0, 3 * kill_bound.SCALE),
       data=st.data())
def test_a_knapsack_without_one_item_is_the_best_pair_around_it(
        items: list[tuple[int, int]], capacity: int, rate: int, data: st.DataObject) -> None:
    """The bound of a source with one of its creatures left out, read from the knapsacks
    of the creatures before it and after it, is the one read from the knapsack of all the
    others (built here directly, every set tried), at any capacity and rate."""
    j = data.draw(st.integers(0, len(items) - 1))
    others = items[:j] + items[j + 1:]
    best = max(kill_bound.SCALE * sum(v for k, (_, v) in enumerate(others) if chosen >> k & 1)
               - rate * sum(n for k, (n, _) in enumerate(others) if chosen >> k & 1)
               for chosen in range(1 << len(others))
               if sum(n for k, (n, _) in enumerate(others) if chosen >> k & 1) <= capacity)
    before = kill_bound._knapsack(items[:j], capacity)
    after = kill_bound._knapsack(items[j + 1:], capacity)
    assert kill_bound._best_pair(before, after, capacity, rate) == best


def _terms(side: str, data: st.DataObject) -> list[str]:
    if side == "blockers":
        return ["kills", *data.draw(st.permutations(["deaths", "life_gain"]))[:1]]
    rest = ["player_damage", "planeswalker_damage", "lethal", "planeswalker_kills"]
    return ["kills", *data.draw(st.permutations(rest))[:2]]


@SMALL
@given(doc=st.one_of(combats(rich=True), contests(), token_swarms()), side=SIDES,
       descent=st.sampled_from([1, 2, 5]), data=st.data())
def test_the_search_from_the_ceiling_reaches_the_brute_force_optimum(
        doc: dict, side: str, descent: int, data: st.DataObject) -> None:
    _search_from_the_ceiling(doc, side, descent, data)


@settings(SMALL, max_examples=150)
@given(doc=shared_blocks(), descent=st.sampled_from([1, 2, 5]), data=st.data())
def test_the_search_from_the_ceiling_reaches_the_optimum_on_shared_blocks(
        doc: dict, descent: int, data: st.DataObject) -> None:
    _search_from_the_ceiling(doc, "attackers", descent, data)


def _search_from_the_ceiling(doc: dict, side: str, descent: int,
                             data: st.DataObject) -> None:
    """CP-SAT searches every source as one group, ``kills`` first, trying 1, 2 or 5
    values from the ceiling down: proved optimal, legal, and the brute force's optimum."""
    space = legal_space(Combat.from_json(doc), side)
    sources = [s for s in space.sources if s.recipients]
    if space.alternatives or len(sources) < 2:
        return
    terms = _terms(side, data)
    found = cpsat.solve_group(space, sources, terms,
                              settings=SearchSettings(backend="cpsat", kills_descent=descent))
    assert found.status == "optimal"
    assert brute.is_legal(doc, side, found.amounts)
    best = brute.optimum(doc, side, terms)
    assert tuple(evaluate(space, found.amounts, terms).values()) == best
    ceiling = _ceiling(space)
    if ceiling is not None:
        event(f"ceiling {'at' if ceiling + scoring(space).kills_constant == best[0] else 'above'}"
              " the optimum")


BELOW = {"format": "combat/1", "active_player": "ap",
         "players": [{"id": "ap", "life": 20}, {"id": "dp", "life": 20}],
         "creatures": [
             {"id": "a0", "controller": "ap", "power": 1, "toughness": 5, "attacking": "dp"},
             {"id": "a1", "controller": "ap", "power": 1, "toughness": 5, "attacking": "dp",
              "keywords": ["Trample"]},
             {"id": "b0", "controller": "dp", "power": 0, "toughness": 3, "value": 6,
              "blocking": ["a1", "a0"]},
             {"id": "b1", "controller": "dp", "power": 0, "toughness": 4, "value": 1,
              "blocking": ["a1", "a0"]},
             {"id": "b2", "controller": "dp", "power": 0, "toughness": 4, "value": 2,
              "blocking": ["a0"]}],
         "step": "regular"}
"""Two attackers of power 1 on blockers of toughness 3 and 4: nothing can die, while the
ceiling is 4 (each point of damage on the 3-toughness blocker worth 6 is priced 2)."""


def test_a_ceiling_above_the_optimum_is_searched_down_to_it(monkeypatch: Any) -> None:
    """Kills of 4, 3, 2 and 1 are each proved out of reach, then 0 is searched: with 5
    tries, the fifth settles it; with 2, the search of the range below 3 does. Either
    way the answer is the brute force's optimum."""
    space = legal_space(Combat.from_json(BELOW), "attackers")
    sources = [s for s in space.sources if s.recipients]
    assert _ceiling(space) == 4
    terms = ["kills", "player_damage"]
    best = brute.optimum(BELOW, "attackers", terms)
    assert best[0] == 0
    statuses = _statuses_of_runs(monkeypatch)
    for descent, seen in ((5, ["INFEASIBLE"] * 4 + ["OPTIMAL"]),
                          (2, ["INFEASIBLE"] * 2 + ["OPTIMAL"]),
                          (0, ["OPTIMAL"])):
        statuses.clear()
        found = cpsat.solve_group(space, sources, terms,
                                  settings=SearchSettings(kills_descent=descent))
        assert statuses == seen, descent
        assert found.status == "optimal"
        assert tuple(evaluate(space, found.amounts, terms).values()) == best
    statuses.clear()
    cpsat.solve_group(space, sources, terms, settings=SearchSettings(kills_first=False))
    assert statuses == ["OPTIMAL"]


def test_no_ceiling_past_the_table_limit() -> None:
    """A source of huge power: its knapsack table would pass MAX_CELLS, so no ceiling is
    worked out (and the search runs as without one), at once and without the memory."""
    doc = {**BELOW, "creatures": [dict(c) for c in BELOW["creatures"]]}
    doc["creatures"][0]["power"] = 10**9
    space = legal_space(Combat.from_json(doc), "attackers")
    assert kills_ceiling(space, [s for s in space.sources if s.recipients]) is None
    found = cpsat.solve_group(space, [s for s in space.sources if s.recipients],
                              ["kills", "player_damage"])
    assert found.status == "optimal"
    assert evaluate(space, found.amounts, ["kills"])["kills"] == 9
