"""Count, enumerate and sample legal assignments exactly, from the structure of the space.

Parts of the legal space are independent, so the number of legal assignments is the
product of the parts' numbers, and a uniform draw is a uniform draw in each part.

Within a part, sources are taken in turn. A source's amounts split in two: those to
*items* (creatures and planeswalkers shared with other sources of the part whose lethal
or loyalty status gates some recipient) and those to everything else (local). The only
thing later sources need to know of an item is how much of its threshold has been
reached, capped at the threshold, and whether some earlier source used a recipient that
requires it: that is the state of a dynamic program over the sources. For an item the
source either assigns an exact amount below what is still missing, or "at least what is
missing" (which caps it); the local amounts and the "at least" ones then form a
composition with lower bounds, counted in closed form: n units into k parts, each at
least its bound, in C(n - bounds + k - 1, k - 1) ways. A trampler alone with its
blockers is the one-layer case: C(p+n-1, n-1) splits that pass nothing on, plus the ones
that reach every blocker's lethal threshold first.

Sampling walks the layers choosing each transition with probability proportional to the
number of completions through it (exact integer arithmetic), then draws the composition
uniformly; enumeration walks every transition with a completion and every composition.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import combinations
from math import comb, lgamma, log, prod
from typing import TypeVar

from trample.models.errors import TrampleError
from trample.solver.assignment import Amounts
from trample.solver.rules import LegalSpace, Part, Recipient, Source

WORK_LIMIT = 250_000
"""Transitions the dynamic program may build for one combat before it refuses."""
BIT_PRODUCTS_PER_STEP = 2**24
"""Big-integer work charged as one step: multiplying an a-bit by a b-bit number costs
a*b / this many steps (about as long, measured, as a step of the dynamic program), so
counts of hundreds of thousands of digits are refused in about a second, not computed
for minutes."""


def product_work(a: int, b: int) -> int:
    """Steps charged for multiplying ``a`` by ``b`` (0 for machine-sized numbers)."""
    return (a.bit_length() * b.bit_length()) // BIT_PRODUCTS_PER_STEP


def comb_bits(n: int, k: int) -> int:
    """An upper estimate of the bit length of C(n, k), without computing it."""
    if k <= 0 or k >= n:
        return 1
    return int((lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1)) / log(2)) + 2


class CountOutOfReach(TrampleError):
    """The exact count (or an exact sampler) would take more work than allowed."""


def charged_product(values: Iterable[int], budget: list[int], limit: int) -> int:
    """The product of ``values``, each multiplication charged to ``budget`` first."""
    total = 1
    for v in values:
        budget[0] -= product_work(total, v)
        if budget[0] < 0:
            raise CountOutOfReach(
                f"the count has more than {total.bit_length():,} bits before its last "
                f"factors; multiplying them out would take more than {limit:,} steps, so "
                "it is refused rather than estimated")
        total *= v
    return total


@dataclass(frozen=True, slots=True)
class Slot:
    """One variable of a composition: the amount to ``target`` is at least ``lower``."""

    target: str
    lower: int


@dataclass(frozen=True, slots=True)
class Move:
    """One way a source may go: exact amounts to some items, a composition for the rest."""

    exact: tuple[tuple[str, int], ...]
    slots: tuple[Slot, ...]
    total: int
    ways: int
    next_state: tuple[tuple[int, bool], ...]


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


class PartSpace:
    """The dynamic program of one part: states per layer and completions per state."""

    def __init__(self, space: LegalSpace, part: Part, budget: list[int],
                 limit: int = WORK_LIMIT) -> None:
        self.space = space
        self.limit = limit
        self.sources: tuple[Source, ...] = part.sources
        # An item's threshold is lethal damage (510.1e) or loyalty (702.19c); one already
        # met with nothing assigned constrains nothing.
        caps: dict[str, int] = {}
        for item in (*part.lethal_items, *part.loyalty_items):
            threshold = space.thresholds[item]
            if threshold > 0:
                caps[item] = threshold
        self.items = tuple(caps)
        self.cap = tuple(caps[i] for i in self.items)
        self.index = {item: n for n, item in enumerate(self.items)}
        last: dict[str, int] = {}
        for n, s in enumerate(self.sources):
            for r in s.recipients:
                if r.id in self.index:
                    last[r.id] = n
        self.closing = [tuple(self.index[i] for i, n in last.items() if n == k)
                        for k in range(len(self.sources))]
        self.budget = budget
        self.moves: list[dict[tuple[tuple[int, bool], ...], list[Move]]] = []
        self.completions: list[dict[tuple[tuple[int, bool], ...], int]] = []
        self._totals: dict[tuple[int, tuple[tuple[int, bool], ...]], list[int]] = {}
        self._build()

    def _charge(self, work: int, bits: int = 0) -> None:
        """Spend ``work`` of the budget, or refuse: never estimate a count. ``bits``: the
        size of the numbers that made the work, when big-integer arithmetic did."""
        self.budget[0] -= work
        if self.budget[0] < 0:
            names = ", ".join(s.id for s in self.sources[:6])
            more = ", ..." if len(self.sources) > 6 else ""
            if bits:
                raise CountOutOfReach(
                    f"the sources {names}{more} have counts of more than {bits:,} bits "
                    "(huge powers split among many recipients); the exact arithmetic "
                    f"would take more than {self.limit:,} steps, so it is refused rather "
                    "than estimated")
            raise CountOutOfReach(
                f"the sources {names}{more} share {len(self.items)} blockers or "
                "planeswalkers whose thresholds couple them; an exact answer would take "
                f"more than {self.limit:,} steps, so it is refused rather than estimated")

    # -- the moves of one source from one state -----------------------------------------

    def _moves(self, layer: int, state: tuple[tuple[int, bool], ...]) -> list[Move]:
        s = self.sources[layer]
        shared = [r for r in s.recipients if r.id in self.index]
        local = [r for r in s.recipients if r.id not in self.index]
        gated = [r for r in s.recipients if r.gated]
        # Each item recipient: an exact amount below the threshold t, or "at least t".
        still_needed = self.space.still_needed
        thresholds = [max(still_needed(s, r.id, state[self.index[r.id]][0]), 1)
                      for r in shared]
        free_gated = [r for r in gated if r.id not in self.index]
        # Charged before anything is built: a threshold can be as large as 2^40.
        self._charge(prod(t + 1 for t in thresholds) << len(free_gated))
        options: list[list[int | None]] = [[*range(t), None] for t in thresholds]
        moves: list[Move] = []
        for choice in _product(options):
            exact = [(r.id, a) for r, a in zip(shared, choice, strict=True) if a is not None]
            spent = sum(a for _, a in exact)
            if spent > s.power:
                continue
            used_shared = {r.id for r, a in zip(shared, choice, strict=True) if a != 0}
            for k in range(len(free_gated) + 1):
                for picked in combinations(free_gated, k):
                    used = used_shared | {r.id for r in picked}
                    move = self._move(layer, state, s, shared, choice, local, gated, used,
                                      exact, spent)
                    if move is not None:
                        moves.append(move)
        return moves

    def _move(self, layer: int, state: tuple[tuple[int, bool], ...], s: Source,
              shared: list[Recipient], choice: tuple[int | None, ...],
              local: list[Recipient], gated: list[Recipient],
              used: set[str], exact: list[tuple[str, int]], spent: int) -> Move | None:
        space = self.space
        lower: dict[str, int] = {r.id: 0 for r in local}
        fixed_zero: set[str] = set()
        required: set[int] = set()
        for r in gated:
            if r.id not in used:
                if r.id in lower:
                    fixed_zero.add(r.id)
                continue
            if r.id in lower:
                lower[r.id] = max(lower[r.id], 1)
            # Each condition (702.19b-e) on an item is carried to the item's last source;
            # on anything else, this source alone must meet it.
            for item in r.requires:
                if item in self.index:
                    required.add(self.index[item])
                else:
                    lower[item] = max(lower[item], space.still_needed(s, item))
        if any(lower[z] > 0 for z in fixed_zero):
            return None
        slots = [Slot(t, lo) for t, lo in lower.items() if t not in fixed_zero]
        new = list(state)
        for r, a in zip(shared, choice, strict=True):
            n = self.index[r.id]
            progress, req = new[n]
            cap = self.cap[n]
            if a is None:
                slots.append(Slot(r.id, max(space.still_needed(s, r.id, progress), 1)))
                progress = cap
            elif a > 0:
                progress = cap if a >= space.still_needed(s, r.id, progress) else progress + a
            new[n] = (progress, req)
        for n in required:
            new[n] = (new[n][0], True)
        for n in self.closing[layer]:
            progress, req = new[n]
            if req and progress < self.cap[n]:
                return None
            new[n] = (0, False)
        total = s.power - spent
        lowers = [sl.lower for sl in slots]
        # A move holds a slot per recipient: building it is work in proportion. And a
        # binomial of a huge power over many recipients is a huge number: computing it
        # (and every product with it later) is charged by its size.
        bits = comb_bits(max(total - sum(lowers), 0) + len(lowers) - 1, len(lowers) - 1)
        self._charge(len(lowers) + (bits >> 10) + (bits * bits) // BIT_PRODUCTS_PER_STEP,
                     bits if bits > 1 << 12 else 0)
        ways = compositions_count(total, lowers)
        if ways == 0:
            return None
        return Move(tuple(exact), tuple(slots), total, ways, tuple(new))

    # -- layers -------------------------------------------------------------------------

    def _build(self) -> None:
        start = tuple((0, False) for _ in self.items)
        frontier = {start}
        for layer in range(len(self.sources)):
            table: dict[tuple[tuple[int, bool], ...], list[Move]] = {}
            following: set[tuple[tuple[int, bool], ...]] = set()
            for state in frontier:
                moves = self._moves(layer, state)
                table[state] = moves
                following.update(m.next_state for m in moves)
            self.moves.append(table)
            frontier = following
        after = dict.fromkeys(frontier, 1)
        for layer in range(len(self.sources) - 1, -1, -1):
            here: dict[tuple[tuple[int, bool], ...], int] = {}
            for state, moves in self.moves[layer].items():
                n = 0
                for m in moves:
                    later = after.get(m.next_state, 0)
                    work = product_work(m.ways, later)
                    if work:
                        self._charge(work, max(m.ways.bit_length(), later.bit_length()))
                    n += m.ways * later
                here[state] = n
            self.completions.insert(0, here)
            after = here
        self.start = start

    def count(self) -> int:
        """The number of legal assignments of this part."""
        return self.completions[0][self.start] if self.sources else 1

    def _after(self, layer: int, state: tuple[tuple[int, bool], ...]) -> int:
        if layer + 1 < len(self.sources):
            return self.completions[layer + 1].get(state, 0)
        return 1

    def _cumulative(self, layer: int, state: tuple[tuple[int, bool], ...]) -> list[int]:
        """Running totals of the completions through each move from ``state``, kept: a
        draw then costs a search, not a big-integer product per move (products the
        budget already paid for when the completions were counted)."""
        key = (layer, state)
        found = self._totals.get(key)
        if found is None:
            running = 0
            found = []
            for move in self.moves[layer][state]:
                running += move.ways * self._after(layer, move.next_state)
                found.append(running)
            self._totals[key] = found
        return found

    def sample(self, rng: random.Random) -> Amounts:
        """A uniformly random legal assignment of this part."""
        amounts: Amounts = {}
        state = self.start
        for layer, s in enumerate(self.sources):
            pick = rng.randrange(self.completions[layer][state])
            moves = self.moves[layer][state]
            move = moves[bisect_right(self._cumulative(layer, state), pick)]
            values = random_composition(move.total, [sl.lower for sl in move.slots], rng)
            _record(amounts, s.id, move, values)
            state = move.next_state
        return amounts

    def enumerate(self) -> Iterator[Amounts]:
        """Every legal assignment of this part, once each."""

        def options(chosen: list[tuple[Move, list[int]]]) -> Iterator[tuple[Move, list[int]]]:
            layer = len(chosen)
            state = chosen[-1][0].next_state if chosen else self.start
            for move in self.moves[layer][state]:
                if self._after(layer, move.next_state) == 0:
                    continue
                for values in all_compositions(move.total, [sl.lower for sl in move.slots]):
                    yield move, values

        for path in lazy_product(len(self.sources), options):
            amounts: Amounts = {}
            for s, (move, values) in zip(self.sources, path, strict=True):
                _record(amounts, s.id, move, values)
            yield amounts


def _record(amounts: Amounts, source: str, move: Move, values: list[int]) -> None:
    for target, a in move.exact:
        if a > 0:
            amounts[(source, target)] = a
    for slot, a in zip(move.slots, values, strict=True):
        if a > 0:
            amounts[(source, slot.target)] = amounts.get((source, slot.target), 0) + a


def _product(options: list[list[int | None]]) -> Iterator[tuple[int | None, ...]]:
    if not options:
        yield ()
        return
    head, *rest = options
    for a in head:
        for tail in _product(rest):
            yield (a, *tail)


class Census:
    """Exact counting, enumeration and uniform sampling over a legal space."""

    def __init__(self, space: LegalSpace, work_limit: int = WORK_LIMIT) -> None:
        self.space = space
        self.budget = [work_limit]
        self.limit = work_limit
        self.parts = [PartSpace(space, part, self.budget, work_limit)
                      for part in space.parts]

    def count(self) -> int:
        """The number of distinct legal assignments."""
        return charged_product((p.count() for p in self.parts), self.budget, self.limit)

    def sample(self, rng: random.Random) -> Amounts:
        """One legal assignment, uniformly at random."""
        amounts: Amounts = {}
        for p in self.parts:
            amounts.update(p.sample(rng))
        return amounts

    def enumerate(self) -> Iterator[Amounts]:
        """Every legal assignment once, streaming (memory independent of the count)."""
        for pieces in lazy_product(len(self.parts), lambda chosen: self.parts[len(chosen)]
                                   .enumerate()):
            amounts: Amounts = {}
            for piece in pieces:
                amounts.update(piece)
            yield amounts
