"""The game state: players, their zones, permanents, the triggered abilities waiting.

Everything here is an immutable value. A transition takes a :class:`GameState` and returns
``(new_state, events)``; it never changes its input. Objects have ids: a permanent's id
is fresh each time it enters the battlefield, and a card that changes zones becomes a new
object with a new id (400.7), so "the same object" is "the same id".

Triggered abilities are not run by a stack engine: a trigger is put into
:attr:`GameState.stack` (with an :class:`~trample.models.game.events.AbilityTriggered` event)
and the caller resolves it with :func:`trample.models.game.seeds.resolve_trigger`. Each trigger
remembers how many times its source had transformed when it was put on the stack, which
is what the "since the ability was put onto the stack" rule needs (seed ¶6, 701.27f).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Literal

from trample.models.document.combat import normalize_keyword
from trample.models.document.errors import InputError, TrampleError
from trample.models.game.cards import FACE_DOWN, Card, Face
from trample.models.game.events import (
    AbilityTriggered,
    CounterAdded,
    CounterRemoved,
    Event,
    KeywordGranted,
    TokenCreated,
    ZoneChange,
)

FaceSide = Literal["front", "back"]
Zone = Literal["library", "hand", "graveyard", "exile"]
ZONES: tuple[Zone, ...] = ("library", "hand", "graveyard", "exile")
PUBLIC_ZONES: frozenset[str] = frozenset({"graveyard", "exile", "battlefield"})

PLUS_ONE = "+1/+1"
MINUS_ONE = "-1/-1"
LORE = "lore"
LOYALTY = "loyalty"
DEFENSE = "defense"

Counters = tuple[tuple[str, int], ...]
Transition = tuple["GameState", list[Event]]


class IllegalActionError(TrampleError):
    """An action the rules forbid: a cost that can't be paid, a choice that can't be made."""


@dataclass(frozen=True, slots=True)
class CardObject:
    """A card (or a token that has left the battlefield) in a zone other than the battlefield."""

    id: str
    card: Card
    token: bool = False


@dataclass(frozen=True, slots=True)
class PlayerState:
    """A player and the zones they own; ``library`` is top card first."""

    id: str
    life: int = 20
    library: tuple[CardObject, ...] = ()
    hand: tuple[CardObject, ...] = ()
    graveyard: tuple[CardObject, ...] = ()
    exile: tuple[CardObject, ...] = ()
    poison: int = 0
    lost: bool = False

    def zone(self, name: str) -> tuple[CardObject, ...]:
        """The cards in the zone called ``name``."""
        if name not in ZONES:
            raise InputError("zone", f"unknown zone {name!r}")
        result: tuple[CardObject, ...] = getattr(self, name)
        return result

    def with_zone(self, name: str, cards: tuple[CardObject, ...]) -> PlayerState:
        """This player with the zone called ``name`` holding ``cards``."""
        if name == "library":
            return replace(self, library=cards)
        if name == "hand":
            return replace(self, hand=cards)
        if name == "graveyard":
            return replace(self, graveyard=cards)
        if name == "exile":
            return replace(self, exile=cards)
        raise InputError("zone", f"unknown zone {name!r}")


def counters_get(counters: Counters, kind: str) -> int:
    """How many counters of ``kind`` there are."""
    for k, n in counters:
        if k == kind:
            return n
    return 0


def counters_add(counters: Counters, kind: str, amount: int) -> Counters:
    """``counters`` with ``amount`` (possibly negative) more of ``kind``, never below 0."""
    values = dict(counters)
    values[kind] = max(0, values.get(kind, 0) + amount)
    return tuple(sorted((k, n) for k, n in values.items() if n > 0))


@dataclass(frozen=True, slots=True)
class Permanent:
    """A permanent on the battlefield.

    ``face`` is the face that is up; ``transformations`` counts the times this object
    transformed or converted (the "since" bookkeeping of seed ¶6). ``protector`` is the
    protecting player of a battle (310.8).
    """

    id: str
    card: Card
    owner: str
    controller: str
    face: FaceSide = "front"
    face_down: bool = False
    counters: Counters = ()
    damage: int = 0
    deathtouch_damaged: bool = False
    token: bool = False
    summoning_sick: bool = True
    tapped: bool = False
    transformations: int = 0
    protector: str | None = None
    granted: tuple[str, ...] = ()

    def counter(self, kind: str) -> int:
        """How many ``kind`` counters are on it."""
        return counters_get(self.counters, kind)

    @property
    def characteristics(self) -> Face:
        """The face it has on the battlefield: the face that is up (712.8d-e), or a 2/2."""
        return FACE_DOWN if self.face_down else self.card.face(self.face)

    @property
    def name(self) -> str:
        """Its name (a face-down permanent has none)."""
        return self.characteristics.name

    @property
    def power(self) -> int:
        """Power including +1/+1 and -1/-1 counters."""
        return (self.characteristics.base_power + self.counter(PLUS_ONE)
                - self.counter(MINUS_ONE))

    @property
    def toughness(self) -> int:
        """Toughness including +1/+1 and -1/-1 counters."""
        return (self.characteristics.base_toughness + self.counter(PLUS_ONE)
                - self.counter(MINUS_ONE))

    @property
    def keywords(self) -> tuple[str, ...]:
        """The keywords of the face that is up, then those granted until end of turn;
        multiple instances of one keyword are redundant (702.19f) and listed once."""
        return _distinct_keywords(self.characteristics.keywords, self.granted)[0]

    @property
    def combat_keywords(self) -> frozenset[str]:
        """Its keywords normalized as combat/1 normalizes them (``first strike``)."""
        return _distinct_keywords(self.characteristics.keywords, self.granted)[1]

    def has_keyword(self, keyword: str) -> bool:
        """Whether it has ``keyword`` (matched as combat/1 matches keywords)."""
        return _normalized(keyword) in self.combat_keywords

    @property
    def is_creature(self) -> bool:
        """A creature."""
        return self.characteristics.is_creature

    @property
    def is_land(self) -> bool:
        """A land."""
        return self.characteristics.is_land

    @property
    def is_planeswalker(self) -> bool:
        """A planeswalker."""
        return self.characteristics.is_planeswalker

    @property
    def is_battle(self) -> bool:
        """A battle."""
        return self.characteristics.is_battle

    @property
    def mana_value(self) -> int:
        """Its mana value on the battlefield.

        Face down: 0 (708.2a). A transforming double-faced card or transforming token with
        its back face up uses its front face's mana cost (712.8e); a modal double-faced
        card uses the mana cost of the face that is up.
        """
        if self.face_down:
            return 0
        if self.face == "back" and self.card.layout == "modal_dfc" and self.card.back:
            return self.card.back.own_mana_value
        return self.card.front.own_mana_value

    @property
    def is_transformed_permanent(self) -> bool:
        """A "transformed permanent": back face up and a TDFC or transforming token.

        A permanent with its front face up never is, even if it was transformed before
        (seed ¶7 of both documents). A modal double-faced card is not a transforming
        double-faced card, so a modal DFC played back face up is not one either.
        """
        return (not self.face_down and self.face == "back"
                and self.card.layout in ("transform", "double_faced_token")
                and self.card.back is not None)


@lru_cache(maxsize=65536)
def _normalized(keyword: str) -> str:
    return normalize_keyword(keyword)


@lru_cache(maxsize=65536)
def _distinct_keywords(printed: tuple[str, ...],
                       granted: tuple[str, ...]) -> tuple[tuple[str, ...], frozenset[str]]:
    # Derived once per face and grant list, not once per look-up: a permanent's keywords
    # are read for every damage entry and every state-based action check.
    seen: dict[str, str] = {}
    for keyword in (*printed, *granted):
        seen.setdefault(_normalized(keyword), keyword)
    return tuple(seen.values()), frozenset(seen)


@dataclass(frozen=True, slots=True)
class Trigger:
    """A triggered ability waiting on the stack.

    ``name`` is the name of the source's face whose ability this is; ``stamp`` is the
    number of times the source had transformed or converted when the ability was put on
    the stack (seed ¶6); ``player`` is "that player" of abilities that name one.
    """

    id: str
    ability: str
    source: str
    controller: str
    name: str = ""
    chapter: int = 0
    player: str | None = None
    stamp: int = 0


@dataclass(frozen=True, slots=True)
class CombatDeclaration:
    """Declared attacks and blocks, kept for the combat damage steps.

    ``attacks`` maps an attacking creature to the player, planeswalker or battle it
    attacks; ``blocks`` maps a blocking creature to the attackers it blocks; ``defenders``
    remembers each attacked planeswalker's controller and each attacked battle's protector
    as they were when declared, as ``(id, "planeswalker" or "battle", player)`` (506.4c:
    if one leaves the battlefield, the creatures attacking it still attack it). ``bands``
    lists the attacking bands as declared (702.22c), each of at least two attackers; a
    creature that blocks one member blocks them all (702.22h).
    """

    attacks: tuple[tuple[str, str], ...] = ()
    blocks: tuple[tuple[str, tuple[str, ...]], ...] = ()
    defenders: tuple[tuple[str, str, str], ...] = ()
    bands: tuple[tuple[str, ...], ...] = ()

    def target_of(self, attacker: str) -> str | None:
        """What ``attacker`` attacks, or None if it is not an attacker."""
        return dict(self.attacks).get(attacker)

    def band_of(self, attacker: str) -> tuple[str, ...]:
        """The declared band of ``attacker`` (every member), or just ``attacker``."""
        for band in self.bands:
            if attacker in band:
                return band
        return (attacker,)

    def band_members(self) -> dict[str, tuple[str, ...]]:
        """Each member of a declared band -> every member of its band."""
        return {member: band for band in self.bands for member in band}

    def blocked_by(self, attacked: tuple[str, ...],
                   members: dict[str, tuple[str, ...]] | None = None) -> tuple[str, ...]:
        """The attackers a blocker declared to block ``attacked`` blocks: each of them and
        every other member of its band (702.22h), each once. ``members`` is
        :meth:`band_members`, given by callers that expand many blocks."""
        if not self.bands:
            return attacked
        if members is None:
            members = self.band_members()
        return tuple(dict.fromkeys(m for a in attacked for m in members.get(a, (a,))))

    def blockers_of(self, attacker: str) -> tuple[str, ...]:
        """The creatures declared as blockers of ``attacker`` or of a member of its band."""
        return tuple(b for b, attacked in self.blocks if attacker in self.blocked_by(attacked))

    def was_blocked(self, attacker: str) -> bool:
        """Whether ``attacker`` became blocked (509.1h, 702.22h): it stays blocked (506.4)."""
        return bool(self.blockers_of(attacker))

    def defending_players(self) -> dict[str, str]:
        """For each attacker, its defending player (506.2): the player it attacks, or the
        controller or protector of the planeswalker or battle it attacks, as declared."""
        walkers = {oid: player for oid, _, player in self.defenders}
        return {aid: walkers.get(target, target) for aid, target in self.attacks}


@dataclass(frozen=True, slots=True)
class GameState:
    """Everything the model knows about a game at one moment."""

    players: tuple[PlayerState, ...]
    active_player: str
    battlefield: tuple[Permanent, ...] = ()
    stack: tuple[Trigger, ...] = ()
    turn: int = 1
    next_id: int = 1
    damage_this_turn: tuple[tuple[str, str, int], ...] = ()
    combat: CombatDeclaration | None = None
    _where: dict[str, int] | None = field(default=None, init=False, repr=False,
                                          compare=False, hash=False)
    """Permanent id -> its place on the battlefield, built on the first look-up, so that
    finding a permanent costs O(1) rather than a scan of the battlefield."""

    def _positions(self) -> dict[str, int]:
        where = self._where
        if where is None:
            where = {perm.id: i for i, perm in enumerate(self.battlefield)}
            object.__setattr__(self, "_where", where)
        return where

    def player(self, player_id: str, path: str = "player") -> PlayerState:
        """The player with this id; InputError naming ``path`` if there is none."""
        for p in self.players:
            if p.id == player_id:
                return p
        raise InputError(path, f"no player {player_id!r}")

    def has_player(self, player_id: str) -> bool:
        """Whether a player has this id."""
        return any(p.id == player_id for p in self.players)

    def find_permanent(self, object_id: str) -> Permanent | None:
        """The permanent with this id, or None if no permanent has it."""
        i = self._positions().get(object_id)
        return None if i is None else self.battlefield[i]

    def permanent(self, object_id: str, path: str = "object") -> Permanent:
        """The permanent with this id; InputError naming ``path`` if there is none."""
        perm = self.find_permanent(object_id)
        if perm is None:
            raise InputError(path, f"no permanent {object_id!r} on the battlefield")
        return perm

    def find_card(self, object_id: str) -> tuple[PlayerState, Zone, CardObject] | None:
        """The owner, zone and card object with this id, if it is in a player's zone."""
        for p in self.players:
            for zone in ZONES:
                for obj in p.zone(zone):
                    if obj.id == object_id:
                        return p, zone, obj
        return None

    def find_trigger(self, trigger_id: str) -> Trigger | None:
        """The waiting trigger with this id, if any."""
        for t in self.stack:
            if t.id == trigger_id:
                return t
        return None

    def damage_dealt(self, source: str, player: str) -> int:
        """Damage ``source`` has dealt to ``player`` this turn (Vessel's tally)."""
        return sum(n for s, p, n in self.damage_this_turn if s == source and p == player)

    def opponents(self, player_id: str) -> tuple[str, ...]:
        """Every other player's id."""
        return tuple(p.id for p in self.players if p.id != player_id)


# -- building states ------------------------------------------------------------------------


def new_game(player_ids: Iterable[str] = ("ap", "dp"), *, life: int = 20,
             active_player: str | None = None) -> GameState:
    """A game with empty zones; the first player is active unless told otherwise."""
    ids = tuple(player_ids)
    if not ids:
        raise InputError("players", "a game needs at least one player")
    if len(set(ids)) != len(ids):
        raise InputError("players", "player ids must be unique")
    for i, pid in enumerate(ids):
        check_player_id(pid, f"players[{i}]")
    active = ids[0] if active_player is None else active_player
    if active not in ids:
        raise InputError("active_player", f"{active!r} is not a player")
    return GameState(players=tuple(PlayerState(pid, life=life) for pid in ids),
                     active_player=active)


def check_player_id(pid: str, path: str) -> None:
    """Refuse a player id that could be taken for an object or trigger id (``o3``, ``t7``)."""
    if not pid or (pid[0] in "ot" and pid[1:].isdigit()):
        raise InputError(path, f"player id {pid!r} is empty or looks like an object id")


def fresh_id(state: GameState, prefix: str = "o") -> tuple[GameState, str]:
    """A new id never used in this game, and the state that remembers it was used."""
    return replace(state, next_id=state.next_id + 1), f"{prefix}{state.next_id}"


def add_card(state: GameState, player: str, zone: Zone, card: Card, *,
             top: bool = False) -> tuple[GameState, str]:
    """Set-up: put ``card`` into ``player``'s ``zone`` (at the bottom, or on top)."""
    owner = state.player(player)
    state, oid = fresh_id(state)
    obj = CardObject(oid, card)
    cards = (obj, *owner.zone(zone)) if top else (*owner.zone(zone), obj)
    return replace_player(state, owner.with_zone(zone, cards)), oid


def enter_card(state: GameState, card: Card, controller: str, *, owner: str | None = None,
               face: FaceSide = "front", token: bool = False, face_down: bool = False,
               summoning_sick: bool = False) -> tuple[GameState, str, list[Event]]:
    """Set-up and effects: put ``card`` from outside the game onto the battlefield.

    Returns the new state, the new permanent's id and the events (a Saga's lore counter
    and chapter trigger, 714.3a). Set-ups default to a permanent that is not summoning sick.
    """
    state.player(controller, "controller")
    return _enter(state, card, owner or controller, controller, face=face, token=token,
                  face_down=face_down, summoning_sick=summoning_sick)


# -- replacing parts of a state ---------------------------------------------------------


def replace_player(state: GameState, player: PlayerState) -> GameState:
    """``state`` with the player of the same id replaced."""
    return replace(state, players=tuple(player if p.id == player.id else p
                                        for p in state.players))


def replace_permanent(state: GameState, perm: Permanent) -> GameState:
    """``state`` with the permanent of the same id replaced."""
    return replace_permanents(state, (perm,))


def replace_permanents(state: GameState, perms: Iterable[Permanent]) -> GameState:
    """``state`` with each permanent of the same id as one of ``perms`` replaced, in one
    pass over the battlefield (its order and the ids' places are kept)."""
    where = state._positions()
    battlefield = list(state.battlefield)
    for perm in perms:
        i = where.get(perm.id)
        if i is not None:
            battlefield[i] = perm
    new = replace(state, battlefield=tuple(battlefield))
    object.__setattr__(new, "_where", where)  # the same ids in the same places
    return new


def remove_permanent(state: GameState, object_id: str) -> GameState:
    """``state`` without the permanent of this id."""
    return replace(state, battlefield=tuple(p for p in state.battlefield if p.id != object_id))


# -- counters and triggers ------------------------------------------------------------------


def add_counters(state: GameState, object_id: str, kind: str, amount: int = 1) -> Transition:
    """Put ``amount`` ``kind`` counters on a permanent.

    Lore counters on a Saga trigger each chapter whose number the count reaches or passes
    (714.2b): those triggers go on the stack.
    """
    perm = state.permanent(object_id)
    if amount <= 0:
        return state, []
    before = perm.counter(kind)
    perm = replace(perm, counters=counters_add(perm.counters, kind, amount))
    state = replace_permanent(state, perm)
    events: list[Event] = [CounterAdded(object_id, kind, amount)]
    face = perm.characteristics
    if kind == LORE and face.is_saga:
        for chapter in face.chapters:
            if before < chapter <= before + amount:
                state, more = put_trigger(state, "chapter", perm.id, perm.controller,
                                          chapter=chapter)
                events += more
    return state, events


def remove_counters(state: GameState, object_id: str, kind: str, amount: int) -> Transition:
    """Remove up to ``amount`` ``kind`` counters from a permanent."""
    perm = state.permanent(object_id)
    taken = min(amount, perm.counter(kind))
    if taken <= 0:
        return state, []
    perm = replace(perm, counters=counters_add(perm.counters, kind, -taken))
    return replace_permanent(state, perm), [CounterRemoved(object_id, kind, taken)]


def put_trigger(state: GameState, ability: str, source: str, controller: str, *,
                chapter: int = 0, player: str | None = None) -> Transition:
    """Put a triggered ability of ``source`` on the stack, stamped with its transform count."""
    perm = state.find_permanent(source)
    stamp = perm.transformations if perm is not None else 0
    name = perm.name if perm is not None else ""
    state, tid = fresh_id(state, "t")
    trigger = Trigger(tid, ability, source, controller, name=name, chapter=chapter,
                      player=player, stamp=stamp)
    state = replace(state, stack=(*state.stack, trigger))
    return state, [AbilityTriggered(tid, source, ability, chapter)]


def remove_trigger(state: GameState, trigger_id: str) -> GameState:
    """``state`` without the waiting trigger of this id."""
    return replace(state, stack=tuple(t for t in state.stack if t.id != trigger_id))


# -- zones ------------------------------------------------------------------------------------


def _enter(state: GameState, card: Card, owner: str, controller: str, *, face: FaceSide,
           token: bool, face_down: bool = False,
           summoning_sick: bool = True) -> tuple[GameState, str, list[Event]]:
    state, oid = fresh_id(state)
    perm = Permanent(oid, card, owner, controller, face=face, face_down=face_down,
                     token=token, summoning_sick=summoning_sick)
    chars = perm.characteristics
    counters: Counters = ()
    # Planeswalkers and battles enter with their printed loyalty/defense (306.5b, 310.4b).
    if chars.is_planeswalker and chars.printed_loyalty > 0:
        counters = counters_add(counters, LOYALTY, chars.printed_loyalty)
    if chars.is_battle:
        counters = counters_add(counters, DEFENSE, chars.printed_defense)
        others = state.opponents(controller)
        perm = replace(perm, protector=others[0] if others else controller)
    perm = replace(perm, counters=counters)
    state = replace(state, battlefield=(*state.battlefield, perm))
    events: list[Event] = []
    if chars.is_saga:
        # As a Saga enters, its controller puts a lore counter on it (714.3a).
        state, events = add_counters(state, oid, LORE, 1)
    return state, oid, events


def put_onto_battlefield(state: GameState, card_id: str, controller: str | None = None, *,
                         transformed: bool = False, cause: str = "") -> Transition:
    """Put a card from a player's zone onto the battlefield as a new object.

    ``transformed`` puts it back face up. A card that can't be put onto the battlefield
    transformed (not a transforming double-faced card, or its back face is an instant or
    sorcery) stays where it is; so does a token that already left the battlefield (111.8).
    """
    found = state.find_card(card_id)
    if found is None:
        raise InputError("object", f"no card {card_id!r} in any player's zone")
    owner, zone, obj = found
    if obj.token:
        return state, []
    if transformed:
        back = obj.card.back
        if not obj.card.is_transforming or back is None or back.is_instant_or_sorcery:
            return state, []
    controller = controller or owner.id
    state.player(controller, "controller")
    state = replace_player(state, owner.with_zone(zone, tuple(
        c for c in owner.zone(zone) if c.id != card_id)))
    state, oid, events = _enter(state, obj.card, owner.id, controller,
                                face="back" if transformed else "front", token=False)
    move = ZoneChange(card_id, oid, obj.card.name, owner.id, zone, "battlefield", cause,
                      transformed=transformed)
    return state, [move, *events]


def create_token(state: GameState, card: Card, controller: str) -> Transition:
    """Create a token from the token definition ``card`` under ``controller``'s control."""
    state.player(controller, "controller")
    state, oid, events = _enter(state, card, controller, controller, face="front", token=True)
    return state, [TokenCreated(oid, card.name, controller), *events]


def move_permanent(state: GameState, object_id: str, to_zone: Zone,
                   cause: str = "") -> Transition:
    """Move a permanent to its owner's ``to_zone``, where it is a new object.

    A token goes there too and ceases to exist when state-based actions are next checked
    (704.5d). Marked damage, counters and face are gone: in any other zone a double-faced
    card has only its front face's characteristics (712.8a).
    """
    perm = state.permanent(object_id)
    state = remove_permanent(state, object_id)
    owner = state.player(perm.owner)
    state, new = fresh_id(state)
    obj = CardObject(new, perm.card, token=perm.token)
    state = replace_player(state, owner.with_zone(to_zone, (*owner.zone(to_zone), obj)))
    return state, [ZoneChange(object_id, new, perm.card.name, perm.owner, "battlefield",
                              to_zone, cause)]


def move_permanents(state: GameState, moves: Iterable[tuple[str, Zone, str]]) -> Transition:
    """Move several permanents, each ``(id, to_zone, cause)`` as :func:`move_permanent`
    moves one, in that order, in one pass over the battlefield and each zone."""
    events: list[Event] = []
    leaving: set[str] = set()
    arriving: dict[tuple[str, str], list[CardObject]] = {}
    next_id = state.next_id
    for object_id, to_zone, cause in moves:
        perm = state.permanent(object_id)
        if object_id in leaving:
            continue
        leaving.add(object_id)
        new = f"o{next_id}"
        next_id += 1
        arriving.setdefault((perm.owner, to_zone), []).append(
            CardObject(new, perm.card, token=perm.token))
        events.append(ZoneChange(object_id, new, perm.card.name, perm.owner, "battlefield",
                                 to_zone, cause))
    if not leaving:
        return state, events
    players = []
    for player in state.players:
        for zone in ZONES:
            cards = arriving.get((player.id, zone))
            if cards:
                player = player.with_zone(zone, (*player.zone(zone), *cards))
        players.append(player)
    return replace(state, players=tuple(players), next_id=next_id, battlefield=tuple(
        p for p in state.battlefield if p.id not in leaving)), events


def move_card(state: GameState, card_id: str, to_zone: Zone, cause: str = "") -> Transition:
    """Move a card between zones other than the battlefield (into its owner's zone)."""
    found = state.find_card(card_id)
    if found is None:
        raise InputError("object", f"no card {card_id!r} in any player's zone")
    owner, zone, obj = found
    if obj.token:
        return state, []
    state = replace_player(state, owner.with_zone(zone, tuple(
        c for c in owner.zone(zone) if c.id != card_id)))
    owner = state.player(owner.id)
    state, new = fresh_id(state)
    moved = CardObject(new, obj.card)
    state = replace_player(state, owner.with_zone(to_zone, (*owner.zone(to_zone), moved)))
    return state, [ZoneChange(card_id, new, obj.card.name, owner.id, zone, to_zone, cause)]


def destroy(state: GameState, object_id: str, cause: str = "destroy") -> Transition:
    """Destroy a permanent: to its owner's graveyard unless it is indestructible (701.8)."""
    perm = state.permanent(object_id)
    if perm.has_keyword("indestructible"):
        return state, []
    return move_permanent(state, object_id, "graveyard", cause)


# -- turns --------------------------------------------------------------------------------------


def begin_turn(state: GameState, player: str) -> Transition:
    """Start ``player``'s turn: a new turn number, no damage dealt this turn yet.

    Permanents ``player`` controls are no longer summoning sick (302.6) and untap (502.3).
    """
    state.player(player)
    battlefield = tuple(replace(p, summoning_sick=False, tapped=False)
                        if p.controller == player else p for p in state.battlefield)
    return replace(state, active_player=player, turn=state.turn + 1, battlefield=battlefield,
                   damage_this_turn=(), combat=None), []


def cleanup(state: GameState) -> Transition:
    """The cleanup step: marked damage and deathtouch marks wear off, and so do "until end
    of turn" effects such as granted keywords (514.2)."""
    battlefield = tuple(replace(p, damage=0, deathtouch_damaged=False, granted=())
                        for p in state.battlefield)
    return replace(state, battlefield=battlefield), []


def grant_keyword(state: GameState, object_id: str, keyword: str) -> Transition:
    """An effect: the permanent gains ``keyword`` until end of turn (e.g. double strike)."""
    perm = state.permanent(object_id)
    perm = replace(perm, granted=(*perm.granted, keyword))
    return replace_permanent(state, perm), [KeywordGranted(object_id, keyword)]
