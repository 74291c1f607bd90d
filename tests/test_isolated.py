"""CP-SAT's multi-worker portfolio runs in a child process: a C++ exception in one of its
worker threads (std::terminate, exit status 134) ends the child, never the process that
asked. The children here die on purpose (a signal sent once the search is sent, or an
interpreter that aborts at once): no clock decides a verdict."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import threading
import time
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from ortools.sat.python import cp_model
from test_search_limits import walls

from trample.models.document.errors import InternalError
from trample.solver.interface import api
from trample.solver.optimize import cpsat, isolated
from trample.solver.optimize.cancel import Cancel
from trample.solver.optimize.search_settings import SearchSettings

import brute

CUT_SHORT = SearchSettings(backend="cpsat", quick_deterministic_time=1e-4,
                           quick_widest=1 << 41)
"""The first try cut short: the walls go on to the portfolio, which proves them."""
DOC = walls(3)
"""Three 3-power tramplers on three 0/3 walls that each block all of them (8,000 splits:
the brute force's size)."""
TERMS = brute.default_objective("attackers")


def _amounts(answer: dict[str, Any]) -> dict[tuple[str, str], int]:
    return {(e["source"], e["target"]): e["amount"] for e in answer["assignment"]}


def _portfolio_runs(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """The number of variables of each model searched in a child."""
    runs: list[int] = []
    real = isolated.solve

    def spy(model: Any, parameters: Any, cancel: Any = None) -> Any:
        runs.append(len(model.proto.variables))
        return real(model, parameters, cancel)

    monkeypatch.setattr(isolated, "solve", spy)
    return runs


def test_the_portfolio_in_a_child_answers_as_in_this_process(
        monkeypatch: pytest.MonkeyPatch) -> None:
    runs = _portfolio_runs(monkeypatch)
    here = api.solve(DOC, objective=TERMS, settings=replace(CUT_SHORT, isolate=False))
    assert not runs
    there = api.solve(DOC, objective=TERMS, settings=CUT_SHORT)
    assert runs  # the portfolio ran in a child
    assert there == here
    assert there["status"] == "optimal"
    assert tuple(there["objective"].values()) == brute.optimum(DOC, "attackers", TERMS)
    assert brute.is_legal(DOC, "attackers", _amounts(there))
    assert isolated.idle_children() >= 1  # kept for the next search


def _killing(monkeypatch: pytest.MonkeyPatch, deaths: int) -> list[int]:
    """Send SIGABRT (what std::terminate raises) to each of the next ``deaths`` children as
    soon as a search is written to it; the process ids killed."""
    killed: list[int] = []
    real = isolated._Child.send

    def send(self: isolated._Child, message: Any) -> bool:
        sent = real(self, message)
        if message[0] == "solve" and len(killed) < deaths:
            killed.append(self.process.pid)
            os.kill(self.process.pid, signal.SIGABRT)
        return sent

    monkeypatch.setattr(isolated._Child, "send", send)
    return killed


@pytest.mark.skipif(not hasattr(signal, "SIGABRT") or sys.platform == "win32",
                    reason="POSIX signals")
def test_a_child_that_aborts_is_searched_again_and_the_answer_is_proved(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The child dies as CP-SAT's abort ends it: the search is tried again without the
    hint (as for an exception inside CP-SAT in this process), in a new child."""
    killed = _killing(monkeypatch, 1)
    answer = api.solve(DOC, objective=TERMS, settings=CUT_SHORT)
    assert len(killed) == 1
    assert answer["status"] == "optimal"
    assert tuple(answer["objective"].values()) == brute.optimum(DOC, "attackers", TERMS)
    assert brute.is_legal(DOC, "attackers", _amounts(answer))


@pytest.mark.skipif(not hasattr(signal, "SIGABRT") or sys.platform == "win32",
                    reason="POSIX signals")
def test_children_that_always_abort_end_in_an_internal_error_with_a_bug_report(
        monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setenv(api.BUG_DIR_VARIABLE, str(tmp_path))
    killed = _killing(monkeypatch, 10)
    with pytest.raises(InternalError) as raised:
        api.solve(DOC, settings=CUT_SHORT)
    # Tried with the hint, without it, without presolve: three children died.
    assert len(killed) == 3
    assert isinstance(raised.value.__cause__, cpsat.SearchFailed)
    assert "child process ended without answering" in str(raised.value)
    assert "exit status -6" in str(raised.value) or "exit status 134" in str(raised.value)
    [saved] = list(tmp_path.iterdir())
    assert json.loads(saved.read_text(encoding="utf-8"))["method"] == "solve"
    # This process goes on: the same request without the portfolio is answered.
    again = api.solve(DOC, settings=SearchSettings(backend="cpsat"))
    assert again["status"] == "optimal"


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script as the interpreter")
def test_a_process_whose_children_abort_answers_and_goes_on(tmp_path: Path) -> None:
    """End to end, in a process of its own whose child interpreter aborts at once (as
    CP-SAT's std::terminate does): each request is answered (an internal error with a bug
    report, or an answer), and the process ends normally after the last."""
    dying = tmp_path / "python"
    dying.write_text("#!/bin/sh\nkill -ABRT $$\n", encoding="utf-8")
    dying.chmod(0o755)
    script = (
        "import json, sys\n"
        f"sys.executable = {str(dying)!r}\n"
        "from trample.models.document.errors import InternalError\n"
        "from trample.solver.interface import api\n"
        "from trample.solver.optimize.search_settings import SearchSettings\n"
        f"doc = json.loads({json.dumps(json.dumps(DOC))})\n"
        "cut = SearchSettings(backend='cpsat', quick_deterministic_time=1e-4, "
        "quick_widest=1 << 41)\n"
        "for settings in (cut, cut, SearchSettings()):\n"
        "    try:\n"
        "        print(api.solve(doc, settings=settings)['status'])\n"
        "    except InternalError as exc:\n"
        "        print('internal error', 'saved in' in str(exc))\n")
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env={**os.environ, api.BUG_DIR_VARIABLE: str(tmp_path / "bugs")},
                          timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.splitlines() == ["internal error True", "internal error True",
                                        "optimal"]
    assert len(list((tmp_path / "bugs").iterdir())) == 1  # the same failure, saved once


def market_split(seed: int = 0) -> cp_model.CpModel:
    """A market split instance (4 equations over 30 binaries, Cornuejols and Dawande):
    CP-SAT proves nothing about it in a useful time, so a search of it ends only when it
    is stopped."""
    rng = random.Random(seed)
    model = cp_model.CpModel()
    x = [model.new_bool_var(f"x{j}") for j in range(30)]
    for _ in range(4):
        a = [rng.randint(0, 99) for _ in x]
        model.add(sum(c * v for c, v in zip(a, x, strict=True)) == sum(a) // 2)
    return model


def _parameters(seconds: float) -> Any:
    solver = cp_model.CpSolver()
    solver.parameters.num_workers = 8
    solver.parameters.interleave_search = True
    solver.parameters.max_time_in_seconds = seconds
    return solver.parameters


@pytest.mark.parametrize("when", ["before", "after the search is sent"])
def test_a_cancel_stops_the_child_s_search(monkeypatch: pytest.MonkeyPatch,
                                          when: str) -> None:
    """Cancelled before the search starts or while it runs: the child stops it at once,
    having spent a sliver of the effort a search of its time limit (10 minutes) would."""
    cancel = Cancel()
    if when == "before":
        cancel.set()
    else:
        real = isolated._Child.send

        def send(self: isolated._Child, message: Any) -> bool:
            sent = real(self, message)
            if message[0] == "solve":
                threading.Thread(target=cancel.set).start()
            return sent

        monkeypatch.setattr(isolated._Child, "send", send)
    code, answer = isolated.solve(market_split(), _parameters(600.0), cancel)
    assert code == cp_model.UNKNOWN
    assert answer.deterministic_time < 5.0


@pytest.mark.skipif(sys.platform == "win32", reason="a shell script as the interpreter")
def test_a_child_that_never_answers_is_ended(monkeypatch: pytest.MonkeyPatch,
                                             tmp_path: Path) -> None:
    """A child silent past its time limit and the grace, asked to stop and silent again,
    is ended: the search answers UNKNOWN without a solution."""
    silent = tmp_path / "python"
    silent.write_text("#!/bin/sh\nexec sleep 600\n", encoding="utf-8")
    silent.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(silent))
    monkeypatch.setattr(isolated, "GRACE", 0.2)
    monkeypatch.setattr(isolated, "_idle", [])
    started: list[isolated._Child] = []
    real = isolated._Child.__init__

    def init(self: isolated._Child) -> None:
        real(self)
        started.append(self)

    monkeypatch.setattr(isolated._Child, "__init__", init)
    code, answer = isolated.solve(market_split(), _parameters(0.1))
    assert code == cp_model.UNKNOWN and answer is isolated.NO_ANSWER
    [child] = started
    assert child.process.returncode is not None  # ended, and reaped


def test_where_no_child_can_start_the_search_runs_here(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(self: isolated._Child) -> None:
        raise OSError("no process left")

    monkeypatch.setattr(isolated._Child, "__init__", refuse)
    monkeypatch.setattr(isolated, "_idle", [])
    answer = api.solve(DOC, objective=TERMS, settings=CUT_SHORT)
    assert answer["status"] == "optimal"
    assert tuple(answer["objective"].values()) == brute.optimum(DOC, "attackers", TERMS)


SEEDS = Path(__file__).resolve().parent / "fuzz" / "corpus" / "solve"


@pytest.mark.parametrize("name", ["wide_shared_tramplers", "presolve_throws"])
def test_the_hostile_combats_among_the_fuzz_seeds_are_answered(name: str,
                                                              tmp_path: Path) -> None:
    """The shape that ended a process inside CP-SAT's multi-worker search (100 tramplers
    on 300 blockers that block one to three of them, amounts 2^29 to 2^33, the defender
    at 20 x 2^29 life), and copies of a planeswalker pile-up whose hinted models CP-SAT
    9.15's presolve throws on: the command line answers a legal split, whatever the
    search reached within its limit."""
    doc = json.loads((SEEDS / f"{name}.json").read_text(encoding="utf-8"))["combat"]
    path = tmp_path / "combat.json"
    path.write_text(json.dumps(doc), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "trample.solver", "solve", str(path),
                           "--time-limit", "3"], capture_output=True, text=True, timeout=600,
                          env={**os.environ, api.BUG_DIR_VARIABLE: str(tmp_path / "bugs")})
    assert done.returncode == 0, done.stderr[-2000:]
    answer = json.loads(done.stdout)
    assert answer["status"] in ("optimal", "feasible")
    assert api.validate(doc, answer["assignment"])["legal"]


def test_a_search_s_time_counts_from_when_it_was_sent() -> None:
    """A child that took long to start (or to read a large model) has that much less of
    its time limit left: the search never ends later than the caller's deadline."""
    seen: list[cp_model.CpSolver] = []
    sent = time.time() - 599.0
    answer = isolated._search(str(market_split().proto), str(_parameters(600.0)), sent,
                              seen.append)
    [solver] = seen
    assert solver.parameters.max_time_in_seconds <= 1.0 + 1e-9
    assert answer[0] == "answer"
