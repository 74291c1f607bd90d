"""The frontier dynamic program that counts and samples a coupled part.

Counting and sampling need no order: :class:`FrontierPart` takes one (source, item) pair
per layer, in an order of the sources chosen to keep the frontier small
(:mod:`.frontier_order`), and its state holds the open items and the source being
placed only. An item that nothing can constrain any more (its threshold is met, or no
source to come may require it) leaves the state early, as a plain slot of the sources
still to come; a state that cannot be completed (a required item that the power of its
sources to come cannot bring to its threshold, a source left too little for the lower
bounds of its own recipients) is dropped at once.

The program keeps, before each layer, every state reached with its number of ways to
reach it: counting is one forward pass, in which the states alike but for the two
entries a layer reads (its source's and its item's) are grouped, their moves looked up
once per pair of entries, and each next state made once. A draw walks the layers
backwards from the last, each move into the current state taken with probability
proportional to the ways to reach the state it leaves times its own; the completions
of each state (for the amounts of one pair, and the counts of
:class:`~trample.solver.count.walk.FrontierWalk`) are counted backwards only when asked.
On the benchmark's 30 attackers and 90 blockers, 30% of them blocking two or three,
seeds 0 to 20 of both families: at most 75,000 of the 250,000 steps, 4 to 9 items open
at once where the declared order holds up to 17.
"""

from __future__ import annotations

import random
from bisect import bisect_right
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from operator import itemgetter

from trample.models.document.assignment import Pair
from trample.solver.count.compositions import compositions_count, random_composition
from trample.solver.count.declared import Slot, item_caps
from trample.solver.count.frontier_order import frontier_order
from trample.solver.count.work import (
    BIT_PRODUCTS_PER_STEP,
    WORK_LIMIT,
    comb_bits,
    out_of_reach,
    product_work,
)
from trample.solver.rules.assignment import Amounts
from trample.solver.rules.legal_space import LegalSpace, Part, Source

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


def _picker(keep: tuple[int, ...]) -> Callable[[Packed], Packed]:
    """A fast function from a tuple to the tuple of its entries at ``keep``."""
    if len(keep) > 1:
        return itemgetter(*keep)
    if keep:
        one = keep[0]
        return lambda ext: (ext[one],)
    return lambda ext: ()
