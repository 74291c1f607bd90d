"""``solve`` of a tiny combat on plain integers, straight from its document.

A search loop values thousands of small combats it has never seen: a few attackers on
one defending player, each blocker blocking one of them. Such a combat needs none of the
general machinery. Each attacker with its blockers is a part of its own (no blocker is
shared), so the attackers' side chooses each attacker's split alone, and the parts are
tied together only through the defending player's life (``lethal``, ``losses``).

:func:`solve_numbers` reads the document with
:func:`~trample.models.document.tiny.read_tiny` (a strict check of its shape) and
answers from the integers it read, on the regular step with no keyword but trample,
deathtouch and indestructible and no attacker of power 0; anything else, and any
document the general reader would refuse, is declined (None), so that every error
message stays the general reader's and every unusual combat takes the general path.
The answer is the general path's to the byte, split included:

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

from typing import Any, Final

from trample.models.document.tiny import (
    BLOCKER_SHIFT,
    DEATHTOUCH,
    INDESTRUCTIBLE,
    TRAMPLE,
    Blocker,
    read_tiny,
)
from trample.solver.optimize.fastpath import holding
from trample.solver.optimize.objectives import DEFAULTS, parse_objective, plain_plan
from trample.solver.rules.legal_space import lethal_need

_PLAIN: Final = TRAMPLE | DEATHTOUCH | INDESTRUCTIBLE
_OTHER: Final = ~(_PLAIN | _PLAIN << BLOCKER_SHIFT)
"""Bits of :func:`read_tiny`'s ``kinds`` this path declines: other keywords (first
strike, double strike, lifelink) and an attacker of power 0."""

_ZERO_TERMS: Final = frozenset({"planeswalker_kills", "battle_kills", "planeswalker_damage",
                         "battle_damage"})
"""Assigned-damage terms that are 0 on a combat without planeswalkers or battles."""
_TERMS: Final = frozenset(DEFAULTS["attackers"]) | _ZERO_TERMS | {"lethal", "kills",
                                                          "player_damage"}
"""The terms answered here: the attackers' default and their assigned-damage terms."""

_SLOT: Final = {"lethal": 0, "losses": 0, "kills": 1, "deaths": 1, "player_damage": 2,
                "life_loss": 2, "survivals": 3}
"""Where each term's value is among the numbers of a combat answered here (the others:
4, which is 0)."""
_SLOTS: dict[tuple[str, ...], tuple[int, ...]] = {}
""":func:`_slots` of the first :data:`MAX_SLOTS` lists of terms asked."""
MAX_SLOTS = 256

Pieces = list[tuple[str, int]]
"""One attacker's split: (recipient, amount), positive amounts only."""


def _candidates(aid: str, power: int, trample: int, blockers: list[str], needs: list[int],
                need: dict[str, int], worth: dict[str, int], player: str
                ) -> list[Pieces] | None:
    """A blocked attacker's candidate splits (two blockers or more, or a trampler), in
    the general path's order (None: declined)."""
    held = holding(aid, blockers, [], need, worth, power)
    if held is None:
        return None
    amounts = held[0]
    out: list[Pieces] = [[(b, amounts[(aid, b)]) for b in blockers if (aid, b) in amounts]]
    if trample:
        excess = power - sum(needs)
        if excess >= 1:
            out.append([*((b, n) for b, n in zip(blockers, needs, strict=True) if n > 0),
                        (player, excess)])
    return out


def _score(pieces: Pieces, need: dict[str, int], worth: dict[str, int], player: str,
           life: int, bases: tuple[str, ...], lethal: bool) -> tuple[int, ...]:
    """A part's split scored on the assigned-damage terms ``bases`` (``lethal``: whether
    the player's life counts for it)."""
    dealt = 0
    kills = 0
    for target, amount in pieces:
        if target == player:
            dealt = amount
        else:
            value = worth.get(target)
            if value is not None and amount >= need[target]:
                kills += value
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


def _legal(power: int, trample: int, need: dict[str, int], pieces: Pieces, player: str
           ) -> dict[str, int] | None:
    """The split of a blocked attacker (``need``: its blockers' lethal damage, in
    document order) as a dict, when it obeys 510.1a-c and 702.19b read on the integers
    alone; else None."""
    given: dict[str, int] = {}
    total = 0
    for target, amount in pieces:
        if amount <= 0 or target in given or (target != player and target not in need):
            return None
        given[target] = amount
        total += amount
    if total != power:
        return None
    if player in given:
        if not trample:
            return None
        for b, n in need.items():
            if given.get(b, 0) < n:
                return None
    return given


def _slots(terms: tuple[str, ...]) -> tuple[int, ...]:
    """Where each of ``terms`` is among the numbers of a combat answered here."""
    found = _SLOTS.get(terms)
    if found is None:
        found = tuple(_SLOT.get(t, 4) for t in terms)
        if len(_SLOTS) < MAX_SLOTS:
            _SLOTS[terms] = found
    return found


def solve_numbers(document: object, side: object, objective: object,
                  parsed: tuple[str, ...] | None = None) -> dict[str, Any] | None:
    """``solve``'s answer for the attackers of a tiny combat (see the module's
    docstring), or None when the general path must answer (nothing is refused here,
    except a bad ``objective`` of a document read whole, in the general path's words).
    ``parsed``: the objective's terms for the attackers, already read (a batch's)."""
    if side is not None and (type(side) is not str or side != "attackers"):
        return None
    read = read_tiny(document)
    if read is None:
        return None
    first_step, player, life, attackers, blockers, kinds = read
    if first_step or kinds & _OTHER:
        return None
    if parsed is not None:
        terms: tuple[str, ...] = parsed
    elif objective is None:
        terms = DEFAULTS["attackers"]
    else:
        terms = parse_objective(objective, "attackers")
    if terms is not DEFAULTS["attackers"] and not _TERMS.issuperset(terms):
        return None
    bases, _ = plain_plan(terms)
    # Each attacker's blockers, in document order.
    mine: list[list[Blocker]] = [[] for _ in attackers]
    for b in blockers:
        mine[b[1]].append(b)
    reaching = 0
    most = 0  # the most the attackers can assign the player together
    for a, own in zip(attackers, mine, strict=True):
        if not own:
            reaching += 1
            most += a[1]
        elif a[5] & TRAMPLE:
            reaching += 1
            lethal_total = 0
            for b in own:
                lethal_total += lethal_need(b[3] - b[4], bool(a[5] & DEATHTOUCH))
            if a[1] > lethal_total:
                most += a[1] - lethal_total
    lethal = "lethal" in bases
    alone = not (lethal and reaching > 1)  # else the player's life is contested
    kills = 0
    dealt = 0
    survivals = 0
    entries: list[dict[str, Any]] = []
    for (aid, power, _, _, value, keywords), own in zip(attackers, mine, strict=True):
        survivals += value
        if not own:
            # Unblocked: all to the player (legal as it stands).
            entries.append({"source": aid, "target": player, "amount": power})
            dealt += power
            continue
        trample = keywords & TRAMPLE
        if len(own) == 1 and not trample:
            # One blocker and no trample: all to it (legal as it stands).
            b = own[0]
            entries.append({"source": aid, "target": b[0], "amount": power})
            if not b[6] & INDESTRUCTIBLE \
                    and power >= lethal_need(b[3] - b[4], bool(keywords & DEATHTOUCH)):
                kills += b[5]
            continue
        ids: list[str] = []
        needs: list[int] = []
        need: dict[str, int] = {}
        worth: dict[str, int] = {}
        for b in own:
            bid = b[0]
            n = lethal_need(b[3] - b[4], bool(keywords & DEATHTOUCH))
            ids.append(bid)
            needs.append(n)
            need[bid] = n
            if not b[6] & INDESTRUCTIBLE:
                worth[bid] = b[5]
        candidates = _candidates(aid, power, trample, ids, needs, need, worth, player)
        if candidates is None:
            return None
        best = candidates[0]
        if len(candidates) > 1:
            best_key = _score(best, need, worth, player, life, bases, alone)
            for pieces in candidates[1:]:
                key = _score(pieces, need, worth, player, life, bases, alone)
                if key > best_key:
                    best, best_key = pieces, key
        given = _legal(power, trample, need, best, player)
        if given is None:
            return None
        for bid, n in need.items():
            got = given.get(bid)
            if got is not None:
                entries.append({"source": aid, "target": bid, "amount": got})
                value_of = worth.get(bid)
                if value_of is not None and got >= n:
                    kills += value_of
        passed = given.get(player)
        if passed is not None:
            entries.append({"source": aid, "target": player, "amount": passed})
            dealt += passed
    if not alone and dealt < life and most >= life:
        return None  # the parts could reach the player together: the general path
    numbers = (1 if dealt >= life else 0, kills, dealt, survivals, 0)
    values: dict[str, int] = {}
    for term, slot in zip(terms, _slots(terms), strict=True):
        values[term] = numbers[slot]
    return {"status": "optimal", "side": "attackers", "step": "regular",
            "objective": values, "assignment": entries}
