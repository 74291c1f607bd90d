"""Every solver answer against the independent brute-force oracle (tests/brute.py).

Random small combats (tests/strategies.py) cover every recognized keyword and unknown
ones, marked damage, zero and negative power, negative values, several defending
players, planeswalkers and battles in and out of combat, attackers blocked with no
blockers left, creatures blocking several attackers, both steps and both sides.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from scipy.stats import chisquare

from trample.models.document.combat import Combat
from trample.solver.count.census import Census
from trample.solver.interface import api
from trample.solver.rules.legal_space import legal_space

import brute
from strategies import combats, contests, lone_sources, pileups, proposals, token_swarms

SIDES = st.sampled_from(["attackers", "blockers"])
COMBATS = st.one_of(combats(), combats(rich=True), pileups())
PROPERTY = settings(max_examples=400, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def as_set(entries: list[dict[str, object]]) -> frozenset[tuple[str, str, int]]:
    return frozenset((str(e["source"]), str(e["target"]), int(e["amount"]))  # type: ignore[call-overload]
                     for e in entries if e["amount"])


def as_amounts(entries: list[dict[str, object]]) -> dict[tuple[str, str], int]:
    return {(str(e["source"]), str(e["target"])): int(e["amount"])  # type: ignore[call-overload]
            for e in entries}


@PROPERTY
@given(doc=COMBATS, side=SIDES)
def test_count_and_enumerate_match_brute_force(doc: dict, side: str) -> None:
    expected = set(brute.legal_assignments(doc, side))
    assert api.count(doc, side=side)["count"] == len(expected)
    listed = [as_set(a["assignment"]) for a in api.enumerate_assignments(doc, side=side)]
    assert len(listed) == len(set(listed)), "enumerate repeated an assignment"
    assert set(listed) == expected


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=COMBATS, side=SIDES, data=st.data())
def test_assignments_are_printed_in_the_order_of_the_legal_space(doc: dict, side: str,
                                                                 data: st.DataObject) -> None:
    """Every printed assignment lists its positive entries sorted by the space's order of
    sources and, within a source, of its recipients, whatever order the amounts came in
    (an entry outside that order, last, by its pair)."""
    from trample.solver.rules.assignment import canonical

    space = legal_space(Combat.from_json(doc), side)
    legal = brute.legal_assignments(doc, side)
    chosen = data.draw(st.sampled_from(legal)) if legal else frozenset()
    pairs = [(s, t, a) for s, t, a in chosen]
    pairs = data.draw(st.permutations(pairs))
    amounts = {(s, t): a for s, t, a in pairs}
    if data.draw(st.booleans()):
        amounts[("nobody", "nothing")] = 1  # outside the space: last
    if pairs and data.draw(st.booleans()):
        amounts[pairs[0][:2]] = 0  # a zero entry is left out
    position = {}
    for source in space.sources:
        for r in source.recipients:
            position[(source.id, r.id)] = len(position)
    expected = sorted(((s, t, a) for (s, t), a in amounts.items() if a > 0),
                      key=lambda e: (position.get(e[:2], len(position)), e[:2]))
    assert canonical(space, amounts) == expected


@PROPERTY
@given(doc=COMBATS, side=SIDES, data=st.data())
def test_solve_reaches_the_brute_force_optimum(doc: dict, side: str, data: st.DataObject) -> None:
    terms = brute.default_objective(side)
    if side == "attackers" and data.draw(st.booleans()):
        terms = data.draw(st.permutations(terms))
        terms = terms[: data.draw(st.integers(1, len(terms)))]
    result = api.solve(doc, side=side, objective=list(terms))
    assert result["status"] == "optimal"
    amounts = as_amounts(result["assignment"])
    assert brute.is_legal(doc, side, amounts), result
    assert tuple(result["objective"].values()) == brute.objective(doc, side, amounts, terms)
    assert tuple(result["objective"].values()) == brute.optimum(doc, side, terms)


@PROPERTY
@given(data=st.data(), side=SIDES)
def test_validate_agrees_with_brute_force(data: st.DataObject, side: str) -> None:
    doc = data.draw(COMBATS)
    proposal = data.draw(proposals(doc, side))
    entries = [{"source": s, "target": t, "amount": a} for (s, t), a in proposal.items()]
    result = api.validate(doc, entries, side=side)
    assert result["legal"] == brute.is_legal(doc, side, proposal)
    assert result["legal"] == (not result["violations"])
    for v in result["violations"]:
        assert v["rule"] and v["message"] and v["source"]


# A statistical test fails now and then on a uniform sampler (p < 1e-4 once in 10,000
# combats): the same examples every run (derandomize) and fixed seeds make its verdict
# the same on every run, so that it fails only when the sampler changes.
@settings(max_examples=60, deadline=None, derandomize=True, database=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(doc=COMBATS, side=SIDES)
def test_sample_is_uniform(doc: dict, side: str) -> None:
    legal = brute.legal_assignments(doc, side)
    k = len(legal)
    if k < 2:
        drawn = [as_set(a["assignment"]) for a in api.sample(doc, side=side, n=5)]
        assert set(drawn) <= set(legal)
        return
    n = min(max(30 * k, 300), 6000)
    drawn = Counter(as_set(a["assignment"]) for a in api.sample(doc, side=side, n=n, seed=k))
    assert set(drawn) <= set(legal)
    observed = [drawn.get(a, 0) for a in legal]
    # A fixed seed makes this deterministic; the threshold only guards against a sampler
    # that is far from uniform (not uniform over some parametrization instead).
    assert chisquare(observed).pvalue > 1e-4


def test_sample_is_uniform_where_parametrizations_are_not() -> None:
    """A trampler's splits: uniform over the stars-and-bars splits of its power would not
    be uniform over assignments once some pass damage on and some do not."""
    doc = {"active_player": "a", "players": [{"id": "a"}, {"id": "d"}],
           "creatures": [
               {"id": "t", "controller": "a", "power": 6, "toughness": 6,
                "keywords": ["trample"], "attacking": "d"},
               {"id": "x", "controller": "d", "power": 1, "toughness": 2, "blocking": ["t"]},
               {"id": "y", "controller": "d", "power": 1, "toughness": 3, "blocking": ["t"]}]}
    legal = brute.legal_assignments(doc, "attackers")
    n = 200 * len(legal)
    drawn = Counter(as_set(a["assignment"]) for a in api.sample(doc, n=n, seed=7))
    assert set(drawn) == set(legal)
    assert chisquare([drawn[a] for a in legal]).pvalue > 1e-4


@PROPERTY
@given(doc=COMBATS, side=SIDES)
def test_greedy_and_samples_are_legal(doc: dict, side: str) -> None:
    from trample.solver.optimize.greedy import greedy

    space = legal_space(Combat.from_json(doc), side)  # type: ignore[arg-type]
    assert brute.is_legal(doc, side, greedy(space))
    census = Census(space)
    rng = random.Random(0)
    for _ in range(3):
        assert brute.is_legal(doc, side, census.sample(rng))


@pytest.mark.parametrize("seed", range(3))
def test_sampling_is_reproducible(seed: int) -> None:
    from trample.solver.interface.demo import DEMO_COMBAT

    first = list(api.sample(DEMO_COMBAT, n=20, seed=seed))
    again = list(api.sample(DEMO_COMBAT, n=20, seed=seed))
    assert first == again


@PROPERTY
@given(doc=COMBATS, side=SIDES, whole=st.booleans())
def test_cpsat_model_reaches_the_brute_force_optimum(doc: dict, side: str, whole: bool) -> None:
    """The CP-SAT model itself, without the shortcuts that answer small groups: on the
    groups ``solve`` forms, or as one model of every source at once."""
    from trample.solver.optimize import solve
    from trample.solver.optimize.cpsat import solve_group

    space = legal_space(Combat.from_json(doc), side)  # type: ignore[arg-type]
    terms = brute.default_objective(side)
    amounts: dict[tuple[str, str], int] = {}
    if whole:
        sources = [s for s in space.sources if s.assigns]
        result = solve_group(space, sources, terms)
        assert result.status == "optimal"
        amounts = result.amounts
    else:
        for group in solve.groups(space, terms):
            result = solve_group(space, [s for p in group for s in p.sources], terms)
            assert result.status == "optimal"
            amounts.update(result.amounts)
    assert brute.is_legal(doc, side, amounts)
    assert brute.objective(doc, side, amounts, terms) == brute.optimum(doc, side, terms)


@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=token_swarms(), side=SIDES)
def test_symmetry_breaking_keeps_an_optimum(doc: dict, side: str) -> None:
    """Interchangeable tokens and attackers: the CP-SAT model, with the symmetry between
    them broken, on all sources at once, reaches the oracle's optimum; so does ``solve``."""
    from trample.solver.optimize.cpsat import solve_group

    space = legal_space(Combat.from_json(doc), side)  # type: ignore[arg-type]
    terms = brute.default_objective(side)
    best, best_10 = brute.optima(doc, side, terms, brute.default_objective_10(side))
    result = solve_group(space, [s for s in space.sources if s.assigns], terms)
    assert result.status == "optimal"
    assert brute.is_legal(doc, side, result.amounts)
    assert brute.objective(doc, side, result.amounts, terms) == best
    answer = api.solve(doc, side=side)  # the default objective, survivals included
    assert brute.is_legal(doc, side, as_amounts(answer["assignment"]))
    assert tuple(answer["objective"].values()) == best_10


ALL_TERMS = brute.default_objective("attackers")


@settings(max_examples=800, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=lone_sources(), side=SIDES, data=st.data())
def test_lone_source_optimum(doc: dict, side: str, data: st.DataObject) -> None:
    """A creature alone in its part (solved without search): every objective order."""
    terms = ["kills"]
    if side == "attackers":
        terms = list(data.draw(st.permutations(ALL_TERMS)))
        terms = terms[: data.draw(st.integers(1, len(terms)))]
    result = api.solve(doc, side=side, objective=terms)
    amounts = as_amounts(result["assignment"])
    assert brute.is_legal(doc, side, amounts)
    assert tuple(result["objective"].values()) == brute.optimum(doc, side, terms)


@settings(max_examples=500, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=contests(), data=st.data())
def test_parts_coupled_only_by_thresholds(doc: dict, data: st.DataObject) -> None:
    """Independent parts whose objectives meet at a player's life or a planeswalker's
    loyalty: solved apart, and together where their thresholds need it."""
    terms = list(data.draw(st.permutations(ALL_TERMS)))
    terms = terms[: data.draw(st.integers(1, len(terms)))]
    result = api.solve(doc, objective=terms)
    amounts = as_amounts(result["assignment"])
    assert brute.is_legal(doc, "attackers", amounts)
    assert tuple(result["objective"].values()) == brute.optimum(doc, "attackers", terms)


@settings(max_examples=400, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=COMBATS, side=SIDES, data=st.data())
def test_validate_many_agrees_with_brute_force(doc: dict, side: str,
                                               data: st.DataObject) -> None:
    """The NumPy batch validator: legal rows, perturbed rows and random rows."""
    import numpy as np

    order = api.pair_order(doc, side=side)
    column = {pair: j for j, pair in enumerate(order)}
    rows = []
    for legal in brute.legal_assignments(doc, side)[:20]:
        row = [0] * len(order)
        for s, t, a in legal:
            row[column[(s, t)]] = a
        rows.append(row)
    if order:
        for _ in range(data.draw(st.integers(0, 20))):
            base = list(data.draw(st.sampled_from(rows))) if rows else [0] * len(order)
            j = data.draw(st.integers(0, len(order) - 1))
            base[j] = max(0, base[j] + data.draw(st.sampled_from([-2, -1, 1, 2])))
            k = data.draw(st.integers(0, len(order) - 1))
            base[k] = max(0, base[k] + data.draw(st.sampled_from([-1, 1])))
            rows.append(base)
    if not rows:
        rows = [[]]
    mask = api.validate_many(doc, np.array(rows, dtype=np.int64).reshape(len(rows),
                                                                          len(order)),
                             side=side)
    for row, verdict in zip(rows, mask, strict=True):
        amounts = {pair: a for pair, a in zip(order, row, strict=True) if a}
        assert bool(verdict) == brute.is_legal(doc, side, amounts)
