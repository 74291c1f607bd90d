"""An objective is a list of term names or one comma-separated string of them, the same
at every entry point: the Python functions, the document's own field, ``serve``'s params
and the command line's ``--objective`` (docs/spec.md, "Request fields"). The string is
read by the same reader everywhere, so it means what the list means and is refused with
the same message. ``serve``'s engine and the command line run in this process
(tests/test_serve.py and tests/test_cli.py run them as processes)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from serving import command, served

from trample.models.document.errors import InputError
from trample.models.game.cards import get_card
from trample.models.game.combat_steps import declare_combat
from trample.models.game.seeds import HIDETSUGU
from trample.models.game.state import enter_card, new_game
from trample.models.game.state_json import state_to_json
from trample.solver.interface import api, game_loop

DATA = Path(__file__).resolve().parent / "data"
COMBAT = json.loads((DATA / "cr_702_19c.json").read_text())
PLAN = json.loads((DATA / "plan_example.json").read_text())
BOARD = json.loads((DATA / "blocks_board.json").read_text())
DECLARATIONS = json.loads((DATA / "blocks_declarations.json").read_text())
HOME = {**BOARD, "creatures": [{k: v for k, v in c.items() if k != "attacking"}
                               for c in BOARD["creatures"]]}

SOLVE_TERMS = ["kills", "player_damage"]
"""Not the attackers' default, so an objective dropped on the way would show."""
PLAN_TERMS = ["life_loss", "losses"]
"""Not plan's nor the §11 methods' default either."""


def _state() -> dict[str, Any]:
    """Vessel of the All-Consuming (3/3 trample) attacks, blocked by Grizzly Bears."""
    state = new_game(("ap", "dp"))
    state, vessel, _ = enter_card(state, get_card(HIDETSUGU), "ap", face="back")
    state, bears, _ = enter_card(state, get_card("Grizzly Bears"), "dp")
    state, _ = declare_combat(state, {vessel: "dp"}, {bears: [vessel]})
    return state_to_json(state)


STATE = _state()
ACTION = {"action": "combat_damage_step", "step": "regular"}


def as_text(terms: list[str]) -> str:
    return ",".join(terms)


# Each entry point: (name, the Python call given an objective, serve's method and params
# without the objective, the command line's arguments without --objective, terms).
Call = Callable[[object], Any]
ENTRY_POINTS: list[tuple[str, Call, str, dict[str, Any], list[str], list[str]]] = [
    ("solve", lambda o: api.solve(COMBAT, objective=o),  # type: ignore[arg-type]
     "solve", {"combat": COMBAT}, ["solve", str(DATA / "cr_702_19c.json")], SOLVE_TERMS),
    ("plan", lambda o: api.plan(PLAN, objective=o),  # type: ignore[arg-type]
     "plan", {"combat": PLAN}, ["plan", str(DATA / "plan_example.json")], PLAN_TERMS),
    ("apply", lambda o: game_loop.apply(STATE, ACTION, objective=o),  # type: ignore[arg-type]
     "apply", {"state": STATE, "action": ACTION}, ["apply", "-", json.dumps(ACTION)],
     SOLVE_TERMS),
    ("evaluate_blocks", lambda o: api.evaluate_blocks(BOARD, DECLARATIONS, objective=o),
     "evaluate_blocks", {"combat": BOARD, "declarations": DECLARATIONS},
     ["blocks", "evaluate", str(DATA / "blocks_board.json"),
      str(DATA / "blocks_declarations.json")], PLAN_TERMS),
    ("best_block", lambda o: api.best_block(BOARD, objective=o),
     "best_block", {"combat": BOARD}, ["blocks", "best", str(DATA / "blocks_board.json")],
     PLAN_TERMS),
    ("best_attack", lambda o: api.best_attack(HOME, objective=o),
     "best_attack", {"combat": HOME}, ["attack", "-"], PLAN_TERMS),
]
IDS = [e[0] for e in ENTRY_POINTS]


def terms_answered(answer: dict[str, Any]) -> list[str]:
    """The objective's terms as the answer reports them, in order."""
    if "results" in answer:  # evaluate_blocks: one result per declaration
        answer = answer["results"][0]
    if "events" in answer:  # apply: no objective in the answer; the state shows it
        return []
    return list(answer["objective"])


@pytest.mark.parametrize(("call", "terms"), [(e[1], e[5]) for e in ENTRY_POINTS], ids=IDS)
def test_python_takes_a_string_as_its_list(call: Call, terms: list[str]) -> None:
    listed = call(terms)
    assert call(as_text(terms)) == listed
    assert call(" " + ", ".join(terms) + " ") == listed
    if "events" not in listed:
        assert terms_answered(listed) == terms
    # A bad term is named by its place in the list, whichever form it came in.
    for bad in ([terms[0], "bogus"], as_text([terms[0], "bogus"])):
        with pytest.raises(InputError) as info:
            call(bad)
        assert info.value.path == "objective[1]"
        assert info.value.reason.startswith("unknown term 'bogus'")
    for empty in ([], "", " , "):
        with pytest.raises(InputError, match=r"^objective: must name at least one term$"):
            call(empty)


def test_the_document_field_and_the_prepared_combat_take_a_string() -> None:
    listed = api.solve(COMBAT, objective=SOLVE_TERMS)
    assert api.solve({**COMBAT, "objective": as_text(SOLVE_TERMS)}) == listed
    assert api.prepare(COMBAT).solve(objective=as_text(SOLVE_TERMS)) == listed
    assert api.best_block({**BOARD, "objective": as_text(PLAN_TERMS)}) == \
        api.best_block(BOARD, objective=PLAN_TERMS)
    # The blockers' objective of apply is read the same way.
    assert game_loop.apply(STATE, ACTION, blockers_objective="kills") == \
        game_loop.apply(STATE, ACTION, blockers_objective=["kills"])
    with pytest.raises(InputError) as info:
        game_loop.apply(STATE, ACTION, blockers_objective="kills,lethal")
    assert info.value.path == "blockers_objective[1]"


def test_serve_takes_a_string_as_its_list() -> None:
    requests = []
    for i, (_, _, method, params, _, terms) in enumerate(ENTRY_POINTS):
        for k, objective in enumerate((terms, as_text(terms), as_text([terms[0], "bogus"]))):
            requests.append({"jsonrpc": "2.0", "method": method, "id": 3 * i + k,
                             "params": {**params, "objective": objective}})
    answers = served(requests)
    assert len(answers) == len(requests)
    for i, (name, call, _, _, _, terms) in enumerate(ENTRY_POINTS):
        listed, text, bad = (answers[3 * i + k] for k in range(3))
        assert listed["result"] == call(terms), name
        assert text["result"] == listed["result"], name
        assert bad["error"]["code"] == -32602, name
        assert bad["error"]["message"].startswith(
            "params.objective[1]: unknown term 'bogus'"), name


@pytest.mark.parametrize(("call", "args", "terms"),
                         [(e[1], e[4], e[5]) for e in ENTRY_POINTS], ids=IDS)
def test_the_command_line_reads_its_text_as_the_api_reads_a_string(
        call: Call, args: list[str], terms: list[str], capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    stdin = json.dumps(STATE if args[0] == "apply" else HOME)
    # Spaces around a term and an empty item read as the API reads them.
    text = f"{terms[0]}, ,{terms[1]}"
    status, out, err = command(capsys, monkeypatch, *args, "--objective", text, stdin=stdin)
    assert status == 0, err
    assert json.loads(out) == call(terms)
    for bad in (as_text([terms[0], "bogus"]), ""):
        with pytest.raises(InputError) as info:
            call(bad)
        status, out, err = command(capsys, monkeypatch, *args, "--objective", bad,
                                   stdin=stdin)
        assert status == 2 and out == ""
        assert err == f"trample: {info.value}\n"
