"""Mill (701.17): seed 001 (Teachings of the Kirin // Kirin-Touched Orochi) ¶8-¶11."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from trample.models.document.errors import InputError
from trample.models.game.cards import Card, get_card
from trample.models.game.damage import check_state_based_actions
from trample.models.game.events import Milled, ZoneChange
from trample.models.game.mill import (
    can_mill,
    choose_milled,
    choose_to_mill,
    for_each_milled,
    mill,
    milled_answers,
    milled_cards,
    milled_sum,
    pay_mill_cost,
)
from trample.models.game.sagas import add_lore_counter
from trample.models.game.seeds import resolve_chapter
from trample.models.game.state import (
    CardObject,
    GameState,
    IllegalActionError,
    Transition,
    add_card,
    enter_card,
    move_card,
    new_game,
)
from trample.models.game.state_json import apply, state_to_json

LIBRARY = ["Grizzly Bears", "Sol Ring", "Hidetsugu Consumes All", "Forest", "Llanowar Elves"]


def _game(library: list[str]) -> GameState:
    state = new_game()
    for name in library:
        state, _ = add_card(state, "ap", "library", get_card(name))
    return state


def _milled(events: Sequence[object]) -> Milled:
    found = [e for e in events if isinstance(e, Milled)]
    assert len(found) == 1
    return found[0]


def test_mill_puts_the_top_cards_into_the_graveyard() -> None:
    # seed 001 ¶8 "For a player to mill a number of cards, that player puts that many cards
    # from the top of their library into their graveyard."
    state = _game(LIBRARY)
    after, events = mill(state, "ap", 3)
    me = after.player("ap")
    assert [c.card.front.name for c in me.library] == ["Forest", "Llanowar Elves"]
    assert [c.card.front.name for c in me.graveyard] == LIBRARY[:3]
    moves = [e for e in events if isinstance(e, ZoneChange)]
    assert [(m.from_zone, m.to_zone) for m in moves] == [("library", "graveyard")] * 3
    assert _milled(events).cards == tuple(c.id for c in me.graveyard)
    # New objects in the new zone (400.7).
    assert {c.id for c in me.graveyard}.isdisjoint(c.id for c in state.player("ap").library)


def test_teachings_chapter_one_mills_three() -> None:
    # seed 001 ¶8 with Teachings of the Kirin "I — Mill three cards."
    state = _game(LIBRARY)
    state, saga, _ = enter_card(state, get_card("Teachings of the Kirin"), "ap")
    after, events = resolve_chapter(state, saga, 1)
    assert len(after.player("ap").graveyard) == 3
    assert _milled(events).requested == 3


def test_instructed_to_mill_more_than_the_library_mills_as_many_as_possible() -> None:
    # seed 001 ¶9 "A player can't mill a number of cards greater than the number of cards
    # in their library. ... If instructed to do so, they mill as many as possible."
    state = _game(LIBRARY[:2])
    after, events = mill(state, "ap", 3)
    assert after.player("ap").library == ()
    assert len(after.player("ap").graveyard) == 2
    assert _milled(events).requested == 3 and len(_milled(events).cards) == 2


def test_a_choice_to_mill_more_than_the_library_cannot_be_made() -> None:
    # seed 001 ¶9 "If given the choice to do so, they can't choose to take that action."
    state = _game(LIBRARY[:2])
    assert not can_mill(state, "ap", 3)
    with pytest.raises(IllegalActionError, match="choose to mill 3"):
        choose_to_mill(state, "ap", 3)
    after, _ = choose_to_mill(state, "ap", 2)
    assert len(after.player("ap").graveyard) == 2


def test_a_cost_of_milling_more_than_the_library_cannot_be_paid() -> None:
    # seed 001 ¶9 "Similarly, the player can't pay a cost that includes milling a number of
    # cards greater than the number of cards in their library."
    state = _game(LIBRARY[:2])
    with pytest.raises(IllegalActionError, match="pay a cost"):
        pay_mill_cost(state, "ap", 3)
    assert can_mill(state, "ap", 2) and can_mill(state, "ap", 0)
    after, _ = pay_mill_cost(state, "ap", 2)
    assert after.player("ap").library == ()
    with pytest.raises(InputError) as info:
        apply(state_to_json(state), {"action": "mill", "player": "ap", "count": 3, "as": "cost"})
    assert info.value.path == "action.count"


def test_milling_an_empty_library_does_nothing_and_does_not_lose() -> None:
    # seed 001 ¶9 "they mill as many as possible": none; RULES.md "Milling an empty library
    # does not lose the game (only drawing from one does, 704.5b)."
    state = _game([])
    after, events = mill(state, "ap", 3)
    assert (after, events) == (state, [])
    after, events = check_state_based_actions(after)
    assert not after.player("ap").lost and events == []
    assert can_mill(state, "ap", 0) and not can_mill(state, "ap", 1)


def test_negative_mill_is_bad_input() -> None:
    with pytest.raises(InputError) as info:
        mill(_game(LIBRARY), "ap", -1)
    assert info.value.path == "count"


def test_a_milled_card_is_found_in_the_public_zone_it_went_to() -> None:
    # seed 001 ¶10 "An effect that refers to a milled card can find that card in the zone it
    # moved to from the library, as long as that zone is a public zone."
    state = _game(LIBRARY)
    after, events = mill(state, "ap", 2)
    found = milled_cards(after, _milled(events))
    assert [c.card.front.name for c in found] == LIBRARY[:2]
    for card in found:
        where = after.find_card(card.id)
        assert where is not None and where[1] == "graveyard"


def test_a_milled_card_exiled_by_a_replacement_effect_is_found_in_exile() -> None:
    # seed 001 ¶10 "... the zone it moved to ... as long as that zone is a public zone."
    state = _game(LIBRARY)
    after, events = mill(state, "ap", 2, into="exile")
    assert after.player("ap").graveyard == ()
    assert [c.card.front.name for c in milled_cards(after, _milled(events))] == LIBRARY[:2]
    with pytest.raises(InputError):
        mill(state, "ap", 1, into="hand")


def test_a_milled_card_that_moved_on_is_found_no_more() -> None:
    # seed 001 ¶10: once it leaves that zone it is a new object (400.7), e.g. after
    # Hidetsugu Consumes All "II — Exile all graveyards."
    state = _game(LIBRARY)
    state, events = mill(state, "ap", 3)
    event = _milled(events)
    state, saga, _ = enter_card(state, get_card("Hidetsugu Consumes All"), "ap")
    state, _ = resolve_chapter(state, saga, 1)
    state, _ = add_lore_counter(state, saga)
    state, _ = resolve_chapter(state, saga, 2)
    assert len(state.player("ap").exile) == 3
    assert milled_cards(state, event) == ()


def test_questions_about_the_milled_card_get_an_answer_per_card_and_sum() -> None:
    # seed 001 ¶11 "If an ability checks information about a single milled card but more
    # than one card was milled, that ability refers to each of the milled cards. If that
    # ability asks for any information about the milled card, such as a characteristic or
    # mana value, it gets multiple answers. If these answers are used to determine the
    # value of a variable, the sum of the answers is used."
    state = _game(LIBRARY)
    after, events = mill(state, "ap", 3)
    event = _milled(events)

    def mana_value(card: Card) -> int:
        return card.mana_value

    assert milled_answers(after, event, mana_value) == (2, 1, 3)
    assert milled_sum(after, event, mana_value) == 6
    assert milled_answers(after, event, lambda c: int(c.front.is_creature)) == (1, 0, 0)


def test_an_action_on_the_milled_card_is_done_to_each() -> None:
    # seed 001 ¶11 "If that ability performs any actions on "the" card, it performs that
    # action on each milled card."
    state = _game(LIBRARY)
    state, events = mill(state, "ap", 3)
    event = _milled(events)

    def exile_it(s: GameState, obj: CardObject) -> Transition:
        return move_card(s, obj.id, "exile")

    after, moved = for_each_milled(state, event, exile_it)
    assert [c.card.front.name for c in after.player("ap").exile] == LIBRARY[:3]
    assert len(moved) == 3 and after.player("ap").graveyard == ()


def test_an_action_on_a_milled_card_is_the_controllers_choice() -> None:
    # seed 001 ¶11 "If that ability performs any actions on "a" card, the controller of the
    # ability chooses which card is affected."
    state = _game(LIBRARY)
    state, events = mill(state, "ap", 3)
    event = _milled(events)
    chosen = choose_milled(state, event, event.cards[1])
    assert chosen.card.front.name == "Sol Ring"
    with pytest.raises(IllegalActionError):
        choose_milled(state, event, state.player("ap").library[0].id)
