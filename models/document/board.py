"""The board of SPEC §11: a combat/1 document before blockers are declared, with what
decides who may attack and block.

A board is read in two parts: its §11 fields (:data:`CREATURE_FIELDS`, ``cannot_block``)
here, and the rest by the one combat/1 reader (:meth:`Combat.from_json`), so that every
refusal names the field as the document spells it. A board has no blocks yet (no
``blocking``, no ``blocked``); for ``best_attack`` no attacks either; and no bands
(702.22c-h change the declarations themselves, which is not modelled here).

What the fields mean for legality is not decided here: :mod:`trample.models.game.declarations`
is the one place the rules of declaring attackers and blockers (508.1, 509.1) are written.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from trample.models.document.combat import Combat, Creature
from trample.models.document.errors import InputError
from trample.models.document.keywords import BANDING, BANDS_WITH_OTHER
from trample.models.document.reading import (
    MAX_OBJECTS,
    Obj,
    brief_repr,
    check_list,
    check_object,
)

ANY = "*"
"""In ``cannot_block``: every creature."""

CREATURE_FIELDS = frozenset({
    "tapped", "summoning_sick", "can_attack", "can_block", "can_be_blocked", "blocks_max",
    "min_blockers", "max_blockers", "must_block", "must_be_blocked", "lure", "must_attack",
})
"""The §11 fields of a creature (the combat/1 reader knows the others)."""
TOP_FIELDS = frozenset({"cannot_block"})
"""The §11 fields at the board's top level."""
_CANNOT_BLOCK_FIELDS = frozenset({"blocker", "attacker"})
_NOT_ON_A_BOARD = ("blocking", "blocked")


@dataclass(frozen=True, slots=True)
class Abilities:
    """What one creature's §11 fields say (defaults: no effect at all)."""

    tapped: bool = False
    summoning_sick: bool = False
    can_attack: bool = True
    can_block: bool = True
    can_be_blocked: bool = True
    blocks_max: int | None = 1
    """How many attackers it may block; None: any number."""
    min_blockers: int = 1
    """The field as given (menace is read by the rules, not folded in here)."""
    max_blockers: int | None = None
    must_block: bool = False
    must_be_blocked: bool = False
    lure: bool = False
    must_attack: bool = False


NONE = Abilities()


@dataclass(frozen=True, slots=True)
class Board:
    """A board: its combat (no blocks) and each creature's §11 fields."""

    combat: Combat
    abilities: Mapping[str, Abilities]
    """Only the creatures that have some §11 field; :meth:`of` gives every creature's."""
    cannot_block: tuple[tuple[str, str], ...] = ()
    """``(blocker, attacker)`` entries, either of them :data:`ANY`."""

    def of(self, creature_id: str) -> Abilities:
        """The §11 fields of a creature (the defaults for one that has none)."""
        return self.abilities.get(creature_id, NONE)

    @classmethod
    def from_json(cls, document: object, *, attacks: bool = True) -> Board:
        """Read a board; ``attacks=False`` for one on which attacks are still to be
        declared (``best_attack``): then no creature may have ``attacking``."""
        top = check_object(document, "")
        if not isinstance(top, Mapping):  # pragma: no cover - check_object refuses
            raise InputError("document", "must be an object")
        creatures = top.get("creatures", [])
        raw_creatures = check_list(creatures, "creatures") if "creatures" in top else []
        abilities: dict[str, Abilities] = {}
        stripped: list[Any] = []
        for i, raw in enumerate(raw_creatures):
            if not isinstance(raw, Mapping):
                stripped.append(raw)  # the combat reader names what is wrong with it
                continue
            for key in _NOT_ON_A_BOARD:
                if key in raw:
                    raise InputError(f"creatures[{i}].{key}", "a board is before blockers "
                                     "are declared: no creature has blocking or blocked")
            if not attacks and "attacking" in raw:
                raise InputError(f"creatures[{i}].attacking", "a board for best_attack is "
                                 "before attackers are declared: no creature has attacking")
            own = {k: v for k, v in raw.items() if k in CREATURE_FIELDS}
            if own:
                creature_id = raw.get("id")
                abilities[creature_id if isinstance(creature_id, str) else f"#{i}"] = \
                    _abilities(own, i)
            stripped.append({k: v for k, v in raw.items() if k not in CREATURE_FIELDS}
                            if own else raw)
        rest = {k: v for k, v in top.items() if k not in TOP_FIELDS}
        if "creatures" in top:
            rest["creatures"] = stripped
        combat = Combat.from_json(rest)
        for i, c in enumerate(combat.creatures):
            for j, keyword in enumerate(sorted(c.keywords)):
                if keyword == BANDING or keyword.startswith(BANDS_WITH_OTHER):
                    raise InputError(f"creatures[{i}].keywords", f"{keyword!r} is not "
                                     "modelled on a board: bands change the declarations "
                                     f"themselves (702.22c-h) (keyword {j + 1} of "
                                     f"{len(c.keywords)})")
        known = {c.id for c in combat.creatures}
        entries = _cannot_block(top.get("cannot_block"), known) if "cannot_block" in top \
            else ()
        return cls(combat, abilities, entries)

    def made(self, blocks: Mapping[str, Sequence[str]],
             attacks: Mapping[str, str] | None = None) -> Combat:
        """The combat a declaration makes (SPEC §11): each blocker's ``blocking`` lists
        its attackers in document order; with ``attacks``, the board's attacks are these;
        step ``first_strike``. Legality is the caller's to judge first."""
        order = {c.id: i for i, c in enumerate(self.combat.creatures)}
        creatures: list[Creature] = []
        for c in self.combat.creatures:
            changed = c
            if attacks is not None:
                target = attacks.get(c.id)
                if target != c.attacking:
                    changed = replace(changed, attacking=target)
            blocked = blocks.get(c.id)
            if blocked:
                changed = replace(changed, blocking=tuple(sorted(blocked, key=order.__getitem__)))
            creatures.append(changed)
        return replace(self.combat, creatures=tuple(creatures), step="first_strike")


def _abilities(raw: Mapping[str, Any], index: int) -> Abilities:
    obj = Obj(raw, "creatures", CREATURE_FIELDS, index)
    flags = {key: obj.boolean(key) for key in (
        "tapped", "summoning_sick", "can_attack", "can_block", "can_be_blocked", "must_block",
        "must_be_blocked", "lure", "must_attack")}
    blocks_max: int | None = 1
    given = obj.raw("blocks_max")
    if type(given) is str and given == "any":
        blocks_max = None
    elif "blocks_max" in raw:
        if isinstance(given, str):
            raise InputError(obj.sub("blocks_max"), f"must be an integer of at least 1 or "
                             f"\"any\", not {brief_repr(given)}")
        blocks_max = obj.integer("blocks_max", minimum=1)
    max_blockers = obj.integer("max_blockers", minimum=1) if "max_blockers" in raw else None
    return Abilities(
        tapped=flags["tapped"] or False, summoning_sick=flags["summoning_sick"] or False,
        can_attack=flags["can_attack"] is not False, can_block=flags["can_block"] is not False,
        can_be_blocked=flags["can_be_blocked"] is not False, blocks_max=blocks_max,
        min_blockers=obj.integer("min_blockers", 1, minimum=1), max_blockers=max_blockers,
        must_block=flags["must_block"] or False,
        must_be_blocked=flags["must_be_blocked"] or False, lure=flags["lure"] or False,
        must_attack=flags["must_attack"] or False)


def _cannot_block(raw: object, known: set[str]) -> tuple[tuple[str, str], ...]:
    entries: list[tuple[str, str]] = []
    for i, item in enumerate(check_list(raw, "cannot_block", MAX_OBJECTS)):
        obj = Obj(item, "cannot_block", _CANNOT_BLOCK_FIELDS, i)
        pair = []
        for key in ("blocker", "attacker"):
            value = obj.id(key)
            if value != ANY and value not in known:
                raise InputError(obj.sub(key), f"{brief_repr(value)} is not a creature of "
                                 f"the board (a creature's id, or {ANY!r})")
            pair.append(value)
        entries.append((pair[0], pair[1]))
    return tuple(entries)
