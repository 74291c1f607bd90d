"""Assignments: parse a list of entries (SPEC §3) and write one back, in a canonical order."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from trample.models.combat import Combat, check_id, check_int, field_name
from trample.models.errors import InputError
from trample.solver.rules import LegalSpace

Amounts = dict[tuple[str, str], int]
"""(source, target) -> amount; only positive amounts are kept."""

Entry = dict[str, Any]


def parse_assignment(combat: Combat, raw: object, path: str = "assignment") -> Amounts:
    """Check a list of ``{source, target, amount}`` entries against the combat's ids.

    Unknown ids, negative or non-integer amounts and duplicate pairs are input errors;
    everything else (wrong targets, wrong totals) is left to the rules.
    """
    if isinstance(raw, Mapping) and "assignment" in raw:
        raw = raw["assignment"]
        path = f"{path}.assignment" if path != "assignment" else path
    if isinstance(raw, (str, bytes)) or not isinstance(raw, list):
        raise InputError(path, "must be a list of {source, target, amount} entries")
    amounts: Amounts = {}
    seen: set[tuple[str, str]] = set()
    for i, entry in enumerate(raw):
        where = f"{path}[{i}]"
        if not isinstance(entry, Mapping):
            raise InputError(where, "must be an object {source, target, amount}")
        for key in entry:
            if key not in ("source", "target", "amount"):
                raise InputError(f"{where}.{field_name(key)}", "unknown field (accepted: "
                                 "amount, source, target)")
        for key in ("source", "target", "amount"):
            if key not in entry:
                raise InputError(f"{where}.{key}", "required field is missing")
        source = check_id(entry["source"], f"{where}.source")
        target = check_id(entry["target"], f"{where}.target")
        amount = check_int(entry["amount"], f"{where}.amount", minimum=0)
        if source not in combat or combat.kind(source) != "creature":
            raise InputError(f"{where}.source", f"{source!r} is not a creature")
        if target not in combat:
            raise InputError(f"{where}.target", f"{target!r} is not a player, creature, "
                             "planeswalker or battle")
        if (source, target) in seen:
            raise InputError(where, f"the pair ({source!r}, {target!r}) appears twice")
        seen.add((source, target))
        if amount > 0:
            amounts[(source, target)] = amount
    return amounts


def to_entries(space: LegalSpace, amounts: Mapping[tuple[str, str], int]) -> list[Entry]:
    """The entries of ``amounts`` (positive only), sources and targets in legal-space order."""
    order: dict[tuple[str, str], int] = {}
    for s in space.sources:
        for r in s.recipients:
            order[(s.id, r.id)] = len(order)
    pairs = sorted((p for p, a in amounts.items() if a > 0),
                   key=lambda p: (order.get(p, len(order)), p))
    return [{"source": s, "target": t, "amount": amounts[(s, t)]} for s, t in pairs]
