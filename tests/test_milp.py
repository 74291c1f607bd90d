"""The MILP backend (HiGHS, :mod:`trample.solver.optimize.milp`): the same exact optimum as the
brute force and as CP-SAT, in integers whatever the values, legal, the same answer
whatever the threads, and a bounded answer when the time runs out."""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import contextmanager
from dataclasses import replace
from typing import Any
from unittest.mock import patch

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trample.models.document.combat import Combat
from trample.solver.interface import api
from trample.solver.optimize.cpsat import solve_group as cpsat_group
from trample.solver.optimize.milp import relaxed_bound
from trample.solver.optimize.milp import solve_group as milp_group
from trample.solver.optimize.objectives import OUTCOME_TERMS, evaluate
from trample.solver.optimize.search_settings import SearchSettings
from trample.solver.rules.legal_space import legal_space
from trample.solver.rules.validate import violations

import brute
from strategies import combats, contests, pileups, token_swarms

MILP = SearchSettings(backend="milp", dynamic_program=False)
SIDES = st.sampled_from(["attackers", "blockers"])
SMALL = settings(max_examples=40, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
COMBATS = st.one_of(combats(rich=True), contests(), token_swarms())


def as_amounts(entries: list[dict[str, object]]) -> dict[tuple[str, str], int]:
    return {(str(e["source"]), str(e["target"])): int(e["amount"])  # type: ignore[call-overload]
            for e in entries}


def terms_for(side: str, data: st.DataObject) -> list[str]:
    terms = brute.default_objective(side)
    if side == "attackers":
        terms = data.draw(st.permutations(terms))
        terms = terms[: data.draw(st.integers(1, len(terms)))]
    return list(terms)


@SMALL
@given(doc=COMBATS, side=SIDES, data=st.data())
def test_milp_reaches_the_brute_force_optimum(doc: dict, side: str,
                                              data: st.DataObject) -> None:
    terms = terms_for(side, data)
    result = api.solve(doc, side=side, objective=terms, settings=MILP)
    assert result["status"] == "optimal"
    amounts = as_amounts(result["assignment"])
    assert brute.is_legal(doc, side, amounts), result
    assert tuple(result["objective"].values()) == brute.optimum(doc, side, terms)


@SMALL
@given(doc=COMBATS, side=SIDES, data=st.data())
def test_milp_settles_every_part_as_cpsat_does(doc: dict, side: str,
                                               data: st.DataObject) -> None:
    """HiGHS itself (no fallback) proves each part's optimum, equal to CP-SAT's."""
    terms = terms_for(side, data)
    space = legal_space(Combat.from_json(doc), side)  # type: ignore[arg-type]
    for part in space.parts:
        sources = list(part.sources)
        ours = milp_group(space, sources, terms)
        assert ours is not None
        assert ours.status == "optimal"
        theirs = cpsat_group(space, sources, terms)
        assert evaluate(space, ours.amounts, terms) == evaluate(space, theirs.amounts, terms)


def shared_blockers(values: list[int]) -> dict:
    """Two tramplers sharing blockers of the given values, on a player: choosing which
    blockers die trades a huge value against small ones."""
    creatures = [
        {"id": "A", "controller": "P1", "power": 5, "toughness": 5,
         "keywords": ["trample"], "attacking": "P2"},
        {"id": "B", "controller": "P1", "power": 4, "toughness": 4,
         "keywords": ["trample"], "attacking": "P2"},
    ]
    for i, v in enumerate(values):
        creatures.append({"id": f"b{i}", "controller": "P2", "power": 1, "toughness": 2,
                          "value": v, "blocking": ["A", "B"]})
    return {"active_player": "P1", "step": "regular", "side": "attackers",
            "players": [{"id": "P1"}, {"id": "P2", "life": 3}],
            "creatures": creatures}


HUGE = (2**40, 2**40 - 1, -(2**40), -(2**40) + 1, 2**39, 2**30 + 1, 2**20)
"""Values at the edge of what a combat allows (magnitude 2^40) and near HiGHS's range
(:data:`trample.solver.optimize.milp.MAX_RANGE`), for the precision tests."""


@contextmanager
def highs_models() -> Iterator[list[int]]:
    """Count the HiGHS models built (one per search) while inside."""
    from trample.solver.optimize import milp

    built: list[int] = []
    original = milp._highs

    def counted(*args: Any, **kwargs: Any) -> Any:
        built.append(1)
        return original(*args, **kwargs)

    with patch.object(milp, "_highs", counted):
        yield built


@pytest.mark.sources  # (spies on HiGHS's models, inside the compiled module)
def test_blockers_all_worth_minus_2_40_are_settled_by_highs() -> None:
    """Four blockers of value -2^40, the nine outcome terms: the deaths term's LP values
    (about 2^42) carried a floating-point error of 0.003, above HiGHS's tolerance, so it
    pruned the optimum (one death) and answered two deaths as optimal (caught by the
    exact check, and CP-SAT searched again). Divided by its coefficients' gcd, the term
    counts deaths, and HiGHS proves the brute force's optimum itself."""
    doc = shared_blockers([-(2**40)] * 4)
    terms = list(OUTCOME_TERMS)
    best = brute.optimum(doc, "attackers", terms)
    assert best[:2] == (0, -(2**40))
    space = legal_space(Combat.from_json(doc), "attackers")
    [part] = space.parts
    with highs_models() as built:
        ours = milp_group(space, list(part.sources), terms)
    assert ours is not None and ours.status == "optimal"
    assert len(built) == 1
    assert tuple(evaluate(space, ours.amounts, terms).values()) == best
    result = api.solve(doc, objective=terms, settings=MILP)
    assert tuple(result["objective"].values()) == best
    assert brute.is_legal(doc, "attackers", as_amounts(result["assignment"]))


@pytest.mark.sources  # (spies on HiGHS's models, inside the compiled module)
def test_a_term_too_wide_for_highs_goes_to_cpsat_without_a_run() -> None:
    """Blockers of values 2^40 and 3 on the deaths term: its gcd is 1 and its range far
    beyond MAX_RANGE, so HiGHS is not even set up; CP-SAT answers the optimum."""
    doc = shared_blockers([2**40, 3, 2**40 - 1])
    space = legal_space(Combat.from_json(doc), "attackers")
    [part] = space.parts
    for terms in (["deaths"], list(OUTCOME_TERMS)):
        with highs_models() as built:
            assert milp_group(space, list(part.sources), terms) is None
            assert relaxed_bound(space, list(part.sources), "deaths") is None
        assert built == []
        result = api.solve(doc, objective=terms, settings=MILP)
        assert tuple(result["objective"].values()) == brute.optimum(doc, "attackers", terms)


def test_a_row_too_large_for_highs_goes_to_cpsat_without_a_run() -> None:
    """A player at 2^35 life: the row of whether the player loses needs a big-M of 2^35,
    beyond MAX_RANGE, so no HiGHS instance is made; CP-SAT answers the optimum."""
    from trample.solver.optimize import milp
    from trample.solver.optimize.cpsat import build_group

    doc = shared_blockers([1, 2, 3])
    doc["players"][1]["life"] = 2**35
    space = legal_space(Combat.from_json(doc), "attackers")
    [part] = space.parts
    terms = ["losses", "deaths", "life_loss"]
    built = build_group(space, list(part.sources), terms, ceiled=True)
    translation = milp.translate(built.model, built.expressions)
    assert translation is not None
    assert milp._highs(translation) is None
    assert milp_group(space, list(part.sources), terms) is None
    result = api.solve(doc, objective=terms, settings=MILP)
    assert tuple(result["objective"].values()) == brute.optimum(doc, "attackers", terms)


# Derandomized: which examples run must not change from run to run.
@settings(max_examples=25, deadline=None, derandomize=True,
          suppress_health_check=[HealthCheck.too_slow])
@given(values=st.lists(st.sampled_from([2**40, 2**40 - 1, -(2**40), 1, -1, 0, 3]),
                       min_size=2, max_size=4),
       data=st.data())
def test_huge_and_negative_values_keep_every_term(values: list[int],
                                                  data: st.DataObject) -> None:
    """Values up to 2^40, negative ones, and every term in turn: a weighted float
    objective would round the later terms away; the MILP's answer is the brute force's.
    HiGHS settles the part itself unless a term is too wide for it (then it is not set
    up at all, and CP-SAT searches)."""
    doc = shared_blockers(values)
    terms = terms_for("attackers", data)
    result = api.solve(doc, objective=terms, settings=MILP)
    assert result["status"] == "optimal"
    amounts = as_amounts(result["assignment"])
    assert brute.is_legal(doc, "attackers", amounts)
    best = brute.optimum(doc, "attackers", terms)
    assert tuple(result["objective"].values()) == best
    space = legal_space(Combat.from_json(doc), "attackers")
    [part] = space.parts
    with highs_models() as built:
        ours = milp_group(space, list(part.sources), terms)
    if ours is None:
        assert built == []
        # Only a term whose values are not all multiples of one huge unit is too wide.
        assert len({abs(v) for v in values if v}) > 1
    else:
        assert ours.status == "optimal"
        assert tuple(evaluate(space, ours.amounts, terms).values()) == best


@st.composite
def with_huge_values(draw: st.DrawFn) -> dict:
    """A combat of the usual strategies whose creatures' values are drawn adversarially:
    at the edge of the allowed magnitude, near HiGHS's range, equal or one apart, tiny."""
    doc = draw(st.one_of(combats(rich=True), contests(), token_swarms()))
    unit = draw(st.sampled_from(HUGE))
    value = st.one_of(st.sampled_from(HUGE), st.integers(-3, 3),
                      st.integers(-(2**40), 2**40),
                      st.integers(-3, 3).map(lambda k: max(-(2**40), min(k * unit, 2**40))))
    for creature in doc["creatures"]:
        creature["value"] = draw(value)
    return doc


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=with_huge_values(), side=SIDES, data=st.data())
def test_adversarial_values_reach_the_brute_force_optimum(doc: dict, side: str,
                                                          data: st.DataObject) -> None:
    """Whichever backend settles each part (HiGHS, or CP-SAT when HiGHS cannot), the
    answer is legal and the brute force's optimum; a HiGHS bound without search is never
    below the most a part can kill."""
    terms = terms_for(side, data)
    for chosen in (MILP, SWARM):
        result = api.solve(copy.deepcopy(doc), side=side, objective=terms, settings=chosen)
        assert result["status"] == "optimal"
        assert brute.is_legal(doc, side, as_amounts(result["assignment"])), result
        assert tuple(result["objective"].values()) == brute.optimum(doc, side, terms)
    space = legal_space(Combat.from_json(doc), side)  # type: ignore[arg-type]
    for part in space.parts:
        sources = list(part.sources)
        ours = milp_group(space, sources, terms)
        theirs = cpsat_group(space, sources, terms)
        if ours is not None:
            assert ours.status == "optimal"
            assert evaluate(space, ours.amounts, terms) == \
                evaluate(space, theirs.amounts, terms)
        # The bound is on what the part adds to the kills of damage already dealt.
        most = evaluate(space, cpsat_group(space, sources, ["kills"]).amounts,
                        ["kills"])["kills"] - evaluate(space, {}, ["kills"])["kills"]
        bound = relaxed_bound(space, sources, "kills")
        assert bound is None or bound >= most


def many_parts() -> dict:
    """Three independent coupled parts, each worth a search."""
    creatures: list[dict] = []
    for p in range(3):
        for a in range(3):
            creatures.append({"id": f"A{p}{a}", "controller": "P1", "power": 3 + a,
                              "toughness": 3, "keywords": ["trample"], "attacking": "P2"})
        for b in range(4):
            creatures.append({"id": f"b{p}{b}", "controller": "P2", "power": 1,
                              "toughness": 1 + b % 3, "value": 1 + b,
                              "blocking": [f"A{p}{a}" for a in range(3)]})
    return {"active_player": "P1", "step": "regular", "side": "attackers",
            "players": [{"id": "P1"}, {"id": "P2", "life": 30}],
            "creatures": creatures}


def test_answer_is_identical_whatever_the_threads() -> None:
    doc = many_parts()
    answers = {json.dumps(api.solve(copy.deepcopy(doc),
                                    settings=SearchSettings(backend="milp", threads=n,
                                                            dynamic_program=False)),
                          sort_keys=True)
               for n in (1, 2, 3)}
    answers = {json.dumps({k: v for k, v in json.loads(a).items() if k != "stats"},
                          sort_keys=True) for a in answers}
    assert len(answers) == 1


def test_highs_and_cpsat_on_two_threads_at_once() -> None:
    """Both solvers in one process, on threads at once, again and again: same answers."""
    doc = many_parts()
    expected = api.solve(doc, settings=SearchSettings(backend="cpsat", threads=1))

    def run(i: int) -> dict:
        backend = "milp" if i % 2 else "cpsat"
        return api.solve(copy.deepcopy(doc),
                         settings=SearchSettings(backend=backend, threads=2,
                                                 dynamic_program=False))

    with ThreadPoolExecutor(2) as pool:
        results = list(pool.map(run, range(8)))
    for result in results:
        assert result["status"] == "optimal"
        assert result["objective"] == expected["objective"]


def test_timeout_answers_feasible_with_a_valid_bound() -> None:
    """A deadline already past: the hint (legal) with a bound no worse than the optimum."""
    doc = many_parts()
    space = legal_space(Combat.from_json(doc), "attackers")
    terms = brute.default_objective("attackers")
    part = space.parts[0]
    sources = list(part.sources)
    from trample.solver.optimize.greedy import greedy

    start = greedy(space, sources)
    result = milp_group(space, sources, terms, deadline=0.0, hint=lambda: start)
    assert result is not None
    assert result.status == "feasible"
    whole = {**start}
    for other in space.parts[1:]:
        whole.update(greedy(space, list(other.sources)))
    assert not violations(space, {**whole, **result.amounts})
    best = cpsat_group(space, sources, terms)
    got = evaluate(space, result.amounts, terms)
    opt = evaluate(space, best.amounts, terms)
    # The bound on the improvement covers the true optimum (lexicographically).
    gain = tuple(opt[t] - got[t] for t in terms)
    assert gain <= result.gap


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=st.one_of(contests(), token_swarms()))
def test_bounds_without_search_hold(doc: dict) -> None:
    """The linear relaxation's bound and HiGHS's root bound on a part's damage to players
    are never below the most damage the part can assign (CP-SAT's proved optimum)."""
    space = legal_space(Combat.from_json(doc), "attackers")
    for part in space.parts:
        sources = list(part.sources)
        best = cpsat_group(space, sources, ["player_damage"])
        most = evaluate(space, best.amounts, ["player_damage"])["player_damage"]
        for root in (False, True):
            bound = relaxed_bound(space, sources, "player_damage", root=root)
            assert bound is None or bound >= most


def test_the_backend_can_be_chosen_from_the_environment() -> None:
    import os
    import subprocess
    import sys

    from trample.solver.optimize.search_settings import BACKEND_VARIABLE

    code = "from trample.solver.optimize.search_settings import SHIPPED; print(SHIPPED.backend)"
    for value, expected in (("cpsat", "cpsat"), ("milp", "milp"), ("", "auto"),
                            ("bogus", "auto")):
        done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                              env={**os.environ, BACKEND_VARIABLE: value}, check=True)
        assert done.stdout.strip() == expected


SWARM = SearchSettings(milp_probe_pairs=1, milp_alike=0, milp_pack_share=0.0, threads=1,
                       dynamic_program=False)
"""Every searched group taken for a token swarm's part: all of them in one HiGHS model."""


@SMALL
@given(doc=COMBATS, side=SIDES, data=st.data())
def test_groups_in_one_model_reach_the_brute_force_optimum(doc: dict, side: str,
                                                           data: st.DataObject) -> None:
    terms = terms_for(side, data)
    result = api.solve(doc, side=side, objective=terms, settings=SWARM)
    assert result["status"] == "optimal"
    amounts = as_amounts(result["assignment"])
    assert brute.is_legal(doc, side, amounts), result
    assert tuple(result["objective"].values()) == brute.optimum(doc, side, terms)


@pytest.mark.sources  # (spies on HiGHS's models, inside the compiled module)
def test_groups_in_one_model_are_searched_once(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """The three parts of ``many_parts`` go to HiGHS as one model, not one each, first,
    and the answer is the one CP-SAT proves, the same whatever the threads."""
    from trample.solver.optimize import milp

    calls: list[int] = []
    original = milp.solve_group

    def counted(space, sources, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(len(sources))
        return original(space, sources, *args, **kwargs)

    monkeypatch.setattr(milp, "solve_group", counted)
    doc = many_parts()
    expected = api.solve(copy.deepcopy(doc), settings=SearchSettings(backend="cpsat"))
    answers = set()
    for n in (1, 2, 3):
        calls.clear()
        result = api.solve(copy.deepcopy(doc), settings=replace(SWARM, threads=n))
        assert calls[0] == 9  # the parts alone, then each part's most damage to the player
        assert result["status"] == "optimal"
        assert result["objective"] == expected["objective"]
        answers.add(json.dumps(result["assignment"], sort_keys=True))
    assert len(answers) == 1


def test_small_groups_in_one_model_are_searched_once(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    """Under the shipped settings the three small parts of ``many_parts`` (45 pairs in
    all) are one CP-SAT search, with the answer each proves alone, whatever the threads."""
    from trample.solver.optimize import cpsat

    calls: list[int] = []
    original = cpsat.solve_group

    def counted(space, sources, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(len(sources))
        return original(space, sources, *args, **kwargs)

    doc = many_parts()
    alone = SearchSettings(backend="cpsat", threads=1, dynamic_program=False)
    expected = api.solve(copy.deepcopy(doc), settings=alone)
    monkeypatch.setattr(cpsat, "solve_group", counted)
    answers = set()
    for n in (1, 2, 3):
        calls.clear()
        result = api.solve(copy.deepcopy(doc),
                           settings=SearchSettings(threads=n, dynamic_program=False))
        assert calls[0] == 9
        assert result["status"] == "optimal"
        assert result["objective"] == expected["objective"]
        answers.add(json.dumps(result["assignment"], sort_keys=True))
    assert len(answers) == 1
    calls.clear()
    api.solve(copy.deepcopy(doc), settings=alone)
    assert calls[:3] == [3, 3, 3]  # another backend than "auto": each part alone


@SMALL
@given(doc=st.one_of(COMBATS, pileups()), side=SIDES, data=st.data())
def test_rows_recorded_as_built_are_the_rows_read_back_from_cp_sat(
        doc: dict, side: str, data: st.DataObject) -> None:
    """HiGHS's rows are recorded while the group's model is built (`build_rows`), without
    a CP-SAT model; they are the rows read back from the CP-SAT model that the same code
    builds, row for row, with every term's form, for every term and both sides."""
    from trample.solver.optimize import milp
    from trample.solver.optimize.cpsat import build_group, build_rows

    space = legal_space(Combat.from_json(doc), side)
    sources = [s for s in space.sources if s.recipients]
    if not sources:
        return
    pool = brute.TERMS if side == "attackers" else brute.BOTH_SIDES_TERMS
    terms = data.draw(st.lists(st.sampled_from(pool), min_size=1, max_size=4, unique=True))
    symmetry = data.draw(st.booleans())
    ceiled = data.draw(st.booleans())
    built = build_group(space, sources, terms, symmetry=symmetry, ceiled=ceiled)
    read = milp.translate(built.model, built.expressions)
    recorded = build_rows(space, sources, terms, symmetry=symmetry, ceiled=ceiled)
    assert read is not None
    assert recorded.translation == read
    assert recorded.index == {pair: var.index for pair, var in built.x.items()}
    assert (recorded.lows, recorded.spans) == (built.lows, built.spans)
