"""Lexicographic optimization of a legal space: split into independent pieces, solve each
exactly.

Parts of the legal space are independent as far as legality goes. The objective couples
them only through threshold terms (a player's life for ``lethal``, a planeswalker's
loyalty, a battle's defense) that several parts can reach: the *contested* targets.
Each part is first solved on its own with the contested targets left out of its
objective. If, for every contested target, those solutions together reach its threshold
(or no assignment could), they are optimal together: nothing was given up for the
contested terms, which are at their best. Otherwise the parts joined by contested targets
are solved again as one group.

A group is solved by the cheapest exact method that applies: a source with one recipient
needs no search; a source alone in its part is solved in closed form and a knapsack
(:mod:`trample.solver.optimize.fastpath`); sources each alone in its part, joined only by contested
targets, by a dynamic program over the damage they send those targets
(:mod:`trample.solver.optimize.lone_groups`); a group with few legal assignments by looking at each;
anything else by the lexicographic CP-SAT model (:mod:`trample.solver.optimize.cpsat`).
"""

from __future__ import annotations

import os
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import cache
from itertools import product
from math import comb

from trample.solver.count.compositions import lazy_product
from trample.solver.count.declared import PartSpace
from trample.solver.count.work import CountOutOfReach
from trample.solver.optimize.fastpath import (
    _lone_candidates,
    lone_values,
    most_to,
    solve_lone,
)
from trample.solver.optimize.greedy import greedy
from trample.solver.optimize.lone_groups import lone_shaped, solve_lone_group
from trample.solver.optimize.objectives import (
    DAMAGE_KINDS,
    OUTCOME_DAMAGE_KINDS,
    OUTCOME_THRESHOLD_TERMS,
    PLAIN_TERMS,
    evaluate,
    identical_creatures,
    own_creatures,
    scoring,
)
from trample.solver.optimize.search_settings import SHIPPED, SearchSettings
from trample.solver.optimize.status import RunStatus, Status
from trample.solver.rules.assignment import Amounts
from trample.solver.rules.choosers import moved_choices
from trample.solver.rules.legal_space import (
    LegalSpace,
    Mode,
    Part,
    Recipient,
    Source,
    components,
    mode_space,
)
from trample.solver.rules.validate import check_answer, violations

SMALL_GROUP = 64
"""A group with at most this many legal assignments is solved by looking at each."""
SMALL_WORK = 5_000
"""Work allowed to build the exact structure that lists a small group's assignments."""
SMALL_BOUND = 50_000
"""Groups with more unconstrained splits than this are not even looked at."""
KEPT_OBJECTIVES = 16
"""Objectives whose contested targets a space keeps (a handful are asked of one combat)."""
KEPT_GROUPS = 64
"""Groups a space keeps as too large to look at one assignment at a time."""

THREADS_VARIABLE = "TRAMPLE_THREADS"

BUILD_SECONDS_PER_PAIR = 2e-4
"""A generous estimate of the time to build and load the CP-SAT model of one (source,
recipient) pair (measured about 60 microseconds on a busy machine): a search whose model
would not be built before the deadline is not started."""
LOAD_SECONDS = 1.5
"""A generous estimate of the time to load OR-Tools, the first time a search runs."""

@dataclass(frozen=True, slots=True)
class Solution:
    """The assignment :func:`optimize` found, its objective values, and whether it is
    proved best."""

    status: Status
    amounts: Amounts
    objective: dict[str, int]
    bound: dict[str, int] | None = None
    """When not proved optimal: no legal assignment is lexicographically better than this
    (per term, a proved upper bound read in the objective's order)."""


def contested(space: LegalSpace, terms: Sequence[str]) -> dict[str, tuple[int, ...]]:
    """Targets of a threshold term in ``terms`` that several parts reach: target id ->
    the indices (in ``space.parts``) of the parts that reach it. (A target already at its
    threshold counts whatever is assigned, so it never needs the parts together.)"""
    if len(space.parts) < 2:
        return {}
    # Asked several times per solve: kept, for a handful of objectives (a space kept
    # between requests must not grow with every objective a caller tries).
    known: dict[tuple[str, ...], dict[str, tuple[int, ...]]] = \
        space.memo.setdefault("contested", {})
    key = tuple(terms)
    found = known.get(key)
    if found is not None:
        return dict(found)
    counted = _thresholds(space, terms)
    reach: dict[str, list[int]] = {}
    for i, part in enumerate(space.parts):
        for target in {r.id for s in part.sources for r in s.recipients if r.id in counted}:
            reach.setdefault(target, []).append(i)
    found = {t: tuple(parts) for t, parts in reach.items() if len(parts) > 1}
    if len(known) < KEPT_OBJECTIVES:
        known[key] = found
    return dict(found)


def _thresholds(space: LegalSpace, terms: Sequence[str]) -> dict[str, int]:
    """Every target a threshold term of ``terms`` counts and a source can reach, with the
    damage it needs (only those still above 0)."""
    score = scoring(space)
    return {t: n for term in terms for t, n in (score.needs(term) or {}).items()}


def groups(space: LegalSpace, terms: Sequence[str]) -> list[list[Part]]:
    """Parts joined by the contested targets of ``terms`` (the coarsest safe grouping)."""
    parts = space.parts
    links = [(members[0], i) for members in contested(space, terms).values()
             for i in members[1:]]
    return [[parts[i] for i in members] for members in components(len(parts), links)]


def _key(space: LegalSpace, amounts: Amounts, terms: Sequence[str],
         exclude: frozenset[str] = frozenset()) -> tuple[int, ...]:
    return tuple(evaluate(space, amounts, terms, exclude).values())


def best_of(space: LegalSpace, candidates: Iterable[Amounts], terms: Sequence[str],
            exclude: frozenset[str] = frozenset()) -> Amounts | None:
    """The first lexicographically best of ``candidates``."""
    best: Amounts | None = None
    best_key: tuple[int, ...] | None = None
    for amounts in candidates:
        key = _key(space, amounts, terms, exclude)
        if best_key is None or key > best_key:
            best, best_key = amounts, key
    return best


def _by_inspection(space: LegalSpace, group: Sequence[Part], terms: Sequence[str],
                   exclude: frozenset[str]) -> Amounts | None:
    """The best of a small group's assignments (first in enumeration order), or None."""
    # Splits of each source's power among its recipients, ignoring every condition: an
    # upper bound on the group's assignments, cheap enough to rule big groups out first.
    bound = 1
    for part in group:
        for s in part.sources:
            bound *= comb(s.power + len(s.recipients) - 1, len(s.recipients) - 1)
            if bound > SMALL_BOUND:
                return None
    # Whether a group has too many assignments does not depend on the terms: kept with
    # the space, the structure is not built again when the same group is searched for a
    # contested target's most damage (on a pile-up of 50 attackers, a tenth of the time).
    # (Keyed by the parts' identities, each kept alive with its key so that none is
    # reused by another part.)
    known = space.memo.setdefault("uninspectable", {})
    assert isinstance(known, dict)
    key = tuple(id(part) for part in group)
    if key in known:
        return None
    budget = [SMALL_WORK]
    try:
        tables = [PartSpace(space, part, budget, SMALL_WORK) for part in group]
    except CountOutOfReach:
        if len(known) < KEPT_GROUPS:
            known[key] = tuple(group)
        return None
    total = 1
    for table in tables:
        total *= table.count()
        if total > SMALL_GROUP:
            if len(known) < KEPT_GROUPS:
                known[key] = tuple(group)
            return None

    def candidates() -> Iterable[Amounts]:
        for pieces in lazy_product(len(tables), lambda chosen: tables[len(chosen)].enumerate()):
            amounts: Amounts = {}
            for piece in pieces:
                amounts.update(piece)
            yield amounts

    return best_of(space, candidates(), terms, exclude)


GroupAnswer = tuple[tuple[int, ...] | None, Amounts]
"""A group's best assignment found, with ``None`` if it is proved optimal, else how much
each term could still gain (a lexicographic upper bound on the improvement)."""


def _without_search(space: LegalSpace, group: Sequence[Part], terms: Sequence[str],
                    exclude: frozenset[str], settings: SearchSettings = SHIPPED,
                    deadline: float | None = None) -> Amounts | None:
    """The group's optimum when an exact method without search applies, else None."""
    sources = [s for part in group for s in part.sources]
    if all(len(s.recipients) == 1 and not s.recipients[0].gated for s in sources):
        return {(s.id, s.recipients[0].id): s.power for s in sources}
    if len(sources) == 1:
        found = solve_lone(space, sources[0], terms, exclude)
        if found is not None:
            return found
    if len(sources) > 1 and settings.dynamic_program:
        cancel = settings.cancel
        found = solve_lone_group(space, group, terms, exclude, deadline,
                                 None if cancel is None else cancel.is_set)
        if found is not None:
            return found
    return _by_inspection(space, group, terms, exclude)


def _search(space: LegalSpace, group: Sequence[Part], terms: Sequence[str],
            exclude: frozenset[str], deadline: float | None,
            settings: SearchSettings = SHIPPED, unsure: bool = False) -> GroupAnswer:
    sources = [s for part in group for s in part.sources]
    # The greedy split (legal): CP-SAT's hint, the answer if no search can start, and
    # HiGHS's if its time runs out before it finds one. Made when first asked for: HiGHS
    # mostly proves its groups without it (on token swarms' parts it was a twentieth of
    # a solve).
    start: Callable[[], Amounts] = cache(lambda: greedy(space, sources))

    if settings.cancelled() or (deadline is not None and not _time_to_search(sources,
                                                                              deadline)):
        # Building the model alone would overrun the time limit: the greedy split, legal,
        # with the bound that needs no search.
        return _unsearched_gap(space, sources, terms, exclude, start()), start()
    from trample.solver.optimize import cpsat  # OR-Tools loads only when needed

    result = None
    pairs = sum(len(s.recipients) for s in sources)
    # CP-SAT's first try, for a fixed effort in all its runs; HiGHS if that did not prove
    # the group. A small group gets a small effort (a few such groups keep CP-SAT
    # searching for a second or more), a mid-sized one a short one, unless the try mostly
    # fails on its kind (a token swarm's, many shared blockers, a contested target that
    # may be out of reach: proving that is where HiGHS's linear relaxation pays).
    effort: float | None = None
    if settings.backend == "auto" and pairs < settings.milp_probe_pairs:
        effort = settings.milp_rescue_effort
    elif settings.backend == "auto" and pairs < settings.milp_pairs and not unsure \
            and not _token_swarm(space, group, settings) \
            and not _shared_or_alike(space, sources, settings):
        effort = settings.milp_probe_time
    if effort is None and settings.kill_steps and settings.backend == "auto" \
            and not _token_swarm(space, group, settings):
        # Where HiGHS searches first, when asked: the model of each source's options
        # (fewer columns, the kills ceiling's relaxation); proved, it is the answer, else
        # the model per pair below.
        from trample.solver.optimize.kill_steps import solve_steps

        proved = solve_steps(space, sources, terms, exclude, deadline)
        if proved is not None:
            return None, proved
    if effort is not None:
        probe = replace(settings, effort=effort, second_try=False)
        tried = cpsat.solve_group(space, sources, terms, deadline, exclude, hint=start(),
                                  settings=probe)
        if tried.status is RunStatus.OPTIMAL:
            return None, tried.amounts
        if settings.cancelled() or (deadline is not None and time.monotonic() >= deadline):
            return tried.gap, tried.amounts  # stopped: the best split the try found
    if settings.backend in ("milp", "auto"):
        from trample.solver.optimize import milp

        result = milp.solve_group(space, sources, terms, deadline, exclude, hint=start,
                                  settings=settings)
    if result is None:
        result = cpsat.solve_group(space, sources, terms, deadline, exclude, hint=start(),
                                   settings=settings)
    return (None if result.status is RunStatus.OPTIMAL else result.gap), result.amounts


def _time_to_search(sources: Sequence[Source], deadline: float) -> bool:
    """Whether a search of ``sources`` can be built and started before ``deadline``."""
    pairs = sum(len(s.recipients) for s in sources)
    need = pairs * BUILD_SECONDS_PER_PAIR
    if "ortools.sat.python.cp_model" not in sys.modules:
        need += LOAD_SECONDS
    return deadline - time.monotonic() > need


def _unsearched_gap(space: LegalSpace, sources: Sequence[Source], terms: Sequence[str],
                    exclude: frozenset[str], amounts: Amounts) -> tuple[int, ...]:
    """How much each term could gain over ``amounts`` on ``sources``, bounded without a
    search: each term at the top of its range over these sources (as CP-SAT bounds a
    term it has not reached), less the value found."""
    score = scoring(space)
    receivers = {r.id for s in sources for r in s.recipients}
    highs: list[int] = []
    for term in terms:
        if term == "kills":
            highs.append(sum(v for c, v in score.killable.items()
                             if c in receivers and v > 0))
        elif term in DAMAGE_KINDS:
            kind = DAMAGE_KINDS[term]
            highs.append(sum(s.power for s in sources
                             if any(score.kind[r.id] == kind for r in s.recipients)))
        elif term in PLAIN_TERMS and term not in OUTCOME_THRESHOLD_TERMS:
            highs.append(_outcome_high(space, sources, term))
        else:
            highs.append(sum(1 for t in score.thresholds[term]
                             if t in receivers and t not in exclude))
    got = evaluate(space, amounts, terms, exclude)
    base = evaluate(space, {}, terms, exclude)
    return tuple(max(h - (got[t] - base[t]), 0) for h, t in zip(highs, terms, strict=True))


def _outcome_high(space: LegalSpace, sources: Sequence[Source], term: str) -> int:
    """An upper bound on what ``sources`` can add to a non-threshold outcome term: each
    source's power at its largest factor (plus its toxic value per player it reaches)."""
    score = scoring(space)
    combat = space.combat
    if term == "deaths":
        receivers = {r.id for s in sources for r in s.recipients}
        return sum(c.value for cid, c in score.candidates.items()
                   if cid in receivers and c.value > 0)
    if term == "survivals":
        # Only the death of an own creature of negative value can raise it.
        receivers = {r.id for s in sources for r in s.recipients}
        return sum(-c.value for cid, c in own_creatures(space).items()
                   if cid in receivers and c.value < 0)
    if term == "life_kept":
        return 0  # never above its value with nothing dealt
    kind = OUTCOME_DAMAGE_KINDS.get(term, "player")
    total = 0
    for s in sources:
        creature = combat.creature(s.id)
        if term == "life_gain" and not creature.has("lifelink"):
            continue
        wanted = [r for r in s.recipients if term == "life_gain" or score.kind[r.id] == kind]
        if not wanted:
            continue
        total += s.power * max(score.effects.factor(s.id, r.id) for r in wanted)
        if term == "poison":
            total += creature.toxic * len(wanted)
    return total


def threads(settings: SearchSettings = SHIPPED) -> int:
    """How many groups are searched at once: ``settings.threads``, else
    ``$TRAMPLE_THREADS``, else the CPUs this process may use."""
    if settings.threads is not None:
        return max(settings.threads, 1)
    raw = os.environ.get(THREADS_VARIABLE, "")
    if raw.strip().isdigit() and int(raw) > 0:
        return int(raw)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
        else os.cpu_count() or 1


_pool: ThreadPoolExecutor | None = None
_pool_size = 0
_pool_lock = threading.Lock()


def _forget_pool() -> None:
    """In a forked child the pool's threads do not exist: start afresh."""
    global _pool, _pool_size, _pool_lock
    _pool, _pool_size, _pool_lock = None, 0, threading.Lock()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_pool)


def _executor(size: int) -> ThreadPoolExecutor:
    """A pool of ``size`` threads, kept between calls (starting threads costs more than
    many small solves). A pool of another size is replaced, never shut down: a caller on
    another thread may still be submitting to it (its idle threads end when it is
    collected)."""
    global _pool, _pool_size
    with _pool_lock:
        if _pool is None or _pool_size != size:
            _pool = ThreadPoolExecutor(max_workers=size, thread_name_prefix="trample")
            _pool_size = size
        return _pool


def solve_groups(space: LegalSpace, groups: Sequence[Sequence[Part]], terms: Sequence[str],
                 exclude: frozenset[str], deadline: float | None,
                 settings: SearchSettings = SHIPPED,
                 excludes: Sequence[frozenset[str]] | None = None,
                 unsure: Sequence[bool] | None = None) -> list[GroupAnswer]:
    """The best assignment found for each of ``groups`` (independent of each other), by
    the cheapest exact method that applies to each. Those that need a search run on a
    thread each, up to :func:`threads` at once: CP-SAT releases the interpreter while it
    searches. Each search is deterministic on its own, so the answers do not depend on
    how the threads interleave. ``excludes``, when given, holds each group's own targets
    left out of the threshold terms instead of ``exclude`` (only groups of the same are
    searched as one model). ``unsure``, when given, marks the groups that count a
    contested target no split is known to reach: a mid-sized one goes to HiGHS without
    CP-SAT's short try (:func:`_search`)."""
    own = list(excludes) if excludes is not None else [exclude] * len(groups)
    unsure_of = list(unsure) if unsure is not None else [False] * len(groups)
    answers: list[GroupAnswer | None] = []
    hard: list[int] = []
    for i, group in enumerate(groups):
        found = _without_search(space, group, terms, own[i], settings, deadline)
        answers.append(None if found is None else (None, found))
        if found is None:
            hard.append(i)
    units: list[list[int]] = []
    for left_out in dict.fromkeys(own[i] for i in hard):
        units += _units(space, groups, [i for i in hard if own[i] == left_out], settings)
    size = threads(settings) if len(units) > 1 else 1
    if size == 1:
        searched = [_search_together(space, groups, unit, terms, own[unit[0]], deadline,
                                     settings, any(unsure_of[i] for i in unit))
                    for unit in units]
    else:
        scoring(space)  # shared by every search: computed once, before the threads start
        pool = _executor(size)
        futures = [pool.submit(_search_together, space, groups, unit, terms, own[unit[0]],
                               deadline, settings, any(unsure_of[i] for i in unit))
                   for unit in units]
        searched = [future.result() for future in futures]
    for unit, unit_answers in zip(units, searched, strict=True):
        for i, answer in zip(unit, unit_answers, strict=True):
            answers[i] = answer
    return [a for a in answers if a is not None]


def _pairs(group: Sequence[Part]) -> int:
    return sum(len(s.recipients) for part in group for s in part.sources)


def _units(space: LegalSpace, groups: Sequence[Sequence[Part]], hard: Sequence[int],
           settings: SearchSettings) -> list[list[int]]:
    """The searches of the ``hard`` groups, each a list of groups searched as one model
    (:func:`_search_together`), so that the solver's fixed cost is paid once for several:
    every token swarm's part together (:func:`_token_swarm`, mostly interchangeable
    creatures: a large group of shared blockers with a few is searched alone, on a thread
    of its own), and the small groups (under
    :attr:`~SearchSettings.milp_probe_pairs` pairs) in order, packed while their pairs
    stay under that (CP-SAT alone searches them all the same; measured on blockers shared
    by a few attackers, 30 x 90, and pile-ups of 50 attackers, 25% and 7% sooner in
    all). Any other group is searched alone, as are all of them unless ``"auto"``. The
    units depend on the groups alone, never on the threads."""
    if settings.backend != "auto":
        return [[i] for i in hard]
    swarm = [i for i in hard if _token_swarm(space, groups[i], settings, packed=True)]
    units: list[list[int]] = [swarm] if swarm else []
    packed: list[int] = []
    room = settings.milp_probe_pairs
    for i in hard:
        if i in swarm:
            continue
        pairs = _pairs(groups[i])
        if pairs >= settings.milp_probe_pairs:
            units.append([i])
            continue
        if pairs >= room:
            units.append(packed)
            packed, room = [], settings.milp_probe_pairs
        packed.append(i)
        room -= pairs
    if packed:
        units.append(packed)
    return units


def _token_swarm(space: LegalSpace, group: Sequence[Part], settings: SearchSettings,
                 packed: bool = False) -> bool:
    """Whether ``group`` is shaped as a token swarm's part, which goes to HiGHS without
    a CP-SAT try: under ``"auto"``, at least :attr:`~SearchSettings.milp_probe_pairs`
    pairs whose recipients hold at least :attr:`~SearchSettings.milp_alike`
    interchangeable creatures. CP-SAT's short try fails on those, while HiGHS detects the
    symmetry itself. With ``packed``, whether it is also searched with the other such
    groups (:func:`_units`): those creatures are at least
    :attr:`~SearchSettings.milp_pack_share` of the creatures it assigns to. Measured on
    the benchmark families, token swarms' groups solved in one HiGHS model take less than
    apart (the fixed cost paid once), while two groups of shared blockers take more."""
    if settings.backend != "auto":
        return False
    sources = [s for part in group for s in part.sources]
    if sum(len(s.recipients) for s in sources) < settings.milp_probe_pairs:
        return False
    alike = sum(len(members) for _, members in identical_creatures(space, sources))
    if alike < settings.milp_alike:
        return False
    if not packed:
        return True
    creatures = {r.id for s in sources for r in s.recipients if r.kind == "creature"}
    return alike >= settings.milp_pack_share * len(creatures)


def _shared_or_alike(space: LegalSpace, sources: Sequence[Source],
                     settings: SearchSettings) -> bool:
    """Whether the creatures ``sources`` assign to (all of whose senders are in
    ``sources``: a group is closed under coupling) are widely shared, at least
    :attr:`~SearchSettings.milp_shared` of them blocking two or more of the sources, or
    come in few kinds (the damage each needs for lethal and its value to ``kills``), at
    most :attr:`~SearchSettings.milp_kinds` of their number, as tokens do. CP-SAT's short
    try mostly fails on either: many shared blockers couple the sources tightly, and
    many creatures that cost and are worth the same make many splits as good as the
    best, which the try cannot prove none beats, while HiGHS's linear relaxation bounds
    them all at once."""
    senders = space.senders
    creatures = {r.id for s in sources for r in s.recipients if r.kind == "creature"}
    if sum(len(senders[c]) > 1 for c in creatures) >= settings.milp_shared:
        return True
    killable = scoring(space).killable
    need = space.need
    kinds = {(need[c], killable.get(c)) for c in creatures}
    return len(kinds) <= settings.milp_kinds * len(creatures)


def _search_together(space: LegalSpace, groups: Sequence[Sequence[Part]],
                     unit: Sequence[int], terms: Sequence[str], exclude: frozenset[str],
                     deadline: float | None, settings: SearchSettings,
                     unsure: bool = False) -> list[GroupAnswer]:
    """The groups of ``unit`` (indices in ``groups``) searched as one group (:func:`_search`
    of all their parts). The groups are independent, so the model's terms are the sums of
    theirs and its lexicographic optimum is each group at its own: the greatest sum of
    the first term is each group at its greatest, held there the same goes for the next
    term. Not proved, the whole gap is counted on the first group (gaps only add up)."""
    if len(unit) == 1:
        return [_search(space, groups[unit[0]], terms, exclude, deadline, settings, unsure)]
    union = [part for i in unit for part in groups[i]]
    gap, found = _search(space, union, terms, exclude, deadline, settings, unsure)
    answers: list[GroupAnswer] = []
    for k, i in enumerate(unit):
        ids = {s.id for part in groups[i] for s in part.sources}
        answers.append((gap if k == 0 or gap is None else tuple(0 for _ in terms),
                        {pair: v for pair, v in found.items() if pair[0] in ids}))
    return answers


_DAMAGE_TERM = {"player": "player_damage", "planeswalker": "planeswalker_damage",
                "battle": "battle_damage"}


def _most_damage(space: LegalSpace, part: Part, target: str, deadline: float | None,
                 settings: SearchSettings, cap: int, ceiling: bool = False) -> int:
    """An upper bound on the damage ``part`` can assign to ``target``, or ``cap`` if it
    may reach that: exact (the part's optimum for damage to its kind, at most ``cap``)
    when that is proved, else the senders' power. With ``ceiling``, without a search:
    :func:`trample.solver.optimize.fastpath.most_to` (its senders' legal most, less the loyalty
    their planeswalkers lack)."""
    kind = scoring(space).kind[target]
    term = _DAMAGE_TERM[kind]
    if ceiling:
        return min(most_to(space, part.sources, target), cap)
    if _capped_in_highs(part, settings):
        # Capped at the threshold, HiGHS stops at the first assignment that reaches it
        # instead of proving the most damage.
        from trample.solver.optimize import milp

        found = None if deadline is not None and not _time_to_search(part.sources, deadline) \
            else milp.solve_group(space, part.sources, [term], deadline, settings=settings,
                                  cap=cap)
        if found is not None and found.status is RunStatus.OPTIMAL:
            return min(evaluate(space, found.amounts, [term])[term], cap)
    [(gap, amounts)] = solve_groups(space, [[part]], [term], frozenset(), deadline, settings)
    if gap is not None:
        return sum(s.power for s in part.sources)
    return evaluate(space, amounts, [term])[term]


def _capped_in_highs(part: Part, settings: SearchSettings) -> bool:
    """Whether a part's most damage to a target is searched by HiGHS with a cap (it stops
    at the first split that reaches it): under ``"milp"``, or under ``"auto"`` from
    :attr:`~SearchSettings.milp_pairs` pairs. Any other part, as the last of a contested
    target's bound, is asked :func:`_can_reach` instead."""
    return settings.backend == "milp" or \
        (settings.backend == "auto" and _pairs([part]) >= settings.milp_pairs)


def _can_reach(space: LegalSpace, part: Part, target: str, need: int,
               deadline: float | None, settings: SearchSettings) -> bool:
    """Whether some legal split of ``part`` assigns ``target`` at least ``need`` (true as
    well when that is not settled before ``deadline``: the target then stays open, which
    only costs time). A question of feasibility, not the most damage: proving that no
    split reaches it is often far sooner (on a token swarm's part of 14 attackers, 5 ms
    against 18 ms for CP-SAT's most and 51 ms for HiGHS's)."""
    if need <= 0:
        return True
    if deadline is not None and not _time_to_search(part.sources, deadline):
        return True
    from trample.solver.optimize.cpsat import reaches

    return reaches(space, part.sources, target, need, deadline, settings) is not False


def _small_parts(space: LegalSpace, parts: Sequence[Part], settings: SearchSettings) -> bool:
    """Whether every one of ``parts`` is searched by CP-SAT under ``"auto"`` (fewer pairs
    than :attr:`~SearchSettings.milp_probe_pairs`), where a cap saves little."""
    return settings.backend == "auto" and \
        all(_pairs([part]) < settings.milp_probe_pairs for part in parts)


def _most_damage_of_small(space: LegalSpace, parts: Sequence[Part], target: str,
                          deadline: float | None, settings: SearchSettings) -> int:
    """The sum of :func:`_most_damage` of ``parts``, uncapped, their searches packed in
    few models (:func:`solve_groups`): with one term, the packed model's optimum is each
    part at its own most (on a pile-up of 50 attackers, one CP-SAT search instead of
    three). A part not proved counts its senders' power."""
    term = _DAMAGE_TERM[scoring(space).kind[target]]
    found = solve_groups(space, [[part] for part in parts], [term], frozenset(), deadline,
                         settings)
    return sum(sum(s.power for s in part.sources) if gap is not None
               else evaluate(space, amounts, [term])[term]
               for part, (gap, amounts) in zip(parts, found, strict=True))


def optimize(space: LegalSpace, terms: Sequence[str], time_limit: float | None = None,
          settings: SearchSettings = SHIPPED, deadline: float | None = None) -> Solution:
    """The lexicographically best legal assignment for ``terms``.

    A space whose attackers may assign as though unblocked (its
    :attr:`~trample.solver.rules.legal_space.LegalSpace.alternatives`) is solved as the union of its
    sets of splits (:func:`solve_modes`).

    On a plain combat (:attr:`~trample.solver.optimize.objectives.Scoring.plain`) the outcome terms
    are searched as the assigned-damage terms they equal up to a constant, so the exact
    fast paths apply unchanged and the chosen assignment is the one those terms choose.
    """
    if space.alternatives:
        return solve_modes(space, terms, time_limit, settings, deadline)
    if scoring(space).plain and any(t in PLAIN_TERMS for t in terms):
        inner: list[str] = []
        for t in terms:
            base = PLAIN_TERMS.get(t, t)
            if base is not None and base not in inner:
                inner.append(base)
        found = _solve(space, inner, time_limit, settings, deadline, report=terms)
        if found.bound is None:
            return found  # its objective read on ``terms``
        objective = evaluate(space, found.amounts, terms)
        inner_objective = found.objective
        bound = {}
        for t in terms:
            base = PLAIN_TERMS.get(t, t)
            bound[t] = objective[t] if base is None else \
                objective[t] + found.bound[base] - inner_objective[base]
        return Solution(found.status, found.amounts, objective, bound)
    return _solve(space, terms, time_limit, settings, deadline)


def mode_vectors(space: LegalSpace) -> Iterator[dict[str, Mode]]:
    """Every way to fix each attacker of ``space.alternatives`` to one set of splits, in
    the order :func:`solve_modes` breaks ties: the first attacker most significant,
    ``blocked`` before ``unblocked`` (so all blocked comes first)."""
    sets: tuple[Mode, Mode] = ("blocked", "unblocked")
    for chosen in product(sets, repeat=len(space.alternatives)):
        yield dict(zip(space.alternatives, chosen, strict=True))


def solve_modes(space: LegalSpace, terms: Sequence[str], time_limit: float | None = None,
                settings: SearchSettings = SHIPPED,
                deadline: float | None = None) -> Solution:
    """:func:`optimize` on a space whose attackers may assign as though unblocked.

    Its legal splits are the union of the 2^k spaces with each such attacker fixed to
    one set (:func:`~trample.solver.rules.legal_space.mode_space`), so the best over the union
    is the lexicographically best of their optima; each is solved exactly as any space is,
    within the one time limit. Ties go to the first in :func:`mode_vectors`' order. The
    answer is ``optimal`` only when every one of them was proved; otherwise its bound is
    the lexicographically greatest of their bounds (of the proved ones, their value).
    """
    if deadline is None and time_limit is not None:
        deadline = time.monotonic() + time_limit
    best: Solution | None = None
    best_key: tuple[int, ...] = ()
    top: tuple[int, ...] | None = None  # the greatest bound (or proved value) so far
    proved = True
    for modes in mode_vectors(space):
        found = optimize(mode_space(space, modes), terms, None, settings, deadline)
        key = tuple(found.objective[t] for t in terms)
        if best is None or key > best_key:
            best, best_key = found, key
        high = key if found.bound is None else tuple(found.bound[t] for t in terms)
        if top is None or high > top:
            top = high
        proved = proved and found.status == "optimal"
    assert best is not None and top is not None
    check_answer(space, best.amounts, "solve")
    if proved:
        return Solution("optimal", best.amounts, best.objective)
    return Solution("feasible", best.amounts, best.objective,
                    dict(zip(terms, top, strict=True)))


def _solve(space: LegalSpace, terms: Sequence[str], time_limit: float | None = None,
           settings: SearchSettings = SHIPPED, deadline: float | None = None,
           report: Sequence[str] | None = None) -> Solution:
    """:func:`optimize` on the terms as given.

    ``report``, when given, holds the terms whose values a proved answer reports (the
    objective the caller asked for, when ``terms`` are those it is searched on): read once
    from the answer, not first on ``terms`` as well. An answer not proved reports
    ``terms``, of which its bound is.

    ``status`` is ``optimal`` only when every group's optimum is proved; a time limit that
    stops a group early keeps the best assignment found for it (at worst the greedy one).
    ``deadline`` (a :func:`time.monotonic` instant) overrides ``time_limit`` counted from
    now: a caller that spent time before (reading, parsing) passes what is left of its own.
    """
    if deadline is None and time_limit is not None:
        deadline = time.monotonic() + time_limit
    parts = space.parts
    disputed = contested(space, terms)
    exclude = frozenset(disputed)
    gaps: list[tuple[int, ...] | None] = [None] * len(parts)
    lone = _lone_pieces(space, terms, exclude, settings)
    if lone is not None:
        pieces = lone
    else:
        # Groups a greedy split shows reaching a contested target are searched as groups
        # at once: their parts alone would most likely be searched again together (on a
        # token swarm of 100 x 300, a 230-pair part searched alone, then bounded, then
        # again with its group: half the time).
        early, witnessed = _early_groups(space, terms, disputed, settings)
        inside = {i for indices in early for i in indices}
        alone = [i for i in range(len(parts)) if i not in inside]
        # The parts alone (their contested targets left out) and the early groups
        # (counting them) in one call, so that their searches share the threads: on a
        # token swarm of 100 x 300 (seed 5), one of each, 12 and 17 ms, ran one after the
        # other.
        together_first = solve_groups(
            space,
            [[parts[i]] for i in alone] + [[parts[i] for i in indices] for indices in early],
            terms, exclude, deadline, settings,
            [exclude] * len(alone) + [frozenset()] * len(early),
            [False] * len(alone) + [not w for w in witnessed])
        answers, solved_early = together_first[:len(alone)], together_first[len(alone):]
        pieces = [{} for _ in parts]
        for i, (gap, amounts) in zip(alone, answers, strict=True):
            gaps[i], pieces[i] = gap, amounts
        for indices, (gap, amounts) in zip(early, solved_early, strict=True):
            gaps[indices[0]], pieces[indices[0]] = gap, amounts
        # Their contested targets are settled: the group's search counted them.
        disputed = {t: members for t, members in disputed.items()
                    if members[0] not in inside}

    if disputed:
        together: Amounts = {k: v for piece in pieces for k, v in piece.items()}
        need = _thresholds(space, terms)
        reachable = {t: sum(s.power for s in space.senders.get(t, ())) for t in disputed}
        unreached = _unreached(space, together, terms, disputed)
        by_outcome = _outcome_counted(space, terms)
        # A target an outcome term counts is open whenever it is not reached: whether the
        # parts together could reach it is not a sum of damage (poison, thresholds, factors).
        open_targets = {t for t in unreached
                        if t in by_outcome or need[t] <= reachable[t]}
        for t in sorted(open_targets - by_outcome):
            # The parts are independent, so the most damage they can send to t together
            # is the sum of what each can send: if that falls short, so does any split.
            # Each part's most damage is capped at what the threshold still lacks after
            # the parts before it (smallest first): the sum reaches the threshold
            # exactly when the uncapped sum does, a search capped lower stops sooner
            # once it reaches the cap, and the parts after one that fills it are not
            # bounded at all. First each sender's legal most (no model: on a token
            # swarm of 400 attackers it settles what HiGHS's bound at the root took
            # 0.8 s to), then the exact one (with those ceilings in the model, sooner
            # than HiGHS's root bound: 50 ms to 0.7 s on that swarm, while the linear
            # relaxation costs nearly as much as the exact answer).
            order = sorted(disputed[t], key=lambda i: sum(len(s.recipients)
                                                          for s in parts[i].sources))
            for ceiling in (True, False):
                reaching = [parts[i] for i in disputed[t]]
                if not ceiling and not (settings.dynamic_program
                                        and lone_shaped(space, reaching)) and \
                        _reaches(space, reaching, t, need[t], lambda: together):
                    break  # a legal split reaches it: open, no bound can close it
                most = 0
                if not ceiling and _small_parts(space, [parts[i] for i in order], settings):
                    most = _most_damage_of_small(space, [parts[i] for i in order], t,
                                                 deadline, settings)
                    order = []
                for k, i in enumerate(order):
                    if not ceiling and k == len(order) - 1 and \
                            not _capped_in_highs(parts[i], settings):
                        # The last part: whether it reaches what the others leave, not
                        # its most (a yes or no answer, the same whoever proves it).
                        reached = _can_reach(space, parts[i], t, need[t] - most, deadline,
                                             settings)
                        most = need[t] if reached else need[t] - 1
                        break
                    most += _most_damage(space, parts[i], t, deadline, settings,
                                         need[t] - most, ceiling)
                    if most >= need[t]:
                        break
                if most < need[t]:
                    open_targets.discard(t)
                    break
        if open_targets:
            position = {id(p): i for i, p in enumerate(parts)}
            targets_of: dict[int, list[str]] = {}
            for t, members in disputed.items():
                for i in members:
                    targets_of.setdefault(i, []).append(t)
            again: list[list[int]] = []
            for group_parts in groups(space, terms):
                indices = [position[id(p)] for p in group_parts]
                if any(t in open_targets for i in indices for t in targets_of.get(i, ())):
                    again.append(indices)
            solved = solve_groups(space, [[parts[i] for i in indices] for indices in again],
                                  terms, frozenset(), deadline, settings) if again else []
            for indices, (gap, amounts) in zip(again, solved, strict=True):
                for i in indices:
                    pieces[i] = {}
                    gaps[i] = None
                pieces[indices[0]] = amounts
                gaps[indices[0]] = gap

    result: Amounts = {k: v for piece in pieces for k, v in piece.items()}
    check_answer(space, result, "solve")
    open_gaps = [g for g in gaps if g is not None]
    if not open_gaps:
        return Solution("optimal", result,
                        evaluate(space, result, terms if report is None else report))
    objective = evaluate(space, result, terms)
    # Lexicographic order is compatible with adding vectors, so the parts' bounds add up;
    # a contested threshold not reached might still be reachable: count it as open.
    bound = [objective[t] + sum(g[i] for g in open_gaps) for i, t in enumerate(terms)]
    if disputed:
        for i, term in enumerate(terms):
            targets = set(scoring(space).thresholds.get(term, {}))
            missed = _unreached(space, result, [term], disputed)
            bound[i] += sum(1 for t in disputed if t in targets and t in missed)
    return Solution("feasible", result, objective, dict(zip(terms, bound, strict=True)))


def _lone_pieces(space: LegalSpace, terms: Sequence[str], exclude: frozenset[str],
                 settings: SearchSettings) -> list[Amounts] | None:
    """Each part's answer alone (its contested targets, ``exclude``, left out), as
    :func:`solve_groups` finds it, on a space whose every part is one source that shares
    no recipient, chooses its own split and sees only assigned-damage terms (a plain
    combat): the search loop's tiny combats of two or three attackers, each with its own
    blockers. None on any other space, or when a source's split needs more than the
    holding and passing candidates (:func:`~trample.solver.optimize.fastpath.solve_lone`).

    The same candidates in the same order, the first best kept, so the same pieces: each
    candidate scored by :func:`~trample.solver.optimize.fastpath.lone_values` (what it
    alone assigns) in place of the whole space's :func:`evaluate`. Every part alone is
    its own group, shaped as the dynamic program takes it
    (:func:`~trample.solver.optimize.lone_groups.lone_shaped`), so no group is searched
    early (:func:`_early_groups`) and the pieces go on to the contested targets as the
    general path's do."""
    parts = space.parts
    if len(parts) < 2 or not settings.lone_parts or not settings.dynamic_program:
        return None
    score = scoring(space)
    if not score.plain or any(t in PLAIN_TERMS for t in terms) or \
            moved_choices(space.combat):
        return None
    pieces: list[Amounts] = []
    for part in parts:
        if len(part.sources) != 1 or part.lethal_items:
            return None
        source = part.sources[0]
        recipients = source.recipients
        if len(recipients) == 1 and not recipients[0].gated:
            pieces.append({(source.id, recipients[0].id): source.power})
            continue
        candidates = _lone_candidates(space, source)
        if not candidates:
            return None
        best = candidates[0]
        if len(candidates) > 1:
            best_key = tuple(lone_values(space, score, source, best, terms, exclude).values())
            for amounts in candidates[1:]:
                key = tuple(lone_values(space, score, source, amounts, terms,
                                        exclude).values())
                if key > best_key:
                    best, best_key = amounts, key
        pieces.append(best)
    return pieces


def _reaches(space: LegalSpace, reaching: Sequence[Part], target: str, need: int,
             rest: Callable[[], Amounts]) -> bool:
    """Whether a greedy split of ``reaching`` deals ``target`` at least ``need``: a
    witness that the parts together reach it, found without a search (on a token swarm's
    part, instead of a capped HiGHS search that finds the same). Each source gives lethal
    damage to the creatures before ``target`` and everything left to it; the sources that
    cannot reach it go first, so that the blockers they share die by their damage, then
    the others in two orders (the least power first: weak attackers spend theirs on the
    blockers and the strong ones' surplus goes through; the most recipients first). Checked
    by the validator, with ``rest()`` (the other parts' split, asked for only then)
    completing the assignment, so it only ever proves."""
    def last(s: Source) -> Sequence[Recipient]:
        return sorted(s.recipients, key=lambda r: r.id == target)

    sources = [s for part in reaching for s in part.sources]
    ids = {s.id for s in sources}
    kept: Amounts | None = None
    orders: tuple[Callable[[Source], tuple[bool, int]], ...] = (
        lambda s: (s.recipient(target) is not None, s.power),
        lambda s: (s.recipient(target) is not None, -len(s.recipients)))
    for key in orders:
        split = greedy(space, sorted(sources, key=key), last)
        if sum(a for (_, r), a in split.items() if r == target) >= need:
            if kept is None:
                kept = {pair: a for pair, a in rest().items() if pair[0] not in ids}
            whole = dict(kept)
            whole.update(split)
            if not violations(space, whole):
                return True
    return False


def _early_groups(space: LegalSpace, terms: Sequence[str],
                  disputed: dict[str, tuple[int, ...]],
                  settings: SearchSettings = SHIPPED) -> tuple[list[list[int]], list[bool]]:
    """The groups of parts (indices in ``space.parts``) with a contested target (of
    ``disputed``, not counted by an outcome term) that a greedy split of its parts shows
    reachable (:func:`_reaches`), or that the legal ceilings do not show out of reach
    when one searched part holds nearly all the group (:func:`_one_part_searched`):
    searched as one group at once, not each part alone first and then again together.
    With them, whether each was shown reachable. Whether a group is taken does not
    change the answer's exactness (the group's search is exact either way), only which
    search runs."""
    if not disputed:
        return [], []
    need = _thresholds(space, terms)
    by_outcome = _outcome_counted(space, terms)
    parts = space.parts
    split: list[Amounts] = []

    def rest() -> Amounts:
        if not split:
            split.append(greedy(space))
        return split[0]

    position = {id(p): i for i, p in enumerate(parts)}
    early: list[list[int]] = []
    witnessed: list[bool] = []
    for group_parts in groups(space, terms):
        indices = [position[id(p)] for p in group_parts]
        if len(indices) < 2 or (settings.dynamic_program
                                and lone_shaped(space, group_parts)):
            continue  # (a lone group is settled by its dynamic program, when open)
        touched = [t for t, members in disputed.items() if members[0] in indices]
        if any(t not in by_outcome and _reaches(space, [parts[i] for i in disputed[t]], t,
                                                need[t], rest) for t in touched):
            early.append(indices)
            witnessed.append(True)
        elif _one_part_searched(group_parts, settings) and any(
                t not in by_outcome and need[t] <= most_to(
                    space, [s for i in disputed[t] for s in parts[i].sources], t)
                for t in touched):
            early.append(indices)
            witnessed.append(False)
    return early, witnessed


def _one_part_searched(group: Sequence[Part], settings: SearchSettings) -> bool:
    """Whether one part of ``group`` holds nearly all its pairs (the others together at
    most :attr:`~SearchSettings.early_rest` of it) and is large enough to be searched
    (:attr:`~SearchSettings.milp_probe_pairs`). Searched alone first, such a part is
    searched again with the others whenever their contested target proves reachable;
    searched with them at once, it is searched once, for about the same work."""
    sizes = sorted(_pairs([part]) for part in group)
    return sizes[-1] >= settings.milp_probe_pairs and \
        sum(sizes[:-1]) <= settings.early_rest * sizes[-1]


def _outcome_counted(space: LegalSpace, terms: Sequence[str]) -> set[str]:
    """Targets an outcome threshold term of ``terms`` counts (on a combat that is not
    plain; on a plain one the outcome terms were replaced before the search)."""
    score = scoring(space)
    return {t for term in terms if term in OUTCOME_THRESHOLD_TERMS
            for t in score.thresholds[term]}


def _unreached(space: LegalSpace, amounts: Amounts, terms: Sequence[str],
               targets: Iterable[str]) -> set[str]:
    """Of ``targets``, those that some threshold term of ``terms`` counts and ``amounts``
    does not reach: assigned damage short of the need for the assigned-damage terms, the
    player not losing or the permanent not dying for the outcome terms."""
    score = scoring(space)
    received = space.received(amounts)
    wanted = set(targets)
    missed: set[str] = set()
    outcome_terms = [t for t in terms if t in OUTCOME_THRESHOLD_TERMS]
    if outcome_terms:
        reached = {t: evaluate(space, {p: a for p, a in amounts.items() if p[1] == t},
                               [term])[term] - evaluate(space, {}, [term])[term]
                   for term in outcome_terms for t in wanted
                   if t in score.thresholds[term]}
        missed |= {t for t, got in reached.items() if got <= 0}
    for term in terms:
        if term in OUTCOME_THRESHOLD_TERMS:
            continue
        need = score.needs(term)
        if need:
            missed |= {t for t in wanted if t in need and received.get(t, 0) < need[t]}
    return missed
