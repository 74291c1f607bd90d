"""The fuzz targets: one function per target, taking the fuzz input bytes.

Each asserts the contract for hostile input: the call returns a well-formed answer or
raises :class:`~trample.models.document.errors.InputError` (or another ``TrampleError``) whose
message starts with the field path; anything else escaping (KeyError, TypeError,
RecursionError, ValueError, AssertionError...) is a crash. ``respond`` must always give a
JSON line (or None for a notification) and never raise.

An input that is a JSON document is used as it is (so the seed corpus is plain JSON);
any other input drives the structured builders of :mod:`tests.fuzz.shapes`.
"""

from __future__ import annotations

import contextlib
import io
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import atheris

TESTS = Path(__file__).resolve().parent.parent
if str(TESTS) not in sys.path:
    sys.path.insert(0, str(TESTS))  # brute.py and strategies.py, as under pytest

from tests.fuzz import shapes  # noqa: E402
from tests.fuzz.shapes import Draw  # noqa: E402
from trample.models.document.combat import Combat  # noqa: E402
from trample.models.document.errors import InputError, InternalError, TrampleError  # noqa: E402
from trample.solver.count.work import CountOutOfReach  # noqa: E402
from trample.solver.interface import (  # noqa: E402
    api,
    methods,
    protocol,
    serve,
)
from trample.solver.optimize.objectives import TERMS  # noqa: E402
from trample.solver.rules.legal_space import legal_space  # noqa: E402
from trample.solver.rules.validate import violations  # noqa: E402

import brute  # noqa: E402
from strategies import cached_legal_assignments, split_count  # noqa: E402

_UNKNOWN = object()
BRUTE_BUDGET = 1_500
"""Combats with at most this many raw splits are checked against the brute-force oracle."""


class Crash(AssertionError):
    """A property of the contract does not hold (the input is a finding)."""


def check_input_error(exc: TrampleError) -> None:
    """A refusal must say where: ``path: reason`` with a non-empty path."""
    if isinstance(exc, InternalError):
        raise Crash(f"internal error on input: {exc}") from exc
    if isinstance(exc, InputError):
        if not exc.path or not str(exc).startswith(f"{exc.path}: "):
            raise Crash(f"an input error without a field path: {exc!r}") from exc
        if len(str(exc)) > 2_000:
            raise Crash(f"an input error message of {len(str(exc))} characters") from exc


def _json_or_none(data: bytes) -> Any:
    try:
        return json.loads(data)
    except (ValueError, RecursionError):
        return None


def _amounts(entries: Any) -> dict[tuple[str, str], int]:
    if isinstance(entries, dict):
        entries = entries["assignment"]
    return {(e["source"], e["target"]): e["amount"] for e in entries if e["amount"] > 0}


def _side(doc: Any, side: Any) -> str:
    given = side if side is not None else (doc.get("side") if isinstance(doc, dict) else None)
    return "attackers" if given is None else str(given)


# -- parser ----------------------------------------------------------------------------------


def parse_one(doc: Any) -> None:
    """``Combat.from_json`` returns a combat that round-trips, or refuses with a path; the
    legal space of either side is derived from anything it accepts, or refused with a path
    (a combination of choices the rules allow that trample does not model, 702.22j-k)."""
    try:
        combat = Combat.from_json(doc)
    except TrampleError as exc:
        check_input_error(exc)
        return
    again = Combat.from_json(json.loads(json.dumps(combat.to_json())))
    if again != combat:
        raise Crash(f"to_json does not round-trip: {combat!r} != {again!r}")
    for side in ("attackers", "blockers"):
        try:
            legal_space(combat, side)
        except TrampleError as exc:  # a rule the reader leaves to the legal space
            check_input_error(exc)


def parser_one_input(data: bytes) -> None:
    """Target ``parser``: JSON text, or a combat built and broken from the bytes."""
    doc = _json_or_none(data)
    if doc is None:
        d = Draw(atheris.FuzzedDataProvider(data))
        doc = shapes.valid_combat(d, power_max=d.pick((5, 2**31, 2**40))) if d.one_in(8) \
            else shapes.broken(d, shapes.valid_combat(d), python=True)
    parse_one(doc)


# -- validator -------------------------------------------------------------------------------


def validate_one(doc: Any, assignment: Any, side: Any) -> None:
    """``api.validate`` answers ``{legal, violations}`` as the brute-force judge does, or
    refuses the assignment with a path."""
    try:
        answer = api.validate(doc, assignment, side=side)
    except TrampleError as exc:
        check_input_error(exc)
        return
    if set(answer) != {"legal", "violations"} or not isinstance(answer["legal"], bool):
        raise Crash(f"malformed answer {answer!r}")
    for v in answer["violations"]:
        if set(v) != {"rule", "source", "target", "message"} or not all(
                isinstance(v[k], str) for k in ("rule", "source", "message")):
            raise Crash(f"malformed violation {v!r}")
    if answer["legal"] != (not answer["violations"]):
        raise Crash(f"legal is {answer['legal']} with violations {answer['violations']!r}")
    json.dumps(answer)
    given = assignment if assignment is not None else doc.get("assignment")
    expected = brute.is_legal(doc, _side(doc, side), _amounts(given))
    if answer["legal"] != expected:
        raise Crash(f"validate says legal={answer['legal']}, the rules say {expected}: "
                    f"{json.dumps(doc)} {json.dumps(given)} {answer!r}")


def validator_one_input(data: bytes) -> None:
    """Target ``validator``: ``{"combat", "assignment", "side"}`` as JSON, or a small valid
    combat and a fuzzed assignment built from the bytes."""
    raw = _json_or_none(data)
    if isinstance(raw, dict) and "combat" in raw:
        validate_one(raw["combat"], raw.get("assignment"), raw.get("side"))
        return
    d = Draw(atheris.FuzzedDataProvider(data))
    doc = shapes.valid_combat(d)
    side = d.pick(("attackers", "blockers", None))
    validate_one(doc, shapes.assignment(d, doc, python=True), side)


# -- solve, count, enumerate, sample ------------------------------------------------------


def solve_one(doc: Any, side: str, terms: list[str] | None, time_limit: float = 10.0) -> None:
    """On a valid document every answer is legal; on a small one, solve's objective is
    the optimum and count, enumerate and sample agree with the brute-force oracle."""
    try:
        space = legal_space(Combat.from_json(doc), side)  # type: ignore[arg-type]
        answer = api.solve(doc, side=side, objective=terms, time_limit=time_limit)
    except TrampleError as exc:
        check_input_error(exc)
        return
    amounts = _amounts(answer["assignment"])
    if violations(space, amounts):
        raise Crash(f"solve answered an illegal assignment: {answer!r}")
    carried = doc.get("objective") if isinstance(doc, dict) else None
    chosen = terms if terms is not None else carried if isinstance(carried, list) \
        else brute.default_objective_10(side)
    if tuple(answer["objective"].values()) != brute.objective(doc, side, amounts, chosen):
        raise Crash(f"solve misreports its objective: {answer!r}")
    small = split_count(doc, side) <= BRUTE_BUDGET
    legal = set(cached_legal_assignments(doc, side)) if small else set()
    if small and answer["status"] == "optimal":
        best = max(brute.objective(doc, side, a, chosen) for a in legal)
        if tuple(answer["objective"].values()) != best:
            raise Crash(f"solve is not optimal: {answer!r} vs {best}")
    try:
        count = api.count(doc, side=side)["count"]
        drawn = [_amounts(a["assignment"]) for a in api.sample(doc, side=side, n=3, seed=7)]
        listed = [_amounts(a["assignment"])
                  for a in api.enumerate_assignments(doc, side=side, limit=BRUTE_BUDGET)]
    except CountOutOfReach:
        return
    if any(violations(space, a) for a in drawn + listed):
        raise Crash("sample or enumerate answered an illegal assignment")
    if small:
        found = {frozenset((s, t, n) for (s, t), n in a.items()) for a in listed}
        if count != len(legal) or found != legal or len(listed) != len(found):
            raise Crash(f"count {count}, enumerate {len(listed)} ({len(found)} distinct), "
                        f"brute force {len(legal)}")


def solve_one_input(data: bytes) -> None:
    """Target ``solve``: ``{"combat", "side", "objective"}`` as JSON, or a small valid
    combat built from the bytes."""
    raw = _json_or_none(data)
    if isinstance(raw, dict) and "combat" in raw:
        side, terms = raw.get("side"), raw.get("objective")
        if side in ("attackers", "blockers") and (terms is None or isinstance(terms, list)):
            solve_one(raw["combat"], side, terms, time_limit=2.0)
        return
    d = Draw(atheris.FuzzedDataProvider(data))
    doc = shapes.valid_combat(d)
    side = d.pick(("attackers", "blockers"))
    pool = list(TERMS) if side == "attackers" else ["kills"]
    terms = None if d.bool() else d.subset(pool, min_size=1)
    if terms is not None and len(terms) > 1 and d.bool():
        terms.reverse()
    solve_one(doc, side, terms)


# -- serve -----------------------------------------------------------------------------------

ERROR_CODES = {protocol.PARSE_ERROR, protocol.INVALID_REQUEST, protocol.METHOD_NOT_FOUND,
               protocol.INVALID_PARAMS}


def _check_result(method: str, params: dict[str, Any], result: Any) -> None:
    if method == "solve":
        if result["status"] not in ("optimal", "feasible"):
            raise Crash(f"solve status {result['status']!r}")
        space = legal_space(Combat.from_json(params["combat"]),
                            api.parse_side(params.get("side") or
                                           params["combat"].get("side")))
        if violations(space, _amounts(result["assignment"])):
            raise Crash(f"serve solve answered an illegal assignment: {result!r}")
    elif method == "validate":
        if set(result) != {"legal", "violations"}:
            raise Crash(f"malformed validate result {result!r}")
    elif method == "count":
        if not isinstance(result["count"], int) or result["count"] < 0:
            raise Crash(f"malformed count result {result!r}")
    elif method in ("enumerate", "sample") and not isinstance(result["assignments"], list):
        raise Crash(f"malformed {method} result {result!r}")


def _check_response(request: Any, response: Any) -> None:
    """One response object against the request object it answers."""
    if not isinstance(response, dict) or response.get("jsonrpc") != "2.0" or "id" not in response:
        raise Crash(f"malformed response {response!r}")
    if len(response) != 3 or ("result" in response) == ("error" in response):
        raise Crash(f"a response needs exactly one of result and error: {response!r}")
    if "error" in response:
        error = response["error"]
        if set(error) != {"code", "message"} or not isinstance(error["message"], str):
            raise Crash(f"malformed error {error!r}")
        if error["code"] == protocol.INTERNAL_ERROR:
            _reproduce(request)
            raise Crash(f"internal error: {error['message']}")
        if error["code"] not in ERROR_CODES:
            raise Crash(f"unknown error code {error!r}")
        if len(error["message"]) > 2_000:
            raise Crash(f"an error message of {len(error['message'])} characters")
    if isinstance(request, dict):
        rid = request.get("id")
        valid_id = not isinstance(rid, (dict, list, bool)) and not (
            isinstance(rid, float) and not rid.is_integer())
        if valid_id and response["id"] != rid:
            raise Crash(f"answered with id {response['id']!r}, not {rid!r}")
        if "result" in response:
            _check_result(request["method"], request.get("params", {}), response["result"])


def _reproduce(request: Any) -> None:
    """Re-run a request that ended in an internal error, so that the finding carries the
    original traceback rather than the server's one-line summary."""
    if isinstance(request, dict) and request.get("method") in methods.METHODS:
        params = request.get("params", {})
        if isinstance(params, dict):
            with contextlib.suppress(TrampleError):
                methods.METHODS[request["method"]](params)


def _owed(request: Any) -> list[Any]:
    """The requests of a request or batch that are owed a response (not notifications;
    anything that is not a valid request is owed a -32600)."""
    items = request if isinstance(request, list) else [request]
    return [r for r in items if not protocol.is_notification(r)]


def respond_one(line: str, request: Any = _UNKNOWN) -> None:
    """``respond`` gives one JSON line, or None exactly when only notifications came;
    never an exception. ``request`` is the decoded line when the caller knows it."""
    answer = serve.respond(line)
    if answer is not None and (not isinstance(answer, str) or "\n" in answer):
        raise Crash(f"respond gave {answer!r}")
    if request is _UNKNOWN:
        if answer is not None:
            protocol.decode(answer)
        return
    owed = _owed(request)
    if isinstance(request, list) and not request:
        owed = [request]  # an empty batch is answered with one error
    if answer is None:
        if owed:
            raise Crash(f"no answer to {line[:300]!r}")
        return
    if not owed:
        raise Crash(f"a notification was answered: {line[:300]!r} -> {answer[:300]!r}")
    decoded = protocol.decode(answer)
    if isinstance(request, list) and request:
        if not isinstance(decoded, list) or len(decoded) != len(owed):
            raise Crash(f"a batch of {len(owed)} owed requests got {answer[:300]!r}")
        for r, a in zip(owed, decoded, strict=True):
            _check_response(r, a)
    else:
        _check_response(request, decoded)


def _serve_loop(lines: list[bytes]) -> None:
    """The loop itself: bytes in (any bytes), one JSON line out per answer, status 0."""
    out = io.StringIO()
    status = serve.serve(io.BytesIO(b"".join(lines)), out)  # type: ignore[arg-type]
    if status != 0:
        raise Crash(f"serve ended with status {status}")
    for line in out.getvalue().splitlines():
        protocol.decode(line)


def serve_one_input(data: bytes) -> None:
    """Target ``serve``: the bytes as one line; or envelopes around fuzzed params; or a few
    such lines through the serve loop itself."""
    d = Draw(atheris.FuzzedDataProvider(data))
    mode = d.int(0, 9)
    if _json_or_none(data) is not None or mode == 6:
        line = data.decode("utf-8", "surrogateescape").replace("\n", " ").replace("\r", " ")
        try:
            request = protocol.decode(line)
        except (ValueError, RecursionError):
            request = _UNKNOWN
        respond_one(line, request)
        return
    if mode == 7:
        lines = [json.dumps(shapes.request(d)).encode() + b"\n" for _ in range(d.int(0, 3))]
        junk = [b"\xff\xfe{}\n", b"\n", b"   \r\n", b'{"jsonrpc": "2.0", "id": 1,', b"[" * 5000]
        lines.insert(d.int(0, len(lines)), d.pick(junk) + b"\n")
        _serve_loop(lines)
        return
    if mode == 8:  # deep nesting in the text, where a combat or a param belongs
        depth = d.pick(shapes.DEPTHS)
        line = json.dumps(shapes.request(d)).replace(
            '"combat": {', '"combat": ' + "[" * depth + "{", 1)
        respond_one(line)
        return
    sent = [shapes.request(d) for _ in range(d.int(0, 4))] if mode == 9 else shapes.request(d)
    line = json.dumps(sent)  # NaN and Infinity come out as literals: refused as -32700
    try:
        request = protocol.decode(line)
    except ValueError:
        request = _UNKNOWN
    respond_one(line, request)


# -- game states and actions ---------------------------------------------------------------

ACTION_NAMES = ("transform", "convert", "turn_face_up", "turn_face_down", "mill",
                "create_token", "put_onto_battlefield", "add_counters", "add_lore_counter",
                "begin_precombat_main", "resolve_trigger", "resolve_chapter",
                "activate_transform", "orochi_attack_trigger", "declare_combat",
                "deal_combat_damage", "combat_damage_step", "combat_damage", "destroy",
                "grant_keyword", "begin_turn", "end_combat")
CARD_NAMES = ("Grizzly Bears", "Fencing Ace", "Hidetsugu Consumes All // Vessel of the "
              "All-Consuming", "Teachings of the Kirin // Kirin-Touched Orochi")
_BASES: list[dict[str, Any]] = []


def _base_states() -> list[dict[str, Any]]:
    """Game states to start from: the Teachings example and a combat in progress."""
    if not _BASES:
        from trample.models.game.cards import get_card
        from trample.models.game.combat_steps import declare_combat
        from trample.models.game.state import enter_card, new_game
        from trample.models.game.state_json import state_to_json

        _BASES.append(json.loads((TESTS / "data" / "teachings_state.json").read_text()))
        state = new_game(("ap", "dp"))
        made = []
        for card, controller, face in ((CARD_NAMES[2], "ap", "back"),
                                       ("Fencing Ace", "ap", "front"),
                                       ("Grizzly Bears", "dp", "front")):
            state, oid, _ = enter_card(state, get_card(card), controller, face=face)
            made.append(oid)
        state, _ = declare_combat(state, {made[0]: "dp", made[1]: "dp"},
                                  {made[2]: [made[0]]})
        _BASES.append(state_to_json(state))
    return _BASES


def _action(d: Draw, state: dict[str, Any]) -> dict[str, Any]:
    """A mostly well-formed action on ``state``: ids of its objects and players."""
    ids = [p["id"] for p in state.get("battlefield", [])] + ["o999", "dp", "ap", ""]
    players = [p["id"] for p in state.get("players", [])] + ["nobody"]
    action: dict[str, Any] = {"action": d.pick(ACTION_NAMES)}
    for key in ("object", "target", "counter_target"):
        if d.one_in(2):
            action[key] = d.pick(ids)
    if d.one_in(3):
        action["player"] = d.pick(players)
    if d.one_in(3):
        action["count"] = d.pick((0, 1, 3, 60, -1, 2**40, 2**41))
    if d.one_in(3):
        action["amount"] = d.pick((0, 1, 2, 2**40, -3))
    if d.one_in(4):
        action["kind"] = d.pick(("+1/+1", "-1/-1", "lore", "loyalty", "x" * 300))
    if d.one_in(4):
        action["card"] = d.pick(CARD_NAMES)
    if d.one_in(4):
        action["step"] = d.pick(("first_strike", "regular", "third"))
    if d.one_in(3):
        action["assignment"] = [{"source": d.pick(ids), "target": d.pick(ids + players),
                                 "amount": d.pick((0, 1, 2, 3, 10, 2**40))}
                                for _ in range(d.int(0, 4))]
    if d.one_in(5):
        attackers = [i for i in ids if i.startswith("o")]
        action["attacks"] = {d.pick(attackers): d.pick(players)} if attackers else {}
        action["blocks"] = {d.pick(ids): [d.pick(ids)]} if d.one_in(2) else {}
    return action


def apply_one(state: Any, action: Any) -> None:
    """``trample apply``: a new state that trample reads back (it never refuses its own
    output), or a refusal naming a field of the request (``state.``, ``action``)."""
    from trample.models.game.state_json import state_from_json
    from trample.solver.interface.game_loop import apply

    try:
        answer = apply(state, action, time_limit=2)
    except TrampleError as exc:
        check_input_error(exc)
        if isinstance(exc, InputError) and not exc.path.startswith(("state", "action")):
            raise Crash(f"a refusal naming no field of the request: {exc}") from exc
        return
    written = json.dumps(answer)  # plain JSON, whatever the numbers
    try:
        state_from_json(json.loads(written)["state"], "state")
    except TrampleError as exc:
        raise Crash(f"trample refuses its own output: {exc}") from exc


def game_one_input(data: bytes) -> None:
    """Target ``game``: ``{"state", "action"}`` as JSON; or a fuzzed action on one of the
    base states; or a base state with defects and an action."""
    doc = _json_or_none(data)
    if isinstance(doc, dict) and "state" in doc:
        apply_one(doc.get("state"), doc.get("action"))
        return
    d = Draw(atheris.FuzzedDataProvider(data))
    state = json.loads(json.dumps(d.pick(_base_states())))
    action = _action(d, state)
    if d.one_in(3):
        state = shapes.broken(d, state, python=True)
    apply_one(state, action)



BOARD_FIELDS = ("tapped", "summoning_sick", "can_attack", "can_block", "can_be_blocked",
                "must_block", "must_be_blocked", "lure", "must_attack")


def _board(d: Draw) -> dict[str, Any]:
    """A small board: a valid combat without blocks, with §11 fields now and then."""
    doc = shapes.valid_combat(d, max_attackers=3, max_blockers=0, power_max=4)
    for creature in doc["creatures"]:
        creature.pop("blocking", None)
        creature.pop("blocked", None)
        for field in BOARD_FIELDS:
            if d.one_in(6):
                creature[field] = d.bool()
        if d.one_in(4):
            creature["blocks_max"] = d.pick((1, 2, "any", 0, "two"))
        if d.one_in(5):
            creature["min_blockers"] = d.int(0, 3)
        if d.one_in(6):
            creature["max_blockers"] = d.int(0, 3)
        if d.one_in(3):
            creature["keywords"] = [*creature.get("keywords", []),
                                    *d.subset(("Flying", "reach", "menace", "shadow",
                                               "horsemanship", "defender", "haste"),
                                              max_size=2)]
    ids = [c["id"] for c in doc["creatures"]]
    for _ in range(d.int(0, 2) if ids else 0):
        doc.setdefault("cannot_block", []).append(
            {"blocker": d.pick([*ids, "*"]), "attacker": d.pick([*ids, "*"])})
    return doc


def blocks_one(board: Any, declaration: Any) -> None:
    """SPEC §11 on one board: every answer well formed or refused with a path; every
    declaration trample lists or answers is legal by its own check; on a small board the
    best block is no worse than any legal declaration (valued by evaluate_blocks)."""
    try:
        check = api.check_blocks(board, declaration)
        if not isinstance(check["legal"], bool) or check["legal"] == bool(check["violations"]):
            raise Crash(f"check_blocks answered {check}")
        count = api.count_blocks(board)["count"]
        listed = api.enumerate_blocks(board, limit=30)["declarations"]
        if len(listed) != min(count, 30):
            raise Crash(f"count {count} but {len(listed)} listed")
        for found in listed:
            if not api.check_blocks(board, found)["legal"]:
                raise Crash(f"enumerate_blocks listed an illegal declaration {found}")
        options = api.block_options(board, {}) if api.block_pairs(board)["pairs"] else None
        if options is not None and sum(n for _, n in options["choices"]) != count:
            raise Crash(f"block_options' completions do not add up to {count}")
        if count <= 30:
            best = api.best_block(board, time_limit=5)
            if not api.check_blocks(board, best["blocks"])["legal"]:
                raise Crash(f"best_block answered an illegal declaration {best['blocks']}")
            values = [tuple(r["objective"].values())
                      for r in api.evaluate_blocks(board, listed, time_limit=5)["results"]]
            if best["status"] == "optimal" and tuple(best["objective"].values()) != min(values):
                raise Crash(f"best_block {best['objective']} is not the least of "
                              f"{min(values)}")
    except TrampleError as exc:
        check_input_error(exc)


def blocks_one_input(data: bytes) -> None:
    """Target ``blocks``: ``{"combat", "blocks"}`` as JSON; or a small board (sometimes
    broken) and a declaration of its ids."""
    doc = _json_or_none(data)
    if isinstance(doc, dict) and "combat" in doc:
        blocks_one(doc.get("combat"), doc.get("blocks", []))
        return
    d = Draw(atheris.FuzzedDataProvider(data))
    board = _board(d)
    ids = [c["id"] for c in board["creatures"]]
    declaration: Any = [{"blocker": d.pick(ids), "attacker": d.pick(ids)}
                        for _ in range(d.int(0, 3))] if ids else []
    if d.one_in(4):
        board = shapes.broken(d, board, python=True)
    if d.one_in(6):
        declaration = shapes.hostile(d, python=True)
    blocks_one(board, declaration)


TARGETS: dict[str, Callable[[bytes], None]] = {
    "blocks": blocks_one_input,
    "parser": parser_one_input,
    "validator": validator_one_input,
    "serve": serve_one_input,
    "solve": solve_one_input,
    "game": game_one_input,
}
