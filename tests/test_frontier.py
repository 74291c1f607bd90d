"""The frontier dynamic program that counts and samples coupled parts
(:class:`trample.solver.count.frontier.FrontierPart`): against the brute force on small
combats with many shared blockers, against the declared-order program on larger ones,
and its reach on the 30 x 90 benchmark combats, measured in work charged, never in
time."""

from __future__ import annotations

import random
import sys
from collections import Counter
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # benchmarks/ is not installed: import it from the checkout
    sys.path.insert(0, str(ROOT))

import brute_actions  # noqa: E402

from benchmarks import generators  # noqa: E402
from benchmarks.runner import FAMILIES, _seed  # noqa: E402
from trample.models.document.combat import Combat  # noqa: E402
from trample.solver.count import frontier, frontier_order, walk  # noqa: E402
from trample.solver.count.census import Census  # noqa: E402
from trample.solver.count.declared import PartSpace  # noqa: E402
from trample.solver.count.frontier import FrontierPart  # noqa: E402
from trample.solver.count.work import WORK_LIMIT, CountOutOfReach  # noqa: E402
from trample.solver.interface import api  # noqa: E402
from trample.solver.rules.legal_space import LegalSpace, legal_space  # noqa: E402

import brute  # noqa: E402
from conftest import shared_blockers_combat  # noqa: E402
from strategies import SPLIT_BUDGET, split_count  # noqa: E402

FEW = settings(max_examples=40, deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


@st.composite
def shared_walls(draw: st.DrawFn) -> dict:
    """Two to four attackers (mostly tramplers, some with deathtouch or trample over
    planeswalkers, on the player or a planeswalker) and two to five blockers, most of
    them blocking two or three attackers: every part couples through shared items."""
    attackers = []
    creatures: list[dict] = []
    for i in range(draw(st.integers(2, 4))):
        keywords = draw(st.lists(st.sampled_from(
            ["trample", "trample", "trample", "deathtouch", "trample over planeswalkers"]),
            max_size=2, unique=True))
        creatures.append({"id": f"a{i}", "controller": "a", "power": draw(st.integers(1, 4)),
                          "toughness": 2, "keywords": keywords,
                          "attacking": draw(st.sampled_from(["d", "d", "pw"]))})
        attackers.append(f"a{i}")
    for j in range(draw(st.integers(2, 5))):
        blocking = draw(st.lists(st.sampled_from(attackers), min_size=1,
                                 max_size=min(3, len(attackers)), unique=True))
        creatures.append({"id": f"b{j}", "controller": "d", "power": 1,
                          "toughness": draw(st.integers(1, 3)),
                          "damage": draw(st.integers(0, 1)), "blocking": blocking})
    doc = {"active_player": "a",
           "players": [{"id": "a"}, {"id": "d", "life": 5}], "creatures": creatures,
           "planeswalkers": [{"id": "pw", "controller": "d", "loyalty": draw(st.integers(1, 4))}],
           "step": "regular"}
    assume(split_count(doc, "attackers") <= SPLIT_BUDGET)
    return doc


def _space(doc: dict) -> LegalSpace:
    return legal_space(Combat.from_json(doc), "attackers")


def _frontier(census: Census) -> list[FrontierPart]:
    return [c for c in census.counters if isinstance(c, FrontierPart)]


def _as_set(amounts: dict[tuple[str, str], int]) -> frozenset[tuple[str, str, int]]:
    return frozenset((s, t, a) for (s, t), a in amounts.items() if a)


@FEW
@given(shared_walls())
def test_counts_match_the_brute_force_and_the_declared_order(doc: dict) -> None:
    space = _space(doc)
    census = Census(space)
    assume(_frontier(census))
    expected = brute.legal_assignments(doc, "attackers")
    assert census.count() == len(expected)
    assert Census(space, ordered=True).count() == len(expected)
    assert api.count(doc)["count"] == len(expected)


@FEW
@given(shared_walls(), st.integers(0, 2**32))
def test_samples_are_legal_and_among_the_enumerated(doc: dict, seed: int) -> None:
    space = _space(doc)
    census = Census(space)
    assume(_frontier(census))
    listed = {_as_set(a) for a in census.enumerate()}
    rng = random.Random(seed)
    for _ in range(20):
        amounts = census.sample(rng)
        assert brute.is_legal(doc, "attackers", amounts)
        assert _as_set(amounts) in listed
    for drawn in api.sample(doc, n=5, seed=seed):  # checked by solver.validate too
        entries = drawn["assignment"]
        assert api.validate(doc, entries)["legal"]
        assert frozenset((e["source"], e["target"], e["amount"]) for e in entries
                         if e["amount"]) in listed


@FEW
@given(shared_walls())
def test_rank_and_unrank_keep_enumerate_order(doc: dict) -> None:
    # Counted by the frontier program, ranked in the declared order, which the brute
    # force's order over pair_order pins.
    assume(api.count(doc)["count"] <= 400)
    handle = api.prepare(doc)
    assume(_frontier(handle.census))
    pairs = [tuple(p) for p in api.pairs(doc)["pairs"]]
    listed = [a["assignment"] for a in api.enumerate_assignments(doc)]
    order = brute_actions.ordered(doc, "attackers", pairs, listed)
    assert handle.count() == {"count": len(order)}
    for i, vector in enumerate(order):
        got = handle.unrank(i)["assignment"]
        assert brute_actions.as_vector(pairs, got) == vector
        assert handle.rank(got) == {"index": i}


def test_sampling_a_coupled_part_is_uniform() -> None:
    # Two tramplers share a 2/2 and a 1/1; one has a blocker of its own.
    doc = {"active_player": "a", "players": [{"id": "a"}, {"id": "d"}], "creatures": [
        {"id": "x", "controller": "a", "power": 3, "toughness": 3, "keywords": ["trample"],
         "attacking": "d"},
        {"id": "y", "controller": "a", "power": 2, "toughness": 3, "keywords": ["trample"],
         "attacking": "d"},
        {"id": "s", "controller": "d", "power": 1, "toughness": 2, "blocking": ["x", "y"]},
        {"id": "t", "controller": "d", "power": 1, "toughness": 1, "blocking": ["x", "y"]},
        {"id": "u", "controller": "d", "power": 1, "toughness": 1, "blocking": ["x"]}]}
    assert _frontier(Census(_space(doc)))
    legal = brute.legal_assignments(doc, "attackers")
    n = 200 * len(legal)
    drawn = Counter(frozenset((e["source"], e["target"], e["amount"])
                              for e in a["assignment"] if e["amount"])
                    for a in api.sample(doc, n=n, seed=11))
    assert set(drawn) == set(legal)
    assert chisquare([drawn[a] for a in legal]).pvalue > 1e-4


@pytest.mark.parametrize("seed", [0, 7, 9, 10])
def test_the_count_does_not_depend_on_the_order(seed: int,
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # 12 attackers, 36 blockers, 30% shared, seeds within reach of the declared order.
    space = _space(generators.shared_blockers(12, 36, 0.3, seed))
    declared = Census(space, ordered=True).count()
    assert Census(space).count() == declared
    # The same program with the sources in declared order, and in reverse.
    for arrange in (lambda n: list(range(n)), lambda n: list(range(n))[::-1]):
        monkeypatch.setattr(frontier_order, "greedy_order", lambda items, f=arrange: f(len(items)))
        monkeypatch.setattr(frontier_order, "ORDER_EVALUATIONS", 0)
        monkeypatch.setattr(frontier_order, "ORDER_BEAM_WORK", 0)
        assert Census(space, 10 * WORK_LIMIT).count() == declared


def _benchmark(family: str) -> dict:
    return FAMILIES[family].make(30, _seed(family, 30, 0))[2]


@pytest.mark.parametrize("family", ["shared30", "tokens"])
def test_30_by_90_benchmark_combats_are_counted_and_sampled_within_the_budget(
        family: str) -> None:
    space = _space(_benchmark(family))
    census = Census(space)
    spent = WORK_LIMIT - census.budget[0]
    assert 0 < spent < WORK_LIMIT
    widths = [p.width for p in _frontier(census)]
    assert widths and max(widths) <= 10
    assert len(str(census.count())) > 40
    rng = random.Random(5)
    from trample.solver.rules.validate import violations

    for _ in range(5):
        assert not violations(space, census.sample(rng))
    # The declared order cannot: it is what the frontier program replaces.
    with pytest.raises(CountOutOfReach):
        for part in space.parts:
            PartSpace(space, part, [WORK_LIMIT])


def test_refusals_state_the_width_of_the_frontier() -> None:
    # Eight tramplers all blocked by the same five 1/15 walls.
    with pytest.raises(CountOutOfReach, match=r"5 of them are open at once and the "
                                              r"frontier holds more than [\d,]+ states"):
        api.count(shared_blockers_combat())


def test_a_chain_keeps_one_item_open() -> None:
    # Tramplers a0 .. a199, each consecutive two sharing a 2-toughness blocker.
    n = 200
    creatures = [{"id": f"a{i}", "controller": "a", "power": 3, "toughness": 1,
                  "keywords": ["trample"], "attacking": "d"} for i in range(n)]
    creatures += [{"id": f"b{i}", "controller": "d", "power": 1, "toughness": 2,
                   "blocking": [f"a{i}", f"a{i + 1}"]} for i in range(n - 1)]
    space = _space({"active_player": "a", "players": [{"id": "a"}, {"id": "d"}],
                    "creatures": creatures})
    census = Census(space)
    [part] = _frontier(census)
    assert part.width == 1
    assert census.count() == Census(space, ordered=True).count()


def test_enumerate_rank_unrank_and_options_answer_where_count_does() -> None:
    # The declared order holds too many states here (see above): the walk backed by
    # the frontier program answers in the same order.
    doc = _benchmark("shared30")
    total = api.count(doc)["count"]
    handle = api.prepare(doc)
    assert any(isinstance(p, walk.FrontierWalk) for p in handle.census.parts)
    first = [a["assignment"] for a in api.enumerate_assignments(doc, limit=3)]
    assert [handle.unrank(i)["assignment"] for i in range(3)] == first
    for i in (0, 1, total // 3, total - 1):
        got = handle.unrank(i)["assignment"]
        assert api.validate(doc, got)["legal"]
        assert handle.rank(got) == {"index": i}
    found = handle.options()
    assert sum(n for _, n in found["amounts"]) == total

@FEW
@given(shared_walls(), st.randoms())
def test_counts_with_fixed_amounts_match_the_brute_force(doc: dict,
                                                         rng: random.Random) -> None:
    assume(api.count(doc)["count"] <= 1500)
    handle = api.prepare(doc)
    assume(_frontier(handle.census))
    pairs = [tuple(p) for p in api.pairs(doc)["pairs"]]
    listed = [a["assignment"] for a in api.enumerate_assignments(doc)]
    order = brute_actions.ordered(doc, "attackers", pairs, listed)
    for _ in range(4):
        # Some pairs fixed, to the amounts of a legal assignment or to arbitrary ones.
        model = rng.choice(order)
        chosen = rng.sample(range(len(pairs)), rng.randint(1, len(pairs)))
        fixed = {pairs[j]: (model[j] if rng.random() < 0.8 else rng.randint(0, 4))
                 for j in chosen}
        entries = [{"source": s, "target": t, "amount": a} for (s, t), a in fixed.items()]
        assert handle.count(entries) == {"count": brute_actions.count(pairs, order, fixed)}


@st.composite
def deep_walls(draw: st.DrawFn) -> dict:
    """Two to four tramplers of power up to 7 (some with deathtouch) and two to four
    blockers of toughness up to 5, some already damaged, most shared: required blockers
    that later sources cannot finish, and sources left too little for their own lower
    bounds, are dropped before their last edge (FrontierPart's pruning)."""
    attackers = []
    creatures: list[dict] = []
    for i in range(draw(st.integers(2, 4))):
        keywords = ["trample", *draw(st.lists(st.sampled_from(["deathtouch"]), max_size=1))]
        creatures.append({"id": f"a{i}", "controller": "a", "power": draw(st.integers(1, 7)),
                          "toughness": 2, "keywords": keywords, "attacking": "d"})
        attackers.append(f"a{i}")
    for j in range(draw(st.integers(2, 4))):
        blocking = draw(st.lists(st.sampled_from(attackers), min_size=1,
                                 max_size=min(3, len(attackers)), unique=True))
        creatures.append({"id": f"b{j}", "controller": "d", "power": 1,
                          "toughness": draw(st.integers(1, 5)),
                          "damage": draw(st.integers(0, 2)), "blocking": blocking})
    doc = {"active_player": "a", "players": [{"id": "a"}, {"id": "d", "life": 5}],
           "creatures": creatures, "step": "regular"}
    assume(split_count(doc, "attackers") <= SPLIT_BUDGET)
    return doc


def _recounted(space: LegalSpace, census: Census, budget: int) -> int:
    """The count again, each frontier part with its sources in the reverse of the order
    its program took (the same frontiers, other states in them)."""
    total = 1
    for part, counter in zip(space.parts, census.counters, strict=True):
        if isinstance(counter, FrontierPart):
            total *= FrontierPart(space, part, [budget],
                                  order=counter.order()[::-1]).count()
        else:
            total *= counter.count()
    return total


@FEW
@given(deep_walls(), st.integers(0, 2**32))
def test_deep_walls_match_the_brute_force_in_any_order(doc: dict, seed: int) -> None:
    space = _space(doc)
    census = Census(space)
    assume(_frontier(census))
    expected = brute.legal_assignments(doc, "attackers")
    assert census.count() == len(expected)
    assert _recounted(space, census, WORK_LIMIT) == len(expected)
    rng = random.Random(seed)
    for _ in range(10):
        amounts = census.sample(rng)
        assert _as_set(amounts) in set(expected)


def test_a_required_blocker_later_sources_cannot_finish_is_dropped_at_once() -> None:
    # x (power 6) may pass to the player only if the 5-toughness wall is lethal; y and z
    # (power 1 each) come later in the order: a state where x left the wall at 2 of 5,
    # required, cannot be completed, and is dropped at x's edge, not at the wall's last.
    doc = {"active_player": "a", "players": [{"id": "a"}, {"id": "d"}], "creatures": [
        {"id": "x", "controller": "a", "power": 6, "toughness": 1, "keywords": ["trample"],
         "attacking": "d"},
        {"id": "y", "controller": "a", "power": 1, "toughness": 1, "keywords": ["trample"],
         "attacking": "d"},
        {"id": "z", "controller": "a", "power": 1, "toughness": 1, "attacking": "d"},
        {"id": "w", "controller": "d", "power": 0, "toughness": 5, "blocking": ["x", "y", "z"]},
        {"id": "v", "controller": "d", "power": 0, "toughness": 2, "blocking": ["y", "z"]}]}
    space = _space(doc)
    [part] = space.parts
    program = FrontierPart(space, part, [WORK_LIMIT], order=[0, 1, 2])
    assert program.count() == len(brute.legal_assignments(doc, "attackers"))
    wall = program.items.index("w")
    first = next(n for n, step in enumerate(program.steps) if step.item == wall)
    assert program.steps[first].later_power == 2 and not program.steps[first].later_sharp
    after = {program.entries[e] for state in program.reach[first + 1] for e in state}
    required = {e for e in after if e is not frontier.DONE and len(e) == 2 and e[1]}
    # Only the required progress that y and z can still finish (3 or 4 of 5) is kept.
    assert required and all(progress >= 3 for progress, _ in required)


@pytest.mark.parametrize(("family", "seed"), [("shared_blockers", 7), ("token_swarm", 10)])
def test_coupled_30_by_90_combats_once_refused_are_counted_and_sampled(family: str,
                                                                       seed: int) -> None:
    # 8 blockers open at once in the order first taken: 801,000 and 501,000 steps, past
    # the work limit. Counted within it now; the count checked by the same program with
    # each part's sources in reverse (other states), by the amounts of one pair summed,
    # and the draws by validation. A mechanism check: work, never time.
    doc = getattr(generators, family)(30, 90, 0.3, seed)
    space = _space(doc)
    census = Census(space)
    spent = WORK_LIMIT - census.budget[0]
    assert 0 < spent < WORK_LIMIT
    total = census.count()
    assert max(p.width for p in _frontier(census)) >= 5
    assert _recounted(space, census, 4 * WORK_LIMIT) == total
    found = api.prepare(doc).options()
    assert sum(n for _, n in found["amounts"]) == total
    rng = random.Random(seed)
    from trample.solver.rules.validate import violations

    for _ in range(5):
        assert not violations(space, census.sample(rng))


@pytest.mark.parametrize("seed", [0, 2, 6, 8])
def test_token_swarms_match_the_declared_order(seed: int) -> None:
    # 12 attackers, 36 tokens, 30% shared: the declared-order program counts them too.
    space = _space(generators.token_swarm(12, 36, 0.3, seed))
    declared = 1
    for part in space.parts:
        declared *= PartSpace(space, part, [10 * WORK_LIMIT]).count()
    assert Census(space).count() == declared


def test_the_beam_order_is_a_permutation_no_worse_than_the_greedy_one() -> None:
    # Sources of a chain with a hub: the beam keeps the sets of least estimated frontier.
    rng = random.Random(3)
    items_of = [sorted(rng.sample(range(12), rng.randint(1, 4))) for _ in range(10)]
    requires_of = [frozenset(items[:1]) for items in items_of]
    caps = [rng.randint(1, 5) for _ in range(12)]
    powers = [rng.randint(1, 9) for _ in range(10)]
    found = frontier_order.beam_order(items_of, requires_of, caps, powers)
    assert sorted(found) == list(range(10))
    greedy = frontier_order.greedy_order(items_of)
    assert (frontier_order.frontier_cost(found, items_of, requires_of, caps, powers)
            <= frontier_order.frontier_cost(greedy, items_of, requires_of, caps, powers) + 1e-9)
