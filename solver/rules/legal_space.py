"""The legal space of one combat damage step: the one place where assignment rules live.

For a combat and a side, :func:`legal_space` computes once which creatures assign
(510.1a, 510.4), to which recipients (510.1b-d, 702.19b-f), under which conditions
(a recipient may get damage only once some blockers are lethally assigned and, for
trample over planeswalkers, a planeswalker is loyalty-assigned), and which sources are
coupled. The validator, the CP-SAT model, the counter and the sampler all read this
structure; none of them re-derives a rule.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, NamedTuple, TypeVar, overload

from mypy_extensions import mypyc_attr

from trample.models.document.assignment import Pair
from trample.models.document.combat import (
    DEATHTOUCH,
    DOUBLE_STRIKE,
    FIRST_STRIKE,
    INDESTRUCTIBLE,
    NO_EFFECTS,
    TRAMPLE_OVER_PLANESWALKERS,
    Combat,
    Creature,
    Kind,
    Step,
)
from trample.models.document.errors import InputError
from trample.models.document.rule_index import Rule
from trample.solver.rules.choosers import Side, chooser, moved_choices

# Python 3.11 finds an enum member through a descriptor on each access (about 0.25 us,
# ten times a global); the legal space of every request names several, so it reads
# them from module globals.
_R506_4C = Rule.R506_4C
_R510_1 = Rule.R510_1
_R510_1A = Rule.R510_1A
_R510_1B = Rule.R510_1B
_R510_1C = Rule.R510_1C
_R510_1D = Rule.R510_1D
_R510_4 = Rule.R510_4
_R702_19B = Rule.R702_19B
_R702_19C = Rule.R702_19C
_R702_19E = Rule.R702_19E
_R702_19F = Rule.R702_19F
_R702_22J = Rule.R702_22J
_R702_22K = Rule.R702_22K

Mode = Literal["blocked", "unblocked"]
"""How an attacker with ``as_though_unblocked`` assigns in one of its two sets of splits:
as the blocked creature it is, or as though it weren't blocked (its legal splits are the
union of both)."""

MAX_ALTERNATIVES = 10
"""Attackers with ``as_though_unblocked`` (and blockers) one request may hold: each doubles
the sets of splits a request searches (and triples what an exact count adds up)."""

T = TypeVar("T")


class derived(Generic[T]):
    """:func:`functools.cached_property` without the lock Python 3.11 takes on each first
    read (Python 3.12 dropped it): a legal space is built for every request and several of
    its derived facts are read once, so the lock was a measurable part of a tiny request.
    Computing a fact twice on two threads is harmless: each is a pure function."""

    def __init__(self, func: Callable[[Any], T]) -> None:
        self.func = func
        # (Compiled methods have no __name__; __set_name__ gives the name in any case.)
        self.name = getattr(func, "__name__", "")
        self.__doc__ = func.__doc__

    def __set_name__(self, owner: type, name: str) -> None:
        self.name = name

    @overload
    def __get__(self, obj: None, owner: type | None = None) -> derived[T]: ...

    @overload
    def __get__(self, obj: object, owner: type | None = None) -> T: ...

    def __get__(self, obj: object, owner: type | None = None) -> T | derived[T]:
        if obj is None:
            return self
        value = obj.__dict__[self.name] = self.func(obj)
        return value


_NO_PAIRS: frozenset[Pair] = frozenset()


@dataclass(frozen=True, slots=True)
class Recipient:
    """One thing a source may assign damage to, and what must hold before it gets any.

    ``requires_lethal`` lists creatures that must all be lethally assigned and
    ``requires_loyalty`` a planeswalker that must be loyalty-assigned before this
    recipient may be assigned more than 0; ``rule`` is the rule that imposes that.
    :attr:`LegalSpace.conditions` spells these out with their thresholds.
    """

    id: str
    kind: Kind
    requires_lethal: tuple[str, ...] = ()
    requires_loyalty: str | None = None
    rule: Rule | None = None

    def __init__(self, id: str, kind: Kind, requires_lethal: tuple[str, ...] = (),
                 requires_loyalty: str | None = None, rule: Rule | None = None) -> None:
        # Written out (the fields, in order, with their defaults; a test compares them):
        # native in the compiled build, where the dataclass's generated one is not.
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "kind", kind)
        object.__setattr__(self, "requires_lethal", requires_lethal)
        object.__setattr__(self, "requires_loyalty", requires_loyalty)
        object.__setattr__(self, "rule", rule)

    @property
    def gated(self) -> bool:
        """Whether any condition applies to this recipient."""
        return bool(self.requires_lethal) or self.requires_loyalty is not None

    @property
    def requires(self) -> tuple[str, ...]:
        """Every item whose threshold must be met first: the creatures, then the
        planeswalker (:attr:`LegalSpace.conditions` gives the thresholds and rules)."""
        if self.requires_loyalty is None:
            return self.requires_lethal
        return (*self.requires_lethal, self.requires_loyalty)


@dataclass(frozen=True, slots=True)
class Source:
    """A creature that assigns combat damage in this step, on this side.

    ``rule`` is the rule that decides its recipients, quoted when it assigns to anything
    else unless ``elsewhere`` names a more specific rule for that target (702.19f: the
    player whose planeswalker it attacks); a source with no recipients assigns nothing.
    """

    id: str
    power: int
    deathtouch: bool
    recipients: tuple[Recipient, ...]
    rule: Rule
    elsewhere: tuple[tuple[str, Rule], ...] = ()

    def __init__(self, id: str, power: int, deathtouch: bool,
                 recipients: tuple[Recipient, ...], rule: Rule,
                 elsewhere: tuple[tuple[str, Rule], ...] = ()) -> None:
        # Written out, as Recipient's.
        object.__setattr__(self, "id", id)
        object.__setattr__(self, "power", power)
        object.__setattr__(self, "deathtouch", deathtouch)
        object.__setattr__(self, "recipients", recipients)
        object.__setattr__(self, "rule", rule)
        object.__setattr__(self, "elsewhere", elsewhere)

    def rule_against(self, target: str) -> Rule:
        """The rule broken when it assigns damage to ``target``, not one of its recipients."""
        for other, rule in self.elsewhere:
            if other == target:
                return rule
        return self.rule

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


class Condition(NamedTuple):
    """One thing that must hold before a gated recipient may be assigned more than 0.

    ``item`` (a creature for ``lethal``, a planeswalker for ``loyalty``) must have been
    assigned at least ``threshold`` by all sources together: for a creature its toughness
    less the damage marked on it (510.1e), for a planeswalker its loyalty (702.19c). A
    creature also meets it when a source with deathtouch assigns it any damage (702.2c).
    ``rule`` is the rule quoted when it fails. (A named tuple, not a dataclass: the legal
    space of every request builds them, and a tuple is several times cheaper to make.)
    """

    item: str
    kind: Literal["lethal", "loyalty"]
    threshold: int
    rule: Rule


@dataclass(frozen=True, slots=True)
class Columns:
    """The legal space as array columns, for judges that work on many assignments at once.

    Column ``j`` is the ``j``-th legal (source, recipient) pair of :attr:`LegalSpace.pairs`;
    a source's columns are contiguous. ``starts`` and ``powers``: each assigning source's
    first column and its power (510.1a). ``items``: every creature and planeswalker some
    condition reads, with the columns that assign to it, those among them whose source has
    deathtouch (702.2c), and its threshold. ``gates``: each gated column and the indices
    (into ``items``) of the items whose thresholds must all be met before it gets damage.
    """

    starts: tuple[int, ...]
    powers: tuple[int, ...]
    items: tuple[str, ...]
    item_columns: tuple[tuple[int, ...], ...]
    item_touch: tuple[tuple[int, ...], ...]
    thresholds: tuple[int, ...]
    gates: tuple[tuple[int, tuple[int, ...]], ...]


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

    def __init__(self, sources: tuple[Source, ...], lethal_items: tuple[str, ...],
                 loyalty_items: tuple[str, ...]) -> None:
        # Written out, as Recipient's.
        object.__setattr__(self, "sources", sources)
        object.__setattr__(self, "lethal_items", lethal_items)
        object.__setattr__(self, "loyalty_items", loyalty_items)


def lethal_need(left: int, deathtouch: bool) -> int:
    """What a source must still assign a recipient whose threshold is ``left`` away: 0
    when it is reached, 1 from a source with deathtouch to a creature (702.2c), else
    ``left`` (510.1e lethal damage, 702.19c loyalty). :meth:`LegalSpace.still_needed`
    reads it, and so do the paths that work on a tiny combat's integers without a legal
    space."""
    if left <= 0:
        return 0
    return 1 if deathtouch else left


# A regular Python class even in the compiled build (``trample.solver.native``): its
# derived facts are kept in the instance's ``__dict__``, which compiled classes lack.
@mypyc_attr(native_class=False)
@dataclass(frozen=True)
class LegalSpace:
    """Who assigns, to whom, under which conditions, for one side in one step."""

    combat: Combat
    side: Side
    step: Step
    sources: tuple[Source, ...]
    idle: dict[str, tuple[Rule, str]]
    """Creatures that assign nothing here: id -> (rule, reason)."""
    alternatives: tuple[str, ...] = ()
    """Sources with two sets of splits (``as_though_unblocked`` and blocked): the space's
    recipients and conditions are those of their blocked splits; :func:`mode_space` gives
    the space with each of them fixed to one set. Empty when ``modes`` fixed them."""
    modes: tuple[tuple[str, Mode], ...] = ()
    """The set of splits each source with two was fixed to, when built by
    :func:`mode_space`."""
    memo: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)
    """Structures other modules derive from this space once (e.g. objective scoring)."""

    def __init__(self, combat: Combat, side: Side, step: Step, sources: tuple[Source, ...],
                 idle: dict[str, tuple[Rule, str]], alternatives: tuple[str, ...] = (),
                 modes: tuple[tuple[str, Mode], ...] = (),
                 memo: dict[str, Any] | None = None) -> None:
        # Written out (the fields, in order, with their defaults; ``memo`` a new dict
        # when not given, as its default factory makes): compiled in the compiled build,
        # where the dataclass's generated one is interpreted, and every request builds
        # a space. Stored in the instance's dict, where a frozen dataclass's fields live
        # (the frozen __setattr__ refuses; object.__setattr__ is a generic call each).
        fields = self.__dict__
        fields["combat"] = combat
        fields["side"] = side
        fields["step"] = step
        fields["sources"] = sources
        fields["idle"] = idle
        fields["alternatives"] = alternatives
        fields["modes"] = modes
        fields["memo"] = {} if memo is None else memo

    @derived
    def pairs(self) -> dict[Pair, Recipient]:
        """Every legal (source, recipient) pair, and the recipient's conditions."""
        return {(s.id, r.id): r for s in self.sources for r in s.recipients}

    @derived
    def forced(self) -> dict[Pair, int] | None:
        """The one legal split when no source has a choice (each has at most one
        recipient, free of conditions, and must give it all its damage, 510.1a); None
        when some source chooses."""
        if self.alternatives:
            return None
        split: dict[Pair, int] = {}
        for s in self.sources:
            if len(s.recipients) > 1:
                return None
            if s.recipients:
                r = s.recipients[0]
                if r.requires_lethal or r.requires_loyalty is not None:
                    return None
                if s.power > 0:
                    split[(s.id, r.id)] = s.power
        return split

    @derived
    def deathtouchers(self) -> frozenset[str]:
        """The sources with deathtouch."""
        return frozenset(s.id for s in self.sources if s.deathtouch)

    @derived
    def by_id(self) -> dict[str, Source]:
        """Sources by id."""
        return {s.id: s for s in self.sources}

    @derived
    def need(self) -> dict[str, int]:
        """For each creature that can receive damage: damage still needed for lethal."""
        out: dict[str, int] = {}
        for s in self.sources:
            for r in s.recipients:
                if r.kind == "creature":
                    out[r.id] = self.combat.creature(r.id).lethal_need
        return out

    @derived
    def loyalty(self) -> dict[str, int]:
        """For each planeswalker that can receive damage: its loyalty."""
        return {r.id: self.combat.planeswalker(r.id).loyalty
                for s in self.sources for r in s.recipients if r.kind == "planeswalker"}

    @derived
    def senders(self) -> dict[str, tuple[Source, ...]]:
        """For each recipient id, the sources that may assign to it."""
        out: dict[str, list[Source]] = {}
        for s in self.sources:
            for r in s.recipients:
                out.setdefault(r.id, []).append(s)
        return {k: tuple(v) for k, v in out.items()}

    @derived
    def gating_creatures(self) -> frozenset[str]:
        """Creatures whose lethal status gates some recipient."""
        return frozenset(c for s in self.sources for r in s.recipients
                         for c in r.requires_lethal)

    @derived
    def gating_planeswalkers(self) -> frozenset[str]:
        """Planeswalkers whose loyalty status gates some recipient."""
        return frozenset(r.requires_loyalty for s in self.sources for r in s.recipients
                         if r.requires_loyalty is not None)

    @derived
    def kill_candidates(self) -> tuple[Creature, ...]:
        """The opposing creatures in combat, whose deaths the objective ``kills`` counts."""
        c = self.combat
        return c.blockers if self.side == "attackers" else c.attackers

    @derived
    def thresholds(self) -> dict[str, int]:
        """For each creature and planeswalker that can receive damage, what must be assigned
        to it in all: lethal damage, its toughness less the damage marked on it (510.1e), or
        its loyalty (702.19c). 0 or less: met with nothing assigned."""
        combat = self.combat
        out: dict[str, int] = {}
        for s in self.sources:
            for r in s.recipients:
                kind = r.kind
                if kind == "creature":
                    out[r.id] = combat.creature(r.id).lethal_need
                elif kind == "planeswalker":
                    out[r.id] = combat.planeswalker(r.id).loyalty
        return out

    @derived
    def deathtouch_pairs(self) -> frozenset[Pair]:
        """Legal pairs any positive amount of which is lethal damage: from a source with
        deathtouch to a creature (702.2c)."""
        found = [(s.id, r.id) for s in self.sources if s.deathtouch
                 for r in s.recipients if r.kind == "creature"]
        return frozenset(found) if found else _NO_PAIRS

    @derived
    def conditions(self) -> dict[Recipient, tuple[Condition, ...]]:
        """The conditions of each recipient that has a rule (none for the others), blockers
        first: each must be lethally assigned (702.19b, 702.19c, 702.19e), then the
        planeswalker must be loyalty-assigned (702.19c)."""
        need = self.thresholds
        out: dict[Recipient, tuple[Condition, ...]] = {}
        for s in self.sources:
            for r in s.recipients:
                rule, walker = r.rule, r.requires_loyalty
                if rule is None:  # not gated
                    continue
                found = [Condition(c, "lethal", need[c], rule) for c in r.requires_lethal]
                if walker is not None:
                    found.append(Condition(walker, "loyalty", need[walker], _R702_19C))
                out[r] = tuple(found)
        return out

    @derived
    def columns(self) -> Columns:
        """The legal space in column form (see :class:`Columns`), built once."""
        pairs = self.pairs
        column = {pair: j for j, pair in enumerate(pairs)}
        starts = tuple(column[(s.id, s.recipients[0].id)] for s in self.sources if s.assigns)
        powers = tuple(s.power for s in self.sources if s.assigns)
        items: dict[str, int] = {}
        gates = []
        for pair, r in pairs.items():
            if r.gated:
                gates.append((column[pair], tuple(items.setdefault(c.item, len(items))
                                                  for c in self.conditions[r])))
        into: dict[str, list[int]] = {i: [] for i in items}
        touch: dict[str, list[int]] = {i: [] for i in items}
        touching = self.deathtouch_pairs
        for pair, j in column.items():
            if pair[1] in into:
                into[pair[1]].append(j)
                if pair in touching:
                    touch[pair[1]].append(j)
        return Columns(starts, powers, tuple(items), tuple(tuple(into[i]) for i in items),
                       tuple(tuple(touch[i]) for i in items),
                       tuple(self.thresholds[i] for i in items), tuple(gates))

    def received(self, amounts: Mapping[Pair, int]) -> dict[str, int]:
        """Total damage assigned to each target by the legal pairs of ``amounts``."""
        pairs = self.pairs
        totals: dict[str, int] = {}
        for pair, amount in amounts.items():
            if amount > 0 and pair in pairs:
                target = pair[1]
                totals[target] = totals.get(target, 0) + amount
        return totals

    def deathtouched(self, amounts: Mapping[Pair, int]) -> frozenset[str]:
        """Creatures that a source with deathtouch assigns at least 1 (702.2c)."""
        touching = self.deathtouch_pairs
        if not touching:
            return frozenset()
        return frozenset(pair[1] for pair, amount in amounts.items()
                         if amount > 0 and pair in touching)

    def gate_open(self, recipient: Recipient, received: Mapping[str, int],
                  deathtouched: Collection[str]) -> bool:
        """702.19b-e: whether ``recipient`` may be assigned more than 0 now that every
        source together assigns ``received`` (and deathtouch damage to ``deathtouched``):
        every creature it requires lethally assigned (510.1e, 702.2c), then the
        planeswalker it requires loyalty-assigned (702.19c)."""
        if not recipient.gated:
            return True
        for c in recipient.requires_lethal:
            if not self.is_lethally_assigned(c, received, deathtouched):
                return False
        walker = recipient.requires_loyalty
        return walker is None or self.is_loyalty_assigned(walker, received)

    def unmet(self, recipient: Recipient, received: Mapping[str, int],
              deathtouched: Collection[str]) -> list[Condition]:
        """The conditions of ``recipient`` that do not hold, in order, with their rules
        and thresholds (:attr:`conditions`); empty exactly when :meth:`gate_open`."""
        if not recipient.gated:
            return []
        return [c for c in self.conditions[recipient]
                if not (self.is_lethally_assigned(c.item, received, deathtouched)
                        if c.kind == "lethal" else self.is_loyalty_assigned(c.item, received))]

    def is_lethally_assigned(self, creature_id: str, received: Mapping[str, int],
                             deathtouched: Collection[str]) -> bool:
        """510.1e, 702.2c: marked plus assigned damage reaches toughness, or deathtouch."""
        need = self.thresholds.get(creature_id)
        if need is None:  # a creature nothing assigns to (a kill candidate, say)
            need = self.combat.creature(creature_id).lethal_need
        return received.get(creature_id, 0) >= need or creature_id in deathtouched

    def still_needed(self, source: Source, item: str, already: int = 0) -> int:
        """Damage ``source`` alone must still assign to its recipient ``item`` for the item's
        threshold to be reached, ``already`` being assigned by others: 0 when it is, 1 for
        a creature and a source with deathtouch (702.2c), else what is left of the
        creature's lethal damage (510.1e) or the planeswalker's loyalty (702.19c)."""
        return lethal_need(self.thresholds[item] - already,
                           (source.id, item) in self.deathtouch_pairs)

    def lethal_from(self, source: Source, creature_id: str, already: int = 0) -> int:
        """:meth:`still_needed` for a creature: what ``source`` must still assign to it for
        it to be lethally assigned."""
        return self.still_needed(source, creature_id, already)

    def is_loyalty_assigned(self, walker_id: str, received: Mapping[str, int]) -> bool:
        """702.19c: damage assigned to the planeswalker reaches its loyalty."""
        return received.get(walker_id, 0) >= self.thresholds[walker_id]

    def is_killable(self, creature: Creature) -> bool:
        """Lethal damage destroys it (not indestructible)."""
        return not creature.has(INDESTRUCTIBLE)

    @derived
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


def legal_space(combat: Combat, side: Side,
                modes: Mapping[str, Mode] | None = None) -> LegalSpace:
    """Derive who assigns, to whom and under which conditions (SPEC §2, §10).

    A creature belongs to the side that chooses its split (:func:`.choosers.chooser`: its
    controller's, or the other side's under 702.22j-k or ``assigned_by``); a blocked
    attacker that may assign as though it weren't blocked and whose split the other side
    chooses is refused (InputError). A blocked
    attacker with ``as_though_unblocked`` has two sets of splits: without ``modes`` its
    blocked ones are the space's and its id is listed in :attr:`LegalSpace.alternatives`;
    ``modes`` fixes each such attacker to one set (``unblocked``: as though it weren't
    blocked, 510.1b, 702.19c, 702.19e)."""
    sources: list[Source] = []
    idle: dict[str, tuple[Rule, str]] = {}
    alternatives: list[str] = []
    moved = moved_choices(combat)
    if moved:
        _refuse_two_choices(combat, moved)
    attackers = side == "attackers"
    for creature in combat.creatures:
        mine = (creature.attacking is not None) if attackers else bool(creature.blocking)
        if moved:
            mine = chooser(combat, creature) == side
        if not mine:
            idle[creature.id] = _not_chosen(combat, creature, side, moved) \
                if moved else _NOT_ON_SIDE[side]
            continue
        if not assigns_in_step(creature, combat.step):
            if combat.step == "first_strike":
                why = "has neither first strike nor double strike, so it assigns no damage " \
                      "in the first-strike step"
            else:
                why = "has first strike without double strike, so it assigns no damage in " \
                      "the regular combat damage step"
            idle[creature.id] = (_R510_4, why)
            continue
        plain = creature.effects is NO_EFFECTS
        amount = creature.power if plain else creature.amount
        if amount <= 0:
            if creature.assigns == "none":
                why = "assigns no combat damage (an effect says so)"
            elif creature.assigns == "toughness":
                why = f"assigns damage equal to its toughness, {creature.toughness}, so it " \
                      "assigns no combat damage"
            else:
                why = f"has power {creature.power}, so it assigns no combat damage"
            idle[creature.id] = (_R510_1A, why)
            continue
        elsewhere: tuple[tuple[str, Rule], ...] = ()
        if creature.is_attacking:
            mode: Mode = "blocked"
            if not plain and creature.as_though_unblocked and combat.is_blocked(creature):
                if modes is None:
                    alternatives.append(creature.id)
                else:
                    mode = modes.get(creature.id, "blocked")
            recipients, rule, elsewhere = _attacker_recipients(combat, creature,
                                                               mode == "unblocked")
        else:
            # 702.19a: trample does nothing for a blocker.
            recipients = tuple(Recipient(a, "creature") for a in creature.blocking)
            rule = _R510_1D
        if moved and creature.id in moved and rule in (_R510_1C, _R510_1D):
            # 702.22j-k: the other player divides it, under the same rules.
            rule = _R702_22J if creature.is_attacking else _R702_22K
        sources.append(Source(creature.id, amount, creature.has(DEATHTOUCH),
                              recipients, rule, elsewhere))
    if len(alternatives) > MAX_ALTERNATIVES:
        index = next(i for i, c in enumerate(combat.creatures)
                     if c.id == alternatives[MAX_ALTERNATIVES])
        raise InputError(
            f"creatures[{index}].as_though_unblocked",
            f"{len(alternatives)} blocked attackers may assign as though they weren't "
            f"blocked: each doubles the sets of splits to search, and more than "
            f"{MAX_ALTERNATIVES} in one request are refused")
    chosen = tuple(sorted(modes.items())) if modes else ()
    return LegalSpace(combat, side, combat.step, tuple(sources), idle, tuple(alternatives),
                      chosen)


def mode_space(space: LegalSpace, modes: Mapping[str, Mode]) -> LegalSpace:
    """``space`` with each attacker of :attr:`LegalSpace.alternatives` fixed to one set of
    splits (``modes``; an attacker left out keeps its blocked splits), built once per
    choice of modes."""
    chosen = tuple(modes.get(a, "blocked") for a in space.alternatives)
    key = "mode_space " + " ".join(chosen)
    found = space.memo.get(key)
    if found is None:
        found = space.memo[key] = legal_space(space.combat, space.side,
                                              dict(zip(space.alternatives, chosen,
                                                       strict=True)))
    assert isinstance(found, LegalSpace)
    return found


KEPT_SPACE_BYTES = 16 << 10
KEPT_PAIR_BYTES = 1 << 10
KEPT_CREATURE_BYTES = 3 << 9
"""What a kept legal space holds once every kind of request has derived what it keeps in
it (its derived facts, the objective's scoring and parts, the answers and structures
kept for a handful of objectives): a fixed part, per (source, recipient) pair and per
creature of the combat. Measured with tracemalloc after solve (three objectives),
count, enumerate, sample, options, project, unrank, validate_many and validate, each
asked twice, on 70 small combats of the benchmark's families and the tests'
strategies (1 to 16 creatures): 12 to 41 KiB, at most 0.83 of this estimate."""
KEPT_MODE_BYTES = 12 << 10
KEPT_MODE_PAIR_BYTES = 1 << 9
"""What each mode space of a space with alternatives holds when the same requests have
derived what they keep in it, a fixed part and per pair (with its piece): measured 13 to
18 KiB a mode space on combats of 1 to 10 such attackers (4 to 22 pairs); the whole
space at 0.42 to 0.63 of the estimate."""


def held_bytes(space: LegalSpace) -> int:
    """An upper estimate of the memory ``space`` holds once requests have derived and kept
    in it all they keep (:data:`KEPT_SPACE_BYTES`), mode spaces and pieces included
    (:data:`KEPT_MODE_BYTES`, one for each set of splits of its alternatives): what a
    cache of spaces counts, before any request has grown it. What is kept per objective
    or per group is capped where it is kept, so that no caller can grow a kept space
    past this."""
    pairs = len(space.pairs) + 2 * len(space.alternatives)  # an alternative's other set
    held = KEPT_SPACE_BYTES + KEPT_PAIR_BYTES * pairs \
        + KEPT_CREATURE_BYTES * len(space.combat.creatures)
    if space.alternatives:
        held += (KEPT_MODE_BYTES + KEPT_MODE_PAIR_BYTES * pairs) << len(space.alternatives)
    return held


def modes_of(space: LegalSpace, amounts: Mapping[Pair, int]) -> dict[str, Mode]:
    """The set of splits that each attacker of :attr:`LegalSpace.alternatives` uses in
    ``amounts``: its blocked splits when it assigns damage to one of its blockers, or when
    it assigns nothing and has nothing to assign to as a blocked creature (510.1c); else
    the splits as though it weren't blocked. A split that sends nothing to the blockers
    and is legal as blocked is legal as unblocked too (all of it to what it attacks, or
    past that planeswalker to its controller), so this choice loses no legal split."""
    out: dict[str, Mode] = {}
    combat = space.combat
    for a in space.alternatives:
        walls = combat.blockers_of(a)
        if any(amounts.get((a, b), 0) > 0 for b in walls):
            out[a] = "blocked"
            continue
        source = space.by_id[a]
        assigns_any = any(amount > 0 for (s, _), amount in amounts.items() if s == a)
        out[a] = "blocked" if not assigns_any and not source.recipients else "unblocked"
    return out


_NOT_ON_SIDE: dict[Side, tuple[Rule, str]] = {
    "attackers": (_R510_1, "is not an attacking creature; for side 'attackers' only "
                           "attacking creatures assign damage"),
    "blockers": (_R510_1, "is not a blocking creature; for side 'blockers' only blocking "
                          "creatures assign damage"),
}
"""Why a creature of the other side assigns nothing, when no split changed sides."""


def _refuse_two_choices(combat: Combat, moved: Mapping[str, str]) -> None:
    """InputError on the first blocked attacker that may assign as though it weren't
    blocked while the other side chooses its split (``moved``): two choices of different
    players that trample does not model together."""
    for i, c in enumerate(combat.creatures):
        reason = moved.get(c.id)
        if reason is not None and c.as_though_unblocked:
            why = ("it is blocked by a creature with banding, so the defending player "
                   "assigns its combat damage (702.22j)" if reason == "702.22j"
                   else "its assigned_by is 'opponent'")
            raise InputError(f"creatures[{i}].as_though_unblocked", f"{why}; its "
                             "controller's choice to assign as though it weren't blocked "
                             "and the defending player's division of its damage are two "
                             "choices trample does not model together, so this is refused")


def _not_chosen(combat: Combat, creature: Creature, side: Side,
                moved: Mapping[str, str]) -> tuple[Rule, str]:
    """Why a creature assigns nothing in a request of ``side`` that is not its chooser's
    (``moved``: the creatures whose split the other side chooses, and why)."""
    reason = moved.get(creature.id)
    if reason == "702.22j":
        return _R702_22J, ("is blocked by a creature with banding, so the defending player "
                           "assigns its combat damage: it belongs to side 'blockers'")
    if reason == "702.22k":
        return _R702_22K, ("blocks a creature with banding, so the active player assigns "
                           "its combat damage: it belongs to side 'attackers'")
    if reason == "effect":
        other = "the defending player" if creature.is_attacking else "the active player"
        return _R510_1, (f"has its combat damage assigned by {other} (assigned_by "
                         f"'opponent'): it belongs to side '{chooser(combat, creature)}'")
    kind = "attacking" if side == "attackers" else "blocking"
    article = "an" if side == "attackers" else "a"
    return _R510_1, (f"is not {article} {kind} creature; for side '{side}' only {kind} "
                     "creatures assign damage")


def _attacker_recipients(combat: Combat, a: Creature, unblocked: bool = False) -> tuple[
        tuple[Recipient, ...], Rule, tuple[tuple[str, Rule], ...]]:
    """An attacking creature's recipients, the rule that decides them (the most specific
    row of the table of 510.1b-c and 702.19b-e applies) and the targets it may not assign
    to under a more specific rule (702.19f)."""
    assert a.attacking is not None
    recipients, rule = _attacker_rows(combat, a, unblocked)
    elsewhere: tuple[tuple[str, Rule], ...] = ()
    if combat.kind(a.attacking) == "planeswalker" and not a.has(TRAMPLE_OVER_PLANESWALKERS):
        # 702.19f: without trample over planeswalkers, nothing to the planeswalker's
        # controller, whatever else it may do.
        elsewhere = ((combat.planeswalker(a.attacking).controller, _R702_19F),)
    return recipients, rule, elsewhere


def _attacker_rows(combat: Combat, a: Creature,
                   unblocked: bool = False) -> tuple[tuple[Recipient, ...], Rule]:
    """The rows for an attacking creature; the most specific row applies. ``unblocked``:
    the rows of an attacker that assigns as though it weren't blocked."""
    assert a.attacking is not None
    target = a.attacking
    kind = combat.kind(target)
    live = combat.is_live(target)
    top_on_walker = a.has(TRAMPLE_OVER_PLANESWALKERS) and kind == "planeswalker"
    controller = combat.planeswalker(target).controller if kind == "planeswalker" else None
    blockers = combat.blockers_of(a.id)

    if unblocked or not combat.is_blocked(a):
        if live and top_on_walker:
            assert controller is not None
            return (Recipient(target, kind),
                    Recipient(controller, "player", (), target, _R702_19C)), _R702_19C
        if live:
            return (Recipient(target, kind),), _R510_1B
        if top_on_walker:
            assert controller is not None
            return (Recipient(controller, "player", (), None, _R702_19E),), _R702_19E
        return (), _R506_4C

    # 702.19d: with its blockers all gone, "every blocker lethally assigned" holds, so a
    # trampler assigns everything past them.
    walls = tuple(Recipient(b, "creature") for b in blockers)
    if not a.has_trample:
        return walls, _R510_1C
    if live and top_on_walker:
        assert controller is not None
        return (*walls, Recipient(target, kind, blockers, None, _R702_19B),
                Recipient(controller, "player", blockers, target, _R702_19C)), _R702_19C
    if live:
        return (*walls, Recipient(target, kind, blockers, None, _R702_19B)), _R702_19B
    if top_on_walker:
        assert controller is not None
        return (*walls, Recipient(controller, "player", blockers, None, _R702_19E)), \
            _R702_19E
    return walls, _R702_19B


