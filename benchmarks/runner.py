"""The benchmark run: instances of each family, every method on each, checks, throughput.

Every method is timed from the JSON document: trample end to end through
``trample.solver.interface.api``, each baseline parsing the document and deriving the legal space
before its own work (model building included). Each method runs once measured for peak
resident memory (:mod:`benchmarks.memory`: the measurement empties the allocator before
the call, and so slows it), then to ``repeat`` runs in all, and on until the runs after
the first took ``min_time`` seconds (a fast method is timed at the pace it keeps in a
loop), with the cyclic garbage collector paused as :mod:`timeit` does; the median of
those runs is reported. It runs fewer times once its runs so far
took longer than ``repeat_budget`` seconds in all, or when a run was skipped or stopped
by its time limit (a second run would hit the limit again); a method run once is timed
on that run.

Against the compact MILP (:mod:`benchmarks.compact`) trample is asked the same question,
the terms that model weighs, and the two are timed in turn, one run of each per round
(:func:`measure_alternated`), so that a change in the machine's load falls on both.
"""

from __future__ import annotations

import argparse
import gc
import platform
import statistics
import sys
import time
import zlib
from collections.abc import Callable, Iterator, Sequence
from dataclasses import asdict, dataclass, field
from functools import partial
from importlib.metadata import version
from typing import Any, TypeVar

from tqdm import tqdm

from benchmarks import baselines, compact, generators, memory
from benchmarks.checks import MethodResult, Mismatch, assess, check, lexicographic_gap
from benchmarks.generators import Document
from benchmarks.throughput import solve_in_process, solve_through_serve, tiny_pool
from trample.models.document.combat import Combat
from trample.solver import native
from trample.solver.count.work import CountOutOfReach
from trample.solver.interface import api
from trample.solver.optimize.objectives import ASSIGNED_TERMS
from trample.solver.optimize.solve import SMALL_GROUP
from trample.solver.rules.assignment import parse_assignment
from trample.solver.rules.legal_space import LegalSpace, legal_space

T = TypeVar("T")
TERMS = ASSIGNED_TERMS
"""The objective on assigned damage: the one the baselines model (benchmarks/outcomes.py
measures the terms on dealt damage)."""
CHECKPOINTS = (1.0, 10.0, 30.0)
"""Times at which the monolithic CP-SAT gap is reported for the 30% shared-blocker family."""
SAMPLE_DRAWS = 100


@dataclass(frozen=True)
class Family:
    """A generator family: what its size parameter means, and the sizes of each run."""

    name: str
    size_meaning: str
    full: tuple[int, ...]
    quick: tuple[int, ...]
    make: Callable[[int, int], tuple[str, dict[str, Any], Document]]


def _gang(n: int, seed: int) -> tuple[str, dict[str, Any], Document]:
    return f"gang-N{n}", {"blockers": n}, generators.gang_block(n, seed)


def _army(a: int, seed: int) -> tuple[str, dict[str, Any], Document]:
    return (f"armies-A{a}-B{4 * a}", {"attackers": a, "blockers": 4 * a},
            generators.token_army(a, 4 * a, seed))


def _shared(share: float) -> Callable[[int, int], tuple[str, dict[str, Any], Document]]:
    def make(a: int, seed: int) -> tuple[str, dict[str, Any], Document]:
        pct = round(100 * share)
        return (f"shared{pct}-A{a}-B{3 * a}", {"attackers": a, "blockers": 3 * a, "share": share},
                generators.shared_blockers(a, 3 * a, share, seed))
    return make


def _wide(n: int, seed: int) -> tuple[str, dict[str, Any], Document]:
    return f"widegang-N{n}", {"blockers": n}, generators.wide_gang(n, seed)


def _tokens(a: int, seed: int) -> tuple[str, dict[str, Any], Document]:
    return (f"tokens-A{a}-B{3 * a}", {"attackers": a, "blockers": 3 * a, "share": 0.3},
            generators.token_swarm(a, 3 * a, 0.3, seed))


def _ranks(a: int, seed: int) -> tuple[str, dict[str, Any], Document]:
    return f"ranks-A{a}", {"attackers": a}, generators.split_ranks(a, seed)


def _pileup(a: int, seed: int) -> tuple[str, dict[str, Any], Document]:
    return (f"pileup-A{a}", {"attackers": a, "planeswalkers": 4},
            generators.planeswalker_pileup(a, seed))


def _tiny(k: int, seed: int) -> tuple[str, dict[str, Any], Document]:
    return f"tiny-k{k}", {"blockers": k}, generators.tiny(k, seed)


FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("gang", "N blockers on one trampler (power N to 3N, toughness 1-4)",
           (10, 100, 1000, 4000, 16000, 19999), (10, 50), _gang),
    Family("widegang", "N blockers on one trampler of power 3N (toughness 1-6, values 1-9)",
           (1000, 4000, 16000, 19999), (50, 200), _wide),
    Family("armies", "A attackers, B = 4A blockers", (10, 100, 500, 2000), (5, 20), _army),
    Family("shared5", "A attackers, B = 3A blockers, 5% block 2-3", (30, 100, 400), (10,),
           _shared(0.05)),
    Family("shared30", "A attackers, B = 3A blockers, 30% block 2-3", (30, 100, 400), (10,),
           _shared(0.30)),
    Family("tokens", "A attackers, B = 3A tokens of four kinds, 30% block 2-3",
           (30, 100, 400), (10,), _tokens),
    Family("ranks", "A tramplers on A/2 players of low life, 2-6 blockers each",
           (10, 40, 160, 640), (6,), _ranks),
    Family("pileup", "A attackers on 4 planeswalkers and the player", (10, 50, 200, 1000),
           (10, 20), _pileup),
    Family("tiny", "k blockers on one attacker", (1, 2, 3), (1, 2, 3), _tiny),
)}
"""The sizes largest (gang 19,999: the document allows 20,000 creatures) are a full run's;
with ``--quick`` the small ones, for the test suite."""
ALIASES = {"shared": ("shared5", "shared30"), "all": tuple(FAMILIES)}


def family_sizes(parser: argparse.ArgumentParser, specs: Sequence[str]) -> list[tuple[str, int]]:
    """The ``family=size`` arguments of a seed-by-seed study, read; a bad one refused
    through ``parser`` (exit 2, naming it)."""
    out: list[tuple[str, int]] = []
    for spec in specs:
        family, _, size = spec.partition("=")
        if family not in FAMILIES or not size.isdigit() or int(size) < 1:
            parser.error(f"{spec!r}: give family=size with a family of "
                         f"{', '.join(FAMILIES)} and a positive size")
        out.append((family, int(size)))
    return out


CENSUS_FAMILIES = ("gang", "armies")
"""Families on which count, sample and validate are timed too..."""
CENSUS_SIZE = 5_000
"""...up to this many creatures (the census is not what the large sizes are about)."""


@dataclass
class Config:
    """What to run."""

    families: tuple[str, ...] = tuple(FAMILIES)
    sizes: dict[str, tuple[int, ...]] = field(default_factory=dict)
    repeat: int = 5
    repeat_budget: float = 10.0
    """A method's runs stop once they took this many seconds in all."""
    min_time: float = 0.2
    """A method's timed runs go on past ``repeat`` until they took this many seconds (at
    most :data:`MAX_RUNS`): a fast method is timed at the pace it keeps in a loop."""
    quick: bool = False
    time_limit: float = 60.0
    trample_time_limit: float = 60.0
    seed: int = 0
    workers: int = 2
    tiny_solves: int = 10_000
    serve_requests: int = 5_000
    tiny_pool: int = 200
    fan_out: int = 1
    """Instances run at once in worker processes (``--workers``); 1: one after another."""
    ray: str | bool | None = None
    """Run the instances as Ray tasks (``--ray``): True for a local Ray, or an address."""

    def family_sizes(self, name: str) -> tuple[int, ...]:
        """The sizes to run for a family."""
        family = FAMILIES[name]
        return self.sizes.get(name, family.quick if self.quick else family.full)


MAX_RUNS = 2_000
"""Most timed runs of one method on one instance (``min_time`` asks for more when fast)."""


def _seed(family: str, size: int, base: int) -> int:
    return zlib.crc32(f"{family}:{size}:{base}".encode())


def _median(times: Sequence[float]) -> float:
    return statistics.median(times) if times else float("nan")


def measure(fn: Callable[[], T], repeat: int, budget: float,
            again: Callable[[T], bool] = lambda _: True,
            min_time: float = 0.0) -> tuple[list[float], T, int]:
    """Run ``fn`` ``repeat`` times, the first measured for memory, and on while the
    timed runs after it took less than ``min_time`` seconds (at most :data:`MAX_RUNS`);
    the times, the last value and the resident memory the first run added at its peak
    (bytes). Stops early once the runs took more than ``budget`` seconds in all or
    ``again(value)`` is false.

    Only the first run is measured for memory: the measurement collects garbage and
    hands freed memory back to the system before the call (:func:`memory.start`), so
    the call then faults its pages in again, which added about 0.35 ms to every run of
    every method (a run of trample on a tiny combat: 0.04 -> 0.19 ms). The times are
    those of the runs after it; the first run's time only when it is the only run. A
    method of a few milliseconds takes several runs more to reach the pace it keeps in a
    loop (a pile-up of 10 attackers: 0.69, 0.57, 0.54, 0.52, then 0.47-0.50 ms), hence
    ``min_time``: the median is then that pace. The cyclic garbage collector is paused
    during the timed runs, as :mod:`timeit` does: left on, a full collection of the
    benchmark process's heap (every instance's documents so far) fell inside some runs
    (a gang of 16,000: 65 ms a run, 100 ms with a collection in it)."""
    begun = memory.start()
    started = time.perf_counter()
    value = fn()
    first = time.perf_counter() - started
    peak = memory.added(begun)
    times: list[float] = []
    spent = first
    timed = 0.0
    paused = gc.isenabled()
    gc.disable()  # as timeit does: the collector's pauses are the heap's, not the call's
    try:
        while (len(times) + 1 < repeat or (timed < min_time and len(times) < MAX_RUNS)) \
                and spent <= budget and again(value):
            started = time.perf_counter()
            value = fn()
            times.append(time.perf_counter() - started)
            spent += times[-1]
            timed += times[-1]
    finally:
        if paused:
            gc.enable()
    return times or [first], value, peak


@dataclass
class Alternated:
    """One method's share of :func:`measure_alternated`: wall and CPU seconds of its timed
    runs (the same rounds for every method), its last value and its peak memory."""

    times: list[float]
    cpu_times: list[float]
    value: Any
    peak: int


def measure_alternated(fns: dict[str, Callable[[], Any]], repeat: int, budget: float,
                       again: Callable[[str, Any], bool] = lambda _, __: True,
                       min_time: float = 0.0) -> dict[str, Alternated]:
    """The methods of ``fns`` timed in turn, one run of each per round, as :func:`measure`
    times one: each method's first run measured for memory and not timed, then rounds
    until ``repeat`` runs in all and every method's timed runs took ``min_time`` seconds
    (at most :data:`MAX_RUNS` rounds), unless the runs so far took more than ``budget``
    seconds or ``again(method, value)`` is false for one of them. The CPU time of each run
    (this process, every thread) is kept beside its wall time: on a shared machine the
    load of other work lengthens the one and hardly the other."""
    out: dict[str, Alternated] = {}
    spent = 0.0
    for name, fn in fns.items():
        begun = memory.start()
        started = time.perf_counter()
        cpu = time.process_time()
        value = fn()
        first, first_cpu = time.perf_counter() - started, time.process_time() - cpu
        out[name] = Alternated([first], [first_cpu], value, memory.added(begun))
        spent += first
    timed = dict.fromkeys(fns, 0.0)
    rounds = 0
    paused = gc.isenabled()
    gc.disable()
    try:
        while (rounds + 1 < repeat or (min(timed.values()) < min_time and rounds < MAX_RUNS)) \
                and spent <= budget and all(again(n, r.value) for n, r in out.items()):
            for name, fn in fns.items():
                record = out[name]
                if rounds == 0:  # the first runs were the memory's, not timed
                    record.times.clear()
                    record.cpu_times.clear()
                started = time.perf_counter()
                cpu = time.process_time()
                record.value = fn()
                record.cpu_times.append(time.process_time() - cpu)
                record.times.append(time.perf_counter() - started)
                spent += record.times[-1]
                timed[name] += record.times[-1]
            rounds += 1
    finally:
        if paused:
            gc.enable()
    return out


def spread(values: Sequence[float]) -> dict[str, float]:
    """Median, quartiles and extremes of some measurements."""
    ordered = sorted(values)
    if len(ordered) < 2:
        only = ordered[0] if ordered else float("nan")
        return {"median": only, "q1": only, "q3": only, "min": only, "max": only}
    q1, median, q3 = statistics.quantiles(ordered, n=4, method="inclusive")
    return {"median": median, "q1": q1, "q3": q3, "min": ordered[0], "max": ordered[-1]}


COMPACT = {"milp_compact": "scipy-presolve", "milp_compact_highspy": "highspy"}
"""The compact MILP's methods and their HiGHS: SciPy's ``milp`` as it comes (presolve on;
HiGHS 1.12 in SciPy 1.17), and highspy (HiGHS 1.16, trample's own), each the faster on
some families (``python -m benchmarks.compact``)."""


def compact_methods(name: str, doc: Document, space: LegalSpace, cfg: Config,
                    progress: Callable[[str], None]) -> tuple[list[MethodResult], list[str]]:
    """trample asked the compact model's question, and the compact MILP in each HiGHS of
    :data:`COMPACT`, timed in turn; their results and the findings. Each compact MILP's
    answer must be legal and equal to trample's on the terms it weighs
    (:class:`Mismatch` otherwise). None of them when the compact model does not cover the
    document."""
    try:
        terms = compact.question(doc)
    except compact.Unmodeled:
        return [], []
    progress("trample on the compact question, compact MILP")

    def ask() -> Any:
        api.forget_spaces()  # each run a new combat, as for trample's own column
        return api.solve(doc, objective=list(terms), time_limit=cfg.trample_time_limit)

    def solver(backend: compact.Backend) -> Callable[[], baselines.Outcome]:
        return lambda: compact.compact_milp(doc, cfg.time_limit, backend)

    measured = measure_alternated(
        {"trample_compact": ask, **{method: solver(backend)  # type: ignore[arg-type]
                                    for method, backend in COMPACT.items()}},
        cfg.repeat, cfg.repeat_budget, min_time=cfg.min_time,
        again=lambda method, value: method == "trample_compact" or value.status == "optimal")
    asked = measured["trample_compact"]
    answer = asked.value
    mine = MethodResult("trample_compact", asked.times, answer["status"],
                        peak_memory=asked.peak,
                        extra={"terms": list(terms), "cpu_times": asked.cpu_times,
                               "spread": spread(asked.times)})
    assess(mine, space, parse_assignment(space.combat, answer["assignment"]), terms)
    results = [mine]
    findings: list[str] = []
    for method in COMPACT:
        milp = measured[method]
        out = milp.value
        theirs = MethodResult(method, milp.times, out.status, gap=out.gap, note=out.note,
                              peak_memory=milp.peak,
                              extra={**out.extra, "cpu_times": milp.cpu_times,
                                     "spread": spread(milp.times)})
        assess(theirs, space, out.amounts, terms)
        if theirs.legal is False:
            raise Mismatch(f"{name}: {method} answered an illegal assignment ({theirs.note})")
        findings += check(name, mine, [theirs])
        if theirs.status == "optimal" and mine.status == "optimal" \
                and theirs.objective != mine.objective:  # check() says so too; never pass it
            raise Mismatch(f"{name}: trample {mine.objective} and {method} "
                           f"{theirs.objective} differ on {', '.join(terms)}")
        if len(asked.times) == len(milp.times):
            theirs.extra["paired_ratio"] = spread(
                [m / t for m, t in zip(milp.times, asked.times, strict=True)])
            theirs.extra["paired_cpu_ratio"] = spread(
                [m / t for m, t in zip(milp.cpu_times, asked.cpu_times, strict=True) if t > 0])
        theirs.ratio = _median(milp.times) / _median(asked.times)
        results.append(theirs)
    return results, findings


def run_instance(family: str, name: str, doc: Document, cfg: Config,
                 progress: Callable[[str], None]) -> tuple[list[MethodResult], list[str]]:
    """Every method on one instance, then the checks; the results and findings."""
    space = legal_space(Combat.from_json(doc), "attackers")
    results: list[MethodResult] = []

    progress("trample")
    def fresh() -> Any:
        # Each run a new combat: the cache of recent small documents (and the answers
        # kept with their spaces) would otherwise answer the runs after the second.
        api.forget_spaces()
        return api.solve(doc, time_limit=cfg.trample_time_limit)

    times, answer, peak = measure(fresh, cfg.repeat, cfg.repeat_budget, min_time=cfg.min_time)
    trample = MethodResult("trample", times, answer["status"], peak_memory=peak)
    assess(trample, space, parse_assignment(space.combat, answer["assignment"]), TERMS)
    results.append(trample)

    def baseline(method: str, fn: Callable[[], baselines.Outcome]) -> MethodResult:
        progress(method)
        times, out, peak = measure(fn, cfg.repeat, cfg.repeat_budget,
                                   again=lambda o: o.status in ("optimal", "heuristic"),
                                   min_time=cfg.min_time)
        result = MethodResult(method, times, out.status, gap=out.gap, note=out.note,
                              extra=out.extra, peak_memory=peak)
        assess(result, space, out.amounts, TERMS)
        results.append(result)
        return result

    def fresh() -> LegalSpace:
        # Every method starts from the document, as trample does: parsing is timed too.
        return legal_space(Combat.from_json(doc), "attackers")

    for method, rule in (("greedy", baselines.greedy_declared),
                         ("greedy_value", baselines.greedy_by_value)):
        result = baseline(method, partial(_on_fresh, rule, fresh))
        if result.objective is not None:
            gap = lexicographic_gap(trample.objective or (), result.objective, TERMS)
            result.extra["gap_term"], result.extra["gap_percent"] = gap or (None, 0.0)
    checkpoints = (*(t for t in CHECKPOINTS if t < cfg.time_limit), cfg.time_limit) \
        if family == "shared30" else ()
    baseline("cpsat_mono", lambda: baselines.monolithic_cpsat(
        fresh(), TERMS, cfg.time_limit, cfg.workers, checkpoints))
    baseline("milp_highs", lambda: baselines.monolithic_milp(fresh(), TERMS, cfg.time_limit))
    baseline("brute", lambda: baselines.brute_force(fresh(), TERMS))

    if family in CENSUS_FAMILIES and len(doc["creatures"]) <= CENSUS_SIZE:
        results += census_methods(doc, answer["assignment"], cfg, progress)
    findings = check(name, trample, results[1:])
    for r in results:
        if r.status != "skipped":
            r.ratio = _median(r.times) / _median(trample.times)
    pair, more = compact_methods(name, doc, space, cfg, progress)
    if pair:
        pair[0].ratio = _median(pair[0].times) / _median(trample.times)
    return results + pair, findings + more


def _on_fresh(rule: Callable[[LegalSpace], baselines.Outcome],
              fresh: Callable[[], LegalSpace]) -> baselines.Outcome:
    return rule(fresh())


def census_methods(doc: Document, assignment: list[dict[str, Any]], cfg: Config,
                   progress: Callable[[str], None]) -> list[MethodResult]:
    """``count``, ``sample`` (``SAMPLE_DRAWS`` draws) and ``validate`` of trample's answer."""
    out = []
    progress("count")

    def count() -> int | None:
        try:
            return int(api.count(doc)["count"])
        except CountOutOfReach:
            return None
    times, counted, peak = measure(count, cfg.repeat, cfg.repeat_budget, min_time=cfg.min_time)
    out.append(MethodResult("count", times, "exact" if counted is not None else "out_of_reach",
                            note=f"{baselines.digits(counted)} legal assignments"
                            if counted is not None else "",
                            peak_memory=peak))
    progress("sample")
    draws = SAMPLE_DRAWS if not cfg.quick else 10
    times, _, peak = measure(lambda: list(api.sample(doc, n=draws, seed=0)), cfg.repeat,
                             cfg.repeat_budget, min_time=cfg.min_time)
    out.append(MethodResult("sample", times, "ok", note=f"{draws} draws",
                            extra={"draws_per_second": draws / _median(times)},
                            peak_memory=peak))
    progress("validate")
    times, verdict, peak = measure(lambda: api.validate(doc, assignment), cfg.repeat,
                                   cfg.repeat_budget, min_time=cfg.min_time)
    if not verdict["legal"]:
        raise Mismatch(f"api.validate finds trample's own answer illegal: {verdict}")
    out.append(MethodResult("validate", times, "legal", peak_memory=peak))
    return out


def run_tiny_throughput(cfg: Config, progress: Callable[[str], None]) -> dict[str, Any]:
    """Tiny combats: every pool combat checked against brute force and greedy, then solves
    per second in-process and through ``serve``."""
    pool = tiny_pool(cfg.tiny_pool, cfg.seed)
    progress("tiny pool checks")
    checked = searched = 0
    findings: list[str] = []
    gaps: dict[str, list[dict[str, Any]]] = {"greedy": [], "greedy_value": []}
    expected = []
    for i, doc in enumerate(pool):
        space = legal_space(Combat.from_json(doc), "attackers")
        answer = api.solve(doc)
        expected.append(answer)
        trample = MethodResult("trample", status=answer["status"])
        assess(trample, space, parse_assignment(space.combat, answer["assignment"]), TERMS)
        others = []
        for method, outcome in (("greedy", baselines.greedy_declared(space)),
                                ("greedy_value", baselines.greedy_by_value(space)),
                                ("brute", baselines.brute_force(space, TERMS))):
            r = MethodResult(method, status=outcome.status)
            assess(r, space, outcome.amounts, TERMS)
            others.append(r)
            if method in gaps and r.objective is not None and trample.objective is not None:
                term, percent = lexicographic_gap(trample.objective, r.objective, TERMS) \
                    or (None, 0.0)
                gaps[method].append({"gap_term": term, "gap_percent": percent})
            if method == "brute" and outcome.status == "optimal":
                assignments = outcome.extra["assignments"]
                searched += isinstance(assignments, int) and assignments > SMALL_GROUP
        findings += check(f"tiny-pool-{i}", trample, others)
        checked += 1

    progress("tiny in-process")
    in_times = [solve_in_process(pool, cfg.tiny_solves) for _ in range(cfg.repeat)]
    progress("tiny serve")
    serve_times, warm, status = solve_through_serve(pool, cfg.serve_requests, cfg.repeat)
    # The same, each combat new (more of them than the cache of recent combats holds):
    # what a search loop that never asks twice gets.
    fresh = tiny_pool(max(cfg.tiny_solves, cfg.serve_requests), cfg.seed + 1)
    progress("tiny in-process, new combats")
    new_times = []
    for _ in range(cfg.repeat):
        api.forget_spaces()
        new_times.append(solve_in_process(fresh, cfg.tiny_solves))
    progress("tiny serve, new combats")
    new_serve, _, _ = solve_through_serve(fresh, cfg.serve_requests, cfg.repeat)
    for i, (response, answer) in enumerate(zip(warm, expected, strict=True)):
        if response.get("result") != answer:
            raise Mismatch(f"tiny-pool-{i}: serve answered {response} but api.solve {answer}")
    return {
        "pool": len(pool), "pool_checked": checked, "findings": findings,
        "pool_over_small_group": searched, "pool_greedy_gaps": gaps,
        "in_process": {"solves": cfg.tiny_solves, "times": in_times,
                       "median_time": _median(in_times),
                       "per_second": cfg.tiny_solves / _median(in_times)},
        "serve": {"requests": cfg.serve_requests, "times": serve_times,
                  "median_time": _median(serve_times),
                  "per_second": cfg.serve_requests / _median(serve_times),
                  "exit_status": status, "answers_match_in_process": True},
        "in_process_new": {"solves": cfg.tiny_solves, "times": new_times,
                           "median_time": _median(new_times),
                           "per_second": cfg.tiny_solves / _median(new_times)},
        "serve_new": {"requests": cfg.serve_requests, "times": new_serve,
                      "median_time": _median(new_serve),
                      "per_second": cfg.serve_requests / _median(new_serve)},
    }


def _record(result: MethodResult) -> dict[str, Any]:
    record = asdict(result)
    record["median_time"] = _median(result.times)
    record["objective"] = list(result.objective) if result.objective is not None else None
    return record


InstanceRecord = dict[str, Any]


def _no_progress(what: str, label: str = "") -> None:
    return None


def instance_job(cfg: Config, planned: tuple[str, int],
                 progress: Callable[..., None] = _no_progress
                 ) -> tuple[InstanceRecord, str | None]:
    """One planned (family, size), generated, run and checked where it is sent (here, a
    worker process or a Ray task): its record, and the failure message of its checks
    (None if they passed)."""
    family, size = planned
    name, params, combat = FAMILIES[family].make(size, _seed(family, size, cfg.seed))
    try:
        results, findings = run_instance(family, name, combat, cfg,
                                         partial(progress, label=name))
    except Mismatch as exc:
        return {"family": family, "name": name}, str(exc)
    return {"family": family, "name": name, "params": params,
            "size": len(combat["creatures"]),
            "methods": {r.method: _record(r) for r in results}, "findings": findings,
            "comparisons": sum(1 for r in results[1:] if r.objective is not None)}, None


def _fanned_out(cfg: Config, plan: list[tuple[str, int]]
                ) -> Iterator[tuple[InstanceRecord, str | None]]:
    """The instances of ``plan`` in order, run ``cfg.fan_out`` at a time or on Ray."""
    from trample.solver.interface.batch import ordered_map

    # On Ray without --workers: a local Ray with every core.
    workers = None if cfg.ray and cfg.fan_out == 1 else cfg.fan_out
    for chunk in ordered_map(partial(instance_job, cfg), plan, workers=workers,
                             ray=cfg.ray, chunk_size=1):
        yield from chunk


def run(cfg: Config, argv: Sequence[str]) -> tuple[dict[str, Any], str | None]:
    """The whole run; the results document and the failure message (None if all checks
    passed). A failure stops the run, the results so far are kept."""
    from ortools.sat.python import cp_model  # noqa: F401  (load before any clock starts)

    api.solve(generators.tiny(3, 0))
    plan = [(family, size) for family in cfg.families for size in cfg.family_sizes(family)]
    doc: dict[str, Any] = {
        "meta": _meta(cfg, argv), "terms": list(TERMS), "instances": [], "throughput": None,
        "checks": {"instances_checked": 0, "comparisons": 0, "tiny_pool_checked": 0,
                   "findings": []},
    }
    steps = len(plan) + ("tiny" in cfg.families)
    failure = None
    with tqdm(total=steps, file=sys.stderr, unit="instance", dynamic_ncols=True) as bar:
        def progress(what: str, label: str = "") -> None:
            bar.set_postfix_str(f"{label} {what}".strip())

        try:
            if cfg.fan_out > 1 or cfg.ray:
                # Each instance is run and checked in its worker; the records come back
                # in plan order, so the results are the same as a serial run's.
                progress(f"{cfg.fan_out} at a time" if not cfg.ray else "on Ray")
                done = _fanned_out(cfg, plan)
            else:
                done = (instance_job(cfg, planned, progress) for planned in plan)
            for record, mismatch in done:
                if mismatch is not None:
                    raise Mismatch(mismatch)
                doc["checks"]["comparisons"] += record.pop("comparisons")
                doc["instances"].append(record)
                doc["checks"]["instances_checked"] += 1
                doc["checks"]["findings"] += record["findings"]
                bar.update()
            if "tiny" in cfg.families:
                doc["throughput"] = run_tiny_throughput(cfg, progress)
                doc["checks"]["tiny_pool_checked"] = doc["throughput"]["pool_checked"]
                doc["checks"]["findings"] += doc["throughput"]["findings"]
                bar.update()
        except Mismatch as exc:
            failure = str(exc)
    doc["meta"]["wall_time"] = time.perf_counter() - doc["meta"].pop("_started")
    doc["checks"]["failure"] = failure
    return doc, failure


def _meta(cfg: Config, argv: Sequence[str]) -> dict[str, Any]:
    return {
        "trample_build": native.describe(),
        "command": "python -m benchmarks " + " ".join(argv),
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"),
        "python": platform.python_version(), "platform": platform.platform(),
        "cpus": _cpus(), "ortools": version("ortools"), "scipy": version("scipy"),
        "quick": cfg.quick, "repeat": cfg.repeat, "repeat_budget": cfg.repeat_budget,
        "min_time": cfg.min_time,
        "time_limit": cfg.time_limit, "memory": memory.METHOD,
        "trample_time_limit": cfg.trample_time_limit, "cpsat_workers": cfg.workers,
        "seed": cfg.seed, "families": list(cfg.families),
        "timing": "every method from the JSON document (parsing and legal space included; "
                  "trample through trample.solver.interface.api); median of `repeat` runs or "
                  "more (until "
                  "they took `min_time` seconds, the garbage collector paused as timeit "
                  "does), after a first run measured for memory"
                  + _shared_cores(cfg),
        "fan_out": cfg.fan_out, "ray": cfg.ray,
        "_started": time.perf_counter(),
    }


def _shared_cores(cfg: Config) -> str:
    if cfg.ray:
        where = "a local Ray" if cfg.ray is True else f"the Ray cluster at {cfg.ray}"
        return (f"; the instances ran as tasks on {where}, several at once, so their times "
                "share the cores (and CP-SAT's own workers compete with them): compare them "
                "with a serial run's only with care")
    if cfg.fan_out > 1:
        return (f"; the instances ran {cfg.fan_out} at a time in worker processes, so their "
                "times share the cores (and CP-SAT's own workers compete with them): compare "
                "them with a serial run's only with care")
    return ""


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else \
        (os.cpu_count() or 1)
