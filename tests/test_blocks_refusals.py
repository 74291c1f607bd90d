"""SPEC §11 refusals: a board that is not before blocks (or before attacks), banding, and
unknown or repeated ids in a request are input errors that name the field."""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import pytest

from trample.models.document.errors import InputError
from trample.solver.interface import api

BOARD: dict[str, Any] = {
    "active_player": "ap",
    "players": [{"id": "ap"}, {"id": "dp", "life": 3}],
    "creatures": [
        {"id": "a", "controller": "ap", "power": 3, "toughness": 3, "attacking": "dp"},
        {"id": "b", "controller": "dp", "power": 2, "toughness": 2},
        {"id": "c", "controller": "dp", "power": 1, "toughness": 1},
    ],
}


def board(**changes: Any) -> dict[str, Any]:
    """The board with ``changes`` to creature fields (``b={"tapped": True}``)."""
    doc = copy.deepcopy(BOARD)
    for c in doc["creatures"]:
        c.update(changes.get(c["id"], {}))
    return doc


def refused(call: Callable[[], object], path: str) -> InputError:
    with pytest.raises(InputError) as caught:
        call()
    assert caught.value.path == path
    assert str(caught.value).startswith(f"{path}: ")
    return caught.value


METHODS: list[Callable[[dict[str, Any]], object]] = [
    api.block_pairs, api.count_blocks, api.enumerate_blocks, api.best_block,
    lambda doc: api.check_blocks(doc, []),
    lambda doc: api.block_options(doc, {}),
    lambda doc: api.evaluate_blocks(doc, [[]]),
]


@pytest.mark.parametrize("method", METHODS)
def test_a_board_with_blocks_already_declared_is_refused(
        method: Callable[[dict[str, Any]], object]) -> None:
    refused(lambda: method(board(b={"blocking": ["a"]})), "creatures[1].blocking")
    refused(lambda: method(board(a={"blocked": True})), "creatures[0].blocked")


@pytest.mark.parametrize("keyword", ["banding", "Bands with other Dinosaurs"])
@pytest.mark.parametrize("method", METHODS)
def test_a_board_with_banding_is_refused(method: Callable[[dict[str, Any]], object],
                                         keyword: str) -> None:
    # CR 702.22c-h: bands change the declarations themselves.
    error = refused(lambda: method(board(c={"keywords": ["flying", keyword]})),
                    "creatures[2].keywords")
    assert "702.22" in error.reason


def test_best_attack_refuses_a_board_with_attackers_declared() -> None:
    refused(lambda: api.best_attack(BOARD), "creatures[0].attacking")


def test_unknown_ids_are_refused_with_their_path() -> None:
    refused(lambda: api.check_blocks(BOARD, [{"blocker": "ghost", "attacker": "a"}]),
            "blocks[0].blocker")
    refused(lambda: api.check_blocks(BOARD, [{"blocker": "b", "attacker": "a"},
                                             {"blocker": "c", "attacker": "ghost"}]),
            "blocks[1].attacker")
    # A player is not a creature of the board.
    refused(lambda: api.check_blocks(BOARD, [{"blocker": "b", "attacker": "dp"}]),
            "blocks[0].attacker")
    refused(lambda: api.evaluate_blocks(BOARD, [[], [{"blocker": "b", "attacker": "x"}]]),
            "declarations[1][0].attacker")
    refused(lambda: api.count_blocks(BOARD, {"ghost": []}), "fixed.ghost")
    refused(lambda: api.count_blocks(BOARD, {"b": ["ghost"]}), "fixed.b[0]")
    refused(lambda: api.block_options(BOARD, {"c": ["zz"]}), "fixed.c[0]")
    refused(lambda: api.block_options(BOARD, {}, "ghost"), "blocker")
    for k, entry in enumerate([{"blocker": "ghost", "attacker": "a"},
                               {"blocker": "*", "attacker": "ghost"}]):
        field = "blocker" if k == 0 else "attacker"
        doc = copy.deepcopy(BOARD)
        doc["cannot_block"] = [{"blocker": "b", "attacker": "a"}, entry]
        refused(lambda doc=doc: api.block_pairs(doc), f"cannot_block[1].{field}")


def test_a_pair_given_twice_is_refused() -> None:
    twice = [{"blocker": "b", "attacker": "a"}, {"blocker": "c", "attacker": "a"},
             {"blocker": "b", "attacker": "a"}]
    refused(lambda: api.check_blocks(BOARD, twice), "blocks[2]")
    refused(lambda: api.evaluate_blocks(BOARD, [[], twice]), "declarations[1][2]")
    refused(lambda: api.count_blocks(BOARD, {"b": ["a", "a"]}), "fixed.b[1]")


@pytest.mark.parametrize(("field", "bad"), [
    ("tapped", "yes"), ("blocks_max", 0), ("blocks_max", "all"), ("min_blockers", 0),
    ("max_blockers", 0), ("lure", 1), ("must_block", None), ("can_block", "no"),
])
def test_bad_board_fields_are_refused_with_their_path(field: str, bad: object) -> None:
    refused(lambda: api.count_blocks(board(b={field: bad})), f"creatures[1].{field}")
