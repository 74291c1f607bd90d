"""The dict-in/dict-out API: what the command line, ``trample serve`` and Python callers use.

Every function takes a combat/1 document as a plain dict (SPEC §1) and returns plain
dicts shaped as SPEC §5 prints them. Options given as arguments override the same fields
at the document's top level (``side``, ``objective``, ``assignment``, ``time_limit``).
Bad input raises :class:`~trample.models.errors.InputError` naming the field.

>>> from trample.solver import api
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

import os
import random
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from trample.models.combat import Combat, brief_repr, check_int
from trample.models.errors import InputError, InternalError
from trample.solver.assignment import parse_assignment, to_entries
from trample.solver.counting import Census
from trample.solver.objectives import parse_objective
from trample.solver.optimize import check_legal
from trample.solver.optimize import solve as optimize
from trample.solver.rules import SIDES, LegalSpace, Side, legal_space
from trample.solver.validate import violations

DEFAULT_TIME_LIMIT = 60.0
"""Seconds ``solve`` searches by default before answering ``feasible``."""
MAX_TIME_LIMIT = 24 * 3600.0

Result = dict[str, Any]


BUG_DIR_VARIABLE = "TRAMPLE_BUG_DIR"
"""Where requests that hit an internal error are saved (default: <tmp>/trample-bugs)."""


def save_bug_report(method: str, document: object, options: Mapping[str, Any],
                    error: BaseException) -> Path:
    """Save a request that made trample fail its own check, for a bug report."""
    import hashlib
    import json
    import tempfile

    folder = Path(os.environ.get(BUG_DIR_VARIABLE) or
                  Path(tempfile.gettempdir()) / "trample-bugs")
    folder.mkdir(parents=True, exist_ok=True)
    report = {"method": method, "params": {"combat": document, **options},
              "error": str(error)}
    text = json.dumps(report, sort_keys=True, default=repr)
    path = folder / f"{hashlib.sha256(text.encode()).hexdigest()[:16]}.json"
    path.write_text(text + "\n", encoding="utf-8")
    return path


@contextmanager
def _reporting(method: str, document: object, **options: Any) -> Iterator[None]:
    """Turn an internal error into one that says where the request was saved."""
    try:
        yield
    except InternalError as exc:
        where = save_bug_report(method, document, options, exc)
        raise InternalError(f"{exc}; the request is saved in {where} for a bug "
                            "report") from exc


def _field(document: Mapping[str, Any], key: str, given: object) -> object:
    if given is not None:
        return given
    return document.get(key) if isinstance(document, Mapping) else None


def parse_side(raw: object, path: str = "side") -> Side:
    """``attackers`` (default) or ``blockers``."""
    if raw is None:
        return "attackers"
    if not isinstance(raw, str) or raw not in SIDES:
        raise InputError(path, f"must be 'attackers' or 'blockers', not {brief_repr(raw)}")
    return "attackers" if raw == "attackers" else "blockers"


def parse_time_limit(raw: object, path: str = "time_limit") -> float:
    """A positive number of seconds; None gives the default."""
    if raw is None:
        return DEFAULT_TIME_LIMIT
    if isinstance(raw, bool) or not isinstance(raw, (int, float)) or raw != raw:
        raise InputError(path, "must be a number of seconds")
    if not 0 < raw <= MAX_TIME_LIMIT:
        raise InputError(path, f"must be more than 0 and at most {MAX_TIME_LIMIT:g} seconds")
    return float(raw)


def space_of(document: Mapping[str, Any], side: str | None = None) -> LegalSpace:
    """Parse the document and derive the legal space for the requested side.

    Request fields the document carries are checked whichever command reads it, so a
    malformed ``objective`` or ``time_limit`` is refused by ``count`` as by ``solve``.
    """
    combat = Combat.from_json(document)
    space = legal_space(combat, parse_side(_field(document, "side", side)))
    if document.get("objective") is not None:
        parse_objective(document["objective"], space.side)
    if document.get("time_limit") is not None:
        parse_time_limit(document["time_limit"])
    return space


def solve(document: Mapping[str, Any], *, side: str | None = None,
          objective: list[str] | str | None = None,
          time_limit: float | None = None) -> Result:
    """The best legal assignment for the objective (SPEC §4), and whether it is proved."""
    space = space_of(document, side)
    terms = parse_objective(_field(document, "objective", objective), space.side)
    seconds = parse_time_limit(_field(document, "time_limit", time_limit))
    with _reporting("solve", document, side=side, objective=objective,
                    time_limit=time_limit):
        found = optimize(space, terms, seconds)
    result: Result = {"status": found.status, "side": space.side, "step": space.step,
                      "objective": found.objective}
    if found.bound is not None:
        result["bound"] = found.bound
    result["assignment"] = to_entries(space, found.amounts)
    return result


def validate(document: Mapping[str, Any], assignment: object = None, *,
             side: str | None = None) -> Result:
    """Whether an assignment is legal, and every rule it breaks."""
    space = space_of(document, side)
    raw = _field(document, "assignment", assignment)
    if raw is None:
        raise InputError("assignment", "no assignment given (pass one, or put it at the "
                         "document's top level)")
    amounts = parse_assignment(space.combat, raw)
    found = violations(space, amounts)
    return {"legal": not found, "violations": [v.to_json() for v in found]}


def count(document: Mapping[str, Any], *, side: str | None = None) -> Result:
    """The exact number of distinct legal assignments."""
    return {"count": Census(space_of(document, side)).count()}


def enumerate_assignments(document: Mapping[str, Any], *, side: str | None = None,
                          limit: int | None = None) -> Iterator[Result]:
    """Every legal assignment once (up to ``limit``), each as ``{"assignment": [...]}``.

    The document is checked before the first answer is produced.
    """
    space = space_of(document, side)
    if limit is not None:
        limit = check_int(limit, "limit", minimum=0)
    census = Census(space)
    return _stream(space, census.enumerate(), limit, "enumerate", document,
                   {"side": side, "limit": limit})


def sample(document: Mapping[str, Any], *, side: str | None = None, n: int = 1,
           seed: int | None = None) -> Iterator[Result]:
    """``n`` independent uniformly random legal assignments, reproducible from ``seed``."""
    space = space_of(document, side)
    n = check_int(n, "n", minimum=0)
    seed = 0 if seed is None else check_int(seed, "seed")
    census = Census(space)
    rng = random.Random(seed)
    draws = (census.sample(rng) for _ in range(n))
    return _stream(space, draws, None, "sample", document,
                   {"side": side, "n": n, "seed": seed})


def _stream(space: LegalSpace, items: Iterator[dict[tuple[str, str], int]],
            limit: int | None, what: str, document: object,
            options: dict[str, Any]) -> Iterator[Result]:
    for i, amounts in enumerate(items):
        if limit is not None and i >= limit:
            return
        with _reporting(what, document, **options):
            check_legal(space, amounts, what)
        yield {"assignment": to_entries(space, amounts)}


def pair_order(document: Mapping[str, Any], *, side: str | None = None) -> list[tuple[str, str]]:
    """The columns :func:`validate_many` expects: every legal (source, recipient) pair."""
    from trample.solver.batch import pair_order as order

    return order(space_of(document, side))


def validate_many(document: Mapping[str, Any], amounts: Any, *,
                  side: str | None = None) -> Any:
    """A NumPy legality mask over candidate splits, one row each, one column per pair of
    :func:`pair_order` (for agents that score thousands of candidates at once)."""
    from trample.solver.batch import validate_many as judge

    return judge(space_of(document, side), amounts)


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
    answers as the function of the same name would."""
    return Prepared(document, side)


class Prepared:
    """The parsed combat and its legal space, with the API's methods (see :func:`prepare`).

    The exact counting structure is built on first use and kept.
    """

    def __init__(self, document: Mapping[str, Any], side: str | None = None) -> None:
        self.document = document
        self.space = space_of(document, side)
        self._side = side
        self._actions: Any = None

    @property
    def actions(self) -> Any:
        """The :class:`~trample.solver.actions.Actions` of the space (built once)."""
        if self._actions is None:
            from trample.solver.actions import Actions

            self._actions = Actions(self.space)
        return self._actions

    @property
    def census(self) -> Census:
        """The space's exact counting structure (built once)."""
        census: Census = self.actions.census
        return census

    def solve(self, *, objective: list[str] | str | None = None,
              time_limit: float | None = None) -> Result:
        """As :func:`solve`."""
        space, document = self.space, self.document
        terms = parse_objective(_field(document, "objective", objective), space.side)
        seconds = parse_time_limit(_field(document, "time_limit", time_limit))
        with _reporting("solve", document, side=self._side, objective=objective,
                        time_limit=time_limit):
            found = optimize(space, terms, seconds)
        result: Result = {"status": found.status, "side": space.side, "step": space.step,
                          "objective": found.objective}
        if found.bound is not None:
            result["bound"] = found.bound
        result["assignment"] = to_entries(space, found.amounts)
        return result

    def validate(self, assignment: object = None) -> Result:
        """As :func:`validate`."""
        raw = _field(self.document, "assignment", assignment)
        if raw is None:
            raise InputError("assignment", "no assignment given (pass one, or put it at "
                             "the document's top level)")
        found = violations(self.space, parse_assignment(self.space.combat, raw))
        return {"legal": not found, "violations": [v.to_json() for v in found]}

    def count(self, fixed: object = None) -> Result:
        """As :func:`count`; with ``fixed`` as :func:`count_fixed`."""
        if fixed is None:
            return {"count": self.census.count()}
        from trample.solver.actions import parse_fixed

        return {"count": self.actions.count(parse_fixed(self.space, fixed))}

    def enumerate(self, *, limit: int | None = None) -> Iterator[Result]:
        """As :func:`enumerate_assignments`."""
        if limit is not None:
            limit = check_int(limit, "limit", minimum=0)
        return _stream(self.space, self.census.enumerate(), limit, "enumerate",
                       self.document, {"side": self._side, "limit": limit})

    def sample(self, *, n: int = 1, seed: int | None = None) -> Iterator[Result]:
        """As :func:`sample`."""
        n = check_int(n, "n", minimum=0)
        seed = 0 if seed is None else check_int(seed, "seed")
        census, rng = self.census, random.Random(seed)
        draws = (census.sample(rng) for _ in range(n))
        return _stream(self.space, draws, None, "sample", self.document,
                       {"side": self._side, "n": n, "seed": seed})

    def pair_order(self) -> list[tuple[str, str]]:
        """As :func:`pair_order`."""
        from trample.solver.batch import pair_order as order

        return order(self.space)

    def pairs(self) -> Result:
        """As :func:`pairs`."""
        return {"pairs": [[s, t] for s, t in self.pair_order()]}

    def validate_many(self, amounts: Any) -> Any:
        """As :func:`validate_many`."""
        from trample.solver.batch import validate_many as judge

        return judge(self.space, amounts)

    def rank(self, assignment: object = None) -> Result:
        """As :func:`rank`."""
        raw = _field(self.document, "assignment", assignment)
        if raw is None:
            raise InputError("assignment", "no assignment given (pass one, or put it at "
                             "the document's top level)")
        amounts = parse_assignment(self.space.combat, raw)
        found = violations(self.space, amounts)
        if found:
            raise InputError("assignment", f"is not legal, so it has no index: "
                             f"{found[0].message} ({found[0].rule})")
        with _reporting("rank", self.document, side=self._side, assignment=raw):
            try:
                index = self.actions.rank(amounts)
            except ValueError as exc:
                raise InternalError(f"rank found no index for a legal assignment: "
                                    f"{exc}") from exc
        return {"index": index}

    def unrank(self, index: object) -> Result:
        """As :func:`unrank`."""
        from trample.solver.actions import parse_index

        actions = self.actions
        i = parse_index(index, actions.total)
        amounts = actions.unrank(i)
        with _reporting("unrank", self.document, side=self._side, index=i):
            check_legal(self.space, amounts, "unrank")
        return {"assignment": to_entries(self.space, amounts)}

    def options(self, fixed: object = None, pair: object = None) -> Result:
        """As :func:`options`."""
        from trample.solver.actions import parse_fixed, parse_pair

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

    def project(self, amounts: object) -> Result:
        """As :func:`project`."""
        from trample.solver.actions import number, parse_values

        values = parse_values(self.space, amounts)
        nearest, distance = self.actions.project(values)
        with _reporting("project", self.document, side=self._side, amounts=amounts):
            check_legal(self.space, nearest, "project")
        broken: list[dict[str, Any]] = []
        if all(v.denominator == 1 and v >= 0 for v in values.values()):
            given = {p: int(v) for p, v in values.items() if v > 0}
            broken = [v.to_json() for v in violations(self.space, given)]
        return {"assignment": to_entries(self.space, nearest), "distance": number(distance),
                "violations": broken}


def pairs(document: Mapping[str, Any], *, side: str | None = None) -> Result:
    """``{"pairs": [[source, target], ...]}``: :func:`pair_order` as a JSON answer."""
    return prepare(document, side=side).pairs()


def rank(document: Mapping[str, Any], assignment: object = None, *,
         side: str | None = None) -> Result:
    """``{"index": i}``: the position of a legal assignment in enumerate's order."""
    return prepare(document, side=side).rank(assignment)


def unrank(document: Mapping[str, Any], index: object, *, side: str | None = None) -> Result:
    """``{"assignment": [...]}``: the legal assignment at position ``index`` of enumerate's
    order (0 <= index < count)."""
    return prepare(document, side=side).unrank(index)


def count_fixed(document: Mapping[str, Any], fixed: object = None, *,
                side: str | None = None) -> Result:
    """``{"count": N}``: legal assignments whose amounts agree with ``fixed``, a list of
    ``{source, target, amount}`` over pairs of :func:`pair_order` (0 fixes a pair to 0)."""
    return prepare(document, side=side).count(fixed if fixed is not None else [])


def options(document: Mapping[str, Any], fixed: object = None, pair: object = None, *,
            side: str | None = None) -> Result:
    """``{"pair": [source, target], "amounts": [[amount, completions], ...]}``: every
    amount of ``pair`` (default: the first pair of :func:`pair_order` not in ``fixed``)
    that has a legal completion agreeing with ``fixed``, with how many, ascending.
    Drawing an amount in proportion to its completions, pair after pair, draws a legal
    assignment uniformly."""
    return prepare(document, side=side).options(fixed, pair)


def project(document: Mapping[str, Any], amounts: object, *,
            side: str | None = None) -> Result:
    """``{"assignment", "distance", "violations"}``: the legal assignment nearest
    ``amounts`` (``{source, target, amount}`` entries with any numbers; pairs left out
    are 0) in L1 distance over all pairs, ties broken by the side's default objective
    (best first) and then by enumerate's order; ``violations`` are the rules the input
    breaks when its amounts are whole numbers >= 0 (else empty)."""
    return prepare(document, side=side).project(amounts)
