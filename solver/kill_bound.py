"""A proved upper bound on the ``kills`` term of a group of coupled sources, found without
a search: the ceiling that :func:`trample.solver.cpsat.solve_group` starts from.

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
"""

from __future__ import annotations

from collections.abc import Sequence

from trample.solver.objectives import scoring
from trample.solver.rules import LegalSpace, Source

MAX_CELLS = 50_000
"""The largest knapsack tables (power times own creatures, summed over the sources) the
bound is worked out for; past that, no bound (the search runs as it would without). The
coupled parts it serves are far below (13 attackers of power up to 10: about 1,000)."""
MAX_ROWS = 5_000
"""The largest linear program (rows) solved for the prices; past that, no bound."""
SCALE = 1 << 20
"""The prices are rounded to multiples of ``1 / SCALE`` before the exact evaluation."""


def kills_ceiling(space: LegalSpace, sources: Sequence[Source]) -> int | None:
    """An upper bound on the ``kills`` term's value over ``sources`` (closed under coupling,
    as for :func:`trample.solver.cpsat.solve_group`; the expression its model makes: the
    value of each creature they reach, counted when lethally assigned), proved; None when
    not worked out (tables too large, or the linear program not solved)."""
    score = scoring(space)
    thresholds = space.thresholds
    senders = space.senders  # all in ``sources``: a group is closed under coupling
    reached = {r.id for s in sources for r in s.recipients}
    constant = 0
    shared: list[str] = []
    own: dict[str, list[tuple[int, int]]] = {s.id: [] for s in sources}
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
    scaled = SCALE * constant
    for k, c in enumerate(shared):
        scaled += max(0, SCALE * score.killable[c] - prices[k] * thresholds[c])
    for s in sources:
        table = tables[s.id]
        rate = max((w * prices[k] for k, w in reach.get(s.id, ())), default=0)
        scaled += max(SCALE * f + (s.power - d) * rate for d, f in enumerate(table))
    return scaled // SCALE


def _knapsack(items: Sequence[tuple[int, int]], capacity: int) -> list[int]:
    """``best[d]``: the greatest total value of ``items`` (need, value) whose needs sum to
    at most ``d``, for ``d`` in ``[0, capacity]``."""
    best = [0] * (capacity + 1)
    for need, value in items:
        for d in range(capacity, need - 1, -1):
            if best[d - need] + value > best[d]:
                best[d] = best[d - need] + value
    return best


def _hull(table: Sequence[int]) -> list[int]:
    """The amounts at the vertices of ``table``'s upper concave envelope."""
    hull: list[int] = []
    for d in range(len(table)):
        while len(hull) >= 2:
            a, b = hull[-2], hull[-1]
            if (table[b] - table[a]) * (d - a) <= (table[d] - table[a]) * (b - a):
                hull.pop()
            else:
                break
        hull.append(d)
    return hull


def _prices(sources: Sequence[Source], shared: Sequence[str], needs: Sequence[int],
            values: Sequence[int], reach: dict[str, list[tuple[int, int]]],
            tables: dict[str, list[int]]) -> list[int] | None:
    """Prices (times :data:`SCALE`, rounded, at least 0) that make ``L`` small: the
    linear program min sum(u_c) + sum(w_s) with u_c + t_c lam_c >= v_c, m_s >= e_sc lam_c,
    w_s + (d - P_s) m_s >= f_s(d) at the vertices of f_s's concave envelope, all of u,
    lam, m at least 0, solved by HiGHS; None if it is not solved."""
    import numpy as np
    from highspy import _core as highs

    from trample.solver.milp import THREADS

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
        table = tables[s.id]
        for d in _hull(table):
            rows.append(([w, m], [1.0, float(d - s.power)], float(table[d])))
    if len(rows) > MAX_ROWS:
        return None
    starts = np.zeros(len(rows), dtype=np.int32)
    index: list[int] = []
    coefs: list[float] = []
    for r, (cols, vals, _) in enumerate(rows):
        starts[r] = len(index)
        index.extend(cols)
        coefs.extend(vals)
    h = highs._Highs()
    # Without presolve: on programs this small it costs more than it saves (0.35 against
    # 0.5 ms a bound on the parts of 30% shared blockers at 30 x 90).
    for name, value in (("output_flag", False), ("random_seed", 0), ("threads", THREADS),
                        ("presolve", "off")):
        h.setOptionValue(name, value)
    empty = np.zeros(0, dtype=np.int32)
    h.addCols(n, cost, lower, upper, 0, empty, empty, np.zeros(0))
    h.addRows(len(rows), np.array([lo for _, _, lo in rows]), np.full(len(rows), np.inf),
              len(index), starts, np.array(index, dtype=np.int32), np.array(coefs))
    h.run()
    if h.getModelStatus() != highs.HighsModelStatus.kOptimal:
        return None
    found = h.getSolution().col_value
    return [max(round(found[k] * SCALE), 0) for k in range(n_shared)]
