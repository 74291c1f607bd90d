"""Assignments at the solver's boundary: check one against a combat's ids, and turn the
solver's internal amounts into the one :class:`~trample.models.document.assignment.Assignment`
type, in canonical (legal-space) order."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trample.models.document.assignment import Assignment, Pair, entries_json
from trample.models.document.combat import Combat
from trample.models.document.errors import InputError
from trample.solver.rules.legal_space import LegalSpace
from trample.solver.rules.pieces import union_pairs

Amounts = dict[Pair, int]
"""The solver's working form inside its hot paths: (source, target) -> amount, positive
amounts only. It leaves the solver as an :class:`Assignment` (:func:`to_assignment`)."""

Entry = dict[str, Any]


def parse_assignment(combat: Combat, raw: object, path: str = "assignment") -> Assignment:
    """Check a list of ``{source, target, amount}`` entries against the combat's ids.

    The entries' shape is checked by :meth:`Assignment.from_json`; here unknown ids are
    input errors. Everything else (wrong targets, wrong totals) is left to the rules.
    """
    if isinstance(raw, Mapping) and "assignment" in raw:
        raw = raw["assignment"]
        path = f"{path}.assignment" if path != "assignment" else path
    assignment = Assignment.from_json(raw, path)
    for source, target, _ in assignment.listed():
        if source not in combat or combat.kind(source) != "creature":
            where = assignment.path_of((source, target), source, path)
            raise InputError(f"{where}.source", f"{source!r} is not a creature")
        if target not in combat:
            where = assignment.path_of((source, target), source, path)
            raise InputError(f"{where}.target", f"{target!r} is not a player, creature, "
                             "planeswalker or battle")
    return assignment


def canonical(space: LegalSpace,
              amounts: Mapping[Pair, int]) -> list[tuple[str, str, int]]:
    """The entries of ``amounts`` (positive only), sources and targets in legal-space
    order: the canonical order of every assignment the solver answers."""
    if not space.alternatives:
        # Walk the space's pairs in order: cheaper than sorting, and what a sort would
        # give whenever every positive entry is one of them.
        entries: list[tuple[str, str, int]] = []
        for s in space.sources:
            sid = s.id
            for r in s.recipients:
                amount = amounts.get((sid, r.id), 0)
                if amount > 0:
                    entries.append((sid, r.id, amount))
        if len(entries) == sum(1 for a in amounts.values() if a > 0):
            return entries
    order: dict[Pair, int] = {}
    if space.alternatives:
        # The pairs of both sets of splits of an attacker that may assign as though
        # unblocked, in pair_order's order.
        order = {p: j for j, p in enumerate(union_pairs(space))}
    else:
        for s in space.sources:
            for r in s.recipients:
                order[(s.id, r.id)] = len(order)
    pairs = sorted((p for p, a in amounts.items() if a > 0),
                   key=lambda p: (order.get(p, len(order)), p))
    return [(s, t, amounts[(s, t)]) for s, t in pairs]


def to_assignment(space: LegalSpace, amounts: Mapping[Pair, int]) -> Assignment:
    """``amounts`` as an Assignment, in canonical order (:func:`canonical`)."""
    return Assignment(tuple(canonical(space, amounts)))


def to_entries(space: LegalSpace, amounts: Mapping[Pair, int]) -> list[Entry]:
    """The JSON entries of ``amounts`` in canonical order: what ``to_assignment(space,
    amounts).to_json()`` gives, without building the value first."""
    return entries_json(canonical(space, amounts))
