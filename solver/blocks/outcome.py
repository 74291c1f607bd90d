"""What a play of a part does (SPEC §11): the data the valuation of a declaration
(:mod:`~trample.solver.blocks.value`), its plays worked out from the numbers
(:mod:`~trample.solver.blocks.direct`) and the search over gangs share."""

from __future__ import annotations

from dataclasses import dataclass

from trample.solver.rules.assignment import Amounts

Vector = tuple[int, ...]
Line = tuple[Amounts, Amounts, Amounts, Amounts]
"""Attackers' first-strike split, defenders' reply, attackers' regular split, reply."""
Players = tuple[tuple[int, int, int, bool], ...]
"""Per defending player of the program: (net life lost after the first step, after both,
poison counters given, a loss threshold reached)."""


@dataclass(frozen=True, slots=True)
class Outcome:
    """One play of a part: what it does to the players, its other terms, its line."""

    players: Players
    terms: Vector
    """The objective's terms but ``losses``, in the objective's order."""
    line: Line


@dataclass(frozen=True, slots=True)
class Profile:
    """The outcomes of a one-player part that no other outcome dominates."""

    outcomes: tuple[Outcome, ...]
