"""Planning both combat damage steps (``plan``, ``next_step``) against the independent
brute force of tests/brute_plan.py (plain nested enumeration of the four choices)."""

from __future__ import annotations

import json
import subprocess
import sys

import brute_plan
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trample.models.document.combat import Combat
from trample.models.document.errors import InputError
from trample.solver.actions.plan import PLAN_TERMS, plan_combat, plan_size
from trample.solver.interface import api

import brute

PROPERTY = settings(max_examples=120, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
ATTACKER_KEYWORDS = ("first strike", "double strike", "double strike", "trample", "deathtouch",
                     "lifelink", "infect", "wither")
BLOCKER_KEYWORDS = ("first strike", "deathtouch", "lifelink", "indestructible", "wither")


@st.composite
def tiny_plans(draw: st.DrawFn) -> dict:
    """1-2 attackers (most with first or double strike), 1-2 blockers, a planeswalker
    sometimes attacked, poison, loss thresholds: small enough for nested enumeration."""
    players = [{"id": "ap", "life": draw(st.integers(1, 6))},
               {"id": "dp", "life": draw(st.integers(1, 9)),
                "poison": draw(st.sampled_from([0, 0, 7, 9]))}]
    walker = draw(st.booleans())
    creatures = []
    for i in range(draw(st.integers(1, 2))):
        keywords = draw(st.lists(st.sampled_from(ATTACKER_KEYWORDS), max_size=2, unique=True))
        if i == 0 and not any("strike" in k for k in keywords):
            keywords.append(draw(st.sampled_from(["first strike", "double strike"])))
        creatures.append({"id": f"a{i}", "controller": "ap", "power": draw(st.integers(1, 4)),
                          "toughness": draw(st.integers(1, 4)), "keywords": keywords,
                          "value": draw(st.integers(1, 3)),
                          "attacking": "jace" if walker and i == 1 else "dp"})
    for j in range(draw(st.integers(0, 2))):
        creatures.append({"id": f"b{j}", "controller": "dp", "power": draw(st.integers(0, 3)),
                          "toughness": draw(st.integers(1, 4)),
                          "keywords": draw(st.lists(st.sampled_from(BLOCKER_KEYWORDS),
                                                    max_size=2, unique=True)),
                          "value": draw(st.integers(1, 3)),
                          "blocking": [draw(st.sampled_from(
                              [c["id"] for c in creatures if c["id"].startswith("a")]))]})
    doc: dict = {"active_player": "ap", "players": players, "creatures": creatures}
    if walker:
        doc["planeswalkers"] = [{"id": "jace", "controller": "dp",
                                 "loyalty": draw(st.integers(1, 4))}]
    if draw(st.booleans()):
        threshold = draw(st.integers(2, 8))
        doc["loss_thresholds"] = [{"source": "a0", "player": "dp", "threshold": threshold,
                                   "already": draw(st.integers(0, threshold - 1))}]
    if draw(st.integers(0, 3)) == 0:
        doc["multipliers"] = [{"source": "*", "target": "dp", "factor": 2}]
    if draw(st.integers(0, 3)) == 0 and len(creatures) > 1:
        doc["prevention"] = [{"source": "a0", "target": draw(st.sampled_from(
            [c["id"] for c in creatures[1:]]))}]
    return doc


def amounts_of(entries: list[dict]) -> dict[tuple[str, str], int]:
    return {(e["source"], e["target"]): e["amount"] for e in entries}


@PROPERTY
@given(doc=tiny_plans(), data=st.data())
def test_plan_reaches_the_brute_force_minimax(doc: dict, data: st.DataObject) -> None:
    terms = list(PLAN_TERMS) if data.draw(st.booleans()) else list(
        data.draw(st.permutations(PLAN_TERMS)))[: data.draw(st.integers(1, 4))]
    result = api.plan(doc, objective=terms)
    assert result["status"] == "optimal"
    expected = brute_plan.plan_value(doc, terms)
    assert tuple(result["objective"].values()) == expected
    # The first-strike split given guarantees that value, and it is legal.
    first = amounts_of(result["first_strike"])
    step = brute.effective_step(doc)
    if step == "first_strike":
        assert brute.is_legal(doc, "attackers", first)
        assert brute_plan.line_value(doc, first, terms) == expected


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=tiny_plans(), data=st.data())
def test_next_step_builds_the_regular_document_as_the_brute_force_does(
        doc: dict, data: st.DataObject) -> None:
    if brute.effective_step(doc) != "first_strike":
        return
    a1 = data.draw(st.sampled_from(brute.legal_assignments(doc, "attackers")))
    b1 = data.draw(st.sampled_from(brute.legal_assignments(doc, "blockers")))
    entries = [[{"source": s, "target": t, "amount": n} for s, t, n in sorted(a)]
               for a in (a1, b1)]
    got = api.next_step(doc, entries[0], entries[1])["combat"]
    expected, _, _, _ = brute_plan.step(doc, {(s, t): n for s, t, n in (*a1, *b1)})
    assert Combat.from_json(got) == Combat.from_json(expected)


def test_the_principal_line_is_a_line_of_legal_splits() -> None:
    doc = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": 9}],
           "creatures": [
               {"id": "v", "controller": "ap", "power": 4, "toughness": 4,
                "keywords": ["double strike", "trample"], "attacking": "dp"},
               {"id": "w", "controller": "dp", "power": 3, "toughness": 3,
                "keywords": ["lifelink"], "blocking": ["v"]}]}
    result = api.plan(doc)
    after = api.next_step(doc, result["first_strike"],
                          result["line"]["blockers_first_strike"])["combat"]
    assert brute.is_legal(after, "attackers", amounts_of(result["line"]["attackers_regular"]))
    assert brute.is_legal(after, "blockers", amounts_of(result["line"]["blockers_regular"]))
    assert tuple(result["objective"].values()) == brute_plan.plan_value(doc)


def test_a_combat_too_large_is_refused_with_its_size() -> None:
    doc = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp"}],
           "creatures": [{"id": f"a{i}", "controller": "ap", "power": 9, "toughness": 9,
                          "keywords": ["double strike", "trample"], "attacking": "dp"}
                         for i in range(3)]
           + [{"id": f"b{i}{j}", "controller": "dp", "power": 1, "toughness": 1,
               "blocking": [f"a{i}"]} for i in range(3) for j in range(4)]}
    combat = Combat.from_json(doc)
    size = plan_size(combat)
    with pytest.raises(InputError, match=f"{size:,} legal splits in product"):
        plan_combat(combat, max_size=size - 1)


def test_a_time_limit_answers_feasible_with_a_guaranteed_value() -> None:
    doc = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": 6}],
           "creatures": [{"id": "v", "controller": "ap", "power": 4, "toughness": 4,
                          "keywords": ["double strike", "trample"], "attacking": "dp"},
                         {"id": "w", "controller": "dp", "power": 1, "toughness": 2,
                          "keywords": ["lifelink"], "blocking": ["v"]}]}
    combat = Combat.from_json(doc)
    found = plan_combat(combat, deadline=0.0)  # long past: only the first split is examined
    assert found.status == "feasible"
    assert tuple(found.objective.values()) == brute_plan.line_value(
        doc, dict(found.first_strike))


def lifelink_wall(power: int) -> dict:
    """Two tramplers on two shared blockers, one with lifelink: the regular step does not
    separate (the defenders' lifelink and the attackers' damage meet at their life), so
    each split of the attackers is played against every reply."""
    return {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": 9}],
            "creatures": [
                {"id": "a0", "controller": "ap", "power": power, "toughness": 3,
                 "keywords": ["trample"], "attacking": "dp"},
                {"id": "a1", "controller": "ap", "power": power, "toughness": 3,
                 "keywords": ["trample"], "attacking": "dp"},
                {"id": "b0", "controller": "dp", "power": 3, "toughness": 2,
                 "keywords": ["lifelink"], "blocking": ["a0", "a1"]},
                {"id": "b1", "controller": "dp", "power": 2, "toughness": 2,
                 "blocking": ["a0", "a1"]}],
            "step": "regular"}


def test_a_budget_stops_a_regular_step_plan_with_a_proved_value() -> None:
    """The stop is looked at inside the regular step's search, not only between
    first-strike splits: a budget of half the lines a full search scores answers
    ``feasible`` with a split whose value the brute force confirms."""
    doc = lifelink_wall(4)
    combat = Combat.from_json(doc)
    full = plan_combat(combat)
    assert full.status == "optimal"
    budget = full.leaves // 2
    found = plan_combat(combat, max_leaves=budget)
    assert found.status == "feasible"
    assert found.leaves <= budget
    split = dict(found.attackers_regular)
    assert brute.is_legal(doc, "attackers", split)
    value = tuple(found.objective.values())
    assert value == brute_plan.regular_line_value(doc, split)
    assert value <= brute_plan.plan_value(doc) == tuple(full.objective.values())


def test_a_cancel_already_set_answers_the_first_proved_split() -> None:
    from trample.solver.optimize.cancel import Cancel

    doc = lifelink_wall(4)
    cancel = Cancel()
    cancel.set()
    found = plan_combat(Combat.from_json(doc), cancel=cancel)
    full = plan_combat(Combat.from_json(doc))
    assert found.status == "feasible"
    assert found.leaves < full.leaves
    split = dict(found.attackers_regular)
    assert tuple(found.objective.values()) == brute_plan.regular_line_value(doc, split)
    answer = api.plan(doc, cancel=cancel)
    assert answer["status"] == "feasible"
    assert answer["objective"] == found.objective


def test_a_stop_before_any_value_is_proved_refuses_rather_than_guesses() -> None:
    """Stopped before the first split's value is proved, the search goes on for a fixed
    number of lines at most, then refuses the combat with its size."""
    from trample.solver.actions import plan as planning

    doc = lifelink_wall(4)
    with pytest.raises(InputError, match=r"within the request's limits: the search was "
                       r"stopped before the value of any split was proved \(5 lines "
                       r"scored; the four choices have 1,320 legal splits"):
        plan_combat(Combat.from_json(doc), max_leaves=5)
    # A deadline long past: at most PROVING_LEAVES lines, on a combat whose first split
    # needs more (played against each of the defenders' 61 x 41 replies).
    big = lifelink_wall(2)
    for blocker, power in zip(big["creatures"][2:], (60, 40), strict=True):
        blocker["power"] = power
    with pytest.raises(InputError, match=f"the time limit ran out before the value of any "
                       f"split was proved \\({planning.PROVING_LEAVES:,} lines scored"):
        plan_combat(Combat.from_json(big), deadline=0.0)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=tiny_plans(), budget=st.integers(1, 40))
def test_a_stopped_plan_answers_a_value_its_split_guarantees(doc: dict, budget: int) -> None:
    """Whatever the budget: a refusal, or a legal first split whose value the brute force
    confirms, never above the optimum; ``optimal`` only when the search was complete."""
    combat = Combat.from_json(doc)
    try:
        found = plan_combat(combat, max_leaves=budget)
    except InputError as exc:
        assert "before the value of any split was proved" in str(exc)
        return
    value = tuple(found.objective.values())
    assert found.leaves <= budget
    if brute.effective_step(doc) == "first_strike":
        split = dict(found.first_strike)
        assert brute.is_legal(doc, "attackers", split)
        assert value == brute_plan.line_value(doc, split)
    else:
        split = dict(found.attackers_regular)
        assert value == brute_plan.regular_line_value(doc, split)
    best = brute_plan.plan_value(doc)
    assert value <= best
    if found.status == "optimal":
        assert value == best


def test_plan_refuses_terms_it_does_not_know() -> None:
    with pytest.raises(InputError, match=r"objective\[0\]: unknown term 'lethal' for plan"):
        api.plan(brute_plan_doc(), objective=["lethal"])


def brute_plan_doc() -> dict:
    return {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp"}],
            "creatures": [{"id": "v", "controller": "ap", "power": 2, "toughness": 2,
                           "keywords": ["first strike"], "attacking": "dp"}]}


def test_next_step_refuses_an_illegal_split() -> None:
    doc = brute_plan_doc()
    with pytest.raises(InputError, match="attackers: not a legal first-strike split"):
        api.next_step(doc, [{"source": "v", "target": "dp", "amount": 1}], [])


def test_the_command_line_and_serve_plan() -> None:
    doc = json.dumps(brute_plan_doc())
    out = subprocess.run([sys.executable, "-m", "trample.solver", "plan", "-",
                          "--objective", "life_loss"], input=doc, capture_output=True,
                         text=True, check=True).stdout
    assert json.loads(out)["objective"] == {"life_loss": 2}
    requests = "\n".join(json.dumps({"jsonrpc": "2.0", "id": i, "method": m, "params": p})
                         for i, (m, p) in enumerate([
                             ("plan", {"combat": json.loads(doc)}),
                             ("next_step", {"combat": json.loads(doc), "attackers": [
                                 {"source": "v", "target": "dp", "amount": 2}],
                                 "blockers": []})]))
    lines = subprocess.run([sys.executable, "-m", "trample.solver", "serve"],
                           input=requests + "\n", capture_output=True, text=True,
                           check=True).stdout.splitlines()
    planned, after = (json.loads(line)["result"] for line in lines)
    assert planned["objective"]["life_loss"] == 2
    assert after["combat"]["players"][1]["life"] == 18
    assert after["combat"]["step"] == "regular"


def test_serve_names_a_bad_split_under_params() -> None:
    from trample.solver.interface import serve

    answer = serve.handle({"jsonrpc": "2.0", "id": 1, "method": "next_step", "params": {
        "combat": brute_plan_doc(), "attackers": [{"source": "zz", "target": "dp",
                                                   "amount": 2}]}})
    assert answer is not None
    assert answer["error"]["message"].startswith("params.attackers[0].source")


def test_planning_both_steps_beats_every_best_split_of_the_first_step_alone() -> None:
    """The demo's combat, proved by brute force: every first-strike split that is best
    for that step alone guarantees less over the whole combat than the planned one."""
    from trample.solver.interface.demo_game import LOOKAHEAD

    doc = json.loads(json.dumps(LOOKAHEAD))
    terms = brute.default_objective("attackers")
    best = brute.optimum(doc, "attackers", terms)
    alone = [dict(((s, t), n) for s, t, n in a)
             for a in brute.legal_assignments(doc, "attackers")
             if brute.objective(doc, "attackers", a, terms) == best]
    planned = brute_plan.plan_value(doc)
    assert alone and all(brute_plan.line_value(doc, a) < planned for a in alone)
    result = api.plan(doc)
    assert tuple(result["objective"].values()) == planned
    assert brute_plan.line_value(doc, amounts_of(result["first_strike"])) == planned
