"""Peak resident memory of one call, measured in the running process.

On Linux, writing ``5`` to ``/proc/self/clear_refs`` resets the process's resident-set
high-water mark (``VmHWM`` in ``/proc/self/status``) to its current resident set. So
before a call the mark is reset and the resident set read, and after it the mark is read
again: the difference is the most resident memory the call added at any moment, native
allocations included (CP-SAT's and HiGHS's C++ heaps, NumPy arrays, every thread), which
``tracemalloc`` would miss (it sees Python's allocator only, and slows the code it
watches). It runs in the same process as the timing, with no extra runs. Memory an
earlier call freed may still be resident (the C allocator keeps it for reuse), and a
call reusing it would show no growth: so the garbage collector runs and glibc's
``malloc_trim`` hands the free pages back to the system before each measurement.

Where the mark cannot be reset (not Linux, or ``/proc`` read-only), ``ru_maxrss`` is
used instead: the process's peak since it started, so the difference shows only what a
call adds above every earlier peak, a lower bound; :data:`METHOD` says which was used.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import gc
import resource
import sys
from collections.abc import Callable
from typing import TypeVar

T = TypeVar("T")


def _status_kib(field: str) -> int | None:
    try:
        with open("/proc/self/status", encoding="ascii") as f:
            for line in f:
                if line.startswith(field + ":"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _can_reset() -> bool:
    try:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
    except OSError:
        return False
    return _status_kib("VmHWM") is not None and _status_kib("VmRSS") is not None


RESETTABLE = _can_reset()
METHOD = ("peak resident set (VmHWM) of the benchmark process during the call, reset "
          "before it through /proc/self/clear_refs, less the resident set at its start"
          if RESETTABLE else
          "growth of the process's peak resident set (ru_maxrss) during the call: a lower "
          "bound, as the peak is not reset between calls")


def _trimmer() -> Callable[[int], int] | None:
    name = ctypes.util.find_library("c")
    try:
        trim: Callable[[int], int] = ctypes.CDLL(name).malloc_trim  # glibc only
    except (OSError, AttributeError, TypeError):
        return None
    return trim


_TRIM = _trimmer()


def _maxrss_kib() -> int:
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    return peak // 1024 if sys.platform == "darwin" else peak  # bytes on macOS


_settled = False
"""Whether the objects alive at the first measurement are frozen (:func:`start`)."""


def start() -> int:
    """Begin a measurement; the resident set (KiB) it is measured from."""
    global _settled
    gc.collect()
    if not _settled:
        # What the process holds at its first measurement (the modules: NumPy, SciPy,
        # Matplotlib, the generated instances) lives as long as it does: frozen, it is left
        # out of every later collection, which then walks only what the methods made since
        # (about 1 ms instead of 30 to 50: half of `python -m benchmarks --quick` went to
        # these collections). What the methods free is collected as before.
        gc.freeze()
        _settled = True
    if _TRIM is not None:
        _TRIM(0)
    if RESETTABLE:
        with open("/proc/self/clear_refs", "w", encoding="ascii") as f:
            f.write("5")
        return _status_kib("VmRSS") or 0
    return _maxrss_kib()


def added(begun: int) -> int:
    """Bytes of resident memory added at the peak since :func:`start` returned ``begun``."""
    peak = (_status_kib("VmHWM") or 0) if RESETTABLE else _maxrss_kib()
    return max(0, peak - begun) * 1024


def resident() -> int:
    """The resident set now, in bytes (0 where unknown)."""
    return (_status_kib("VmRSS") or 0) * 1024


def peak_of(fn: Callable[[], T]) -> tuple[T, int]:
    """``fn()`` and the resident memory it added at its peak, in bytes."""
    begun = start()
    value = fn()
    return value, added(begun)
