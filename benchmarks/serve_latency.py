"""``python -m benchmarks.serve_latency``: the latency of ``trample serve`` under load, with
and without out-of-order answers.

10,000 mixed requests (tiny solves, counts, validates, enumerates; one in a hundred a slow
solve of a coupled combat with a time limit of 2 s) are sent pipelined to a real
``python -m trample.solver serve`` subprocess, at most ``--window`` of them unanswered at
once (a client with requests in flight, not one that dumps the whole file: then every
latency would be the queue's). A request's latency is the client's: from just before its
line is written to the moment its answer line is read. Reported per mode: the fast
requests' p50 and p99, the slow ones' median, the wall time and the throughput. Run once
in order (today's protocol) and once with ``--out-of-order``; every id must be answered
exactly once. ``--quick``: a few hundred requests and a short slow time limit, to check
that the benchmark works (the test suite runs it so, and asserts no timing).
"""

from __future__ import annotations

import argparse
import json
import platform
import subprocess
import sys
import threading
import time
from collections.abc import Sequence
from itertools import pairwise
from statistics import median
from typing import IO, Any

from trample.solver.interface.demo import DEMO_COMBAT
from trample.solver.interface.serve import workers_default

SOLVER = [sys.executable, "-m", "trample.solver", "serve"]

TINY: dict[str, Any] = {
    "active_player": "a", "players": [{"id": "a"}, {"id": "d", "life": 3}],
    "creatures": [{"id": "x", "controller": "a", "power": 3, "toughness": 2,
                   "keywords": ["trample"], "attacking": "d"},
                  {"id": "y", "controller": "a", "power": 1, "toughness": 1,
                   "attacking": "d"},
                  {"id": "w", "controller": "d", "power": 1, "toughness": 2,
                   "blocking": ["x"]}]}
"""A combat every fast request asks about (answered in well under a millisecond)."""
TINY_LEGAL = [{"source": "x", "target": "w", "amount": 2},
              {"source": "x", "target": "d", "amount": 1},
              {"source": "y", "target": "d", "amount": 1}]


def coupled() -> dict[str, Any]:
    """Eight tramplers all blocked by the same five 1/15 walls: CP-SAT takes seconds to
    prove it, so a time limit of a second or two stops the search."""
    attackers = [f"t{i}" for i in range(8)]
    creatures: list[dict[str, Any]] = [
        {"id": t, "controller": "a", "power": 20, "toughness": 5, "keywords": ["trample"],
         "attacking": "d"} for t in attackers]
    creatures += [{"id": f"w{j}", "controller": "d", "power": 1, "toughness": 15,
                   "blocking": attackers} for j in range(5)]
    return {"active_player": "a", "players": [{"id": "a"}, {"id": "d"}],
            "creatures": creatures}


FAST: list[tuple[str, dict[str, Any]]] = [
    ("solve", {"combat": TINY}),
    ("count", {"combat": TINY}),
    ("validate", {"combat": TINY, "assignment": TINY_LEGAL}),
    ("enumerate", {"combat": TINY, "limit": 5}),
]


def requests(count: int, slow_every: int, slow_limit: float) -> list[tuple[bool, bytes]]:
    """``count`` request lines with ids 0, 1, ...: (slow, line)."""
    slow_params = {"combat": coupled(), "time_limit": slow_limit}
    lines: list[tuple[bool, bytes]] = []
    for i in range(count):
        slow = i % slow_every == slow_every // 2
        method, params = ("solve", slow_params) if slow else FAST[i % len(FAST)]
        line = json.dumps({"jsonrpc": "2.0", "method": method, "params": params, "id": i})
        lines.append((slow, line.encode() + b"\n"))
    return lines


def _percentile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(int(q * len(ordered)), len(ordered) - 1)]


def run(lines: list[tuple[bool, bytes]], out_of_order: bool, workers: int,
        window: int) -> dict[str, Any]:
    """Send ``lines`` to one server, at most ``window`` unanswered; the measurements."""
    options = ["--out-of-order", "--workers", str(workers)] if out_of_order else []
    process = subprocess.Popen([*SOLVER, *options], stdin=subprocess.PIPE,
                               stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    stdin, stdout = process.stdin, process.stdout
    assert stdin is not None and stdout is not None
    # Start-up is not a request's latency: one warm-up answer first, a CP-SAT solve that
    # loads OR-Tools (until it is loaded, a short time limit skips the search).
    stdin.write(json.dumps({"jsonrpc": "2.0", "method": "solve",
                            "params": {"combat": DEMO_COMBAT}, "id": "warm-up"}).encode()
                + b"\n")
    stdin.flush()
    stdout.readline()
    sent = [0.0] * len(lines)
    received = [0.0] * len(lines)
    answered = [0] * len(lines)
    room = threading.Semaphore(window)

    def write(sink: IO[bytes]) -> None:
        for i, (_, line) in enumerate(lines):
            room.acquire()
            sent[i] = time.perf_counter()
            sink.write(line)
            sink.flush()
        sink.close()

    started = time.perf_counter()
    writer = threading.Thread(target=write, args=(stdin,), daemon=True)
    writer.start()
    order: list[int] = []
    for raw in stdout:
        now = time.perf_counter()
        rid = json.loads(raw)["id"]
        received[rid] = now
        answered[rid] += 1
        order.append(rid)
        room.release()
    wall = time.perf_counter() - started
    writer.join()
    process.wait()
    if any(count != 1 for count in answered):
        raise SystemExit("an id was not answered exactly once")
    fast = [received[i] - sent[i] for i, (slow, _) in enumerate(lines) if not slow]
    slow = [received[i] - sent[i] for i, (is_slow, _) in enumerate(lines) if is_slow]
    overtaken = sum(1 for a, b in pairwise(order) if b < a)
    return {"requests": len(lines), "answered": sum(answered),
            "fast_p50_ms": round(_percentile(fast, 0.5) * 1000, 2),
            "fast_p99_ms": round(_percentile(fast, 0.99) * 1000, 2),
            "slow_median_s": round(median(slow), 3) if slow else None,
            "wall_s": round(wall, 2), "throughput_per_s": round(len(lines) / wall, 1),
            "answers_out_of_order": overtaken,
            "workers": workers if out_of_order else 1}


def main(argv: Sequence[str] | None = None) -> int:
    """Run both modes; print a Markdown table (or ``--json``)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.serve_latency",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--slow-every", type=int, default=100,
                        help="one slow solve in this many requests (100: 1%%)")
    parser.add_argument("--slow-limit", type=float, default=2.0,
                        help="the slow solves' time limit in seconds (2)")
    parser.add_argument("--workers", type=int, default=workers_default(),
                        help="serve --workers out of order (default: the CPUs)")
    parser.add_argument("--window", type=int, default=64,
                        help="requests sent and not yet answered, at most (64)")
    parser.add_argument("--quick", action="store_true",
                        help="300 requests, slow time limit 0.2 s: checks that it works")
    parser.add_argument("--mode", choices=("both", "in-order", "out-of-order"),
                        default="both", help="which runs (both)")
    parser.add_argument("--json", action="store_true", help="print the numbers as JSON")
    args = parser.parse_args(argv)
    if args.quick:
        args.requests, args.slow_limit = 300, 0.2
    lines = requests(args.requests, args.slow_every, args.slow_limit)
    report: dict[str, Any] = {"requests": len(lines), "slow_limit_s": args.slow_limit,
                              "window": args.window, "machine": platform.platform()}
    modes = [(name, out_of_order) for name, out_of_order in
             (("in_order", False), ("out_of_order", True))
             if args.mode in ("both", name.replace("_", "-"))]
    for name, out_of_order in modes:
        report[name] = run(lines, out_of_order, args.workers, args.window)
    if args.json:
        print(json.dumps(report, indent=1))
        return 0
    print(f"{len(lines):,} requests, 1 in {args.slow_every} a solve stopped at "
          f"{args.slow_limit} s, at most {args.window} unanswered\n")
    print("| mode | workers | fast p50 | fast p99 | slow median | wall | throughput |")
    print("|---|---|---|---|---|---|---|")
    for name, _ in modes:
        r = report[name]
        print(f"| {name.replace('_', ' ')} | {r['workers']} | {r['fast_p50_ms']} ms | "
              f"{r['fast_p99_ms']} ms | {r['slow_median_s']} s | {r['wall_s']} s | "
              f"{r['throughput_per_s']}/s |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
