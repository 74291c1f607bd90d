"""``trample serve``: the JSON-RPC 2.0 engine of SPEC §6, one request per line.

A bad line never ends the server (not even one whose answer runs out of memory); end of
input (or a closed output pipe) ends it with status 0. Methods are the commands of the
command line; ``params`` carries ``combat`` and the options.

Every bound is stated here and in the README's limits table: a line of at most
:data:`MAX_LINE_BYTES`, a batch of at most :data:`MAX_BATCH` requests, a response line
that ``enumerate`` and ``sample`` keep within :data:`MAX_RESPONSE_BYTES` (the rest comes
in further pages: ``"next"`` passed back as ``params.after``), at most
:data:`MAX_IN_FLIGHT` requests (or :data:`MAX_IN_FLIGHT_BYTES` of lines) read and not yet
answered.

Lines are read ahead of the answers, so that ``$/cancelRequest`` reaches a request in
flight; they are answered one after another, in order, unless the client opts in to answers
out of order (``initialize``, or ``--out-of-order``): then a pool of worker threads answers
each as soon as it is done (CP-SAT searches outside the interpreter lock).
"""

from __future__ import annotations

import importlib
import io
import json
import os
import queue
import secrets
import select
import sys
import threading
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import suppress
from contextvars import ContextVar
from itertools import islice
from typing import IO, Any

from trample.models.document.combat import brief_repr, check_int, field_name
from trample.models.document.errors import InputError, InternalError, TrampleError
from trample.solver.count.counting import CountOutOfReach
from trample.solver.interface import api
from trample.solver.optimize.cancel import Cancel


def _optional(name: str) -> Any:
    """The module ``name``, or None when it is not installed."""
    try:
        return importlib.import_module(name)
    except ImportError:  # pragma: no cover - the standard library does its work
        return None


_orjson: Any = _optional("orjson")
"""A faster reader of request lines (a dependency, yet optional here: see :func:`decode`)."""

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603
REQUEST_CANCELLED = -32800
"""The Language Server Protocol's code for a request answered after ``$/cancelRequest``."""

MAX_ANSWER_DIGITS = 100_000
"""An integer in an answer (an exact ``count``) is written out with at most this many
digits: past Python's default of 4,300, and short of a conversion that takes seconds."""

SERVE_ENUMERATE_LIMIT = 10_000
"""``enumerate`` answers at most this many assignments unless ``limit`` says otherwise."""
MAX_ENUMERATE = 100_000
MAX_ENUMERATE_AFTER = 1_000_000
"""The furthest ``enumerate`` resumes (``params.after``): skipping is walking, so the
work of one request stays bounded."""
MAX_LINE_BYTES = 16 * 2**20
"""The longest request line read; a longer one is skipped unread and answered -32700."""
TOO_LONG = f"line longer than {MAX_LINE_BYTES:,} bytes: refused unread"
MAX_SAMPLES = 100_000
MAX_BATCH = 1_000
"""The most requests in one batch; a longer batch is answered -32600 (id null)."""
MAX_RESPONSE_BYTES = 16 * 2**20
"""``enumerate`` and ``sample`` stop adding assignments before the response line (a
batch's line, all its answers together) would pass this many bytes, and answer
``"complete": false`` with ``"next"``; a page holds at least one assignment."""

MAX_IN_FLIGHT = 256
"""The most requests read and not yet answered (a batch counts as one); reading pauses
while this many are in flight."""
MAX_IN_FLIGHT_BYTES = 64 * 2**20
"""Reading also pauses while the lines in flight hold this many bytes (one line more, of
at most :data:`MAX_LINE_BYTES`, may be read past it)."""

REQUEST_MEMBERS = ("jsonrpc", "method", "params", "id")
_REQUEST_MEMBER_SET = frozenset(REQUEST_MEMBERS)
_NO_PARAMS: Mapping[str, Any] = {}

_budget: ContextVar[int] = ContextVar("trample_serve_budget", default=MAX_RESPONSE_BYTES)
"""Bytes left for the response line being built (a batch shares one line)."""
_line_cancels: ContextVar[Mapping[Any, Cancel] | None] = ContextVar("trample_serve_cancels",
                                                                   default=None)
"""The cancellations of the requests of the line being answered, by id."""
_cancel: ContextVar[Cancel | None] = ContextVar("trample_serve_cancel", default=None)
"""The cancellation of the request being answered."""
_out_of_order: ContextVar[bool] = ContextVar("trample_serve_out_of_order", default=False)
"""Whether the session answers out of order (after the line being answered was read)."""


class Cancelled(Exception):
    """The request being answered was cancelled (answered -32800)."""


class Encoded:
    """JSON text already encoded (a page of assignments), spliced as it is into the
    response line by :func:`encode`: a page is encoded one assignment at a time as it is
    found, so that its memory is its bytes, not Python objects for every entry."""

    __slots__ = ("text",)

    def __init__(self, text: str) -> None:
        self.text = text

    def value(self) -> Any:
        """The decoded value (for Python callers of :func:`handle`)."""
        return json.loads(self.text)


def _params(params: Mapping[str, Any], allowed: set[str] | frozenset[str]) -> None:
    if "combat" in params and params.keys() <= allowed:
        return  # the usual case, by two lookups in C
    for key in params:
        if key not in allowed:
            raise InputError(f"params.{field_name(key)}", "unknown parameter (accepted: "
                             + ", ".join(sorted(allowed)) + ")")
    if "combat" not in params:
        raise InputError("params.combat", "required parameter is missing")


_SOLVE_PARAMS = frozenset({"combat", "side", "objective", "time_limit"})


def _solve(p: Mapping[str, Any]) -> Any:
    _params(p, _SOLVE_PARAMS)
    return api.solve(p["combat"], side=p.get("side"), objective=p.get("objective"),
                     time_limit=p.get("time_limit"), cancel=_cancel.get())


def _validate(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "side", "assignment"})
    return api.validate(p["combat"], p.get("assignment"), side=p.get("side"))


def _count(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "side", "fixed"})
    if p.get("fixed") is not None:
        return api.count_fixed(p["combat"], p["fixed"], side=p.get("side"))
    return api.count(p["combat"], side=p.get("side"))


def _pair_order(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "side"})
    return api.pairs(p["combat"], side=p.get("side"))


def _rank(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "side", "assignment"})
    return api.rank(p["combat"], p.get("assignment"), side=p.get("side"))


def _unrank(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "side", "index"})
    if "index" not in p:
        raise InputError("params.index", "required parameter is missing")
    return api.unrank(p["combat"], p["index"], side=p.get("side"))


def _options(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "side", "fixed", "pair"})
    return api.options(p["combat"], p.get("fixed"), p.get("pair"), side=p.get("side"))


def _project(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "side", "amounts"})
    if "amounts" not in p:
        raise InputError("params.amounts", "required parameter is missing")
    return api.project(p["combat"], p["amounts"], side=p.get("side"))


def _page(stream: Iterator[dict[str, Any]], cap: int, after: int) -> dict[str, Any]:
    """At most ``cap`` assignments of ``stream`` (one more is asked for, to know whether
    there are more), fewer when the response line would pass its byte budget; ``after``
    counts the assignments earlier pages gave."""
    room = _budget.get() - 200  # the envelope around the page: id, complete, next
    pieces: list[str] = []
    used = 2
    complete = True
    cancel = _cancel.get()
    for item in stream:
        if cancel is not None and cancel.is_set():
            raise Cancelled
        if len(pieces) == cap:
            complete = False
            break
        piece = json.dumps(item["assignment"])
        if pieces and used + len(piece) + 2 > room:
            complete = False
            break
        pieces.append(piece)
        used += len(piece) + 2
    given = len(pieces)
    page = Encoded("[" + ", ".join(pieces) + "]")
    del pieces
    result: dict[str, Any] = {"assignments": page, "complete": complete}
    if not complete:
        result["next"] = after + given
    return result


def _after(p: Mapping[str, Any], most: int) -> int:
    raw = p.get("after")
    after = 0 if raw is None else check_int(raw, "params.after", minimum=0)
    if after > most:
        raise InputError("params.after", f"at most {most:,}")
    return after


def _enumerate(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "side", "limit", "after"})
    raw = p.get("limit")
    cap = SERVE_ENUMERATE_LIMIT if raw is None else check_int(raw, "params.limit", minimum=0)
    if cap > MAX_ENUMERATE:
        raise InputError("params.limit", f"at most {MAX_ENUMERATE} assignments per request")
    after = _after(p, MAX_ENUMERATE_AFTER)
    stream = api.enumerate_assignments(p["combat"], side=p.get("side"), limit=cap + 1,
                                       after=after)
    return _page(stream, cap, after)


def _sample(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "side", "n", "seed", "after"})
    n = p.get("n", 1)
    if isinstance(n, int) and not isinstance(n, bool) and n > MAX_SAMPLES:
        raise InputError("params.n", f"at most {MAX_SAMPLES} samples per request")
    draws = api.sample(p["combat"], side=p.get("side"), n=n, seed=p.get("seed"))
    after = _after(p, n if isinstance(n, int) else 0)
    # Draw i depends on the draws before it (one random stream): earlier pages are drawn
    # again and skipped, at most n draws in all.
    return _page(islice(draws, after, None), n - after, after)


def _apply(p: Mapping[str, Any]) -> Any:
    from trample.solver.interface.game_loop import apply_request

    for key in p:
        if key not in ("state", "action", "objective", "blockers_objective", "time_limit"):
            raise InputError(f"params.{field_name(key)}", "unknown parameter (accepted: action, "
                             "blockers_objective, objective, state, time_limit)")
    return apply_request(p)


def _plan(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "objective", "time_limit"})
    return api.plan(p["combat"], objective=p.get("objective"), time_limit=p.get("time_limit"))


def _next_step(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "attackers", "blockers"})
    try:
        return api.next_step(p["combat"], p.get("attackers", []), p.get("blockers", []))
    except InputError as exc:
        if exc.path.startswith(("attackers", "blockers")):  # params, not the combat
            raise InputError(f"params.{exc.path}", exc.reason) from None
        raise


def _only(p: Mapping[str, Any], allowed: tuple[str, ...]) -> None:
    for key in p:
        if key not in allowed:
            raise InputError(f"params.{field_name(key)}", "unknown parameter (accepted: "
                             + ", ".join(allowed) + ")")


def asks_out_of_order(p: Mapping[str, Any]) -> bool:
    """Whether ``initialize`` params ask for answers out of order; InputError when they
    are malformed."""
    _only(p, ("capabilities",))
    capabilities = p.get("capabilities", {})
    if not isinstance(capabilities, dict):
        raise InputError("params.capabilities", "must be an object, not "
                         f"{brief_repr(capabilities)}")
    asked = capabilities.get("out_of_order", False)
    if not isinstance(asked, bool):
        raise InputError("params.capabilities.out_of_order",
                         f"must be true or false, not {brief_repr(asked)}")
    return asked  # other capabilities are ignored, as the Language Server Protocol does


def _initialize(p: Mapping[str, Any]) -> Any:
    import trample

    asked = asks_out_of_order(p)
    return {"capabilities": {"out_of_order": asked or _out_of_order.get(), "cancel": True},
            "version": str(getattr(trample, "__version__", "0+unknown"))}


def cancelled_id(p: Mapping[str, Any]) -> Any:
    """The id ``$/cancelRequest`` params name; InputError when they are malformed."""
    _only(p, ("id",))
    if "id" not in p:
        raise InputError("params.id", "required parameter is missing")
    if p["id"] is None or not _valid_id(p["id"]):
        raise InputError("params.id", "must be a string or an integer")
    return p["id"]


def _cancel_request(p: Mapping[str, Any]) -> Any:
    cancelled_id(p)  # serve's reader cancels the request as it reads this line
    return None


_PAGED = frozenset({"enumerate", "sample"})
"""The methods that answer a page (:func:`_page`), within the response's byte budget."""

METHODS: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "solve": _solve, "validate": _validate, "count": _count, "enumerate": _enumerate,
    "sample": _sample, "apply": _apply, "plan": _plan, "next_step": _next_step,
    "pair_order": _pair_order, "rank": _rank, "unrank": _unrank, "options": _options,
    "project": _project, "initialize": _initialize, "$/cancelRequest": _cancel_request,
}


def _error(code: int, message: str, request_id: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "error": {"code": code, "message": message}, "id": request_id}


def _qualify(error: InputError) -> str:
    """Field paths inside the combat document are reported under ``params.combat``."""
    path = error.path
    if path and not path.startswith("params."):
        if path in ("limit", "n", "seed", "side", "objective", "time_limit", "assignment",
                    "state", "action", "blockers_objective", "after", "index", "fixed",
                    "pair", "amounts") \
                or path.startswith(("objective[", "assignment[", "assignment.", "state.",
                                    "action.", "blockers_objective[", "fixed[", "pair[",
                                    "amounts[")):
            path = f"params.{path}"
        else:
            path = f"params.combat.{path}" if path != "document" else "params.combat"
    return f"{path}: {error.reason}" if path else error.reason


def _valid_id(request_id: object) -> bool:
    return request_id is None or isinstance(request_id, str) or (
        isinstance(request_id, int) and not isinstance(request_id, bool)) or (
        isinstance(request_id, float) and request_id.is_integer())


def _invalid(request: object) -> dict[str, Any] | None:
    """The -32600 answer owed to anything that is not a valid request object (JSON-RPC
    2.0 §4, §5.1): with the request's id when it has a valid one, else id null. None for
    a valid request (a notification included)."""
    if type(request) is dict and request.get("jsonrpc") == "2.0" \
            and request.keys() <= _REQUEST_MEMBER_SET:  # the usual request, checked at once
        request_id = request.get("id")
        kind = type(request_id)
        if (kind is int or kind is str or request_id is None) \
                and type(request.get("method")) is str \
                and type(request.get("params", _NO_PARAMS)) is dict:
            return None
    if not isinstance(request, dict):
        return _error(INVALID_REQUEST, "a request must be a JSON object, not "
                      f"{brief_repr(request)}")
    request_id = request.get("id")
    if not _valid_id(request_id):
        return _error(INVALID_REQUEST, "id must be a string, an integer or null")
    if request.get("jsonrpc") != "2.0":
        return _error(INVALID_REQUEST, 'jsonrpc must be "2.0"', request_id)
    if not isinstance(request.get("method"), str):
        return _error(INVALID_REQUEST, "method must be a string", request_id)
    for key in request:
        if key not in REQUEST_MEMBERS:
            return _error(INVALID_REQUEST, f"unknown member {brief_repr(key)} (a request "
                          "has jsonrpc, method, params, id)", request_id)
    if "params" in request and not isinstance(request["params"], (dict, list)):
        return _error(INVALID_REQUEST, "params must be an object (or an array)", request_id)
    return None


def is_notification(request: object) -> bool:
    """Whether a decoded request is a notification: a valid request without ``id``, owed
    no response (whatever its method and params)."""
    return isinstance(request, dict) and "id" not in request and _invalid(request) is None


def plain(answer: dict[str, Any] | None) -> dict[str, Any] | None:
    """An answer with its encoded pages decoded: plain JSON values throughout."""
    if answer is not None:
        result = answer.get("result")
        if isinstance(result, dict) and isinstance(result.get("assignments"), Encoded):
            answer = {**answer, "result": {**result,
                                           "assignments": result["assignments"].value()}}
    return answer


def handle(request: object, *, budget: int | None = None) -> dict[str, Any] | None:
    """The response to one decoded request (None for a notification), as plain JSON
    values; pages keep their response within ``budget`` bytes (default
    :data:`MAX_RESPONSE_BYTES`)."""
    return plain(handle_encoded(request, budget=budget))


def handle_encoded(request: object, *, budget: int | None = None) -> dict[str, Any] | None:
    """:func:`handle`, with a page of assignments left as :class:`Encoded` text for
    :func:`encode` to splice."""
    refusal = _invalid(request)
    if refusal is not None or not isinstance(request, dict):
        return refusal
    request_id = request.get("id")
    notification = "id" not in request
    method = request["method"]
    params = request.get("params", {})
    if method not in METHODS:
        return None if notification else _error(
            METHOD_NOT_FOUND, f"unknown method {brief_repr(method)} (methods: "
            f"{', '.join(METHODS)})",
            request_id)
    if not isinstance(params, dict):
        return None if notification else _error(
            INVALID_PARAMS, "params must be an object with named parameters (combat, ...), "
            "not an array", request_id)
    cancel = None if notification else _cancel_of(request_id)
    if cancel is not None and cancel.is_set() and method != "solve":
        return _error(REQUEST_CANCELLED, "request cancelled", request_id)
    out_of_memory = False
    token = None
    if method in _PAGED:  # the only readers of the budget
        room = MAX_RESPONSE_BYTES if budget is None else budget
        token = _budget.set(room - _echoed_size(request_id))  # the id is echoed
    # Set only when it changes (a tiny request pays for each context variable set).
    running = None if cancel is None and _cancel.get() is None else _cancel.set(cancel)
    try:
        result = METHODS[method](params)
        if cancel is not None and cancel.is_set() and method != "solve":
            raise Cancelled
    except Cancelled:
        response = _error(REQUEST_CANCELLED, "request cancelled", request_id)
    except CountOutOfReach as exc:
        response = _error(INVALID_PARAMS, str(exc), request_id)
    except InputError as exc:
        response = _error(INVALID_PARAMS, _qualify(exc), request_id)
    except InternalError as exc:
        response = _error(INTERNAL_ERROR, str(exc), request_id)
    except TrampleError as exc:
        response = _error(INVALID_PARAMS, str(exc), request_id)
    except MemoryError:
        out_of_memory = True  # answered below, once the frames holding the memory are gone
    except Exception as exc:  # a bug: answer it rather than end the server (SPEC §6)
        response = _error(INTERNAL_ERROR, _bug(exc, request), request_id)
    else:
        response = {"jsonrpc": "2.0", "result": result, "id": request_id}
    finally:
        if running is not None:
            _cancel.reset(running)
        if token is not None:
            _budget.reset(token)
    if out_of_memory:
        response = _error(INTERNAL_ERROR, OUT_OF_MEMORY, request_id)
    return None if notification else response


def _cancel_of(request_id: Any) -> Cancel | None:
    cancels = _line_cancels.get()
    try:
        return None if cancels is None else cancels.get(request_id)
    except TypeError:  # an id that is not hashable (refused before)
        return None


OUT_OF_MEMORY = "out of memory answering this request; the server goes on"


def _echoed_size(request_id: object) -> int:
    """At least the bytes ``request_id`` takes in the answer (a string's escapes at most
    six characters each), without encoding it for every request."""
    if isinstance(request_id, str):
        return 6 * len(request_id) + 2
    if type(request_id) is int:
        return len(str(request_id))  # as json.dumps writes it, without the encoder
    return len(json.dumps(request_id))


def _bug(exc: BaseException, request: object) -> str:
    """The message of an unexpected exception, after saving the request for a report."""
    what = f"{type(exc).__name__}: {exc}"[:500]
    saved = api.report_bug("serve", request, exc)
    return f"internal error: {what}; {saved}"


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


_DIGITS_AS_NINES = bytes.maketrans(b"0123456789", b"9" * 10)
_LONG_NUMBER = b"9" * 19
"""19 digits in a row: a number that may not fit 64 bits, which orjson would read as a
float (the standard library reads it as the integer it is, for the reader to judge).
Found by mapping every digit to 9 and looking for 19 nines: a tenth of a regular
expression's time."""


def decode(line: str) -> Any:
    """Strict JSON: NaN and Infinity are refused.

    With orjson installed, a line it reads is read by it (a request in under half the
    standard library's time); a line it refuses, or that holds a long run of digits, is
    read by the standard library, so that what is accepted and every message are the
    standard library's (orjson refuses more, never less: a number past the double range,
    a lone surrogate escape)."""
    if _orjson is not None:
        raw = line.encode("utf-8", "surrogatepass")
        if _LONG_NUMBER not in raw.translate(_DIGITS_AS_NINES):
            try:
                return _orjson.loads(raw)
            except _orjson.JSONDecodeError:
                pass  # read again below, for the standard library's verdict and message
    return json.loads(line, parse_constant=_reject_constant)


def _not_json(value: object) -> Any:
    raise TypeError(f"Object of type {type(value).__name__} is not JSON serializable")


_c_encoder: Any = getattr(json.encoder, "c_make_encoder", None)
_encoder: Callable[[Any, int], list[str]] | None = None if _c_encoder is None else _c_encoder(
    None, _not_json, json.encoder.encode_basestring_ascii, None, ": ", ", ", False, False,
    True)
"""json.dumps's own C encoder, made once rather than for every answer (a tenth of a tiny
request), without its check for circular values (an answer is built fresh, a tree)."""


def _dumps(obj: Any) -> str:
    """json.dumps, with :class:`Encoded` text spliced in where it stands."""
    try:  # most answers hold no page: no nonce, no splicing
        return "".join(_encoder(obj, 0)) if _encoder is not None else json.dumps(obj)
    except TypeError:
        pass
    spliced: dict[str, str] = {}
    nonce = secrets.token_hex(8)

    def mark(value: object) -> str:
        if not isinstance(value, Encoded):
            raise TypeError(f"{type(value).__name__} is not JSON serializable")
        key = f"\x00{nonce}:{len(spliced)}"
        spliced[json.dumps(key)] = value.text
        return key

    text = json.dumps(obj, default=mark)
    for key, value in spliced.items():
        text = text.replace(key, value, 1)
    return text


def encode(obj: Any) -> str:
    """One JSON line; integers (counts) in full up to :data:`MAX_ANSWER_DIGITS` digits, past
    Python's 4,300-digit default for int-to-text conversion. ValueError beyond."""
    try:
        return _dumps(obj)
    except ValueError:
        limit = sys.get_int_max_str_digits()
        if limit == 0 or limit >= MAX_ANSWER_DIGITS:
            raise
    sys.set_int_max_str_digits(MAX_ANSWER_DIGITS)  # for this answer only (never for input)
    try:
        return _dumps(obj)
    finally:
        sys.set_int_max_str_digits(limit)


def encode_answer(answer: dict[str, Any]) -> str:
    """A response as one line: :func:`encode`, or an error for an over-long integer or
    for running out of memory."""
    rid = answer.get("id")
    try:
        return encode(answer)
    except ValueError:
        return encode(_error(INVALID_PARAMS, "the answer holds an integer of more than "
                             f"{MAX_ANSWER_DIGITS:,} digits: refused rather than written out",
                             rid))
    except MemoryError:
        pass
    return encode(_error(INTERNAL_ERROR, OUT_OF_MEMORY, rid))


def _batch(requests: list[Any]) -> str | None:
    if not requests:
        return encode(_error(INVALID_REQUEST, "an empty batch is not a request"))
    if len(requests) > MAX_BATCH:
        return encode(_error(INVALID_REQUEST, f"a batch of {len(requests):,} requests: at "
                             f"most {MAX_BATCH:,} in one batch"))
    answers: list[str] = []
    left = MAX_RESPONSE_BYTES
    for request in requests:
        answer = handle_encoded(request, budget=left)
        if answer is not None:
            answers.append(encode_answer(answer))
            left -= len(answers[-1]) + 2
    return f"[{', '.join(answers)}]" if answers else None


class _Decoded:
    """A request line decoded (the value may be a batch, or anything JSON holds), with
    its text (or its bytes, UTF-8) for a bug report."""

    __slots__ = ("line", "request")

    def __init__(self, request: Any, line: str | bytes) -> None:
        self.request = request
        self.line = line


def _parse(line: str | bytes) -> _Decoded | str:
    """The line decoded, or the answer line owed to a line that is not strict JSON."""
    request: Any = _NOT_READ
    if isinstance(line, bytes):
        if _orjson is not None and _LONG_NUMBER not in line.translate(_DIGITS_AS_NINES):
            # orjson reads the bytes as they came (what :func:`decode` would give it): it
            # refuses what is not UTF-8 as strictly as the codec does, and a line it
            # refuses is read again below, for the codec's or json's message.
            try:
                request = _orjson.loads(line)
            except _orjson.JSONDecodeError:
                pass
            except MemoryError:
                request = MemoryError
        if request is _NOT_READ:
            try:
                line = line.decode("utf-8")
            except UnicodeDecodeError as exc:
                return json.dumps(_error(PARSE_ERROR, f"parse error: not UTF-8 text: {exc}"))
    if request is _NOT_READ:
        try:
            request = decode(line)  # type: ignore[arg-type]
        except (ValueError, RecursionError) as exc:
            return json.dumps(_error(PARSE_ERROR, f"parse error: {exc}"))
        except MemoryError:
            request = MemoryError  # answered below, once the partial value is gone
    if request is MemoryError:
        return encode(_error(INTERNAL_ERROR, "out of memory reading this line; the server "
                             "goes on"))
    return _Decoded(request, line)


_NOT_READ = object()


def _answer_decoded(request: Any) -> str | None:
    decoded = api.documents_are_json.set(True)  # a line's request holds JSON values only
    try:
        if isinstance(request, list):
            return _batch(request)
        answer = handle_encoded(request)
        return None if answer is None else encode_answer(answer)
    finally:
        api.documents_are_json.reset(decoded)


def respond(line: str | bytes) -> str | None:
    """The response line to one input line (None when nothing is owed)."""
    parsed = _parse(line)
    return parsed if isinstance(parsed, str) else _answer_decoded(parsed.request)


def _respond_safely(line: str | bytes | _Decoded) -> str | None:
    """:func:`respond` (to a line, or to a line already decoded), and -32603 (id null)
    whatever goes wrong: memory running out while a batch's line is joined, or a bug
    (saved for a report)."""
    failure: Exception | None = None
    try:
        if isinstance(line, _Decoded):
            return _answer_decoded(line.request)
        return respond(line)
    except MemoryError:
        pass
    except Exception as exc:  # a bug: answer it rather than end the server
        failure = exc
    if failure is None:
        return encode(_error(INTERNAL_ERROR, OUT_OF_MEMORY))
    what = _line_text(line.line if isinstance(line, _Decoded) else line)
    return encode(_error(INTERNAL_ERROR, _bug(failure, what)))


def _line_text(line: str | bytes) -> str:
    return line.decode("utf-8", "replace") if isinstance(line, bytes) else line


def _write(sink: IO[str], answer: str, flush: bool = True) -> None:
    try:
        if len(answer) <= 4096:
            sink.write(answer + "\n")  # one call; a long answer is not copied for it
            if flush:
                sink.flush()
            return
        sink.write(answer)
    except MemoryError:  # encoding the line for the pipe: nothing of it was written
        answer = encode(_error(INTERNAL_ERROR, OUT_OF_MEMORY + " (writing the answer)"))
        sink.write(answer)
    sink.write("\n")
    if flush:
        sink.flush()


READ_CHUNK = 2**20
"""A line is read in pieces of at most this many bytes, so that running out of memory
while reading it leaves the input at a known place (the rest of that line is skipped)."""


def read_line(source: IO[Any] | _Input) -> tuple[Any, str | None]:
    """The next line and None; ``("", None)`` at the end of input; or ``(None, why)`` for a
    line refused (longer than :data:`MAX_LINE_BYTES`, or memory ran out reading it), the
    rest of which is skipped unread."""
    pieces: list[Any] = []
    size = 0
    why: str | None = None
    chunk = READ_CHUNK
    failures = 0
    while True:
        try:
            piece = source.readline(chunk)
        except MemoryError:
            pieces = []
            why = why or "out of memory reading this line; the server goes on"
            chunk, failures = 4096, failures + 1
            if failures > 100:
                raise
            continue
        failures = 0
        if not piece:
            break
        ends = piece[-1:] in (b"\n", "\n")
        size += len(piece) - ends
        if why is None and size > MAX_LINE_BYTES:
            pieces = []
            why = TOO_LONG
        elif why is None:
            pieces.append(piece)
        if ends:
            break
    if why is not None:
        return None, why
    if len(pieces) < 2:
        return (pieces[0] if pieces else ""), None
    try:
        return pieces[0][:0].join(pieces), None
    except MemoryError:
        pass
    return None, "out of memory reading this line; the server goes on"


def refusal(why: str) -> str:
    """The answer line to a line :func:`read_line` refused (``why``): -32700 for a line
    too long, -32603 when memory ran out reading it; ``id`` null, since it was not read."""
    code = INTERNAL_ERROR if why.startswith("out of memory") else PARSE_ERROR
    return encode(_error(code, why))


def workers_default() -> int:
    """The worker threads of ``serve`` out of order: the CPUs this process may use."""
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") \
        else os.cpu_count() or 1


KEEP_DECODED = 64 * 2**10
"""A line up to this many bytes is queued decoded (the reader decodes every line, to know
its ids); a longer one is queued as its text and decoded again when answered, so that
the lines in flight hold their bytes, not the larger Python values."""


def _ids_and_signals(line: str | bytes) -> tuple[_Decoded | str, list[Any], list[Any], bool]:
    """What the reader must know of a line before it is queued: the line decoded (or the
    answer owed to one that is not JSON), the ids of its requests, the ids its
    ``$/cancelRequest`` requests cancel, and whether an ``initialize`` asks for answers
    out of order."""
    parsed = _parse(line)
    if isinstance(parsed, str):
        return parsed, [], [], False
    requests = parsed.request if isinstance(parsed.request, list) else [parsed.request]
    ids: list[Any] = []
    cancels: list[Any] = []
    opt_in = False
    for request in requests[:MAX_BATCH]:
        if not isinstance(request, dict) or _invalid(request) is not None:
            continue
        params = request.get("params", {})
        if "id" in request:
            ids.append(request["id"])
        if not isinstance(params, dict):
            continue
        try:
            if request["method"] == "$/cancelRequest":
                cancels.append(cancelled_id(params))
            elif request["method"] == "initialize":
                opt_in = opt_in or asks_out_of_order(params)
        except InputError:
            pass  # answered -32602 in its turn (a notification: silently)
    return parsed, ids, cancels, opt_in


_Work = tuple[str | bytes | _Decoded | None, str | None, dict[Any, Cancel], int, bool]
"""A line queued: the line (or None), the answer already made (or None), its requests'
cancellations, its size in bytes, whether the session was out of order when it was read."""


class _Session:
    """One ``serve`` run: the reader (the calling thread) queues each line as it is read,
    workers answer it. In order, one worker answers the lines one after another; out of
    order, a pool of workers answers each as soon as it is done. Either way the reader
    reads ahead (up to :data:`MAX_IN_FLIGHT` lines) so that ``$/cancelRequest`` reaches a
    request in flight."""

    def __init__(self, sink: IO[str], out_of_order: bool, workers: int,
                 max_in_flight: int) -> None:
        self.sink = sink
        self.out_of_order = out_of_order
        self.workers = max(workers, 1)
        self.max_in_flight = max(max_in_flight, 1)
        # Plain queues and threads, not an executor: a tiny request costs some 100 µs, and
        # an executor's futures would add a tenth to it.
        self.ordered: queue.SimpleQueue[_Work | None] = queue.SimpleQueue()
        self.pool: queue.SimpleQueue[_Work | None] | None = None
        self.threads = [self._start(self.ordered)]
        self.gate = threading.Condition()
        self.in_flight = 0
        self.bytes = 0
        self.peak = 0
        self.waiting = False
        self.write_lock = threading.Lock()
        self.cancels: dict[Any, list[Cancel]] = {}
        self.broken = False

    def _start(self, work: queue.SimpleQueue[_Work | None]) -> threading.Thread:
        thread = threading.Thread(target=self._work, args=(work,), name="trample-serve",
                                  daemon=True)
        thread.start()
        return thread

    def _work(self, work: queue.SimpleQueue[_Work | None]) -> None:
        while (item := work.get()) is not None:
            self._answer(*item)
            del item

    def _queue(self) -> queue.SimpleQueue[_Work | None]:
        if not self.out_of_order:
            return self.ordered
        if self.pool is None:
            self.pool = queue.SimpleQueue()
            self.threads += [self._start(self.pool) for _ in range(self.workers)]
        return self.pool

    def wait_for_room(self) -> None:
        """Pause reading while the cap is reached, until half of it is free again (not
        one line per answer: waking the reader for each would cost more than a tiny
        request)."""
        if self.in_flight < self.max_in_flight and self.bytes < MAX_IN_FLIGHT_BYTES:
            return  # read without the lock: only the reader raises them
        with self.gate:
            self.waiting = True
            while self.in_flight > self.max_in_flight // 2 or \
                    self.bytes > MAX_IN_FLIGHT_BYTES // 2:
                self.gate.wait()
            self.waiting = False

    def submit(self, line: str | bytes | None, answer: str | None = None) -> None:
        """Queue a line (or an answer already made, for a line refused unread)."""
        mine: dict[Any, Cancel] = {}
        size = 0 if line is None else len(line)
        work: str | bytes | _Decoded | None = line
        if line is not None:
            parsed, ids, cancels, opt_in = _ids_and_signals(line)
            if isinstance(parsed, str):
                work, answer = None, parsed
            elif size <= KEEP_DECODED:
                work = parsed
            del parsed
            with self.gate:
                for request_id in cancels:
                    for cancel in self.cancels.get(request_id, ()):
                        cancel.set()
                for request_id in ids:
                    try:
                        mine.setdefault(request_id, Cancel())
                    except TypeError:
                        continue
                for request_id, cancel in mine.items():
                    self.cancels.setdefault(request_id, []).append(cancel)
            if opt_in:
                self.out_of_order = True  # for the lines after this one; never turned off
        del line
        with self.gate:
            self.in_flight += 1
            self.bytes += size
            self.peak = max(self.peak, self.in_flight)
        self._queue().put((work, answer, mine, size, self.out_of_order))

    def _answer(self, line: str | bytes | _Decoded | None, answer: str | None,
                mine: dict[Any, Cancel], size: int, out_of_order: bool) -> None:
        try:
            if line is not None and not self.broken:
                cancels = _line_cancels.set(mine)
                mode = _out_of_order.set(out_of_order)
                try:
                    with api.timed_request():  # a solve's time limit counts from here
                        answer = _respond_safely(line)
                finally:
                    _out_of_order.reset(mode)
                    _line_cancels.reset(cancels)
                del line
            if answer is not None and not self.broken:
                with self.write_lock:
                    try:
                        _write(self.sink, answer)
                    except (BrokenPipeError, ValueError):  # a closed pipe or sink
                        self.broken = True
        finally:
            with self.gate:
                for request_id, cancel in mine.items():
                    left = self.cancels[request_id]
                    left.remove(cancel)
                    if not left:
                        del self.cancels[request_id]
                self.in_flight -= 1
                self.bytes -= size
                if self.waiting and self.in_flight <= self.max_in_flight // 2 and \
                        self.bytes <= MAX_IN_FLIGHT_BYTES // 2:
                    self.gate.notify_all()

    def finish(self, stop: bool = False) -> None:
        """Wait for every answer (or, with ``stop``, cancel what is in flight first)."""
        if stop:
            self.broken = True  # what is still queued is dropped unanswered
            with self.gate:
                for cancels in self.cancels.values():
                    for cancel in cancels:
                        cancel.set()
        self.ordered.put(None)
        if self.pool is not None:
            for _ in range(self.workers):
                self.pool.put(None)
        for thread in self.threads:
            thread.join()


_SESSION_METHODS = ("initialize", "$/cancelRequest")


def _asks_session(request: Any) -> bool:
    """Whether a decoded line holds ``initialize`` or ``$/cancelRequest`` (alone or in a
    batch): the requests that need the session's read-ahead."""
    if type(request) is dict:
        return request.get("method") in _SESSION_METHODS
    return type(request) is list and any(
        type(item) is dict and item.get("method") in _SESSION_METHODS
        for item in request[:MAX_BATCH])


FLUSH_AFTER = 0.02
"""Seconds an answer written on the reading thread may wait in the output buffer (about;
at most twice this) while the lines after it are answered; it goes out sooner when the
reader may wait for input. A thread looks every this many seconds while answers are held:
each look takes the interpreter from the reading thread, so it is not much shorter."""


HOLD_BYTES = 2**16
"""The most bytes of answers :class:`_Output` holds back; past it they go out at once (a
longer answer goes out as it is, not copied)."""


class _Output:
    """The answers written on the reading thread. With ``batched`` (the input is read by
    :class:`_Input`, which says when it may wait) the answers are held and written out
    together, in one write, before the reader may wait, past :data:`HOLD_BYTES`, or
    (by a watching thread) once the oldest is :data:`FLUSH_AFTER` old, so that a slow
    request does not hold them back: a pipelined client's answers go out many to a
    system call (each wakes the client), even to an unbuffered standard output.
    Otherwise each answer is flushed as it is written."""

    __slots__ = ("batched", "lock", "parked", "parts", "since", "sink", "size", "stop",
                 "wake", "watcher")

    def __init__(self, sink: IO[str], batched: bool) -> None:
        self.sink = sink
        self.batched = batched
        self.parts: list[str] = []
        self.size = 0
        self.since = 0.0
        self.lock = threading.Lock()
        self.wake = threading.Event()
        self.stop = threading.Event()
        self.watcher: threading.Thread | None = None
        self.parked = True

    def write(self, answer: str) -> None:
        """Write one answer line (now, or held for :meth:`flush`)."""
        if not self.batched:
            _write(self.sink, answer)
            return
        with self.lock:
            if len(answer) > HOLD_BYTES:
                self._flush()
                _write(self.sink, answer)
                return
            self.parts.append(answer)
            self.size += len(answer) + 1
            if self.size > HOLD_BYTES:
                self._flush()
            elif len(self.parts) == 1:
                self.since = time.monotonic()
                if self.parked:  # the watcher sleeps until answers are held again
                    self.parked = False
                    if self.watcher is None:
                        self.watcher = threading.Thread(target=self._watch, daemon=True,
                                                        name="trample-serve-flush")
                        self.watcher.start()
                    self.wake.set()

    def flush(self) -> None:
        """Write out and flush the answers held, if any."""
        if self.parts:
            with self.lock:
                self._flush()

    def _flush(self) -> None:
        if not self.parts:
            return
        parts, self.parts, self.size = self.parts, [], 0
        parts.append("")  # the last line's newline
        try:
            self.sink.write("\n".join(parts))
        except MemoryError:  # joining or encoding them: nothing was written
            del parts[-1]
            for answer in parts:  # one at a time, as _write writes them
                _write(self.sink, answer, flush=False)
        self.sink.flush()

    def _watch(self) -> None:
        """The watching thread: while answers come, look every :data:`FLUSH_AFTER` for
        held ones that old (not woken for each batch: a pipelined stream would wake it
        hundreds of times a second); park when none are held."""
        while True:
            self.wake.wait()
            with self.lock:
                self.wake.clear()  # under the lock: a write sets it again after this
            while not self.stop.wait(FLUSH_AFTER):
                with self.lock:
                    if not self.parts:
                        self.parked = True
                        break
                    if time.monotonic() - self.since >= FLUSH_AFTER:
                        # A closed pipe or sink: the reading thread meets it at its next
                        # write or flush.
                        with suppress(Exception):
                            self._flush()
            if self.stop.is_set():
                return

    def close(self) -> None:
        """Stop the watching thread (what is held stays held: :meth:`flush` first)."""
        self.stop.set()
        self.wake.set()
        if self.watcher is not None:
            self.watcher.join()


READ_SIZE = 2**13
"""The most bytes :class:`_Input` asks the operating system for at a time: some sixteen
tiny requests, so that each flush carries as many answers; not the pipe's whole
capacity, which would leave the client's writer nothing queued while it catches up."""


class _Input:
    """The lines of a file descriptor, read :data:`READ_SIZE` bytes at a time; before each
    read (which may wait for the client) ``before_wait`` runs: it flushes the answers
    held back, so that no answer waits for input that may never come."""

    __slots__ = ("before_wait", "buffer", "fd", "start")

    def __init__(self, fd: int, before_wait: Callable[[], None]) -> None:
        self.fd = fd
        self.before_wait = before_wait
        self.buffer = b""
        self.start = 0

    def readline(self, limit: int) -> bytes:
        """At most ``limit`` bytes, up to and including the next newline; ``b""`` at the
        end of input (as :meth:`io.BufferedReader.readline`). Running out of memory
        leaves the newline that ends a line unread."""
        buffer, start = self.buffer, self.start
        end = buffer.find(b"\n", start, start + limit)
        if end >= 0:  # the usual case: the line is here
            piece = buffer[start:end + 1]
            self.start = end + 1
            return piece
        pieces = [buffer[start:start + limit]]
        self.start = min(len(buffer), start + limit)
        have = len(pieces[0])
        while have < limit:
            self.before_wait()
            try:
                data = os.read(self.fd, READ_SIZE)
            except BlockingIOError:  # a descriptor left non-blocking: wait as a read would
                select.select([self.fd], [], [])
                continue
            if not data:
                break
            self.buffer, self.start = data, 0
            end = data.find(b"\n", 0, limit - have)
            take = end + 1 if end >= 0 else min(len(data), limit - have)
            pieces.append(data[:take])
            have += take
            if end >= 0:
                line = b"".join(pieces)
                self.start = take
                return line
            self.start = take
        return b"".join(pieces)


def _input_of(source: IO[Any], standard: bool,
              before_wait: Callable[[], None]) -> _Input | None:
    """An :class:`_Input` reading ``source``'s file descriptor: for the process's standard
    input (``standard``: read by nothing before, so its buffer holds nothing) or a raw
    binary file (no buffer of its own); None for any other source."""
    if not isinstance(source, io.FileIO) and not (
            standard and isinstance(source, io.BufferedReader)):
        return None
    try:
        return _Input(source.fileno(), before_wait)
    except (OSError, ValueError):  # no descriptor (closed, or not a real file)
        return None


def _answer_inline(source: IO[Any] | _Input, out: _Output) -> str | bytes | None:
    """Answer lines in order on this thread until one asks for a session; that line
    (not yet answered), or None at the end of input."""
    while True:
        line, why = read_line(source)
        if why is not None:
            out.write(refusal(why))
            continue
        if not line:
            return None
        if line.isspace():  # blank: nothing owed (no copy of a long line)
            continue
        with api.timed_request():  # a solve's time limit counts from the line read
            try:
                parsed: _Decoded | str | None = _parse(line)
            except Exception:  # a bug: answered (and saved) by _respond_safely
                parsed = None
            if parsed is None:
                answer = _respond_safely(line)
            elif isinstance(parsed, str):  # the line is not JSON
                answer = parsed
            elif _asks_session(parsed.request):
                return line  # type: ignore[no-any-return]
            else:
                answer = _respond_safely(parsed)
        del line, parsed
        if answer is not None:
            out.write(answer)


def serve(stdin: IO[str] | IO[bytes] | None = None, stdout: IO[str] | None = None, *,
          out_of_order: bool = False, workers: int | None = None,
          max_in_flight: int = MAX_IN_FLIGHT, stats: dict[str, int] | None = None) -> int:
    """Answer requests line by line until end of input; the exit status.

    Standard input is read as bytes and each line decoded as strict UTF-8, so that a line
    that is not UTF-8 is answered as unparsable whatever the locale's error handler.
    Standard input (or a raw file, :class:`io.FileIO`) is read from its descriptor,
    :data:`READ_SIZE` bytes at a time, and the answers to lines read together are
    written together, in one write, and flushed: before each read (which may wait for
    input), past :data:`HOLD_BYTES`, or once the oldest has waited :data:`FLUSH_AFTER`
    (by a thread that watches them).
    Answers come in the order of the lines unless ``out_of_order`` (or an ``initialize``
    request asking for it): then each comes as soon as it is ready, from ``workers``
    threads (default: the CPUs). ``stats`` (a test hook) receives ``peak_in_flight``.
    """
    given: IO[Any] = getattr(sys.stdin, "buffer", sys.stdin) if stdin is None else stdin
    sink = sys.stdout if stdout is None else stdout
    out = _Output(sink, batched=False)
    fd_input = _input_of(given, stdin is None, out.flush)
    out.batched = fd_input is not None
    source: IO[Any] | _Input = given if fd_input is None else fd_input
    pending: Any = None
    if not out_of_order:
        # Until a client asks for a session (initialize, or a cancel), each line is answered
        # here, on the reading thread: a tiny request then costs no hand-over to a worker
        # (about a third more CPU), and the answers are the same.
        try:
            try:
                pending = _answer_inline(source, out)
            finally:
                try:
                    out.flush()
                finally:
                    out.close()
        except BrokenPipeError:
            return 0
        except KeyboardInterrupt:
            return 0
        if pending is None:
            return 0
    session = _Session(sink, out_of_order, workers_default() if workers is None else workers,
                       max_in_flight)
    stop = False
    try:
        if pending is not None:
            session.submit(pending)
            del pending
        while not session.broken:
            session.wait_for_room()
            line, why = read_line(source)
            if why is not None:
                session.submit(None, refusal(why))
                continue
            if not line:
                break
            if line.isspace():  # blank: nothing owed (no copy of a long line)
                continue
            session.submit(line)
            del line
    except KeyboardInterrupt:
        stop = True
    finally:
        with suppress(KeyboardInterrupt):
            session.finish(stop)
        if stats is not None:
            stats["peak_in_flight"] = session.peak
    return 0
