"""Coupled sources on ``lethal``, ``kills`` and ``player_damage`` as a MILP over each
source's options for the creatures only it reaches.

On a group whose sources assign to creatures and players only (blocked attackers, some
with trample), the creatures one source alone reaches (its *own*) couple nothing: what
that source gets from them depends only on how much of its power it gives them. So the
model here keeps one choice per source among its *options* for its own creatures instead
of an amount per pair:

- a set ``L`` of its own creatures to assign lethal damage (510.1c-d; 1 from deathtouch,
  702.2c), worth the value of ``L`` and needing at least the sum of their lethal damage,
  any more going to a creature of ``L`` (already lethal: nothing changes);
- or none: at most each own creature's lethal damage less 1, nothing killed.

Only the sets worth keeping are options: for each amount, the most valuable set of
creatures of value at least 0 that it can kill (the steps of a knapsack), each creature
of negative value alone, and for a trampler all of them (its gate to the player, 702.19b,
needs every blocker lethally assigned). The creatures several sources reach (*shared*)
keep an amount per pair and a binary "lethally assigned", with deathtouch as in
:mod:`trample.solver.optimize.cpsat`'s model; a trampler's damage to the player is gated
on the binaries of its shared blockers and on its option of all its own.

Why: this is the Lagrangian decomposition of the kills ceiling
(:mod:`trample.solver.optimize.kill_bound`) written as a MILP. Its linear relaxation has
each source's own creatures at the concave envelope of their knapsack, where the model
per pair relaxes each creature's lethal damage alone, and it has fewer columns. What it
is worth, measured (docs/performance.md, "Against the compact MILP"): HiGHS proves the
large groups of 30% shared blockers at 100 x 300 about 1.3 times sooner on it, those at
30 x 90 as soon, and token swarms' groups later (so they are left out); HiGHS's presolve
and root cuts reach much the same strength on the model per pair. Hence off as shipped
(:attr:`~trample.solver.optimize.search_settings.SearchSettings.kill_steps`).

Exactness: every legal split of the group maps to a point of the model worth at least as
much (its own creatures' lethal set is matched by an option of at least its value and at
most its cost), and every point of the model is made a legal split worth at least the
model's value (:func:`_realize`). The split is checked (each source's power assigned,
every gate open) and scored by :func:`~trample.solver.optimize.objectives.evaluate`; it
is answered only when that score reaches HiGHS's proved bound, else the caller's usual
search runs (``None``).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import dataclass
from math import floor, inf
from typing import Any

from trample.solver.optimize.highs import HEURISTICS_OFF, new_highs, run_status
from trample.solver.optimize.objectives import evaluate, scoring
from trample.solver.optimize.status import RunStatus
from trample.solver.rules.assignment import Amounts
from trample.solver.rules.legal_space import LegalSpace, Source

TERMS = frozenset({"lethal", "kills", "player_damage"})
"""The terms this model weighs (``lethal`` only where it cannot vary on the group)."""
MAX_CELLS = 20_000
"""The knapsacks of the sources' own creatures are worked out only up to this many cells
(power times creatures, summed); past that, the usual search."""
MAX_RANGE = 2**28
"""The widest weighted objective given to HiGHS (as :data:`.milp.MAX_RANGE`)."""
ABSOLUTE_GAP = 0.5
"""HiGHS may stop within this of its bound: the objective's coefficients are integers."""
BOUND_SLACK = 1e-6
"""Floating-point noise forgiven on HiGHS's bound before flooring it."""


@dataclass(frozen=True, slots=True)
class _Option:
    """What a source does with its own creatures: kill ``kills`` (worth ``value``) with
    between ``low`` and ``high`` damage to them; ``whole`` when that is all of them."""

    value: int
    low: int
    high: float
    kills: tuple[str, ...]
    whole: bool = False


def _knapsack(items: Sequence[tuple[str, int, int]], power: int
              ) -> list[tuple[int, int, tuple[str, ...]]]:
    """The steps of the best value of ``items`` (creature, cost, value >= 0) killed with at
    most ``d`` damage, ``d`` up to ``power``: (value, least cost, creatures), where the
    value rises (items of value above 0: every step kills one at least)."""
    best: list[tuple[int, int, tuple[str, ...]]] = [(0, 0, ())] * (power + 1)
    # (value, -cost) compared: the best value, then the least cost for it.
    for creature, cost, value in items:
        if cost > power:
            continue
        for d in range(power, cost - 1, -1):
            v0, c0, kills0 = best[d - cost]
            candidate = (v0 + value, c0 + cost, (*kills0, creature))
            here = best[d]
            if (candidate[0], -candidate[1]) > (here[0], -here[1]):
                best[d] = candidate
    steps: list[tuple[int, int, tuple[str, ...]]] = []
    for value, cost, kills in best:
        if not kills:
            continue
        if not steps or value > steps[-1][0]:
            steps.append((value, cost, kills))
        elif value == steps[-1][0] and cost < steps[-1][1]:
            steps[-1] = (value, cost, kills)
    return steps


def _options(space: LegalSpace, source: Source, own: Sequence[str], values: dict[str, int],
             need: dict[str, int], sinks: bool, whole: bool) -> list[_Option]:
    """The source's options on its own creatures ``own`` (lethal damage still needed
    above 0); ``sinks``: it also reaches a creature lethally assigned already (any amount
    goes there harmlessly); ``whole``: add the option of killing all of them."""
    power = source.power
    cost = {c: space.lethal_from(source, c) for c in own}
    # Nothing killed: each own creature takes up to its lethal damage less 1 (none from
    # deathtouch, where 1 is lethal).
    touching = space.deathtouch_pairs
    room = inf if sinks else sum(0 if (source.id, c) in touching else need[c] - 1
                                 for c in own)
    steps = [_Option(value, low, inf, kills) for value, low, kills in
             _knapsack([(c, cost[c], values.get(c, 0)) for c in own
                        if values.get(c, 0) > 0], power)]
    # Besides the steps (none of which is as good as another in every way), a few more:
    # nothing killed; a split that kills none worth anything may still kill one worth 0
    # or less (and then take any amount): its option is that creature alone; and for a
    # trampler, all of them.
    extra = [_Option(0, 0, room, ())]
    for c in own:
        v = values.get(c, 0)
        if v <= 0 and cost[c] <= power:
            extra.append(_Option(v, cost[c], inf, (c,)))
    if whole and own:
        low = sum(cost.values())
        if low <= power:
            extra.append(_Option(sum(values.get(c, 0) for c in own), low, inf, tuple(own),
                                 True))
    kept = list(steps)
    for o in extra:
        # Left out when another option is as good in every way (one kept, of equals).
        if any(p.value >= o.value and p.low <= o.low and p.high >= o.high
               and (p.whole or not o.whole) for p in kept):
            continue
        kept.append(o)
    return kept


_Plan = list[tuple[Source, list[_Option], list[int], int, list[tuple[str, int]],
                   list[tuple[str, int]]]]


@dataclass(frozen=True, slots=True)
class StepsModel:
    """The model of a group's options, built (:func:`steps_model`), not yet solved."""

    lp: Any
    """HiGHS's ``HighsLp``: every column integer, the weighted terms maximized."""
    scale: dict[str, int]
    """Each term's weight in the objective (mixed radix, in the order asked)."""
    plan: _Plan
    """Per source: its options, their columns, its own damage's column, its columns to
    shared creatures and to players (what :func:`_realize` reads)."""
    need: dict[str, int]
    """Each creature's lethal damage still needed."""


def solve_steps(space: LegalSpace, sources: Sequence[Source], terms: Sequence[str],
                exclude: frozenset[str] = frozenset(),
                deadline: float | None = None) -> Amounts | None:
    """The lexicographic optimum of ``terms`` over the amounts of ``sources`` (closed
    under coupling, as :func:`trample.solver.optimize.cpsat.solve_group` takes them),
    proved, by the model of each source's options (module docstring); None when the model
    does not apply (another kind of recipient or term, a gate it does not know, numbers
    too large) or HiGHS does not prove it in time."""
    built = steps_model(space, sources, terms, exclude)
    if built is None:
        return None
    import numpy as np

    h = new_highs(("mip_rel_gap", 0.0), ("mip_abs_gap", ABSOLUTE_GAP), *HEURISTICS_OFF)
    if deadline is not None:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        h.setOptionValue("time_limit", left)
    h.passModel(built.lp)
    h.run()
    if run_status(h) is not RunStatus.OPTIMAL:
        return None
    top = h.getInfo().mip_dual_bound
    if not np.isfinite(top):
        return None
    values_found = [round(v) for v in h.getSolution().col_value]
    amounts = _realize(space, built.plan, values_found, built.need)
    if amounts is None or not _legal(space, sources, amounts):
        return None
    if score_of(space, amounts, terms, exclude, built.scale) < floor(top + BOUND_SLACK):
        return None  # not shown optimal: the usual search settles it
    return amounts


def score_of(space: LegalSpace, amounts: Amounts, terms: Sequence[str],
             exclude: frozenset[str], scale: dict[str, int]) -> int:
    """What ``amounts`` is worth in the model's objective (weights ``scale``), less what
    no amount of the group changes."""
    got = evaluate(space, amounts, terms, exclude)
    base = evaluate(space, {}, terms, exclude)
    return sum(scale[t] * (got[t] - base[t]) for t in terms)


def steps_model(space: LegalSpace, sources: Sequence[Source], terms: Sequence[str],
                exclude: frozenset[str] = frozenset()) -> StepsModel | None:
    """The model of each source's options for ``terms`` over ``sources`` (as
    :func:`solve_steps` takes them), built; None where it does not apply."""
    if space.alternatives or not set(terms) <= TERMS or len(set(terms)) != len(terms) \
            or not sources:
        return None
    score = scoring(space)
    need_of = space.thresholds
    senders = space.senders
    ids = {s.id for s in sources}
    values = dict(score.killable) if "kills" in terms else {}
    cells = 0
    players: dict[str, int] = {}
    for s in sources:
        creatures = {r.id for r in s.recipients if r.kind == "creature"}
        for r in s.recipients:
            if r.kind == "player":
                if r.requires_loyalty is not None or not set(r.requires_lethal) <= creatures:
                    return None
                players[r.id] = players.get(r.id, 0) + s.power
            elif r.kind != "creature" or r.gated:
                return None
            elif any(o.id not in ids for o in senders[r.id]):
                return None  # not closed under coupling
        cells += s.power * (len(creatures) + 1)
    if cells > MAX_CELLS:
        return None
    # The players whose lethal damage counts and the group may reach (each left out, at
    # its threshold or beyond all the group's power counts the same whatever is
    # assigned).
    lethal_need = score.assigned_thresholds.get("lethal", {}) if "lethal" in terms else {}
    reachable = {p: lethal_need[p] for p, power in players.items()
                 if p not in exclude and p in lethal_need and lethal_need[p] <= power}

    need = {r.id: need_of[r.id] for s in sources for r in s.recipients
            if r.kind == "creature"}
    shared = [c for c in need if len(senders[c]) > 1 and need[c] > 0]
    shared_set = set(shared)

    import numpy as np
    from highspy import _core as highs

    lower: list[float] = []
    upper: list[float] = []
    cost: list[float] = []
    rows_lo: list[float] = []
    rows_hi: list[float] = []
    starts: list[int] = [0]
    index: list[int] = []
    coefs: list[float] = []

    def column(lo: float, hi: float, c: float = 0.0) -> int:
        lower.append(lo)
        upper.append(hi)
        cost.append(c)
        return len(lower) - 1

    def row(lo: float, hi: float, form: Sequence[tuple[int, float]]) -> None:
        for j, a in form:
            index.append(j)
            coefs.append(a)
        starts.append(len(index))
        rows_lo.append(lo)
        rows_hi.append(hi)

    # Mixed-radix weights, in the order asked: each term outweighs the whole range of
    # those after it.
    spans = {"lethal": len(reachable), "player_damage": sum(players.values()),
             "kills": sum(abs(v) for c, v in values.items() if c in need)}
    scale: dict[str, int] = {}
    radix = 1
    for term in reversed(terms):
        scale[term] = radix
        radix *= spans[term] + 1
    if radix > MAX_RANGE:
        return None
    weight = scale.get("kills", 0)
    top_weight = scale.get("lethal", 0)
    damage_weight = float(scale.get("player_damage", 0))
    kill_col = {c: column(0, 1, float(weight * values.get(c, 0))) for c in shared}
    player_cols: dict[str, list[int]] = {p: [] for p in reachable}
    into: dict[str, list[tuple[Source, int]]] = {c: [] for c in shared}
    plan: _Plan = []
    for s in sources:
        own = [r.id for r in s.recipients
               if r.kind == "creature" and r.id not in shared_set and need[r.id] > 0]
        sinks = any(r.kind == "creature" and need[r.id] <= 0 for r in s.recipients)
        gates = [r for r in s.recipients if r.kind == "player" and r.gated]
        whole = bool(gates)
        if whole and any(c not in r.requires_lethal for r in gates for c in own):
            return None  # a gate that does not ask for all of them
        options = _options(space, s, own, values, need, sinks, whole)
        picks = [column(0, 1, float(weight * o.value)) for o in options]
        row(1, 1, [(j, 1.0) for j in picks])
        own_col = column(0, s.power)
        row(0, inf, [(own_col, 1.0), *((j, -float(o.low)) for j, o in zip(picks, options,
                                                                           strict=True))])
        row(-inf, 0, [(own_col, 1.0), *((j, -float(min(o.high, s.power)))
                                        for j, o in zip(picks, options, strict=True))])
        to_shared: list[tuple[str, int]] = []
        to_players: list[tuple[str, int]] = []
        total = [(own_col, 1.0)]
        for r in s.recipients:
            if r.kind == "creature" and r.id in shared_set:
                j = column(0, s.power)
                into[r.id].append((s, j))
                to_shared.append((r.id, j))
                total.append((j, 1.0))
            elif r.kind == "player":
                j = column(0, s.power, damage_weight)
                to_players.append((r.id, j))
                total.append((j, 1.0))
                if r.id in player_cols:
                    player_cols[r.id].append(j)
                if r.gated:
                    if own:
                        whole_picks = [(k, -float(s.power)) for k, o in
                                       zip(picks, options, strict=True) if o.whole]
                        row(-inf, 0, [(j, 1.0), *whole_picks])
                    for c in r.requires_lethal:
                        if c in shared_set:
                            row(-inf, 0, [(j, 1.0), (kill_col[c], -float(s.power))])
        row(s.power, s.power, total)
        plan.append((s, options, picks, own_col, to_shared, to_players))
    for c in shared:
        k = kill_col[c]
        n = need[c]
        lethal: list[tuple[int, float]] = [(k, -float(n))]
        for s, j in into[c]:
            if (s.id, c) in space.deathtouch_pairs:
                y = column(0, 1)
                row(0, inf, [(j, 1.0), (y, -1.0)])  # deathtouch damage, at least 1
                lethal.append((y, float(n)))
            else:
                lethal.append((j, 1.0))
        row(0, inf, lethal)
        if values.get(c, 0) < 0:
            # Worth less alive than dead: lethally assigned means the binary says so.
            most = float(sum(s.power for s, _ in into[c]))
            plain = [(j, 1.0) for s, j in into[c] if (s.id, c) not in space.deathtouch_pairs]
            row(-inf, float(n - 1), [*plain, (k, -most)])
            for s, j in into[c]:
                if (s.id, c) in space.deathtouch_pairs:
                    row(-inf, 0, [(j, 1.0), (k, -float(s.power))])
    for p, cols in player_cols.items():
        row(0, inf, [*((j, 1.0) for j in cols), (column(0, 1, float(top_weight)),
                                                  -float(reachable[p]))])
    if sum(abs(c) for c in cost) > MAX_RANGE:
        return None

    n_cols = len(lower)
    lp = highs.HighsLp()
    lp.num_col_ = n_cols
    lp.num_row_ = len(rows_lo)
    lp.col_cost_ = np.array(cost)
    lp.col_lower_ = np.array(lower)
    lp.col_upper_ = np.array(upper)
    lp.row_lower_ = np.array(rows_lo)
    lp.row_upper_ = np.array(rows_hi)
    lp.a_matrix_.format_ = highs.MatrixFormat.kRowwise
    lp.a_matrix_.start_ = np.array(starts, dtype=np.int32)
    lp.a_matrix_.index_ = np.array(index, dtype=np.int32)
    lp.a_matrix_.value_ = np.array(coefs)
    lp.a_matrix_.num_col_ = n_cols
    lp.a_matrix_.num_row_ = len(rows_lo)
    lp.sense_ = highs.ObjSense.kMaximize
    lp.integrality_ = [highs.HighsVarType.kInteger] * n_cols
    return StepsModel(lp, scale, plan, need)


def _realize(space: LegalSpace, plan: _Plan, values: Sequence[int],
             need: dict[str, int]) -> Amounts | None:
    """The split a point of the model stands for: each source's option made amounts
    (its lethal set at its lethal damage, the rest of its damage to its own creatures on
    one of that set, or spread below lethal when it kills none), its amounts to shared
    creatures and players as the model's."""
    amounts: Amounts = {}
    for s, options, picks, own_col, to_shared, to_players in plan:
        chosen = [o for o, j in zip(options, picks, strict=True) if values[j] == 1]
        if len(chosen) != 1:
            return None
        [o] = chosen
        left = values[own_col]
        if not o.low <= left <= o.high:
            return None
        recipients = [r.id for r in s.recipients]
        for c in o.kills:
            amounts[(s.id, c)] = space.lethal_from(s, c)
        left -= o.low
        if left:
            if o.kills:
                amounts[(s.id, o.kills[0])] += left
            else:
                sink = next((c for c in recipients if need.get(c, 1) <= 0), None)
                if sink is not None:
                    amounts[(s.id, sink)] = left
                else:
                    for c in recipients:
                        if c not in need or (s.id, c) in space.deathtouch_pairs:
                            continue
                        if any(c == t for t, _ in to_shared):
                            continue
                        put = min(left, need[c] - 1)
                        if put > 0:
                            amounts[(s.id, c)] = put
                            left -= put
                    if left:
                        return None
        for target, j in (*to_shared, *to_players):
            if values[j]:
                amounts[(s.id, target)] = values[j]
    return {pair: a for pair, a in amounts.items() if a > 0}


def _legal(space: LegalSpace, sources: Sequence[Source], amounts: Amounts) -> bool:
    """Whether ``amounts`` is a legal split of ``sources``: each assigns its power to its
    recipients, and no gated recipient gets damage while its gate is shut (the group is
    closed under coupling, so its own amounts decide every gate)."""
    received = space.received(amounts)
    touched = space.deathtouched(amounts)
    given: dict[str, int] = {}
    for (sid, _), a in amounts.items():
        given[sid] = given.get(sid, 0) + a
    for s in sources:
        if given.get(s.id, 0) != s.power:
            return False
        for r in s.recipients:
            if amounts.get((s.id, r.id), 0) > 0 and not space.gate_open(r, received,
                                                                        touched):
                return False
    return all(pair in space.pairs for pair in amounts)
