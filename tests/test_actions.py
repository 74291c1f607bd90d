"""Legal splits as actions: rank, unrank, count with fixed amounts, options, project and
the parse-once handle, against the brute force of ``brute_actions.py``."""

from __future__ import annotations

import random
import sys
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # benchmarks/ is not installed: import it from the checkout
    sys.path.insert(0, str(ROOT))

import brute_actions  # noqa: E402

from benchmarks import generators  # noqa: E402
from trample.models.document.errors import InputError  # noqa: E402
from trample.solver.count.compositions import all_compositions  # noqa: E402
from trample.solver.count.work import CountOutOfReach  # noqa: E402
from trample.solver.interface import api  # noqa: E402

from conftest import SPEC_EXAMPLE, shared_blockers_combat  # noqa: E402
from strategies import combats, with_outcomes  # noqa: E402

SMALL = 1500
"""Largest space the brute-force checks walk."""

SOME = st.one_of(combats(max_sources=3), combats(max_sources=3, rich=True))
"""Small combats, half of them leaning to shared blockers and planeswalkers."""
SIDES = st.sampled_from(["attackers", "blockers"])

FAST = settings(max_examples=60, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])


def _space(doc: dict, side: str) -> tuple[list, list]:
    """The pair order and enumerate's order as vectors, checked against brute force."""
    pairs = [tuple(p) for p in api.pairs(doc, side=side)["pairs"]]
    listed = [a["assignment"] for a in api.enumerate_assignments(doc, side=side)]
    return pairs, brute_actions.ordered(doc, side, pairs, listed)


def _entries(pairs: list, vector: Any) -> list[dict]:
    return [{"source": s, "target": t, "amount": a}
            for (s, t), a in zip(pairs, vector, strict=True)]


def _small(doc: dict, side: str) -> bool:
    try:
        return api.count(doc, side=side)["count"] <= SMALL
    except CountOutOfReach:
        return False


@FAST
@given(SOME, SIDES)
def test_unrank_walks_enumerate_order_and_rank_inverts_it(doc: dict, side: str) -> None:
    assume(_small(doc, side))
    handle = api.prepare(doc, side=side)
    pairs, order = _space(doc, side)
    assert handle.count() == {"count": len(order)}
    for i, vector in enumerate(order):
        got = handle.unrank(i)["assignment"]
        assert brute_actions.as_vector(pairs, got) == vector
        assert handle.rank(got) == {"index": i}
    with pytest.raises(InputError, match=r"^index"):
        handle.unrank(len(order))


@FAST
@given(SOME, SIDES, st.randoms())
def test_count_and_options_with_fixed_amounts(doc: dict, side: str, rng: random.Random
                                             ) -> None:
    assume(_small(doc, side))
    pairs, order = _space(doc, side)
    assume(pairs)
    handle = api.prepare(doc, side=side)
    for _ in range(4):
        # Fix some pairs, to amounts a legal assignment has or to arbitrary ones.
        model = rng.choice(order)
        chosen = rng.sample(range(len(pairs)), rng.randint(0, len(pairs)))
        fixed = {pairs[j]: (model[j] if rng.random() < 0.8 else rng.randint(0, 4))
                 for j in chosen}
        as_entries = [{"source": s, "target": t, "amount": a} for (s, t), a in fixed.items()]
        expected = brute_actions.count(pairs, order, fixed)
        assert handle.count(as_entries) == {"count": expected}
        assert api.count_fixed(doc, as_entries, side=side) == {"count": expected}
        for pair in [rng.choice(pairs), *(p for p in pairs if p not in fixed)][:2]:
            got = handle.options(as_entries, list(pair))
            assert got["pair"] == list(pair)
            assert got["amounts"] == brute_actions.options(pairs, order, fixed, pair)
            assert sum(n for _, n in got["amounts"]) == expected
        free = [p for p in pairs if p not in fixed]
        if free:  # the default pair: the first of pair_order not fixed
            assert handle.options(as_entries)["pair"] == list(free[0])


def _values(draw: Any, pairs: list, doc: dict) -> list[dict]:
    """Any numbers, to legal pairs and to others, sometimes whole and non-negative."""
    ids = [c["id"] for c in doc["creatures"]]
    targets = ids + [p["id"] for p in doc["players"]]
    numbers = st.one_of(st.integers(-3, 7), st.fractions(-3, 7, max_denominator=4),
                        st.floats(-3, 7, allow_nan=False).map(lambda x: round(x, 2)))
    whole = draw(st.booleans())
    if whole:
        numbers = st.integers(0, 6)
    out: dict[tuple[str, str], Any] = {}
    for p in pairs:
        if draw(st.booleans()):
            out[p] = draw(numbers)
    for _ in range(draw(st.integers(0, 2)) if ids else 0):
        out[(draw(st.sampled_from(ids)), draw(st.sampled_from(targets)))] = draw(numbers)
    return [{"source": s, "target": t, "amount": float(a) if isinstance(a, Fraction) else a}
            for (s, t), a in out.items()]


@FAST
@given(st.data(), SOME, SIDES)
def test_project_is_the_nearest_then_best_then_first(data: Any, doc: dict, side: str) -> None:
    assume(_small(doc, side))
    pairs, order = _space(doc, side)
    handle = api.prepare(doc, side=side)
    for _ in range(3):
        raw = _values(data.draw, pairs, doc)
        values = {(e["source"], e["target"]): Fraction(e["amount"]) for e in raw}
        vector, d = brute_actions.project(doc, side, pairs, order, values)
        got = handle.project(raw)
        assert brute_actions.as_vector(pairs, got["assignment"]) == vector
        assert Fraction(got["distance"]) == d or got["distance"] == float(d)
        whole = all(v.denominator == 1 and v >= 0 for v in values.values())
        if whole:
            as_ints = [{**e, "amount": int(e["amount"])} for e in raw]
            assert got["violations"] == handle.validate(as_ints)["violations"]
        else:
            assert got["violations"] == []


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.data(), SOME, SIDES)
def test_project_with_cp_sat_is_the_nearest_then_best_then_first(data: Any, doc: dict,
                                                                 side: str) -> None:
    # The same question through the CP-SAT model that large combats use.
    from trample.solver.actions.splits import Actions, parse_values

    assume(_small(doc, side))
    pairs, order = _space(doc, side)
    space = api.space_of(doc, side)
    actions = Actions(space)
    for _ in range(2):
        raw = _values(data.draw, pairs, doc)
        values = parse_values(space, raw)
        vector, d = brute_actions.project(doc, side, pairs, order, values)
        got, distance = actions.project(values, exhaustive_limit=0)
        assert tuple(got.get(p, 0) for p in pairs) == vector
        assert distance == d


@settings(max_examples=25, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.data(), with_outcomes(combats(max_sources=3)), SIDES)
def test_project_with_cp_sat_sees_what_the_damage_does(data: Any, doc: dict,
                                                       side: str) -> None:
    # Prevention, doublers, infect, lifelink, loss thresholds: the tie-break is the
    # default objective of outcomes, through the search's own model of it.
    from trample.solver.actions.splits import Actions, parse_values

    assume(_small(doc, side))
    pairs, order = _space(doc, side)
    space = api.space_of(doc, side)
    raw = _values(data.draw, pairs, doc)
    values = parse_values(space, raw)
    vector, d = brute_actions.project(doc, side, pairs, order, values)
    got, distance = Actions(space).project(values, exhaustive_limit=0)
    assert tuple(got.get(p, 0) for p in pairs) == vector
    assert distance == d


def test_project_breaks_ties_by_objective_then_order() -> None:
    # A 5/5 trampler blocked by a 2/2, the player at 3 life: projecting "nothing" is 5
    # away from every split, and the best default objective kills the bear and the player.
    combat = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": 3}],
              "creatures": [{"id": "ogre", "controller": "ap", "power": 5, "toughness": 5,
                             "keywords": ["trample"], "attacking": "dp"},
                            {"id": "bear", "controller": "dp", "power": 2, "toughness": 2,
                             "blocking": ["ogre"]}]}
    got = api.project(combat, [])
    assert got["distance"] == 5
    assert got["assignment"] == [{"source": "ogre", "target": "bear", "amount": 2},
                                 {"source": "ogre", "target": "dp", "amount": 3}]
    # Blockers' default objective (kills) cannot separate these: the first in order wins.
    blockers = api.project(combat, [{"source": "bear", "target": "dp", "amount": 9}],
                           side="blockers")
    assert blockers["distance"] == 11
    assert blockers["violations"][0]["rule"] == "510.1d"


def test_compositions_rank_in_enumeration_order(monkeypatch: pytest.MonkeyPatch) -> None:
    from trample.solver.actions import splits as actions
    from trample.solver.actions.splits import rank_composition, unrank_composition
    from trample.solver.count.compositions import compositions_count

    rng = random.Random(4)
    for _ in range(100):  # stepping and binary search agree
        lowers = [rng.randint(0, 3) for _ in range(rng.randint(1, 25))]
        total = sum(lowers) + rng.randint(0, 150)
        i = rng.randrange(compositions_count(total, lowers))
        c = unrank_composition(total, lowers, i)
        assert rank_composition(total, lowers, c) == i
        with monkeypatch.context() as patch:
            patch.setattr(actions, "STEPWISE", -1)
            assert unrank_composition(total, lowers, i) == c
            assert rank_composition(total, lowers, c) == i

    for total in range(7):
        for lowers in ([], [0], [2], [1, 0], [0, 2, 1], [1, 1, 1, 0]):
            for i, c in enumerate(all_compositions(total, lowers)):
                assert unrank_composition(total, lowers, i) == c
                assert rank_composition(total, lowers, c) == i
    huge = [2**40, 0, 0]
    assert unrank_composition(2**40, [0, 0, 0], 0) == huge
    last = unrank_composition(2**40, [0, 0, 0], (2**40 + 2) * (2**40 + 1) // 2 - 1)
    assert last == [0, 0, 2**40]


def _large() -> list[dict]:
    return [generators.shared_blockers(6, 4, 0.5, 1), generators.token_army(12, 6, 2),
            generators.gang_block(6, 3), generators.planeswalker_pileup(4, 5),
            generators.token_swarm(10, 6, 0.5, 4), SPEC_EXAMPLE]


@pytest.mark.parametrize("doc", _large(), ids=lambda d: str(len(d["creatures"])))
def test_random_big_indices_unrank_to_legal_splits_and_rank_back(doc: dict) -> None:
    handle = api.prepare(doc)
    total = handle.count()["count"]
    rng = random.Random(total)
    for i in [0, total - 1, *(rng.randrange(total) for _ in range(30))]:
        entries = handle.unrank(i)["assignment"]
        assert handle.validate(entries)["legal"]
        assert handle.rank(entries) == {"index": i}


@pytest.mark.parametrize("doc", _large()[:4], ids=lambda d: str(len(d["creatures"])))
def test_project_on_large_combats_finds_legal_splits_and_fixed_points(doc: dict) -> None:
    handle = api.prepare(doc)
    total = handle.count()["count"]
    rng = random.Random(total)
    entries = handle.unrank(rng.randrange(total))["assignment"]
    # A legal split is its own projection; noise below 1/2 a pair does not move it.
    assert handle.project(entries) == {"assignment": entries, "distance": 0,
                                       "violations": []}
    noisy = [{**e, "amount": e["amount"] + rng.uniform(-0.2, 0.2)} for e in entries]
    assert handle.project(noisy)["assignment"] == entries
    # Anything else: a legal split no farther than the one given.
    scrambled = [{**e, "amount": rng.uniform(-2, 9)} for e in entries]
    got = handle.project(scrambled)
    assert handle.validate(got["assignment"])["legal"]
    baseline = sum(abs(e["amount"] - s["amount"]) for e, s in zip(entries, scrambled,
                                                                   strict=True))
    assert got["distance"] <= baseline + 1e-9


def test_enumerate_and_unrank_agree_on_a_coupled_combat() -> None:
    doc = generators.planeswalker_pileup(3, 2)
    handle = api.prepare(doc)
    listed = [a["assignment"] for a in handle.enumerate(limit=3000)]
    step = max(1, len(listed) // 300)
    for i in range(0, len(listed), step):
        assert handle.unrank(i)["assignment"] == listed[i]


def test_uniform_draws_from_options_are_legal() -> None:
    doc = generators.shared_blockers(6, 4, 0.5, 3)
    handle = api.prepare(doc)
    pairs = handle.pair_order()
    rng = random.Random(5)
    for _ in range(5):
        fixed: list[dict] = []
        for _ in pairs:
            got = handle.options(fixed)
            amounts = got["amounts"]
            pick = rng.randrange(sum(n for _, n in amounts))
            for amount, n in amounts:  # noqa: B007 (amount is read after the loop)
                if pick < n:
                    break
                pick -= n
            source, target = got["pair"]
            fixed.append({"source": source, "target": target, "amount": amount})
        assert handle.count(fixed) == {"count": 1}
        assert handle.validate(fixed)["legal"]
        assert handle.rank(fixed)["index"] < handle.count()["count"]


@pytest.mark.sources
def test_a_walk_works_out_the_ways_before_a_source_once(monkeypatch: pytest.MonkeyPatch
                                                        ) -> None:
    """Enumerating a union too large to sort walks it pair by pair with ``options``: the
    ways to reach a source's states under the amounts fixed before it are worked out once
    per such amounts, not at every question (each one did, at 10 ms a split)."""
    from itertools import islice

    from trample.solver.actions import splits as actions
    from trample.solver.actions import union

    attackers = [{"id": f"a{i}", "controller": "ap", "power": p, "toughness": 5,
                  "keywords": ["trample", "deathtouch"], "attacking": "dp",
                  "as_though_unblocked": i < 2} for i, p in enumerate((2, 5, 5))]
    walls = [{"id": f"w{j}", "controller": "dp", "power": 1, "toughness": 5, "damage": d,
              "blocking": ["a0", "a1", "a2"]} for j, d in enumerate((1, 3, 3, 3))]
    doc = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": 20}],
           "creatures": attackers + walls}
    asked: list[tuple[Any, ...]] = []
    forward = actions._forward

    def spy(ps: Any, fixed: Any, upto: int) -> Any:
        asked.append((id(ps), upto, tuple((s.id, tuple(sorted(fixed[s.id].items())))
                                          for s in ps.sources[:upto] if s.id in fixed)))
        return forward(ps, fixed, upto)

    monkeypatch.setattr(actions, "_forward", spy)
    space = api.space_of(doc, "attackers")
    walked = list(islice(union.UnionActions(space, sort_limit=0).enumerate(), 300))
    listed = union.UnionActions(space, sort_limit=10**6).enumerate()  # sorted splits
    assert walked == list(islice(listed, 300))
    assert asked and len(asked) == len(set(asked))


def test_bad_input_names_the_field() -> None:
    handle = api.prepare(SPEC_EXAMPLE)
    total = handle.count()["count"]
    for index in (-1, total, 2**200, "3", 1.0, True):
        with pytest.raises(InputError, match=r"^index"):
            handle.unrank(index)
    with pytest.raises(InputError, match=r"^assignment: is not legal"):
        handle.rank([{"source": "vessel", "target": "dp", "amount": 5}])
    with pytest.raises(InputError, match=r"^fixed\[0\]: \('vessel', 'dp'\) is not a legal"):
        handle.count([{"source": "vessel", "target": "dp", "amount": 0}])
    with pytest.raises(InputError, match=r"^fixed\[1\]: the pair"):
        handle.options([{"source": "vessel", "target": "wall", "amount": 1}] * 2)
    with pytest.raises(InputError, match=r"^fixed\[0\]\.amount"):
        handle.count([{"source": "vessel", "target": "wall", "amount": -1}])
    with pytest.raises(InputError, match=r"^pair"):
        handle.options([], ["vessel", "dp"])
    with pytest.raises(InputError, match=r"^amounts\[0\]\.amount"):
        handle.project([{"source": "vessel", "target": "dp", "amount": float("nan")}])
    with pytest.raises(InputError, match=r"^amounts\[0\]\.source"):
        handle.project([{"source": "dp", "target": "vessel", "amount": 1}])
    everything = [{"source": s, "target": t, "amount": 0} for s, t in handle.pair_order()]
    with pytest.raises(InputError, match=r"^pair"):
        handle.options(everything)
    # A fixed amount without a legal completion is a valid question: none.
    assert handle.count([{"source": "vessel", "target": "wall", "amount": 99}]) == {"count": 0}
    assert handle.options([{"source": "vessel", "target": "wall", "amount": 99}]) == {
        "pair": ["vessel", "jace"], "amounts": []}


def test_refused_counts_refuse_rank_and_unrank() -> None:
    doc = shared_blockers_combat()
    with pytest.raises(CountOutOfReach):
        api.count(doc)
    with pytest.raises(CountOutOfReach):
        api.unrank(doc, 0)
    # Every trampler puts all its damage on the first wall: legal, and not ranked.
    legal = [{"source": c["id"], "target": "w0", "amount": c["power"]}
             for c in doc["creatures"] if "attacking" in c]
    assert api.validate(doc, legal)["legal"]
    with pytest.raises(CountOutOfReach):
        api.rank(doc, legal)
    with pytest.raises(CountOutOfReach):
        api.options(doc)


def test_prepared_handle_answers_as_the_functions() -> None:
    doc = generators.tiny(2, 7)
    handle = api.prepare(doc)
    assert handle.solve() == api.solve(doc)
    first = handle.solve()["assignment"]
    assert handle.validate(first) == api.validate(doc, first)
    assert handle.count() == api.count(doc)
    assert list(handle.enumerate(limit=5)) == list(api.enumerate_assignments(doc, limit=5))
    assert list(handle.sample(n=3, seed=2)) == list(api.sample(doc, n=3, seed=2))
    assert handle.pair_order() == api.pair_order(doc)
    assert handle.options() == api.options(doc)
    assert handle.project(first) == api.project(doc, first)
    assert handle.rank(first) == api.rank(doc, first)
    assert handle.unrank(0) == api.unrank(doc, 0)


def test_the_random_policy_example_runs() -> None:
    pytest.importorskip("gymnasium")
    from trample.solver.examples import random_policy

    checked = random_policy.main(["--combats", "200", "--seed", "3"])
    assert checked == 200
