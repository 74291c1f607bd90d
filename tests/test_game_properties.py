"""Properties over random games: transitions never change their input, states round-trip
through JSON, and transforming twice brings the front face back with everything kept."""

from __future__ import annotations

import contextlib
import copy
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trample.models.document.errors import TrampleError
from trample.models.game.cards import get_card
from trample.models.game.damage import check_state_based_actions, deal_damage
from trample.models.game.events import Transformed
from trample.models.game.mill import mill
from trample.models.game.sagas import add_lore_counter, begin_precombat_main
from trample.models.game.seeds import resolve_all
from trample.models.game.state import (
    MINUS_ONE,
    PLUS_ONE,
    FaceSide,
    GameState,
    Transition,
    add_card,
    add_counters,
    begin_turn,
    cleanup,
    create_token,
    enter_card,
    new_game,
    replace_permanent,
)
from trample.models.game.state_json import apply, state_from_json, state_to_json
from trample.models.game.transform import convert, stamp, transform, turn_face_down, turn_face_up

SETTINGS = settings(max_examples=40, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

PERMANENTS = ["Hidetsugu Consumes All", "Teachings of the Kirin", "Grizzly Bears",
              "Llanowar Elves", "Darksteel Myr", "Typhoid Rats", "Jace Beleren",
              "Kazandu Mammoth", "Gisela, the Broken Blade",
              "Test Fixture Shrine // Test Fixture Insight", "Glistener Elf"]
DOUBLE_FACED = ["Hidetsugu Consumes All", "Teachings of the Kirin", "Kazandu Mammoth",
                "Incubator // Phyrexian", "Invasion of Zendikar"]


@st.composite
def games(draw: st.DrawFn) -> GameState:
    """A two-player game with a few permanents, cards in libraries and graveyards."""
    state = new_game(("ap", "dp"))
    for name in draw(st.lists(st.sampled_from(PERMANENTS), min_size=1, max_size=6)):
        who = draw(st.sampled_from(["ap", "dp"]))
        face: FaceSide = "back" if get_card(name).back is not None and draw(st.booleans()) \
            else "front"
        state, oid, _ = enter_card(state, get_card(name), who, face=face)
        state, _ = add_counters(state, oid, PLUS_ONE, draw(st.integers(0, 2)))
        state = replace_permanent(state, replace(state.permanent(oid),
                                                 damage=draw(st.integers(0, 2))))
    if draw(st.booleans()):
        state, _ = create_token(state, get_card("Incubator // Phyrexian"), "ap")
    for name in draw(st.lists(st.sampled_from(PERMANENTS), max_size=5)):
        state, _ = add_card(state, draw(st.sampled_from(["ap", "dp"])),
                            draw(st.sampled_from(["library", "graveyard"])), get_card(name))
    return state


def _objects(state: GameState) -> list[str]:
    return [p.id for p in state.battlefield]


Step = Callable[[GameState], Transition]


@st.composite
def steps(draw: st.DrawFn, state: GameState) -> Step:
    """One transition applicable to ``state``."""
    objs = _objects(state) or ["o1"]
    obj = draw(st.sampled_from(objs))
    other = draw(st.sampled_from(objs))
    n = draw(st.integers(0, 4))
    player = draw(st.sampled_from(["ap", "dp"]))
    kind = draw(st.sampled_from([PLUS_ONE, MINUS_ONE, "lore"]))
    choices: list[Step] = [
        lambda s: transform(s, obj),
        lambda s: convert(s, obj),
        lambda s: transform(s, obj, since=stamp(s, obj)),
        lambda s: turn_face_down(s, obj),
        lambda s: turn_face_up(s, obj),
        lambda s: mill(s, player, n),
        lambda s: add_counters(s, obj, kind, n),
        lambda s: add_lore_counter(s, obj),
        lambda s: deal_damage(s, [{"source": obj, "target": other, "amount": n},
                                  {"source": obj, "target": player, "amount": 1}]),
        check_state_based_actions,
        begin_precombat_main,
        cleanup,
        lambda s: begin_turn(s, player),
        resolve_all,
    ]
    return draw(st.sampled_from(choices))


@SETTINGS
@given(st.data())
def test_transitions_never_change_their_input(data: st.DataObject) -> None:
    state = data.draw(games())
    for _ in range(data.draw(st.integers(1, 6))):
        step = data.draw(steps(state))
        frozen_copy = copy.deepcopy(state)
        as_json = state_to_json(state)
        try:
            new, events = step(state)
        except TrampleError:
            assert state == frozen_copy and state_to_json(state) == as_json
            continue
        assert state == frozen_copy
        assert state_to_json(state) == as_json
        assert isinstance(events, list)
        state = new


@SETTINGS
@given(st.data())
def test_every_reached_state_round_trips_through_json(data: st.DataObject) -> None:
    state = data.draw(games())
    for _ in range(data.draw(st.integers(0, 5))):
        step = data.draw(steps(state))
        with contextlib.suppress(TrampleError):
            state, _ = step(state)
        doc = state_to_json(state)
        assert state_from_json(doc) == state
        assert state_to_json(state_from_json(doc)) == doc


@SETTINGS
@given(st.data())
def test_apply_never_changes_its_json_input(data: st.DataObject) -> None:
    state = data.draw(games())
    doc = state_to_json(state)
    before = copy.deepcopy(doc)
    obj = data.draw(st.sampled_from(_objects(state)))
    action: dict[str, Any] = data.draw(st.sampled_from([
        {"action": "transform", "object": obj},
        {"action": "turn_face_down", "object": obj},
        {"action": "add_lore_counter", "object": obj},
        {"action": "mill", "player": "dp", "count": 3, "as": "cost"},
        {"action": "state_based_actions"},
        {"action": "begin_precombat_main"},
    ]))
    try:
        out = apply(doc, action)
    except TrampleError:
        out = None
    assert doc == before
    if out is not None:
        assert state_to_json(state_from_json(out["state"])) == out["state"]


@SETTINGS
@given(name=st.sampled_from(DOUBLE_FACED), back_up=st.booleans(),
       plus=st.integers(0, 5), damage=st.integers(0, 5), tapped=st.booleans())
def test_transforming_twice_brings_the_same_face_back_with_everything_kept(
        name: str, back_up: bool, plus: int, damage: int, tapped: bool) -> None:
    # seed ¶1 "turn it over so that its other face is up": the same object, twice over.
    state = new_game()
    face: FaceSide = "back" if back_up else "front"
    state, oid, _ = enter_card(state, get_card(name), "ap", face=face,
                               token=name.startswith("Incubator"))
    state, _ = add_counters(state, oid, PLUS_ONE, plus)
    start = replace(state.permanent(oid), damage=damage, tapped=tapped)
    state = replace_permanent(state, start)
    once, first = transform(state, oid)
    twice, second = transform(once, oid)
    if not first:  # e.g. a modal card whose other face is not a permanent face
        assert once == state
        return
    assert [type(e) for e in first + second] == [Transformed, Transformed]
    back = twice.permanent(oid)
    assert once.permanent(oid).face != start.face
    assert (back.id, back.face, back.counters, back.damage, back.tapped) == (
        start.id, start.face, start.counters, start.damage, start.tapped)
    assert back.transformations == start.transformations + 2
    assert [p.id for p in twice.battlefield] == [p.id for p in state.battlefield]
