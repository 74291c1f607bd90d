"""From a game state to the combat of each combat damage step, and its damage dealt.

:func:`declare_combat` records attacks and blocks. :func:`combat_of` builds the
:class:`~trample.models.document.combat.Combat` of the coming combat damage step straight from the
state: creatures' power and toughness with their counters, damage already marked (so the
regular step sees what the first-strike step did, 510.4), keywords, planeswalker loyalty,
battle defense, and what left combat (506.4: an attacker whose blockers are all gone
stays blocked; a planeswalker or battle that left is no longer in combat).
:func:`combat_document` is its combat/1 JSON, for the JSON edge.

:func:`combat_damage_step` runs one step: it asks ``assign`` for an assignment of the
step's combat, has ``judge`` check it against the rules of damage assignment (refusing an
illegal split, nothing dealt), deals it all at once (510.2), puts the triggered abilities
of that damage on the stack, performs state-based actions, resolves those abilities
(Vessel's +1/+1 counter, its lose-the-game check) and performs state-based actions again.
:func:`run_combat_damage` runs the first-strike step first when an attacking or blocking
creature has first strike or double strike (510.4), so a double-striking Vessel assigns
its regular damage with the counter it got from its first-strike damage.

The assignment rules themselves live in the solver: ``assign`` and ``judge`` are where it
plugs in (:mod:`trample.solver.interface.game_loop`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import replace
from typing import Any, Protocol

from trample.models.document.assignment import Assignment
from trample.models.document.board import Abilities, Board
from trample.models.document.combat import (
    MAX_BLOCKS,
    MAX_BLOCKS_PER_CREATURE,
    STEPS,
    Battle,
    Combat,
    Creature,
    Planeswalker,
    Player,
    check_int,
)
from trample.models.document.errors import InputError
from trample.models.document.outcomes import toxic_total
from trample.models.document.reading import MAX_MAGNITUDE
from trample.models.game.banding import (
    BANDING,
    BANDS_WITH_OTHER,
    assigns_as_though_unblocked,
    bands_with_other,
    check_band,
    doran_on_battlefield,
    is_banding_keyword,
)
from trample.models.game.damage import _deal_all, check_state_based_actions
from trample.models.game.declarations import attack_rules, block_rules
from trample.models.game.events import AbilityTriggered, Event
from trample.models.game.seeds import OROCHI, damage_triggers, loss_thresholds, resolve_all
from trample.models.game.state import (
    DEFENSE,
    LOYALTY,
    CombatDeclaration,
    GameState,
    Permanent,
    Transition,
    Trigger,
    put_trigger,
    replace_permanents,
)

Assign = Callable[[Combat], Assignment | Sequence[Mapping[str, Any]]]
"""Given the combat of one combat damage step, the assignment to deal (both sides)."""


class Fault(Protocol):
    """One way an assignment breaks a rule (the solver's ``Violation`` is one)."""

    @property
    def rule(self) -> str: ...
    @property
    def source(self) -> str: ...
    @property
    def target(self) -> str | None: ...
    @property
    def message(self) -> str: ...


Judge = Callable[[Combat, Assignment], Sequence[Fault]]
"""The rules of combat damage assignment (510.1, 702.19...) as a function: every way an
assignment of both sides of one step breaks them; empty means legal. The models know no
assignment rule: the solver's validator is the judge
(:func:`trample.solver.interface.game_loop.judge`)."""


def declare_combat(state: GameState, attacks: Mapping[str, str],
                   blocks: Mapping[str, Sequence[str]] | None = None,
                   bands: Sequence[Sequence[str]] | None = None) -> Transition:
    """Declare attackers (508) and blockers (509) and keep them in ``state.combat``.

    ``attacks`` maps each attacking creature of the active player to the player,
    planeswalker or battle it attacks; ``bands`` lists the attacking bands (702.22c-d:
    each creatures with banding and at most one without, or creatures sharing the quality
    Q of a member's "bands with other Q", all attacking the same thing); ``blocks`` maps
    each blocking creature to the attackers it blocks (blocking one member of a band
    blocks the band, 702.22h). Attacking creatures without vigilance become tapped; each
    attacking Kirin-Touched Orochi's attack trigger goes on the stack. InputError names
    a bad entry (``attacks.o4``, ``blocks.o7[0]``, ``bands[0][1]``).
    """
    blocks = blocks or {}
    bands = bands or ()
    defenders: dict[tuple[str, str, str], None] = {}
    events: list[Event] = []
    for aid, target in attacks.items():
        path = f"attacks.{aid}"
        perm = state.find_permanent(aid)
        if perm is None or not perm.is_creature:
            raise InputError(path, f"{aid!r} is not a creature on the battlefield")
        if state.has_player(target):
            if target == state.active_player or state.player(target).lost:
                raise InputError(path, f"{target!r} is not a defending player")
            continue
        victim = state.find_permanent(target)
        if victim is not None and victim.is_planeswalker and \
                victim.controller != state.active_player:
            entry = (target, "planeswalker", victim.controller)
        elif victim is not None and victim.is_battle and victim.protector is not None and \
                victim.protector != state.active_player:
            entry = (target, "battle", victim.protector)
        else:
            raise InputError(path, f"{target!r} is not a player, planeswalker or battle "
                                   "the active player can attack")
        defenders[entry] = None
    for bid in blocks:
        perm = state.find_permanent(bid)
        if perm is None or not perm.is_creature:
            raise InputError(f"blocks.{bid}", f"{bid!r} is not a creature on the battlefield")
    combat = CombatDeclaration(
        attacks=tuple(attacks.items()),
        blocks=tuple((b, tuple(a)) for b, a in blocks.items()),
        defenders=tuple(defenders),
        bands=tuple(tuple(band) for band in bands),
    )
    check_declaration(state, combat)
    for i, band in enumerate(combat.bands):
        # Only as they are declared do the members' abilities matter (702.22e).
        check_band(state, band, f"bands[{i}]")
    judge_declaration(state, combat)
    state = replace(state, combat=combat)
    tapped: list[Permanent] = []
    for aid in attacks:
        perm = state.permanent(aid)
        if not perm.has_keyword("vigilance"):
            tapped.append(replace(perm, tapped=True))
    state = replace_permanents(state, tapped)
    for aid in attacks:
        perm = state.permanent(aid)
        if perm.name == OROCHI:
            state, more = put_trigger(state, "orochi_attack", aid, perm.controller)
            events += more
    return state, events


BLOCKS_ONE_MORE = "can block an additional creature each combat"
BLOCKS_ANY_NUMBER = "can block any number of creatures"
"""The abilities that let a creature block more than one attacker (a granted or printed
ability of that text): ``blocks_max`` 2 and "any" of the declaration's board."""


def judge_declaration(state: GameState, combat: CombatDeclaration) -> None:
    """Refuse attacks and blocks that break 508.1 or 509.1a-b, by the one authority of
    those rules (:mod:`trample.models.game.declarations`): InputError at the first
    violation's creature (``attacks.o5``, ``blocks.o7``), its rule in the message. The
    game's creatures carry no requirement of 509.1c (no "must attack", "must be blocked"
    or lure ability), so these are all the rules a declaration of the game meets."""
    board = declaration_board(state, combat)
    for v in attack_rules(board).violations(dict(combat.attacks)):
        raise InputError(f"attacks.{v.attacker}", f"{v.message} ({v.rule})")
    blocks = {b: tuple(a) for b, a in combat.blocks}
    bands = {member: band[0] for band in combat.bands for member in band}
    for v in block_rules(board).restriction_violations(blocks, bands):
        if v.blocker is None:
            where = f"attacks.{v.attacker}"
        elif v.attacker is None:
            where = f"blocks.{v.blocker}"
        else:
            where = f"blocks.{v.blocker}[{list(blocks[v.blocker]).index(v.attacker)}]"
        raise InputError(where, f"{v.message} ({v.rule})")


def declaration_board(state: GameState, combat: CombatDeclaration) -> Board:
    """The §11 board of a declaration: its attackers attacking what they attack, its
    blockers not yet blocking, with what the game knows of each (tapped, summoning sick,
    keywords)."""
    creatures: list[Creature] = []
    abilities: dict[str, Abilities] = {}
    for cid, target in (*combat.attacks, *((b, None) for b, _ in combat.blocks)):
        perm = state.permanent(cid)
        creatures.append(_creature(perm, attacking=target))
        blocks_max: int | None = 1
        if perm.has_keyword(BLOCKS_ANY_NUMBER):
            blocks_max = None
        elif perm.has_keyword(BLOCKS_ONE_MORE):
            blocks_max = 2
        abilities[cid] = Abilities(tapped=perm.tapped, summoning_sick=perm.summoning_sick,
                                   blocks_max=blocks_max)
    walkers = tuple(Planeswalker(oid, controller, 1) for oid, kind, controller
                    in combat.defenders if kind == "planeswalker")
    battles = tuple(Battle(oid, controller, 1) for oid, kind, controller
                    in combat.defenders if kind == "battle")
    players = tuple(Player(p.id, p.life, poison=p.poison) for p in state.players)
    return Board(Combat(state.active_player, players, tuple(creatures), walkers, battles),
                 abilities)


def check_declaration(state: GameState, combat: CombatDeclaration, path: str = "") -> None:
    """Refuse declared attacks and blocks that no declaration could have made, whatever
    happened since: an attack on the active player or on something not recorded as an
    attacked planeswalker or battle, a block of a creature that does not attack, a creature
    that both attacks and blocks (or blocks itself), an attacker listed twice in one
    block, a band of fewer than two attackers, of a creature that does not attack or is in
    another band, or whose members attack different things (702.22c-d). InputError names
    the field (``state.combat.blocks.o5[0]``, ``state.combat.bands[0][1]``)."""
    def at(*parts: str) -> str:
        return ".".join(p for p in (path, *parts) if p)

    players = {p.id for p in state.players}
    walkers: dict[str, str] = {}
    for i, (oid, kind, player) in enumerate(combat.defenders):
        where = f"{at('defenders')}[{i}]"
        if oid in walkers or oid in players:
            raise InputError(f"{where}.id", f"{oid!r} is listed twice or is a player id")
        if kind not in ("planeswalker", "battle"):
            raise InputError(f"{where}.kind", "expected 'planeswalker' or 'battle'")
        if player not in players or player == state.active_player:
            raise InputError(f"{where}.player", f"{player!r} is not a defending player")
        walkers[oid] = player
    attackers: set[str] = set()
    for aid, target in combat.attacks:
        if aid in attackers or aid in players:
            raise InputError(at("attacks", aid), f"{aid!r} is listed twice or is a player id")
        attackers.add(aid)
        if target == state.active_player or (target not in players and
                                               target not in walkers):
            raise InputError(at("attacks", aid), f"{target!r} is not a defending player, "
                             "nor a planeswalker or battle recorded in defenders")
    _check_bands(combat, at("bands"))
    members = combat.band_members()
    blockers: set[str] = set()
    total = 0
    for bid, attacked in combat.blocks:
        if bid in blockers or bid in players:
            raise InputError(at("blocks", bid), f"{bid!r} is listed twice or is a player id")
        blockers.add(bid)
        blocked = len(combat.blocked_by(attacked, members))
        total += blocked
        # combat/1's limits, so that the combat of a step is one the solver takes (a band
        # counts each member its blocker blocks, 702.22h).
        if max(blocked, len(attacked)) > MAX_BLOCKS_PER_CREATURE or total > MAX_BLOCKS:
            raise InputError(at("blocks", bid), f"at most {MAX_BLOCKS_PER_CREATURE:,} "
                             f"attackers per blocker and {MAX_BLOCKS:,} blocks in all")
        if bid in attackers:
            raise InputError(at("blocks", bid), f"{bid!r} is attacking and can't also "
                             "block (509.1a)")
        seen: set[str] = set()
        for i, aid in enumerate(attacked):
            where = f"{at('blocks', bid)}[{i}]"
            if aid not in attackers:
                raise InputError(where, f"{aid!r} is not an attacking creature")
            if aid in seen:
                raise InputError(where, f"{aid!r} is listed twice")
            seen.add(aid)


def _check_bands(combat: CombatDeclaration, path: str) -> None:
    targets = dict(combat.attacks)
    banded: dict[str, str] = {}
    for i, band in enumerate(combat.bands):
        where = f"{path}[{i}]"
        if len(band) < 2:
            raise InputError(where, "a band is at least two attacking creatures (702.22c); "
                             "a creature alone is in no band")
        for j, aid in enumerate(band):
            if aid not in targets:
                raise InputError(f"{where}[{j}]", f"{aid!r} is not an attacking creature")
            if aid in banded:
                raise InputError(f"{where}[{j}]", f"{aid!r} is already in the band at "
                                 f"{banded[aid]}: a creature is a member of only one band "
                                 "(702.22c)")
            banded[aid] = where
            first = band[0]
            if targets[aid] != targets[first]:
                raise InputError(f"{where}[{j}]", f"{aid!r} attacks {targets[aid]!r} but "
                                 f"{first!r} attacks {targets[first]!r}: all creatures in a "
                                 "band attack the same player, planeswalker or battle "
                                 "(702.22d)")


def end_combat(state: GameState) -> Transition:
    """The end of combat step: forget attacks and blocks (511.3)."""
    return replace(state, combat=None), []


def combat_of(state: GameState, step: str | None = None,
              combat: CombatDeclaration | None = None) -> Combat:
    """The :class:`Combat` of a combat damage step of ``state``, built from the state.

    ``step`` is ``"first_strike"`` or ``"regular"``; by default ``"first_strike"`` when a
    creature in combat has first strike or double strike (510.4). ``combat`` defaults to
    ``state.combat``. Ids are the game's own object and player ids.

    What the damage will do is part of it: the players' poison counters, infect, wither,
    lifelink and toxic on the creatures, and Vessel of the All-Consuming's clause as a
    loss threshold with the damage it dealt each opponent this turn. (The game has no
    commanders, so no commander-damage threshold arises.)

    A combat with banding, "bands with other", Doran, the Siege Tower or a blocked Thorn
    Elemental is read from its :func:`combat_document` by :meth:`Combat.from_json`, the
    one reader of those fields; InputError ``combat`` if it refuses the document.
    """
    fight, extra = _combat_and_fields(state, step, combat)
    if not extra:
        return fight
    document = _with_fields(fight.to_json(), extra)
    with refused_as_the_combat():
        return Combat.from_json(document)


@contextmanager
def refused_as_the_combat() -> Iterator[None]:
    """A refusal of a step's combat/1 document (by its reader, or by the rules: a blocked
    Thorn Elemental whose split the defending player chooses under 702.22j, say) as the
    game model words it: InputError ``combat``, naming the document's field."""
    try:
        yield
    except InputError as exc:
        raise InputError("combat", f"the combat/1 document of this combat is refused at "
                         f"{exc.path}: {exc.reason}") from exc


Fields = dict[str, dict[str, Any]]
"""Creature id -> the combat/1 fields the typed :class:`Creature` does not carry:
banding keywords, ``qualities``, ``assigns``, ``as_though_unblocked``."""


def _combat_and_fields(state: GameState, step: str | None,
                       combat: CombatDeclaration | None) -> tuple[Combat, Fields]:
    combat = combat if combat is not None else state.combat
    if combat is None:
        raise InputError("combat", "no attackers and blockers were declared")
    if step is not None and step not in STEPS:
        raise InputError("step", f"expected 'first_strike' or 'regular', got {step!r}")
    attacking: dict[str, tuple[Permanent, str]] = {}
    for aid, target in combat.attacks:
        perm = state.find_permanent(aid)
        # Removed from combat when it left, stopped being a creature or changed
        # controller (506.4).
        if perm is None or not perm.is_creature or perm.controller != state.active_player:
            continue
        attacking[aid] = (perm, target)
    defending = combat.defending_players()
    # 702.22h: a blocker of one member of a band blocks every member; a member removed
    # from combat is no longer in the band (702.22f), so only those still attacking count.
    members = combat.band_members()
    declared_blocked = {a for _, attacked in combat.blocks
                        for a in combat.blocked_by(attacked, members)}
    blocking: dict[str, tuple[Permanent, tuple[str, ...]]] = {}
    blocked_now: set[str] = set()
    for bid, attacked in combat.blocks:
        perm = state.find_permanent(bid)
        if perm is None or not perm.is_creature or perm.controller == state.active_player:
            continue
        # A blocker stays in combat with the attackers it blocks that are still attacking
        # and whose defending player still controls it (506.4: a change of control
        # removes it from combat).
        still = tuple(a for a in combat.blocked_by(attacked, members)
                      if a in attacking and defending.get(a) == perm.controller)
        if still:
            blocking[bid] = (perm, still)
            blocked_now.update(still)
    creatures: list[Creature] = []
    for aid, (perm, target) in attacking.items():
        # 509.1h, 702.19d: blocked, and all its blockers are gone.
        gone = aid in declared_blocked and aid not in blocked_now
        creatures.append(_creature(perm, attacking=target, blocked=True if gone else None))
    for perm, still in blocking.values():
        creatures.append(_creature(perm, blocking=still))
    planeswalkers: list[Planeswalker] = []
    battles: list[Battle] = []
    fighting = attacking.keys() | blocking.keys()
    for oid, kind, controller in combat.defenders:
        perm = state.find_permanent(oid)
        if oid in fighting:
            raise InputError("combat", f"{oid!r} is both attacked and in combat as a "
                                       "creature: not supported")
        if kind == "battle":
            live = perm is not None and perm.is_battle and perm.protector == controller
            battles.append(Battle(oid, controller, perm.counter(DEFENSE)
                                  if perm is not None and live else 0, live))
        else:
            live = perm is not None and perm.is_planeswalker and perm.controller == controller
            planeswalkers.append(Planeswalker(oid, controller, perm.counter(LOYALTY)
                                              if perm is not None and live else 0, live))
    if step is None:
        step = "first_strike" if any(c.has_first_strike for c in creatures) else "regular"
    players = tuple(Player(p.id, p.life, poison=p.poison) for p in state.players)
    _check_range(state, players, creatures, planeswalkers, battles)
    thresholds = loss_thresholds(state, (c.id for c in creatures if c.is_attacking
                                         or c.is_blocking))
    fight = Combat(state.active_player, players, tuple(creatures), tuple(planeswalkers),
                   tuple(battles), "first_strike" if step == "first_strike" else "regular",
                   loss_thresholds=thresholds)
    in_combat = [perm for perm, _ in attacking.values()] + \
        [perm for perm, _ in blocking.values()]
    return fight, _assignment_fields(state, in_combat, creatures)


def _assignment_fields(state: GameState, perms: Sequence[Permanent],
                       creatures: Sequence[Creature]) -> Fields:
    """The fields of who assigns how much (702.22, Doran, Thorn Elemental) of each
    creature in combat that has any; ``perms`` and ``creatures`` in the same order."""
    toughness = doran_on_battlefield(state)
    abilities = {perm.id: bands_with_other(perm) for perm in perms}
    # Every quality some "bands with other" in combat names: a creature without the
    # ability that has one still counts for 702.22j-k ("another Q creature").
    named = dict.fromkeys(q for found in abilities.values() for q in found)
    blocked = {a for c in creatures for a in c.blocking}
    blocked.update(c.id for c in creatures if c.blocked is True)
    fields: Fields = {}
    for perm, creature in zip(perms, creatures, strict=True):
        entry: dict[str, Any] = {}
        keywords = [k for k in perm.combat_keywords if k == BANDING]
        keywords += [f"{BANDS_WITH_OTHER} {q.text.lower()}" for q in abilities[perm.id]]
        if keywords:
            entry["keywords"] = keywords
        qualities = [q.text for q in named if q.held_by(perm)]
        if qualities:
            entry["qualities"] = qualities
        if toughness:
            entry["assigns"] = "toughness"
        if creature.is_attacking and creature.id in blocked and \
                assigns_as_though_unblocked(perm):
            entry["as_though_unblocked"] = True
        if entry:
            fields[creature.id] = entry
    return fields


def _with_fields(document: dict[str, Any], extra: Fields) -> dict[str, Any]:
    """``document`` with each creature's :data:`Fields` added (keywords merged, sorted as
    combat/1 writes them, ``toxic N`` last)."""
    for creature in document["creatures"]:
        entry = extra.get(creature["id"])
        if not entry:
            continue
        for key, value in entry.items():
            if key == "keywords":
                plain = [k for k in creature["keywords"] if not k.startswith("toxic ")]
                toxic = [k for k in creature["keywords"] if k.startswith("toxic ")]
                creature["keywords"] = sorted({*plain, *value}) + toxic
            else:
                creature[key] = value
    return document


def _check_range(state: GameState, players: Sequence[Player], creatures: Sequence[Creature],
                 planeswalkers: Sequence[Planeswalker], battles: Sequence[Battle]) -> None:
    """The integers of a combat within combat/1's range (magnitude at most 2^40), as
    :meth:`Combat.from_json` requires: the solver's arithmetic relies on it. A value out of
    range (a power grown by counters, say) is refused naming the state's own object."""
    index = {perm.id: i for i, perm in enumerate(state.battlefield)}

    def where(oid: str) -> str:
        return f"state.battlefield[{index[oid]}]" if oid in index else "state.battlefield"

    for i, p in enumerate(players):
        check_int(p.life, f"state.players[{i}].life")
        check_int(p.poison, f"state.players[{i}].poison")
    for c in creatures:
        for key, value in (("power", c.power), ("toughness", c.toughness),
                           ("damage", c.damage)):
            _within(value, where(c.id), f"its {key} in combat")
    for w in planeswalkers:
        _within(w.loyalty, where(w.id), "its loyalty")
    for b in battles:
        _within(b.defense, where(b.id), "its defense")


def _within(value: int, path: str, what: str) -> None:
    if abs(value) > MAX_MAGNITUDE:
        raise InputError(path, f"{what}, {value}, is out of range (magnitude at most 2^40)")


def _creature(perm: Permanent, *, attacking: str | None = None, blocked: bool | None = None,
              blocking: tuple[str, ...] = ()) -> Creature:
    keywords = perm.combat_keywords
    if any(is_banding_keyword(k) for k in keywords):
        # In the document as :func:`_assignment_fields` spells them (a quality with each
        # "bands with other"); the typed combat gets them from its reader.
        keywords = frozenset(k for k in keywords if not is_banding_keyword(k))
    toxic = toxic_total(keywords)
    if toxic:  # kept as its total, as combat/1 keeps it (702.164c)
        keywords = frozenset(k for k in keywords if not k.startswith("toxic "))
    return Creature(perm.id, perm.controller, perm.power, perm.toughness, perm.damage,
                    keywords=keywords, attacking=attacking, blocked=blocked,
                    blocking=blocking, toxic=toxic)


def combat_document(state: GameState, step: str | None = None,
                    combat: CombatDeclaration | None = None) -> dict[str, Any]:
    """The combat/1 document of a combat damage step, as a dict: the JSON of
    :func:`combat_of`, with what the game's bands and effects add to each creature in
    combat (each only where it applies):

    - ``keywords``: ``banding``, and ``bands with other Q`` with the quality its text
      names (``bands with other wolves of the hunt``);
    - ``qualities``: each quality named by a "bands with other" in combat that the
      creature has (its name for ``creatures named ...``, ``legendary``, a creature type);
    - ``assigns: "toughness"`` on every creature while Doran, the Siege Tower is on the
      battlefield;
    - ``as_though_unblocked: true`` on an attacking Thorn Elemental that is blocked (its
      controller's option).

    A blocker of a member of an attacking band lists every member still in combat in its
    ``blocking`` (702.22h). Built without :meth:`Combat.from_json`, so it can be read
    whatever reader the solver has."""
    fight, extra = _combat_and_fields(state, step, combat)
    return _with_fields(fight.to_json(), extra)


def has_first_strike_step(combat: Combat) -> bool:
    """Whether a creature in combat has first strike or double strike (510.4)."""
    return any(c.has_first_strike for c in combat.creatures
               if c.is_attacking or c.is_blocking)


def game_over(state: GameState) -> bool:
    """Whether at most one player has not lost (104.2a)."""
    return sum(1 for p in state.players if not p.lost) <= 1


def check_stack_empty(state: GameState) -> None:
    """InputError ``state.stack`` while an ability waits on the stack: a step ends only
    once the stack is empty and every player passes (500.2), so no combat damage step
    begins, and none deals its damage, before each waiting ability has resolved
    (Kirin-Touched Orochi's attack trigger, a chapter ability, Vessel's counter)."""
    if state.stack:
        waiting = ", ".join(f"{t.id} ({describe_trigger(t)})" for t in reversed(state.stack))
        raise InputError("state.stack", f"no combat damage while abilities wait on the stack "
                                        f"(500.2: a step ends only once the stack is empty); "
                                        f"resolve them first, top first: {waiting}")


def describe_trigger(trigger: Trigger) -> str:
    """A waiting ability as a player would name it: ``Kirin-Touched Orochi's attack
    trigger``, ``Teachings of the Kirin's chapter I ability``."""
    owner = trigger.name or trigger.source
    if trigger.ability == "chapter":
        return f"{owner}'s chapter {_ROMAN.get(trigger.chapter, str(trigger.chapter))} ability"
    return f"{owner}'s {_ABILITY_NAMES.get(trigger.ability, trigger.ability)}"


_ROMAN = {1: "I", 2: "II", 3: "III", 4: "IV", 5: "V", 6: "VI"}
_ABILITY_NAMES = {"orochi_attack": "attack trigger", "vessel_counter": "+1/+1 counter trigger",
                  "vessel_lose": "lose-the-game trigger", "transform_self": "transform ability",
                  "create_wolves": "Wolves of the Hunt ability"}


def deal_combat_damage(state: GameState, assignment: Assignment | Sequence[Mapping[str, Any]],
                       judge: Judge, *, step: str | None = None,
                       combat: CombatDeclaration | None = None,
                       path: str = "assignment") -> Transition:
    """Deal one combat damage step's assignment (both sides) at once (510.2), once
    ``judge`` found it legal; no state-based actions yet.

    ``step`` defaults as :func:`combat_of` does. InputError names every entry that breaks
    a rule, with the rule (``assignment[2]: 510.1a: ...; assignment[4]: 510.1: ...``),
    and the state is left as it was: the game never deals an illegal split. InputError
    ``state.stack`` while an ability waits on the stack (:func:`check_stack_empty`).
    """
    check_stack_empty(state)
    given = assignment if isinstance(assignment, Assignment) else \
        Assignment.from_json(list(assignment), path)
    refuse_illegal(combat_of(state, step, combat), given, judge, path)
    return _deal_all(state, given, combat=True, path=path)


def refuse_illegal(combat: Combat, assignment: Assignment, judge: Judge,
                   path: str = "assignment") -> None:
    """InputError if ``judge`` finds a fault: every fault, each naming its entry (a
    source's total: its first entry) and rule, in the order of the entries (the first as
    the error's ``path`` and ``reason``, the others in its ``more``), as the validator
    lists every violation."""
    faults = judge(combat, assignment)
    if not faults:
        return
    firsts: dict[str, int] = {}
    for i, (source, _, _) in enumerate(assignment.listed()):
        firsts.setdefault(source, i)
    placed: list[tuple[int, str, str]] = []
    for f in faults:
        at = assignment.position((f.source, f.target)) if f.target is not None else None
        if at is None:
            at = firsts.get(f.source)
        where = path if at is None else f"{path}[{at}]"
        placed.append((len(assignment.listed()) if at is None else at, where,
                       f"{f.rule}: {f.message}"))
    placed.sort(key=lambda p: p[0])
    (_, where, reason), *more = placed
    raise InputError(where, reason, [(w, r) for _, w, r in more])


def combat_damage_step(state: GameState, step: str, assign: Assign, judge: Judge,
                       combat: CombatDeclaration | None = None) -> Transition:
    """Run one combat damage step; see the module docstring.

    ``assign`` gets the step's :class:`Combat` and returns its assignment, which
    ``judge`` must find legal (InputError otherwise, nothing dealt). The step begins only
    with an empty stack (InputError ``state.stack``, :func:`check_stack_empty`).
    """
    check_stack_empty(state)
    fight = combat_of(state, step, combat)
    chosen = assign(fight)
    given = chosen if isinstance(chosen, Assignment) else Assignment.from_json(list(chosen))
    refuse_illegal(fight, given, judge)
    state, events = _deal_all(state, given, combat=True)
    state, triggered = damage_triggers(state, events)
    trigger_ids = [e.trigger for e in triggered if isinstance(e, AbilityTriggered)]
    state, sba = check_state_based_actions(state)
    state, resolved = resolve_all(state, trigger_ids)
    state, sba_after = check_state_based_actions(state)
    return state, [*events, *triggered, *sba, *resolved, *sba_after]


def run_combat_damage(state: GameState, assign: Assign, judge: Judge,
                      combat: CombatDeclaration | None = None) -> Transition:
    """Run the combat damage step(s): first-strike then regular if needed (510.4).

    Refused (InputError ``state.stack``) while an ability waits on the stack, such as
    the attack trigger of an attacking Kirin-Touched Orochi: it resolves first (500.2).
    """
    check_stack_empty(state)
    events: list[Event] = []
    if combat_of(state, None, combat).step == "first_strike":
        state, events = combat_damage_step(state, "first_strike", assign, judge, combat)
        if game_over(state):
            return state, events
    state, more = combat_damage_step(state, "regular", assign, judge, combat)
    return state, events + more
