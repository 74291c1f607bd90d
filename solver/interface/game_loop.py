"""The solver in the game loop: each combat damage step's splits chosen by the solver,
and every split the game deals judged by the rules first.

The game model (:mod:`trample.models`) knows no rule of damage assignment: it asks an
``assign`` callback for each step's split and a ``judge`` whether a split is legal. This
module gives it both: :func:`solver_assign` (in each step both sides assign at once,
510.2: the active player's attacking creatures by the attackers' objective, the defending
players' blocking creatures by the blockers' objective) and :func:`judge` (the validator
over each side's legal space). The values passed are typed (a
:class:`~trample.models.document.combat.Combat` in, an
:class:`~trample.models.document.assignment.Assignment` out); JSON is read and written only by
:func:`apply` and the callers of :func:`apply_request`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trample.models.document.assignment import Assignment, Pair
from trample.models.document.combat import Combat
from trample.models.game import state_json
from trample.models.game.combat_steps import Assign, refused_as_the_combat
from trample.solver.interface.requests import parse_time_limit
from trample.solver.optimize.objectives import parse_objective
from trample.solver.optimize.solve import optimize
from trample.solver.rules.assignment import to_assignment
from trample.solver.rules.choosers import SIDES
from trample.solver.rules.legal_space import legal_space
from trample.solver.rules.validate import Violation, check_answer, step_violations


def judge(combat: Combat, assignment: Mapping[Pair, int]) -> list[Violation]:
    """Every rule a split of both sides of one step breaks; empty means legal: the
    validator's :func:`~trample.solver.rules.validate.step_violations`, as the game
    model's ``judge``."""
    with refused_as_the_combat():
        return step_violations(combat, assignment)


def solver_assign(objective: list[str] | str | None = None,
                  blockers_objective: list[str] | str | None = None,
                  time_limit: float | None = None) -> Assign:
    """An ``assign`` callback for the game model: both sides' optimal splits of a step.

    The options are checked here, once (InputError naming ``objective``,
    ``blockers_objective`` or ``time_limit``).
    """
    terms = {"attackers": parse_objective(objective, "attackers"),
             "blockers": parse_objective(blockers_objective, "blockers",
                                         "blockers_objective")}
    seconds = parse_time_limit(time_limit)

    def assign(combat: Combat) -> Assignment:
        chosen: list[tuple[str, str, int]] = []
        for side in SIDES:
            with refused_as_the_combat():
                space = legal_space(combat, side)
            found = optimize(space, terms[side], seconds)
            check_answer(space, found.amounts, "solve")
            chosen += to_assignment(space, found.amounts).entries
        return Assignment(tuple(chosen))

    return assign


def apply(state: object, action: object, *, objective: list[str] | str | None = None,
          blockers_objective: list[str] | str | None = None,
          time_limit: float | None = None) -> dict[str, Any]:
    """One transition of a JSON game state: ``{"state": ..., "events": [...]}``.

    Combat damage the action does not spell out (``combat_damage``, or
    ``combat_damage_step`` without ``assignment``) is chosen by the solver; every split,
    given or chosen, is judged by :func:`judge` before it is dealt.
    """
    return state_json.apply(state, action, solver_assign(objective, blockers_objective,
                                                        time_limit), judge)


def apply_request(params: Mapping[str, Any]) -> dict[str, Any]:
    """``apply`` with its options read from a dict (the serve method's params)."""
    return apply(params.get("state"), params.get("action"), objective=params.get("objective"),
                 blockers_objective=params.get("blockers_objective"),
                 time_limit=params.get("time_limit"))
