"""``python -m benchmarks.batch_throughput``: ``trample batch`` against one ``trample serve``.

Two workloads of ``solve`` requests, written once as JSON lines: many tiny combats
(:func:`benchmarks.generators.tiny`, one to three blockers) and fewer army-sized ones
(:func:`benchmarks.generators.token_army`). The same file is piped through a single
``python -m trample.solver serve`` process and given to ``python -m trample.solver batch``
with one worker (in-process), every local core, and a local Ray started by the command.
Each time is the wall clock of the whole command, start-up (OR-Tools, worker processes,
Ray) included; every output must equal ``serve``'s line for line. Writes a Markdown table
(default ``benchmarks/results/batch.md``) and the raw numbers beside it as JSON.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import resource
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

from benchmarks.generators import Document, tiny, token_army
from benchmarks.output import output_folder
from trample.solver.interface.batch import default_workers

SOLVER = [sys.executable, "-m", "trample.solver"]


def write_requests(path: Path, count: int, make: Callable[[int], Document]) -> None:
    """``count`` ``solve`` requests, one per line, combat ``make(i)`` with id ``i``."""
    with path.open("w", encoding="utf-8") as f:
        for i in range(count):
            f.write(json.dumps({"jsonrpc": "2.0", "method": "solve",
                                "params": {"combat": make(i)}, "id": i}) + "\n")


def timed(command: list[str], stdin: Path | None = None,
          stdout: Path | None = None) -> tuple[float, float]:
    """Wall-clock seconds the command takes, start to exit (it must exit 0), and the CPU
    seconds of it and the children it waited for (its worker processes; not Ray's)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    with open(stdin or os.devnull, "rb") as src, open(stdout or os.devnull, "wb") as out:
        result = subprocess.run(command, stdin=src, stdout=out, stderr=subprocess.PIPE)
    elapsed = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} exited {result.returncode}: "
                           f"{result.stderr.decode(errors='replace')[-2000:]}")
    cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
    return elapsed, cpu


def ray_start_seconds(cpus: int) -> float | None:
    """Seconds for ``import ray`` and ``ray.init`` of a local Ray and its shutdown."""
    code = (f"import ray; ray.init(num_cpus={cpus}, include_dashboard=False, "
            "logging_level='warning'); ray.shutdown()")
    try:
        return timed([sys.executable, "-c", code])[0]
    except RuntimeError:
        return None


def run_workload(name: str, source: Path, lines: int, workers: int, use_ray: bool,
                 chunk_size: int, repeat: int, folder: Path) -> dict[str, Any]:
    """Every way of answering one file, ``repeat`` rounds in turn (the best time of each
    is kept: the machine is shared); the times, each output checked against serve's."""
    reference = folder / f"{name}.serve.jsonl"
    ways: list[tuple[str, list[str]]] = [
        ("serve (1 process)", [*SOLVER, "serve"]),
        ("batch --workers 1", ["--workers", "1"]),
        (f"batch --workers {workers}", ["--workers", str(workers)])]
    if use_ray:
        ways.append((f"batch --ray --workers {workers}", ["--ray", "--workers", str(workers)]))
    times: dict[str, list[tuple[float, float]]] = {label: [] for label, _ in ways}
    for round_ in range(repeat):
        for label, options in ways:
            print(f"  {name}: {label} (round {round_ + 1} of {repeat})", file=sys.stderr)
            if label.startswith("serve"):
                times[label].append(timed(options, source, reference))
                continue
            out = folder / f"{name}.out.jsonl"
            times[label].append(timed([*SOLVER, "batch", str(source), str(out),
                                       "--no-progress", "--chunk-size", str(chunk_size),
                                       *options]))
            if out.read_bytes() != reference.read_bytes():
                raise RuntimeError(f"{name}: {label} did not answer as serve did")
    serve_time = min(times["serve (1 process)"])[0]
    runs = {}
    for label, measured in times.items():
        wall, cpu = min(measured)
        runs[label] = {"seconds": wall, "cpu_seconds": None if "--ray" in label else cpu,
                       "rounds": measured, "per_second": lines / wall,
                       "speedup_vs_serve": serve_time / wall}
    return {"name": name, "lines": lines, "runs": runs}


def table(results: dict[str, Any]) -> str:
    """The Markdown report."""
    meta = results["meta"]
    out = [
        "# `trample batch` throughput", "",
        f"`{meta['command']}` on {meta['date']}: {meta['cpus']} CPUs, Python {meta['python']}, "
        f"Ray {meta['ray']}, chunk size {meta['chunk_size']}. Each time is the wall clock of "
        "the whole command (start-up included: OR-Tools, worker processes, Ray), the best "
        f"of {meta['repeat']} round(s) run in turn; the "
        "speed-up is `serve`'s time over the row's, measured in the same run. Every batch "
        "output was checked equal to `serve`'s, line for line.", "",
        "| workload | requests | how | seconds | requests/s | speed-up vs serve | CPU seconds |",
        "| --- | ---: | --- | ---: | ---: | ---: | ---: |",
    ]
    for w in results["workloads"]:
        for label, r in w["runs"].items():
            cpu = "n/a" if r["cpu_seconds"] is None else f"{r['cpu_seconds']:.1f}"
            out.append(f"| {w['description']} | {w['lines']:,} | `{label}` | "
                       f"{r['seconds']:.1f} | {r['per_second']:,.0f} | "
                       f"{r['speedup_vs_serve']:.2f}x | {cpu} |")
    start = meta["ray_start_seconds"]
    load = meta["load_average"]
    out += ["", "Notes:", "",
            f"- Load average (1 min) {load['start']:.1f} at the start and {load['end']:.1f} "
            f"at the end, on {meta['cpus']} CPUs: other work shared the machine, so the "
            "wall-clock speed-ups are lower bounds of what idle cores give. CPU seconds "
            "(the command and its worker processes; Ray's workers are not its children) "
            "show what the parallelism costs, whatever the load.",
            "- `batch --workers 1` answers in its own process (no pool), as `serve` does; "
            "with more workers the parent reads, sends, receives and writes while the "
            "workers solve, so on this machine the parent shares the 2 cores with them.",
            f"- Starting a local Ray here (`import ray`, `ray.init`, `ray.shutdown`) takes "
            f"{start:.1f} s on its own; it is inside the Ray rows' times." if start is not None
            else "- No Ray rows (`--no-ray`, or Ray is not installed)."]
    return "\n".join(out) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Write the workloads, time every way of answering them, write the report."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m benchmarks.batch_throughput",
                                     description=__doc__.split("\n\n")[0] if __doc__ else "")
    parser.add_argument("--tiny", type=int, default=100_000, help="tiny requests (100,000)")
    parser.add_argument("--army", type=int, default=1_000, help="army requests (1,000)")
    parser.add_argument("--army-size", default="50,200", metavar="A,B",
                        help="attackers and blockers of each army combat (50,200)")
    parser.add_argument("--workers", type=int, default=default_workers(),
                        help="worker processes for the parallel rows (every core)")
    parser.add_argument("--chunk-size", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=1,
                        help="rounds; the best time of each way is reported (1)")
    parser.add_argument("--no-ray", action="store_true", help="skip the Ray rows")
    parser.add_argument("--out", type=Path,
                        help="the report's path; its .json beside it (default: batch.md in a "
                             "new scratch folder, printed)")
    args = parser.parse_args(args_list)
    attackers, blockers = (int(n) for n in args.army_size.split(","))
    try:
        ray_version: str | None = version("ray")
    except PackageNotFoundError:
        ray_version = None
    use_ray = ray_version is not None and not args.no_ray

    results: dict[str, Any] = {"meta": {
        "command": "python -m benchmarks.batch_throughput " + " ".join(args_list),
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "python": platform.python_version(),
        "cpus": default_workers(), "ray": ray_version or "not installed",
        "chunk_size": args.chunk_size, "workers": args.workers, "repeat": args.repeat,
        "load_average": {"start": os.getloadavg()[0]},
        "ray_start_seconds": ray_start_seconds(args.workers) if use_ray else None,
    }, "workloads": []}
    with tempfile.TemporaryDirectory(prefix="trample-batch-") as tmp:
        folder = Path(tmp)
        for name, count, make, description in (
                ("tiny", args.tiny, lambda i: tiny(1 + i % 3, i),
                 "tiny (1 attacker, 1-3 blockers)"),
                ("army", args.army, lambda i: token_army(attackers, blockers, i),
                 f"token army ({attackers} attackers x {blockers} blockers)")):
            if count < 1:
                continue
            source = folder / f"{name}.jsonl"
            write_requests(source, count, make)
            print(f"{name}: {count} requests, {source.stat().st_size / 1e6:.1f} MB",
                  file=sys.stderr)
            workload = run_workload(name, source, count, args.workers, use_ray,
                                    args.chunk_size, args.repeat, folder)
            workload["description"] = description
            results["workloads"].append(workload)
    results["meta"]["load_average"]["end"] = os.getloadavg()[0]
    if args.out is None:
        report = output_folder(None, "batch") / "batch.md"
    else:
        report = output_folder(args.out.parent, "batch") / args.out.name
    report.write_text(table(results), encoding="utf-8")
    report.with_suffix(".json").write_text(json.dumps(results, indent=1) + "\n")
    print(report.read_text(), end="")
    return 0


if __name__ == "__main__":
    sys.exit(main())
