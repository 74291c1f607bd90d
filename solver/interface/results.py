"""The shapes of the answers, as TypedDicts: what :mod:`trample.solver.interface.api` returns, so
that type checkers see the keys. At run time they are plain dicts (JSON as printed).
(No postponed annotations here: TypedDict reads ``NotRequired`` when the class is made.)"""

from typing import Any, Literal, NotRequired, TypedDict


class Entry(TypedDict):
    """One (source, target, amount) of an assignment."""

    source: str
    target: str
    amount: int


class SolveResult(TypedDict):
    """``solve``: ``bound`` only when ``status`` is ``feasible``."""

    status: Literal["optimal", "feasible"]
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
