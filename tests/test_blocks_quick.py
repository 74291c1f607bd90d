"""A part's quick play worked out from the creatures' numbers (``direct_quick`` in
solver/blocks/direct.py) is the play found by dealing each step on the game model's
combats (``Evaluator.dealt_quick``): the same split in each step, the same players'
totals and terms; where it does not apply it says so (None). And the quick play is a
play of the part: an outcome of the part's profile (every play, the dominated ones
dropped) is at least as good for the attackers. A step in which nothing is dealt,
built directly (``quiet_step``), is the one ``deal_step`` builds; a part's combat built
without sorting out what it names, where nothing needs it, is the one built with it."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from strategies_blocks import boards

from trample.models.document.board import Board
from trample.models.document.combat import Combat
from trample.models.document.outcomes import deal_step
from trample.models.game.declarations import block_rules
from trample.solver.blocks.direct import _quiet, direct_quick, quiet_step
from trample.solver.blocks.space import program
from trample.solver.blocks.value import (
    BLOCK_TERMS,
    Evaluator,
    _dominates,
    _filtered_sub_combat,
    parts,
    sub_combat,
)

TERMS = [BLOCK_TERMS, ("trade", "losses", "life_loss"),
         ("survivals", "deaths", "life_gain", "poison"), ("losses", "life_gain")]

OTHER_KEYWORDS = ["infect", "wither", "toxic 2", "indestructible",
                  "trample over planeswalkers", "trample", "deathtouch", "lifelink"]


def _check(board: Board, terms: tuple[str, ...]) -> int:
    """Every part of every legal declaration: the direct quick play, where it applies,
    is the dealt one and a play of the part. How many parts it applied to."""
    ev = Evaluator(board, terms)
    direct = 0
    for blocks in program(block_rules(board)).walk():
        made = board.made(blocks)
        for members in parts(made):
            part = sub_combat(made, members)
            mine = tuple(c for c in made.creatures if c.id in set(members))
            assert part == _filtered_sub_combat(made, mine)
            assert quiet_step(part, {}) == deal_step(part, {})
            found = direct_quick(part, ev.opponents, ev.rest)
            dealt = ev.dealt_quick(part)
            assert ev.part_quick(part) == (found if found is not None else dealt)
            if found is None:
                continue
            direct += 1
            assert found == dealt
            profile = ev.profile(made, members)
            assert profile is not None
            assert any(_dominates(o, found) for o in profile.outcomes)
    return direct


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(boards(), st.sampled_from(TERMS))
def test_the_direct_quick_play_is_the_dealt_one(doc: dict[str, Any],
                                                terms: tuple[str, ...]) -> None:
    _check(Board.from_json(doc), terms)


@settings(max_examples=40, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(st.lists(st.lists(st.sampled_from(OTHER_KEYWORDS), max_size=2, unique=True),
                min_size=4, max_size=4),
       st.lists(st.integers(0, 1), min_size=4, max_size=4), st.sampled_from(TERMS))
def test_keywords_and_marked_damage_the_numbers_leave_out(
        keywords: list[list[str]], damage: list[int], terms: tuple[str, ...]) -> None:
    """Infect, wither, toxic, indestructible, trample over planeswalkers and marked damage
    send a part to the game model; the rest still agree."""
    creatures = [{"id": "a0", "controller": "ap", "power": 3, "toughness": 2,
                  "attacking": "dp", "keywords": keywords[0]},
                 {"id": "a1", "controller": "ap", "power": 2, "toughness": 3,
                  "attacking": "pw", "keywords": keywords[1]},
                 {"id": "b0", "controller": "dp", "power": 2, "toughness": 2,
                  "damage": damage[2], "keywords": keywords[2]},
                 {"id": "b1", "controller": "dp", "power": 1, "toughness": 3,
                  "damage": damage[3], "keywords": keywords[3]}]
    doc = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": 4}],
           "planeswalkers": [{"id": "pw", "controller": "dp", "loyalty": 3}],
           "creatures": creatures}
    _check(Board.from_json(doc), terms)


def test_every_strike_and_keyword_of_a_gang() -> None:
    """A fixed board where the numbers apply to every part: first and double strike on
    both sides, deathtouch, trample, lifelink, a chump, a gang of three."""
    creatures = [
        {"id": "a0", "controller": "ap", "power": 5, "toughness": 3,
         "keywords": ["trample", "double strike", "lifelink"], "attacking": "dp"},
        {"id": "a1", "controller": "ap", "power": 3, "toughness": 4,
         "keywords": ["deathtouch", "trample"], "attacking": "dp"},
        {"id": "a2", "controller": "ap", "power": 4, "toughness": 2,
         "keywords": ["first strike"], "attacking": "dp"},
        {"id": "b0", "controller": "dp", "power": 2, "toughness": 2,
         "keywords": ["first strike", "lifelink"]},
        {"id": "b1", "controller": "dp", "power": 1, "toughness": 1,
         "keywords": ["deathtouch"]},
        {"id": "b2", "controller": "dp", "power": 3, "toughness": 5,
         "keywords": ["double strike"]}]
    board = Board.from_json({"active_player": "ap",
                             "players": [{"id": "ap", "life": 7}, {"id": "dp", "life": 9}],
                             "creatures": creatures})
    # 64 declarations (each blocker: no block or one of three attackers), each of three
    # parts; every one is a part of the common shape.
    assert _check(board, BLOCK_TERMS) == 64 * 3


@pytest.mark.parametrize(("extra", "quiet"), [
    ({"creatures": [{"id": "a", "controller": "ap", "power": 1, "toughness": 0,
                     "attacking": "dp"}]}, False),
    ({"creatures": [{"id": "a", "controller": "ap", "power": 1, "toughness": 2,
                     "damage": 2, "attacking": "dp"}]}, False),
    ({"players": [{"id": "ap"}, {"id": "dp", "life": 0}]}, False),
    ({"players": [{"id": "ap"}, {"id": "dp", "poison": 10}]}, False),
    ({"step": "regular"}, False),
    ({"loss_thresholds": [{"source": "a", "player": "dp", "threshold": 1}]}, True),
    ({}, True)])
def test_a_step_with_nothing_dealt(extra: dict[str, Any], quiet: bool) -> None:
    """Built directly only where nothing is already dead or lost; always what
    ``deal_step`` builds."""
    doc: dict[str, Any] = {
        "step": "first_strike", "active_player": "ap",
        "players": [{"id": "ap"}, {"id": "dp"}],
        "creatures": [{"id": "a", "controller": "ap", "power": 1, "toughness": 2,
                       "attacking": "dp"}],
        **extra}
    combat = Combat.from_json(doc)
    assert _quiet(combat) == quiet
    assert quiet_step(combat, {}) == deal_step(combat, {})


def _profiles_both_ways(board: Board, terms: tuple[str, ...]) -> None:
    direct, dealt = Evaluator(board, terms), Evaluator(board, terms)
    dealt.direct_rows = False
    for blocks in program(block_rules(board)).walk():
        made = board.made(blocks)
        for members in parts(made):
            assert direct.profile(made, members) == dealt.profile(made, members)
        assert direct.evaluate(made) == dealt.evaluate(made)


@settings(max_examples=120, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(boards(), st.sampled_from(TERMS))
def test_the_last_steps_changes_from_the_numbers_are_the_dealt_ones(
        doc: dict[str, Any], terms: tuple[str, ...]) -> None:
    """Every part's profile (its outcomes, their lines, in order) and every declaration's
    evaluation are the same with the last step's changes worked out from the numbers
    in the parts of the common shape as with every change dealt."""
    _profiles_both_ways(Board.from_json(doc), terms)


def test_the_last_steps_changes_on_a_board_of_every_strike() -> None:
    creatures = [
        {"id": "a0", "controller": "ap", "power": 6, "toughness": 3,
         "keywords": ["trample", "lifelink"], "attacking": "dp"},
        {"id": "a1", "controller": "ap", "power": 4, "toughness": 4,
         "keywords": ["deathtouch", "trample", "double strike"], "attacking": "dp"},
        {"id": "a2", "controller": "ap", "power": 5, "toughness": 2, "attacking": "dp"},
        {"id": "b0", "controller": "dp", "power": 2, "toughness": 2, "value": 3,
         "keywords": ["first strike", "lifelink"]},
        {"id": "b1", "controller": "dp", "power": 1, "toughness": 1, "value": -1,
         "keywords": ["deathtouch"]},
        {"id": "b2", "controller": "dp", "power": 3, "toughness": 5, "value": 2}]
    board = Board.from_json({"active_player": "ap",
                             "players": [{"id": "ap", "life": 7}, {"id": "dp", "life": 9}],
                             "creatures": creatures})
    for terms in TERMS:
        _profiles_both_ways(board, terms)
