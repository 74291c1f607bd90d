"""``trample serve`` without head-of-line blocking: answers out of order when the client
opts in (``initialize`` or ``--out-of-order``), ``$/cancelRequest``, the cap on requests in
flight. Mechanisms only: a slow request is held by a time limit far beyond the test and
released by cancelling it, never by a clock."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import threading
from pathlib import Path
from typing import Any

import pytest
from serving import WAIT, ServeProcess
from test_serve_load import TINY, _requests

from trample.solver.interface import api, methods, protocol
from trample.solver.interface import serve as engine
from trample.solver.optimize.cancel import Cancel
from trample.solver.optimize.search_settings import BACKEND_VARIABLE

from conftest import SPEC_EXAMPLE

HELD = 3_600
"""A time limit no test waits for: the request is held until it is cancelled."""
ROOT = Path(__file__).resolve().parent.parent


def _line(method: str, params: Any, rid: Any = None) -> bytes:
    request: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if rid is not None:
        request["id"] = rid
    return json.dumps(request).encode() + b"\n"


def _cancel(rid: Any) -> bytes:
    return _line("$/cancelRequest", {"id": rid})


def held_combat() -> dict[str, Any]:
    """24 tramplers of distinct power all blocked by the same 14 walls of distinct
    toughness: CP-SAT needs many seconds to prove it (13 s here), thousands of times what
    the fast requests of these tests take, so the search is still running when it is
    cancelled."""
    attackers = [f"t{i}" for i in range(24)]
    creatures: list[dict[str, Any]] = [
        {"id": t, "controller": "a", "power": 17 + 3 * i, "toughness": 5,
         "keywords": ["trample"], "attacking": "d"} for i, t in enumerate(attackers)]
    creatures += [{"id": f"w{j}", "controller": "d", "power": 1, "toughness": 13 + 2 * j,
                   "value": 2 + j, "blocking": attackers} for j in range(14)]
    return {"active_player": "a", "players": [{"id": "a"}, {"id": "d"}],
            "creatures": creatures}


SLOW = {"combat": held_combat(), "time_limit": HELD}


class Server(ServeProcess):
    """A real ``trample serve`` that searches with CP-SAT, its answers read as JSON."""

    def __init__(self, *options: str) -> None:
        # The held combat is hard for CP-SAT (13 s to prove) but not for HiGHS: the server
        # searches with CP-SAT so that the solve is still running when it is cancelled.
        super().__init__(*options, env={BACKEND_VARIABLE: "cpsat"})

    def send(self, *lines: bytes) -> None:
        self.write(*lines)

    def next(self) -> Any:
        return json.loads(self.answer())

    def close(self) -> list[bytes]:
        """End the input; the lines answered after, and the exit status checked."""
        return self.finish()


@pytest.fixture
def server_factory() -> Any:
    started: list[Server] = []

    def start(*options: str) -> Server:
        started.append(Server(*options))
        return started[-1]

    yield start
    for server in started:
        server.kill()


def _legal_with_bound(answer: Any) -> None:
    result = answer["result"]
    assert result["status"] == "feasible"
    assert set(result["bound"]) == set(result["objective"])
    check = api.validate(held_combat(), result["assignment"])
    assert check["legal"], check


def test_initialize_opts_in_and_a_fast_answer_overtakes_a_held_solve(
        server_factory: Any) -> None:
    server = server_factory("--workers", "2")
    server.send(_line("initialize", {"capabilities": {"out_of_order": True}}, 0))
    hello = server.next()
    assert hello["id"] == 0
    assert hello["result"]["capabilities"] == {"out_of_order": True, "cancel": True}
    assert isinstance(hello["result"]["version"], str)
    server.send(_line("solve", SLOW, "slow"), _line("count", {"combat": TINY}, "fast"))
    fast = server.next()
    assert fast["id"] == "fast" and "result" in fast  # while "slow" is still searching
    server.send(_cancel("slow"))
    slow = server.next()
    assert slow["id"] == "slow"
    _legal_with_bound(slow)
    assert server.close() == []


def test_initialize_is_known_by_its_decoded_method_name(server_factory: Any) -> None:
    # The method written with escapes ("initialize" as JSON reads it) opens the session
    # as the plain name does: a fast answer overtakes a held solve.
    hello = _line("initialize", {"capabilities": {"out_of_order": True}}, 0)
    server = server_factory("--workers", "2")
    server.send(hello.replace(b'"initialize"', b'"\\u0069nitialize"'))
    assert server.next()["result"]["capabilities"]["out_of_order"] is True
    server.send(_line("solve", SLOW, "slow"), _line("count", {"combat": TINY}, "fast"))
    assert server.next()["id"] == "fast"
    server.send(_cancel("slow").replace(b"$/cancel", b"$\\/cancel"))
    _legal_with_bound(server.next())
    assert server.close() == []


def test_the_command_line_flag_opts_in(server_factory: Any) -> None:
    server = server_factory("--out-of-order", "--workers", "2")
    server.send(_line("solve", SLOW, 1), _line("validate", {"combat": TINY}, 2))
    assert server.next()["id"] == 2
    server.send(_cancel(1))
    _legal_with_bound(server.next())
    assert server.close() == []


def test_in_order_a_cancelled_queued_request_answers_in_its_place(
        server_factory: Any) -> None:
    server = server_factory()
    # A session (initialize, staying in order) reads ahead so that cancels reach what is
    # in flight. 2 waits behind 1 (in order, one at a time); it is cancelled before 1 ends.
    server.send(_line("initialize", {}, 0))
    assert server.next()["result"]["capabilities"] == {"out_of_order": False, "cancel": True}
    server.send(_line("solve", SLOW, 1), _line("count", {"combat": TINY}, 2),
                _line("solve", {"combat": TINY}, 3), _cancel(2), _cancel(1))
    first = server.next()
    assert first["id"] == 1
    _legal_with_bound(first)
    assert server.next() == {"jsonrpc": "2.0", "id": 2, "error": {
        "code": protocol.REQUEST_CANCELLED, "message": "request cancelled"}}
    third = server.next()
    assert third["id"] == 3 and third["result"]["status"] == "optimal"
    assert server.close() == []


def test_a_queued_solve_cancelled_answers_the_greedy_split(server_factory: Any) -> None:
    server = server_factory("--out-of-order", "--workers", "1")
    # One worker: "b" waits behind "a"; both are cancelled, "b" before it starts.
    server.send(_line("solve", SLOW, "a"), _line("solve", SLOW, "b"), _cancel("b"),
                _cancel("a"))
    answers = {answer["id"]: answer for answer in (server.next(), server.next())}
    assert set(answers) == {"a", "b"}
    for answer in answers.values():
        _legal_with_bound(answer)
    assert server.close() == []


def test_cancelling_an_unknown_or_finished_id_does_nothing(server_factory: Any) -> None:
    server = server_factory("--out-of-order")
    server.send(_line("count", {"combat": TINY}, 7))
    assert server.next()["id"] == 7
    server.send(_cancel(7), _cancel("never"), _line("$/cancelRequest", {"id": [1]}),
                _line("count", {"combat": TINY}, 8))
    assert server.next() == engine.handle(
        {"jsonrpc": "2.0", "method": "count", "params": {"combat": TINY}, "id": 8})
    assert server.close() == []


def test_initialize_answers_the_capabilities_and_refuses_bad_params() -> None:
    def ask(params: Any) -> Any:
        return engine.handle({"jsonrpc": "2.0", "method": "initialize", "params": params,
                              "id": 1})

    assert ask({})["result"]["capabilities"] == {"out_of_order": False, "cancel": True}
    assert ask({"capabilities": {"out_of_order": True, "other": 1}})["result"][
        "capabilities"]["out_of_order"] is True
    for bad, path in [({"capabilities": 3}, "params.capabilities"),
                      ({"capabilities": {"out_of_order": "yes"}},
                       "params.capabilities.out_of_order"),
                      ({"speed": 1}, "params.speed")]:
        error = ask(bad)["error"]
        assert error["code"] == protocol.INVALID_PARAMS
        assert error["message"].startswith(path + ":"), error
    assert engine.handle({"jsonrpc": "2.0", "method": "$/cancelRequest", "params": {},
                          "id": 2})["error"]["code"] == protocol.INVALID_PARAMS
    assert engine.handle({"jsonrpc": "2.0", "method": "$/cancelRequest",
                          "params": {"id": 5}, "id": 2})["result"] is None
    assert engine.handle({"jsonrpc": "2.0", "method": "$/cancelRequest",
                          "params": {"id": 5}}) is None


def test_a_bad_initialize_keeps_answers_in_order() -> None:
    lines = [_line("initialize", {"capabilities": {"out_of_order": 1}}, 0)]
    lines += [_line("count", {"combat": TINY}, i) for i in range(1, 40)]
    out = io.StringIO()
    assert engine.serve(io.BytesIO(b"".join(lines)), out, workers=4) == 0
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert answers[0]["error"]["code"] == protocol.INVALID_PARAMS
    assert [a["id"] for a in answers] == list(range(40))


def _mixed(count: int) -> tuple[bytes, list[str]]:
    lines, owed = _requests(count)
    return b"".join(lines), [answer for answer in owed if answer is not None]


def test_out_of_order_every_request_is_answered_exactly_once() -> None:
    data, owed = _mixed(400)
    out = io.StringIO()
    stats: dict[str, int] = {}
    assert engine.serve(io.BytesIO(data), out, out_of_order=True, workers=3,
                        stats=stats) == 0
    assert sorted(out.getvalue().splitlines()) == sorted(owed)
    assert 1 <= stats["peak_in_flight"] <= protocol.MAX_IN_FLIGHT


def test_without_a_session_lines_are_answered_on_the_reading_thread() -> None:
    # In order and before any initialize or cancel, no worker thread is started: each
    # line is answered where it is read (a tiny request pays no hand-over).
    data, owed = _mixed(40)
    writers: set[threading.Thread] = set()

    class Sink(io.StringIO):
        def write(self, text: str) -> int:
            writers.add(threading.current_thread())
            return super().write(text)

    out = Sink()
    assert engine.serve(io.BytesIO(data), out) == 0
    assert out.getvalue().splitlines() == owed
    assert writers == {threading.current_thread()}


def test_in_order_answers_are_those_of_respond_line_by_line() -> None:
    data, owed = _mixed(200)
    out = io.StringIO()
    assert engine.serve(io.BytesIO(data), out, workers=3) == 0
    assert out.getvalue().splitlines() == owed


@pytest.mark.parametrize("out_of_order", [False, True])
def test_the_cap_on_requests_in_flight_holds(out_of_order: bool) -> None:
    data, owed = _mixed(150)
    if not out_of_order:
        # A session in order (opened by initialize) reads ahead as far as the cap allows.
        hello = json.dumps({"jsonrpc": "2.0", "method": "initialize", "params": {},
                            "id": "h"})
        data = hello.encode() + b"\n" + data
        owed = [engine.respond(hello) or "", *owed]
    out = io.StringIO()
    stats: dict[str, int] = {}
    assert engine.serve(io.BytesIO(data), out, out_of_order=out_of_order, workers=3,
                        max_in_flight=3, stats=stats) == 0
    assert 1 <= stats["peak_in_flight"] <= 3
    assert sorted(out.getvalue().splitlines()) == sorted(owed)


def test_a_batch_is_still_one_line_out_of_order() -> None:
    batch = json.dumps([{"jsonrpc": "2.0", "method": "count",
                         "params": {"combat": SPEC_EXAMPLE}, "id": i} for i in range(5)])
    out = io.StringIO()
    engine.serve(io.BytesIO(batch.encode() + b"\n"), out, out_of_order=True)
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    assert [a["id"] for a in json.loads(lines[0])] == list(range(5))


def test_the_load_benchmark_runs_quick() -> None:
    result = subprocess.run([sys.executable, "-m", "benchmarks.serve_latency", "--quick",
                             "--json"], cwd=ROOT, capture_output=True, text=True,
                            timeout=600)
    assert result.returncode == 0, result.stderr
    report = json.loads(result.stdout)
    for mode in ("in_order", "out_of_order"):
        run = report[mode]
        assert run["answered"] == run["requests"] == report["requests"]
        assert run["fast_p50_ms"] <= run["fast_p99_ms"]
        assert run["throughput_per_s"] > 0


def test_cancel_stops_the_searches_watching_and_only_those() -> None:
    cancel = Cancel()
    stopped: list[str] = []
    with cancel.watching(lambda: stopped.append("running")) as running:
        assert running
        cancel.set()
        cancel.set()  # once only
    with cancel.watching(lambda: stopped.append("later")) as running:
        assert not running  # already cancelled: not started at all
    assert stopped == ["running"]
    assert cancel.is_set()


def test_a_solve_cancelled_before_it_starts_answers_the_greedy_split_and_a_bound() -> None:
    cancel = Cancel()
    cancel.set()
    combat = held_combat()
    result = api.solve(combat, time_limit=HELD, cancel=cancel)
    assert result["status"] == "feasible"
    assert api.validate(combat, result["assignment"])["legal"]
    terms = list(result["objective"])
    assert [result["bound"][t] for t in terms] >= [result["objective"][t] for t in terms]


def test_a_request_inside_a_batch_can_be_cancelled(server_factory: Any) -> None:
    server = server_factory()
    server.send(_line("initialize", {}, 0))
    assert server.next()["id"] == 0
    batch = [{"jsonrpc": "2.0", "method": "solve", "params": SLOW, "id": "m1"},
             {"jsonrpc": "2.0", "method": "count", "params": {"combat": TINY}, "id": "m2"}]
    server.send(json.dumps(batch).encode() + b"\n", _cancel("m1"))
    first, second = server.next()
    assert first["id"] == "m1"
    _legal_with_bound(first)
    assert second == engine.handle(batch[1])
    assert server.close() == []


class Held:
    """A method that runs until its request is cancelled (or :data:`WAIT` passes, which
    fails the test): what it saw is kept."""

    def __init__(self) -> None:
        self.started = threading.Event()
        self.cancelled = threading.Event()

    def __call__(self, params: Any) -> Any:
        cancel = protocol.request_cancel.get()
        assert cancel is not None, "the request runs without a cancellation"
        self.started.set()
        with cancel.watching(self.cancelled.set) as registered:
            if registered:
                self.cancelled.wait(WAIT)
            else:
                self.cancelled.set()
        return {"held": self.cancelled.is_set()}


@pytest.mark.parametrize("queued", [300, 3_000])
def test_a_cancel_behind_a_full_queue_is_read_at_once(
        monkeypatch: pytest.MonkeyPatch, queued: int) -> None:
    """A held request runs; then come many tiny ones and a cancel of the held one, in an
    ordered session: the reader reads on past the queued requests, so the cancel reaches
    the held one while it runs (not once it ends by itself)."""
    held = Held()
    monkeypatch.setitem(methods.METHODS, "hold", held)
    read_in, write_in = os.pipe()
    source = open(read_in, "rb", buffering=0)  # noqa: SIM115 (closed below)
    out = io.StringIO()
    stats: dict[str, int] = {}
    done: list[int] = []
    thread = threading.Thread(target=lambda: done.append(engine.serve(source, out,
                                                                      stats=stats)))
    thread.start()
    try:
        os.write(write_in, _line("initialize", {}, "hello") + _line("hold", {}, "held"))
        assert held.started.wait(WAIT)
        rest = [_line("count", {"combat": TINY}, i) for i in range(queued)]
        with open(write_in, "wb", closefd=False) as pipe:
            pipe.write(b"".join([*rest, _cancel("held")]))
        assert held.cancelled.wait(WAIT), "the cancel waited behind the queue"
    finally:
        os.close(write_in)
        thread.join(WAIT)
        source.close()
    assert done == [0]
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    assert answers[1] == {"jsonrpc": "2.0", "id": "held", "error": {
        "code": protocol.REQUEST_CANCELLED, "message": "request cancelled"}}
    assert [a["id"] for a in answers] == ["hello", "held", *range(queued)]
    assert all(a["result"] == api.count(TINY) for a in answers[2:])
    assert stats["peak_in_flight"] >= queued + 2  # all read while the held one ran


@pytest.mark.parametrize("opening", [b"", b"initialize", b"out_of_order"])
def test_a_closed_output_cancels_what_is_in_flight(
        monkeypatch: pytest.MonkeyPatch, opening: bytes) -> None:
    """The client closes the pipe serve writes to while a request runs (answered on the
    reading thread, in an ordered session, out of order): the request is cancelled and
    serve ends, without waiting for the request to end by itself."""
    held = Held()
    monkeypatch.setitem(methods.METHODS, "hold", held)
    read_in, write_in = os.pipe()
    read_out, write_out = os.pipe()
    sink = open(write_out, "w", encoding="utf-8")  # noqa: SIM115 (closed below)
    source = open(read_in, "rb", buffering=0)  # noqa: SIM115 (a raw file, as stdin is)
    done: list[int] = []
    out_of_order = opening == b"out_of_order"
    thread = threading.Thread(target=lambda: done.append(engine.serve(
        source, sink, out_of_order=out_of_order, workers=2)))
    thread.start()
    try:
        first = [_line("initialize", {}, 0)] if opening == b"initialize" else []
        os.write(write_in, b"".join([*first, _line("hold", {}, 1)]))
        assert held.started.wait(WAIT)
        os.close(read_out)  # the client goes away: nobody reads the answers
        assert held.cancelled.wait(WAIT), "the request ran on with nobody to answer"
    finally:
        os.close(write_in)  # end of input
        thread.join(WAIT)
        source.close()
        with contextlib.suppress(OSError):  # the pipe is broken: nothing held can go out
            sink.close()
    assert done == [0]
