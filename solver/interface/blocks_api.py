"""The dict-in/dict-out API of SPEC §11: blocks and attacks (also ``api.check_blocks``,
``api.best_block``, ...).

Every function takes a board (a combat/1 document before blockers are declared, with the
§11 fields) as a plain dict and returns plain dicts shaped as SPEC §11 says. Options given
as arguments override the same fields at the board's top level (``blocks``,
``declarations``, ``fixed``, ``objective``, ``time_limit``, ``ties``, ``limit``,
``blocker``). Bad input raises :class:`~trample.models.document.errors.InputError` naming
the field.

>>> from trample import api
>>> board = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": 3}],
...          "creatures": [{"id": "ogre", "controller": "ap", "power": 3, "toughness": 3,
...                         "attacking": "dp", "value": 3},
...                        {"id": "bear", "controller": "dp", "power": 2, "toughness": 2}]}
>>> api.best_block(board)["blocks"]
[{'blocker': 'bear', 'attacker': 'ogre'}]
>>> api.count_blocks(board)
{'count': 2}
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, cast

from trample.models.document.board import Board
from trample.models.document.combat import Combat, check_int
from trample.models.document.errors import InputError
from trample.models.game.declarations import (
    BlockRules,
    block_rules,
    pairs_json,
    parse_blocks,
)
from trample.solver.actions.plan import parse_plan_objective, regular_document
from trample.solver.blocks import search
from trample.solver.blocks.outcome import Line, Outcome
from trample.solver.blocks.space import most_obeyed, parse_fixed, program, violations
from trample.solver.blocks.value import (
    BLOCK_TERMS,
    Evaluation,
    Evaluator,
    non_attacking_value,
)
from trample.solver.interface.requests import deadline
from trample.solver.interface.results import (
    BestAttackResult,
    BestBlockResult,
    BlockOptionsResult,
    BlockPairJson,
    BlockPairsResult,
    CheckBlocksResult,
    CountResult,
    Entry,
    EnumerateBlocksResult,
    EvaluateBlocksResult,
    PlanAnswer,
)
from trample.solver.optimize.cancel import Cancel
from trample.solver.rules.assignment import to_entries
from trample.solver.rules.legal_space import legal_space
from trample.solver.rules.validate import check_answer

REQUEST_FIELDS = frozenset({"blocks", "declarations", "fixed", "objective", "time_limit",
                            "ties", "limit", "blocker"})
"""What a board may carry at its top level besides the board itself (the options)."""
ENUMERATE_LIMIT = 10_000
"""``enumerate_blocks`` lists at most this many declarations unless ``limit`` says."""
MAX_ENUMERATE = 100_000
MAX_DECLARATIONS = 10_000
"""The most declarations one ``evaluate_blocks`` call values."""


def _board(document: object, *, attacks: bool = True) -> tuple[Board, Mapping[str, Any]]:
    """The board and the options at its top level."""
    if isinstance(document, Mapping):
        options = {k: v for k, v in document.items() if k in REQUEST_FIELDS}
        if options:
            document = {k: v for k, v in document.items() if k not in REQUEST_FIELDS}
    else:
        options = {}
    return Board.from_json(document, attacks=attacks), options


def _option(options: Mapping[str, Any], key: str, given: object) -> Any:
    return given if given is not None else options.get(key)


def _objective(raw: object) -> tuple[str, ...]:
    return parse_plan_objective(raw, default=BLOCK_TERMS, what="blocks and attacks")


def _flag(raw: object, path: str) -> bool:
    if raw is None:
        return False
    if not isinstance(raw, bool):
        raise InputError(path, "must be true or false")
    return raw


def check_blocks(document: Mapping[str, Any], blocks: object = None) -> CheckBlocksResult:
    """Whether a block declaration is legal (509.1a-c), every violation with its rule, and
    how many requirements it obeys against the most any declaration obeys."""
    board, options = _board(document)
    raw = _option(options, "blocks", blocks)
    if raw is None:
        raise InputError("blocks", "required: the declaration, a list of {blocker, attacker}")
    rules = block_rules(board)
    declared = parse_blocks(rules, raw)
    found = violations(rules, declared)
    return {"legal": not found, "violations": [v.to_json() for v in found],  # type: ignore[misc]
            "requirements": {"obeyed": rules.obeyed(declared),
                             "max": most_obeyed(rules)}}


def block_pairs(document: Mapping[str, Any]) -> BlockPairsResult:
    """The possible (blocker, attacker) pairs, in the order of the declaration vector."""
    board, _ = _board(document)
    return {"pairs": [[b, a] for b, a in block_rules(board).pairs]}


def count_blocks(document: Mapping[str, Any], fixed: object = None) -> CountResult:
    """The number of legal block declarations (that agree with ``fixed``), exactly."""
    board, options = _board(document)
    rules = block_rules(board)
    raw = _option(options, "fixed", fixed)
    chosen = parse_fixed(rules, raw) if raw is not None else None
    return {"count": program(rules, chosen).count()}


def _declaration_json(rules: BlockRules, blocks: Mapping[str, Sequence[str]]
                      ) -> list[BlockPairJson]:
    return [{"blocker": p["blocker"], "attacker": p["attacker"]}
            for p in pairs_json(blocks, rules)]


def enumerate_blocks(document: Mapping[str, Any], limit: object = None
                     ) -> EnumerateBlocksResult:
    """The legal block declarations in declaration order, at most ``limit`` of them
    (default :data:`ENUMERATE_LIMIT`); ``complete`` says whether that was all."""
    board, options = _board(document)
    raw = _option(options, "limit", limit)
    cap = ENUMERATE_LIMIT if raw is None else check_int(raw, "limit", minimum=0,
                                                        maximum=MAX_ENUMERATE)
    found: list[list[BlockPairJson]] = []
    complete = True
    for declaration in walk_blocks(board):
        if len(found) == cap:
            complete = False
            break
        found.append(declaration)
    return {"declarations": found, "complete": complete}


def walk_blocks(board: Board) -> Iterator[list[BlockPairJson]]:
    """Every legal block declaration of a board, in declaration order, as JSON pairs."""
    rules = block_rules(board)
    for blocks in program(rules).walk():
        yield _declaration_json(rules, blocks)


def read_board(document: object, *, attacks: bool = True) -> Board:
    """A board (for callers that walk its declarations themselves)."""
    return _board(document, attacks=attacks)[0]


def block_options(document: Mapping[str, Any], fixed: object = None,
                  blocker: object = None) -> BlockOptionsResult:
    """Every set of attackers a blocker can block in a legal declaration that agrees with
    ``fixed``, with how many such declarations each has: the action mask of one blocker's
    choice, with the weights of a uniform draw."""
    board, options = _board(document)
    rules = block_rules(board)
    raw = _option(options, "fixed", fixed)
    chosen = parse_fixed(rules, raw if raw is not None else {})
    who = _option(options, "blocker", blocker)
    if who is None:
        left = [b for b in rules.blockers if b not in chosen]
        if not left:
            raise InputError("blocker", "every blocker of block_pairs is in fixed: name one")
        who = left[0]
    elif not isinstance(who, str) or who not in board.combat \
            or board.combat.kind(who) != "creature":
        raise InputError("blocker", f"{who!r} is not a creature of the board")
    found = program(rules, chosen).options_of(who)
    return {"blocker": who, "choices": [[list(c), n] for c, n in found]}


def _answer(evaluation: Evaluation) -> PlanAnswer:
    """``plan``'s answer on the combat a declaration makes, every split checked legal."""
    combat = evaluation.combat
    a1, b1, a2, b2 = evaluation.line
    first_a = legal_space(combat, "attackers")
    first_b = legal_space(combat, "blockers")
    check_answer(first_a, a1, "best_block")
    check_answer(first_b, b1, "best_block")
    regular = regular_document(combat, a1, b1)
    second_a = legal_space(regular, "attackers")
    second_b = legal_space(regular, "blockers")
    check_answer(second_a, a2, "best_block")
    check_answer(second_b, b2, "best_block")
    return {"first_strike": _entries(to_entries(first_a, a1)),
            "line": {"blockers_first_strike": _entries(to_entries(first_b, b1)),
                     "attackers_regular": _entries(to_entries(second_a, a2)),
                     "blockers_regular": _entries(to_entries(second_b, b2))}}


def _entries(raw: list[dict[str, Any]]) -> list[Entry]:
    return cast("list[Entry]", raw)


_Splits = tuple[list[dict[str, Any]], ...]
"""A line's four splits as JSON entries (first strike, its reply, regular, its reply)."""


def _piece_splits(part: Combat, line: Line) -> _Splits | None:
    """One part's line as JSON entries in the part's canonical order, every split checked
    legal on the part alone (its first-strike combat, then the regular one its
    first-strike splits leave); None when a source of it has two sets of splits (the
    whole combat's order is then the union's: :func:`_answer` is used)."""
    regular = regular_document(part, line[0], line[1])
    spaces = (legal_space(part, "attackers"), legal_space(part, "blockers"),
              legal_space(regular, "attackers"), legal_space(regular, "blockers"))
    if any(space.alternatives for space in spaces):
        return None
    for space, amounts in zip(spaces, line, strict=True):
        check_answer(space, amounts, "evaluate_blocks")
    return tuple(to_entries(space, amounts) for space, amounts in zip(spaces, line,
                                                                      strict=True))


class _Answers:
    """``plan``'s answers on the declarations of one board, put together part by part:
    the parts of a declaration share no creature, so its splits are its parts' splits,
    each source's entries where the source stands in the document (the canonical order),
    and each part's line is checked and written once however many declarations play it."""

    def __init__(self, board: Board) -> None:
        self.order = {c.id: i for i, c in enumerate(board.combat.creatures)}
        self.known: dict[int, tuple[Outcome, _Splits | None]] = {}

    def answer(self, evaluation: Evaluation) -> PlanAnswer:
        """What :func:`_answer` gives on this evaluation."""
        if evaluation.pieces is None:
            return _answer(evaluation)
        merged: tuple[list[dict[str, Any]], ...] = ([], [], [], [])
        for part, outcome in evaluation.pieces:
            held = self.known.get(id(outcome))
            if held is None or held[0] is not outcome:
                held = self.known[id(outcome)] = (outcome, _piece_splits(part, outcome.line))
            splits = held[1]
            if splits is None:
                return _answer(evaluation)
            for into, entries in zip(merged, splits, strict=True):
                into.extend(dict(e) for e in entries)
        order = self.order
        for entries in merged:
            entries.sort(key=lambda e: order[e["source"]])
        first_a, first_b, second_a, second_b = merged
        return {"first_strike": _entries(first_a),
                "line": {"blockers_first_strike": _entries(first_b),
                         "attackers_regular": _entries(second_a),
                         "blockers_regular": _entries(second_b)}}


def evaluate_blocks(document: Mapping[str, Any], declarations: object = None,
                    objective: object = None, time_limit: object = None
                    ) -> EvaluateBlocksResult:
    """Each declaration's legality and, for a legal one, ``plan``'s answer on the combat
    it makes, in the same order (one board, so the parts' values are shared)."""
    board, options = _board(document)
    raw = _option(options, "declarations", declarations)
    if raw is None:
        raise InputError("declarations", "required: a list of declarations")
    if not isinstance(raw, list):
        raise InputError("declarations", "must be a list of declarations")
    if len(raw) > MAX_DECLARATIONS:
        raise InputError("declarations", f"{len(raw):,} declarations: at most "
                         f"{MAX_DECLARATIONS:,} in one call")
    terms = _objective(_option(options, "objective", objective))
    due = deadline(_option(options, "time_limit", time_limit))
    rules = block_rules(board)
    ev = Evaluator(board, terms, constant_survivals=non_attacking_value(board),
                   deadline=due)
    answers = _Answers(board)
    results: list[dict[str, Any]] = []
    for i, item in enumerate(raw):
        declared = parse_blocks(rules, item, f"declarations[{i}]")
        found = violations(rules, declared)
        if found:
            results.append({"legal": False, "violations": [v.to_json() for v in found]})
            continue
        ev.status = "optimal"
        evaluation = ev.evaluate(ev.made(declared))
        results.append({"legal": True, "status": evaluation.status,
                        "objective": dict(zip(terms, evaluation.value, strict=True)),
                        **answers.answer(evaluation)})
    return {"results": results}  # type: ignore[typeddict-item]


def best_block(document: Mapping[str, Any], objective: object = None,
               time_limit: object = None, ties: object = None,
               cancel: Cancel | None = None) -> BestBlockResult:
    """The legal block declaration of least value for the attackers (the first in
    declaration order among equals), with ``plan``'s answer on it; proved (``optimal``),
    or the best found when the time limit or a cancel stops the search (``feasible``)."""
    board, options = _board(document)
    terms = _objective(_option(options, "objective", objective))
    due = deadline(_option(options, "time_limit", time_limit))
    count = _flag(_option(options, "ties", ties), "ties")
    found = search.best_block(board, terms, deadline=due, cancel=cancel, ties=count)
    rules = block_rules(board)
    result: dict[str, Any] = {
        "status": found.status, "blocks": _declaration_json(rules, found.blocks),
        "objective": dict(zip(terms, found.evaluation.value, strict=True)),
        **_answer(found.evaluation)}
    if count:
        result["ties"] = found.ties
    return result  # type: ignore[return-value]


def best_attack(document: Mapping[str, Any], objective: object = None,
                time_limit: object = None, ties: object = None,
                cancel: Cancel | None = None) -> BestAttackResult:
    """The legal attack declaration of largest value (the value of the defenders' best
    block against it), the first in attack order among equals, with that block and
    ``plan``'s answer on it."""
    board, options = _board(document, attacks=False)
    terms = _objective(_option(options, "objective", objective))
    due = deadline(_option(options, "time_limit", time_limit))
    count = _flag(_option(options, "ties", ties), "ties")
    found = search.best_attack(board, terms, deadline=due, cancel=cancel, ties=count)
    block = found.block
    rules = block_rules(Board(board.made({}, found.attacks), board.abilities,
                              board.cannot_block))
    result: dict[str, Any] = {
        "status": found.status,
        "attacks": [{"attacker": c, "target": t} for c, t in found.attacks.items()],
        "objective": dict(zip(terms, block.evaluation.value, strict=True)),
        "blocks": _declaration_json(rules, block.blocks),
        **_answer(block.evaluation)}
    if count:
        result["ties"] = found.ties
    return result  # type: ignore[return-value]


__all__ = ["best_attack", "best_block", "block_options", "block_pairs", "check_blocks",
           "count_blocks", "enumerate_blocks", "evaluate_blocks"]
