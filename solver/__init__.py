"""A combat in, answers out: validate, solve, count, enumerate and sample damage assignments.

The layers, each importing only from those below it: :mod:`.interface` (api, cli, the
JSON-RPC engine: protocol, methods, transport and serve, batch, rl), :mod:`.actions`
(splits as actions, plan), :mod:`.optimize`, :mod:`.count`, :mod:`.rules` (the legal
space: the one place a rule of damage assignment is written).
"""

from __future__ import annotations

from typing import Any

__all__ = ["api"]


def __getattr__(name: str) -> Any:
    # ``from trample.solver import api`` (as before the sub-packages): the API module.
    if name == "api":
        from trample.solver.interface import api

        return api
    raise AttributeError(f"module 'trample.solver' has no attribute {name!r}")
