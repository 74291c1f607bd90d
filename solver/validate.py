"""Judge an assignment against the legal space: every violation, with its rule."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from trample.models.rule_index import Rule
from trample.solver.rules import LegalSpace


@dataclass(frozen=True, slots=True)
class Violation:
    """One way an assignment breaks the rules."""

    rule: str
    source: str
    target: str | None
    message: str

    def to_json(self) -> dict[str, Any]:
        """``{"rule", "source", "target", "message"}`` as SPEC §5 prints it."""
        return {"rule": str(self.rule), "source": self.source, "target": self.target,
                "message": self.message}


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
            found.append(Violation(source.rule_against(target), source_id, target,
                                   f"{label(source_id)} assigns {amount} to {label(target)}, "
                                   f"but {where}"))
            continue
        given[source_id] = given.get(source_id, 0) + amount

    for source in space.sources:
        total = given.get(source.id, 0)
        if source.recipients and total != source.power:
            found.append(Violation(Rule.R510_1A, source.id, None,
                                   f"{label(source.id)} assigns {total} of its {source.power} "
                                   "combat damage; it must assign all of it"))

    received = space.received(amounts)
    touched = space.deathtouched(amounts)
    for source in space.sources:
        for r in source.recipients:
            amount = amounts.get((source.id, r.id), 0)
            if amount <= 0 or not r.gated:
                continue
            # The legal space judges the conditions (702.19b-e); this only words them.
            unmet = space.unmet(r, received, touched)
            for wall, rule in [(u.item, u.rule) for u in unmet if u.kind == "lethal"]:
                c = combat.creature(wall)
                state = f"toughness {c.toughness}"
                if c.damage:
                    state += f", {c.damage} damage marked"
                found.append(Violation(
                    rule, source.id, r.id,
                    f"{label(source.id)} assigns {amount} to {label(r.id)}, but {label(wall)} "
                    f"({state}) has been assigned {received.get(wall, 0)} of the "
                    f"{c.lethal_need} it needs first ({rule})"))
            for walker, rule in [(u.item, u.rule) for u in unmet if u.kind == "loyalty"]:
                loyalty = combat.planeswalker(walker).loyalty
                found.append(Violation(
                    rule, source.id, r.id,
                    f"{label(source.id)} assigns {amount} to {label(r.id)}, but {label(walker)} "
                    f"(loyalty {loyalty}) has been assigned {received.get(walker, 0)} of the "
                    f"{loyalty} it needs first ({rule})"))
    return found
