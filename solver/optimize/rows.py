"""A group's model as exact integer rows, recorded as it is built.

:func:`trample.solver.optimize.cpsat.build_rows` runs the one builder of a group's model (the rules
read from the legal space, each term as an expression) against a :class:`RowModel`
instead of OR-Tools' ``CpModel``: the same calls (``new_int_var``, ``new_bool_var``,
``add``, ``add_bool_or``, ``add_implication``, ``only_enforce_if`` and the arithmetic of
linear expressions), recorded straight into the :class:`Translation` that HiGHS's rows
are made from (:mod:`trample.solver.optimize.milp`). Building a CP-SAT model and reading its proto
back gives the same rows (tested), at about twice the cost.

Nothing here knows a rule of the game; it only records linear algebra.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

Linear = tuple[dict[int, int], int]
"""An affine form: variable index -> coefficient, and a constant."""


@dataclass(slots=True)
class Row:
    """``lo <= form <= hi`` when every literal of ``when`` is true (exact integers; a
    literal is a variable's index, or ``-index - 1`` for its negation). Not frozen: made
    for every constraint, and a frozen dataclass's constructor is a generic call when
    compiled; nothing changes a row once made."""

    form: Linear
    lo: int | None
    hi: int | None
    when: tuple[int, ...]


@dataclass(frozen=True, slots=True)
class Translation:
    """A group's model as integer rows over its variables, with the terms' forms."""

    lower: list[int]
    upper: list[int]
    rows: list[Row]
    terms: list[Linear | None]
    """Each term's form; None for a term constant over the group."""
    constants: list[int]


def literal_form(ref: int) -> Linear:
    """A literal as an affine form of its variable (a negative reference is the
    negation: 1 - b)."""
    return ({ref: 1}, 0) if ref >= 0 else ({-ref - 1: -1}, 1)


def literals_sum(refs: Iterable[int]) -> Linear:
    """The sum of literals as an affine form (a ``bool_or`` is this at least 1)."""
    total: dict[int, int] = {}
    constant = 0
    for ref in refs:
        coefs, k = literal_form(ref)
        constant += k
        for i, c in coefs.items():
            total[i] = total.get(i, 0) + c
    return total, constant


class Expr:
    """An affine expression: the sum of ``coefficient * part`` over ``parts``, plus
    ``constant``. Arithmetic makes a new node over its operands (nothing is copied), and
    :func:`flatten` reads the tree once: a sum of n terms costs n nodes."""

    def __init__(self, parts: list[tuple[int, Expr]], constant: int) -> None:
        self.parts = parts
        self.constant = constant

    def __add__(self, other: Expr | int) -> Expr:
        if isinstance(other, Expr):
            return Expr([(1, self), (1, other)], 0)
        return Expr([(1, self)], int(other))

    def __radd__(self, other: int) -> Expr:
        return Expr([(1, self)], int(other))

    def __sub__(self, other: Expr | int) -> Expr:
        if isinstance(other, Expr):
            return Expr([(1, self), (-1, other)], 0)
        return Expr([(1, self)], -int(other))

    def __rsub__(self, other: int) -> Expr:
        return Expr([(-1, self)], int(other))

    def __mul__(self, factor: int) -> Expr:
        return Expr([(int(factor), self)], 0)

    def __rmul__(self, factor: int) -> Expr:
        return Expr([(int(factor), self)], 0)

    def __neg__(self) -> Expr:
        return Expr([(-1, self)], 0)

    def __ge__(self, other: Expr | int) -> Bound:
        return Bound(self - other, 0, None)

    def __le__(self, other: Expr | int) -> Bound:
        return Bound(self - other, None, 0)

    def __eq__(self, other: Expr | int) -> Bound:  # type: ignore[override]
        return Bound(self - other, 0, 0)

    __hash__ = None  # type: ignore[assignment]


class Literal(Expr):
    """A 0-1 expression usable as an enforcement literal: ``ref`` is its variable's index,
    or ``-index - 1`` for the negation."""

    def __init__(self, parts: list[tuple[int, Expr]], constant: int, ref: int) -> None:
        super().__init__(parts, constant)
        self.ref = ref


class Var(Literal):
    """A variable of the model (its own part: :func:`flatten` stops at it)."""

    def __init__(self, index: int, name: str) -> None:
        super().__init__([], 0, index)
        self.index = index
        self.name = name

    def __invert__(self) -> Literal:
        return Literal([(-1, self)], 1, -self.index - 1)


class Bound:
    """``lo <= expression <= hi`` (None: no bound on that side). A plain class: made for
    every constraint, and a frozen dataclass's constructor is a generic call when
    compiled."""

    def __init__(self, expression: Expr, lo: int | None, hi: int | None) -> None:
        self.expression = expression
        self.lo = lo
        self.hi = hi


def flatten(expression: Expr | int) -> Linear:
    """The expression as coefficients per variable (none zero) and a constant."""
    if not isinstance(expression, Expr):
        return {}, int(expression)
    coefs: dict[int, int] = {}
    constant = 0
    stack: list[tuple[int, Expr]] = [(1, expression)]
    while stack:
        factor, node = stack.pop()
        if isinstance(node, Var):
            coefs[node.index] = coefs.get(node.index, 0) + factor
            continue
        constant += factor * node.constant
        for c, part in node.parts:
            stack.append((factor * c, part))
    return {i: c for i, c in coefs.items() if c != 0}, constant


class Recorded:
    """A row being recorded: ``only_enforce_if`` adds a literal to its conditions."""

    def __init__(self, form: Linear, lo: int | None, hi: int | None) -> None:
        self.form = form
        self.lo = lo
        self.hi = hi
        self.when: list[int] = []

    def only_enforce_if(self, literal: Literal) -> Recorded:
        self.when.append(literal.ref)
        return self


class RowModel:
    """The calls of OR-Tools' ``CpModel`` that a group's model is built with, recorded as
    a :class:`Translation` (the rows that reading that model's proto back would give)."""

    def __init__(self) -> None:
        self.lower: list[int] = []
        self.upper: list[int] = []
        self.recorded: list[Recorded] = []

    def new_int_var(self, lo: int, hi: int, name: str) -> Var:
        var = Var(len(self.lower), name)
        self.lower.append(lo)
        self.upper.append(hi)
        return var

    def new_bool_var(self, name: str) -> Var:
        return self.new_int_var(0, 1, name)

    def add(self, bound: Bound) -> Recorded:
        coefs, constant = flatten(bound.expression)
        row = Recorded((coefs, 0), None if bound.lo is None else bound.lo - constant,
                       None if bound.hi is None else bound.hi - constant)
        self.recorded.append(row)
        return row

    def add_bool_or(self, literals: Iterable[Literal]) -> Recorded:
        row = Recorded(literals_sum(lit.ref for lit in literals), 1, None)
        self.recorded.append(row)
        return row

    def add_implication(self, a: Literal, b: Literal) -> Recorded:
        row = Recorded(literal_form(b.ref), 1, None)
        self.recorded.append(row)
        return row.only_enforce_if(a)

    def translation(self, expressions: Sequence[Expr | int]) -> Translation:
        """The rows recorded, and the form of each of ``expressions`` (None for a
        constant)."""
        rows = [Row(r.form, r.lo, r.hi, tuple(r.when)) for r in self.recorded]
        terms: list[Linear | None] = []
        constants: list[int] = []
        for expression in expressions:
            if isinstance(expression, Expr):
                form, constant = flatten(expression)
                terms.append((form, 0))
                constants.append(constant)
            else:
                terms.append(None)
                constants.append(int(expression))
        return Translation(list(self.lower), list(self.upper), rows, terms, constants)
