"""Banding and the effects that change who assigns combat damage, and how much (702.22j-k,
510.1a, as though it weren't blocked): the legal space and the validator."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_brute_banding import _small, banded_combats

from trample.models.document.combat import Combat
from trample.models.document.errors import InputError
from trample.solver.interface import api
from trample.solver.rules.choosers import Side
from trample.solver.rules.legal_space import legal_space, mode_space, modes_of

import brute
import strategies

Doc = dict[str, Any]


def doc(*creatures: Doc, **extra: Any) -> Doc:
    d: Doc = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp"}],
              "creatures": list(creatures)}
    d.update(extra)
    return d


def c(cid: str, who: str, power: int, toughness: int, **extra: Any) -> Doc:
    return {"id": cid, "controller": who, "power": power, "toughness": toughness, **extra}


TRAMPLER_ON_BAND = doc(c("t", "ap", 5, 5, keywords=["Trample"], attacking="dp"),
                       c("h", "dp", 1, 1, keywords=["Banding"], blocking=["t"]))
BAND_BLOCKED = doc(c("a1", "ap", 1, 1, keywords=["Banding"], attacking="dp"),
                   c("a2", "ap", 3, 3, attacking="dp"),
                   c("w", "dp", 4, 4, blocking=["a1", "a2"]))


def sources(d: Doc, side: str) -> set[str]:
    return {s.id for s in legal_space(Combat.from_json(d), side).sources}  # type: ignore[arg-type]


def test_a_blocker_with_banding_gives_the_attackers_split_to_the_defender() -> None:
    """702.22j: the trampler's damage is divided by the defending player."""
    assert sources(TRAMPLER_ON_BAND, "attackers") == set()
    assert sources(TRAMPLER_ON_BAND, "blockers") == {"t", "h"}
    found = api.validate(TRAMPLER_ON_BAND, [{"source": "t", "target": "h", "amount": 5}])
    assert [v["rule"] for v in found["violations"]] == ["702.22j"]


def test_a_band_gives_its_blockers_split_to_the_attacker() -> None:
    """702.22k: the attacking player divides the blocker's damage among the band."""
    assert sources(BAND_BLOCKED, "attackers") == {"a1", "a2", "w"}
    assert sources(BAND_BLOCKED, "blockers") == set()
    entries = [{"source": "a1", "target": "w", "amount": 1},
               {"source": "a2", "target": "w", "amount": 3},
               {"source": "w", "target": "a1", "amount": 4}]
    assert api.validate(BAND_BLOCKED, entries)["legal"]
    refused = api.validate(BAND_BLOCKED, entries, side="blockers")
    assert {v["rule"] for v in refused["violations"]} == {"510.1", "702.22k"}


@pytest.mark.parametrize(("others", "moved"), [
    (["wolves of the hunt"], True),   # two Q creatures, one with bands with other Q
    (["dinosaurs"], False),          # the other blocker is not a Q creature
])
def test_bands_with_other_needs_two_q_creatures(others: list[str], moved: bool) -> None:
    d = doc(c("t", "ap", 4, 4, attacking="dp"),
            c("w1", "dp", 1, 1, keywords=["Bands with other Wolves of the Hunt"],
              qualities=["Wolves of the Hunt"], blocking=["t"]),
            c("w2", "dp", 1, 1, qualities=others, blocking=["t"]))
    assert ("t" in sources(d, "blockers")) is moved
    assert ("t" in sources(d, "attackers")) is not moved


def test_bands_with_other_alone_moves_nothing() -> None:
    d = doc(c("t", "ap", 4, 4, attacking="dp"),
            c("w1", "dp", 1, 1, keywords=["bands with other legendary"],
              qualities=["Legendary"], blocking=["t"]))
    assert sources(d, "attackers") == {"t"}


@pytest.mark.parametrize(("assigns", "amount"), [("toughness", 5), ("none", 0), ("power", 0)])
def test_how_much_a_creature_assigns(assigns: str, amount: int) -> None:
    d = doc(c("doran", "ap", 0, 5, assigns=assigns, attacking="dp"))
    space = legal_space(Combat.from_json(d), "attackers")
    assert [s.power for s in space.sources] == ([amount] if amount else [])
    if amount:
        assert api.validate(d, [{"source": "doran", "target": "dp", "amount": 5}])["legal"]
    else:
        assert space.idle["doran"][0] == "510.1a"


def test_assigned_by_opponent_moves_either_side() -> None:
    d = doc(c("a", "ap", 3, 3, attacking="dp", assigned_by="opponent"),
            c("b", "dp", 2, 2, blocking=["a"], assigned_by="opponent"))
    assert sources(d, "attackers") == {"b"}
    assert sources(d, "blockers") == {"a"}


THORN = doc(c("thorn", "ap", 7, 7, as_though_unblocked=True, attacking="dp"),
            c("b1", "dp", 2, 2, blocking=["thorn"]),
            c("b2", "dp", 2, 2, blocking=["thorn"]))


@pytest.mark.parametrize(("entries", "legal"), [
    ([("dp", 7)], True),                            # as though unblocked
    ([("b1", 3), ("b2", 4)], True),                 # as blocked
    ([("b1", 7)], True),
    ([("b1", 1), ("dp", 6)], False),                # the two kinds do not mix
    ([("dp", 6)], False),                           # all of it (510.1a)
])
def test_as_though_unblocked_is_either_kind_of_split(entries: list[tuple[str, int]],
                                                     legal: bool) -> None:
    given = [{"source": "thorn", "target": t, "amount": n} for t, n in entries]
    assert api.validate(THORN, given)["legal"] is legal


def test_modes_of_takes_the_set_the_split_belongs_to() -> None:
    space = legal_space(Combat.from_json(THORN), "attackers")
    assert space.alternatives == ("thorn",)
    assert modes_of(space, {("thorn", "dp"): 7}) == {"thorn": "unblocked"}
    assert modes_of(space, {("thorn", "b1"): 7}) == {"thorn": "blocked"}
    unblocked = mode_space(space, {"thorn": "unblocked"})
    assert [r.id for r in unblocked.by_id["thorn"].recipients] == ["dp"]
    assert mode_space(space, {"thorn": "unblocked"}) is unblocked  # built once


@pytest.mark.parametrize("side", ["attackers", "blockers"])
def test_as_though_unblocked_with_its_split_moved_is_refused(side: Side) -> None:
    d = doc(c("thorn", "ap", 7, 7, as_though_unblocked=True, attacking="dp"),
            c("h", "dp", 1, 1, keywords=["banding"], blocking=["thorn"]))
    combat = Combat.from_json(d)  # the document reads: the rules refuse it
    with pytest.raises(InputError) as info:
        legal_space(combat, side)
    assert info.value.path == "creatures[0].as_though_unblocked"
    assert "702.22j" in info.value.reason
    with pytest.raises(InputError, match="two choices"):
        api.solve(d, side=side)


@pytest.mark.parametrize(("field", "value", "reason"), [
    ("assigns", "half", "must be 'power', 'toughness' or 'none', not 'half'"),
    ("assigned_by", "owner", "must be 'controller' or 'opponent', not 'owner'"),
    ("qualities", [""], "must not be empty"),
])
def test_bad_fields_are_named(field: str, value: Any, reason: str) -> None:
    d = doc(c("a", "ap", 3, 3, attacking="dp", **{field: value}))
    with pytest.raises(InputError) as info:
        Combat.from_json(d)
    assert info.value.reason == reason
    assert info.value.path.startswith(f"creatures[0].{field}")


def test_the_fields_survive_a_round_trip() -> None:
    combat = Combat.from_json(doc(
        c("a", "ap", 3, 3, attacking="dp", as_though_unblocked=True, assigns="toughness",
          qualities=["Legendary"]),
        c("b", "dp", 2, 2, blocking=["a"], assigned_by="opponent")))
    assert Combat.from_json(combat.to_json()) == combat


# -- against the independent brute force ------------------------------------------------



@settings(max_examples=60, deadline=None, suppress_health_check=list(HealthCheck))
@given(banded_combats(), st.sampled_from(["attackers", "blockers"]), st.data())
def test_validate_agrees_with_the_brute_force(doc: Doc, side: str, data: st.DataObject) -> None:
    """Who chooses, how much, and the union of an attacker's two kinds of split: the
    validator's verdict is the brute force's, on legal splits and on near misses."""
    if not _small(doc, side):
        return
    combat = Combat.from_json(doc)
    space = legal_space(combat, side)  # type: ignore[arg-type]
    # A source left with nothing to assign to assigns nothing; the brute force leaves it out.
    assigning = {s.id for s in space.sources if s.recipients or s.id in space.alternatives}
    assert assigning == {s for s, _ in brute.assigning_sources(doc, side)}
    for _ in range(3):
        proposal = data.draw(strategies.proposals(doc, side))
        entries = [{"source": s, "target": t, "amount": n} for (s, t), n in proposal.items()]
        verdict = api.validate(doc, entries, side=side)  # type: ignore[arg-type]
        assert verdict["legal"] is brute.is_legal(doc, side, proposal), (proposal, verdict)
