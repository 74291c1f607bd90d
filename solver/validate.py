"""Judge an assignment against the legal space: every violation, with its rule."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
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


NAMED_RECIPIENTS = 5
"""Recipients a message names before it says how many more there are (a message stays a
line whatever the combat's size)."""


def _some(names: list[str]) -> str:
    """At most :data:`NAMED_RECIPIENTS` of ``names``, then how many more."""
    if len(names) <= NAMED_RECIPIENTS:
        return ", ".join(names)
    shown = ", ".join(names[:NAMED_RECIPIENTS])
    return f"{shown} and {len(names) - NAMED_RECIPIENTS:,} more"


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
    return list(each_violation(space, amounts))


def each_violation(space: LegalSpace, amounts: Mapping[tuple[str, str], int]
                   ) -> Iterator[Violation]:
    """The violations of ``amounts`` one at a time, in the order :func:`violations` lists
    them (a caller that wants only the first few stops early)."""
    combat = space.combat
    label = combat.label
    given: dict[str, int] = {}
    for (source_id, target), amount in amounts.items():
        if amount <= 0:
            continue
        source = space.by_id.get(source_id)
        if source is None:
            rule, why = space.idle[source_id]
            yield Violation(rule, source_id, target,
                            f"{label(source_id)} {why}, but it is assigned {amount} "
                            f"to {label(target)}")
            continue
        # Every entry counts toward what the source assigns (510.1a), a misdirected one
        # too: its wrong recipient is reported on its own, the total only if it is wrong.
        given[source_id] = given.get(source_id, 0) + amount
        if (source_id, target) not in space.pairs:
            if source.recipients:
                allowed = _some([label(r.id) for r in source.recipients])
                where = f"it may assign only to {allowed}"
            else:
                where = "it has nothing it may assign damage to"
            yield Violation(_misdirected_rule(space, source, target), source_id, target,
                            f"{label(source_id)} assigns {amount} to {label(target)}, "
                            f"but {where}")

    for source in space.sources:
        total = given.get(source.id, 0)
        if not source.recipients or total == source.power:
            continue
        why = (": more than its power" if total > source.power
               else "; it must assign all of it")
        yield Violation("510.1a", source.id, None,
                        f"{label(source.id)} assigns {total} of its {source.power} "
                        f"combat damage{why}")

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
                yield Violation(
                    r.rule, source.id, r.id,
                    f"{label(source.id)} assigns {amount} to {label(r.id)}, but {label(wall)} "
                    f"({state}) has been assigned {received.get(wall, 0)} of the "
                    f"{c.lethal_need} it needs first ({r.rule})")
            walker = r.requires_loyalty
            if walker is not None and not space.is_loyalty_assigned(walker, received):
                loyalty = combat.planeswalker(walker).loyalty
                yield Violation(
                    "702.19c", source.id, r.id,
                    f"{label(source.id)} assigns {amount} to {label(r.id)}, but {label(walker)} "
                    f"(loyalty {loyalty}) has been assigned {received.get(walker, 0)} of the "
                    f"{loyalty} it needs first (702.19c)")
