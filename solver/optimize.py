"""Lexicographic optimization of a legal space: split into groups, solve each exactly.

Parts of the legal space are independent as far as legality goes. The objective couples
them only through threshold terms (a player's life for ``lethal``, a planeswalker's
loyalty, a battle's defense) that several parts can reach, so parts reaching a common
threshold target are solved together. A group whose every source has a single recipient
needs no search; a group with few legal assignments is solved by looking at each of
them; everything else goes to CP-SAT. Groups are independent, so the optimum of the
whole is the union of their optima.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal

from trample.models.errors import InternalError
from trample.solver.assignment import Amounts
from trample.solver.counting import CountOutOfReach, PartSpace, lazy_product
from trample.solver.greedy import greedy
from trample.solver.objectives import evaluate, threshold_targets
from trample.solver.rules import LegalSpace, Part
from trample.solver.validate import violations

SMALL_GROUP = 64
"""A group with at most this many legal assignments is solved by looking at each."""
SMALL_WORK = 20_000
"""Work allowed to build the exact structure that lists a small group's assignments."""

Status = Literal["optimal", "feasible"]


@dataclass(frozen=True, slots=True)
class Solution:
    """The assignment ``solve`` found, its objective values, and whether it is proved best."""

    status: Status
    amounts: Amounts
    objective: dict[str, int]


def groups(space: LegalSpace, terms: Sequence[str]) -> list[list[Part]]:
    """Parts joined where a threshold term of ``terms`` counts a target several reach."""
    parts = list(space.parts)
    parent = list(range(len(parts)))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    reaches: dict[str, int] = {}
    for term in terms:
        targets = {t.id for t in threshold_targets(space.combat, term)}
        for i, part in enumerate(parts):
            for s in part.sources:
                for r in s.recipients:
                    if r.id not in targets:
                        continue
                    if r.id in reaches:
                        parent[find(i)] = find(reaches[r.id])
                    else:
                        reaches[r.id] = i
    out: dict[int, list[Part]] = {}
    for i, part in enumerate(parts):
        out.setdefault(find(i), []).append(part)
    return list(out.values())


def _key(space: LegalSpace, amounts: Amounts, terms: Sequence[str]) -> tuple[int, ...]:
    return tuple(evaluate(space, amounts, terms).values())


def _by_inspection(space: LegalSpace, group: list[Part],
                   terms: Sequence[str]) -> Amounts | None:
    """The best of a small group's assignments (first in enumeration order), or None."""
    budget = [SMALL_WORK]
    try:
        tables = [PartSpace(space, part, budget) for part in group]
    except CountOutOfReach:
        return None
    total = 1
    for table in tables:
        total *= table.count()
        if total > SMALL_GROUP:
            return None

    def candidates() -> Iterable[Amounts]:
        for pieces in lazy_product(len(tables), lambda chosen: tables[len(chosen)].enumerate()):
            amounts: Amounts = {}
            for piece in pieces:
                amounts.update(piece)
            yield amounts

    return best_of(space, candidates(), terms)


def solve(space: LegalSpace, terms: Sequence[str],
          time_limit: float | None = None) -> Solution:
    """The lexicographically best legal assignment for ``terms`` (SPEC §4).

    ``status`` is ``optimal`` only when every group's optimum is proved; a time limit that
    stops a group early keeps the best assignment found for it (or the greedy one).
    """
    deadline = None if time_limit is None else time.perf_counter() + time_limit
    status: Status = "optimal"
    amounts: Amounts = {}
    for group in groups(space, terms):
        sources = [s for part in group for s in part.sources]
        if all(len(s.recipients) == 1 and not s.recipients[0].gated for s in sources):
            for s in sources:
                amounts[(s.id, s.recipients[0].id)] = s.power
            continue
        found = _by_inspection(space, group, terms)
        if found is not None:
            amounts.update(found)
            continue
        from trample.solver.cpsat import solve_group  # OR-Tools loads only when needed

        result = solve_group(space, sources, terms, deadline)
        if result.status == "unknown":
            amounts.update(greedy(space, sources))
            status = "feasible"
            continue
        if result.status != "optimal":
            status = "feasible"
        amounts.update(result.amounts)
    check_legal(space, amounts, "solve")
    return Solution(status, amounts, evaluate(space, amounts, terms))


def check_legal(space: LegalSpace, amounts: Amounts, what: str) -> None:
    """Never let an illegal assignment out: a violation here is a bug in trample."""
    found = violations(space, amounts)
    if found:
        raise InternalError(f"{what} produced an illegal assignment: {found[0].message} "
                            f"({found[0].rule})")


def best_of(space: LegalSpace, candidates: Iterable[Amounts],
            terms: Sequence[str]) -> Amounts | None:
    """The first lexicographically best of ``candidates`` (used by tests and baselines)."""
    best: Amounts | None = None
    best_key: tuple[int, ...] | None = None
    for amounts in candidates:
        key = _key(space, amounts, terms)
        if best_key is None or key > best_key:
            best, best_key = amounts, key
    return best
