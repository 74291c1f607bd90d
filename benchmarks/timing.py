"""The one CPU-time measurement the small benchmark scripts share."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any


def cpu_ms(fn: Callable[[], Any], repeat: int) -> float:
    """The median CPU time of ``fn`` in milliseconds, over ``repeat`` calls (CPU time: the
    machine is shared, and a wall clock would count the other work on it)."""
    times = []
    for _ in range(repeat):
        started = time.process_time()
        fn()
        times.append(time.process_time() - started)
    return 1000 * sorted(times)[len(times) // 2]
