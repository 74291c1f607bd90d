"""solve and plan when a side chooses another side's creature's split (702.22j-k, an
effect), when a creature assigns its toughness or nothing (510.1a), and when an attacker
may assign as though it weren't blocked (a union of two sets of splits): against the
independent brute force of tests/brute.py and tests/brute_plan.py, and known answers
worked out from the rules."""

from __future__ import annotations

import copy
from typing import Any

import brute_plan
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_plan import tiny_plans

from trample.models.document.combat import Combat
from trample.models.document.errors import InputError
from trample.solver.interface import api
from trample.solver.optimize.cpsat import solve_group
from trample.solver.optimize.objectives import DEFAULTS, OWN_TERMS, evaluate, parse_objective
from trample.solver.optimize.solve import mode_vectors, optimize
from trample.solver.rules.choosers import moved_by, moved_choices
from trample.solver.rules.legal_space import legal_space, mode_space

import brute
from strategies import combats, split_count, with_outcomes

Doc = dict[str, Any]
SIDES = st.sampled_from(["attackers", "blockers"])
PROPERTY = settings(max_examples=100, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])
ATTACKER_POOL = (*brute.OUTCOME_TERMS, *brute.ASSIGNED_TERMS, *OWN_TERMS)
BLOCKER_POOL = ("deaths", "life_gain", "kills", *OWN_TERMS)


@st.composite
def banded(draw: st.DrawFn, base: Any = None) -> Doc:
    """A small combat (of ``base``) with the fields of who assigns and how much: banding,
    bands with other, qualities, assigns, assigned_by, and as_though_unblocked on an
    attacker whose controller's side chooses its split (elsewhere it is refused)."""
    doc = copy.deepcopy(draw(base if base is not None
                             else combats(max_sources=3, rich=draw(st.booleans()))))
    for c in doc["creatures"]:
        roll = draw(st.integers(0, 5))
        if roll == 0:
            c["keywords"] = [*c.get("keywords", []), "Banding"]
        elif roll == 1:
            c["keywords"] = [*c.get("keywords", []), "Bands with other Legendary"]
        if draw(st.booleans()):
            c["qualities"] = ["Legendary"]
        c["assigns"] = draw(st.sampled_from(["power", "power", "toughness", "none"]))
        if draw(st.integers(0, 4)) == 0:
            c["assigned_by"] = "opponent"
    for c in doc["creatures"]:
        if c.get("attacking") is not None and draw(st.booleans()) \
                and brute.chooser_side(doc, c["id"]) == "attackers":
            c["as_though_unblocked"] = True
    return doc


def small(doc: Doc, side: str) -> bool:
    return all(brute.assigned_amount(c) <= 6 for c in doc["creatures"]) \
        and split_count(doc, side) <= 1500


def terms_for(side: str, data: st.DataObject) -> list[str]:
    if data.draw(st.booleans()):
        return list(DEFAULTS[side])  # type: ignore[index]
    pool = ATTACKER_POOL if side == "attackers" else BLOCKER_POOL
    terms = data.draw(st.permutations(pool))
    return list(terms[: data.draw(st.integers(1, len(terms)))])


def amounts_of(entries: list[Any]) -> dict[tuple[str, str], int]:
    return {(str(e["source"]), str(e["target"])): int(e["amount"]) for e in entries}


# -- against the brute force ----------------------------------------------------------------

@PROPERTY
@given(doc=st.one_of(banded(), banded(with_outcomes())), side=SIDES, data=st.data())
def test_solve_reaches_the_brute_force_optimum(doc: Doc, side: str,
                                               data: st.DataObject) -> None:
    """702.22j-k, 510.1a, as though unblocked: the optimum over every legal split of the
    side (the union of an attacker's two sets), each term as the brute force scores it."""
    if not small(doc, side):
        return
    terms = terms_for(side, data)
    result = api.solve(doc, side=side, objective=terms)
    assert result["status"] == "optimal"
    amounts = amounts_of(result["assignment"])
    assert brute.is_legal(doc, side, amounts), result
    got = tuple(result["objective"].values())
    assert got == brute.objective(doc, side, amounts, terms)
    assert got == brute.optimum(doc, side, terms)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.filter_too_much])
@given(doc=st.one_of(banded(), banded(with_outcomes())), side=SIDES, data=st.data())
def test_the_search_models_are_exact_on_each_set_of_splits(doc: Doc, side: str,
                                                           data: st.DataObject) -> None:
    """The CP-SAT and HiGHS models alone (small combats rarely reach them), on each set of
    splits of the union: the best of their optima is the brute force's."""
    if not small(doc, side):
        return
    from trample.solver.optimize.milp import solve_group as milp

    terms = terms_for(side, data)
    space = legal_space(Combat.from_json(doc), side)  # type: ignore[arg-type]
    best: dict[str, tuple[int, ...]] = {}
    for modes in mode_vectors(space):
        fixed = mode_space(space, modes)
        sources = [s for s in fixed.sources if s.assigns]
        found = {"cpsat": solve_group(fixed, sources, terms,
                                      weighted=data.draw(st.booleans())),
                 "milp": milp(fixed, sources, terms)}
        for name, result in found.items():
            if result is None:  # HiGHS declined (its float answer did not check out)
                assert name == "milp"
                continue
            assert result.status == "optimal"
            assert brute.is_legal(doc, side, dict(result.amounts))
            value = tuple(evaluate(fixed, result.amounts, terms).values())
            best[name] = max(best.get(name, value), value)
    expected = brute.optimum(doc, side, terms)
    assert best["cpsat"] == expected
    assert best.get("milp", expected) == expected


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.filter_too_much])
@given(doc=st.one_of(banded(), banded(with_outcomes())), side=SIDES)
def test_each_terms_range_holds_every_legal_split(doc: Doc, side: str) -> None:
    """The weighted objective and the bound read back from it are exact only if every
    term's value over the group lies in its declared range [low, low + span]: survivals
    and life_kept go below their value with nothing dealt (life_kept is 0 or less)."""
    if not small(doc, side) or split_count(doc, side) > 300:
        return
    from trample.solver.optimize.cpsat import build_group

    terms = [*OWN_TERMS, "deaths", "life_gain"]
    space = legal_space(Combat.from_json(doc), side)  # type: ignore[arg-type]
    for modes in mode_vectors(space):
        fixed = mode_space(space, modes)
        built = build_group(fixed, [s for s in fixed.sources if s.assigns], terms)
        base = evaluate(fixed, {}, terms)
        for split in brute.legal_assignments(doc, side):
            amounts = {(s, t): n for s, t, n in split}
            if any(p not in fixed.pairs for p in amounts):
                continue  # a split of the other set
            got = evaluate(fixed, amounts, terms)
            for term, low, span in zip(terms, built.lows, built.spans, strict=True):
                assert low <= got[term] - base[term] <= low + span, (term, amounts)
            assert got["life_kept"] <= 0


@PROPERTY
@given(doc=banded(combats(max_sources=3)), side=SIDES)
def test_own_terms_are_constant_where_each_side_assigns_its_own(doc: Doc, side: str) -> None:
    """Without a creature whose split the other side chooses, survivals and life_kept do
    not depend on the split, so the new default chooses what the terms before it chose."""
    combat = Combat.from_json(doc)
    if moved_choices(combat) or not small(doc, side):
        return
    terms = list(DEFAULTS[side])  # type: ignore[index]
    others = [t for t in terms if t not in OWN_TERMS]
    full = api.solve(doc, side=side)
    without = api.solve(doc, side=side, objective=others)
    assert full["assignment"] == without["assignment"]
    values = {brute.objective(doc, side, a, list(OWN_TERMS))
              for a in brute.legal_assignments(doc, side)}
    own = api.solve(doc, side=side, objective=list(OWN_TERMS))["objective"]
    assert values == {tuple(own.values())}


@settings(max_examples=50, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                 HealthCheck.filter_too_much])
@given(doc=banded(tiny_plans()), data=st.data())
def test_plan_reaches_the_brute_force_minimax_with_banding(doc: Doc,
                                                           data: st.DataObject) -> None:
    """§8 with 702.22j-k in both steps: each side's split covers the creatures whose split
    it chooses, in each step on the combat that remains, an attacker that may assign as
    though unblocked with both kinds of split."""
    terms = list(brute_plan.PLAN_TERMS) if data.draw(st.booleans()) else list(
        data.draw(st.permutations(brute_plan.PLAN_TERMS)))[: data.draw(st.integers(1, 4))]
    result = api.plan(doc, objective=terms)
    assert result["status"] == "optimal"
    expected = brute_plan.plan_value(doc, terms)
    assert tuple(result["objective"].values()) == expected
    if brute.effective_step(doc) == "first_strike":
        first = amounts_of(result["first_strike"])
        assert brute.is_legal(doc, "attackers", first)
        assert brute_plan.line_value(doc, first, terms) == expected


# -- known answers --------------------------------------------------------------------------

def duel(*creatures: Doc, life: int = 20, **extra: Any) -> Doc:
    d: Doc = {"active_player": "ap", "players": [{"id": "ap", "life": 20},
                                                  {"id": "dp", "life": life}],
              "creatures": list(creatures)}
    d.update(extra)
    return d


def c(cid: str, who: str, power: int, toughness: int, **extra: Any) -> Doc:
    return {"id": cid, "controller": who, "power": power, "toughness": toughness, **extra}


def test_the_defender_puts_a_tramplers_damage_on_its_banding_blocker() -> None:
    """702.22j: dp divides the 5/5 trampler's damage; everything on the 1/1 with banding
    keeps dp's life (life_kept 0), and the blocker dies either way."""
    d = duel(c("t", "ap", 5, 5, keywords=["Trample"], attacking="dp"),
             c("h", "dp", 1, 1, keywords=["Banding"], blocking=["t"]))
    result = api.solve(d, side="blockers")
    assert result["objective"] == {"life_kept": 0, "survivals": 0, "deaths": 0,
                                   "life_gain": 0}
    assert amounts_of(result["assignment"]) == {("t", "h"): 5, ("h", "t"): 1}
    # The attackers choose nothing here: the trampler is not theirs to divide.
    assert api.solve(d)["assignment"] == []


def test_the_attacker_divides_a_blockers_damage_among_a_band() -> None:
    """702.22k: ap divides the 4/4's damage among the band; all of it on the 1/1 with
    banding keeps the valuable 3/3 alive (survivals 5)."""
    d = duel(c("a1", "ap", 1, 1, keywords=["Banding"], attacking="dp"),
             c("a2", "ap", 3, 3, attacking="dp", value=5),
             c("w", "dp", 4, 4, blocking=["a1", "a2"]))
    result = api.solve(d)
    assert result["objective"]["deaths"] == 1
    assert result["objective"]["survivals"] == 5
    assert amounts_of(result["assignment"]) == {("a1", "w"): 1, ("a2", "w"): 3,
                                                ("w", "a1"): 4}


def test_a_blocker_with_banding_leaves_the_tramplers_player_damage_to_the_defender() -> None:
    """The control of the first answer: without banding ap tramples over for 4."""
    d = duel(c("t", "ap", 5, 5, keywords=["Trample"], attacking="dp"),
             c("h", "dp", 1, 1, blocking=["t"]))
    assert api.solve(d)["objective"]["life_loss"] == 4


@pytest.mark.parametrize(("life", "expected"), [
    (4, {("th", "dp"): 5}),   # unblocked: dp loses (losses first)
    (20, {("th", "w"): 5}),   # blocked: the wall dies (deaths before life_loss)
])
def test_thorn_elemental_takes_the_best_of_its_two_kinds_of_split(
        life: int, expected: dict[tuple[str, str], int]) -> None:
    d = duel(c("th", "ap", 5, 5, attacking="dp", as_though_unblocked=True),
             c("w", "dp", 0, 3, blocking=["th"]), life=life)
    result = api.solve(d)
    assert result["status"] == "optimal"
    assert amounts_of(result["assignment"]) == expected
    assert api.validate(d, result["assignment"])["legal"]


def test_ties_between_the_two_kinds_go_to_the_blocked_one() -> None:
    """The documented tie-break: the blocked splits first. Nothing dies and no term sees
    dp, so every split ties."""
    d = duel(c("th", "ap", 2, 2, attacking="dp", as_though_unblocked=True),
             c("w", "dp", 0, 5, blocking=["th"]))
    assert api.solve(d, objective=["deaths"])["assignment"] == [
        {"source": "th", "target": "w", "amount": 2}]


def test_doran_assigns_its_toughness() -> None:
    """510.1a with "assigns damage equal to its toughness": a 0/5 kills a 5/5 wall."""
    d = duel(c("doran", "ap", 0, 5, attacking="dp", assigns="toughness"),
             c("w", "dp", 0, 5, blocking=["doran"]))
    result = api.solve(d)
    assert amounts_of(result["assignment"]) == {("doran", "w"): 5}
    assert result["objective"]["deaths"] == 1


def test_defensive_formation_keeps_the_valuable_blocker() -> None:
    """assigned_by 'opponent': dp divides the 4/4's damage between its two blockers and
    keeps the one worth more alive (survivals before deaths)."""
    d = duel(c("a", "ap", 4, 4, attacking="dp", assigned_by="opponent"),
             c("cheap", "dp", 1, 2, blocking=["a"]),
             c("dear", "dp", 1, 3, blocking=["a"], value=4))
    result = api.solve(d, side="blockers")
    assert result["objective"]["survivals"] == 4
    assert amounts_of(result["assignment"])[("a", "cheap")] == 4


def test_the_defender_lets_damage_through_rather_than_lose_a_creature_if_asked() -> None:
    """survivals before life_kept: dp would rather take 3 than lose its 1/1 (a trampler
    must give the 1/1 lethal damage before dp, so it dies whatever is chosen: then
    life_kept decides, everything on the blocker)."""
    d = duel(c("t", "ap", 4, 4, keywords=["Trample"], attacking="dp"),
             c("h", "dp", 0, 1, keywords=["Banding"], blocking=["t"], value=3))
    result = api.solve(d, side="blockers", objective=["survivals", "life_kept"])
    assert result["objective"] == {"survivals": 0, "life_kept": 0}


def test_both_sides_accept_the_new_terms() -> None:
    for side in ("attackers", "blockers"):
        assert parse_objective("survivals,life_kept", side) == ("survivals", "life_kept")  # type: ignore[arg-type]
    with pytest.raises(InputError, match="attackers' only"):
        parse_objective(["life_kept", "lethal"], "blockers")
    with pytest.raises(InputError, match="unknown term"):
        parse_objective(["life_kep"], "attackers")


def test_a_time_limit_over_the_union_is_shared() -> None:
    """One time limit for every set of splits: an answer with a bound when any set is
    stopped, else optimal; either way the answer is legal for the union."""
    d = duel(c("th", "ap", 5, 5, attacking="dp", as_though_unblocked=True),
             c("w", "dp", 0, 3, blocking=["th"]), life=4)
    space = legal_space(Combat.from_json(d), "attackers")
    found = optimize(space, DEFAULTS["attackers"], time_limit=30)
    assert found.status == "optimal" and found.bound is None
    assert found.objective["losses"] == 1


def test_next_step_carries_the_fields_of_who_assigns() -> None:
    d = duel(c("a", "ap", 2, 4, keywords=["First strike", "Banding"], attacking="dp",
               qualities=["Legendary"], assigns="toughness"),
             c("th", "ap", 2, 2, attacking="dp", as_though_unblocked=True),
             c("b", "dp", 1, 5, blocking=["a"], assigned_by="opponent",
               keywords=["Bands with other Legendary"]),
             step="first_strike")
    after = api.next_step(d, [{"source": "a", "target": "b", "amount": 4}], [])["combat"]
    by_id = {x["id"]: x for x in after["creatures"]}
    assert by_id["a"]["qualities"] == ["legendary"]
    assert by_id["a"]["assigns"] == "toughness"
    assert "banding" in by_id["a"]["keywords"]
    assert by_id["th"]["as_though_unblocked"] is True
    assert by_id["b"]["assigned_by"] == "opponent"
    assert "bands with other legendary" in by_id["b"]["keywords"]
    regular = Combat.from_json(after)
    assert moved_by(regular, "b") == "702.22k"
