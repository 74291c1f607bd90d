"""evaluate_blocks writes each declaration's line part by part (each part's splits
checked and written once a batch); the answer must be, entry for entry and in the same
order, the one written from the whole combat (blocks_api._answer) for every legal
declaration of random boards (tests/strategies_blocks.py)."""

from __future__ import annotations

import brute_blocks
from hypothesis import HealthCheck, assume, given, settings
from strategies_blocks import boards, plan_cost

from trample.models.game.declarations import block_rules
from trample.solver.blocks.space import program
from trample.solver.blocks.value import BLOCK_TERMS, Evaluator, non_attacking_value
from trample.solver.interface import api, blocks_api

BATCHES = settings(max_examples=100, derandomize=True, deadline=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                          HealthCheck.filter_too_much])


@BATCHES
@given(doc=boards(max_attackers=3, max_blockers=3))
def test_a_batch_answers_each_declaration_as_the_whole_combat_does(doc: dict) -> None:
    assume(plan_cost(doc) <= 400)
    board = blocks_api.read_board(doc)
    rules = block_rules(board)
    declared = list(program(rules).walk())[:60]
    listed = [[{"blocker": b, "attacker": a} for b, attackers in blocks.items()
               for a in attackers] for blocks in declared]
    got = api.evaluate_blocks(doc, listed)["results"]
    ev = Evaluator(board, BLOCK_TERMS, constant_survivals=non_attacking_value(board))
    for blocks, result in zip(declared, got, strict=True):
        whole = blocks_api._answer(ev.evaluate(ev.made(blocks)))
        assert result["legal"] is True
        assert result["first_strike"] == whole["first_strike"]
        assert result["line"] == whole["line"]
    assert len(got) == len(declared) == min(60, len(brute_blocks.legal_declarations(doc)))
