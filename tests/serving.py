"""A real ``trample serve`` process for the tests that talk to one line by line."""

from __future__ import annotations

import io
import json
import os
import queue
import subprocess
import sys
import threading
from pathlib import Path
from typing import IO, Any

import pytest

WAIT = 60.0
"""How long a test waits for one answer (or for the end) before it fails."""


class ServeProcess:
    """``trample serve`` with ``options`` as a subprocess, its answers read on a thread
    (so a test can wait for one with a time limit)."""

    def __init__(self, *options: str, env: dict[str, str] | None = None,
                 cwd: Path | None = None) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "trample.solver", "serve", *options], cwd=cwd,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            env={**os.environ, **(env or {})})
        self.answers: queue.Queue[bytes] = queue.Queue()
        stdout = self.process.stdout
        assert stdout is not None
        threading.Thread(target=self._read, args=(stdout,), daemon=True).start()

    def _read(self, stream: IO[bytes]) -> None:
        for line in stream:
            self.answers.put(line)
        self.answers.put(b"")

    def write(self, *lines: bytes) -> None:
        """Send ``lines`` (each ending in a newline) at once."""
        stdin = self.process.stdin
        assert stdin is not None
        stdin.write(b"".join(lines))
        stdin.flush()

    def answer(self) -> bytes:
        """The next line answered; the test fails if none comes within :data:`WAIT`."""
        try:
            line = self.answers.get(timeout=WAIT)
        except queue.Empty:
            self.process.kill()
            pytest.fail(f"serve gave no answer within {WAIT} s")
        assert line, "serve ended"
        return line

    def finish(self) -> list[bytes]:
        """End the input; the lines answered after that, once serve exited with 0."""
        stdin = self.process.stdin
        assert stdin is not None
        stdin.close()
        rest: list[bytes] = []
        while line := self.answers.get(timeout=WAIT):
            rest.append(line)
        assert self.process.wait(timeout=WAIT) == 0
        return rest

    def kill(self) -> None:
        """Stop serve if it still runs."""
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait()


def served(requests: list[dict[str, Any]]) -> dict[Any, dict[str, Any]]:
    """The answers of ``trample serve``'s engine, in this process, to ``requests`` sent
    one a line, by id."""
    from trample.solver.interface import serve

    out = io.StringIO()
    data = "".join(json.dumps(r) + "\n" for r in requests).encode()
    assert serve.serve(io.BytesIO(data), out) == 0
    answers = [json.loads(line) for line in out.getvalue().splitlines()]
    return {a["id"]: a for a in answers}


def command(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
            *argv: str, stdin: str = "") -> tuple[int, str, str]:
    """``trample ARGV`` run in this process: its exit status, standard output and
    standard error (``stdin`` is its standard input)."""
    from trample.solver.interface import cli

    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(stdin.encode())))
    capsys.readouterr()
    status = cli.main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err
