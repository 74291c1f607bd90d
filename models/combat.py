"""The combat/1 document: parse and check it into frozen objects.

One JSON object describes the battlefield at the start of one combat damage step
(SPEC §1). :meth:`Combat.from_json` refuses anything malformed with an
:class:`~trample.models.errors.InputError` whose ``path`` names the offending field,
so that nothing downstream ever sees an inconsistent combat.
"""

from __future__ import annotations

import re
import reprlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from trample.models.errors import InputError

Step = Literal["first_strike", "regular"]
STEPS: tuple[Step, ...] = ("first_strike", "regular")

TRAMPLE = "trample"
TRAMPLE_OVER_PLANESWALKERS = "trample over planeswalkers"
DEATHTOUCH = "deathtouch"
FIRST_STRIKE = "first strike"
DOUBLE_STRIKE = "double strike"
INDESTRUCTIBLE = "indestructible"
RECOGNIZED_KEYWORDS = frozenset(
    {TRAMPLE, TRAMPLE_OVER_PLANESWALKERS, DEATHTOUCH, FIRST_STRIKE, DOUBLE_STRIKE, INDESTRUCTIBLE}
)
"""Keywords that change damage assignment; every other keyword is accepted and ignored."""

UNSUPPORTED_KEYWORDS = ("banding", "bands with other")

# Limits: every integer in a document must have a magnitude of at most MAX_MAGNITUDE, so
# that sums over a whole combat stay far inside 64-bit arithmetic in the CP-SAT model.
MAX_MAGNITUDE = 2**40
MAX_OBJECTS = 20_000
MAX_BLOCKS_PER_CREATURE = 1_000
MAX_ID_LENGTH = 200
MAX_TEXT_LENGTH = 1_000
"""Names and keywords."""
MAX_BLOCKS = 100_000
"""Blocks in one document, all creatures together."""

_SEPARATORS = re.compile(r"[\s_\-]+")


class _BriefRepr(reprlib.Repr):
    """``repr`` cut short: bounded depth and length, and no decimal conversion of an
    integer past Python's digit limit (which would raise ValueError)."""

    def __init__(self) -> None:
        super().__init__()
        self.maxlevel = 3
        self.maxstring = 60
        self.maxother = 60
        self.maxlong = 60

    def repr_int(self, x: int, level: int) -> str:
        if x.bit_length() > 200:
            return int_text(x)
        return super().repr_int(x, level)


_BRIEF = _BriefRepr()


def brief_repr(value: object) -> str:
    """``repr(value)`` for an error message: short, and safe on any hostile value (deep
    nesting, huge integers, long strings)."""
    return _BRIEF.repr(value)


def int_text(value: int) -> str:
    """An integer for an error message: its digits, or its size when it has very many."""
    if value.bit_length() <= 400:
        return str(value)
    digits = int(value.bit_length() * 0.30103) + 1  # log10(2): within one of the truth
    return f"{'a negative' if value < 0 else 'an'} integer of about {digits} digits"


def field_name(key: object) -> str:
    """A document key as it appears in an error path (quoted unless a plain name)."""
    if isinstance(key, str) and key.isidentifier() and len(key) <= MAX_ID_LENGTH:
        return key
    return brief_repr(key)


def normalize_keyword(keyword: str) -> str:
    """Lower-case ``keyword`` with ``_``, ``-`` and runs of spaces made one space.

    >>> normalize_keyword("Trample_Over-Planeswalkers")
    'trample over planeswalkers'
    """
    return _SEPARATORS.sub(" ", keyword).strip().lower()


@dataclass(frozen=True, slots=True)
class Player:
    """A player and their life total."""

    id: str
    life: int = 20
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Creature:
    """A creature on the battlefield, attacking, blocking or neither."""

    id: str
    controller: str
    power: int
    toughness: int
    damage: int = 0
    value: int = 1
    keywords: frozenset[str] = frozenset()
    attacking: str | None = None
    blocked: bool | None = None
    blocking: tuple[str, ...] = ()
    name: str | None = None

    def has(self, keyword: str) -> bool:
        """Whether the creature has ``keyword`` (already normalized)."""
        return keyword in self.keywords

    @property
    def is_attacking(self) -> bool:
        """Whether the creature is an attacking creature."""
        return self.attacking is not None

    @property
    def is_blocking(self) -> bool:
        """Whether the creature blocks at least one attacker."""
        return bool(self.blocking)

    @property
    def has_trample(self) -> bool:
        """Trample of either kind (702.19c: trample over planeswalkers is a variant)."""
        return TRAMPLE in self.keywords or TRAMPLE_OVER_PLANESWALKERS in self.keywords

    @property
    def has_first_strike(self) -> bool:
        """First strike or double strike: it assigns in the first-strike step (510.4)."""
        return FIRST_STRIKE in self.keywords or DOUBLE_STRIKE in self.keywords

    @property
    def lethal_need(self) -> int:
        """Damage still needed to reach toughness (0 or less: already lethal)."""
        return self.toughness - self.damage

    @property
    def label(self) -> str:
        """The name if given, else the id."""
        return self.name or self.id


@dataclass(frozen=True, slots=True)
class Planeswalker:
    """A planeswalker; ``in_combat`` is false once it was removed from combat (506.4c)."""

    id: str
    controller: str
    loyalty: int
    in_combat: bool = True
    name: str | None = None


@dataclass(frozen=True, slots=True)
class Battle:
    """A battle; its protector is the defending player for it."""

    id: str
    protector: str
    defense: int
    in_combat: bool = True
    name: str | None = None


Kind = Literal["player", "creature", "planeswalker", "battle"]


@dataclass(frozen=True, slots=True)
class Combat:
    """The battlefield at the start of one combat damage step (SPEC §1)."""

    active_player: str
    players: tuple[Player, ...]
    creatures: tuple[Creature, ...]
    planeswalkers: tuple[Planeswalker, ...] = ()
    battles: tuple[Battle, ...] = ()
    step: Step = "regular"
    _index: dict[str, Player | Creature | Planeswalker | Battle] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )
    _blockers: dict[str, tuple[str, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        objects: tuple[Player | Creature | Planeswalker | Battle, ...] = (
            *self.players, *self.creatures, *self.planeswalkers, *self.battles)
        index = {obj.id: obj for obj in objects}
        blockers: dict[str, list[str]] = {c.id: [] for c in self.creatures if c.is_attacking}
        for creature in self.creatures:
            for attacker in creature.blocking:
                blockers.setdefault(attacker, []).append(creature.id)
        object.__setattr__(self, "_index", index)
        object.__setattr__(self, "_blockers", {k: tuple(v) for k, v in blockers.items()})

    # -- look-ups ---------------------------------------------------------------------

    def __contains__(self, object_id: object) -> bool:
        return object_id in self._index

    def get(self, object_id: str) -> Player | Creature | Planeswalker | Battle:
        """The object with this id (KeyError if there is none)."""
        return self._index[object_id]

    def kind(self, object_id: str) -> Kind:
        """Whether the id names a player, creature, planeswalker or battle."""
        obj = self._index[object_id]
        if isinstance(obj, Player):
            return "player"
        if isinstance(obj, Creature):
            return "creature"
        if isinstance(obj, Planeswalker):
            return "planeswalker"
        return "battle"

    def creature(self, object_id: str) -> Creature:
        """The creature with this id."""
        obj = self._index[object_id]
        assert isinstance(obj, Creature)
        return obj

    def planeswalker(self, object_id: str) -> Planeswalker:
        """The planeswalker with this id."""
        obj = self._index[object_id]
        assert isinstance(obj, Planeswalker)
        return obj

    def battle(self, object_id: str) -> Battle:
        """The battle with this id."""
        obj = self._index[object_id]
        assert isinstance(obj, Battle)
        return obj

    def blockers_of(self, attacker_id: str) -> tuple[str, ...]:
        """The creatures blocking ``attacker_id``, in document order."""
        return self._blockers.get(attacker_id, ())

    def is_blocked(self, attacker: Creature) -> bool:
        """Blocked: it has a blocker, or ``blocked`` says its blockers are gone (509.1h)."""
        return bool(self.blockers_of(attacker.id)) or attacker.blocked is True

    def is_live(self, target_id: str) -> bool:
        """A player, or a planeswalker or battle not removed from combat (506.4c)."""
        obj = self._index[target_id]
        if isinstance(obj, (Planeswalker, Battle)):
            return obj.in_combat
        return isinstance(obj, Player)

    def label(self, object_id: str) -> str:
        """The object's name if it has one, else its id."""
        obj = self._index.get(object_id)
        return (obj.name if obj is not None else None) or object_id

    @property
    def attackers(self) -> tuple[Creature, ...]:
        """The attacking creatures, in document order."""
        return tuple(c for c in self.creatures if c.is_attacking)

    @property
    def blockers(self) -> tuple[Creature, ...]:
        """The blocking creatures, in document order."""
        return tuple(c for c in self.creatures if c.is_blocking)

    @property
    def defending_players(self) -> tuple[Player, ...]:
        """Every player other than the active player."""
        return tuple(p for p in self.players if p.id != self.active_player)

    def attacked(self, target_id: str) -> bool:
        """Whether some creature attacks ``target_id``."""
        return any(c.attacking == target_id for c in self.creatures)

    # -- JSON ---------------------------------------------------------------------------

    @classmethod
    def from_json(cls, document: object) -> Combat:
        """Parse and check a combat/1 document; raise InputError naming the bad field."""
        return _parse_combat(document)

    def to_json(self) -> dict[str, Any]:
        """The combat/1 document of this combat (defaults written out)."""
        doc: dict[str, Any] = {
            "active_player": self.active_player,
            "players": [_drop_none({"id": p.id, "life": p.life, "name": p.name})
                        for p in self.players],
            "creatures": [_creature_json(c) for c in self.creatures],
        }
        if self.planeswalkers:
            doc["planeswalkers"] = [
                _drop_none({"id": p.id, "controller": p.controller, "loyalty": p.loyalty,
                            "in_combat": p.in_combat, "name": p.name})
                for p in self.planeswalkers
            ]
        if self.battles:
            doc["battles"] = [
                _drop_none({"id": b.id, "protector": b.protector, "defense": b.defense,
                            "in_combat": b.in_combat, "name": b.name})
                for b in self.battles
            ]
        doc["step"] = self.step
        return doc


def _drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def _creature_json(c: Creature) -> dict[str, Any]:
    d: dict[str, Any] = {"id": c.id, "controller": c.controller, "power": c.power,
                         "toughness": c.toughness, "damage": c.damage, "value": c.value,
                         "keywords": sorted(c.keywords)}
    if c.name is not None:
        d["name"] = c.name
    if c.attacking is not None:
        d["attacking"] = c.attacking
    if c.blocked is not None:
        d["blocked"] = c.blocked
    if c.blocking:
        d["blocking"] = list(c.blocking)
    return d


# -- parsing helpers ---------------------------------------------------------------------

REQUEST_FIELDS = frozenset({"side", "objective", "assignment", "time_limit"})
"""Top-level fields a document may carry for the request it is part of (SPEC §5)."""

_MISSING = object()


def _describe(value: object) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number with a fraction" if not value.is_integer() else "a float"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, Sequence):
        return "a list"
    return type(value).__name__


class _Obj:
    """Typed field access on one JSON object, with error paths."""

    __slots__ = ("data", "index", "prefix")

    def __init__(self, value: object, prefix: str, allowed: frozenset[str],
                 index: int | None = None) -> None:
        self.prefix = prefix
        self.index = index
        if type(value) is not dict and not isinstance(value, Mapping):
            raise InputError(self.path or "document",
                             f"must be an object, not {_describe(value)}")
        self.data = value
        if not allowed.issuperset(value):
            for key in value:
                if not isinstance(key, str) or key not in allowed:
                    raise InputError(self.sub(field_name(key)), "unknown field (accepted: "
                                     + ", ".join(sorted(allowed)) + ")")

    @property
    def path(self) -> str:
        """Where this object is (built only when an error needs it)."""
        return self.prefix if self.index is None else f"{self.prefix}[{self.index}]"

    def sub(self, key: str) -> str:
        path = self.path
        return f"{path}.{key}" if path else key

    def raw(self, key: str) -> object:
        return self.data.get(key, _MISSING)

    def required(self, key: str) -> object:
        value = self.data.get(key, _MISSING)
        if value is _MISSING:
            raise InputError(self.sub(key), "required field is missing")
        return value

    def id(self, key: str, *, required: bool = True) -> str | None:
        value = self.data.get(key)
        if type(value) is str and 0 < len(value) <= MAX_ID_LENGTH:
            return value  # the common case, checked without building the field's path
        value = self.required(key) if required else value
        if value is None and not required:
            return None
        return check_id(value, self.sub(key))

    def integer(self, key: str, default: int | None = None, *, minimum: int | None = None) -> int:
        value = self.data.get(key, _MISSING)
        if type(value) is int and -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE and (
                minimum is None or value >= minimum):
            return value  # the common case, checked without building the field's path
        if value is _MISSING:
            if default is None:
                raise InputError(self.sub(key), "required field is missing")
            return default
        return check_int(value, self.sub(key), minimum=minimum)

    def boolean(self, key: str) -> bool | None:
        value = self.data.get(key, _MISSING)
        if value is _MISSING:
            return None
        if not isinstance(value, bool):
            raise InputError(self.sub(key), f"must be true or false, not {_describe(value)}")
        return value

    def string(self, key: str) -> str | None:
        value = self.data.get(key, _MISSING)
        if value is _MISSING:
            return None
        if not isinstance(value, str):
            raise InputError(self.sub(key), f"must be a string, not {_describe(value)}")
        if len(value) > MAX_TEXT_LENGTH:
            raise InputError(self.sub(key), f"is longer than {MAX_TEXT_LENGTH} characters")
        return value

    def array(self, key: str, *, required: bool = False, limit: int = MAX_OBJECTS) -> list[Any]:
        value = self.data.get(key, _MISSING)
        if type(value) is list and len(value) <= limit:
            return value  # the common case: a JSON array (read, never changed)
        if value is _MISSING:
            if required:
                raise InputError(self.sub(key), "required field is missing")
            return []
        if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
            raise InputError(self.sub(key), f"must be a list, not {_describe(value)}")
        if len(value) > limit:
            raise InputError(self.sub(key), f"has {len(value)} entries; the limit is {limit}")
        return list(value)


def check_int(value: object, path: str, *, minimum: int | None = None) -> int:
    """``value`` as an int, refused (InputError at ``path``) if it is not a JSON integer."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InputError(path, f"must be an integer, not {_describe(value)}")
    if abs(value) > MAX_MAGNITUDE:
        raise InputError(path, f"{int_text(value)} is out of range (magnitude at most 2^40)")
    if minimum is not None and value < minimum:
        raise InputError(path, f"must be at least {minimum}, not {value}")
    return value


def check_id(value: object, path: str) -> str:
    """``value`` as an id: a non-empty string of bounded length."""
    if not isinstance(value, str):
        raise InputError(path, f"must be an id (a string), not {_describe(value)}")
    if not value:
        raise InputError(path, "must be a non-empty id")
    if len(value) > MAX_ID_LENGTH:
        raise InputError(path, f"id is longer than {MAX_ID_LENGTH} characters")
    return value


_TOP_FIELDS = frozenset({"format", "active_player", "players", "creatures", "planeswalkers",
                         "battles", "step"}) | REQUEST_FIELDS
_PLAYER_FIELDS = frozenset({"id", "life", "name"})
_CREATURE_FIELDS = frozenset({"id", "controller", "power", "toughness", "damage", "value",
                              "keywords", "attacking", "blocked", "blocking", "name"})
_PLANESWALKER_FIELDS = frozenset({"id", "controller", "loyalty", "in_combat", "name"})
_BATTLE_FIELDS = frozenset({"id", "protector", "defense", "in_combat", "name"})


_NO_KEYWORDS: frozenset[str] = frozenset()


def _parse_keywords(obj: _Obj) -> frozenset[str]:
    raw = obj.array("keywords")
    if not raw:
        return _NO_KEYWORDS
    keywords = set()
    for i, value in enumerate(raw):
        if not isinstance(value, str):
            raise InputError(f"{obj.sub('keywords')}[{i}]",
                             f"must be a string, not {_describe(value)}")
        if len(value) > MAX_TEXT_LENGTH:
            raise InputError(f"{obj.sub('keywords')}[{i}]",
                             f"is longer than {MAX_TEXT_LENGTH} characters")
        keyword = normalize_keyword(value)
        if keyword.startswith(UNSUPPORTED_KEYWORDS):
            raise InputError(f"{obj.sub('keywords')}[{i}]",
                             f"{brief_repr(value)}: banding is not supported yet")
        keywords.add(keyword)
    return frozenset(keywords)


def _parse_combat(document: object) -> Combat:
    top = _Obj(document, "", _TOP_FIELDS)
    fmt = top.raw("format")
    if fmt is not _MISSING and fmt != "combat/1":
        raise InputError("format", f"must be 'combat/1', not {brief_repr(fmt)}")

    seen: dict[str, _Obj] = {}

    def register(object_id: str, obj: _Obj) -> None:
        if object_id in seen:
            raise InputError(obj.sub("id"), f"duplicate id {object_id!r} (also "
                             f"{seen[object_id].sub('id')})")
        seen[object_id] = obj

    players: list[Player] = []
    raw_players = top.array("players", required=True)
    if not raw_players:
        raise InputError("players", "must list at least one player")
    for i, raw in enumerate(raw_players):
        obj = _Obj(raw, "players", _PLAYER_FIELDS, i)
        pid = obj.id("id")
        assert pid is not None
        register(pid, obj)
        players.append(Player(pid, obj.integer("life", 20), obj.string("name")))
    player_ids = {p.id for p in players}

    active = top.id("active_player")
    assert active is not None
    if active not in player_ids:
        raise InputError("active_player", f"{active!r} is not one of the players")

    def player_ref(obj: _Obj, key: str) -> str:
        pid = obj.id(key)
        assert pid is not None
        if pid not in player_ids:
            raise InputError(obj.sub(key), f"{pid!r} is not a player")
        return pid

    planeswalkers: list[Planeswalker] = []
    for i, raw in enumerate(top.array("planeswalkers")):
        obj = _Obj(raw, "planeswalkers", _PLANESWALKER_FIELDS, i)
        wid = obj.id("id")
        assert wid is not None
        register(wid, obj)
        in_combat = obj.boolean("in_combat")
        planeswalkers.append(Planeswalker(wid, player_ref(obj, "controller"),
                                          obj.integer("loyalty"),
                                          True if in_combat is None else in_combat,
                                          obj.string("name")))
    battles: list[Battle] = []
    for i, raw in enumerate(top.array("battles")):
        obj = _Obj(raw, "battles", _BATTLE_FIELDS, i)
        bid = obj.id("id")
        assert bid is not None
        register(bid, obj)
        in_combat = obj.boolean("in_combat")
        battles.append(Battle(bid, player_ref(obj, "protector"), obj.integer("defense"),
                              True if in_combat is None else in_combat, obj.string("name")))

    raw_creatures = top.array("creatures", required=True)
    parsed: list[tuple[_Obj, Creature, list[Any]]] = []
    blocks = 0
    for i, raw in enumerate(raw_creatures):
        obj = _Obj(raw, "creatures", _CREATURE_FIELDS, i)
        cid = obj.id("id")
        assert cid is not None
        register(cid, obj)
        controller = player_ref(obj, "controller")
        power, toughness = obj.integer("power"), obj.integer("toughness")
        damage, value = obj.integer("damage", 0, minimum=0), obj.integer("value", 1)
        keywords = _parse_keywords(obj)
        attacking = obj.id("attacking", required=False)
        blocked = obj.boolean("blocked")
        name = obj.string("name")
        blocking = obj.array("blocking", limit=MAX_BLOCKS_PER_CREATURE)
        blocks += len(blocking)
        if blocks > MAX_BLOCKS:
            raise InputError(obj.sub("blocking"), f"the document has more than {MAX_BLOCKS:,} "
                             "blocks in all, the limit")
        # Built once, with the blocks as listed: they are checked below, and any that is
        # not an attacker this creature may block refuses the whole document.
        creature = Creature(cid, controller, power, toughness, damage, value, keywords,
                            attacking, blocked, tuple(blocking), name)
        parsed.append((obj, creature, blocking))

    # Attack targets (508.1b): an opponent, a planeswalker an opponent controls, or a
    # battle an opponent protects.  defender[x] is the defending player for attacker x.
    defender: dict[str, str] = {}
    pw_by_id = {p.id: p for p in planeswalkers}
    battle_by_id = {b.id: b for b in battles}
    for obj, c, _ in parsed:
        if c.attacking is None:
            if c.blocked is not None:
                raise InputError(obj.sub("blocked"), "only an attacking creature can be blocked")
            continue
        if c.controller != active:
            raise InputError(obj.sub("attacking"), f"{c.id!r} is controlled by "
                             f"{c.controller!r}, not the "
                             f"active player {active!r}; only the active player attacks")
        target = c.attacking
        if target in player_ids:
            owner = target
        elif target in pw_by_id:
            owner = pw_by_id[target].controller
        elif target in battle_by_id:
            owner = battle_by_id[target].protector
        else:
            raise InputError(obj.sub("attacking"),
                             f"{target!r} is not a player, planeswalker or battle")
        if owner == active:
            raise InputError(obj.sub("attacking"), f"{target!r} is the active player's own; "
                             "a creature attacks an opponent, their planeswalker or a "
                             "battle they protect")
        defender[c.id] = owner

    blocked_by: dict[str, list[str]] = {}
    for obj, c, blocking in parsed:
        if not blocking:
            continue
        ids: dict[str, None] = {}  # in order; a set's look-up (1,000 ids per blocker)
        for j, raw_id in enumerate(blocking):
            aid = raw_id if type(raw_id) is str and 0 < len(raw_id) <= MAX_ID_LENGTH \
                else check_id(raw_id, f"{obj.sub('blocking')}[{j}]")
            if (aid in defender and aid not in ids and c.attacking is None
                    and c.controller != active and defender[aid] == c.controller):
                ids[aid] = None  # the common case, checked without building the path
                blocked_by.setdefault(aid, []).append(c.id)
                continue
            path = f"{obj.sub('blocking')}[{j}]"
            if aid not in defender:
                raise InputError(path, f"{aid!r} is not an attacking creature")
            if aid in ids:
                raise InputError(path, f"{aid!r} is listed twice")
            if c.attacking is not None:
                raise InputError(path, f"{c.id!r} is attacking and cannot also block")
            if c.controller == active:
                raise InputError(path, f"{c.id!r} is controlled by the active player and "
                                 f"cannot block its controller's creature {aid!r}")
            raise InputError(path, f"{aid!r} attacks {defender[aid]!r} or what they "
                             f"control or protect, so {c.id!r}, controlled by {c.controller!r}, "
                             "cannot block it (509.1a)")
    creatures = [c for _, c, _ in parsed]
    for obj, c, _ in parsed:
        if c.blocked is False and c.id in blocked_by:
            raise InputError(obj.sub("blocked"), f"is false, but {blocked_by[c.id][0]!r} "
                             f"blocks {c.id!r}")

    raw_step = top.raw("step")
    step: Step
    if raw_step is _MISSING or raw_step is None:
        fighting = (c for c in creatures if c.is_attacking or c.is_blocking)
        step = "first_strike" if any(c.has_first_strike for c in fighting) else "regular"
    elif raw_step in STEPS:
        step = "first_strike" if raw_step == "first_strike" else "regular"
    else:
        raise InputError("step", f"must be 'first_strike' or 'regular', not "
                         f"{brief_repr(raw_step)}")

    return Combat(active, tuple(players), tuple(creatures), tuple(planeswalkers),
                  tuple(battles), step)
