"""The best block and the best attack, exactly (SPEC §11: ``best_block``, ``best_attack``).

**Blocks.** When every blocker blocks at most one attacker, a declaration is a *gang*
(a set of blockers, maybe empty) for each attacker, and the parts of its combat are the
attackers with their gangs (attackers of one planeswalker or battle together: a *unit*).
The search gives the units their gangs one after another (depth first, branch and
bound): a unit whose gangs are all given has its part's profile
(:class:`~trample.solver.blocks.value.Profile`); a unit still open is counted at a
*floor*, one outcome no worse for the attackers than any play of any gang it could get
(each term at its least; a defending player's life lost at least minus all the lifelink
that could block it). As no blocker blocks two attackers, the free blockers are also
shared out among the open units: those that too few free blockers are left to block all
count their unblocked play, and each unit's floor by the number of blockers it gets is
summed over the ways to give them no more than the free ones in all. A third floor knows
which blockers are free (:mod:`~trample.solver.blocks.set_floor`): the least, over every
way to give the open units disjoint gangs of the free blockers, of their quick plays
added up, and of those in which the defending player does not lose when the best
declaration found does not; it judges all of a unit's gangs at once. The attackers' best
over the given profiles and the floors
(:func:`~trample.solver.blocks.value.combine`) is then at most the value of every
declaration below, so a branch whose floor is already worse for the defenders than the
best declaration found is cut. Gangs are tried best first by their own part's value,
so that a good declaration is found early. Among declarations of equal value the first
in declaration order is kept (a branch whose declared pairs already come after the
best one's is cut at equal value too, unless ``ties`` asks how many there are).

Other boards (a blocker that may block several attackers) are searched by walking
their legal declarations (:class:`~trample.solver.blocks.space.Program`), at most
:data:`MAX_WALK`.

**Attacks.** Every legal attack declaration in attack order, each valued by its best
block; a block that already holds the attack to the best value so far ends that
attack's search (it cannot be better).
"""

from __future__ import annotations

import time
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from functools import reduce
from itertools import combinations, product
from math import comb
from operator import or_

import numpy as np
import numpy.typing as npt

from trample.models.document.board import Board
from trample.models.document.errors import InputError
from trample.models.game.declarations import (
    AttackRules,
    BlockRules,
    attack_rules,
    block_rules,
    declaration_vector,
)
from trample.solver.blocks.direct import DIRECT_TERMS, plain_creature, quick_numbers
from trample.solver.blocks.outcome import Outcome, Players, Profile, Vector
from trample.solver.blocks.set_floor import (
    FAR,
    MAX_SET_BLOCKERS,
    SetFloors,
    UnitPlays,
    listed_size,
)
from trample.solver.blocks.space import Program, most_obeyed, program
from trample.solver.blocks.value import (
    Evaluation,
    Evaluator,
    Table,
    most_dealt,
    non_attacking_value,
)
from trample.solver.optimize.cancel import Cancel

MAX_WALK = 200_000
"""The most declarations a board searched by walking them all may have."""
MAX_NODES = 5_000_000
"""The most branches one search may open before it is refused."""


class Stopped(Exception):
    """The time limit passed or the request was cancelled."""


@dataclass(slots=True)
class BlockAnswer:
    """The best block found, its exact value, and how sure it is."""

    status: str
    blocks: dict[str, tuple[str, ...]]
    evaluation: Evaluation
    ties: int | None = None
    valued: int = 0
    """Declarations valued (a measure of the search's work)."""


@dataclass(slots=True)
class AttackAnswer:
    """The best attack found, the defenders' best block against it, their value."""

    status: str
    attacks: dict[str, str]
    block: BlockAnswer
    ties: int | None = None
    valued: int = 0


@dataclass(slots=True)
class _Watch:
    deadline: float | None
    cancel: Cancel | None
    ticks: int = 0

    def check(self) -> None:
        self.ticks += 1
        if self.cancel is not None and self.cancel.is_set():
            raise Stopped
        if self.deadline is not None and self.ticks % 64 == 0 \
                and time.monotonic() > self.deadline:
            raise Stopped


@dataclass(slots=True)
class _Best:
    value: Vector | None = None
    vector: tuple[int, ...] | None = None
    blocks: dict[str, tuple[str, ...]] = field(default_factory=dict)
    ties: int = 0
    valued: int = 0


def _better(value: Vector, vector: tuple[int, ...], best: _Best) -> bool:
    return best.value is None or value < best.value or (
        value == best.value and best.vector is not None and vector < best.vector)


def best_block(board: Board, terms: Sequence[str], *, deadline: float | None = None,
               cancel: Cancel | None = None, ties: bool = False,
               stop_at: Vector | None = None, evaluator: Evaluator | None = None
               ) -> BlockAnswer:
    """The legal block declaration of least value (the first in declaration order among
    equals), proved unless the deadline or a cancel stops the search (then ``feasible``,
    with the best found and its exact value). With ``stop_at``, the search ends as soon
    as a declaration of value at most ``stop_at`` is found (its answer is then only that:
    the attack it answers cannot be better)."""
    rules = block_rules(board)
    ev = evaluator or Evaluator(board, terms, constant_survivals=non_attacking_value(board),
                                deadline=deadline)
    watch = _Watch(deadline, cancel)
    ev.watch = watch.check
    best = _Best()
    status = "optimal"
    try:
        few = _few_declarations(rules)
        if few is None and all(rules.limit.get(b, 1) <= 1 or len(rules.choices_of[b]) <= 1
                               for b in rules.blockers):
            _Gangs(rules, ev, watch, best, ties, stop_at).run()
        else:
            _walk(rules, ev, watch, best, ties, stop_at)
    except Stopped:
        status = "feasible"
    ev.watch = None
    if best.value is None:
        # Stopped before any declaration: the empty one is always legal... unless a
        # requirement says otherwise; the first legal declaration then (worked out by
        # the program, which on a large board takes long: only when it must).
        first = next(program(rules).walk()) if rules.requirements else {}
        best.blocks = first
        status = "feasible"
    evaluation = ev.evaluate(ev.made(best.blocks))
    if ev.status != "optimal":
        status = "feasible"
    return BlockAnswer(status, best.blocks, evaluation, best.ties if ties else None,
                       best.valued)


FEW = 4_000
"""A board with requirements of at most this many legal declarations is searched by
valuing each one when they are a small share of the restriction-legal ones
(:data:`SPARSE`): the search over gangs would reach mostly leaves that obey too few
requirements (509.1c)."""
SPARSE = 1_000
"""The share (one in this many) of legal declarations among the restriction-legal ones
below which the requirements are said to leave few."""
FEW_ALWAYS = 256
"""A board of at most this many legal declarations is searched by valuing each one."""


def _few_declarations(rules: BlockRules) -> int | None:
    """The number of legal declarations when the board is searched by valuing each one
    (counted exactly, cheaply, by the programs of :mod:`.space`), else None."""
    if not rules.requirements:
        return None
    try:
        total = program(rules).count()
        if total <= FEW_ALWAYS:
            return total
        if total > FEW:
            return None
        free = Program(rules).count()
    except InputError:
        return None
    # Where most restriction-legal declarations are legal too, the gangs' search finds
    # them as quickly as without requirements, far sooner than valuing every one.
    return total if total * SPARSE <= free else None


def _walk(rules: BlockRules, ev: Evaluator, watch: _Watch, best: _Best, ties: bool,
          stop_at: Vector | None) -> None:
    found = program(rules)
    total = found.count()
    if total > MAX_WALK:
        raise InputError("combat", f"too large to search exactly: {total:,} legal block "
                         f"declarations where a blocker may block several attackers (the "
                         f"limit is {MAX_WALK:,})")
    for blocks in found.walk():
        watch.check()
        value = ev.evaluate(ev.made(blocks)).value
        best.valued += 1
        vector = declaration_vector(rules, blocks)
        if best.value is not None and value == best.value:
            best.ties += 1
        if _better(value, vector, best):
            if best.value is None or value < best.value:
                best.ties = 1
            best.value, best.vector, best.blocks = value, vector, blocks
        if stop_at is not None and best.value is not None and best.value <= stop_at:
            return


class _Gangs:
    """The branch and bound over each attacker's gang (every blocker blocks at most one
    attacker)."""

    def __init__(self, rules: BlockRules, ev: Evaluator, watch: _Watch, best: _Best,
                 ties: bool, stop_at: Vector | None) -> None:
        self.rules = rules
        self.ev = ev
        self.watch = watch
        self.best = best
        self.ties = ties
        self.stop_at = stop_at
        self.board = rules.board
        combat = self.board.combat
        self.blockers = list(rules.blockers)
        self.bit = {b: 1 << i for i, b in enumerate(self.blockers)}
        self.blocker_order = {b: i for i, b in enumerate(self.blockers)}
        # Units: attackers of one planeswalker or battle together, in document order of
        # their first attacker.
        units: dict[str, list[str]] = {}
        for a in rules.attackers:
            target = combat.creature(a).attacking
            key = target if target is not None and combat.kind(target) in (
                "planeswalker", "battle") else a
            units.setdefault(key, []).append(a)
        self.able = {a: sum(self.bit[b] for b in self.blockers
                            if a in rules.choices_of[b]) for a in rules.attackers}
        # The order the units get their gangs: first those nothing can block (one option:
        # their part is known from the start), then the most threatening, whose parts
        # weigh most on the value (so that the floors of the units still open are small).
        self.units = sorted((tuple(u) for u in units.values()), key=self._threat)
        self.unit_able = [reduce(or_, (self.able[a] for a in unit), 0) for unit in self.units]
        """The blockers that may block some attacker of each unit (a bitwise or)."""
        self.target = most_obeyed(rules) if rules.requirements else None
        self.totals = ev.totals(range(len(ev.opponents)))
        floors = [self._floor(unit) for unit in self.units]
        self.floors = floors
        self._rest_cache: dict[tuple[int, int], Outcome] = {}
        self.options: dict[tuple[int, int], list[tuple[dict[str, int], Outcome | None]]] = {}
        """Each unit's ways to get gangs from some free blockers, best first."""
        self.gangs: dict[tuple[int, tuple[int, ...]], tuple[Vector, tuple[int, ...],
                                                            Outcome | None]] = {}
        """Per unit and gangs: the value of its quick play alone, its declaration vector,
        the quick play."""
        self.nodes = 0
        self.profiles: dict[tuple[tuple[str, ...], tuple[int, ...]], Profile | None] = {}
        """The profile of each unit's part, by its gangs."""
        self.tables: list[_Floors | bool | None] = [False] * len(self.units)
        """Per unit, its floor for each set of free blockers (None: the fixed floor; False:
        not yet worked out, which it is when a floor is first asked of it: a search that
        stops at its first declaration, as best_attack's do, needs none)."""
        self.shared: list[list[Outcome]] | None = None
        """Per unit ``u`` and number of free blockers, :meth:`_shared_floor` (worked out
        when a floor is first asked)."""
        self.rest_able = [reduce(or_, self.unit_able[u:], 0)
                          for u in range(len(self.units) + 1)]
        """The blockers that may block some unit from ``u`` on."""
        # The attackers and blockers whose parts have direct_quick's shape whatever the
        # gang (the board has no effects, the terms are its own, each creature plain).
        active = combat.active_player
        plain = not (combat.prevention or combat.multipliers or combat.loss_thresholds
                     or combat.planeswalkers or combat.battles) \
            and DIRECT_TERMS.issuperset(ev.rest)
        self.plain_attackers = {
            a: c for a in rules.attackers
            for c in (combat.creature(a),)
            if plain and plain_creature(c) and c.controller == active and not c.blocking
            and c.blocked is None and c.attacking is not None
            and combat.kind(c.attacking) == "player" and c.attacking != active}
        self.in_order = [(self.bit[c.id], c) for c in combat.creatures if c.id in self.bit]
        """The blockers in the document's order, each with its bit."""
        self.plain_blockers = sum(bit for bit, c in self.in_order
                                  if plain and plain_creature(c) and c.controller != active
                                  and c.attacking is None)
        self.unit_rows: dict[int, tuple[npt.NDArray[np.int64], npt.NDArray[np.int64]]] = {}
        """Per unit, :meth:`_gang_rows`."""
        self.sets: SetFloors | bool | None = False
        """:meth:`_set_floor`'s tables (False: not yet worked out; None: not worked out
        for this board)."""

    def _threat(self, unit: Sequence[str]) -> tuple[int, int, int]:
        combat = self.board.combat
        blockable = any(self.able[a] for a in unit)
        # An attacker a requirement names (lure, must be blocked) goes before the others:
        # the requirements are judged as soon as its gang is given (:meth:`_obeyable`).
        named = any(r.creature in unit or r.attacker in unit
                    for r in self.rules.requirements if r.kind != "must_block")
        weight = sum(max(combat.creature(a).power, 0) + abs(combat.creature(a).value)
                     for a in unit)
        return (1 if blockable else 0, 0 if named else 1, -weight)

    # -- floors --------------------------------------------------------------------------

    def _floor(self, unit: Sequence[str]) -> Outcome:
        """One outcome no better for the attackers than any play of the unit's part,
        whatever gangs it gets: each term at its least, a player's life lost at least
        minus all the lifelink that could block the unit."""
        base, shares = self._floor_shares(unit)
        return _sum_outcomes([base, *shares.values()], len(self.ev.opponents),
                             len(self.ev.rest))

    def _floor_shares(self, unit: Sequence[str]) -> tuple[Outcome, dict[str, Outcome]]:
        """:meth:`_floor` as the attackers' share and each blocker's that may block the
        unit: the floor of the part with a gang is the attackers' share plus those of
        the gang's blockers (a blocker's: its value if it is negative, on ``deaths`` and
        ``trade``; the life its lifelink may gain its controller, on the life lost)."""
        combat = self.board.combat
        ev = self.ev
        able = [combat.creature(b) for b in self.blockers
                if any(a in self.rules.choices_of[b] for a in unit)]
        attackers = [combat.creature(a) for a in unit]
        base = Outcome(tuple((0, 0, 0, False) for _ in ev.opponents),
                       tuple(-sum(max(c.value, 0) for c in attackers) if term == "trade"
                             else sum(min(c.value, 0) for c in attackers)
                             if term == "survivals" else 0 for term in ev.rest),
                       ({}, {}, {}, {}))
        shares = {}
        for c in able:
            # Lifelink gains what the blocker deals.
            gain = most_dealt(combat, c) if c.has("lifelink") else 0
            players = tuple((-gain, -gain, 0, False) if c.controller == p else (0, 0, 0, False)
                            for p in ev.opponents)
            shares[c.id] = Outcome(players, tuple(min(c.value, 0) if term in ("trade", "deaths")
                                                  else 0 for term in ev.rest),
                                   ({}, {}, {}, {}))
        return base, shares

    def _tables(self, u: int) -> _Floors | None:
        """A unit's floor for every set of free blockers: over each gang it may get from
        them, the least of each player's total and the least of the terms (in order) of
        that gang's quick play (:meth:`Evaluator.quick`), which the attackers can always
        play. Worked out for a unit of one attacker with at most :data:`FLOOR_GANGS`
        gangs; None otherwise (the unit then counts at its fixed floor)."""
        unit = self.units[u]
        if len(unit) != 1:
            return None
        able = [b for b in self.blockers if self.able[unit[0]] & self.bit[b]]
        if (1 << len(able)) > FLOOR_GANGS:
            return None
        least = self.rules.least.get(unit[0], 1)
        most = self.rules.most.get(unit[0])
        size = 1 << len(able)
        players: list[Players | None] = [None] * size
        terms: list[Vector | None] = [None] * size
        for sub in range(size):
            n = bin(sub).count("1")
            if n and (n < least or (most is not None and n > most)):
                continue
            mask = sum(self.bit[b] for j, b in enumerate(able) if sub >> j & 1)
            play = self._quick(u, {unit[0]: mask})
            if play is None:
                return None
            players[sub], terms[sub] = play.players, play.terms
        # Least over the subsets of each set (sum over subsets, with min for sum).
        for j in range(len(able)):
            bit = 1 << j
            for sub in range(size):
                if sub & bit:
                    lower = sub ^ bit
                    players[sub] = _least_players(players[sub], players[lower])
                    if terms[sub] is None or (terms[lower] is not None
                                              and terms[lower] < terms[sub]):  # type: ignore[operator]
                        terms[sub] = terms[lower]
        return _Floors([self.bit[b] for b in able],
                       [Outcome(pl, te, ({}, {}, {}, {}))  # type: ignore[arg-type]
                        for pl, te in zip(players, terms, strict=True)])

    def _rest_floor(self, u: int, free: int) -> Outcome:
        """What the units from ``u`` on count for, with the blockers of ``free`` left
        (worked out once per unit and free blockers that matter to the units left)."""
        key = (u, free & self.rest_able[u])
        found = self._rest_cache.get(key)
        if found is None:
            floors = []
            fixed = []
            for v in range(u, len(self.units)):
                table = self.tables[v]
                if table is False:
                    table = self.tables[v] = self._tables(v)
                if isinstance(table, _Floors):
                    floors.append(table.floor(free))
                else:
                    floors.append(self.floors[v])
                    fixed.append(v)
            floors.extend(self._unblocked(fixed, free))
            found = self._rest_cache[key] = _sum_outcomes(floors, len(self.ev.opponents),
                                                          len(self.ev.rest))
        return found

    def _by_size(self, v: int) -> list[Outcome]:
        """Unit ``v``'s floor for each number of blockers it may get (index ``k``: any
        gang of at most ``k`` blockers, whichever): over its legal gangs of at most
        :data:`SIZE_GANGS`-bounded size, the least of each player's total and the least
        terms of their quick plays; past that size, or for a unit of several attackers or
        in which the defenders choose, its fixed floor joins the least."""
        fixed = self.floors[v]
        unit = self.units[v]
        size = len(self.blockers)
        if len(unit) != 1:
            return [fixed] * (size + 1)
        attacker = unit[0]
        able = [self.bit[b] for b in self.blockers if self.able[attacker] & self.bit[b]]
        least = self.rules.least.get(attacker, 1)
        most = self.rules.most.get(attacker)
        top = 0
        total = 1
        while top < len(able) and total + comb(len(able), top + 1) <= SIZE_GANGS:
            top += 1
            total += comb(len(able), top)
        players: list[Players | None] = [None] * (size + 1)
        terms: list[Vector | None] = [None] * (size + 1)
        for k in range(top + 1):
            if k and (k < least or (most is not None and k > most)):
                continue
            for picked in combinations(able, k):
                play = self._quick(v, {attacker: sum(picked)})
                if play is None:
                    return [fixed] * (size + 1)
                players[k] = _least_players(players[k], play.players)
                if terms[k] is None or play.terms < terms[k]:  # type: ignore[operator]
                    terms[k] = play.terms
        if top < len(able):
            # Larger gangs are not looked at: each counts at the fixed floor.
            players[top + 1] = _least_players(players[top + 1], fixed.players)
            if terms[top + 1] is None or fixed.terms < terms[top + 1]:  # type: ignore[operator]
                terms[top + 1] = fixed.terms
        out: list[Outcome] = []
        for k in range(size + 1):
            if k:
                players[k] = _least_players(players[k], players[k - 1])
                if terms[k] is None or (terms[k - 1] is not None
                                        and terms[k - 1] < terms[k]):  # type: ignore[operator]
                    terms[k] = terms[k - 1]
            out.append(Outcome(players[k], terms[k], ({}, {}, {}, {})))  # type: ignore[arg-type]
        return out

    def _shared_floor(self, u: int, free: int) -> Outcome | None:
        """What the units from ``u`` on count for when the free blockers are shared among
        them (no blocker blocks two attackers): the least, over every way to give each
        open unit a number of blockers adding up to at most the free ones that may block
        them, of the sum of each unit's floor for its number (:meth:`_by_size`), each
        player's total and the terms (in order) at their least. None before the floors
        are worked out (a search that stops at its first declaration needs none)."""
        if self.shared is None:
            if self.best.value is None:
                return None
            self.shared = self._shared_tables()
        return self.shared[u][min((free & self.rest_able[u]).bit_count(),
                                  len(self.blockers))]

    def _shared_tables(self) -> list[list[Outcome]]:
        size = len(self.blockers)
        players_n, terms_n = len(self.ev.opponents), len(self.ev.rest)
        zero = _sum_outcomes([], players_n, terms_n)
        after = [zero] * (size + 1)
        tables = [after]
        for v in range(len(self.units) - 1, -1, -1):
            by = self._by_size(v)
            now = []
            for m in range(size + 1):
                players: Players | None = None
                terms: Vector | None = None
                for k in range(m + 1):
                    mine, rest = by[k], after[m - k]
                    added = _sum_outcomes((mine, rest), players_n, terms_n)
                    players = _least_players(players, added.players)
                    if terms is None or added.terms < terms:
                        terms = added.terms
                assert players is not None and terms is not None
                now.append(Outcome(players, terms, ({}, {}, {}, {})))
            after = now
            tables.append(now)
        tables.reverse()
        return tables

    def _set_floor(self, u: int, free: int) -> Outcome | None:
        """What the units from ``u`` on count for with exactly the blockers of ``free``
        left (:mod:`.set_floor`): worked out when first asked once the search has opened
        :data:`SET_FLOOR_AFTER` branches, for a board of at most :data:`MAX_SET_BLOCKERS`
        blockers."""
        if self.sets is False:
            if self.best.value is None or self.nodes < SET_FLOOR_AFTER \
                    or len(self.blockers) > MAX_SET_BLOCKERS:
                return None
            totals = self.totals
            life = (totals.losing[0][0] - 1, totals.bounds[0][0]) \
                if len(totals.players) == 1 and totals.losses_at == 0 else None
            self.sets = SetFloors([self._unit_plays(v) for v in range(len(self.units))],
                                  len(self.blockers), len(self.ev.opponents),
                                  len(self.ev.rest), self.watch.check, life)
        if not isinstance(self.sets, SetFloors):
            return None
        return self.sets.floor(u, free & self.rest_able[u])

    def _loses_or_worse(self, u: int, free: int, table: Table) -> bool:
        """Whether, the best found not losing, every way the units from ``u`` on may play
        their quick plays either makes the defending player lose or is worse than the
        best found (:meth:`SetFloors.life_code`): then so is every declaration below."""
        sets, best = self.sets, self.best.value
        if not isinstance(sets, SetFloors) or not sets.lives or best is None or best[0]:
            return False
        at_life = self.totals.losing[0][0]
        lowest = self.totals.bounds[0][0]
        for state, (terms, _) in table.items():
            n2 = state[0][1]
            if n2 <= lowest:
                continue  # a total kept at the least: the life lost may be less
            code = sets.life_code(u, free, at_life - 1 - n2)
            if code is None or code > sets.above([b - t for b, t in
                                                  zip(best[1:], terms, strict=True)], u):
                return True
        return False

    def _unit_plays(self, v: int) -> UnitPlays:
        """Unit ``v``'s listed gangs and their quick plays, for :meth:`_set_floor`."""
        unit = self.units[v]
        fixed = self.floors[v]
        base, by_blocker = self._floor_shares(unit)
        shares = [(self.bit[b], o) for b, o in by_blocker.items()
                  if any(o.terms) or any(any(p[:3]) for p in o.players)]
        if len(unit) != 1:
            return UnitPlays([], [], fixed, None, self.unit_able[v], base, shares)
        attacker = unit[0]
        able = [self.bit[b] for b in self.blockers if self.able[attacker] & self.bit[b]]
        least = self.rules.least.get(attacker, 1)
        most = self.rules.most.get(attacker)
        top = listed_size(len(able), least, most)
        gangs: list[int] = []
        plays: list[Outcome] = []
        for k in range(top + 1):
            if k and k < least:
                continue
            for picked in combinations(able, k):
                mask = sum(picked)
                play = self._quick(v, {attacker: mask})
                gangs.append(mask)
                plays.append(play if play is not None else self._gang_floor(base, shares, mask))
        larger = max(top + 1, least)
        big = larger if larger <= (len(able) if most is None else min(len(able), most)) \
            else None
        return UnitPlays(gangs, plays, fixed, big, self.unit_able[v], base, shares)

    def _gang_floor(self, base: Outcome, shares: Sequence[tuple[int, Outcome]],
                    gang: int) -> Outcome:
        """The floor of a part with this gang: the attackers' share and its blockers'."""
        return _sum_outcomes([base, *(o for bit, o in shares if gang & bit)],
                             len(self.ev.opponents), len(self.ev.rest))

    def _kept_gangs(self, u: int, free: int, table: Table) -> list[int] | None:
        """The gangs unit ``u`` (one attacker) may get from ``free`` that the floor of
        :meth:`_set_floor` does not already cut, best first as :meth:`_unit_options`
        ranks them; all of them judged at once, on the NumPy tables, with each gang's
        quick play where the floor lists it and the floor of its part where not (no play
        worked out for a gang cut so). None where this does not apply: a unit of several
        attackers, several defending players, ``losses`` not first, no floor yet."""
        totals = self.totals
        if self._set_floor(u, free) is None or len(self.units[u]) != 1 \
                or len(totals.players) != 1 or totals.losses_at > 0:
            return None
        sets = self.sets
        assert isinstance(sets, SetFloors)
        best = self.best.value
        assert best is not None
        arrays = self.unit_rows.get(u)
        if arrays is None:
            arrays = self.unit_rows[u] = self._gang_rows(u, sets)
        gangs, rows = arrays
        within = np.flatnonzero((gangs & ~free) == 0)
        picked, rows = gangs[within], rows[:, within]
        after = sets.tables[u + 1][free & ~picked].T
        code = rows[0] + after[0]
        lo, hi, most = totals.bounds[0]
        at_life, at_poison = totals.losing[0]
        at = totals.losses_at
        rest = best if at < 0 else best[1:]
        cut = np.zeros(len(picked), dtype=bool)
        for state, (terms, _) in table.items():
            n1, n2, p, f = state[0]
            above_at = sets.above([b - t for b, t in zip(rest, terms, strict=True)], u)
            above = code > above_at
            if at < 0:
                cut |= above
                continue
            lost = f | (np.clip(n1 + rows[1], lo, hi) + after[1] >= at_life) \
                | (np.clip(n2 + rows[2], lo, hi) + after[2] >= at_life) \
                | (np.minimum(p + rows[3], most) + after[3] >= at_poison)
            cut |= (lost > best[0]) | ((lost == best[0]) & above)
            if sets.lives and not best[0]:
                # The best found does not lose: neither may a better one (life_code).
                total = np.clip(n2 + rows[2], lo, hi)
                level, some = sets.life_level(at_life - 1 - total)
                least = rows[0] + sets.lives[u + 1][free & ~picked, level]
                worse = ~some | (least >= FAR) | (least > above_at)
                cut |= worse & (total > lo)
        kept = [int(g) for g in picked[~cut]]
        known = self.gangs
        for g in kept:
            self._quick(u, {self.units[u][0]: g})
        kept.sort(key=lambda g: known[(u, (g,))][:2])
        return kept

    def _gang_rows(self, u: int, sets: SetFloors) -> tuple[npt.NDArray[np.int64],
                                                           npt.NDArray[np.int64]]:
        """Every legal gang of unit ``u`` (one attacker), and the rows of a play it is
        sure to be worth at least (its quick play where the floor lists it, else the
        floor of its part: the attackers' share and its blockers')."""
        attacker = self.units[u][0]
        listed = {g: i for i, g in enumerate(sets.units[u].gangs)}
        plays = sets.units[u].plays
        gangs = list(self._gangs(attacker, (1 << len(self.blockers)) - 1))
        unit = sets.units[u]
        columns = [sets.vector(plays[listed[g]]) if g in listed
                   else sets.vector(self._gang_floor(unit.base, unit.shares, g)) for g in gangs]
        return np.array(gangs, dtype=np.int64), np.stack(columns, axis=1)

    def _unblocked(self, fixed: Sequence[int], free: int) -> list[Outcome]:
        """What the open units counted at their fixed floor add to it because the free
        blockers are too few to block them all: a unit that gets no blocker plays its
        unblocked quick play (:meth:`_quick` with every gang empty), so it adds at least
        that play less its fixed floor. At most ``room`` of them can be blocked (each
        needs the fewest blockers any of its attackers may have, 509.1b, and no blocker
        blocks two), so the others add, term by term, at least the smallest of these
        excesses (a negative excess counted wherever it is, to stay a floor)."""
        if not fixed:
            return []
        left = free & reduce(or_, (self.unit_able[v] for v in fixed), 0)
        room = left.bit_count()
        blockable: list[tuple[int, int]] = []
        excess: list[tuple[int, Outcome]] = []
        for v in fixed:
            unit = self.units[v]
            play = self._quick(v, {a: 0 for a in unit})
            if play is None:
                continue
            least = min(self.rules.least.get(a, 1) for a in unit)
            if (self.unit_able[v] & free).bit_count() >= least:
                blockable.append((least, v))
            excess.append((v, _difference(play, self.floors[v])))
        # The most units that can all be blocked: those needing the fewest blockers.
        blockable.sort()
        most = 0
        for least, _ in blockable:
            if least > room:
                break
            room -= least
            most += 1
        can = {v for _, v in blockable}
        sure = [o for v, o in excess if v not in can]
        maybe = [o for v, o in excess if v in can]
        if maybe:
            sure.append(_least_sum(maybe, max(len(maybe) - most, 0)))
        return sure

    # -- the search ----------------------------------------------------------------------

    def _gangs(self, attacker: str, free: int) -> Iterator[int]:
        """The gangs ``attacker`` may get from the blockers in ``free`` (509.1b)."""
        mine = self.able[attacker] & free
        least = self.rules.least.get(attacker, 1)
        most = self.rules.most.get(attacker)
        sub = mine
        while True:
            n = bin(sub).count("1")
            if n == 0 or (n >= least and (most is None or n <= most)):
                yield sub
            if sub == 0:
                break
            sub = (sub - 1) & mine

    def _blocks(self, chosen: Mapping[str, int]) -> dict[str, tuple[str, ...]]:
        out: dict[str, tuple[str, ...]] = {}
        for a, mask in chosen.items():
            if mask:
                for b in self.blockers:
                    if mask & self.bit[b]:
                        out[b] = (a,)
        return dict(sorted(out.items(), key=lambda kv: self.blocker_order[kv[0]]))

    def _unit_profile(self, unit: Sequence[str], chosen: Mapping[str, int]) -> Profile | None:
        """The profile of the unit's part with these gangs; None when the defending
        players choose in it (kept per unit and gangs)."""
        key = (tuple(unit), tuple(chosen[a] for a in unit))
        if key in self.profiles:
            return self.profiles[key]
        blocks = self._blocks({a: chosen[a] for a in unit})
        found = self.profiles[key] = self.ev.part_profile(self.ev.part(blocks, (*unit, *blocks)))
        return found

    def _unit_options(self, u: int, free: int
                      ) -> list[tuple[dict[str, int], Outcome | None]]:
        """Every way to give unit ``u``'s attackers gangs from ``free``, each with one play
        of its part found without a search (:meth:`Evaluator.quick`), best first by that
        play's value (worked out once per unit and free blockers it can use)."""
        key = (u, free & self.unit_able[u])
        found = self.options.get(key)
        if found is not None:
            return found
        unit = self.units[u]
        ranked: list[tuple[Vector, tuple[int, ...], dict[str, int], Outcome | None]] = []
        for masks in self._unit_masks(unit, 0, free, {}):
            gang = (u, tuple(masks[a] for a in unit))
            play = self._quick(u, masks)
            known = self.gangs[gang]
            ranked.append((known[0], known[1], masks, play))
        ranked.sort(key=lambda f: (f[0], f[1]))
        found = [(m, play) for _, _, m, play in ranked]
        self.options[key] = found
        return found

    def _quick(self, u: int, masks: Mapping[str, int]) -> Outcome | None:
        """The quick play of unit ``u`` with these gangs (worked out once)."""
        unit = self.units[u]
        gang = (u, tuple(masks[a] for a in unit))
        known = self.gangs.get(gang)
        if known is None:
            self.watch.check()
            blocks = self._blocks({a: masks[a] for a in unit})
            attacker = self.plain_attackers.get(unit[0]) if len(unit) == 1 else None
            mask = masks[unit[0]]
            if attacker is not None and mask & ~self.plain_blockers == 0:
                # The common part, worked out from the board's creatures without making
                # its combat: the same play (direct_quick's shape holds).
                play: Outcome | None = quick_numbers(
                    attacker, [c for bit, c in self.in_order if mask & bit],
                    self.board.combat.active_player, self.ev.opponents, self.ev.rest)
            else:
                play = self.ev.part_quick(self.ev.part(blocks, (*unit, *blocks)))
            totals = self.totals
            alone = totals.alone(play) if play is not None else ()
            known = self.gangs[gang] = (alone, declaration_vector(self.rules, blocks), play)
        return known[2]

    def _unit_masks(self, unit: Sequence[str], i: int, free: int, got: dict[str, int]
                    ) -> Iterator[dict[str, int]]:
        if i == len(unit):
            yield dict(got)
            return
        for gang in self._gangs(unit[i], free):
            got[unit[i]] = gang
            yield from self._unit_masks(unit, i + 1, free & ~gang, got)
        got.pop(unit[i], None)

    def run(self) -> None:
        self._descend(0, (1 << len(self.blockers)) - 1, {}, self.totals.start(), False)

    def _descend(self, u: int, free: int, chosen: dict[str, int], table: Table,
                 floored: bool) -> None:
        self.watch.check()
        self.nodes += 1
        if self.nodes > MAX_NODES:
            raise InputError("combat", f"too large to search exactly: more than "
                             f"{MAX_NODES:,} branches")
        if u == len(self.units):
            self._leaf(chosen, table, floored)
            return
        unit = self.units[u]
        kept = self._kept_gangs(u, free, table)
        options = self._unit_options(u, free) if kept is None else [
            ({unit[0]: g}, self._quick(u, {unit[0]: g})) for g in kept]
        for masks, play in options:
            if self._done():
                return
            now = {**chosen, **masks}
            # First at the one play found without a search: the part is worth at least
            # that to the attackers, so a branch already hopeless with it is cut before
            # the part's profile is worked out.
            used = 0
            for m in masks.values():
                used |= m
            if self.target is not None and not self._obeyable(u + 1, now, free & ~used):
                continue  # too few requirements can still be obeyed below (509.1c)
            if play is not None and (unit, tuple(masks[a] for a in unit)) not in self.profiles \
                    and not self._hopeful(u + 1, now, self.totals.add(table, Profile((play,))),
                                          free & ~used):
                continue
            prof = self._unit_profile(unit, masks)
            # A part in which the defenders choose counts at its floor until the leaf.
            after = self.totals.add(table, prof if prof is not None
                                    else Profile((self.floors[u],)))
            if not self._hopeful(u + 1, now, after, free & ~used):
                continue
            self._descend(u + 1, free & ~used, now, after, floored or prof is None)

    def _obeyable(self, u: int, chosen: Mapping[str, int], free: int) -> bool:
        """Whether a declaration below may still obey as many requirements as a legal one
        must (509.1c): those the given gangs obey, and those still open that the free
        blockers could obey, reach the maximum."""
        decided = {a for unit in self.units[:u] for a in unit}
        used = 0
        for a in decided:
            used |= chosen.get(a, 0)
        open_able = self.rest_able[u]
        count = 0
        for r in self.rules.requirements:
            if r.kind == "must_block":
                bit = self.bit.get(r.creature, 0)
                if used & bit or (free & bit and open_able & bit):
                    count += 1
            elif r.kind == "must_be_blocked":
                if r.creature in decided:
                    count += 1 if chosen.get(r.creature, 0) else 0
                elif self.able.get(r.creature, 0) & free:
                    count += 1
            else:  # lure: that creature blocks that attacker
                bit = self.bit.get(r.creature, 0)
                attacker = r.attacker or ""
                if attacker in decided:
                    count += 1 if chosen.get(attacker, 0) & bit else 0
                elif free & bit and self.able.get(attacker, 0) & bit:
                    count += 1
        return self.target is None or count >= self.target

    def _hopeful(self, u: int, chosen: Mapping[str, int], table: Table, free: int) -> bool:
        """Whether a declaration below may still be better than the best found (units
        from ``u`` on open, the blockers of ``free`` left for them)."""
        best = self.best
        if best.value is None:
            return True
        verdict = -1
        # The floor that knows which blockers are free first: the others are cheaper to
        # look up but seldom cut what it does not.
        sets = self._set_floor(u, free) if u < len(self.units) else None
        if sets is not None:
            verdict = self.totals.against(table, sets, best.value)
            if verdict > 0 or self._loses_or_worse(u, free, table):
                return False
        verdict = max(verdict, self.totals.against(table, self._rest_floor(u, free),
                                                   best.value))
        if verdict > 0:
            return False
        shared = self._shared_floor(u, free)
        if shared is not None:
            verdict = max(verdict, self.totals.against(table, shared, best.value))
            if verdict > 0:
                return False
        if verdict == 0 and not self.ties:
            # Equal at best: only a declaration earlier in order can replace it.
            least = declaration_vector(self.rules, self._blocks(chosen))
            return best.vector is None or least < best.vector
        return True

    def _leaf(self, chosen: Mapping[str, int], table: Table, floored: bool) -> None:
        blocks = self._blocks(chosen)
        if self.target is not None and self.rules.obeyed(blocks) != self.target:
            return
        best = self.best
        if not floored:
            value = self.totals.best(table)[0]
        else:
            value = _without_constant(self.ev, self.ev.evaluate(self.ev.made(blocks)).value)
        best.valued += 1
        vector = declaration_vector(self.rules, blocks)
        if best.value is not None and value == best.value:
            best.ties += 1
        if _better(value, vector, best):
            if best.value is None or value < best.value:
                best.ties = 1
            best.value, best.vector, best.blocks = value, vector, blocks

    def _done(self) -> bool:
        return self.stop_at is not None and self.best.value is not None \
            and self.best.value <= self.stop_at


SIZE_GANGS = 300
"""The most gangs of one attacker whose quick plays make its floor by number of blockers
(:meth:`_Gangs._by_size`): all of its gangs of up to so many blockers that they are at
most this many (12 blockers: up to 3 of them)."""
SET_FLOOR_AFTER = 64
"""The branches a search opens before it builds the floor that knows which blockers are
free (:meth:`_Gangs._set_floor`): a small board is searched in fewer, sooner than the
tables are built (5 x 5 boards: 8 to 30 branches)."""
FLOOR_GANGS = 1 << 10
"""A unit of one attacker gets a floor per set of free blockers (from the quick play of
each of its gangs) when it has at most this many gangs; else its fixed floor."""


def _least_players(a: Players | None, b: Players | None) -> Players | None:
    if a is None:
        return b
    if b is None:
        return a
    return tuple((min(x1, y1), min(x2, y2), min(p, q), f and g)
                 for (x1, x2, p, f), (y1, y2, q, g) in zip(a, b, strict=True))


@dataclass(slots=True)
class _Floors:
    """A unit's floor for each set of its blockers left free (bit ``j`` of the index for
    the ``j``-th of ``bits``)."""

    bits: list[int]
    outcomes: list[Outcome]

    def floor(self, free: int) -> Outcome:
        index = 0
        for j, bit in enumerate(self.bits):
            if free & bit:
                index |= 1 << j
        return self.outcomes[index]


def _difference(a: Outcome, b: Outcome) -> Outcome:
    """``a`` less ``b``, term by term (no line; the loss flag of ``a``)."""
    return Outcome(tuple((n1 - m1, n2 - m2, p - q, f) for (n1, n2, p, f), (m1, m2, q, _)
                         in zip(a.players, b.players, strict=True)),
                   tuple(x - y for x, y in zip(a.terms, b.terms, strict=True)),
                   ({}, {}, {}, {}))


def _least_sum(outcomes: Sequence[Outcome], count: int) -> Outcome:
    """Term by term, at most what any ``count`` or more of ``outcomes`` add up to: the
    sum of the negative ones and of the ``count`` smallest of the rest (no loss flag)."""
    def least(values: list[int]) -> int:
        rest = sorted(max(x, 0) for x in values)
        return sum(min(x, 0) for x in values) + sum(rest[:count])

    players = tuple(
        (least([o.players[k][0] for o in outcomes]), least([o.players[k][1] for o in outcomes]),
         least([o.players[k][2] for o in outcomes]), False)
        for k in range(len(outcomes[0].players)))
    terms = tuple(least([o.terms[i] for o in outcomes]) for i in range(len(outcomes[0].terms)))
    return Outcome(players, terms, ({}, {}, {}, {}))


def _sum_outcomes(outcomes: Sequence[Outcome], players: int, terms: int) -> Outcome:
    """Outcomes added up (players' totals and terms; no line)."""
    total_players = [(0, 0, 0, False)] * players
    total_terms = [0] * terms
    for o in outcomes:
        total_players = [(a1 + b1, a2 + b2, p + q, f or g) for (a1, a2, p, f), (b1, b2, q, g)
                         in zip(total_players, o.players, strict=True)]
        total_terms = [x + y for x, y in zip(total_terms, o.terms, strict=True)]
    return Outcome(tuple(total_players), tuple(total_terms), ({}, {}, {}, {}))


def _without_constant(ev: Evaluator, value: Vector) -> Vector:
    if "survivals" not in ev.terms:
        return value
    i = ev.terms.index("survivals")
    return (*value[:i], value[i] - ev.constant_survivals, *value[i + 1:])


# -- attacks ------------------------------------------------------------------------------


def attack_declarations(rules: AttackRules) -> Iterator[dict[str, str]]:
    """Every legal attack declaration, in attack order (SPEC §11)."""
    able = rules.able
    options = [range(len(rules.targets) + 1) for _ in able]
    required = set(rules.required)
    for pick in product(*options):
        if any(p == 0 and c in required for c, p in zip(able, pick, strict=True)):
            continue
        yield {c: rules.targets[p - 1] for c, p in zip(able, pick, strict=True) if p}


def best_attack(board: Board, terms: Sequence[str], *, deadline: float | None = None,
                cancel: Cancel | None = None, ties: bool = False) -> AttackAnswer:
    """The legal attack declaration of largest value (the value of the defenders' best
    block against it), the first in attack order among equals."""
    rules = attack_rules(board)
    best: tuple[Vector, dict[str, str], BlockAnswer] | None = None
    count = 0
    valued = 0
    status = "optimal"
    for attacks in attack_declarations(rules):
        board_now = Board(board.made({}, attacks), board.abilities, board.cannot_block)
        try:
            answer = best_block(board_now, terms, deadline=deadline, cancel=cancel,
                                ties=False,
                                stop_at=None if best is None or ties else best[0])
        except InputError:
            raise
        valued += answer.valued
        value = answer.evaluation.value
        if answer.status != "optimal":
            status = "feasible"
            if best is None:
                best = (value, attacks, answer)
            break
        if best is not None and value == best[0]:
            count += 1
        if best is None or value > best[0]:
            best, count = (value, attacks, answer), 1
        if deadline is not None and time.monotonic() > deadline:
            status = "feasible"
            break
        if cancel is not None and cancel.is_set():
            status = "feasible"
            break
    assert best is not None
    value, attacks, answer = best
    if answer.status != "optimal" and status == "optimal":
        status = "feasible"
    return AttackAnswer(status, attacks, answer, count if ties else None, valued)


__all__ = ["AttackAnswer", "BlockAnswer", "attack_declarations", "best_attack", "best_block"]
