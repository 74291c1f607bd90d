"""The random boards of tests/strategies_blocks.py really contain what the §11 property
tests must cover: each way a pair is impossible, each restriction and requirement at
work in a legal declaration, both steps, and boards whose best block is not trivial.
If a change to the strategy made one unreachable, this fails."""

from __future__ import annotations

from collections.abc import Callable

import brute_blocks
from hypothesis import HealthCheck, given, settings
from strategies_blocks import boards, plan_cost

import brute

Doc = dict
SETTINGS = settings(max_examples=600, database=None, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


def keywords(c: dict) -> set[str]:
    return brute_blocks.keywords(c)


def attackers(doc: Doc) -> list[dict]:
    return [c for c in doc["creatures"] if c.get("attacking") is not None]


def candidates(doc: Doc) -> list[tuple[dict, dict]]:
    """(blocker, attacker) of every creature of a defending player and every attacker."""
    return [(b, a) for b in doc["creatures"] if b["controller"] != doc["active_player"]
            for a in attackers(doc)]


def refused_only_by(doc: Doc, field: Callable[[dict, dict], bool]) -> bool:
    """Some pair is impossible, and ``field`` holds of it."""
    return any(field(b, a) and not brute_blocks.is_possible(doc, b["id"], a["id"])
               for b, a in candidates(doc))


def in_legal(doc: Doc, holds: Callable[[frozenset[tuple[str, str]]], bool]) -> bool:
    return any(holds(d) for d in brute_blocks.legal_declarations(doc))


def gang(d: frozenset[tuple[str, str]]) -> bool:
    return any(sum(1 for _, x in d if x == a) >= 2 for _, a in d)


def double_duty(d: frozenset[tuple[str, str]]) -> bool:
    return any(sum(1 for x, _ in d if x == b) >= 2 for b, _ in d)


BLOCK_FEATURES: dict[str, Callable[[Doc], bool]] = {
    "flying refuses a pair": lambda doc: refused_only_by(
        doc, lambda b, a: "flying" in keywords(a)),
    "reach blocks a flyer": lambda doc: any(
        "flying" in keywords(a) and "reach" in keywords(b)
        and brute_blocks.is_possible(doc, b["id"], a["id"]) for b, a in candidates(doc)),
    "shadow refuses a pair": lambda doc: refused_only_by(
        doc, lambda b, a: "shadow" in keywords(a) or "shadow" in keywords(b)),
    "horsemanship refuses a pair": lambda doc: refused_only_by(
        doc, lambda b, a: "horsemanship" in keywords(a)),
    "a tapped creature": lambda doc: refused_only_by(doc, lambda b, a: b.get("tapped")),
    "can_block false": lambda doc: refused_only_by(
        doc, lambda b, a: b.get("can_block") is False),
    "can_be_blocked false": lambda doc: refused_only_by(
        doc, lambda b, a: a.get("can_be_blocked") is False),
    "cannot_block": lambda doc: any(
        brute_blocks._matches(e, b["id"], a["id"])
        for e in doc.get("cannot_block", []) for b, a in candidates(doc)),
    "another defending player": lambda doc: refused_only_by(
        doc, lambda b, a: b["controller"] != brute_blocks.defending_player(
            doc, a["attacking"])),
    "a gang block": lambda doc: in_legal(doc, gang),
    "a menace attacker blocked": lambda doc: in_legal(doc, lambda d: any(
        "menace" in keywords(brute_blocks.creature(doc, a)) for _, a in d)),
    "min_blockers 3 met": lambda doc: in_legal(doc, lambda d: any(
        brute_blocks.creature(doc, a).get("min_blockers") == 3 for _, a in d)),
    "max_blockers limits a gang": lambda doc: any(
        a.get("max_blockers") == 1 for a in attackers(doc)) and in_legal(doc, bool),
    "a blocker blocking two attackers": lambda doc: in_legal(doc, double_duty),
    "blocks_max any": lambda doc: any(c.get("blocks_max") == "any"
                                      for c in doc["creatures"]) and in_legal(doc, double_duty),
    "a lure obeyed": lambda doc: brute_blocks.requirement_max(doc) > 0 and any(
        a.get("lure") for a in attackers(doc)),
    "a requirement that can't all be obeyed": lambda doc: in_legal(
        doc, lambda d: True) and brute_blocks.requirement_max(doc) > 0 and any(
        brute_blocks.obeyed(doc, d) < brute_blocks.requirement_max(doc)
        for d in brute_blocks.declarations(doc)
        if brute_blocks.restrictions_hold(doc, d)),
    "must_block": lambda doc: any(c.get("must_block") for c in doc["creatures"])
    and brute_blocks.requirement_max(doc) > 0,
    "must_be_blocked": lambda doc: any(a.get("must_be_blocked") for a in attackers(doc))
    and brute_blocks.requirement_max(doc) > 0,
    "two defending players": lambda doc: len(doc["players"]) == 3,
    "two attackers on one planeswalker": lambda doc: sum(
        a["attacking"] == "pw" for a in attackers(doc)) >= 2,
    "a creature of the active player at home": lambda doc: any(
        c["controller"] == doc["active_player"] and c.get("attacking") is None
        for c in doc["creatures"]),
    "a first-strike step": lambda doc: in_legal(doc, lambda d: brute.effective_step(
        {**brute_blocks.made_combat(doc, d), "step": None}) == "first_strike"),
    "trample over a planeswalker": lambda doc: any(
        a["attacking"] == "pw" and "trample over planeswalkers" in keywords(a)
        for a in attackers(doc)),
    "an attacker's damage divided by the defending player": lambda doc: any(
        a.get("assigned_by") == "opponent" for a in attackers(doc)),
    "a blocker's damage divided by the active player": lambda doc: in_legal(
        doc, lambda d: any(brute_blocks.creature(doc, b).get("assigned_by") == "opponent"
                           for b, _ in d)),
    "marked damage": lambda doc: any(c.get("damage", 0) > 0 for c in doc["creatures"]),
    "several legal declarations": lambda doc: len(brute_blocks.legal_declarations(doc)) >= 8,
}

ATTACK_FEATURES: dict[str, Callable[[Doc], bool]] = {
    "summoning sick": lambda doc: any(c.get("summoning_sick") and "haste" not in keywords(c)
                                      for c in doc["creatures"]),
    "summoning sick with haste": lambda doc: any(
        c.get("summoning_sick") and "haste" in keywords(c) for c in doc["creatures"]),
    "defender": lambda doc: any("defender" in keywords(c) for c in doc["creatures"]),
    "tapped": lambda doc: any(c.get("tapped") and c["controller"] == "ap"
                              for c in doc["creatures"]),
    "can_attack false": lambda doc: any(c.get("can_attack") is False
                                        for c in doc["creatures"]),
    "must_attack obeyed": lambda doc: any(
        c.get("must_attack") and brute_blocks.may_attack(doc, c) for c in doc["creatures"]),
    "a planeswalker to attack": lambda doc: "pw" in brute_blocks.targets(doc),
}


def test_the_boards_before_blocks_cover_every_feature() -> None:
    seen: set[str] = set()

    @SETTINGS
    @given(boards())
    def collect(doc: Doc) -> None:
        if plan_cost(doc) <= 400:  # the boards the value tests keep
            seen.update(name for name, holds in BLOCK_FEATURES.items() if holds(doc))

    collect()
    assert sorted(set(BLOCK_FEATURES) - seen) == []


def test_the_boards_before_attacks_cover_every_feature() -> None:
    seen: set[str] = set()

    @SETTINGS
    @given(boards(attacking=False))
    def collect(doc: Doc) -> None:
        seen.update(name for name, holds in ATTACK_FEATURES.items() if holds(doc))

    collect()
    assert sorted(set(ATTACK_FEATURES) - seen) == []
