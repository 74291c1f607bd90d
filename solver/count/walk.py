"""The declared order of a part walked one state at a time, counted by the frontier
program.

Where the declared order's table (:class:`~trample.solver.count.declared.PartSpace`)
would be too large, :class:`FrontierWalk` walks that order one state at a time: the
moves of each source from the single state the sources already placed leave, in
:class:`~trample.solver.count.declared.PartSpace`'s order, each with the completions of
the state it leads to counted by a frontier program over the later sources (the
progress of the earlier ones on the items carried in). Enumeration, rank and unrank then
answer wherever the count does, in the same order.
"""

from __future__ import annotations

from collections import OrderedDict

from trample.solver.count.declared import Move, PartSpace, Progress
from trample.solver.count.frontier import DONE, FrontierPart, ItemState, ItemStates
from trample.solver.count.work import WORK_LIMIT, CountOutOfReach, out_of_reach
from trample.solver.rules.legal_space import LegalSpace, Part

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
