"""``serve``'s lane for its commonest request: ``solve`` of a tiny combat, nothing else asked.

A search loop sends line after line of ``{"jsonrpc": "2.0", "method": "solve", "params":
{"combat": ...}, "id": N}``. Such a request needs none of the dispatch that any other
request goes through (the method table, the parameters' check, the cancellation and
budget of the response, the handlers of each error), because a combat that
:func:`~trample.solver.optimize.solve_numbers.solve_numbers` answers raises nothing and
searches nothing (a cancel has nothing to stop). :func:`answer_line` answers those and
declines everything else (None), which then takes the general route.

The response line is written for the answer's known shape, byte for byte what the
standard library's encoder writes for it (the separators ``", "`` and ``": "``, every
string through the same ``encode_basestring_ascii``); the tests compare the two on
hostile ids and strings.
"""

from __future__ import annotations

from json.encoder import encode_basestring_ascii
from typing import Any

from trample.solver.optimize.solve_numbers import solve_numbers

MOST_ID = 2**63
"""Integer ids of at most this magnitude are written here (a larger one: the general
route, which knows how to write any integer)."""


def answer_line(request: object) -> str | None:
    """The response line owed to ``request`` (a decoded JSON value) when it is a plain
    ``solve`` request with an integer or string id whose combat the numbers path
    answers; None otherwise (the general route answers it, the same way)."""
    if type(request) is not dict or len(request) != 4:
        return None
    jsonrpc = request.get("jsonrpc")
    method = request.get("method")
    if type(jsonrpc) is not str or jsonrpc != "2.0" or type(method) is not str \
            or method != "solve":
        return None
    params = request.get("params")
    if type(params) is not dict or len(params) != 1:
        return None
    combat = params.get("combat")
    request_id = request.get("id")
    if type(request_id) is str:
        id_text = encode_basestring_ascii(request_id)
    elif type(request_id) is int and -MOST_ID <= request_id <= MOST_ID:
        id_text = str(request_id)
    else:
        return None
    if combat is None:
        return None
    found = solve_numbers(combat, None, None)
    if found is None:
        return None
    return response_text(found, id_text)


def response_text(result: dict[str, Any], id_text: str) -> str:
    """The JSON-RPC response of a ``solve`` answer as the standard library writes it
    (``id_text``: the id, already JSON)."""
    parts = ['{"jsonrpc": "2.0", "result": {"status": ',
             encode_basestring_ascii(result["status"]), ', "side": ',
             encode_basestring_ascii(result["side"]), ', "step": ',
             encode_basestring_ascii(result["step"]), ', "objective": {']
    first = True
    for term, value in result["objective"].items():
        if not first:
            parts.append(", ")
        first = False
        parts.append(encode_basestring_ascii(term))
        parts.append(": ")
        parts.append(str(value))
    parts.append('}, "assignment": [')
    first = True
    for entry in result["assignment"]:
        if not first:
            parts.append(", ")
        first = False
        parts.append('{"source": ')
        parts.append(encode_basestring_ascii(entry["source"]))
        parts.append(', "target": ')
        parts.append(encode_basestring_ascii(entry["target"]))
        parts.append(', "amount": ')
        parts.append(str(entry["amount"]))
        parts.append("}")
    parts.append(']}, "id": ')
    parts.append(id_text)
    parts.append("}")
    return "".join(parts)
