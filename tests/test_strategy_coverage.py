"""The random combats of the property tests really contain every feature they must cover.

Each feature is found by hypothesis in the strategy's space; if a change to
tests/strategies.py made one unreachable, this fails.
"""

from __future__ import annotations

from collections.abc import Callable

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import brute
from strategies import combats, token_swarms

Doc = dict

# The same examples every run (derandomize): the property tests draw at least as many.
SETTINGS = settings(max_examples=600, database=None, deadline=None, derandomize=True,
                    suppress_health_check=list(HealthCheck))


def creatures(doc: Doc) -> list[dict]:
    return list(doc["creatures"])


def keywords(c: dict) -> set[str]:
    return {brute.normalize_keyword(k) for k in c.get("keywords", [])}


def defenders(doc: Doc) -> list[str]:
    return [p["id"] for p in doc["players"] if p["id"] != doc["active_player"]]


def attacked(doc: Doc) -> set[str]:
    return {c["attacking"] for c in creatures(doc) if "attacking" in c}


FEATURES: dict[str, Callable[[Doc], bool]] = {
    **{f"keyword {k}": (lambda doc, k=k: any(k in keywords(c) and "attacking" in c
                                             for c in creatures(doc)))
       for k in ("trample", "trample over planeswalkers", "deathtouch", "first strike",
                 "double strike", "indestructible")},
    "an odd keyword spelling": lambda doc: any(
        k != brute.normalize_keyword(k) and brute.normalize_keyword(k) == "trample over "
        "planeswalkers" for c in creatures(doc) for k in c.get("keywords", [])),
    "an unknown keyword": lambda doc: any(
        brute.normalize_keyword(k) not in {"trample", "trample over planeswalkers",
                                           "deathtouch", "first strike", "double strike",
                                           "indestructible"}
        for c in creatures(doc) for k in c.get("keywords", [])),
    "marked damage on a blocker": lambda doc: any(c.get("damage", 0) > 0 and c.get("blocking")
                                                  for c in creatures(doc)),
    "zero power attacker": lambda doc: any(c["power"] == 0 and "attacking" in c
                                           for c in creatures(doc)),
    "negative power attacker": lambda doc: any(c["power"] < 0 and "attacking" in c
                                               for c in creatures(doc)),
    "negative value blocker": lambda doc: any(c.get("value", 1) < 0 and c.get("blocking")
                                              for c in creatures(doc)),
    "two defending players attacked": lambda doc: len(
        {d for d in defenders(doc) if d in attacked(doc)}) >= 2,
    "planeswalker attacked in combat": lambda doc: any(
        p["id"] in attacked(doc) and p.get("in_combat", True) for p in doc["planeswalkers"]),
    "planeswalker attacked out of combat": lambda doc: any(
        p["id"] in attacked(doc) and p.get("in_combat") is False for p in doc["planeswalkers"]),
    "battle attacked": lambda doc: any(b["id"] in attacked(doc) for b in doc["battles"]),
    "blocked with no blockers left": lambda doc: any(
        c.get("blocked") is True and not any(c["id"] in b.get("blocking", [])
                                             for b in creatures(doc))
        for c in creatures(doc)),
    "a creature blocking several attackers": lambda doc: any(
        len(c.get("blocking", [])) >= 2 for c in creatures(doc)),
    "an attacker blocked by several": lambda doc: any(
        sum(c["id"] in b.get("blocking", []) for b in creatures(doc)) >= 2
        for c in creatures(doc)),
    "first-strike step": lambda doc: brute.effective_step(doc) == "first_strike",
    "regular step": lambda doc: brute.effective_step(doc) == "regular",
    "shared planeswalker gating trample over planeswalkers": lambda doc: any(
        sum(c.get("attacking") == p["id"] for c in creatures(doc)) >= 2
        and any(c.get("attacking") == p["id"]
                and "trample over planeswalkers" in keywords(c) for c in creatures(doc))
        for p in doc["planeswalkers"]),
}


def test_every_feature_is_generated() -> None:
    seen: set[str] = set()

    @SETTINGS
    @given(st.one_of(combats(), combats(rich=True)))
    def collect(doc: Doc) -> None:
        seen.update(name for name, holds in FEATURES.items() if holds(doc))

    collect()
    assert sorted(set(FEATURES) - seen) == []


def test_token_swarms_hold_interchangeable_creatures_on_both_sides() -> None:
    """The symmetry-breaking property test sees classes of interchangeable creatures,
    among blockers (attackers' side) and among attackers (blockers' side)."""
    from trample.models.document.combat import Combat
    from trample.solver.optimize.cpsat import identical_creatures
    from trample.solver.rules.legal_space import legal_space

    seen = {"attackers": 0, "blockers": 0}

    @settings(max_examples=200, database=None, deadline=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(token_swarms())
    def collect(doc: Doc) -> None:
        for side in seen:
            space = legal_space(Combat.from_json(doc), side)  # type: ignore[arg-type]
            if identical_creatures(space, [s for s in space.sources if s.assigns]):
                seen[side] += 1

    collect()
    assert seen["attackers"] >= 100 and seen["blockers"] >= 30, seen
