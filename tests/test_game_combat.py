"""From the game state to combat/1 documents and back: the combat damage steps.

The trample paragraphs of seed 000 (¶8-¶14) are rules of damage assignment, which live in
the solver; here they are checked from the game model's side: the document carries the
facts the rule reads, and the model deals the paragraph's example assignment with the
right results. ``assign_by_hand`` is a simple hand-written assigner that follows SPEC §2
for the attacking side (the real solver plugs in at the same place).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from typing import Any

import pytest

from trample.models.document.combat import Combat
from trample.models.document.errors import InputError
from trample.models.game import combat_steps
from trample.models.game.cards import Card, get_card, load_card
from trample.models.game.combat_steps import (
    BLOCKS_ANY_NUMBER,
    CombatDeclaration,
    combat_document,
    combat_of,
    declare_combat,
    end_combat,
    has_first_strike_step,
)
from trample.models.game.damage import deal_damage
from trample.models.game.events import AbilityTriggered, DamageDealt, Event, PlayerLost, ZoneChange
from trample.models.game.seeds import HIDETSUGU, VESSEL
from trample.models.game.state import (
    LOYALTY,
    PLUS_ONE,
    FaceSide,
    GameState,
    Transition,
    add_counters,
    destroy,
    enter_card,
    grant_keyword,
    new_game,
    replace_permanent,
    replace_player,
)
from trample.solver.interface.game_loop import judge

DocAssign = Callable[[dict[str, Any]], list[dict[str, Any]]]


def _on_documents(assign: DocAssign) -> combat_steps.Assign:
    # These tests read the combat of each step as its combat/1 document.
    return lambda combat: assign(combat.to_json())


def combat_damage_step(state: GameState, step: str, assign: DocAssign,
                       combat: CombatDeclaration | None = None) -> Transition:
    """One step, each split judged by the solver's validator (as ``trample apply`` does)."""
    return combat_steps.combat_damage_step(state, step, _on_documents(assign), judge, combat)


def run_combat_damage(state: GameState, assign: DocAssign) -> Transition:
    """Both steps as needed, each split judged by the solver's validator."""
    return combat_steps.run_combat_damage(state, _on_documents(assign), judge)

WALL = load_card({"name": "Wall of Stone", "layout": "normal", "mana_cost": "{1}{R}{R}",
                  "type_line": "Creature — Wall", "oracle_text": "Defender",
                  "power": "0", "toughness": "4", "keywords": ["Defender"]})
TOP_BEAST = load_card({"name": "Test Fixture Siege Beast", "layout": "normal",
                       "mana_cost": "{4}{G}", "type_line": "Creature — Beast",
                       "oracle_text": "Trample over planeswalkers", "power": "5",
                       "toughness": "5", "keywords": ["Trample over planeswalkers"]})


def _kw(creature: Mapping[str, Any]) -> set[str]:
    return {" ".join(k.replace("_", " ").replace("-", " ").lower().split())
            for k in creature.get("keywords", [])}


def assign_by_hand(doc: dict[str, Any]) -> list[dict[str, Any]]:
    """Attackers' damage by SPEC §2: blockers in order, lethal first, then the rest."""
    walkers = {p["id"]: p for p in doc.get("planeswalkers", [])}
    battles = {b["id"]: b for b in doc.get("battles", [])}
    assigned: dict[str, int] = {}
    out: list[dict[str, Any]] = []

    def give(source: str, target: str, amount: int) -> None:
        if amount > 0:
            out.append({"source": source, "target": target, "amount": amount})
            assigned[target] = assigned.get(target, 0) + amount

    for c in doc["creatures"]:
        kw = _kw(c)
        strikes_first = bool(kw & {"first strike", "double strike"})
        deals_now = "double strike" in kw or strikes_first == (doc["step"] == "first_strike")
        if "attacking" not in c or c["power"] <= 0 or not deals_now:
            continue
        left, target = c["power"], c["attacking"]
        blockers = [b for b in doc["creatures"] if c["id"] in b.get("blocking", [])]
        blocked = bool(blockers) or c.get("blocked", False)
        walker = walkers.get(target)
        if target in walkers:
            live = walkers[target]["in_combat"]
        elif target in battles:
            live = battles[target]["in_combat"]
        else:
            live = True
        top = "trample over planeswalkers" in kw
        for b in blockers:
            need = 1 if "deathtouch" in kw else b["toughness"] - b["damage"]
            share = min(left, max(0, need - assigned.get(b["id"], 0)))
            give(c["id"], b["id"], share)
            left -= share
        if blocked and left and not ("trample" in kw or top):
            if blockers:
                give(c["id"], blockers[-1]["id"], left)
            continue
        if walker is not None and top:
            if live:
                share = min(left, max(0, walker["loyalty"] - assigned.get(target, 0)))
                give(c["id"], target, share)
                left -= share
            give(c["id"], walker["controller"], left)
        elif live:
            give(c["id"], target, left)
    return out


def _combat(*, attackers: Sequence[tuple[Card, FaceSide, str]],
            blockers: Sequence[tuple[Card, Sequence[int]]] = (),
            walker: bool = False) -> tuple[GameState, list[str], list[str], str | None]:
    """A state with creatures entered, optionally Jace Beleren for dp, and combat declared.

    ``attackers`` are (card, face, target) with target "dp" or "jace"; ``blockers`` are
    (card, indexes of the attackers it blocks).
    """
    state = new_game()
    jace = None
    if walker:
        state, jace, _ = enter_card(state, get_card("Jace Beleren"), "dp")
    aids, bids = [], []
    for card, face, _ in attackers:
        state, oid, _ = enter_card(state, card, "ap", face=face)
        aids.append(oid)
    for card, _ in blockers:
        state, oid, _ = enter_card(state, card, "dp")
        bids.append(oid)
    attacks = {aid: (jace if t == "jace" and jace else "dp")
               for aid, (_, _, t) in zip(aids, attackers, strict=True)}
    blocks = {bid: [aids[i] for i in which]
              for bid, (_, which) in zip(bids, blockers, strict=True)}
    for bid, attacked in blocks.items():
        if len(attacked) > 1:  # CR 509.1b: one attacker each, unless an ability says more
            state, _ = grant_keyword(state, bid, BLOCKS_ANY_NUMBER)
    state, _ = declare_combat(state, attacks, blocks)
    return state, aids, bids, jace


VESSEL_CARD = get_card(HIDETSUGU)


def test_the_document_is_a_valid_combat_1_document() -> None:
    state, (vessel,), (wall,), _ = _combat(attackers=[(VESSEL_CARD, "back", "dp")],
                                           blockers=[(WALL, [0])])
    state, _ = add_counters(state, vessel, PLUS_ONE, 2)
    doc = combat_document(state)
    assert doc == {
        "active_player": "ap",
        "players": [{"id": "ap", "life": 20}, {"id": "dp", "life": 20}],
        "creatures": [
            {"id": vessel, "controller": "ap", "power": 5, "toughness": 5, "damage": 0,
             "value": 1, "keywords": ["trample"], "attacking": "dp"},
            {"id": wall, "controller": "dp", "power": 0, "toughness": 4, "damage": 0,
             "value": 1, "keywords": ["defender"], "blocking": [vessel]}],
        "step": "regular",
        # Vessel's clause: dp loses once Vessel has dealt them 10 this turn (none yet).
        "loss_thresholds": [{"source": vessel, "player": "dp", "threshold": 10,
                             "already": 0}]}
    parsed = Combat.from_json(doc)
    assert parsed.creature(vessel).power == 5 and parsed.blockers_of(vessel) == (wall,)
    # The document is the JSON of the typed combat the solver is asked with.
    assert parsed == combat_of(state)


def test_planeswalkers_and_battles_in_the_document() -> None:
    state = new_game()
    state, jace, _ = enter_card(state, get_card("Jace Beleren"), "dp")
    state, battle, _ = enter_card(state, get_card("Invasion of Zendikar"), "dp")
    assert state.permanent(battle).protector == "ap"
    # A battle the defending player controls is protected by ap here; make dp protect one.
    state, siege, _ = enter_card(state, get_card("Invasion of Zendikar"), "ap")
    state, bears, _ = enter_card(state, get_card("Grizzly Bears"), "ap")
    state, elves, _ = enter_card(state, get_card("Llanowar Elves"), "ap")
    state, _ = declare_combat(state, {bears: jace, elves: siege})
    doc = combat_document(state)
    assert doc["planeswalkers"] == [{"id": jace, "controller": "dp", "loyalty": 3,
                                     "in_combat": True}]
    assert doc["battles"] == [{"id": siege, "protector": "dp", "defense": 3,
                               "in_combat": True}]
    Combat.from_json(doc)
    with pytest.raises(InputError) as info:
        declare_combat(state, {bears: battle})
    assert info.value.path == f"attacks.{bears}"


@pytest.mark.parametrize(("attacks", "blocks", "path"), [
    ({"o3": "dp"}, {}, "attacks.o3"),            # dp's creature can't attack
    ({"o1": "ap"}, {}, "attacks.o1"),            # can't attack yourself
    ({"o1": "o2"}, {}, "attacks.o1"),            # not a player, planeswalker or battle
    ({"o1": "dp"}, {"o2": ["o1"]}, "blocks.o2[0]"),  # ap's creature can't block it (509.1a)
    ({"o1": "dp"}, {"o3": ["o2"]}, "blocks.o3[0]"),  # o2 is not attacking
    ({"o4": "dp"}, {}, "attacks.o4"),            # summoning sick
])
def test_bad_declarations_name_the_field(attacks: dict[str, str], blocks: dict[str, list[str]],
                                         path: str) -> None:
    state = new_game()
    for name, who in [("Grizzly Bears", "ap"), ("Llanowar Elves", "ap"),
                      ("Grizzly Bears", "dp")]:
        state, _, _ = enter_card(state, get_card(name), who)
    state, _, _ = enter_card(state, get_card("Fencing Ace"), "ap", summoning_sick=True)
    with pytest.raises(InputError) as info:
        declare_combat(state, attacks, blocks)
    assert info.value.path == path
    with pytest.raises(InputError) as info:
        combat_document(state)
    assert info.value.path == "combat"


def test_double_striking_vessel_assigns_its_regular_damage_with_its_new_counter() -> None:
    # 510.2, 510.4, RULES.md: "between the first-strike and the regular damage step
    # Vessel's counter has resolved and it assigns with its new power"; the damage its
    # first-strike damage marked on the blocker is in the second document.
    state, (vessel,), (wall,), _ = _combat(attackers=[(VESSEL_CARD, "back", "dp")],
                                           blockers=[(WALL, [0])])
    state, _ = grant_keyword(state, vessel, "Double strike")
    docs: list[dict[str, Any]] = []

    def assign(doc: dict[str, Any]) -> list[dict[str, Any]]:
        docs.append(doc)
        Combat.from_json(doc)
        return assign_by_hand(doc)

    after, events = run_combat_damage(state, assign)
    assert [d["step"] for d in docs] == ["first_strike", "regular"]
    first, regular = ({c["id"]: c for c in d["creatures"]} for d in docs)
    assert (first[vessel]["power"], first[wall]["damage"]) == (3, 0)
    assert (regular[vessel]["power"], regular[wall]["damage"]) == (4, 3)
    dealt = [(e.target, e.amount) for e in events if isinstance(e, DamageDealt)]
    assert dealt == [(wall, 3), (wall, 1), ("dp", 3)]
    assert after.find_permanent(wall) is None
    assert after.player("dp").life == 17
    assert after.permanent(vessel).counter(PLUS_ONE) == 2
    assert sum(isinstance(e, AbilityTriggered) for e in events) == 2


def test_double_striking_vessel_can_reach_ten_damage_in_one_combat() -> None:
    # Vessel: "if it has dealt 10 or more damage to that player this turn, they lose".
    state, (vessel,), _, _ = _combat(attackers=[(VESSEL_CARD, "back", "dp")])
    state = replace_player(state, replace(state.player("dp"), life=30))
    state, _ = add_counters(state, vessel, PLUS_ONE, 4)
    state, _ = grant_keyword(state, vessel, "double_strike")
    after, events = run_combat_damage(state, assign_by_hand)
    assert after.damage_dealt(vessel, "dp") == 7 + 8
    assert after.player("dp").life == 15
    lost = [e for e in events if isinstance(e, PlayerLost)]
    assert len(lost) == 1 and VESSEL in lost[0].reason


def test_no_first_strike_means_one_step_and_the_game_can_end_after_the_first() -> None:
    state, _, _, _ = _combat(attackers=[(get_card("Grizzly Bears"), "front", "dp")])
    calls: list[str] = []

    def assign(doc: dict[str, Any]) -> list[dict[str, Any]]:
        calls.append(doc["step"])
        return assign_by_hand(doc)

    run_combat_damage(state, assign)
    assert calls == ["regular"]
    state, _, _, _ = _combat(attackers=[(get_card("Fencing Ace"), "front", "dp")])
    state = replace_player(state, replace(state.player("dp"), life=1))
    calls.clear()
    after, _ = run_combat_damage(state, assign)
    assert calls == ["first_strike"] and after.player("dp").lost


# -- seed 000 ¶8-¶14: trample, from the game model's side -------------------------------------


def test_trample_does_nothing_for_a_blocker_or_noncombat_damage() -> None:
    # seed 000 ¶8 "Trample is a static ability that modifies the rules for assigning an
    # attacking creature's combat damage. The ability has no effect when a creature with
    # trample is blocking or is dealing noncombat damage."
    state = new_game()
    state, bears, _ = enter_card(state, get_card("Grizzly Bears"), "ap")
    state, vessel, _ = enter_card(state, VESSEL_CARD, "dp", face="back")
    state, _ = declare_combat(state, {bears: "dp"}, {vessel: [bears]})
    doc = combat_document(state)
    blocker = next(c for c in doc["creatures"] if c["id"] == vessel)
    assert blocker["keywords"] == ["trample"] and "attacking" not in blocker
    assert blocker["blocking"] == [bears]
    # A blocker's only recipients are the attackers it blocks (SPEC §2): all 3 to bears.
    after, _ = combat_damage_step(
        state, "regular", lambda d: [{"source": vessel, "target": bears, "amount": 3},
                                     {"source": bears, "target": vessel, "amount": 2}])
    assert after.find_permanent(bears) is None and after.player("ap").life == 20
    assert after.permanent(vessel).counter(PLUS_ONE) == 1
    # Noncombat damage goes where the effect says, all of it, trample or not.
    state, other, _ = enter_card(state, get_card("Grizzly Bears"), "ap")
    after, events = deal_damage(state, [{"source": vessel, "target": other, "amount": 5}])
    assert [e for e in events if isinstance(e, DamageDealt)] == [
        DamageDealt(vessel, other, 5, False)]
    assert after.permanent(other).damage == 5 and after.player("ap").life == 20


def test_trample_assigns_lethal_counting_marked_damage_and_other_creatures() -> None:
    # seed 000 ¶9 "The controller of an attacking creature with trample first assigns
    # damage to the creature(s) blocking it. ... When checking for assigned lethal damage,
    # take into account damage already marked on the creature and damage from other
    # creatures that's being assigned during the same combat damage step ..."
    state, (vessel, bears), (wall,), _ = _combat(
        attackers=[(VESSEL_CARD, "back", "dp"), (get_card("Grizzly Bears"), "front", "dp")],
        blockers=[(WALL, [0, 1])])
    state = replace_permanent(state, replace(state.permanent(wall), damage=1))
    doc = combat_document(state)
    wall_entry = next(c for c in doc["creatures"] if c["id"] == wall)
    assert wall_entry["damage"] == 1 and wall_entry["blocking"] == [vessel, bears]
    assignment = [{"source": bears, "target": wall, "amount": 2},
                  {"source": vessel, "target": wall, "amount": 1},
                  {"source": vessel, "target": "dp", "amount": 2}]
    after, events = combat_damage_step(state, "regular", lambda d: assignment)
    assert after.find_permanent(wall) is None  # 1 marked + 2 + 1 = 4
    assert after.player("dp").life == 18
    assert any(isinstance(e, ZoneChange) and e.object == wall for e in events)


def test_trample_over_planeswalkers_excess_goes_to_the_controller() -> None:
    # seed 000 ¶10 "Trample over planeswalkers is a variant of trample ... after lethal
    # damage is assigned to all blocking creatures and damage at least equal to the
    # loyalty of the planeswalker the creature is attacking is assigned to that
    # planeswalker, further excess damage may be assigned ... among those blocking
    # creatures, that planeswalker, and that planeswalker's controller."
    state, (beast,), _, jace = _combat(attackers=[(TOP_BEAST, "front", "jace")], walker=True)
    assert jace is not None
    doc = combat_document(state)
    assert doc["planeswalkers"] == [{"id": jace, "controller": "dp", "loyalty": 3,
                                     "in_combat": True}]
    assert doc["creatures"][0]["keywords"] == ["trample over planeswalkers"]
    assert assign_by_hand(doc) == [{"source": beast, "target": jace, "amount": 3},
                                   {"source": beast, "target": "dp", "amount": 2}]
    after, _ = combat_damage_step(state, "regular", assign_by_hand)
    assert after.find_permanent(jace) is None and after.player("dp").life == 18


def test_a_blocked_creature_whose_blockers_are_gone_stays_blocked() -> None:
    # seed 000 ¶11 "If an attacking creature with trample or trample over planeswalkers is
    # blocked, but there are no creatures blocking it when damage is assigned, its damage
    # is assigned to the defending player and/or planeswalker as though all blocking
    # creatures have been assigned lethal damage."
    state, (vessel,), (bears,), _ = _combat(attackers=[(VESSEL_CARD, "back", "dp")],
                                            blockers=[(get_card("Grizzly Bears"), [0])])
    state, _ = destroy(state, bears)
    doc = combat_document(state)
    assert doc["creatures"] == [{"id": vessel, "controller": "ap", "power": 3,
                                 "toughness": 3, "damage": 0, "value": 1, "keywords": ["trample"],
                                 "attacking": "dp", "blocked": True}]
    assert Combat.from_json(doc).is_blocked(Combat.from_json(doc).creature(vessel))
    after, _ = combat_damage_step(state, "regular", assign_by_hand)
    assert after.player("dp").life == 17


def test_a_planeswalker_removed_from_combat_stays_what_the_creature_attacks() -> None:
    # seed 000 ¶12 "If a creature with trample over planeswalkers is attacking a
    # planeswalker and that planeswalker is removed from combat, ... all its damage is
    # assigned to the defending player. This is an exception to rule 506.4c, and it does
    # not cause the creature to be attacking that player."
    state, _, _, jace = _combat(attackers=[(TOP_BEAST, "front", "jace")], walker=True)
    assert jace is not None
    state, _ = destroy(state, jace)
    doc = combat_document(state)
    assert doc["planeswalkers"] == [{"id": jace, "controller": "dp", "loyalty": 0,
                                     "in_combat": False}]
    assert doc["creatures"][0]["attacking"] == jace
    Combat.from_json(doc)
    after, _ = combat_damage_step(state, "regular", assign_by_hand)
    assert after.player("dp").life == 15


def test_without_trample_over_planeswalkers_nothing_reaches_the_player() -> None:
    # seed 000 ¶13 "If a creature without trample over planeswalkers is attacking a
    # planeswalker, none of its combat damage can be assigned to the defending player,
    # even if that planeswalker has been removed from combat or the damage the attacking
    # creature could assign is greater than the planeswalker's loyalty."
    state, (vessel,), _, jace = _combat(attackers=[(VESSEL_CARD, "back", "jace")],
                                        walker=True)
    assert jace is not None
    state, _ = add_counters(state, vessel, PLUS_ONE, 2)  # 5 power against loyalty 3
    doc = combat_document(state)
    assert doc["creatures"][0]["keywords"] == ["trample"]
    after, _ = combat_damage_step(state, "regular", assign_by_hand)
    assert after.player("dp").life == 20 and after.find_permanent(jace) is None
    state, _ = destroy(state, jace)
    doc = combat_document(state)
    assert doc["planeswalkers"][0]["in_combat"] is False
    assert assign_by_hand(doc) == []
    after, events = combat_damage_step(state, "regular", assign_by_hand)
    assert after.player("dp").life == 20 and events == []


def test_multiple_instances_of_trample_are_listed_once() -> None:
    # seed 000 ¶14 "Multiple instances of trample on the same creature are redundant.
    # Multiple instances of trample over planeswalkers on the same creature are redundant."
    twice = load_card({"name": "Test Fixture Twin Trampler", "layout": "normal",
                       "mana_cost": "{3}", "type_line": "Creature — Beast", "power": "3",
                       "toughness": "3", "keywords": ["Trample", "trample",
                                                      "Trample over planeswalkers",
                                                      "Trample_Over-Planeswalkers"]})
    assert twice.front.keywords == ("Trample", "Trample over planeswalkers")
    state, (beast, vessel), _, _ = _combat(attackers=[(twice, "front", "dp"),
                                                      (VESSEL_CARD, "back", "dp")])
    state, _ = grant_keyword(state, beast, "TRAMPLE")
    state, _ = grant_keyword(state, vessel, "trample")
    doc = combat_document(state)
    assert [c["keywords"] for c in doc["creatures"]] == [
        ["trample", "trample over planeswalkers"], ["trample"]]
    assert not has_first_strike_step(combat_of(state))
    after, _ = combat_damage_step(state, "regular", assign_by_hand)
    assert after.player("dp").life == 14


def test_end_combat_forgets_the_declaration() -> None:
    state, _, _, _ = _combat(attackers=[(get_card("Grizzly Bears"), "front", "dp")])
    state, events = end_combat(state)
    assert state.combat is None and events == []


def test_events_of_a_step_in_order() -> None:
    # 510.2 then 704 then the triggered abilities: Vessel dies to a deathtouch blocker
    # before its counter ability resolves, so no counter is put on it.
    state, (vessel,), (rats,), _ = _combat(attackers=[(VESSEL_CARD, "back", "dp")],
                                           blockers=[(get_card("Typhoid Rats"), [0])])
    assignment = [{"source": vessel, "target": rats, "amount": 1},
                  {"source": vessel, "target": "dp", "amount": 2},
                  {"source": rats, "target": vessel, "amount": 1}]
    after, events = combat_damage_step(state, "regular", lambda d: assignment)
    kinds: list[str] = [type(e).__name__ for e in events]
    assert kinds[:4] == ["DamageDealt", "DamageDealt", "LifeLost", "DamageDealt"]
    assert kinds[4] == "AbilityTriggered"
    assert after.find_permanent(vessel) is None and after.find_permanent(rats) is None
    resolved: list[Event] = [e for e in events if type(e).__name__ == "AbilityResolved"]
    assert len(resolved) == 1 and not any(type(e).__name__ == "CounterAdded" for e in events)
    assert after.player("dp").life == 18 and LOYALTY not in kinds
