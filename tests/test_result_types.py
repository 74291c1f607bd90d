"""The answers' TypedDicts (trample.solver.interface.results) are what the API returns: the
annotations name them, and real answers have exactly their keys."""

from __future__ import annotations

import typing
from typing import Any

from trample.solver.interface import api, results

from conftest import SPEC_EXAMPLE

ENTRY = [{"source": "vessel", "target": "wall", "amount": 3},
         {"source": "vessel", "target": "jace", "amount": 2}]


def keys(kind: Any) -> tuple[set[str], set[str]]:
    """(required, optional) keys of a TypedDict."""
    return set(kind.__required_keys__), set(kind.__optional_keys__)


def test_each_answer_has_the_keys_of_its_type() -> None:
    cases: list[tuple[Any, Any]] = [
        (api.solve, api.solve(SPEC_EXAMPLE)),
        (api.validate, api.validate(SPEC_EXAMPLE, ENTRY)),
        (api.count, api.count(SPEC_EXAMPLE)),
        (api.pairs, api.pairs(SPEC_EXAMPLE)),
        (api.rank, api.rank(SPEC_EXAMPLE, ENTRY)),
        (api.unrank, api.unrank(SPEC_EXAMPLE, 0)),
        (api.options, api.options(SPEC_EXAMPLE)),
        (api.project, api.project(SPEC_EXAMPLE, ENTRY)),
    ]
    for function, answer in cases:
        kind = typing.get_type_hints(function, vars(results) | vars(api))["return"]
        assert kind.__module__ == results.__name__, function
        required, optional = keys(kind)
        assert required <= set(answer) <= required | optional, (function, answer)
    solve = cases[0][1]
    entry_keys, _ = keys(results.Entry)
    assert all(set(e) == entry_keys for e in solve["assignment"])


def test_a_bound_comes_with_feasible_only() -> None:
    required, optional = keys(results.SolveResult)
    assert "bound" in optional and "assignment" in required
