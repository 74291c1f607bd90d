"""``solve`` of a tiny combat on plain integers, straight from its document.

A search loop values thousands of small combats it has never seen: a few attackers on
one defending player, each blocker blocking one of them. Such a combat needs none of the
general machinery. Each attacker with its blockers is a part of its own (no blocker is
shared), so the attackers' side chooses each attacker's split alone, and the parts are
tied together only through the defending player's life (``lethal``, ``losses``).

:func:`solve_numbers` reads the document through a strict check of its shape (every
field of an exact JSON type and within the reader's bounds, only the keywords it
handles) and answers from the integers it read; anything else, and any document the
general reader would refuse, is declined (None), so that every error message stays the
general reader's and every unusual combat takes the general path. The answer is the
general path's to the byte, split included:

* one attacker: :func:`~trample.solver.optimize.fastpath.solve_single`'s candidates (a
  lone recipient takes all; else the holding split of
  :func:`~trample.solver.optimize.fastpath.holding` and, for a trampler with power to
  spare, every blocker exactly lethal and the rest to the player), scored on the
  assigned-damage terms the objective reads, the first best kept;
* several: each part's answer as :func:`~trample.solver.optimize.solve._lone_pieces`
  finds it (the same candidates, the player's ``lethal`` left out of each part's score
  when several parts reach the player), kept when the general path keeps them: the parts
  together reach the player's life, or cannot (their most to the player falls short of
  it). When they could but do not, the general path solves them again as one group:
  declined.

The objective is read as :func:`~trample.solver.optimize.objectives.plain_values` reads
it on a plain combat (no infect, wither, lifelink, toxic, prevention or multiplier). The
split is checked legal on the integers (each attacker assigns exactly its power, nothing
past a blocker short of lethal damage, nothing past the blockers without trample) before
it is answered; tests compare every answer with the general path's and brute force.
"""

from __future__ import annotations

from typing import Any, TypeGuard

from trample.models.document.reading import MAX_ID_LENGTH, MAX_MAGNITUDE, MAX_TEXT_LENGTH
from trample.solver.optimize.fastpath import holding
from trample.solver.optimize.objectives import DEFAULTS, parse_objective, plain_plan

MAX_CREATURES = 16
"""Creatures of a document this path reads (tiny combats: a few attackers and blockers);
a larger one takes the general path."""

_TOP = frozenset({"format", "active_player", "players", "creatures", "step"})
_PLAYER = frozenset({"id", "life", "name"})
_CREATURE = frozenset({"id", "controller", "power", "toughness", "damage", "value",
                       "keywords", "attacking", "blocking", "name"})

_TRAMPLE = 1
_DEATHTOUCH = 2
_INDESTRUCTIBLE = 4
_KEYWORDS: dict[str, int] = {
    "Trample": _TRAMPLE, "trample": _TRAMPLE,
    "Deathtouch": _DEATHTOUCH, "deathtouch": _DEATHTOUCH,
    "Indestructible": _INDESTRUCTIBLE, "indestructible": _INDESTRUCTIBLE,
}
"""The keywords taken, as the reader normalizes them (the rest: the general path)."""

_ZERO_TERMS = frozenset({"planeswalker_kills", "battle_kills", "planeswalker_damage",
                         "battle_damage"})
"""Assigned-damage terms that are 0 on a combat without planeswalkers or battles."""
_TERMS = frozenset(DEFAULTS["attackers"]) | _ZERO_TERMS | {"lethal", "kills",
                                                          "player_damage"}
"""The terms answered here: the attackers' default and their assigned-damage terms."""

_NONE: list[Any] = []
"""An absent list (read, never changed)."""

Pieces = list[tuple[str, int]]
"""One attacker's split: (recipient, amount), positive amounts only."""


class _Attacker:
    """An attacker as read: its power and keywords, its blockers in document order."""

    __slots__ = ("blockers", "id", "keywords", "needs", "power", "worth")

    def __init__(self, id: str, power: int, keywords: int) -> None:
        self.id = id
        self.power = power
        self.keywords = keywords
        self.blockers: list[str] = []
        self.needs: list[int] = []
        """What it must assign each blocker for lethal damage (1 with deathtouch)."""
        self.worth: dict[str, int] = {}
        """Its blockers that lethal damage destroys, with their values."""


def _int(value: object) -> TypeGuard[int]:
    """An exact int within the reader's bound."""
    return type(value) is int and -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE


def _id(value: object) -> TypeGuard[str]:
    return type(value) is str and 0 < len(value) <= MAX_ID_LENGTH


def _named(raw: dict[Any, Any]) -> bool:
    """Its ``name`` is absent or a string the reader takes (names change no damage)."""
    name = raw.get("name")
    if name is None:
        return "name" not in raw
    return type(name) is str and len(name) <= MAX_TEXT_LENGTH


def _read(document: object) -> tuple[str, int, list[_Attacker], int] | None:
    """The defending player, its life, the attackers (document order) and the value of
    the attackers (all alive: ``survivals``), or None when the document is not of the
    shape taken (nor then refused here: the general reader reads it)."""
    if type(document) is not dict or not _TOP.issuperset(document):
        return None
    fmt = document.get("format", "combat/1")
    if type(fmt) is not str or fmt != "combat/1":
        return None
    step = document.get("step", "regular")
    if type(step) is not str or step != "regular":
        return None
    players = document.get("players")
    if type(players) is not list or len(players) != 2:
        return None
    ids: list[str] = []
    lives: list[int] = []
    for raw in players:
        if type(raw) is not dict or not _PLAYER.issuperset(raw):
            return None
        pid = raw.get("id")
        life = raw.get("life", 20)
        if not _id(pid) or not _int(life) or not _named(raw):
            return None
        ids.append(pid)
        lives.append(life)
    active = document.get("active_player")
    if type(active) is not str or ids[0] == ids[1] or active not in ids:
        return None
    defending = ids[1] if active == ids[0] else ids[0]
    life = lives[1] if active == ids[0] else lives[0]
    if life <= 0:
        return None
    creatures = document.get("creatures")
    if type(creatures) is not list or not creatures or len(creatures) > MAX_CREATURES:
        return None
    seen = set(ids)
    attackers: dict[str, _Attacker] = {}
    blocks: list[tuple[str, str, int, int, int]] = []  # blocker, attacker, need, value, kw
    survivals = 0
    for raw in creatures:
        if type(raw) is not dict or not _CREATURE.issuperset(raw) or not _named(raw):
            return None
        cid = raw.get("id")
        if not _id(cid) or cid in seen:
            return None
        seen.add(cid)
        controller = raw.get("controller")
        power = raw.get("power")
        toughness = raw.get("toughness")
        damage = raw.get("damage", 0)
        value = raw.get("value", 1)
        if type(controller) is not str or not _int(power) or not _int(toughness) \
                or not _int(damage) or not _int(value):
            return None
        if not 0 <= damage < toughness:  # dead before damage: the general path
            return None
        keywords = 0
        listed = raw.get("keywords", _NONE)
        if type(listed) is not list:
            return None
        if listed:
            for word in listed:
                flag = _KEYWORDS.get(word) if type(word) is str else None
                if flag is None:
                    return None
                keywords |= flag
        attacking = raw.get("attacking")
        blocking = raw.get("blocking", _NONE)
        if type(blocking) is not list:
            return None
        if attacking is not None:
            if type(attacking) is not str or attacking != defending \
                    or controller != active or blocking or power <= 0:
                return None
            attackers[cid] = _Attacker(cid, power, keywords)
            survivals += value
            continue
        if len(blocking) != 1 or controller != defending:
            return None
        target = blocking[0]
        if type(target) is not str:
            return None
        blocks.append((cid, target, toughness - damage, value, keywords))
    if not attackers:
        return None
    for bid, aid, need, value, keywords in blocks:
        a = attackers.get(aid)
        if a is None:
            return None
        a.blockers.append(bid)
        a.needs.append(1 if a.keywords & _DEATHTOUCH else need)
        if not keywords & _INDESTRUCTIBLE:
            a.worth[bid] = value
    return defending, life, list(attackers.values()), survivals


def _candidates(a: _Attacker, player: str) -> list[Pieces] | None:
    """The attacker's candidate splits, in the general path's order (None: declined)."""
    if not a.blockers:
        return [[(player, a.power)]]
    trample = a.keywords & _TRAMPLE
    if len(a.blockers) == 1 and not trample:
        return [[(a.blockers[0], a.power)]]
    need = dict(zip(a.blockers, a.needs, strict=True))
    held = holding(a.id, list(a.blockers), [], need, a.worth, a.power)
    if held is None:
        return None
    amounts = held[0]
    out: list[Pieces] = [[(b, amounts[(a.id, b)]) for b in a.blockers
                          if (a.id, b) in amounts]]
    if trample:
        excess = a.power - sum(a.needs)
        if excess >= 1:
            out.append([*((b, n) for b, n in zip(a.blockers, a.needs, strict=True)
                          if n > 0), (player, excess)])
    return out


def _score(a: _Attacker, pieces: Pieces, player: str, life: int, bases: tuple[str, ...],
           lethal: bool) -> tuple[int, ...]:
    """A part's split scored on the assigned-damage terms ``bases`` (``lethal``: whether
    the player's life counts for it)."""
    dealt = 0
    kills = 0
    needs = dict(zip(a.blockers, a.needs, strict=True))
    for target, amount in pieces:
        if target == player:
            dealt = amount
        else:
            worth = a.worth.get(target)
            if worth is not None and amount >= needs[target]:
                kills += worth
    key: list[int] = []
    for term in bases:
        if term == "lethal":
            key.append(1 if lethal and dealt >= life else 0)
        elif term == "kills":
            key.append(kills)
        elif term == "player_damage":
            key.append(dealt)
        else:
            key.append(0)
    return tuple(key)


def _legal(a: _Attacker, pieces: Pieces, player: str) -> bool:
    """The split obeys 510.1a-c and 702.19b, read on the integers alone."""
    given = dict(pieces)
    if sum(given.values()) != a.power or any(v <= 0 for v in given.values()):
        return False
    if len(given) != len(pieces) or not set(given) <= {*a.blockers, player}:
        return False
    if given.get(player, 0) > 0 and a.blockers:
        if not a.keywords & _TRAMPLE:
            return False
        return all(given.get(b, 0) >= n for b, n in zip(a.blockers, a.needs, strict=True))
    return True


def _most(a: _Attacker) -> int:
    """The most the attacker can assign the player it attacks."""
    if not a.blockers:
        return a.power
    if not a.keywords & _TRAMPLE:
        return 0
    return max(a.power - sum(a.needs), 0)


def solve_numbers(document: object, side: object, objective: object,
                  parsed: tuple[str, ...] | None = None) -> dict[str, Any] | None:
    """``solve``'s answer for the attackers of a tiny combat (see the module's
    docstring), or None when the general path must answer (nothing is refused here,
    except a bad ``objective`` of a document read whole, in the general path's words).
    ``parsed``: the objective's terms for the attackers, already read (a batch's)."""
    if side is not None and (type(side) is not str or side != "attackers"):
        return None
    read = _read(document)
    if read is None:
        return None
    player, life, attackers, survivals = read
    if parsed is not None:
        terms: tuple[str, ...] = parsed
    elif objective is None:
        terms = DEFAULTS["attackers"]
    else:
        terms = parse_objective(objective, "attackers")
    if terms is not DEFAULTS["attackers"] and not _TERMS.issuperset(terms):
        return None
    bases, _ = plain_plan(terms)
    reaching = sum(1 for a in attackers if not a.blockers or a.keywords & _TRAMPLE)
    lethal = "lethal" in bases
    alone = not (lethal and reaching > 1)  # else the player's life is contested
    chosen: list[Pieces] = []
    dealt = 0
    for a in attackers:
        candidates = _candidates(a, player)
        if candidates is None:
            return None
        best = candidates[0]
        if len(candidates) > 1:
            best_key = _score(a, best, player, life, bases, alone)
            for pieces in candidates[1:]:
                key = _score(a, pieces, player, life, bases, alone)
                if key > best_key:
                    best, best_key = pieces, key
        if not _legal(a, best, player):
            return None
        chosen.append(best)
        for target, amount in best:
            if target == player:
                dealt += amount
    if not alone and dealt < life and sum(_most(a) for a in attackers) >= life:
        return None  # the parts could reach the player together: the general path
    kills = 0
    entries: list[dict[str, Any]] = []
    for a, pieces in zip(attackers, chosen, strict=True):
        given = dict(pieces)
        for b, need in zip(a.blockers, a.needs, strict=True):
            got = given.get(b)
            if got is not None:
                entries.append({"source": a.id, "target": b, "amount": got})
                worth = a.worth.get(b)
                if worth is not None and got >= need:
                    kills += worth
        passed = given.get(player)
        if passed is not None:
            entries.append({"source": a.id, "target": player, "amount": passed})
    values: dict[str, int] = {}
    for term in terms:
        if term == "lethal" or term == "losses":
            values[term] = 1 if dealt >= life else 0
        elif term == "kills" or term == "deaths":
            values[term] = kills
        elif term == "player_damage" or term == "life_loss":
            values[term] = dealt
        elif term == "survivals":
            values[term] = survivals
        else:
            values[term] = 0
    return {"status": "optimal", "side": "attackers", "step": "regular",
            "objective": values, "assignment": entries}
