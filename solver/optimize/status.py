"""Statuses: of an answer, and of one run of a backend.

An answer (``solve``, ``plan``, the blocks' searches) is :data:`Status`: proved best, or
the best found when the time limit or a cancel stopped the search. A run of a backend
(CP-SAT, HiGHS) ends in a :class:`RunStatus`; each backend maps its own status codes to
it in one place (:func:`trample.solver.optimize.cpsat.run_status`,
:func:`trample.solver.optimize.highs.run_status`), so that nothing else reads a
backend's codes. Importing this loads neither backend.
"""

from __future__ import annotations

from enum import StrEnum
from typing import Literal

Status = Literal["optimal", "feasible"]
"""An answer's status: ``optimal`` (proved best) or ``feasible`` (the best found when the
search stopped; a bound says how much better one could be)."""


class RunStatus(StrEnum):
    """How one run of a backend ended (its value, the word an answer or a test reads)."""

    OPTIMAL = "optimal"
    """Proved best (without an objective: a solution)."""
    FEASIBLE = "feasible"
    """Stopped by a limit (time, work, a cancel) with a solution, not proved best."""
    UNKNOWN = "unknown"
    """Stopped by a limit before any solution or proof."""
    INFEASIBLE = "infeasible"
    """Proved to have no solution."""
    INVALID = "invalid"
    """The backend refused the model or failed on it."""

    @property
    def found(self) -> bool:
        """Whether the run holds a solution."""
        return self is RunStatus.OPTIMAL or self is RunStatus.FEASIBLE

    @property
    def stopped(self) -> bool:
        """Whether a limit ended the run before it settled the model."""
        return self is RunStatus.FEASIBLE or self is RunStatus.UNKNOWN
