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
message stays the general reader's and every unusual combat takes the general path;
:func:`solve_numbers_many` answers a batch's combats so in one compiled loop
(``api.solve_many``), its options read once.
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

from collections.abc import Iterator
from typing import Any, Final

from trample.models.document.tiny import (
    BLOCKER_SHIFT,
    DEATHTOUCH,
    INDESTRUCTIBLE,
    TRAMPLE,
    Attacker,
    Blocker,
    Tiny,
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

LETHAL: Final = 0
KILLS: Final = 1
PLAYER_DAMAGE: Final = 2
_SLOT: Final = {"lethal": LETHAL, "losses": LETHAL, "kills": KILLS, "deaths": KILLS,
                "player_damage": PLAYER_DAMAGE, "life_loss": PLAYER_DAMAGE, "survivals": 3}
"""Where each term's value is among the numbers of a combat answered here (the others:
4, which is 0); an assigned-damage term's slot is also its code in :data:`Asked`."""

Asked = tuple[tuple[int, ...], bool, tuple[int, ...]]
"""What a list of terms asks of a combat answered here: the codes of the assigned-damage
terms that can tell two splits apart (lethal, kills, player damage, in the order the
terms read them: a part's split is scored on them; the terms that are 0 on every split
here are left out, as they never tell two apart), whether the player's life counts
(``lethal`` is among them), and where each term's value is among the combat's numbers
(:data:`_SLOT`)."""
_ASKED: dict[tuple[str, ...], Asked | None] = {}
""":func:`_asked` of the first :data:`MAX_ASKED` lists of terms asked."""
MAX_ASKED = 256

Pieces = list[tuple[str, int]]
"""One attacker's split: (recipient, amount), positive amounts only, its blockers in
document order and the player last."""


def _asked(terms: tuple[str, ...]) -> Asked | None:
    """What ``terms`` ask (:data:`Asked`), or None when a term is not answered here."""
    found = _ASKED.get(terms)
    if found is None and terms not in _ASKED:
        found = None
        if _TERMS.issuperset(terms):
            bases, _ = plain_plan(terms)
            ranked = tuple(_SLOT[b] for b in bases if b not in _ZERO_TERMS)
            found = ranked, LETHAL in ranked, tuple(_SLOT.get(t, 4) for t in terms)
        if len(_ASKED) < MAX_ASKED:
            _ASKED[terms] = found
    return found


def _better(ranked: tuple[int, ...], life: int, dealt: int, kills: int, best_dealt: int,
            best_kills: int) -> bool:
    """Whether a part's split dealing the player ``dealt`` and killing ``kills`` of value
    scores above the best so far on the terms ``ranked`` (``life``: the player's life,
    or 0 when it does not count for the part), as their tuples compare."""
    for code in ranked:
        if code == LETHAL:
            mine = 1 if 0 < life <= dealt else 0
            theirs = 1 if 0 < life <= best_dealt else 0
        elif code == KILLS:
            mine, theirs = kills, best_kills
        else:
            mine, theirs = dealt, best_dealt
        if mine != theirs:
            return mine > theirs
    return False


def _legal(power: int, trample: int, ids: list[str], needs: list[int], pieces: Pieces,
           player: str) -> bool:
    """Whether a blocked attacker's split (``ids``: its blockers in document order,
    ``needs``: their lethal damage) names its recipients in document order, the player
    last, and obeys 510.1a-c and 702.19b read on the integers alone."""
    total = 0
    at = 0  # the first blocker a piece may still name
    lethal = 0  # blockers dealt lethal damage
    passed = False
    count = len(ids)
    for target, amount in pieces:
        if amount <= 0 or passed:
            return False
        total += amount
        if target == player:
            passed = True
            continue
        while at < count and ids[at] != target:
            at += 1
        if at == count:
            return False
        if amount >= needs[at]:
            lethal += 1
        at += 1
    return total == power and (not passed or (trample != 0 and lethal == count))


def solve_numbers(document: object, side: object, objective: object,
                  parsed: tuple[str, ...] | None = None) -> dict[str, Any] | None:
    """``solve``'s answer for the attackers of a tiny combat (see the module's
    docstring), or None when the general path must answer (nothing is refused here,
    except a bad ``objective`` of a document read whole, in the general path's words).
    ``parsed``: the objective's terms for the attackers, already read (a batch's)."""
    if side is not None and (type(side) is not str or side != "attackers"):
        return None
    read = read_tiny(document)
    if read is None or read[0] or read[5] & _OTHER:
        return None
    if parsed is not None:
        terms: tuple[str, ...] = parsed
    elif objective is None:
        terms = DEFAULTS["attackers"]
    else:
        terms = parse_objective(objective, "attackers")
    asked = _asked(terms)
    if asked is None:
        return None
    return _solved(read, terms, asked)


def solve_numbers_many(documents: Iterator[object], side: object,
                       parsed: tuple[str, ...] | None, answers: list[dict[str, Any]]
                       ) -> tuple[object] | None:
    """:func:`solve_numbers` of each of ``documents`` in turn (``parsed``: the batch's
    terms for the attackers, None for the default), each answer appended to
    ``answers``, until one is declined: that document, in a tuple (``documents`` then
    goes on after it); None when every one is answered. A batch's loop: the options are
    read once, not once a combat."""
    terms = DEFAULTS["attackers"] if parsed is None else parsed
    asked = _asked(terms)
    if asked is None or (side is not None and (type(side) is not str or side != "attackers")):
        for document in documents:
            return (document,)
        return None
    other = _OTHER
    for document in documents:
        read = read_tiny(document)
        found = None if read is None or read[0] or read[5] & other \
            else _solved(read, terms, asked)
        if found is None:
            return (document,)
        answers.append(found)
    return None


def _solved(read: Tiny, terms: tuple[str, ...], asked: Asked) -> dict[str, Any] | None:
    """:func:`solve_numbers` of a combat read and taken (of the regular step, with no
    keyword but trample, deathtouch and indestructible), for ``terms``."""
    _, player, life, attackers, blockers, _ = read
    ranked, lethal, slots = asked
    count = len(attackers)
    # Each attacker's blockers, in document order.
    if count == 1:
        mine: list[list[Blocker]] = [blockers]
    else:
        mine = [[] for _ in range(count)]
        for b in blockers:
            mine[b[1]].append(b)
    alone = True  # else the player's life is contested between the parts
    if lethal:
        reaching = 0
        for k in range(count):
            if not mine[k] or attackers[k][5] & TRAMPLE:
                reaching += 1
        alone = reaching <= 1
    # The player's life as a part's score reads it: 0 when it does not count.
    counted = life if lethal and alone else 0
    kills = 0
    dealt = 0
    survivals = 0
    entries: list[dict[str, Any]] = []
    for k in range(count):
        aid, power, _, _, value, keywords = attackers[k]
        own = mine[k]
        survivals += value
        if not own:
            # Unblocked: all to the player (legal as it stands).
            entries.append({"source": aid, "target": player, "amount": power})
            dealt += power
            continue
        trample = keywords & TRAMPLE
        deathtouch = (keywords & DEATHTOUCH) != 0
        if len(own) == 1:
            b = own[0]
            n = lethal_need(b[3] - b[4], deathtouch)
            worth = 0 if b[6] & INDESTRUCTIBLE else b[5]
            killed = worth if power >= n else 0
            excess = power - n
            # One blocker and nothing past it: all to it (legal as it stands; the holding
            # split of fastpath.holding for one blocker); a trampler with power to spare
            # may also give it lethal damage and the rest to the player.
            if trample and excess >= 1 and _better(ranked, counted, excess, worth, 0, killed):
                entries.append({"source": aid, "target": b[0], "amount": n})
                entries.append({"source": aid, "target": player, "amount": excess})
                kills += worth
                dealt += excess
            else:
                entries.append({"source": aid, "target": b[0], "amount": power})
                kills += killed
            continue
        ids: list[str] = []
        needs: list[int] = []
        need: dict[str, int] = {}
        values: dict[str, int] = {}
        lethal_total = 0
        for b in own:
            bid = b[0]
            n = lethal_need(b[3] - b[4], deathtouch)
            ids.append(bid)
            needs.append(n)
            need[bid] = n
            lethal_total += n
            if not b[6] & INDESTRUCTIBLE:
                values[bid] = b[5]
        held = holding(aid, ids, [], need, values, power)
        if held is None:
            return None
        amounts = held[0]
        # The holding split first, in document order (the general path's candidates).
        best: Pieces = []
        best_dealt = 0
        best_kills = 0
        for i in range(len(ids)):
            bid = ids[i]
            got = amounts.get((aid, bid))
            if got is not None:
                best.append((bid, got))
                worth_of = values.get(bid)
                if worth_of is not None and got >= needs[i]:
                    best_kills += worth_of
        excess = power - lethal_total
        if trample and excess >= 1:
            # Every blocker exactly lethal (no need is 0: none is dealt lethal damage
            # already) and the rest to the player.
            every = 0
            for worth_of in values.values():
                every += worth_of
            if _better(ranked, counted, excess, every, best_dealt, best_kills):
                best = [(ids[i], needs[i]) for i in range(len(ids))]
                best.append((player, excess))
                best_dealt, best_kills = excess, every
        if not _legal(power, trample, ids, needs, best, player):
            return None
        for target, amount in best:
            entries.append({"source": aid, "target": target, "amount": amount})
        kills += best_kills
        dealt += best_dealt
    if not alone and dealt < life and _most(attackers, mine) >= life:
        return None  # the parts could reach the player together: the general path
    numbers = (1 if dealt >= life else 0, kills, dealt, survivals, 0)
    values_of: dict[str, int] = {}
    for i in range(len(terms)):
        values_of[terms[i]] = numbers[slots[i]]
    return {"status": "optimal", "side": "attackers", "step": "regular",
            "objective": values_of, "assignment": entries}


def _most(attackers: list[Attacker], mine: list[list[Blocker]]) -> int:
    """The most the attackers can assign the player together: an unblocked one its
    power, a trampler its power past its blockers' lethal damage."""
    most = 0
    for k in range(len(attackers)):
        a = attackers[k]
        own = mine[k]
        if not own:
            most += a[1]
        elif a[5] & TRAMPLE:
            lethal_total = 0
            for b in own:
                lethal_total += lethal_need(b[3] - b[4], bool(a[5] & DEATHTOUCH))
            if a[1] > lethal_total:
                most += a[1] - lethal_total
    return most
