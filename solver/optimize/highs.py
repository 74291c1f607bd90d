"""HiGHS as trample runs it: one place for the settings every HiGHS instance shares.

Both users of HiGHS (the MILP backend, :mod:`.milp`, and the kills ceiling's linear
program, :mod:`.kill_bound`) make their instance here, silent, seeded and on
:data:`THREADS` threads. Importing this does not load HiGHS.
"""

from __future__ import annotations

from typing import Any

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
