"""``python -m benchmarks.blocks``: blocks and attacks (SPEC §11) measured on random armies.

Boards (:mod:`benchmarks.boards`) of N attackers against N blockers, in four families:
``plain``, ``menace``, ``requirements`` (``must_block``, ``lure``, ``must_be_blocked``) and
``menace+requirements``; each (family, N) has ``--boards`` seeded boards. Every call goes
through ``trample.api`` and is timed as :func:`benchmarks.runner.measure` times the main
benchmark's methods (the median of repeats after a first run measured for peak memory).
The parts of a run:

- **blocks**: ``api.best_block`` against the exhaustive method, every legal declaration
  (``api.enumerate_blocks``) valued one by one with ``api.plan`` on the combat it makes,
  the least value kept (the first in declaration order among equals), where the board has
  at most ``--exhaustive-max`` legal declarations. Both must give the same value and the
  same declaration, and ``best_block(ties=True)`` the number of declarations of that value
  the exhaustive method counted; a difference stops the run (exit status 1).
- **attacks**: ``api.best_attack`` on the same armies before attackers are declared; up to
  ``--attack-check-max`` attackers, checked against ``api.best_block`` on every attack
  declaration (the largest value, the first in attack order among equals).
- **throughput**: ``api.evaluate_blocks`` on 3 x 3 boards, every legal declaration of a
  board in one call, and one declaration a call.
- **heuristic**: the blocking heuristic of :mod:`benchmarks.block_heuristic` against
  ``best_block``'s proved optimum, both valued by trample (``api.evaluate_blocks``).
- **counts**: ``api.count_blocks`` and ``api.block_options`` on larger boards: the count's
  digits and time, or the refusal and its message.
- **profiles**: what limits each figure: one call of each under :mod:`cProfile` (the first
  plain board of ``best_block`` at 5 x 5, 8 x 8 and 12 x 12, or the largest size run;
  ``best_attack`` at 5 x 5; ``evaluate_blocks`` on a 3 x 3 board, every declaration in one
  call), its top functions by own and by cumulative time, each with its share.

Results go to ``results.json``, ``summary.md`` and ``growth.png`` in ``--out``
(:mod:`benchmarks.blocks_report`); without ``--out`` a new scratch folder. Exit status 0
when every check passed, 1 when one failed (the results so far are written), 2 on bad
usage.
"""

from __future__ import annotations

import argparse
import math
import platform
import statistics
import sys
import time
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from functools import partial
from itertools import product
from pathlib import Path
from typing import Any, TypeVar

from benchmarks.output import bench_extra, missing_message, missing_packages, output_folder

with bench_extra(__name__):
    from tqdm import tqdm

    from benchmarks import boards
    from benchmarks.block_heuristic import heuristic_blocks
    from benchmarks.runner import measure
    from trample import __version__, api
    from trample.models.document.errors import TrampleError
    from trample.solver import native

T = TypeVar("T")
Board = dict[str, Any]
Pair = dict[str, str]

TERMS = ("losses", "trade", "planeswalker_deaths", "battle_deaths", "poison", "life_loss",
         "loyalty_loss", "defense_loss", "life_gain")
"""The default objective of the §11 methods, as SPEC §11 lists it: the exhaustive method
asks ``plan`` for it, and ``best_block`` must answer in it."""
BOARD_ONLY = frozenset({"tapped", "summoning_sick", "can_attack", "can_block",
                        "can_be_blocked", "blocks_max", "min_blockers", "max_blockers",
                        "must_block", "must_be_blocked", "lure", "must_attack"})
"""The creature fields of a board that a combat document does not have (SPEC §11)."""
PARTS = ("blocks", "attacks", "throughput", "heuristic", "counts", "profiles")
PROFILE_SIZES = (5, 8, 12)
"""The sizes of best_block's profiled boards (at most the largest size of the run)."""
WARM_MAX = 8
"""A profiled call on a board of at most this size is made once before it is profiled."""


class Mismatch(Exception):
    """A check failed: the message names the board and what differed."""


@dataclass
class Config:
    """What to run (the command line's options)."""

    families: tuple[str, ...] = tuple(boards.VARIANTS)
    parts: tuple[str, ...] = PARTS
    sizes: tuple[int, ...] = tuple(range(2, 13))
    boards: int = 3
    repeat: int = 3
    repeat_budget: float = 10.0
    min_time: float = 0.2
    time_limit: float = 10.0
    exhaustive_max: int = 5_000
    exhaustive_budget: float = 300.0
    """Seconds one exhaustive run may take; past them it stops, reported as such."""
    attack_sizes: tuple[int, ...] = (2, 3, 4, 5, 6)
    attack_check_max: int = 4
    heuristic_sizes: tuple[int, ...] = (2, 3, 4, 5, 6)
    heuristic_boards: int = 50
    throughput_boards: int = 5
    count_sizes: tuple[int, ...] = (10, 20, 30)
    seed: int = 0
    quick: bool = False
    extra: dict[str, Any] = field(default_factory=dict)


QUICK = Config(sizes=(2, 3, 4), boards=1, repeat=1, repeat_budget=2.0, min_time=0.0,
               attack_sizes=(2, 3), attack_check_max=3, heuristic_sizes=(2, 3, 4),
               heuristic_boards=4, throughput_boards=1, count_sizes=(4, 8), quick=True)


def seed_of(part: str, family: str, n: int, k: int, base: int) -> int:
    """The seed of one board: its part, family, size and index, and the run's base."""
    return zlib.crc32(f"{part}:{family}:{n}:{k}:{base}".encode())


def combat_of(board: Mapping[str, Any], declaration: Sequence[Pair]) -> Board:
    """The combat document a declaration makes (SPEC §11): each blocker's ``blocking``
    lists its attackers in document order; the board-only fields are left out."""
    order = {c["id"]: i for i, c in enumerate(board["creatures"])}
    blocking: dict[str, list[str]] = {}
    for pair in declaration:
        blocking.setdefault(pair["blocker"], []).append(pair["attacker"])
    creatures = []
    for raw in board["creatures"]:
        creature = {k: v for k, v in raw.items() if k not in BOARD_ONLY}
        if raw["id"] in blocking:
            creature["blocking"] = sorted(blocking[raw["id"]], key=order.__getitem__)
        creatures.append(creature)
    made = {k: v for k, v in board.items() if k not in ("creatures", "cannot_block")}
    made["creatures"] = creatures
    return made


def value_of(objective: Mapping[str, int]) -> tuple[int, ...]:
    """An answer's objective as a tuple in :data:`TERMS` order (compared lexicographically)."""
    if tuple(objective) != TERMS:
        raise Mismatch(f"the objective's terms are {list(objective)}, not SPEC §11's "
                       f"{list(TERMS)}")
    return tuple(objective[t] for t in TERMS)


@dataclass
class Exhaustive:
    """The exhaustive method's answer: the least value, the first declaration of that value
    in declaration order, how many declarations have it, and how many were valued. Its
    status is ``optimal`` when every declaration was valued exactly; ``refused`` when
    ``plan`` refused one (too large to plan exactly: ``note`` has its message) or did not
    prove it within its time limit, ``stopped`` when the method's own budget ran out; then
    it is no reference, and nothing is compared."""

    status: str
    value: tuple[int, ...] = ()
    blocks: list[Pair] = field(default_factory=list)
    ties: int = 0
    valued: int = 0
    note: str = ""


def exhaustive_block(board: Mapping[str, Any], declarations: list[list[Pair]],
                     time_limit: float, budget: float = math.inf) -> Exhaustive:
    """Every declaration valued with ``api.plan`` on the combat it makes; the least kept
    (the first in the order given among equals)."""
    if not declarations:
        raise Mismatch("enumerate_blocks listed no declaration (the empty one is always "
                       "restriction-legal)")
    due = time.monotonic() + budget
    best: Exhaustive | None = None
    for i, declaration in enumerate(declarations):
        problem = ""
        if time.monotonic() > due:
            status, problem = "stopped", (f"budget of {budget:g} s spent after {i:,} of "
                                          f"{len(declarations):,} declarations")
        else:
            try:
                answer = api.plan(combat_of(board, declaration), objective=list(TERMS),
                                  time_limit=time_limit)
            except TrampleError as exc:
                status, problem = "refused", f"plan refused declaration {i}: {exc}"
            else:
                if answer["status"] != "optimal":
                    status, problem = "refused", (f"plan did not prove declaration {i} in "
                                                  f"{time_limit:g} s")
        if problem:
            return Exhaustive(status, valued=i, note=problem)
        value = value_of(answer["objective"])
        if best is None or value < best.value:
            best = Exhaustive("optimal", value, declaration, 1)
        elif value == best.value:
            best.ties += 1
    assert best is not None  # declarations is not empty
    best.valued = len(declarations)
    return best


def _pairs(declaration: Sequence[Pair]) -> list[tuple[str, str]]:
    return sorted((p["blocker"], p["attacker"]) for p in declaration)


def _median(times: Sequence[float]) -> float:
    return statistics.median(times) if times else float("nan")


def _timed(cfg: Config, fn: Callable[[], T], again: Callable[[T], bool] = lambda _: True,
           min_time: float | None = None) -> tuple[T, dict[str, Any]]:
    """``fn``'s last value and its timing record (times, median, runs, peak memory)."""
    times, value, peak = measure(fn, cfg.repeat, cfg.repeat_budget, again=again,
                                 min_time=cfg.min_time if min_time is None else min_time)
    return value, {"times": times, "median_time": _median(times), "runs": len(times),
                   "peak_memory": peak}


def _proved(answer: Mapping[str, Any]) -> bool:
    return answer.get("status") == "optimal"


def _call(fn: Callable[[], Any]) -> Any:
    """``fn()``'s answer, or ``{"status": "refused", "message"}`` when trample refuses the
    board (too large to answer exactly within its limits: SPEC §11)."""
    try:
        return fn()
    except TrampleError as exc:
        return {"status": "refused", "message": str(exc)}


def _refused(record: dict[str, Any], method: str, answer: Mapping[str, Any],
             timing: dict[str, Any]) -> dict[str, Any]:
    record[method] = {**timing, "status": "refused", "message": answer["message"]}
    return record


# -- the parts -----------------------------------------------------------------------------


def run_blocks(cfg: Config, family: str, n: int, k: int) -> dict[str, Any]:
    """best_block timed on one board, and the exhaustive method where it is small enough."""
    seed = seed_of("blocks", family, n, k, cfg.seed)
    board = boards.board(n, n, boards.VARIANTS[family], seed)
    where = f"blocks {family} {n}x{n} board {k} (seed {seed})"
    count = int(api.count_blocks(board)["count"])
    answer, timing = _timed(
        cfg, partial(_call, lambda: api.best_block(board, time_limit=cfg.time_limit)),
        again=_proved)
    record: dict[str, Any] = {"family": family, "n": n, "board": k, "seed": seed,
                              "declarations": count, "exhaustive": None}
    if answer["status"] == "refused":
        return _refused(record, "best_block", answer, timing)
    value = value_of(answer["objective"])
    record["best_block"] = {**timing, "status": answer["status"], "objective": list(value),
                            "blocks": answer["blocks"]}
    if count > cfg.exhaustive_max:
        record["exhaustive"] = {"status": "skipped",
                                "note": f"{count:,} declarations > {cfg.exhaustive_max:,}"}
        return record
    listed = api.enumerate_blocks(board, limit=count + 1)
    if not listed.get("complete", True) or len(listed["declarations"]) != count:
        raise Mismatch(f"{where}: enumerate_blocks listed {len(listed['declarations'])} "
                       f"declarations, count_blocks says {count}")
    found, ex_timing = _timed(
        cfg, lambda: exhaustive_block(board, listed["declarations"], cfg.time_limit,
                                      cfg.exhaustive_budget),
        again=lambda e: e.status == "optimal")
    record["exhaustive"] = {**ex_timing, "status": found.status, "valued": found.valued}
    if found.status != "optimal":
        record["exhaustive"]["note"] = found.note
        record["agree"] = None
        return record
    with_ties = api.best_block(board, time_limit=cfg.time_limit, ties=True)
    record["exhaustive"].update(objective=list(found.value), blocks=found.blocks,
                                ties=found.ties,
                                ratio=ex_timing["median_time"] / timing["median_time"])
    record["best_block"]["ties"] = with_ties.get("ties")
    if not _proved(answer):
        if value < found.value:
            raise Mismatch(f"{where}: best_block's value {value} is below the least value "
                           f"of any declaration, {found.value}")
        record["agree"] = None
        return record
    problems = []
    if value != found.value:
        problems.append(f"value {value} against the exhaustive {found.value}")
    if _pairs(answer["blocks"]) != _pairs(found.blocks):
        problems.append(f"declaration {answer['blocks']} against the exhaustive "
                        f"{found.blocks} (the first of least value in declaration order)")
    if with_ties.get("ties") != found.ties or value_of(with_ties["objective"]) != value:
        problems.append(f"ties {with_ties.get('ties')} against the exhaustive {found.ties}")
    if problems:
        raise Mismatch(f"{where}: best_block differs from the exhaustive method: "
                       + "; ".join(problems))
    record["agree"] = True
    return record


def _attacked(board: Mapping[str, Any], attackers: Sequence[str]) -> Board:
    chosen = set(attackers)
    made = dict(board)
    made["creatures"] = [{**c, "attacking": "dp"} if c["id"] in chosen else c
                         for c in board["creatures"]]
    return made


def attack_by_blocks(cfg: Config, board: Mapping[str, Any]
                     ) -> tuple[tuple[int, ...], list[str]] | None:
    """The best attack found through ``best_block`` on every attack declaration (each
    creature of ``ap`` home or attacking ``dp``): its value and attackers; None when
    best_block did not prove one of them."""
    able = [c["id"] for c in board["creatures"] if c["controller"] == "ap"]
    best: tuple[tuple[int, ...], list[str]] | None = None
    for vector in product((0, 1), repeat=len(able)):
        chosen = [c for c, x in zip(able, vector, strict=True) if x]
        answer = _call(lambda chosen=chosen: api.best_block(_attacked(board, chosen),
                                                            time_limit=cfg.time_limit))
        if not _proved(answer):
            return None
        value = value_of(answer["objective"])
        if best is None or value > best[0]:
            best = (value, chosen)
    assert best is not None  # product() yields at least the empty attack
    return best


def run_attacks(cfg: Config, family: str, n: int, k: int) -> dict[str, Any]:
    """best_attack timed on one board, checked on small ones."""
    seed = seed_of("attacks", family, n, k, cfg.seed)
    board = boards.attack_board(n, n, boards.VARIANTS[family], seed)
    answer, timing = _timed(
        cfg, partial(_call, lambda: api.best_attack(board, time_limit=cfg.time_limit)),
        again=_proved)
    record: dict[str, Any] = {"family": family, "n": n, "board": k, "seed": seed,
                              "checked": None}
    if answer["status"] == "refused":
        return _refused(record, "best_attack", answer, timing)
    value = value_of(answer["objective"])
    record["best_attack"] = {**timing, "status": answer["status"], "objective": list(value),
                             "attacks": answer["attacks"]}
    reference = attack_by_blocks(cfg, board) \
        if n <= cfg.attack_check_max and _proved(answer) else None
    if reference is not None:
        best_value, attackers = reference
        mine = [a["attacker"] for a in answer["attacks"]]
        if best_value != value or sorted(attackers) != sorted(mine):
            raise Mismatch(f"attacks {family} {n}x{n} board {k} (seed {seed}): best_attack "
                           f"answers {mine} of value {value}; best_block on every attack "
                           f"gives {attackers} of value {best_value}")
        record["checked"] = True
    return record


def run_throughput(cfg: Config, family: str, k: int) -> dict[str, Any]:
    """evaluate_blocks on every legal declaration of one 3 x 3 board: all in one call, and
    one a call."""
    seed = seed_of("throughput", family, 3, k, cfg.seed)
    board = boards.board(3, 3, boards.VARIANTS[family], seed)
    declarations = api.enumerate_blocks(board, limit=10_000)["declarations"]
    batch, timing = _timed(cfg, lambda: api.evaluate_blocks(board, declarations))
    if not all(r["legal"] for r in batch["results"]):
        raise Mismatch(f"throughput {family} board {k}: evaluate_blocks finds a declaration "
                       "of enumerate_blocks illegal")

    def one_by_one() -> None:
        for declaration in declarations:
            api.evaluate_blocks(board, [declaration])

    _, single = _timed(cfg, one_by_one)
    n = len(declarations)
    return {"family": family, "board": k, "seed": seed, "declarations": n,
            "batch": {**timing, "per_second": n / timing["median_time"]},
            "single": {**single, "per_second": n / single["median_time"]}}


def run_heuristic(cfg: Config, family: str, n: int, k: int) -> dict[str, Any]:
    """The heuristic's declaration on one board, judged and valued by trample, against
    best_block's optimum."""
    seed = seed_of("heuristic", family, n, k, cfg.seed)
    board = boards.board(n, n, boards.VARIANTS[family], seed)
    started = time.perf_counter()
    optimum = _call(lambda: api.best_block(board, time_limit=cfg.time_limit))
    optimum_time = time.perf_counter() - started
    started = time.perf_counter()
    declared = heuristic_blocks(board)
    heuristic_time = time.perf_counter() - started
    judged = api.evaluate_blocks(board, [declared])["results"][0]
    record: dict[str, Any] = {
        "family": family, "n": n, "board": k, "seed": seed,
        "optimum": {"status": optimum["status"], "objective": list(value_of(
            optimum["objective"])) if "objective" in optimum else None,
                    "time": optimum_time},
        "heuristic": {"blocks": declared, "legal": judged["legal"], "time": heuristic_time,
                      "objective": None, "rules": []}}
    if not judged["legal"]:
        record["heuristic"]["rules"] = sorted({v["rule"] for v in judged["violations"]})
        return record
    value = value_of(judged["objective"])
    record["heuristic"]["objective"] = list(value)
    if _proved(optimum) and value < tuple(record["optimum"]["objective"]):
        raise Mismatch(f"heuristic {family} {n}x{n} board {k} (seed {seed}): the heuristic's "
                       f"legal declaration {declared} has value {value}, below best_block's "
                       f"proved optimum {record['optimum']['objective']}")
    return record


def _count_call(fn: Callable[[], dict[str, Any]]) -> dict[str, Any]:
    try:
        return {"status": "exact", "answer": fn()}
    except TrampleError as exc:
        return {"status": "refused", "message": str(exc)}


def run_counts(cfg: Config, family: str, n: int) -> list[dict[str, Any]]:
    """count_blocks and block_options (the first blocker, nothing fixed) on one board."""
    seed = seed_of("counts", family, n, 0, cfg.seed)
    board = boards.board(n, n, boards.VARIANTS[family], seed)
    out = []
    counted: int | None = None
    for method, fn in (("count_blocks", lambda: api.count_blocks(board)),
                       ("block_options", lambda: api.block_options(board, {}))):
        found, timing = _timed(cfg, partial(_count_call, fn),
                               again=lambda r: r["status"] == "exact")
        record: dict[str, Any] = {"family": family, "n": n, "seed": seed, "method": method,
                                  "status": found["status"], **timing}
        if found["status"] == "refused":
            record["message"] = found["message"]
        elif method == "count_blocks":
            counted = int(found["answer"]["count"])
            record["count"] = str(counted)
            record["digits"] = len(str(counted))
        else:
            choices = found["answer"]["choices"]
            total = sum(int(c[1]) for c in choices)
            record.update(blocker=found["answer"]["blocker"], choices=len(choices),
                          completions=str(total), digits=len(str(total)))
            if counted is not None and total != counted:
                raise Mismatch(f"counts {family} {n}x{n} (seed {seed}): block_options' "
                               f"completions add up to {total}, count_blocks says {counted}")
        out.append(record)
    return out


# -- the run ---------------------------------------------------------------------------------


def _plan(cfg: Config) -> list[tuple[str, Callable[[], Any]]]:
    """Every step of the run in order: its label and what it does."""
    steps: list[tuple[str, Callable[[], Any]]] = []
    fams = cfg.families
    if "blocks" in cfg.parts:
        steps += [(f"blocks {f} {n}x{n} #{k}", partial(run_blocks, cfg, f, n, k))
                  for f in fams for n in cfg.sizes for k in range(cfg.boards)]
    if "attacks" in cfg.parts:
        steps += [(f"attacks {f} {n}x{n} #{k}", partial(run_attacks, cfg, f, n, k))
                  for f in fams for n in cfg.attack_sizes for k in range(cfg.boards)]
    if "throughput" in cfg.parts:
        steps += [(f"throughput {f} #{k}", partial(run_throughput, cfg, f, k))
                  for f in fams for k in range(cfg.throughput_boards)]
    if "heuristic" in cfg.parts:
        steps += [(f"heuristic {f} {n}x{n} #{k}", partial(run_heuristic, cfg, f, n, k))
                  for f in fams for n in cfg.heuristic_sizes
                  for k in range(cfg.heuristic_boards)]
    if "counts" in cfg.parts:
        steps += [(f"counts {f} {n}x{n}", partial(run_counts, cfg, f, n))
                  for f in fams for n in cfg.count_sizes]
    if "profiles" in cfg.parts:
        top = max(cfg.sizes)
        steps += [(f"profiles best_block {n}x{n}", partial(run_profile, cfg, "best_block", n))
                  for n in sorted({min(n, top) for n in PROFILE_SIZES})]
        n = min(5, max(cfg.attack_sizes))
        steps += [(f"profiles best_attack {n}x{n}", partial(run_profile, cfg, "best_attack", n)),
                  ("profiles evaluate_blocks 3x3", partial(run_profile, cfg,
                                                           "evaluate_blocks", 3))]
    return steps


def run_profile(cfg: Config, method: str, n: int) -> dict[str, Any]:
    """One call of ``method`` on the first plain board of its part under cProfile."""
    from benchmarks.search_loop import profile

    family = "plain"
    if method == "evaluate_blocks":
        seed = seed_of("throughput", family, n, 0, cfg.seed)
        board = boards.board(n, n, boards.VARIANTS[family], seed)
        declarations = api.enumerate_blocks(board, limit=10_000)["declarations"]

        def call() -> Any:
            return api.evaluate_blocks(board, declarations)
    elif method == "best_attack":
        seed = seed_of("attacks", family, n, 0, cfg.seed)
        board = boards.attack_board(n, n, boards.VARIANTS[family], seed)

        def call() -> Any:
            return api.best_attack(board, time_limit=cfg.time_limit)
    else:
        seed = seed_of("blocks", family, n, 0, cfg.seed)
        board = boards.board(n, n, boards.VARIANTS[family], seed)

        def call() -> Any:
            return api.best_block(board, time_limit=cfg.time_limit)
    if n <= WARM_MAX:
        _call(call)  # what a first call does once (imports, caches) is not what limits
    answers: list[Any] = []
    found = profile(lambda: answers.append(_call(call)))
    status = answers[0].get("status", "optimal") if answers else "?"
    return {"method": method, "family": family, "n": n, "board": 0, "seed": seed,
            "status": status, **found}


def run(cfg: Config, argv: Sequence[str]) -> tuple[dict[str, Any], str | None]:
    """The whole run: the results document and the failure message (None if every check
    passed). A failure stops the run; the results so far are kept."""
    from ortools.sat.python import cp_model  # noqa: F401  (load before any clock starts)

    api.best_block(boards.board(2, 2, boards.VARIANTS["plain"], 0))
    started = time.perf_counter()
    doc: dict[str, Any] = {"meta": _meta(cfg, argv), "terms": list(TERMS),
                           **{part: [] for part in PARTS}}
    failure = None
    steps = _plan(cfg)
    with tqdm(total=len(steps), file=sys.stderr, unit="step", dynamic_ncols=True) as bar:
        try:
            for label, step in steps:
                bar.set_postfix_str(label)
                found = step()
                part = label.split()[0]
                doc[part] += found if isinstance(found, list) else [found]
                bar.update()
        except Mismatch as exc:
            failure = str(exc)
        except TrampleError as exc:  # a refusal no part expects: the run stops, kept so far
            failure = f"{label}: {type(exc).__name__}: {exc}"
    doc["meta"]["wall_time"] = time.perf_counter() - started
    doc["checks"] = {
        "exhaustive_compared": sum(1 for r in doc["blocks"] if r.get("agree")),
        "attacks_checked": sum(1 for r in doc["attacks"] if r.get("checked")),
        "heuristic_judged": len(doc["heuristic"]),
        "failure": failure}
    return doc, failure


def _meta(cfg: Config, argv: Sequence[str]) -> dict[str, Any]:
    import os

    from benchmarks import memory

    config = asdict(cfg)
    config.pop("extra")
    return {
        "command": "python -m benchmarks.blocks " + " ".join(argv),
        "date": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "trample": __version__,
        "trample_build": native.describe(), "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
        else (os.cpu_count() or 1),
        "memory": memory.METHOD, "config": config,
        "timing": "each call through trample.api, from the board; median of `repeat` runs or "
                  "more (until they took `min_time` seconds, the garbage collector paused as "
                  "timeit does), after a first run measured for peak memory; fewer once a "
                  "method's runs took `repeat_budget` seconds, or when the time limit "
                  "stopped one"}


# -- the command line ----------------------------------------------------------------------


def _ints(parser: argparse.ArgumentParser, flag: str, raw: str | None,
          default: tuple[int, ...], least: int = 1) -> tuple[int, ...]:
    if raw is None:
        return default
    try:
        found = tuple(int(x) for x in raw.split(",") if x.strip())
    except ValueError:
        parser.error(f"{flag} {raw!r}: give comma-separated integers")
    if not found or min(found) < least:
        parser.error(f"{flag} {raw!r}: give integers of at least {least}")
    return found


def _names(parser: argparse.ArgumentParser, flag: str, raw: str | None,
           allowed: Sequence[str]) -> tuple[str, ...] | None:
    if raw is None:
        return None
    found = tuple(x.strip() for x in raw.split(",") if x.strip())
    unknown = [x for x in found if x not in allowed]
    if unknown or not found:
        parser.error(f"{flag} {raw!r}: choose among {', '.join(allowed)}")
    return found


def _positive(parser: argparse.ArgumentParser, flag: str, value: float | None,
              zero: bool = False) -> None:
    if value is not None and (value < 0 or (value == 0 and not zero) or value > 3600):
        parser.error(f"{flag} must be {'at least 0' if zero else 'more than 0'} and at "
                     "most 3600 seconds")


def parse(argv: Sequence[str]) -> tuple[Config, Path | None]:
    """The configuration the command line asks for, and ``--out``."""
    parser = argparse.ArgumentParser(
        prog="python -m benchmarks.blocks",
        description="SPEC §11 on random armies: best_block against every declaration valued "
                    "by plan, best_attack, evaluate_blocks' throughput, a Forge-style "
                    "blocking heuristic against the optimum, and how far count_blocks and "
                    "block_options reach.")
    parser.add_argument("--families", help="comma list among " + ", ".join(boards.VARIANTS)
                        + " (default all)")
    parser.add_argument("--parts", help="comma list among " + ", ".join(PARTS)
                        + " (default all)")
    parser.add_argument("--sizes", help="N of the N x N boards of best_block (default 2-12)")
    parser.add_argument("--boards", type=int, help="boards per family and size (default 3)")
    parser.add_argument("--repeat", type=int, help="runs per call, the median is reported "
                        "(default 3)")
    parser.add_argument("--repeat-budget", type=float, help="a call's runs stop once they "
                        "took this many seconds (default 10)")
    parser.add_argument("--min-time", type=float, help="a fast call's runs go on until they "
                        "took this many seconds (default 0.2)")
    parser.add_argument("--time-limit", type=float, help="time limit of each best_block and "
                        "best_attack call, seconds; a call it stops answers 'feasible' "
                        "(default 10)")
    parser.add_argument("--exhaustive-max", type=int, help="the exhaustive method runs on "
                        "boards of at most this many legal declarations (default 5000)")
    parser.add_argument("--exhaustive-budget", type=float, help="seconds one exhaustive run "
                        "may take; past them it stops and is reported as stopped (default "
                        "300)")
    parser.add_argument("--attack-sizes", help="N of best_attack's boards (default 2-6)")
    parser.add_argument("--attack-check-max", type=int, help="best_attack is checked "
                        "against best_block on every attack up to this N (default 4)")
    parser.add_argument("--heuristic-sizes", help="N of the heuristic's boards (default 2-6)")
    parser.add_argument("--heuristic-boards", type=int, help="boards per family and size for "
                        "the heuristic (default 50)")
    parser.add_argument("--throughput-boards", type=int, help="3 x 3 boards per family for "
                        "evaluate_blocks (default 5)")
    parser.add_argument("--count-sizes", help="N of count_blocks' and block_options' boards "
                        "(default 10,20,30)")
    parser.add_argument("--seed", type=int, default=0, help="base seed of the boards")
    parser.add_argument("--quick", action="store_true", help="tiny sizes, one board, one "
                        "run: a smoke test of a few seconds")
    parser.add_argument("--out", type=Path, help="output folder (default: a new scratch "
                        "folder, printed; the committed results are replaced only with --out "
                        "benchmarks/results/blocks)")
    args = parser.parse_args(argv)

    cfg = replace(QUICK) if args.quick else Config()
    cfg.seed = args.seed
    cfg.families = _names(parser, "--families", args.families, tuple(boards.VARIANTS)) \
        or cfg.families
    cfg.parts = _names(parser, "--parts", args.parts, PARTS) or cfg.parts
    cfg.sizes = _ints(parser, "--sizes", args.sizes, cfg.sizes)
    cfg.attack_sizes = _ints(parser, "--attack-sizes", args.attack_sizes, cfg.attack_sizes)
    cfg.heuristic_sizes = _ints(parser, "--heuristic-sizes", args.heuristic_sizes,
                                cfg.heuristic_sizes)
    cfg.count_sizes = _ints(parser, "--count-sizes", args.count_sizes, cfg.count_sizes)
    for flag, name, least in (("--boards", "boards", 1), ("--repeat", "repeat", 1),
                              ("--exhaustive-max", "exhaustive_max", 0),
                              ("--attack-check-max", "attack_check_max", 0),
                              ("--heuristic-boards", "heuristic_boards", 1),
                              ("--throughput-boards", "throughput_boards", 1)):
        value = getattr(args, name)
        if value is not None:
            if value < least:
                parser.error(f"{flag} must be at least {least}")
            setattr(cfg, name, value)
    if args.exhaustive_max is not None and args.exhaustive_max > 100_000:
        parser.error("--exhaustive-max must be at most 100000 (what enumerate_blocks lists)")
    for flag, name, zero in (("--repeat-budget", "repeat_budget", False),
                             ("--min-time", "min_time", True),
                             ("--exhaustive-budget", "exhaustive_budget", False),
                             ("--time-limit", "time_limit", False)):
        value = getattr(args, name)
        _positive(parser, flag, value, zero)
        if value is not None:
            setattr(cfg, name, value)
    return cfg, args.out


def main(argv: Sequence[str] | None = None) -> int:
    """Parse the command line, run, write the results; the exit status."""
    args = list(sys.argv[1:] if argv is None else argv)
    missing = missing_packages()
    if missing:
        print(missing_message(missing), file=sys.stderr)
        return 2
    cfg, out_arg = parse(args)
    from benchmarks.blocks_report import write_all

    out = output_folder(out_arg, "blocks")
    results, failure = run(cfg, args)
    write_all(results, out)
    print(f"benchmarks.blocks: {len(results['blocks'])} block boards "
          f"({results['checks']['exhaustive_compared']} against the exhaustive method), "
          f"{len(results['attacks'])} attack boards, {len(results['heuristic'])} heuristic "
          f"boards in {results['meta']['wall_time']:.0f} s; results in {out}",
          file=sys.stderr)
    if failure is not None:
        print(f"benchmarks.blocks: check failed: {failure}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
