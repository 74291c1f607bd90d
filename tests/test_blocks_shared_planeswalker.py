"""SPEC §11's search on boards where two creatures attack one planeswalker and another
creature attacks elsewhere: best_block and best_attack must agree with the brute force
(tests/brute_blocks.py) and with evaluate_blocks over every legal declaration."""

from __future__ import annotations

from typing import Any

import brute_blocks
from documents import creature

from trample.solver.interface import api


def shared(loyalty: int, attacker_power: int, blocker: tuple[int, int]) -> dict[str, Any]:
    """a0 attacks dp, a1 and a2 attack dp's planeswalker pw; dp has one blocker b0."""
    return {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp"}],
            "planeswalkers": [{"id": "pw", "controller": "dp", "loyalty": loyalty}],
            "creatures": [
                creature("a0", "ap", attacker_power, 1, attacking="dp"),
                creature("a1", "ap", attacker_power, 1, attacking="pw"),
                creature("a2", "ap", attacker_power, 1, attacking="pw"),
                creature("b0", "dp", *blocker)]}


def pairs_of(entries: list[dict]) -> set[tuple[str, str]]:
    return {(e["blocker"], e["attacker"]) for e in entries}


def evaluated(doc: dict, terms: list[str] | None = None) -> list[tuple[tuple[int, ...], list]]:
    """(value, declaration) of every legal declaration, as trample's own
    evaluate_blocks values them, in enumerate_blocks' order."""
    declarations = api.enumerate_blocks(doc)["declarations"]
    results = api.evaluate_blocks(doc, declarations, objective=terms)["results"]
    return [(tuple(r["objective"].values()), d)
            for r, d in zip(results, declarations, strict=True)]


def test_best_block_saves_the_planeswalker_by_blocking_one_of_its_attackers() -> None:
    # Three 1/1s: a0 at the player, a1 and a2 at a planeswalker with loyalty 2 (CR 120.3c,
    # 704.5i). One 1/1 blocker: blocking a1 or a2 leaves the planeswalker 1 loyalty and
    # costs 1 life; blocking a0 lets it die. planeswalker_deaths comes before life_loss.
    doc = shared(loyalty=2, attacker_power=1, blocker=(1, 1))
    expected = (0, 0, 0, 0, 0, 1, 1, 0, 0)
    assert brute_blocks.best_block(doc) == (expected, frozenset({("b0", "a2")}), 2)
    own = evaluated(doc)
    assert min(v for v, _ in own) == expected
    got = api.best_block(doc, ties=True)
    assert tuple(got["objective"].values()) == expected
    assert pairs_of(got["blocks"]) == {("b0", "a2")}
    assert got["ties"] == 2


def test_best_block_counts_the_ties_of_a_shared_planeswalker() -> None:
    # Nobody deals damage: the four legal declarations (no block, b0 on each attacker)
    # all have the value 0.
    doc = shared(loyalty=5, attacker_power=0, blocker=(0, 1))
    assert len(brute_blocks.legal_declarations(doc)) == 4
    assert brute_blocks.best_block(doc)[2] == 4
    assert len(evaluated(doc)) == 4
    assert api.best_block(doc, ties=True)["ties"] == 4


def test_best_attack_answers_the_block_that_really_answers_it() -> None:
    # The same three 1/1s before attacks: every attack that sends all three at the
    # planeswalker kills it whatever the one blocker does; sending one at the player
    # lets the blocker save it (CR 509.1a).
    doc = shared(loyalty=2, attacker_power=1, blocker=(1, 1))
    for c in doc["creatures"]:
        c.pop("attacking", None)
    best, first, ties, block = brute_blocks.best_attack(doc)
    assert first == (("a0", "pw"), ("a1", "pw"), ("a2", "pw"))
    assert (best, ties, block) == ((0, 0, 1, 0, 0, 0, 2, 0, 0), 1, frozenset({("b0", "a2")}))
    got = api.best_attack(doc, ties=True)
    attacks = [(a["attacker"], a["target"]) for a in got["attacks"]]
    # Against the attack trample answers, evaluate_blocks finds a block worth less than
    # the value best_attack claims for it.
    board = brute_blocks.attack_board(doc, tuple(attacks))
    assert min(v for v, _ in evaluated(board)) == tuple(got["objective"].values())
    assert tuple(attacks) == first
    assert got["ties"] == ties


def test_best_attack_counts_the_ties_of_a_shared_planeswalker() -> None:
    # Three creatures without power; the 0/2 has a lure, so a blocker (1/1) that could
    # kill a 0/1 must block it when it attacks (CR 509.1c). survivals is 3 exactly when
    # no 0/1 attacks or the lure attacks: 1 + 2 * 9 = 19 attack declarations.
    doc = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "d0"}],
           "planeswalkers": [{"id": "pw", "controller": "d0", "loyalty": 1}],
           "creatures": [creature("a0", "ap", 0, 1), creature("a1", "ap", 0, 2, lure=True),
                         creature("a2", "ap", 0, 1), creature("b0", "d0", 1, 1)]}
    assert brute_blocks.best_attack(doc, ["survivals"])[:3] == ((3,), (), 19)
    got = api.best_attack(doc, objective=["survivals"], ties=True)
    assert got["attacks"] == []
    assert got["ties"] == 19
