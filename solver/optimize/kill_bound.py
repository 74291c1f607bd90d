"""A proved upper bound on the ``kills`` term of a group of coupled sources, found without
a search: the ceiling that :func:`trample.solver.optimize.cpsat.solve_group` starts from.

``kills`` counts the value of each creature lethally assigned (510.1c-d: the damage
assigned to it in all reaches its lethal damage, or, 702.2c, any amount comes from a
source with deathtouch). Its value over a group, for any legal split, is at most

    L(lam) = sum over shared c of max(0, v_c - lam_c * t_c)
             + sum over sources s of max over d in [0, P_s] of
                   f_s(d) + (P_s - d) * max(0, max over shared c of s of e_sc * lam_c)

for any prices ``lam_c >= 0`` on the creatures of positive value that several sources
reach (the shared ones), where ``t_c`` is the creature's lethal damage, ``e_sc`` is
``t_c`` when ``s`` has deathtouch for ``c`` and 1 otherwise, ``P_s`` is the source's power
and ``f_s(d)`` the best value of the creatures only ``s`` reaches that ``d`` damage can
kill (a knapsack, each needing its lethal damage, or 1 from deathtouch). Why: a shared
creature killed has ``t_c <= sum_s e_sc * x_sc``, so its value is at most
``(v_c - lam_c t_c) + lam_c * sum_s e_sc x_sc``; the creatures only ``s`` reaches are paid
from its damage ``d`` to them, and what it sends the shared ones is at most ``P_s - d``;
creatures of negative value and damage to players only lower the count. (This is the
Lagrangian relaxation of the shared creatures' lethal damage, each source's own creatures
kept whole: on the coupled parts of 30% shared blockers at 30 x 90 it is within 0 to 2.5
of the optimum, against 0 to 9 for the linear relaxation.)

The prices come from a small linear program (HiGHS) that minimizes ``L``; whatever it
answers, the bound is then evaluated exactly, in integers (the prices rounded to
multiples of 2^-20), so floating point can only make it weaker, never wrong.

``f_s`` is kept as its steps: the amounts where it rises (the least damage that kills a
set of the source's own creatures worth more than any cheaper set), at most one per value
it can take. ``f_s(d) + (P_s - d) * rate`` with ``rate >= 0`` is greatest at the first
amount of a step, and the concave envelope of ``f_s`` has its vertices there too, so the
bound and the linear program read the steps alone (the same bound as from a table of every
amount: compared on 143 coupled parts of the benchmark's families, and 7 times sooner).

The same prices also bound the kills of the splits that kill one creature, or spare it:
killing a shared creature ``c`` makes its term ``v_c - lam_c * t_c`` however negative;
sparing it drops the term and its price from its sources' rates (what they send it
kills nothing); killing or sparing a creature only ``s`` reaches makes ``f_s`` the
knapsack of the others, shifted by its lethal damage and value when it is killed. Where
one of the two is below ``k``, every split that kills at least ``k`` does the other
(:meth:`Ceiling.decided`), and where both are, none kills ``k``: the search from the
ceiling starts with those creatures decided, or skips ``k`` (reduced-cost fixing, as a
MILP solver does it from its linear relaxation). The work stays linear in the input: a
shared creature changes only the rates of the sources whose best rate it pays (each
source keeps its best two), and the knapsack of all of a source's creatures but one is
read from the knapsacks of those before it and those after it, each built once (a
source of power 20 with 2,000 creatures of distinct values: 0.27 s from the sources,
where a knapsack for each creature took 37 s).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from trample.solver.optimize.fastpath import merge_steps
from trample.solver.optimize.highs import new_highs, run_status
from trample.solver.optimize.objectives import scoring
from trample.solver.optimize.status import RunStatus
from trample.solver.rules.legal_space import LegalSpace, Source

MAX_CELLS = 50_000
"""The bound is worked out only where the sources' power times their own creatures plus
one, summed, is at most this; past that, no bound (the search runs as it would without).
The coupled parts it serves are far below (13 attackers of power up to 10: about 1,000).
Wide amounts are left out on purpose: with every amount of the benchmark's combats
multiplied by 2^29 (parts of 30% shared blockers at 100 x 300, 5% shared, pile-ups of
200, 3 seeds each), the ceiling was 5 or more above the optimum, and the search from it
proved one part sooner (10 s unproved -> 5 s) and others later (0.04 s -> 10 s
unproved; 1 s -> 7 s)."""
MAX_ROWS = 5_000
"""The largest linear program (rows) solved for the prices; past that, no bound."""
SCALE = 1 << 20
"""The prices are rounded to multiples of ``1 / SCALE`` before the exact evaluation."""


@dataclass(frozen=True, slots=True)
class Ceiling:
    """A proved upper bound on the ``kills`` term of a group, and on the kills of its
    splits that kill, or spare, each creature of positive value it reaches."""

    value: int
    """No legal split of the group kills more."""
    creatures: tuple[tuple[str, int, int], ...] = ()
    """(creature, most kills of a split that kills it, most of one that spares it)."""

    def decided(self, k: int) -> list[tuple[str, bool]]:
        """(creature, killed) for each creature that every split killing at least ``k``
        kills (True) or spares (False). A creature listed both ways: no split kills
        ``k``."""
        found: list[tuple[str, bool]] = []
        for creature, killing, sparing in self.creatures:
            if killing < k:
                found.append((creature, False))
            if sparing < k:
                found.append((creature, True))
        return found


def kills_ceiling(space: LegalSpace, sources: Sequence[Source]) -> Ceiling | None:
    """An upper bound on the ``kills`` term's value over ``sources`` (closed under coupling,
    as for :func:`trample.solver.optimize.cpsat.solve_group`; the expression its model makes: the
    value of each creature they reach, counted when lethally assigned), proved, with the
    bounds that decide creatures (:class:`Ceiling`); None when not worked out (the
    sources' amounts too wide, or the linear program not solved)."""
    score = scoring(space)
    thresholds = space.thresholds
    senders = space.senders  # all in ``sources``: a group is closed under coupling
    reached = {r.id for s in sources for r in s.recipients}
    constant = 0
    shared: list[str] = []
    own: dict[str, list[tuple[int, int]]] = {s.id: [] for s in sources}
    own_ids: dict[str, list[str]] = {s.id: [] for s in sources}
    for c, v in score.killable.items():
        if c not in reached or v == 0:
            continue
        need = thresholds[c]
        if need <= 0:
            constant += v  # lethally assigned whatever is assigned
        elif v > 0:
            if len(senders[c]) > 1:
                shared.append(c)
            else:
                s = senders[c][0]
                own[s.id].append((space.lethal_from(s, c), v))
                own_ids[s.id].append(c)
    if sum(s.power * (len(own[s.id]) + 1) for s in sources) > MAX_CELLS:
        return None
    tables = {s.id: _knapsack(own[s.id], s.power) for s in sources}
    # Each source's shared creatures, with the weight of its damage to each: how much of
    # the lethal damage one point from it stands for (all of it from deathtouch, 702.2c).
    reach: dict[str, list[tuple[int, int]]] = {}
    for k, c in enumerate(shared):
        for s in senders[c]:
            reach.setdefault(s.id, []).append((k, thresholds[c] // space.lethal_from(s, c)))
    prices = _prices(sources, shared, [thresholds[c] for c in shared],
                     [score.killable[c] for c in shared], reach, tables) if shared else []
    if prices is None:
        return None
    # Everything in units of 1 / SCALE, exactly.
    margin = [SCALE * score.killable[c] - prices[k] * thresholds[c]
              for k, c in enumerate(shared)]
    # Each source's best rate, the shared creature paying it, and the best of the others'.
    rates: dict[str, tuple[int, int, int]] = {}
    for s in sources:
        top, paying, second = 0, -1, 0
        for k, w in reach.get(s.id, ()):
            rate = w * prices[k]
            if rate > top:
                top, paying, second = rate, k, top
            elif rate > second:
                second = rate
        rates[s.id] = (top, paying, second)

    def paid(s: Source, rate: int) -> int:
        """The source's term: its best own creatures, the rest of its damage at ``rate``."""
        return max(SCALE * f + (s.power - d) * rate for d, f in tables[s.id])

    terms = {s.id: paid(s, rates[s.id][0]) for s in sources}
    total = SCALE * constant + sum(max(0, m) for m in margin) + sum(terms.values())
    found: list[tuple[str, int, int]] = []
    for k, c in enumerate(shared):
        rest = total - max(0, margin[k])
        # Spared, it pays no source: those it paid the best rate get their second best.
        sparing = rest - sum(terms[s.id] - paid(s, rates[s.id][2])
                             for s in senders[c] if rates[s.id][1] == k)
        found.append((c, (rest + margin[k]) // SCALE, sparing // SCALE))
    for s in sources:
        rest = total - terms[s.id]
        rate = rates[s.id][0]
        items = own[s.id]
        # The knapsack of all but one creature is the best pair of a point of the
        # knapsack of those before it and one of those after it: each side built once.
        after = [[(0, 0)]]
        for need, value in reversed(items[1:]):
            after.append(_knapsack([(need, value)], s.power, after[-1]))
        after.reverse()
        before = [(0, 0)]
        for j, (need, value) in enumerate(items):
            if j:  # (the knapsack of all of them is the source's table, not rebuilt)
                before = _knapsack(items[j - 1:j], s.power, before)
            sparing = _best_pair(before, after[j], s.power, rate) + s.power * rate
            killing = -1 if need > s.power else (
                rest + SCALE * value + _best_pair(before, after[j], s.power - need, rate)
                + (s.power - need) * rate) // SCALE
            found.append((own_ids[s.id][j], killing, (rest + sparing) // SCALE))
    return Ceiling(total // SCALE, tuple(found))


def _best_pair(first: Sequence[tuple[int, int]], second: Sequence[tuple[int, int]],
               capacity: int, rate: int) -> int:
    """The greatest ``SCALE * (f1 + f2) - (d1 + d2) * rate`` over a step (d1, f1) of
    ``first`` and one (d2, f2) of ``second`` (each in increasing order, from (0, 0))
    with ``d1 + d2 <= capacity``: the best of ``SCALE * f(d) - d * rate`` for ``f`` the
    knapsack of both sides' items together (``rate >= 0``: its best amount is a sum of
    two steps)."""
    # The best of the second side's steps up to each of them.
    running: list[int] = []
    for d, f in second:
        here = SCALE * f - d * rate
        running.append(here if not running or here > running[-1] else running[-1])
    best: int | None = None
    k = len(second) - 1
    for d, f in first:
        while k >= 0 and d + second[k][0] > capacity:
            k -= 1
        if k < 0:
            break
        here = SCALE * f - d * rate + running[k]
        if best is None or here > best:
            best = here
    assert best is not None, "both sides start at (0, 0), within any capacity >= 0"
    return best


def _knapsack(items: Sequence[tuple[int, int]], capacity: int,
              start: Sequence[tuple[int, int]] = ((0, 0),)) -> list[tuple[int, int]]:
    """The steps of ``f(d)``, the greatest total value of ``items`` (need, value) whose
    needs sum to at most ``d``, for ``d`` in ``[0, capacity]``: each (d, f(d)) where it
    rises, from (0, 0), in increasing order of both (with ``start``, the steps of a
    knapsack of other items, those of all of them)."""
    at: list[int] = [d for d, _ in start]
    best: list[int] = [f for _, f in start]
    for need, value in items:
        if need <= capacity:
            merged_at, merged = merge_steps(at, best, need, value, capacity)
            at, best = list(map(int, merged_at)), list(map(int, merged))
    return list(zip(at, best, strict=True))


def _hull(steps: Sequence[tuple[int, int]]) -> list[tuple[int, int]]:
    """The vertices of the upper concave envelope of ``steps`` (points in increasing
    order of both coordinates)."""
    hull: list[tuple[int, int]] = []
    for d, f in steps:
        while len(hull) >= 2:
            (a, fa), (b, fb) = hull[-2], hull[-1]
            if (fb - fa) * (d - a) <= (f - fa) * (b - a):
                hull.pop()
            else:
                break
        hull.append((d, f))
    return hull


def _prices(sources: Sequence[Source], shared: Sequence[str], needs: Sequence[int],
            values: Sequence[int], reach: dict[str, list[tuple[int, int]]],
            tables: dict[str, list[tuple[int, int]]]) -> list[int] | None:
    """Prices (times :data:`SCALE`, rounded, at least 0) that make ``L`` small: the
    linear program min sum(u_c) + sum(w_s) with u_c + t_c lam_c >= v_c, m_s >= e_sc lam_c,
    w_s + (d - P_s) m_s >= f_s(d) at the vertices of f_s's concave envelope, all of u,
    lam, m at least 0, solved by HiGHS; None if it is not solved."""
    import numpy as np

    n_shared = len(shared)
    linked = [s for s in sources if s.id in reach]
    # Columns: lam (n_shared), u (n_shared), then m and w per linked source.
    n = 2 * n_shared + 2 * len(linked)
    cost = np.zeros(n)
    cost[n_shared:2 * n_shared] = 1.0
    lower = np.zeros(n)
    upper = np.full(n, np.inf)
    rows: list[tuple[list[int], list[float], float]] = []
    for k in range(n_shared):
        rows.append(([k, n_shared + k], [float(needs[k]), 1.0], float(values[k])))
    for j, s in enumerate(linked):
        m = 2 * n_shared + 2 * j
        w = m + 1
        cost[w] = 1.0
        lower[w] = -np.inf
        for k, weight in reach[s.id]:
            rows.append(([m, k], [1.0, -float(weight)], 0.0))
        for d, f in _hull(tables[s.id]):
            rows.append(([w, m], [1.0, float(d - s.power)], float(f)))
    if len(rows) > MAX_ROWS:
        return None
    starts = np.zeros(len(rows), dtype=np.int32)
    index: list[int] = []
    coefs: list[float] = []
    for r, (cols, vals, _) in enumerate(rows):
        starts[r] = len(index)
        index.extend(cols)
        coefs.extend(vals)
    # Without presolve: on programs this small it costs more than it saves (0.35 against
    # 0.5 ms a bound on the parts of 30% shared blockers at 30 x 90).
    h = new_highs(("presolve", "off"))
    empty = np.zeros(0, dtype=np.int32)
    h.addCols(n, cost, lower, upper, 0, empty, empty, np.zeros(0))
    h.addRows(len(rows), np.array([lo for _, _, lo in rows]), np.full(len(rows), np.inf),
              len(index), starts, np.array(index, dtype=np.int32), np.array(coefs))
    h.run()
    if run_status(h) is not RunStatus.OPTIMAL:
        return None
    found = h.getSolution().col_value
    return [max(round(found[k] * SCALE), 0) for k in range(n_shared)]
