"""A brute-force oracle for legal splits as actions, written plainly from the contract.

It knows nothing of how trample ranks: the order of the legal assignments is the order
in which ``enumerate`` lists them (read from the public API), and every question is
answered by walking the whole list that the brute force of ``brute.py`` produces.

- an assignment is a vector of amounts over the pair order;
- ``count(fixed)``: the legal assignments whose amounts agree with ``fixed``;
- ``options(fixed, pair)``: for each amount of ``pair`` among those, how many;
- ``project(values)``: the nearest legal assignment in L1 distance over every
  (source, target) pair (missing pairs are 0), ties broken by the default objective
  (lexicographically larger first) and then by position in the order.

``pair_order(doc, side)`` writes the pair order from the contract's output order:
the sources that assign for the side (those that belong to it, `brute.chooser_side`,
after the step filter and the amount) in document order, and each source's recipients
in §2's order: an attacker's blockers in document order, then what it attacks, then
(trample over planeswalkers) the planeswalker's controller; a blocker's attackers in the
order of its `blocking`. An attacker with `as_though_unblocked` has the union of its
pairs as blocked and as if unblocked, in that same order (its blockers, then what it
attacks, then the controller): the rows as if unblocked add no recipient that its rows as
blocked do not already place there. Enumerate's order stays what ``enumerate`` lists;
``ordered`` checks that it holds exactly the union, each assignment once.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction

try:
    from . import brute
except ImportError:  # tests/ is not a package
    import brute

Pair = tuple[str, str]


def pair_order(doc: dict, side: str) -> list[Pair]:
    """The legal (source, recipient) pairs of ``side``, in the contract's order."""
    return [(source, target) for source, _amount in brute.assigning_sources(doc, side)
            for target in brute.recipients(doc, side, source)]


def as_vector(pairs: list[Pair], entries: list[dict]) -> tuple[int, ...]:
    amounts = {(e["source"], e["target"]): e["amount"] for e in entries}
    return tuple(amounts.get(p, 0) for p in pairs)


def ordered(doc: dict, side: str, pairs: list[Pair], listed: list[list[dict]]
            ) -> list[tuple[int, ...]]:
    """The enumerate order (``listed``: enumerate's answers), checked to be exactly the
    brute force's legal assignments, each once."""
    vectors = [as_vector(pairs, entries) for entries in listed]
    expected = {frozenset((s, t, a) for (s, t), a in zip(pairs, v, strict=True) if a)
                for v in vectors}
    assert len(vectors) == len(expected), "enumerate lists an assignment twice"
    assert expected == set(brute.legal_assignments(doc, side))
    return vectors


def agrees(pairs: list[Pair], vector: tuple[int, ...], fixed: Mapping[Pair, int]) -> bool:
    column = {p: j for j, p in enumerate(pairs)}
    return all(vector[column[p]] == a for p, a in fixed.items())


def count(pairs: list[Pair], order: list[tuple[int, ...]], fixed: Mapping[Pair, int]) -> int:
    return sum(1 for v in order if agrees(pairs, v, fixed))


def options(pairs: list[Pair], order: list[tuple[int, ...]], fixed: Mapping[Pair, int],
            pair: Pair) -> list[list[int]]:
    j = pairs.index(pair)
    found: dict[int, int] = {}
    for v in order:
        if agrees(pairs, v, fixed):
            found[v[j]] = found.get(v[j], 0) + 1
    return [[a, n] for a, n in sorted(found.items())]


def distance(pairs: list[Pair], vector: tuple[int, ...],
             values: Mapping[Pair, Fraction]) -> Fraction:
    amounts = dict(zip(pairs, vector, strict=True))
    everything = set(amounts) | set(values)
    return sum((abs(amounts.get(p, 0) - values.get(p, Fraction(0))) for p in everything),
               Fraction(0))


def project(doc: dict, side: str, pairs: list[Pair], order: list[tuple[int, ...]],
            values: Mapping[Pair, Fraction], terms: list[str] | None = None
            ) -> tuple[tuple[int, ...], Fraction]:
    """The nearest legal assignment and its distance; ties by ``terms`` (default: the
    side's default objective, `brute.default_objective`, which orders assignments as
    `brute.default_objective_10` on a document where each side assigns only its own
    creatures; pass the latter for documents where banding or `assigned_by` moves a
    creature)."""
    terms = terms if terms is not None else brute.default_objective(side)

    def key(i: int) -> tuple:
        v = order[i]
        amounts = {p: a for p, a in zip(pairs, v, strict=True) if a}
        score = brute.objective(doc, side, amounts, terms)
        return (distance(pairs, v, values), tuple(-x for x in score), i)

    best = min(range(len(order)), key=key)
    return order[best], distance(pairs, order[best], values)
