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

That program (:class:`PartSpace`) takes the sources in their declared order, which
enumeration, rank and unrank follow, and its state keeps every item. Counting and
sampling need no order: :class:`FrontierPart` takes one (source, item) pair per layer, in
an order of the sources chosen to keep the frontier small (an item is open from its
first source to its last), and its state holds the open items and the source being
placed only. An item that nothing can constrain any more (its threshold is met, or no
source to come may require it) leaves the state early, as a plain slot of the sources
still to come; a state that cannot be completed (a required item that the power of its
sources to come cannot bring to its threshold, a source left too little for the lower
bounds of its own recipients) is dropped at once. The order comes from a beam search
over the sets of sources placed (:func:`beam_order`: the frontier after a set does not
depend on the order within it), each set scored by an estimate of its frontier that
bounds an item's progress by the powers placed on it (:func:`frontier_cost`).

The program keeps, before each layer, every state reached with its number of ways to
reach it: counting is one forward pass, in which the states alike but for the two
entries a layer reads (its source's and its item's) are grouped, their moves looked up
once per pair of entries, and each next state made once. A draw walks the layers
backwards from the last, each move into the current state taken with probability
proportional to the ways to reach the state it leaves times its own; the completions
of each state (for the amounts of one pair, and the counts of :class:`FrontierWalk`)
are counted backwards only when asked. On the benchmark's 30 attackers and 90 blockers,
30% of them blocking two or three, seeds 0 to 20 of both families: at most 75,000 of the
250,000 steps, 4 to 9 items open at once where the declared order holds up to 17.

Where the declared order's table would be too large, :class:`FrontierWalk` walks that
order one state at a time: the moves of each source from the single state the sources
already placed leave, in :class:`PartSpace`'s order, each with the completions of the
state it leads to counted by a frontier program over the later sources (the progress of
the earlier ones on the items carried in). Enumeration, rank and unrank then answer
wherever the count does, in the same order.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from itertools import combinations
from math import comb, exp, inf, lgamma, log, log1p, prod
from operator import itemgetter
from typing import TypeVar

from trample.models.document.assignment import Pair
from trample.models.document.errors import TrampleError
from trample.solver.rules.assignment import Amounts
from trample.solver.rules.legal_space import LegalSpace, Part, Recipient, Source

WORK_LIMIT = 250_000
"""Transitions the dynamic program may build for one combat before it refuses."""
DECLARED_SHARE = 5
"""A part counted by the frontier program gets the declared-order table for
enumeration, rank and unrank when that takes at most 1/this of the work limit."""
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
    next_state: Progress


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


def out_of_reach(sources: Sequence[Source], limit: int, bits: int, coupled: str
                 ) -> CountOutOfReach:
    """The refusal of a part whose exact count would spend more than ``limit`` steps: on
    the size of its numbers when big-integer arithmetic made the work (``bits``), else on
    how its ``sources`` are coupled (``coupled``, the rest of the sentence)."""
    names = ", ".join(s.id for s in sources[:6])
    more = ", ..." if len(sources) > 6 else ""
    if bits:
        return CountOutOfReach(
            f"the sources {names}{more} have counts of more than {bits:,} bits (huge powers "
            "split among many recipients); the exact arithmetic would take more than "
            f"{limit:,} steps, so it is refused rather than estimated")
    return CountOutOfReach(f"the sources {names}{more} {coupled}")


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
            _record(amounts, s.id, move, values)
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
                _record(amounts, s.id, move, values)
            yield amounts
            self.renew()


# -- a frontier dynamic program, for counting and sampling ------------------------------

SourceState = tuple[int, int, int]
"""An open source: power not yet placed beyond the reserved amounts, the number of its
"at least" slots so far, and the mask of the gated recipients it gives more than 0."""
ItemState = tuple[int, bool]
"""An open item: progress towards its threshold, and whether a source already placed
used a recipient that requires it; or :data:`DONE`."""
DONE: ItemState = (-1, True)
"""An item nothing constrains any more: its threshold is met, or it is not required and
no source left may require it. Later sources give it any amount (a slot)."""
ItemStates = tuple[ItemState, ...]
Choice = tuple[int, int, bool]
"""(mask of the source's gated recipients used, amount to the item, whether the amount
is "at least" that much)."""
Packed = tuple[int, ...]
"""A state of :class:`FrontierPart` as the numbers of its entries
(:attr:`FrontierPart.entries`): small integers hash and compare faster than tuples."""
Key = int | tuple[int, int]
"""What a step's moves depend on: the entry of its source, of its item, or both (those
open before the step)."""
PackedMove = tuple[Packed, int, Choice]
"""A move: the entries it appends to the state's rest, its ways, the choice made."""


@dataclass(frozen=True, slots=True)
class Usage:
    """What using exactly the gated recipients of ``mask`` (and no other) implies for a
    source: the slots of its local recipients (702.19b-e lower bounds: 1 for a used gated
    recipient, what is still needed for a local blocker that one requires), the items
    that must get more than 0 or exactly 0, and the items whose threshold must be met by
    all sources together."""

    mask: int
    local: tuple[Slot, ...]
    must_use: frozenset[int]
    must_zero: frozenset[int]
    required: frozenset[int]


@dataclass(frozen=True, slots=True)
class Step:
    """One edge (source, item) of the frontier program, or a source without items.

    The state before the step lists the open sources and items; ``at_source`` and
    ``at_item`` are their positions there (None: they open here); ``rest`` lists the
    other positions, in order. The state after the step is those entries (untouched),
    then the source's and the item's new entries, each unless it closes here: so a
    state's moves depend on its entries at ``at_source`` and ``at_item`` only, and lead
    to its ``rest`` followed by a suffix the move alone makes."""

    source: int
    item: int | None
    at_source: int | None
    at_item: int | None
    closes_source: bool
    closes_item: bool
    settles: bool
    """No later source of the item may require it: unless it is required now, it is
    :data:`DONE` after this step."""
    rest: tuple[int, ...]
    later_power: int = 0
    """The power of the item's sources after this step, summed."""
    later_sharp: bool = True
    """Whether one of them may reach the item's threshold with less than what is left
    of it (deathtouch, 702.2c), or stands for earlier sources: nothing is then pruned."""


FRONTIER_UNITS_PER_STEP = 16
"""Units of work of :class:`FrontierPart` charged as one step. A move read from a state
is a unit; a state read (grouped by the entries the step leaves alone) or made is two,
and one more per :data:`STATE_ENTRIES_PER_UNIT` of its entries (hashing and copying it).
Measured on the 30 x 90 combats with shared blockers and token swarms and on combats of
3 to 30 tramplers all blocked by the same 2 to 16 walls (the widest states): 1.2 to 1.9
microseconds a step so charged, as the earlier frontier program's steps (1.0 to 1.9),
so the budget refuses within about half a second."""
STATE_ENTRIES_PER_UNIT = 4
"""Entries of a state that cost as much as a move to hash and copy."""
ORDER_EVALUATIONS = 4_000
"""Orders of one part's sources the search for a narrow frontier looks at, at most."""
ORDER_ROUNDS_PER_SOURCE = 100
"""... and at most this many per source of the part."""
ORDER_NARROW = 5_000
"""The order is searched only when the greedy one's estimated states summed over its
layers are more than this many: below, the count costs less than the search would."""
ORDER_ROUND_EDGES = 8
"""Edges (and sources) a round of the order search looks at per step of work charged
(measured: a round over 43 edges and 13 sources takes about as long as 7 transitions)."""
GREEDY_WORK = 4_000_000
"""Sources times edges of a part above which :func:`greedy_order` is not tried."""
ORDER_BEAM = 16
"""Sets of sources placed that :func:`beam_order` keeps at each depth."""
ORDER_BEAM_WORK = 600_000
"""Items' senders :func:`beam_order` may read in all (twice its width times the sources
times the squared numbers of senders of the items, summed): a part past it is ordered
by a local search instead."""
ORDER_BEAM_UNITS = 12
"""Senders read by :func:`beam_order` per step of work charged (measured: 90 to 125
nanoseconds a sender read, parts of 10 to 60 sources)."""
ORDER_WORK = 2_000_000
"""Open items the search for a narrow frontier may visit in all for one part: a large
part gets fewer orders looked at, so that the search stays far cheaper than a count."""


def frontier_cost(order: list[int], items_of: list[list[int]],
                  requires_of: list[frozenset[int]], caps: list[int],
                  powers: list[int]) -> float:
    """The log of the summed sizes of the frontiers of ``order`` (sources one after
    another), each estimated as the product of its open items' counts of states after
    each source: item ``n`` may have made any progress below its threshold ``caps[n]``
    that the powers of its sources placed sum to, required or not (not: while some
    source to come may require it; required: once one placed may have), or be met.

    Bounding the progress by the powers placed (rather than the threshold alone) is
    what ranks orders as the program's true sizes do: on the 30 x 90 benchmark combats,
    by far better than the threshold alone did, which the search then optimized."""
    count = len(caps)
    left = [0] * count
    asking = [0] * count
    for j in order:
        for n in items_of[j]:
            left[n] += 1
            if n in requires_of[j]:
                asking[n] += 1
    placed = [0] * count
    required = [False] * count
    size = [0.0] * count  # the log of each open item's count, as counted in current
    current = 0.0
    sizes: list[float] = []
    for j in order:
        power = powers[j]
        for n in items_of[j]:
            current -= size[n]
            placed[n] += power
            left[n] -= 1
            if n in requires_of[j]:
                asking[n] -= 1
                required[n] = True
            ways = (asking[n] > 0) + required[n]
            if left[n] and ways:
                size[n] = log(1 + min(caps[n], placed[n] + 1) * ways)
                current += size[n]
            else:
                size[n] = 0.0
        sizes.append(current)
    top = max(sizes, default=0.0)
    return top + log(sum(exp(x - top) for x in sizes)) if sizes else 0.0


def greedy_order(items_of: list[list[int]]) -> list[int]:
    """Sources one after another, each next the one leaving the fewest items open (then
    the one opening fewest, then the first declared)."""
    left: dict[int, int] = {}
    for items in items_of:
        for n in items:
            left[n] = left.get(n, 0) + 1
    opened: set[int] = set()
    rest = list(range(len(items_of)))
    order: list[int] = []
    while rest:
        def score(j: int) -> tuple[int, int, int]:
            mine = items_of[j]
            new = sum(1 for n in mine if n not in opened)
            closing = sum(1 for n in mine if left[n] == 1)
            return (len(opened) + new - closing, new, j)

        j = min(rest, key=score)
        rest.remove(j)
        order.append(j)
        for n in items_of[j]:
            opened.add(n)
            left[n] -= 1
            if left[n] == 0:
                opened.discard(n)
    return order


def frontier_order(items_of: list[list[int]], requires_of: list[frozenset[int]],
                   caps: list[int], powers: list[int],
                   charge: Callable[[int], None] = lambda work: None,
                   sources: list[int] | None = None) -> list[tuple[int, int | None]]:
    """An order of the (source, item) edges of a part that keeps its frontier small.

    Sources are taken one after another: in the greedy order of :func:`greedy_order`
    where its :func:`frontier_cost` is small already; else in the order of
    :func:`beam_order` (unless the greedy one is estimated smaller), where the beam's
    work is within :data:`ORDER_BEAM_WORK`; else in the greedy order improved by a local
    search (move one source elsewhere; keep the move when the :func:`frontier_cost`
    does not grow, and now and then when it does, less and less often: simulated
    annealing with a fixed seed, so the order is the same every time).
    Within a source, its edges to items it closes come first, then to open ones, then
    to new ones. ``items_of[j]``: the items of source ``j``; ``charge`` is told the
    work of the search before it starts. ``sources``: the order of the sources, given
    (no search).
    """
    if sources is not None:
        return edge_order(sources, items_of)
    count = len(items_of)
    edges = sum(len(items) for items in items_of)
    # The greedy choice looks at every source left for each one placed: for a part of
    # thousands of sources, the declared order stands in for it.
    best = greedy_order(items_of) if count * edges <= GREEDY_WORK else list(range(count))
    best_cost = frontier_cost(best, items_of, requires_of, caps, powers)
    if count <= 2 or best_cost < log(ORDER_NARROW):
        return edge_order(best, items_of)  # nothing to gain worth a search
    senders: dict[int, int] = {}
    for items in items_of:
        for n in items:
            senders[n] = senders.get(n, 0) + 1
    work = 2 * count * ORDER_BEAM * sum(k * k for k in senders.values())
    if work <= ORDER_BEAM_WORK:
        charge(work // ORDER_BEAM_UNITS)
        found = beam_order(items_of, requires_of, caps, powers)
        if frontier_cost(found, items_of, requires_of, caps, powers) <= best_cost:
            best = found
        return edge_order(best, items_of)
    rounds = min(ORDER_EVALUATIONS, ORDER_ROUNDS_PER_SOURCE * count,
                 ORDER_WORK // max(edges * edges, 1))
    # A round costs about as much as a few transitions of the dynamic program per edge.
    charge(rounds * (edges + count) // ORDER_ROUND_EDGES)
    rng = random.Random(0)
    current, current_cost = best, best_cost
    for k in range(rounds):
        order = current[:]
        order.insert(rng.randrange(count), order.pop(rng.randrange(count)))
        cost = frontier_cost(order, items_of, requires_of, caps, powers)
        heat = 0.3 * (1 - k / rounds)
        if cost <= current_cost or (heat > 0 and rng.random()
                                    < exp((current_cost - cost) / heat)):
            current, current_cost = order, cost
            if cost < best_cost:
                best, best_cost = order, cost
    return edge_order(best, items_of)


def beam_order(items_of: list[list[int]], requires_of: list[frozenset[int]],
               caps: list[int], powers: list[int]) -> list[int]:
    """Sources one after another, by a beam search over the sets of sources placed:
    the frontier after a set does not depend on the order within it, so each depth
    keeps the :data:`ORDER_BEAM` sets of least :func:`frontier_cost` so far (of the
    orders reaching them, the best), each extended by every source left."""
    count = len(items_of)
    senders: dict[int, list[int]] = {}
    for j, items in enumerate(items_of):
        for n in items:
            senders.setdefault(n, []).append(j)
    full = {n: sum(1 << j for j in js) for n, js in senders.items()}
    asks = {n: sum(1 << j for j in js if n in requires_of[j]) for n, js in senders.items()}

    def size(n: int, placed: int) -> float:
        """The log of item ``n``'s count of states once the sources of ``placed`` are."""
        inside = full[n] & placed
        ways = bool(asks[n] & ~placed) + bool(asks[n] & placed)
        if not inside or inside == full[n] or not ways:
            return 0.0
        given = sum(powers[j] for j in senders[n] if placed >> j & 1)
        return log(1 + min(caps[n], given + 1) * ways)

    # Per set placed: the log of its frontier's size, the log of the sizes summed over
    # the way there, and how it was reached (the set before, the source added).
    beam: dict[int, tuple[float, float, int, int]] = {0: (0.0, -inf, -1, -1)}
    kept: list[dict[int, tuple[float, float, int, int]]] = [beam]
    for _ in range(count):
        following: dict[int, tuple[float, float, int, int]] = {}
        for placed, (current, total, _, _) in beam.items():
            for j in range(count):
                if placed >> j & 1:
                    continue
                after = placed | 1 << j
                grown = current + sum(size(n, after) - size(n, placed) for n in items_of[j])
                high, low = (grown, total) if grown >= total else (total, grown)
                summed = high + log1p(exp(low - high)) if low > -inf else high
                found = following.get(after)
                if found is None or summed < found[1]:
                    following[after] = (grown, summed, placed, j)
        beam = dict(sorted(following.items(), key=lambda kv: kv[1][1])[:ORDER_BEAM])
        kept.append(beam)
    order: list[int] = []
    placed = next(iter(beam))
    for depth in range(count, 0, -1):
        _, _, before, j = kept[depth][placed]
        order.append(j)
        placed = before
    order.reverse()
    return order


def edge_order(best: list[int], items_of: list[list[int]]) -> list[tuple[int, int | None]]:
    """The (source, item) edges of the sources in the order ``best``: within a source,
    its edges to items it closes first, then to open ones, then to new ones."""
    left: dict[int, int] = {}
    for items in items_of:
        for n in items:
            left[n] = left.get(n, 0) + 1
    opened: set[int] = set()
    steps: list[tuple[int, int | None]] = []
    for j in best:
        mine = sorted(items_of[j], key=lambda n: (left[n] != 1, n not in opened))
        if not mine:
            steps.append((j, None))
        for n in mine:
            steps.append((j, n))
            opened.add(n)
            left[n] -= 1
            if left[n] == 0:
                opened.discard(n)
    return steps


class FrontierPart:
    """Count and sample one part with a frontier dynamic program over its edges.

    The layers are the (source, item) edges in :func:`frontier_order`; the state holds
    only what is open: each item from its first sender's edge to its last one (its
    progress and whether it is required), each source from its first edge to its last
    (power still to place, "at least" slots, gated recipients used), each entry as its
    number in :attr:`entries`, laid out as :class:`Step` says. Each assignment of
    the part is one path (exact amounts below what an item still needs, or "at least"
    that, as in :class:`PartSpace`) and one composition of the rest at the source's last
    edge. The order is free: the count does not depend on it, nor does a uniform draw;
    :class:`PartSpace` keeps the declared order for what enumerates or ranks.
    """

    def __init__(self, space: LegalSpace, part: Part, budget: list[int],
                 limit: int = WORK_LIMIT,
                 fixed: Mapping[str, Mapping[str, int]] | None = None, *,
                 order: list[int] | None = None, carried: tuple[str, ...] = (),
                 starts: Iterable[ItemStates] = ((),), earlier_at: int = 0,
                 explicit: Pair | None = None) -> None:
        self.space = space
        self.limit = limit
        self.budget = budget
        self.fixed: Mapping[str, Mapping[str, int]] = fixed or {}
        """Amounts fixed in advance (source -> target -> amount): only the assignments
        that agree with them are counted."""
        self.carried = carried
        """Items that sources before this part (earlier in a declared order) already
        placed some of: each tuple of :attr:`starts` gives their states then, one per
        item of ``carried``, and :meth:`count_from` counts from each (every item of
        ``carried`` has a source in the part)."""
        self.starts = tuple(dict.fromkeys(starts))
        self.sources: tuple[Source, ...] = part.sources
        caps = item_caps(space, part)
        self.items = tuple(caps)
        self.cap = tuple(caps[i] for i in self.items)
        index = {item: n for n, item in enumerate(self.items)}
        self.items_of = [[index[r.id] for r in s.recipients if r.id in index]
                         for s in self.sources]
        self.usages = [self._usages(s, index) for s in self.sources]
        self.real_items = len(self.items)
        self.explicit = -1
        """The item whose every amount is a move of its own (:meth:`amounts`)."""
        self._explicit_low: dict[int, int] = {}
        self._explicit_source = -1
        if explicit is not None:
            self._make_explicit(*explicit, index)
        # A carried item alike in every start begins in that state at its first source;
        # those that differ are given their state by one more source, placed in the
        # order as any other (:attr:`earlier`), whose moves are the starts.
        self.initial: dict[int, ItemState] = {}
        varying: list[int] = []
        for k, item in enumerate(carried):
            values = {t[k] for t in self.starts}
            if len(values) == 1:
                self.initial[index[item]] = next(iter(values))
            else:
                varying.append(k)
        self.earlier = len(self.sources) if varying else -1
        """The source standing for the earlier sources (its index; -1: none)."""
        self.options = tuple(dict.fromkeys(tuple(t[k] for k in varying)
                                           for t in self.starts))
        self.option_of = {t: self.options.index(tuple(t[k] for k in varying))
                          for t in self.starts} if varying else {}
        if varying:
            self.items_of.append([index[carried[k]] for k in varying])
            self.usages.append([Usage(0, (), frozenset(), frozenset(), frozenset(
                index[carried[k]] for k in varying
                if any(t[k] is not DONE and t[k][1] for t in self.starts)))])
        self.width = 0
        """The most items open at once."""
        self.peak = 0
        """The most states of one layer."""
        requires_of = [frozenset().union(*(u.required for u in usages))
                       for usages in self.usages]
        powers = [s.power for s in self.sources]
        if varying:
            # The earlier sources may have placed any progress on the items they carry.
            powers.append(max(self.cap, default=0))
            if order is not None:
                order = [*order[:earlier_at], self.earlier, *order[earlier_at:]]
        self.steps = self._steps(frontier_order(self.items_of, requires_of, list(self.cap),
                                                powers, self._charge, order))
        # The values of the starts on the items of :attr:`earlier`'s edges in their order,
        # and, before each edge, the distinct values still to give, numbered.
        edges = [step.item for step in self.steps if step.source == self.earlier]
        self._edge_values = [self.items_of[self.earlier].index(n) for n in edges
                             if n is not None]
        self._rests: list[list[tuple[ItemState, ...]]] = []
        self._rest_ids: list[dict[tuple[ItemState, ...], int]] = []
        for k in range(len(self._edge_values) + 1):
            rest = list(dict.fromkeys(tuple(option[j] for j in self._edge_values[k:])
                                      for option in self.options))
            self._rests.append(rest)
            self._rest_ids.append({r: i for i, r in enumerate(rest)})
        self.entries: list[SourceState | ItemState] = []
        """The distinct entries of states: a state is a tuple of their numbers."""
        self._entry_ids: dict[SourceState | ItemState, int] = {}
        self.reach: list[dict[Packed, int]] = []
        """Before each layer (and after the last), each state reached with its number
        of ways to reach it."""
        self.moves: list[dict[Key, list[PackedMove]]] = []
        """Each layer's moves from each pair of entries of its source and item met."""
        self._merged: list[dict[Key, list[tuple[Packed, int]]]] = []
        self._completions: dict[int, dict[Packed, int]] = {}
        self._totals: dict[tuple[int, Packed], list[tuple[int, Packed, Choice]]] = {}
        self._into: dict[int, dict[Packed, list[tuple[Key, int, Choice]]]] = {}
        self._by_option: list[int] = []
        self._build()

    def _make_explicit(self, source: str, target: str, index: dict[str, int]) -> None:
        """List every amount of ``source -> target`` apart: an item's "at least" move
        becomes one move per amount; anything else becomes an item of its own, which
        only ``source`` gives to and nothing requires, whose threshold is out of reach,
        with the lower bound of its slot (a gated recipient used: 1; a blocker that one
        requires: what it still needs; 702.19b-e)."""
        j = self._explicit_source = next(j for j, s in enumerate(self.sources)
                                         if s.id == source)
        if target in index:
            self.explicit = index[target]
            return
        n = self.explicit = len(self.items)
        self.items = (*self.items, target)
        self.cap = (*self.cap, self.sources[j].power + 1)
        self.items_of[j].append(n)
        usages: list[Usage] = []
        for u in self.usages[j]:
            slot = next((sl for sl in u.local if sl.target == target), None)
            self._explicit_low[u.mask] = 0 if slot is None else slot.lower
            usages.append(Usage(u.mask, tuple(sl for sl in u.local if sl.target != target),
                                u.must_use, u.must_zero | ({n} if slot is None else set()),
                                u.required))
        self.usages[j] = usages

    def amounts(self) -> dict[int, int]:
        """Each amount of the pair made ``explicit`` with its number of assignments."""
        layer = next(n for n, step in enumerate(self.steps)
                     if step.item == self.explicit and step.source == self._explicit_source)
        later = self._after(layer + 1)
        found: dict[int, int] = {}
        step = self.steps[layer]
        rest_of, key_of = self._access(step)
        for state, ways_in in self.reach[layer].items():
            base = rest_of(state)
            for suffix, ways, (_, a, _) in self.moves[layer][key_of(state)]:
                n = later.get(base + suffix, 0) if later is not None else 1
                if n:
                    self._charge(product_work(ways_in, ways * n) + 1)
                    found[a] = found.get(a, 0) + ways_in * ways * n
        return {a: n for a, n in found.items() if n}

    @staticmethod
    def fits(space: LegalSpace, part: Part) -> bool:
        """Whether every condition of a source of ``part`` is on one of its own
        recipients (the frontier program sets an item's flag at the source's edge to it)."""
        for s in part.sources:
            own = {r.id for r in s.recipients}
            if any(c not in own for r in s.recipients for c in r.requires):
                return False
        return True

    def _usages(self, s: Source, index: dict[str, int]) -> list[Usage]:
        gated = [r for r in s.recipients if r.gated]
        self._charge(1 << len(gated))
        out: list[Usage] = []
        for mask in range(1 << len(gated)):
            used = {r.id for b, r in enumerate(gated) if mask >> b & 1}
            lower = {r.id: 0 for r in s.recipients if r.id not in index}
            zero: set[str] = set()
            required: set[int] = set()
            for r in gated:
                if r.id not in used:
                    zero.add(r.id)
                    continue
                if r.id in lower:
                    lower[r.id] = max(lower[r.id], 1)
                for item in r.requires:
                    if item in index:
                        required.add(index[item])
                    else:
                        lower[item] = max(lower[item], self.space.still_needed(s, item))
            if any(lower.get(z, 0) > 0 for z in zero):
                continue
            out.append(Usage(
                mask, tuple(Slot(t, lo) for t, lo in lower.items() if t not in zero),
                frozenset(index[i] for i in used if i in index),
                frozenset(index[i] for i in zero if i in index), frozenset(required)))
        return out

    def _steps(self, order: list[tuple[int, int | None]]) -> list[Step]:
        remaining: dict[tuple[str, int], int] = {}
        for j, n in order:
            remaining[("s", j)] = remaining.get(("s", j), 0) + 1
            if n is not None:
                remaining[("i", n)] = remaining.get(("i", n), 0) + 1
        requirers: dict[int, int] = {}
        for j, n in order:
            if n is not None and any(n in u.required for u in self.usages[j]):
                requirers[n] = requirers.get(n, 0) + 1
        open_: list[tuple[str, int]] = []
        steps: list[Step] = []
        for j, n in order:
            at_source = open_.index(("s", j)) if ("s", j) in open_ else None
            at_item = None
            if n is not None and ("i", n) in open_:
                at_item = open_.index(("i", n))
            self._charge(len(open_) + 2)  # building the step reads the whole frontier
            self.width = max(self.width, sum(1 for kind, _ in open_ if kind == "i")
                             + (n is not None and at_item is None))
            remaining[("s", j)] -= 1
            closes_source = remaining[("s", j)] == 0
            closes_item = False
            settles = True
            if n is not None:
                remaining[("i", n)] -= 1
                closes_item = remaining[("i", n)] == 0
                if any(n in u.required for u in self.usages[j]):
                    requirers[n] -= 1
                settles = requirers.get(n, 0) == 0
            rest = tuple(p for p in range(len(open_)) if p not in (at_source, at_item))
            later_power, later_sharp = 0, True
            if n is not None:
                later_power, later_sharp = self._later(n, order[len(steps) + 1:])
            steps.append(Step(j, n, at_source, at_item, closes_source, closes_item, settles,
                              rest, later_power, later_sharp))
            open_ = [open_[p] for p in rest]
            if not closes_source:
                open_.append(("s", j))
            if n is not None and not closes_item:
                open_.append(("i", n))
        return steps

    def _later(self, n: int, order: list[tuple[int, int | None]]) -> tuple[int, bool]:
        """:attr:`Step.later_power` and :attr:`Step.later_sharp` of item ``n`` for the
        edges ``order`` still to come."""
        power, sharp = 0, n >= self.real_items
        for j, m in order:
            if m != n:
                continue
            if j == self.earlier:
                return power, True
            s = self.sources[j]
            power += s.power
            sharp = sharp or (s.id, self.items[n]) in self.space.deathtouch_pairs
        return power, sharp

    def _charge(self, work: int, bits: int = 0) -> None:
        self.budget[0] -= work
        if self.budget[0] < 0:
            raise out_of_reach(
                self.sources, self.limit, bits,
                f"share {len(self.items)} blockers or planeswalkers whose thresholds couple "
                f"them; taken in the best order found, {self.width} of them are open at "
                f"once and the frontier holds more than {self.peak:,} states, so an exact "
                f"answer would take more than {self.limit:,} steps; it is refused rather "
                "than estimated")

    # -- building ---------------------------------------------------------------------

    def _local(self, step: Step, source: SourceState | None, item: ItemState
               ) -> list[tuple[SourceState, ItemState, int, Choice]]:
        """The moves of one step from the states of its source (None: it opens here)
        and item (:data:`DONE` for a source without items): each with the next states
        of both, the ways it has (the compositions of the source's rest, at its last
        step) and the choice made."""
        if step.source == self.earlier:
            return self._earlier(step, source, item)
        s = self.sources[step.source]
        usages = self.usages[step.source]
        by_mask = {u.mask: u for u in usages}
        mine = self.fixed.get(s.id)
        if mine and source is None:
            # A gated recipient fixed to an amount is used exactly when it is above 0.
            gated = [r.id for r in s.recipients if r.gated]
            usages = [u for u in usages if all(
                (mine[r] > 0) == bool(u.mask >> bit & 1)
                for bit, r in enumerate(gated) if r in mine)]
        starts = [(s.power, 0, u.mask) for u in usages] if source is None else [source]
        n = step.item
        fixed = None if mine is None or n is None else mine.get(self.items[n])
        out: list[tuple[SourceState, ItemState, int, Choice]] = []
        for b, k, mask in starts:
            usage = by_mask[mask]
            moves: list[tuple[SourceState, ItemState, Choice]] = []
            if n is None:
                moves.append(((b, k, mask), DONE, (mask, 0, False)))
            elif fixed is not None:
                moves.extend(self._fixed_move(s, step, n, item, usage, (b, k, mask),
                                              fixed))
            elif n == self.explicit and step.source == self._explicit_source:
                # Every amount apart (the pair whose amounts are listed).
                low = self._explicit_low.get(mask, 1 if n in usage.must_use else 0)
                high = 0 if n in usage.must_zero else b
                self._charge(max(high - low + 1, 0) + 1)
                for a in range(low, high + 1):
                    if item is DONE:
                        moves.append(((b - a, k, mask), DONE, (mask, a, False)))
                        continue
                    progress, req = item
                    req = req or n in usage.required
                    need = (self.cap[n] - progress if n >= self.real_items
                            else self.space.still_needed(s, self.items[n], progress))
                    if a >= need or not (req or not step.settles):
                        moves.append(((b - a, k, mask), DONE, (mask, a, False)))
                    else:
                        moves.append(((b - a, k, mask), (progress + a, req), (mask, a, False)))
            elif item is DONE:
                # Nothing constrains the item any more: its amount is one more slot.
                if n in usage.must_zero:
                    moves.append(((b, k, mask), DONE, (mask, 0, False)))
                elif n not in usage.must_use:
                    moves.append(((b, k + 1, mask), DONE, (mask, 0, True)))
                elif b >= 1:
                    moves.append(((b - 1, k + 1, mask), DONE, (mask, 1, True)))
            else:
                progress, req = item
                need = self.space.still_needed(s, self.items[n], progress)
                t = max(need, 1)
                req = req or n in usage.required
                low = 1 if n in usage.must_use else 0
                high = 0 if n in usage.must_zero else min(t - 1, b)
                # Charged before anything is built: a threshold can be as large as 2^40.
                self._charge(max(high - low + 1, 0) + 1)
                for a in range(low, high + 1):
                    if a >= need or not (req or not step.settles):
                        moves.append(((b - a, k, mask), DONE, (mask, a, False)))
                    else:
                        moves.append(((b - a, k, mask), (progress + a, req), (mask, a, False)))
                if n not in usage.must_zero and b >= t:
                    moves.append(((b - t, k + 1, mask), DONE, (mask, t, True)))
            floor = sum(sl.lower for sl in usage.local)
            for source_state, item_state, choice in moves:
                if item_state is not DONE and item_state[1] and (
                        step.closes_item or (not step.later_sharp and step.later_power
                                             < self.cap[n] - item_state[0])):  # type: ignore[index]
                    # Required, and its threshold is not met: nor can the sources to
                    # come meet it (a dead end pruned now, not at the item's last edge).
                    continue
                if not step.closes_source and not mine and source_state[0] < floor:
                    continue  # too little left for the lower bounds of its own recipients
                ways = 1
                if step.closes_source:
                    left, slots, _ = source_state
                    lowers = [0] * slots
                    for sl in usage.local:
                        value = mine.get(sl.target) if mine else None
                        if value is None:
                            lowers.append(sl.lower)
                        elif value >= sl.lower:
                            left -= value
                        else:
                            left = -1
                    if left < 0:
                        continue
                    bits = comb_bits(max(left - sum(lowers), 0) + len(lowers) - 1,
                                     len(lowers) - 1)
                    self._charge(len(lowers) + (bits >> 10)
                                 + (bits * bits) // BIT_PRODUCTS_PER_STEP,
                                 bits if bits > 1 << 12 else 0)
                    ways = compositions_count(left, lowers)
                    if ways == 0:
                        continue
                out.append((source_state, item_state, ways, choice))
        return out

    def _earlier(self, step: Step, source: SourceState | None, item: ItemState
                 ) -> list[tuple[SourceState, ItemState, int, Choice]]:
        """The moves of :attr:`earlier` at its edge to ``step.item``: each start (chosen
        at its first edge, kept as its state) adds its progress on the item to what the
        sources before placed: thresholds are reached by sums (510.1e, 702.19c), or by
        one source with deathtouch, which leaves the item met (:data:`DONE`) in either."""
        n = step.item
        assert n is not None
        # Its state between its edges is what the starts still have to give the items
        # of its edges to come (so that starts alike on those merge), as an index into
        # :attr:`_rests`; at its first edge, one move per start.
        if source is None:
            firsts = [(o, self.options[o]) for o in range(len(self.options))]
            position = 0
        else:
            position = source[1]
            firsts = [(-1, self._rests[position][source[0]])]
        self._charge(len(firsts))
        out: list[tuple[SourceState, ItemState, int, Choice]] = []
        rests = self._rest_ids[position + 1] if position + 1 < len(self._rest_ids) else {}
        for option, values in firsts:
            if source is None:
                values = tuple(values[k] for k in self._edge_values)
            given = values[0]
            state = (rests.get(values[1:], 0), position + 1, 0)
            if item is DONE or given is DONE:
                after = DONE
            else:
                progress = item[0] + given[0]
                required = item[1] or given[1]
                if progress >= self.cap[n] or not (required or not step.settles):
                    after = DONE
                else:
                    after = (progress, required)
            if step.closes_item and after is not DONE and after[1]:
                continue  # required, and its threshold is not met
            out.append((state, after, 1, (option, 0, False)))
        return out

    def _fixed_move(self, s: Source, step: Step, n: int, item: ItemState, usage: Usage,
                    source: SourceState, fixed: int
                    ) -> list[tuple[SourceState, ItemState, Choice]]:
        """The one move that gives item ``n`` the amount ``fixed`` (none if it cannot):
        placed whole, so it takes no slot of the source's composition."""
        b, k, mask = source
        if fixed > b or (n in usage.must_zero and fixed) or (n in usage.must_use
                                                             and not fixed):
            return []
        if item is DONE:
            return [((b - fixed, k, mask), DONE, (mask, fixed, False))]
        progress, req = item
        need = self.space.still_needed(s, self.items[n], progress)
        req = req or n in usage.required
        if fixed >= need or not (req or not step.settles):
            return [((b - fixed, k, mask), DONE, (mask, fixed, False))]
        return [((b - fixed, k, mask), (progress + fixed, req), (mask, fixed, False))]

    def _entry(self, value: SourceState | ItemState) -> int:
        """The number standing for ``value`` in states."""
        found = self._entry_ids.get(value)
        if found is None:
            found = self._entry_ids[value] = len(self.entries)
            self.entries.append(value)
        return found

    def _access(self, step: Step) -> tuple[Callable[[Packed], Packed],
                                           Callable[[Packed], Key]]:
        """For states before ``step``: the entries the step leaves alone, and what its
        moves depend on (:meth:`_read`): the entries of its source and item, those
        that are open before it."""
        rest_of = _picker(step.rest)
        read = tuple(at for at in (step.at_source, step.at_item) if at is not None)
        if not read:
            return rest_of, lambda state: 0
        return rest_of, itemgetter(*read)

    def _read(self, step: Step, key: Key) -> tuple[int, int]:
        """The entries of the source (-1 where it opens here) and of the item a key of
        :meth:`_access` stands for."""
        fresh = self._entry(DONE if step.item is None else
                            self.initial.get(step.item, (0, False)))
        if step.at_source is None:
            return -1, fresh if step.at_item is None else key  # type: ignore[return-value]
        if step.at_item is None:
            return key, fresh  # type: ignore[return-value]
        return key  # type: ignore[return-value]

    def _moves_of(self, layer: int, key: Key) -> list[tuple[Packed, int]]:
        """The moves of layer ``layer`` from the entries ``key``, kept: each as the
        entries it appends (:attr:`Step.rest`) with its number of ways, and merged
        where two lead to the same entries (for counting)."""
        step = self.steps[layer]
        at_source, at_item = self._read(step, key)
        source = None if at_source < 0 else self.entries[at_source]
        item = self.entries[at_item]
        keep_source = not step.closes_source
        keep_item = step.item is not None and not step.closes_item
        listed: list[PackedMove] = []
        merged: dict[Packed, int] = {}
        for source_state, item_state, ways, choice in self._local(
                step, source, item):  # type: ignore[arg-type]
            suffix: Packed = ()
            if keep_source:
                suffix = (self._entry(source_state),)
            if keep_item:
                suffix = (*suffix, self._entry(item_state))
            listed.append((suffix, ways, choice))
            merged[suffix] = merged.get(suffix, 0) + ways
        self.moves[layer][key] = listed
        out = self._merged[layer][key] = list(merged.items())
        return out

    def _build(self) -> None:
        reach: dict[Packed, int] = {(): 1}
        self.reach = [reach]
        for layer, step in enumerate(self.steps):
            self.moves.append({})
            self._merged.append({})
            merged = self._merged[layer]
            rest_of, key_of = self._access(step)
            # The states alike but for the entries this step reads share the entries
            # it leaves, and differ only in the moves they take (the same for the same
            # entries read): each next state is then made once per such group.
            groups: dict[Packed, list[tuple[Key, int]]] = {}
            for state, ways_in in reach.items():
                base = rest_of(state)
                found = groups.get(base)
                if found is None:
                    groups[base] = [(key_of(state), ways_in)]
                else:
                    found.append((key_of(state), ways_in))
            # Work in units: a move read is one; a state read or made, more the longer
            # it is (hashing and copying it); charged FRONTIER_UNITS_PER_STEP a step.
            size = len(next(iter(reach))) if reach else 0
            made = len(reach) * (2 + size // STATE_ENTRIES_PER_UNIT)
            after = len(step.rest) + (not step.closes_source) + (
                step.item is not None and not step.closes_item)
            per_state = 2 + after // STATE_ENTRIES_PER_UNIT
            following: dict[Packed, int] = {}
            for base, pairs in groups.items():
                if len(pairs) == 1:
                    key, ways_in = pairs[0]
                    out = merged.get(key)
                    if out is None:
                        out = self._moves_of(layer, key)
                    made += len(out) * (1 + per_state)
                    if ways_in >> 4096:
                        self._big(ways_in, out)
                    for suffix, ways in out:
                        following[base + suffix] = ways_in * ways
                else:
                    acc: dict[Packed, int] = {}
                    for key, ways_in in pairs:
                        out = merged.get(key)
                        if out is None:
                            out = self._moves_of(layer, key)
                        made += len(out)
                        if ways_in >> 4096:
                            self._big(ways_in, out)
                        for suffix, ways in out:
                            acc[suffix] = acc.get(suffix, 0) + ways_in * ways
                    made += len(acc) * per_state
                    for suffix, n in acc.items():
                        following[base + suffix] = n
                if made >= FRONTIER_UNITS_PER_STEP:
                    self._charge(made // FRONTIER_UNITS_PER_STEP)
                    made %= FRONTIER_UNITS_PER_STEP
            self.peak = max(self.peak, len(following))
            self._charge(made // FRONTIER_UNITS_PER_STEP + 1)
            reach = following
            self.reach.append(reach)
        if self.earlier >= 0:
            self._count_options()

    def _big(self, ways_in: int, out: list[tuple[Packed, int]]) -> None:
        """Charge the products of a number of thousands of digits by each move's."""
        for _, ways in out:
            work = product_work(ways_in, ways)
            if work:
                self._charge(work, max(ways.bit_length(), ways_in.bit_length()))

    def count(self) -> int:
        """The number of legal assignments of this part (with :attr:`earlier`: summed
        over the starts)."""
        if self.earlier >= 0:
            return sum(self._by_option)
        return self.reach[-1].get((), 0)

    def count_from(self, start: ItemStates) -> int:
        """The number of legal assignments of this part from ``start`` (the states of
        :attr:`carried`, one of :attr:`starts`)."""
        if self.earlier < 0:
            return self.count()
        return self._by_option[self.option_of[start]]

    def order(self) -> list[int]:
        """Its sources, in the order the layers take them."""
        return list(dict.fromkeys(step.source for step in self.steps))

    def _count_options(self) -> None:
        """The count through each move of :attr:`earlier`: the ways to reach each state
        before its first layer, times the completions through each of its moves."""
        first = next(n for n, step in enumerate(self.steps) if step.source == self.earlier)
        later = self._after(first + 1)
        rest_of, key_of = self._access(self.steps[first])
        totals = [0] * len(self.options)
        for state, ways_in in self.reach[first].items():
            base = rest_of(state)
            for suffix, _, (option, _, _) in self.moves[first][key_of(state)]:
                n = later.get(base + suffix, 0) if later is not None else 1
                if ways_in >> 4096 or n >> 4096:
                    work = product_work(ways_in, n)
                    if work:
                        self._charge(work, max(n.bit_length(), ways_in.bit_length()))
                totals[option] += ways_in * n
        self._by_option = totals

    def _after(self, layer: int) -> dict[Packed, int] | None:
        """The completions of each state reached before ``layer`` (None: past the last
        layer, where the only state has one), counted backwards from the last layer
        once, when first asked (counting alone needs none)."""
        last = len(self.steps)
        if layer >= last:
            return None
        if not self._completions:
            self._completions[last] = {(): 1}
        down = min(self._completions)
        while down > layer:
            down -= 1
            later = self._completions[down + 1]
            merged = self._merged[down]
            step = self.steps[down]
            rest_of, key_of = self._access(step)
            here: dict[Packed, int] = {}
            made = 0
            size = len(step.rest) + (not step.closes_source) + (
                step.item is not None and not step.closes_item)
            for state in self.reach[down]:
                base = rest_of(state)
                out = merged[key_of(state)]
                made += len(out) * (2 + size // STATE_ENTRIES_PER_UNIT) + 1
                n = 0
                for suffix, ways in out:
                    m = later.get(base + suffix)
                    if m:
                        if m >> 4096 and ways != 1:
                            work = product_work(ways, m)
                            if work:
                                self._charge(work, max(ways.bit_length(), m.bit_length()))
                        n += ways * m
                if n:
                    here[state] = n
                if made >= FRONTIER_UNITS_PER_STEP:
                    self._charge(made // FRONTIER_UNITS_PER_STEP)
                    made %= FRONTIER_UNITS_PER_STEP
            self._completions[down] = here
        return self._completions[layer]

    def _predecessors(self, layer: int, state: Packed) -> list[tuple[int, Packed, Choice]]:
        """The moves of layer ``layer`` that lead to ``state``, each with the state it
        leaves and the running total of the ways through it (ways to reach that state,
        times the move's), kept: a draw then costs a search."""
        found = self._totals.get((layer, state))
        if found is not None:
            return found
        step = self.steps[layer]
        size = (not step.closes_source) + (step.item is not None and not step.closes_item)
        base, suffix = state[:len(state) - size], state[len(state) - size:]
        reach = self.reach[layer]
        inserts = sorted((at, k) for at, k in ((step.at_source, 0), (step.at_item, 1))
                         if at is not None)
        into = self._into.get(layer)
        if into is None:
            # The moves of the layer by the entries they write (once per layer: a draw
            # then reads only the moves into the state it stands on).
            into = self._into[layer] = {}
            for read, moves in self.moves[layer].items():
                for to, ways, choice in moves:
                    into.setdefault(to, []).append((read, ways, choice))
        running = 0
        found = []
        for read, ways, choice in into.get(suffix, ()):
            source, item = self._read(step, read)
            before = list(base)
            for at, k in inserts:
                before.insert(at, (source, item)[k])
            previous = tuple(before)
            ways_in = reach.get(previous, 0)
            if ways_in:
                running += ways_in * ways
                found.append((running, previous, choice))
        self._totals[(layer, state)] = found
        return found

    def sample(self, rng: random.Random) -> Amounts:
        """A uniformly random legal assignment of this part: a path drawn backwards
        from the last layer, each move with probability proportional to the ways to
        reach the state it leaves times its own, then its compositions."""
        choices: list[Choice] = []
        state: Packed = ()
        for layer in range(len(self.steps) - 1, -1, -1):
            found = self._predecessors(layer, state)
            pick = rng.randrange(found[-1][0])
            _, state, choice = found[bisect_right([t for t, _, _ in found], pick)]
            choices.append(choice)
        choices.reverse()
        amounts: Amounts = {}
        at_least: dict[int, list[tuple[str, int]]] = {}
        left: dict[int, int] = {}
        for step, (mask, a, least) in zip(self.steps, choices, strict=True):
            s = self.sources[step.source]
            mine = at_least.setdefault(step.source, [])
            left.setdefault(step.source, s.power)
            if step.item is not None:
                target = self.items[step.item]
                left[step.source] -= a
                if least:
                    mine.append((target, a))
                elif a:
                    amounts[(s.id, target)] = a
            if step.closes_source:
                usage = next(u for u in self.usages[step.source] if u.mask == mask)
                lowers = [0] * len(mine) + [sl.lower for sl in usage.local]
                values = random_composition(left[step.source], lowers, rng)
                for (target, base), extra in zip(mine, values, strict=False):
                    amounts[(s.id, target)] = base + extra
                for slot, value in zip(usage.local, values[len(mine):], strict=True):
                    if value:
                        amounts[(s.id, slot.target)] = value
        return amounts


WALK_WORK = 16
"""A walk of the declared order backed by the frontier program (:class:`FrontierWalk`:
one rank, unrank or assignment of enumeration) may spend this many times the work
limit of a count, summed over the counts of the later sources it runs, at most."""
WALK_MOVES_KEPT = 512
"""States whose moves a :class:`FrontierWalk` keeps (the most recently used)."""
WALK_COUNTS_KEPT = 1 << 16
"""States whose numbers of completions a :class:`FrontierWalk` keeps."""


class FrontierWalk(PartSpace):
    """The declared order of a part's sources, for enumeration, rank and unrank, where
    :class:`PartSpace` would hold too many states: the same moves, in the same order,
    built from one state at a time, each with its number of completions counted by the
    frontier program of the later sources.

    A walk goes down the declared order from the start, one source at a time: from the
    state the sources already placed leave (a single one), the moves of the next source
    are those of :class:`PartSpace`, and the completions of every state they lead to
    come from one :class:`FrontierPart` over the later sources, whose items already
    reached start with that progress (:attr:`FrontierPart.carried`), in the counting
    program's order of the sources (or a greedy one that closes those items sooner).
    What was built is kept for the walks that follow (most recently used first).
    Each walk may spend :data:`WALK_WORK` times the work limit in all, and each count
    within it the work limit, before it refuses.
    """

    def __init__(self, space: LegalSpace, part: Part, counter: FrontierPart,
                 limit: int = WORK_LIMIT) -> None:
        self.counter = counter
        self.part = part
        self.walk_limit = int(WALK_WORK * limit)
        self.order = counter.order()
        self._kept_moves: OrderedDict[tuple[int, Progress], list[Move]] = OrderedDict()
        self._kept_counts: OrderedDict[tuple[int, Progress], int] = OrderedDict()
        self.widest = 0
        """The most items open at once in a count of the later sources."""
        self.counts = 0
        """Counts of the later sources run in the current walk."""
        super().__init__(space, part, [self.walk_limit], limit)

    def _build(self) -> None:
        self.start = tuple((0, False) for _ in self.items)

    def _charge(self, work: int, bits: int = 0) -> None:
        self.budget[0] -= work
        if self.budget[0] < 0:
            raise out_of_reach(
                self.sources, self.walk_limit, bits,
                f"share {len(self.items)} blockers or planeswalkers whose thresholds couple "
                "them; walking their declared order, source by source, counts the "
                f"completions of the later sources at each ({self.counts} counts so far, "
                f"the widest with {self.widest} of them open at once), which would take more "
                "than "
                f"{self.walk_limit:,} steps; it is refused rather than estimated")

    def renew(self) -> None:
        """A new walk: the budget of one is available again."""
        self.budget[0] = self.walk_limit
        self.counts = 0

    def count(self) -> int:
        """The number of legal assignments of this part (the frontier program's)."""
        return self.counter.count()

    def moves_from(self, layer: int, state: Progress) -> list[Move]:
        """The moves of source ``layer`` from ``state``, in :class:`PartSpace`'s order;
        the completions of the states they lead to are counted at once."""
        key = (layer, state)
        found = self._kept_moves.get(key)
        if found is not None:
            self._kept_moves.move_to_end(key)
            return found
        found = self._moves(layer, state)
        if layer + 1 < len(self.sources):
            missing = [m.next_state for m in found
                       if (layer + 1, m.next_state) not in self._kept_counts]
            if missing:
                self._count_later(layer + 1, missing)
        self._kept_moves[key] = found
        if len(self._kept_moves) > WALK_MOVES_KEPT:
            self._kept_moves.popitem(last=False)
        return found

    def after(self, layer: int, state: Progress) -> int:
        """Completions of the sources after ``layer`` from ``state``."""
        if layer + 1 >= len(self.sources):
            return 1
        key = (layer + 1, state)
        found = self._kept_counts.get(key)
        if found is None:
            self._count_later(layer + 1, [state])
            found = self._kept_counts[key]
        else:
            self._kept_counts.move_to_end(key)
        return found

    def _count_later(self, first: int, states: list[Progress]) -> None:
        """Count the completions of the sources from ``first`` on, from each of
        ``states``, with one frontier program over those sources."""
        later = self.sources[first:]
        touched = {r.id for s in later for r in s.recipients if r.id in self.index}
        blank = (0, False)
        carried = tuple(item for n, item in enumerate(self.items) if item in touched
                        and any(state[n] != blank for state in states))

        def begin(state: Progress) -> ItemStates:
            out: list[ItemState] = []
            for item in carried:
                n = self.index[item]
                progress, required = state[n]
                out.append(DONE if progress >= self.cap[n] else (progress, required))
            return tuple(out)

        starts = {state: begin(state) for state in dict.fromkeys(states)}
        sub = Part(later, tuple(i for i in self.part.lethal_items if i in touched),
                   tuple(i for i in self.part.loyalty_items if i in touched))
        order = [j - first for j in self.order if j >= first]
        # The counting program's order, the earlier sources where the source that led
        # to these states stood in it; failing that, the earlier sources first.
        placed = self.order[:self.order.index(first - 1)] if first else []
        spots = dict.fromkeys([sum(1 for j in placed if j >= first), 0])
        program: FrontierPart | None = None
        for k, spot in enumerate(spots):
            budget = [self.limit]
            self.counts += 1
            try:
                program = FrontierPart(self.space, sub, budget, self.limit, order=order,
                                       carried=carried, starts=starts.values(),
                                       earlier_at=spot)
                self.widest = max(self.widest, program.width)
            except CountOutOfReach:
                if k + 1 < len(spots):
                    continue
                if len(starts) < 2:
                    raise
                # Too many starts at once: half of them, then the other half.
                half = len(starts) // 2
                listed = list(starts)
                self._count_later(first, listed[:half])
                self._count_later(first, listed[half:])
                return
            finally:
                self._charge(self.limit - max(budget[0], 0))
            break
        assert program is not None
        for state, begun in starts.items():
            self._kept_counts[(first, state)] = program.count_from(begun)
        while len(self._kept_counts) > WALK_COUNTS_KEPT:
            self._kept_counts.popitem(last=False)


def _picker(keep: tuple[int, ...]) -> Callable[[Packed], Packed]:
    """A fast function from a tuple to the tuple of its entries at ``keep``."""
    if len(keep) > 1:
        return itemgetter(*keep)
    if keep:
        one = keep[0]
        return lambda ext: (ext[one],)
    return lambda ext: ()


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
    """Exact counting, enumeration and uniform sampling over a legal space.

    Counting and sampling read :attr:`counters`: a part whose sources share items is
    taken by :class:`FrontierPart`, in an order that keeps its frontier small; any
    other by :class:`PartSpace`. Enumeration (and rank and unrank) walk :attr:`parts`,
    the declared order of each part's sources: its :class:`PartSpace`, or a
    :class:`FrontierWalk` backed by its counting program where that table would be too
    large. Each is built on first use, with a budget of its own; ``ordered`` builds
    :attr:`parts` at once (so that a refusal comes before the first assignment), else
    :attr:`counters`.
    """

    def __init__(self, space: LegalSpace, work_limit: int = WORK_LIMIT, *,
                 ordered: bool = False) -> None:
        self.space = space
        self.limit = work_limit
        self.budget = [work_limit]
        self._parts: list[PartSpace] | None = None
        self._counters: list[PartSpace | FrontierPart] | None = None
        # Built now, so that a refusal comes before the first answer.
        _ = self.parts if ordered else self.counters

    @property
    def counters(self) -> list[PartSpace | FrontierPart]:
        """What counts and samples each part (built on first use)."""
        if self._counters is None:
            space, budget, limit = self.space, self.budget, self.limit
            built: list[PartSpace | FrontierPart] = []
            for part in space.parts:
                coupled = len(part.sources) > 1 and bool(part.lethal_items
                                                          or part.loyalty_items)
                if coupled and FrontierPart.fits(space, part):
                    built.append(FrontierPart(space, part, budget, limit))
                else:
                    built.append(PartSpace(space, part, budget, limit))
            self._counters = built
        return self._counters

    @property
    def parts(self) -> list[PartSpace]:
        """The dynamic program of each part in the declared order of its sources, which
        enumeration, rank and unrank walk (built on first use): :class:`PartSpace` where
        it holds few enough states, else a :class:`FrontierWalk` over the part's
        counting program (the same order, built one state at a time)."""
        if self._parts is None:
            counters = self.counters
            budget = [self.limit]
            built: list[PartSpace] = []
            for counter, part in zip(counters, self.space.parts, strict=True):
                if isinstance(counter, PartSpace):
                    built.append(counter)
                    continue
                # The whole table, when it is small, makes each walk a lookup; a part
                # that needs more than a fraction of the limit is walked instead.
                trial = [min(budget[0], self.limit // DECLARED_SHARE)]
                try:
                    table = PartSpace(self.space, part, trial, self.limit)
                except CountOutOfReach:
                    built.append(FrontierWalk(self.space, part, counter, self.limit))
                    continue
                budget[0] -= min(budget[0], self.limit // DECLARED_SHARE) - trial[0]
                built.append(table)
            self._parts = built
        return self._parts

    def count(self) -> int:
        """The number of distinct legal assignments."""
        return charged_product((p.count() for p in self.counters), self.budget, self.limit)

    def sample(self, rng: random.Random) -> Amounts:
        """One legal assignment, uniformly at random."""
        amounts: Amounts = {}
        for p in self.counters:
            amounts.update(p.sample(rng))
        return amounts

    def enumerate(self) -> Iterator[Amounts]:
        """Every legal assignment once, streaming (memory independent of the count), in
        the declared order of the sources; a refusal comes here, before the first (a
        walk that counts the later sources as it goes may still refuse later, past its
        work limit: :class:`FrontierWalk`)."""
        parts = self.parts
        for part in parts:
            if part.sources:
                part.renew()
                part.moves_from(0, part.start)  # the first walk's widest count, now

        def each() -> Iterator[Amounts]:
            for pieces in lazy_product(len(parts), lambda chosen: parts[len(chosen)]
                                       .enumerate()):
                amounts: Amounts = {}
                for piece in pieces:
                    amounts.update(piece)
                yield amounts

        return each()
