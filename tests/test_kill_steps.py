"""The model of each source's options (trample.solver.optimize.kill_steps): wherever it
answers, its split is legal and reaches the brute force's optimum on the terms asked; it
answers on coupled combats of shared blockers; and its knapsack's steps are the plain
table's."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st
from test_kill_bound import shared_blocks

from trample.models.document.combat import Combat
from trample.solver.interface import api
from trample.solver.optimize import kill_steps
from trample.solver.optimize.search_settings import SHIPPED
from trample.solver.rules.legal_space import legal_space

import brute
from strategies import combats, contests, pileups, token_swarms

SMALL = settings(max_examples=120, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
TERM_LISTS = st.sampled_from([["kills", "player_damage"], ["lethal", "kills", "player_damage"],
                              ["kills"], ["player_damage"], ["lethal", "kills"]])


def _steps(doc: dict, side: str, terms: list[str]) -> dict | None:
    space = legal_space(Combat.from_json(doc), side)
    return kill_steps.solve_steps(space, [s for s in space.sources if s.recipients], terms)


@SMALL
@given(doc=st.one_of(shared_blocks(), combats(rich=True), contests(), token_swarms(),
                     pileups()),
       terms=TERM_LISTS, side=st.sampled_from(["attackers", "blockers"]))
def test_an_answer_is_legal_and_optimal(doc: dict, terms: list[str], side: str) -> None:
    """Every source of the combat as one group: where the model answers, the brute force
    finds the split legal and no legal split better on ``terms``."""
    if side == "blockers":
        terms = ["kills"]
    found = _steps(doc, side, terms)
    event("answered" if found is not None else "not answered")
    if found is None:
        return
    assert brute.is_legal(doc, side, found)
    assert brute.objective(doc, side, found, terms) == brute.optimum(doc, side, terms)


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=shared_blocks())
def test_it_answers_shared_blockers_of_small_values(doc: dict) -> None:
    """On attackers sharing blockers of small values (no amount too wide for HiGHS), the
    model applies and proves the optimum of ``kills`` then ``player_damage``."""
    if any(abs(c.get("value", 0)) > 100 for c in doc["creatures"]):
        return
    terms = ["kills", "player_damage"]
    found = _steps(doc, "attackers", terms)
    assert found is not None
    assert brute.objective(doc, "attackers", found, terms) == \
        brute.optimum(doc, "attackers", terms)


def test_a_reachable_lethal_outweighs_kills() -> None:
    """A trampler of 3 and an attacker of 2 share a blocker worth 1; the second is also
    blocked by one worth 5. The defending player at 3 life dies only if the second
    attacker kills the shared blocker and the trampler tramples over it whole, which
    spares the blocker worth 5: ``lethal`` first, the model deals the lethal damage;
    ``kills`` first, it kills both blockers."""
    doc = {"format": "combat/1", "active_player": "ap",
           "players": [{"id": "ap", "life": 20}, {"id": "dp", "life": 3}],
           "creatures": [
               {"id": "t", "controller": "ap", "power": 3, "toughness": 3,
                "keywords": ["Trample"], "attacking": "dp"},
               {"id": "u", "controller": "ap", "power": 2, "toughness": 2,
                "attacking": "dp"},
               {"id": "small", "controller": "dp", "power": 0, "toughness": 1,
                "value": 1, "blocking": ["t", "u"]},
               {"id": "big", "controller": "dp", "power": 0, "toughness": 2, "value": 5,
                "blocking": ["u"]}],
           "step": "regular"}
    answers = []
    for terms in (["lethal", "kills", "player_damage"], ["kills", "lethal"]):
        found = _steps(doc, "attackers", terms)
        assert found is not None
        assert brute.objective(doc, "attackers", found, terms) == \
            brute.optimum(doc, "attackers", terms)
        answers.append(brute.objective(doc, "attackers", found, ["lethal", "kills"]))
    assert answers == [(1, 1), (0, 6)]


def test_a_planeswalker_is_left_to_the_search() -> None:
    """A recipient the model does not know (a planeswalker) makes it decline."""
    doc = {"format": "combat/1", "active_player": "ap",
           "players": [{"id": "ap", "life": 20}, {"id": "dp", "life": 20}],
           "planeswalkers": [{"id": "pw", "controller": "dp", "loyalty": 3}],
           "creatures": [
               {"id": "t", "controller": "ap", "power": 4, "toughness": 3,
                "keywords": ["Trample"], "attacking": "pw"},
               {"id": "b", "controller": "dp", "power": 0, "toughness": 2, "value": 1,
                "blocking": ["t"]}],
           "step": "regular"}
    assert _steps(doc, "attackers", ["kills", "player_damage"]) is None


def test_solve_answers_the_same_with_and_without_the_model(monkeypatch: Any) -> None:
    """A combat of 30% shared blockers at 100 x 300, whose two large groups HiGHS searches:
    with the setting on, the model answers both, and ``solve`` proves the same values as
    with the search per pair alone."""
    from dataclasses import replace

    from benchmarks.runner import FAMILIES, _seed

    answered: list[bool] = []
    original = kill_steps.solve_steps

    def spied(*args: Any, **kwargs: Any) -> Any:
        found = original(*args, **kwargs)
        answered.append(found is not None)
        return found

    monkeypatch.setattr(kill_steps, "solve_steps", spied)
    _, _, doc = FAMILIES["shared30"].make(100, _seed("shared30", 100, 0))
    terms = ["kills", "player_damage"]
    answers = []
    for on in (True, False):
        api.forget_spaces()
        found = api.solve(doc, objective=terms, settings=replace(SHIPPED, kill_steps=on))
        assert found["status"] == "optimal"
        answers.append(found["objective"])
    assert answered == [True, True]
    assert answers[0] == answers[1]


@settings(max_examples=200, deadline=None)
@given(items=st.lists(st.tuples(st.integers(1, 12), st.integers(1, 9)), max_size=7),
       power=st.integers(0, 30))
def test_the_knapsack_steps_are_the_table(items: list[tuple[int, int]], power: int) -> None:
    """Each step is where the best value within an amount rises (every set tried here),
    at the least amount for it, killing a set of that value and cost."""
    named = [(f"c{k}", n, v) for k, (n, v) in enumerate(items)]
    best = [0] * (power + 1)
    for chosen in range(1 << len(items)):
        need = sum(n for k, (n, _) in enumerate(items) if chosen >> k & 1)
        value = sum(v for k, (_, v) in enumerate(items) if chosen >> k & 1)
        for d in range(need, power + 1):
            best[d] = max(best[d], value)
    steps = kill_steps._knapsack(named, power)
    assert [low for _, low, _ in steps] == [d for d in range(1, power + 1)
                                            if best[d] > best[d - 1]]
    cost = {c: n for c, n, _ in named}
    worth = {c: v for c, _, v in named}
    for value, low, kills in steps:
        assert best[low] == value
        assert sum(cost[c] for c in kills) == low
        assert sum(worth[c] for c in kills) == value
