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

import importlib
import json
import os
import random
import threading
import time
from collections import OrderedDict
from collections.abc import Iterator, Mapping
from contextlib import contextmanager, suppress
from contextvars import ContextVar
from dataclasses import replace
from itertools import islice
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from trample.models.document.assignment import Pair
from trample.models.document.combat import Combat, brief_repr, check_int
from trample.models.document.errors import InputError, InternalError
from trample.solver.count.census import Census
from trample.solver.interface.requests import DEFAULT_TIME_LIMIT as DEFAULT_TIME_LIMIT
from trample.solver.interface.requests import MAX_TIME_LIMIT as MAX_TIME_LIMIT
from trample.solver.interface.requests import parse_time_limit as parse_time_limit
from trample.solver.interface.requests import request_started
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
from trample.solver.optimize.cancel import Cancel
from trample.solver.optimize.fastpath import Single, solve_single
from trample.solver.optimize.objectives import parse_objective
from trample.solver.optimize.search_settings import SHIPPED, SearchSettings
from trample.solver.optimize.solve import Solution, optimize
from trample.solver.rules.assignment import parse_assignment, to_entries
from trample.solver.rules.choosers import SIDES, Side
from trample.solver.rules.legal_space import LegalSpace, held_bytes, legal_space
from trample.solver.rules.validate import check_answer, each_violation

if TYPE_CHECKING:
    from trample.solver.actions.union import UnionActions

MAX_VIOLATIONS = 1_000
"""Violations ``validate`` lists; past them it says how many more there are (``omitted``)."""

Result = dict[str, Any]


BUG_DIR_VARIABLE = "TRAMPLE_BUG_DIR"
"""Where requests that hit an internal error are saved (default: ``$XDG_CACHE_HOME/trample/
bugs``, else ``~/.cache/trample/bugs``, else ``<tmp>/trample-bugs-<uid>``)."""
MAX_BUG_REPORTS = 1_000
"""Reports one folder holds at most; past it a report is not saved (the message says so)."""

_saved_reports: dict[str, Path] = {}
"""Reports this process saved, by the digest of their text: the same failure repeated
(a client resending a request) is saved once."""


class UnsafeFolder(Exception):
    """A bug-report folder refused: why, in words."""


def bug_folders() -> list[Path]:
    """Where a bug report may go, in order: ``$TRAMPLE_BUG_DIR`` alone when it is set; else
    the user's cache folder, then a per-user folder under the temporary directory."""
    import tempfile

    chosen = os.environ.get(BUG_DIR_VARIABLE)
    if chosen:
        return [Path(chosen)]
    folders = []
    cache = os.environ.get("XDG_CACHE_HOME")
    if cache and os.path.isabs(cache):
        folders.append(Path(cache) / "trample" / "bugs")
    else:
        with suppress(RuntimeError, KeyError):  # no home folder known: the next place
            folders.append(Path.home() / ".cache" / "trample" / "bugs")
    uid = os.geteuid() if hasattr(os, "geteuid") else os.getpid()
    folders.append(Path(tempfile.gettempdir()) / f"trample-bugs-{uid}")
    return folders


def _open_private_folder(folder: Path) -> int:
    """A descriptor of ``folder``, created 0700 when missing; refused unless it is a real
    folder (not a symbolic link) owned by this user and closed to everyone else, so that
    no other local user can plant links in it or read the requests saved there."""
    import stat

    try:
        folder.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with suppress(FileExistsError):  # checked below, whatever it is
            folder.mkdir(mode=0o700)
    except OSError as exc:
        raise UnsafeFolder(f"{folder} cannot be created ({exc.strerror or exc})") from None
    flags = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_NOFOLLOW", 0) \
        | getattr(os, "O_CLOEXEC", 0)
    try:
        before = os.lstat(folder)
        if stat.S_ISLNK(before.st_mode):
            raise UnsafeFolder(f"{folder} is a symbolic link")
        if not stat.S_ISDIR(before.st_mode):
            raise UnsafeFolder(f"{folder} is not a folder")
        fd = os.open(folder, flags)
    except OSError as exc:
        raise UnsafeFolder(f"{folder} cannot be opened ({exc.strerror or exc})") from None
    try:
        info = os.fstat(fd)
        if (info.st_dev, info.st_ino) != (before.st_dev, before.st_ino):
            raise UnsafeFolder(f"{folder} changed while it was checked")
        if not stat.S_ISDIR(info.st_mode):
            raise UnsafeFolder(f"{folder} is not a folder")
        if hasattr(os, "geteuid") and info.st_uid != os.geteuid():
            raise UnsafeFolder(f"{folder} belongs to another user (uid {info.st_uid})")
        if info.st_mode & 0o077:
            raise UnsafeFolder(f"{folder} is open to other users (mode "
                               f"{stat.S_IMODE(info.st_mode):04o}; it must be 0700)")
        with os.scandir(fd) as entries:
            if sum(1 for _ in islice(entries, MAX_BUG_REPORTS)) >= MAX_BUG_REPORTS:
                raise UnsafeFolder(f"{folder} already holds {MAX_BUG_REPORTS:,} reports")
    except BaseException:
        os.close(fd)
        raise
    return fd


def _write_new(folder: Path, fd: int, data: bytes) -> Path:
    """``data`` in a new file of the folder, created exclusively (never an existing file,
    never through a link) and readable by this user alone; a name taken gets a new one."""
    import secrets
    import time

    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) \
        | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        name = f"{time.strftime('%Y%m%dT%H%M%SZ', time.gmtime())}-{secrets.token_hex(8)}.json"
        try:
            if os.open in os.supports_dir_fd:
                out = os.open(name, flags, 0o600, dir_fd=fd)
            else:  # pragma: no cover - platforms without dir_fd
                out = os.open(folder / name, flags, 0o600)
        except FileExistsError:
            continue
        with os.fdopen(out, "wb") as f:
            f.write(data)
        return folder / name
    raise UnsafeFolder(f"{folder}: no free name for a report")  # pragma: no cover


def save_bug_report(method: str, fields: Mapping[str, Any], error: BaseException) -> Path:
    """Save a request that made trample fail, for a bug report: ``{"method": ..., **fields,
    "error": ...}`` in a new file of a private folder (:func:`bug_folders`). Raises
    :class:`UnsafeFolder` (saying why of each folder) when no folder is safe."""
    import hashlib
    import json

    report = {"method": method, **fields, "error": f"{type(error).__name__}: {error}"[:2000]}
    data = (json.dumps(report, sort_keys=True, default=repr) + "\n").encode("utf-8",
                                                                           "surrogateescape")
    folders = bug_folders()
    digest = hashlib.sha256(repr(folders).encode() + data).hexdigest()
    known = _saved_reports.get(digest)
    if known is not None and known.exists():
        return known
    reasons = []
    for folder in folders:
        try:
            fd = _open_private_folder(folder)
        except UnsafeFolder as exc:
            reasons.append(str(exc))
            continue
        try:
            path = _write_new(folder, fd, data)
        except OSError as exc:
            reasons.append(f"{folder}: {exc.strerror or exc}")
            continue
        finally:
            os.close(fd)
        if len(_saved_reports) < MAX_BUG_REPORTS:
            _saved_reports[digest] = path
        return path
    raise UnsafeFolder("; ".join(reasons))


def bug_report_note(method: str, fields: Mapping[str, Any], error: BaseException) -> str:
    """Save a bug report (:func:`save_bug_report`) and say where, or say why it was not
    saved (no safe folder: the message is then all there is). Never raises."""
    try:
        return f"the request is saved in {save_bug_report(method, fields, error)} for a bug " \
            "report"
    except UnsafeFolder as exc:
        return f"no bug report saved: {exc}"
    except Exception as exc:  # a report must never hide the error it reports
        return f"no bug report saved: {type(exc).__name__}: {str(exc)[:200]}"


def report_bug(where: str, request: object, error: BaseException) -> str:
    """:func:`bug_report_note` for a whole request (a ``serve`` request, or its line)."""
    return bug_report_note(where, {"request": request}, error)


@contextmanager
def _reporting(method: str, document: object, **options: Any) -> Iterator[None]:
    """Turn an internal error into one that says where the request was saved."""
    try:
        yield
    except InternalError as exc:
        note = bug_report_note(method, {"params": {"combat": document, **options}}, exc)
        raise InternalError(f"{exc}; {note}") from exc


def _field(document: Mapping[str, Any], key: str, given: object) -> object:
    if given is not None:
        return given
    return document.get(key) if type(document) is dict or isinstance(document, Mapping) \
        else None


def parse_side(raw: object, path: str = "side") -> Side:
    """``attackers`` (default) or ``blockers``."""
    if raw is None:
        return "attackers"
    if not isinstance(raw, str) or raw not in SIDES:
        raise InputError(path, f"must be 'attackers' or 'blockers', not {brief_repr(raw)}")
    return "attackers" if raw == "attackers" else "blockers"


SPACE_CACHE_BYTES = 64 << 20
"""Memory the legal spaces kept for the next request about the same combat may hold in
all, as :func:`~trample.solver.rules.legal_space.held_bytes` estimates it (the most any
request makes a space keep, its key's text counted too): the least recently asked go
first past it. A tiny combat's space holds some 15 to 60 KiB; one with ten attackers
that may assign as though unblocked, megabytes (a mode space for each set of splits)."""
SEEN_KEYS = 1_024
"""Documents asked about once whose next request keeps their space (by key hash)."""
SPACE_CACHE_CREATURES = 16
SPACE_CACHE_CHARACTERS = 4_096
"""A document is cached only when it lists at most this many creatures and its JSON text
is at most this long: the key is that text, and a tiny combat's costs far less to write
out (well under a microsecond with orjson) than to parse and derive again."""

Key = tuple[str | bytes, str | None]
_spaces: OrderedDict[Key, tuple[LegalSpace, Any, int]] = OrderedDict()
"""The kept spaces by key, each with the JSON values its text decodes to (None: the text
needs no check, :func:`_cache_key`) and the bytes it is counted for."""
_held = 0
"""The bytes the kept spaces are counted for, in all (changed under :data:`_spaces_lock`)."""
_seen: OrderedDict[int, None] = OrderedDict()
"""Hashes of the keys of documents read once: a space is kept when its document comes
back, so that a stream of documents each asked about once evicts nothing (and keeps
nothing alive)."""
_spaces_lock = threading.Lock()
_key_encoder = json.JSONEncoder(check_circular=False, separators=(",", ":"))

documents_are_json: ContextVar[bool] = ContextVar("trample_documents_are_json",
                                                  default=False)
"""Set by a caller whose documents were just decoded from JSON text (``serve``), so hold
nothing but JSON's own types: a space found under their orjson text is theirs without
the check that any other document's text gets (:func:`space_of`)."""


_orjson: list[Any] = []
"""orjson once looked for (the module, or None when it is not installed): imported on the
first key written, so that importing the API stays light."""


def _orjson_module() -> Any:
    if not _orjson:
        try:
            _orjson.append(importlib.import_module("orjson"))
        except ImportError:  # pragma: no cover - the standard library does its work
            _orjson.append(None)
    return _orjson[0]


def _cache_key(document: object, side: str | None) -> Key | None:
    """The document's JSON text (with the side asked), or None when it is not a small
    document of JSON values.

    Written by orjson (bytes) when it can, else by the standard library (text); a key of
    one never equals a key of the other. Two documents of the same standard-library text
    are read alike: the reader sees JSON values (an integer of a subclass as its value, a
    tuple as a list), and the keys that the text cannot tell from strings (numbers,
    booleans, null) are refused wherever the reader looks, and do not matter where it
    does not. orjson also writes what JSON cannot hold (a NaN as null, an enumeration
    member, a UUID or a date as its value, a dataclass as an object), so a space found
    under an orjson text is taken only for a document of JSON values or one equal to
    what the text decodes to (:func:`space_of`)."""
    if type(document) is not dict or (side is not None and type(side) is not str):
        return None  # a side that is no string is refused below, never a key
    creatures = document.get("creatures")
    if type(creatures) is not list or len(creatures) > SPACE_CACHE_CREATURES:
        return None
    text: str | bytes
    fast = _orjson[0] if _orjson else _orjson_module()
    try:
        text = fast.dumps(document) if fast is not None else _key_encoder.encode(document)
    except (TypeError, ValueError, RecursionError):
        try:  # a number past 64 bits, a key that is no string: as the standard library
            text = _key_encoder.encode(document)
        except (TypeError, ValueError, RecursionError):  # not JSON values: read each time
            return None
    return (text, side) if len(text) <= SPACE_CACHE_CHARACTERS else None


def _found(key: Key, document: object) -> LegalSpace | None:
    """The space kept under ``key`` for ``document``, if any (the most recently asked)."""
    entry = _spaces.get(key)
    if entry is None:
        return None
    space, values, _ = entry
    if type(key[0]) is bytes and not documents_are_json.get():
        # orjson's text: the document must be the JSON values the text decodes to (not a
        # NaN where the text says null, nor a UUID where it says a string).
        if values is None:
            values = _orjson_module().loads(key[0])
        try:
            same = document == values
        except Exception:  # an odd value's own comparison: read it anew
            same = False
        if not same:
            return None
    with _spaces_lock:  # the most recently asked last: evicted last
        if key in _spaces:
            _spaces.move_to_end(key)
    return space


def space_of(document: Mapping[str, Any], side: str | None = None) -> LegalSpace:
    """Parse the document and derive the legal space for the requested side.

    Request fields the document carries are checked whichever command reads it, so a
    malformed ``objective`` or ``time_limit`` is refused by ``count`` as by ``solve``.
    The spaces of small documents asked about more than once are kept, up to
    :data:`SPACE_CACHE_BYTES` in all, the least recently asked evicted first, keyed by
    their JSON text: a
    request about a combat asked about recently (a search loop's usual question) skips
    the parsing and what the space derived (its scoring, parts, answers).
    """
    global _held
    key = _cache_key(document, side)
    if key is not None:
        found = _found(key, document)
        if found is not None:
            return found
    combat = Combat.from_json(document)
    space = legal_space(combat, parse_side(_field(document, "side", side)))
    if document.get("objective") is not None:
        parse_objective(document["objective"], space.side)
    if document.get("time_limit") is not None:
        parse_time_limit(document["time_limit"])
    if key is not None:
        digest = hash(key)
        with _spaces_lock:
            if digest in _seen:  # its second time: worth keeping
                del _seen[digest]
                values = None
                if type(key[0]) is bytes and not documents_are_json.get():
                    values = _orjson_module().loads(key[0])
                weight = held_bytes(space) + len(key[0])
                if weight <= SPACE_CACHE_BYTES:
                    _spaces[key] = (space, values, weight)
                    _held += weight
                    while _held > SPACE_CACHE_BYTES:  # the least recently asked first
                        _held -= _spaces.popitem(last=False)[1][2]
            else:
                _seen[digest] = None
                if len(_seen) > SEEN_KEYS:
                    _seen.popitem(last=False)
    return space


def kept_bytes() -> int:
    """The memory the spaces kept by :func:`space_of` are counted for, in all (at most
    :data:`SPACE_CACHE_BYTES`)."""
    return _held


def forget_spaces() -> None:
    """Empty the cache of :func:`space_of` (tests; a caller short of memory)."""
    global _held
    with _spaces_lock:
        _spaces.clear()
        _seen.clear()
        _held = 0


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
    if cancel is not None:
        settings = _with_cancel(settings, cancel)
    entered = time.monotonic()
    if started is None:
        started = request_started.get()
    begin = entered if started is None else min(started, entered)
    space = space_of(document, side)
    terms = parse_objective(_field(document, "objective", objective), space.side)
    seconds = parse_time_limit(_field(document, "time_limit", time_limit))
    try:  # _reporting, inline: a context manager costs a tiny solve some 2%
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
    space = space_of(document, side)
    raw = _field(document, "assignment", assignment)
    if raw is None:
        raise InputError("assignment", "no assignment given (pass one, or put it at the "
                         "document's top level)")
    return judged(space, parse_assignment(space.combat, raw))


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
    return {"count": census_of(space_of(document, side)).count()}


def enumerate_assignments(document: Mapping[str, Any], *, side: str | None = None,
                          limit: int | None = None, after: int = 0) -> Iterator[Result]:
    """Every legal assignment once (up to ``limit``), each as ``{"assignment": [...]}``,
    in the same order every time; ``after`` skips that many first.

    The document is checked before the first answer is produced.
    """
    space = space_of(document, side)
    if limit is not None:
        limit = check_int(limit, "limit", minimum=0)
    after = check_int(after, "after", minimum=0)
    census = census_of(space, ordered=True)
    return _stream(space, islice(census.enumerate(), after, None), limit, "enumerate",
                   document, {"side": side, "limit": limit, "after": after})


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
    space = space_of(document, side)
    n = check_int(n, "n", minimum=0)
    seed = seed_of(seed)
    census = census_of(space)
    rng = random.Random(seed)
    draws = (census.sample(rng) for _ in range(n))
    return _stream(space, draws, None, "sample", document,
                   {"side": side, "n": n, "seed": seed})


def _stream(space: LegalSpace, items: Iterator[dict[Pair, int]],
            limit: int | None, what: str, document: object,
            options: dict[str, Any]) -> Iterator[Result]:
    for i, amounts in enumerate(items):
        if limit is not None and i >= limit:
            return
        with _reporting(what, document, **options):
            check_answer(space, amounts, what)
        yield {"assignment": to_entries(space, amounts)}


def pair_order(document: Mapping[str, Any], *, side: str | None = None) -> list[Pair]:
    """The columns :func:`validate_many` expects: every legal (source, recipient) pair."""
    from trample.solver.rules.validate_many import pair_columns

    return pair_columns(space_of(document, side))


def validate_many(document: Mapping[str, Any], amounts: Any, *,
                  side: str | None = None) -> Any:
    """A NumPy legality mask over candidate splits, one row each, one column per pair of
    :func:`pair_order` (for agents that score thousands of candidates at once)."""
    from trample.solver.rules.validate_many import legal_rows

    return legal_rows(space_of(document, side), amounts)


def plan(document: Mapping[str, Any], objective: list[str] | str | None = None,
         time_limit: float | None = None, cancel: Cancel | None = None) -> Result:
    """Both combat damage steps at once: the attackers' first-strike split that
    guarantees the best value of the objective over the whole combat, the defenders
    replying worst for it in each step, with one principal line of play. The time limit
    or ``cancel`` (set from another thread) stops the search: ``feasible`` with the best
    split whose value is proved (:func:`trample.solver.actions.plan.plan`)."""
    from trample.solver.actions.plan import parse_plan_objective, plan_combat, regular_document

    started = request_started.get() or time.monotonic()
    combat = Combat.from_json(document)
    terms = parse_plan_objective(_field(document, "objective", objective))
    seconds = parse_time_limit(_field(document, "time_limit", time_limit))
    with _reporting("plan", document, objective=objective, time_limit=time_limit):
        found = plan_combat(combat, terms, deadline=started + seconds, cancel=cancel)
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
        """The :class:`~trample.solver.actions.splits.Actions` of the space (built once)."""
        if self._actions is None:
            from trample.solver.actions.union import actions_of

            self._actions = actions_of(self.space)
        return self._actions

    @property
    def census(self) -> Census | UnionActions:
        """The space's exact counting structure (built once)."""
        census: Census | UnionActions = self.actions.census
        return census

    def solve(self, *, objective: list[str] | str | None = None,
              time_limit: float | None = None) -> SolveResult:
        """As :func:`solve`."""
        space, document = self.space, self.document
        terms = parse_objective(_field(document, "objective", objective), space.side)
        seconds = parse_time_limit(_field(document, "time_limit", time_limit))
        try:  # _reporting, inline (as in solve): the handle is the fast path
            single = solve_single(space, terms)
            if single is not None:
                return _single_result(space, single)
            found = optimize(space, terms, seconds)
        except InternalError as exc:
            note = bug_report_note("solve", {"params": {
                "combat": document, "side": self._side, "objective": objective,
                "time_limit": time_limit}}, exc)
            raise InternalError(f"{exc}; {note}") from exc
        return _solve_result(space, found)

    def validate(self, assignment: object = None) -> ValidateResult:
        """As :func:`validate`."""
        raw = _field(self.document, "assignment", assignment)
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
        raw = _field(self.document, "assignment", assignment)
        if raw is None:
            raise InputError("assignment", "no assignment given (pass one, or put it at "
                             "the document's top level)")
        amounts = parse_assignment(self.space.combat, raw)
        first = next(each_violation(self.space, amounts), None)
        if first is not None:
            raise InputError("assignment", f"is not legal, so it has no index: "
                             f"{first.message} ({first.rule})")
        with _reporting("rank", self.document, side=self._side, assignment=raw):
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
        with _reporting("unrank", self.document, side=self._side, index=i):
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
        seconds = parse_time_limit(_field(self.document, "time_limit", time_limit))
        found = self.actions.projection(values, deadline=started + seconds, cancel=cancel)
        with _reporting("project", self.document, side=self._side, amounts=amounts):
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
