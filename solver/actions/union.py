"""Legal splits of a combat where some blocked attacker may assign its combat damage as
though it weren't blocked: count, enumerate, sample, rank, unrank, options, project.

Such an attacker (Thorn Elemental, Lone Wolf; :attr:`LegalSpace.alternatives`) may choose
a split allowed for it as blocked (510.1c, 702.19b-e) or one allowed as though it weren't
blocked (510.1b, 702.19c, 702.19e): its legal splits are the union of the two sets, and a
whole assignment is legal when some choice of set per attacker makes every condition
hold. :func:`~trample.solver.rules.legal_space.mode_space` fixes each attacker to one set, and
:func:`~trample.solver.rules.legal_space.modes_of` names the one set a split belongs to, so the
union falls into disjoint *pieces*: piece(m) holds the splits of ``mode_space(m)`` whose
``modes_of`` is m. Within ``mode_space(m)`` that is one condition per attacker fixed to
its blocked splits that has blockers to assign to: it assigns something to one of them
(an attacker fixed to its splits as though unblocked never reaches a blocker, and one
with nothing to assign to either way assigns nothing). So

    |piece(m) agreeing with fixed| = sum over subsets S of those attackers of
        (-1)^|S| * count(mode_space(m), fixed plus "each attacker of S gives 0 to each
        of its blockers"),

a sum of at most 3^k exact counts of plain spaces (k attackers), each read from
:class:`~trample.solver.actions.splits.Actions`. Sources that can never share a creature or a
planeswalker are independent in every mode space, so the union is the product of the
unions of its *components* (:func:`union_components`), each counted on its own mode
spaces restricted to its sources: 3^j terms for a component with j attackers, and
independent Thorns cost 3 terms each, not 3^k in all. More than :data:`MAX_TERMS` terms
are refused, never estimated. ``options`` adds up the terms' options the same way.

**Pairs.** :func:`union_pairs`: each source's pairs in document order of the sources;
an attacker's blockers in document order, then what it attacks, then that planeswalker's
controller (the pairs of both sets of splits of an attacker with two).

**Order.** The legal assignments of such a combat come in ascending lexicographic order
of their amounts over :func:`union_pairs` (the first pair most significant). ``unrank``
descends the pairs, taking at each the amount whose block of completions (``options``)
holds the index; ``rank`` adds up, pair by pair, the completions of every smaller amount;
``enumerate`` walks the same order pair by pair, each component offering the amounts
its own splits continue with (read from its splits gathered and sorted, when it has at
most :data:`SORT_LIMIT`, else from its ``options``). A combat without such an attacker
keeps the order of :class:`~trample.solver.count.Census`.

**Sampling.** In each component, a piece is drawn in proportion to its count, then a
uniform split of its mode space is drawn until it lies in the piece (at most
:data:`REJECTIONS` tries, then an exact draw pair by pair with the piece's options):
uniform over the union, and reproducible from the random generator.

**Project.** The nearest legal assignment, ties to the default objective, then to the
first in the order above: by looking at each, up to
:data:`~trample.solver.actions.splits.PROJECT_LIMIT`; beyond, the best of the nearest of each
mode space (the union of their legal sets) found with CP-SAT, each with its last
tie-break the lexicographic one (at most :data:`MAX_SEARCHES` of them).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from itertools import combinations
from math import prod
from typing import TYPE_CHECKING, Any

from trample.models.document.assignment import Pair
from trample.solver.actions.splits import (
    PROJECT_LIMIT,
    Actions,
    Projection,
    nearest_by_inspection,
    stopper,
)
from trample.solver.count.census import Census
from trample.solver.count.work import CountOutOfReach
from trample.solver.optimize.cancel import Cancel
from trample.solver.optimize.objectives import DEFAULTS, evaluate
from trample.solver.rules.assignment import Amounts
from trample.solver.rules.legal_space import LegalSpace, mode_space, modes_of
from trample.solver.rules.pieces import choices, pieces, pieces_of, union_components, union_pairs

if TYPE_CHECKING:
    pass


MAX_TERMS = 3**7
"""Exact counts of plain spaces one count of a union may add up (3^k for k attackers that
may assign as though unblocked, fewer when some have no blockers left); more are refused."""
SORT_LIMIT = 100_000
"""Up to this many splits, a component's are gathered and sorted for ``enumerate``'s
walk; above, it offers its amounts from ``options`` (memory independent of the count)."""
REJECTIONS = 64
"""Draws of a mode space a sample tries before it draws pair by pair instead."""
MAX_SEARCHES = 128
"""Mode spaces ``project`` solves a CP-SAT model for, beyond :data:`~trample.solver.actions.splits.
PROJECT_LIMIT` legal assignments (one per choice of set of splits per attacker)."""


def terms_needed(space: LegalSpace, groups: Sequence[tuple[str, ...]] | None = None) -> int:
    """The exact counts of plain spaces one count of the union adds up for its attackers:
    for each component that has some, the product over them of their sets of splits,
    one with a condition on its blockers counting twice (3^j for j attackers)."""
    if groups is None:
        groups = union_components(space)
    total = 0
    for g in groups:
        attackers = [a for a in space.alternatives if a in g]
        if attackers:  # (a component without one is one plain count)
            total += prod(sum(1 if walls is None else 2 for _, walls in choices(space, a))
                          for a in attackers)
    return total


@dataclass(frozen=True, slots=True)
class _Term:
    piece: int
    sign: int
    zeros: tuple[Pair, ...]


class _Component:
    """The union of the splits of one component: its pieces (mode spaces restricted to
    its sources) and the inclusion-exclusion terms that count them."""

    def __init__(self, space: LegalSpace, sources: tuple[str, ...],
                 pairs: Sequence[Pair]) -> None:
        ids = frozenset(sources)
        self.pairs = [p for p in pairs if p[0] in ids]
        self.attackers = tuple(a for a in space.alternatives if a in ids)
        self.pieces = pieces_of(space, self.attackers, ids)
        self.actions = [Actions(p.space) for p in self.pieces]
        self.piece_terms: list[list[_Term]] = []
        for i, piece in enumerate(self.pieces):
            mine = []
            for k in range(len(piece.reaches) + 1):
                for subset in combinations(piece.reaches, k):
                    zeros = tuple((a, b) for a, walls in subset for b in walls)
                    mine.append(_Term(i, -1 if k % 2 else 1, zeros))
            self.piece_terms.append(mine)
        self.terms = [t for mine in self.piece_terms for t in mine]
        self.sizes = [self.count_terms(mine, {}) for mine in self.piece_terms]
        self.total = sum(self.sizes)

    def _fixed(self, term: _Term, fixed: Mapping[Pair, int]) -> dict[Pair, int] | None:
        """``fixed`` and the term's zeros over its mode space's pairs; None when they
        contradict (a pair of ``fixed`` the mode space lacks must be 0)."""
        pairs = self.pieces[term.piece].space.pairs
        merged: dict[Pair, int] = {}
        for p, a in fixed.items():
            if p in pairs:
                merged[p] = a
            elif a:
                return None
        for p in term.zeros:
            if merged.get(p, 0):
                return None
            merged[p] = 0
        return merged

    def count_terms(self, terms: Sequence[_Term], fixed: Mapping[Pair, int]) -> int:
        """The splits of the pieces of ``terms`` that agree with ``fixed``."""
        total = 0
        for term in terms:
            merged = self._fixed(term, fixed)
            if merged is not None:
                total += term.sign * self.actions[term.piece].count(merged)
        return total

    def count(self, fixed: Mapping[Pair, int]) -> int:
        """Its splits that agree with ``fixed`` (pairs of this component)."""
        return self.count_terms(self.terms, fixed) if fixed else self.total

    def options_terms(self, terms: Sequence[_Term], fixed: Mapping[Pair, int], pair: Pair
                      ) -> list[tuple[int, int]]:
        """Each amount of ``pair`` with its completions in the pieces of ``terms``."""
        found: dict[int, int] = {}
        for term in terms:
            merged = self._fixed(term, fixed)
            if merged is None:
                continue
            actions = self.actions[term.piece]
            if pair in actions.space.pairs:
                listed = actions.options(merged, pair)
            else:  # the pair is 0 in this mode space
                n = actions.count(merged)
                listed = [(0, n)] if n else []
            for a, n in listed:
                found[a] = found.get(a, 0) + term.sign * n
        return [(a, n) for a, n in sorted(found.items()) if n]

    def options(self, fixed: Mapping[Pair, int], pair: Pair) -> list[tuple[int, int]]:
        """Each amount of ``pair`` with its completions within this component."""
        return self.options_terms(self.terms, fixed, pair)

    def listed(self) -> list[tuple[int, ...]]:
        """Its splits as vectors over :attr:`pairs`, ascending."""
        vectors = []
        for piece, actions in zip(self.pieces, self.actions, strict=True):
            for amounts in actions.census.enumerate():
                if piece.holds(amounts):
                    vectors.append(tuple(amounts.get(p, 0) for p in self.pairs))
        vectors.sort()
        return vectors

    def sample(self, rng: random.Random) -> Amounts:
        """One of its splits, uniformly."""
        pick = rng.randrange(self.total)
        i = 0
        while pick >= self.sizes[i]:
            pick -= self.sizes[i]
            i += 1
        piece, census = self.pieces[i], self.actions[i].census
        for _ in range(REJECTIONS):
            amounts = census.sample(rng)
            if piece.holds(amounts):
                return amounts
        # Rare: the piece is a small share of its mode space; draw it pair by pair.
        terms = self.piece_terms[i]
        fixed: dict[Pair, int] = {}
        left = self.sizes[i]
        for pair in self.pairs:
            pick = rng.randrange(left)
            for a, n in self.options_terms(terms, fixed, pair):
                if pick < n:
                    fixed[pair], left = a, n
                    break
                pick -= n
        return {p: a for p, a in fixed.items() if a}


# -- the union -------------------------------------------------------------------------


class UnionActions:
    """Count, enumerate, sample, rank, unrank, options and project over the legal splits
    of a space with :attr:`LegalSpace.alternatives` (the interface of
    :class:`~trample.solver.actions.splits.Actions` and of :class:`Census`, which it also is:
    :attr:`census` is itself). Raises :class:`CountOutOfReach` when the count would add
    up more than :data:`MAX_TERMS` plain counts, or a plain count is refused.

    The union is the product of its components' unions (:func:`union_components`): each
    counts its own pieces, with 3^j terms for its own j attackers."""

    def __init__(self, space: LegalSpace, sort_limit: int = SORT_LIMIT) -> None:
        groups = union_components(space)
        mine = {a: i for i, g in enumerate(groups) for a in g}
        needed = terms_needed(space, groups)
        if needed > MAX_TERMS:
            raise CountOutOfReach(
                f"{len(space.alternatives)} blocked attackers may assign as though they "
                f"weren't blocked: an exact count adds up {needed:,} counts of plain "
                f"combats, more than {MAX_TERMS:,}, so it is refused rather than estimated")
        self.space = space
        self.sort_limit = sort_limit
        self.pairs: list[Pair] = union_pairs(space)
        self.column = {p: j for j, p in enumerate(self.pairs)}
        self.components = [_Component(space, g, self.pairs) for g in groups]
        self.owner = [mine[s] for s, _ in self.pairs]
        """For each pair, the index of its component."""
        self.total = 1
        for c in self.components:
            self.total *= c.total
        self._listed: dict[int, list[tuple[int, ...]]] = {}

    @property
    def census(self) -> UnionActions:
        """Itself: it counts, enumerates and samples as :class:`Census` does."""
        return self

    def _split(self, fixed: Mapping[Pair, int]) -> list[dict[Pair, int]]:
        out: list[dict[Pair, int]] = [{} for _ in self.components]
        for p, a in fixed.items():
            out[self.owner[self.column[p]]][p] = a
        return out

    # -- counting ------------------------------------------------------------------------

    def count(self, fixed: Mapping[Pair, int] | None = None) -> int:
        """Legal assignments that agree with ``fixed`` (pair of :attr:`pairs` -> amount)."""
        if not fixed:
            return self.total
        result = 1
        for c, mine in zip(self.components, self._split(fixed), strict=True):
            result *= c.count(mine)
            if not result:
                return 0
        return result

    def options(self, fixed: Mapping[Pair, int], pair: Pair) -> list[tuple[int, int]]:
        """Every amount of ``pair`` with a legal completion agreeing with ``fixed``, with
        how many completions, in ascending order of amount."""
        split = self._split(fixed)
        here = self.owner[self.column[pair]]
        others = 1
        for i, (c, mine) in enumerate(zip(self.components, split, strict=True)):
            if i != here:
                others *= c.count(mine)
                if not others:
                    return []
        return [(a, n * others)
                for a, n in self.components[here].options(split[here], pair)]

    # -- order ---------------------------------------------------------------------------

    def _descend(self, pick: Callable[[Pair, list[tuple[int, int]]], int]) -> Amounts:
        """Fix the pairs in order, each to the amount ``pick`` takes from its options
        (amount, completions in every component)."""
        split: list[dict[Pair, int]] = [{} for _ in self.components]
        counts = [c.total for c in self.components]
        everything = self.total
        for j, pair in enumerate(self.pairs):
            here = self.owner[j]
            others = everything // counts[here]
            listed = [(a, n * others)
                      for a, n in self.components[here].options(split[here], pair)]
            a = pick(pair, listed)
            split[here][pair] = a
            counts[here] = next(n for b, n in listed if b == a) // others
            everything = counts[here] * others
        return {p: a for mine in split for p, a in mine.items() if a}

    def unrank(self, index: int) -> Amounts:
        """The legal assignment at position ``index`` (ascending lexicographic order of
        the amounts over :attr:`pairs`)."""
        if not 0 <= index < self.total:
            raise ValueError(f"index {index} is not below the count {self.total}")
        left = [index]

        def pick(pair: Pair, listed: list[tuple[int, int]]) -> int:
            for a, n in listed:
                if left[0] < n:
                    return a
                left[0] -= n
            raise CountOutOfReach("unrank ran past the last amount of a pair")

        return self._descend(pick)

    def rank(self, amounts: Mapping[Pair, int]) -> int:
        """The position of a legal assignment (ValueError if it is not legal)."""
        for p, a in amounts.items():
            if a and p not in self.column:
                raise ValueError(f"{p[0]} -> {p[1]} is not a legal pair")
        if not self.total:
            raise ValueError("there is no legal assignment")
        index = [0]

        def pick(pair: Pair, listed: list[tuple[int, int]]) -> int:
            mine = amounts.get(pair, 0)
            if all(a != mine for a, _ in listed):
                raise ValueError(f"the amount {mine} of {pair[0]} -> {pair[1]} fits no "
                                 "legal assignment")
            index[0] += sum(n for a, n in listed if a < mine)
            return mine

        self._descend(pick)
        return index[0]

    def enumerate(self) -> Iterator[Amounts]:
        """Every legal assignment once, in the order of :meth:`rank`: a walk over the
        pairs in which each component offers the amounts its splits continue with (read
        from its splits, sorted, when it has at most :attr:`sort_limit`: a range of
        them shares the amounts fixed so far; else from its options)."""
        pairs = self.pairs
        if not self.total:
            return
        if not pairs:
            yield {}
            return
        listed = [c.listed() if c.total <= self.sort_limit else None
                  for c in self.components]
        depth: list[int] = []  # each pair's position among its component's pairs
        seen = [0] * len(self.components)
        for here in self.owner:
            depth.append(seen[here])
            seen[here] += 1
        # A component's state: the range of its sorted splits that agree with the
        # amounts fixed so far, or those amounts.
        state: list[Any] = [(0, len(v)) if v is not None else {} for v in listed]
        fixed: dict[Pair, int] = {}

        def ranges(vectors: list[tuple[int, ...]], lo: int, hi: int, d: int
                   ) -> Iterator[tuple[int, tuple[int, int]]]:
            while lo < hi:
                a, end = vectors[lo][d], lo + 1
                while end < hi and vectors[end][d] == a:
                    end += 1
                yield a, (lo, end)
                lo = end

        def choices(j: int) -> Iterator[tuple[int, Any]]:
            here = self.owner[j]
            now, vectors = state[here], listed[here]
            if vectors is not None:
                return ranges(vectors, now[0], now[1], depth[j])
            found = self.components[here].options(now, pairs[j])
            return iter([(a, {**now, pairs[j]: a}) for a, _ in found])

        stack = [(choices(0), state[self.owner[0]])]
        while stack:
            j = len(stack) - 1
            here = self.owner[j]
            item = next(stack[-1][0], None)
            if item is None:
                state[here] = stack.pop()[1]
                fixed.pop(pairs[j], None)
                continue
            fixed[pairs[j]], state[here] = item
            if j + 1 == len(pairs):
                yield {p: a for p, a in fixed.items() if a}
            else:
                stack.append((choices(j + 1), state[self.owner[j + 1]]))

    # -- sampling ------------------------------------------------------------------------

    def sample(self, rng: random.Random) -> Amounts:
        """One legal assignment, uniformly at random (each component's split drawn on its
        own: a piece in proportion to its count, then a split of it)."""
        amounts: Amounts = {}
        for c in self.components:
            amounts.update(c.sample(rng))
        return amounts

    # -- project -------------------------------------------------------------------------

    def project(self, values: Mapping[Pair, Fraction],
                exhaustive_limit: int = PROJECT_LIMIT) -> tuple[Amounts, Fraction]:
        """As :meth:`Actions.project`, over the union: ties to the default objective,
        then to the first in the order of :meth:`rank`."""
        found = self.projection(values, exhaustive_limit)
        return found.amounts, found.distance

    def projection(self, values: Mapping[Pair, Fraction],
                   exhaustive_limit: int = PROJECT_LIMIT, deadline: float | None = None,
                   cancel: Cancel | None = None) -> Projection:
        """As :meth:`Actions.projection`, over the union."""
        if self.total > exhaustive_limit:
            chosen, exact = self._nearest_by_search(values, deadline, cancel)
        else:
            chosen, exact = nearest_by_inspection(self.enumerate(), values, self._key,
                                                  stopper(deadline, cancel))
        return Projection(chosen, _distance(chosen, values), exact)

    def _key(self, amounts: Amounts) -> tuple[int, ...]:
        own = mode_space(self.space, modes_of(self.space, amounts))
        return tuple(evaluate(own, amounts, DEFAULTS[self.space.side]).values())

    def _nearest_by_search(self, values: Mapping[Pair, Fraction], deadline: float | None,
                           cancel: Cancel | None) -> tuple[Amounts, bool]:
        from trample.solver.actions.nearest import nearest

        spaces = pieces(self.space)
        if len(spaces) > MAX_SEARCHES:
            raise CountOutOfReach(
                f"project over {len(spaces):,} sets of splits (attackers that may assign "
                f"as though unblocked) would solve more than {MAX_SEARCHES} models; it is "
                "refused rather than approximated")
        best: tuple[Fraction, tuple[int, ...], tuple[int, ...]] | None = None
        chosen: Amounts = {}
        stopped = stopper(deadline, cancel)
        exact = True
        for piece in spaces:
            if best is not None and stopped is not None and stopped():
                exact = False  # the mode spaces not searched may hold a nearer one
                break
            actions = Actions(piece.space)
            if not actions.total:
                continue
            # The nearest of one mode space, ties to the objective, then the first in
            # lexicographic order; the union's nearest is the best of them.
            found = nearest(actions.space, actions.census, values, lexicographic=self.pairs,
                            deadline=deadline, cancel=cancel)
            exact = exact and found.exact
            vector = tuple(found.amounts.get(p, 0) for p in self.pairs)
            key = (_distance(found.amounts, values),
                   tuple(-v for v in self._key(found.amounts)), vector)
            if best is None or key < best:
                best, chosen = key, found.amounts
        return chosen, exact


def _distance(chosen: Mapping[Pair, int], values: Mapping[Pair, Fraction]) -> Fraction:
    zero = Fraction(0)
    distance = sum((abs(v) for p, v in values.items() if p not in chosen), zero)
    distance += sum((abs(a - values.get(p, zero)) for p, a in chosen.items()), zero)
    return distance


# -- entry points --------------------------------------------------------------------


def census_of(space: LegalSpace, *, ordered: bool = False) -> Census | UnionActions:
    """What counts, enumerates and samples ``space``: :class:`Census` (``ordered``: with
    the declared-order program built up front, so that enumeration refuses before its
    first answer), or the union of its pieces when some attacker may assign as though
    unblocked."""
    if space.alternatives:
        return UnionActions(space)
    return Census(space, ordered=ordered)


def actions_of(space: LegalSpace, census: Census | UnionActions | None = None
               ) -> Actions | UnionActions:
    """:class:`Actions` of ``space`` (on ``census``, its counting structure, when given),
    or of the union of its pieces (which is its own counting structure)."""
    if isinstance(census, UnionActions):
        return census
    if space.alternatives:
        return UnionActions(space)
    return Actions(space, census)
