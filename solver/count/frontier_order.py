"""An order of a part's (source, item) edges that keeps a frontier program small.

:class:`~trample.solver.count.frontier.FrontierPart` may take the sources in any order;
an item is open from its first source to its last. The order comes from a beam search
over the sets of sources placed (:func:`beam_order`: the frontier after a set does not
depend on the order within it), each set scored by an estimate of its frontier that
bounds an item's progress by the powers placed on it (:func:`frontier_cost`), or, for
parts too large for the beam, from the greedy order (:func:`greedy_order`) improved by a
local search (:func:`frontier_order`).
"""

from __future__ import annotations

import random
from collections.abc import Callable
from math import exp, inf, log, log1p

ORDER_EVALUATIONS = 4_000
"""Orders of one part's sources the search for a narrow frontier looks at, at most."""
ORDER_ROUNDS_PER_SOURCE = 100
"""... and at most this many per source of the part."""
ORDER_NARROW = 5_000
"""The order is searched only when the greedy one's estimated states summed over its
layers are more than this many: below, the count costs less than the search would."""
ORDER_ROUND_EDGES = 8
"""Edges (and sources) a round of the order search looks at per step of work charged
(measured: a round over 43 edges and 13 sources takes about as long as 7 transitions)."""
GREEDY_WORK = 4_000_000
"""Sources times edges of a part above which :func:`greedy_order` is not tried."""
ORDER_BEAM = 16
"""Sets of sources placed that :func:`beam_order` keeps at each depth."""
ORDER_BEAM_WORK = 600_000
"""Items' senders :func:`beam_order` may read in all (twice its width times the sources
times the squared numbers of senders of the items, summed): a part past it is ordered
by a local search instead."""
ORDER_BEAM_UNITS = 12
"""Senders read by :func:`beam_order` per step of work charged (measured: 90 to 125
nanoseconds a sender read, parts of 10 to 60 sources)."""
ORDER_WORK = 2_000_000
"""Open items the search for a narrow frontier may visit in all for one part: a large
part gets fewer orders looked at, so that the search stays far cheaper than a count."""


def frontier_cost(order: list[int], items_of: list[list[int]],
                  requires_of: list[frozenset[int]], caps: list[int],
                  powers: list[int]) -> float:
    """The log of the summed sizes of the frontiers of ``order`` (sources one after
    another), each estimated as the product of its open items' counts of states after
    each source: item ``n`` may have made any progress below its threshold ``caps[n]``
    that the powers of its sources placed sum to, required or not (not: while some
    source to come may require it; required: once one placed may have), or be met.

    Bounding the progress by the powers placed (rather than the threshold alone) is
    what ranks orders as the program's true sizes do: on the 30 x 90 benchmark combats,
    by far better than the threshold alone did, which the search then optimized."""
    count = len(caps)
    left = [0] * count
    asking = [0] * count
    for j in order:
        for n in items_of[j]:
            left[n] += 1
            if n in requires_of[j]:
                asking[n] += 1
    placed = [0] * count
    required = [False] * count
    size = [0.0] * count  # the log of each open item's count, as counted in current
    current = 0.0
    sizes: list[float] = []
    for j in order:
        power = powers[j]
        for n in items_of[j]:
            current -= size[n]
            placed[n] += power
            left[n] -= 1
            if n in requires_of[j]:
                asking[n] -= 1
                required[n] = True
            ways = (asking[n] > 0) + required[n]
            if left[n] and ways:
                size[n] = log(1 + min(caps[n], placed[n] + 1) * ways)
                current += size[n]
            else:
                size[n] = 0.0
        sizes.append(current)
    top = max(sizes, default=0.0)
    return top + log(sum(exp(x - top) for x in sizes)) if sizes else 0.0


def greedy_order(items_of: list[list[int]]) -> list[int]:
    """Sources one after another, each next the one leaving the fewest items open (then
    the one opening fewest, then the first declared)."""
    left: dict[int, int] = {}
    for items in items_of:
        for n in items:
            left[n] = left.get(n, 0) + 1
    opened: set[int] = set()
    rest = list(range(len(items_of)))
    order: list[int] = []
    while rest:
        def score(j: int) -> tuple[int, int, int]:
            mine = items_of[j]
            new = sum(1 for n in mine if n not in opened)
            closing = sum(1 for n in mine if left[n] == 1)
            return (len(opened) + new - closing, new, j)

        j = min(rest, key=score)
        rest.remove(j)
        order.append(j)
        for n in items_of[j]:
            opened.add(n)
            left[n] -= 1
            if left[n] == 0:
                opened.discard(n)
    return order


def frontier_order(items_of: list[list[int]], requires_of: list[frozenset[int]],
                   caps: list[int], powers: list[int],
                   charge: Callable[[int], None] = lambda work: None,
                   sources: list[int] | None = None) -> list[tuple[int, int | None]]:
    """An order of the (source, item) edges of a part that keeps its frontier small.

    Sources are taken one after another: in the greedy order of :func:`greedy_order`
    where its :func:`frontier_cost` is small already; else in the order of
    :func:`beam_order` (unless the greedy one is estimated smaller), where the beam's
    work is within :data:`ORDER_BEAM_WORK`; else in the greedy order improved by a local
    search (move one source elsewhere; keep the move when the :func:`frontier_cost`
    does not grow, and now and then when it does, less and less often: simulated
    annealing with a fixed seed, so the order is the same every time).
    Within a source, its edges to items it closes come first, then to open ones, then
    to new ones. ``items_of[j]``: the items of source ``j``; ``charge`` is told the
    work of the search before it starts. ``sources``: the order of the sources, given
    (no search).
    """
    if sources is not None:
        return edge_order(sources, items_of)
    count = len(items_of)
    edges = sum(len(items) for items in items_of)
    # The greedy choice looks at every source left for each one placed: for a part of
    # thousands of sources, the declared order stands in for it.
    best = greedy_order(items_of) if count * edges <= GREEDY_WORK else list(range(count))
    best_cost = frontier_cost(best, items_of, requires_of, caps, powers)
    if count <= 2 or best_cost < log(ORDER_NARROW):
        return edge_order(best, items_of)  # nothing to gain worth a search
    senders: dict[int, int] = {}
    for items in items_of:
        for n in items:
            senders[n] = senders.get(n, 0) + 1
    work = 2 * count * ORDER_BEAM * sum(k * k for k in senders.values())
    if work <= ORDER_BEAM_WORK:
        charge(work // ORDER_BEAM_UNITS)
        found = beam_order(items_of, requires_of, caps, powers)
        if frontier_cost(found, items_of, requires_of, caps, powers) <= best_cost:
            best = found
        return edge_order(best, items_of)
    rounds = min(ORDER_EVALUATIONS, ORDER_ROUNDS_PER_SOURCE * count,
                 ORDER_WORK // max(edges * edges, 1))
    # A round costs about as much as a few transitions of the dynamic program per edge.
    charge(rounds * (edges + count) // ORDER_ROUND_EDGES)
    rng = random.Random(0)
    current, current_cost = best, best_cost
    for k in range(rounds):
        order = current[:]
        order.insert(rng.randrange(count), order.pop(rng.randrange(count)))
        cost = frontier_cost(order, items_of, requires_of, caps, powers)
        heat = 0.3 * (1 - k / rounds)
        if cost <= current_cost or (heat > 0 and rng.random()
                                    < exp((current_cost - cost) / heat)):
            current, current_cost = order, cost
            if cost < best_cost:
                best, best_cost = order, cost
    return edge_order(best, items_of)


def beam_order(items_of: list[list[int]], requires_of: list[frozenset[int]],
               caps: list[int], powers: list[int]) -> list[int]:
    """Sources one after another, by a beam search over the sets of sources placed:
    the frontier after a set does not depend on the order within it, so each depth
    keeps the :data:`ORDER_BEAM` sets of least :func:`frontier_cost` so far (of the
    orders reaching them, the best), each extended by every source left."""
    count = len(items_of)
    senders: dict[int, list[int]] = {}
    for j, items in enumerate(items_of):
        for n in items:
            senders.setdefault(n, []).append(j)
    full = {n: sum(1 << j for j in js) for n, js in senders.items()}
    asks = {n: sum(1 << j for j in js if n in requires_of[j]) for n, js in senders.items()}

    def size(n: int, placed: int) -> float:
        """The log of item ``n``'s count of states once the sources of ``placed`` are."""
        inside = full[n] & placed
        ways = bool(asks[n] & ~placed) + bool(asks[n] & placed)
        if not inside or inside == full[n] or not ways:
            return 0.0
        given = sum(powers[j] for j in senders[n] if placed >> j & 1)
        return log(1 + min(caps[n], given + 1) * ways)

    # Per set placed: the log of its frontier's size, the log of the sizes summed over
    # the way there, and how it was reached (the set before, the source added).
    beam: dict[int, tuple[float, float, int, int]] = {0: (0.0, -inf, -1, -1)}
    kept: list[dict[int, tuple[float, float, int, int]]] = [beam]
    for _ in range(count):
        following: dict[int, tuple[float, float, int, int]] = {}
        for placed, (current, total, _, _) in beam.items():
            for j in range(count):
                if placed >> j & 1:
                    continue
                after = placed | 1 << j
                grown = current + sum(size(n, after) - size(n, placed) for n in items_of[j])
                high, low = (grown, total) if grown >= total else (total, grown)
                summed = high + log1p(exp(low - high)) if low > -inf else high
                found = following.get(after)
                if found is None or summed < found[1]:
                    following[after] = (grown, summed, placed, j)
        beam = dict(sorted(following.items(), key=lambda kv: kv[1][1])[:ORDER_BEAM])
        kept.append(beam)
    order: list[int] = []
    placed = next(iter(beam))
    for depth in range(count, 0, -1):
        _, _, before, j = kept[depth][placed]
        order.append(j)
        placed = before
    order.reverse()
    return order


def edge_order(best: list[int], items_of: list[list[int]]) -> list[tuple[int, int | None]]:
    """The (source, item) edges of the sources in the order ``best``: within a source,
    its edges to items it closes first, then to open ones, then to new ones."""
    left: dict[int, int] = {}
    for items in items_of:
        for n in items:
            left[n] = left.get(n, 0) + 1
    opened: set[int] = set()
    steps: list[tuple[int, int | None]] = []
    for j in best:
        mine = sorted(items_of[j], key=lambda n: (left[n] != 1, n not in opened))
        if not mine:
            steps.append((j, None))
        for n in mine:
            steps.append((j, n))
            opened.add(n)
            left[n] -= 1
            if left[n] == 0:
                opened.discard(n)
    return steps
