"""Compositions with lower bounds: counted in closed form, drawn uniformly, listed.

n units into k parts, each at least its bound, can be written in
C(n - bounds + k - 1, k - 1) ways (:func:`compositions_count`); a uniform draw places
k - 1 bars among the free units (:func:`random_composition`); :func:`all_compositions`
lists them first part largest first, the order enumeration follows. A trampler alone
with its blockers is the one-layer case: C(p+n-1, n-1) splits that pass nothing on,
plus those that reach every blocker's lethal threshold first.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator
from math import comb
from typing import TypeVar


def compositions_count(total: int, lowers: list[int]) -> int:
    """Ways to write ``total`` as an ordered sum of len(lowers) integers, each >= its bound."""
    free = total - sum(lowers)
    if free < 0:
        return 0
    if not lowers:
        return 1 if free == 0 else 0
    return comb(free + len(lowers) - 1, len(lowers) - 1)


def random_composition(total: int, lowers: list[int], rng: random.Random) -> list[int]:
    """A uniformly random composition of ``total`` with the given lower bounds."""
    free = total - sum(lowers)
    k = len(lowers)
    if k == 0:
        return []
    bars = sorted(rng.sample(range(free + k - 1), k - 1))
    parts, prev = [], -1
    for b in [*bars, free + k - 1]:
        parts.append(b - prev - 1)
        prev = b
    return [p + lo for p, lo in zip(parts, lowers, strict=True)]


def all_compositions(total: int, lowers: list[int]) -> Iterator[list[int]]:
    """Every composition of ``total`` with the given lower bounds, first part largest first."""
    free = total - sum(lowers)
    k = len(lowers)
    if free < 0 or (k == 0 and free != 0):
        return
    if k == 0:
        yield []
        return
    v = [free] + [0] * (k - 1)
    while True:
        yield [a + lo for a, lo in zip(v, lowers, strict=True)]
        # The next composition in this order: move one unit from the last non-zero part
        # before the end one place right, gathering everything after it there.
        i = k - 2
        while i >= 0 and v[i] == 0:
            i -= 1
        if i < 0:
            return
        tail = sum(v[i + 1:])
        v[i] -= 1
        v[i + 1] = tail + 1
        for j in range(i + 2, k):
            v[j] = 0


T = TypeVar("T")


def lazy_product(count: int, options: Callable[[list[T]], Iterator[T]]) -> Iterator[list[T]]:
    """Every sequence of ``count`` choices, each drawn from ``options(chosen so far)``.

    Like nested loops: later levels are produced afresh for each choice above them, so
    memory stays proportional to ``count``, never to the number of sequences.
    """
    if count == 0:
        yield []
        return
    chosen: list[T] = []
    stack = [options(chosen)]
    while stack:
        item = next(stack[-1], _END)
        if item is _END:
            stack.pop()
            if chosen:
                chosen.pop()
            continue
        if len(stack) == count:
            yield [*chosen, item]  # type: ignore[list-item]
        else:
            chosen.append(item)  # type: ignore[arg-type]
            stack.append(options(chosen))


_END = object()
