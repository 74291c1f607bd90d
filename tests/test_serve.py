"""``trample serve`` end to end (SPEC §6): JSON-RPC 2.0, one request per line."""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from trample.solver.interface import api

import brute
from conftest import SPEC_EXAMPLE


def serve(lines: list[str]) -> tuple[list[Any], subprocess.CompletedProcess[str]]:
    result = subprocess.run([sys.executable, "-m", "trample.solver", "serve"],
                            input="".join(line + "\n" for line in lines),
                            capture_output=True, text=True, timeout=120)
    return [json.loads(line) for line in result.stdout.splitlines()], result


def request(method: str, params: Any, rid: Any = 1) -> str:
    return json.dumps({"jsonrpc": "2.0", "method": method, "params": params, "id": rid})


def test_every_method_answers_as_the_api() -> None:
    assignment = [{"source": "vessel", "target": "wall", "amount": 3},
                  {"source": "vessel", "target": "jace", "amount": 2}]
    lines = [
        request("solve", {"combat": SPEC_EXAMPLE}, 1),
        request("validate", {"combat": SPEC_EXAMPLE, "assignment": assignment}, 2),
        request("count", {"combat": SPEC_EXAMPLE}, "three"),
        request("enumerate", {"combat": SPEC_EXAMPLE, "limit": 2}, 4),
        request("sample", {"combat": SPEC_EXAMPLE, "n": 4, "seed": 9}, 5),
        request("enumerate", {"combat": SPEC_EXAMPLE}, 6),
    ]
    answers, result = serve(lines)
    assert result.returncode == 0
    assert [a["id"] for a in answers] == [1, 2, "three", 4, 5, 6]
    assert all(a["jsonrpc"] == "2.0" and "error" not in a for a in answers)
    assert answers[0]["result"] == api.solve(SPEC_EXAMPLE)
    assert answers[1]["result"] == {"legal": True, "violations": []}
    assert answers[2]["result"] == {"count": 3}
    assert answers[3]["result"]["assignments"] == [
        a["assignment"] for a in api.enumerate_assignments(SPEC_EXAMPLE, limit=2)]
    assert answers[3]["result"]["complete"] is False
    assert answers[4]["result"]["assignments"] == [
        a["assignment"] for a in api.sample(SPEC_EXAMPLE, n=4, seed=9)]
    assert answers[5]["result"]["complete"] is True
    for drawn in answers[4]["result"]["assignments"]:
        amounts = {(e["source"], e["target"]): e["amount"] for e in drawn}
        assert brute.is_legal(SPEC_EXAMPLE, "attackers", amounts)


def test_errors_and_the_server_keeps_serving() -> None:
    bad_combat = {**SPEC_EXAMPLE, "creatures": [{**SPEC_EXAMPLE["creatures"][1],
                                                 "blocking": ["ghost"]}]}
    lines = [
        "{this is not json",
        json.dumps([]),
        json.dumps({"jsonrpc": "2.0", "method": "solve", "id": {"no": 1}}),
        json.dumps({"jsonrpc": "1.0", "method": "solve", "params": {}, "id": 3}),
        request("explode", {"combat": SPEC_EXAMPLE}, 4),
        request("solve", {"combat": bad_combat}, 5),
        request("solve", {"combat": SPEC_EXAMPLE, "objective": ["nope"]}, 6),
        request("solve", {"combat": SPEC_EXAMPLE, "speed": "fast"}, 7),
        request("validate", {"combat": SPEC_EXAMPLE}, 8),
        json.dumps({"jsonrpc": "2.0", "method": "count", "params": {"combat": SPEC_EXAMPLE}}),
        request("count", {"combat": SPEC_EXAMPLE}, 10),
        json.dumps([json.loads(request("count", {"combat": SPEC_EXAMPLE}, 11)),
                    json.loads(request("nope", {}, 12))]),
        "",
    ]
    answers, result = serve(lines)
    assert result.returncode == 0
    assert "Traceback" not in result.stderr
    codes = [a["error"]["code"] if isinstance(a, dict) and "error" in a else a
             for a in answers[:9]]
    assert codes == [-32700, -32600, -32600, -32600, -32601, -32602, -32602, -32602, -32602]
    assert answers[0]["id"] is None
    assert answers[5]["id"] == 5
    assert answers[5]["error"]["message"] == (
        "params.combat.creatures[0].blocking[0]: 'ghost' is not an attacking creature")
    assert answers[6]["error"]["message"].startswith("params.objective[0]: unknown term")
    assert answers[7]["error"]["message"].startswith("params.speed: unknown parameter")
    # The notification (no id) got no answer; the next request did.
    assert answers[9] == {"jsonrpc": "2.0", "result": {"count": 3}, "id": 10}
    batch = answers[10]
    assert [a["id"] for a in batch] == [11, 12]
    assert batch[0]["result"] == {"count": 3}
    assert batch[1]["error"]["code"] == -32601
    assert len(answers) == 11


def test_end_of_input_ends_the_server() -> None:
    answers, result = serve([])
    assert answers == [] and result.returncode == 0


def test_an_over_long_line_is_refused_unread_and_serving_goes_on() -> None:
    import io

    from trample.solver.interface import protocol
    from trample.solver.interface import serve as engine

    big = b'{"jsonrpc": "2.0", "method": "count", "params": {"pad": "' \
        + b"x" * (protocol.MAX_LINE_BYTES + 10) + b'"}, "id": 1}\n'
    ok = json.dumps({"jsonrpc": "2.0", "method": "count", "id": 2,
                     "params": {"combat": SPEC_EXAMPLE}}).encode() + b"\n"
    out = io.StringIO()
    assert engine.serve(io.BytesIO(big + ok), out) == 0
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["error"]["code"] == -32700 and "longer than" in first["error"]["message"]
    assert second == {"jsonrpc": "2.0", "result": {"count": 3}, "id": 2}


def test_too_many_workers_is_a_usage_error_in_one_line() -> None:
    hello = request("initialize", {"capabilities": {"out_of_order": True}}, 1)
    for workers in ("100000", "0"):
        result = subprocess.run([sys.executable, "-m", "trample.solver", "serve",
                                 "--workers", workers, "--out-of-order"],
                                input=hello + "\n" + request("count", {"combat": SPEC_EXAMPLE})
                                + "\n", capture_output=True, text=True, timeout=120)
        assert result.returncode == 2 and result.stdout == ""
        assert result.stderr.count("\n") == 1 and "--workers: at least 1 and at most" \
            in result.stderr, result.stderr


def test_an_unknown_method_near_a_known_one_is_named() -> None:
    from trample.solver.interface import serve

    answer = serve.handle({"jsonrpc": "2.0", "method": "best_blocks", "id": 1})
    assert answer is not None and answer["error"]["code"] == -32601
    assert answer["error"]["message"] == ("unknown method 'best_blocks'; did you mean "
                                          "'best_block'?")
    far = serve.handle({"jsonrpc": "2.0", "method": "frobnicate", "id": 2})
    assert far is not None and "evaluate_blocks" in far["error"]["message"]
