"""Exact optimization, without search, of sources each alone in its part that are joined
only by contested threshold targets (a defending player's life, a planeswalker's
loyalty, a battle's defense that several of them can reach).

Each source alone is solved in closed form and a knapsack (:mod:`trample.solver.fastpath`):
its best *holding* split (nothing past its blockers) and its *passing* splits (every
blocker exactly lethal, the excess past them). Of a source that reaches contested
targets, a few of those splits are kept, its *candidates*: for every amount it could
send to the contested targets, one candidate sends at least as much to each and is worth
at least as much on every other term. Then the group is a dynamic program over the
sources: its state is the damage sent so far to each contested target, capped at the
target's threshold; its value the sum of the candidates' values. Lexicographic order is
compatible with adding vectors, so keeping the best value per state is exact, and each
contested target's threshold term is added once, from the final state.

Why the candidates suffice, for a split sending ``x`` to the contested targets:

* ``x = 0`` past the blockers: the best holding split is at least as good.
* One target past the blockers: every passing split kills every blocker, so it is worth
  what a split sending the whole excess is worth, less the damage to the target; that
  split sends the most and every term grows with it.
* A planeswalker and its controller past the blockers (702.19c): every split of the
  excess between the two is a candidate, and a split that leaves some excess on the
  blockers is worth no more than one that sends it to the planeswalker.

Applies to assigned-damage terms only (no outcome term, whose value is not a sum over
sources), to sources whose splits the holding and passing analysis covers, and within a
bound of work; otherwise ``None`` and the caller searches.
"""

from __future__ import annotations

from collections.abc import Sequence

from trample.solver.assignment import Amounts
from trample.solver.fastpath import _holding, _knapsack, solve_lone
from trample.solver.objectives import evaluate, scoring
from trample.solver.rules import LegalSpace, Part, Source

ASSIGNED_TERMS = frozenset({"kills", "lethal", "planeswalker_kills", "battle_kills",
                            "player_damage", "planeswalker_damage", "battle_damage"})
"""Terms that are sums over the sources of what each assigns, but for the thresholds."""
THRESHOLD_TERMS = ("lethal", "planeswalker_kills", "battle_kills")
MAX_CANDIDATES = 256
"""Most candidates kept for one source (a planeswalker's excess split every way)."""
MAX_WORK = 50_000
"""Most (state, candidate) transitions of the dynamic program before it gives up."""

Vector = tuple[int, ...]


def solve_lone_group(space: LegalSpace, group: Sequence[Part], terms: Sequence[str],
                     exclude: frozenset[str]) -> Amounts | None:
    """The first best assignment of ``group`` (parts of one source each), or None when
    this method does not apply."""
    if len(group) < 2 or any(len(part.sources) != 1 for part in group):
        return None
    if not set(terms) <= ASSIGNED_TERMS:
        return None
    sources = [part.sources[0] for part in group]
    combat = space.combat
    if any(combat.moved_by(s.id) is not None for s in sources):
        return None
    score = scoring(space)
    counted = [score.assigned_thresholds[term] for term in THRESHOLD_TERMS if term in terms]
    need: dict[str, int] = {}
    reach: dict[str, int] = {}
    for s in sources:
        for r in s.recipients:
            if r.kind == "creature" or r.id in exclude:
                continue
            for thresholds in counted:
                n = thresholds.get(r.id)
                if n is not None:
                    need[r.id] = n
                    reach[r.id] = reach.get(r.id, 0) + 1
    contested = [t for t in need if reach[t] > 1]
    if not contested:
        return None
    index = {t: i for i, t in enumerate(contested)}
    cap = tuple(need[t] for t in contested)
    inner = exclude | frozenset(contested)
    zero: Vector = tuple(0 for _ in terms)

    # Dynamic program over the sources: state (capped damage per contested target) ->
    # (value, the candidate chosen per source so far).
    states: dict[tuple[int, ...], tuple[Vector, tuple[int, ...]]] = {
        tuple(0 for _ in contested): (zero, ())}
    options: list[list[Amounts]] = []
    work = 0
    for s in sources:
        found = _candidates(space, s, terms, inner, index)
        if found is None:
            return None
        options.append(found)
        scored = []
        for amounts in found:
            # Each source adds one candidate, so the terms' constants add up alike.
            value = tuple(evaluate(space, amounts, terms, inner).values())
            sent = [0] * len(contested)
            for (_, target), amount in amounts.items():
                i = index.get(target)
                if i is not None:
                    sent[i] += amount
            scored.append((value, sent))
        following: dict[tuple[int, ...], tuple[Vector, tuple[int, ...]]] = {}
        for state, (value, path) in states.items():
            work += len(scored)
            if work > MAX_WORK:
                return None
            for k, (gain, sent) in enumerate(scored):
                nxt = tuple(min(a + b, c) for a, b, c in zip(state, sent, cap, strict=True))
                total = tuple(a + b for a, b in zip(value, gain, strict=True))
                kept = following.get(nxt)
                if kept is None or total > kept[0]:
                    following[nxt] = (total, (*path, k))
        if len(cap) == 1:
            # One target: a state sending less and worth no more than another is never
            # better in the end (its threshold only grows with what is sent).
            states = {}
            top: Vector | None = None
            for key in sorted(following, reverse=True):
                if top is None or following[key][0] > top:
                    states[key] = following[key]
                    top = following[key][0]
        else:
            states = following

    positions = [(j, term) for j, term in enumerate(terms) if term in THRESHOLD_TERMS]
    best: tuple[Vector, tuple[int, ...]] | None = None
    for state, (value, path) in states.items():
        final = list(value)
        for j, term in positions:
            reached = score.assigned_thresholds[term]
            final[j] += sum(1 for t, i in index.items()
                            if t in reached and state[i] >= cap[i])
        key = tuple(final)
        if best is None or key > best[0]:
            best = (key, path)
    assert best is not None
    result: Amounts = {}
    for choice, picked in zip(options, best[1], strict=True):
        result.update(choice[picked])
    return result


def _candidates(space: LegalSpace, source: Source, terms: Sequence[str],
                exclude: frozenset[str], contested: dict[str, int]) -> list[Amounts] | None:
    """The source's candidates (see the module's docstring), or None."""
    if not any(r.id in contested for r in source.recipients):
        alone = solve_lone(space, source, terms, exclude)
        return None if alone is None else [alone]
    walls = [r.id for r in source.recipients if r.kind == "creature"]
    others = [r for r in source.recipients if r.kind != "creature"]
    if len(others) > 2:
        return None
    power = source.power
    need = {w: space.lethal_from(source, w) for w in walls}
    found: list[Amounts] = []
    if walls:
        worth = scoring(space).killable
        open_walls = [w for w in walls if need[w] > 0]
        already = [w for w in walls if need[w] == 0]
        chosen = _knapsack([need[w] for w in open_walls],
                           [worth.get(w, 0) for w in open_walls], power)
        if chosen is None:
            return None
        killed = [open_walls[i] for i in chosen]
        if not killed and not already:
            room = sum(need[w] - 1 for w in open_walls)
            if power > room:
                fits = [w for w in open_walls if need[w] <= power]
                killed = [max(fits, key=lambda w: worth.get(w, 0))] if fits else []
        found.append(_holding(source.id, walls, need, killed, already, power))
    if not others:
        return found
    gated = any(r.gated for r in others)
    if walls and not gated:
        return None  # a blocked source that may assign past without trample: not modelled
    excess = power - sum(need.values())
    if walls and excess < 1:
        return found
    lethal = {(source.id, w): n for w, n in need.items() if n > 0}
    if len(others) == 1:
        found.append({**lethal, (source.id, others[0].id): excess} if excess else lethal)
        return found
    first, second = others  # the planeswalker, then its controller (702.19c)
    if second.requires_loyalty != first.id:
        return None
    loyalty = space.still_needed(source, first.id)
    if excess - loyalty + 2 > MAX_CANDIDATES:
        return None
    for x in range(excess, -1, -1):
        if x < excess and x < loyalty:
            break
        split = dict(lethal)
        if x:
            split[(source.id, first.id)] = x
        if excess - x:
            split[(source.id, second.id)] = excess - x
        found.append(split)
    return found
