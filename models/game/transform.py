"""Transform and convert (701.27, 701.28, 712), and turning face up or face down.

To transform a permanent is to turn it over so that its other face is up (seed ¶1). It
is the same object afterwards: counters, marked damage and the rest stay. Turning a
permanent face up or face down is a different game action with its own events, so
triggers on one never fire on the other (seed ¶2).

An instruction to transform does nothing, and makes no event, when:

* the permanent is not represented by a transforming double-faced card or transforming
  token (seed ¶1, ¶3): single-faced cards, tokens without faces and meld cards;
* the face it would transform into is an instant or sorcery face (seed ¶4);
* it is face down (RULES.md: a face-down double-faced permanent, e.g. a manifested one,
  can't transform);
* it comes from an ability of the permanent itself and the permanent has transformed or
  converted since that ability was put on the stack, or, for a delayed triggered ability,
  since it was created (seed ¶6). Pass the :class:`TransformStamp` taken at that moment
  as ``since``.

Modal double-faced cards can transform since September 2025 (RULES.md).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

from trample.models.document.errors import InputError
from trample.models.game.events import Event, Transformed, TurnedFaceDown, TurnedFaceUp
from trample.models.game.state import GameState, Permanent, Transition, replace_permanent


@dataclass(frozen=True, slots=True)
class TransformStamp:
    """How many times ``object`` had transformed or converted at some moment.

    Take one with :func:`stamp` when an ability of a permanent is put on the stack (or a
    delayed triggered ability is created); give it to :func:`transform` as ``since``.
    """

    object: str
    transformations: int


def stamp(state: GameState, object_id: str) -> TransformStamp:
    """The stamp of ``object_id`` now (seed ¶6: "since the ability was put onto the stack")."""
    return TransformStamp(object_id, state.permanent(object_id).transformations)


def why_not_transform(state: GameState, object_id: str,
                      since: TransformStamp | None = None) -> str | None:
    """Why an instruction to transform ``object_id`` would do nothing, or None if it would not.

    The answers cite the rule: 701.27c (not a transforming card or token), 701.27d (the
    other face is an instant or sorcery), 701.27f (transformed since), or face down.
    """
    perm = state.permanent(object_id)
    if since is not None and since.object != object_id:
        raise InputError("since", f"the stamp of {since.object!r} was given for {object_id!r}")
    if perm.face_down:
        return "face down: a face-down permanent can't transform"
    if not perm.card.is_transforming or perm.card.back is None:
        return ("701.27c: not represented by a transforming double-faced card "
                "or a transforming token")
    other = _other_face(perm)
    if perm.card.face(other).is_instant_or_sorcery:
        return "701.27d: the face it would transform into is an instant or sorcery face"
    if since is not None and perm.transformations != since.transformations:
        return ("701.27f: it has transformed or converted since the ability was put onto "
                "the stack (or the delayed trigger was created)")
    return None


def can_transform(state: GameState, object_id: str, since: TransformStamp | None = None) -> bool:
    """Whether an instruction to transform ``object_id`` would turn it over."""
    return why_not_transform(state, object_id, since) is None


def _other_face(perm: Permanent) -> str:
    return "back" if perm.face == "front" else "front"


def _turn_over(state: GameState, object_id: str, since: TransformStamp | None,
               converted: bool) -> Transition:
    if why_not_transform(state, object_id, since) is not None:
        return state, []
    perm = state.permanent(object_id)
    before = perm.characteristics
    after = replace(perm, face="back" if perm.face == "front" else "front",
                    transformations=perm.transformations + 1)
    state = replace_permanent(state, after)
    event: Event = Transformed(object_id, before.name, after.characteristics.name,
                               after.characteristics, converted=converted)
    return state, [event]


def transform(state: GameState, object_id: str, since: TransformStamp | None = None) -> Transition:
    """Transform a permanent (701.27): the same object with its other face up.

    Does nothing (and returns no event) in the cases the module docstring lists; pass
    ``since`` when an ability of the permanent itself transforms it (seed ¶6).
    """
    return _turn_over(state, object_id, since, converted=False)


def convert(state: GameState, object_id: str, since: TransformStamp | None = None) -> Transition:
    """Convert a permanent (701.28): the same action as transform, reported as a convert."""
    return _turn_over(state, object_id, since, converted=True)


def turn_face_down(state: GameState, object_id: str) -> Transition:
    """Turn a face-up permanent face down: a 2/2 with no name or abilities (708.2a).

    This is not a transform (seed ¶2): it never makes a Transformed event, and the
    permanent's transform count is unchanged. A double-faced permanent can't be turned
    face down (712): the instruction does nothing.
    """
    perm = state.permanent(object_id)
    if perm.face_down or perm.card.is_double_faced:
        return state, []
    return replace_permanent(state, replace(perm, face_down=True)), [TurnedFaceDown(object_id)]


def turn_face_up(state: GameState, object_id: str) -> Transition:
    """Turn a face-down permanent face up, front face up (708.8, 712): not a transform."""
    perm = state.permanent(object_id)
    if not perm.face_down:
        return state, []
    perm = replace(perm, face_down=False, face="front")
    return replace_permanent(state, perm), [TurnedFaceUp(object_id, perm.name)]
