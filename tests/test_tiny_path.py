"""The tiny-combat path: what a solve of a plain combat skips, checked by its mechanism
(calls made, objects left for the cycle collector), never by a clock; and the plain
shortcut of the outcome terms against dealing the damage."""

from __future__ import annotations

import copy
import dataclasses
import datetime
import enum
import gc
import json
import math
import uuid
from collections.abc import Iterator
from itertools import islice
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.generators import tiny
from trample.models.document.combat import Combat
from trample.models.document.errors import InputError
from trample.solver.interface import api, protocol, serve, spaces
from trample.solver.optimize import objectives
from trample.solver.optimize.objectives import TERMS, dealt_values, evaluate, scoring
from trample.solver.optimize.solve_numbers import solve_numbers
from trample.solver.rules.legal_space import legal_space

from strategies import combats, with_outcomes

SIDES = st.sampled_from(["attackers", "blockers"])
TINY = [tiny(1 + i % 3, i) for i in range(60)]


def _general(doc: dict[str, Any]) -> dict[str, Any]:
    """The document with a keyword the numbers path does not read (Haste: the reader
    accepts it, and it changes no damage), so that ``api.solve`` answers it through its
    legal space and the cache of spaces."""
    doc = copy.deepcopy(doc)
    doc["creatures"][0]["keywords"] = [*doc["creatures"][0].get("keywords", []), "Haste"]
    assert solve_numbers(doc, None, None) is None
    return doc


GENERAL = [_general(doc) for doc in TINY]


def _plain(doc: dict[str, Any]) -> dict[str, Any]:
    """The document without lifelink, the one outcome keyword the base strategies make."""
    doc = copy.deepcopy(doc)
    for creature in doc["creatures"]:
        if "keywords" in creature:
            creature["keywords"] = [k for k in creature["keywords"]
                                    if k.lower() != "lifelink"]
    return doc


def _amounts(entries: list[dict[str, Any]]) -> dict[tuple[str, str], int]:
    return {(e["source"], e["target"]): e["amount"] for e in entries}


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=st.one_of(combats(), combats(rich=True), with_outcomes()), side=SIDES,
       strip=st.booleans(), data=st.data())
def test_the_plain_shortcut_equals_dealing_the_damage(doc: dict[str, Any], side: str,
                                                      strip: bool,
                                                      data: st.DataObject) -> None:
    """On a plain combat each outcome term is read from its assigned-damage term plus a
    constant; that must be what dealing the damage gives, for every legal assignment and
    any targets left out."""
    if strip:
        doc = _plain(doc)
    space = legal_space(Combat.from_json(doc), side)  # type: ignore[arg-type]
    ids = sorted({p["id"] for p in doc["players"]} | {c["id"] for c in doc["creatures"]}
                 | {w["id"] for w in doc.get("planeswalkers", [])}
                 | {b["id"] for b in doc.get("battles", [])})
    exclude = frozenset(data.draw(st.sets(st.sampled_from(ids), max_size=3)))
    terms = data.draw(st.permutations(TERMS))
    for entry in islice(api.enumerate_assignments(doc, side=side), 40):
        amounts = _amounts(entry["assignment"])
        assert evaluate(space, amounts, terms, exclude) == \
            dealt_values(space, amounts, terms, exclude)


EDGES: list[dict[str, Any]] = [
    {"active_player": "a", "players": [{"id": "a"}, {"id": "d", "life": 0}],
     "creatures": [
         {"id": "x", "controller": "a", "power": 5, "toughness": 2,
          "keywords": ["trample", "deathtouch"], "attacking": "d"},
         {"id": "wall", "controller": "d", "power": 0, "toughness": 0, "value": 3,
          "keywords": ["indestructible"], "blocking": ["x"]},
         {"id": "bear", "controller": "d", "power": 2, "toughness": 2, "damage": 2,
          "blocking": ["x"]},
         {"id": "ox", "controller": "d", "power": 2, "toughness": 4, "value": -1,
          "blocking": ["x"]}]},
    {"active_player": "a", "players": [{"id": "a"}, {"id": "d", "life": 3}],
     "planeswalkers": [{"id": "pw", "controller": "d", "loyalty": 2},
                       {"id": "gone", "controller": "d", "loyalty": 0}],
     "battles": [{"id": "bt", "protector": "d", "defense": 1}],
     "creatures": [
         {"id": "x", "controller": "a", "power": 4, "toughness": 2,
          "keywords": ["trample over planeswalkers"], "attacking": "pw"},
         {"id": "y", "controller": "a", "power": 2, "toughness": 2, "attacking": "gone"},
         {"id": "z", "controller": "a", "power": 1, "toughness": 2, "attacking": "bt"},
         {"id": "wall", "controller": "d", "power": 0, "toughness": -1, "value": 2,
          "keywords": ["indestructible"], "blocking": ["x"]}]},
]


@pytest.mark.parametrize("doc", EDGES)
def test_the_plain_shortcut_on_constants_and_every_kind_of_target(doc: dict[str, Any]) -> None:
    """Already dead or lost (life 0, loyalty 0, indestructible of toughness 0 or less),
    deathtouch, planeswalkers and battles: every term, every legal assignment."""
    space = legal_space(Combat.from_json(doc), "attackers")
    assert scoring(space).plain and scoring(space).deaths_extra > 0
    seen = 0
    for entry in api.enumerate_assignments(doc):
        amounts = _amounts(entry["assignment"])
        for exclude in (frozenset(), frozenset({"d", "pw"})):
            assert evaluate(space, amounts, TERMS, exclude) == \
                dealt_values(space, amounts, TERMS, exclude)
        seen += 1
    assert seen > 3


def test_a_split_scored_again_is_scored_alike() -> None:
    """evaluate keeps the last few splits it scored, by value: a changed split, or an
    answer changed by its caller, is never served stale."""
    doc = EDGES[0]
    space = legal_space(Combat.from_json(doc), "attackers")
    splits = [_amounts(e["assignment"]) for e in api.enumerate_assignments(doc)]
    terms = ("deaths", "kills", "losses", "lethal", "life_loss")
    expected = [dealt_values(space, a, terms) for a in splits]
    for _ in range(3):
        for amounts, values in zip(splits, expected, strict=True):
            got = evaluate(space, amounts, terms)
            assert got == values
            got["kills"] = -99  # the caller's own dict
            assert evaluate(space, dict(amounts), list(terms)) == values
            assert evaluate(space, amounts, ("kills",)) == {"kills": values["kills"]}
    amounts = dict(next(a for a in splits if a.get(("x", "d"))))
    before = evaluate(space, amounts, terms)
    amounts[("x", "d")] += 1  # one more to the player: more life lost
    assert evaluate(space, amounts, terms) == dealt_values(space, amounts, terms) != before


def test_the_tiny_combats_are_plain() -> None:
    """The combats the tests below solve take the shortcut (else they would prove nothing)."""
    assert all(scoring(legal_space(Combat.from_json(doc), "attackers")).plain
               for doc in TINY)


@pytest.mark.sources
def test_a_plain_solve_builds_no_outcome_tables_and_deals_no_damage(
        monkeypatch: pytest.MonkeyPatch) -> None:
    tables: list[object] = []
    deals: list[object] = []
    build, deal = objectives.outcome_tables, objectives.deal
    monkeypatch.setattr(objectives, "outcome_tables",
                        lambda score: tables.append(score) or build(score))
    monkeypatch.setattr(objectives, "deal",
                        lambda *args: deals.append(args) or deal(*args))
    for doc in TINY:
        answer = api.solve(doc)
        assert answer["status"] == "optimal"
        assert api.validate(doc, answer["assignment"])["legal"]
    assert tables == [] and deals == []
    # Lifelink makes the combat not plain: the same solve now deals the damage.
    doc = copy.deepcopy(TINY[0])
    doc["creatures"][0].setdefault("keywords", []).append("Lifelink")
    api.solve(doc)
    assert len(tables) == 1 and deals


def test_a_solve_leaves_nothing_for_the_cycle_collector() -> None:
    """A request's combat, space and scoring are freed as soon as it is answered: none of
    them refers back to another (the collector's passes grow with such garbage)."""
    for doc in TINY:  # first use: imports, caches
        api.solve(doc)
        api.prepare(doc).count()
    gc.collect()
    gc.disable()
    try:
        for doc in TINY:
            api.solve(doc)
            handle = api.prepare(doc)
            handle.solve()
            handle.count()
            del handle
        assert gc.collect() == 0
    finally:
        gc.enable()


# -- the cache of legal spaces -------------------------------------------------------------

@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> Iterator[list[object]]:
    """The documents ``api`` parses from now on (the cache emptied first). Counted by
    replacing ``Combat.from_json``, which the compiled build's ``space_of`` calls
    directly: run from the sources only (as the tests marked ``sources``)."""
    from trample import _native

    if _native.state["compiled"]:
        pytest.skip(f"counts parses by replacing Combat.from_json: run it with "
                    f"{_native.PURE_ENV}=1")
    seen: list[object] = []
    real = Combat.from_json
    api.forget_spaces()
    monkeypatch.setattr(api.Combat, "from_json",
                        staticmethod(lambda doc: seen.append(doc) or real(doc)))
    yield seen
    api.forget_spaces()


def test_a_document_asked_again_is_not_parsed_again(parses: list[object]) -> None:
    doc = GENERAL[1]
    first = api.solve(doc)
    assert len(parses) == 1 and not spaces._spaces  # once: not kept
    assert api.solve(copy.deepcopy(doc)) == first and len(parses) == 2  # twice: kept
    assert api.solve(copy.deepcopy(doc)) == first and len(parses) == 2
    api.count(doc)
    api.validate(doc, first["assignment"])
    assert len(parses) == 2
    api.solve(doc, side="blockers")  # another side: another space
    api.solve(doc, side="blockers")
    assert len(parses) == 4


def test_a_changed_document_is_read_anew(parses: list[object]) -> None:
    doc = copy.deepcopy(GENERAL[2])
    before = [api.solve(doc) for _ in range(3)]
    doc["creatures"][0]["power"] += 7
    after = api.solve(doc)
    assert len(parses) == 3 and after != before[0]
    assert api.validate(doc, after["assignment"])["legal"]


@pytest.mark.parametrize(("field", "bad", "message"), [
    ("power", True, "creatures[0].power: must be an integer, not a boolean"),
    ("power", 3.0, "creatures[0].power: must be an integer, not a float"),
    ("toughness", "3", "creatures[0].toughness: must be an integer, not a string"),
])
@pytest.mark.parametrize("from_json", [False, True])
def test_a_value_written_like_an_accepted_one_is_still_refused(
        parses: list[object], field: str, bad: object, message: str,
        from_json: bool) -> None:
    """JSON text tells true from 1 and 3.0 from 3: a refused document never meets the
    space of an accepted one (keys written by the standard library or by orjson)."""
    token = api.documents_are_json.set(from_json)
    try:
        doc = copy.deepcopy(GENERAL[3])
        doc["creatures"][0]["power"] = doc["creatures"][0]["toughness"] = 3
        api.solve(doc)
        api.solve(doc)
        assert len(spaces._spaces) == 1
        wrong = copy.deepcopy(doc)
        wrong["creatures"][0][field] = bad
        for _ in range(3):  # a refusal is never kept
            with pytest.raises(InputError) as caught:
                api.solve(wrong)
            assert str(caught.value) == message
        assert len(parses) == 5 and len(spaces._spaces) == 1
    finally:
        api.documents_are_json.reset(token)


class Colour(enum.Enum):
    GREEN = "b0"


@dataclasses.dataclass
class Box:
    id: str


@pytest.mark.parametrize("swap", [
    ("creatures", 1, "id", uuid.UUID(int=7)),  # orjson writes a UUID as its string
    ("creatures", 1, "id", Colour.GREEN),  # an enumeration member as its value
    ("creatures", 1, "id", datetime.date(2024, 1, 2)),  # a date as its text
    ("creatures", 1, "attacking", math.nan),  # a NaN as null
    ("players", 0, None, Box("ap")),  # a dataclass as an object
])
def test_a_value_orjson_writes_like_an_accepted_one_is_still_refused(
        parses: list[object], swap: tuple[str, int, str | None, object]) -> None:
    """orjson writes some values that are no JSON as the JSON of an accepted document's:
    a space found under that text is not taken for them (they are refused as ever)."""
    where, index, field, value = swap
    doc = copy.deepcopy(GENERAL[5])
    doc["players"][0] = {"id": "ap"}
    doc["creatures"][1]["attacking"] = None
    if isinstance(value, uuid.UUID | datetime.date | Colour):
        doc["creatures"][1]["id"] = str(value) if not isinstance(value, Colour) \
            else value.value
    first = api.solve(doc)
    api.solve(doc)
    assert len(spaces._spaces) == 1 and len(parses) == 2
    odd = copy.deepcopy(doc)
    if field is None:
        odd[where][index] = value
    else:
        odd[where][index][field] = value
    orjson = pytest.importorskip("orjson")
    assert orjson.dumps(odd) == orjson.dumps(doc)  # the same text
    for _ in range(2):
        with pytest.raises(InputError):
            api.solve(odd)
    assert len(parses) == 4 and api.solve(copy.deepcopy(doc)) == first and len(parses) == 4


@pytest.mark.parametrize("side", [["attackers"], {"a": 1}, 3])
def test_a_side_that_is_no_string_is_refused_not_hashed(parses: list[object],
                                                        side: object) -> None:
    """A side given as a list once reached the cache's key and ended in a TypeError
    (an internal error in serve) instead of the refusal naming ``side``."""
    doc = TINY[1]
    for _ in range(3):
        with pytest.raises(InputError) as caught:
            api.count(doc, side=side)  # type: ignore[arg-type]
        assert caught.value.path == "side"
    line = json.dumps({"jsonrpc": "2.0", "id": 1, "method": "count",
                       "params": {"combat": doc, "side": side}})
    for _ in range(2):
        answer = json.loads(serve.respond(line) or "")
        assert answer["error"]["code"] == protocol.INVALID_PARAMS, answer


def test_the_cache_is_bounded_and_skips_large_or_odd_documents(
        parses: list[object], monkeypatch: pytest.MonkeyPatch) -> None:
    kept = tiny(2, 9_999)
    api.count(kept)
    api.count(kept)
    # Room for this many spaces of one creature more or less: what the cache counts
    # each for (its estimate and its key), read from its own accounting.
    api.count(tiny(1, 9_998))
    api.count(tiny(1, 9_998))
    weights = [weight for _, _, weight in spaces._spaces.values()]
    room = 40
    monkeypatch.setattr(spaces, "SPACE_CACHE_BYTES", weights[0] + (room - 1) * weights[1])
    api.forget_spaces()
    api.count(kept)
    api.count(kept)
    for i in range(room + 20):
        doc = tiny(1, 10_000 + i)
        api.count(doc)
        api.count(doc)  # asked twice: kept
        api.count(kept)  # asked again and again: never the least recently asked
        assert api.kept_bytes() <= spaces.SPACE_CACHE_BYTES
    assert len(spaces._spaces) == room
    assert len(parses) == 2 * room + 42 + 4
    api.count(kept)
    api.count(tiny(1, 10_000 + room + 19))
    assert len(parses) == 2 * room + 42 + 4
    api.count(tiny(1, 10_000))  # the least recently asked went first
    assert len(parses) == 2 * room + 43 + 4
    for i in range(8 * room):  # each once: nothing evicted
        api.count(tiny(1, 20_000 + i))
    assert api.count(kept) and len(parses) == 10 * room + 43 + 4
    big = tiny(3, 5)
    big["creatures"] += [{"id": f"x{i}", "controller": "dp", "power": 1, "toughness": 1}
                         for i in range(spaces.SPACE_CACHE_CREATURES)]
    numpy = pytest.importorskip("numpy")
    odd = copy.deepcopy(TINY[4])
    odd["creatures"][0]["power"] = numpy.int64(odd["creatures"][0]["power"])
    for doc in (big, odd):
        for _ in range(3):
            api.count(doc)
    assert len(parses) == 10 * room + 49 + 4


# -- serve's reader ---------------------------------------------------------------------------

LINES = [
    '{"a": 123456789012345678901234567890, "b": [-9223372036854775809, 18446744073709551615]}',
    '{"a": 1.7976931348623157e309}', '"\\udfff"', '{"a": 1, "a": 2}', '[1.5, -0.0, 5e-324]',
    '{"jsonrpc": "2.0", "id": 7, "method": "solve", "params": {"combat": {}}}',
]
BAD_LINES = ['[1,]', '{"a": NaN}', '[Infinity]', "{'a': 1}", '"a\tb"', '01', '[1 2]']


@pytest.mark.parametrize("line", LINES)
def test_serve_reads_a_line_as_the_standard_library_does(line: str) -> None:
    import json

    assert repr(protocol.decode(line)) == repr(json.loads(line))


@pytest.mark.parametrize("line", BAD_LINES)
def test_serve_refuses_a_line_with_the_standard_library_message(
        line: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with_orjson = serve.respond(line)
    monkeypatch.setattr(protocol, "_orjson", None)
    assert with_orjson == serve.respond(line) and '"code": -32700' in with_orjson


def test_serve_answers_alike_without_orjson(monkeypatch: pytest.MonkeyPatch) -> None:
    import json

    lines = [json.dumps({"jsonrpc": "2.0", "method": "solve", "params": {"combat": doc},
                         "id": i}) for i, doc in enumerate(TINY[:20])]
    answers = [serve.respond(line) for line in lines]
    monkeypatch.setattr(protocol, "_orjson", None)
    assert answers == [serve.respond(line) for line in lines]
