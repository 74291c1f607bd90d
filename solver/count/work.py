"""The work a count may spend, and its refusal.

Every exact structure of :mod:`trample.solver.count` is built within a budget of steps
(:data:`WORK_LIMIT` for one combat): a transition of a dynamic program is a step, and so
is the big-integer arithmetic of multiplying large counts, charged by the product of
the numbers' bit lengths (:func:`product_work`). Past the budget the count is refused
(:class:`CountOutOfReach`), never estimated.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from math import lgamma, log

from trample.models.document.errors import TrampleError
from trample.solver.rules.legal_space import Source

WORK_LIMIT = 250_000
"""Transitions the dynamic program may build for one combat before it refuses."""
DECLARED_SHARE = 5
"""A part counted by the frontier program gets the declared-order table for
enumeration, rank and unrank when that takes at most 1/this of the work limit."""
BIT_PRODUCTS_PER_STEP = 2**24
"""Big-integer work charged as one step: multiplying an a-bit by a b-bit number costs
a*b / this many steps (about as long, measured, as a step of the dynamic program), so
counts of hundreds of thousands of digits are refused in about a second, not computed
for minutes."""


def product_work(a: int, b: int) -> int:
    """Steps charged for multiplying ``a`` by ``b`` (0 for machine-sized numbers)."""
    return (a.bit_length() * b.bit_length()) // BIT_PRODUCTS_PER_STEP


def comb_bits(n: int, k: int) -> int:
    """An upper estimate of the bit length of C(n, k), without computing it."""
    if k <= 0 or k >= n:
        return 1
    return int((lgamma(n + 1) - lgamma(k + 1) - lgamma(n - k + 1)) / log(2)) + 2


class CountOutOfReach(TrampleError):
    """The exact count (or an exact sampler) would take more work than allowed."""


def charged_product(values: Iterable[int], budget: list[int], limit: int) -> int:
    """The product of ``values``, each multiplication charged to ``budget`` first."""
    total = 1
    for v in values:
        budget[0] -= product_work(total, v)
        if budget[0] < 0:
            raise CountOutOfReach(
                f"the count has more than {total.bit_length():,} bits before its last "
                f"factors; multiplying them out would take more than {limit:,} steps, so "
                "it is refused rather than estimated")
        total *= v
    return total


def out_of_reach(sources: Sequence[Source], limit: int, bits: int, coupled: str
                 ) -> CountOutOfReach:
    """The refusal of a part whose exact count would spend more than ``limit`` steps: on
    the size of its numbers when big-integer arithmetic made the work (``bits``), else on
    how its ``sources`` are coupled (``coupled``, the rest of the sentence)."""
    names = ", ".join(s.id for s in sources[:6])
    more = ", ..." if len(sources) > 6 else ""
    if bits:
        return CountOutOfReach(
            f"the sources {names}{more} have counts of more than {bits:,} bits (huge powers "
            "split among many recipients); the exact arithmetic would take more than "
            f"{limit:,} steps, so it is refused rather than estimated")
    return CountOutOfReach(f"the sources {names}{more} {coupled}")
