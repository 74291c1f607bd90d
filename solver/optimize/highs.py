"""HiGHS as trample runs it: one place for the settings every HiGHS instance shares.

Both users of HiGHS (the MILP backend, :mod:`.milp`, and the kills ceiling's linear
program, :mod:`.kill_bound`) make their instance here, silent, seeded and on
:data:`THREADS` threads, and read how its run ended here (:func:`run_status`). Importing
this does not load HiGHS.
"""

from __future__ import annotations

from typing import Any

from trample.solver.optimize.status import RunStatus

THREADS = 1
"""HiGHS's threads: one. A second worker only costs CPU on groups this small (a few
hundred rows, most proved at the root): on token swarms' parts HiGHS spent twice the
CPU with two. Every instance asks for the same number (HiGHS's scheduler is shared in
the process, and refuses a run that asks for another)."""

HEURISTICS_OFF: tuple[tuple[str, bool | float], ...] = (
    ("mip_heuristic_effort", 0.0), ("mip_heuristic_run_feasibility_jump", False),
    ("mip_heuristic_run_root_reduced_cost", False), ("mip_heuristic_run_zi_round", False),
    ("mip_heuristic_run_shifting", False))
"""HiGHS's primal heuristics, off: the groups' linear relaxations are tight (most are
proved at the root node, where the heuristics ran first for nothing), and on the coupled
parts of token swarms, shared blockers and pile-ups HiGHS proves them 1.3 to 2 times
sooner without (a search still finds assignments by branching and the LP). A search
capped at a threshold keeps them: there, finding an assignment at the cap is the work."""


def new_highs(*options: tuple[str, bool | float | str]) -> Any:
    """A HiGHS instance with no output, random seed 0, :data:`THREADS` threads, and then
    ``options`` (name, value) set in order."""
    from highspy import _core as highs

    h = highs._Highs()
    for name, value in (("output_flag", False), ("random_seed", 0), ("threads", THREADS),
                        *options):
        h.setOptionValue(name, value)
    return h


def run_status(h: Any) -> RunStatus:
    """How the last run of HiGHS instance ``h`` ended, as a :class:`RunStatus`: the one
    place that reads HiGHS's model statuses. A time, node or solution limit is
    ``FEASIBLE`` when HiGHS holds a feasible solution and ``UNKNOWN`` otherwise; a status
    trample never asks for (an iteration limit, an interrupt) or a failure is
    ``INVALID``, as is unboundedness (a legal space's model is bounded)."""
    from highspy import _core as highs

    status = h.getModelStatus()
    if status == highs.HighsModelStatus.kOptimal:
        return RunStatus.OPTIMAL
    if status in (highs.HighsModelStatus.kTimeLimit, highs.HighsModelStatus.kSolutionLimit):
        feasible = h.getInfo().primal_solution_status == highs.kSolutionStatusFeasible
        return RunStatus.FEASIBLE if feasible else RunStatus.UNKNOWN
    if status == highs.HighsModelStatus.kInfeasible:
        return RunStatus.INFEASIBLE
    return RunStatus.INVALID
