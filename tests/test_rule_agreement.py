"""Every reader of the legal space agrees on the gate and the lethal threshold (702.19b-e,
510.1e, 702.2c): the validator, the NumPy mask, the counter and enumerator, and greedy's
output, each checked against the brute-force oracle on edge combats, row by row.

The mutation checks change one fact of the legal space (a threshold, the deathtouch
pairs) and show that every reader moves with it: they read it, none re-derives it."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from trample.models.document.combat import Combat
from trample.solver.count.census import Census
from trample.solver.optimize.greedy import greedy
from trample.solver.rules.legal_space import LegalSpace, legal_space
from trample.solver.rules.validate import violations
from trample.solver.rules.validate_many import legal_rows, pair_columns

import brute

AP, DP = {"id": "ap"}, {"id": "dp"}


def _c(cid: str, controller: str, power: int, toughness: int, **extra: Any) -> dict[str, Any]:
    return {"id": cid, "controller": controller, "power": power, "toughness": toughness,
            **extra}


EDGES: dict[str, dict[str, Any]] = {
    # CR 702.2c, 510.1e: a deathtouch trampler and a plain one share a blocker with
    # damage marked; the other blocker needs 1 from the deathtoucher, 2 from the other.
    "deathtouch_with_marked_damage": {
        "active_player": "ap", "players": [AP, DP], "step": "regular",
        "creatures": [_c("dt", "ap", 3, 3, keywords=["deathtouch", "trample"],
                         attacking="dp"),
                      _c("ox", "ap", 3, 3, keywords=["trample"], attacking="dp"),
                      _c("wall", "dp", 0, 3, damage=1, blocking=["dt", "ox"]),
                      _c("cub", "dp", 0, 2, blocking=["dt"])]},
    # CR 702.19e, 506.4c: trample over planeswalkers, the planeswalker out of combat, one
    # attacker blocked, one not; a plain trampler of the same planeswalker assigns only
    # to its blocker.
    "top_planeswalker_out_of_combat": {
        "active_player": "ap", "players": [AP, DP], "step": "regular",
        "planeswalkers": [{"id": "jace", "controller": "dp", "loyalty": 2,
                           "in_combat": False}],
        "creatures": [_c("top", "ap", 3, 3, keywords=["trample over planeswalkers"],
                         attacking="jace"),
                      _c("top2", "ap", 2, 2, keywords=["trample over planeswalkers"],
                         attacking="jace"),
                      _c("tr", "ap", 2, 2, keywords=["trample"], attacking="jace"),
                      _c("wall", "dp", 0, 2, blocking=["top", "tr"])]},
    # CR 702.19c: two trample-over-planeswalkers attackers share a blocker and the
    # planeswalker whose loyalty gates the player.
    "top_shared_loyalty": {
        "active_player": "ap", "players": [AP, DP], "step": "regular",
        "planeswalkers": [{"id": "jace", "controller": "dp", "loyalty": 2}],
        "creatures": [_c("top", "ap", 3, 3, keywords=["trample over planeswalkers"],
                         attacking="jace"),
                      _c("top2", "ap", 2, 2, keywords=["trample over planeswalkers",
                                                       "deathtouch"], attacking="jace"),
                      _c("wall", "dp", 0, 2, blocking=["top", "top2"])]},
    # CR 702.19d, 510.1c: blocked with no blockers left, with and without trample.
    "blocked_with_no_blockers": {
        "active_player": "ap", "players": [AP, DP], "step": "regular",
        "creatures": [_c("tr", "ap", 3, 3, keywords=["trample"], attacking="dp",
                         blocked=True),
                      _c("ox", "ap", 2, 2, attacking="dp", blocked=True),
                      _c("dt", "ap", 2, 2, keywords=["trample", "deathtouch"],
                         attacking="dp")]},
    # CR 510.1e: a blocker whose marked damage already reaches its toughness is lethally
    # assigned with nothing assigned.
    "blocker_already_lethal": {
        "active_player": "ap", "players": [AP, DP], "step": "regular",
        "creatures": [_c("tr", "ap", 3, 3, keywords=["trample"], attacking="dp"),
                      _c("tr2", "ap", 1, 1, keywords=["trample"], attacking="dp"),
                      _c("husk", "dp", 0, 2, damage=2, keywords=["indestructible"],
                         blocking=["tr", "tr2"]),
                      _c("cub", "dp", 0, 2, blocking=["tr"])]},
}


def _rows(space: LegalSpace) -> Iterator[list[int]]:
    """Every row whose sources each give their power, or one more (510.1a) to one source,
    over the columns of ``pair_order``."""
    spans = [(s, len(s.recipients)) for s in space.sources if s.assigns]
    for extra in range(-1, len(spans)):
        per_source = [brute.weak_compositions(s.power + (i == extra), n)
                      for i, (s, n) in enumerate(spans)]
        for choice in itertools.product(*per_source):
            yield [a for split in choice for a in split]


def _amounts(pairs: list[tuple[str, str]], row: list[int]) -> dict[tuple[str, str], int]:
    return {p: a for p, a in zip(pairs, row, strict=True) if a > 0}


def _verdicts(space: LegalSpace) -> tuple[list[list[int]], list[bool], list[bool]]:
    """The rows, the validator's verdict on each and the NumPy mask's."""
    pairs = pair_columns(space)
    rows = list(_rows(space))
    legal = [not violations(space, _amounts(pairs, row)) for row in rows]
    mask = legal_rows(space, np.asarray(rows, dtype=np.int64)).tolist()
    return rows, legal, mask


def _readers_agree(space: LegalSpace) -> list[bool]:
    """Check that validate, the mask, count, enumerate and greedy agree; the verdicts."""
    pairs = pair_columns(space)
    rows, legal, mask = _verdicts(space)
    assert mask == legal
    legal_set = {frozenset(_amounts(pairs, r).items())
                 for r, ok in zip(rows, legal, strict=True) if ok}
    census = Census(space)
    assert census.count() == len(legal_set)
    assert {frozenset(a.items()) for a in census.enumerate()} == legal_set
    assert frozenset(greedy(space).items()) in legal_set
    return legal


@pytest.mark.parametrize("name", sorted(EDGES))
def test_readers_agree_with_the_oracle(name: str) -> None:
    doc = EDGES[name]
    space = legal_space(Combat.from_json(doc), "attackers")
    legal = _readers_agree(space)
    pairs = pair_columns(space)
    rows = list(_rows(space))
    oracle = [brute.is_legal(doc, "attackers", _amounts(pairs, r)) for r in rows]
    assert legal == oracle
    assert any(oracle) and not all(oracle)


@pytest.mark.parametrize("name", sorted(EDGES))
def test_gate_open_is_the_gate(name: str) -> None:
    """A legal row has every positive gated pair open; opening a closed gate's pair is
    what the validator reports under the recipient's rule."""
    space = legal_space(Combat.from_json(EDGES[name]), "attackers")
    pairs = pair_columns(space)
    rows, legal, _ = _verdicts(space)
    for row, ok in zip(rows, legal, strict=True):
        amounts = _amounts(pairs, row)
        received, touched = space.received(amounts), space.deathtouched(amounts)
        closed = {(p, c.rule) for p in amounts if space.pairs[p].gated
                  for c in space.unmet(space.pairs[p], received, touched)}
        for p in amounts:
            r = space.pairs[p]
            assert space.gate_open(r, received, touched) == (not space.unmet(r, received,
                                                                             touched))
        if ok:
            assert not closed
        reported = {((v.source, v.target), v.rule) for v in violations(space, amounts)
                    if v.target is not None}
        assert closed <= reported


def _mutated(doc: dict[str, Any], **facts: Any) -> LegalSpace:
    """A legal space with some derived facts replaced before anything reads them."""
    space = legal_space(Combat.from_json(doc), "attackers")
    space.__dict__.update(facts)  # the cached properties' store
    return space


def _oracle(doc: dict[str, Any], space: LegalSpace) -> list[bool]:
    pairs = pair_columns(space)
    return [brute.is_legal(doc, "attackers", _amounts(pairs, r)) for r in _rows(space)]


def test_a_changed_threshold_moves_every_reader() -> None:
    doc = EDGES["deathtouch_with_marked_damage"]
    base = legal_space(Combat.from_json(doc), "attackers")
    thresholds = {**base.thresholds, "wall": base.thresholds["wall"] + 1}
    space = _mutated(doc, thresholds=thresholds)
    legal = _readers_agree(space)
    assert legal != _oracle(doc, space)


def test_dropping_deathtouch_moves_every_reader() -> None:
    doc = EDGES["deathtouch_with_marked_damage"]
    space = _mutated(doc, deathtouch_pairs=frozenset())
    legal = _readers_agree(space)
    assert legal != _oracle(doc, space)
