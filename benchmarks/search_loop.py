"""The path a search loop takes: many small combats, each asked about once.

``python -m benchmarks.search_loop`` (``--combats N`` per round, ``--repeat R`` rounds,
``--seed``, ``--profile`` to profile each path, ``--quick``, ``--out DIR``) answers small
combats (:func:`benchmarks.generators.small_combat`: one to three attackers, one to four
blockers), every one a new dict of a combat never asked before (each round draws new
ones, and the cache of recent combats is emptied between rounds), through:

- ``api.solve``, one call per combat;
- ``api.solve_many``, the API's call for many combats (the options read once, the
  answers as ``api.solve``'s);
- ``batch.solve_many``, the batch runner's call for many requests (``serve``'s answer to
  each, its JSON-RPC envelope included, in order): in this process (``workers=1``) and on
  two worker processes;
- ``trample serve``, a subprocess: one request per line, pipelined (written by a thread
  while the answers are read), and lines holding JSON-RPC batches of 100 requests;
- ``api.plan`` on small combats of the first-strike step.

Each path is timed ``R`` rounds by the wall clock and, where the work is in this process
or in the one server, by CPU time (``serve``: the server's own, from ``/proc``); the
median, quartiles and extremes of the rounds are reported. The answers of every path are
compared with ``api.solve``'s on the first round, every ``api.solve`` answer is validated,
and the first 200 are checked against brute force where it runs. Where a new combat's
time goes is measured stage by stage in this process (CPU time, best of the rounds):
decoding the request line, walking the document's fields without a check (the floor of
any reader of it), reading the combat, its legal space, the whole ``api.solve``, and
encoding the answer. With ``--profile``,
each path runs one more round under :mod:`cProfile` (``serve`` in this process, through
``serve.serve`` on an in-memory input), and its top functions by own time and by
cumulative time are reported with their share of the round.
"""

from __future__ import annotations

import argparse
import cProfile
import io
import json
import platform
import pstats
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from benchmarks.baselines import brute_force
from benchmarks.checks import MethodResult, Mismatch, assess, check
from benchmarks.generators import Document, small_combat
from benchmarks.output import add_study_out, write_study
from benchmarks.runner import TERMS, spread
from benchmarks.throughput import Server
from trample.models.document.combat import Combat
from trample.solver import native
from trample.solver.interface import api, batch
from trample.solver.rules.assignment import parse_assignment
from trample.solver.rules.legal_space import legal_space

TARGETS = {"api.solve": 50_000.0, "batched": 100_000.0, "serve": 30_000.0, "plan": 10_000.0}
"""Combats a second each path aims at."""
BATCH_LINE = 100
"""Requests in one line of JSON-RPC batch sent to ``serve``."""
BRUTE_CHECKED = 200
PROFILE_TOP = 12


def combats(n: int, seed: int, first_strike: bool = False) -> list[Document]:
    """``n`` distinct small combats, reproducible from ``seed``."""
    return [small_combat(seed * 1_000_003 + i, first_strike) for i in range(n)]


def timed(fn: Callable[[], Any]) -> tuple[float, float, Any]:
    """Wall seconds, CPU seconds (this process, every thread) and value of ``fn()``."""
    started, cpu = time.perf_counter(), time.process_time()
    value = fn()
    return time.perf_counter() - started, time.process_time() - cpu, value


def solve_each(docs: Sequence[Document]) -> list[dict[str, Any]]:
    """``api.solve`` on each combat."""
    return [dict(api.solve(doc)) for doc in docs]


def solve_batched(docs: Sequence[Document], workers: int) -> list[dict[str, Any]]:
    """``batch.solve_many``'s results, in order (raising on an error answer)."""
    out = []
    for response in batch.solve_many(docs, workers=workers):
        if response is None or "result" not in response:
            raise Mismatch(f"solve_many answered an error: {response}")
        out.append(response["result"])
    return out


def plan_each(docs: Sequence[Document]) -> list[dict[str, Any]]:
    """``api.plan`` on each combat."""
    return [dict(api.plan(doc)) for doc in docs]


def serve_lines(docs: Sequence[Document], per_line: int) -> list[str]:
    """``solve`` requests for ``docs``, one a line or ``per_line`` to a JSON-RPC batch."""
    requests = [{"jsonrpc": "2.0", "method": "solve", "params": {"combat": doc}, "id": i}
                for i, doc in enumerate(docs)]
    if per_line == 1:
        return [json.dumps(r) + "\n" for r in requests]
    return [json.dumps(requests[i:i + per_line]) + "\n"
            for i in range(0, len(requests), per_line)]


def through_serve(server: Server, lines: Sequence[str]) -> tuple[float, float | None,
                                                                 list[dict[str, Any]]]:
    """Wall seconds, the server's CPU seconds and the results of ``lines`` pipelined to
    ``server``, in request order."""
    process = server.process
    stdin, stdout = process.stdin, process.stdout
    assert stdin is not None and stdout is not None
    import threading

    def write() -> None:
        for line in lines:
            stdin.write(line)
        stdin.flush()

    before = server.cpu()
    started = time.perf_counter()
    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    answers: list[dict[str, Any]] = []
    for _ in lines:
        decoded = json.loads(stdout.readline())
        answers += decoded if isinstance(decoded, list) else [decoded]
    elapsed = time.perf_counter() - started
    writer.join()
    after = server.cpu()
    bad = [a for a in answers if "result" not in a]
    if bad:
        raise Mismatch(f"serve answered an error: {bad[0]}")
    answers.sort(key=lambda a: a["id"])
    cpu = None if before is None or after is None else after - before
    return elapsed, cpu, [a["result"] for a in answers]


def profile(fn: Callable[[], Any], top: int = PROFILE_TOP) -> dict[str, Any]:
    """``fn`` under :mod:`cProfile`: its total seconds (profiling included), and the
    ``top`` functions of trample and the libraries it calls by own time and by
    cumulative time, each with its share of the total."""
    profiler = cProfile.Profile()
    started = time.perf_counter()
    profiler.enable()
    fn()
    profiler.disable()
    total = time.perf_counter() - started
    stats = pstats.Stats(profiler)
    raw: dict[tuple[str, int, str], tuple[int, int, float, float, Any]] = \
        stats.stats  # type: ignore[attr-defined]

    def name(key: tuple[str, int, str]) -> str:
        path, line, function = key
        if path == "~":
            return function
        short = path.split("/site-packages/")[-1]
        for root in ("/solver/", "/models/"):
            if root in short:
                short = root.strip("/") + "/" + short.split(root, 1)[1]
        return f"{short}:{line}({function})"

    # The benchmark's own loop and the profiler are not what is measured.
    kept = {key: entry for key, entry in raw.items()
            if "/benchmarks/" not in key[0] and "_lsprof" not in key[2]
            and "disable" not in key[2]}

    def rows(index: int) -> list[dict[str, Any]]:
        ordered = sorted(kept.items(), key=lambda kv: kv[1][index], reverse=True)[:top]
        return [{"function": name(key), "calls": entry[1], "own": entry[2],
                 "cumulative": entry[3], "own_share": entry[2] / total,
                 "cumulative_share": entry[3] / total} for key, entry in ordered]

    return {"total": total, "by_own": rows(2), "by_cumulative": rows(3)}


def _checked(label: str, docs: Sequence[Document], answers: Sequence[dict[str, Any]],
             expected: Sequence[dict[str, Any]]) -> None:
    for i, (got, want) in enumerate(zip(answers, expected, strict=True)):
        if got["assignment"] != want["assignment"] or got["objective"] != want["objective"]:
            raise Mismatch(f"small combat {i}: {label} answered {got}, api.solve {want} "
                           f"({json.dumps(docs[i])})")


def check_answers(docs: Sequence[Document], answers: Sequence[dict[str, Any]]) -> int:
    """Every answer legal and proved; the first :data:`BRUTE_CHECKED` equal to brute force
    on the assigned-damage terms where it runs; how many were compared with it."""
    compared = 0
    for i, (doc, answer) in enumerate(zip(docs, answers, strict=True)):
        if answer["status"] != "optimal" or not api.validate(doc, answer["assignment"])["legal"]:
            raise Mismatch(f"small combat {i}: {answer} is not a proved legal answer")
        if i < BRUTE_CHECKED:
            space = legal_space(Combat.from_json(doc), "attackers")
            mine = MethodResult("trample", status="optimal")
            assess(mine, space, parse_assignment(space.combat, answer["assignment"]), TERMS)
            brute = brute_force(space, TERMS)
            if brute.status == "optimal":
                theirs = MethodResult("brute", status="optimal")
                assess(theirs, space, brute.amounts, TERMS)
                check(f"small combat {i}", mine, [theirs])
                compared += 1
    return compared


def check_round(docs: Sequence[Document], found: Round) -> dict[str, int]:
    """The first round's checks: every path's answers equal ``api.solve``'s, those
    legal, proved and (the first :data:`BRUTE_CHECKED`) equal to brute force, every plan
    proved; how many of each were checked."""
    expected = found["api.solve"][3]
    for path, (_, _, _, answers) in found.items():
        if path not in ("api.solve", "api.plan, first-strike combats"):
            _checked(path, docs, answers, expected)
    planned = found["api.plan, first-strike combats"][3]
    if any(p["status"] != "optimal" for p in planned):
        raise Mismatch("a plan of a small combat was not proved")
    return {"brute_compared": check_answers(docs, expected), "validated": len(docs),
            "plans_proved": len(planned)}


Round = dict[str, tuple[int, float, float | None, list[dict[str, Any]]]]
"""Each path's combats, wall seconds, CPU seconds (None: not measured) and answers."""


def one_round(docs: Sequence[Document], plans: Sequence[Document], server: Server,
              batch_server: Server, keep: bool) -> Round:
    """Every path on ``docs`` (``plan`` on ``plans``), each new to the process that
    answers it. ``keep``: whether each path's answers are kept (for the checks of the
    first round); else each path's are dropped once timed, as a search loop drops what
    it has valued: kept, every path's answers (some 35,000 a round) are walked by each
    full pass of the cycle collector, which then takes 100-160 ms, more than a path's
    whole round, in whichever path it falls."""
    found: Round = {}

    def kept(value: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return value if keep else []

    n = len(docs)
    api.forget_spaces()
    wall, cpu, answers = timed(lambda: solve_each(docs))
    found["api.solve"] = (n, wall, cpu, kept(answers))
    api.forget_spaces()
    wall, cpu, answers = timed(lambda: [dict(a) for a in api.solve_many(docs)])
    found["api.solve_many"] = (n, wall, cpu, kept(answers))
    api.forget_spaces()
    wall, cpu, answers = timed(lambda: solve_batched(docs, 1))
    found["solve_many, in this process"] = (n, wall, cpu, kept(answers))
    api.forget_spaces()
    wall, _, answers = timed(lambda: solve_batched(docs, 2))
    found["solve_many, 2 processes"] = (n, wall, None, kept(answers))
    wall, cpu_served, answers = through_serve(server, serve_lines(docs, 1))
    found["serve, a request a line"] = (n, wall, cpu_served, kept(answers))
    wall, cpu_served, answers = through_serve(batch_server, serve_lines(docs, BATCH_LINE))
    found[f"serve, {BATCH_LINE} requests a line"] = (n, wall, cpu_served, kept(answers))
    del answers
    wall, cpu, planned = timed(lambda: plan_each(plans))
    found["api.plan, first-strike combats"] = (len(plans), wall, cpu, kept(planned))
    return found


def run(combats_per_round: int, repeat: int, seed: int, do_profile: bool,
        plan_combats: int) -> dict[str, Any]:
    """Every path, ``repeat`` rounds of new combats each; the results document."""
    api.solve(small_combat(0))
    api.plan(small_combat(0, True))  # imports and first-use caches, out of the clock
    rounds: dict[str, list[dict[str, float | None]]] = {}
    checks: dict[str, Any] = {}
    server = Server()
    batch_server = Server()
    warm = combats(200, seed + 10_000)
    solve_batched(warm, 2)
    try:
        through_serve(server, serve_lines(warm, 1))
        through_serve(batch_server, serve_lines(warm, BATCH_LINE))
        for r in range(repeat):
            docs = combats(combats_per_round, seed + r)
            plans = combats(plan_combats, seed + r, first_strike=True)
            found = one_round(docs, plans, server, batch_server, keep=r == 0)
            for path, (count, wall, cpu, _) in found.items():
                rounds.setdefault(path, []).append(
                    {"wall": wall, "cpu": cpu, "per_second": count / wall,
                     "per_cpu_second": None if not cpu else count / cpu})
            if r == 0:
                checks.update(check_round(docs, found))
            del found  # not kept through the next round (see one_round)
    finally:
        server.close()
        batch_server.close()
    result: dict[str, Any] = {
        "meta": {"python": platform.python_version(), "platform": platform.platform(),
                 "trample_build": native.describe(), "date": time.strftime(
                     "%Y-%m-%d %H:%M:%S %Z"), "combats_per_round": combats_per_round,
                 "plan_combats_per_round": plan_combats, "repeat": repeat, "seed": seed,
                 "command": "python -m benchmarks.search_loop " + " ".join(sys.argv[1:])},
        "paths": {path: {"rounds": rs,
                         "per_second": spread([x["per_second"] or 0.0 for x in rs]),
                         "per_cpu_second": spread([x["per_cpu_second"] or 0.0 for x in rs
                                                   if x["per_cpu_second"]])
                         if any(x["per_cpu_second"] for x in rs) else None}
                  for path, rs in rounds.items()},
        "checks": checks, "targets": TARGETS,
        "stages": stages(combats(combats_per_round, seed + repeat + 1), repeat),
        "by_attackers": by_attackers(combats(combats_per_round, seed + repeat + 1), repeat),
    }
    if do_profile:
        result["profiles"] = profiles(combats_per_round, plan_combats, seed + repeat)
    return result


def profiles(n: int, k: int, seed: int) -> dict[str, Any]:
    """One round of each in-process path under :mod:`cProfile`, on combats of its own."""
    from trample.solver.interface import serve

    docs = combats(n, seed)
    plans = combats(k, seed, first_strike=True)
    found = {}
    api.forget_spaces()
    found["api.solve"] = profile(lambda: solve_each(docs))
    api.forget_spaces()
    found["api.solve_many"] = profile(lambda: api.solve_many(docs))
    api.forget_spaces()
    found["solve_many, in this process"] = profile(lambda: solve_batched(docs, 1))
    api.forget_spaces()
    lines = "".join(serve_lines(docs, 1)).encode()
    found["serve, a request a line"] = profile(
        lambda: serve.serve(io.BytesIO(lines), io.StringIO()))
    found["api.plan, first-strike combats"] = profile(lambda: plan_each(plans))
    return found


STAGES = ("decode the request line (orjson.loads)", "walk every field, no checks",
          "read the combat (Combat.from_json)", "its legal space (legal_space)",
          "the whole api.solve", "encode the answer (orjson.dumps)")
"""The stages :func:`stages` times, in order."""


def _walk(doc: Document) -> int:
    """Every field of ``doc`` looked at once, as a reader must: how many."""
    seen = 0
    for key in ("players", "creatures", "planeswalkers"):
        for obj in doc.get(key, ()):
            for value in obj.values():
                seen += 1
                if type(value) is list:
                    seen += len(value)
    return seen


def stages(docs: Sequence[Document], repeat: int) -> dict[str, float]:
    """Microseconds of CPU per combat of each of :data:`STAGES` on ``docs`` (each new to
    the space cache), best of ``repeat`` runs."""
    import orjson

    lines = [line.encode() for line in serve_lines(docs, 1)]
    combats_read = [Combat.from_json(doc) for doc in docs]
    answers = [{"jsonrpc": "2.0", "id": i, "result": a}
               for i, a in enumerate(solve_each(docs))]
    # Each stage's value is dropped at once, as a search loop drops what it has valued
    # (a list of them all would make the garbage collector walk it again and again).
    work: dict[str, tuple[Callable[[Any], Any], Sequence[Any]]] = {
        STAGES[0]: (orjson.loads, lines),
        STAGES[1]: (_walk, docs),
        STAGES[2]: (Combat.from_json, docs),
        STAGES[3]: (lambda c: legal_space(c, "attackers"), combats_read),
        STAGES[4]: (api.solve, docs),
        STAGES[5]: (orjson.dumps, answers),
    }
    found = {}
    for name, (fn, items) in work.items():
        best = float("inf")
        for _ in range(repeat):
            api.forget_spaces()
            _, cpu, _ = timed(lambda fn=fn, items=items: _each(fn, items))
            best = min(best, cpu)
        found[name] = best / len(items) * 1e6
    return found


def by_attackers(docs: Sequence[Document], repeat: int) -> dict[str, float]:
    """Microseconds of CPU per ``api.solve`` of ``docs`` by their number of attackers
    (one attacker takes the single-source path, two or three the optimizer's), each new
    to the space cache, best of ``repeat`` runs."""
    split: dict[int, list[Document]] = {}
    for doc in docs:
        attackers = sum(1 for c in doc["creatures"] if c.get("attacking") is not None)
        split.setdefault(attackers, []).append(doc)
    found: dict[str, float] = {}
    for attackers in sorted(split):
        items = split[attackers]
        best = float("inf")
        for _ in range(repeat):
            api.forget_spaces()
            _, cpu, _ = timed(lambda items=items: _each(api.solve, items))
            best = min(best, cpu)
        found[str(attackers)] = best / len(items) * 1e6
    return found


def _each(fn: Callable[[Any], Any], items: Sequence[Any]) -> None:
    for item in items:
        fn(item)


def _rate(q: dict[str, float] | None) -> str:
    if not q:
        return "-"
    return f"{q['median']:,.0f} ({q['min']:,.0f}-{q['max']:,.0f})"


def report(results: dict[str, Any]) -> str:
    """search_loop.md: the rates of each path against its target, and the profiles."""
    meta = results["meta"]
    lines = [
        "# The search loop's path: small combats, each new", "",
        f"`{meta['command']}` on {meta['date']}; Python {meta['python']}; trample: "
        f"{meta['trample_build']}; {meta['repeat']} rounds of {meta['combats_per_round']:,} "
        f"new combats (1-3 attackers, 1-4 blockers; `plan`: "
        f"{meta['plan_combats_per_round']:,} of the first-strike step). Combats a second "
        "by the wall clock and by CPU time: median of the rounds (least-most).", "",
        "| path | target | combats/s, wall | combats/s, CPU | verdict (median, wall) |",
        "| --- | ---: | ---: | ---: | --- |"]
    for path, data in results["paths"].items():
        kind = "plan" if "plan" in path else "serve" if "serve" in path else \
            "batched" if "solve_many" in path else "api.solve"
        target = results["targets"][kind]
        rate = data["per_second"]["median"]
        verdict = "met" if rate >= target else f"not met ({rate / target:.2g}x of it)"
        lines.append(f"| {path} | {target:,.0f} | {_rate(data['per_second'])} | "
                     f"{_rate(data['per_cpu_second'])} | {verdict} |")
    checks = results["checks"]
    lines += ["", "Where a new combat's time goes (CPU per combat in this process, best of "
              "the rounds; each stage on its own):", "",
              "| stage | µs per combat | per second |", "| --- | ---: | ---: |"]
    for stage, micros in results["stages"].items():
        lines.append(f"| {stage} | {micros:,.1f} | {1e6 / micros:,.0f} |")
    lines += ["", "`api.solve` by the number of attackers (CPU per combat, best of the rounds):",
              "", "| attackers | µs per combat | per second |", "| ---: | ---: | ---: |"]
    for attackers, micros in results.get("by_attackers", {}).items():
        lines.append(f"| {attackers} | {micros:,.1f} | {1e6 / micros:,.0f} |")
    lines += ["", f"Checks: every path's answers equal `api.solve`'s on the first round; "
              f"{checks.get('validated', 0):,} answers validated, "
              f"{checks.get('brute_compared', 0)} equal to brute force, "
              f"{checks.get('plans_proved', 0):,} plans proved.", ""]
    for path, found in results.get("profiles", {}).items():
        lines += [f"## Profile: {path}", "",
                  f"One round under cProfile took {found['total']:.3f} s (its overhead "
                  "included, so the shares matter more than the seconds; a function of "
                  "the compiled build is not seen: its time is its caller's).", "",
                  "| by own time | own | share | by cumulative time | cumulative | share |",
                  "| --- | ---: | ---: | --- | ---: | ---: |"]
        for own, cum in zip(found["by_own"], found["by_cumulative"], strict=True):
            lines.append(f"| `{own['function']}` | {own['own']:.3f} s | "
                         f"{own['own_share']:.0%} | `{cum['function']}` | "
                         f"{cum['cumulative']:.3f} s | {cum['cumulative_share']:.0%} |")
        lines.append("")
    return "\n".join(lines) + "\n"


def main(argv: Sequence[str] | None = None) -> int:
    """Run, write search_loop.json and search_loop.md; the exit status (1 on a wrong
    answer)."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.search_loop",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--combats", type=int, default=10_000, help="combats a round")
    parser.add_argument("--plans", type=int, default=1_000,
                        help="first-strike combats a round for plan")
    parser.add_argument("--repeat", type=int, default=5, help="rounds")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--profile", action="store_true", help="profile each path")
    parser.add_argument("--quick", action="store_true", help="small rounds, for the tests")
    add_study_out(parser, "search_loop")
    args = parser.parse_args(argv)
    if args.quick:
        args.combats, args.plans, args.repeat = 300, 30, 2
    for flag in ("combats", "plans", "repeat"):
        if getattr(args, flag) < 1:
            parser.error(f"--{flag} must be at least 1")
    try:
        results = run(args.combats, args.repeat, args.seed, args.profile, args.plans)
    except Mismatch as exc:
        print(f"benchmarks.search_loop: {exc}", file=sys.stderr)
        return 1
    write_study(args.out, "search_loop", results, report(results))
    return 0


if __name__ == "__main__":
    sys.exit(main())
