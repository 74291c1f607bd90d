"""What dealt damage does: prevention, multipliers, infect, wither, lifelink, toxic, poison
and loss thresholds, in the parser, the objective terms and every search, against the
independent brute force (tests/brute.py)."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trample.models.document.combat import Combat
from trample.models.document.errors import InputError
from trample.solver.interface import api
from trample.solver.optimize.cpsat import solve_group
from trample.solver.optimize.fastpath import _plain_source, solve_lone
from trample.solver.optimize.objectives import (
    ASSIGNED_TERMS,
    DEFAULTS,
    OUTCOME_TERMS,
    PLAIN_TERMS,
    evaluate,
)
from trample.solver.rules.legal_space import legal_space

import brute
from strategies import combats, contests, lone_sources, with_outcomes

SIDES = st.sampled_from(["attackers", "blockers"])
PROPERTY = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
BLOCKER_TERMS = ("deaths", "life_gain", "kills")


def amounts_of(entries: list[dict[str, object]]) -> dict[tuple[str, str], int]:
    return {(str(e["source"]), str(e["target"])): int(e["amount"])  # type: ignore[call-overload]
            for e in entries}


def terms_for(side: str, data: st.DataObject) -> list[str]:
    pool = (*OUTCOME_TERMS, *ASSIGNED_TERMS) if side == "attackers" else BLOCKER_TERMS
    terms = data.draw(st.permutations(pool))
    return list(terms[: data.draw(st.integers(1, len(terms)))])


# -- against the brute force ----------------------------------------------------------------

@PROPERTY
@given(doc=with_outcomes(), side=SIDES, data=st.data())
def test_solve_reaches_the_brute_force_optimum_with_outcomes(doc: dict, side: str,
                                                             data: st.DataObject) -> None:
    terms = brute.default_objective(side) if data.draw(st.booleans()) \
        else terms_for(side, data)
    result = api.solve(doc, side=side, objective=terms)
    assert result["status"] == "optimal"
    amounts = amounts_of(result["assignment"])
    assert brute.is_legal(doc, side, amounts), result
    assert tuple(result["objective"].values()) == brute.objective(doc, side, amounts, terms)
    assert tuple(result["objective"].values()) == brute.optimum(doc, side, terms)


@PROPERTY
@given(doc=with_outcomes(contests()), data=st.data())
def test_parts_coupled_by_a_player_are_solved_together_when_outcomes_need_it(
        doc: dict, data: st.DataObject) -> None:
    """Independent parts that damage one player: poison, loss thresholds, factors and
    prevention decide whether their answers together make the player lose."""
    terms = brute.default_objective("attackers") if data.draw(st.booleans()) \
        else terms_for("attackers", data)
    result = api.solve(doc, objective=terms)
    assert result["status"] == "optimal"
    assert tuple(result["objective"].values()) == brute.optimum(doc, "attackers", terms)


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=with_outcomes(), side=SIDES, data=st.data())
def test_the_cpsat_model_of_the_outcome_terms_is_exact(doc: dict, side: str,
                                                        data: st.DataObject) -> None:
    """The CP-SAT model alone, on the whole space (small combats rarely reach it)."""
    terms = terms_for(side, data)
    space = legal_space(Combat.from_json(doc), side)  # type: ignore[arg-type]
    sources = [s for s in space.sources if s.assigns]
    result = solve_group(space, sources, terms, weighted=data.draw(st.booleans()))
    assert result.status == "optimal"
    assert brute.is_legal(doc, side, dict(result.amounts))
    got = tuple(evaluate(space, result.amounts, terms).values())
    assert got == brute.optimum(doc, side, terms)


def _plain(doc: dict) -> dict:
    """The document without lifelink, the one §7 keyword the base strategies produce."""
    doc = copy.deepcopy(doc)
    for creature in doc["creatures"]:
        if "keywords" in creature:
            creature["keywords"] = [k for k in creature["keywords"]
                                    if k.lower() != "lifelink"]
    return doc


@PROPERTY
@given(doc=st.one_of(combats(), combats(rich=True)), side=SIDES)
def test_without_outcome_fields_the_new_default_chooses_what_the_old_one_did(
        doc: dict, side: str) -> None:
    doc = _plain(doc)
    new = api.solve(doc, side=side)
    old = api.solve(doc, side=side, objective=list(brute.plain_objective(side)))
    assert new["assignment"] == old["assignment"]
    assert list(new["objective"]) == list(DEFAULTS[side])  # type: ignore[index]
    for term, value in new["objective"].items():
        base = PLAIN_TERMS[term]
        if term == "survivals":
            # Each side assigns only its own creatures: nothing reaches its own, so the
            # value of those alive before damage (704.5f-g).
            own = [c for c in doc["creatures"]
                   if (c.get("attacking") if side == "attackers" else c.get("blocking"))]
            assert value == sum(c.get("value", 1) for c in own if c["toughness"] > 0 and (
                c.get("damage", 0) < c["toughness"] or "indestructible" in
                {brute.normalize_keyword(k) for k in c.get("keywords", [])}))
        elif base is None:
            assert value == 0
        elif term != "deaths":
            assert value == old["objective"][base]
    # deaths differs from kills only by indestructible creatures of toughness <= 0.
    zero = sum(c.get("value", 1) for c in doc["creatures"]
               if (c.get("blocking") if side == "attackers" else c.get("attacking"))
               and c["toughness"] <= 0
               and "indestructible" in {brute.normalize_keyword(k)
                                        for k in c.get("keywords", [])})
    assert new["objective"]["deaths"] == old["objective"]["kills"] + zero


@PROPERTY
@given(doc=st.one_of(combats(), combats(rich=True)), side=SIDES, data=st.data())
def test_with_lifelink_the_old_terms_keep_their_optimum(doc: dict, side: str,
                                                        data: st.DataObject) -> None:
    """Lifelink only adds ``life_gain`` last: every earlier term keeps its optimum."""
    new = api.solve(doc, side=side)
    old = api.solve(_plain(doc), side=side, objective=list(brute.plain_objective(side)))
    mapped = [PLAIN_TERMS[t] for t in new["objective"]]
    for term, base in zip(new["objective"], mapped, strict=True):
        if base is not None and term != "deaths":
            assert new["objective"][term] == old["objective"][base]
    del data


# -- known answers --------------------------------------------------------------------------

def duel(*creatures: dict, **top: object) -> dict:
    return {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": 20}],
            "creatures": list(creatures), **top}


ATTACKER = {"id": "a", "controller": "ap", "power": 5, "toughness": 5,
            "keywords": ["trample"], "attacking": "dp"}
BLOCKER = {"id": "b", "controller": "dp", "power": 1, "toughness": 2, "blocking": ["a"]}


def test_protection_blocker_takes_no_damage_but_lethal_is_still_assigned() -> None:
    """702.19b: lethal damage is assigned to a blocker with protection, then the rest
    tramples over; the blocker survives."""
    doc = duel(ATTACKER, BLOCKER, prevention=[{"source": "a", "target": "b"}])
    result = api.solve(doc)
    assert amounts_of(result["assignment"]) == {("a", "b"): 2, ("a", "dp"): 3}
    assert result["objective"]["deaths"] == 0 and result["objective"]["life_loss"] == 3


def test_infect_gives_poison_and_toxic_adds_its_total_once_per_player() -> None:
    a = {**ATTACKER, "keywords": ["trample", "infect", "toxic 1", "Toxic 2"]}
    doc = duel(a, BLOCKER)
    doc["players"][1]["poison"] = 4
    result = api.solve(doc, objective=["poison", "losses"])
    assert result["objective"] == {"poison": 3 + 3, "losses": 1}


def test_a_doubler_turns_three_into_six_and_commander_damage_counts_dealt_damage() -> None:
    doc = duel(ATTACKER, BLOCKER, multipliers=[{"source": "*", "target": "dp", "factor": 2}],
               loss_thresholds=[{"source": "a", "player": "dp", "threshold": 21,
                                 "already": 15}])
    result = api.solve(doc)
    assert result["objective"]["losses"] == 1 and result["objective"]["life_loss"] == 6


def test_wither_kills_an_indestructible_blocker_with_counters() -> None:
    a = {**ATTACKER, "keywords": ["wither"], "power": 2}
    b = {**BLOCKER, "keywords": ["indestructible"]}
    assert api.solve(duel(a, b))["objective"]["deaths"] == 1
    assert api.solve(duel({**a, "keywords": []}, b))["objective"]["deaths"] == 0


def test_lifelink_counts_for_the_side_that_deals_it() -> None:
    b = {**BLOCKER, "keywords": ["lifelink"], "power": 3}
    assert api.solve(duel(ATTACKER, b), side="blockers")["objective"] == {
        "life_kept": 0, "survivals": 1, "deaths": 0, "life_gain": 3}


# -- the document ---------------------------------------------------------------------------

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(doc=with_outcomes())
def test_the_outcome_fields_round_trip(doc: dict) -> None:
    combat = Combat.from_json(doc)
    again = Combat.from_json(json.loads(json.dumps(combat.to_json())))
    assert again == combat
    assert [c.toxic for c in again.creatures] == [c.toxic for c in combat.creatures]


@pytest.mark.parametrize(("change", "path", "words"), [
    ({"prevention": [{"source": "a"}]}, "prevention[0].target", "required"),
    ({"prevention": [{"source": "zz", "target": "*"}]}, "prevention[0].source",
     "not a creature"),
    ({"prevention": [{"source": "*", "target": "zz"}]}, "prevention[0].target",
     "not a player"),
    ({"prevention": [{"source": "*", "target": "b", "x": 1}]}, "prevention[0].x",
     "unknown field"),
    ({"multipliers": [{"source": "a", "target": "*", "factor": -1}]},
     "multipliers[0].factor", "at least 0"),
    ({"multipliers": [{"source": "a", "target": "*", "factor": 1024}] * 3},
     "multipliers[2].factor", "multiply to more than"),
    ({"creatures": [{**ATTACKER, "power": 2**39}, BLOCKER],
      "multipliers": [{"source": "a", "target": "*", "factor": 3}]},
     "multipliers[0].factor", "the largest damage trample deals"),
    ({"loss_thresholds": [{"source": "a", "player": "b", "threshold": 21}]},
     "loss_thresholds[0].player", "not a player"),
    ({"loss_thresholds": [{"source": "*", "player": "dp", "threshold": 21}]},
     "loss_thresholds[0].source", "not a creature"),
    ({"loss_thresholds": [{"source": "a", "player": "dp", "threshold": 0}]},
     "loss_thresholds[0].threshold", "at least 1"),
    ({"loss_thresholds": [{"source": "a", "player": "dp", "threshold": 10, "already": 10}]},
     "loss_thresholds[0].already", "less than threshold"),
    ({"loss_thresholds": {}}, "loss_thresholds", "must be"),
])
def test_bad_outcome_fields_are_refused_with_their_path(change: dict, path: str,
                                                        words: str) -> None:
    doc = duel(ATTACKER, BLOCKER, **change)
    with pytest.raises(InputError) as caught:
        Combat.from_json(doc)
    assert caught.value.path == path and words in str(caught.value)


def test_poison_must_be_a_natural_number() -> None:
    doc = duel(ATTACKER, BLOCKER)
    doc["players"][1]["poison"] = -1
    with pytest.raises(InputError, match=r"players\[1\]\.poison"):
        Combat.from_json(doc)


def test_the_outcome_benchmark_runs_quick_and_checks_its_answers(tmp_path: Path) -> None:
    from benchmarks import outcomes

    assert outcomes.main(["--quick", "--out", str(tmp_path)]) == 0
    found = json.loads((tmp_path / "outcomes.json").read_text("utf-8"))
    rows = found["solve"]
    assert {r["size"] for r in rows} == set(outcomes.QUICK_SIZES)
    assert all(r[w]["status"] == "optimal" for r in rows for w in ("plain", "outcome",
                                                                   "effects"))
    assert [(r["attackers"], r["blockers_each"]) for r in found["plan"]] == list(
        outcomes.QUICK_PLAN_SHAPES)
    assert all(r["status"] == "optimal" and r["leaves"] > 0 for r in found["plan"])
    doc = outcomes.with_effects(outcomes.shared_blockers(6, 6, 0.3, 0), 0)
    combat = Combat.from_json(doc)
    assert combat.prevention and combat.multipliers and combat.loss_thresholds


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=st.one_of(with_outcomes(contests()), with_outcomes()), side=SIDES,
       data=st.data())
def test_every_part_searched_by_cpsat_still_reaches_the_optimum(doc: dict, side: str,
                                                                 data: st.DataObject) -> None:
    """With looking at each assignment of a small group turned off, the parts go to the
    CP-SAT model of the outcome terms and the contested players are re-solved together."""
    from unittest import mock

    terms = terms_for(side, data)
    with mock.patch("trample.solver.optimize.solve.SMALL_GROUP", 0):
        result = api.solve(doc, side=side, objective=terms)
    assert result["status"] == "optimal"
    assert tuple(result["objective"].values()) == brute.optimum(doc, side, terms)


@settings(max_examples=300, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=with_outcomes(lone_sources()), data=st.data())
def test_the_lone_source_closed_form_with_outcome_terms(doc: dict,
                                                        data: st.DataObject) -> None:
    """A source alone in its part whose damage is dealt as assigned (other creatures may
    have effects) is solved in closed form, and exactly; the others step aside."""
    terms = terms_for("attackers", data)
    space = legal_space(Combat.from_json(doc), "attackers")
    sources = [s for s in space.sources if s.assigns]
    result = api.solve(doc, objective=terms)
    best = brute.optimum(doc, "attackers", terms)
    assert tuple(result["objective"].values()) == best
    if len(sources) != 1:
        return
    found = solve_lone(space, sources[0], terms)
    if _plain_source(space, sources[0]):
        assert found is not None
        assert brute.is_legal(doc, "attackers", dict(found))
        got = tuple(evaluate(space, found, terms).values())
        assert got == best
    elif any(t in OUTCOME_TERMS for t in terms):
        assert found is None
