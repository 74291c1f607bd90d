"""The JSON-RPC 2.0 protocol of ``trample serve`` (SPEC §6): error codes, the bounds of a
line, a batch, a response and the requests in flight, what makes a request valid, the
strict JSON reader and writer (with :class:`Encoded` pages spliced in), and the context a
request is answered in.

Every bound is stated here and in docs/limits.md: a line of at most
:data:`MAX_LINE_BYTES`, a batch of at most :data:`MAX_BATCH` requests, a response line
that ``enumerate`` and ``sample`` keep within :data:`MAX_RESPONSE_BYTES` (the rest comes
in further pages: ``"next"`` passed back as ``params.after``), at most
:data:`MAX_IN_FLIGHT` requests (or :data:`MAX_IN_FLIGHT_BYTES` of lines) read and not yet
answered; the limits of ``enumerate`` and ``sample`` are beside them, in
:mod:`trample.solver.interface.methods`.
"""

from __future__ import annotations

import importlib
import json
import secrets
from collections.abc import Callable, Mapping
from contextvars import ContextVar
from decimal import Decimal
from typing import Any

from trample.models.document.combat import brief_repr
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

MAX_LINE_BYTES = 16 * 2**20
"""The longest request line read; a longer one is skipped unread and answered -32700."""
TOO_LONG = f"line longer than {MAX_LINE_BYTES:,} bytes: refused unread"
MAX_BATCH = 1_000
"""The most requests in one batch; a longer batch is answered -32600 (id null)."""
MAX_RESPONSE_BYTES = 16 * 2**20
"""``enumerate`` and ``sample`` stop adding assignments before the response line (a
batch's line, all its answers together) would pass this many bytes, and answer
``"complete": false`` with ``"next"``; a page holds at least one assignment."""

MAX_IN_FLIGHT = 65_536
"""The most requests read and not yet answered (a batch counts as one); reading pauses
while this many are in flight. Lines are read ahead of the answers as far as this and
:data:`MAX_IN_FLIGHT_BYTES` allow, so that a ``$/cancelRequest`` takes effect as soon as
it arrives, not once the requests queued ahead of it are answered."""
MAX_IN_FLIGHT_BYTES = 64 * 2**20
"""Reading also pauses while the lines in flight hold this many bytes, each counted for
what it holds (its text as read, never decoded while it waits, and its bookkeeping: see
``serve.held_size``); one line more, of at most :data:`MAX_LINE_BYTES`, may be read
past it."""

REQUEST_MEMBERS = ("jsonrpc", "method", "params", "id")
_REQUEST_MEMBER_SET = frozenset(REQUEST_MEMBERS)
_NO_PARAMS: Mapping[str, Any] = {}

response_budget: ContextVar[int] = ContextVar("trample_serve_budget", default=MAX_RESPONSE_BYTES)
"""Bytes left for the response line being built (a batch shares one line)."""
line_cancels: ContextVar[Mapping[Any, Cancel] | None] = ContextVar("trample_serve_cancels",
                                                                   default=None)
"""The cancellations of the requests of the line being answered, by id."""
request_cancel: ContextVar[Cancel | None] = ContextVar("trample_serve_cancel", default=None)
"""The cancellation of the request being answered."""
session_out_of_order: ContextVar[bool] = ContextVar("trample_serve_out_of_order", default=False)
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


def error_answer(code: int, message: str, request_id: Any = None) -> dict[str, Any]:
    """A JSON-RPC error response."""
    return {"jsonrpc": "2.0", "error": {"code": code, "message": message}, "id": request_id}


def valid_id(request_id: object) -> bool:
    """Whether ``request_id`` may be a request's id: a string, an integer (a float with
    no fraction included) or null."""
    return request_id is None or isinstance(request_id, str) or (
        isinstance(request_id, int) and not isinstance(request_id, bool)) or (
        isinstance(request_id, float) and request_id.is_integer())


def invalid(request: object) -> dict[str, Any] | None:
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
        return error_answer(INVALID_REQUEST, "a request must be a JSON object, not "
                            f"{brief_repr(request)}")
    request_id = request.get("id")
    if not valid_id(request_id):
        return error_answer(INVALID_REQUEST, "id must be a string, an integer or null")
    if request.get("jsonrpc") != "2.0":
        return error_answer(INVALID_REQUEST, 'jsonrpc must be "2.0"', request_id)
    if not isinstance(request.get("method"), str):
        return error_answer(INVALID_REQUEST, "method must be a string", request_id)
    for key in request:
        if key not in REQUEST_MEMBERS:
            return error_answer(INVALID_REQUEST, f"unknown member {brief_repr(key)} (a "
                                "request has jsonrpc, method, params, id)", request_id)
    if "params" in request and not isinstance(request["params"], (dict, list)):
        return error_answer(INVALID_REQUEST, "params must be an object (or an array)", request_id)
    return None


def is_notification(request: object) -> bool:
    """Whether a decoded request is a notification: a valid request without ``id``, owed
    no response (whatever its method and params)."""
    return isinstance(request, dict) and "id" not in request and invalid(request) is None


def plain(answer: dict[str, Any] | None) -> dict[str, Any] | None:
    """An answer with its encoded pages decoded: plain JSON values throughout."""
    if answer is not None:
        result = answer.get("result")
        if isinstance(result, dict) and any(isinstance(v, Encoded) for v in result.values()):
            answer = {**answer, "result": {k: v.value() if isinstance(v, Encoded) else v
                                           for k, v in result.items()}}
    return answer


OUT_OF_MEMORY = "out of memory answering this request; the server goes on"


def echoed_size(request_id: object) -> int:
    """At least the bytes ``request_id`` takes in the answer (a string's escapes at most
    six characters each), without encoding it for every request."""
    if isinstance(request_id, str):
        return 6 * len(request_id) + 2
    if type(request_id) is int:
        return len(str(request_id))  # as json.dumps writes it, without the encoder
    return len(json.dumps(request_id))


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
    Python's 4,300-digit default for int-to-text conversion. ValueError beyond.

    A long integer is spelled by :mod:`decimal`, which has no such limit, rather than by
    raising the process-wide limit for the time of the answer: another thread would see
    the limit raised while it reads input, or put it back while this one writes."""
    try:
        return _dumps(obj)
    except ValueError:
        pass  # an integer past the int-to-text limit (none is, most of the time)
    return _dumps(_spelled(obj))


_SHORT_BITS = 2_000
"""An integer of at most this many bits has at most 603 digits: within any limit Python
allows for int-to-text conversion (640 at least), so written by the encoder itself."""
_MOST_BITS = int(MAX_ANSWER_DIGITS * 3.3219280948873626) + 1
"""An integer of more bits has more than :data:`MAX_ANSWER_DIGITS` digits."""


def _spelled(value: Any) -> Any:
    """``value`` with every integer longer than :data:`_SHORT_BITS` bits in JSON lists
    and objects replaced by its decimal text, as :class:`Encoded`; ValueError for one of
    more than :data:`MAX_ANSWER_DIGITS` digits (refused before it is converted)."""
    kind = type(value)
    if kind is dict:
        return {key: _spelled(item) for key, item in value.items()}
    if kind is list or kind is tuple:
        return [_spelled(item) for item in value]
    if kind is int and value.bit_length() > _SHORT_BITS:
        if value.bit_length() > _MOST_BITS:
            raise ValueError(f"an integer of more than {MAX_ANSWER_DIGITS:,} digits")
        text = str(Decimal(value))  # exact, whatever the int-to-text limit
        if len(text) - (value < 0) > MAX_ANSWER_DIGITS:
            raise ValueError(f"an integer of more than {MAX_ANSWER_DIGITS:,} digits")
        return Encoded(text)
    return value


def encode_answer(answer: dict[str, Any]) -> str:
    """A response as one line: :func:`encode`, or an error for an over-long integer or
    for running out of memory."""
    rid = answer.get("id")
    try:
        return encode(answer)
    except ValueError:
        return encode(error_answer(INVALID_PARAMS, "the answer holds an integer of more "
                                   f"than {MAX_ANSWER_DIGITS:,} digits: refused rather than "
                                   "written out", rid))
    except MemoryError:
        pass
    return encode(error_answer(INTERNAL_ERROR, OUT_OF_MEMORY, rid))


class Decoded:
    """A request line decoded (the value may be a batch, or anything JSON holds), with
    its text (or its bytes, UTF-8) for a bug report."""

    __slots__ = ("line", "request")

    def __init__(self, request: Any, line: str | bytes) -> None:
        self.request = request
        self.line = line


def parse(line: str | bytes) -> Decoded | str:
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
                return json.dumps(error_answer(PARSE_ERROR, f"parse error: not UTF-8 text: {exc}"))
    if request is _NOT_READ:
        try:
            request = decode(line)  # type: ignore[arg-type]
        except (ValueError, RecursionError) as exc:
            return json.dumps(error_answer(PARSE_ERROR, f"parse error: {exc}"))
        except MemoryError:
            request = MemoryError  # answered below, once the partial value is gone
    if request is MemoryError:
        return encode(error_answer(INTERNAL_ERROR, "out of memory reading this line; the "
                                   "server goes on"))
    return Decoded(request, line)


_NOT_READ = object()
