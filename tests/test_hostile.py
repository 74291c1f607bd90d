"""Hostile input: malformed documents, assignments and requests are refused with a field
path and never answered wrongly; nothing a caller sends makes trample crash.

- hypothesis breaks valid combats (tests/strategies.py) one defect at a time: a wrong type
  at every field, a missing required field, an unknown field, a duplicate id, a dangling
  reference, integers past the limit, negative damage, NaN, floats and booleans where
  integers belong, long strings, deep nesting; the API must raise InputError at the
  defect's path;
- the command line and ``trample serve`` refuse the same cleanly (exit 2, one line, no
  traceback; a JSON-RPC error, and the server goes on);
- regression tests for every crash the fuzzers (tests/fuzz/) found;
- a bounded run of each fuzzer (a few seconds each; ``python -m tests.fuzz.run`` runs them
  for longer).
"""

from __future__ import annotations

import copy
import io
import json
import math
import os
import re
import subprocess
import sys
import threading
from collections.abc import Callable
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trample.models.document.combat import MAX_MAGNITUDE, Combat
from trample.models.document.errors import InputError, TrampleError
from trample.solver.interface import api, methods, protocol
from trample.solver.interface import serve as engine
from trample.solver.rules.legal_space import legal_space
from trample.solver.rules.validate import violations

from conftest import SPEC_EXAMPLE
from strategies import cached_legal_assignments, combats

ROOT = Path(__file__).resolve().parent.parent
HOSTILE = settings(max_examples=300, deadline=None,
                   suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
Doc = dict[str, Any]


def nested(depth: int, as_dict: bool = False) -> Any:
    value: Any = []
    for _ in range(depth):
        value = {"a": value} if as_dict else [value]
    return value


# -- what each field of combat/1 accepts -----------------------------------------------------

NOT_INTEGERS: list[Any] = [
    "3", 3.5, 3.0, -0.0, True, False, None, [], {}, [3], math.nan, math.inf, -math.inf,
    MAX_MAGNITUDE + 1, -(MAX_MAGNITUDE + 1), 2**63, 10**100, -(10**100), 10**5000,
    nested(5_000)]
NOT_IDS: list[Any] = [3, 0, None, "", "x" * 201, [], {}, ["p0"], True, 1.5, nested(5_000),
                      10**5000]
NOT_BOOLEANS: list[Any] = [1, 0, "true", "false", None, [], {}, 1.0]
NOT_LISTS: list[Any] = ["trample", {}, 3, None, True, 10**5000]
NOT_STRINGS: list[Any] = [3, None, [], {}, True, nested(5_000)]

# kind of object -> field -> kind of value
FIELDS: dict[str, dict[str, str]] = {
    "players": {"id": "id", "life": "integer", "name": "string"},
    "planeswalkers": {"id": "id", "controller": "ref", "loyalty": "integer",
                      "in_combat": "boolean", "name": "string"},
    "battles": {"id": "id", "protector": "ref", "defense": "integer", "in_combat": "boolean",
                "name": "string"},
    "creatures": {"id": "id", "controller": "ref", "power": "integer", "toughness": "integer",
                  "damage": "integer", "value": "integer", "keywords": "keywords",
                  "attacking": "target", "blocked": "boolean", "blocking": "blocking",
                  "name": "string"},
}
REQUIRED = {"players": ("id",), "planeswalkers": ("id", "controller", "loyalty"),
            "battles": ("id", "protector", "defense"),
            "creatures": ("id", "controller", "power", "toughness")}
WRONG: dict[str, list[Any]] = {
    "integer": NOT_INTEGERS,
    "id": NOT_IDS,
    "ref": [*NOT_IDS, "ghost"],
    "target": [v for v in NOT_IDS if v is not None] + ["ghost"],  # null: not attacking
    "boolean": NOT_BOOLEANS,
    "string": NOT_STRINGS,
    "keywords": [*NOT_LISTS, [3], [None], [[]], ["Bands_With-Other"], ["Trampel"]],
    "blocking": [*NOT_LISTS, [3], [None], ["ghost"], [[]], [""]],
}
PARSE_ORDER = ("players", "planeswalkers", "battles", "creatures")
"""The order in which the parser registers ids (a duplicate is reported at the later)."""


@st.composite
def broken_documents(draw: st.DrawFn) -> tuple[Doc, str]:
    """A valid combat with exactly one defect, and the path where it must be reported
    (a prefix of it, for defects inside lists)."""
    doc: Doc = copy.deepcopy(draw(combats()))
    objects = [(kind, i) for kind in PARSE_ORDER for i in range(len(doc.get(kind, [])))]
    defects = ["wrong_type", "wrong_type", "wrong_type", "missing", "unknown", "duplicate",
               "dangling", "top_level", "element"]
    if any("attacking" in c for c in doc["creatures"]):
        defects += ["foreign_attacker", "attacker_blocks"]
    if any("blocking" in c for c in doc["creatures"]):
        defects.append("blocked_false")
    defect = draw(st.sampled_from(defects))
    kind, i = draw(st.sampled_from(objects))
    obj = doc[kind][i]
    where = f"{kind}[{i}]"

    if defect == "wrong_type":
        key = draw(st.sampled_from(sorted(FIELDS[kind])))
        obj[key] = draw(st.sampled_from(WRONG[FIELDS[kind][key]]))
        return doc, f"{where}.{key}"
    if defect == "missing":
        key = draw(st.sampled_from(REQUIRED[kind]))
        del obj[key]
        return doc, f"{where}.{key}"
    if defect == "unknown":
        key = draw(st.sampled_from(["toughnes", "Power", "speed", "x" * 300, ""]))
        obj[key] = 1
        return doc, where
    if defect == "duplicate":
        if len(objects) < 2:
            return doc, broken_top(draw, doc)
        a, b = sorted(draw(st.lists(st.sampled_from(range(len(objects))), min_size=2,
                                    max_size=2, unique=True)))
        (kind_a, i_a), (kind_b, i_b) = objects[a], objects[b]
        doc[kind_b][i_b]["id"] = doc[kind_a][i_a]["id"]
        return doc, f"{kind_b}[{i_b}].id"
    if defect == "dangling":
        refs = [k for k, v in FIELDS[kind].items() if v in ("ref", "target")]
        if kind == "creatures" and "blocking" in obj:
            refs.append("blocking")
        if not refs:
            return doc, broken_top(draw, doc)
        key = draw(st.sampled_from(refs))
        if key == "blocking":
            j = draw(st.integers(0, len(obj["blocking"]) - 1))
            obj["blocking"][j] = "ghost"
            return doc, f"{where}.blocking[{j}]"
        obj[key] = "ghost"
        return doc, f"{where}.{key}"
    if defect == "element":
        doc[kind][i] = draw(st.sampled_from([3, "x", None, [], True, nested(5_000)]))
        return doc, where
    if defect == "foreign_attacker":
        j, attacker = draw(st.sampled_from(
            [(j, c) for j, c in enumerate(doc["creatures"]) if "attacking" in c]))
        attacker["controller"] = next(p["id"] for p in doc["players"]
                                      if p["id"] != doc["active_player"])
        return doc, f"creatures[{j}].attacking"
    if defect == "attacker_blocks":
        attackers = [(j, c) for j, c in enumerate(doc["creatures"]) if "attacking" in c]
        j, attacker = draw(st.sampled_from(attackers))
        attacker["blocking"] = [draw(st.sampled_from(attackers))[1]["id"]]
        return doc, f"creatures[{j}].blocking[0]"
    if defect == "blocked_false":
        blocked = {a for c in doc["creatures"] for a in c.get("blocking", [])}
        j = draw(st.sampled_from([j for j, c in enumerate(doc["creatures"])
                                  if c["id"] in blocked]))
        doc["creatures"][j]["blocked"] = False
        return doc, f"creatures[{j}].blocked"
    return doc, broken_top(draw, doc)


def broken_top(draw: st.DrawFn, doc: Doc) -> str:
    """Break a top-level field of ``doc``; the path to report."""
    key = draw(st.sampled_from(["active_player", "players", "creatures", "planeswalkers",
                                "battles", "step", "format", "unknown", "missing"]))
    if key == "missing":
        key = draw(st.sampled_from(["active_player", "players", "creatures"]))
        del doc[key]
        return key
    if key == "unknown":
        key = draw(st.sampled_from(["toughness", "Step", "", "\x00", "x" * 5_000]))
        doc[key] = 1
        return ""  # the message names it (quoted when it is not a plain name)
    doc[key] = draw(st.sampled_from({
        "active_player": [*NOT_IDS, "ghost"],
        "players": [*NOT_LISTS, [], [3]],
        "creatures": [*NOT_LISTS, [3]],
        "planeswalkers": [*NOT_LISTS, [None]],
        "battles": [*NOT_LISTS, ["b"]],
        "step": ["third", "First Strike", 3, [], {}, True, nested(5_000), "x" * 10_000],
        "format": ["combat/2", None, 1, nested(5_000), 10**5000],
    }[key]))
    return key


ENTRY_POINTS: dict[str, Callable[[Doc], object]] = {
    "from_json": Combat.from_json,
    "count": api.count,
    "validate": lambda doc: api.validate(doc, []),
    "solve": lambda doc: api.solve(doc, time_limit=5),
    "enumerate": lambda doc: list(api.enumerate_assignments(doc)),
    "sample": lambda doc: list(api.sample(doc, n=2)),
}


def refused(call: Callable[[], object], path: str) -> InputError:
    """``call`` raises InputError at ``path`` (or inside it); its message leads with it."""
    with pytest.raises(InputError) as caught:
        call()
    exc = caught.value
    assert exc.path, f"no field path: {exc}"
    assert str(exc).startswith(f"{exc.path}: "), str(exc)
    assert exc.path.startswith(path), (exc.path, path, str(exc))
    assert len(str(exc)) < 1_000, f"a message of {len(str(exc))} characters"
    return exc


@HOSTILE
@given(broken=broken_documents(), entry=st.sampled_from(sorted(ENTRY_POINTS)))
def test_a_broken_document_is_refused_at_its_path(broken: tuple[Doc, str], entry: str) -> None:
    doc, path = broken
    refused(lambda: ENTRY_POINTS[entry](doc), path)


@st.composite
def broken_assignments(draw: st.DrawFn) -> tuple[Doc, str, Any, str]:
    """A valid combat, a side, an assignment with one defect, and the defect's path."""
    doc = draw(combats())
    side = draw(st.sampled_from(["attackers", "blockers"]))
    legal = draw(st.sampled_from(cached_legal_assignments(doc, side)))
    entries: list[Any] = [{"source": s, "target": t, "amount": a} for s, t, a in sorted(legal)]
    if doc["creatures"]:  # an explicit zero, to a pair no legal assignment uses
        creature = doc["creatures"][0]["id"]
        entries.append({"source": creature, "target": creature, "amount": 0})
    i = draw(st.integers(0, max(len(entries) - 1, 0)))
    where = f"assignment[{i}]"
    defect = draw(st.sampled_from(["entry", "unknown", "missing", "source", "target", "amount",
                                   "twice", "whole"]) if entries else st.just("whole"))
    if defect == "entry":
        entries[i] = draw(st.sampled_from([3, "x", None, [], ["a", "b", 1]]))
        return doc, side, entries, where
    if defect == "unknown":
        entries[i]["amnt"] = 1
        return doc, side, entries, f"{where}.amnt"
    if defect == "missing":
        key = draw(st.sampled_from(["source", "target", "amount"]))
        del entries[i][key]
        return doc, side, entries, f"{where}.{key}"
    if defect in ("source", "target"):
        bad = [*NOT_IDS, "ghost"] + ([doc["players"][0]["id"]] if defect == "source" else [])
        entries[i][defect] = draw(st.sampled_from(bad))
        return doc, side, entries, f"{where}.{defect}"
    if defect == "amount":
        entries[i]["amount"] = draw(st.sampled_from([-1, *NOT_INTEGERS]))
        return doc, side, entries, f"{where}.amount"
    if defect == "twice":
        entries.append(dict(entries[i]))
        return doc, side, entries, f"assignment[{len(entries) - 1}]"
    whole = draw(st.sampled_from([{}, "x", 3, {"assignment": {}}, nested(5_000)]))
    return doc, side, whole, "assignment"


@HOSTILE
@given(broken=broken_assignments())
def test_a_broken_assignment_is_refused_at_its_path(broken: tuple[Doc, str, Any, str]) -> None:
    doc, side, assignment, path = broken
    refused(lambda: api.validate(doc, assignment, side=side), path)


@pytest.mark.parametrize(("field", "value", "path"), [
    ("side", "defenders", "side"), ("side", 3, "side"),
    ("side", nested(5_000), "side"),
    ("objective", [], "objective"), ("objective", ["nope"], "objective[0]"),
    ("objective", [3], "objective[0]"), ("objective", {}, "objective"),
    ("objective", ["kills", "kills"], "objective[1]"),
    ("time_limit", "5", "time_limit"), ("time_limit", -1, "time_limit"),
    ("time_limit", 0, "time_limit"), ("time_limit", math.nan, "time_limit"),
    ("time_limit", math.inf, "time_limit"), ("time_limit", True, "time_limit"),
    ("time_limit", 10**400, "time_limit"),
])
def test_request_fields_at_the_top_level_are_checked(field: str, value: Any, path: str) -> None:
    refused(lambda: api.solve({**SPEC_EXAMPLE, field: value}), path)


# -- edges that must work ------------------------------------------------------------------


@pytest.mark.parametrize("power", [2**31 - 1, 2**31, 2**40])
def test_large_integers_within_the_limit_work(power: int) -> None:
    """Vessel (trample) past a wall that needs 3: it gives the wall 3 or more, or all to it."""
    vessel, wall = SPEC_EXAMPLE["creatures"]
    doc = {**SPEC_EXAMPLE, "creatures": [{**vessel, "power": power, "toughness": power},
                                         {**wall, "toughness": power, "value": power}],
           "players": [{"id": "ap", "life": -power}, {"id": "dp", "life": power}],
           "planeswalkers": [{"id": "jace", "controller": "dp", "loyalty": power}]}
    assert api.count(doc) == {"count": 2}  # all to the wall, or lethal to it and 1 to Jace
    result = api.solve(doc)
    amounts = {(e["source"], e["target"]): e["amount"] for e in result["assignment"]}
    assert violations(legal_space(Combat.from_json(doc), "attackers"), amounts) == []
    assert result["objective"]["deaths"] == power
    assert api.validate(doc, result["assignment"])["legal"] is True
    small = {**SPEC_EXAMPLE, "creatures": [{**vessel, "power": power}, wall]}
    assert api.count(small) == {"count": power - 2}


@pytest.mark.parametrize("value", [MAX_MAGNITUDE + 1, -(MAX_MAGNITUDE + 1), 10**100,
                                   10**5000, -(10**5000)],
                         ids=["2^40+1", "-(2^40+1)", "10^100", "10^5000", "-10^5000"])
def test_integers_past_the_limit_are_refused_clearly(value: int) -> None:
    vessel, wall = SPEC_EXAMPLE["creatures"]
    doc = {**SPEC_EXAMPLE, "creatures": [{**vessel, "power": value}, wall]}
    exc = refused(lambda: api.count(doc), "creatures[0].power")
    assert "out of range (magnitude at most 2^40)" in str(exc)
    assert ("digits" in str(exc)) == (abs(value) > 10**120)


def test_long_strings() -> None:
    refused(lambda: api.count({**SPEC_EXAMPLE, "active_player": "a" * 10**6}), "active_player")
    vessel, wall = SPEC_EXAMPLE["creatures"]
    named = {**SPEC_EXAMPLE, "creatures": [{**vessel, "name": "n" * 1_000,
                                            "keywords": ["Trample", "k" * 1_000]}, wall]}
    assert api.count(named) == {"count": 3}  # names and keywords: up to 1,000 characters
    refused(lambda: api.count({**SPEC_EXAMPLE, "creatures": [{**vessel, "name": "n" * 1_001},
                                                             wall]}), "creatures[0].name")
    refused(lambda: api.count({**SPEC_EXAMPLE, "creatures": [
        {**vessel, "keywords": ["Trample", "k" * 10**6]}, wall]}), "creatures[0].keywords[1]")
    exc = refused(lambda: api.count({**SPEC_EXAMPLE, "x" * 10**6: 1}), "'xxx")
    assert len(str(exc)) < 400


# -- regressions: crashes found by the fuzzers and by hand -----------------------------------


def test_an_integer_past_pythons_digit_limit_is_refused_not_a_value_error() -> None:
    """str() of an int over 4,300 digits raises ValueError: the message must not need it."""
    for doc in ({**SPEC_EXAMPLE, "step": 10**5000},
                {**SPEC_EXAMPLE, "players": [{"id": "ap", "life": 10**5000}, {"id": "dp"}]}):
        refused(lambda doc=doc: Combat.from_json(doc), "")


@pytest.mark.parametrize("field", ["step", "format"])
@pytest.mark.parametrize("as_dict", [False, True])
def test_deeply_nested_python_values_are_refused_not_a_recursion_error(
        field: str, as_dict: bool) -> None:
    """The value is quoted in the message: a cut-short repr, never a recursive one."""
    exc = refused(lambda: Combat.from_json({**SPEC_EXAMPLE, field: nested(100_000, as_dict)}),
                  field)
    assert len(str(exc)) < 200


def test_odd_unknown_keys_are_named_in_the_path() -> None:
    """An empty key once gave a message with no path at all."""
    assert str(refused(lambda: Combat.from_json({**SPEC_EXAMPLE, "": 1}), "''")) \
        .startswith("'': unknown field")
    assert refused(lambda: Combat.from_json({**SPEC_EXAMPLE, "a b": 1}), "'a b'")
    key: Any = ()
    for _ in range(50_000):
        key = (key,)  # a hashable, deeply nested key (Python callers only)
    refused(lambda: Combat.from_json({**SPEC_EXAMPLE, key: 1}), "(")
    refused(lambda: api.validate(SPEC_EXAMPLE, [{"source": "vessel", "target": "wall",
                                                 "amount": 5, "": 1}]), "assignment[0].''")


def test_serve_answers_an_internal_error_and_keeps_serving(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A bug in a method is a -32603 answer, not the end of the server."""
    def broken(params: Any) -> Any:
        raise KeyError("boom")

    monkeypatch.setitem(methods.METHODS, "count", broken)
    lines = [json.dumps({"jsonrpc": "2.0", "method": "count", "params": {}, "id": 1}),
             json.dumps({"jsonrpc": "2.0", "method": "nope", "id": 2})]
    out = io.StringIO()
    assert engine.serve(io.StringIO("\n".join(lines) + "\n"), out) == 0
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["id"] == 1 and first["error"]["code"] == -32603
    message = first["error"]["message"]
    assert message.startswith("internal error: KeyError: 'boom'; the request is saved in ")
    saved = Path(message.split(" is saved in ")[1].split(" for a bug report")[0])
    assert json.loads(saved.read_text())["request"] == json.loads(lines[0])
    assert second["id"] == 2 and second["error"]["code"] == -32601


def test_serve_reads_bytes_and_refuses_a_line_that_is_not_utf8() -> None:
    out = io.StringIO()
    good = json.dumps({"jsonrpc": "2.0", "method": "count", "params": {"combat": SPEC_EXAMPLE},
                       "id": 3}).encode()
    assert engine.serve(io.BytesIO(b'\xff\xfe{"id": 1}\n\n' + good + b"\n"), out) == 0
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["error"]["code"] == -32700 and "not UTF-8" in first["error"]["message"]
    assert second == {"jsonrpc": "2.0", "result": {"count": 3}, "id": 3}


def test_serve_messages_stay_short() -> None:
    method = "m" * 100_000
    answer = json.loads(engine.respond(json.dumps(
        {"jsonrpc": "2.0", "method": method, "id": 1})) or "")
    assert len(answer["error"]["message"]) < 300
    answer = json.loads(engine.respond(json.dumps(
        {"jsonrpc": "2.0", "method": "count", "params": {"combat": SPEC_EXAMPLE,
                                                          "k" * 100_000: 1}, "id": 1})) or "")
    assert answer["error"]["message"].startswith("params.'kkk")
    assert len(answer["error"]["message"]) < 300


def wide_block(blockers: int) -> Doc:
    """A 2^40-power trampler and ``blockers`` 1/1 walls: a count of thousands of digits."""
    return {"active_player": "a", "players": [{"id": "a"}, {"id": "d"}],
            "creatures": [{"id": "t", "controller": "a", "power": 2**40, "toughness": 1,
                           "keywords": ["trample"], "attacking": "d"}] + [
                {"id": f"b{j}", "controller": "d", "power": 1, "toughness": 1,
                 "blocking": ["t"]} for j in range(blockers)]}


def test_serve_writes_a_count_past_pythons_digit_limit_and_goes_on() -> None:
    """str() of an int over 4,300 digits raises ValueError: json.dumps of such a count once
    ended the server with a traceback."""
    doc = wide_block(500)
    lines = [json.dumps({"jsonrpc": "2.0", "method": "count", "params": {"combat": doc},
                         "id": 1}),
             json.dumps({"jsonrpc": "2.0", "method": "nope", "id": 2})]
    out = io.StringIO()
    assert engine.serve(io.StringIO("\n".join(lines) + "\n"), out) == 0
    first, second = out.getvalue().splitlines()
    digits = first.split('"count": ')[1].split("}")[0]
    assert len(digits) > 4_300 and digits.isdigit()
    p = 2**40  # all to the walls, or every wall 1 or more and the rest to the player
    expected = math.comb(p + 499, 499) + math.comb(p - 1, 500)
    assert api.count(doc)["count"] == expected
    old = sys.get_int_max_str_digits()
    sys.set_int_max_str_digits(0)
    try:
        assert int(digits) == expected
    finally:
        sys.set_int_max_str_digits(old)
    assert json.loads(second)["error"]["code"] == -32601


def test_serve_refuses_a_count_too_long_to_write() -> None:
    answer = json.loads(engine.respond(json.dumps(
        {"jsonrpc": "2.0", "method": "count", "params": {"combat": wide_block(14_000)},
         "id": 7})) or "")
    assert answer["id"] == 7 and answer["error"]["code"] == -32602
    assert "more than 100,000 digits" in answer["error"]["message"]
    assert protocol.encode({"count": 10**99_000}).startswith('{"count": 1000')
    with pytest.raises(ValueError):
        protocol.encode({"count": 10**100_000})
    assert sys.get_int_max_str_digits() == 4300  # the input limit is left as it was


def test_long_counts_are_written_without_touching_the_process_wide_limit(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Two threads writing long counts at once, while a third reads input: none changes
    the int-to-text limit (it is process-wide: a change in one thread is a change in
    all), so none can undo another's or let input through past it."""
    calls: list[int] = []
    monkeypatch.setattr(sys, "set_int_max_str_digits", calls.append)
    values = [10**99_999 - 1, -(7**40_000), 12345, 2**7_000 + 1]
    start = threading.Barrier(3)
    written: dict[int, str] = {}
    refused: list[bool] = []

    def write(index: int) -> None:
        start.wait()
        for _ in range(3):
            written[index] = protocol.encode({"count": values, "id": index})

    def read() -> None:
        start.wait()
        for _ in range(3):
            try:
                int("9" * 5_000)
            except ValueError:
                refused.append(True)

    threads = [threading.Thread(target=write, args=(i,)) for i in range(2)]
    threads.append(threading.Thread(target=read))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert calls == [] and sys.get_int_max_str_digits() == 4300
    assert refused == [True] * 3  # input past the limit is refused throughout
    decoded = [json.loads(written[i], parse_int=lambda s: s) for i in range(2)]
    assert decoded[0]["count"] == decoded[1]["count"]
    spelled = decoded[0]["count"]
    assert spelled[0] == "9" * 99_999 and spelled[2] == "12345"
    assert spelled[1] == str(Decimal(values[1])) and spelled[1].startswith("-")
    assert spelled[3] == str(Decimal(values[3]))
    assert int(spelled[3][-4:]) % 2 == 1 and len(spelled[3]) == 2108


JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(
        st.sampled_from(["jsonrpc", "method", "params", "id", "combat", "side", "n", "limit",
                         "seed", "assignment", "objective", "time_limit", "x"]),
        inner, max_size=5),
    max_leaves=20)


@HOSTILE
@given(value=JSON_VALUES, method=st.sampled_from([*sorted(methods.METHODS), "x"]),
       rid=st.one_of(st.integers(), st.text(max_size=5), st.none()))
def test_respond_always_answers_one_json_line(value: Any, method: str, rid: Any) -> None:
    for request in (value, {"jsonrpc": "2.0", "method": method, "params": value, "id": rid},
                    {"jsonrpc": "2.0", "method": method, "params": {"combat": value}, "id": rid}):
        answer = engine.respond(json.dumps(request))
        items = request if isinstance(request, list) and request else [request]
        if all(protocol.is_notification(r) for r in items):
            assert answer is None or "NaN" in json.dumps(request) or \
                "Infinity" in json.dumps(request)
            continue
        assert answer is not None and "\n" not in answer
        decoded = protocol.decode(answer)
        for one in decoded if isinstance(decoded, list) else [decoded]:
            assert one.get("error", {}).get("code") != protocol.INTERNAL_ERROR, one


# -- through the command line and serve (a few processes, not thousands) ---------------------


def run(*args: str, stdin: bytes, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([sys.executable, "-m", "trample.solver", *args], input=stdin,
                          capture_output=True, timeout=120, env={**os.environ, **(env or {})})


def bad_input(result: subprocess.CompletedProcess[bytes], *fragments: str) -> str:
    """Exit 2, nothing on standard output, one line on standard error, no traceback."""
    assert result.returncode == 2, result
    assert result.stdout == b""
    lines = result.stderr.decode(errors="replace").strip().splitlines()
    assert len(lines) == 1, result.stderr[:2000]
    assert "Traceback" not in lines[0]
    for fragment in fragments:
        assert fragment in lines[0], lines[0]
    return lines[0]


def _doc_with(power: str) -> bytes:
    return (json.dumps({**SPEC_EXAMPLE, "creatures": [
        {**SPEC_EXAMPLE["creatures"][0], "power": "__P__"}, SPEC_EXAMPLE["creatures"][1]]})
        .replace('"__P__"', power).encode())


@pytest.mark.parametrize(("stdin", "fragments"), [
    (b"[" * 100_000 + b"]" * 100_000, ("not valid JSON", "recursion")),
    (b'{"active_player": ' + b'{"a": ' * 100_000 + b"1" + b"}" * 100_001,
     ("not valid JSON", "recursion")),
    (b'{"active_player": NaN}', ("NaN",)),
    (b'{"active_player": -Infinity}', ("Infinity",)),
    (b"\xff\xfe{}", ("combat document",)),
    (b"", ("not valid JSON",)),
    (_doc_with("1" * 5_000), ("not valid JSON", "4300")),
    (_doc_with(str(10**100)), ("creatures[0].power", "out of range")),
    (_doc_with(str(2**40 + 1)), ("creatures[0].power", "out of range")),
    (_doc_with("true"), ("creatures[0].power", "boolean")),
    (_doc_with("5.0"), ("creatures[0].power", "must be an integer")),
    (_doc_with("-1").replace(b'"power": -1', b'"power": 5, "damage": -1'),
     ("creatures[0].damage", "at least 0")),
])
def test_the_command_line_refuses_cleanly(stdin: bytes, fragments: tuple[str, ...]) -> None:
    bad_input(run("count", "-", stdin=stdin), *fragments)


def test_the_command_line_takes_two_to_the_31() -> None:
    result = run("count", "-", stdin=_doc_with(str(2**31)))
    assert result.returncode == 0 and json.loads(result.stdout) == {"count": 2**31 - 2}


def test_the_command_line_refuses_invalid_utf8_inside_a_string() -> None:
    doc = json.dumps(SPEC_EXAMPLE).replace('"wall"', '"wa\udcffll"', 1)
    bad_input(run("count", "-", stdin=doc.encode("utf-8", "surrogateescape")), "UTF-8")


def test_the_command_line_writes_a_count_past_pythons_digit_limit() -> None:
    result = run("count", "-", stdin=json.dumps(wide_block(500)).encode())
    assert result.returncode == 0 and len(result.stdout) > 4_300, result.stderr[-300:]


def test_count_refuses_huge_coupled_thresholds_rather_than_run_out_of_memory() -> None:
    p = 2**40
    attackers = [{"id": f"a{i}", "controller": "a", "power": p, "toughness": 1,
                  "keywords": ["trample"], "attacking": "d"} for i in range(20)]
    walls = [{"id": f"b{j}", "controller": "d", "power": p, "toughness": p,
              "blocking": [f"a{(7 * j + k) % 20}" for k in range(5)]} for j in range(20)]
    doc = {"active_player": "a", "players": [{"id": "a"}, {"id": "d"}],
           "creatures": attackers + walls}
    with pytest.raises(TrampleError, match="refused rather than estimated"):
        api.count(doc)


def test_serve_refuses_deep_nesting_and_bad_bytes_and_goes_on() -> None:
    """Under a strict UTF-8 standard input (PYTHONIOENCODING) as under the default."""
    count = json.dumps({"jsonrpc": "2.0", "method": "count", "params": {"combat": SPEC_EXAMPLE},
                        "id": 9}).encode()
    lines = [b"[" * 100_000, b'{"jsonrpc": "2.0", "method": "count", "params": {"combat": '
             + b"[" * 100_000 + b"}, \"id\": 1}", b"\xff\xfe\xfd", b"\x00", count]
    for env in ({}, {"PYTHONIOENCODING": "utf-8"}):
        result = run("serve", stdin=b"\n".join(lines) + b"\n", env=env)
        assert result.returncode == 0 and result.stderr == b"", result.stderr[-2000:]
        answers = [json.loads(line) for line in result.stdout.splitlines()]
        assert [a.get("error", {}).get("code") for a in answers] == [-32700] * 4 + [None]
        assert answers[-1] == {"jsonrpc": "2.0", "result": {"count": 3}, "id": 9}


# -- the fuzzers, briefly ------------------------------------------------------------------

FUZZ_SECONDS = 3
FUZZ_TARGETS = ("parser", "validator", "serve", "solve", "game", "blocks")


Runs = dict[str, subprocess.CompletedProcess[str]]


@pytest.fixture(scope="module")
def fuzz_runs(tmp_path_factory: pytest.TempPathFactory) -> Runs:
    """Every target for FUZZ_SECONDS, all at once: one run of the fuzzer instruments the
    code once and forks a process per target, each with its own exit status and its
    output in ``<work>/<target>/fuzz.log``."""
    import atheris  # the test extra installs it: the bounded fuzz runs always run

    del atheris
    work = tmp_path_factory.mktemp("fuzz")
    command = [sys.executable, "-m", "tests.fuzz.run", "--seconds", str(FUZZ_SECONDS),
               "--work", str(work), "--timeout", "30"]
    for target in FUZZ_TARGETS:
        command += ["--target", target]
    run = subprocess.run(command, cwd=ROOT, capture_output=True, text=True, timeout=180)
    statuses = dict(re.findall(r"^(\w+): exit status (-?\d+);", run.stdout, re.MULTILINE))
    out = {}
    for target in FUZZ_TARGETS:
        log = work / target / "fuzz.log"
        output = log.read_text(errors="replace") if log.exists() else ""
        code = int(statuses[target]) if target in statuses else run.returncode or -1
        out[target] = subprocess.CompletedProcess(
            command, code, f"{output}\n{run.stdout}\n{run.stderr[-2000:]}", "")
    return out


@pytest.mark.parametrize("target", FUZZ_TARGETS)
def test_fuzz_target_runs_clean(fuzz_runs: Runs, target: str) -> None:
    result = fuzz_runs[target]
    assert result.returncode == 0, result.stdout[-4000:]
    assert "Done" in result.stdout and "crash-" not in result.stdout, result.stdout[-4000:]


def _renamed(doc: Any, suffix: str, ids: set[str]) -> Any:
    """``doc`` with ``suffix`` after each of ``ids``, wherever it stands."""

    def walk(x: Any) -> Any:
        if isinstance(x, dict):
            return {k: walk(v) for k, v in x.items()}
        if isinstance(x, list):
            return [walk(v) for v in x]
        return x + suffix if isinstance(x, str) and x in ids else x
    return walk(doc)


def test_ids_holding_a_lone_surrogate_escape_are_searched_like_any_other(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """JSON lets a string hold ``"\\udcff"``, which is no valid UTF-8: OR-Tools refused
    the variable names made of such ids (a TypeError out of ``solve``). A combat that
    CP-SAT searches gets the same answer as with plain ids, in the API and in serve."""
    from benchmarks.generators import shared_blockers
    from trample.solver.optimize import cpsat

    escaped = 0
    real = getattr(cpsat, "_printable", str)

    def counted(name: str) -> str:
        nonlocal escaped
        escaped += 1
        return real(name)

    monkeypatch.setattr(cpsat, "_printable", counted, raising=False)
    plain = shared_blockers(8, 20, 0.5, 3)
    ids = {c["id"] for c in plain["creatures"]} | {p["id"] for p in plain["players"]}
    odd = _renamed(plain, "\udcff", ids)
    terms = ["kills", "player_damage"]
    want = api.solve(plain, objective=terms, time_limit=30)
    got = api.solve(odd, objective=terms, time_limit=30)
    assert escaped > 0  # the search ran, with names it had to escape
    assert got == _renamed(want, "\udcff", ids)
    assert api.validate(odd, got["assignment"])["legal"] is True
    line = json.dumps({"jsonrpc": "2.0", "id": "\udcff", "method": "solve",
                       "params": {"combat": odd, "objective": terms, "time_limit": 30}})
    assert "\\udcff" in line
    answer = json.loads(engine.respond(line))
    assert answer["id"] == "\udcff"
    assert answer["result"] == got
