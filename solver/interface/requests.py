"""What every request of the API shares: its time limit, and when it started.

A request's time limit counts from when it was read (``serve``: the line), so that the
answer comes within the limit of the request, not of the search alone.
"""

from __future__ import annotations

import numbers
import time
from contextvars import ContextVar

from trample.models.document.errors import InputError

DEFAULT_TIME_LIMIT = 60.0
"""Seconds a search runs by default before answering ``feasible``."""
MAX_TIME_LIMIT = 24 * 3600.0

request_started: ContextVar[float | None] = ContextVar("request_started", default=None)
"""When the request being answered was read (None: when the function was called)."""


def parse_time_limit(raw: object, path: str = "time_limit") -> float:
    """A positive number of seconds; None gives the default."""
    if raw is None:
        return DEFAULT_TIME_LIMIT
    if isinstance(raw, bool) or not isinstance(raw, numbers.Real) or raw != raw:
        raise InputError(path, "must be a number of seconds")
    # NumPy numbers too; an integer stays one so that a huge one compares without overflow.
    seconds = int(raw) if isinstance(raw, numbers.Integral) else float(raw)
    if not 0 < seconds <= MAX_TIME_LIMIT:
        raise InputError(path, f"must be more than 0 and at most {MAX_TIME_LIMIT:g} seconds")
    return float(seconds)


def deadline(raw: object, path: str = "time_limit") -> float:
    """The moment a request with time limit ``raw`` must be answered by."""
    started = request_started.get() or time.monotonic()
    return started + parse_time_limit(raw, path)
