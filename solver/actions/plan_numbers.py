"""``plan`` on numbers: combats whose defending creatures each block one attacker.

Then every defending creature's split is forced in both steps (it gives all its damage to
the one attacker it blocks, 510.1d), so the minimax of :mod:`.plan` is a maximum over the
attackers' two splits, and each attacker with its blockers is a part of its own: what one
part does changes another only through the defending player's life. A part's line (its
first-strike split, then its regular split on what remains) is dealt on plain integers
(power, toughness, marked damage, deathtouch, indestructible), and it adds four numbers
to the whole combat: the damage dealt to the defending player, the value of the blockers
that die, the value of the attacker if it dies, and the life its lifelink gains. Every
term ``plan`` scores is a function of the four sums; a part's line no better on any of
them than another of the same part is dropped (it cannot make the combat better), and
the parts' remaining lines are combined. When what follows a first-strike split depends
only on the blockers it kills and the damage it deals the player (the attacker dies in
that step, deals no regular damage, or has deathtouch), only the first split of each
such outcome is dealt (:func:`_first_of_each`).

Each split's amounts are written in the legal space's order (sources in document order,
each attacker's blockers in document order and then the player), positive only: the
answer's entries are their items as they are.

The answer is the one :class:`.plan._Search` gives: its value, and the first split of
each choice, in the order the legal space enumerates them (:func:`.plan.splits`: the
attackers in document order, the first varying slowest; an attacker's split over its
blockers in document order, most to the first; a trampler's splits that give the player
damage after those that give it none), whose value is that of the combat.

:func:`numeric_plan` declines (None) what it does not implement, which then goes the
general way: planeswalkers, battles, prevention, multipliers, loss thresholds, more than
one defending player, a creature neither attacking nor blocking, a blocker on two
attackers, keywords beyond first strike, double strike, trample, deathtouch,
indestructible, an attacker's lifelink and those of declarations alone (flying, reach,
...), the effects of combat/1 §10, and combats whose lines are too many for a quick
answer.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from math import comb
from operator import itemgetter

from trample.models.document.assignment import Pair
from trample.models.document.combat import NO_EFFECTS, Combat, Creature, Player
from trample.models.document.keywords import (
    DEATHTOUCH,
    DOUBLE_STRIKE,
    FIRST_STRIKE,
    INDESTRUCTIBLE,
    TRAMPLE,
)
from trample.models.document.outcomes import LIFELINK, POISON_TO_LOSE
from trample.models.document.tiny import BLOCKER_SHIFT, Tiny
from trample.models.document.tiny import DEATHTOUCH as DEATHTOUCH_BIT
from trample.models.document.tiny import DOUBLE_STRIKE as DOUBLE_STRIKE_BIT
from trample.models.document.tiny import FIRST_STRIKE as FIRST_STRIKE_BIT
from trample.models.document.tiny import INDESTRUCTIBLE as INDESTRUCTIBLE_BIT
from trample.models.document.tiny import LIFELINK as LIFELINK_BIT
from trample.models.document.tiny import TRAMPLE as TRAMPLE_BIT
from trample.solver.rules.assignment import Amounts
from trample.solver.rules.legal_space import lethal_need

DECLARATION_KEYWORDS = frozenset({"flying", "reach", "menace", "shadow", "horsemanship",
                                  "haste", "defender", "vigilance"})
"""Keywords that decide only which attacks and blocks are legal
(``trample.models.game.declarations``), never what combat damage does."""
ATTACKER_KEYWORDS = frozenset({FIRST_STRIKE, DOUBLE_STRIKE, TRAMPLE, DEATHTOUCH,
                               INDESTRUCTIBLE, LIFELINK}) | DECLARATION_KEYWORDS
"""The keywords an attacking creature may have for the numbers' path."""
BLOCKER_KEYWORDS = frozenset({FIRST_STRIKE, DOUBLE_STRIKE, DEATHTOUCH, INDESTRUCTIBLE}) \
    | DECLARATION_KEYWORDS
"""The keywords a blocking creature may have (a blocker's lifelink would give the
defending player life between the steps: the general way)."""

MAX_PART_LINES = 20_000
"""The most splits of one attacker in a step (counted generously) the numbers' path takes
on; one with more goes the general way, whose search obeys a deadline line by line."""
MAX_PART_WORK = 16 * MAX_PART_LINES
"""The most sets of blockers to kill one part's regular steps are read over (at most one
regular step for each first-strike split, over every set of its blockers)."""
MAX_COMBINATIONS = 20_000
"""The most combinations of the parts' lines scored at once."""

Option = tuple[int, int, int, int]
"""What a part's line adds to the combat: damage to the defending player, value of the
blockers that die, value of the attacker if it dies, life gained by its lifelink."""
Split = tuple[tuple[int, ...], int]
"""A part's split in one step: the amounts to its living blockers, in document order, and
to the player."""
Blocker = tuple[str, int, int, int, bool, bool, bool, bool, int]
"""id, power, toughness, marked damage, deals first-strike damage, deals regular damage,
deathtouch, indestructible, value."""
State = tuple[tuple[int, int], ...]
"""A part's living blockers after a step: (index among its blockers, marked damage)."""
Numbers = tuple[list["_Part"], str, int, bool, bool, tuple[tuple[str, int], ...]]
"""What the numbers' path reads of a combat: its parts, the defending player, its life,
whether its poison counters already lose it the game, whether the combat is of the
first-strike step, and the blockers (id, power) in document order."""

_COMPOSITIONS: dict[tuple[int, int], tuple[tuple[int, ...], ...]] = {}


class _Stopped(Exception):
    """A deadline or a cancel came while the numbers were being worked out."""


def compositions(total: int, count: int) -> tuple[tuple[int, ...], ...]:
    """Every way to write ``total`` as ``count`` amounts of 0 or more, in decreasing
    lexicographic order (the most to the first)."""
    key = (total, count)
    found = _COMPOSITIONS.get(key)
    if found is None:
        if count == 1:
            found = ((total,),)
        else:
            found = tuple((first, *rest) for first in range(total, -1, -1)
                          for rest in compositions(total - first, count - 1))
        if total <= 16 and count <= 5:
            _COMPOSITIONS[key] = found  # at most 85 lists of at most 4,845 each
    return found


def _regular(b: Blocker) -> tuple[int, bool, int, bool, int]:
    """What the regular step reads of a blocker: the damage it deals the attacker there,
    whether that damage has deathtouch, its toughness, whether it is indestructible, its
    value."""
    hits = b[1] if b[5] and b[1] > 0 else 0
    return hits, hits > 0 and b[6], b[2], b[7], b[8]


class _Part:
    """An attacking creature and the creatures blocking it."""

    __slots__ = ("blocked", "blockers", "damage", "deathtouch", "first", "id", "indestructible",
                 "lifelink", "power", "regular", "regular_blockers", "target", "toughness",
                 "trample", "value")

    def __init__(self, id: str, target: str, power: int, toughness: int, damage: int,
                 value: int, keywords: int, blockers: tuple[Blocker, ...], blocked: bool,
                 first_step: bool,
                 regular_blockers: tuple[tuple[int, bool, int, bool, int], ...] | None = None
                 ) -> None:
        """An attacker's numbers; ``keywords`` as bits of
        :mod:`~trample.models.document.tiny`."""
        self.id = id
        self.target = target
        self.power = power
        self.toughness = toughness
        self.damage = damage
        self.value = value
        self.deathtouch = bool(keywords & DEATHTOUCH_BIT)
        self.trample = bool(keywords & TRAMPLE_BIT)
        self.lifelink = bool(keywords & LIFELINK_BIT)
        self.indestructible = bool(keywords & INDESTRUCTIBLE_BIT)
        self.first = first_step and bool(keywords & (FIRST_STRIKE_BIT | DOUBLE_STRIKE_BIT)) \
            and power > 0
        self.regular = bool(keywords & DOUBLE_STRIKE_BIT or not keywords & FIRST_STRIKE_BIT) \
            and power > 0
        self.blockers = blockers
        self.blocked = blocked
        self.regular_blockers = regular_blockers if regular_blockers is not None \
            else tuple(_regular(b) for b in blockers)
        """For each blocker, what the regular step reads (:func:`_regular`)."""

    def splits(self, alive: State) -> list[Split] | None:
        """The attacker's legal splits over ``alive`` (None: it assigns nothing)."""
        power = self.power
        if not self.blocked:
            return [((), power)]
        if not alive:
            # 702.19e: a trampler whose blockers are all gone assigns all to the player.
            return [((), power)] if self.trample else None
        out: list[Split] = [(x, 0) for x in compositions(power, len(alive))]
        if self.trample:
            # 702.19b: the player gets damage once each blocker is lethally assigned.
            needs = []
            for index, marked in alive:
                left = self.blockers[index][2] - marked
                needs.append(lethal_need(left, self.deathtouch))
            spare = power - sum(needs)
            if spare >= 1:
                for extra in compositions(spare - 1, len(needs) + 1):
                    out.append((tuple(n + e for n, e in zip(needs, extra[:-1], strict=True)),
                                extra[-1] + 1))
        return out

    def count(self, targets: int) -> int:
        """At least the number of ways its power goes to ``targets`` recipients (one,
        nothing to any, when its power is 0 or less: 510.1a)."""
        return comb(max(self.power, 0) + targets - 1, targets - 1) if targets > 0 else 1

    def bound(self) -> int:
        """At least the number of its legal splits in a step with every blocker alive."""
        if not self.blocked:
            return 1
        return self.count(len(self.blockers) + (1 if self.trample else 0))

    def last_outcomes(self, alive: State, marked: int) -> list[Option]:
        """What the regular step can add, as the last step, over every split of the
        attacker (without listing them): the damage to the player, the value of the
        blockers killed, the attacker's value if it dies, the life gained; of those, the
        ones no other beats on every number (:func:`_front`). The attacker's death and
        its life gained do not depend on its split, so among the lines that deal the
        player nothing only the one that kills the most value counts."""
        # Each blocker it may kill needs ``cost`` of its damage; any more beyond the ones
        # killed must land where it kills nothing else: on a blocker killed or one that
        # cannot die (no limit), else below each other blocker's lethal damage.
        optional: list[tuple[int, int]] = []
        sink = touched = False
        base = received = lethal = needed = killable = 0
        nonnegative = True
        deathtouch = self.deathtouch
        regular_blockers = self.regular_blockers
        for index, already in alive:
            hits, touches, toughness, indestructible, worth = regular_blockers[index]
            if hits:
                received += hits
                if touches:
                    touched = True
            left = toughness - already
            if left > 0:
                need = lethal_need(left, deathtouch)
                lethal += need
                if indestructible:
                    sink = True
                else:
                    optional.append((need, worth))
                    needed += need
                    killable += worth
                    nonnegative = nonnegative and worth >= 0
            else:
                sink = True
                if not indestructible:
                    base += worth  # dies whatever it is dealt
        died = not self.indestructible and (marked + received >= self.toughness or touched)
        lost = self.value if died else 0
        power = self.power
        gained = power if self.lifelink else 0
        if not self.regular or (self.blocked and not alive and not self.trample):
            return [(0, base, lost, 0)]  # it assigns nothing
        if not alive:
            return [(power, base, lost, gained)]  # unblocked, or 702.19e
        through: Option | None = None
        if self.trample and power - lethal >= 1:
            # 702.19b: damage to the player once every blocker is lethally assigned (each
            # it can kill is then killed); the most is the best of those lines. It beats
            # every line that deals the player nothing unless a blocker is worth less
            # than nothing.
            through = (power - lethal, base + killable, lost, gained)
            if nonnegative:
                return [through]
        top: int | None = None
        count = len(optional)
        if needed <= power and nonnegative:
            # It can kill them all, and none is worth less than nothing: killing them all
            # kills the most (with none to kill, each blocker is a sink).
            count = -1
            top = killable
        for mask in range(1 << count) if count >= 0 else ():
            cost = killed = room = 0
            for j in range(count):
                need, worth = optional[j]
                if mask >> j & 1:
                    cost += need
                    killed += worth
                else:
                    room += need - 1
            if cost > power:
                continue
            if (mask or sink or power - cost <= room) and (top is None or killed > top):
                top = killed
        out: list[Option] = [] if top is None else [(0, base + top, lost, gained)]
        if through is not None:
            if top is not None and through[1] >= base + top:
                return [through]
            out.append(through)
        return out

    def step(self, alive: State, marked: int, split: Split | None, first: bool
             ) -> tuple[State, int, bool, int, int, int]:
        """Deal one step: the blockers left, the attacker's marked damage, whether it
        died, and the damage to the player, value of blockers killed and life gained."""
        amounts = split[0] if split is not None else ()
        deathtouch = self.deathtouch
        left: list[tuple[int, int]] = []
        killed = 0
        received = 0
        touched = False
        for k, (index, already) in enumerate(alive):
            _, power, toughness, _, deals_first, deals_regular, has_deathtouch, \
                indestructible, value = self.blockers[index]
            if power > 0 and (deals_first if first else deals_regular):
                received += power
                touched = touched or has_deathtouch
            dealt = amounts[k] if amounts else 0
            total = already + dealt
            if not indestructible and (total >= toughness or (deathtouch and dealt > 0)):
                killed += value
            else:
                left.append((index, total))
        marked += received
        died = not self.indestructible and (marked >= self.toughness or touched)
        player = split[1] if split is not None else 0
        gained = self.power if split is not None and self.lifelink else 0
        return tuple(left), marked, died, player, killed, gained


def _parts(combat: Combat) -> Numbers | None:
    """The combat's numbers, or None when the numbers' path does not take it (worked out
    once a combat)."""
    memo = combat.memo
    if "plan_numbers" not in memo:
        memo["plan_numbers"] = _read_parts(combat)
    found: Numbers | None = memo["plan_numbers"]
    return found


def _bits(keywords: frozenset[str]) -> int:
    """A creature's keywords as the bits of :mod:`~trample.models.document.tiny`."""
    bits = 0
    if keywords:
        for word, bit in _KEYWORD_BITS:
            if word in keywords:
                bits |= bit
    return bits


_KEYWORD_BITS = ((TRAMPLE, TRAMPLE_BIT), (DEATHTOUCH, DEATHTOUCH_BIT),
                 (INDESTRUCTIBLE, INDESTRUCTIBLE_BIT), (FIRST_STRIKE, FIRST_STRIKE_BIT),
                 (DOUBLE_STRIKE, DOUBLE_STRIKE_BIT), (LIFELINK, LIFELINK_BIT))


def _blocker(id: str, power: int, toughness: int, damage: int, value: int, keywords: int,
             first_step: bool) -> Blocker:
    """A blocker's numbers as a part reads them."""
    double = keywords & DOUBLE_STRIKE_BIT
    return (id, power, toughness, damage,
            first_step and bool(double or keywords & FIRST_STRIKE_BIT),
            bool(double or not keywords & FIRST_STRIKE_BIT), bool(keywords & DEATHTOUCH_BIT),
            bool(keywords & INDESTRUCTIBLE_BIT), value)


def _read_parts(combat: Combat) -> Numbers | None:
    if combat.planeswalkers or combat.battles or combat.prevention or combat.multipliers \
            or combat.loss_thresholds or len(combat.players) != 2 \
            or combat.step not in ("first_strike", "regular"):
        return None
    defending = [p.id for p in combat.players if p.id != combat.active_player]
    if len(defending) != 1:
        return None
    player = defending[0]
    first_step = combat.step == "first_strike"
    active = combat.active_player
    attackers: list[Creature] = []
    blocks: dict[str, list[Blocker]] = {}
    regular: dict[str, list[tuple[int, bool, int, bool, int]]] = {}
    order: list[tuple[str, int]] = []
    for c in combat.creatures:
        if c.effects is not NO_EFFECTS or c.toxic or c.toughness <= 0:
            return None
        keywords = c.keywords
        if c.attacking is not None:
            if c.blocking or c.attacking != player or c.controller != active \
                    or not keywords <= ATTACKER_KEYWORDS:
                return None
            attackers.append(c)
            if c.id not in blocks:
                blocks[c.id] = []
                regular[c.id] = []
        elif len(c.blocking) == 1 and c.controller == player \
                and keywords <= BLOCKER_KEYWORDS:
            blocker = _blocker(c.id, c.power, c.toughness, c.damage, c.value,
                               _bits(keywords), first_step)
            target = c.blocking[0]
            if target not in blocks:
                blocks[target] = []
                regular[target] = []
            blocks[target].append(blocker)
            regular[target].append(_regular(blocker))
            order.append((c.id, c.power))
        else:
            return None
    if len(blocks) != len(attackers):
        return None  # a creature blocks something that is not an attacker
    # Blocked: it has a blocker, or its blockers are gone (Combat.is_blocked).
    parts = [_Part(a.id, a.attacking or "", a.power, a.toughness, a.damage, a.value,
                   _bits(a.keywords), tuple(blocks[a.id]), bool(blocks[a.id]) or a.blocked is True,
                   first_step, tuple(regular[a.id])) for a in attackers]
    for p in combat.players:
        if p.id == player:
            return parts, player, p.life, p.poison >= POISON_TO_LOSE, first_step, tuple(order)
    return None


_TINY_DECLINED = (TRAMPLE_BIT | LIFELINK_BIT) << BLOCKER_SHIFT
"""A blocker's keywords the numbers' path does not take (:data:`BLOCKER_KEYWORDS`)."""


def _tiny_parts(tiny: Tiny) -> Numbers | None:
    """The numbers of a combat read by :func:`~trample.models.document.tiny.read_tiny`,
    as :func:`_read_parts` finds them on its :class:`Combat`, or None when the numbers'
    path does not take it."""
    first_step, player, life, attackers, blockers, kinds = tiny
    if kinds & _TINY_DECLINED:
        return None
    blocks: list[list[Blocker]] = [[] for _ in attackers]
    regular: list[list[tuple[int, bool, int, bool, int]]] = [[] for _ in attackers]
    for bid, at, power, toughness, damage, value, keywords in blockers:
        blocker = _blocker(bid, power, toughness, damage, value, keywords, first_step)
        blocks[at].append(blocker)
        regular[at].append(_regular(blocker))
    parts = [_Part(aid, player, power, toughness, damage, value, keywords, tuple(mine),
                   bool(mine), first_step, tuple(regular[i]))
             for i, ((aid, power, toughness, damage, value, keywords), mine)
             in enumerate(zip(attackers, blocks, strict=True))]
    return parts, player, life, False, first_step, tuple((b[0], b[2]) for b in blockers)


def size_bound(first_step: bool, parts: Sequence[_Part]) -> int:
    """At least :func:`.plan.plan_size` of a combat the numbers' path takes: the defenders'
    splits are forced, and an attacker's are among the ways of dividing its power."""
    size = 1
    for part in parts:
        bound = part.bound()
        if first_step and part.first:
            size *= bound
        if part.regular:
            size *= bound
    return size


MAX_KILL_SETS = 64
"""The most sets of blockers :func:`_first_of_each` reads for one attacker."""


def _first_of_each(part: _Part, start: State,
                   limits: Sequence[tuple[int, int, int, int]]) -> list[Split] | None:
    """The attacker's first first-strike split (in :meth:`_Part.splits`' order) of each
    set of its blockers a split may kill and, for a trampler, of each amount it may deal
    the player; None when listing every split is no dearer.

    ``limits`` holds each blocker's first-strike damage to die (at most 0: it dies
    anyway; ``1 << 30``: it cannot die). The splits that give the player nothing come
    first, in decreasing lexicographic order of their amounts: for a set of blockers that
    dies, the first is the one that gives each blocker in turn the most it can while the
    blockers after it can still take the rest (each that dies at least its limit, each
    that lives below it; one that dies takes any amount above its limit). A trampler's
    splits that reach the player come after them, the most to the first blocker, the
    first giving the player 1, then 2, ... (702.19b: each blocker then has lethal
    damage)."""
    power = part.power
    count = len(start)
    sets = 1 << count
    if not part.blocked or count < 2 or sets > MAX_KILL_SETS or sets >= part.count(count):
        return None
    need = [max(limit[2], 0) for limit in limits]
    room = [limit[2] - 1 for limit in limits]
    # The damage each set of blockers needs to die, built from the set without its
    # lowest blocker; the blockers that die anyway are in every set.
    least = [0] * sets
    for mask in range(1, sets):
        low = mask & -mask
        least[mask] = least[mask ^ low] + need[low.bit_length() - 1]
    must = 0
    for j in range(count):
        if room[j] < 0:
            must |= 1 << j
    firsts: list[tuple[int, ...]] = []
    for mask in range(sets):
        if mask & must != must or least[mask] > power or (not mask and sum(room) < power):
            continue
        amounts: list[int] = []
        rest, after = power, least[mask]
        for j in range(count):
            if mask >> j & 1:
                after -= need[j]
                n = rest - after
            else:
                n = min(room[j], rest - after)
            amounts.append(n)
            rest -= n
        firsts.append(tuple(amounts))
    firsts.sort(reverse=True)
    out: list[Split] = [(amounts, 0) for amounts in firsts]
    if part.trample:
        blockers = part.blockers
        needs = []
        for index, marked in start:
            left = blockers[index][2] - marked
            needs.append(0 if left <= 0 else 1 if part.deathtouch else left)
        spare = power - sum(needs)
        for player in range(1, spare + 1):
            out.append(((needs[0] + spare - player, *needs[1:]), player))
    return out


class _Lines:
    """A part's lines: its first-strike splits, what each leaves, and the best numbers of
    the regular step after each (its regular splits are listed only for the one the
    answer names)."""

    def __init__(self, part: _Part, first_step: bool, check: Callable[[], None]) -> None:
        self.part = part
        value = part.value
        blockers = part.blockers
        marked, died = part.damage, False
        touched = False
        deathtouch = part.deathtouch
        # Each blocker dies of first-strike damage from ``threshold`` on (none: never).
        limits: list[tuple[int, int, int, int]] = []
        begin: list[tuple[int, int]] = []
        for index, b in enumerate(blockers):
            already = b[3]
            begin.append((index, already))
            left = b[2] - already
            limits.append((index, already, 1 << 30 if b[7] or not first_step
                           else min(1, left) if deathtouch else left, b[8]))
            if first_step and b[4] and b[1] > 0:
                # The attacker's damage taken, and so its death, do not depend on its
                # split (as :meth:`_Part.step` deals it).
                marked += b[1]
                touched = touched or b[6]
        if first_step:
            died = not part.indestructible and (marked >= part.toughness or touched)
        start: State = tuple(begin)
        self.start = start
        first_splits: list[Split] | None = None
        if part.first:
            if died or not part.regular or (part.deathtouch
                                            and not any(b[7] for b in blockers)):
                # What follows a split then depends only on the blockers it kills and the
                # damage it deals the player (with deathtouch, a blocker it does not kill
                # was dealt nothing, unless it is indestructible): the first split of each
                # such outcome.
                first_splits = _first_of_each(part, start, limits)
            if first_splits is None:
                first_splits = part.splits(start)
        self.first: list[Split | None] = list(first_splits) if first_splits else [None]
        """The first-strike splits, in the legal space's order (or only the first of
        each outcome, when no more is needed to tell them apart)."""
        self.after: list[tuple[State, int, int]] = []
        """For each first-strike split: the blockers left, the damage to the player and
        the value of the blockers killed."""
        self.line_of: list[int] = []
        """For each first-strike split: which of :attr:`lines` follow it."""
        self.lines: list[list[Option]] = []
        """The numbers of the whole part's lines after a first-strike split, once for
        each different thing the first step does."""
        lost = value if died else 0
        gained = part.power if part.lifelink and self.first[0] is not None else 0
        self.marked, self.died, self.lost, self.gained = marked, died, lost, gained
        """The attacker's marked damage after the first step, whether it died, its value
        if so, and the life its lifelink gained: the same whatever its split."""
        nothing = (0,) * len(start)
        regular: dict[State, list[Option]] = {}
        seen: dict[tuple[State, int, int], int] = {}
        after, line_of, lines = self.after, self.line_of, self.lines
        for count, split in enumerate(self.first):
            if not count & 63:
                check()
            amounts, player = (nothing, 0) if split is None else split
            alive: list[tuple[int, int]] = []
            killed = 0
            for (index, already, threshold, worth), n in zip(limits, amounts, strict=True):
                if n >= threshold:
                    killed += worth
                else:
                    alive.append((index, already + n))
            state = tuple(alive)
            key = (state, player, killed)
            after.append(key)
            known = seen.get(key)
            if known is None:
                known = seen[key] = len(lines)
                if died:
                    lines.append([(player, killed, value, gained)])
                else:
                    outcomes = regular.get(state)
                    if outcomes is None:
                        outcomes = regular[state] = part.last_outcomes(state, marked)
                    if len(outcomes) == 1:
                        p2, k2, l2, g2 = outcomes[0]
                        lines.append([(player + p2, killed + k2, l2, gained + g2)])
                    else:
                        lines.append([(player + p2, killed + k2, l2, gained + g2)
                                      for p2, k2, l2, g2 in outcomes])
            line_of.append(known)

    def front(self, k: int) -> list[Option]:
        """The numbers of the lines after first-strike split ``k`` that no other beats on
        every number."""
        return _front(self.lines[self.line_of[k]])

    def best(self) -> list[Option]:
        """The numbers of the part's lines that no other beats on every number."""
        if len(self.lines) == 1:
            return _front(self.lines[0])
        return _front([o for options in self.lines for o in options])

    def seconds(self, k: int) -> list[Split | None]:
        """The regular splits after first-strike split ``k``, in order (None: the
        attacker assigns nothing)."""
        if self.died or not self.part.regular:
            return [None]
        return list(self.part.splits(self.after[k][0]) or ()) or [None]

    def second(self, k: int, split: Split | None) -> tuple[Split | None, Option]:
        """Regular split ``split`` after first-strike split ``k``, with the whole part's
        numbers."""
        alive, player, killed = self.after[k]
        if self.died:
            return None, (player, killed, self.lost, self.gained)
        part = self.part
        _, _, d2, p2, k2, g2 = part.step(alive, self.marked, split, False)
        return split, (player + p2, killed + k2, part.value if d2 else 0, self.gained + g2)


def _front(options: Sequence[Option]) -> list[Option]:
    """The options no other is at least as good as on every number (more damage to the
    player, more blockers' value killed, less attacker's value lost, more life gained),
    each once."""
    if len(options) == 1:
        return list(options)
    # In this order an option comes after every option at least as good.
    unique = sorted(set(options), key=_better_first)
    kept: list[Option] = []
    for o in unique:
        beaten = False
        for k in kept:
            if k[0] >= o[0] and k[1] >= o[1] and k[2] <= o[2] and k[3] >= o[3]:
                beaten = True
                break
        if not beaten:
            kept.append(o)
    return kept


def _better_first(o: Option) -> tuple[int, int, int, int]:
    return (-o[0], -o[1], o[2], -o[3])


MAX_PICKS = 256
_PICKS: dict[tuple[str, ...], Callable[[tuple[int, ...]], tuple[int, ...]]] = {}
""":attr:`_Scoring.pick` of the first :data:`MAX_PICKS` lists of terms asked."""
_SLOTS = {"losses": 0, "deaths": 1, "survivals": 2, "trade": 3, "life_loss": 4,
          "life_gain": 5}


def _single(slot: int) -> Callable[[tuple[int, ...]], tuple[int, ...]]:
    """One term's number, as a vector of one."""
    def pick(numbers: tuple[int, ...]) -> tuple[int, ...]:
        return (numbers[slot],)
    return pick


class _Scoring:
    """The terms of ``plan`` from the four sums of the parts' numbers."""

    def __init__(self, life: int, poisoned: bool, parts: Sequence[_Part],
                 terms: Sequence[str]) -> None:
        self.life = life
        self.poisoned = poisoned
        worth = 0
        for part in parts:
            worth += part.value
        self.worth = worth
        key = tuple(terms)
        known = _PICKS.get(key)
        if known is None:
            slots = tuple(_SLOTS.get(t, 6) for t in terms)
            known = itemgetter(*slots) if len(slots) > 1 else _single(slots[0])
            if len(_PICKS) < MAX_PICKS:
                _PICKS[key] = known
        self.pick: Callable[[tuple[int, ...]], tuple[int, ...]] = known
        """The terms' numbers, in order, from :meth:`vector`'s seven (in C): where
        each term is among them (6: a term that is 0 on these combats:
        planeswalker_deaths, battle_deaths, poison, loyalty_loss, defense_loss)."""
        self.scored = 0

    def vector(self, damage: int, killed: int, lost: int, gained: int) -> tuple[int, ...]:
        """The value of a combat whose parts' lines add up to these numbers."""
        return self.pick((1 if self.poisoned or self.life - damage <= 0 else 0, killed,
                          self.worth - lost, killed - lost, damage, gained, 0))

    def sums(self, choices: Sequence[Sequence[Option]]) -> list[Option]:
        """The sums of one line of each part, among ``choices``, that no other sum beats
        on every number (adding the same line to two sums keeps which is better)."""
        totals: list[Option] = [(0, 0, 0, 0)]
        for options in choices:
            if len(options) == 1:
                o = options[0]
                totals = [(t[0] + o[0], t[1] + o[1], t[2] + o[2], t[3] + o[3]) for t in totals]
                continue
            self.scored += len(totals) * len(options)
            totals = _front([(t[0] + o[0], t[1] + o[1], t[2] + o[2], t[3] + o[3])
                             for t in totals for o in options])
        return totals

    def best(self, choices: Sequence[Sequence[Option]]) -> tuple[int, ...]:
        """The best value of one line of each part, among ``choices``."""
        best: tuple[int, ...] | None = None
        for t in self.sums(choices):
            v = self.vector(t[0], t[1], t[2], t[3])
            if best is None or v > best:
                best = v
        assert best is not None
        return best

    def best_with(self, option: Option, others: Sequence[Option]) -> tuple[int, ...]:
        """The best value of ``option`` with one of ``others`` (sums of the other
        parts' lines)."""
        self.scored += len(others)
        d, k, lost, g = option
        if len(others) == 1:
            t = others[0]
            return self.vector(d + t[0], k + t[1], lost + t[2], g + t[3])
        best: tuple[int, ...] | None = None
        for t in others:
            v = self.vector(d + t[0], k + t[1], lost + t[2], g + t[3])
            if best is None or v > best:
                best = v
        assert best is not None
        return best


def _amounts(part: _Part, alive: State, split: Split | None, player: str) -> Amounts:
    out: Amounts = {}
    if split is None:
        return out
    amounts, to_player = split
    for (index, _), n in zip(alive, amounts, strict=True):
        if n > 0:
            out[(part.id, part.blockers[index][0])] = n
    if to_player > 0:
        out[(part.id, player)] = to_player
    return out


def _replies(order: Sequence[tuple[str, int]], parts: Sequence[_Part],
             alive: Sequence[State], living: Sequence[bool], first: bool) -> Amounts:
    """The defending creatures' forced split in one step (in document order)."""
    dealing: dict[str, str] = {}
    for part, left, lives in zip(parts, alive, living, strict=True):
        if not lives:
            continue
        for index, _ in left:
            b = part.blockers[index]
            if b[1] > 0 and (b[4] if first else b[5]):
                dealing[b[0]] = part.id
    if not dealing:
        return {}
    return {(bid, dealing[bid]): power for bid, power in order if bid in dealing}


class NumericPlan:
    """The answer of the numbers' path: the value, the four splits and the work done."""

    __slots__ = ("attackers_regular", "blockers_first_strike", "blockers_regular",
                 "first_strike", "leaves", "value")

    def __init__(self, value: tuple[int, ...], first_strike: Amounts,
                 blockers_first_strike: Amounts, attackers_regular: Amounts,
                 blockers_regular: Amounts, leaves: int) -> None:
        self.value = value
        self.first_strike = first_strike
        self.blockers_first_strike = blockers_first_strike
        self.attackers_regular = attackers_regular
        self.blockers_regular = blockers_regular
        self.leaves = leaves
        """Parts' lines dealt and combinations of them scored."""


def numeric_plan(combat: Combat, terms: Sequence[str], max_size: int,
                 stopped: Callable[[], bool] | None = None) -> NumericPlan | None:
    """``plan`` of ``combat`` on numbers, or None when the numbers' path does not take
    it (or ``stopped`` says stop before it is done: the general way then answers as a
    stopped search does). A combat whose size bound exceeds ``max_size`` is declined too:
    the general way counts it exactly and refuses it or plans it."""
    found = _parts(combat)
    if found is None:
        return None
    return _numeric(found, terms, max_size, stopped)


def tiny_plan(tiny: Tiny, terms: Sequence[str], max_size: int,
              stopped: Callable[[], bool] | None = None) -> NumericPlan | None:
    """:func:`numeric_plan` of a combat read by
    :func:`~trample.models.document.tiny.read_tiny` (the same answer as on its
    :class:`Combat`, without building it), or None likewise."""
    found = _tiny_parts(tiny)
    if found is None:
        return None
    return _numeric(found, terms, max_size, stopped)


def _numeric(found: Numbers, terms: Sequence[str], max_size: int,
             stopped: Callable[[], bool] | None) -> NumericPlan | None:
    """:func:`numeric_plan` once the combat's numbers are read."""
    parts = found[0]
    if size_bound(found[4], parts) > max_size:
        return None
    for part in parts:
        # The regular step is read once a state the first step leaves, over the sets of
        # blockers the attacker may kill.
        states = part.bound() if part.first else 1
        if part.bound() > MAX_PART_LINES or states << len(part.blockers) > MAX_PART_WORK:
            return None

    def check() -> None:
        if stopped is not None and stopped():
            raise _Stopped

    try:
        return _solve(found, terms, check)
    except _Stopped:
        return None


def _solve(found: Numbers, terms: Sequence[str], check: Callable[[], None]
           ) -> NumericPlan | None:
    parts, player, life, poisoned, first_step, order = found
    lines = [_Lines(p, first_step, check) for p in parts]
    dealt = 0
    for line in lines:
        dealt += len(line.first)
    everything = [line.best() for line in lines]
    combos = 1
    for f in everything:
        combos *= len(f)
    if combos > MAX_COMBINATIONS:
        return None
    scoring = _Scoring(life, poisoned, parts, terms)
    value = scoring.best(everything)
    # The first split of each part, the first part slowest, whose best is the value: the
    # first whose lines include one that reaches it with the others' best.
    chosen: list[int] = []
    fixed: list[list[Option]] = []
    for i, line in enumerate(lines):
        if len(line.lines) == 1:
            chosen.append(0)
            fixed.append(everything[i])
            continue
        others = scoring.sums([*fixed, *everything[i + 1:]])
        reaching: dict[Option, bool] = {}
        missed: set[int] = set()
        for k, known in enumerate(line.line_of):
            if known in missed:
                continue
            if not k & 63:
                check()
            for o in line.lines[known]:
                hit = reaching.get(o)
                if hit is None:
                    hit = reaching[o] = scoring.best_with(o, others) == value
                if hit:
                    break
            else:
                missed.add(known)
                continue
            chosen.append(k)
            fixed.append(line.front(k))
            break
        assert len(chosen) == i + 1
    # Then the first regular split of each, likewise.
    picked: list[tuple[Split | None, Option]] = []
    for i, line in enumerate(lines):
        k = chosen[i]
        candidates = line.seconds(k)
        if len(candidates) == 1:
            # Its one regular split: the line of its first-strike split that reaches the
            # value has no other.
            dealt += 1
            picked.append(line.second(k, candidates[0]))
            continue
        others = scoring.sums([*([p[1]] for p in picked), *fixed[i + 1:]])
        for split in candidates:
            dealt += 1
            second = line.second(k, split)
            if scoring.best_with(second[1], others) == value:
                picked.append(second)
                break
        assert len(picked) == i + 1
    alive = [line.after[k][0] for line, k in zip(lines, chosen, strict=True)]
    living = [not line.died for line in lines]
    a1: Amounts = {}
    a2: Amounts = {}
    for part, line, k, state, second in zip(parts, lines, chosen, alive, picked, strict=True):
        a1.update(_amounts(part, line.start, line.first[k], player))
        a2.update(_amounts(part, state, second[0], player))
    b2 = _replies(order, parts, alive, living, False)
    if first_step:
        b1 = _replies(order, parts, [line.start for line in lines], [True] * len(parts),
                      True)
        return NumericPlan(value, a1, b1, a2, b2, dealt + scoring.scored)
    return NumericPlan(value, {}, {}, a2, b2, dealt + scoring.scored)


def regular_combat(combat: Combat, amounts: Mapping[Pair, int]) -> Combat | None:
    """The regular step's combat after the first-strike ``amounts`` (both sides', legal)
    of a combat the numbers' path takes, as :func:`~trample.models.document.outcomes.
    deal_step` builds it (there are no counters, planeswalkers, battles, effects or loss
    thresholds to carry over); None for another combat."""
    if _parts(combat) is None:
        return None
    damage: dict[str, int] = {}
    touched: set[str] = set()
    life = {p.id: p.life for p in combat.players}
    for (source_id, target), n in amounts.items():
        if n <= 0:
            continue
        source = combat.creature(source_id)
        if target in life:
            life[target] -= n
        else:
            damage[target] = damage.get(target, 0) + n
            if DEATHTOUCH in source.keywords:
                touched.add(target)
        if LIFELINK in source.keywords:
            life[source.controller] += n
    died: set[str] = set()
    for c in combat.creatures:
        marked = c.damage + damage.get(c.id, 0)
        if INDESTRUCTIBLE not in c.keywords and (marked >= c.toughness or c.id in touched):
            died.add(c.id)
    creatures = []
    for c in combat.creatures:
        if c.id in died:
            continue
        blocked = c.blocked
        if c.attacking is not None and combat.is_blocked(c) and all(
                b in died for b in combat.blockers_of(c.id)):
            blocked = True  # its blockers are gone: it stays blocked
        creatures.append(Creature(c.id, c.controller, c.power, c.toughness,
                                  c.damage + damage.get(c.id, 0), c.value, c.keywords,
                                  c.attacking, blocked,
                                  tuple(a for a in c.blocking if a not in died), c.name,
                                  c.toxic, c.effects))
    players = tuple(Player(p.id, life[p.id], p.name, p.poison) for p in combat.players)
    return Combat(combat.active_player, players, tuple(creatures), (), (), "regular")


__all__ = ["ATTACKER_KEYWORDS", "BLOCKER_KEYWORDS", "DECLARATION_KEYWORDS", "MAX_COMBINATIONS",
           "MAX_PART_LINES", "MAX_PART_WORK", "NumericPlan", "compositions", "numeric_plan",
           "regular_combat", "size_bound", "tiny_plan"]
