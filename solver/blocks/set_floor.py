"""A floor for the units still open that knows *which* blockers are free (SPEC §11:
``best_block``'s bound).

The search over gangs (:mod:`~trample.solver.blocks.search`) counts each open unit at a
floor: one outcome no better for the attackers than any play of any gang it could get.
Its cheaper floors know how many blockers are free, or which may block each unit alone;
when one strong blocker could block every open attacker, they count it for each of them.
This floor shares the free blockers out exactly: for every set of free blockers ``F`` and
every unit ``u``, over every way to give the units from ``u`` on disjoint gangs within
``F``, the least sum of what each gang is sure to be worth (its quick play: the attackers
can always play it). It is a dynamic program over the sets of blockers (``2**B`` of
them, a row of NumPy arrays each), unit by unit from the last:

    floor[u][F] = least over gangs g of unit u within F of  play(u, g) + floor[u + 1][F - g]

taken separately for each defending player's totals (each at its least, as the other
floors do) and, lexicographically, for the objective's terms. A vector of terms is
added and compared as one integer: each term is a digit of a mixed radix as wide as
that term can range over sums of the units' plays, so that integer order is
lexicographic order and adding vectors adds their integers; the terms that do not fit
in 58 bits count at their least in each unit, added up (a floor still).

With one defending player, a second table also knows how much life they lose: the least
terms over the ways in which they lose at most each amount of net life (a column per
amount). When the best declaration found does not make them lose, a better one must not
either; the ways whose quick plays make them lose are then left out (the attackers could
play those plays, so such a declaration is no better), which the first table cannot do.

Gangs are listed up to a size (:data:`SET_GANGS` gangs per attacker); a larger gang counts
at the floor of its part: the attackers' share of the unit's fixed floor and the shares
of the blockers it takes (what their negative values, and the life their lifelink may
gain, add), at least that many blockers (the floor of the units after it does not fall
when blockers are taken away). A unit of several attackers counts at its fixed floor and
takes none: a floor still, only a weaker one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from math import comb, prod

import numpy as np
import numpy.typing as npt

from trample.solver.blocks.outcome import Outcome

MAX_SET_BLOCKERS = 14
"""The most blockers whose every set gets a floor (``2**14`` columns a unit)."""
SET_GANGS = 300
"""The most gangs of one attacker listed in the floor; larger gangs count at the fixed
floor (12 blockers: every gang of up to 3 of them)."""
_BITS = 58
"""The width of the integer that holds the digits of a vector of terms."""
_INF = 1 << 61
"""No way at all (a way's integer is within 2**58; one play added keeps this far)."""
FAR = 1 << 60
MAX_LIFE_BYTES = 64 << 20
"""The most memory the tables by life lost may take (else they are not made)."""
_HUGE = 1 << 40
"""A play whose numbers reach this far is not encoded (the sums could overflow)."""

Ints = npt.NDArray[np.int64]


@dataclass(slots=True)
class UnitPlays:
    """What one unit may get, for the floor: its listed gangs (masks over the search's
    blockers) with a play each, and the fixed floor of the gangs too large to list."""

    gangs: list[int]
    plays: list[Outcome]
    fixed: Outcome
    """No better for the attackers than any play with any gang."""
    big: int | None
    """The fewest blockers a gang not listed takes (None: every legal gang is listed)."""
    able: int
    """The blockers that may block the unit (a mask)."""
    base: Outcome
    """The attackers' share of the floor of a gang not listed."""
    shares: list[tuple[int, Outcome]]
    """Each blocker's share of it (the blocker's bit, its share), for those whose share
    is not nothing: the floor of a gang is the base and the shares of its blockers."""


def listed_size(able: int, least: int, most: int | None) -> int:
    """The largest gang size whose gangs, with all smaller ones, are at most
    :data:`SET_GANGS` for an attacker ``able`` blockers may block."""
    top, total = 0, 1
    limit = able if most is None else min(able, most)
    while top < limit and total + comb(able, top + 1) <= SET_GANGS:
        top += 1
        total += comb(able, top)
    return top


class SetFloors:
    """The floor of the units from each ``u`` on for every set of free blockers; with
    ``life`` (one defending player: the most net life they may lose and not lose the
    game, and the least total of life lost the search keeps), also the least terms of the
    ways in which the player loses at most each amount of life (:meth:`life_code`)."""

    def __init__(self, units: Sequence[UnitPlays], blockers: int, players: int,
                 terms: int, watch: Callable[[], None] | None = None,
                 life: tuple[int, int] | None = None) -> None:
        self.players = players
        self.terms = terms
        self.units = list(units)
        self.watch = watch
        options = [[*u.plays, u.fixed] for u in self.units]
        # Each term's range over sums of one play per unit (any subset of the units).
        lows = [sum(min(0, *(o.terms[i] for o in opts)) for opts in options)
                for i in range(terms)]
        highs = [sum(max(0, *(o.terms[i] for o in opts)) for opts in options)
                 for i in range(terms)]
        self.box = list(zip(lows, highs, strict=True))
        spans = [h - lo + 1 for lo, h in zip(lows, highs, strict=True)]
        digits = 0
        while digits < terms and prod(spans[:digits + 1]) < 1 << _BITS:
            digits += 1
        self.digits = digits
        self.scale = [prod(spans[i + 1:digits]) for i in range(digits)]
        # What the digits below each one add at their least (for decoding).
        self.below = [sum(lows[j] * self.scale[j] for j in range(i + 1, digits))
                      for i in range(digits)]
        # The terms past the digits: each unit at its least, summed from u on.
        tail_least = [[min(o.terms[i] for o in opts) for i in range(digits, terms)]
                      for opts in options]
        self.tail: list[tuple[int, ...]] = [()] * (len(self.units) + 1)
        self.tail[len(self.units)] = tuple(0 for _ in range(digits, terms))
        for u in range(len(self.units) - 1, -1, -1):
            self.tail[u] = tuple(x + y for x, y in zip(tail_least[u], self.tail[u + 1],
                                                       strict=True))
        self.ok = all(abs(x) < _HUGE for opts in options for o in opts
                      for x in (*o.terms[:digits],
                                *(v for p in o.players for v in p[:3])))
        self.size = 1 << blockers
        self.every = np.arange(self.size, dtype=np.int64)
        self.within: dict[int, npt.NDArray[np.intp]] = {}
        self.tables: list[Ints] = []
        self.lives: list[Ints] = []
        self.life_low = self.life_high = 0
        self.cache: dict[tuple[int, int], Outcome] = {}
        if not self.ok:
            return
        rows = 1 + 3 * self.players
        self.tables = self._build(np.zeros((self.size, rows), dtype=np.int64), self.vector,
                                  lambda _: 0)
        if life is not None and players == 1:
            most_kept, least_total = life
            least_state = least_total
            lost = [[o.players[0][1] for o in opts] for opts in options]
            low = sum(min(0, *x) for x in lost)
            # When no gang's play gains the player more than the shares of its blockers
            # say, no way at all gains more than every blocker's share (gangs are
            # disjoint) and the fixed floors of the units that take no blocker.
            gains: dict[int, int] = {}
            for plays in self.units:
                for bit, o in plays.shares:
                    gains[bit] = min(gains.get(bit, 0), o.players[0][1])
            if all(play.players[0][1] >= sum(n for bit, n in gains.items() if gang & bit)
                   for p in self.units for gang, play in zip(p.gangs, p.plays, strict=True)):
                alone = sum(min(p.fixed.players[0][1], 0) for p in self.units
                            if not p.gangs and p.big is None)
                low = max(low, sum(gains.values()) + alone)
                # Nor do the parts already given gain more (their blockers' shares).
                least_state = max(least_total, sum(gains.values()))
            # A column per amount up to the most that can be asked (what the player may
            # lose less what the given parts gain at most), and a last one for every way
            # (what a budget past them reads: a floor still).
            high = max(low, min(sum(max(0, *x) for x in lost), most_kept - least_state))
            if (len(self.units) + 1) * self.size * (high - low + 2) * 8 <= MAX_LIFE_BYTES:
                self.life_low, self.life_high = low, high
                start = np.where(np.arange(low, high + 2) >= 0, 0, _INF)
                self.lives = self._build(
                    np.broadcast_to(start, (self.size, len(start))).astype(np.int64),
                    lambda o: np.int64(self.code(o)), lambda o: o.players[0][1])

    def code(self, o: Outcome) -> int:
        """The terms' digits of one play as one integer."""
        return sum(o.terms[i] * self.scale[i] for i in range(self.digits))

    def vector(self, o: Outcome) -> Ints:
        """The rows of one play (its terms' digits as one integer, each player's totals)."""
        rows = [self.code(o)]
        for n1, n2, p, _ in o.players:
            rows.extend((n1, n2, p))
        return np.array(rows, dtype=np.int64)

    def _sup(self, mask: int) -> npt.NDArray[np.intp]:
        """The sets that hold every blocker of ``mask``."""
        found = self.within.get(mask)
        if found is None:
            found = self.within[mask] = np.flatnonzero((self.every & mask) == mask)
        return found

    def _build(self, last: Ints, add: Callable[[Outcome], Ints | np.int64],
               shift: Callable[[Outcome], int]) -> list[Ints]:
        """The tables from the last unit back (a row per set of free blockers): ``last``
        after every unit; a play adds ``add(play)`` and moves columns by
        ``shift(play)`` (column ``j`` then reads column ``j - shift`` of the table after
        it; before the first: none, past the last: the last)."""
        after = last
        tables = [after]
        for unit in reversed(self.units):
            if self.watch is not None:
                self.watch()
            now = np.full_like(after, _INF)
            for gang, play in zip(unit.gangs, unit.plays, strict=True):
                if self.watch is not None:
                    self.watch()
                self._least(now, after, self._sup(gang), gang, add(play), shift(play))
            if unit.big is not None:
                self._big(now, after, unit, add, shift)
            if not unit.gangs and unit.big is None:
                self._least(now, after, None, 0, add(unit.fixed), shift(unit.fixed))
            now[now >= FAR] = _INF
            after = now
            tables.append(now)
        tables.reverse()
        return tables

    def _big(self, now: Ints, after: Ints, unit: UnitPlays,
             add: Callable[[Outcome], Ints | np.int64], shift: Callable[[Outcome], int]
             ) -> None:
        """The gangs not listed, into ``now``: the base, the shares of the blockers
        taken, and the table after the unit without them, over every way to take at
        least ``unit.big`` of its blockers (first that many, one at a time; then any of
        those whose share is something, each at most once)."""
        shares = dict(unit.shares)
        bits = [1 << j for j in range(self.size.bit_length() - 1) if unit.able >> j & 1]
        nothing = Outcome(tuple((0, 0, 0, False) for _ in unit.base.players),
                          tuple(0 for _ in unit.base.terms), ({}, {}, {}, {}))
        taken = after
        for _ in range(unit.big or 0):
            fewer = np.full_like(taken, _INF)
            for bit in bits:
                if self.watch is not None:
                    self.watch()
                share = shares.get(bit, nothing)
                self._least(fewer, taken, self._sup(bit), bit, add(share), shift(share))
            fewer[fewer >= FAR] = _INF
            taken = fewer
        for bit, share in unit.shares:
            if unit.able & bit:
                more = taken.copy()
                self._least(more, taken, self._sup(bit), bit, add(share), shift(share))
                more[more >= FAR] = _INF
                taken = more
        self._least(now, taken, None, 0, add(unit.base), shift(unit.base))

    @staticmethod
    def _least(now: Ints, after: Ints, sup: npt.NDArray[np.intp] | None, gang: int,
               add: Ints | np.int64, moved: int) -> None:
        """``now`` at each set of ``sup`` (None: every set) lowered to what ``after``
        holds without ``gang``, plus ``add``, its columns moved by ``moved``."""
        source = after if sup is None else after[sup ^ gang]
        levels = after.shape[1]
        if moved == 0:
            found = source + add
        else:
            # The last column (every way) reads the last; another reads ``moved`` before
            # it, or the last past the columns of amounts, or nothing before the first.
            found = np.full_like(source, _INF)
            last = levels - 1
            found[:, last] = source[:, last] + add
            if moved > 0:
                if moved < last:
                    found[:, moved:last] = source[:, :last - moved] + add
            else:
                back = min(-moved, last)
                found[:, :last - back] = source[:, back:last] + add
                found[:, last - back:last] = source[:, last:] + add
        if sup is None:
            np.minimum(now, found, out=now)
        else:
            now[sup] = np.minimum(now[sup], found)

    def floor(self, u: int, free: int) -> Outcome | None:
        """The floor of the units from ``u`` on with the blockers of ``free`` left; None
        when the numbers are too large to encode."""
        if not self.ok:
            return None
        key = (u, free)
        found = self.cache.get(key)
        if found is not None:
            return found
        column = self.tables[u][free]
        code = int(column[0])
        terms = []
        for i in range(self.digits):
            digit = (code - self.below[i]) // self.scale[i]
            terms.append(digit)
            code -= digit * self.scale[i]
        players = tuple((int(column[1 + 3 * k]), int(column[2 + 3 * k]),
                         int(column[3 + 3 * k]), False) for k in range(self.players))
        found = self.cache[key] = Outcome(players, (*terms, *self.tail[u]), ({}, {}, {}, {}))
        return found

    def life_level(self, budget: npt.ArrayLike) -> tuple[npt.NDArray[np.intp],
                                                         npt.NDArray[np.bool_]]:
        """The row of :meth:`life_code`'s tables for each budget of life lost, and
        whether any way loses so little."""
        level = np.minimum(np.asarray(budget), self.life_high + 1) - self.life_low
        return np.maximum(level, 0), level >= 0

    def life_code(self, u: int, free: int, budget: int) -> int | None:
        """The least terms' digits (one integer) of the units from ``u`` on, with the
        blockers of ``free`` left, over the ways in which their plays lose the player at
        most ``budget`` net life in all; None when none does (or no table)."""
        if not self.lives or budget < self.life_low:
            return None
        code = int(self.lives[u][free, min(budget, self.life_high + 1) - self.life_low])
        return None if code >= FAR else code

    def above(self, gap: Sequence[int], u: int) -> int:
        """The integer ``t`` such that, for every sum ``T`` of one play per unit from
        ``u`` on (its digits encoded as ``E``, the terms past them at their least),
        ``T`` is lexicographically above ``gap`` exactly when ``E > t``."""
        digits, tail = list(gap[:self.digits]), tuple(gap[self.digits:])
        for i, x in enumerate(digits):
            lo, hi = self.box[i]
            if x > hi:
                # Above only by a larger earlier digit.
                return self._encode([*digits[:i], *(h for _, h in self.box[i:])])
            if x < lo:
                # Above with the earlier digits equal or larger.
                return self._encode([*digits[:i], *(lw for lw, _ in self.box[i:])]) - 1
        return self._encode(digits) - (1 if self.tail[u] > tail else 0)

    def _encode(self, digits: Sequence[int]) -> int:
        return sum(x * s for x, s in zip(digits, self.scale, strict=True))
