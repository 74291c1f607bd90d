"""best_block searches a board in one of two ways (solver/blocks/search.py): by giving each
attacker its gang (branch and bound) or, where requirements leave few legal declarations,
by valuing each one. Either way must give the brute force's answer (tests/brute_blocks.py)
on every board, whichever the board would pick: each test here forces one of the two."""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from unittest import mock

import brute_blocks
import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies_blocks import _body, boards, plan_cost

from trample.solver.blocks import search
from trample.solver.interface import api
from trample.solver.interface.blocks_api import read_board

SEARCHED = settings(max_examples=80, derandomize=True, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                           HealthCheck.filter_too_much])
PLAN_BUDGET = 400
DATA = Path(__file__).parent / "data"


@contextmanager
def forced(way: str) -> Iterator[None]:
    """Every board with requirements searched by valuing each declaration ("walk"), or
    every board searched over gangs ("gangs")."""
    if way == "walk":
        with mock.patch.object(search, "FEW_ALWAYS", 10**9):
            yield
    else:
        with mock.patch.object(search, "FEW_ALWAYS", 0), \
                mock.patch.object(search, "FEW", 0):
            yield


def pairs_of(entries: list[dict]) -> frozenset[tuple[str, str]]:
    return frozenset((e["blocker"], e["attacker"]) for e in entries)


@pytest.mark.parametrize("way", ["walk", "gangs"])
def test_each_way_of_searching_finds_the_brute_forces_best_block(way: str) -> None:
    @SEARCHED
    @given(doc=boards())
    def check(doc: dict) -> None:
        assume(plan_cost(doc) <= PLAN_BUDGET)
        value, first, ties = brute_blocks.best_block(doc, None)
        with forced(way):
            got = api.best_block(doc, ties=True)
        assert got["status"] == "optimal"
        assert pairs_of(got["blocks"]) == first
        assert got["ties"] == ties
        assert tuple(got["objective"].values()) == value

    check()


def lured(n: int, lures: int) -> dict:
    """n 2/2 attackers (the first ``lures`` with lure) against n 1/1 blockers."""
    return {"active_player": "ap",
            "players": [{"id": "ap"}, {"id": "dp", "life": 20}],
            "creatures": [
                *({"id": f"a{i}", "controller": "ap", "power": 2, "toughness": 2,
                   "attacking": "dp", **({"lure": True} if i < lures else {})}
                  for i in range(n)),
                *({"id": f"b{i}", "controller": "dp", "power": 1, "toughness": 1}
                  for i in range(n))]}


def test_requirements_that_leave_few_legal_declarations_value_each_one() -> None:
    # Lure on every attacker of 5 x 5: every blocker must block some attacker, 5**5 legal
    # of 6**5 restriction-legal. Lure on one: every blocker blocks it, 1 legal.
    many = read_board(lured(5, 5))
    assert api.count_blocks(lured(5, 5))["count"] == 5 ** 5
    assert search._few_declarations(search.block_rules(many)) is None
    one = read_board(lured(5, 1))
    assert api.count_blocks(lured(5, 1))["count"] == 1
    assert search._few_declarations(search.block_rules(one)) == 1
    answer = search.best_block(one, brute_blocks.DEFAULT_TERMS)
    assert answer.valued == 1
    assert answer.blocks == {f"b{i}": ("a0",) for i in range(5)}


@pytest.mark.parametrize(("gangs", "by_size"), [(0, 1), (0, 300), (1 << 2, 8)])
def test_the_bounds_that_share_the_free_blockers_keep_the_proof_exact(gangs: int,
                                                                      by_size: int) -> None:
    # With no per-blocker floors (or few), every open attacker counts at its fixed floor
    # and the free blockers are shared among them: those that cannot all be blocked add
    # their unblocked play, and each open attacker's floor by number of blockers (from
    # its gangs' quick plays up to ``by_size`` of them) is shared out by a count of the
    # free blockers. The proof must stay exact.
    @SEARCHED
    @given(doc=boards())
    def check(doc: dict) -> None:
        assume(plan_cost(doc) <= PLAN_BUDGET)
        assert_gang_search_exact(doc, gangs, by_size)

    check()


def assert_gang_search_exact(doc: dict, gangs: int, by_size: int) -> None:
    """best_block searched over gangs, with these floor limits, answers as the brute force
    does: the same value, first declaration and ties, proved."""
    value, first, ties = brute_blocks.best_block(doc, None)
    with forced("gangs"), mock.patch.object(search, "FLOOR_GANGS", gangs), \
            mock.patch.object(search, "SIZE_GANGS", by_size):
        got = api.best_block(doc, ties=True)
    assert got["status"] == "optimal"
    assert pairs_of(got["blocks"]) == first
    assert got["ties"] == ties
    assert tuple(got["objective"].values()) == value


@st.composite
def four_by_four(draw: st.DrawFn) -> dict:
    """Four attackers against four blockers of one player: more open attackers than the
    three-creature sides of :func:`boards`, so that sharing the blockers out matters."""
    creatures = [{**draw(_body(f"a{i}", "ap")), "attacking": "d0"} for i in range(4)]
    creatures += [draw(_body(f"b{j}", "d0")) for j in range(4)]
    return {"active_player": "ap",
            "players": [{"id": "ap", "life": 20}, {"id": "d0", "life": draw(st.integers(1, 20))}],
            "creatures": creatures}


@pytest.mark.parametrize(("gangs", "by_size"), [(0, 1), (0, 5), (0, 300)])
def test_sharing_the_blockers_among_four_attackers_keeps_the_proof_exact(
        gangs: int, by_size: int) -> None:
    @settings(max_examples=25, derandomize=True, deadline=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                     HealthCheck.filter_too_much])
    @given(doc=four_by_four())
    def check(doc: dict) -> None:
        assert_gang_search_exact(doc, gangs, by_size)

    check()


def test_a_search_stopped_before_any_declaration_answers_the_empty_one_at_once() -> None:
    """Stopped before it values a declaration, best_block answers the first legal one:
    with no requirement, the empty declaration, taken without building the program of
    the legal declarations (on a board of 30 attackers and 40 blockers with menace
    that took 11 s past a time limit of 0.5 s)."""
    from trample.solver.optimize.cancel import Cancel

    doc = json.loads((DATA / "blocks_board.json").read_text("utf-8"))
    cancel = Cancel()
    cancel.set()
    with mock.patch.object(search, "program", side_effect=AssertionError("program built")):
        got = api.best_block(doc, cancel=cancel)
    assert got["status"] == "feasible"
    assert got["blocks"] == []
    assert brute_blocks.check(doc, frozenset())["legal"]
    assert tuple(got["objective"].values()) == brute_blocks.value(doc, frozenset())
