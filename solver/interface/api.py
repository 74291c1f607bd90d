"""The dict-in/dict-out API: what the command line, ``trample serve`` and Python callers use.

Every function takes a combat/1 document as a plain dict (SPEC §1) and returns plain
dicts shaped as SPEC §5 prints them. Options given as arguments override the same fields
at the document's top level (``side``, ``objective``, ``assignment``, ``time_limit``).
Bad input raises :class:`~trample.models.document.errors.InputError` naming the field.

>>> from trample import api
>>> doc = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp"}],
...        "creatures": [{"id": "ogre", "controller": "ap", "power": 3, "toughness": 3,
...                       "keywords": ["trample"], "attacking": "dp"},
...                      {"id": "bear", "controller": "dp", "power": 2, "toughness": 2,
...                       "blocking": ["ogre"]}]}
>>> api.solve(doc)["assignment"]
[{'source': 'ogre', 'target': 'bear', 'amount': 2}, {'source': 'ogre', 'target': 'dp', 'amount': 1}]
>>> api.count(doc)
{'count': 2}
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import replace
from itertools import islice
from typing import TYPE_CHECKING, Any, cast

from trample.models.document.assignment import Pair, entries_json
from trample.models.document.combat import Combat, check_int
from trample.models.document.errors import InputError, InternalError
from trample.models.document.tiny import read_tiny
from trample.solver.count.census import Census
from trample.solver.interface.bug_reports import BUG_DIR_VARIABLE as BUG_DIR_VARIABLE
from trample.solver.interface.bug_reports import MAX_BUG_REPORTS as MAX_BUG_REPORTS
from trample.solver.interface.bug_reports import UnsafeFolder as UnsafeFolder
from trample.solver.interface.bug_reports import bug_folders as bug_folders
from trample.solver.interface.bug_reports import bug_report_note as bug_report_note
from trample.solver.interface.bug_reports import report_bug as report_bug
from trample.solver.interface.bug_reports import reporting
from trample.solver.interface.bug_reports import save_bug_report as save_bug_report
from trample.solver.interface.requests import DEFAULT_TIME_LIMIT as DEFAULT_TIME_LIMIT
from trample.solver.interface.requests import MAX_TIME_LIMIT as MAX_TIME_LIMIT
from trample.solver.interface.requests import parse_side as parse_side
from trample.solver.interface.requests import parse_time_limit as parse_time_limit
from trample.solver.interface.requests import request_field, request_started
from trample.solver.interface.results import (
    AssignmentResult,
    CountResult,
    Entry,
    IndexResult,
    OptionsResult,
    PairsResult,
    ProjectResult,
    SolveResult,
    ValidateResult,
    ViolationJson,
)
from trample.solver.interface.spaces import SPACE_CACHE_BYTES as SPACE_CACHE_BYTES
from trample.solver.interface.spaces import documents_are_json as documents_are_json
from trample.solver.interface.spaces import forget_spaces as forget_spaces
from trample.solver.interface.spaces import kept_bytes as kept_bytes
from trample.solver.interface.spaces import space_of as space_of
from trample.solver.optimize.cancel import Cancel
from trample.solver.optimize.fastpath import Single, solve_single
from trample.solver.optimize.objectives import parse_objective
from trample.solver.optimize.search_settings import SHIPPED, SearchSettings
from trample.solver.optimize.solve import Solution, optimize
from trample.solver.optimize.solve_numbers import solve_numbers, solve_numbers_many
from trample.solver.rules.assignment import parse_assignment, to_entries
from trample.solver.rules.choosers import SIDES
from trample.solver.rules.legal_space import LegalSpace, legal_space
from trample.solver.rules.validate import check_answer, each_violation

if TYPE_CHECKING:
    from trample.solver.actions.union import UnionActions

MAX_VIOLATIONS = 1_000
"""Violations ``validate`` lists; past them it says how many more there are (``omitted``)."""

Result = dict[str, Any]




class timed_request:  # lower case: used as the function it was, with timed_request()
    """A ``solve`` inside counts its time limit from now (``serve``: a line was just read).

    A class rather than a generator: ``serve`` enters one per line, and a generator's
    context manager costs a tiny request some 2% more."""

    __slots__ = ("_token",)

    def __enter__(self) -> None:
        self._token = request_started.set(time.monotonic())

    def __exit__(self, *exc: object) -> None:
        request_started.reset(self._token)


def solve(document: Mapping[str, Any], *, side: str | None = None,
          objective: list[str] | str | None = None,
          time_limit: float | None = None, started: float | None = None,
          settings: SearchSettings = SHIPPED, cancel: Cancel | None = None) -> SolveResult:
    """The best legal assignment for the objective (SPEC §4), and whether it is proved.

    The time limit covers the whole request: from ``started`` (a :func:`time.monotonic`
    instant the caller took when it began reading the request), else from the start of
    :func:`timed_request`, else from this call; parsing and model building count.
    ``settings``: how to search (the benchmarks compare variants). ``cancel``, set from
    another thread, stops the search as the time limit would (``serve``'s
    ``$/cancelRequest``).
    """
    begin = _began(started)
    if _on_numbers(settings):
        found = solve_numbers(document, side, objective)
        if found is not None:
            if time_limit is not None:
                parse_time_limit(time_limit)  # checked as the general path checks it
            return cast(SolveResult, found)
    return _solve(space_of(document, side), document, side, objective, time_limit, begin,
                  settings, cancel)


def _on_numbers(settings: SearchSettings) -> bool:
    """Whether a tiny combat may be answered on integers (:func:`solve_numbers`): it
    gives what the optimizer gives with these settings on (each part's pieces and the
    dynamic program for contested groups), not what a study that turns them off asks."""
    return settings.lone_parts and settings.dynamic_program


def _began(started: float | None) -> float:
    """When a request's time limit counts from: ``started``, else the start of
    :func:`timed_request`, else now (the earlier, when one is later than now)."""
    entered = time.monotonic()
    if started is None:
        started = request_started.get()
    return entered if started is None else min(started, entered)


def _solve(space: LegalSpace, document: Mapping[str, Any], side: str | None,
           objective: list[str] | str | None, time_limit: float | None, begin: float,
           settings: SearchSettings, cancel: Cancel | None) -> SolveResult:
    """:func:`solve` (and :meth:`Prepared.solve`) on the space of ``document``."""
    if cancel is not None:
        settings = _with_cancel(settings, cancel)
    terms = parse_objective(request_field(document, "objective", objective), space.side)
    seconds = parse_time_limit(request_field(document, "time_limit", time_limit))
    return _answer(space, terms, seconds, begin, settings, document, side, objective,
                   time_limit)


def _answer(space: LegalSpace, terms: tuple[str, ...], seconds: float, begin: float,
            settings: SearchSettings, document: Mapping[str, Any], side: str | None,
            objective: object, time_limit: object) -> SolveResult:
    """:func:`_solve` once its options are read: the single source's answer, else the
    optimizer's (``document`` and the options as given: for a bug report)."""
    try:  # reporting, inline: a context manager costs a tiny solve some 2%
        single = solve_single(space, terms)
        if single is not None:
            return _single_result(space, single)
        found = optimize(space, terms, seconds, settings, deadline=begin + seconds)
    except InternalError as exc:
        note = bug_report_note("solve", {"params": {
            "combat": document, "side": side, "objective": objective,
            "time_limit": time_limit}}, exc)
        raise InternalError(f"{exc}; {note}") from exc
    return _solve_result(space, found)


def solve_many(documents: Iterable[Mapping[str, Any]], *, side: str | None = None,
               objective: list[str] | str | None = None, time_limit: float | None = None,
               settings: SearchSettings = SHIPPED) -> list[SolveResult]:
    """:func:`solve` of each document, in order, for a caller that values many combats at
    once (a search loop's candidate declarations): the same answers as one call each,
    with the options read once for the whole batch rather than once per combat.

    The options apply to every document, as they would to each in :func:`solve` (a
    document's own ``side``, ``objective`` and ``time_limit`` where an option is not
    given); the time limit is each combat's own, counted from when its turn comes. A bad
    document or option raises :class:`~trample.models.document.errors.InputError` with
    the document's position in front of the field's path (``[3].creatures[0].power``),
    and nothing is answered.

    >>> doc = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp"}],
    ...        "creatures": [{"id": "ogre", "controller": "ap", "power": 3,
    ...                       "toughness": 3, "attacking": "dp"}]}
    >>> [r["assignment"][0]["amount"] for r in solve_many([doc, doc], objective="kills")]
    [3, 3]
    """
    # Each option given is checked once, before any document is read.
    seconds = None if time_limit is None else parse_time_limit(time_limit)
    chosen = None if side is None else parse_side(side)
    terms_by_side: dict[str, tuple[str, ...]] = {}
    if objective is not None:
        refused: InputError | None = None
        for s in (chosen,) if chosen is not None else SIDES:
            try:
                terms_by_side[s] = parse_objective(objective, s)
            except InputError as exc:
                refused = refused or exc
        if refused is not None and not terms_by_side:
            raise refused
        # Refused for one side only (a term the blockers' side cannot ask): a document
        # of that side is refused below, with its position.
    answers: list[SolveResult] = []
    # Taken when the attackers' terms were read above (or none was given): a document
    # refused for them goes the general way, which refuses it with its position.
    attack_terms = None if objective is None else terms_by_side.get("attackers")
    numbers = _on_numbers(settings) and (objective is None or attack_terms is not None)
    kept = cast(list[dict[str, Any]], answers)
    items = iter(documents)
    while True:
        if numbers:
            # The combats the integers answer, in a compiled loop, up to the first one
            # they decline: that one goes the general way, then the loop goes on.
            declined = solve_numbers_many(items, side, attack_terms, kept)
            if declined is None:
                return answers
            got: object = declined[0]
        else:
            got = next(items, _DONE)
            if got is _DONE:
                return answers
        document = cast(Mapping[str, Any], got)
        try:
            begin = time.monotonic()
            space = space_of(document, side)
            if objective is None:
                terms = parse_objective(request_field(document, "objective", None),
                                        space.side)
            else:
                known = terms_by_side.get(space.side)
                terms = known if known is not None else parse_objective(objective,
                                                                         space.side)
            limit = seconds if seconds is not None \
                else parse_time_limit(request_field(document, "time_limit", None))
            answers.append(_answer(space, terms, limit, begin, settings, document, side,
                                   objective, time_limit))
        except InputError as exc:
            raise exc.rerooted(_Position(len(answers))) from None


_DONE = object()
"""What :func:`solve_many`'s documents give when they are all read."""


class _Position:
    """A field's path in the document at ``index`` of :func:`solve_many`'s batch."""

    __slots__ = ("index",)

    def __init__(self, index: int) -> None:
        self.index = index

    def __call__(self, path: str) -> str:
        return f"[{self.index}].{path}" if path else f"[{self.index}]"


_last_with_cancel: tuple[SearchSettings, Cancel, SearchSettings] | None = None
"""The settings :func:`_with_cancel` made last, with what it made them from."""


def _with_cancel(settings: SearchSettings, cancel: Cancel) -> SearchSettings:
    """``settings`` with ``cancel``: made once for a run of requests under one
    cancellation (``serve`` answering on its reading thread), since making them costs
    about as much as a tiny solve itself."""
    global _last_with_cancel
    last = _last_with_cancel  # one read: another thread may replace it meanwhile
    if last is not None and last[0] is settings and last[1] is cancel:
        return last[2]
    made = replace(settings, cancel=cancel)
    _last_with_cancel = (settings, cancel, made)
    return made


def _solve_result(space: LegalSpace, found: Solution) -> SolveResult:
    """``solve``'s answer, keys in the printed order (``bound`` before the assignment)."""
    result: dict[str, Any] = {"status": found.status, "side": space.side,
                              "step": space.step, "objective": found.objective}
    if found.bound is not None:
        result["bound"] = found.bound
    result["assignment"] = to_entries(space, found.amounts)
    return cast(SolveResult, result)


def _single_result(space: LegalSpace, single: Single) -> SolveResult:
    """:func:`_solve_result` of a single source's answer (:func:`solve_single`): proved
    optimal, its entries in the order of the source's recipients (the canonical order of
    a space of one source)."""
    amounts, objective = single
    sid = space.sources[0].id
    entries = []
    for r in space.sources[0].recipients:
        amount = amounts.get((sid, r.id))
        if amount is not None:
            entries.append({"source": sid, "target": r.id, "amount": amount})
    return cast(SolveResult, {"status": "optimal", "side": space.side, "step": space.step,
                              "objective": dict(objective), "assignment": entries})


def _entries(space: LegalSpace, amounts: Mapping[Pair, int]) -> list[Entry]:
    """:func:`to_entries`, typed as the entries it writes."""
    return cast("list[Entry]", to_entries(space, amounts))


def validate(document: Mapping[str, Any], assignment: object = None, *,
             side: str | None = None) -> ValidateResult:
    """Whether an assignment is legal, and every rule it breaks: at most
    :data:`MAX_VIOLATIONS` violations, then ``"omitted"``, how many more there are."""
    return prepare(document, side=side).validate(assignment)


def judged(space: LegalSpace, amounts: Mapping[Pair, int]) -> ValidateResult:
    """``validate``'s answer for ``amounts``: at most :data:`MAX_VIOLATIONS` violations,
    then ``"omitted"``, how many more there are."""
    listed: list[ViolationJson] = []
    omitted = 0
    for v in each_violation(space, amounts):
        if len(listed) < MAX_VIOLATIONS:
            listed.append(cast(ViolationJson, v.to_json()))
        else:
            omitted += 1
    result: ValidateResult = {"legal": not listed, "violations": listed}
    if omitted:
        result["omitted"] = omitted
    return result


def census_of(space: LegalSpace, *, ordered: bool = False) -> Census | UnionActions:
    """What counts, enumerates and samples ``space``: its :class:`Census` (``ordered``:
    with the declared-order program built up front, so that enumeration refuses before its
    first answer), or, when some attacker may assign as though unblocked, the union of
    its two sets of splits (:mod:`trample.solver.actions.union`, imported only then)."""
    if space.alternatives:
        from trample.solver.actions import union

        return union.census_of(space)
    return Census(space, ordered=ordered)


def count(document: Mapping[str, Any], *, side: str | None = None) -> CountResult:
    """The exact number of distinct legal assignments."""
    return prepare(document, side=side).count()


def enumerate_assignments(document: Mapping[str, Any], *, side: str | None = None,
                          limit: int | None = None, after: int = 0) -> Iterator[Result]:
    """Every legal assignment once (up to ``limit``), each as ``{"assignment": [...]}``,
    in the same order every time; ``after`` skips that many first.

    The document is checked before the first answer is produced.
    """
    return prepare(document, side=side).enumerate(limit=limit, after=after)


def seed_of(seed: object) -> int:
    """``sample``'s seed: an integer (0 if None), or one drawn from a NumPy ``Generator``
    or a ``random.Random`` (which advance, as any draw from them does), within the same
    bound as an integer seed, so that the draws are those of that integer."""
    if seed is None:
        return 0
    if isinstance(seed, random.Random):
        return seed.getrandbits(40)
    if type(seed).__module__.startswith("numpy.random"):
        import numpy as np

        if isinstance(seed, np.random.Generator):
            return int(seed.integers(2**40))
    return check_int(seed, "seed")


def sample(document: Mapping[str, Any], *, side: str | None = None, n: int = 1,
           seed: object = None) -> Iterator[Result]:
    """``n`` independent uniformly random legal assignments, reproducible from ``seed`` (an
    integer, a NumPy ``Generator`` or a ``random.Random``)."""
    return prepare(document, side=side).sample(n=n, seed=seed)


def _stream(space: LegalSpace, items: Iterator[dict[Pair, int]],
            limit: int | None, what: str, document: object,
            options: dict[str, Any]) -> Iterator[Result]:
    for i, amounts in enumerate(items):
        if limit is not None and i >= limit:
            return
        with reporting(what, document, **options):
            check_answer(space, amounts, what)
        yield {"assignment": to_entries(space, amounts)}


def pair_order(document: Mapping[str, Any], *, side: str | None = None) -> list[Pair]:
    """The columns :func:`validate_many` expects: every legal (source, recipient) pair."""
    return prepare(document, side=side).pair_order()


def validate_many(document: Mapping[str, Any], amounts: Any, *,
                  side: str | None = None) -> Any:
    """A NumPy legality mask over candidate splits, one row each, one column per pair of
    :func:`pair_order` (for agents that score thousands of candidates at once)."""
    return prepare(document, side=side).validate_many(amounts)


def plan(document: Mapping[str, Any], objective: list[str] | str | None = None,
         time_limit: float | None = None, cancel: Cancel | None = None) -> Result:
    """Both combat damage steps at once: the attackers' first-strike split that
    guarantees the best value of the objective over the whole combat, the defenders
    replying worst for it in each step, with one principal line of play. The time limit
    or ``cancel`` (set from another thread) stops the search: ``feasible`` with the best
    split whose value is proved (:func:`trample.solver.actions.plan.plan_combat`)."""
    from trample.solver.actions.plan import (
        parse_plan_objective,
        plan_combat,
        plan_tiny,
        regular_document,
    )

    started = request_started.get() or time.monotonic()
    # A plain tiny combat is read straight from the dict (a document read there is one
    # Combat.from_json takes); when the numbers' path then declines it, it is read whole.
    tiny = read_tiny(document)
    combat = Combat.from_json(document) if tiny is None else None
    terms = parse_plan_objective(request_field(document, "objective", objective))
    seconds = parse_time_limit(request_field(document, "time_limit", time_limit))
    with reporting("plan", document, objective=objective, time_limit=time_limit):
        found = None if tiny is None else plan_tiny(tiny, terms, started + seconds, cancel)
        if found is None:
            if combat is None:
                combat = Combat.from_json(document)
            found = plan_combat(combat, terms, deadline=started + seconds, cancel=cancel)
    if found.ordered:
        # The numbers' path lists each split's amounts in canonical order: the entries
        # without deriving the four legal spaces and the regular step's document.
        return {
            "status": found.status, "objective": found.objective,
            "first_strike": _plan_entries(found.first_strike),
            "line": {
                "blockers_first_strike": _plan_entries(found.blockers_first_strike),
                "attackers_regular": _plan_entries(found.attackers_regular),
                "blockers_regular": _plan_entries(found.blockers_regular),
            },
        }
    assert combat is not None  # an answer of the numbers' path is ordered
    regular = regular_document(combat, found.first_strike, found.blockers_first_strike) \
        if combat.step == "first_strike" else combat
    first = legal_space(combat, "attackers")
    return {
        "status": found.status, "objective": found.objective,
        "first_strike": to_entries(first, found.first_strike),
        "line": {
            "blockers_first_strike": to_entries(legal_space(combat, "blockers"),
                                                found.blockers_first_strike),
            "attackers_regular": to_entries(legal_space(regular, "attackers"),
                                            found.attackers_regular),
            "blockers_regular": to_entries(legal_space(regular, "blockers"),
                                           found.blockers_regular),
        },
    }


def _plan_entries(amounts: Mapping[Pair, int]) -> list[dict[str, Any]]:
    """The JSON entries of a split whose amounts are in canonical order, positive only."""
    if not amounts:
        return []
    return entries_json([(s, t, a) for (s, t), a in amounts.items()])


def next_step(combat: Mapping[str, Any], attackers: object, blockers: object) -> Result:
    """The regular step's combat/1 document after the two first-strike splits: dead
    creatures left out, an attacker whose blockers are all gone blocked, dead planeswalkers
    and battles out of combat, damage, counters, loyalty, defense, life, poison and loss
    thresholds carried over."""
    from trample.solver.actions.plan import regular_document

    parsed = Combat.from_json(combat)
    if parsed.step != "first_strike":
        raise InputError("step", "next_step needs a document of the first-strike step")
    splits = []
    for side, raw in (("attackers", attackers), ("blockers", blockers)):
        space = legal_space(parsed, side)  # type: ignore[arg-type]
        amounts = dict(parse_assignment(parsed, raw, side).items())
        found = each_violation(space, amounts)
        first = next(iter(found), None)
        if first is not None:
            raise InputError(side, f"not a legal first-strike split: {first.message} "
                             f"({first.rule})")
        splits.append(amounts)
    return {"combat": regular_document(parsed, splits[0], splits[1]).to_json()}


# -- Legal splits as actions, and a parse-once handle ------------------------------------
#
# A legal assignment's identity is its vector of amounts over pair_order; its index is its
# position in enumerate's order. Each function below takes the document and plain values
# and returns a plain dict; ``prepare`` parses the document and derives the legal space
# once, for callers that ask many questions of one combat.


def prepare(document: Mapping[str, Any], *, side: str | None = None) -> Prepared:
    """A handle on one combat: the document is parsed and its legal space derived once,
    and every method (``solve``, ``validate``, ``count``, ``enumerate``, ``sample``,
    ``pair_order``, ``validate_many``, ``rank``, ``unrank``, ``options``, ``project``)
    answers as the function of the same name would.

    The fast path for many questions about one combat (a search loop's): prepare once,
    then ask the handle. What a question derives is kept with the handle (the scoring of
    the objective terms, the parts, the exact counting structure, a single source's
    answer to each objective asked), so the second ``solve`` of a tiny combat costs a
    few percent of the function's first, and ``count`` a hundredth. The functions keep
    the spaces of recently asked small documents too
    (:func:`space_of`), but still write each document out as JSON to find it there.

    >>> doc = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp"}],
    ...        "creatures": [{"id": "ogre", "controller": "ap", "power": 3,
    ...                       "toughness": 3, "keywords": ["trample"], "attacking": "dp"},
    ...                      {"id": "bear", "controller": "dp", "power": 2,
    ...                       "toughness": 2, "blocking": ["ogre"]}]}
    >>> game = prepare(doc)
    >>> game.solve()["objective"]["life_loss"], game.count(), game.validate(
    ...     [{"source": "ogre", "target": "bear", "amount": 3}])["legal"]
    (1, {'count': 2}, True)
    """
    return Prepared(document, side)


class Prepared:
    """The parsed combat and its legal space, with the API's methods (see :func:`prepare`):
    each is the one definition of the function of the same name, which asks a handle.

    The exact counting structure is built on first use and kept.
    """

    __slots__ = ("_actions", "_census", "_side", "document", "space")

    def __init__(self, document: Mapping[str, Any], side: str | None = None) -> None:
        self.document = document
        self.space = space_of(document, side)
        self._side = side
        self._actions: Any = None
        self._census: Census | UnionActions | None = None

    @property
    def actions(self) -> Any:
        """The :class:`~trample.solver.actions.splits.Actions` of the space (built once, on
        the counting structure when that is built already)."""
        if self._actions is None:
            from trample.solver.actions.union import actions_of

            self._actions = actions_of(self.space, self._census)
        return self._actions

    @property
    def census(self) -> Census | UnionActions:
        """The space's exact counting structure (built once)."""
        if self._census is None:
            self._census = self._actions.census if self._actions is not None \
                else census_of(self.space)
        return self._census

    def solve(self, *, objective: list[str] | str | None = None,
              time_limit: float | None = None, started: float | None = None,
              settings: SearchSettings = SHIPPED, cancel: Cancel | None = None
              ) -> SolveResult:
        """As :func:`solve`."""
        return _solve(self.space, self.document, self._side, objective, time_limit,
                      _began(started), settings, cancel)

    def validate(self, assignment: object = None) -> ValidateResult:
        """As :func:`validate`."""
        raw = request_field(self.document, "assignment", assignment)
        if raw is None:
            raise InputError("assignment", "no assignment given (pass one, or put it at "
                             "the document's top level)")
        return judged(self.space, parse_assignment(self.space.combat, raw))

    def count(self, fixed: object = None) -> CountResult:
        """As :func:`count`; with ``fixed`` as :func:`count_fixed`."""
        if fixed is None:
            return {"count": self.census.count()}
        from trample.solver.actions.splits import parse_fixed

        return {"count": self.actions.count(parse_fixed(self.space, fixed))}

    def enumerate(self, *, limit: int | None = None, after: int = 0) -> Iterator[Result]:
        """As :func:`enumerate_assignments`."""
        if limit is not None:
            limit = check_int(limit, "limit", minimum=0)
        after = check_int(after, "after", minimum=0)
        census = self.census
        if isinstance(census, Census):
            _ = census.parts  # built now, so that a refusal comes before the first answer
        return _stream(self.space, islice(census.enumerate(), after, None), limit,
                       "enumerate", self.document,
                       {"side": self._side, "limit": limit, "after": after})

    def sample(self, *, n: int = 1, seed: object = None) -> Iterator[Result]:
        """As :func:`sample`."""
        n = check_int(n, "n", minimum=0)
        seed = seed_of(seed)
        census, rng = self.census, random.Random(seed)
        draws = (census.sample(rng) for _ in range(n))
        return _stream(self.space, draws, None, "sample", self.document,
                       {"side": self._side, "n": n, "seed": seed})

    def pair_order(self) -> list[Pair]:
        """As :func:`pair_order`."""
        from trample.solver.rules.validate_many import pair_columns

        return pair_columns(self.space)

    def pairs(self) -> PairsResult:
        """As :func:`pairs`."""
        return {"pairs": [[s, t] for s, t in self.pair_order()]}

    def validate_many(self, amounts: Any) -> Any:
        """As :func:`validate_many`."""
        from trample.solver.rules.validate_many import legal_rows

        return legal_rows(self.space, amounts)

    def rank(self, assignment: object = None) -> IndexResult:
        """As :func:`rank`."""
        raw = request_field(self.document, "assignment", assignment)
        if raw is None:
            raise InputError("assignment", "no assignment given (pass one, or put it at "
                             "the document's top level)")
        amounts = parse_assignment(self.space.combat, raw)
        first = next(each_violation(self.space, amounts), None)
        if first is not None:
            raise InputError("assignment", f"is not legal, so it has no index: "
                             f"{first.message} ({first.rule})")
        with reporting("rank", self.document, side=self._side, assignment=raw):
            try:
                index = self.actions.rank(amounts)
            except ValueError as exc:
                raise InternalError(f"rank found no index for a legal assignment: "
                                    f"{exc}") from exc
        return {"index": index}

    def unrank(self, index: object) -> AssignmentResult:
        """As :func:`unrank`."""
        from trample.solver.actions.splits import parse_index

        actions = self.actions
        i = parse_index(index, actions.total)
        amounts = actions.unrank(i)
        with reporting("unrank", self.document, side=self._side, index=i):
            check_answer(self.space, amounts, "unrank")
        return {"assignment": _entries(self.space, amounts)}

    def options(self, fixed: object = None, pair: object = None) -> OptionsResult:
        """As :func:`options`."""
        from trample.solver.actions.splits import parse_fixed, parse_pair

        actions = self.actions
        chosen = parse_fixed(self.space, fixed)
        if pair is None:
            free = [p for p in actions.pairs if p not in chosen]
            if not free:
                raise InputError("pair", "every pair of pair_order is fixed: name one")
            where = free[0]
        else:
            where = parse_pair(self.space, pair)
        amounts = actions.options(chosen, where)
        return {"pair": list(where), "amounts": [[a, n] for a, n in amounts]}

    def project(self, amounts: object, *, time_limit: float | None = None,
                cancel: Cancel | None = None) -> ProjectResult:
        """As :func:`project`."""
        from trample.solver.actions.splits import number, parse_values

        started = request_started.get() or time.monotonic()
        values = parse_values(self.space, amounts)
        seconds = parse_time_limit(request_field(self.document, "time_limit", time_limit))
        found = self.actions.projection(values, deadline=started + seconds, cancel=cancel)
        with reporting("project", self.document, side=self._side, amounts=amounts):
            check_answer(self.space, found.amounts, "project")
        broken: list[ViolationJson] = []
        if all(v.denominator == 1 and v >= 0 for v in values.values()):
            given = {p: int(v) for p, v in values.items() if v > 0}
            broken = judged(self.space, given)["violations"]
        result: ProjectResult = {"assignment": _entries(self.space, found.amounts),
                                 "distance": number(found.distance), "violations": broken}
        if not found.exact:
            result["status"] = "feasible"
        return result


def pairs(document: Mapping[str, Any], *, side: str | None = None) -> PairsResult:
    """``{"pairs": [[source, target], ...]}``: :func:`pair_order` as a JSON answer."""
    return prepare(document, side=side).pairs()


def rank(document: Mapping[str, Any], assignment: object = None, *,
         side: str | None = None) -> IndexResult:
    """``{"index": i}``: the position of a legal assignment in enumerate's order."""
    return prepare(document, side=side).rank(assignment)


def unrank(document: Mapping[str, Any], index: object, *,
           side: str | None = None) -> AssignmentResult:
    """``{"assignment": [...]}``: the legal assignment at position ``index`` of enumerate's
    order (0 <= index < count)."""
    return prepare(document, side=side).unrank(index)


def count_fixed(document: Mapping[str, Any], fixed: object = None, *,
                side: str | None = None) -> CountResult:
    """``{"count": N}``: legal assignments whose amounts agree with ``fixed``, a list of
    ``{source, target, amount}`` over pairs of :func:`pair_order` (0 fixes a pair to 0)."""
    return prepare(document, side=side).count(fixed if fixed is not None else [])


def options(document: Mapping[str, Any], fixed: object = None, pair: object = None, *,
            side: str | None = None) -> OptionsResult:
    """``{"pair": [source, target], "amounts": [[amount, completions], ...]}``: every
    amount of ``pair`` (default: the first pair of :func:`pair_order` not in ``fixed``)
    that has a legal completion agreeing with ``fixed``, with how many, ascending.
    Drawing an amount in proportion to its completions, pair after pair, draws a legal
    assignment uniformly."""
    return prepare(document, side=side).options(fixed, pair)


def project(document: Mapping[str, Any], amounts: object, *,
            side: str | None = None, time_limit: float | None = None,
            cancel: Cancel | None = None) -> ProjectResult:
    """``{"assignment", "distance", "violations"}``: the legal assignment nearest
    ``amounts`` (``{source, target, amount}`` entries with any numbers; pairs left out
    are 0) in L1 distance over all pairs, ties broken by the side's default objective
    (best first) and then by enumerate's order; ``violations`` are the rules the input
    breaks when its amounts are whole numbers >= 0 (else empty). The time limit (as
    ``solve``'s) or ``cancel`` (set from another thread) stops the search: the answer is
    then the nearest legal assignment found, its distance, and ``"status": "feasible"``."""
    return prepare(document, side=side).project(amounts, time_limit=time_limit, cancel=cancel)


# SPEC §11, blocks and attacks: written in their own module, part of this API.
from trample.solver.interface.blocks_api import best_attack as best_attack  # noqa: E402
from trample.solver.interface.blocks_api import best_block as best_block  # noqa: E402
from trample.solver.interface.blocks_api import block_options as block_options  # noqa: E402
from trample.solver.interface.blocks_api import block_pairs as block_pairs  # noqa: E402
from trample.solver.interface.blocks_api import check_blocks as check_blocks  # noqa: E402
from trample.solver.interface.blocks_api import count_blocks as count_blocks  # noqa: E402
from trample.solver.interface.blocks_api import (  # noqa: E402
    enumerate_blocks as enumerate_blocks,
)
from trample.solver.interface.blocks_api import (  # noqa: E402
    evaluate_blocks as evaluate_blocks,
)
