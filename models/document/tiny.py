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

_ABSENT: Final[list[Any]] = []
"""What an absent ``attacking`` reads as (never changed; ``null`` is read as absent, as
the general reader reads it, but the field is there)."""

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
    text = MAX_TEXT_LENGTH
    # Each object's fields are counted as they are read, and an object with more fields
    # than were counted has one not taken here: a length compared, where looking every
    # key up in a set of those taken costs a call and a look-up a field. A field read as
    # absent (``None``) is not counted: written as ``null`` it is declined by the count.
    if type(document) is not dict:
        return None
    fields = 3  # active_player, players and creatures, each checked below
    fmt = document.get("format")
    if fmt is not None:
        if type(fmt) is not str or fmt != "combat/1":
            return None
        fields += 1
    step = document.get("step")
    if step is not None:
        fields += 1
    if len(document) != fields:
        return None
    players = document.get("players")
    if type(players) is not list or len(players) != 2:
        return None
    first, second = players
    if type(first) is not dict or type(second) is not dict:
        return None
    id0 = first.get("id")
    id1 = second.get("id")
    if type(id0) is not str or type(id1) is not str or not 0 < len(id0) <= longest \
            or not 0 < len(id1) <= longest or id0 == id1:
        return None
    life0 = _player_life(first, text)
    life1 = _player_life(second, text)
    if life0 is None or life1 is None or not -most <= life0 <= most \
            or not -most <= life1 <= most:
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
        if type(raw) is not dict:
            return None
        cid = raw.get("id")
        if type(cid) is not str or not 0 < len(cid) <= longest or cid in seen:
            return None
        controller = raw.get("controller")
        power = raw.get("power")
        toughness = raw.get("toughness")
        if type(controller) is not str or type(power) is not int \
                or type(toughness) is not int or not -most <= power <= most \
                or not toughness <= most:
            return None
        fields = 4  # id, controller, power and toughness
        given = raw.get("damage")
        damage = 0
        if given is not None:
            if type(given) is not int:
                return None
            damage = given
            fields += 1
        if not 0 <= damage < toughness:  # dead before damage: the general path
            return None
        given = raw.get("value")
        value = 1
        if given is not None:
            if type(given) is not int or not -most <= given <= most:
                return None
            value = given
            fields += 1
        name = raw.get("name")
        if name is not None:
            if type(name) is not str or len(name) > text:
                return None
            fields += 1
        keywords = 0
        listed = raw.get("keywords")
        if listed is not None:
            if type(listed) is not list or len(listed) > MAX_KEYWORDS:
                return None
            for word in listed:
                flag = KEYWORDS.get(word) if type(word) is str else None
                if flag is None:
                    return None
                keywords |= flag
            fields += 1
        blocking = raw.get("blocking")
        if blocking is not None:
            if type(blocking) is not list:
                return None
            fields += 1
        attacking = raw.get("attacking", _ABSENT)
        if attacking is not _ABSENT:
            fields += 1
        if len(raw) != fields:
            return None
        if attacking is not None and attacking is not _ABSENT:
            if type(attacking) is not str or attacking != defending \
                    or controller != active or blocking or power < 0:
                return None
            seen[cid] = len(attackers)
            attackers.append((cid, power, toughness, damage, value, keywords))
            kinds |= keywords if power else keywords | POWERLESS
            continue
        if blocking is None or len(blocking) != 1 or controller != defending:
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
    if step is None:
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


def _player_life(player: dict[Any, Any], text: int) -> int | None:
    """A player's life (20 when not given), when its fields are those taken here (its id
    checked by the caller); else None."""
    fields = 1
    life = player.get("life")
    if life is None:
        life = 20
    elif type(life) is int:
        fields += 1
    else:
        return None
    name = player.get("name")
    if name is not None:
        if type(name) is not str or len(name) > text:
            return None
        fields += 1
    return life if len(player) == fields else None


__all__ = ["BLOCKER_SHIFT", "DEATHTOUCH", "DECLARATION", "DOUBLE_STRIKE", "FIRST_STRIKE",
           "INDESTRUCTIBLE", "KEYWORDS", "LIFELINK", "MAX_CREATURES", "MAX_KEYWORDS",
           "POWERLESS", "TRAMPLE", "Attacker", "Blocker", "Tiny", "read_tiny"]
