"""A part's outcomes worked out by the last step's program over one source's recipients
(solver/blocks/value.py, ``Evaluator._last_step``) are the ones its plain enumeration of
every split finds: on random boards, every part of every legal declaration, both ways,
the same undominated outcomes and the same values. (The values themselves are checked
against the brute force of SPEC §11 in test_blocks_brute.py.)"""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trample.models.document.board import Board
from trample.models.game.declarations import block_rules
from trample.solver.blocks.space import program
from trample.solver.blocks.value import BLOCK_TERMS, Evaluator, parts

KEYWORDS = ["trample", "deathtouch", "first strike", "double strike", "lifelink",
            "indestructible", "infect", "wither", "flying", "reach"]


@st.composite
def boards(draw: st.DrawFn) -> dict[str, Any]:
    creatures: list[dict[str, Any]] = []
    for i in range(draw(st.integers(1, 3))):
        creatures.append({
            "id": f"a{i}", "controller": "ap", "attacking": draw(st.sampled_from(["dp",
                                                                                  "pw"])),
            "power": draw(st.integers(0, 5)), "toughness": draw(st.integers(1, 4)),
            "value": draw(st.integers(-1, 4)),
            "keywords": draw(st.lists(st.sampled_from(KEYWORDS), max_size=2, unique=True))})
    for i in range(draw(st.integers(1, 3))):
        creatures.append({
            "id": f"b{i}", "controller": "dp", "power": draw(st.integers(0, 4)),
            "toughness": draw(st.integers(1, 4)), "damage": draw(st.integers(0, 1)),
            "value": draw(st.integers(-1, 4)),
            "keywords": draw(st.lists(st.sampled_from(KEYWORDS), max_size=2, unique=True))})
    return {"active_player": "ap",
            "players": [{"id": "ap"}, {"id": "dp", "life": draw(st.integers(1, 8)),
                                        "poison": draw(st.integers(0, 9))}],
            "planeswalkers": [{"id": "pw", "controller": "dp",
                               "loyalty": draw(st.integers(1, 4))}],
            "creatures": creatures}


@settings(max_examples=60, deadline=None, derandomize=True,
          suppress_health_check=list(HealthCheck))
@given(boards(), st.sampled_from([BLOCK_TERMS, ("trade", "losses", "life_loss"),
                                  ("survivals", "poison", "planeswalker_deaths")]))
def test_the_last_steps_program_finds_what_enumeration_finds(doc: dict[str, Any],
                                                              terms: tuple[str, ...]) -> None:
    board = Board.from_json(doc)
    fast = Evaluator(board, terms)
    plain = Evaluator(board, terms)
    plain._last_step = lambda *args: None  # type: ignore[method-assign]
    for blocks in program(block_rules(board)).walk():
        made = board.made(blocks)
        for members in parts(made):
            found, listed = fast.profile(made, members), plain.profile(made, members)
            assert (found is None) == (listed is None)
            if found is not None and listed is not None:
                assert sorted((o.players, o.terms) for o in found.outcomes) == \
                    sorted((o.players, o.terms) for o in listed.outcomes)
        assert fast.evaluate(made).value == plain.evaluate(made).value
