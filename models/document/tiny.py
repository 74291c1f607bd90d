"""The numbers of a plain tiny combat, read straight from its dict.

A search loop values thousands of small combats it has never seen: a few attackers on
one defending player, each blocker blocking one of them. :func:`read_tiny` reads such a
combat/1 document through a strict check of its shape (every field of an exact JSON type
and within the general reader's bounds, only the fields and keywords listed here) and
gives its numbers as plain tuples, without building a
:class:`~trample.models.document.combat.Combat`. Anything else is declined (None) and
nothing is refused here: the general reader reads it, and refuses what it refuses, in its
own words. A document taken here is one the general reader takes, with the same numbers.

Taken: ``format`` (``combat/1``), ``active_player``, two players (``id``, ``life``,
``name``), ``step`` (or none), and at most :data:`MAX_CREATURES` creatures, each
attacking the defending player (no ``blocking``) or blocking exactly one attacker, with
``id``, ``controller``, ``power``, ``toughness``, ``damage`` (0 up to below its
toughness), ``value``, ``name`` and the keywords of :data:`KEYWORDS` as the general reader
spells them most often (the general reader does not check the declarations). The
defending player's life is positive; an attacker's power is not negative. Declined,
among others: poison, ``blocked``, planeswalkers, battles, effects, every other keyword.
"""

from __future__ import annotations

from typing import Any, Final

from trample.models.document.reading import MAX_ID_LENGTH, MAX_MAGNITUDE, MAX_TEXT_LENGTH

MAX_CREATURES: Final = 16
"""Creatures of a document read here (tiny combats: a few attackers and blockers); a
larger one takes the general path."""

MAX_KEYWORDS: Final = 16
"""Keywords a creature lists in a document read here; a longer list takes the general
path, which bounds every list (past its bound it refuses the document)."""

TRAMPLE: Final = 1
DEATHTOUCH: Final = 2
INDESTRUCTIBLE: Final = 4
FIRST_STRIKE: Final = 8
DOUBLE_STRIKE: Final = 16
LIFELINK: Final = 32
DECLARATION: Final = 64
"""A creature's keywords as bits of one int (:data:`DECLARATION`: one that decides only
which attacks and blocks are legal, never what combat damage does)."""

BLOCKER_SHIFT: Final = 8
"""The blockers' keywords sit this many bits up in :data:`Tiny`'s ``kinds``."""
POWERLESS: Final = 1 << 16
"""In ``kinds``: an attacker has power 0."""

KEYWORDS: Final[dict[str, int]] = {
    "Trample": TRAMPLE, "trample": TRAMPLE,
    "Deathtouch": DEATHTOUCH, "deathtouch": DEATHTOUCH,
    "Indestructible": INDESTRUCTIBLE, "indestructible": INDESTRUCTIBLE,
    "First strike": FIRST_STRIKE, "first strike": FIRST_STRIKE,
    "First Strike": FIRST_STRIKE,
    "Double strike": DOUBLE_STRIKE, "double strike": DOUBLE_STRIKE,
    "Double Strike": DOUBLE_STRIKE,
    "Lifelink": LIFELINK, "lifelink": LIFELINK,
    **{word: DECLARATION for name in ("flying", "reach", "menace", "shadow", "horsemanship",
                                      "haste", "defender", "vigilance")
       for word in (name, name.capitalize())},
}
"""The keywords taken, in the spellings the general reader normalizes to them."""

_TOP: Final = frozenset({"format", "active_player", "players", "creatures", "step"})
_PLAYER: Final = frozenset({"id", "life", "name"})
_CREATURE: Final = frozenset({"id", "controller", "power", "toughness", "damage", "value",
                       "keywords", "attacking", "blocking", "name"})
_NONE: Final[list[Any]] = []
"""An absent list (read, never changed)."""

Attacker = tuple[str, int, int, int, int, int]
"""id, power, toughness, marked damage, value, keywords (bits)."""
Blocker = tuple[str, int, int, int, int, int, int]
"""id, the index of the attacker it blocks, power, toughness, marked damage, value,
keywords (bits)."""
Tiny = tuple[bool, str, int, list[Attacker], list[Blocker], int]
"""Whether the combat is of the first-strike step, the defending player, its life, the
attackers and the blockers (each in document order), and ``kinds``: the attackers'
keywords, the blockers' shifted by :data:`BLOCKER_SHIFT`, and :data:`POWERLESS`."""


def read_tiny(document: object) -> Tiny | None:
    """The numbers of a plain tiny combat (see the module's docstring), else None."""
    # The bounds read once a call (compiled, each name outside costs a look-up a use).
    most = MAX_MAGNITUDE
    longest = MAX_ID_LENGTH
    if type(document) is not dict or not _TOP.issuperset(document):
        return None
    fmt = document.get("format", "combat/1")
    if type(fmt) is not str or fmt != "combat/1":
        return None
    players = document.get("players")
    if type(players) is not list or len(players) != 2:
        return None
    first, second = players
    if type(first) is not dict or type(second) is not dict or not _PLAYER.issuperset(first) \
            or not _PLAYER.issuperset(second):
        return None
    id0 = first.get("id")
    id1 = second.get("id")
    if type(id0) is not str or type(id1) is not str or not 0 < len(id0) <= longest \
            or not 0 < len(id1) <= longest or id0 == id1:
        return None
    life0 = first.get("life", 20)
    life1 = second.get("life", 20)
    if type(life0) is not int or type(life1) is not int \
            or not -most <= life0 <= most \
            or not -most <= life1 <= most:
        return None
    if ("name" in first and not _text(first["name"])) \
            or ("name" in second and not _text(second["name"])):
        return None
    active = document.get("active_player")
    if type(active) is not str:
        return None
    if active == id0:
        defending, life = id1, life1
    elif active == id1:
        defending, life = id0, life0
    else:
        return None
    if life <= 0:
        return None
    creatures = document.get("creatures")
    if type(creatures) is not list or not creatures or len(creatures) > MAX_CREATURES:
        return None
    # Each id read: an attacker's index among the attackers, else -1.
    seen: dict[str, int] = {id0: -1, id1: -1}
    attackers: list[Attacker] = []
    blockers: list[Blocker] = []
    later: list[tuple[int, str]] = []  # a blocker listed before the attacker it blocks
    kinds = 0
    for raw in creatures:
        if type(raw) is not dict or not _CREATURE.issuperset(raw):
            return None
        cid = raw.get("id")
        if type(cid) is not str or not 0 < len(cid) <= longest or cid in seen:
            return None
        if "name" in raw and not _text(raw["name"]):
            return None
        controller = raw.get("controller")
        power = raw.get("power")
        toughness = raw.get("toughness")
        damage = raw.get("damage", 0)
        value = raw.get("value", 1)
        if type(controller) is not str or type(power) is not int \
                or type(toughness) is not int or type(damage) is not int \
                or type(value) is not int or not -most <= power <= most \
                or not toughness <= most or not -most <= value <= most:
            return None
        if not 0 <= damage < toughness:  # dead before damage: the general path
            return None
        keywords = 0
        listed = raw.get("keywords", _NONE)
        if type(listed) is not list or len(listed) > MAX_KEYWORDS:
            return None
        for word in listed:
            flag = KEYWORDS.get(word) if type(word) is str else None
            if flag is None:
                return None
            keywords |= flag
        attacking = raw.get("attacking")
        blocking = raw.get("blocking", _NONE)
        if type(blocking) is not list:
            return None
        if attacking is not None:
            if type(attacking) is not str or attacking != defending \
                    or controller != active or blocking or power < 0:
                return None
            seen[cid] = len(attackers)
            attackers.append((cid, power, toughness, damage, value, keywords))
            kinds |= keywords if power else keywords | POWERLESS
            continue
        if len(blocking) != 1 or controller != defending:
            return None
        target = blocking[0]
        if type(target) is not str:
            return None
        seen[cid] = -1
        at = seen.get(target)
        if at is None:
            later.append((len(blockers), target))
            at = -1
        elif at < 0:
            return None
        blockers.append((cid, at, power, toughness, damage, value, keywords))
        kinds |= keywords << BLOCKER_SHIFT
    if not attackers:
        return None
    for k, target in later:
        at = seen.get(target, -1)
        if at < 0:
            return None
        b = blockers[k]
        blockers[k] = (b[0], at, b[2], b[3], b[4], b[5], b[6])
    step = document.get("step")
    if step is None:
        if "step" in document:
            return None
        # As the general reader: the first-strike step when a creature has first strike.
        strikes = FIRST_STRIKE | DOUBLE_STRIKE
        first_step = bool(kinds & (strikes | strikes << BLOCKER_SHIFT))
    elif type(step) is not str:
        return None
    elif step == "regular":
        first_step = False
    elif step == "first_strike":
        first_step = True
    else:
        return None
    return first_step, defending, life, attackers, blockers, kinds


def _text(name: object) -> bool:
    """A name the general reader takes (names change no damage)."""
    return type(name) is str and len(name) <= MAX_TEXT_LENGTH


__all__ = ["BLOCKER_SHIFT", "DEATHTOUCH", "DECLARATION", "DOUBLE_STRIKE", "FIRST_STRIKE",
           "INDESTRUCTIBLE", "KEYWORDS", "LIFELINK", "MAX_CREATURES", "MAX_KEYWORDS",
           "POWERLESS", "TRAMPLE", "Attacker", "Blocker", "Tiny", "read_tiny"]
