"""Combat documents written briefly, for the test modules that build many of them."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

TWO_PLAYERS: tuple[dict[str, Any], ...] = ({"id": "ap", "life": 20}, {"id": "dp", "life": 20})
"""The active player ``ap`` and the defending player ``dp``, at 20 life."""


def creature(cid: str, controller: str, power: int, toughness: int,
             **fields: Any) -> dict[str, Any]:
    """A creature of the combat document, with any further ``fields``."""
    return {"id": cid, "controller": controller, "power": power, "toughness": toughness,
            **fields}


def combat(creatures: Iterable[dict[str, Any]],
           planeswalkers: Iterable[dict[str, Any]] = (),
           battles: Iterable[dict[str, Any]] = (),
           players: list[dict[str, Any]] | None = None, **fields: Any) -> dict[str, Any]:
    """A combat document: ``ap`` attacks, ``dp`` defends (both at 20 life) unless
    ``players`` says otherwise; any further top-level ``fields``."""
    return {"active_player": "ap",
            "players": players or [dict(p) for p in TWO_PLAYERS],
            "creatures": list(creatures), "planeswalkers": list(planeswalkers),
            "battles": list(battles), **fields}


def A(*triples: tuple[str, str, int]) -> frozenset[tuple[str, str, int]]:
    """An assignment as the brute force returns it: the frozenset of its positive
    ``(source, target, amount)`` triples."""
    return frozenset(t for t in triples if t[2] > 0)
