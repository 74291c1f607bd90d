"""Splits as actions through the command line and ``serve``: the same answers as the
Python API, and bad input refused naming the field (exit 2, -32602)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from trample.solver.interface import api, protocol
from trample.solver.interface import serve as engine

import brute
from conftest import SPEC_EXAMPLE

OGRE: dict[str, Any] = {
    "active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": 3}],
    "creatures": [{"id": "ogre", "controller": "ap", "power": 5, "toughness": 5,
                   "keywords": ["trample"], "attacking": "dp"},
                  {"id": "bear", "controller": "dp", "power": 2, "toughness": 2,
                   "blocking": ["ogre"]},
                  {"id": "wall", "controller": "dp", "power": 0, "toughness": 3,
                   "blocking": ["ogre"]}]}
COMBATS = [OGRE, SPEC_EXAMPLE]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trample.solver", *args],
                          capture_output=True, text=True, timeout=120)


def call(method: str, params: dict[str, Any]) -> Any:
    line = json.dumps({"jsonrpc": "2.0", "method": method, "params": params, "id": 1})
    answer = engine.respond(line)
    assert answer is not None
    return json.loads(answer)


@pytest.mark.parametrize("doc", COMBATS, ids=["ogre", "spec"])
def test_serve_answers_as_the_api(doc: dict[str, Any]) -> None:
    count = api.count(doc)["count"]
    legal = [a["assignment"] for a in api.enumerate_assignments(doc)]
    assert len(legal) == count == len(brute.legal_assignments(doc, "attackers"))
    assert call("pair_order", {"combat": doc})["result"] == api.pairs(doc)
    for i, assignment in enumerate(legal):
        assert call("unrank", {"combat": doc, "index": i})["result"] == \
            {"assignment": assignment}
        assert call("rank", {"combat": doc, "assignment": assignment})["result"] == \
            {"index": i}
    first = api.pairs(doc)["pairs"][0]
    options = call("options", {"combat": doc})["result"]
    assert options == api.options(doc) and options["pair"] == first
    assert sum(c for _, c in options["amounts"]) == count
    for amount, completions in options["amounts"]:
        fixed = [{"source": first[0], "target": first[1], "amount": amount}]
        assert call("count", {"combat": doc, "fixed": fixed})["result"] == \
            {"count": completions}
    wish = [{"source": first[0], "target": first[1], "amount": 0.5}]
    assert call("project", {"combat": doc, "amounts": wish})["result"] == \
        api.project(doc, wish)


def test_serve_refuses_bad_action_params_naming_them() -> None:
    for method, params, path in (
            ("unrank", {"combat": OGRE}, "params.index"),
            ("unrank", {"combat": OGRE, "index": 10**6}, "params.index"),
            ("unrank", {"combat": OGRE, "index": -1}, "params.index"),
            ("project", {"combat": OGRE}, "params.amounts"),
            ("rank", {"combat": OGRE, "assignment": [
                {"source": "ogre", "target": "dp", "amount": 5}]}, "params.assignment"),
            ("options", {"combat": OGRE, "pair": ["ogre", "nobody"]}, "params.pair"),
            ("count", {"combat": OGRE, "fixed": [
                {"source": "bear", "target": "ogre", "amount": 1}]}, "params.fixed")):
        error = call(method, {**params})["error"]
        assert error["code"] == protocol.INVALID_PARAMS, (method, error)
        assert error["message"].startswith(path), (method, error)


def test_the_command_line_answers_as_the_api(tmp_path: Path) -> None:
    doc = tmp_path / "ogre.json"
    doc.write_text(json.dumps(OGRE))
    legal = [a["assignment"] for a in api.enumerate_assignments(OGRE)]
    last = len(legal) - 1
    done = cli("unrank", str(doc), str(last))
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == {"assignment": legal[last]}
    assignment = tmp_path / "a.json"
    assignment.write_text(json.dumps(legal[last]))
    assert json.loads(cli("rank", str(doc), str(assignment)).stdout) == {"index": last}
    assert json.loads(cli("pairs", str(doc)).stdout) == api.pairs(OGRE)
    assert json.loads(cli("options", str(doc), "--pair", "ogre,dp").stdout) == \
        api.options(OGRE, None, ["ogre", "dp"])
    fixed = tmp_path / "f.json"
    fixed.write_text(json.dumps([{"source": "ogre", "target": "bear", "amount": 2}]))
    assert json.loads(cli("count", str(doc), "--fixed", str(fixed)).stdout) == \
        api.count_fixed(OGRE, [{"source": "ogre", "target": "bear", "amount": 2}])
    wish = tmp_path / "w.json"
    wish.write_text(json.dumps([{"source": "ogre", "target": "dp", "amount": 9.5}]))
    assert json.loads(cli("project", str(doc), str(wish)).stdout) == \
        api.project(OGRE, [{"source": "ogre", "target": "dp", "amount": 9.5}])
    for args in (("unrank", str(doc), str(len(legal))), ("unrank", str(doc), "x"),
                 ("unrank", str(doc), "-1")):
        refused = cli(*args)
        assert refused.returncode == 2 and refused.stderr.startswith("trample: index"), \
            refused.stderr
        assert "Traceback" not in refused.stderr
