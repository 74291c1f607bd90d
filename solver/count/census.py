"""Count, enumerate and sample the legal assignments of a legal space exactly.

Parts of the legal space are independent, so the number of legal assignments is the
product of the parts' numbers, and a uniform draw is a uniform draw in each part.
:class:`Census` counts and samples each coupled part with the frontier program
(:mod:`.frontier`) and any other with the declared-order program (:mod:`.declared`),
and enumerates in the declared order of the sources: the table of :mod:`.declared`, or
the walk of :mod:`.walk` where that table would be too large.
"""

from __future__ import annotations

import random
from collections.abc import Iterator

from trample.solver.count.compositions import lazy_product
from trample.solver.count.declared import PartSpace
from trample.solver.count.frontier import FrontierPart
from trample.solver.count.walk import FrontierWalk
from trample.solver.count.work import DECLARED_SHARE, WORK_LIMIT, CountOutOfReach, charged_product
from trample.solver.rules.assignment import Amounts
from trample.solver.rules.legal_space import LegalSpace


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
