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
