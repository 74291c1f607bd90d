"""Mill (701.17) and questions about milled cards (seed 001 ¶8-¶11).

For a player to mill N cards, they put the top N cards of their library into their
graveyard; told to mill more than their library holds, they mill as many as there are,
but a cost or a choice to mill more than that can't be paid or chosen. Milling an empty
library does nothing, and (unlike drawing, 704.5b) never loses the game.

A milled card is found in the public zone it went to (its graveyard, or exile under a
replacement effect); once it moves on it is a new object and is found no more. A question
about "the milled card" gets one answer per milled card (summed when a number is needed);
an action on "the" card is done to each; on "a" card, the ability's controller chooses.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Literal

from trample.models.document.errors import InputError
from trample.models.game.cards import Card
from trample.models.game.events import Event, Milled, ZoneChange
from trample.models.game.state import (
    PUBLIC_ZONES,
    CardObject,
    GameState,
    IllegalActionError,
    Transition,
    fresh_id,
    replace_player,
)

MillAs = Literal["instruction", "cost", "choice"]


def can_mill(state: GameState, player: str, count: int) -> bool:
    """Whether ``player`` can pay a cost, or choose, to mill ``count`` cards (701.17b)."""
    return 0 <= count <= len(state.player(player).library)


def mill(state: GameState, player: str, count: int, *, into: str = "graveyard") -> Transition:
    """``player`` mills ``count`` cards as instructed: as many as the library holds.

    ``into`` is where the cards go: ``"graveyard"``, or ``"exile"`` under a replacement
    effect. Returns a ZoneChange per card and one Milled event naming the cards' new ids;
    milling nothing (an empty library, or 0) makes no event.
    """
    if count < 0:
        raise InputError("count", "can't mill a negative number of cards")
    if into not in ("graveyard", "exile"):
        raise InputError("into", f"milled cards go to the graveyard or exile, not {into!r}")
    owner = state.player(player)
    taken, rest = owner.library[:count], owner.library[count:]
    if not taken:
        return state, []
    state = replace_player(state, owner.with_zone("library", rest))
    events: list[Event] = []
    moved: list[CardObject] = []
    for obj in taken:
        state, new = fresh_id(state)
        moved.append(CardObject(new, obj.card))
        events.append(ZoneChange(obj.id, new, obj.card.name, player, "library", into, "mill"))
    owner = state.player(player)
    state = replace_player(state, owner.with_zone(into, (*owner.zone(into), *moved)))
    events.append(Milled(player, count, tuple(m.id for m in moved), into))
    return state, events


def _mill_exactly(state: GameState, player: str, count: int, into: str,
                  doing: str) -> Transition:
    """Mill exactly ``count``: a cost or a choice can't mill more than the library holds."""
    if not can_mill(state, player, count):
        raise IllegalActionError(
            f"{player} can't {doing} {count} cards with "
            f"{len(state.player(player).library)} in their library (701.17b)")
    return mill(state, player, count, into=into)


def pay_mill_cost(state: GameState, player: str, count: int, *,
                  into: str = "graveyard") -> Transition:
    """Pay a cost of milling ``count`` cards; IllegalActionError if the library holds fewer."""
    return _mill_exactly(state, player, count, into, "pay a cost to mill")


def choose_to_mill(state: GameState, player: str, count: int, *,
                   into: str = "graveyard") -> Transition:
    """Choose to mill ``count`` cards; IllegalActionError if the library holds fewer."""
    return _mill_exactly(state, player, count, into, "choose to mill")


def milled_cards(state: GameState, event: Milled) -> tuple[CardObject, ...]:
    """The milled cards still in the public zone they went to, in milling order (701.17c)."""
    found: list[CardObject] = []
    for card_id in event.cards:
        where = state.find_card(card_id)
        if where is not None and where[1] in PUBLIC_ZONES:
            found.append(where[2])
    return tuple(found)


def milled_answers(state: GameState, event: Milled,
                   question: Callable[[Card], int]) -> tuple[int, ...]:
    """One answer per milled card to a question about "the milled card" (701.17d)."""
    return tuple(question(obj.card) for obj in milled_cards(state, event))


def milled_sum(state: GameState, event: Milled, question: Callable[[Card], int]) -> int:
    """The value of a variable asked of "the milled card": the sum of the answers (701.17d)."""
    return sum(milled_answers(state, event, question))


def for_each_milled(state: GameState, event: Milled,
                    action: Callable[[GameState, CardObject], Transition]) -> Transition:
    """Do an action on "the" milled card to each milled card, in milling order (701.17d)."""
    events: list[Event] = []
    for obj in milled_cards(state, event):
        state, more = action(state, obj)
        events += more
    return state, events


def choose_milled(state: GameState, event: Milled, chosen: str) -> CardObject:
    """The card the controller chose for an action on "a" milled card (701.17d).

    IllegalActionError if ``chosen`` is not one of the milled cards still to be found.
    """
    for obj in milled_cards(state, event):
        if obj.id == chosen:
            return obj
    raise IllegalActionError(f"{chosen!r} is not a milled card in a public zone")
