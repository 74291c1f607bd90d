"""Which creatures the CP-SAT model treats as interchangeable, and that treating them so
keeps an optimum (checked against the brute-force oracle, tests/brute.py).

A token differing from its twin in one thing the rules or the objective read is not its
twin: the model must not order their amounts. Each case puts the scarce damage where the
order would hurt, with the creatures listed both ways round.
"""

from __future__ import annotations

from typing import Any

import pytest

from trample.models.document.combat import Combat
from trample.solver.optimize.cpsat import identical_creatures, solve_group
from trample.solver.rules.legal_space import legal_space

import brute

TOKEN = {"controller": "dp", "power": 0, "toughness": 1, "value": 1}


def doc_with(first: dict[str, Any], second: dict[str, Any], *, power: int = 1,
             attackers: int = 1) -> dict:
    """``attackers`` tramplers of power ``power`` blocked by two tokens."""
    blocking = [f"a{i}" for i in range(attackers)]
    creatures = [{"id": f"a{i}", "controller": "ap", "power": power, "toughness": 2,
                  "keywords": ["Trample"], "attacking": "dp"} for i in range(attackers)]
    creatures += [{**TOKEN, "blocking": blocking, **first, "id": "t0"},
                  {**TOKEN, "blocking": blocking, **second, "id": "t1"}]
    return {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": 20}],
            "creatures": creatures, "step": "regular"}


def classes(doc: dict, side: str = "attackers") -> list[list[str]]:
    space = legal_space(Combat.from_json(doc), side)  # type: ignore[arg-type]
    return [members for _, members in identical_creatures(space, space.sources)]


def check_optimum(doc: dict, side: str = "attackers") -> None:
    space = legal_space(Combat.from_json(doc), side)  # type: ignore[arg-type]
    terms = brute.default_objective(side)
    result = solve_group(space, [s for s in space.sources if s.assigns], terms)
    assert result.status == "optimal"
    assert brute.is_legal(doc, side, result.amounts)
    assert brute.objective(doc, side, result.amounts, terms) == brute.optimum(doc, side, terms)


def test_identical_tokens_form_one_class() -> None:
    doc = doc_with({}, {}, power=1, attackers=2)
    assert classes(doc) == [["t0", "t1"]]
    check_optimum(doc)


NEAR_TWINS = {
    "toughness": {"toughness": 3},
    "marked damage": {"toughness": 3, "damage": 2},
    "value": {"value": 4},
    "negative value": {"value": -2},
    "indestructible": {"keywords": ["Indestructible"]},
}


@pytest.mark.parametrize("difference", sorted(NEAR_TWINS))
@pytest.mark.parametrize("swapped", [False, True])
def test_near_twins_are_not_interchangeable(difference: str, swapped: bool) -> None:
    other = {**NEAR_TWINS[difference]}
    first, second = (other, {}) if swapped else ({}, other)
    doc = doc_with(first, second, power=1)
    if difference == "marked damage":
        assert classes(doc) == [["t0", "t1"]]  # 3 toughness with 2 marked needs 1, as 1/1
    else:
        assert classes(doc) == []
    check_optimum(doc)


def test_tokens_blocking_different_attackers_are_not_interchangeable() -> None:
    doc = doc_with({}, {}, power=1, attackers=2)
    doc["creatures"][-1]["blocking"] = ["a0"]
    assert classes(doc) == []
    check_optimum(doc)


def test_alike_attackers_blocked_by_the_same_creatures_on_the_blockers_side() -> None:
    doc = doc_with({"power": 1, "blocking": ["a0", "a1", "a2"]}, {"blocking": ["a2"]},
                   attackers=3)
    doc["creatures"][2]["toughness"] = 1  # a2 dies to 1 damage, a0 and a1 need 2
    assert classes(doc, "blockers") == [["a0", "a1"]]
    check_optimum(doc, "blockers")
