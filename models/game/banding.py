"""Bands (702.22) and the effects that change how a creature assigns combat damage.

An attacking band is declared with the attacks (702.22c): creatures with banding and at
most one without, or creatures that share a quality Q of which at least one has "bands
with other Q" (Wolves of the Hunt: "bands with other creatures named Wolves of the
Hunt"); all of a band attack the same player, planeswalker or battle (702.22d). Once
declared a band lasts for the rest of combat even if a member loses banding (702.22e), so
only :func:`check_band` (at declaration) reads the members' abilities; a member removed
from combat leaves its band (702.22f), and a creature that blocks one member blocks every
member still in the band (702.22h):
:meth:`~trample.models.game.state.CombatDeclaration.blocked_by` gives that set.

The abilities read here are those of the face that is up (a face-down permanent has none,
708.2a): banding and "bands with other Q" as keywords and in the Oracle text, Doran, the
Siege Tower's "each creature assigns combat damage equal to its toughness rather than its
power" and Thorn Elemental's "you may have this creature assign its combat damage as
though it weren't blocked". What they change in the combat/1 document (``keywords``,
``qualities``, ``assigns``, ``as_though_unblocked``) is written by
:func:`trample.models.game.combat_steps.combat_document`; who then assigns which damage is the
solver's rule (702.22j-k).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal

from trample.models.document.errors import InputError
from trample.models.game.cards import get_card
from trample.models.game.events import Event
from trample.models.game.state import (
    GameState,
    Permanent,
    Transition,
    Trigger,
    create_token,
    put_trigger,
)

BANDING = "banding"
BANDS_WITH_OTHER = "bands with other"
DORAN = "Doran, the Siege Tower"
THORN_ELEMENTAL = "Thorn Elemental"
MASTER_OF_THE_HUNT = "Master of the Hunt"
WOLVES_OF_THE_HUNT = "Wolves of the Hunt"
"""The token Master of the Hunt's ability creates (bundled as a token definition)."""
CREATE_WOLVES = "create_wolves"
"""The ``ability`` of Master of the Hunt's activated ability waiting on the stack."""

_BANDS_WITH_OTHER_LINE = re.compile(r"^\s*bands with other\s+([^(\n]+?)\s*(?:\(.*)?$",
                                    re.IGNORECASE)
_NAMED = re.compile(r"(?:creatures|permanents|cards)\s+named\s+(.+)", re.IGNORECASE)
_LEGENDS = frozenset({"legends", "legendary", "legendary creatures", "legendary permanents"})


@dataclass(frozen=True, slots=True)
class Quality:
    """The Q of a "bands with other Q" ability.

    ``text`` is Q as the combat/1 document spells it (``Wolves of the Hunt``,
    ``legendary``, ``Dinosaurs``); ``kind`` and ``value`` say how a permanent has it: its
    name is ``value``, it has the supertype ``value``, or one of its subtypes is ``value``
    (a plural such as ``Dinosaurs`` read as the creature type Dinosaur).
    """

    text: str
    kind: Literal["name", "supertype", "subtype"]
    value: str

    def held_by(self, perm: Permanent) -> bool:
        """Whether ``perm`` has this quality (a face-down permanent has no name, no
        supertype and no subtype, 708.2a)."""
        face = perm.characteristics
        if self.kind == "name":
            return bool(face.name) and face.name.casefold() == self.value.casefold()
        if self.kind == "supertype":
            return self.value in face.card_types
        wanted = self.value.casefold()
        return any(_singular(t.casefold()) == wanted or t.casefold() == wanted
                   for t in face.subtypes)


def _singular(word: str) -> str:
    # Enough of English plurals for creature types: Wolves -> wolf, Dinosaurs -> dinosaur.
    if word.endswith("ves"):
        return word[:-3] + "f"
    if word.endswith("s") and not word.endswith("ss"):
        return word[:-1]
    return word


def quality_of(text: str) -> Quality:
    """The quality a "bands with other ..." ability names, from the words after "other"."""
    words = " ".join(text.strip().rstrip(".").split())
    named = _NAMED.fullmatch(words)
    if named:
        name = named.group(1)
        return Quality(name, "name", name)
    if words.casefold() in _LEGENDS:
        return Quality("legendary", "supertype", "Legendary")
    return Quality(words, "subtype", _singular(words.casefold()))


def has_banding(perm: Permanent) -> bool:
    """Whether ``perm`` has banding now."""
    return perm.has_keyword(BANDING)


def bands_with_other(perm: Permanent) -> tuple[Quality, ...]:
    """The qualities of ``perm``'s "bands with other" abilities: from the Oracle text of
    the face that is up (a line "Bands with other creatures named Wolves of the Hunt"),
    and from keywords that spell their quality (``bands with other legends`` granted until
    end of turn). A bare "Bands with other" keyword, as Scryfall lists it, is read with the
    text that names its quality."""
    if perm.face_down:
        return ()
    found: dict[Quality, None] = {}
    for line in perm.characteristics.oracle_text.splitlines():
        match = _BANDS_WITH_OTHER_LINE.match(line)
        if match:
            found[quality_of(match.group(1))] = None
    for keyword in perm.combat_keywords:
        if keyword.startswith(BANDS_WITH_OTHER + " "):
            found[quality_of(keyword[len(BANDS_WITH_OTHER) + 1:])] = None
    return tuple(found)


def is_banding_keyword(keyword: str) -> bool:
    """Whether a normalized keyword is banding or a "bands with other" ability."""
    return keyword == BANDING or keyword.startswith(BANDS_WITH_OTHER)


def check_band(state: GameState, members: Sequence[str], path: str) -> None:
    """Refuse a band its members' abilities do not allow (702.22c), naming ``path``.

    Either every member but at most one has banding, or every member has a quality Q
    that the "bands with other Q" ability of at least one member names. The members are
    attacking creatures of the active player attacking the same thing (checked with the
    declaration itself).
    """
    perms = [state.permanent(m, path) for m in members]
    without = [p for p in perms if not has_banding(p)]
    if len(without) <= 1:
        return
    qualities = dict.fromkeys(q for p in perms for q in bands_with_other(p))
    for quality in qualities:
        if all(quality.held_by(p) for p in perms):
            return
    shared = "" if not qualities else (
        "; none of " + ", ".join(repr(q.text) for q in qualities) + " is a quality of every "
        "member")
    raise InputError(path, f"{without[0].id!r} and {without[1].id!r} have no banding: a band "
                     "is creatures with banding and at most one without, or creatures that "
                     "share a quality Q of which one has \"bands with other Q\" "
                     f"(702.22c){shared}")


def doran_on_battlefield(state: GameState) -> bool:
    """Whether a Doran, the Siege Tower with its ability is on the battlefield: then each
    creature assigns combat damage equal to its toughness rather than its power."""
    return any(p.name == DORAN for p in state.battlefield)


def assigns_as_though_unblocked(perm: Permanent) -> bool:
    """Whether ``perm``'s controller may have it assign its combat damage as though it
    weren't blocked (Thorn Elemental)."""
    return perm.name == THORN_ELEMENTAL


def activate_master_of_the_hunt(state: GameState, object_id: str) -> Transition:
    """Activate Master of the Hunt's "{2}{G}{G}: Create a 1/1 green Wolf creature token
    named Wolves of the Hunt" (its mana cost is not modelled): the ability waits on the
    stack until :func:`~trample.models.game.seeds.resolve_trigger` resolves it."""
    perm = state.permanent(object_id)
    if perm.name != MASTER_OF_THE_HUNT:
        raise InputError("object", f"{object_id!r} is not a Master of the Hunt with its "
                                   "ability")
    return put_trigger(state, CREATE_WOLVES, object_id, perm.controller)


def create_wolves(state: GameState, trigger: Trigger) -> tuple[GameState, list[Event], bool]:
    """Resolve Master of the Hunt's ability: its controller creates a Wolves of the Hunt
    token (even if Master has left the battlefield: the ability is independent of its
    source, 113.7a)."""
    state, events = create_token(state, get_card(WOLVES_OF_THE_HUNT), trigger.controller)
    return state, events, False
