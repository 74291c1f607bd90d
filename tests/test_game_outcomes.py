"""The game model speaks outcomes: the combat it builds carries poison, infect, wither,
lifelink, toxic and Vessel of the All-Consuming's clause, and the damage it deals is what
:mod:`trample.models.document.outcomes` (the solver's objective) says it does."""

from __future__ import annotations

from dataclasses import replace

from trample.models.document.combat import LossThreshold
from trample.models.document.outcomes import creature_dies, deal, player_loses
from trample.models.game.cards import get_card
from trample.models.game.combat_steps import combat_of, deal_combat_damage, declare_combat
from trample.models.game.damage import check_state_based_actions, deal_damage
from trample.models.game.seeds import HIDETSUGU
from trample.models.game.state import (
    PLUS_ONE,
    GameState,
    add_counters,
    enter_card,
    grant_keyword,
    new_game,
    replace_player,
)
from trample.solver.interface import api
from trample.solver.interface.game_loop import judge

VESSEL_CARD = get_card(HIDETSUGU)


def _board() -> tuple[GameState, str, str, str, str]:
    """ap attacks dp with Vessel (double strike), an infect-lifelink-toxic bear and a
    wither bear; dp blocks the wither bear with a Grizzly Bears."""
    state = new_game()
    state, vessel, _ = enter_card(state, VESSEL_CARD, "ap", face="back")
    state, toxic, _ = enter_card(state, get_card("Grizzly Bears"), "ap")
    state, wither, _ = enter_card(state, get_card("Grizzly Bears"), "ap")
    state, wall, _ = enter_card(state, get_card("Grizzly Bears"), "dp")
    for oid, keyword in ((vessel, "Double strike"), (toxic, "Infect"), (toxic, "Lifelink"),
                         (toxic, "Toxic 2"), (wither, "Wither")):
        state, _ = grant_keyword(state, oid, keyword)
    state = replace_player(state, replace(state.player("dp"), poison=3))
    state, _ = declare_combat(state, {vessel: "dp", toxic: "dp", wither: "dp"},
                              {wall: [wither]})
    return state, vessel, toxic, wither, wall


def test_the_combat_of_a_game_carries_poison_keywords_and_vessels_clause() -> None:
    state, vessel, toxic, wither, _ = _board()
    combat = combat_of(state, "first_strike")
    assert next(p for p in combat.players if p.id == "dp").poison == 3
    assert combat.creature(toxic).toxic == 2
    assert {"infect", "lifelink"} <= combat.creature(toxic).keywords
    assert not any(k.startswith("toxic") for k in combat.creature(toxic).keywords)
    assert "wither" in combat.creature(wither).keywords
    assert combat.loss_thresholds == (LossThreshold(vessel, "dp", 10, 0),)
    # The tally of this turn is the threshold's `already`.
    state = replace(state, damage_this_turn=((vessel, "dp", 7),))
    assert combat_of(state, "regular").loss_thresholds == (LossThreshold(vessel, "dp", 10, 7),)
    # Past 10 already, one more point of damage triggers the clause.
    state = replace(state, damage_this_turn=((vessel, "dp", 12),))
    assert combat_of(state, "regular").loss_thresholds == (LossThreshold(vessel, "dp", 13, 12),)


def test_the_game_deals_what_the_outcome_model_says() -> None:
    state, vessel, toxic, wither, wall = _board()
    combat = combat_of(state, "regular")
    assignment = [{"source": vessel, "target": "dp", "amount": 3},
                  {"source": toxic, "target": "dp", "amount": 2},
                  {"source": wither, "target": wall, "amount": 2},
                  {"source": wall, "target": wither, "amount": 2}]
    amounts = {(e["source"], e["target"]): e["amount"] for e in assignment}
    predicted = deal(combat, amounts)
    after, _ = deal_combat_damage(state, assignment, judge, step="regular")
    dp_before, dp_after = state.player("dp"), after.player("dp")
    assert dp_before.life - dp_after.life == predicted.life_loss["dp"] == 3
    assert dp_after.poison - dp_before.poison == predicted.poison["dp"] == 2 + 2
    assert after.player("ap").life - state.player("ap").life == predicted.life_gain["ap"]
    assert after.permanent(wall).counter("-1/-1") == predicted.counters[wall] == 2
    after, _ = check_state_based_actions(after)
    assert (after.find_permanent(wall) is None) == creature_dies(combat.creature(wall),
                                                                 predicted)
    assert (after.find_permanent(wither) is None) == creature_dies(
        combat.creature(wither), deal(combat, amounts))
    assert after.player("dp").lost == player_loses(combat, "dp", predicted)


def test_toxic_counts_once_per_player_and_only_for_combat_damage() -> None:
    state, vessel, toxic, wither, wall = _board()
    assignment = [{"source": vessel, "target": "dp", "amount": 3},
                  {"source": toxic, "target": "dp", "amount": 2},
                  {"source": wither, "target": wall, "amount": 2},
                  {"source": wall, "target": wither, "amount": 2}]
    after, _ = deal_combat_damage(state, assignment, judge, step="regular")
    assert after.player("dp").poison == 3 + 2 + 2  # infect 2, toxic 2 once
    after, _ = deal_damage(state, [{"source": toxic, "target": "dp", "amount": 1}])
    assert after.player("dp").poison == 3 + 1  # 702.164c: combat damage only


def test_the_solver_sees_vessels_clause_in_a_double_strike_combat() -> None:
    """Vessel (4 power, double strike) has dealt dp 6 this turn: 4 more is a loss."""
    state, vessel, _, _, _ = _board()
    state, _ = add_counters(state, vessel, PLUS_ONE, 1)
    state = replace(state, damage_this_turn=((vessel, "dp", 6),))
    doc = combat_of(state, "first_strike").to_json()
    answer = api.solve(doc)
    assert answer["objective"]["losses"] == 1
