"""The game never deals an illegal combat damage split, and never reads an impossible
declared combat.

Every entry point that deals combat damage (the Python functions of the game model, which
take the rules' judge as a required argument; ``trample apply``; the serve method
``apply``) refuses a split the solver's validator finds illegal: exit status 2 or error
-32602, the message naming the entry and the rule, the state unchanged.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import replace
from typing import Any

import pytest
from serving import command, served

from trample.models.document.assignment import Assignment
from trample.models.document.errors import InputError
from trample.models.game.cards import get_card
from trample.models.game.combat_steps import (
    combat_damage_step,
    combat_of,
    deal_combat_damage,
    declare_combat,
    run_combat_damage,
)
from trample.models.game.seeds import HIDETSUGU, TEACHINGS, orochi_attack_trigger
from trample.models.game.state import (
    GameState,
    add_card,
    enter_card,
    new_game,
    replace_permanent,
)
from trample.models.game.state_json import apply as apply_without_judge
from trample.models.game.state_json import state_from_json, state_to_json
from trample.solver.interface.game_loop import apply, judge


def battle() -> tuple[GameState, dict[str, str]]:
    """Vessel (3/3 trample) attacks, blocked by Grizzly Bears; Fencing Ace (1/1 double
    strike) attacks unblocked; a second Grizzly Bears of the attacker stays home."""
    state = new_game(("ap", "dp"))
    ids: dict[str, str] = {}
    for key, card, controller, face in [("vessel", HIDETSUGU, "ap", "back"),
                                        ("ace", "Fencing Ace", "ap", "front"),
                                        ("home", "Grizzly Bears", "ap", "front"),
                                        ("bears", "Grizzly Bears", "dp", "front")]:
        state, ids[key], _ = enter_card(state, get_card(card), controller,
                                        face="back" if face == "back" else "front")
    state, _ = declare_combat(state, {ids["vessel"]: "dp", ids["ace"]: "dp"},
                              {ids["bears"]: [ids["vessel"]]})
    return state, ids


def entries(*rows: tuple[str, str, int]) -> list[dict[str, Any]]:
    return [{"source": s, "target": t, "amount": n} for s, t, n in rows]


def illegal_cases(ids: dict[str, str]) -> list[tuple[str, str, list[dict[str, Any]], str]]:
    """(name, step, assignment, expected "path: rule") for each kind of illegal split."""
    v, ace, home, bears = ids["vessel"], ids["ace"], ids["home"], ids["bears"]
    return [
        # A 3/3 assigning 10 (510.1a): with Vessel's clause it would end the game.
        ("too much", "regular",
         entries((v, bears, 2), (v, "dp", 8), (ace, "dp", 1), (bears, v, 2)),
         "assignment[0]: 510.1a"),
        # Trample past a blocker that got nothing (702.19b: lethal damage first).
        ("trample past a blocker", "regular",
         entries((v, "dp", 3), (ace, "dp", 1), (bears, v, 2)), "assignment[0]: 702.19b"),
        # A creature without first strike in the first-strike step (510.4).
        ("no first strike", "first_strike",
         entries((ace, "dp", 1), (v, bears, 2), (v, "dp", 1)), "assignment[1]: 510.4"),
        # A creature that is not in combat (510.1).
        ("not in combat", "regular",
         entries((v, bears, 2), (v, "dp", 1), (ace, "dp", 1), (bears, v, 2), (home, "dp", 2)),
         "assignment[4]: 510.1"),
    ]


def _cases() -> list[Any]:
    _, ids = battle()
    return [pytest.param(step, rows, expected, id=name)
            for name, step, rows, expected in illegal_cases(ids)]


CASES = _cases()


@pytest.mark.parametrize(("step", "rows", "expected"), CASES)
def test_python_functions_refuse_an_illegal_split(step: str, rows: list[dict[str, Any]],
                                                  expected: str) -> None:
    state, _ = battle()
    before = state_to_json(state)
    path, rule = expected.split(": ")
    with pytest.raises(InputError) as info:
        combat_damage_step(state, step, lambda combat: rows, judge)
    assert info.value.path == path and info.value.reason.startswith(f"{rule}:")
    with pytest.raises(InputError) as info:
        deal_combat_damage(state, Assignment.from_json(rows), judge, step=step)
    assert info.value.path == path and info.value.reason.startswith(f"{rule}:")
    assert state_to_json(state) == before  # immutable: nothing was dealt
    for action in ({"action": "deal_combat_damage", "step": step, "assignment": rows},
                   {"action": "combat_damage_step", "step": step, "assignment": rows}):
        with pytest.raises(InputError) as info:
            apply(before, action)
        assert str(info.value).startswith(f"action.{path}: {rule}:"), str(info.value)
        # Without the rules' judge the model deals no combat damage at all.
        with pytest.raises(InputError, match="judge"):
            apply_without_judge(before, action)


def test_a_legal_split_is_dealt() -> None:
    state, ids = battle()
    v, ace, bears = ids["vessel"], ids["ace"], ids["bears"]
    first = entries((ace, "dp", 1))
    state, _ = combat_damage_step(state, "first_strike", lambda combat: first, judge)
    regular = entries((v, bears, 2), (v, "dp", 1), (ace, "dp", 1), (bears, v, 2))
    state, _ = combat_damage_step(state, "regular", lambda combat: regular, judge)
    assert state.player("dp").life == 17 and state.find_permanent(bears) is None


def test_a_judge_is_required_and_decides() -> None:
    # The judge is what the model obeys: one that finds a fault refuses a split the
    # rules allow, and run_combat_damage asks it for every step.
    state, ids = battle()
    asked: list[str] = []

    def strict(combat: Any, assignment: Any) -> list[Any]:
        asked.append(combat.step)
        return judge(combat, assignment)

    def assign(combat: Any) -> list[dict[str, Any]]:
        if combat.step == "first_strike":
            return entries((ids["ace"], "dp", 1))
        return entries((ids["vessel"], ids["bears"], 2), (ids["vessel"], "dp", 1),
                       (ids["ace"], "dp", 1), (ids["bears"], ids["vessel"], 2))

    after, _ = run_combat_damage(state, assign, strict)
    assert asked == ["first_strike", "regular"] and after.player("dp").life == 17


def _run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trample.solver", *args], input=stdin,
                          capture_output=True, text=True, timeout=120)


def test_cli_and_serve_refuse_an_illegal_split() -> None:
    state, _ = battle()
    doc = state_to_json(state)
    requests = []
    for i, (step, rows, expected) in enumerate(p.values for p in CASES):
        path, rule = expected.split(": ")
        action = {"action": "deal_combat_damage", "step": step, "assignment": rows}
        result = _run("apply", "-", json.dumps(action), stdin=json.dumps(doc))
        assert result.returncode == 2, result.stderr
        assert result.stderr.startswith(f"trample: action.{path}: {rule}:"), result.stderr
        assert "Traceback" not in result.stderr and result.stdout == ""
        requests.append({"jsonrpc": "2.0", "method": "apply", "id": i,
                         "params": {"state": doc, "action": action}})
    served = _run("serve", stdin="".join(json.dumps(r) + "\n" for r in requests))
    answers = [json.loads(line) for line in served.stdout.splitlines()]
    assert len(answers) == len(CASES)
    for answer, (_, _, expected) in zip(answers, (p.values for p in CASES), strict=True):
        path, rule = expected.split(": ")
        assert answer["error"]["code"] == -32602
        assert answer["error"]["message"].startswith(f"params.action.{path}: {rule}:")


# -- every violation of a split is reported, as validate reports them --------------------


def test_every_violation_of_a_split_is_reported(capsys: pytest.CaptureFixture[str],
                                                monkeypatch: pytest.MonkeyPatch) -> None:
    # Two illegal entries: the Vessel (3 power) assigns 8 to the player (510.1a) and the
    # attacking player's Grizzly Bears at home assigns damage (510.1). Both are named, in
    # the order of the entries, by every entry point.
    state, ids = battle()
    v, ace, home, bears = ids["vessel"], ids["ace"], ids["home"], ids["bears"]
    rows = entries((v, bears, 2), (v, "dp", 8), (ace, "dp", 1), (bears, v, 2), (home, "dp", 2))
    with pytest.raises(InputError) as info:
        deal_combat_damage(state, Assignment.from_json(rows), judge, step="regular")
    problems = [(path, reason.split(":")[0]) for path, reason in info.value.problems]
    assert problems == [("assignment[0]", "510.1a"), ("assignment[4]", "510.1")]
    with pytest.raises(InputError) as info:
        combat_damage_step(state, "regular", lambda combat: rows, judge)
    assert [p for p, _ in info.value.problems] == ["assignment[0]", "assignment[4]"]

    doc = state_to_json(state)
    action = {"action": "deal_combat_damage", "step": "regular", "assignment": rows}
    with pytest.raises(InputError) as info:
        apply(doc, action)
    message = str(info.value)
    assert message.startswith("action.assignment[0]: 510.1a:")
    assert "; action.assignment[4]: 510.1: " in message
    status, out, err = command(capsys, monkeypatch, "apply", "-", json.dumps(action),
                               stdin=json.dumps(doc))
    assert status == 2 and out == "" and err == f"trample: {message}\n"
    answer = served([{"jsonrpc": "2.0", "method": "apply", "id": 1,
                      "params": {"state": doc, "action": action}}])[1]
    assert answer["error"]["code"] == -32602
    assert answer["error"]["message"] == message.replace("action.", "params.action.")


def test_a_long_list_of_violations_stays_bounded() -> None:
    # 60 creatures that are not in combat each assign damage: every one is kept in the
    # error, the message spells out 20 and counts the rest.
    state = new_game(("ap", "dp"))
    state, attacker, _ = enter_card(state, get_card("Grizzly Bears"), "ap")
    idle = []
    for _ in range(60):
        state, oid, _ = enter_card(state, get_card("Grizzly Bears"), "ap")
        idle.append(oid)
    state, _ = declare_combat(state, {attacker: "dp"})
    rows = entries((attacker, "dp", 2), *((oid, "dp", 1) for oid in idle))
    with pytest.raises(InputError) as info:
        deal_combat_damage(state, Assignment.from_json(rows), judge)
    assert [p for p, _ in info.value.problems] == [f"assignment[{i}]" for i in range(1, 61)]
    assert str(info.value).count("510.1:") == 20
    assert str(info.value).endswith("; and 40 more")


# -- no combat damage while an ability waits on the stack (500.2) ---------------------------


def orochi_attacks() -> tuple[GameState, dict[str, str]]:
    """Kirin-Touched Orochi (1/1) attacks; its attack trigger waits on the stack; a
    Grizzly Bears card is in the defending player's graveyard for it to exile."""
    state = new_game(("ap", "dp"))
    ids: dict[str, str] = {}
    state, ids["orochi"], _ = enter_card(state, get_card(TEACHINGS), "ap", face="back")
    state, ids["card"] = add_card(state, "dp", "graveyard", get_card("Grizzly Bears"))
    state, _ = declare_combat(state, {ids["orochi"]: "dp"})
    assert [t.ability for t in state.stack] == ["orochi_attack"]
    return state, ids


DAMAGE_ACTIONS = [
    {"action": "combat_damage"},
    {"action": "combat_damage_step", "step": "regular"},
    {"action": "deal_combat_damage", "assignment": [{"source": "o1", "target": "dp",
                                                      "amount": 1}]},
]


def test_combat_damage_waits_for_the_stack(capsys: pytest.CaptureFixture[str],
                                           monkeypatch: pytest.MonkeyPatch) -> None:
    state, ids = orochi_attacks()
    trigger = state.stack[0].id
    for deal in (lambda: run_combat_damage(state, lambda combat: [], judge),
                 lambda: combat_damage_step(state, "regular", lambda combat: [], judge),
                 lambda: deal_combat_damage(state, [], judge)):
        with pytest.raises(InputError) as info:
            deal()
        assert info.value.path == "state.stack"
        assert f"{trigger} (Kirin-Touched Orochi's attack trigger)" in info.value.reason
        assert "500.2" in info.value.reason

    doc = state_to_json(state)
    assert ids["orochi"] == "o1"  # the id DAMAGE_ACTIONS use
    for action in DAMAGE_ACTIONS:
        with pytest.raises(InputError) as info:
            apply(doc, action)
        assert info.value.path == "state.stack", action
        status, out, err = command(capsys, monkeypatch, "apply", "-", json.dumps(action),
                                   stdin=json.dumps(doc))
        assert status == 2 and out == ""
        assert err.startswith("trample: state.stack: no combat damage while")
        assert len(err.splitlines()) == 1
    answers = served([{"jsonrpc": "2.0", "method": "apply", "id": i,
                       "params": {"state": doc, "action": action}}
                      for i, action in enumerate(DAMAGE_ACTIONS)])
    assert len(answers) == len(DAMAGE_ACTIONS)
    for answer in answers.values():
        error = answer["error"]
        assert error["code"] == -32602
        assert error["message"].startswith("params.state.stack: no combat damage while")

    # Once the trigger has resolved, the damage is dealt and nothing is left waiting.
    state, _ = orochi_attack_trigger(state, ids["orochi"], "creature", ids["card"])
    out = apply(state_to_json(state), {"action": "combat_damage"})
    assert out["state"]["stack"] == []
    assert out["state"]["players"][1]["life"] == 19


# -- state.combat is checked as declare_combat checks it ----------------------------------


@pytest.mark.parametrize(("combat", "path"), [
    ({"attacks": {"V": "dp"}, "blocks": {"V": ["V"]}}, "state.combat.blocks.V"),
    ({"attacks": {"V": "dp"}, "blocks": {"B": ["A"]}}, "state.combat.blocks.B[0]"),
    ({"attacks": {"V": "dp"}, "blocks": {"B": ["V", "V"]}}, "state.combat.blocks.B[1]"),
    ({"attacks": {"V": "ap"}}, "state.combat.attacks.V"),
    ({"attacks": {"V": "B"}}, "state.combat.attacks.V"),
    ({"attacks": {"V": "zz"}}, "state.combat.attacks.V"),
    ({"attacks": {"V": "J"}, "defenders": [{"id": "J", "kind": "planeswalker",
                                            "player": "ap"}]},
     "state.combat.defenders[0].player"),
    # combat/1's limit: at most 1,000 attackers per blocker.
    ({"attacks": {f"x{i}": "dp" for i in range(1001)},
      "blocks": {"B": [f"x{i}" for i in range(1001)]}}, "state.combat.blocks.B"),
])
def test_an_impossible_declared_combat_is_refused_when_read(combat: dict[str, Any],
                                                           path: str) -> None:
    state, ids = battle()
    names = {"V": ids["vessel"], "B": ids["bears"], "A": ids["home"], "J": "o99"}
    text = json.dumps(combat)
    for short, oid in names.items():
        text = text.replace(f'"{short}"', f'"{oid}"')
    doc = {**state_to_json(state), "combat": json.loads(text), "next_id": 100}
    for short, oid in names.items():
        path = path.replace(f".{short}", f".{oid}")
    with pytest.raises(InputError) as info:
        state_from_json(doc, "state")
    assert info.value.path == path, info.value
    # declare_combat refuses a creature blocking itself too (at blocks.<id>), and a
    # combat it declared reads back.
    with pytest.raises(InputError) as info:
        declare_combat(state, {ids["home"]: "dp"}, {ids["home"]: [ids["home"]]})
    assert info.value.path == f"blocks.{ids['home']}"
    assert state_from_json(state_to_json(state), "state") == state


def test_declare_combat_refuses_a_block_of_another_players_attacker() -> None:
    # 509.1a: a creature blocks only creatures attacking its controller (or what its
    # controller controls or protects); and an attacker is listed once per blocker.
    state = new_game(("ap", "dp", "third"))
    state, attacker, _ = enter_card(state, get_card("Grizzly Bears"), "ap")
    state, theirs, _ = enter_card(state, get_card("Grizzly Bears"), "third")
    state, mine, _ = enter_card(state, get_card("Grizzly Bears"), "dp")
    with pytest.raises(InputError, match=r"509\.1a") as info:
        declare_combat(state, {attacker: "dp"}, {theirs: [attacker]})
    assert info.value.path == f"blocks.{theirs}[0]"
    with pytest.raises(InputError, match="listed twice") as info:
        declare_combat(state, {attacker: "dp"}, {mine: [attacker, attacker]})
    assert info.value.path == f"blocks.{mine}[1]"
    declared, _ = declare_combat(state, {attacker: "dp"}, {mine: [attacker]})
    assert state_from_json(state_to_json(declared)) == declared


def test_a_blocker_that_changed_control_is_removed_from_combat() -> None:
    # 506.4: a blocker whose controller changed is removed from combat; the attacker
    # stays blocked (509.1h) and, without trample, assigns nothing.
    state = new_game(("ap", "dp", "third"))
    state, attacker, _ = enter_card(state, get_card("Grizzly Bears"), "ap")
    state, blocker, _ = enter_card(state, get_card("Grizzly Bears"), "dp")
    state, _ = declare_combat(state, {attacker: "dp"}, {blocker: [attacker]})
    state = replace_permanent(state, replace(state.permanent(blocker), controller="third"))
    fight = combat_of(state)
    assert [c.id for c in fight.creatures] == [attacker]
    assert fight.creature(attacker).blocked is True
    assert judge(fight, Assignment.of({(attacker, "dp"): 2}))  # nothing may be assigned


def test_a_combat_out_of_combat_1_range_is_refused() -> None:
    # The typed combat the solver gets obeys combat/1's integer range (2^40), as a parsed
    # document would. A life total of 10^30 is refused by the state reader where it
    # stands; a power grown past the range by counters is refused naming the permanent.
    state, _ = battle()
    doc = state_to_json(state)
    doc["players"][1]["life"] = 10**30
    with pytest.raises(InputError) as info:
        apply(doc, {"action": "combat_damage"})
    assert info.value.path == "state.players[1].life"
    assert "out of range" in info.value.reason
    doc = state_to_json(state)
    doc["battlefield"][0]["counters"] = {"+1/+1": 2**40}
    with pytest.raises(InputError) as info:
        apply(doc, {"action": "combat_damage"})
    assert info.value.path == "state.battlefield[0]"
    assert "power in combat" in info.value.reason and "out of range" in info.value.reason


