"""A request's cancellation, set from another thread (``serve``'s ``$/cancelRequest``).

A :class:`Cancel` travels down to the searches in :class:`SearchSettings` (``cancel``):
a CP-SAT search running when it is set is stopped from the setting thread, one not yet
started is not started, and the search answers what it has (at worst the greedy split,
which is legal). Importing this does not load OR-Tools.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager


class Cancel:
    """Set once, from any thread; searches register how to stop themselves while they
    run, and are stopped when it is set."""

    __slots__ = ("_lock", "_set", "_stops")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._set = False
        self._stops: list[Callable[[], None]] = []

    def set(self) -> None:
        """Cancel: stop every search registered now; later ones see :meth:`is_set`."""
        # Under the lock: a search that has left :meth:`watching` is never stopped (its
        # solver may already be searching for another request).
        with self._lock:
            if self._set:
                return
            self._set = True
            for stop in self._stops:
                stop()

    def is_set(self) -> bool:
        """Whether the request was cancelled."""
        return self._set

    @contextmanager
    def watching(self, stop: Callable[[], None]) -> Iterator[bool]:
        """Call ``stop`` if the request is cancelled while inside; yields False (and
        registers nothing) when it already is."""
        with self._lock:
            if self._set:
                registered = False
            else:
                self._stops.append(stop)
                registered = True
        try:
            yield registered
        finally:
            if registered:
                with self._lock:
                    self._stops.remove(stop)
