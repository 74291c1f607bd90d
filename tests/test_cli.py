"""The command line end to end (SPEC §5): outputs, exit statuses, bad input."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from trample.solver.interface.demo import DEMO_COMBAT

import brute
from conftest import SPEC_EXAMPLE, shared_blockers_combat


def run(*args: str, stdin: str | None = None, env: dict[str, str] | None = None
        ) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "trample.solver", *args], input=stdin,
                          capture_output=True, text=True, timeout=120,
                          env={**os.environ, **(env or {})})


@pytest.fixture
def spec_file(tmp_path: Path) -> Path:
    path = tmp_path / "combat.json"
    path.write_text(json.dumps(SPEC_EXAMPLE))
    return path


def bad_input(result: subprocess.CompletedProcess[str], *fragments: str) -> None:
    """Exit 2, one line on standard error naming the problem, no traceback."""
    assert result.returncode == 2, result
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert lines[0].startswith("trample: "), lines[0]
    assert "Traceback" not in result.stderr
    for fragment in fragments:
        assert fragment in lines[0], lines[0]


def test_console_script_is_installed() -> None:
    script = shutil.which("trample", path=os.path.dirname(sys.executable)) or \
        shutil.which("trample")
    assert script is not None
    result = subprocess.run([script, "--help"], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0
    assert "solve" in result.stdout and "serve" in result.stdout


def test_solve(spec_file: Path) -> None:
    result = run("solve", str(spec_file))
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["status"] == "optimal"
    amounts = {(e["source"], e["target"]): e["amount"] for e in answer["assignment"]}
    assert brute.is_legal(SPEC_EXAMPLE, "attackers", amounts)
    assert list(answer) == ["status", "side", "step", "objective", "assignment"]


def test_solve_from_stdin_with_options() -> None:
    result = run("solve", "-", "--objective", "planeswalker_damage,kills",
                 "--time-limit", "5", stdin=json.dumps(SPEC_EXAMPLE))
    assert result.returncode == 0, result.stderr
    assert json.loads(result.stdout)["objective"] == {"planeswalker_damage": 2, "kills": 3}


def test_validate_exit_status(spec_file: Path, tmp_path: Path) -> None:
    good = tmp_path / "good.json"
    good.write_text(json.dumps({"assignment": [
        {"source": "vessel", "target": "wall", "amount": 3},
        {"source": "vessel", "target": "jace", "amount": 2}]}))
    result = run("validate", str(spec_file), str(good))
    assert result.returncode == 0
    assert json.loads(result.stdout) == {"legal": True, "violations": []}

    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps([{"source": "vessel", "target": "jace", "amount": 5}]))
    result = run("validate", str(spec_file), str(bad))
    assert result.returncode == 1
    answer = json.loads(result.stdout)
    assert answer["legal"] is False
    assert [v["rule"] for v in answer["violations"]] == ["702.19b"]


def test_validate_reads_the_documents_assignment() -> None:
    doc = {**SPEC_EXAMPLE, "assignment": [{"source": "vessel", "target": "wall", "amount": 5}]}
    result = run("validate", "-", stdin=json.dumps(doc))
    assert result.returncode == 0, result.stderr


def test_count_enumerate_sample(spec_file: Path) -> None:
    assert json.loads(run("count", str(spec_file)).stdout) == {"count": 3}
    lines = run("enumerate", str(spec_file)).stdout.splitlines()
    assert len(lines) == 3
    assert all(set(json.loads(line)) == {"assignment"} for line in lines)
    assert len(run("enumerate", str(spec_file), "--limit", "2").stdout.splitlines()) == 2
    drawn = run("sample", str(spec_file), "-n", "50", "--seed", "3").stdout.splitlines()
    assert len(drawn) == 50
    assert drawn == run("sample", str(spec_file), "-n", "50", "--seed", "3").stdout.splitlines()
    assert {line for line in drawn} <= set(lines)


def test_count_is_an_integer_of_any_size(tmp_path: Path) -> None:
    doc = {"active_player": "a", "players": [{"id": "a"}, {"id": "d"}],
           "creatures": [{"id": "t", "controller": "a", "power": 10**9, "toughness": 1,
                          "attacking": "d"}] + [
               {"id": f"b{i}", "controller": "d", "power": 1, "toughness": 1,
                "blocking": ["t"]} for i in range(40)]}
    result = run("count", "-", stdin=json.dumps(doc))
    assert result.returncode == 0, result.stderr
    from math import comb
    assert json.loads(result.stdout)["count"] == comb(10**9 + 39, 39)


def test_demo() -> None:
    result = run("demo")
    assert result.returncode == 0, result.stderr
    assert "Vessel of the All-Consuming" in result.stdout
    assert "objective" in result.stdout and "optimal" in result.stdout
    answer = json.loads(run("demo", "--json").stdout)
    assert answer["status"] == "optimal"
    amounts = {(e["source"], e["target"]): e["amount"] for e in answer["assignment"]}
    assert brute.is_legal(DEMO_COMBAT, "attackers", amounts)
    assert tuple(answer["objective"].values()) == brute.optimum(
        DEMO_COMBAT, "attackers", brute.default_objective_10("attackers"))


@pytest.mark.parametrize(("doc", "fragments"), [
    ("{not json", ("not valid JSON",)),
    ("[]", ("document", "must be an object")),
    (json.dumps({**SPEC_EXAMPLE, "step": "second"}), ("step", "'second'")),
    (json.dumps({**SPEC_EXAMPLE, "creatures": [{"id": "x"}]}), ("creatures[0].controller",)),
    (json.dumps({**SPEC_EXAMPLE, "active_player": "zz"}), ("active_player", "'zz'")),
    (json.dumps({**SPEC_EXAMPLE, "objective": ["nope"]}), ("objective[0]", "'nope'")),
    ('{"a": NaN}', ("NaN",)),
    # A blocker of a third player: named by its id and controller, no "'p3''s".
    (json.dumps({"active_player": "ap", "players": [{"id": "ap"}, {"id": "p2"}, {"id": "p3"}],
                 "creatures": [
                     {"id": "ogre", "controller": "ap", "power": 3, "toughness": 3,
                      "attacking": "p2"},
                     {"id": "elf", "controller": "p3", "power": 1, "toughness": 1,
                      "blocking": ["ogre"]}]}),
     ("creatures[1].blocking", "'elf', controlled by 'p3', cannot block it (509.1a)")),
])
def test_bad_input(doc: str, fragments: tuple[str, ...]) -> None:
    bad_input(run("solve", "-", stdin=doc), *fragments)


def test_bad_usage(spec_file: Path) -> None:
    bad_input(run("solve"), "FILE")
    bad_input(run("frobnicate", str(spec_file)), "frobnicate")
    bad_input(run("solve", "/no/such/file.json"), "/no/such/file.json")
    bad_input(run("solve", str(spec_file), "--side", "defenders"), "--side")
    bad_input(run("solve", str(spec_file), "--time-limit", "-1"), "time_limit")
    bad_input(run("sample", str(spec_file), "-n", "x"), "-n")
    bad_input(run("enumerate", str(spec_file), "--limit", "-3"), "limit")
    bad_input(run(), "COMMAND")
    bad_input(run("batch", "in.jsonl"), "batch: ", "OUT")
    bad_input(run("apply", "-", "-"), "apply: ")


def test_version_has_one_source() -> None:
    import tomllib
    from importlib.metadata import version

    import trample

    result = run("--version")
    assert result.returncode == 0, result.stderr
    assert result.stdout == f"trample {trample.__version__}\n"
    declared = tomllib.loads((Path(__file__).parent.parent / "pyproject.toml").read_text())
    assert trample.__version__ == version("trample") == declared["project"]["version"]


def test_validate_bad_assignment(spec_file: Path, tmp_path: Path) -> None:
    cases: list[tuple[Any, str]] = [
        ([{"source": "vessel", "target": "ghost", "amount": 1}], "assignment[0].target"),
        ([{"source": "vessel", "target": "wall", "amount": -1}], "assignment[0].amount"),
        ([{"source": "vessel", "target": "wall", "amount": 1.5}], "assignment[0].amount"),
        ([{"source": "vessel", "target": "wall", "amount": 1},
          {"source": "vessel", "target": "wall", "amount": 4}], "appears twice"),
        ({"nothing": 1}, "assignment"),
    ]
    for payload, fragment in cases:
        path = tmp_path / "a.json"
        path.write_text(json.dumps(payload))
        bad_input(run("validate", str(spec_file), str(path)), fragment)


def test_enumerate_into_a_closed_pipe() -> None:
    """`trample enumerate ... | head -1`: the reader leaving is not an error."""
    doc = json.dumps({**SPEC_EXAMPLE, "creatures": [
        {**SPEC_EXAMPLE["creatures"][0], "power": 400}, SPEC_EXAMPLE["creatures"][1]]})
    proc = subprocess.Popen([sys.executable, "-m", "trample.solver", "enumerate", "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
    proc.stdin.write(doc)
    proc.stdin.close()
    first = proc.stdout.readline()
    proc.stdout.close()
    assert proc.wait(timeout=60) == 0
    assert json.loads(first)["assignment"]
    assert "Traceback" not in proc.stderr.read()


def test_count_refuses_what_it_cannot_count_exactly() -> None:
    doc = json.dumps(shared_blockers_combat())
    for command in (["count", "-"], ["sample", "-"], ["enumerate", "-"]):
        bad_input(run(*command, stdin=doc), "refused rather than estimated")


def test_time_limit_gives_feasible_and_legal() -> None:
    doc = shared_blockers_combat()
    result = run("solve", "-", "--time-limit", "0.001", stdin=json.dumps(doc))
    assert result.returncode == 0, result.stderr
    answer = json.loads(result.stdout)
    assert answer["status"] == "feasible"
    amounts = {(e["source"], e["target"]): e["amount"] for e in answer["assignment"]}
    from trample.models.document.combat import Combat
    from trample.solver.rules.legal_space import legal_space
    from trample.solver.rules.validate import violations

    assert violations(legal_space(Combat.from_json(doc), "attackers"), amounts) == []
    # The proved bound: nothing beats it lexicographically, the optimum included.
    bound = tuple(answer["bound"].values())
    assert list(answer["bound"]) == list(answer["objective"])
    assert bound >= tuple(answer["objective"].values())
    best = json.loads(run("solve", "-", stdin=json.dumps(doc)).stdout)
    assert best["status"] == "optimal" and "bound" not in best
    assert bound >= tuple(best["objective"].values()) >= tuple(answer["objective"].values())


def coupled_pairs(life: int = 9) -> dict[str, Any]:
    """Four independent parts, each two tramplers sharing three blockers: each part needs
    a CP-SAT search."""
    creatures: list[dict[str, Any]] = []
    for k in range(4):
        pair = [f"p{k}a", f"p{k}b"]
        creatures += [{"id": a, "controller": "a", "power": 6 + i + k, "toughness": 4,
                       "keywords": ["trample"], "attacking": "d"} for i, a in enumerate(pair)]
        creatures += [{"id": f"p{k}w{j}", "controller": "d", "power": 1, "toughness": 2 + j,
                       "value": 3 - j, "blocking": pair} for j in range(3)]
    return {"active_player": "a", "players": [{"id": "a"}, {"id": "d", "life": life}],
            "creatures": creatures}


def test_output_is_byte_identical_whatever_the_threads() -> None:
    """Independent coupled parts are searched on several threads at once; the answer is
    the same bytes with one thread or several."""
    doc = json.dumps(coupled_pairs())
    outputs = {run("solve", "-", stdin=doc, env={"TRAMPLE_THREADS": str(n)}).stdout
               for n in (1, 2, 4)}
    assert len(outputs) == 1
    assert json.loads(outputs.pop())["status"] == "optimal"


def test_callers_on_several_threads_get_the_answers_of_one() -> None:
    """Solves called from several threads at once share the search threads and still
    give each caller its own answer."""
    from concurrent.futures import ThreadPoolExecutor

    from trample.solver.interface import api

    docs = [coupled_pairs(life) for life in (3, 9, 20, 40)] * 3
    alone = [api.solve(doc) for doc in docs]
    with ThreadPoolExecutor(max_workers=4) as callers:
        together = list(callers.map(api.solve, docs))
    assert together == alone
    assert len({json.dumps(a) for a in alone}) >= 2  # the callers asked different things


def test_a_time_limit_stops_parts_searched_at_once() -> None:
    """Three hard parts searched on threads at once, stopped by a 1 ms limit: a legal
    assignment, ``feasible``, and a bound no worse than what was found."""
    from trample.models.document.combat import Combat
    from trample.solver.interface import api
    from trample.solver.rules.legal_space import legal_space
    from trample.solver.rules.validate import violations

    one = shared_blockers_combat()
    creatures = []
    for k in range(3):
        for c in one["creatures"]:
            c = {**c, "id": f"{k}{c['id']}"}
            if "blocking" in c:
                c["blocking"] = [f"{k}{a}" for a in c["blocking"]]
            creatures.append(c)
    doc = {**one, "creatures": creatures}
    space = legal_space(Combat.from_json(doc), "attackers")
    assert len(space.parts) == 3
    answer = api.solve(doc, time_limit=0.001)
    assert answer["status"] == "feasible"
    amounts = {(e["source"], e["target"]): e["amount"] for e in answer["assignment"]}
    assert violations(space, amounts) == []
    assert tuple(answer["bound"].values()) >= tuple(answer["objective"].values())


@pytest.mark.parametrize("command", [["solve"], ["count"], ["enumerate", "--limit", "50"],
                                     ["sample", "-n", "20", "--seed", "5"],
                                     ["solve", "--side", "blockers"]])
def test_output_is_byte_identical_across_processes(command: list[str]) -> None:
    """The same request gives the same bytes, whatever the hash seed of the process."""
    doc = json.dumps(DEMO_COMBAT)
    outputs = {run(command[0], "-", *command[1:], stdin=doc,
                   env={"PYTHONHASHSEED": str(seed)}).stdout for seed in (0, 1, 4242)}
    assert len(outputs) == 1
    assert outputs.pop().strip()


def test_the_help_names_the_solvers_own_default_objectives() -> None:
    from trample.solver.actions.plan import PLAN_TERMS
    from trample.solver.blocks.value import BLOCK_TERMS
    from trample.solver.interface import cli
    from trample.solver.optimize.objectives import DEFAULTS

    assert ", ".join(DEFAULTS["attackers"]) == cli.ATTACKERS_DEFAULT
    assert ", ".join(DEFAULTS["blockers"]) == cli.BLOCKERS_DEFAULT
    assert ", ".join(PLAN_TERMS) == cli.PLAN_DEFAULT
    assert ", ".join(BLOCK_TERMS) == cli.BLOCKS_DEFAULT
