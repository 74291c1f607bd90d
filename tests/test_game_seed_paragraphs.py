"""Every paragraph of both seed documents is covered by a test that cites it.

Paragraphs are the blank-line separated blocks of a seed file; ¶0 is its title line. The
table below is the index (seed, paragraph, first words, test file, test); this test checks
that the first words are those of the paragraph, that every paragraph is listed, and that
each listed test exists and cites ``seed NNN ¶N`` in its docstring or comments.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
SEEDS = TESTS / "data" / "seeds"
SEED_FILES = {"000": "000_518e87d81bc010ed.txt", "001": "001_31eccb835376f710.txt"}

_TRANSFORM = [
    (1, "To transform a permanent, turn it over", "test_game_transform.py",
     ["test_transform_turns_it_over_and_keeps_the_object",
      "test_a_transforming_token_transforms"]),
    (2, "Although transforming a permanent uses the same physical action",
     "test_game_transform.py",
     ["test_transforming_is_not_turning_face_up_or_down",
      "test_turning_face_down_and_up_never_triggers_transform_abilities"]),
    (3, "If a spell or ability instructs a player to transform a permanent that isn\u2019t",
     "test_game_transform.py",
     ["test_transforming_a_single_faced_or_meld_permanent_does_nothing",
      "test_transforming_a_single_faced_token_does_nothing"]),
    (4, "If a spell or ability instructs a player to transform a permanent, and the face",
     "test_game_transform.py",
     ["test_transforming_into_an_instant_face_does_nothing",
      "test_a_transforming_token_created_with_an_instant_face_does_not_transform"]),
    (5, "Some triggered abilities trigger when an object “transforms into”",
     "test_game_transform.py",
     ["test_transforms_into_holds_right_after_a_transform",
      "test_transforms_into_also_triggers_on_convert"]),
    (6, "If an activated or triggered ability of a permanent that isn\u2019t a delayed",
     "test_game_transform.py",
     ["test_an_ability_of_the_permanent_transforms_it_only_if_not_transformed_since",
      "test_transform_twice_in_response_through_the_stack",
      "test_a_delayed_trigger_counts_from_when_it_was_created"]),
    (7, "Some spells and abilities refer to a “transformed permanent.”",
     "test_game_transform.py",
     ["test_a_transformed_permanent_is_back_face_up",
      "test_transformed_permanent_tokens_and_modal_cards"]),
]

TABLE: list[tuple[str, int, str, str, list[str]]] = [
    ("000", 0, "Hidetsugu Consumes All // Vessel of the All-Consuming", "test_game_cards.py",
     ["test_seed_000_title_is_the_bundled_hidetsugu_card"]),
    *[("000", n, words, module, tests) for n, words, module, tests in _TRANSFORM],
    ("000", 8, "Trample is a static ability", "test_game_combat.py",
     ["test_trample_does_nothing_for_a_blocker_or_noncombat_damage"]),
    ("000", 9, "The controller of an attacking creature with trample first assigns",
     "test_game_combat.py",
     ["test_trample_assigns_lethal_counting_marked_damage_and_other_creatures"]),
    ("000", 10, "Trample over planeswalkers is a variant of trample", "test_game_combat.py",
     ["test_trample_over_planeswalkers_excess_goes_to_the_controller"]),
    ("000", 11, "If an attacking creature with trample or trample over planeswalkers is "
                "blocked", "test_game_combat.py",
     ["test_a_blocked_creature_whose_blockers_are_gone_stays_blocked"]),
    ("000", 12, "If a creature with trample over planeswalkers is attacking a planeswalker",
     "test_game_combat.py",
     ["test_a_planeswalker_removed_from_combat_stays_what_the_creature_attacks"]),
    ("000", 13, "If a creature without trample over planeswalkers is attacking",
     "test_game_combat.py",
     ["test_without_trample_over_planeswalkers_nothing_reaches_the_player"]),
    ("000", 14, "Multiple instances of trample on the same creature are redundant.",
     "test_game_combat.py", ["test_multiple_instances_of_trample_are_listed_once"]),
    ("001", 0, "Teachings of the Kirin // Kirin-Touched Orochi", "test_game_cards.py",
     ["test_seed_001_title_is_the_bundled_teachings_card"]),
    *[("001", n, words, module, tests) for n, words, module, tests in _TRANSFORM],
    ("001", 8, "For a player to mill a number of cards", "test_game_mill.py",
     ["test_mill_puts_the_top_cards_into_the_graveyard",
      "test_teachings_chapter_one_mills_three"]),
    ("001", 9, "A player can\u2019t mill a number of cards greater than", "test_game_mill.py",
     ["test_instructed_to_mill_more_than_the_library_mills_as_many_as_possible",
      "test_a_choice_to_mill_more_than_the_library_cannot_be_made",
      "test_a_cost_of_milling_more_than_the_library_cannot_be_paid",
      "test_milling_an_empty_library_does_nothing_and_does_not_lose"]),
    ("001", 10, "An effect that refers to a milled card can find that card",
     "test_game_mill.py",
     ["test_a_milled_card_is_found_in_the_public_zone_it_went_to",
      "test_a_milled_card_exiled_by_a_replacement_effect_is_found_in_exile",
      "test_a_milled_card_that_moved_on_is_found_no_more"]),
    ("001", 11, "If an ability checks information about a single milled card",
     "test_game_mill.py",
     ["test_questions_about_the_milled_card_get_an_answer_per_card_and_sum",
      "test_an_action_on_the_milled_card_is_done_to_each",
      "test_an_action_on_a_milled_card_is_the_controllers_choice"]),
]


def _paragraphs(seed: str) -> list[str]:
    text = (SEEDS / SEED_FILES[seed]).read_text(encoding="utf-8")
    return [" ".join(block.split()) for block in text.split("\n\n") if block.strip()]


def _function_source(module: str, name: str) -> str | None:
    source = (TESTS / module).read_text(encoding="utf-8")
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return ast.get_source_segment(source, node)
    return None


@pytest.mark.parametrize(("seed", "n", "words", "module", "tests"), TABLE,
                         ids=[f"seed{s}-p{n}" for s, n, *_ in TABLE])
def test_each_paragraph_is_cited_by_its_tests(seed: str, n: int, words: str, module: str,
                                              tests: list[str]) -> None:
    assert _paragraphs(seed)[n].startswith(words)
    for name in tests:
        source = _function_source(module, name)
        assert source is not None, f"{module}::{name} is missing"
        assert f"seed {seed} ¶{n}" in source, f"{module}::{name} does not cite seed {seed} ¶{n}"


@pytest.mark.parametrize("seed", sorted(SEED_FILES))
def test_every_paragraph_is_in_the_table(seed: str) -> None:
    paragraphs = _paragraphs(seed)
    listed = {n for s, n, *_ in TABLE if s == seed}
    assert listed == set(range(len(paragraphs)))
