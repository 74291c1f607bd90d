"""Exact optimization, without search, of groups of sources whose coupling is thresholds
only: blockers several of them assign to (lethal damage counts what all of them assign,
510.1c-d, 702.19b), the loyalty a planeswalker needs before damage tramples over it to
its controller (702.19c), and contested targets of the objective (a defending player's
life, a planeswalker's loyalty, a battle's defense that several sources can reach).

A *tracked* target is one of those: a creature or planeswalker several sources assign
to, or a contested target. Each source is solved as if alone for what it gives the
rest (:mod:`trample.solver.optimize.fastpath`): for each amount it gives each tracked creature
(0 up to its threshold, or 0 or 1 with deathtouch: more changes nothing), its best
*holding* split (nothing past its blockers: a knapsack over the blockers of its own) and
its *passing* splits (its own blockers exactly lethal, the excess past them). Those are
its *candidates*: for every legal split, one candidate gives each tracked creature as
much (up to the threshold), sends at least as much to each other tracked target, uses
no recipient it does not, and is worth at least as much on every other term.

Then the group is a dynamic program over the sources, in an order that closes tracked
targets early (:func:`~trample.solver.count.greedy_order`): its state is, per tracked
target still open, the damage given so far capped at its threshold and whether a
recipient that requires it was used; its value the sum of the candidates' values.
Lexicographic order is compatible with adding vectors, so keeping the best value per
state is exact. A tracked target closes after the last source that reaches it: its
threshold term (or the creature's kill) is counted then, and a state that used a
recipient requiring it short of its threshold is dropped (702.19b-c). A state that gives
less to one target whose every increase helps (a contested target, a planeswalker, a
creature worth killing) and is worth no more than one alike in every other respect is
dropped too: it cannot end better.

Why the candidates suffice: given what a split gives the tracked targets, the rest of
its power goes to blockers of its own (holding: the knapsack's best; what is left piled
on a blocker already dealt lethal damage or spread below the thresholds) or, every
blocker of its own lethal, past them; one target past the blockers gets the whole
excess (every term grows with it), a planeswalker and its controller every split of it.

Applies to assigned-damage terms only (no outcome term, whose value is not a sum over
sources), to sources whose split their own side chooses and whose splits the holding and
passing analysis covers, and within a bound of work estimated before it starts;
otherwise ``None`` and the caller searches.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from itertools import product
from math import prod
from operator import itemgetter, mul
from typing import Any

from trample.solver.count.frontier_order import greedy_order
from trample.solver.optimize.fastpath import holding, lone_values, solve_lone
from trample.solver.optimize.objectives import Scoring, scoring
from trample.solver.rules.assignment import Amounts
from trample.solver.rules.choosers import moved_by
from trample.solver.rules.legal_space import LegalSpace, Part, Recipient, Source

ASSIGNED_TERMS = frozenset({"kills", "lethal", "planeswalker_kills", "battle_kills",
                            "player_damage", "planeswalker_damage", "battle_damage"})
"""Terms that are sums over the sources of what each assigns, but for the thresholds."""
THRESHOLD_TERMS = ("lethal", "planeswalker_kills", "battle_kills")
MAX_CANDIDATES = 1_024
"""Most candidates of one source (amounts to its tracked creatures times its splits)."""
MAX_WORK = 100_000
"""Most (state, candidate) transitions of the dynamic program, plus
:data:`WORK_PER_SOURCE` per source: estimated before it starts (from the open targets'
thresholds), counted while it runs."""
WORK_PER_SOURCE = 200
CLOCK_EVERY = 2_000
"""Transitions between two readings of the clock (a few milliseconds of work), so that
the program stops soon after the caller's deadline."""
GREEDY_SOURCES = 64
"""Groups of more sources keep their parts' order rather than the greedy one."""

Vector = tuple[int, ...]
Reached = tuple[tuple[int, ...], tuple[bool, ...]]
"""Per tracked target: the damage given so far, capped at its threshold (0 once closed);
whether a recipient that requires it was used."""
Candidate = tuple[Amounts, Vector, tuple[int, ...], tuple[bool, ...]]
"""A source's split, its value on the terms (tracked targets left out), what it gives
each tracked target (the threshold for a deathtouch amount to a creature), and which
tracked targets its used recipients require."""


def solve_lone_group(space: LegalSpace, group: Sequence[Part], terms: Sequence[str],
                     exclude: frozenset[str], deadline: float | None = None,
                     stop: Callable[[], bool] | None = None) -> Amounts | None:
    """The first best assignment of ``group``, or None when this method does not
    apply (see the module's docstring), or when ``deadline`` (a :func:`time.monotonic`
    instant) passes or ``stop()`` is true while it runs: the caller's search, which
    keeps to both, answers then."""
    if not set(terms) <= ASSIGNED_TERMS:
        return None
    sources = [s for part in group for s in part.sources]
    if len(sources) < 2:
        return None
    combat = space.combat
    if any(moved_by(combat, s.id) is not None for s in sources):
        return None
    score = scoring(space)
    counted = [score.assigned_thresholds[term] for term in THRESHOLD_TERMS if term in terms]
    need: dict[str, int] = {}
    reach: dict[str, int] = {}
    for s in sources:
        for r in s.recipients:
            reach[r.id] = reach.get(r.id, 0) + 1
            if r.kind == "creature" or r.id in exclude:
                continue
            for thresholds in counted:
                n = thresholds.get(r.id)
                if n is not None:
                    need[r.id] = n
    contested = [t for t in need if reach[t] > 1]
    walkers = [w for part in group for w in part.loyalty_items]
    # Creatures several sources assign to, not yet lethally damaged.
    shared = [t for t, k in reach.items() if k > 1 and score.kind[t] == "creature"
              and space.thresholds.get(t, 0) > 0]
    tracked = list(dict.fromkeys([*contested, *walkers, *shared]))
    index = {t: i for i, t in enumerate(tracked)}
    cap = tuple(max(need.get(t, 0) if t in contested else 0,
                    space.thresholds[t] if t in walkers or t in shared else 0)
                for t in tracked)
    creatures = frozenset(shared)
    worth = score.killable
    kills_at = [j for j, term in enumerate(terms) if term == "kills"]
    steps = {t: [j for j, term in enumerate(terms) if term in THRESHOLD_TERMS
                 and t in score.assigned_thresholds[term] and t in contested]
             for t in tracked}
    # Only a target every increase of which helps may prune (a creature of negative
    # value is better left alive).
    helpful = {i for i, t in enumerate(tracked)
               if t not in creatures or worth.get(t, 0) >= 0 or not kills_at}
    sweep = max(helpful, key=lambda i: cap[i]) if helpful else None
    inner = exclude | frozenset(tracked)

    touches = [[index[r.id] for r in s.recipients if r.id in index] for s in sources]
    # The greedy order looks at every source left for each one placed: a large group
    # keeps its parts' order (each part's sources together); with one target tracked,
    # every order keeps it alone open.
    order = greedy_order(touches) if len(tracked) > 1 and len(sources) <= GREEDY_SOURCES \
        else list(range(len(sources)))
    last: dict[int, int] = {}
    for n, j in enumerate(order):
        for i in touches[j]:
            last[i] = n
    closing: list[list[int]] = [[] for _ in order]
    for i, n in last.items():
        closing[n].append(i)
    budget = MAX_WORK + WORK_PER_SOURCE * len(sources)
    if _estimated_work(order, touches, closing, cap, sources, index, creatures,
                       sweep, budget) > budget:
        return None

    options: list[list[Candidate]] = []
    # Sources with no creature to assign to and the same power, deathtouch and recipients
    # (conditions included) have the same candidates but for their own id: a wide attack
    # of alike creatures on a planeswalker is worked out once.
    alike: dict[tuple[int, bool, tuple[Recipient, ...]], list[Candidate]] = {}
    for j in order:
        if _late(deadline, stop):
            return None
        source = sources[j]
        shape = None
        if all(r.kind != "creature" for r in source.recipients) and \
                any(r.id in index for r in source.recipients):
            shape = (source.power, source.deathtouch, source.recipients)
            known = alike.get(shape)
            if known is not None:
                options.append(_renamed(known, source.id))
                continue
        found = _candidates(space, source, terms, inner, index, creatures)
        if found is None or not found:
            return None
        if shape is not None:
            alike[shape] = found
        options.append(found)
    # What closing each target adds, and from how much damage on.
    bonus_of: dict[int, tuple[int, Vector]] = {}
    for i, t in enumerate(tracked):
        extra = [0] * len(terms)
        if t in creatures:
            for a in kills_at:
                extra[a] += worth.get(t, 0)
            threshold = cap[i]
        else:
            for a in steps[t]:
                extra[a] += 1
            threshold = need.get(t, cap[i] + 1)
        bonus_of[i] = (threshold, tuple(extra))
    weigh = _weigher(options, list(bonus_of.values()), len(terms))

    # The state holds the open targets only, in the order they opened: a target opens
    # at its first source and closes after its last.
    opened: list[int] = []
    start: Reached = ((), ())
    states: dict[Reached, int] = {start: 0}
    # Per source: each state reached -> (the state before it, the candidate taken), to
    # read the best path back at the end.
    back: list[dict[Reached, tuple[Reached, int]]] = []
    work = 0
    checked = 0  # the work when the clock was last read
    for n, j in enumerate(order):
        found = options[n]
        fresh = [i for i in touches[j] if i not in opened]
        ext = opened + fresh
        at = {i: p for p, i in enumerate(ext)}
        limit = [cap[i] for i in ext]
        shut: list[tuple[int, int, int]] = []
        for i in closing[n]:
            threshold, adds = bonus_of[i]
            shut.append((at[i], threshold, weigh(adds)))
        keep = [p for p, i in enumerate(ext) if last[i] != n]
        pick = _picker(keep)
        moves = [(weigh(gain), [(at[i], a) for i, a in enumerate(sent) if a],
                  [at[i] for i, flag in enumerate(requires) if flag])
                 for _, gain, sent, requires in found]
        pad_got = (0,) * len(fresh)
        pad_used = (False,) * len(fresh)
        following: dict[Reached, int] = {}
        came: dict[Reached, tuple[Reached, int]] = {}
        for state, value in states.items():
            work += len(moves)
            if work > budget:
                return None
            if work - checked >= CLOCK_EVERY:
                checked = work
                if _late(deadline, stop):
                    return None
            got, used = state
            base_got = got + pad_got
            base_used = used + pad_used
            for k, (gain, sent, requires) in enumerate(moves):
                reached = list(base_got)
                for p, a in sent:
                    v = reached[p] + a
                    reached[p] = v if v < limit[p] else limit[p]
                now = list(base_used)
                for p in requires:
                    now[p] = True
                total = value + gain
                for p, threshold, bonus in shut:
                    v = reached[p]
                    if now[p] and v < limit[p]:
                        break  # a recipient used that requires it, short of it (702.19b-c)
                    if v >= threshold:
                        total += bonus
                else:
                    nxt = (pick(reached), pick(now))
                    kept = following.get(nxt)
                    if kept is None or total > kept:
                        following[nxt] = total
                        came[nxt] = (state, k)
        opened = [ext[p] for p in keep]
        open_helpful = [q for q, i in enumerate(opened) if i in helpful]
        sweep = max(open_helpful, key=lambda q: cap[opened[q]]) if open_helpful else None
        states = following if sweep is None else _undominated(following, sweep)
        back.append(came)
    if not states:
        return None
    state = max(states, key=lambda st: states[st])  # the first best, in insertion order
    picked: list[int] = []
    for came in reversed(back):
        state, k = came[state]
        picked.append(k)
    result: Amounts = {}
    for choice, k in zip(options, reversed(picked), strict=True):
        for pair, amount in choice[k][0].items():
            if amount > 0:
                result[pair] = amount
    return result


def _weigher(options: Sequence[Sequence[Candidate]],
             bonuses: Sequence[tuple[int, Vector]], width: int) -> Callable[[Vector], int]:
    """A map of value vectors to integers that orders the totals of any two paths
    through the program as their vectors compare, lexicographically: each term weighs
    more than everything the later terms can differ by along two paths (what each
    source's candidates differ by, and the closing bonuses), so one integer addition and
    comparison stand for a vector's, exactly."""
    span = [0] * width
    for found in options:
        low = list(found[0][1])
        high = list(low)
        for _, gain, _, _ in found:
            for j in range(width):
                g = gain[j]
                if g < low[j]:
                    low[j] = g
                elif g > high[j]:
                    high[j] = g
        for j in range(width):
            span[j] += high[j] - low[j]
    for _, extra in bonuses:
        for j in range(width):
            span[j] += abs(extra[j])
    weights = [1] * width
    for j in range(width - 2, -1, -1):
        weights[j] = weights[j + 1] * (2 * span[j + 1] + 1)

    def weigh(vector: Vector) -> int:
        return sum(map(mul, vector, weights))
    return weigh


def _renamed(found: Sequence[Candidate], source_id: str) -> list[Candidate]:
    """``found`` (another source's candidates) as ``source_id``'s: the same amounts to the
    same targets, from it."""
    return [({(source_id, target): amount for (_, target), amount in amounts.items()},
             value, sent, requires) for amounts, value, sent, requires in found]


def _late(deadline: float | None, stop: Callable[[], bool] | None) -> bool:
    """Whether the caller's time is up or it was asked to stop."""
    return (deadline is not None and time.monotonic() > deadline) or \
        (stop is not None and stop())


def _picker(keep: list[int]) -> Callable[[list[Any]], tuple[Any, ...]]:
    """A function taking the items at ``keep`` of a list, as a tuple."""
    if not keep:
        return lambda values: ()
    if len(keep) == 1:
        only = keep[0]
        return lambda values: (values[only],)
    return itemgetter(*keep)


def _estimated_work(order: list[int], touches: list[list[int]], closing: list[list[int]],
                    cap: tuple[int, ...], sources: list[Source], index: dict[str, int],
                    creatures: frozenset[str], sweep: int | None, budget: int) -> int:
    """An estimate of the transitions: per source, its candidates times the states of
    the targets open when it comes (each capped damage, and a flag), but for the target
    the states are pruned along (``sweep``), whose count the pruning keeps small."""
    tracked = {i: t for t, i in index.items()}
    open_: set[int] = set()
    total = 0
    for n, j in enumerate(order):
        open_.update(touches[j])
        states = prod(2 * (cap[i] + 1) for i in open_ if i != sweep)
        s = sources[j]
        choices = prod(cap[index[r.id]] + 1 for r in s.recipients
                       if r.id in index and tracked[index[r.id]] in creatures)
        past = sum(1 for r in s.recipients if r.kind != "creature")
        total += states * choices * (2 + (s.power if past > 1 else 0))
        if total > budget:
            return total
        open_.difference_update(closing[n])
    return total


def lone_shaped(space: LegalSpace, group: Sequence[Part]) -> bool:
    """Whether ``group`` has the shape the dynamic program settles cheaply: no creature
    receives from two of its sources, and no source's split is chosen by the other
    side (a group with shared blockers may still be settled by it, when narrow)."""
    if any(part.lethal_items for part in group):
        return False
    sources = [s for part in group for s in part.sources]
    combat = space.combat
    if any(moved_by(combat, s.id) is not None for s in sources):
        return False
    walls = [r.id for s in sources for r in s.recipients if r.kind == "creature"]
    return len(set(walls)) == len(walls)


def _undominated(states: dict[Reached, int], sweep: int) -> dict[Reached, int]:
    """``states`` without those another state dominates along one tracked target
    (``sweep``): the same in every other respect, giving no less to that target and
    worth at least as much (every completion of the one is a completion of the other,
    worth as much more, as every increase of that target helps)."""
    if not states:
        return states
    buckets: dict[tuple[object, ...], list[Reached]] = {}
    for state in states:
        got, used = state
        buckets.setdefault((got[:sweep], got[sweep + 1:], used), []).append(state)
    kept: dict[Reached, int] = {}
    for members in buckets.values():
        members.sort(key=lambda st: st[0][sweep], reverse=True)
        top: int | None = None
        for state in members:
            value = states[state]
            if top is None or value > top:
                kept[state] = value
                top = value
    return kept


def _value(space: LegalSpace, score: Scoring, source: Source, amounts: Amounts,
           terms: Sequence[str], exclude: frozenset[str]) -> Vector:
    """A candidate's value vector, term by term (:func:`lone_values`)."""
    return tuple(lone_values(space, score, source, amounts, terms, exclude).values())


def _add(found: list[Candidate], source_id: str, index: dict[str, int],
         thresholds: dict[str, int], touch: dict[str, bool], amounts: Amounts,
         given: dict[str, int], requires: set[str], value: Vector) -> None:
    """Append to ``found`` the candidate that gives ``amounts`` and ``given`` (what the
    source assigns to the group's tracked creatures), worth ``value``, with what it sends
    to each tracked target and which of them it requires."""
    width = len(index)
    sent = [0] * width
    for (_, target), amount in amounts.items():
        i = index.get(target)
        if i is not None:
            sent[i] += amount
    for b, amount in given.items():
        sent[index[b]] = thresholds[b] if touch[b] and amount else amount
    flags = [False] * width
    for t in requires:
        i = index.get(t)
        if i is not None:
            flags[i] = True
    whole = dict(amounts)
    for b, amount in given.items():
        if amount:
            whole[(source_id, b)] = amount
    found.append((whole, value, tuple(sent), tuple(flags)))


def _candidates(space: LegalSpace, source: Source, terms: Sequence[str],
                exclude: frozenset[str], index: dict[str, int],
                creatures: frozenset[str]) -> list[Candidate] | None:
    """The source's candidates (see the module's docstring), or None."""
    score = scoring(space)
    width = len(index)
    if not any(r.id in index for r in source.recipients):
        alone = solve_lone(space, source, terms, exclude)
        if alone is None:
            return None
        return [(alone, _value(space, score, source, alone, terms, exclude), (0,) * width,
                 (False,) * width)]
    items = [r.id for r in source.recipients if r.id in creatures]
    walls = [r.id for r in source.recipients if r.kind == "creature" and r.id not in creatures]
    others = [r for r in source.recipients if r.kind != "creature"]
    if len(others) > 2:
        return None
    if others and (walls or items) and not any(r.gated for r in others):
        return None  # a blocked source that may assign past without trample: not modelled
    power = source.power
    touch = {b: (source.id, b) in space.deathtouch_pairs for b in items}
    full = {b: 1 if touch[b] else space.thresholds[b] for b in items}
    if prod(full[b] + 1 for b in items) * (2 + (power if len(others) > 1 else 0)) \
            > MAX_CANDIDATES:
        return None
    need = {w: space.lethal_from(source, w) for w in walls}
    worth = score.killable
    open_walls = [w for w in walls if need[w] > 0]
    already = [w for w in walls if need[w] == 0]
    found: list[Candidate] = []

    thresholds = space.thresholds
    sid = source.id

    held_by: dict[tuple[int, str | None],
                  tuple[Amounts, tuple[str, int] | None, Vector] | None] = {}
    for combo in product(*(range(full[b] + 1) for b in items)):
        given = dict(zip(items, combo, strict=True))
        rest = power - sum(combo)
        if rest < 0:
            continue
        filled = [b for b in items if given[b] >= full[b]]
        # Holding: the knapsack's best over the blockers of its own (the same for every
        # combination that leaves the same power and first filled creature).
        if walls or items:
            key = (rest, filled[0] if filled else None)
            if key not in held_by:
                found_held = holding(source.id, open_walls, already, need, worth, rest,
                                     filled)
                held_by[key] = None if found_held is None else \
                    (*found_held, _value(space, score, source, found_held[0], terms, exclude))
            held = held_by[key]
            if held is not None:
                amounts, pile, value = held
                if pile is not None:
                    given = dict(given)
                    given[pile[0]] += pile[1]
                _add(found, sid, index, thresholds, touch, amounts, given, set(), value)
                given = dict(zip(items, combo, strict=True))
        if not others:
            continue
        # Passing: its own blockers exactly lethal, the excess past them.
        excess = rest - sum(need.values())
        if (walls or items) and excess < 1:
            continue
        lethal = {(source.id, w): n for w, n in need.items() if n > 0}
        if len(others) == 1:
            split = dict(lethal)
            if excess:
                split[(source.id, others[0].id)] = excess
            _add(found, sid, index, thresholds, touch, split, given,
                 set(others[0].requires) if excess else set(),
                 _value(space, score, source, split, terms, exclude))
            continue
        first, second = others  # the planeswalker, then its controller (702.19c)
        if second.requires_loyalty != first.id:
            return None
        # A planeswalker the source alone assigns to must get its loyalty from it; a
        # shared one may get it from the others (the program checks the total).
        loyalty = 0 if first.id in index else space.still_needed(source, first.id)
        for x in range(excess, -1, -1):
            if x < excess and x < loyalty:
                break
            split = dict(lethal)
            requires: set[str] = set()
            if x:
                split[(source.id, first.id)] = x
                requires.update(first.requires)
            if excess - x:
                split[(source.id, second.id)] = excess - x
                requires.update(second.requires)
            _add(found, sid, index, thresholds, touch, split, given, requires,
                 _value(space, score, source, split, terms, exclude))
            if len(found) > MAX_CANDIDATES:
                return None
    return found
