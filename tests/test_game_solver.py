"""The solver in the game loop: double strike end to end, ``trample apply``, the scripted
game of ``trample demo --game``."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pytest

from trample.models.document.assignment import Assignment
from trample.models.document.combat import Combat
from trample.models.document.errors import InputError
from trample.models.game.cards import get_card
from trample.models.game.combat_steps import declare_combat, run_combat_damage
from trample.models.game.seeds import HIDETSUGU
from trample.models.game.state import GameState, enter_card, grant_keyword, new_game
from trample.models.game.state_json import apply as apply_without_solver
from trample.models.game.state_json import state_to_json
from trample.solver.interface.game_loop import apply, judge, solver_assign

import brute


def vessel_game() -> tuple[GameState, dict[str, str]]:
    """Vessel of the All-Consuming (back face up, 3/3 trample) with double strike,
    attacking the opponent; a 0/4 wall (mana value 2) and Grizzly Bears block it."""
    state = new_game(("ap", "dp"))
    ids: dict[str, str] = {}
    state, ids["vessel"], _ = enter_card(state, get_card(HIDETSUGU), "ap", face="back")
    state, _ = grant_keyword(state, ids["vessel"], "Double strike")
    state, ids["bears"], _ = enter_card(state, get_card("Grizzly Bears"), "dp")
    state, ids["myr"], _ = enter_card(state, get_card("Darksteel Myr"), "dp")
    state, _ = declare_combat(state, {ids["vessel"]: "dp"},
                              {ids["bears"]: [ids["vessel"]], ids["myr"]: [ids["vessel"]]})
    return state, ids


def test_double_strike_vessel_end_to_end() -> None:
    """RULES.md, 510.2 and 510.4: a double-striking Vessel deals first-strike damage, gets
    its counter, and assigns the regular step with one more power against what remains;
    the solver is asked once per step, with the damage already marked."""
    state, ids = vessel_game()
    asked: list[dict[str, Any]] = []
    solve = solver_assign()

    def assign(combat: Combat) -> Assignment | Sequence[Mapping[str, Any]]:
        document = combat.to_json()
        asked.append(document)
        chosen = solve(combat)
        assert isinstance(chosen, Assignment)
        amounts = {pair: n for pair, n in chosen.items() if pair[0] == ids["vessel"]}
        assert brute.is_legal(document, "attackers", amounts)
        return chosen

    state, _ = run_combat_damage(state, assign, judge)
    first, regular = asked
    assert [first["step"], regular["step"]] == ["first_strike", "regular"]
    power = {d["step"]: next(c["power"] for c in d["creatures"] if c["id"] == ids["vessel"])
             for d in asked}
    assert power == {"first_strike": 3, "regular": 4}
    # First strike: the bears (2/2) die (kills come first); the indestructible Myr (0/1)
    # gets the 1 left or not (a tie for this step's objective), and the regular step's
    # document carries what it got as marked damage.
    assert all(c["id"] != ids["bears"] for c in regular["creatures"])
    myr = next(c for c in regular["creatures"] if c["id"] == ids["myr"])
    assert myr["damage"] in (0, 1)
    # Regular step: whatever the Myr still needs is lethal, the rest tramples over.
    need = 1 - myr["damage"]
    assert state.player("dp").life == 20 - (4 - need)
    assert state.damage_dealt(ids["vessel"], "dp") == 4 - need
    assert state.permanent(ids["vessel"]).power == 5  # two counters, one per step


def test_apply_chooses_combat_damage_with_the_solver() -> None:
    state, ids = vessel_game()
    out = apply(state_to_json(state), {"action": "combat_damage"})
    dealt = [e for e in out["events"] if e["event"] == "DamageDealt"]
    to_player = sum(e["amount"] for e in dealt if e["target"] == "dp")
    assert to_player in (3, 4)
    assert out["state"]["players"][1]["life"] == 20 - to_player
    one = apply(state_to_json(state), {"action": "combat_damage_step", "step": "first_strike"},
                objective=["player_damage"])
    dealt = {(e["source"], e["target"]): e["amount"] for e in one["events"]
             if e["event"] == "DamageDealt"}
    # 3 power cannot get past 2 + 1 of lethal damage: all of it goes to the blockers.
    assert sum(dealt.values()) == 3
    assert set(dealt) <= {(ids["vessel"], ids["bears"]), (ids["vessel"], ids["myr"])}


def test_combat_damage_needs_the_solver() -> None:
    state, _ids = vessel_game()
    with pytest.raises(InputError, match="solver"):
        apply_without_solver(state_to_json(state), {"action": "combat_damage"})


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trample.solver", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_apply_command_and_serve_method(tmp_path: Path) -> None:
    state, _ = vessel_game()
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state_to_json(state)))
    result = run("apply", str(path), '{"action": "combat_damage"}')
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer == apply(state_to_json(state), {"action": "combat_damage"})

    request = {"jsonrpc": "2.0", "method": "apply", "id": 1,
               "params": {"state": state_to_json(state), "action": {"action": "combat_damage"}}}
    bad = {"jsonrpc": "2.0", "method": "apply", "id": 2,
           "params": {"state": state_to_json(state), "action": {"action": "fly"}}}
    served = run("serve", stdin=json.dumps(request) + "\n" + json.dumps(bad) + "\n")
    first, second = (json.loads(line) for line in served.stdout.splitlines())
    assert first["result"] == answer
    assert second["error"]["code"] == -32602
    assert second["error"]["message"].startswith("params.action.action: unknown action")

    bad_state = run("apply", "-", '{"action": "cleanup"}', stdin='{"players": 3}')
    assert bad_state.returncode == 2
    assert bad_state.stderr.startswith("trample: state")


def test_demo_game() -> None:
    """The scripted game: every beat the log must show."""
    result = run("demo", "--game")
    assert result.returncode == 0, result.stderr
    log = result.stdout
    for beat in [
        "Hidetsugu Consumes All chapter I resolves",     # the mass destroy
        "Ornithopter goes from battlefield to graveyard",
        "Hidetsugu Consumes All chapter II resolves",    # the graveyard exile
        "Ornithopter goes from graveyard to exile",
        "Teachings of the Kirin chapter I resolves",     # mill and the Spirit
        "you mill 3",
        "you create a Spirit token",
        "Teachings of the Kirin chapter II resolves, targeting Spirit",
        "returns to the battlefield transformed as Vessel of the All-Consuming",
        "returns to the battlefield transformed as Kirin-Touched Orochi",
        "attacks Jace Beleren",
        "first-strike combat damage step; the solver's splits:",
        "regular combat damage step; the solver's splits:",
        "704.5g",
        "opponent LOSES THE GAME (Vessel of the All-Consuming: it dealt 10 or more damage",
    ]:
        assert beat in log, beat
    assert log.count("attackers (optimal") >= 3
