"""Time legal splits as actions: rank, unrank and options on the benchmark families, and
the parse-once handle against the plain functions on tiny combats.

``python -m benchmarks.actions`` (``--quick`` for the small sizes only). Times are the
median of repeated calls, in milliseconds, on an already built handle (the build, which
counts the legal space once, is timed apart); ``project`` moves a random legal split by
noise of up to 1.5 a pair and projects it back.
"""

from __future__ import annotations

import argparse
import random
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from benchmarks.generators import Document, tiny
from benchmarks.runner import FAMILIES
from trample.solver.count.work import CountOutOfReach
from trample.solver.interface import api

PROJECT_PAIRS = 500
"""``project`` is timed on combats with at most this many pairs (it solves CP-SAT models)."""


def _ms(fn: Callable[[], Any], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return 1000 * statistics.median(times)


def instance_row(name: str, doc: Document, repeat: int) -> dict[str, Any]:
    """Build, unrank, rank, options (first pair and a middle one) and project (a random
    legal split moved by noise) on one combat."""
    started = time.perf_counter()
    try:
        handle = api.prepare(doc)
        total = handle.actions.total
        handle.actions.parts  # noqa: B018 (the declared order, which rank and unrank walk)
    except CountOutOfReach:
        return {"instance": name, "refused": True}
    build = 1000 * (time.perf_counter() - started)
    rng = random.Random(total)
    indices = [rng.randrange(total) for _ in range(repeat)]
    splits = [handle.unrank(i)["assignment"] for i in indices]
    calls = iter(range(10**9))
    unrank = _ms(lambda: handle.unrank(indices[next(calls) % repeat]), repeat)
    calls = iter(range(10**9))
    rank = _ms(lambda: handle.rank(splits[next(calls) % repeat]), repeat)
    first = _ms(lambda: handle.options([]), repeat)
    half = splits[0][: len(splits[0]) // 2]
    middle = _ms(lambda: handle.options(half), repeat)
    noisy = [{**e, "amount": e["amount"] + rng.uniform(-1.5, 1.5)} for e in splits[0]]
    project = (_ms(lambda: handle.project(noisy), max(1, repeat // 10))
               if len(handle.pair_order()) <= PROJECT_PAIRS else None)
    return {"instance": name, "pairs": len(handle.pair_order()), "digits": len(str(total)),
            "build": build, "unrank": unrank, "rank": rank, "options": first,
            "options_mid": middle, "project": project}


def family_rows(quick: bool, repeat: int) -> list[dict[str, Any]]:
    """One :func:`instance_row` per family and size."""
    rows = []
    for family in FAMILIES.values():
        for size in family.quick if quick else family.full:
            name, _, doc = family.make(size, 1)
            rows.append(instance_row(name, doc, repeat))
    return rows


def handle_rows(repeat: int) -> list[dict[str, Any]]:
    """Per method: ms a call through the functions (parsing each time) and through a
    handle, on tiny combats (one attacker, one to three blockers)."""
    pool: list[Document] = [tiny(1 + i % 3, 1_000_003 + i) for i in range(60)]
    handles = [api.prepare(doc) for doc in pool]
    answers = [h.solve()["assignment"] for h in handles]
    for h in handles:  # build what each method keeps, as a long-lived handle would have
        h.count()
    methods: dict[str, tuple[Callable[[int], Any], Callable[[int], Any]]] = {
        "solve": (lambda i: api.solve(pool[i]), lambda i: handles[i].solve()),
        "validate": (lambda i: api.validate(pool[i], answers[i]),
                     lambda i: handles[i].validate(answers[i])),
        "count": (lambda i: api.count(pool[i]), lambda i: handles[i].count()),
        "options": (lambda i: api.options(pool[i]), lambda i: handles[i].options()),
    }
    rows = []
    for name, (plain, prepared) in methods.items():
        cost = []
        for fn in (plain, prepared):
            for i in range(len(pool)):  # warm up
                fn(i)
            started = time.perf_counter()
            for _ in range(repeat):
                for i in range(len(pool)):
                    fn(i)
            cost.append(1000 * (time.perf_counter() - started) / (repeat * len(pool)))
        rows.append({"method": name, "function": cost[0], "handle": cost[1],
                     "speedup": cost[0] / cost[1]})
    return rows


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true")
    parser.add_argument("--repeat", type=int, default=20)
    args = parser.parse_args(argv)
    print("method    function ms  handle ms  speed-up   (tiny combats)")
    for r in handle_rows(args.repeat):
        print(f"{r['method']:<9} {r['function']:>11.3f} {r['handle']:>10.3f} "
              f"{r['speedup']:>8.1f}x")
    print()
    print(f"{'instance':<22} {'pairs':>5} {'digits':>6} {'build ms':>9} {'unrank':>8} "
          f"{'rank':>8} {'options':>8} {'opt mid':>8} {'project':>9}")
    for r in family_rows(args.quick, args.repeat):
        if r.get("refused"):
            print(f"{r['instance']:<22} count refused (CountOutOfReach)")
            continue
        print(f"{r['instance']:<22} {r['pairs']:>5} {r['digits']:>6} {r['build']:>9.1f} "
              f"{r['unrank']:>8.2f} {r['rank']:>8.2f} {r['options']:>8.2f} "
              f"{r['options_mid']:>8.2f} "
              + (f"{r['project']:>9.1f}" if r["project"] is not None else f"{'-':>9}"))


if __name__ == "__main__":
    main()
