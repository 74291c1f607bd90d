"""Exact optimization, without search, of sources whose blockers are their own, joined
only through planeswalkers and thresholds: the loyalty a planeswalker needs before
damage tramples over it to its controller (702.19c), and contested targets of the
objective (a defending player's life, a planeswalker's loyalty, a battle's defense that
several sources can reach).

Each source is solved as if alone (:mod:`trample.solver.fastpath`): its best *holding*
split (nothing past its blockers) and its *passing* splits (every blocker exactly lethal,
the excess past them). Of a source that reaches a *tracked* target (a contested one, or a
planeswalker whose loyalty several sources assign), a few of those splits are kept, its
*candidates*: for every split, one candidate sends at least as much to each tracked
target, no more past a planeswalker it shares, and is worth at least as much on every
other term. Then the group is a dynamic program over the sources: its state is the
damage sent so far to each tracked target, capped at its threshold, and whether damage
went past each shared planeswalker; its value the sum of the candidates' values.
Lexicographic order is compatible with adding vectors, so keeping the best value per
state is exact; each contested target's threshold term is added once, from the final
state, and a final state with damage past a shared planeswalker short of its loyalty is
not legal. A tracked target leaves the state after the last source that reaches it (its
term counted, its loyalty checked), so a shared planeswalker is open for its part only.
A state that sends less to the target with the largest threshold and is worth no more
than one alike in every other respect is dropped: it cannot end better.

Why the candidates suffice:

* Nothing past the blockers: the best holding split is at least as good.
* One target past the blockers: every passing split kills every blocker, so it is worth
  what the split sending the whole excess is worth, less the damage to the target; that
  split sends the most, and every term grows with it.
* A planeswalker and its controller past the blockers (702.19c): every split of the
  excess between the two is a candidate (only those reaching the loyalty first when the
  planeswalker is the source's alone), and a split that leaves some excess on the
  blockers is worth no more than one that sends it to the planeswalker.

Applies to assigned-damage terms only (no outcome term, whose value is not a sum over
sources), when no creature receives from two sources, to sources whose splits the
holding and passing analysis covers, and within a bound of work; otherwise ``None`` and
the caller searches.
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
MAX_WORK = 100_000
"""Most (state, candidate) transitions of the dynamic program before it gives up."""

Vector = tuple[int, ...]
State = tuple[tuple[int, ...], tuple[bool, ...]]
"""Capped damage per tracked target; whether damage went past each shared planeswalker."""


def solve_lone_group(space: LegalSpace, group: Sequence[Part], terms: Sequence[str],
                     exclude: frozenset[str]) -> Amounts | None:
    """The first best assignment of ``group``, or None when this method does not
    apply (see the module's docstring)."""
    if not set(terms) <= ASSIGNED_TERMS or not lone_shaped(space, group):
        return None
    sources = [s for part in group for s in part.sources]
    if len(sources) < 2:
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
    shared = [w for part in group for w in part.loyalty_items]
    if not contested and not shared:
        return None
    tracked = list(dict.fromkeys([*contested, *shared]))
    index = {t: i for i, t in enumerate(tracked)}
    gate = {w: space.thresholds[w] for w in shared}
    cap = tuple(max(need.get(t, 0) if t in contested else 0, gate.get(t, 0))
                for t in tracked)
    flag = {w: i for i, w in enumerate(shared)}
    inner = exclude | frozenset(tracked)
    # A tracked target leaves the state after the last source that reaches it: its
    # threshold term is counted and its loyalty checked then, and states that differ
    # only there merge (the sources come part by part, so a shared planeswalker is open
    # for its part only).
    last: dict[str, int] = {}
    for n, s in enumerate(sources):
        for r in s.recipients:
            if r.id in index:
                last[r.id] = n
    closing: list[list[str]] = [[] for _ in sources]
    for t, n in last.items():
        closing[n].append(t)
    steps = {t: [j for j, term in enumerate(terms) if term in THRESHOLD_TERMS
                 and t in score.assigned_thresholds[term] and t in contested]
             for t in tracked}
    sweep = max(range(len(tracked)), key=lambda i: cap[i])
    start: State = (tuple(0 for _ in tracked), tuple(False for _ in shared))
    states: dict[State, tuple[Vector, tuple[int, ...]]] = {
        start: (tuple(0 for _ in terms), ())}
    options: list[list[Amounts]] = []
    work = 0
    for n, s in enumerate(sources):
        found = _candidates(space, s, terms, inner, index, flag)
        if found is None:
            return None
        options.append(found)
        scored = []
        for amounts in found:
            # Each source adds one candidate, so the terms' constants add up alike.
            value = tuple(evaluate(space, amounts, terms, inner).values())
            sent = [0] * len(tracked)
            passed = [False] * len(shared)
            for (_, target), amount in amounts.items():
                i = index.get(target)
                if i is not None:
                    sent[i] += amount
                walker = s.recipient(target)
                if walker is not None and walker.requires_loyalty in flag and amount > 0:
                    passed[flag[walker.requires_loyalty]] = True
            scored.append((value, sent, passed))
        following: dict[State, tuple[Vector, tuple[int, ...]]] = {}
        for (got, past), (value, path) in states.items():
            work += len(scored)
            if work > MAX_WORK:
                return None
            for k, (gain, sent, passed) in enumerate(scored):
                reached = [min(a + b, c) for a, b, c in zip(got, sent, cap, strict=True)]
                now = [a or b for a, b in zip(past, passed, strict=True)]
                total = list(value)
                for a, b in enumerate(gain):
                    total[a] += b
                for t in closing[n]:
                    i = index[t]
                    w = flag.get(t)
                    if w is not None:
                        if now[w] and reached[i] < gate[t]:
                            break  # damage past a planeswalker short of its loyalty
                        now[w] = False
                    if reached[i] >= need.get(t, cap[i] + 1):
                        for j in steps[t]:
                            total[j] += 1
                    reached[i] = 0
                else:
                    nxt = (tuple(reached), tuple(now))
                    kept = following.get(nxt)
                    candidate = tuple(total)
                    if kept is None or candidate > kept[0]:
                        following[nxt] = (candidate, (*path, k))
        states = _undominated(following, sweep)
    best = max(states.values(), default=None, key=lambda entry: entry[0])
    if best is None:
        return None
    result: Amounts = {}
    for choice, picked in zip(options, best[1], strict=True):
        result.update(choice[picked])
    return result


def lone_shaped(space: LegalSpace, group: Sequence[Part]) -> bool:
    """Whether ``group`` has the shape the dynamic program takes: no creature receives
    from two of its sources (its kill would not be a sum), and no source's split is
    chosen by the other side."""
    if any(part.lethal_items for part in group):
        return False
    sources = [s for part in group for s in part.sources]
    combat = space.combat
    if any(combat.moved_by(s.id) is not None for s in sources):
        return False
    walls = [r.id for s in sources for r in s.recipients if r.kind == "creature"]
    return len(set(walls)) == len(walls)


def _undominated(states: dict[State, tuple[Vector, tuple[int, ...]]], sweep: int
                 ) -> dict[State, tuple[Vector, tuple[int, ...]]]:
    """``states`` without those another state dominates along one tracked target
    (``sweep``): the same in every other respect, sending no less to that target and
    worth at least as much (every completion of the one is a completion of the other,
    worth as much more, as thresholds only grow with what is sent)."""
    if not states:
        return states
    buckets: dict[tuple[object, ...], list[State]] = {}
    for state in states:
        got, past = state
        buckets.setdefault((got[:sweep], got[sweep + 1:], past), []).append(state)
    kept: dict[State, tuple[Vector, tuple[int, ...]]] = {}
    for members in buckets.values():
        members.sort(key=lambda st: st[0][sweep], reverse=True)
        top: Vector | None = None
        for state in members:
            entry = states[state]
            if top is None or entry[0] > top:
                kept[state] = entry
                top = entry[0]
    return kept


def _candidates(space: LegalSpace, source: Source, terms: Sequence[str],
                exclude: frozenset[str], tracked: dict[str, int],
                shared: dict[str, int]) -> list[Amounts] | None:
    """The source's candidates (see the module's docstring), or None."""
    if not any(r.id in tracked for r in source.recipients):
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
    if walls and not any(r.gated for r in others):
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
    # A planeswalker the source alone assigns to must get its loyalty from it; a shared
    # one may get it from the others (the program checks the total at the end).
    loyalty = 0 if first.id in shared else space.still_needed(source, first.id)
    if excess + 2 > MAX_CANDIDATES:
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
