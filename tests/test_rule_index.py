"""The rule index: every rule number trample cites is one member of ``Rule``, each member
says where it is implemented, and the table of rules in docs/rules.md is generated from it."""

from __future__ import annotations

import ast
import importlib
import json
import re
from functools import cached_property
from pathlib import Path
from typing import Any

import pytest

from trample.models.document.combat import Combat
from trample.models.document.rule_index import SUMMARY, WHERE, Rule, markdown_table
from trample.solver.interface import api
from trample.solver.rules.choosers import SIDES
from trample.solver.rules.legal_space import derived, legal_space
from trample.solver.rules.validate import violations

from conftest import SPEC_EXAMPLE

ROOT = Path(__file__).resolve().parent.parent
SOLVER = ROOT / "solver"
# A rule number as the code cites it: "702.19c", "510.1", "510.1b-d" (a range of subrules).
CITATION = re.compile(r"(?<![\w.])([1-9]\d{2})\.(\d+)([a-z])?(?:-([a-z]))?(?![\w.])")
# The legal space and the modules that read it: every rule they cite must be indexed.
RULE_MODULES = ("rules/legal_space.py", "rules/validate.py", "rules/pieces.py", "rules/choosers.py",
                "rules/validate_many.py", "optimize/greedy.py", "count/declared.py",
                "count/frontier.py", "count/walk.py", "count/census.py")


def resolve(qualified: str) -> object:
    """The object named ``qualified``: the longest importable module prefix, then
    attributes."""
    parts = qualified.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:cut]))
        except ModuleNotFoundError:
            continue
        for name in parts[cut:]:
            obj = getattr(obj, name)
        return obj
    raise ModuleNotFoundError(qualified)


def cited(text: str) -> set[str]:
    """Every rule number cited in ``text``, ranges expanded ("702.19b-d" -> b, c, d)."""
    found = set()
    for m in CITATION.finditer(text):
        rule, sub, first, last = m.groups()
        if first and last:
            found.update(f"{rule}.{sub}{chr(c)}" for c in range(ord(first), ord(last) + 1))
        else:
            found.add(f"{rule}.{sub}{first or ''}")
    return found


def test_every_member_has_a_summary_and_where() -> None:
    assert set(SUMMARY) == set(Rule) == set(WHERE)
    for rule in Rule:
        assert rule.summary.strip() and "\n" not in rule.summary, rule
        assert rule.where, rule


@pytest.mark.parametrize("rule", list(Rule), ids=str)
def test_every_where_entry_resolves_to_code(rule: Rule) -> None:
    for name in rule.where:
        obj = resolve(name)
        code = property | cached_property | derived | type
        assert callable(obj) or isinstance(obj, code), (rule, name)


def test_the_resolver_fails_on_a_name_that_is_not_there() -> None:
    with pytest.raises(AttributeError):
        resolve("trample.solver.rules.legal_space.LegalSpace.no_such_rule")


def test_member_values_are_their_names() -> None:
    # R702_19C is "702.19c": a reader can go from one to the other without the table.
    for rule in Rule:
        assert rule.name == "R" + rule.value.replace(".", "_").upper()


def test_citations_in_the_legal_space_modules_are_members() -> None:
    for module in RULE_MODULES:
        missing = cited((SOLVER / module).read_text(encoding="utf-8")) - set(Rule)
        assert not missing, f"solver/{module} cites {sorted(missing)}: add them to Rule"


def test_citations_anywhere_in_solver_are_members() -> None:
    missing = {}
    for path in sorted(SOLVER.rglob("*.py")):
        gone = cited(path.read_text(encoding="utf-8")) - set(Rule)
        if gone:
            missing[path.name] = sorted(gone)
    assert not missing, f"cited but not in Rule: {missing}"


def test_citation_pattern_reads_ranges_and_ignores_other_numbers() -> None:
    assert cited("(510.1b-d, 702.19f) 3600.0 2^40 1.0 v0.1.0") == {
        "510.1b", "510.1c", "510.1d", "702.19f"}


def test_rule_strings_in_solver_code_are_members() -> None:
    # A rule number written as a string literal (a violation's rule, a source's rule)
    # must be a member; the code spells them Rule.R..., so there should be none at all.
    literals = []
    for path in sorted(SOLVER.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str) \
                    and CITATION.fullmatch(node.value.strip()):
                literals.append((path.name, node.value))
    assert all(value in set(Rule) for _, value in literals), literals


def test_of_finds_a_number_or_its_nearest_parent() -> None:
    assert Rule.of("702.19c") is Rule.R702_19C
    assert Rule.of("704.5g") is Rule.R704
    assert Rule.of("510.1") is Rule.R510_1
    assert Rule.of("510.1z") is Rule.R510_1
    assert Rule.of("999.1a") is None
    assert Rule.of("") is None


# -- the rules of answers come from the enum, and print as before --------------------------

def _edge_documents() -> list[dict[str, Any]]:
    ap, dp = {"id": "ap"}, {"id": "dp"}
    walker = {"id": "jace", "controller": "dp", "loyalty": 3}
    return [
        SPEC_EXAMPLE,
        {"active_player": "ap", "players": [ap, dp], "planeswalkers": [walker],
         "creatures": [{"id": "ogre", "controller": "ap", "power": 4, "toughness": 4,
                        "attacking": "jace"},
                       {"id": "top", "controller": "ap", "power": 5, "toughness": 5,
                        "keywords": ["trample over planeswalkers"], "attacking": "jace"},
                       {"id": "wall", "controller": "dp", "power": 1, "toughness": 2,
                        "blocking": ["top"]},
                       {"id": "fs", "controller": "ap", "power": 2, "toughness": 2,
                        "keywords": ["first strike"], "attacking": "dp"},
                       {"id": "zero", "controller": "ap", "power": 0, "toughness": 2,
                        "attacking": "dp"}],
         "step": "regular"},
    ]


@pytest.mark.parametrize("doc", _edge_documents())
@pytest.mark.parametrize("side", SIDES)
def test_space_rules_are_members(doc: dict[str, Any], side: str) -> None:
    space = legal_space(Combat.from_json(doc), side)  # type: ignore[arg-type]
    for s in space.sources:
        assert isinstance(s.rule, Rule)
        assert all(isinstance(rule, Rule) for _, rule in s.elsewhere)
        for r in s.recipients:
            assert r.rule is None or isinstance(r.rule, Rule)
            assert r.rule is not None or not r.gated
    assert all(isinstance(rule, Rule) for rule, _ in space.idle.values())


def test_violation_rules_are_members_and_print_as_plain_numbers() -> None:
    doc = _edge_documents()[1]
    bad = [{"source": "ogre", "target": "dp", "amount": 4},
           {"source": "top", "target": "dp", "amount": 5},
           {"source": "fs", "target": "dp", "amount": 2},
           {"source": "zero", "target": "dp", "amount": 1}]
    space = legal_space(Combat.from_json(doc), "attackers")
    amounts = {(e["source"], e["target"]): e["amount"] for e in bad}
    assert all(isinstance(v.rule, Rule) for v in violations(space, amounts))
    answer = api.validate(doc, bad)
    rules = [v["rule"] for v in answer["violations"]]
    assert all(type(rule) is str for rule in rules)  # plain data for any encoder
    assert set(rules) == {"702.19f", "510.4", "510.1a", "702.19c"}
    text = json.dumps(answer)
    assert '"rule": "702.19f"' in text and "Rule." not in text
    assert json.loads(text)["violations"][0]["rule"] == rules[0]


# -- docs/rules.md ------------------------------------------------------------------------

def test_the_docs_table_is_the_index() -> None:
    page = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    table = markdown_table()
    assert table in page, (
        "docs/rules.md's table of rules differs from trample.models.document.rule_index; "
        "regenerate it with: python -m trample.models.document.rule_index")
    # One row a member, in the enum's order.
    rows = table.splitlines()[2:]
    assert [row.split(" | ")[0].lstrip("| ") for row in rows] == [r.value for r in Rule]
