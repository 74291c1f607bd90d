"""The legal space of one combat damage step: the one place where assignment rules live.

For a combat and a side, :func:`legal_space` computes once which creatures assign
(510.1a, 510.4), to which recipients (510.1b-d, 702.19b-f), under which conditions
(a recipient may get damage only once some blockers are lethally assigned and, for
trample over planeswalkers, a planeswalker is loyalty-assigned), and which sources are
coupled. The validator, the CP-SAT model, the counter and the sampler all read this
structure; none of them re-derives a rule.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Literal

from trample.models.combat import (
    DEATHTOUCH,
    DOUBLE_STRIKE,
    FIRST_STRIKE,
    INDESTRUCTIBLE,
    TRAMPLE_OVER_PLANESWALKERS,
    Combat,
    Creature,
    Kind,
    Step,
)

Side = Literal["attackers", "blockers"]
SIDES: tuple[Side, ...] = ("attackers", "blockers")


@dataclass(frozen=True, slots=True)
class Recipient:
    """One thing a source may assign damage to, and what must hold before it gets any.

    ``requires_lethal`` lists creatures that must all be lethally assigned and
    ``requires_loyalty`` a planeswalker that must be loyalty-assigned before this
    recipient may be assigned more than 0; ``rule`` is the rule that imposes that.
    """

    id: str
    kind: Kind
    requires_lethal: tuple[str, ...] = ()
    requires_loyalty: str | None = None
    rule: str = ""

    @property
    def gated(self) -> bool:
        """Whether any condition applies to this recipient."""
        return bool(self.requires_lethal) or self.requires_loyalty is not None


@dataclass(frozen=True, slots=True)
class Source:
    """A creature that assigns combat damage in this step, on this side.

    ``rule`` is the rule that decides its recipients (quoted when it assigns to anything
    else); a source with no recipients assigns nothing.
    """

    id: str
    power: int
    deathtouch: bool
    recipients: tuple[Recipient, ...]
    rule: str

    def recipient(self, target: str) -> Recipient | None:
        """The recipient with id ``target``, if it is one."""
        for r in self.recipients:
            if r.id == target:
                return r
        return None

    @property
    def assigns(self) -> bool:
        """Whether it assigns anything (it has somewhere to put its damage)."""
        return bool(self.recipients)


@dataclass(frozen=True, slots=True)
class Part:
    """Sources whose legal amounts depend on each other, and the items they share.

    ``lethal_items`` are creatures whose lethal status gates a recipient of some source of
    the part and that receive from several of its sources; ``loyalty_items`` likewise for
    planeswalkers. Amounts in different parts are independent of each other.
    """

    sources: tuple[Source, ...]
    lethal_items: tuple[str, ...]
    loyalty_items: tuple[str, ...]


@dataclass(frozen=True)
class LegalSpace:
    """Who assigns, to whom, under which conditions, for one side in one step."""

    combat: Combat
    side: Side
    step: Step
    sources: tuple[Source, ...]
    idle: dict[str, tuple[str, str]]
    """Creatures that assign nothing here: id -> (rule, reason)."""
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """Structures other modules derive from this space once (e.g. objective scoring)."""

    @cached_property
    def pairs(self) -> dict[tuple[str, str], Recipient]:
        """Every legal (source, recipient) pair, and the recipient's conditions."""
        return {(s.id, r.id): r for s in self.sources for r in s.recipients}

    @cached_property
    def deathtouchers(self) -> frozenset[str]:
        """The sources with deathtouch."""
        return frozenset(s.id for s in self.sources if s.deathtouch)

    @cached_property
    def by_id(self) -> dict[str, Source]:
        """Sources by id."""
        return {s.id: s for s in self.sources}

    @cached_property
    def need(self) -> dict[str, int]:
        """For each creature that can receive damage: damage still needed for lethal."""
        out: dict[str, int] = {}
        for s in self.sources:
            for r in s.recipients:
                if r.kind == "creature":
                    out[r.id] = self.combat.creature(r.id).lethal_need
        return out

    @cached_property
    def loyalty(self) -> dict[str, int]:
        """For each planeswalker that can receive damage: its loyalty."""
        return {r.id: self.combat.planeswalker(r.id).loyalty
                for s in self.sources for r in s.recipients if r.kind == "planeswalker"}

    @cached_property
    def senders(self) -> dict[str, tuple[Source, ...]]:
        """For each recipient id, the sources that may assign to it."""
        out: dict[str, list[Source]] = {}
        for s in self.sources:
            for r in s.recipients:
                out.setdefault(r.id, []).append(s)
        return {k: tuple(v) for k, v in out.items()}

    @cached_property
    def gating_creatures(self) -> frozenset[str]:
        """Creatures whose lethal status gates some recipient."""
        return frozenset(c for s in self.sources for r in s.recipients
                         for c in r.requires_lethal)

    @cached_property
    def gating_planeswalkers(self) -> frozenset[str]:
        """Planeswalkers whose loyalty status gates some recipient."""
        return frozenset(r.requires_loyalty for s in self.sources for r in s.recipients
                         if r.requires_loyalty is not None)

    @cached_property
    def kill_candidates(self) -> tuple[Creature, ...]:
        """The opposing creatures in combat, whose deaths the objective ``kills`` counts."""
        c = self.combat
        return c.blockers if self.side == "attackers" else c.attackers

    def received(self, amounts: Mapping[tuple[str, str], int]) -> dict[str, int]:
        """Total damage assigned to each target by the legal pairs of ``amounts``."""
        pairs = self.pairs
        totals: dict[str, int] = {}
        for pair, amount in amounts.items():
            if amount > 0 and pair in pairs:
                target = pair[1]
                totals[target] = totals.get(target, 0) + amount
        return totals

    def deathtouched(self, amounts: Mapping[tuple[str, str], int]) -> frozenset[str]:
        """Creatures that a source with deathtouch assigns at least 1 (702.2c)."""
        killers = self.deathtouchers
        if not killers:
            return frozenset()
        pairs = self.pairs
        return frozenset(pair[1] for pair, amount in amounts.items()
                         if amount > 0 and pair[0] in killers and pair in pairs)

    def is_lethally_assigned(self, creature_id: str, received: Mapping[str, int],
                             deathtouched: frozenset[str]) -> bool:
        """510.1e, 702.2c: marked plus assigned damage reaches toughness, or deathtouch."""
        need = self.combat.creature(creature_id).lethal_need
        return received.get(creature_id, 0) >= need or creature_id in deathtouched

    def lethal_from(self, source: Source, creature_id: str, already: int = 0) -> int:
        """Damage ``source`` alone must still assign to ``creature_id`` for it to be
        lethally assigned, ``already`` being assigned by others: 0 when it is, 1 with
        deathtouch (702.2c), else what is left of its toughness (510.1e)."""
        need = self.combat.creature(creature_id).lethal_need - already
        if need <= 0:
            return 0
        return 1 if source.deathtouch else need

    def is_loyalty_assigned(self, walker_id: str, received: Mapping[str, int]) -> bool:
        """702.19c: damage assigned to the planeswalker reaches its loyalty."""
        return received.get(walker_id, 0) >= self.combat.planeswalker(walker_id).loyalty

    def is_killable(self, creature: Creature) -> bool:
        """Lethal damage destroys it (not indestructible)."""
        return not creature.has(INDESTRUCTIBLE)

    @cached_property
    def parts(self) -> tuple[Part, ...]:
        """Independent parts: sources coupled through a shared creature recipient, or a
        planeswalker whose loyalty gates trample over planeswalkers (702.19c)."""
        active = [s for s in self.sources if s.assigns]
        if len(active) < 2:  # the common tiny combat: nothing to share
            return tuple(Part((s,), (), ()) for s in active)
        links: list[tuple[int, int]] = []
        owner: dict[str, int] = {}
        for i, s in enumerate(active):
            for r in s.recipients:
                couples = r.kind == "creature" or (
                    r.kind == "planeswalker" and r.id in self.gating_planeswalkers)
                if couples:
                    links.append((owner.setdefault(r.id, i), i))
        groups = [[active[i] for i in members] for members in components(len(active), links)]
        parts = []
        for members in groups:
            # Every sender of a creature or gating planeswalker is in the same part, so
            # "shared within the part" is "sent to by several sources".
            counts: dict[str, int] = {}
            for s in members:
                for r in s.recipients:
                    counts[r.id] = counts.get(r.id, 0) + 1
            shared = [t for t, n in counts.items() if n > 1]
            parts.append(Part(
                tuple(members),
                tuple(t for t in shared if t in self.gating_creatures),
                tuple(t for t in shared if t in self.gating_planeswalkers),
            ))
        return tuple(parts)


def components(count: int, links: Iterable[tuple[int, int]]) -> list[list[int]]:
    """The connected components of ``count`` items joined by ``links`` (union-find), each
    in item order, ordered by their first item."""
    parent = list(range(count))

    def find(i: int) -> int:
        while parent[i] != i:
            parent[i] = parent[parent[i]]
            i = parent[i]
        return i

    for a, b in links:
        parent[find(a)] = find(b)
    out: dict[int, list[int]] = {}
    for i in range(count):
        out.setdefault(find(i), []).append(i)
    return sorted(out.values(), key=lambda members: members[0])


def assigns_in_step(creature: Creature, step: Step) -> bool:
    """510.4: first-strike step: first or double strike; regular: double or no first."""
    if step == "first_strike":
        return creature.has_first_strike
    return creature.has(DOUBLE_STRIKE) or not creature.has(FIRST_STRIKE)


def legal_space(combat: Combat, side: Side) -> LegalSpace:
    """Derive who assigns, to whom and under which conditions (SPEC §2)."""
    sources: list[Source] = []
    idle: dict[str, tuple[str, str]] = {}
    for creature in combat.creatures:
        on_side = creature.is_attacking if side == "attackers" else creature.is_blocking
        if not on_side:
            kind = "attacking" if side == "attackers" else "blocking"
            article = "an" if side == "attackers" else "a"
            idle[creature.id] = ("510.1", f"is not {article} {kind} creature; for side "
                                 f"'{side}' only {kind} creatures assign damage")
            continue
        if not assigns_in_step(creature, combat.step):
            if combat.step == "first_strike":
                why = "has neither first strike nor double strike, so it assigns no damage " \
                      "in the first-strike step"
            else:
                why = "has first strike without double strike, so it assigns no damage in " \
                      "the regular combat damage step"
            idle[creature.id] = ("510.4", why)
            continue
        if creature.power <= 0:
            idle[creature.id] = ("510.1a", f"has power {creature.power}, so it assigns no "
                                 "combat damage")
            continue
        if side == "attackers":
            recipients, rule = _attacker_recipients(combat, creature)
        else:
            recipients = tuple(Recipient(a, "creature") for a in creature.blocking)
            rule = "510.1d"
        sources.append(Source(creature.id, creature.power, creature.has(DEATHTOUCH),
                              recipients, rule))
    return LegalSpace(combat, side, combat.step, tuple(sources), idle)


def _attacker_recipients(combat: Combat, a: Creature) -> tuple[tuple[Recipient, ...], str]:
    """The rows of SPEC §2 for an attacking creature; the most specific row applies."""
    assert a.attacking is not None
    target = a.attacking
    kind = combat.kind(target)
    live = combat.is_live(target)
    top_on_walker = a.has(TRAMPLE_OVER_PLANESWALKERS) and kind == "planeswalker"
    controller = combat.planeswalker(target).controller if kind == "planeswalker" else None
    blockers = combat.blockers_of(a.id)

    if not combat.is_blocked(a):
        if live and top_on_walker:
            assert controller is not None
            return (Recipient(target, kind),
                    Recipient(controller, "player", (), target, "702.19c")), "702.19c"
        if live:
            return (Recipient(target, kind),), "510.1b"
        if top_on_walker:
            assert controller is not None
            return (Recipient(controller, "player", (), None, "702.19e"),), "702.19e"
        return (), "506.4c"

    walls = tuple(Recipient(b, "creature") for b in blockers)
    if not a.has_trample:
        return walls, "510.1c"
    if live and top_on_walker:
        assert controller is not None
        return (*walls, Recipient(target, kind, blockers, None, "702.19b"),
                Recipient(controller, "player", blockers, target, "702.19c")), "702.19c"
    if live:
        return (*walls, Recipient(target, kind, blockers, None, "702.19b")), "702.19b"
    if top_on_walker:
        assert controller is not None
        return (*walls, Recipient(controller, "player", blockers, None, "702.19e")), "702.19e"
    return walls, "702.19b"
