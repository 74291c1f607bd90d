"""What every request of the API shares: its options (an argument, or the document's own
field), its side, its time limit, and when it started.

A request's time limit counts from when it was read (``serve``: the line), so that the
answer comes within the limit of the request, not of the search alone.
"""

from __future__ import annotations

import numbers
import time
from collections.abc import Mapping
from contextvars import ContextVar
from typing import Any

from trample.models.document.errors import InputError
from trample.models.document.reading import brief_repr
from trample.solver.rules.choosers import SIDES, Side

DEFAULT_TIME_LIMIT = 60.0
"""Seconds a search runs by default before answering ``feasible``."""
MAX_TIME_LIMIT = 24 * 3600.0

request_started: ContextVar[float | None] = ContextVar("request_started", default=None)
"""When the request being answered was read (None: when the function was called)."""


def parse_time_limit(raw: object, path: str = "time_limit") -> float:
    """A positive number of seconds; None gives the default."""
    if raw is None:
        return DEFAULT_TIME_LIMIT
    if isinstance(raw, bool) or not isinstance(raw, numbers.Real):
        raise InputError(path, "must be a number of seconds")
    # NumPy numbers too; an integer stays one so that a huge one compares without overflow.
    # (NaN is found once converted: a NumPy number's own comparison gives a NumPy bool.)
    seconds = int(raw) if isinstance(raw, numbers.Integral) else float(raw)
    if seconds != seconds:
        raise InputError(path, "must be a number of seconds")
    if not 0 < seconds <= MAX_TIME_LIMIT:
        raise InputError(path, f"must be more than 0 and at most {MAX_TIME_LIMIT:g} seconds")
    return float(seconds)


def deadline(raw: object, path: str = "time_limit") -> float:
    """The moment a request with time limit ``raw`` must be answered by."""
    started = request_started.get() or time.monotonic()
    return started + parse_time_limit(raw, path)


def request_field(document: Mapping[str, Any], key: str, given: object) -> object:
    """A request option: ``given`` (an argument), else the field of that name at the
    document's top level (SPEC §5: ``side``, ``objective``, ``assignment``,
    ``time_limit``), else None."""
    if given is not None:
        return given
    return document.get(key) if type(document) is dict or isinstance(document, Mapping) \
        else None


def parse_side(raw: object, path: str = "side") -> Side:
    """``attackers`` (default) or ``blockers``."""
    if raw is None:
        return "attackers"
    if not isinstance(raw, str) or raw not in SIDES:
        raise InputError(path, f"must be 'attackers' or 'blockers', not {brief_repr(raw)}")
    return "attackers" if raw == "attackers" else "blockers"
