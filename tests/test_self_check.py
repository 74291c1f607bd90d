"""Every assignment leaving solve, enumerate and sample has passed the validator (a single
source's answer, the check of that one source); a failure of that check is an internal
error (JSON-RPC -32603, exit status 3), with the request saved for a bug report, never an
answer."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from trample.models.document.errors import InternalError
from trample.solver.interface import api, cli, serve
from trample.solver.optimize import fastpath, solve
from trample.solver.rules import validate
from trample.solver.rules.validate import Violation

from conftest import SPEC_EXAMPLE


@pytest.fixture
def broken_validator(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    """Make the self-check fail, as it would if a solver path produced an illegal split."""
    def always_wrong(space: object, amounts: object) -> list[Violation]:
        return [Violation("510.1a", "vessel", None, "planted failure")]

    monkeypatch.setattr(validate, "violations", always_wrong)  # what check_answer asks
    monkeypatch.setattr(solve, "violations", always_wrong)
    # A single source's answer is judged by is_legal first (then worded by the validator).
    monkeypatch.setattr(fastpath, "is_legal", lambda *args: False)
    api.forget_spaces()  # a space kept from before keeps the answer it checked then
    monkeypatch.setenv(api.BUG_DIR_VARIABLE, str(tmp_path))
    return tmp_path


@pytest.mark.parametrize("call", [
    lambda: api.solve(SPEC_EXAMPLE),
    lambda: list(api.enumerate_assignments(SPEC_EXAMPLE)),
    lambda: list(api.sample(SPEC_EXAMPLE, n=3)),
])
@pytest.mark.sources
def test_internal_error_saves_the_request(broken_validator: Path, call: object) -> None:
    with pytest.raises(InternalError, match="planted failure") as info:
        call()  # type: ignore[operator]
    saved = list(broken_validator.glob("*.json"))
    assert len(saved) == 1
    assert str(saved[0]) in str(info.value)
    report = json.loads(saved[0].read_text())
    assert report["params"]["combat"] == SPEC_EXAMPLE
    assert "planted failure" in report["error"]


@pytest.mark.sources
def test_internal_error_through_serve_and_cli(broken_validator: Path,
                                             capsys: pytest.CaptureFixture[str],
                                             tmp_path: Path) -> None:
    answer = serve.handle({"jsonrpc": "2.0", "id": 7, "method": "solve",
                           "params": {"combat": SPEC_EXAMPLE}})
    assert answer is not None and answer["error"]["code"] == -32603
    assert "bug report" in answer["error"]["message"]
    path = tmp_path / "combat.json"
    path.write_text(json.dumps(SPEC_EXAMPLE))
    assert cli.main(["solve", str(path)]) == 3
    out, err = capsys.readouterr()
    assert out == ""
    assert err.startswith("trample: internal error:") and len(err.strip().splitlines()) == 1
