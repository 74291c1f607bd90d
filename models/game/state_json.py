"""The game state and its actions as JSON: ``state_to_json``, ``state_from_json``, ``apply``.

State (``state_to_json`` writes every field; ``state_from_json`` fills the defaults shown)::

    {
      "format": "trample-game/1",
      "active_player": "ap",          # required; a player id
      "turn": 1,
      "next_id": 9,                   # the next fresh id number; above every "oN"/"tN" used
      "players": [                    # required
        {"id": "ap", "life": 20, "poison": 0, "lost": false,
         "library": [{"id": "o1", "card": "Grizzly Bears"}],    # top card first
         "hand": [], "graveyard": [],
         "exile": [{"id": "o2", "card": "Spirit", "token": true}]}
      ],
      "battlefield": [
        {"id": "o5", "card": "Hidetsugu Consumes All // Vessel of the All-Consuming",
         "owner": "ap", "controller": "ap",     # controller defaults to owner
         "face": "front", "face_down": false, "counters": {"lore": 1},
         "damage": 0, "deathtouch_damaged": false, "token": false,
         "summoning_sick": false, "tapped": false, "transformations": 0,
         "protector": null,                     # a battle's protecting player
         "granted": []}                         # keywords gained until end of turn
      ],
      "stack": [                      # abilities waiting to resolve, oldest first
        {"id": "t6", "ability": "chapter", "source": "o5", "controller": "ap",
         "name": "Hidetsugu Consumes All", "chapter": 1, "player": null, "stamp": 0}
      ],
      "damage_this_turn": [{"source": "o5", "player": "dp", "amount": 3}],
      "combat": null,                 # or {"attacks": {"o5": "dp"}, "blocks": {"o7": ["o5"]},
                                      #     "defenders": [{"id", "kind", "player"}],
                                      #     "bands": [["o5", "o6"]]}   # attacking bands
      "cards": []                     # Scryfall card objects for cards not bundled
    }

A ``card`` is a card name: the state's own ``cards`` first, then the bundled cards
(:func:`trample.models.game.cards.get_card`). Player ids must not look like object ids
(``o12``) or ability ids (``t7``). Counters are ``{kind: count}`` with kinds such as
``"+1/+1"``, ``"-1/-1"``, ``"lore"``, ``"loyalty"``, ``"defense"``.

Actions (``apply(state, action)`` returns ``{"state": new_state, "events": [...]}``, each
event ``{"event": "Transformed", ...}``)::

    {"action": "transform", "object": "o5", "since": 0}     # since: optional stamp (seed ¶6)
    {"action": "convert", "object": "o5", "since": 0}
    {"action": "turn_face_up", "object": "o5"}
    {"action": "turn_face_down", "object": "o5"}
    {"action": "mill", "player": "ap", "count": 3,
     "as": "instruction" | "cost" | "choice", "into": "graveyard" | "exile"}
    {"action": "create_token", "card": "Spirit", "controller": "ap"}
    {"action": "put_onto_battlefield", "object": "o3", "controller": "ap", "transformed": false}
    {"action": "add_counters", "object": "o5", "kind": "+1/+1", "amount": 1}
    {"action": "add_lore_counter", "object": "o5"}
    {"action": "begin_precombat_main"}
    {"action": "resolve_trigger", "trigger": "t6", "target": "o8",
     "mode": "creature", "counter_target": "o9"}             # choices only where they apply
    {"action": "resolve_chapter", "object": "o5", "chapter": 2, "target": "o8"}
    {"action": "activate_transform", "object": "o5"}        # "{2}: Transform this artifact."
    {"action": "activate_master_of_the_hunt", "object": "o5"}  # a Wolves of the Hunt token
    {"action": "orochi_attack_trigger", "object": "o5", "mode": "noncreature",
     "target": "o3", "counter_target": "o8"}
    {"action": "declare_combat", "attacks": {"o5": "dp", "o6": "dp"},
     "bands": [["o5", "o6"]], "blocks": {"o7": ["o5"]}}     # bands: optional (702.22c)
    {"action": "deal_combat_damage", "assignment": [{"source", "target", "amount"}],
     "step": "first_strike" | "regular"}    # step: optional, defaults as combat/1's
    {"action": "combat_damage_step", "step": "first_strike" | "regular", "assignment": [...]}
    {"action": "combat_damage"}     # both steps as needed, each split chosen by the solver
    {"action": "state_based_actions"}
    {"action": "destroy", "object": "o5"}
    {"action": "grant_keyword", "object": "o5", "keyword": "Double strike"}
    {"action": "end_combat"}
    {"action": "begin_turn", "player": "dp"}
    {"action": "cleanup"}

Events (``{"event": name, ...fields}``): ``Transformed`` (object, from_face, to_face, into,
converted), ``TurnedFaceUp``, ``TurnedFaceDown``, ``ZoneChange`` (object, new_object,
card, owner, from_zone, to_zone, cause, transformed), ``Milled`` (player, requested,
cards, zone), ``TokenCreated``, ``CounterAdded``, ``CounterRemoved``, ``KeywordGranted``,
``DamageDealt`` (source, target, amount, combat), ``LifeLost``, ``LifeGained``,
``PoisonCountersAdded``, ``PlayerLost`` (player, reason), ``AbilityTriggered`` (trigger,
source, ability, chapter), ``AbilityResolved`` (trigger, ability, fizzled). An instruction
the rules ignore (transforming a single-faced permanent, seed ¶3) returns no event.

Every combat damage split (both sides of one step) must be legal, or the action is
refused with the rule it breaks (``action.assignment[2]: 510.1a: ...``) and nothing is
dealt; the judge of that is the solver's validator, so these actions need
:func:`trample.solver.interface.game_loop.apply` (``trample apply``).

``deal_combat_damage`` only deals the damage and puts the abilities it triggers on the
stack; ``combat_damage_step`` also performs state-based actions, resolves those abilities
and performs state-based actions again. :func:`combat_document_json` gives the combat/1
document of the declared combat. Bad input raises
:class:`~trample.models.document.errors.InputError` naming the field (``state.battlefield[2].face``,
``action.count``); so does an action the rules forbid (milling more cards than the library
holds as a cost or a choice).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from typing import Any

from trample.models.document.assignment import Assignment
from trample.models.document.combat import MAX_BLOCKS_PER_CREATURE, STEPS
from trample.models.document.errors import InputError
from trample.models.document.keywords import normalize_keyword, read_keyword
from trample.models.document.reading import (
    MAGNITUDE_TEXT,
    MAX_MAGNITUDE,
    brief_repr,
    check_bool,
    check_id,
    check_int,
    check_list,
    check_object,
    check_text,
    field_name,
    int_text,
    join,
)
from trample.models.game.banding import activate_master_of_the_hunt
from trample.models.game.cards import BANDING_KEYWORDS, Card, bundled_cards, card_from_json
from trample.models.game.combat_steps import (
    Assign,
    Judge,
    check_declaration,
    combat_damage_step,
    combat_document,
    deal_combat_damage,
    declare_combat,
    end_combat,
    run_combat_damage,
)
from trample.models.game.damage import check_state_based_actions
from trample.models.game.events import Event
from trample.models.game.mill import choose_to_mill, mill, pay_mill_cost
from trample.models.game.sagas import add_lore_counter, begin_precombat_main
from trample.models.game.seeds import (
    activate_transform_ability,
    damage_triggers,
    orochi_attack_trigger,
    resolve_chapter,
    resolve_trigger,
)
from trample.models.game.state import (
    ZONES,
    CardObject,
    CombatDeclaration,
    GameState,
    IllegalActionError,
    Permanent,
    PlayerState,
    Transition,
    Trigger,
    add_counters,
    begin_turn,
    check_player_id,
    cleanup,
    create_token,
    destroy,
    grant_keyword,
    put_onto_battlefield,
)
from trample.models.game.transform import (
    TransformStamp,
    convert,
    transform,
    turn_face_down,
    turn_face_up,
)

FORMAT = "trample-game/1"

# Limits of a game state, applied as it is read: with them every action costs time
# linear in the state's size (a few seconds at the limits), and a state can't hide a
# quadratic blow-up in one list.
MAX_PERMANENTS = 20_000
"""Permanents on the battlefield."""
MAX_ZONE_CARDS = 20_000
"""Cards in one zone of one player (library, hand, graveyard, exile)."""
MAX_PLAYERS = 100
MAX_CUSTOM_CARDS = 1_000
"""Card objects in the state's own ``cards`` list."""
MAX_STACK = 10_000
"""Triggered abilities waiting, and entries of ``damage_this_turn``."""
_MISSING: Any = object()
_ID = re.compile(r"^[ot](\d+)$")


# -- reading JSON ------------------------------------------------------------------------------
# One toolkit (trample.models.document.reading) reads the state, the actions and the combat/1
# document alike: the same wording, the same integer bound, full field paths.


def _where(path: str, key: str) -> str:
    return join(path, key)


def _obj(value: object, path: str, allowed: frozenset[str] | None = None) -> Mapping[str, Any]:
    return check_object(value, path, allowed)


def _get(obj: Mapping[str, Any], key: str, path: str, default: Any = _MISSING) -> Any:
    if key not in obj:
        if default is _MISSING:
            raise InputError(_where(path, key), "required field is missing")
        return default
    return obj[key]


def _str(obj: Mapping[str, Any], key: str, path: str, default: Any = _MISSING) -> Any:
    value = _get(obj, key, path, default)
    if value is default and default is not _MISSING:
        return value
    if value == "":
        raise InputError(_where(path, key), "must be a non-empty string")
    return check_text(value, _where(path, key))


def _text(obj: Mapping[str, Any], key: str, path: str) -> str:
    return check_text(obj.get(key, ""), _where(path, key))


def _keywords(obj: Mapping[str, Any], key: str, path: str) -> tuple[str, ...]:
    where = _where(path, key)
    value = check_list(obj.get(key, []), where)
    for i, raw in enumerate(value):
        _, refused = read_keyword(check_text(raw, f"{where}[{i}]"))
        if refused is not None and normalize_keyword(raw).startswith(BANDING_KEYWORDS):
            refused = None  # banding granted until end of turn forms bands (702.22)
        if refused is not None:
            raise InputError(f"{where}[{i}]", refused)
    return tuple(value)


def _id(obj: Mapping[str, Any], key: str, path: str, default: Any = _MISSING) -> Any:
    value = _get(obj, key, path, default)
    if value is default and default is not _MISSING:
        return value
    return check_id(value, _where(path, key))


def _opt_str(obj: Mapping[str, Any], key: str, path: str) -> str | None:
    value = obj.get(key)
    if value is None:
        return None
    return str(_str(obj, key, path))


def _int(obj: Mapping[str, Any], key: str, path: str, default: Any = _MISSING, *,
         minimum: int | None = None) -> int:
    value = _get(obj, key, path, default)
    if type(value) is int and -MAX_MAGNITUDE <= value <= MAX_MAGNITUDE and (
            minimum is None or value >= minimum):
        return value
    return check_int(value, _where(path, key), minimum=minimum)


def _bool(obj: Mapping[str, Any], key: str, path: str, default: bool) -> bool:
    return check_bool(obj.get(key, default), _where(path, key))


def _list(obj: Mapping[str, Any], key: str, path: str, default: Any = _MISSING) -> list[Any]:
    return check_list(_get(obj, key, path, default), _where(path, key))


class _Cards:
    """Card names to cards: the state's own cards first, then the bundled ones."""

    def __init__(self, custom: Mapping[str, Card]) -> None:
        self.custom = custom

    def get(self, name: str, path: str) -> Card:
        card = self.custom.get(name) or bundled_cards().get(name)
        if card is None:
            raise InputError(path, f"unknown card {name!r}")
        return card


# -- state from JSON ---------------------------------------------------------------------------

_STATE_FIELDS = frozenset({"format", "active_player", "turn", "next_id", "players",
                           "battlefield", "stack", "damage_this_turn", "combat", "cards"})
_PLAYER_FIELDS = frozenset({"id", "life", "poison", "lost", *ZONES})
_CARD_OBJECT_FIELDS = frozenset({"id", "card", "token"})
_PERMANENT_FIELDS = frozenset({"id", "card", "owner", "controller", "face", "face_down",
                               "counters", "damage", "deathtouch_damaged", "token",
                               "summoning_sick", "tapped", "transformations", "protector",
                               "granted"})
_TRIGGER_FIELDS = frozenset({"id", "ability", "source", "controller", "name", "chapter",
                             "player", "stamp"})


def _bounded(obj: Mapping[str, Any], key: str, path: str, limit: int, *,
             required: bool = False) -> list[Any]:
    value = _list(obj, key, path) if required else _list(obj, key, path, [])
    if len(value) > limit:
        raise InputError(_where(path, key), f"has {len(value):,} entries; the limit is "
                                            f"{limit:,}")
    return value


def state_from_json(document: object, path: str = "") -> GameState:
    """Parse and check a game state; InputError names the offending field."""
    doc = _obj(document, path, _STATE_FIELDS)
    fmt = doc.get("format", FORMAT)
    if fmt != FORMAT:
        raise InputError(_where(path, "format"), f"must be {FORMAT!r}, not {brief_repr(fmt)}")
    custom: dict[str, Card] = {}
    for i, raw in enumerate(_bounded(doc, "cards", path, MAX_CUSTOM_CARDS)):
        card = card_from_json(raw, f"{_where(path, 'cards')}[{i}]")
        custom[card.name] = card
    cards = _Cards(custom)
    ids: dict[str, str] = {}

    def claim(oid: str, where: str) -> str:
        if oid in ids:
            raise InputError(where, f"id {oid!r} is already used at {ids[oid]}")
        ids[oid] = where
        return oid

    players: list[PlayerState] = []
    ppath = _where(path, "players")
    raw_players = _bounded(doc, "players", path, MAX_PLAYERS, required=True)
    if not raw_players:
        raise InputError(ppath, "a game needs at least one player")
    for i, raw in enumerate(raw_players):
        where = f"{ppath}[{i}]"
        p = _obj(raw, where, _PLAYER_FIELDS)
        pid = _id(p, "id", where)
        check_player_id(pid, _where(where, "id"))
        claim(pid, _where(where, "id"))
        zones: dict[str, tuple[CardObject, ...]] = {}
        for zone in ZONES:
            objs: list[CardObject] = []
            for j, rc in enumerate(_bounded(p, zone, where, MAX_ZONE_CARDS)):
                cwhere = f"{_where(where, zone)}[{j}]"
                c = _obj(rc, cwhere, _CARD_OBJECT_FIELDS)
                oid = claim(_id(c, "id", cwhere), _where(cwhere, "id"))
                objs.append(CardObject(oid, cards.get(_str(c, "card", cwhere),
                                                      _where(cwhere, "card")),
                                       token=_bool(c, "token", cwhere, False)))
            zones[zone] = tuple(objs)
        players.append(PlayerState(pid, life=_int(p, "life", where, 20),
                                   poison=_int(p, "poison", where, 0, minimum=0),
                                   lost=_bool(p, "lost", where, False),
                                   library=zones["library"], hand=zones["hand"],
                                   graveyard=zones["graveyard"], exile=zones["exile"]))
    player_ids = {p.id for p in players}

    def player_ref(obj: Mapping[str, Any], key: str, where: str,
                   default: Any = _MISSING) -> Any:
        value = _id(obj, key, where, default)
        if value is not None and value not in player_ids:
            raise InputError(_where(where, key), f"{value!r} is not a player")
        return value

    active = player_ref(doc, "active_player", path)
    battlefield: list[Permanent] = []
    bpath = _where(path, "battlefield")
    for i, raw in enumerate(_bounded(doc, "battlefield", path, MAX_PERMANENTS)):
        where = f"{bpath}[{i}]"
        b = _obj(raw, where, _PERMANENT_FIELDS)
        oid = claim(_id(b, "id", where), _where(where, "id"))
        card = cards.get(_str(b, "card", where), _where(where, "card"))
        owner = player_ref(b, "owner", where)
        face = _str(b, "face", where, "front")
        if face not in ("front", "back"):
            raise InputError(_where(where, "face"), f"must be 'front' or 'back', not "
                                                    f"{brief_repr(face)}")
        if face == "back" and card.back is None:
            raise InputError(_where(where, "face"), f"{card.name!r} has no back face")
        counters_raw = _obj(b.get("counters", {}), _where(where, "counters"))
        counters: list[tuple[str, int]] = []
        for kind, raw_count in counters_raw.items():
            # A kind such as "+1/+1" is quoted in the path, as a state written back names it.
            n = check_int(raw_count, f"{_where(where, 'counters')}.{field_name(kind)}",
                          minimum=0)
            if n:
                counters.append((str(kind), n))
        protector = b.get("protector")
        if protector is not None:
            protector = player_ref(b, "protector", where)
        battlefield.append(Permanent(
            oid, card, owner, player_ref(b, "controller", where, owner), face=face,
            face_down=_bool(b, "face_down", where, False), counters=tuple(sorted(counters)),
            damage=_int(b, "damage", where, 0, minimum=0),
            deathtouch_damaged=_bool(b, "deathtouch_damaged", where, False),
            token=_bool(b, "token", where, False),
            summoning_sick=_bool(b, "summoning_sick", where, False),
            tapped=_bool(b, "tapped", where, False),
            transformations=_int(b, "transformations", where, 0, minimum=0),
            protector=protector, granted=_keywords(b, "granted", where)))
    stack: list[Trigger] = []
    spath = _where(path, "stack")
    for i, raw in enumerate(_bounded(doc, "stack", path, MAX_STACK)):
        where = f"{spath}[{i}]"
        t = _obj(raw, where, _TRIGGER_FIELDS)
        stack.append(Trigger(
            claim(_id(t, "id", where), _where(where, "id")), _str(t, "ability", where),
            _id(t, "source", where), player_ref(t, "controller", where),
            name=_text(t, "name", where),
            chapter=_int(t, "chapter", where, 0, minimum=0),
            player=player_ref(t, "player", where, None),
            stamp=_int(t, "stamp", where, 0, minimum=0)))
    tally: dict[tuple[str, str], int] = {}
    dpath = _where(path, "damage_this_turn")
    for i, raw in enumerate(_bounded(doc, "damage_this_turn", path, MAX_STACK)):
        where = f"{dpath}[{i}]"
        d = _obj(raw, where, frozenset({"source", "player", "amount"}))
        key = (_id(d, "source", where), player_ref(d, "player", where))
        if key in tally:
            raise InputError(where, f"duplicate tally for {key}")
        tally[key] = _int(d, "amount", where, minimum=1)
    combat = _combat_from_json(doc.get("combat"), _where(path, "combat"))
    next_id = _int(doc, "next_id", path, 1, minimum=1)
    highest = max((int(m.group(1)) for oid in ids if (m := _ID.match(oid))), default=0)
    if next_id <= highest:
        raise InputError(_where(path, "next_id"), f"must be above every id number used "
                                                  f"({highest})")
    state = GameState(players=tuple(players), active_player=active,
                      battlefield=tuple(battlefield), stack=tuple(stack),
                      turn=_int(doc, "turn", path, 1, minimum=1), next_id=next_id,
                      damage_this_turn=tuple(sorted((s, p, n) for (s, p), n in tally.items())),
                      combat=combat)
    if combat is not None:
        check_declaration(state, combat, _where(path, "combat"))
    return state


def _combat_from_json(value: object, path: str) -> CombatDeclaration | None:
    if value is None:
        return None
    c = _obj(value, path, frozenset({"attacks", "blocks", "defenders", "bands"}))
    attacks = _obj(c.get("attacks", {}), _where(path, "attacks"))
    for key, target in attacks.items():
        check_id(key, f"{path}.attacks")
        check_id(target, f"{path}.attacks.{field_name(key)}")
    blocks_raw = _obj(c.get("blocks", {}), _where(path, "blocks"))
    blocks: list[tuple[str, tuple[str, ...]]] = []
    for key, attacked in blocks_raw.items():
        check_id(key, f"{path}.blocks")
        where = f"{path}.blocks.{field_name(key)}"
        for i, aid in enumerate(check_list(attacked, where, MAX_BLOCKS_PER_CREATURE)):
            check_id(aid, f"{where}[{i}]")
        blocks.append((str(key), tuple(attacked)))
    defenders: list[tuple[str, str, str]] = []
    for i, raw in enumerate(_list(c, "defenders", path, [])):
        where = f"{_where(path, 'defenders')}[{i}]"
        d = _obj(raw, where, frozenset({"id", "kind", "player"}))
        kind = _str(d, "kind", where)
        if kind not in ("planeswalker", "battle"):
            raise InputError(_where(where, "kind"), f"must be 'planeswalker' or 'battle', not "
                                                    f"{brief_repr(kind)}")
        defenders.append((_id(d, "id", where), kind, _id(d, "player", where)))
    return CombatDeclaration(attacks=tuple((str(k), v) for k, v in attacks.items()),
                             blocks=tuple(blocks), defenders=tuple(defenders),
                             bands=_bands(c, path, len(attacks)))


def _bands(obj: Mapping[str, Any], path: str, attackers: int) -> tuple[tuple[str, ...], ...]:
    """The ``bands`` of a combat or a declare_combat action: lists of attacker ids (what
    they may hold is checked with the rest of the declaration)."""
    where = _where(path, "bands")
    bands: list[tuple[str, ...]] = []
    # No more bands, nor members in one band, than attackers: longer lists are refused
    # before they are read.
    for i, raw in enumerate(check_list(obj.get("bands", []), where, max(attackers, 1))):
        members = check_list(raw, f"{where}[{i}]", max(attackers, 1))
        bands.append(tuple(check_id(m, f"{where}[{i}][{j}]") for j, m in enumerate(members)))
    return tuple(bands)


# -- state to JSON -----------------------------------------------------------------------------


def _card_object_json(obj: CardObject) -> dict[str, Any]:
    out: dict[str, Any] = {"id": obj.id, "card": obj.card.name}
    if obj.token:
        out["token"] = True
    return out


def state_to_json(state: GameState) -> dict[str, Any]:
    """The JSON of a state; ``state_from_json`` of it gives back an equal state."""
    used = _cards_in(state)
    bundled = bundled_cards()
    custom = [card.to_json() for name, card in sorted(used.items())
              if bundled.get(name) != card]
    combat: dict[str, Any] | None = None
    if state.combat is not None:
        combat = {"attacks": dict(state.combat.attacks),
                  "blocks": {b: list(a) for b, a in state.combat.blocks},
                  "defenders": [{"id": i, "kind": k, "player": p}
                                for i, k, p in state.combat.defenders],
                  "bands": [list(band) for band in state.combat.bands]}
    return {
        "format": FORMAT,
        "active_player": state.active_player,
        "turn": state.turn,
        "next_id": state.next_id,
        "players": [{"id": p.id, "life": p.life, "poison": p.poison, "lost": p.lost,
                     **{zone: [_card_object_json(o) for o in p.zone(zone)] for zone in ZONES}}
                    for p in state.players],
        "battlefield": [
            {"id": b.id, "card": b.card.name, "owner": b.owner, "controller": b.controller,
             "face": b.face, "face_down": b.face_down, "counters": dict(b.counters),
             "damage": b.damage, "deathtouch_damaged": b.deathtouch_damaged,
             "token": b.token, "summoning_sick": b.summoning_sick, "tapped": b.tapped,
             "transformations": b.transformations, "protector": b.protector,
             "granted": list(b.granted)}
            for b in state.battlefield],
        "stack": [{"id": t.id, "ability": t.ability, "source": t.source,
                   "controller": t.controller, "name": t.name, "chapter": t.chapter,
                   "player": t.player, "stamp": t.stamp} for t in state.stack],
        "damage_this_turn": [{"source": s, "player": p, "amount": n}
                             for s, p, n in state.damage_this_turn],
        "combat": combat,
        "cards": custom,
    }


def check_growth(doc: Mapping[str, Any], path: str = "state") -> None:
    """Refuse a state (as written by :func:`state_to_json`) holding an integer past the bound
    every state is read with, naming the field: a transition that would push ``next_id``,
    ``turn``, a life total or a counter past it is refused, so that trample always reads
    back what it writes."""

    def check(value: int, where: str) -> None:
        if abs(value) > MAX_MAGNITUDE:
            raise InputError(join(path, where), f"would become {int_text(value)}, past the "
                             f"limit (magnitude at most {MAGNITUDE_TEXT})")

    check(doc["next_id"], "next_id")
    check(doc["turn"], "turn")
    for i, p in enumerate(doc["players"]):
        check(p["life"], f"players[{i}].life")
        check(p["poison"], f"players[{i}].poison")
    for i, b in enumerate(doc["battlefield"]):
        for kind, n in b["counters"].items():
            check(n, f"battlefield[{i}].counters.{field_name(kind)}")
        check(b["damage"], f"battlefield[{i}].damage")
        check(b["transformations"], f"battlefield[{i}].transformations")
    for i, t in enumerate(doc["stack"]):
        check(t["chapter"], f"stack[{i}].chapter")
        check(t["stamp"], f"stack[{i}].stamp")
    for i, d in enumerate(doc["damage_this_turn"]):
        check(d["amount"], f"damage_this_turn[{i}].amount")


# -- actions -----------------------------------------------------------------------------------

Handler = Callable[[GameState, Mapping[str, Any]], Transition]


def _since(state: GameState, a: Mapping[str, Any]) -> TransformStamp | None:
    if a.get("since") is None:
        return None
    return TransformStamp(_str(a, "object", ""), _int(a, "since", "", minimum=0))


def _mill(state: GameState, a: Mapping[str, Any]) -> Transition:
    player, count = _str(a, "player", ""), _int(a, "count", "", minimum=0)
    kind = _str(a, "as", "", "instruction")
    into = _str(a, "into", "", "graveyard")
    if kind not in ("instruction", "cost", "choice"):
        raise InputError("as", "expected 'instruction', 'cost' or 'choice'")
    try:
        if kind == "cost":
            return pay_mill_cost(state, player, count, into=into)
        if kind == "choice":
            return choose_to_mill(state, player, count, into=into)
    except IllegalActionError as exc:
        raise InputError("count", str(exc)) from exc
    return mill(state, player, count, into=into)


def _declare(state: GameState, a: Mapping[str, Any]) -> Transition:
    attacks = _obj(_get(a, "attacks", ""), "attacks")
    for key, value in attacks.items():
        if not isinstance(value, str):
            raise InputError(f"attacks.{key}", "expected an id")
    blocks = _obj(a.get("blocks", {}), "blocks")
    for key, value in blocks.items():
        if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
            raise InputError(f"blocks.{key}", "expected a list of ids")
    return declare_combat(state, dict(attacks), {k: list(v) for k, v in blocks.items()},
                          _bands(a, "", len(attacks)))


def _deal(state: GameState, a: Mapping[str, Any], judge: Judge | None) -> Transition:
    entries = Assignment.from_json(_get(a, "assignment", ""))
    step = _opt_str(a, "step", "")
    if step is not None and step not in STEPS:
        raise InputError("step", f"expected 'first_strike' or 'regular', got {step!r}")
    state, events = deal_combat_damage(state, entries, _needs(judge), step=step)
    state, more = damage_triggers(state, events)
    return state, events + more


def _step(state: GameState, a: Mapping[str, Any], assign: Assign | None,
          judge: Judge | None) -> Transition:
    step = _str(a, "step", "", "regular")
    if step not in STEPS:
        raise InputError("step", f"expected 'first_strike' or 'regular', got {step!r}")
    if "assignment" not in a and assign is not None:
        return combat_damage_step(state, step, assign, _needs(judge))
    entries = Assignment.from_json(_get(a, "assignment", ""))
    return combat_damage_step(state, step, lambda combat: entries, _needs(judge))


def _combat_damage(state: GameState, a: Mapping[str, Any], assign: Assign | None,
                   judge: Judge | None) -> Transition:
    if assign is None:
        raise InputError("", "combat_damage chooses each step's assignment with the solver: "
                             "use trample apply (or the serve method apply), or give each "
                             "step's assignment with combat_damage_step")
    return run_combat_damage(state, assign, _needs(judge))


def _needs(judge: Judge | None) -> Judge:
    # Combat damage is dealt only once the rules passed the split: without a judge there
    # is nothing to pass it, so no combat damage.
    if judge is None:
        raise InputError("", "dealing combat damage needs the rules' judge of the split: use "
                             "trample apply (or the serve method apply, or "
                             "trample.solver.interface.game_loop.apply)")
    return judge


def _cards_in(state: GameState) -> dict[str, Card]:
    """Every card of the state (in a zone or on the battlefield), by name."""
    cards = {obj.card.name: obj.card for p in state.players for zone in ZONES
             for obj in p.zone(zone)}
    cards.update((perm.card.name, perm.card) for perm in state.battlefield)
    return cards


def _cards_for(state: GameState) -> _Cards:
    return _Cards(_cards_in(state))


ACTIONS: dict[str, tuple[frozenset[str], Handler]] = {
    "transform": (frozenset({"object", "since"}), lambda s, a: transform(
        s, _str(a, "object", ""), since=_since(s, a))),
    "convert": (frozenset({"object", "since"}), lambda s, a: convert(
        s, _str(a, "object", ""), since=_since(s, a))),
    "turn_face_up": (frozenset({"object"}), lambda s, a: turn_face_up(s, _str(a, "object", ""))),
    "turn_face_down": (frozenset({"object"}),
                       lambda s, a: turn_face_down(s, _str(a, "object", ""))),
    "mill": (frozenset({"player", "count", "as", "into"}), _mill),
    "create_token": (frozenset({"card", "controller"}), lambda s, a: create_token(
        s, _cards_for(s).get(_str(a, "card", ""), "card"), _str(a, "controller", ""))),
    "put_onto_battlefield": (frozenset({"object", "controller", "transformed"}),
                             lambda s, a: put_onto_battlefield(
                                 s, _str(a, "object", ""), _opt_str(a, "controller", ""),
                                 transformed=_bool(a, "transformed", "", False))),
    "add_counters": (frozenset({"object", "kind", "amount"}), lambda s, a: add_counters(
        s, _str(a, "object", ""), _str(a, "kind", ""), _int(a, "amount", "", 1, minimum=0))),
    "add_lore_counter": (frozenset({"object"}),
                         lambda s, a: add_lore_counter(s, _str(a, "object", ""))),
    "begin_precombat_main": (frozenset(), lambda s, a: begin_precombat_main(s)),
    "resolve_trigger": (frozenset({"trigger", "target", "mode", "counter_target"}),
                        lambda s, a: resolve_trigger(
                            s, _str(a, "trigger", ""), target=_opt_str(a, "target", ""),
                            mode=_opt_str(a, "mode", ""),
                            counter_target=_opt_str(a, "counter_target", ""))),
    "resolve_chapter": (frozenset({"object", "chapter", "target"}),
                        lambda s, a: resolve_chapter(
                            s, _str(a, "object", ""), _int(a, "chapter", "", minimum=1),
                            _opt_str(a, "target", ""))),
    "activate_transform": (frozenset({"object"}),
                           lambda s, a: activate_transform_ability(s, _str(a, "object", ""))),
    "activate_master_of_the_hunt": (frozenset({"object"}),
                                    lambda s, a: activate_master_of_the_hunt(
                                        s, _str(a, "object", ""))),
    "orochi_attack_trigger": (frozenset({"object", "mode", "target", "counter_target"}),
                              lambda s, a: orochi_attack_trigger(
                                  s, _str(a, "object", ""), _str(a, "mode", ""),
                                  _str(a, "target", ""), _opt_str(a, "counter_target", ""))),
    "declare_combat": (frozenset({"attacks", "blocks", "bands"}), _declare),
    "deal_combat_damage": (frozenset({"assignment", "step"}),
                           lambda s, a: _deal(s, a, None)),
    "combat_damage_step": (frozenset({"step", "assignment"}),
                           lambda s, a: _step(s, a, None, None)),
    "combat_damage": (frozenset(), lambda s, a: _combat_damage(s, a, None, None)),
    "state_based_actions": (frozenset(), lambda s, a: check_state_based_actions(s)),
    "destroy": (frozenset({"object"}), lambda s, a: destroy(s, _str(a, "object", ""))),
    "grant_keyword": (frozenset({"object", "keyword"}), lambda s, a: grant_keyword(
        s, _str(a, "object", ""), _str(a, "keyword", ""))),
    "end_combat": (frozenset(), lambda s, a: end_combat(s)),
    "begin_turn": (frozenset({"player"}), lambda s, a: begin_turn(s, _str(a, "player", ""))),
    "cleanup": (frozenset(), lambda s, a: cleanup(s)),
}
"""Every action ``apply`` knows: its fields besides ``action``, and what it does."""


def apply_action(state: GameState, action: object, assign: Assign | None = None,
                 judge: Judge | None = None) -> Transition:
    """Apply a JSON action to a state; InputError paths start with ``action``.

    ``assign`` chooses a combat damage step's assignment from its combat when the action
    gives none (``combat_damage_step`` without ``assignment``, and ``combat_damage``,
    which runs the first-strike and regular steps as needed). ``judge`` passes every
    split before it is dealt: without one, the actions that deal combat damage are refused
    (:func:`trample.solver.interface.game_loop.apply` gives both).
    """
    a = _obj(action, "action")
    name = _str(a, "action", "action")
    if name not in ACTIONS:
        raise InputError("action.action", f"unknown action {name!r}; known: "
                                          f"{', '.join(sorted(ACTIONS))}")
    allowed, handler = ACTIONS[name]
    for key in a:
        if key != "action" and key not in allowed:
            raise InputError(f"action.{key}", f"unknown field for action {name!r}")
    try:
        if name == "deal_combat_damage":
            return _deal(state, a, judge)
        if name == "combat_damage_step":
            return _step(state, a, assign, judge)
        if name == "combat_damage":
            return _combat_damage(state, a, assign, judge)
        return handler(state, a)
    except InputError as exc:
        raise exc.rerooted(_in_action) from exc
    except IllegalActionError as exc:
        raise InputError("action", str(exc)) from exc


def _in_action(path: str) -> str:
    """A path of an action's field as ``apply`` names it: under ``action``, but a fact of
    the state itself (``state.stack``) is named where it is."""
    if path.startswith("state."):
        return path
    return f"action.{path}" if path else "action"


def apply(state_json: object, action: object, assign: Assign | None = None,
          judge: Judge | None = None) -> dict[str, Any]:
    """Apply ``action`` to the JSON state: ``{"state": new state JSON, "events": [...]}``.

    The input is not changed. InputError names the offending field, ``state.…`` or
    ``action.…``. ``assign`` and ``judge`` are as for :func:`apply_action`.
    """
    state = state_from_json(state_json, "state")
    new, events = apply_action(state, action, assign, judge)
    written = state_to_json(new)
    check_growth(written)
    return {"state": written, "events": [e.to_json() for e in events]}


def events_to_json(events: list[Event]) -> list[dict[str, Any]]:
    """The JSON of a list of events."""
    return [e.to_json() for e in events]


def combat_document_json(state_json: object, step: str | None = None) -> dict[str, Any]:
    """The combat/1 document of the combat declared in a JSON state."""
    return combat_document(state_from_json(state_json, "state"), step)
