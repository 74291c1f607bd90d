"""The shapes of the answers, as TypedDicts: what :mod:`trample.solver.interface.api` returns, so
that type checkers see the keys. At run time they are plain dicts (JSON as printed).
(No postponed annotations here: TypedDict reads ``NotRequired`` when the class is made.)"""

from typing import Any, Literal, NotRequired, TypedDict

from trample.solver.optimize.status import Status


class Entry(TypedDict):
    """One (source, target, amount) of an assignment."""

    source: str
    target: str
    amount: int


class SolveResult(TypedDict):
    """``solve``: ``bound`` only when ``status`` is ``feasible``."""

    status: Status
    side: Literal["attackers", "blockers"]
    step: Literal["first_strike", "regular"]
    objective: dict[str, int]
    bound: NotRequired[dict[str, int]]
    assignment: list[Entry]


class ViolationJson(TypedDict):
    """One broken rule."""

    rule: str
    source: str
    target: str | None
    message: str


class ValidateResult(TypedDict):
    """``validate``: ``omitted`` when more violations exist than are listed."""

    legal: bool
    violations: list[ViolationJson]
    omitted: NotRequired[int]


class CountResult(TypedDict):
    """``count`` (with or without ``fixed``)."""

    count: int


class AssignmentResult(TypedDict):
    """One line of ``enumerate`` and ``sample``, and ``unrank``."""

    assignment: list[Entry]


class PairsResult(TypedDict):
    """``pair_order`` as JSON."""

    pairs: list[list[str]]


class IndexResult(TypedDict):
    """``rank``."""

    index: int


class OptionsResult(TypedDict):
    """``options``: each amount of ``pair`` with its number of completions."""

    pair: list[str]
    amounts: list[list[int]]


class ProjectResult(TypedDict):
    """``project``: the nearest legal assignment and its L1 distance; ``status`` only
    when a time limit or a cancel stopped the search before the answer was proved."""

    assignment: list[Entry]
    distance: Any
    violations: list[ViolationJson]
    status: NotRequired[Literal["feasible"]]


# -- SPEC §11: blocks and attacks -----------------------------------------------------------


class BlockViolationJson(TypedDict):
    """One broken rule of a declaration (509.1a-c, 508.1)."""

    rule: str
    blocker: str | None
    attacker: str | None
    message: str


class RequirementsJson(TypedDict):
    """How many requirements a declaration obeys, and the most any declaration obeys."""

    obeyed: int
    max: int


class CheckBlocksResult(TypedDict):
    """``check_blocks``."""

    legal: bool
    violations: list[BlockViolationJson]
    requirements: RequirementsJson


class BlockPairsResult(TypedDict):
    """``block_pairs``: (blocker, attacker), in the order of the declaration vector."""

    pairs: list[list[str]]


class BlockPairJson(TypedDict):
    """One pair of a block declaration."""

    blocker: str
    attacker: str


class EnumerateBlocksResult(TypedDict):
    """``enumerate_blocks``: ``complete`` is false when ``limit`` stopped the list."""

    declarations: list[list[BlockPairJson]]
    complete: bool


class BlockOptionsResult(TypedDict):
    """``block_options``: each set of attackers with its number of completions."""

    blocker: str
    choices: list[list[Any]]


class LineJson(TypedDict):
    """``plan``'s principal line after the attackers' first-strike split."""

    blockers_first_strike: list[Entry]
    attackers_regular: list[Entry]
    blockers_regular: list[Entry]


class PlanAnswer(TypedDict):
    """The splits of ``plan``'s answer on the combat a declaration makes."""

    first_strike: list[Entry]
    line: LineJson


class EvaluatedBlocks(TypedDict):
    """One result of ``evaluate_blocks``: a legal declaration's value and line, or an
    illegal one's violations."""

    legal: bool
    violations: NotRequired[list[BlockViolationJson]]
    status: NotRequired[Status]
    objective: NotRequired[dict[str, int]]
    first_strike: NotRequired[list[Entry]]
    line: NotRequired[LineJson]


class EvaluateBlocksResult(TypedDict):
    """``evaluate_blocks``: one result per declaration, in order."""

    results: list[EvaluatedBlocks]


class BestBlockResult(TypedDict):
    """``best_block``: ``ties`` only when asked for."""

    status: Status
    blocks: list[BlockPairJson]
    objective: dict[str, int]
    first_strike: list[Entry]
    line: LineJson
    ties: NotRequired[int]


class AttackJson(TypedDict):
    """One attacker of an attack declaration and what it attacks."""

    attacker: str
    target: str


class BestAttackResult(TypedDict):
    """``best_attack``: the attack, the defenders' best block against it, ``plan`` on it."""

    status: Status
    attacks: list[AttackJson]
    objective: dict[str, int]
    blocks: list[BlockPairJson]
    first_strike: list[Entry]
    line: LineJson
    ties: NotRequired[int]
