"""``api.solve_many``, the API's call for many combats at once: each answer is the one
``api.solve`` gives the same document with the same options, legal and optimal by the
brute-force oracle (tests/brute.py); a bad document or option is refused naming the
document's position and the field, and nothing is answered."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.generators import small_combat, tiny
from trample.models.document.errors import InputError
from trample.solver.interface import api
from trample.solver.optimize.objectives import parse_objective
from trample.solver.optimize.solve_numbers import solve_numbers

import brute
from strategies import combats

SMALL = [small_combat(i) for i in range(40)] + [tiny(1 + i % 3, i) for i in range(20)]


def _amounts(entries: list[dict[str, Any]]) -> dict[tuple[str, str], int]:
    return {(e["source"], e["target"]): e["amount"] for e in entries}


def _assert_optimal(doc: dict[str, Any], side: str, answer: dict[str, Any],
                    raw: object) -> None:
    terms = parse_objective(raw if raw is not None else doc.get("objective"),
                            side)  # type: ignore[arg-type]
    amounts = _amounts(answer["assignment"])
    assert answer["status"] == "optimal" and answer["side"] == side
    assert brute.is_legal(doc, side, amounts)
    assert tuple(answer["objective"].values()) == brute.objective(doc, side, amounts, terms)
    assert tuple(answer["objective"].values()) == brute.optimum(doc, side, terms)


@pytest.mark.parametrize("side", [None, "attackers", "blockers"])
@pytest.mark.parametrize("objective", [None, ["kills", "deaths"], "survivals,life_gain"])
def test_each_answer_is_solves_and_optimal(side: str | None, objective: Any) -> None:
    api.forget_spaces()
    many = api.solve_many(SMALL, side=side, objective=objective)
    api.forget_spaces()
    assert many == [api.solve(doc, side=side, objective=objective) for doc in SMALL]
    for doc, answer in zip(SMALL[:12], many[:12], strict=True):
        _assert_optimal(doc, side or "attackers", dict(answer), objective)


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(docs=st.lists(combats(), min_size=1, max_size=4),
       side=st.sampled_from([None, "attackers", "blockers"]))
def test_random_combats_answer_as_solve_and_brute_force(docs: list[dict[str, Any]],
                                                        side: str | None) -> None:
    many = api.solve_many(docs, side=side)
    assert many == [api.solve(doc, side=side) for doc in docs]
    for doc, answer in zip(docs, many, strict=True):
        _assert_optimal(doc, side or "attackers", dict(answer), None)


def test_a_documents_own_request_fields_apply_as_in_solve() -> None:
    """Where an option is not given, each document's own ``side``, ``objective`` and
    ``time_limit`` apply, as they do in ``solve``; an option given overrides them all."""
    docs = []
    for i, doc in enumerate(SMALL[:9]):
        doc = copy.deepcopy(doc)
        doc["side"] = ("attackers", "blockers", "attackers")[i % 3]
        if i % 2:
            doc["objective"] = ["kills", "survivals"] if doc["side"] == "blockers" \
                else ["lethal", "kills"]
        doc["time_limit"] = 30
        docs.append(doc)
    many = api.solve_many(docs)
    assert [a["side"] for a in many] == [d["side"] for d in docs]
    assert many == [api.solve(doc) for doc in docs]
    for doc, answer in zip(docs, many, strict=True):
        _assert_optimal(doc, doc["side"], dict(answer), None)
    forced = api.solve_many(docs, side="attackers", objective="kills")
    assert forced == [api.solve(doc, side="attackers", objective="kills") for doc in docs]


def test_the_same_combat_twice_and_an_empty_batch() -> None:
    doc = SMALL[3]
    first, again = api.solve_many([doc, copy.deepcopy(doc)])
    assert first == again == api.solve(doc)
    first["assignment"].clear()  # the caller's own answer: not one kept for the next
    assert api.solve_many([doc]) == [again]
    assert api.solve_many([]) == []
    assert api.solve_many(iter([doc])) == [again]  # any iterable


def test_a_bad_document_is_refused_with_its_position_and_nothing_is_answered() -> None:
    bad = copy.deepcopy(SMALL[1])
    bad["creatures"][0]["power"] = "three"
    with pytest.raises(InputError) as refused:
        api.solve_many([SMALL[0], bad, SMALL[2]])
    assert refused.value.path == "[1].creatures[0].power"
    with pytest.raises(InputError) as refused:
        api.solve_many([SMALL[0], "not a document"])
    assert refused.value.path.startswith("[1]")
    late = copy.deepcopy(SMALL[0])
    late["time_limit"] = -1
    with pytest.raises(InputError) as refused:
        api.solve_many([SMALL[0], SMALL[1], late])
    assert refused.value.path == "[2].time_limit"


def test_a_bad_option_is_refused_before_any_document_is_read() -> None:
    for options, path in (({"side": "both"}, "side"), ({"time_limit": 0}, "time_limit"),
                          ({"objective": ["no such term"]}, "objective[0]"),
                          ({"objective": ["player_damage"], "side": "blockers"}, "objective[0]")):
        with pytest.raises(InputError) as refused:
            api.solve_many(["not a document"], **options)
        assert refused.value.path == path
    # A term only the attackers may ask, given for documents of both sides: refused at
    # the first document of the blockers' side, with its position.
    docs = [copy.deepcopy(SMALL[0]), copy.deepcopy(SMALL[1])]
    docs[1]["side"] = "blockers"
    with pytest.raises(InputError) as refused:
        api.solve_many(docs, objective=["player_damage"])
    assert refused.value.path == "[1].objective[0]"


def test_combats_the_integers_decline_anywhere_in_a_batch() -> None:
    """The combats answered on integers and those that go the general way, mixed in any
    order (first, last, in runs) and given by a generator: each answer is ``solve``'s, in
    order, and a bad document after a run of either is refused with its position."""
    plain = [small_combat(i) for i in range(12)]
    # Declined: parts that together could reach the player's life (two of them), the
    # first-strike step, lifelink, a request field in the document.
    odd = [small_combat(98), small_combat(278), copy.deepcopy(plain[0]),
           copy.deepcopy(plain[1]), {**plain[2], "objective": ["kills"]}]
    odd[2]["step"] = "first_strike"
    odd[3]["creatures"][0]["keywords"] = ["Lifelink"]
    assert [solve_numbers(doc, None, None) for doc in odd] == [None] * len(odd)
    assert None not in [solve_numbers(doc, None, None) for doc in plain]
    docs = [odd[0], *plain[:5], odd[1], odd[2], *plain[5:9], odd[3], *plain[9:], odd[4]]
    many = api.solve_many(doc for doc in docs)
    assert many == [api.solve(doc) for doc in docs]
    assert [dict(a) for a in api.solve_many(docs, objective=["kills", "player_damage"])] \
        == [dict(api.solve(doc, objective=["kills", "player_damage"])) for doc in docs]
    for at in (0, 3, 6, 9, len(docs)):
        bad = copy.deepcopy(plain[1])
        bad["creatures"][0]["toughness"] = None
        with pytest.raises(InputError) as refused:
            api.solve_many(iter([*docs[:at], bad, *docs[at:]]))
        assert refused.value.path == f"[{at}].creatures[0].toughness"
