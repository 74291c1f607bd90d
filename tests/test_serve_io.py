"""How ``trample serve`` reads and writes: standard input read from its descriptor; the
answers to lines read together held back and written in one write, before the reader may
wait, past a byte bound, or once old (a slow request does not hold them back); every
answer byte for byte what the standard library writes. Mechanisms only: a flush is
observed by the sink, and a slow request is held by an event, never timed."""

from __future__ import annotations

import io
import json
import os
import queue
import random
import subprocess
import sys
import threading
from typing import Any

import pytest
from test_serve_async import WAIT, Server, _line
from test_serve_load import TINY

from benchmarks.generators import tiny
from trample.solver.interface import api, methods, protocol, transport
from trample.solver.interface import serve as engine


def _ids(count: int) -> list[Any]:
    """Ids of every kind a client sends: integers, strings (escaped and not), null."""
    kinds = [lambda i: i, lambda i: f"r{i}", lambda i: f"é☃{i}\"\\", lambda i: -i,
             lambda i: None]
    return [kinds[i % len(kinds)](i) for i in range(count)]


def test_distinct_tiny_solves_answer_as_the_standard_library_writes_them() -> None:
    combats = [tiny(1 + i % 3, 7_000 + i) for i in range(300)]
    ids = _ids(len(combats))
    data = b"".join(_line("solve", {"combat": combat}, rid) if rid is not None else
                    json.dumps({"jsonrpc": "2.0", "method": "solve",
                                "params": {"combat": combat}, "id": None}).encode() + b"\n"
                    for combat, rid in zip(combats, ids, strict=True))
    result = subprocess.run([sys.executable, "-m", "trample.solver", "serve"], input=data,
                            capture_output=True, timeout=600)
    assert result.returncode == 0, result.stderr
    owed = [json.dumps({"jsonrpc": "2.0", "result": api.solve(combat), "id": rid})
            for combat, rid in zip(combats, ids, strict=True)]
    assert result.stdout.decode().splitlines() == owed


class _Sink(io.StringIO):
    """An output that reports, at each flush, every line written so far."""

    def __init__(self) -> None:
        super().__init__()
        self.flushes: queue.Queue[list[str]] = queue.Queue()
        self.writes = 0

    def write(self, text: str) -> int:
        self.writes += 1
        return super().write(text)

    def flush(self) -> None:
        self.flushes.put(self.getvalue().splitlines())

    def next_flush(self) -> list[str]:
        try:
            return self.flushes.get(timeout=WAIT)
        except queue.Empty:
            pytest.fail(f"no flush within {WAIT} s")


def _serve_a_pipe(sink: _Sink) -> tuple[int, threading.Thread]:
    """``serve`` on this process's thread reading a pipe (unbuffered, as standard input
    is read); the end to write the requests to."""
    read_end, write_end = os.pipe()
    source = open(read_end, "rb", buffering=0)  # noqa: SIM115 - closed by the thread

    def run() -> None:
        with source:
            engine.serve(source, sink)

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return write_end, thread


def _tiny_lines(count: int) -> list[bytes]:
    return [_line("solve", {"combat": tiny(1 + i % 3, 8_000 + i)}, i) for i in range(count)]


def test_answers_read_together_go_out_in_one_flush_before_the_reader_waits(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport, "FLUSH_AFTER", 3_600.0)  # no answer is old enough to go alone
    lines = _tiny_lines(4)
    owed = [engine.respond(line) for line in lines]
    sink = _Sink()
    write_end, thread = _serve_a_pipe(sink)
    # One write of less than a pipe's atomic size: the server reads the three at once,
    # answers them, and flushes once, as it is about to wait for more input.
    assert len(b"".join(lines[:3])) < 4096
    os.write(write_end, b"".join(lines[:3]))
    assert sink.next_flush() == owed[:3]
    assert sink.writes == 1  # one write, even to an unbuffered output: one system call
    os.write(write_end, lines[3])  # sent only after the answers came: none was held back
    assert sink.next_flush() == owed
    os.close(write_end)
    thread.join(WAIT)
    assert not thread.is_alive()
    assert sink.flushes.empty()  # nothing was left to flush at the end of input


def test_a_slow_request_does_not_hold_back_the_answers_before_it(
        monkeypatch: pytest.MonkeyPatch) -> None:
    release = threading.Event()

    def held(params: Any) -> Any:  # a request that runs until the test lets it end
        release.wait(WAIT)
        return "released"

    monkeypatch.setitem(methods.METHODS, "count", held)
    lines = [*_tiny_lines(1), _line("count", {}, "held")]
    first = engine.respond(lines[0])
    sink = _Sink()
    write_end, thread = _serve_a_pipe(sink)
    os.write(write_end, b"".join(lines))  # read together: the first answer is held back,
    assert sink.next_flush() == [first]  # and goes out while the second is still running
    release.set()
    assert sink.next_flush() == [first, json.dumps(
        {"jsonrpc": "2.0", "result": "released", "id": "held"})]
    os.close(write_end)
    thread.join(WAIT)
    assert not thread.is_alive()


def test_answers_held_back_stay_within_their_byte_bound(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(transport, "FLUSH_AFTER", 3_600.0)  # no answer is old enough
    monkeypatch.setattr(transport, "HOLD_BYTES", 1_000)  # two tiny answers, not three
    release = threading.Event()

    def held(params: Any) -> Any:
        release.wait(WAIT)
        return None

    monkeypatch.setitem(methods.METHODS, "count", held)
    lines = [*_tiny_lines(3), _line("count", {}, "held")]
    owed = [engine.respond(line) or "" for line in lines[:3]]
    assert all(300 < len(answer) < 500 for answer in owed)
    sink = _Sink()
    write_end, thread = _serve_a_pipe(sink)
    os.write(write_end, b"".join(lines))
    # The third answer passes the bound: the three go out while the fourth is running.
    assert sink.next_flush() == owed
    release.set()
    assert len(sink.next_flush()) == 4
    os.close(write_end)
    thread.join(WAIT)
    assert sink.flushes.empty()
    longer = transport.Output(sink, batched=True)  # a longer answer goes out as it is
    longer.write("x" * 2_000)
    assert sink.next_flush()[-1] == "x" * 2_000
    longer.close()


def test_a_client_in_lockstep_gets_each_answer_before_it_sends_the_next() -> None:
    server = Server()
    try:
        for i, line in enumerate(_tiny_lines(6)):
            server.send(line)  # then waits: the answer must not be held for more input
            answer = server.next()
            assert answer["id"] == i and answer["result"]["status"] == "optimal"
        assert server.close() == []
    finally:
        server.kill()


def test_other_sources_and_sinks_flush_every_answer() -> None:
    lines = _tiny_lines(3)
    sink = _Sink()
    assert engine.serve(io.BytesIO(b"".join(lines)), sink) == 0
    flushes = [sink.flushes.get_nowait() for _ in range(sink.flushes.qsize())]
    assert [len(seen) for seen in flushes] == [1, 2, 3]


@pytest.mark.parametrize("seed", range(4))
def test_the_pipe_reader_reads_the_lines_a_buffered_reader_reads(seed: int) -> None:
    rng = random.Random(seed)
    pieces = [b"x" * rng.choice((0, 1, 5, 70, 3_000, 70_000)) + b"\n" for _ in range(60)]
    data = b"".join(pieces) + b"tail without a newline"
    read_end, write_end = os.pipe()

    def write() -> None:  # in uneven pieces, so lines straddle the reads
        at = 0
        while at < len(data):
            size = rng.choice((1, 7, 500, 4_096, 70_000))
            os.write(write_end, data[at:at + size])
            at += size
        os.close(write_end)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    waits: list[int] = []
    reader = transport.Input(read_end, lambda: waits.append(1))
    expected = io.BytesIO(data)
    limits = [rng.choice((1, 3, 100, 5_000, 2**20)) for _ in range(10)]
    got: list[bytes] = []
    owed: list[bytes] = []
    while True:
        limit = limits[len(got) % len(limits)]
        piece, want = reader.readline(limit), expected.readline(limit)
        got.append(piece)
        owed.append(want)
        if not want:
            break
    writer.join(WAIT)
    assert reader.readline(10) == b""  # the end stays the end
    os.close(read_end)
    assert got == owed
    assert len(waits) >= 2  # it asked before each read that might wait


def test_a_line_that_is_not_utf8_is_refused_with_the_codecs_message() -> None:
    body = b'{"jsonrpc": "2.0", "method": "count", "params": {"combat": "%s"}, "id": 1}'
    for bad in (b"\xff", b"\xc0\xaf", b"\xed\xa0\x80", b"\xe2\x82", b"\xf4\x90\x80\x80"):
        line = body.replace(b"%s", bad)
        try:
            line.decode("utf-8")
        except UnicodeDecodeError as exc:
            message = f"parse error: not UTF-8 text: {exc}"
        else:  # pragma: no cover - every byte string above is refused by the codec
            raise AssertionError(bad)
        assert json.loads(engine.respond(line) or "") == {
            "jsonrpc": "2.0", "error": {"code": protocol.PARSE_ERROR, "message": message},
            "id": None}
    good = body.replace(b'"%s"', json.dumps(TINY).encode())
    assert json.loads(engine.respond(good) or "")["result"] == api.count(TINY)


def test_a_bug_reading_a_line_is_an_internal_error_and_the_server_goes_on(
        monkeypatch: pytest.MonkeyPatch) -> None:
    def broken(line: str) -> Any:
        raise KeyError("boom")

    monkeypatch.setattr(protocol, "decode", broken)  # text lines are decoded by it
    lines = [_line("count", {"combat": TINY}, 1).decode(), "[]\n"]
    out = io.StringIO()
    assert engine.serve(io.StringIO("".join(lines)), out) == 0
    first, second = (json.loads(line) for line in out.getvalue().splitlines())
    assert first["id"] is None and first["error"]["code"] == protocol.INTERNAL_ERROR
    assert first["error"]["message"].startswith("internal error: KeyError: 'boom'")
    assert second["error"]["code"] == protocol.INTERNAL_ERROR  # every line, as the first
