"""Judge an assignment against the legal space: every violation, with its rule."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from trample.solver.rules import LegalSpace, Source


@dataclass(frozen=True, slots=True)
class Violation:
    """One way an assignment breaks the rules."""

    rule: str
    source: str
    target: str | None
    message: str

    def to_json(self) -> dict[str, Any]:
        """``{"rule", "source", "target", "message"}`` as SPEC §5 prints it."""
        return {"rule": self.rule, "source": self.source, "target": self.target,
                "message": self.message}


def _misdirected_rule(space: LegalSpace, source: Source, target: str) -> str:
    """The rule that forbids ``source`` assigning to ``target`` (not one of its recipients)."""
    combat = space.combat
    attacker = combat.creature(source.id)
    if attacker.attacking is not None and combat.kind(attacker.attacking) == "planeswalker":
        walker = combat.planeswalker(attacker.attacking)
        if target == walker.controller and source.rule not in ("702.19c", "702.19e"):
            return "702.19f"
    return source.rule


def violations(space: LegalSpace, amounts: Mapping[tuple[str, str], int]) -> list[Violation]:
    """Every violation of ``amounts`` (positive amounts only matter); empty means legal."""
    combat = space.combat
    label = combat.label
    found: list[Violation] = []
    given: dict[str, int] = {}
    for (source_id, target), amount in amounts.items():
        if amount <= 0:
            continue
        source = space.by_id.get(source_id)
        if source is None:
            rule, why = space.idle[source_id]
            found.append(Violation(rule, source_id, target,
                                   f"{label(source_id)} {why}, but it is assigned {amount} "
                                   f"to {label(target)}"))
            continue
        if (source_id, target) not in space.pairs:
            if source.recipients:
                allowed = ", ".join(label(r.id) for r in source.recipients)
                where = f"it may assign only to {allowed}"
            else:
                where = "it has nothing it may assign damage to"
            found.append(Violation(_misdirected_rule(space, source, target), source_id, target,
                                   f"{label(source_id)} assigns {amount} to {label(target)}, "
                                   f"but {where}"))
            continue
        given[source_id] = given.get(source_id, 0) + amount

    for source in space.sources:
        total = given.get(source.id, 0)
        if source.recipients and total != source.power:
            found.append(Violation("510.1a", source.id, None,
                                   f"{label(source.id)} assigns {total} of its {source.power} "
                                   "combat damage; it must assign all of it"))

    received = space.received(amounts)
    touched = space.deathtouched(amounts)
    for source in space.sources:
        for r in source.recipients:
            amount = amounts.get((source.id, r.id), 0)
            if amount <= 0 or not r.gated:
                continue
            for wall in r.requires_lethal:
                if space.is_lethally_assigned(wall, received, touched):
                    continue
                c = combat.creature(wall)
                state = f"toughness {c.toughness}"
                if c.damage:
                    state += f", {c.damage} damage marked"
                found.append(Violation(
                    r.rule, source.id, r.id,
                    f"{label(source.id)} assigns {amount} to {label(r.id)}, but {label(wall)} "
                    f"({state}) has been assigned {received.get(wall, 0)} of the "
                    f"{c.lethal_need} it needs first ({r.rule})"))
            walker = r.requires_loyalty
            if walker is not None and not space.is_loyalty_assigned(walker, received):
                loyalty = combat.planeswalker(walker).loyalty
                found.append(Violation(
                    "702.19c", source.id, r.id,
                    f"{label(source.id)} assigns {amount} to {label(r.id)}, but {label(walker)} "
                    f"(loyalty {loyalty}) has been assigned {received.get(walker, 0)} of the "
                    f"{loyalty} it needs first (702.19c)"))
    return found
