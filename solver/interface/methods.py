"""The methods of ``trample serve``: one function per method, which checks its parameters
and calls :mod:`trample.solver.interface.api`, and the table :data:`METHODS` that names
them. Adding a method is one function and one entry in the table (and, when it takes a
parameter no other method takes, that name in :data:`PARAMETERS`, so that an error in it
is reported under ``params.`` rather than ``params.combat.``).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Mapping
from itertools import islice
from typing import Any

from trample.models.document.combat import brief_repr, check_int, field_name
from trample.models.document.errors import InputError
from trample.solver.interface import api
from trample.solver.interface.protocol import (
    Cancelled,
    Encoded,
    request_cancel,
    response_budget,
    session_out_of_order,
    valid_id,
)

SERVE_ENUMERATE_LIMIT = 10_000
"""``enumerate`` answers at most this many assignments unless ``limit`` says otherwise."""
MAX_ENUMERATE = 100_000
MAX_ENUMERATE_AFTER = 1_000_000
"""The furthest ``enumerate`` resumes (``params.after``): skipping is walking, so the
work of one request stays bounded."""
MAX_SAMPLES = 100_000


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
                     time_limit=p.get("time_limit"), cancel=request_cancel.get())


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
    _params(p, {"combat", "side", "amounts", "time_limit"})
    if "amounts" not in p:
        raise InputError("params.amounts", "required parameter is missing")
    return api.project(p["combat"], p["amounts"], side=p.get("side"),
                       time_limit=p.get("time_limit"), cancel=request_cancel.get())


def _page(stream: Iterator[Any], cap: int, after: int, item: str = "assignment",
          listed: str = "assignments") -> dict[str, Any]:
    """At most ``cap`` items of ``stream`` (one more is asked for, to know whether there
    are more), fewer when the response line would pass its byte budget, as the list
    ``listed`` of the result (each stream item's ``item``, or the item itself when
    ``item`` is empty); ``after`` counts the items earlier pages gave."""
    room = response_budget.get() - 200  # the envelope around the page: id, complete, next
    pieces: list[str] = []
    used = 2
    complete = True
    cancel = request_cancel.get()
    for entry in stream:
        if cancel is not None and cancel.is_set():
            raise Cancelled
        if len(pieces) == cap:
            complete = False
            break
        piece = json.dumps(entry[item] if item else entry)
        if pieces and used + len(piece) + 2 > room:
            complete = False
            break
        pieces.append(piece)
        used += len(piece) + 2
    given = len(pieces)
    page = Encoded("[" + ", ".join(pieces) + "]")
    del pieces
    result: dict[str, Any] = {listed: page, "complete": complete}
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
    return api.plan(p["combat"], objective=p.get("objective"), time_limit=p.get("time_limit"),
                    cancel=request_cancel.get())


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
    return {"capabilities": {"out_of_order": asked or session_out_of_order.get(), "cancel": True},
            "version": str(getattr(trample, "__version__", "0+unknown"))}


def cancelled_id(p: Mapping[str, Any]) -> Any:
    """The id ``$/cancelRequest`` params name; InputError when they are malformed."""
    _only(p, ("id",))
    if "id" not in p:
        raise InputError("params.id", "required parameter is missing")
    if p["id"] is None or not valid_id(p["id"]):
        raise InputError("params.id", "must be a string or an integer")
    return p["id"]


def _cancel_request(p: Mapping[str, Any]) -> Any:
    cancelled_id(p)  # serve's reader cancels the request as it reads this line
    return None


# -- SPEC §11: blocks and attacks (``combat`` is the board) -----------------------------


def _check_blocks(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "blocks"})
    if "blocks" not in p:
        raise InputError("params.blocks", "required parameter is missing")
    return api.check_blocks(p["combat"], p["blocks"])


def _block_pairs(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat"})
    return api.block_pairs(p["combat"])


def _count_blocks(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "fixed"})
    return api.count_blocks(p["combat"], p.get("fixed"))


def _enumerate_blocks(p: Mapping[str, Any]) -> Any:
    from trample.solver.interface.blocks_api import read_board, walk_blocks

    _params(p, {"combat", "limit", "after"})
    raw = p.get("limit")
    cap = SERVE_ENUMERATE_LIMIT if raw is None else check_int(raw, "params.limit", minimum=0)
    if cap > MAX_ENUMERATE:
        raise InputError("params.limit", f"at most {MAX_ENUMERATE} declarations per request")
    after = _after(p, MAX_ENUMERATE_AFTER)
    walk = islice(walk_blocks(read_board(p["combat"])), after, None)
    return _page(walk, cap, after, item="", listed="declarations")


def _block_options(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "fixed", "blocker"})
    return api.block_options(p["combat"], p.get("fixed"), p.get("blocker"))


def _evaluate_blocks(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "declarations", "objective", "time_limit"})
    if "declarations" not in p:
        raise InputError("params.declarations", "required parameter is missing")
    return api.evaluate_blocks(p["combat"], p["declarations"], objective=p.get("objective"),
                               time_limit=p.get("time_limit"))


def _best_block(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "objective", "time_limit", "ties"})
    return api.best_block(p["combat"], objective=p.get("objective"),
                          time_limit=p.get("time_limit"), ties=p.get("ties"),
                          cancel=request_cancel.get())


def _best_attack(p: Mapping[str, Any]) -> Any:
    _params(p, {"combat", "objective", "time_limit", "ties"})
    return api.best_attack(p["combat"], objective=p.get("objective"),
                           time_limit=p.get("time_limit"), ties=p.get("ties"),
                           cancel=request_cancel.get())


PAGED = frozenset({"enumerate", "sample", "enumerate_blocks"})
"""The methods that answer a page (:func:`_page`), within the response's byte budget."""

METHODS: dict[str, Callable[[Mapping[str, Any]], Any]] = {
    "solve": _solve, "validate": _validate, "count": _count, "enumerate": _enumerate,
    "sample": _sample, "apply": _apply, "plan": _plan, "next_step": _next_step,
    "pair_order": _pair_order, "rank": _rank, "unrank": _unrank, "options": _options,
    "project": _project, "check_blocks": _check_blocks, "block_pairs": _block_pairs,
    "count_blocks": _count_blocks, "enumerate_blocks": _enumerate_blocks,
    "block_options": _block_options, "evaluate_blocks": _evaluate_blocks,
    "best_block": _best_block, "best_attack": _best_attack,
    "initialize": _initialize, "$/cancelRequest": _cancel_request,
}


PARAMETERS = ("limit", "n", "seed", "side", "objective", "time_limit", "assignment", "state",
              "action", "blockers_objective", "after", "index", "fixed", "pair", "amounts",
              "blocks", "declarations", "blocker", "ties")
"""The parameters besides ``combat`` whose errors the API reports by their bare name (a
path inside the combat document is reported under ``params.combat``)."""
_NESTED = ("objective[", "assignment[", "assignment.", "state.", "action.",
           "blockers_objective[", "fixed[", "fixed.", "pair[", "amounts[", "blocks[",
           "declarations[")
"""The paths inside those parameters (a list's item, an object's member)."""


def qualify(error: InputError) -> str:
    """The message of an InputError, each field path under ``params`` (a parameter) or
    ``params.combat`` (a field of the combat document)."""
    return str(error.rerooted(_in_params))


def _in_params(path: str) -> str:
    if not path or path.startswith("params."):
        return path
    if path in PARAMETERS or path.startswith(_NESTED):
        return f"params.{path}"
    return f"params.combat.{path}" if path != "document" else "params.combat"
