"""Legal splits as actions: rank, unrank, count with fixed amounts, options, project.

A legal assignment's identity is its vector of amounts over :func:`pair_order`. Its
*index* is its position in :meth:`Census.enumerate`'s order, and :meth:`Actions.unrank`
is built from the same structure that enumeration walks, so the two agree by
construction:

- the parts of the legal space are independent and enumeration takes them as nested
  loops, the first part outermost: an index is a mixed-radix number whose digits are the
  parts' indices, the first part most significant;
- within a part, enumeration walks the sources in turn; at each source it takes the
  moves of the dynamic program in their stored order, and within a move every
  composition (first slot largest first), each followed by every completion of the later
  sources. So the assignments through one (move, composition) form a block of
  ``completions(next state)`` consecutive indices, and the blocks of one move come in
  composition order: ``index = before this move + composition rank * completions +
  index of the rest``;
- compositions with lower bounds come in descending lexicographic order of their free
  parts; the number of them whose first free part is at least ``x`` is
  ``C(free - x + m, m)`` (m parts after the first), which ranks and unranks them in
  closed form, with a binary search for a part.

Counting with some amounts fixed needs no order: a part whose sources share items runs
:class:`~trample.solver.count.FrontierPart` again with the amounts imposed, any other
the same dynamic program with each move's number of compositions restricted to the fixed
values. ``options`` adds to the declared-order program the forward counts (ways to reach
each state) to read off, for one pair, how many completions each amount has; for a part
the frontier program counts, that program again with the pair's every amount a move of
its own (:meth:`FrontierPart.amounts`). Rank and unrank walk :attr:`Census.parts`, which
for a part too wide for the declared order's table is a
:class:`~trample.solver.count.FrontierWalk` (the same moves, one state at a time).

``project`` finds the legal assignment nearest an arbitrary vector in L1 distance, ties
broken by the side's default objective and then by index: exactly, by looking at every
legal assignment in index order when there are at most :data:`PROJECT_LIMIT`, else with
the CP-SAT model of :mod:`trample.solver.actions.nearest`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import comb, prod

from trample.models.document.assignment import Pair
from trample.models.document.combat import brief_repr, check_id, field_name
from trample.models.document.errors import InputError, InternalError
from trample.solver.count.census import Census
from trample.solver.count.compositions import compositions_count
from trample.solver.count.declared import Move, PartSpace, Progress, record_move
from trample.solver.count.frontier import FrontierPart
from trample.solver.count.walk import FrontierWalk
from trample.solver.count.work import CountOutOfReach
from trample.solver.optimize.cancel import Cancel
from trample.solver.optimize.objectives import DEFAULTS, evaluate
from trample.solver.rules.assignment import Amounts
from trample.solver.rules.legal_space import LegalSpace, Source
from trample.solver.rules.validate_many import pair_columns

OPTIONS_LIMIT = 1_000_000
"""Amounts :meth:`Actions.options` may list for one pair before it refuses."""
PROJECT_LIMIT = 20_000
"""Spaces up to this many legal assignments are projected onto by looking at each."""
KEPT_STATES = 250_000
"""States :meth:`Actions.options` keeps the ways to reach and the completions of, for the
amounts fixed before and after a source (a walk asks again and again with the same
ones): past this many in all, or past as many as its programs hold (so that what is kept
never takes more memory than the programs themselves), the kept ones are dropped."""


@dataclass(frozen=True, slots=True)
class Projection:
    """The legal assignment nearest some numbers (:meth:`Actions.projection`)."""

    amounts: Amounts
    distance: Fraction
    """Its L1 distance to the numbers, exactly."""
    exact: bool
    """Whether it is proved to be the nearest with the ties broken as ``project`` says
    (False: a deadline or a cancel stopped the search, and it is the nearest found)."""


# -- compositions in enumeration order --------------------------------------------------


STEPWISE = 1 << 16
"""Up to this many free units, compositions are ranked and unranked by stepping through
binomial coefficients one unit at a time (a multiplication and a division each); above,
each part takes a binary search over directly computed coefficients."""


def rank_composition(total: int, lowers: list[int], values: list[int]) -> int:
    """The position of ``values`` in :func:`~trample.solver.count.all_compositions`'s
    order for ``total`` and ``lowers`` (descending lexicographic order of the free parts).

    Every composition whose part j is larger (the later parts sharing y - 1 or less,
    m parts after j) comes first: C(y - 1 + m, m) of them.
    """
    free = [v - lo for v, lo in zip(values, lowers, strict=True)]
    rest = total - sum(lowers)
    k = len(free)
    index = 0
    if k < 2:
        return 0
    if rest > STEPWISE:
        for j in range(k - 1):
            m = k - 1 - j
            y = rest - free[j]  # what the later parts share
            if y >= 1:
                index += comb(y - 1 + m, m)
            rest = y
        return index
    m, y = k - 1, rest
    current = comb(y + m, m)  # C(y + m, m), kept as y and m go down
    for j in range(k - 1):
        for _ in range(free[j]):
            current = current * y // (y + m)
            y -= 1
        if y >= 1:
            index += current * y // (y + m)
        current = current * m // (y + m)
        m -= 1
    return index


def unrank_composition(total: int, lowers: list[int], index: int) -> list[int]:
    """The composition at position ``index`` of ``all_compositions(total, lowers)``:
    part by part, the smallest share y of the later parts with C(y + m, m) > index."""
    k = len(lowers)
    rest = total - sum(lowers)
    if k == 0:
        return []
    free: list[int] = []
    if rest > STEPWISE:
        for j in range(k - 1):
            m = k - 1 - j
            lo, hi = 0, rest
            while lo < hi:
                mid = (lo + hi) // 2
                if comb(mid + m, m) > index:
                    hi = mid
                else:
                    lo = mid + 1
            if lo >= 1:
                index -= comb(lo - 1 + m, m)
            free.append(rest - lo)
            rest = lo
        free.append(rest)
        return [f + lo for f, lo in zip(free, lowers, strict=True)]
    m, y = k - 1, rest
    current = comb(y + m, m)  # C(y + m, m) > index
    for _ in range(k - 1):
        share, before = y, 0
        while y > 0:
            smaller = current * y // (y + m)  # C(y - 1 + m, m)
            if smaller <= index:
                before = smaller
                break
            current, y = smaller, y - 1
        index -= before
        free.append(share - y)
        current = current * m // (y + m)
        m -= 1
    free.append(y)
    return [f + lo for f, lo in zip(free, lowers, strict=True)]


# -- moves restricted to fixed amounts -------------------------------------------------


def _reduce(move: Move, source: Source, fixed: Mapping[str, int],
            open_target: str | None = None) -> tuple[int, list[int], int | None] | None:
    """``move`` with the amounts of ``fixed`` (target -> amount for this source) imposed:
    the total left for the unfixed slots and their lower bounds, and the lower bound of
    ``open_target``'s slot when it is one (it is then left out of the bounds); None when
    the move cannot agree with ``fixed``."""
    placed: set[str] = set()
    for target, a in move.exact:
        placed.add(target)
        if target in fixed and fixed[target] != a:
            return None
    total = move.total
    lowers: list[int] = []
    open_lower: int | None = None
    for slot in move.slots:
        placed.add(slot.target)
        if slot.target in fixed:
            if fixed[slot.target] < slot.lower:
                return None
            total -= fixed[slot.target]
        elif slot.target == open_target:
            open_lower = slot.lower
        else:
            lowers.append(slot.lower)
    for target, a in fixed.items():
        if target not in placed and a != 0:
            return None  # the move keeps this recipient at 0
    if total < 0:
        return None
    return total, lowers, open_lower


def _ways(move: Move, source: Source, fixed: Mapping[str, int] | None) -> int:
    """Compositions of ``move`` that agree with ``fixed``."""
    if not fixed:
        return move.ways
    reduced = _reduce(move, source, fixed)
    if reduced is None:
        return 0
    total, lowers, _ = reduced
    return compositions_count(total, lowers)


def _backward(ps: PartSpace, fixed: Mapping[str, Mapping[str, int]], down_to: int = 0
              ) -> list[dict[Progress, int]]:
    """Completions of each state under ``fixed`` (source -> target -> amount), for the
    layers from ``down_to`` on (those before are left empty); one more layer at the end,
    empty, meaning 1 for every state. The layers after the last source ``fixed`` names
    are the program's own completions (nothing imposed there), not worked out again: a
    walk that fixes the sources in order asks only for those (enumerating a union of
    145,188 splits took 10 ms a split when each question rebuilt every layer)."""
    n = len(ps.sources)
    out: list[dict[Progress, int]] = [{} for _ in range(n + 1)]
    deepest = max((layer for layer, s in enumerate(ps.sources) if s.id in fixed),
                  default=-1)
    for layer in range(n - 1, down_to - 1, -1):
        if layer > deepest:
            out[layer] = ps.completions[layer]
            continue
        s = ps.sources[layer]
        mine = fixed.get(s.id)
        here: dict[Progress, int] = {}
        for state, moves in ps.moves[layer].items():
            total = 0
            for move in moves:
                after = 1 if layer == n - 1 else out[layer + 1].get(move.next_state, 0)
                if after:
                    total += _ways(move, s, mine) * after
            here[state] = total
        out[layer] = here
    return out


def _forward(ps: PartSpace, fixed: Mapping[str, Mapping[str, int]], upto: int
             ) -> dict[Progress, int]:
    """Ways to reach each state before layer ``upto`` under ``fixed``."""
    reach: dict[Progress, int] = {ps.start: 1}
    for layer in range(upto):
        s = ps.sources[layer]
        mine = fixed.get(s.id)
        following: dict[Progress, int] = {}
        for state, ways in reach.items():
            for move in ps.moves[layer].get(state, ()):
                w = _ways(move, s, mine)
                if w:
                    following[move.next_state] = following.get(move.next_state, 0) + ways * w
        reach = following
    return reach


class Actions:
    """Rank, unrank, count with fixed amounts, options and project over one legal space.

    Built once per space (the dynamic program of :class:`Census` is the costly part);
    every method then reads it. Raises :class:`CountOutOfReach` as ``Census`` does;
    rank and unrank walk the declared order of the sources, built on their first call
    (one state at a time where its table would be too large, each walk within its own
    bound).
    """

    def __init__(self, space: LegalSpace, census: Census | None = None) -> None:
        self.space = space
        self.census = Census(space) if census is None else census
        self.pairs: list[Pair] = pair_columns(space)
        self.column = {pair: j for j, pair in enumerate(self.pairs)}
        self.where: dict[str, tuple[int, int]] = {}
        """Source id -> (part index, layer)."""
        for i, part in enumerate(space.parts):
            for layer, s in enumerate(part.sources):
                self.where[s.id] = (i, layer)
        # Counted in any order (the count does not depend on it); the declared order,
        # which rank, unrank and the counts with fixed amounts walk, is built when one
        # of them first asks.
        self.sizes = [c.count() for c in self.census.counters]
        self.total = prod(self.sizes)
        self._kept: dict[tuple[object, ...], dict[Progress, int]] = {}
        self._kept_states = 0
        self._room = -1  # the states it may keep: worked out on first use

    @property
    def parts(self) -> list[PartSpace]:
        """Each part's dynamic program in the declared order of its sources."""
        return self.census.parts

    # -- counting ------------------------------------------------------------------------

    def count(self, fixed: Mapping[Pair, int] | None = None) -> int:
        """Legal assignments that agree with ``fixed`` (legal pair -> amount)."""
        if not fixed:
            return self.total
        by_source = _by_source(fixed)
        result = 1
        budget = [self.census.limit]
        for i in range(len(self.space.parts)):
            result *= self._part_count(i, by_source, budget)
            if result == 0:
                return 0
        return result

    def _part_count(self, i: int, by_source: Mapping[str, Mapping[str, int]],
                    budget: list[int]) -> int:
        """Assignments of part ``i`` that agree with ``by_source``."""
        part, counter = self.space.parts[i], self.census.counters[i]
        if not any(s.id in by_source for s in part.sources):
            return self.sizes[i]
        if isinstance(counter, FrontierPart):
            # Order-free: the frontier program again, with the amounts imposed.
            return FrontierPart(self.space, part, budget, self.census.limit,
                                by_source).count()
        table = _backward(counter, by_source)
        return table[0].get(counter.start, 0) if counter.sources else 1

    def options(self, fixed: Mapping[Pair, int], pair: Pair) -> list[tuple[int, int]]:
        """Every amount of ``pair`` with a legal completion agreeing with ``fixed``, and
        how many completions it has, in ascending order of amount."""
        by_source = _by_source(fixed)
        source, target = pair
        part, layer = self.where[source]
        others = 1
        budget = [self.census.limit]
        # The declared-order table, where a part has one, answers from what it holds;
        # a part walked instead is counted by the frontier program.
        tables = [None if isinstance(p, FrontierWalk) else p for p in self.parts]
        for i, table in enumerate(tables):
            if i == part:
                continue
            if table is not None and any(s.id in by_source for s in table.sources):
                others *= _backward(table, by_source)[0].get(table.start, 0)
            else:
                others *= self._part_count(i, by_source, budget)
        if others == 0:
            return []
        counter = tables[part]
        if counter is None:
            # Order-free too: the frontier program with this pair's amounts apart.
            mine = by_source.get(source, {})
            if target in mine:
                n = self._part_count(part, by_source, budget)
                return [(mine[target], n * others)] if n else []
            program = FrontierPart(self.space, self.space.parts[part], budget,
                                   self.census.limit, by_source, explicit=pair)
            counted = program.amounts()
            if len(counted) > OPTIONS_LIMIT:
                raise CountOutOfReach(f"{source} -> {target} may take more than "
                                      f"{OPTIONS_LIMIT:,} amounts; listing them is refused")
            return [(a, n * others) for a, n in sorted(counted.items())]
        reach, after = self._around(counter, by_source, layer)
        return [(a, n * others) for a, n in _declared_options(counter, by_source, pair,
                                                              layer, reach, after)]

    def _around(self, ps: PartSpace, by_source: Mapping[str, Mapping[str, int]],
                layer: int) -> tuple[dict[Progress, int], dict[Progress, int]]:
        """The ways to reach each state of source ``layer`` of the program ``ps``
        (:func:`_forward`) and the completions of each state after it (:func:`_backward`;
        empty after the last source) under the amounts of ``by_source``: each kept for
        the next question with the same amounts before (after) the source, within
        :data:`KEPT_STATES` states."""
        def amounts(sources: Sequence[Source]) -> tuple[object, ...]:
            return tuple((s.id, tuple(sorted(by_source[s.id].items())))
                         for s in sources if s.id in by_source)

        reach = self._keep((ps, layer, amounts(ps.sources[:layer])),
                           lambda: _forward(ps, by_source, layer))
        if layer + 1 == len(ps.sources):
            return reach, {}
        later = amounts(ps.sources[layer + 1:])
        if not later:  # nothing imposed after it: the program's own completions
            return reach, ps.completions[layer + 1]
        after = self._keep((ps, -1 - layer, later),
                           lambda: _backward(ps, by_source, layer + 1)[layer + 1])
        return reach, after

    def _keep(self, key: tuple[object, ...], make: Callable[[], dict[Progress, int]]
              ) -> dict[Progress, int]:
        """The table kept under ``key``, or the one ``make`` builds, then kept."""
        found = self._kept.get(key)
        if found is None:
            found = make()
            if self._room < 0:
                held = sum(len(c) for p in self.parts if not isinstance(p, FrontierWalk)
                           for c in p.completions)
                self._room = min(KEPT_STATES, held)
            if self._kept_states + len(found) > self._room:
                self._kept, self._kept_states = {}, 0
            if len(found) <= self._room:
                self._kept[key] = found
                self._kept_states += len(found)
        return found

    # -- rank and unrank -----------------------------------------------------------------

    def unrank(self, index: int) -> Amounts:
        """The legal assignment at position ``index`` of enumeration (0 <= index < count)."""
        if not 0 <= index < self.total:
            raise ValueError(f"index {index} is not below the count {self.total}")
        digits = []
        for size in reversed(self.sizes):
            index, digit = divmod(index, size)
            digits.append(digit)
        digits.reverse()
        amounts: Amounts = {}
        for ps, digit in zip(self.parts, digits, strict=True):
            amounts.update(_unrank_part(ps, digit))
        return amounts

    def rank(self, amounts: Mapping[Pair, int]) -> int:
        """The position of a legal assignment in enumeration (ValueError if not legal)."""
        by_source = _by_source({p: a for p, a in amounts.items() if a})
        index = 0
        for ps, size in zip(self.parts, self.sizes, strict=True):
            index = index * size + _rank_part(ps, by_source)
        return index

    # -- project -------------------------------------------------------------------------

    def project(self, values: Mapping[Pair, Fraction],
                exhaustive_limit: int = PROJECT_LIMIT) -> tuple[Amounts, Fraction]:
        """The legal assignment nearest ``values`` in L1 distance over every pair (pairs
        left out are 0), and that distance; ties go to the best default objective, then
        to the first in enumeration order. Spaces of at most ``exhaustive_limit``
        assignments are looked at one by one, larger ones solved with CP-SAT
        (:mod:`trample.solver.actions.nearest`)."""
        found = self.projection(values, exhaustive_limit)
        return found.amounts, found.distance

    def projection(self, values: Mapping[Pair, Fraction],
                   exhaustive_limit: int = PROJECT_LIMIT, deadline: float | None = None,
                   cancel: Cancel | None = None) -> Projection:
        """:meth:`project`, stopped by ``deadline`` (a :func:`time.monotonic` instant) or
        ``cancel``: then the nearest legal assignment found, not exact."""
        if self.total > exhaustive_limit:
            from trample.solver.actions.nearest import nearest

            found = nearest(self.space, self.census, values, deadline=deadline,
                            cancel=cancel)
            chosen, exact = found.amounts, found.exact
        else:
            terms = DEFAULTS[self.space.side]
            chosen, exact = nearest_by_inspection(
                self.census.enumerate(), values,
                lambda amounts: tuple(evaluate(self.space, amounts, terms).values()),
                stopper(deadline, cancel))
        zero = Fraction(0)
        distance = sum((abs(v) for p, v in values.items() if p not in chosen), zero)
        distance += sum((abs(a - values.get(p, zero)) for p, a in chosen.items()), zero)
        return Projection(chosen, distance, exact)

    # -- vectors -------------------------------------------------------------------------

    def vector(self, amounts: Mapping[Pair, int]) -> list[int]:
        """The amounts over :attr:`pairs`."""
        return [amounts.get(p, 0) for p in self.pairs]


def stopper(deadline: float | None, cancel: Cancel | None) -> Callable[[], bool] | None:
    """Whether the deadline (a :func:`time.monotonic` instant) has passed or the request
    was cancelled, as a function; None when there is neither."""
    if deadline is None and cancel is None:
        return None

    def stopped() -> bool:
        return (cancel is not None and cancel.is_set()) or \
            (deadline is not None and time.monotonic() > deadline)

    return stopped


def nearest_by_inspection(assignments: Iterable[Amounts], values: Mapping[Pair, Fraction],
                          key: Callable[[Amounts], tuple[int, ...]],
                          stopped: Callable[[], bool] | None = None
                          ) -> tuple[Amounts, bool]:
    """The first of ``assignments`` nearest ``values`` in L1 distance, ties broken by the
    largest ``key`` (the default objective) and then by their order; and whether every
    assignment was looked at (``stopped``, asked after each, ends the look early: then
    the nearest of those seen)."""
    best: Fraction | None = None
    ties: list[Amounts] = []
    zero = Fraction(0)
    complete = True
    for amounts in assignments:
        # Relative to giving nothing: only the pairs given an amount change.
        d = zero
        for p, a in amounts.items():
            v = values.get(p, zero)
            d += abs(a - v) - abs(v)
        if best is None or d < best:
            best, ties = d, [amounts]
        elif d == best:
            ties.append(amounts)
        if stopped is not None and stopped():
            complete = False
            break
    chosen = ties[0]
    if len(ties) > 1:
        top = None
        for amounts in ties:  # in order: the first best stays
            found = key(amounts)
            if top is None or found > top:
                top, chosen = found, amounts
    return chosen, complete


def _declared_options(ps: PartSpace, by_source: Mapping[str, Mapping[str, int]],
                      pair: Pair, layer: int, reach: Mapping[Progress, int],
                      after: Mapping[Progress, int]) -> list[tuple[int, int]]:
    """:meth:`Actions.options` within one part's declared-order program: the ways to
    reach each state before the pair's source (``reach``), times its moves, times the
    completions after it (``after``, by the state a move leads to)."""
    source, target = pair
    s = ps.sources[layer]
    mine = by_source.get(source, {})
    last = layer == len(ps.sources) - 1
    found: dict[int, int] = {}
    listed = 0
    for state, ways_in in reach.items():
        for move in ps.moves[layer].get(state, ()):
            ways_out = 1 if last else after.get(move.next_state, 0)
            if not ways_out:
                continue
            weight = ways_in * ways_out
            for amount, ways in _amounts(move, s, mine, target):
                listed += 1
                if listed > OPTIONS_LIMIT:
                    raise CountOutOfReach(
                        f"{source} -> {target} may take more than {OPTIONS_LIMIT:,} "
                        "amounts; listing them is refused")
                found[amount] = found.get(amount, 0) + weight * ways
    return [(a, n) for a, n in sorted(found.items()) if n]


def _by_source(fixed: Mapping[Pair, int]) -> dict[str, dict[str, int]]:
    out: dict[str, dict[str, int]] = {}
    for (source, target), a in fixed.items():
        out.setdefault(source, {})[target] = a
    return out


def _amounts(move: Move, source: Source, fixed: Mapping[str, int], target: str
             ) -> Iterator[tuple[int, int]]:
    """The amounts ``move`` allows ``target`` under ``fixed``, each with its number of
    compositions."""
    if target in fixed:
        w = _ways(move, source, fixed)
        if w:
            yield fixed[target], w
        return
    reduced = _reduce(move, source, fixed, target)
    if reduced is None:
        return
    total, lowers, open_lower = reduced
    for t, a in move.exact:
        if t == target:
            w = _ways(move, source, fixed)
            if w:
                yield a, w
            return
    if open_lower is None:  # kept at 0 by this move
        w = _ways(move, source, fixed)
        if w:
            yield 0, w
        return
    room = total - sum(lowers)
    k = len(lowers)
    if k == 0:
        if room >= open_lower:
            yield room, 1
        return
    # C(left + k - 1, k - 1) as left goes down by one: times left / (left + k - 1).
    left = room - open_lower
    if left < 0:
        return
    ways = comb(left + k - 1, k - 1)
    for amount in range(open_lower, room + 1):
        yield amount, ways
        ways = ways * left // (left + k - 1) if left else 0
        left -= 1


def _unrank_part(ps: PartSpace, index: int) -> Amounts:
    amounts: Amounts = {}
    state = ps.start
    ps.renew()
    for layer, s in enumerate(ps.sources):
        chosen: Move | None = None
        after = 0
        for move in ps.moves_from(layer, state):
            after = ps.after(layer, move.next_state)
            weight = move.ways * after
            if index < weight:
                chosen = move
                break
            index -= weight
        if chosen is None:
            raise InternalError("unrank ran past the last move of a layer")
        composition, index = divmod(index, after)
        values = unrank_composition(chosen.total, [sl.lower for sl in chosen.slots],
                                    composition)
        record_move(amounts, s.id, chosen, values)
        state = chosen.next_state
    return amounts


def _matches(move: Move, source: Source, mine: Mapping[str, int]) -> bool:
    placed = set()
    for target, a in move.exact:
        placed.add(target)
        if mine.get(target, 0) != a:
            return False
    spent = 0
    for slot in move.slots:
        placed.add(slot.target)
        a = mine.get(slot.target, 0)
        if a < slot.lower:
            return False
        spent += a
    if spent != move.total:
        return False
    return all(a == 0 or t in placed for t, a in mine.items())


def _rank_part(ps: PartSpace, by_source: Mapping[str, Mapping[str, int]]) -> int:
    index = 0
    state = ps.start
    ps.renew()
    for layer, s in enumerate(ps.sources):
        mine = by_source.get(s.id, {})
        chosen: Move | None = None
        after = 0
        for move in ps.moves_from(layer, state):
            after = ps.after(layer, move.next_state)
            if after and _matches(move, s, mine):
                chosen = move
                break
            index += move.ways * after
        if chosen is None:
            raise ValueError(f"the amounts of {s.id} fit no legal assignment")
        values = [mine.get(sl.target, 0) for sl in chosen.slots]
        index += rank_composition(chosen.total, [sl.lower for sl in chosen.slots],
                                  values) * after
        state = chosen.next_state
    return index


# -- parsing the parameters -------------------------------------------------------------


def _listed(space: LegalSpace, pair: Pair) -> bool:
    """Whether ``pair`` is one of :func:`pair_order` (which, with an attacker that may
    assign as though unblocked, holds the pairs of both its sets of splits)."""
    if pair in space.pairs:
        return True
    if not space.alternatives:
        return False
    from trample.solver.rules.pieces import union_pair_set

    return pair in union_pair_set(space)


def parse_pair(space: LegalSpace, raw: object, path: str = "pair") -> Pair:
    """``[source, target]`` (or ``{source, target}``): a pair of :func:`pair_order`."""
    if isinstance(raw, Mapping):
        for key in raw:
            if key not in ("source", "target"):
                raise InputError(f"{path}.{field_name(key)}",
                                 "unknown field (accepted: source, target)")
        for key in ("source", "target"):
            if key not in raw:
                raise InputError(f"{path}.{key}", "required field is missing")
        source = check_id(raw["source"], f"{path}.source")
        target = check_id(raw["target"], f"{path}.target")
    elif isinstance(raw, list) and len(raw) == 2:
        source = check_id(raw[0], f"{path}[0]")
        target = check_id(raw[1], f"{path}[1]")
    else:
        raise InputError(path, "must be a pair [source, target]")
    if not _listed(space, (source, target)):
        raise InputError(path, f"({source!r}, {target!r}) is not a legal (source, "
                         "recipient) pair of pair_order")
    return source, target


def _entries(raw: object, path: str) -> Iterator[tuple[str, Mapping[str, object]]]:
    if isinstance(raw, (str, bytes)) or not isinstance(raw, list):
        raise InputError(path, "must be a list of {source, target, amount} entries")
    for i, entry in enumerate(raw):
        where = f"{path}[{i}]"
        if not isinstance(entry, Mapping):
            raise InputError(where, "must be an object {source, target, amount}")
        for key in entry:
            if key not in ("source", "target", "amount"):
                raise InputError(f"{where}.{field_name(key)}", "unknown field (accepted: "
                                 "amount, source, target)")
        for key in ("source", "target", "amount"):
            if key not in entry:
                raise InputError(f"{where}.{key}", "required field is missing")
        yield where, entry


def parse_fixed(space: LegalSpace, raw: object, path: str = "fixed") -> dict[Pair, int]:
    """``[{source, target, amount}, ...]`` over pairs of :func:`pair_order`, amounts
    whole numbers >= 0 (0 fixes the pair to 0); None is no entry."""
    if raw is None:
        return {}
    fixed: dict[Pair, int] = {}
    for where, entry in _entries(raw, path):
        source = check_id(entry["source"], f"{where}.source")
        target = check_id(entry["target"], f"{where}.target")
        amount = entry["amount"]
        if isinstance(amount, bool) or not isinstance(amount, int):
            raise InputError(f"{where}.amount", f"must be an integer, not "
                             f"{brief_repr(amount)}")
        if amount < 0:
            raise InputError(f"{where}.amount", f"must be at least 0, not {amount}")
        if not _listed(space, (source, target)):
            raise InputError(where, f"({source!r}, {target!r}) is not a legal (source, "
                             "recipient) pair of pair_order")
        if (source, target) in fixed:
            raise InputError(where, f"the pair ({source!r}, {target!r}) appears twice")
        fixed[(source, target)] = amount
    return fixed


def parse_values(space: LegalSpace, raw: object, path: str = "amounts"
                 ) -> dict[Pair, Fraction]:
    """``[{source, target, amount}, ...]`` with any finite numbers, to any pair of the
    combat's ids (a creature as source); exact as fractions."""
    combat = space.combat
    values: dict[Pair, Fraction] = {}
    for where, entry in _entries(raw, path):
        source = check_id(entry["source"], f"{where}.source")
        target = check_id(entry["target"], f"{where}.target")
        amount = entry["amount"]
        if isinstance(amount, bool) or not isinstance(amount, (int, float)):
            raise InputError(f"{where}.amount", f"must be a number, not {brief_repr(amount)}")
        if isinstance(amount, float) and (amount != amount or amount in (float("inf"),
                                                                         float("-inf"))):
            raise InputError(f"{where}.amount", "must be a finite number")
        if source not in combat or combat.kind(source) != "creature":
            raise InputError(f"{where}.source", f"{source!r} is not a creature")
        if target not in combat:
            raise InputError(f"{where}.target", f"{target!r} is not a player, creature, "
                             "planeswalker or battle")
        if (source, target) in values:
            raise InputError(where, f"the pair ({source!r}, {target!r}) appears twice")
        values[(source, target)] = Fraction(amount)
    return values


def parse_index(raw: object, total: int, path: str = "index") -> int:
    """An integer with 0 <= index < ``total`` (any size)."""
    if isinstance(raw, bool) or not isinstance(raw, int):
        raise InputError(path, f"must be an integer, not {brief_repr(raw)}")
    if not 0 <= raw < total:
        raise InputError(path, f"must be at least 0 and below the count {total}, "
                         f"not {brief_repr(raw)}")
    return raw


def number(value: Fraction) -> int | float:
    """A distance for JSON: an integer when whole, else the nearest float."""
    return int(value) if value.denominator == 1 else float(value)
