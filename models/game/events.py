"""What a transition says happened: one frozen dataclass per kind of event.

Every transition of the game model returns ``(new_state, events)``. Events name the
objects they are about by id; an object that changed zones is a new object (400.7) and its
:class:`ZoneChange` names both ids. Triggered abilities are recognized from events: for
example :func:`transforms_into` answers a "transforms into" trigger condition (701.27e),
and turning face up or face down is never a transform (seed ¶2).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import Any

from trample.models.game.cards import Face


@dataclass(frozen=True, slots=True)
class Event:
    """Base class of every event."""

    def to_json(self) -> dict[str, Any]:
        """``{"event": <class name>, <field>: <value>, ...}``; a face is given by name."""
        out: dict[str, Any] = {"event": type(self).__name__}
        for f in fields(self):
            value = getattr(self, f.name)
            if isinstance(value, Face):
                value = value.name
            elif isinstance(value, tuple):
                value = list(value)
            out[f.name] = value
        return out


@dataclass(frozen=True, slots=True)
class Transformed(Event):
    """A permanent transformed (701.27) or converted (701.28): same object, other face up."""

    object: str
    from_face: str
    to_face: str
    into: Face
    converted: bool = False


@dataclass(frozen=True, slots=True)
class TurnedFaceUp(Event):
    """A face-down permanent was turned face up (702.37e, 708.8): not a transform."""

    object: str
    face: str


@dataclass(frozen=True, slots=True)
class TurnedFaceDown(Event):
    """A permanent was turned face down: not a transform."""

    object: str


@dataclass(frozen=True, slots=True)
class ZoneChange(Event):
    """An object moved from one zone to another and became ``new_object`` (400.7).

    ``new_object`` is ``None`` when the object ceased to exist (a token, 111.7).
    ``transformed`` marks a permanent put onto the battlefield back face up.
    """

    object: str
    new_object: str | None
    card: str
    owner: str
    from_zone: str
    to_zone: str
    cause: str = ""
    transformed: bool = False


@dataclass(frozen=True, slots=True)
class Milled(Event):
    """A player milled cards (701.17); ``cards`` are their new ids in ``zone``."""

    player: str
    requested: int
    cards: tuple[str, ...]
    zone: str = "graveyard"


@dataclass(frozen=True, slots=True)
class TokenCreated(Event):
    """A token was created on the battlefield."""

    object: str
    card: str
    controller: str


@dataclass(frozen=True, slots=True)
class _Counters(Event):
    """``amount`` counters of ``kind`` on the permanent ``object``."""

    object: str
    kind: str
    amount: int


@dataclass(frozen=True, slots=True)
class CounterAdded(_Counters):
    """Counters were put on a permanent."""


@dataclass(frozen=True, slots=True)
class CounterRemoved(_Counters):
    """Counters were removed from a permanent."""


@dataclass(frozen=True, slots=True)
class KeywordGranted(Event):
    """A permanent gained a keyword until end of turn."""

    object: str
    keyword: str


@dataclass(frozen=True, slots=True)
class DamageDealt(Event):
    """``source`` dealt ``amount`` damage to ``target`` (a player or permanent id)."""

    source: str
    target: str
    amount: int
    combat: bool


@dataclass(frozen=True, slots=True)
class _PlayerAmount(Event):
    """An ``amount`` of life or counters for ``player``."""

    player: str
    amount: int


@dataclass(frozen=True, slots=True)
class LifeLost(_PlayerAmount):
    """A player lost life."""


@dataclass(frozen=True, slots=True)
class LifeGained(_PlayerAmount):
    """A player gained life (lifelink, 702.15b)."""


@dataclass(frozen=True, slots=True)
class PoisonCountersAdded(_PlayerAmount):
    """A player got poison counters (infect damage, 702.90b)."""


@dataclass(frozen=True, slots=True)
class PlayerLost(Event):
    """A player lost the game; ``reason`` cites the rule or the card."""

    player: str
    reason: str


@dataclass(frozen=True, slots=True)
class AbilityTriggered(Event):
    """An ability triggered (or was activated) and was put on the stack as ``trigger``."""

    trigger: str
    source: str
    ability: str
    chapter: int = 0


@dataclass(frozen=True, slots=True)
class AbilityResolved(Event):
    """An ability left the stack; its effects are the events before this one.

    ``fizzled`` is true when it did nothing because its targets were illegal (608.2b) or
    its intervening "if" condition no longer held (603.4).
    """

    trigger: str
    ability: str
    fizzled: bool = False


def transforms_into(event: Event, characteristic: Callable[[Face], bool]) -> bool:
    """Whether ``event`` satisfies "transforms into [an object with ``characteristic``]".

    True for a transform or a convert whose permanent has the characteristic right after
    (seed ¶5 of both documents, 701.27e); never for turning face up or face down.
    """
    return isinstance(event, Transformed) and characteristic(event.into)


def transforms(event: Event, obj: str) -> bool:
    """Whether ``event`` satisfies "whenever [``obj``] transforms".

    Converting is the same action as transforming (701.28, RULES.md), so a convert counts.
    Exiling a permanent and returning it transformed is not a transform: it makes a
    :class:`ZoneChange`, never a :class:`Transformed`.
    """
    return isinstance(event, Transformed) and event.object == obj


def turned_face_up(event: Event, obj: str) -> bool:
    """Whether ``event`` satisfies "when [``obj``] is turned face up" (never a transform)."""
    return isinstance(event, TurnedFaceUp) and event.object == obj


def turned_face_down(event: Event, obj: str) -> bool:
    """Whether ``event`` satisfies "when [``obj``] is turned face down" (never a transform)."""
    return isinstance(event, TurnedFaceDown) and event.object == obj
