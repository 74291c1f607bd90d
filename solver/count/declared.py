"""The dynamic program of one part over its sources in their declared order.

Parts of the legal space are independent. Within a part, sources are taken in turn. A
source's amounts split in two: those to *items* (creatures and planeswalkers shared with
other sources of the part whose lethal or loyalty status gates some recipient) and
those to everything else (local). The only thing later sources need to know of an item
is how much of its threshold has been reached, capped at the threshold, and whether some
earlier source used a recipient that requires it: that is the state (:data:`Progress`).
For an item the source either assigns an exact amount below what is still missing, or
"at least what is missing" (which caps it); the local amounts and the "at least" ones
then form a composition with lower bounds (:mod:`.compositions`).

Sampling walks the layers choosing each transition with probability proportional to the
number of completions through it (exact integer arithmetic), then draws the composition
uniformly; enumeration walks every transition with a completion and every composition.
This program (:class:`PartSpace`) takes the sources in their declared order, which
enumeration, rank and unrank follow, and its state keeps every item; counting and
sampling a coupled part take :class:`~trample.solver.count.frontier.FrontierPart`
instead.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import combinations
from math import prod

from trample.solver.count.compositions import (
    all_compositions,
    compositions_count,
    lazy_product,
    random_composition,
)
from trample.solver.count.work import (
    BIT_PRODUCTS_PER_STEP,
    WORK_LIMIT,
    comb_bits,
    out_of_reach,
    product_work,
)
from trample.solver.rules.assignment import Amounts
from trample.solver.rules.legal_space import LegalSpace, Part, Recipient, Source


def item_caps(space: LegalSpace, part: Part) -> dict[str, int]:
    """The part's shared items with their thresholds: lethal damage (510.1e) or loyalty
    (702.19c); an item already met with nothing assigned constrains nothing and is left
    out."""
    caps: dict[str, int] = {}
    for item in (*part.lethal_items, *part.loyalty_items):
        threshold = space.thresholds[item]
        if threshold > 0:
            caps[item] = threshold
    return caps


Progress = tuple[tuple[int, bool], ...]
"""A state of :class:`PartSpace`: for each item, progress towards its threshold (capped
at it) and whether a source already placed used a recipient that requires it."""


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
    next_state: Progress


class PartSpace:
    """The dynamic program of one part: states per layer and completions per state."""

    def __init__(self, space: LegalSpace, part: Part, budget: list[int],
                 limit: int = WORK_LIMIT) -> None:
        self.space = space
        self.limit = limit
        self.sources: tuple[Source, ...] = part.sources
        caps = item_caps(space, part)
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
        self.moves: list[dict[Progress, list[Move]]] = []
        self.completions: list[dict[Progress, int]] = []
        self._totals: dict[tuple[int, Progress], list[int]] = {}
        self._build()

    def _charge(self, work: int, bits: int = 0) -> None:
        """Spend ``work`` of the budget, or refuse: never estimate a count. ``bits``: the
        size of the numbers that made the work, when big-integer arithmetic did."""
        self.budget[0] -= work
        if self.budget[0] < 0:
            raise out_of_reach(self.sources, self.limit, bits, f"share {len(self.items)} "
                               "blockers or planeswalkers whose thresholds couple them; an "
                               f"exact answer would take more than {self.limit:,} steps, "
                               "so it is refused rather than estimated")

    # -- the moves of one source from one state -----------------------------------------

    def _moves(self, layer: int, state: Progress) -> list[Move]:
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

    def _move(self, layer: int, state: Progress, s: Source,
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
            table: dict[Progress, list[Move]] = {}
            following: set[Progress] = set()
            for state in frontier:
                moves = self._moves(layer, state)
                table[state] = moves
                following.update(m.next_state for m in moves)
            self.moves.append(table)
            frontier = following
        after = dict.fromkeys(frontier, 1)
        for layer in range(len(self.sources) - 1, -1, -1):
            here: dict[Progress, int] = {}
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

    def moves_from(self, layer: int, state: Progress) -> list[Move]:
        """The moves of source ``layer`` from ``state``, in the order enumeration takes
        them (some may have no completion: :meth:`after` is then 0)."""
        return self.moves[layer].get(state, [])

    def after(self, layer: int, state: Progress) -> int:
        """Completions of the sources after ``layer`` from ``state`` (the state a move
        of source ``layer`` leads to): 1 after the last source."""
        if layer + 1 < len(self.sources):
            return self.completions[layer + 1].get(state, 0)
        return 1

    def renew(self) -> None:
        """A new walk begins (rank, unrank, the next assignment of enumeration): nothing
        to do here, every table is built."""

    def _after(self, layer: int, state: Progress) -> int:
        return self.after(layer, state)

    def _cumulative(self, layer: int, state: Progress) -> list[int]:
        """Running totals of the completions through each move from ``state``, kept: a
        draw then costs a search, not a big-integer product per move (products the
        budget already paid for when the completions were counted)."""
        key = (layer, state)
        found = self._totals.get(key)
        if found is None:
            running = 0
            found = []
            for move in self.moves_from(layer, state):
                running += move.ways * self.after(layer, move.next_state)
                found.append(running)
            self._totals[key] = found
        return found

    def sample(self, rng: random.Random) -> Amounts:
        """A uniformly random legal assignment of this part."""
        amounts: Amounts = {}
        state = self.start
        for layer, s in enumerate(self.sources):
            totals = self._cumulative(layer, state)
            pick = rng.randrange(totals[-1])
            moves = self.moves_from(layer, state)
            move = moves[bisect_right(totals, pick)]
            values = random_composition(move.total, [sl.lower for sl in move.slots], rng)
            record_move(amounts, s.id, move, values)
            state = move.next_state
        return amounts

    def enumerate(self) -> Iterator[Amounts]:
        """Every legal assignment of this part, once each."""

        def options(chosen: list[tuple[Move, list[int]]]) -> Iterator[tuple[Move, list[int]]]:
            layer = len(chosen)
            state = chosen[-1][0].next_state if chosen else self.start
            for move in self.moves_from(layer, state):
                if self.after(layer, move.next_state) == 0:
                    continue
                for values in all_compositions(move.total, [sl.lower for sl in move.slots]):
                    yield move, values

        self.renew()
        for path in lazy_product(len(self.sources), options):
            amounts: Amounts = {}
            for s, (move, values) in zip(self.sources, path, strict=True):
                record_move(amounts, s.id, move, values)
            yield amounts
            self.renew()


def record_move(amounts: Amounts, source: str, move: Move, values: list[int]) -> None:
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
