"""The combat/1 document: parse and check it into frozen objects.

One JSON object describes the battlefield at the start of one combat damage step
(SPEC §1). :meth:`Combat.from_json` refuses anything malformed with an
:class:`~trample.models.errors.InputError` whose ``path`` names the offending field,
so that nothing downstream ever sees an inconsistent combat.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any, Literal, cast

from trample.models.errors import InputError
from trample.models.keywords import (
    ASSIGNMENT_KEYWORDS,
    BANDING,
    BANDS_WITH_OTHER,
    DEATHTOUCH,
    DOUBLE_STRIKE,
    FIRST_STRIKE,
    INDESTRUCTIBLE,
    TRAMPLE,
    TRAMPLE_OVER_PLANESWALKERS,
    UNSUPPORTED_KEYWORDS,
    normalize_keyword,
    read_keyword,
)
from trample.models.reading import (
    MAX_ID_LENGTH,
    MAX_MAGNITUDE,
    MAX_OBJECTS,
    MAX_TEXT_LENGTH,
    MISSING,
    Obj,
    brief_repr,
    check_id,
    check_int,
    check_text,
    field_name,
    int_text,
)

# The reading helpers and keyword names are re-exported: callers have long found them here.
__all__ = [
    "DEATHTOUCH",
    "DOUBLE_STRIKE",
    "FIRST_STRIKE",
    "INDESTRUCTIBLE",
    "MAX_BLOCKS",
    "MAX_BLOCKS_PER_CREATURE",
    "MAX_ID_LENGTH",
    "MAX_MAGNITUDE",
    "MAX_OBJECTS",
    "MAX_TEXT_LENGTH",
    "NO_EFFECTS",
    "RECOGNIZED_KEYWORDS",
    "REQUEST_FIELDS",
    "STEPS",
    "TRAMPLE",
    "TRAMPLE_OVER_PLANESWALKERS",
    "UNSUPPORTED_KEYWORDS",
    "AssignmentEffects",
    "Battle",
    "Combat",
    "Creature",
    "Kind",
    "LossThreshold",
    "Multiplier",
    "Planeswalker",
    "Player",
    "Prevention",
    "Step",
    "brief_repr",
    "check_id",
    "check_int",
    "field_name",
    "int_text",
    "normalize_keyword",
]

Step = Literal["first_strike", "regular"]
Assigns = Literal["power", "toughness", "none"]
ASSIGNS: tuple[Assigns, ...] = ("power", "toughness", "none")
AssignedBy = Literal["controller", "opponent"]
ASSIGNED_BY: tuple[AssignedBy, ...] = ("controller", "opponent")
Chooser = Literal["attackers", "blockers"]
STEPS: tuple[Step, ...] = ("first_strike", "regular")

RECOGNIZED_KEYWORDS = ASSIGNMENT_KEYWORDS
"""Keywords that change damage assignment; other keywords are accepted and ignored, but a
misspelling of a recognized keyword is refused (:mod:`trample.models.keywords`)."""

MAX_BLOCKS_PER_CREATURE = 1_000
MAX_BLOCKS = 100_000
"""Blocks in one document, all creatures together."""


@dataclass(frozen=True, slots=True)
class Player:
    """A player and their life total."""

    id: str
    life: int = 20
    name: str | None = None
    poison: int = 0


@dataclass(frozen=True, slots=True)
class AssignmentEffects:
    """The combat/1 §10 fields of a creature: its qualities, how much it assigns, whether
    it may assign as though unblocked, and who chooses its split."""

    qualities: frozenset[str] = frozenset()
    assigns: Assigns = "power"
    as_though_unblocked: bool = False
    assigned_by: AssignedBy = "controller"


NO_EFFECTS = AssignmentEffects()
"""A creature's §10 fields when none is given."""


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
    toxic: int = 0
    """Its total toxic value, the sum of its toxic N (702.164c); ``toxic N`` itself is not
    in ``keywords``."""
    effects: AssignmentEffects = NO_EFFECTS
    """Who chooses its split and how much it assigns, when an effect changes them
    (combat/1 §10; :data:`NO_EFFECTS` for almost every creature: one field rather than
    four, since every creature of every document is built)."""

    @property
    def qualities(self) -> frozenset[str]:
        """Qualities a ``bands with other Q`` reads (702.22b), normalized as keywords
        are."""
        return self.effects.qualities

    @property
    def assigns(self) -> Assigns:
        """How much combat damage it assigns (510.1a): its power, its toughness (Doran,
        the Siege Tower; Assault Formation) or none."""
        return self.effects.assigns

    @property
    def as_though_unblocked(self) -> bool:
        """An attacker whose controller may have it assign its combat damage as though it
        weren't blocked (Thorn Elemental, Lone Wolf)."""
        return self.effects.as_though_unblocked

    @property
    def assigned_by(self) -> AssignedBy:
        """``opponent``: an effect has the other side choose how its damage is assigned
        (Defensive Formation)."""
        return self.effects.assigned_by

    @property
    def amount(self) -> int:
        """The combat damage it assigns (510.1a): its power, or its toughness with
        ``assigns: toughness``, or 0 with ``assigns: none``; 0 or less assigns nothing."""
        if self.assigns == "power":
            return self.power
        return self.toughness if self.assigns == "toughness" else 0

    @property
    def has_banding(self) -> bool:
        """Banding (702.22a)."""
        return BANDING in self.keywords

    @property
    def bands_with(self) -> frozenset[str]:
        """The qualities ``Q`` of its ``bands with other Q`` (702.22b)."""
        if not self.keywords:
            return frozenset()
        n = len(BANDS_WITH_OTHER)
        return frozenset(k[n:] for k in self.keywords if k.startswith(BANDS_WITH_OTHER))

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

ANY = "*"
"""In ``prevention`` and ``multipliers``: any source, or any target."""


@dataclass(frozen=True, slots=True)
class Prevention:
    """All damage a matching source would deal to a matching target is prevented."""

    source: str
    target: str


@dataclass(frozen=True, slots=True)
class Multiplier:
    """Damage a matching source deals to a matching target is multiplied by ``factor``."""

    source: str
    target: str
    factor: int


@dataclass(frozen=True, slots=True)
class LossThreshold:
    """The player loses once the damage ``source`` dealt them reaches ``threshold``
    (commander damage, 903.10a; Vessel of the All-Consuming); ``already`` is what it dealt
    them before this step."""

    source: str
    player: str
    threshold: int
    already: int = 0


MAX_FACTOR_PRODUCT = 2**20
"""Largest product of all multiplier factors above 1 in one document: dealt damage stays
an integer the search handles exactly."""


@dataclass(frozen=True, slots=True)
class Combat:
    """The battlefield at the start of one combat damage step (SPEC §1)."""

    active_player: str
    players: tuple[Player, ...]
    creatures: tuple[Creature, ...]
    planeswalkers: tuple[Planeswalker, ...] = ()
    battles: tuple[Battle, ...] = ()
    step: Step = "regular"
    prevention: tuple[Prevention, ...] = ()
    multipliers: tuple[Multiplier, ...] = ()
    loss_thresholds: tuple[LossThreshold, ...] = ()
    _index: dict[str, Player | Creature | Planeswalker | Battle] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )
    _blockers: dict[str, tuple[str, ...]] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )
    _moved: dict[str, str] = field(
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
        for c in self.creatures:
            # Cheap first: most documents have neither banding nor assigned_by.
            if (c.effects is not NO_EFFECTS and c.effects.assigned_by != "controller") or (
                    c.keywords and _may_band(c.keywords)):
                object.__setattr__(self, "_moved", self._find_moved())
                break

    def _find_moved(self) -> dict[str, str]:
        """The creatures in combat whose damage the other side assigns, and why: "702.22j"
        (an attacker blocked by a band's worth of blockers), "702.22k" (a blocker of a
        band), or "effect" (``assigned_by: opponent``)."""
        moved: dict[str, str] = {}
        for c in self.creatures:
            if c.is_attacking:
                if _banded(self.creature(b) for b in self.blockers_of(c.id)):
                    moved[c.id] = "702.22j"
                elif c.assigned_by == "opponent":
                    moved[c.id] = "effect"
            elif c.is_blocking:
                if _banded(self.creature(a) for a in c.blocking):
                    moved[c.id] = "702.22k"
                elif c.assigned_by == "opponent":
                    moved[c.id] = "effect"
        return moved

    def chooser(self, creature: Creature) -> Chooser | None:
        """The side that chooses how ``creature``'s combat damage is assigned: its
        controller's (``attackers`` for an attacking creature, ``blockers`` for a blocking
        one), or the other side's when banding (702.22j-k) or an effect moves the choice;
        ``None`` for a creature neither attacking nor blocking."""
        if creature.is_attacking:
            own: Chooser = "attackers"
        elif creature.is_blocking:
            own = "blockers"
        else:
            return None
        if creature.id in self._moved:
            return "blockers" if own == "attackers" else "attackers"
        return own

    @property
    def moved(self) -> dict[str, str]:
        """Every creature whose damage the other side assigns, and why (see
        :meth:`moved_by`); empty in most combats."""
        return self._moved

    def moved_by(self, creature_id: str) -> str | None:
        """Why the other side chooses ``creature_id``'s damage split: "702.22j", "702.22k",
        "effect" (``assigned_by: opponent``), or ``None`` when its own side does."""
        return self._moved.get(creature_id)

    @property
    def moves_a_choice(self) -> bool:
        """Whether the other side chooses some creature's damage split (702.22j-k, or
        ``assigned_by: opponent``)."""
        return bool(self._moved)

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
            "players": [_drop_none({"id": p.id, "life": p.life, "name": p.name,
                                    "poison": p.poison or None})
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
        if self.prevention:
            doc["prevention"] = [{"source": e.source, "target": e.target}
                                 for e in self.prevention]
        if self.multipliers:
            doc["multipliers"] = [{"source": e.source, "target": e.target,
                                   "factor": e.factor} for e in self.multipliers]
        if self.loss_thresholds:
            doc["loss_thresholds"] = [{"source": e.source, "player": e.player,
                                       "threshold": e.threshold, "already": e.already}
                                      for e in self.loss_thresholds]
        return doc


@lru_cache(maxsize=1024)
def _may_band(keywords: frozenset[str]) -> bool:
    """Whether a set of keywords has banding or a ``bands with other Q`` (the same few
    sets recur on thousands of creatures)."""
    return any(k.startswith("band") for k in keywords)


def _banded(creatures: Iterable[Creature]) -> bool:
    """Whether these creatures (one's blockers, or the attackers it blocks) include one
    with banding, or a Q creature with ``bands with other Q`` and another Q creature
    (702.22j-k)."""
    group = list(creatures)
    for x in group:
        if x.has_banding:
            return True
        for quality in x.bands_with & x.qualities:
            if any(y is not x and quality in y.qualities for y in group):
                return True
    return False


def _drop_none(d: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in d.items() if v is not None}


def _creature_json(c: Creature) -> dict[str, Any]:
    d: dict[str, Any] = {"id": c.id, "controller": c.controller, "power": c.power,
                         "toughness": c.toughness, "damage": c.damage, "value": c.value,
                         "keywords": sorted(c.keywords) + ([f"toxic {c.toxic}"] if c.toxic
                                                           else [])}
    if c.name is not None:
        d["name"] = c.name
    if c.attacking is not None:
        d["attacking"] = c.attacking
    if c.blocked is not None:
        d["blocked"] = c.blocked
    if c.blocking:
        d["blocking"] = list(c.blocking)
    if c.qualities:
        d["qualities"] = sorted(c.qualities)
    if c.assigns != "power":
        d["assigns"] = c.assigns
    if c.as_though_unblocked:
        d["as_though_unblocked"] = True
    if c.assigned_by != "controller":
        d["assigned_by"] = c.assigned_by
    return d


# -- parsing helpers ---------------------------------------------------------------------

REQUEST_FIELDS = frozenset({"side", "objective", "assignment", "time_limit"})
"""Top-level fields a document may carry for the request it is part of (SPEC §5)."""

_MISSING = MISSING
_Obj = Obj


_TOP_FIELDS = frozenset({"format", "active_player", "players", "creatures", "planeswalkers",
                         "battles", "step", "prevention", "multipliers",
                         "loss_thresholds"}) | REQUEST_FIELDS
_PLAYER_FIELDS = frozenset({"id", "life", "name", "poison"})
_PREVENTION_FIELDS = frozenset({"source", "target"})
_MULTIPLIER_FIELDS = frozenset({"source", "target", "factor"})
_LOSS_THRESHOLD_FIELDS = frozenset({"source", "player", "threshold", "already"})
_CREATURE_FIELDS = frozenset({"id", "controller", "power", "toughness", "damage", "value",
                              "keywords", "attacking", "blocked", "blocking", "name",
                              "qualities", "assigns", "as_though_unblocked", "assigned_by"})
_PLANESWALKER_FIELDS = frozenset({"id", "controller", "loyalty", "in_combat", "name"})
_BATTLE_FIELDS = frozenset({"id", "protector", "defense", "in_combat", "name"})


_NO_KEYWORDS: frozenset[str] = frozenset()
_EMPTY_LIST: list[Any] = []
"""What an absent list reads as (read, never changed)."""


def _parse_keywords(obj: _Obj) -> tuple[frozenset[str], int]:
    """The keywords but ``toxic N``, and the sum of the toxic values (702.164c: two
    instances of toxic 2 give four poison counters, which a set of keywords cannot say)."""
    raw = obj.array("keywords")
    if not raw:
        return _NO_KEYWORDS, 0
    keywords = set()
    toxic = 0
    for i, value in enumerate(raw):
        if type(value) is not str or len(value) > MAX_TEXT_LENGTH:
            value = check_text(value, f"{obj.sub('keywords')}[{i}]")
        keyword, refused = read_keyword(value)
        if refused is not None:
            raise InputError(f"{obj.sub('keywords')}[{i}]", refused)
        if keyword.startswith("toxic "):
            toxic += int(keyword[6:])
            if toxic > MAX_MAGNITUDE:
                raise InputError(f"{obj.sub('keywords')}[{i}]", "the toxic values add up "
                                 f"to more than {int_text(MAX_MAGNITUDE)}")
            continue
        keywords.add(keyword)
    return frozenset(keywords), toxic


_PLAIN_TOP_FIELDS = frozenset({"format", "active_player", "players", "creatures",
                               "planeswalkers", "step"}) | REQUEST_FIELDS
_EMPTY_IN_PLAIN = ("battles", "prevention", "multipliers", "loss_thresholds")
"""Top-level lists a plain document may have, empty."""
_PLAIN_CREATURE_FIELDS = _CREATURE_FIELDS - {"qualities", "assigns", "as_though_unblocked",
                                             "assigned_by"}
PLAIN_LIST_LIMIT = 64
"""Keywords or blocks of one creature that :func:`_parse_plain` reads at most (any
longer list goes to the general reader, whose limits are far above); players, creatures
and blocks in all up to the general reader's own limits (:data:`MAX_OBJECTS`,
:data:`MAX_BLOCKS`), so that a large combat of the common shape is read in one pass too
(a doubt found late costs at most a second reading)."""


def _plain_name(raw: dict[str, Any], name: object) -> bool:
    """Whether ``name`` (``raw``'s, or None) is one the one-pass reader takes: absent, or a
    string within the length limit (an explicit null goes to the general reader)."""
    if name is None:
        return "name" not in raw
    return type(name) is str and len(name) <= MAX_TEXT_LENGTH


def _parse_plain(document: object) -> Combat | None:
    """The combat of a document of the common shape, read in one pass without the field
    paths (which only a refusal needs), or None: the general reader must read it.

    The common shape: a plain dict of plain JSON values (exact ``str``, ``int``, ``bool``,
    ``list``, ``dict``) with players, creatures and planeswalkers only (battles,
    prevention, multipliers and loss thresholds absent or empty; no toxic, no combat/1
    §10 fields), short lists of keywords and blocks, and nothing wrong. Anything else, a
    single doubt included, gives None, and the general reader (:func:`_parse_general`)
    reads the document again from the start: every refusal comes from it, with its field
    path and its words. So this accepts only what the general reader accepts, reading it to an equal
    :class:`Combat` (the tests compare the two on valid and broken documents)."""
    if type(document) is not dict:
        return None
    if not _PLAIN_TOP_FIELDS.issuperset(document):
        for key in _EMPTY_IN_PLAIN:
            listed = document.get(key, _EMPTY_LIST)
            if type(listed) is not list or listed:
                return None
        if not _TOP_FIELDS.issuperset(document):
            return None
    fmt = document.get("format", _MISSING)
    if fmt is not _MISSING and fmt != "combat/1":
        return None
    limit, most = PLAIN_LIST_LIMIT, MAX_MAGNITUDE
    raw_players = document.get("players")
    if type(raw_players) is not list or not 0 < len(raw_players) <= MAX_OBJECTS:
        return None
    seen: set[str] = set()
    players: list[Player] = []
    for raw in raw_players:
        if type(raw) is not dict or not _PLAYER_FIELDS.issuperset(raw):
            return None
        pid = raw.get("id")
        life = raw.get("life", 20)
        poison = raw.get("poison", 0)
        name = raw.get("name")
        if (type(pid) is not str or not 0 < len(pid) <= MAX_ID_LENGTH or pid in seen
                or type(life) is not int or not -most <= life <= most
                or type(poison) is not int or not 0 <= poison <= most
                or not _plain_name(raw, name)):
            return None
        seen.add(pid)
        players.append(Player(pid, life, name, poison))
    player_ids = frozenset(seen)
    active = document.get("active_player")
    if type(active) is not str or active not in player_ids:
        return None
    raw_walkers = document.get("planeswalkers", _EMPTY_LIST)
    if type(raw_walkers) is not list or len(raw_walkers) > MAX_OBJECTS:
        return None
    walkers: list[Planeswalker] = []
    owner_of: dict[str, str] = {}  # a planeswalker -> its controller, whom attacking it attacks
    for raw in raw_walkers:
        if type(raw) is not dict or not _PLANESWALKER_FIELDS.issuperset(raw):
            return None
        wid = raw.get("id")
        controller = raw.get("controller")
        loyalty = raw.get("loyalty")
        in_combat = raw.get("in_combat", True)
        name = raw.get("name")
        if (type(wid) is not str or not 0 < len(wid) <= MAX_ID_LENGTH or wid in seen
                or type(controller) is not str or controller not in player_ids
                or type(loyalty) is not int or not -most <= loyalty <= most
                or type(in_combat) is not bool
                or not _plain_name(raw, name)):
            return None
        seen.add(wid)
        owner_of[wid] = controller
        walkers.append(Planeswalker(wid, controller, loyalty, in_combat, name))
    raw_creatures = document.get("creatures")
    if type(raw_creatures) is not list or len(raw_creatures) > MAX_OBJECTS:
        return None
    blocks = 0
    creatures: list[Creature] = []
    defender: dict[str, str] = {}  # attacker -> the player it attacks (508.1b)
    first_strike = banding = False
    for raw in raw_creatures:
        if type(raw) is not dict or not _PLAIN_CREATURE_FIELDS.issuperset(raw):
            return None
        cid = raw.get("id")
        controller = raw.get("controller")
        power = raw.get("power")
        toughness = raw.get("toughness")
        damage = raw.get("damage", 0)
        value = raw.get("value", 1)
        attacking = raw.get("attacking")
        blocked = raw.get("blocked")
        name = raw.get("name")
        if (type(cid) is not str or not 0 < len(cid) <= MAX_ID_LENGTH or cid in seen
                or type(controller) is not str or controller not in player_ids
                or type(power) is not int or not -most <= power <= most
                or type(toughness) is not int or not -most <= toughness <= most
                or type(damage) is not int or not 0 <= damage <= most
                or type(value) is not int or not -most <= value <= most
                or not _plain_name(raw, name)
                or (blocked is not None and type(blocked) is not bool)
                or (blocked is None and "blocked" in raw)):
            return None
        seen.add(cid)
        raw_keywords = raw.get("keywords", _EMPTY_LIST)
        raw_blocking = raw.get("blocking", _EMPTY_LIST)
        if type(raw_keywords) is not list or len(raw_keywords) > limit or \
                type(raw_blocking) is not list or len(raw_blocking) > limit:
            return None
        blocks += len(raw_blocking)
        if blocks > MAX_BLOCKS:
            return None
        for aid in raw_blocking:  # ids only, before a Creature holds them as such
            if type(aid) is not str:
                return None
        keywords = _NO_KEYWORDS
        if raw_keywords:
            found = set()
            for text in raw_keywords:
                if type(text) is not str or len(text) > MAX_TEXT_LENGTH:
                    return None
                keyword, refused = read_keyword(text)
                if refused is not None or keyword.startswith("toxic "):
                    return None
                found.add(keyword)
            keywords = frozenset(found)
            banding = banding or _may_band(keywords)
        if attacking is not None:
            # An attacker of the active player attacks an opponent or a planeswalker an
            # opponent controls (508.1b); it blocks nothing (checked below: no attacker
            # is among the defender's ids).
            if type(attacking) is not str or controller != active or raw_blocking:
                return None
            owner = attacking if attacking in player_ids else owner_of.get(attacking)
            if owner is None or owner == active:
                return None
            defender[cid] = owner
        elif blocked is not None:
            return None
        creature = Creature(cid, controller, power, toughness, damage, value, keywords,
                            attacking, blocked, tuple(raw_blocking), name)
        if keywords and (attacking is not None or raw_blocking) and \
                creature.has_first_strike:
            first_strike = True
        creatures.append(creature)
    blockers: dict[str, list[str]] = {aid: [] for aid in defender}
    for c in creatures:
        if c.blocking:
            # 509.1a: a creature of a defending player blocks attackers attacking it
            # (each once); the attackers are all read by now. (The active player's
            # creatures block nothing: no attacker attacks it.)
            for aid in c.blocking:
                if type(aid) is not str or defender.get(aid) != c.controller:
                    return None
                blockers[aid].append(c.id)
            if len(set(c.blocking)) != len(c.blocking):
                return None
    for c in creatures:
        if c.blocked is False and blockers.get(c.id):
            return None
    raw_step = document.get("step")
    step: Step
    if raw_step is None:
        step = "first_strike" if first_strike else "regular"
    elif type(raw_step) is str and raw_step in STEPS:
        step = "first_strike" if raw_step == "first_strike" else "regular"
    else:
        return None
    if banding:  # who chooses which split is worked out by the constructor (702.22j-k)
        return Combat(active, tuple(players), tuple(creatures), tuple(walkers), (), step)
    index: dict[str, Player | Creature | Planeswalker | Battle] = {p.id: p for p in players}
    for c in creatures:
        index[c.id] = c
    for w in walkers:  # in the constructor's order: players, creatures, planeswalkers
        index[w.id] = w
    return _assembled(active, tuple(players), tuple(creatures), tuple(walkers), step, index,
                      {aid: tuple(ids) for aid, ids in blockers.items()})


def _assembled(active: str, players: tuple[Player, ...], creatures: tuple[Creature, ...],
               planeswalkers: tuple[Planeswalker, ...], step: Step,
               index: dict[str, Player | Creature | Planeswalker | Battle],
               blockers: dict[str, tuple[str, ...]]) -> Combat:
    """The :class:`Combat` of players, creatures and planeswalkers alone, nobody's split
    moved to the other side, with the look-ups its constructor would derive (``index``,
    ``blockers``) given: :func:`_parse_plain` has them at hand, and deriving them again
    was a fifth of a tiny document's reading. The tests compare it, look-ups included,
    with the constructor's."""
    combat = Combat.__new__(Combat)  # (object's own, as compiled classes need)
    put = object.__setattr__  # frozen: as the dataclass's own constructor sets its fields
    put(combat, "active_player", active)
    put(combat, "players", players)
    put(combat, "creatures", creatures)
    put(combat, "planeswalkers", planeswalkers)
    put(combat, "battles", ())
    put(combat, "step", step)
    put(combat, "prevention", ())
    put(combat, "multipliers", ())
    put(combat, "loss_thresholds", ())
    put(combat, "_index", index)
    put(combat, "_blockers", blockers)
    put(combat, "_moved", {})
    return combat


def _parse_combat(document: object) -> Combat:
    """The combat of a document: read by :func:`_parse_plain` when it has the common
    shape, else (and for every refusal) by :func:`_parse_general`."""
    fast = _parse_plain(document)
    return fast if fast is not None else _parse_general(document)


def _parse_general(document: object) -> Combat:
    """Read and check any combat/1 document, refusing with the path of the first field
    that is wrong."""
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
        register(pid, obj)
        players.append(Player(pid, obj.integer("life", 20), obj.string("name"),
                              obj.integer("poison", 0, minimum=0)))
    player_ids = {p.id for p in players}

    active = top.id("active_player")
    if active not in player_ids:
        raise InputError("active_player", f"{active!r} is not one of the players")

    def player_ref(obj: _Obj, key: str) -> str:
        pid = obj.id(key)
        if pid not in player_ids:
            raise InputError(obj.sub(key), f"{pid!r} is not a player")
        return pid

    planeswalkers: list[Planeswalker] = []
    for i, raw in enumerate(top.array("planeswalkers")):
        obj = _Obj(raw, "planeswalkers", _PLANESWALKER_FIELDS, i)
        wid = obj.id("id")
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
        register(cid, obj)
        controller = player_ref(obj, "controller")
        power, toughness = obj.integer("power"), obj.integer("toughness")
        damage, value = obj.integer("damage", 0, minimum=0), obj.integer("value", 1)
        keywords, toxic = _parse_keywords(obj)
        attacking = obj.optional_id("attacking")
        blocked = obj.boolean("blocked")
        name = obj.string("name")
        blocking = obj.array("blocking", limit=MAX_BLOCKS_PER_CREATURE)
        blocks += len(blocking)
        if blocks > MAX_BLOCKS:
            raise InputError(obj.sub("blocking"), f"the document has more than {MAX_BLOCKS:,} "
                             "blocks in all, the limit")
        # Built once, with the blocks as listed: they are checked below, and any that is
        # not an attacker this creature may block refuses the whole document.
        data = obj.data
        if ("assigns" in data or "qualities" in data or "as_though_unblocked" in data
                or "assigned_by" in data):
            creature = Creature(cid, controller, power, toughness, damage, value, keywords,
                                attacking, blocked, tuple(blocking), name, toxic,
                                AssignmentEffects(*_parse_assignment_effects(obj)))
        else:
            creature = Creature(cid, controller, power, toughness, damage, value, keywords,
                                attacking, blocked, tuple(blocking), name, toxic)
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
        if c.effects is not NO_EFFECTS and c.as_though_unblocked and c.attacking is None:
            raise InputError(obj.sub("as_though_unblocked"), "only an attacking creature "
                             "can assign its combat damage as though it weren't blocked")

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

    creature_ids = {c.id for c in creatures}
    most_power = max((c.power for c in creatures), default=0)
    if any(c.effects.assigns == "toughness" for c in creatures if c.effects is not NO_EFFECTS):
        most_power = max(most_power, max(c.toughness for c in creatures))
    prevention, multipliers, thresholds = _parse_effects(top, seen, creature_ids, player_ids,
                                                         most_power)
    combat = Combat(active, tuple(players), tuple(creatures), tuple(planeswalkers),
                    tuple(battles), step, prevention, multipliers, thresholds)
    for obj, c, _ in parsed if combat.moved else ():
        if c.as_though_unblocked and combat.moved_by(c.id) is not None:
            why = ("it is blocked by a creature with banding, so the defending player "
                   "assigns its combat damage (702.22j)" if combat.moved_by(c.id) == "702.22j"
                   else "its assigned_by is 'opponent'")
            raise InputError(obj.sub("as_though_unblocked"), f"{why}; its controller's "
                             "choice to assign as though it weren't blocked and the "
                             "defending player's division of its damage are two choices "
                             "trample does not model together, so this is refused")
    return combat


def _parse_assignment_effects(obj: _Obj) -> tuple[frozenset[str], Assigns, bool, AssignedBy]:
    """``qualities``, ``assigns``, ``as_though_unblocked`` and ``assigned_by`` (combat/1
    §10), with their defaults when absent."""
    qualities: frozenset[str] = frozenset()
    raw_qualities = obj.array("qualities")
    if raw_qualities:
        found = set()
        for i, value in enumerate(raw_qualities):
            text = check_text(value, f"{obj.sub('qualities')}[{i}]")
            quality = normalize_keyword(text)
            if not quality:
                raise InputError(f"{obj.sub('qualities')}[{i}]", "must not be empty")
            found.add(quality)
        qualities = frozenset(found)
    assigns = cast(Assigns, obj.choice("assigns", ASSIGNS))
    assigned_by = cast(AssignedBy, obj.choice("assigned_by", ASSIGNED_BY))
    return qualities, assigns, obj.boolean("as_though_unblocked") is True, assigned_by


def _parse_effects(top: _Obj, seen: dict[str, _Obj], creature_ids: set[str],
                   player_ids: set[str], most_power: int) -> tuple[tuple[Prevention, ...],
                                                  tuple[Multiplier, ...],
                                                  tuple[LossThreshold, ...]]:
    """``prevention``, ``multipliers`` and ``loss_thresholds``: what dealt damage does."""

    def source_ref(obj: _Obj, wildcard: bool = True) -> str:
        sid = obj.id("source")
        if wildcard and sid == ANY:
            return sid
        if sid not in creature_ids:
            raise InputError(obj.sub("source"), f"{sid!r} is not a creature"
                             + (" (or '*')" if wildcard else ""))
        return sid

    def target_ref(obj: _Obj) -> str:
        tid = obj.id("target")
        if tid != ANY and tid not in seen:
            raise InputError(obj.sub("target"), f"{tid!r} is not a player, creature, "
                             "planeswalker or battle (or '*')")
        return tid

    prevention = tuple(
        Prevention(source_ref(obj), target_ref(obj))
        for obj in (_Obj(raw, "prevention", _PREVENTION_FIELDS, i)
                    for i, raw in enumerate(top.array("prevention"))))
    multipliers: list[Multiplier] = []
    product = 1
    for i, raw in enumerate(top.array("multipliers")):
        obj = _Obj(raw, "multipliers", _MULTIPLIER_FIELDS, i)
        entry = Multiplier(source_ref(obj), target_ref(obj),
                           obj.integer("factor", minimum=0, maximum=MAX_FACTOR_PRODUCT))
        product *= max(entry.factor, 1)
        if product > MAX_FACTOR_PRODUCT:
            raise InputError(obj.sub("factor"), "the factors above 1 multiply to more than "
                             f"{MAX_FACTOR_PRODUCT:,}, the limit")
        if most_power * product > MAX_MAGNITUDE:
            # Dealt damage stays within the range of every other integer of the document,
            # which the search's arithmetic relies on.
            raise InputError(obj.sub("factor"), "the factors above 1 multiply the largest "
                             f"power ({int_text(most_power)}) past "
                             f"{int_text(MAX_MAGNITUDE)}, the largest damage trample deals")
        multipliers.append(entry)
    thresholds: list[LossThreshold] = []
    for i, raw in enumerate(top.array("loss_thresholds")):
        obj = _Obj(raw, "loss_thresholds", _LOSS_THRESHOLD_FIELDS, i)
        source = source_ref(obj, wildcard=False)
        player = obj.id("player")
        if player not in player_ids:
            raise InputError(obj.sub("player"), f"{player!r} is not a player")
        threshold = obj.integer("threshold", minimum=1)
        already = obj.integer("already", 0, minimum=0)
        if already >= threshold:
            raise InputError(obj.sub("already"), f"must be less than threshold "
                             f"({int_text(threshold)}), not {int_text(already)}: the "
                             "player has already lost")
        thresholds.append(LossThreshold(source, player, threshold, already))
    return prevention, tuple(multipliers), tuple(thresholds)
