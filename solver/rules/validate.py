"""Judge an assignment against the legal space: every violation, with its rule."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from trample.models.document.assignment import Pair
from trample.models.document.combat import Combat, Creature
from trample.models.document.errors import InternalError
from trample.models.document.rule_index import Rule
from trample.solver.rules.choosers import SIDES, Side, chooser
from trample.solver.rules.legal_space import (
    Condition,
    LegalSpace,
    Recipient,
    Source,
    legal_space,
    mode_space,
    modes_of,
)


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


NAMED_RECIPIENTS = 5
"""Recipients a message names before it says how many more there are (a message stays a
line whatever the combat's size)."""


def _some(names: list[str]) -> str:
    """At most :data:`NAMED_RECIPIENTS` of ``names``, then how many more."""
    if len(names) <= NAMED_RECIPIENTS:
        return ", ".join(names)
    shown = ", ".join(names[:NAMED_RECIPIENTS])
    return f"{shown} and {len(names) - NAMED_RECIPIENTS:,} more"


def violations(space: LegalSpace, amounts: Mapping[Pair, int]) -> list[Violation]:
    """Every violation of ``amounts`` (positive amounts only matter); empty means legal."""
    return list(each_violation(space, amounts))


def each_violation(space: LegalSpace, amounts: Mapping[Pair, int]
                   ) -> Iterator[Violation]:
    """The violations of ``amounts`` one at a time, in the order :func:`violations` lists
    them (a caller that wants only the first few stops early). An attacker that may
    assign as though it weren't blocked is judged by the set of splits its own split
    belongs to (:func:`~trample.solver.rules.legal_space.modes_of`). A source that is no
    creature of the combat assigns no combat damage (510.1)."""
    if space.alternatives:
        space = mode_space(space, modes_of(space, amounts))
    pairs = space.pairs
    given: dict[str, int] = {}
    for pair, amount in amounts.items():
        if amount <= 0:
            continue
        if pair in pairs:  # the common case: one of the space's legal pairs
            source_id = pair[0]
            given[source_id] = given.get(source_id, 0) + amount
            continue
        source_id, target = pair
        label = space.combat.label
        source = space.by_id.get(source_id)
        if source is None:
            rule, why = space.idle.get(source_id, _NOT_IN_COMBAT)
            yield Violation(rule, source_id, target,
                            f"{label(source_id)} {why}, but it is assigned {amount} "
                            f"to {label(target)}")
            continue
        # Every entry counts toward what the source assigns (510.1a), a misdirected one
        # too: its wrong recipient is reported on its own, the total only if it is wrong.
        given[source_id] = given.get(source_id, 0) + amount
        if source.recipients:
            allowed = _some([label(r.id) for r in source.recipients])
            where = f"it may assign only to {allowed}"
        else:
            where = "it has nothing it may assign damage to"
        yield Violation(source.rule_against(target), source_id, target,
                        f"{label(source_id)} assigns {amount} to {label(target)}, "
                        f"but {where}")

    for source in space.sources:
        total = given.get(source.id, 0)
        if total == source.power or not source.recipients:
            continue
        why = (": more than its power" if total > source.power
               else "; it must assign all of it")
        yield Violation(Rule.R510_1A, source.id, None,
                        f"{space.combat.label(source.id)} assigns {total} of its "
                        f"{source.power} combat damage{why}")

    received: dict[str, int] | None = None
    touched: frozenset[str] = frozenset()
    for source in space.sources:
        for r in source.recipients:
            if r.rule is None:  # not gated (the rule of a condition comes with it)
                continue
            amount = amounts.get((source.id, r.id), 0)
            if amount <= 0:
                continue
            if received is None:  # only once some gated recipient is assigned damage
                received = space.received(amounts)
                touched = space.deathtouched(amounts)
            # The legal space judges the conditions (702.19b-e); this only words them.
            if not space.gate_open(r, received, touched):
                yield from _unmet_violations(space, source, r, amount,
                                             space.unmet(r, received, touched), received)


def _unmet_violations(space: LegalSpace, source: Source, r: Recipient, amount: int,
                      unmet: list[Condition], received: Mapping[str, int]
                      ) -> Iterator[Violation]:
    """The words for each condition of ``r`` that ``source``'s ``amount`` to it breaks:
    the creatures not lethally assigned first, then the planeswalker."""
    combat = space.combat
    label = combat.label
    for wall, rule in [(u.item, u.rule) for u in unmet if u.kind == "lethal"]:
        c = combat.creature(wall)
        state = f"toughness {c.toughness}"
        if c.damage:
            state += f", {c.damage} damage marked"
        yield Violation(
            rule, source.id, r.id,
            f"{label(source.id)} assigns {amount} to {label(r.id)}, but {label(wall)} "
            f"({state}) has been assigned {received.get(wall, 0)} of the "
            f"{c.lethal_need} it needs first ({rule})")
    for walker, rule in [(u.item, u.rule) for u in unmet if u.kind == "loyalty"]:
        loyalty = combat.planeswalker(walker).loyalty
        yield Violation(
            rule, source.id, r.id,
            f"{label(source.id)} assigns {amount} to {label(r.id)}, but {label(walker)} "
            f"(loyalty {loyalty}) has been assigned {received.get(walker, 0)} of the "
            f"{loyalty} it needs first ({rule})")


def step_violations(combat: Combat, amounts: Mapping[Pair, int]) -> list[Violation]:
    """Every rule a split of both sides of one step breaks (510.2: they assign at once);
    empty means legal. A creature's entries are judged against the legal space of the
    side that chooses its split (:func:`~trample.solver.rules.choosers.chooser`: its
    controller's, or the other's under 702.22j-k); a source that is no attacking or
    blocking creature of the combat is judged with the blockers', where it assigns no
    combat damage (510.1)."""
    by_side: dict[Side, dict[Pair, int]] = {"attackers": {}, "blockers": {}}
    for pair, amount in amounts.items():
        if amount <= 0:
            continue
        found = combat.get(pair[0]) if pair[0] in combat else None
        side = chooser(combat, found) if isinstance(found, Creature) else None
        by_side[side or "blockers"][pair] = amount
    out: list[Violation] = []
    for side in SIDES:
        out += violations(legal_space(combat, side), by_side[side])
    return out


def is_legal(space: LegalSpace, amounts: Mapping[Pair, int]) -> bool:
    """Whether ``amounts`` breaks no rule: :func:`violations` is empty."""
    for _ in each_violation(space, amounts):
        return False
    return True


_NOT_IN_COMBAT = (Rule.R510_1, "is not an attacking or blocking creature in this combat, "
                  "so it assigns no combat damage")
"""Why a source that is no creature of the combat (in neither side's space) assigns
nothing."""


def check_answer(space: LegalSpace, amounts: Mapping[Pair, int], what: str) -> None:
    """Never let an illegal answer out: ``amounts`` is what trample's ``what`` (solve,
    sample, ...) produced, so a violation here is a bug in trample (InternalError). A
    caller's own split is judged by :func:`violations` instead."""
    found = violations(space, amounts)
    if found:
        raise InternalError(f"{what} produced an illegal assignment: {found[0].message} "
                            f"({found[0].rule})")
