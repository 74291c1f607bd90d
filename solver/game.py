"""The solver in the game loop: each combat damage step's splits chosen by ``solve``.

The game model (:mod:`trample.models`) deals whatever assignment it is given; this module
gives it the solver's. In each step both sides assign at once (510.2): the active player's
attacking creatures by the attackers' objective, the defending players' blocking creatures
by the blockers' objective.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trample.models.combat_steps import Assign
from trample.models.state_json import apply as apply_to_state
from trample.solver import api


def solver_assign(objective: list[str] | str | None = None,
                  blockers_objective: list[str] | str | None = None,
                  time_limit: float | None = None) -> Assign:
    """An ``assign`` callback for the game model: both sides' optimal splits of a step."""

    def assign(document: dict[str, Any]) -> list[dict[str, Any]]:
        attackers = api.solve(document, side="attackers", objective=objective,
                              time_limit=time_limit)
        blockers = api.solve(document, side="blockers", objective=blockers_objective,
                             time_limit=time_limit)
        return [*attackers["assignment"], *blockers["assignment"]]

    return assign


def apply(state: object, action: object, *, objective: list[str] | str | None = None,
          blockers_objective: list[str] | str | None = None,
          time_limit: float | None = None) -> dict[str, Any]:
    """One transition of a JSON game state: ``{"state": ..., "events": [...]}``.

    Combat damage the action does not spell out (``combat_damage``, or
    ``combat_damage_step`` without ``assignment``) is chosen by the solver.
    """
    return apply_to_state(state, action, solver_assign(objective, blockers_objective,
                                                       time_limit))


def apply_request(params: Mapping[str, Any]) -> dict[str, Any]:
    """``apply`` with its options read from a dict (the serve method's params)."""
    return apply(params.get("state"), params.get("action"), objective=params.get("objective"),
                 blockers_objective=params.get("blockers_objective"),
                 time_limit=params.get("time_limit"))
