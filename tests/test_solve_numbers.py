"""``solve`` on integers for tiny combats (``solver/optimize/solve_numbers.py``).

Every answer the path gives is the general path's (``api.prepare(doc).solve()``: the
legal space, the single source's path or the parts' pieces; same assignment in the same
order, same objective in the same order, same status) and optimal and legal by the
brute force (tests/brute.py), on random tiny combats with every keyword it accepts; a
document it declines is answered by the general path, and a document of the wrong shape
gets the general reader's refusal, word for word."""

from __future__ import annotations

import copy
from collections import OrderedDict
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.generators import small_combat
from trample.models.document.errors import InputError
from trample.solver.interface import api
from trample.solver.optimize import solve_numbers as numbers
from trample.solver.optimize.objectives import DEFAULTS, parse_objective
from trample.solver.optimize.solve_numbers import solve_numbers

import brute

SOME = settings(max_examples=300, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
TERMS = sorted(numbers._TERMS)


@st.composite
def tiny_combats(draw: Any) -> dict[str, Any]:
    """One to three attackers on the defending player, each blocked by zero to four
    creatures of its own: trample and deathtouch (either spelling), indestructible,
    marked damage, negative and zero values, little life, creatures in any order."""
    creatures: list[dict[str, Any]] = []
    spellings = ["Trample", "trample", "Deathtouch", "deathtouch", "Indestructible",
                 "indestructible"]
    for i in range(draw(st.integers(1, 3))):
        attacker: dict[str, Any] = {
            "id": f"a{i}", "controller": "ap", "power": draw(st.integers(1, 8)),
            "toughness": draw(st.integers(1, 4)), "attacking": "dp"}
        if draw(st.booleans()):
            attacker["value"] = draw(st.integers(-2, 5))
        words = draw(st.lists(st.sampled_from(spellings), max_size=3))
        if words or draw(st.booleans()):
            attacker["keywords"] = words
        creatures.append(attacker)
        for j in range(draw(st.integers(0, 4))):
            toughness = draw(st.integers(1, 5))
            blocker: dict[str, Any] = {
                "id": f"b{i}{j}", "controller": "dp", "power": draw(st.integers(0, 3)),
                "toughness": toughness, "value": draw(st.integers(-3, 6)),
                "blocking": [f"a{i}"]}
            if draw(st.booleans()):
                blocker["damage"] = draw(st.integers(0, toughness - 1))
            if draw(st.integers(0, 3)) == 0:
                blocker["keywords"] = [draw(st.sampled_from(spellings))]
            creatures.append(blocker)
    order = draw(st.permutations(range(len(creatures))))
    doc: dict[str, Any] = {"active_player": "ap",
                           "players": [{"id": "ap"}, {"id": "dp",
                                                      "life": draw(st.integers(1, 14))}],
                           "creatures": [creatures[k] for k in order]}
    if draw(st.booleans()):
        doc["format"] = "combat/1"
    if draw(st.booleans()):
        doc["step"] = "regular"
    return doc


def general(doc: Any, **options: Any) -> dict[str, Any]:
    """The general path's answer (the legal space's)."""
    return dict(api.prepare(doc).solve(**options))


def assert_as_general_and_brute(doc: dict[str, Any], objective: Any) -> bool:
    """Whether the path answered; when it did, its answer is the general path's (keys,
    terms and entries in the same order) and optimal and legal by brute force."""
    found = solve_numbers(doc, None, objective)
    expected = general(doc, objective=objective)
    assert dict(api.solve(doc, objective=objective)) == expected
    if found is None:
        return False
    assert found == expected
    assert list(found) == list(expected)
    assert list(found["objective"].items()) == list(expected["objective"].items())
    assert found["assignment"] == expected["assignment"]
    terms = parse_objective(objective, "attackers")
    amounts = {(e["source"], e["target"]): e["amount"] for e in found["assignment"]}
    assert brute.is_legal(doc, "attackers", amounts)
    values = tuple(found["objective"].values())
    assert values == brute.objective(doc, "attackers", amounts, terms)
    assert values == brute.optimum(doc, "attackers", terms)
    return True


@SOME
@given(doc=tiny_combats(), objective=st.one_of(
    st.none(), st.lists(st.sampled_from(TERMS), min_size=1, max_size=5, unique=True)))
def test_the_numbers_answer_as_the_general_path_and_the_brute_force(
        doc: dict[str, Any], objective: list[str] | None) -> None:
    assert_as_general_and_brute(doc, objective)


def test_the_search_loops_combats_are_answered_on_numbers() -> None:
    """The benchmark's combats: nearly all answered by the path (it declines only the
    combats whose parts together could reach the player's life but do not alone, which
    the general path solves again as a group), each as the general path and the brute
    force answer."""
    answered = 0
    for seed in range(300):
        doc = small_combat(seed)
        for objective in (None, ["kills", "player_damage"], ["lethal", "kills"]):
            answered += assert_as_general_and_brute(doc, objective)
    assert answered >= 0.95 * 900


def test_what_it_declines_goes_the_general_way() -> None:
    doc = small_combat(11)
    lifelink = copy.deepcopy(doc)
    lifelink["creatures"][0]["keywords"] = ["Lifelink"]
    first_strike = {**copy.deepcopy(doc), "step": "first_strike"}
    flying = copy.deepcopy(doc)
    flying["creatures"][0]["keywords"] = ["Flying"]
    shared = copy.deepcopy(doc)
    shared["creatures"][-1]["blocking"] = ["a0", "a0"]
    for odd in (lifelink, first_strike, flying):
        assert solve_numbers(odd, None, None) is None
        assert dict(api.solve(odd)) == general(odd)
    assert solve_numbers(doc, "blockers", None) is None
    assert solve_numbers(doc, None, ["life_kept"]) is None
    assert solve_numbers(shared, None, None) is None


def _variants(doc: dict[str, Any]) -> list[Any]:
    """The document with one field of a wrong type or value, or of a type JSON does not
    have (the general reader takes some: a tuple for a list, a Mapping for an object, a
    NumPy integer)."""
    numpy = pytest.importorskip("numpy")
    out: list[Any] = []

    def changed(path: tuple[Any, ...], value: Any) -> None:
        new = copy.deepcopy(doc)
        where = new
        for key in path[:-1]:
            where = where[key]
        if value is KeyError:
            del where[path[-1]]
        else:
            where[path[-1]] = value
        out.append(new)

    strange: list[Any] = [True, 3.0, "3", None, [], {}, -1, 2**41, numpy.int64(3), "",
                          "x" * 201, "\u00e9\"\\\n", ("a0",), KeyError]
    for path in (("format",), ("step",), ("active_player",), ("players",),
                 ("players", 1), ("players", 1, "id"), ("players", 1, "life"),
                 ("creatures",), ("creatures", 0), ("creatures", 0, "id"),
                 ("creatures", 0, "controller"), ("creatures", 0, "power"),
                 ("creatures", 0, "toughness"), ("creatures", 0, "attacking"),
                 ("creatures", 0, "keywords"), ("creatures", -1, "damage"),
                 ("creatures", -1, "value"), ("creatures", -1, "blocking"),
                 ("creatures", -1, "blocking", 0), ("creatures", -1, "id")):
        for value in strange:
            changed(path, value)
    changed(("creatures", 0, "keywords"), ["Trampel"])
    changed(("creatures", 0, "keywords"), ["toxic 2"])
    # Lists past the reader's bound: one the general reader takes, one it refuses.
    changed(("creatures", 0, "keywords"), ["Trample"] * 17)
    changed(("creatures", 0, "keywords"), ["Trample"] * 20_001)
    changed(("creatures", -1, "damage"), 99)
    changed(("creatures", -1, "blocking"), ["b0"])
    changed(("creatures", -1, "blocking"), ["a0", "a0"])
    changed(("creatures", -1, "id"), "a0")
    changed(("creatures", -1, "id"), "dp")
    changed(("creatures", 0, "attacking"), "ap")
    changed(("creatures", 0, "controller"), "dp")
    changed(("extra",), 1)
    changed(("creatures", 0, "name"), "Ogre \u00e9")
    changed(("creatures", 0, "name"), 7)
    changed(("players", 1, "name"), None)
    changed(("players", 1, "name"), "Dana")
    changed(("players",), [{"id": "ap"}, {"id": "dp"}, {"id": "x"}])
    out.append(OrderedDict(doc))
    out.append([doc])
    return out


def _answer(doc: Any, objective: Any = None) -> Any:
    try:
        return dict(api.solve(doc, objective=objective))
    except InputError as exc:
        return ("refused", str(exc))


def _general_answer(doc: Any, objective: Any = None) -> Any:
    try:
        return general(doc, objective=objective)
    except InputError as exc:
        return ("refused", str(exc))


def test_a_field_of_the_wrong_shape_gets_the_general_readers_answer() -> None:
    doc = small_combat(5)
    doc["creatures"].sort(key=lambda c: "blocking" in c)  # attackers first, blockers last
    assert doc["creatures"][0]["id"] == "a0" and "blocking" in doc["creatures"][-1]
    assert solve_numbers(doc, None, None) is not None
    variants = _variants(doc)
    refused = 0
    for odd in variants:
        mine = _answer(odd)
        assert mine == _general_answer(odd), odd
        refused += mine[0] == "refused" if isinstance(mine, tuple) else 0
    assert refused > len(variants) // 2


@pytest.mark.parametrize("objective", [["kills", "kills"], ["lethal", 3], [], "nothing",
                                       3, ["life_kept"], "kills,player_damage"])
def test_an_objective_gets_the_general_answer(objective: Any) -> None:
    doc = small_combat(8)
    assert _answer(doc, objective) == _general_answer(doc, objective)
    many = [small_combat(8), small_combat(9)]
    try:
        got: Any = [dict(a) for a in api.solve_many(many, objective=objective)]
    except InputError as exc:
        got = ("refused", str(exc))
    try:
        want: Any = [general(d, objective=objective) for d in many]
    except InputError as exc:  # refused for either side: before any document is read
        want = ("refused", str(exc))
    assert got == want


def test_a_time_limit_is_checked_as_ever() -> None:
    doc = small_combat(8)
    for bad in (0, -1, "1", float("nan"), True):
        with pytest.raises(InputError) as caught:
            api.solve(doc, time_limit=bad)  # type: ignore[arg-type]
        with pytest.raises(InputError) as expected:
            api.prepare(doc).solve(time_limit=bad)  # type: ignore[arg-type]
        assert str(caught.value) == str(expected.value)


@pytest.mark.sources
def test_an_illegal_split_is_never_answered(monkeypatch: pytest.MonkeyPatch) -> None:
    """A holding split that breaks a rule (one more than the power) is caught by the
    path's own check and left to the general path, which answers it rightly, by
    ``solve`` and by ``solve_many`` (a combat given such a split is answered here only
    when another split beats it, and then as the general path answers it)."""
    real = numbers.holding

    def wrong(source: str, *args: Any) -> Any:
        held = real(source, *args)
        if held is None:
            return None
        return {pair: amount + 1 for pair, amount in held[0].items()}, held[1]

    docs = [small_combat(seed) for seed in range(100)]
    expected = [general(doc) for doc in docs]
    monkeypatch.setattr(numbers, "holding", wrong)
    declined = 0
    for doc, want in zip(docs, expected, strict=True):
        found = solve_numbers(doc, None, None)
        if found is None:
            declined += 1
        else:
            assert found == want
        assert dict(api.solve(doc)) == want
    assert declined >= 40
    assert [dict(a) for a in api.solve_many(docs)] == expected


def test_solve_many_answers_each_as_solve() -> None:
    docs = [small_combat(seed) for seed in range(200)]
    docs[3] = {**docs[3], "creatures": [{**c, "keywords": ["Haste"]}
                                        for c in docs[3]["creatures"]]}
    assert [dict(a) for a in api.solve_many(docs)] == [general(d) for d in docs]
    assert [dict(a) for a in api.solve_many(docs, objective=["kills"])] == \
        [general(d, objective=["kills"]) for d in docs]
    assert DEFAULTS["attackers"] == tuple(api.solve(docs[0])["objective"])


# -- serve's lane ---------------------------------------------------------------------------

HOSTILE = ["a0", "\u00e9l\u00e8ve", "\"quoted\"", "back\\slash", "tab\tnew\nline", "\x00\x1f",
           "\ud83d\ude00", "\ud800", "\u2028\u2029", "</script>", "x" * 199]


def _renamed(doc: dict[str, Any], names: dict[str, str]) -> dict[str, Any]:
    """``doc`` with its ids replaced (``names``), blocks and attack targets included."""
    doc = copy.deepcopy(doc)
    for player in doc["players"]:
        player["id"] = names.get(player["id"], player["id"])
    doc["active_player"] = names.get(doc["active_player"], doc["active_player"])
    for c in doc["creatures"]:
        c["id"] = names.get(c["id"], c["id"])
        c["controller"] = names.get(c["controller"], c["controller"])
        if "attacking" in c:
            c["attacking"] = names.get(c["attacking"], c["attacking"])
        if "blocking" in c:
            c["blocking"] = [names.get(a, a) for a in c["blocking"]]
    return doc


@pytest.mark.parametrize("name", HOSTILE)
def test_serves_lane_writes_the_standard_encoders_bytes(
        name: str, monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    from trample.solver.interface import serve

    docs = [_renamed(small_combat(seed), {"a0": name, "dp": name + "!", "b1": name + "1"})
            for seed in range(12)]
    ids: list[Any] = [0, -7, 2**63, -(2**63), 2**63 + 1, name, "", 3.0, None, True]
    lines = [json.dumps({"jsonrpc": "2.0", "method": "solve", "params": {"combat": doc},
                         "id": ids[i % len(ids)]}) for i, doc in enumerate(docs)]
    lines.append(json.dumps([json.loads(line) for line in lines]))
    lines.append(json.dumps({"jsonrpc": "2.0", "method": "solve",
                             "params": {"combat": docs[0], "side": "attackers"}, "id": 1}))
    lane = [serve.respond(line) for line in lines]
    assert sum(numbers.solve_numbers(doc, None, None) is not None for doc in docs) >= 9
    monkeypatch.setattr(serve, "answer_line", lambda request: None)
    assert lane == [serve.respond(line) for line in lines]
    for line, answer in zip(lines, lane, strict=True):
        assert answer is not None and json.loads(answer)  # owed, and JSON
        request = json.loads(line)
        if isinstance(request, dict) and type(request["id"]) in (int, str):
            assert json.loads(answer)["result"]["assignment"]
