"""Throughput on tiny combats: solves per second in-process and through ``trample serve``.

``serve`` runs as a subprocess (``python -m trample.solver serve``); requests are written
by a thread while the main thread reads the responses, so they are pipelined through its
standard input and output. The server is warmed up (OR-Tools loaded, every combat of the
pool solved once) before the clock starts.

``python -m benchmarks.throughput`` measures CPU time, which a shared machine disturbs far
less than the wall clock: in-process, :func:`time.process_time` around ``--solves`` calls
of ``api.solve`` on the JSON document (and of ``solve`` on a handle of ``api.prepare``,
the parse-once path); through ``serve``, the server process's own CPU time (user and
system, from ``/proc``) for ``--requests`` pipelined ``solve`` lines, reading, answering
and writing included. Each is the best of ``--repeat`` rounds; wall clock alongside.
``--distinct`` makes every request a combat of its own (no two lines alike) instead of
cycling through a pool of 200.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from typing import Any

from benchmarks.generators import Document, tiny
from trample.solver import native
from trample.solver.interface import api


def tiny_pool(size: int, seed: int) -> list[Document]:
    """``size`` distinct tiny combats (one to three blockers), reproducible from ``seed``."""
    return [tiny(1 + i % 3, seed * 1_000_003 + i) for i in range(size)]


def cpu_in_process(pool: Sequence[Document], total: int, prepared: bool = False) -> float:
    """CPU seconds (this process) to solve ``total`` combats cycling through ``pool``: with
    ``api.solve`` on the document, or with ``prepared``, ``solve`` on a handle of each
    combat prepared beforehand (the parse-once path; preparing is not timed)."""
    if prepared:
        handles = [api.prepare(doc) for doc in pool]
        started = time.process_time()
        for i in range(total):
            handles[i % len(handles)].solve()
        return time.process_time() - started
    started = time.process_time()
    for i in range(total):
        api.solve(pool[i % len(pool)])
    return time.process_time() - started


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

    def cpu(self) -> float | None:
        """CPU seconds the server process has used so far (None where ``/proc`` is not)."""
        try:
            with open(f"/proc/{self.process.pid}/stat", encoding="ascii") as f:
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            return None
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

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


def serve_cpu(batch: Sequence[Document], repeat: int) -> list[tuple[float, float | None]]:
    """(wall seconds, server CPU seconds) of ``repeat`` rounds of ``batch`` pipelined to
    one ``serve`` warmed up on the first 200 documents of the batch."""
    server = Server()
    rounds = []
    try:
        server.run(batch[:200])
        for _ in range(repeat):
            before = server.cpu()
            elapsed, responses = server.run(batch)
            after = server.cpu()
            bad = [r for r in responses if "result" not in r]
            if bad:
                raise RuntimeError(f"serve answered an error: {bad[0]}")
            rounds.append((elapsed, None if before is None or after is None
                           else after - before))
    finally:
        server.close()
    return rounds


def main(argv: Sequence[str] | None = None) -> int:
    """Print the tiny-combat throughput, CPU time and wall clock."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.throughput",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--solves", type=int, default=20_000)
    parser.add_argument("--requests", type=int, default=20_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--distinct", action="store_true",
                        help="every request a combat of its own (no pool cycled through)")
    args = parser.parse_args(argv)
    size = max(args.solves, args.requests) if args.distinct else 200
    pool = tiny_pool(size, args.seed)
    for doc in pool[:200]:  # imports and first-use caches, out of the clock
        api.solve(doc)
    which = "all distinct" if args.distinct else "a pool of 200"
    print(f"tiny combats (1 attacker, 1-3 blockers), {which}; Python "
          f"{platform.python_version()}, trample {native.describe()}, best of {args.repeat}")
    for label, prepared in (("api.solve (document)", False), ("prepared handle .solve()", True)):
        best = min(cpu_in_process(pool, args.solves, prepared) for _ in range(args.repeat))
        print(f"  in-process {label:26s} {args.solves / best:9,.0f} solves/s CPU "
              f"({best / args.solves * 1e6:.1f} us each)")
    batch = [pool[i % len(pool)] for i in range(args.requests)]
    rounds = serve_cpu(batch, args.repeat)
    wall = min(w for w, _ in rounds)
    cpus = [c for _, c in rounds if c is not None]
    cpu = f"{args.requests / min(cpus):9,.0f} requests/s CPU " \
        f"({min(cpus) / args.requests * 1e6:.1f} us each)" if cpus else "(no /proc: no CPU time)"
    print(f"  serve {'end to end':31s} {cpu}; {args.requests / wall:,.0f}/s wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
