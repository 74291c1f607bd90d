"""The JSON Schemas shipped in ``trample.models/schemas`` describe what trample reads and
prints: they agree with the parser's own field sets and limits, every document and
example in the repository validates, real answers validate, and documents the parser
refuses for a reason a schema can express are refused by the schema too."""

from __future__ import annotations

import contextlib
import json
import re
import shlex
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from trample.models.document import combat as combat_module
from trample.models.document.combat import Combat
from trample.models.document.errors import InputError
from trample.models.game import events as events_module
from trample.models.game import state_json
from trample.solver.interface import api, cli, methods, protocol, serve
from trample.solver.optimize import objectives

from strategies import combats, proposals

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "tests" / "data"
DOCS = {str(page.relative_to(ROOT)): page
        for page in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]}
NAMES = ("combat", "assignment", "game", "solve-result", "validate-result", "count-result",
         "assignment-line", "serve-request", "serve-response", "plan-result", "board",
         "blocks-result")
SOME = settings(max_examples=15, deadline=None, suppress_health_check=list(HealthCheck))


@cache
def schemas() -> dict[str, dict[str, Any]]:
    folder = resources.files("trample.models").joinpath("schemas")
    return {name: json.loads(folder.joinpath(f"{name}.schema.json").read_text("utf-8"))
            for name in NAMES}


@cache
def registry() -> Registry:  # type: ignore[type-arg]
    return Registry().with_resources(
        (s["$id"], Resource.from_contents(s)) for s in schemas().values())


@cache
def validator(name: str, pointer: str = "") -> Draft202012Validator:
    ref = schemas()[name]["$id"] + (f"#{pointer}" if pointer else "")
    return Draft202012Validator({"$ref": ref}, registry=registry())


def check(name: str, instance: object, pointer: str = "") -> None:
    errors = sorted(validator(name, pointer).iter_errors(instance), key=str)
    assert not errors, f"{name}{pointer}: {errors[0].message} at {list(errors[0].path)}"


def valid(name: str, instance: object, pointer: str = "") -> bool:
    return validator(name, pointer).is_valid(instance)


def kind_of(document: object) -> str:
    """Which schema a JSON document of the repository is an instance of."""
    if isinstance(document, list):  # an assignment file may be the bare list of entries
        return "assignment"
    if isinstance(document, dict):
        if document.get("format") == "trample-game/1":
            return "game"
        if "creatures" in document:
            return "combat"
        if set(document) == {"assignment"}:
            return "assignment"
    raise AssertionError(f"a JSON document of no known kind: {str(document)[:80]}")


def definition(name: str, *path: str) -> dict[str, Any]:
    node: Any = schemas()[name]
    for key in path:
        node = node[key]
    assert isinstance(node, dict)
    return node


def props(name: str, *path: str) -> set[str]:
    return set(definition(name, *path)["properties"])


# -- the schemas themselves --------------------------------------------------------------


@pytest.mark.parametrize("name", NAMES)
def test_each_schema_is_a_valid_draft_2020_12_schema(name: str) -> None:
    schema = schemas()[name]
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    Draft202012Validator.check_schema(schema)
    assert schema["$id"] == f"urn:trample:schema:{name}"


def test_schemas_are_package_data() -> None:
    """Installed users get the schemas: pyproject ships the folder with trample.models."""
    text = (ROOT / "pyproject.toml").read_text("utf-8")
    assert '"schemas/*.json"' in text
    shipped = {p.name for p in (ROOT / "models" / "schemas").glob("*.json")}
    assert shipped == {f"{n}.schema.json" for n in NAMES}


# -- no drift from the code --------------------------------------------------------------


def test_combat_fields_are_the_parsers() -> None:
    c = combat_module
    assert props("combat") == set(c._TOP_FIELDS)
    assert set(c.REQUEST_FIELDS) <= props("combat")
    assert props("combat", "$defs", "player") == set(c._PLAYER_FIELDS)
    assert props("combat", "$defs", "creature") == set(c._CREATURE_FIELDS)
    assert props("combat", "$defs", "planeswalker") == set(c._PLANESWALKER_FIELDS)
    assert props("combat", "$defs", "battle") == set(c._BATTLE_FIELDS)
    assert props("combat", "$defs", "prevention") == set(c._PREVENTION_FIELDS)
    assert props("combat", "$defs", "multiplier") == set(c._MULTIPLIER_FIELDS)
    assert props("combat", "$defs", "loss_threshold") == set(c._LOSS_THRESHOLD_FIELDS)
    factor = definition("combat", "$defs", "multiplier", "properties", "factor")
    assert factor["maximum"] == c.MAX_FACTOR_PRODUCT
    assert props("assignment", "$defs", "entry") == {"source", "target", "amount"}


def test_combat_bounds_are_the_parsers_limits() -> None:
    c = combat_module
    d = definition("combat", "$defs")
    for name in ("integer", "natural"):
        assert d[name]["maximum"] == c.MAX_MAGNITUDE
    assert d["integer"]["minimum"] == -c.MAX_MAGNITUDE
    assert definition("assignment", "$defs", "amount")["maximum"] == c.MAX_MAGNITUDE
    for schema in ("combat", "assignment"):
        ident = definition(schema, "$defs", "id")
        assert (ident["minLength"], ident["maxLength"]) == (1, c.MAX_ID_LENGTH)
    assert d["name"]["maxLength"] == c.MAX_TEXT_LENGTH
    creature = d["creature"]["properties"]
    assert creature["keywords"]["items"]["maxLength"] == c.MAX_TEXT_LENGTH
    assert creature["keywords"]["maxItems"] == c.MAX_OBJECTS
    assert creature["blocking"]["maxItems"] == c.MAX_BLOCKS_PER_CREATURE
    for key in ("players", "creatures", "planeswalkers", "battles"):
        assert definition("combat", "properties", key)["maxItems"] == c.MAX_OBJECTS
    assert definition("combat", "properties", "step")["enum"] == [*c.STEPS, None]
    limit = d["time_limit"]["anyOf"][0]
    assert (limit["exclusiveMinimum"], limit["maximum"]) == (0, api.MAX_TIME_LIMIT)


def test_terms_and_sides_are_the_solvers() -> None:
    assert tuple(definition("combat", "$defs", "term")["enum"]) == objectives.TERMS
    from trample.solver.actions.plan import ACCEPTED_TERMS

    assert tuple(definition("plan-result", "$defs", "term")["enum"]) == ACCEPTED_TERMS
    from trample.solver.rules.choosers import SIDES

    assert definition("combat", "$defs", "side")["enum"] == [*SIDES, None]
    assert definition("solve-result", "properties", "side")["enum"] == list(SIDES)


def test_game_fields_are_the_parsers() -> None:
    s = state_json
    assert props("game") == set(s._STATE_FIELDS)
    assert props("game", "$defs", "player") == set(s._PLAYER_FIELDS)
    assert props("game", "$defs", "card_object") == set(s._CARD_OBJECT_FIELDS)
    assert props("game", "$defs", "permanent") == set(s._PERMANENT_FIELDS)
    assert props("game", "$defs", "trigger") == set(s._TRIGGER_FIELDS)
    assert definition("game", "properties", "format")["const"] == s.FORMAT


def test_game_actions_are_the_models() -> None:
    action = definition("game", "$defs", "action")
    assert action["properties"]["action"]["enum"] == list(state_json.ACTIONS)
    branches = {b["if"]["properties"]["action"]["const"]: b["then"] for b in action["allOf"]}
    assert set(branches) == set(state_json.ACTIONS)
    for name, (fields, _) in state_json.ACTIONS.items():
        assert set(branches[name]["properties"]) == {"action", *fields}, name
    events = {cls.__name__ for cls in vars(events_module).values()
              if isinstance(cls, type) and issubclass(cls, events_module.Event)
              and cls is not events_module.Event
              and not cls.__name__.startswith("_")}  # the bases that share fields
    assert set(definition("game", "$defs", "event", "properties", "event")["enum"]) == events


def _accepted(method: str) -> set[str]:
    """The params a serve method accepts, as its own refusal of an unknown one lists them."""
    answer = serve.handle({"jsonrpc": "2.0", "method": method, "params": {"zz": 1}, "id": 1})
    assert answer is not None
    found = re.search(r"accepted: ([a-z_, ]+)\)", answer["error"]["message"])
    assert found, answer
    return set(found.group(1).split(", "))


def test_serve_params_and_limits_are_the_servers() -> None:
    named = [b["if"]["properties"]["method"]["const"]
             for b in definition("serve-request", "$defs", "request")["allOf"]]
    assert set(named) == set(methods.METHODS)
    for method in methods.METHODS:
        assert props("serve-request", "$defs", method) == _accepted(method), method
    d = definition("serve-request", "$defs")
    assert d["enumerate"]["properties"]["limit"]["anyOf"][0]["maximum"] == methods.MAX_ENUMERATE
    assert d["sample"]["properties"]["n"]["maximum"] == methods.MAX_SAMPLES
    assert (d["enumerate"]["properties"]["after"]["anyOf"][0]["maximum"]
            == methods.MAX_ENUMERATE_AFTER)
    assert schemas()["serve-request"]["oneOf"][1]["maxItems"] == protocol.MAX_BATCH
    codes = definition("serve-response", "$defs", "error", "properties", "code")["enum"]
    assert codes == [protocol.PARSE_ERROR, protocol.INVALID_REQUEST, protocol.METHOD_NOT_FOUND,
                     protocol.INVALID_PARAMS, protocol.INTERNAL_ERROR, protocol.REQUEST_CANCELLED]


# -- documents and examples ----------------------------------------------------------------


@pytest.mark.parametrize("path", sorted(DATA.glob("*.json")), ids=lambda p: p.name)
def test_every_document_in_tests_data_validates(path: Path) -> None:
    document = json.loads(path.read_text("utf-8"))
    if isinstance(document, list) and document and all(
            isinstance(e, dict) and "blocker" in e for e in document):
        check("board", document, "/$defs/declaration")  # a block declaration (§11)
        return
    if isinstance(document, list) and document and all(isinstance(d, list) for d in document):
        for declaration in document:  # evaluate_blocks' list of declarations (§11)
            check("board", declaration, "/$defs/declaration")
        return
    check(kind_of(document), document)


def json_blocks(text: str) -> list[Any]:
    return [json.loads(block) for block in re.findall(r"```json\n(.*?)```", text, flags=re.S)]


def console_lines(text: str) -> list[tuple[str, str]]:
    """(command, output line) for each output line of ``$ trample ...`` in console blocks."""
    found = []
    for block in re.findall(r"```console\n(.*?)```", text, flags=re.S):
        command = ""
        for line in block.splitlines():
            if line.startswith("$ "):
                command = line[2:]
            elif line.strip():
                found.append((command, line))
    return found


def transcript_lines(text: str) -> list[tuple[str, str]]:
    """``>`` request and ``<`` response lines of serve transcripts in text blocks."""
    return [(m.group(1), m.group(2))
            for block in re.findall(r"```text\n(.*?)```", text, flags=re.S)
            for m in re.finditer(r"^([<>]) (.*)$", block, flags=re.M)]


OUTPUT_SCHEMA = {"solve": "solve-result", "validate": "validate-result",
                 "count": "count-result", "enumerate": "assignment-line",
                 "sample": "assignment-line", "plan": "plan-result"}


def _output_schema(command: str) -> tuple[str, str] | None:
    words = shlex.split(command)
    if words[1] in OUTPUT_SCHEMA:
        return OUTPUT_SCHEMA[words[1]], ""
    if words[1] == "apply":
        return "game", "/$defs/apply-result"
    if words[1:] == ["demo", "--json"]:
        return "solve-result", ""
    return None  # text output (demo)


def test_the_docs_have_json_and_console_examples() -> None:
    assert sum(len(json_blocks(page.read_text("utf-8"))) for page in DOCS.values()) >= 5
    assert sum(len(console_lines(page.read_text("utf-8"))) for page in DOCS.values()) >= 40


@pytest.mark.parametrize("doc", DOCS)
def test_every_json_example_in_the_docs_validates(doc: str) -> None:
    for document in json_blocks(DOCS[doc].read_text("utf-8")):
        check(kind_of(document), document)


@pytest.mark.parametrize("doc", DOCS)
def test_every_console_output_line_in_the_docs_validates(doc: str) -> None:
    for command, line in console_lines(DOCS[doc].read_text("utf-8")):
        target = _output_schema(command)
        if target is not None and line.startswith("{"):  # not an error on standard error
            check(target[0], json.loads(line), target[1])


@pytest.mark.parametrize("doc", DOCS)
def test_every_serve_transcript_line_in_the_docs_validates(doc: str) -> None:
    for direction, line in transcript_lines(DOCS[doc].read_text("utf-8")):
        if direction == "<":
            check("serve-response", json.loads(line))
        elif "{...}" not in line and line.lstrip().startswith(("{", "[")):
            with contextlib.suppress(json.JSONDecodeError):  # "> not json" is the point
                request = json.loads(line)
                if serve.handle(request) is not None and "error" not in serve.handle(request):
                    check("serve-request", request)


def test_the_specs_python_example_validates_a_document() -> None:
    text = DOCS["docs/spec.md"].read_text("utf-8")
    [code] = re.findall(r"```python\n(.*?)```", text, flags=re.S)
    document = json.loads((DATA / "spec_example.json").read_text("utf-8"))
    exec(code, {"document": document})
    from jsonschema import ValidationError

    with pytest.raises(ValidationError):
        exec(code, {"document": {**document, "colour": "red"}})


# -- real answers --------------------------------------------------------------------------


@SOME
@given(combats(), st.sampled_from(["attackers", "blockers"]), st.data())
def test_real_answers_validate(doc: dict[str, Any], side: str, data: st.DataObject) -> None:
    check("combat", doc)
    solved = api.solve(doc, side=side)
    check("solve-result", solved)
    check("validate-result", api.validate(doc, solved["assignment"], side=side))
    amounts = data.draw(proposals(doc, side))
    proposal = [{"source": s, "target": t, "amount": a} for (s, t), a in amounts.items()]
    check("assignment", proposal)
    check("validate-result", api.validate(doc, proposal, side=side))
    check("count-result", api.count(doc, side=side))
    for line in api.enumerate_assignments(doc, side=side, limit=20):
        check("assignment-line", line)
    for line in api.sample(doc, side=side, n=3, seed=1):
        check("assignment-line", line)
    for method, params in (("solve", {}), ("count", {}), ("enumerate", {"limit": 5}),
                           ("sample", {"n": 2}), ("validate", {"assignment": proposal})):
        request = {"jsonrpc": "2.0", "method": method, "id": 7,
                   "params": {"combat": doc, "side": side, **params}}
        check("serve-request", request)
        line = serve.respond(json.dumps(request))
        assert line is not None
        check("serve-response", json.loads(line))


@cache
def generated() -> list[dict[str, Any]]:
    """Combats of the benchmark generators, small sizes."""
    import sys

    if str(ROOT) not in sys.path:  # benchmarks/ is not installed: import it from the checkout
        sys.path.insert(0, str(ROOT))
    from benchmarks import generators

    return [generators.tiny(3, 1), generators.gang_block(6, 2),
            generators.token_army(4, 8, 3), generators.shared_blockers(6, 18, 0.3, 6),
            generators.token_swarm(10, 30, 0.3, 5), generators.planeswalker_pileup(5, 6)]


@pytest.mark.parametrize("index", range(6))
def test_answers_on_generated_combats_validate(index: int) -> None:
    doc = generated()[index]
    check("combat", doc)
    for side in ("attackers", "blockers"):
        solved = api.solve(doc, side=side)
        check("solve-result", solved)
        check("validate-result", api.validate(doc, solved["assignment"], side=side))
        check("validate-result", api.validate(doc, [], side=side))
        check("count-result", api.count(doc, side=side))
        for line in api.enumerate_assignments(doc, side=side, limit=3):
            check("assignment-line", line)
        for line in api.sample(doc, side=side, n=2, seed=index):
            check("assignment-line", line)


def test_the_game_documents_round_trip_and_apply_validates() -> None:
    state = json.loads((DATA / "teachings_state.json").read_text("utf-8"))
    written = state_json.state_to_json(state_json.state_from_json(state))
    check("game", written)
    action = {"action": "resolve_chapter", "object": "o4", "chapter": 1}
    check("game", action, "/$defs/action")
    check("game", state_json.apply(state, action), "/$defs/apply-result")
    request = {"jsonrpc": "2.0", "method": "apply", "id": 1,
               "params": {"state": state, "action": action}}
    check("serve-request", request)
    line = serve.respond(json.dumps(request))
    assert line is not None
    check("serve-response", json.loads(line))


def test_serve_errors_validate() -> None:
    for line in ("not json", "[]", '{"jsonrpc": "2.0", "method": "nope", "id": 1}',
                 '{"jsonrpc": "2.0", "method": "count", "params": {}, "id": "x"}',
                 '[{"jsonrpc": "2.0", "method": "count", "params": {}, "id": 1}]'):
        answer = serve.respond(line)
        assert answer is not None
        check("serve-response", json.loads(answer))


def test_a_feasible_answer_needs_a_bound_and_an_optimal_one_has_none() -> None:
    answer = {"status": "optimal", "side": "attackers", "step": "regular",
              "objective": {"lethal": 0}, "assignment": []}
    assert valid("solve-result", answer)
    assert not valid("solve-result", {**answer, "bound": {"lethal": 1}})
    assert not valid("solve-result", {**answer, "status": "feasible"})
    assert valid("solve-result", {**answer, "status": "feasible", "bound": {"lethal": 1}})
    assert not valid("solve-result", {**answer, "objective": {"lethall": 0}})


# -- refused by both -----------------------------------------------------------------------


def _broken(change: Any) -> dict[str, Any]:
    doc = json.loads((DATA / "spec_example.json").read_text("utf-8"))
    change(doc)
    return doc


REFUSED = {
    "unknown field": lambda d: d["creatures"][0].update(toughnes=5),
    "unknown top-level field": lambda d: d.update(sides="attackers"),
    "missing players": lambda d: d.pop("players"),
    "no players": lambda d: d.update(players=[]),
    "missing power": lambda d: d["creatures"][0].pop("power"),
    "empty id": lambda d: d["players"][0].update(id=""),
    "long id": lambda d: d["battles"][0].update(id="x" * 201),
    "power past 2^40": lambda d: d["creatures"][0].update(power=2**40 + 1),
    "negative damage": lambda d: d["creatures"][1].update(damage=-1),
    "power as text": lambda d: d["creatures"][0].update(power="5"),
    "blocked as text": lambda d: d["creatures"][0].update(blocked="yes"),
    "keywords not a list": lambda d: d["creatures"][0].update(keywords="Trample"),
    "blocking twice": lambda d: d["creatures"][1].update(blocking=["vessel", "vessel"]),
    "unknown step": lambda d: d.update(step="combat"),
    "other format": lambda d: d.update(format="combat/2"),
    "unknown side": lambda d: d.update(side="defenders"),
    "unknown term": lambda d: d.update(objective=["lethal", "damage"]),
    "term twice": lambda d: d.update(objective=["kills", "kills"]),
    "no terms": lambda d: d.update(objective=[]),
    "time limit 0": lambda d: d.update(time_limit=0),
    "time limit over a day": lambda d: d.update(time_limit=86401),
    "negative amount": lambda d: d.update(assignment=[
        {"source": "vessel", "target": "wall", "amount": -1}]),
    "entry field": lambda d: d.update(assignment=[
        {"source": "vessel", "target": "wall", "amount": 1, "why": "x"}]),
}


@pytest.mark.parametrize("defect", REFUSED)
def test_schema_and_parser_both_refuse(defect: str) -> None:
    doc = _broken(REFUSED[defect])
    assert not valid("combat", doc)
    with pytest.raises(InputError):
        space = api.space_of(doc)
        if doc.get("assignment") is not None:
            api.validate(doc)
        assert space is None  # not reached: the parser refused


def test_the_worked_example_is_accepted_by_both() -> None:
    doc = _broken(lambda d: d.update(side="attackers", objective="kills,lethal",
                                     time_limit=1.5))
    check("combat", doc)
    Combat.from_json(doc)
    api.space_of(doc)


GAME_REFUSED = {
    "unknown field": lambda s: s.update(colour="red"),
    "other format": lambda s: s.update(format="trample-game/2"),
    "player id like an object id": lambda s: s["players"][1].update(id="o99"),
    "negative poison": lambda s: s["players"][0].update(poison=-1),
    "unknown face": lambda s: s["battlefield"][0].update(face="side"),
    "turn 0": lambda s: s.update(turn=0),
}


@pytest.mark.parametrize("defect", GAME_REFUSED)
def test_schema_and_game_parser_both_refuse(defect: str) -> None:
    state = json.loads((DATA / "teachings_state.json").read_text("utf-8"))
    GAME_REFUSED[defect](state)
    assert not valid("game", state)
    with pytest.raises(InputError):
        state_json.state_from_json(state)


@pytest.mark.parametrize("action", [
    {"action": "explode"}, {"action": "mill", "player": "you"},
    {"action": "mill", "player": "you", "count": 1, "as": "gift"},
    {"action": "transform", "object": "o4", "colour": "red"},
    {"action": "resolve_chapter", "object": "o4", "chapter": 0}])
def test_schema_and_apply_both_refuse_a_bad_action(action: dict[str, Any]) -> None:
    state = json.loads((DATA / "teachings_state.json").read_text("utf-8"))
    assert not valid("game", action, "/$defs/action")
    with pytest.raises(InputError):
        state_json.apply(state, action)


# -- the spec's limits table ---------------------------------------------------------------


def _spellings(value: float) -> set[str]:
    """The ways docs/spec.md may write a limit's value."""
    out = {f"{value:,.0f}", f"{value:g}"}
    if isinstance(value, int) and value > 0 and value & (value - 1) == 0:
        out.add(f"2^{value.bit_length() - 1}")
        if value >= 2**20:
            out.add(f"{value // 2**20} MiB")
    if isinstance(value, float):
        out |= {f"{value:g} s", f"{value / 3600:g} h"}
    if isinstance(value, int) and value % 2**20 == 0 and value >= 2**20:
        out.add(f"{value // 2**20} MiB")
    return out


def test_the_specs_limits_are_the_codes() -> None:
    """Every constant the spec's limits table names has the value the table gives it."""
    from trample.solver.actions import plan, union
    from trample.solver.blocks import value
    from trample.solver.count import work
    from trample.solver.optimize import cpsat, fastpath, lone_groups, milp
    from trample.solver.rules import legal_space as rules

    modules = [combat_module, cli, protocol, methods, api, work, cpsat, fastpath,
               lone_groups, milp, plan, rules, union, value]
    text = DOCS["docs/spec.md"].read_text("utf-8")
    section = text.split("## 9. Limits", 1)[1].split("\n## ", 1)[0]
    named = re.findall(r"^\|.*$", section, flags=re.M)
    found = 0
    for row in named:
        for name in re.findall(r"\(`([A-Z_]+)`[,)]", row):
            # One value (a module may import another's constant, as value does plan's).
            values = {getattr(m, name) for m in modules if hasattr(m, name)}
            assert len(values) == 1, name
            [limit] = values
            assert any(s in row for s in _spellings(limit)), (name, limit, row)
            found += 1
    for name in re.findall(r"\(`([A-Z_]+)`, `", section):  # the notes below the table
        assert any(hasattr(m, name) for m in modules), name
    assert found >= 14


def test_plan_and_next_step_answers_validate() -> None:
    doc = json.loads((DATA / "plan_example.json").read_text("utf-8"))
    planned = api.plan(doc)
    check("plan-result", planned)
    after = api.next_step(doc, planned["first_strike"],
                          planned["line"]["blockers_first_strike"])
    check("plan-result", after, "/$defs/next-step-result")
    for method, params in (("plan", {"combat": doc, "objective": ["deaths", "survivals"]}),
                           ("next_step", {"combat": doc, "attackers": planned["first_strike"],
                                          "blockers": []})):
        request = {"jsonrpc": "2.0", "method": method, "params": params, "id": 1}
        check("serve-request", request)
        check("serve-response", serve.handle(request))
    enum = definition("serve-request", "$defs", "plan", "properties",
                      "objective")["anyOf"][0]["items"]["enum"]
    assert enum == list(definition("plan-result", "$defs", "term")["enum"])


def test_serve_session_methods_validate() -> None:
    hello = {"jsonrpc": "2.0", "method": "initialize",
             "params": {"capabilities": {"out_of_order": True}}, "id": 0}
    check("serve-request", hello)
    check("serve-response", serve.handle(hello))
    cancel = {"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {"id": "a"}, "id": 1}
    check("serve-request", cancel)
    check("serve-response", serve.handle(cancel))
    check("serve-response",
          protocol.error_answer(protocol.REQUEST_CANCELLED, "request cancelled", 3))


# -- SPEC §11: boards and the answers about them -------------------------------------------


def test_board_fields_are_the_readers() -> None:
    from trample.models.document import board as board_module
    from trample.solver.interface import blocks_api

    c = combat_module
    creature = props("board", "$defs", "creature")
    assert creature == (set(c._CREATURE_FIELDS) - {"blocking", "blocked"}) \
        | set(board_module.CREATURE_FIELDS)
    assert props("board") == set(c._TOP_FIELDS) | set(board_module.TOP_FIELDS) \
        | set(blocks_api.REQUEST_FIELDS)
    limit = definition("board", "properties", "limit")
    assert limit["maximum"] == blocks_api.MAX_ENUMERATE
    assert definition("board", "properties", "declarations")["maxItems"] \
        == blocks_api.MAX_DECLARATIONS


BOARD = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": 4}],
         "creatures": [
             {"id": "giant", "controller": "ap", "power": 6, "toughness": 6,
              "keywords": ["trample", "first strike"], "attacking": "dp", "value": 5},
             {"id": "bat", "controller": "ap", "power": 1, "toughness": 1,
              "keywords": ["flying", "menace"], "attacking": "dp"},
             {"id": "wall", "controller": "dp", "power": 0, "toughness": 4,
              "must_block": True},
             {"id": "adder", "controller": "dp", "power": 1, "toughness": 1,
              "keywords": ["deathtouch"], "value": 2, "blocks_max": 2},
             {"id": "hawk", "controller": "dp", "power": 1, "toughness": 1,
              "keywords": ["flying"], "tapped": False}],
         "cannot_block": [{"blocker": "hawk", "attacker": "*"}]}


def test_a_board_and_every_answer_about_it_validate() -> None:
    check("board", BOARD)
    check("board", {**BOARD, "blocks": [{"blocker": "wall", "attacker": "giant"}],
                    "fixed": {"adder": []}, "ties": True, "limit": 3})
    assert not valid("board", {**BOARD, "creatures": [{**BOARD["creatures"][2],
                                                        "blocking": ["giant"]}]})
    assert not valid("board", {**BOARD, "creatures": [{**BOARD["creatures"][2],
                                                        "blocks_max": 0}]})
    check("blocks-result", api.check_blocks(BOARD, [{"blocker": "hawk", "attacker": "bat"}]),
          "/$defs/check_blocks")
    check("blocks-result", api.block_pairs(BOARD), "/$defs/block_pairs")
    check("count-result", api.count_blocks(BOARD))
    listed = api.enumerate_blocks(BOARD)
    check("blocks-result", listed, "/$defs/enumerate_blocks")
    check("blocks-result", api.block_options(BOARD, {}), "/$defs/block_options")
    evaluated = api.evaluate_blocks(BOARD, [*listed["declarations"],
                                            [{"blocker": "hawk", "attacker": "giant"}]])
    assert [r["legal"] for r in evaluated["results"]][-1] is False
    check("blocks-result", evaluated, "/$defs/evaluate_blocks")
    check("blocks-result", api.best_block(BOARD, ties=True), "/$defs/best_block")
    home = {**BOARD, "creatures": [{k: v for k, v in c.items() if k != "attacking"}
                                   for c in BOARD["creatures"]]}
    check("board", home)
    check("blocks-result", api.best_attack(home, ties=True), "/$defs/best_attack")


def test_the_blocks_methods_through_serve_validate() -> None:
    calls = [("check_blocks", {"blocks": [{"blocker": "wall", "attacker": "giant"}]},
              "/$defs/check_blocks"),
             ("block_pairs", {}, "/$defs/block_pairs"),
             ("count_blocks", {"fixed": {"wall": ["giant"]}}, None),
             ("enumerate_blocks", {"limit": 2}, "/$defs/enumerate_blocks_page"),
             ("block_options", {"fixed": {}, "blocker": "adder"}, "/$defs/block_options"),
             ("evaluate_blocks", {"declarations": [[]]}, "/$defs/evaluate_blocks"),
             ("best_block", {"ties": True}, "/$defs/best_block")]
    for method, params, pointer in calls:
        request = {"jsonrpc": "2.0", "method": method, "params": {"combat": BOARD, **params},
                   "id": 1}
        check("serve-request", request)
        answer = serve.handle(request)
        assert answer is not None and "result" in answer, answer
        check("serve-response", answer)
        result = answer["result"]
        if method == "enumerate_blocks":  # a page: "next" says where the next one starts
            assert result["complete"] == (api.count_blocks(BOARD)["count"] <= 2)
            assert result["complete"] or result["next"] == 2
        if pointer is None:
            check("count-result", result)
        else:
            check("blocks-result", result, pointer)
    bad = serve.handle({"jsonrpc": "2.0", "method": "check_blocks", "id": 2,
                        "params": {"combat": BOARD, "blocks": [{"blocker": "ghost",
                                                                "attacker": "giant"}]}})
    assert bad is not None and bad["error"]["message"].startswith("params.blocks[0].blocker:")
