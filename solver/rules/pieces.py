"""The pairs and pieces of a legal space in which some blocked attacker may assign its
combat damage as though it weren't blocked (:attr:`LegalSpace.alternatives`).

Such an attacker's legal splits are the union of its splits as blocked and as though
unblocked; :func:`~trample.solver.rules.legal_space.mode_space` fixes each attacker to one
set and :func:`~trample.solver.rules.legal_space.modes_of` names the one set a split belongs
to, so the union falls into disjoint *pieces* (:class:`Piece`). Counting, enumerating,
sampling and judging such a combat read its pairs and pieces from here
(:mod:`trample.solver.actions.union`, :mod:`trample.solver.rules.validate_many`).

**Pairs.** :func:`union_pairs`: each source's pairs in document order of the sources;
an attacker's blockers in document order, then what it attacks, then that planeswalker's
controller (the pairs of both sets of splits of an attacker with two).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from itertools import product

from trample.models.document.assignment import Pair
from trample.solver.rules.legal_space import LegalSpace, Mode, components, mode_space

# -- pairs -------------------------------------------------------------------------------


def union_pairs(space: LegalSpace) -> list[Pair]:
    """Every (source, recipient) pair some legal split may use, in the order of
    :func:`~trample.solver.rules.validate_many.pair_columns` (see the module docstring)."""
    if not space.alternatives:
        return list(space.pairs)
    found = space.memo.get("union pairs")
    if found is None:
        unblocked = mode_space(space, dict.fromkeys(space.alternatives, "unblocked"))
        extra = {s.id: s for s in unblocked.sources}
        order: list[Pair] = []
        for s in space.sources:
            targets = [r.id for r in s.recipients]
            if s.id in space.alternatives:
                # Its blocked recipients (blockers, then what it attacks, then the
                # controller), then those only its other set has, in the same order.
                targets += [r.id for r in extra[s.id].recipients if r.id not in targets]
                targets = _output_order(space, s.id, targets)
            order.extend((s.id, t) for t in targets)
        found = space.memo["union pairs"] = order
    assert isinstance(found, list)
    return list(found)


def _output_order(space: LegalSpace, attacker: str, targets: list[str]) -> list[str]:
    """An attacker's recipients: its blockers in document order, what it attacks, then
    that planeswalker's controller."""
    combat = space.combat
    walls = combat.blockers_of(attacker)
    attacked = combat.creature(attacker).attacking
    rank = {b: i for i, b in enumerate(walls)}
    if attacked is not None:
        rank[attacked] = len(walls)
    return sorted(targets, key=lambda t: rank.get(t, len(walls) + 1))


def union_pair_set(space: LegalSpace) -> frozenset[Pair]:
    """:func:`union_pairs` as a set (built once per space)."""
    found = space.memo.get("union pair set")
    if found is None:
        found = space.memo["union pair set"] = frozenset(union_pairs(space))
    assert isinstance(found, frozenset)
    return found


# -- pieces ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Piece:
    """The splits of one mode space whose set of splits per attacker is ``modes``: those
    where each attacker of ``reaches`` assigns something to one of its blockers."""

    modes: tuple[tuple[str, Mode], ...]
    space: LegalSpace
    reaches: tuple[tuple[str, tuple[str, ...]], ...]
    """(attacker, its blockers it may assign to) for each attacker fixed to its blocked
    splits that has some: the piece holds the splits that give one of them damage."""

    def holds(self, amounts: Mapping[Pair, int]) -> bool:
        """Whether a legal split of :attr:`space` lies in this piece."""
        return all(any(amounts.get((a, b), 0) > 0 for b in walls)
                   for a, walls in self.reaches)


Choice = tuple[Mode, tuple[str, ...] | None]


def choices(space: LegalSpace, attacker: str) -> list[Choice]:
    """The sets of splits of ``attacker`` that hold a split :func:`modes_of` names, each
    with the blockers it must give damage to (None: no such condition)."""
    as_blocked = space.by_id[attacker]
    alone = mode_space(space, {attacker: "unblocked"}).by_id[attacker]
    walls = set(space.combat.blockers_of(attacker))
    reach = tuple(r.id for r in as_blocked.recipients if r.id in walls)
    mine: list[Choice] = []
    if not as_blocked.recipients:
        mine.append(("blocked", None))  # nothing to assign as blocked: the empty split
    elif reach:
        mine.append(("blocked", reach))
    # As blocked with recipients but no blocker (a trampler whose blockers are gone):
    # its splits give a blocker nothing, so they are the splits as though unblocked.
    if alone.recipients or as_blocked.recipients:
        # With nothing to assign to as though unblocked, the empty split belongs here
        # only when as blocked it had somewhere to put its damage (modes_of).
        mine.append(("unblocked", None))
    return mine


def pieces_of(space: LegalSpace, attackers: Sequence[str], sources: frozenset[str] | None
            ) -> list[Piece]:
    """The pieces of the modes of ``attackers`` (the others blocked), each mode space
    restricted to ``sources`` when given."""
    out: list[Piece] = []
    for pick in product(*(choices(space, a) for a in attackers)):
        modes = dict(zip(attackers, (m for m, _ in pick), strict=True))
        reaches = tuple((a, walls) for a, (_, walls) in zip(attackers, pick, strict=True)
                        if walls is not None)
        own = mode_space(space, modes)
        if sources is not None:
            own = replace(own, sources=tuple(s for s in own.sources if s.id in sources),
                          memo={})
        out.append(Piece(tuple(modes.items()), own, reaches))
    return out


def pieces(space: LegalSpace) -> list[Piece]:
    """The pieces that may hold a split, modes in the order of
    ``itertools.product(("blocked", "unblocked"), ...)`` over the attackers."""
    found = space.memo.get("union pieces")
    if found is None:
        found = space.memo["union pieces"] = pieces_of(space, space.alternatives, None)
    assert isinstance(found, list)
    return found


def union_components(space: LegalSpace) -> list[tuple[str, ...]]:
    """Sources whose splits may depend on each other in some set of splits: linked when
    they may both assign to one creature or planeswalker (a coarsening of the parts of
    every mode space, so the union is the product of its components' unions), in
    document order of their first source."""
    order: list[str] = []
    senders: dict[str, list[int]] = {}
    kind = space.combat.kind
    for s, t in union_pairs(space):
        if not order or order[-1] != s:
            order.append(s)
        if kind(t) in ("creature", "planeswalker"):
            senders.setdefault(t, []).append(len(order) - 1)
    links = [(group[0], i) for group in senders.values() for i in group[1:]]
    return [tuple(order[i] for i in members) for members in components(len(order), links)]
