"""``trample serve``: the JSON-RPC 2.0 engine of SPEC §6, one request per line.

A bad line never ends the server; end of input (or a closed output pipe) ends it with
status 0. Methods are the commands of the command line; ``params`` carries ``combat``
and the options.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Callable, Mapping
from typing import IO, Any

from trample.models.combat import brief_repr, check_int, field_name
from trample.models.errors import InputError, InternalError, TrampleError
from trample.solver import api
from trample.solver.counting import CountOutOfReach

PARSE_ERROR = -32700
INVALID_REQUEST = -32600
METHOD_NOT_FOUND = -32601
INVALID_PARAMS = -32602
INTERNAL_ERROR = -32603

MAX_ANSWER_DIGITS = 100_000
"""An integer in an answer (an exact ``count``) is written out with at most this many
digits: past Python's default of 4,300, and short of a conversion that takes seconds."""

SERVE_ENUMERATE_LIMIT = 10_000
"""``enumerate`` answers at most this many assignments unless ``limit`` says otherwise."""
MAX_ENUMERATE = 100_000
MAX_LINE_BYTES = 16 * 2**20
"""The longest request line read; a longer one is skipped unread and answered -32700."""
MAX_SAMPLES = 100_000


def _params(params: Mapping[str, Any], allowed: set[str]) -> None:
    for key in params:
        if key not in allowed:
            raise InputError(f"params.{field_name(key)}", "unknown parameter (accepted: "
                             + ", ".join(sorted(allowed)) + ")")
    if "combat" not in params:
        raise InputError("params.combat", "required parameter is missing")


def _solve(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "side", "objective", "time_limit"})
    return api.solve(p["combat"], side=p.get("side"), objective=p.get("objective"),
                     time_limit=p.get("time_limit"))


def _validate(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "side", "assignment"})
    return api.validate(p["combat"], p.get("assignment"), side=p.get("side"))


def _count(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "side"})
    return api.count(p["combat"], side=p.get("side"))


def _enumerate(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "side", "limit"})
    raw = p.get("limit")
    cap = SERVE_ENUMERATE_LIMIT if raw is None else check_int(raw, "params.limit", minimum=0)
    if cap > MAX_ENUMERATE:
        raise InputError("params.limit", f"at most {MAX_ENUMERATE} assignments per request")
    stream = api.enumerate_assignments(p["combat"], side=p.get("side"), limit=cap + 1)
    found = [a["assignment"] for a in stream]
    return {"assignments": found[:cap], "complete": len(found) <= cap}


def _sample(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "side", "n", "seed"})
    n = p.get("n", 1)
    if isinstance(n, int) and not isinstance(n, bool) and n > MAX_SAMPLES:
        raise InputError("params.n", f"at most {MAX_SAMPLES} samples per request")
    draws = api.sample(p["combat"], side=p.get("side"), n=n, seed=p.get("seed"))
    return {"assignments": [a["assignment"] for a in draws]}


def _apply(p: Mapping[str, Any]) -> Any:
    from trample.solver.game_loop import apply_request

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


METHODS: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "solve": _solve, "validate": _validate, "count": _count, "enumerate": _enumerate,
    "sample": _sample, "apply": _apply, "plan": _plan, "next_step": _next_step,
}


def _error(code: int, message: str, request_id: Any = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "error": {"code": code, "message": message}, "id": request_id}


def _qualify(error: InputError) -> str:
    """Field paths inside the combat document are reported under ``params.combat``."""
    path = error.path
    if path and not path.startswith("params."):
        if path in ("limit", "n", "seed", "side", "objective", "time_limit", "assignment",
                    "state", "action", "blockers_objective") \
                or path.startswith(("objective[", "assignment[", "assignment.", "state.",
                                    "action.", "blockers_objective[")):
            path = f"params.{path}"
        else:
            path = f"params.combat.{path}" if path != "document" else "params.combat"
    return f"{path}: {error.reason}" if path else error.reason


def handle(request: object) -> dict[str, Any] | None:
    """The response to one decoded request (None for a notification)."""
    if not isinstance(request, dict):
        return _error(INVALID_REQUEST, "a request must be a JSON object")
    request_id = request.get("id")
    notification = "id" not in request
    if isinstance(request_id, (dict, list, bool)) or (
            isinstance(request_id, float) and not request_id.is_integer()):
        return _error(INVALID_REQUEST, "id must be a string, a number or null")
    if request.get("jsonrpc") != "2.0":
        return None if notification else _error(INVALID_REQUEST, 'jsonrpc must be "2.0"',
                                                request_id)
    method = request.get("method")
    if not isinstance(method, str):
        return None if notification else _error(INVALID_REQUEST, "method must be a string",
                                                request_id)
    params = request.get("params", {})
    if method not in METHODS:
        return None if notification else _error(
            METHOD_NOT_FOUND, f"unknown method {brief_repr(method)} (methods: "
            f"{', '.join(METHODS)})",
            request_id)
    if not isinstance(params, dict):
        return None if notification else _error(INVALID_PARAMS, "params must be an object",
                                                request_id)
    try:
        result = METHODS[method](params)
    except CountOutOfReach as exc:
        response = _error(INVALID_PARAMS, str(exc), request_id)
    except InputError as exc:
        response = _error(INVALID_PARAMS, _qualify(exc), request_id)
    except InternalError as exc:
        response = _error(INTERNAL_ERROR, str(exc), request_id)
    except TrampleError as exc:
        response = _error(INVALID_PARAMS, str(exc), request_id)
    except Exception as exc:  # a bug: answer it rather than end the server (SPEC §6)
        what = f"{type(exc).__name__}: {exc}"
        response = _error(INTERNAL_ERROR, f"internal error: {what[:500]}", request_id)
    else:
        response = {"jsonrpc": "2.0", "result": result, "id": request_id}
    return None if notification else response


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not valid JSON")


def decode(line: str) -> Any:
    """Strict JSON: NaN and Infinity are refused."""
    return json.loads(line, parse_constant=_reject_constant)


def encode(obj: Any) -> str:
    """One JSON line; integers (counts) in full up to :data:`MAX_ANSWER_DIGITS` digits, past
    Python's 4,300-digit default for int-to-text conversion. ValueError beyond."""
    try:
        return json.dumps(obj)
    except ValueError:
        limit = sys.get_int_max_str_digits()
        if limit == 0 or limit >= MAX_ANSWER_DIGITS:
            raise
    sys.set_int_max_str_digits(MAX_ANSWER_DIGITS)  # for this answer only (never for input)
    try:
        return json.dumps(obj)
    finally:
        sys.set_int_max_str_digits(limit)


def encode_answer(answer: dict[str, Any]) -> str:
    """A response as one line: :func:`encode`, or an error for an over-long integer."""
    try:
        return encode(answer)
    except ValueError:
        return encode(_error(INVALID_PARAMS, "the answer holds an integer of more than "
                             f"{MAX_ANSWER_DIGITS:,} digits: refused rather than written out",
                             answer.get("id")))


def respond(line: str | bytes) -> str | None:
    """The response line to one input line (None when nothing is owed)."""
    if isinstance(line, bytes):
        try:
            line = line.decode("utf-8")
        except UnicodeDecodeError as exc:
            return json.dumps(_error(PARSE_ERROR, f"parse error: not UTF-8 text: {exc}"))
    try:
        request = decode(line)
    except (ValueError, RecursionError) as exc:
        return json.dumps(_error(PARSE_ERROR, f"parse error: {exc}"))
    if isinstance(request, list):
        if not request:
            return json.dumps(_error(INVALID_REQUEST, "an empty batch is not a request"))
        answers = [encode_answer(a) for a in (handle(r) for r in request) if a is not None]
        return f"[{', '.join(answers)}]" if answers else None
    answer = handle(request)
    return None if answer is None else encode_answer(answer)


def serve(stdin: IO[str] | IO[bytes] | None = None, stdout: IO[str] | None = None) -> int:
    """Answer requests line by line until end of input; the exit status.

    Standard input is read as bytes and each line decoded as strict UTF-8, so that a line
    that is not UTF-8 is answered as unparsable whatever the locale's error handler.
    """
    source: IO[Any] = getattr(sys.stdin, "buffer", sys.stdin) if stdin is None else stdin
    sink = sys.stdout if stdout is None else stdout
    try:
        while line := source.readline(MAX_LINE_BYTES + 1):
            if len(line) > MAX_LINE_BYTES and line[-1:] not in (b"\n", "\n"):
                while rest := source.readline(MAX_LINE_BYTES):  # skip the rest unread
                    if rest[-1:] in (b"\n", "\n"):
                        break
                refusal = encode(_error(PARSE_ERROR, f"line longer than {MAX_LINE_BYTES:,} "
                                        "bytes: refused unread"))
                sink.write(refusal + "\n")
                sink.flush()
                continue
            if not line.strip():
                continue
            with api.timed_request():  # a solve's time limit counts from the line read
                answer = respond(line)
            if answer is not None:
                sink.write(answer + "\n")
                sink.flush()
    except BrokenPipeError:
        return 0
    except KeyboardInterrupt:
        return 0
    return 0


