"""Exact optimization of a source alone in its part, without search.

A creature that shares none of its recipients with another source chooses between two
kinds of split (SPEC §2):

* *holding*: nothing goes past the blockers. Only which blockers end lethally assigned
  matters to the objective, so the best holding split is a knapsack: each blocker
  costs its lethal threshold (1 with deathtouch) and is worth its ``value`` if it can
  die, and blockers of the same cost and value are interchangeable, so it is solved as a
  bounded knapsack by kind (time about linear in the blockers for the few kinds real
  combats have; on wide amounts, its rows as step functions); what is left over is
  piled on a blocker already dealt lethal damage, or spread below the thresholds when
  none is.
* *passing*: every blocker gets exactly its threshold and the excess goes past it, to
  the attacked player, planeswalker or battle and, with trample over planeswalkers, to
  the planeswalker's controller once its loyalty is reached. Every objective term is a
  step or a linear function of the two amounts past the blockers, so the best split of
  the excess is at one of a handful of breakpoints.

Every candidate is legal by construction (and the whole answer passes the validator
before it leaves ``solve``); each is scored by the objective itself and the first best
wins. Tests prove this equal to CP-SAT and to brute force.

A space whose only source is such a creature, on a plain combat (a tiny combat's usual
shape), is answered by :func:`solve_single` without the general machinery of
:mod:`trample.solver.optimize.solve`: the same candidates, each scored once, the objective read
from the same scores, and the answer judged by the validator
(:func:`~trample.solver.rules.validate.is_legal`; tests compare both with the general
path and brute force).
"""

from __future__ import annotations

import math
from bisect import bisect_right
from collections.abc import Sequence
from typing import Any

from trample.models.document.assignment import Pair
from trample.models.document.combat import Player
from trample.models.document.errors import InternalError
from trample.models.document.outcomes import POISON_TO_LOSE
from trample.solver.optimize.objectives import (
    DAMAGE_KINDS,
    PLAIN_TERMS,
    Scoring,
    assigned_values,
    damage_by_kind,
    evaluate,
    plain_plan,
    plain_values,
    scoring,
)
from trample.solver.rules.assignment import Amounts
from trample.solver.rules.choosers import moved_by, moved_choices
from trample.solver.rules.legal_space import LegalSpace, Recipient, Source
from trample.solver.rules.validate import check_answer, is_legal

MAX_CELLS = 150_000_000
"""Largest knapsack table (bundles of blockers x capacity) solved by dynamic programming:
one byte a cell, so at most about 150 MB. Grouping blockers by kind keeps real combats far
below it (4,000 blockers of 54 kinds on power 12,000: about 4.5 million cells)."""

MAX_VALUE = 2**62
"""Larger total values would overflow the table's 64-bit integers: CP-SAT takes those."""


def _knapsack(costs: list[int], values: list[int], capacity: int) -> list[int] | None:
    """Indices of a subset of maximum total value with total cost <= capacity (the
    subset is any of the best). Only positive values are worth taking. None: too big.

    A bounded knapsack by kind: blockers with the same (cost, value) are interchangeable,
    so each kind of ``m`` blockers becomes bundles of 1, 2, 4, ... blockers (any count
    from 0 to ``m`` is a sum of distinct bundles), and the 0/1 table runs over the
    bundles. Of the blockers of one cost at most ``capacity // cost`` can be taken, and
    the best of them are those of highest value, so the others are dropped first; costs
    are divided by their greatest common divisor. Exact: every step keeps an optimal
    subset reachable.
    """
    items = [i for i, v in enumerate(values) if v > 0 and costs[i] <= capacity]
    if sum(costs[i] for i in items) <= capacity:
        return items
    if sum(values[i] for i in items) >= MAX_VALUE:
        return None
    by_cost: dict[int, list[int]] = {}
    for i in items:
        by_cost.setdefault(costs[i], []).append(i)
    kinds: dict[tuple[int, int], list[int]] = {}
    for cost, group in by_cost.items():
        # Stable: among equal values the first declared blockers are kept.
        group.sort(key=lambda i: -values[i])
        for i in group[: capacity // cost]:
            kinds.setdefault((cost, values[i]), []).append(i)
    unit = math.gcd(*(cost for cost, _ in kinds))
    capacity //= unit
    bundles: list[tuple[tuple[int, int], int]] = []  # (kind, blockers in the bundle)
    for kind, group in kinds.items():
        left, size = len(group), 1
        while left:
            take = min(size, left)
            bundles.append((kind, take))
            left -= take
            size *= 2
    cells = len(bundles) * (capacity + 1)
    if cells <= SMALL_CELLS:
        return _small_knapsack(kinds, bundles, capacity, unit)
    # Few bundles or small values on a wide capacity: the table's rows as step
    # functions, when they surely have few steps (row r at most 2^(r+1), and at most
    # the values so far plus one, as they rise at each step), or when the table is too
    # large.
    most = total = 0
    for row, ((_, value), count) in enumerate(bundles):
        total += value * count
        most += min(1 << min(row + 1, 62), capacity + 1, total + 1)
    if cells > MAX_CELLS or most <= max(cells // STEP_SHARE, STEP_STATES):
        return _step_knapsack(kinds, bundles, capacity, unit, STEP_MOST)
    import numpy as np  # only for real knapsacks: keeps `import trample.solver` light
    best = np.zeros(capacity + 1, dtype=np.int64)
    take_row = np.zeros((len(bundles), capacity + 1), dtype=np.bool_)
    for row, ((cost, value), count) in enumerate(bundles):
        weight = cost // unit * count
        if weight > capacity:
            continue
        candidate = best[: capacity + 1 - weight] + value * count
        better = candidate > best[weight:]
        take_row[row, weight:] = better
        best[weight:] = np.where(better, candidate, best[weight:])
    taken: dict[tuple[int, int], int] = {}
    left = capacity
    for row in range(len(bundles) - 1, -1, -1):
        if take_row[row, left]:
            kind, count = bundles[row]
            taken[kind] = taken.get(kind, 0) + count
            left -= kind[0] // unit * count
    return sorted(i for kind, count in taken.items() for i in kinds[kind][:count])


SMALL_CELLS = 512
"""Tables up to this many cells are filled in plain Python (a tiny combat's knapsack:
NumPy's fixed cost per call is many times the work)."""


STEP_STATES = 4_096
"""Steps :func:`_step_knapsack` is chosen for whatever the table's size, when the rows
surely hold no more in all; for a larger table, :data:`STEP_SHARE` of its cells."""
STEP_SHARE = 256
"""A step costs the plain Python of :func:`_step_knapsack` about as much as this many
cells of the NumPy table."""
STEP_MOST = 4_000_000
"""Steps :func:`_step_knapsack` may build in all (at about 100 bytes each, some 400 MB at
worst): past it, when the table would pass :data:`MAX_CELLS`, the knapsack is too big."""


STEP_ARRAYS = 64
"""Rows of more steps than this are merged by NumPy (fewer: plain Python, faster there)."""


def _step_knapsack(kinds: dict[tuple[int, int], list[int]],
                   bundles: list[tuple[tuple[int, int], int]], capacity: int,
                   unit: int, budget: int) -> list[int] | None:
    """:func:`_knapsack`'s table row by row as step functions, so the same subset: a row
    is the best value within each capacity, which changes only where some subset of the
    bundles so far costs exactly that much (the steps: at most 2^rows of them however
    wide the capacity, and no more than the values' sum, as each step rises). A bundle
    is taken at a capacity when it strictly improves on the row above, read back from
    the last row as from the table. Amounts of 2^30 on a few blockers: a handful of
    steps where the table would have billions of cells. None: more than ``budget``
    steps in all."""
    at: Any = [0]  # capacities where the row steps up, increasing
    best: Any = [0]  # the row's value from each of them on, increasing
    rows: list[tuple[Any, Any]] = []  # each row's steps before its bundle
    built = 0
    for (cost, value), count in bundles:
        rows.append((at, best))
        weight = cost // unit * count
        if weight > capacity:
            continue
        if len(at) > STEP_ARRAYS:
            at, best = _merged_arrays(at, best, weight, value * count, capacity)
        else:
            if not isinstance(at, list):
                # A row can have fewer steps than the one before (a step the shifted row
                # overtakes is gone): back from arrays to the lists merge_steps takes
                # (compiled, it takes nothing else).
                at, best = at.tolist(), best.tolist()
            at, best = merge_steps(at, best, weight, value * count, capacity)
        built += len(at)
        if built > budget:
            return None
    taken: dict[tuple[int, int], int] = {}
    left = capacity
    for row in range(len(bundles) - 1, -1, -1):
        (cost, value), count = bundles[row]
        weight = cost // unit * count
        if weight > left:
            continue
        above_at, above = rows[row]
        stay = above[bisect_right(above_at, left) - 1]
        take = above[bisect_right(above_at, left - weight) - 1] + value * count
        if take > stay:
            taken[(cost, value)] = taken.get((cost, value), 0) + count
            left -= weight
    return sorted(i for kind, count in taken.items() for i in kinds[kind][:count])


def merge_steps(at: list[int], best: list[int], weight: int, gain: int,
            capacity: int) -> tuple[Any, Any]:
    """The next row's steps: the better of the row (``at``, ``best``: where a knapsack's
    best value steps up, and to what) and the row shifted right by ``weight`` and up by
    ``gain``, up to ``capacity`` (NumPy arrays past :data:`STEP_ARRAYS` steps)."""
    merged_at: list[int] = []
    merged: list[int] = []
    i = j = 0
    here = shifted = -1  # each row's value at the capacity reached (-1: none yet)
    n = len(at)
    while i < n or j < n:
        c = at[i] if i < n else capacity + 1
        d = at[j] + weight if j < n else capacity + 1
        point = c if c < d else d
        if point > capacity:
            break
        if c == point:
            here = best[i]
            i += 1
        if d == point:
            shifted = best[j] + gain
            j += 1
        top = here if here > shifted else shifted
        if not merged or top > merged[-1]:
            merged_at.append(point)
            merged.append(top)
    if len(merged_at) > STEP_ARRAYS:
        import numpy as np

        return np.array(merged_at, dtype=np.int64), np.array(merged, dtype=np.int64)
    return merged_at, merged


def _merged_arrays(at: Any, best: Any, weight: int, gain: int,
                   capacity: int) -> tuple[Any, Any]:
    """:func:`merge_steps` on NumPy arrays."""
    import numpy as np

    shifted_at = at + weight
    keep = shifted_at <= capacity
    shifted_at = shifted_at[keep]
    shifted = best[keep] + gain
    points = np.concatenate((at, shifted_at))
    points.sort(kind="stable")  # two sorted runs: merged
    if len(points) > 1:
        points = points[np.concatenate(([True], points[1:] != points[:-1]))]
    here = best[np.searchsorted(at, points, side="right") - 1]
    j = np.searchsorted(shifted_at, points, side="right") - 1
    there = np.where(j >= 0, shifted[np.maximum(j, 0)] if len(shifted) else -1, -1)
    top = np.maximum(here, there)
    rises = np.empty(len(top), dtype=np.bool_)
    rises[0] = True
    rises[1:] = top[1:] > top[:-1]
    return points[rises], top[rises]


def _small_knapsack(kinds: dict[tuple[int, int], list[int]],
                    bundles: list[tuple[tuple[int, int], int]], capacity: int,
                    unit: int) -> list[int]:
    """:func:`_knapsack`'s table in plain Python, cell for cell the same: a bundle is taken
    at a capacity when it strictly improves on the row above, and the chosen bundles are
    read back from the last row, so the subset is the one the array version chooses."""
    best = [0] * (capacity + 1)
    take_rows: list[list[bool]] = []
    for (cost, value), count in bundles:
        weight = cost // unit * count
        take = [False] * (capacity + 1)
        take_rows.append(take)
        if weight > capacity:
            continue
        gain = value * count
        # From the top down: each cell reads the row above (cells below not yet updated).
        for c in range(capacity, weight - 1, -1):
            candidate = best[c - weight] + gain
            if candidate > best[c]:
                take[c] = True
                best[c] = candidate
    taken: dict[tuple[int, int], int] = {}
    left = capacity
    for row in range(len(bundles) - 1, -1, -1):
        if take_rows[row][left]:
            kind, count = bundles[row]
            taken[kind] = taken.get(kind, 0) + count
            left -= kind[0] // unit * count
    return sorted(i for kind, count in taken.items() for i in kinds[kind][:count])


def solve_lone(space: LegalSpace, source: Source, terms: Sequence[str],
               exclude: frozenset[str] = frozenset()) -> Amounts | None:
    """The first best legal split of a source that shares no recipient (None: the
    knapsack would be too large, or the outcome terms see effects that the holding and
    passing analysis does not model; use another exact method)."""
    if moved_by(space.combat, source.id) is not None:
        # Its recipients are the side's own creatures and players (702.22j-k): the
        # holding and passing analysis reads them as opposing ones.
        return None
    if any(t in PLAIN_TERMS for t in terms) and not _plain_source(space, source):
        # Prevention, factors, counters and lifelink make where the holding excess goes
        # and which blockers die depend on more than lethal thresholds.
        return None
    candidates = _lone_candidates(space, source)
    if candidates is None:
        return None
    if len(candidates) == 1:
        return candidates[0]
    best: Amounts | None = None
    best_key: tuple[int, ...] | None = None
    for amounts in candidates:
        key = tuple(evaluate(space, amounts, terms, exclude).values())
        if best_key is None or key > best_key:
            best, best_key = amounts, key
    return best


def _lone_candidates(space: LegalSpace, source: Source) -> list[Amounts] | None:
    """The holding and passing candidates of a source alone in its part (see the module's
    docstring), legal by construction; an optimum of any assigned-damage objective is
    among them. None: the knapsack would be too large."""
    power = source.power
    walls: list[str] = []
    others: list[Recipient] = []
    need: dict[str, int] = {}  # what it alone must assign each blocker for lethal
    open_walls: list[str] = []
    already: list[str] = []  # already lethally damaged
    for r in source.recipients:
        if r.kind != "creature":
            others.append(r)
            continue
        w = r.id
        walls.append(w)
        need[w] = left = space.lethal_from(source, w)
        (open_walls if left else already).append(w)
    candidates: list[Amounts] = []

    # Holding: the best set of blockers to kill, nothing past them.
    if walls:
        held = holding(source.id, open_walls, already, need, scoring(space).killable, power)
        if held is None:
            return None
        candidates.append(held[0])

    # Passing: every blocker exactly lethal, the excess past them.
    gated = [r for r in others if r.requires_lethal or r.requires_loyalty]
    if others and (gated or not walls):
        excess = power - sum(need.values())
        if excess >= 1 or not walls:
            base = {(source.id, w): need[w] for w in walls if need[w] > 0}
            for split in _past(space, others, excess):
                amounts = dict(base)
                for target, amount in split.items():
                    if amount > 0:
                        amounts[(source.id, target)] = amount
                candidates.append(amounts)

    return candidates


Single = tuple[Amounts, dict[str, int]]
"""A single source's answer and the value of each objective term for it."""


def solve_single(space: LegalSpace, terms: Sequence[str]) -> Single | None:
    """:func:`trample.solver.optimize.solve.optimize`'s answer (the same assignment, the same
    objective values, proved optimal) on a space of one source on a plain combat
    (:attr:`~trample.solver.optimize.objectives.Scoring.plain`), a tiny combat's usual shape;
    None when another method must answer (several sources, a moved choice, two sets of
    splits, a combat that is not plain, a knapsack too large).

    What ``optimize.solve`` does there, without its general machinery: the outcome
    terms read as their assigned-damage terms, the source's candidates
    (:func:`_lone_candidates`; a lone unconditioned recipient takes all) each scored once
    on those terms, the first best kept, its objective read from the same scores. The
    answer is checked legal (:func:`~trample.solver.rules.validate.is_legal`) and kept
    with the space for the next request with the same terms."""
    if space.alternatives or len(space.sources) != 1 or moved_choices(space.combat):
        return None
    asked = terms if type(terms) is tuple else tuple(terms)
    memo = space.memo
    known: dict[tuple[str, ...], Single] | None = memo.get("single")
    if known is not None:
        found = known.get(asked)
        if found is not None:
            return found
    source = space.sources[0]
    recipients = source.recipients
    if not recipients:
        return None
    score = scoring(space)
    if not score.plain:
        return None
    bases, shifted = plain_plan(asked)
    if len(recipients) == 1 and not recipients[0].gated:
        best: Amounts = {(source.id, recipients[0].id): source.power}
        values = lone_values(space, score, source, best, bases)
    else:
        candidates = _lone_candidates(space, source)
        if candidates is None:
            return None
        best = candidates[0]
        values = lone_values(space, score, source, best, bases)
        if len(candidates) > 1:
            best_key = tuple(values.values())
            for amounts in candidates[1:]:
                scored = lone_values(space, score, source, amounts, bases)
                key = tuple(scored.values())
                if key > best_key:
                    best, values, best_key = amounts, scored, key
    if not is_legal(space, best):
        check_answer(space, best, "solve")  # raises, in the validator's words
        raise InternalError("solve produced an assignment that is_legal refuses and the "
                            "validator accepts")
    answer = (best, plain_values(space, score, values, asked, shifted))
    if known is None:
        known = memo["single"] = {}
    if len(known) < 16:  # a handful of objectives are asked of one combat
        known[asked] = answer
    return answer


def lone_values(space: LegalSpace, score: Scoring, source: Source, amounts: Amounts,
                terms: Sequence[str], exclude: frozenset[str] = frozenset()
                ) -> dict[str, int]:
    """:func:`~trample.solver.optimize.objectives.assigned_values` of a candidate of ``source``
    alone in its space (positive amounts, to its recipients only), threshold terms
    leaving out the targets of ``exclude``: what a target receives is its one entry, and
    every creature it assigns to is deathtouched when it has deathtouch (702.2c)."""
    received = {target: amount for (_, target), amount in amounts.items()}
    values: dict[str, int] = {}
    damage: dict[str, int] | None = None
    for term in terms:
        need = score.assigned_thresholds.get(term)
        if need is not None:  # lethal, planeswalker_kills, battle_kills
            total = len(score.threshold_constant[term])
            for target, threshold in need.items():
                if received.get(target, 0) >= threshold and target not in exclude:
                    total += 1
        elif term == "kills":
            total = score.kills_constant
            killable = score.killable
            if killable:
                for c, got in received.items():
                    worth = killable.get(c)
                    if worth is not None and got >= space.lethal_from(source, c):
                        total += worth
        elif term in DAMAGE_KINDS:
            if damage is None:
                damage = damage_by_kind(score, received)
            total = damage.get(DAMAGE_KINDS[term], 0)
        else:  # not an assigned-damage term: as the general scoring reads it
            total = assigned_values(space, score, amounts, (term,))[term]
        values[term] = total
    return values


def _plain_source(space: LegalSpace, source: Source) -> bool:
    """Whether what ``source`` deals is what it assigns, with the plain results: no
    prevention or factor on its pairs, no infect, wither, lifelink or toxic, no loss
    threshold of its own, no recipient already at ten poison counters. Alone in its part,
    it is then the only source of its blockers and of every uncontested target, so each
    outcome term of its split is an assigned-damage term or a constant, and the holding
    and passing candidates below contain an optimum."""
    score = scoring(space)
    if score.plain:
        return True
    combat = space.combat
    creature = combat.creature(source.id)
    if creature.toxic or any(creature.has(k) for k in ("infect", "wither", "lifelink")):
        return False
    if any(t.source == source.id for t in combat.loss_thresholds):
        return False
    for r in source.recipients:
        if score.effects.factor(source.id, r.id) != 1:
            return False
        player = combat.get(r.id)
        if isinstance(player, Player) and player.poison >= POISON_TO_LOSE:
            return False
    return True


def holding(source_id: str, open_walls: list[str], already: list[str],
            need: dict[str, int], worth: dict[str, int], power: int,
            filled: Sequence[str] = ()) -> tuple[Amounts, tuple[str, int] | None] | None:
    """The best split of ``power`` among a source's own blockers with nothing past them:
    lethal damage to the knapsack's best set of ``open_walls`` (``need``: what the source
    must give each; ``worth``: the killable ones' values), the rest piled on a blocker
    already dealt lethal damage (``already``, or one killed), else on a shared creature
    of ``filled`` (one the source gives its threshold elsewhere: returned as (creature,
    amount) for the caller to add), else spread below the thresholds; when nothing worth
    killing fits and the spread cannot hold it all, the best single blocker dies. None:
    the knapsack would be too large, or nothing can take the rest."""
    chosen = _knapsack([need[w] for w in open_walls], [worth.get(w, 0) for w in open_walls],
                       power)
    if chosen is None:
        return None
    killed = [open_walls[i] for i in chosen]
    left = power - sum(need[w] for w in killed)
    amounts = {w: need[w] for w in killed}
    if left and (killed or already):
        dead = (killed or already)[0]
        amounts[dead] = amounts.get(dead, 0) + left
        left = 0
    if left and filled:
        return {(source_id, w): a for w, a in amounts.items() if a > 0}, (filled[0], left)
    if left:
        room = sum(need[w] - 1 for w in open_walls)
        if left > room:
            # Nothing worth killing takes it all: the best single blocker must die.
            fits = [w for w in open_walls if need[w] <= power]
            if not fits:
                return None
            w = max(fits, key=lambda b: worth.get(b, 0))
            amounts = {w: power}
        else:
            for w in open_walls:
                give = min(left, need[w] - 1)
                if give:
                    amounts[w] = give
                    left -= give
    return {(source_id, w): a for w, a in amounts.items() if a > 0}, None


def _past(space: LegalSpace, others: list[Recipient], excess: int) -> list[dict[str, int]]:
    """Splits of ``excess`` among the recipients past the blockers, at the breakpoints
    of every objective term."""
    if len(others) == 1:
        return [{others[0].id: excess}]
    first, second = others  # the planeswalker, then its controller (702.19c)
    assert second.requires_loyalty == first.id
    loyalty = space.combat.planeswalker(first.id).loyalty
    life = next((p.life for p in space.combat.players if p.id == second.id), 0)
    points = {excess, loyalty - 1, loyalty, excess - life, excess - life + 1, 0, 1}
    # The controller gets damage only once the planeswalker's loyalty is reached.
    return [{first.id: x, second.id: excess - x} for x in sorted(points)
            if 0 <= x <= excess and (x == excess or x >= loyalty)]


def most_to(space: LegalSpace, sources: Sequence[Source], target: str) -> int:
    """An upper bound, without search, on the damage ``sources`` can assign to ``target``
    together: each source's legal most (:func:`ceilings`), or less where a planeswalker's
    loyalty gates the target for several of them (702.19c): those that pass anything
    must first give the planeswalker together what its other senders cannot (their
    legal most to it at most), out of what their own blockers leave them (510.1a,
    510.1c). Every legal assignment stays within it."""
    most = ceilings(space, sources)
    plain = 0
    individual = 0  # the sum of each source's legal most
    gated: dict[str, int] = {}  # planeswalker -> what its gated sources keep past blockers
    members: dict[str, set[str]] = {}
    senders = space.senders
    for s in sources:
        r = s.recipient(target)
        if r is None:
            continue
        alone = most.get((s.id, target), s.power)
        individual += alone
        walker = r.requires_loyalty
        if walker is None:
            plain += alone
            continue
        # What the source has past its own blockers (those only it assigns to).
        kept = s.power - sum(space.still_needed(s, c) for c in r.requires_lethal
                             if len(senders.get(c, ())) == 1)
        gated[walker] = gated.get(walker, 0) + max(kept, 0)
        members.setdefault(walker, set()).add(s.id)
    total = plain
    for walker, kept in gated.items():
        others = sum(most.get((o.id, walker), o.power) for o in senders.get(walker, ())
                     if o.id not in members[walker])
        lacking = max(space.thresholds[walker] - others, 0)
        total += max(kept - lacking, 0)
    return min(total, individual)


def ceilings(space: LegalSpace, sources: Sequence[Source]) -> dict[Pair, int]:
    """For each gated pair of ``sources``, the most its source can legally assign to it
    (only those below the source's power). 702.19b-e: the recipient gets damage only once
    every item of its conditions is lethally or loyalty-assigned by all sources together;
    the others can give an item at most their power (any of them with deathtouch: all it
    needs), so the source must itself assign the rest to that item, a recipient of its own,
    out of the same power (510.1a). Exact bounds of the domain, not a relaxation: every
    legal assignment keeps within them."""
    senders = space.senders
    touching = space.deathtouch_pairs
    conditions = space.conditions
    helped: dict[str, tuple[int, frozenset[str]]] = {}
    out: dict[Pair, int] = {}
    for s in sources:
        own = {r.id for r in s.recipients}
        for r in s.recipients:
            if not r.gated:
                continue
            required = 0
            for c in {c.item: c for c in conditions[r]}.values():
                if c.item not in own or c.item == r.id:
                    continue
                if c.item not in helped:
                    givers = senders.get(c.item, ())
                    helped[c.item] = (sum(o.power for o in givers), frozenset(
                        o.id for o in givers if (o.id, c.item) in touching))
                total, touch = helped[c.item]
                if touch - {s.id}:
                    continue  # another source's deathtouch can meet it with 1
                others = total - s.power
                if (s.id, c.item) in touching:
                    required += 1 if others < c.threshold else 0
                else:
                    required += max(c.threshold - others, 0)
            most = max(s.power - required, 0)
            if most < s.power:
                out[(s.id, r.id)] = most
    return out
