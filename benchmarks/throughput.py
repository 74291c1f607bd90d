"""Throughput on tiny combats: solves per second in-process and through ``trample serve``.

``serve`` runs as a subprocess (``python -m trample.solver serve``); requests are written
by a thread while the main thread reads the responses, so they are pipelined through its
standard input and output. The server is warmed up (OR-Tools loaded, every combat of the
pool solved once) before the clock starts.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

from benchmarks.generators import Document, tiny
from trample.solver import api


def tiny_pool(size: int, seed: int) -> list[Document]:
    """``size`` distinct tiny combats (one to three blockers), reproducible from ``seed``."""
    return [tiny(1 + i % 3, seed * 1_000_003 + i) for i in range(size)]


def solve_in_process(pool: Sequence[Document], total: int) -> float:
    """Seconds to solve ``total`` combats, cycling through ``pool``, with ``api.solve``."""
    started = time.perf_counter()
    for i in range(total):
        api.solve(pool[i % len(pool)])
    return time.perf_counter() - started


class Server:
    """A ``trample serve`` subprocess that answers batches of pipelined requests."""

    def __init__(self) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "trample.solver", "serve"], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, text=True, encoding="utf-8")
        self.next_id = 0

    def run(self, documents: Sequence[Document]) -> tuple[float, list[dict[str, Any]]]:
        """Send one ``solve`` request per document, pipelined; the seconds from the first
        write to the last response, and the responses in order."""
        lines = []
        for doc in documents:
            lines.append(json.dumps({"jsonrpc": "2.0", "method": "solve",
                                     "params": {"combat": doc}, "id": self.next_id}) + "\n")
            self.next_id += 1
        stdin, stdout = self.process.stdin, self.process.stdout
        assert stdin is not None and stdout is not None

        def write() -> None:
            for line in lines:
                stdin.write(line)
            stdin.flush()

        started = time.perf_counter()
        writer = threading.Thread(target=write, daemon=True)
        writer.start()
        responses = [json.loads(stdout.readline()) for _ in lines]
        elapsed = time.perf_counter() - started
        writer.join()
        return elapsed, responses

    def close(self) -> int:
        """End of input ends the server; its exit status."""
        assert self.process.stdin is not None
        self.process.stdin.close()
        return self.process.wait(timeout=60)


def solve_through_serve(pool: Sequence[Document], total: int,
                        repeat: int) -> tuple[list[float], list[dict[str, Any]], int]:
    """Times of ``repeat`` batches of ``total`` pipelined requests cycling through ``pool``
    (after a warm-up batch of the pool), the warm-up responses, and the exit status."""
    server = Server()
    try:
        _, warm = server.run(pool)
        batch = [pool[i % len(pool)] for i in range(total)]
        times = []
        for _ in range(repeat):
            elapsed, responses = server.run(batch)
            bad = [r for r in responses if "result" not in r]
            if bad:
                raise RuntimeError(f"serve answered an error: {bad[0]}")
            times.append(elapsed)
    finally:
        status = server.close()
    return times, warm, status
