"""Sagas (714): lore counters, chapter triggers and the final chapter.

A lore counter is put on a Saga as it enters (714.3a, done by
:func:`trample.models.game.state.enter_card` and friends) and as its controller's precombat main
phase begins (714.3b). A chapter ability triggers when the number of lore counters
becomes at least its chapter number (714.2b): :func:`trample.models.game.state.add_counters`
puts those triggers on the stack. A Saga with at least as many lore counters as its final
chapter, and no chapter ability of it waiting on the stack, is sacrificed as a
state-based action (714.4).
"""

from __future__ import annotations

from trample.models.game.events import Event
from trample.models.game.state import LORE, GameState, Permanent, Transition, add_counters


def add_lore_counter(state: GameState, object_id: str) -> Transition:
    """Put a lore counter on a Saga; chapters it reaches trigger (714.2b)."""
    return add_counters(state, object_id, LORE, 1)


def begin_precombat_main(state: GameState) -> Transition:
    """The active player's precombat main phase begins: a lore counter on each of their
    Sagas (714.3b), in battlefield order."""
    events: list[Event] = []
    sagas = [p.id for p in state.battlefield
             if p.controller == state.active_player and p.characteristics.is_saga]
    for saga in sagas:
        state, more = add_lore_counter(state, saga)
        events += more
    return state, events


def is_saga_to_sacrifice(state: GameState, perm: Permanent) -> bool:
    """Whether the Saga is sacrificed now (714.4): lore counters at least its final chapter
    number and none of its chapter abilities waiting on the stack."""
    face = perm.characteristics
    if not face.is_saga or face.final_chapter == 0:
        return False
    if perm.counter(LORE) < face.final_chapter:
        return False
    return not any(t.ability == "chapter" and t.source == perm.id for t in state.stack)
