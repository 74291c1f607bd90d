"""What the outcome terms cost: the same combats solved on assigned damage and on what the
dealt damage does; and what ``plan`` costs on small combats.

``python -m benchmarks.outcomes [--quick] [--out DIR]`` generates shared-blocker combats
(benchmarks.generators), and for each solves it three ways, with the time of each:

* ``plain``: the terms on assigned damage (``lethal, kills, ...``);
* ``outcome``: the default terms on dealt damage (``losses, deaths, ...``) on the same
  document: no effect applies, so the search runs on the plain terms;
* ``effects``: the default terms on the document with effects added: a blocker in four
  with protection from the attackers, one attacker in three with infect, one in five with
  lifelink, one in six with toxic 1, a damage doubler on one defending player, and
  commander damage from the first attacker. Here the outcome terms are searched as
  themselves (the CP-SAT model of dealt damage, no closed-form fast path).

Every answer is checked legal and its objective recomputed by the independent
implementation of :func:`check`; the summary is the median time of each way per size.
Writes ``outcomes.json`` and ``outcomes.md`` to ``--out`` (default benchmarks/results).
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from benchmarks.generators import shared_blockers
from trample.models.document.combat import Combat
from trample.solver.interface import api
from trample.solver.optimize.objectives import ASSIGNED_TERMS, OUTCOME_TERMS, evaluate
from trample.solver.rules.assignment import parse_assignment
from trample.solver.rules.legal_space import legal_space
from trample.solver.rules.validate import check_answer

SIZES = (10, 40, 160, 320, 1000)
QUICK_SIZES = (6, 12)
SEEDS = 3
TIME_LIMIT = 60.0


def with_effects(doc: dict[str, Any], seed: int) -> dict[str, Any]:
    """``doc`` with protection, infect, lifelink, toxic, a doubler and commander damage."""
    rng = random.Random(seed)
    doc = copy.deepcopy(doc)
    attackers = [c for c in doc["creatures"] if c.get("attacking")]
    blockers = [c for c in doc["creatures"] if c.get("blocking")]
    for i, a in enumerate(attackers):
        extra = []
        if i % 3 == 1:
            extra.append("Infect")
        if i % 5 == 2:
            extra.append("Lifelink")
        if i % 6 == 0:
            extra.append("Toxic 1")
        a["keywords"] = [*a.get("keywords", []), *extra]
    doc["prevention"] = [{"source": "*", "target": b["id"]}
                         for i, b in enumerate(blockers) if i % 4 == 0]
    defenders = [p["id"] for p in doc["players"] if p["id"] != doc["active_player"]]
    doc["multipliers"] = [{"source": "*", "target": defenders[0], "factor": 2}]
    if attackers:
        doc["loss_thresholds"] = [{"source": attackers[0]["id"], "player": defenders[-1],
                                   "threshold": 21, "already": 12}]
    for p in doc["players"]:
        if p["id"] in defenders:
            p["poison"] = rng.randint(0, 6)
    return doc


def check(doc: dict[str, Any], answer: dict[str, Any], terms: Sequence[str]) -> None:
    """The answer is legal and its objective is what its assignment is worth."""
    space = legal_space(Combat.from_json(doc), "attackers")
    amounts = dict(parse_assignment(space.combat, answer["assignment"]))
    check_answer(space, amounts, "benchmark")
    worth = evaluate(space, amounts, terms)
    if list(worth.values()) != list(answer["objective"].values()):
        raise AssertionError(f"objective {answer['objective']} is not what its "
                             f"assignment is worth: {worth}")


def timed(doc: dict[str, Any], terms: Sequence[str], time_limit: float
          ) -> tuple[float, dict[str, Any]]:
    started = time.perf_counter()
    answer = api.solve(doc, objective=list(terms), time_limit=time_limit)
    elapsed = time.perf_counter() - started
    check(doc, answer, terms)
    return elapsed, answer


def measure(sizes: Sequence[int], seeds: int, time_limit: float) -> list[dict[str, Any]]:
    """One row per (size, seed): the time and status of each way."""
    rows = []
    # Load OR-Tools before the first timing (its import is not what is measured).
    api.solve(with_effects(shared_blockers(6, 6, 0.3, 0), 0), objective=list(OUTCOME_TERMS))
    for size in sizes:
        for seed in range(seeds):
            doc = shared_blockers(size, size, 0.3, seed)
            effects = with_effects(doc, seed)
            row: dict[str, Any] = {"size": size, "seed": seed}
            for way, document, terms in (("plain", doc, ASSIGNED_TERMS),
                                         ("outcome", doc, OUTCOME_TERMS),
                                         ("effects", effects, OUTCOME_TERMS)):
                elapsed, answer = timed(document, terms, time_limit)
                row[way] = {"seconds": round(elapsed, 4), "status": answer["status"]}
            rows.append(row)
    return rows


def plan_document(attackers: int, blockers: int, seed: int) -> dict[str, Any]:
    """``attackers`` double-striking tramplers (power 3-5) on ``dp``, each blocked by
    ``blockers`` creatures (power 0-2, toughness 1-3), one blocker in three with lifelink:
    a combat to plan across both steps."""
    rng = random.Random(seed)
    creatures: list[dict[str, Any]] = []
    for i in range(attackers):
        creatures.append({"id": f"a{i}", "controller": "ap", "power": rng.randint(3, 5),
                          "toughness": rng.randint(2, 5), "attacking": "dp",
                          "keywords": ["Double strike", "Trample"]})
        for j in range(blockers):
            creatures.append({"id": f"b{i}_{j}", "controller": "dp",
                              "power": rng.randint(0, 2), "toughness": rng.randint(1, 3),
                              "keywords": ["Lifelink"] if (i + j) % 3 == 0 else [],
                              "blocking": [f"a{i}"]})
    return {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": 12}],
            "creatures": creatures}


PLAN_SHAPES = ((1, 1), (1, 2), (2, 1), (2, 2), (1, 3), (3, 1), (2, 3), (3, 2))
QUICK_PLAN_SHAPES = ((1, 1), (1, 2))


def measure_plan(shapes: Sequence[tuple[int, int]], seeds: int) -> list[dict[str, Any]]:
    """The time, size and leaves of ``plan`` on :func:`plan_document` combats."""
    from trample.solver.actions.plan import plan_combat, plan_size

    rows = []
    for attackers, blockers in shapes:
        for seed in range(seeds):
            combat = Combat.from_json(plan_document(attackers, blockers, seed))
            started = time.perf_counter()
            found = plan_combat(combat)
            elapsed = time.perf_counter() - started
            rows.append({"attackers": attackers, "blockers_each": blockers, "seed": seed,
                         "size": plan_size(combat), "leaves": found.leaves,
                         "seconds": round(elapsed, 4), "status": found.status})
    return rows


def plan_summary(rows: list[dict[str, Any]]) -> str:
    lines = ["| attackers | blockers each | size (median) | lines scored (median) | "
             "seconds (median) |", "| --- | --- | --- | --- | --- |"]
    for shape in dict.fromkeys((r["attackers"], r["blockers_each"]) for r in rows):
        mine = [r for r in rows if (r["attackers"], r["blockers_each"]) == shape]
        lines.append(f"| {shape[0]} | {shape[1]} | "
                     f"{statistics.median(r['size'] for r in mine):,.0f} | "
                     f"{statistics.median(r['leaves'] for r in mine):,.0f} | "
                     f"{statistics.median(r['seconds'] for r in mine):.3f} |")
    return "\n".join(lines)


def summary(rows: list[dict[str, Any]]) -> str:
    lines = ["| attackers = blockers | plain (s) | outcome (s) | effects (s) | "
             "effects optimal |", "| --- | --- | --- | --- | --- |"]
    for size in sorted({r["size"] for r in rows}):
        mine = [r for r in rows if r["size"] == size]
        cells = [statistics.median(r[w]["seconds"] for r in mine)
                 for w in ("plain", "outcome", "effects")]
        optimal = sum(r["effects"]["status"] == "optimal" for r in mine)
        lines.append(f"| {size} | {cells[0]:.3f} | {cells[1]:.3f} | {cells[2]:.3f} | "
                     f"{optimal}/{len(mine)} |")
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the measurement and write its results."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.outcomes")
    parser.add_argument("--quick", action="store_true", help="two small sizes, one seed")
    parser.add_argument("--out", type=Path, default=Path("benchmarks/results"))
    args = parser.parse_args(argv)
    sizes, seeds = (QUICK_SIZES, 1) if args.quick else (SIZES, SEEDS)
    rows = measure(sizes, seeds, 10.0 if args.quick else TIME_LIMIT)
    plans = measure_plan(QUICK_PLAN_SHAPES if args.quick else PLAN_SHAPES, seeds)
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "outcomes.json").write_text(
        json.dumps({"solve": rows, "plan": plans}, indent=1) + "\n", "utf-8")
    table = summary(rows) + "\n\n" + plan_summary(plans)
    (args.out / "outcomes.md").write_text(
        "# The cost of the outcome terms\n\nMedian seconds per `solve` of the same "
        "shared-blocker combats (30% of blockers shared): `plain` on assigned damage, "
        "`outcome` on dealt damage with no effect present, `effects` on dealt damage "
        "with protection, infect, lifelink, toxic, a doubler and commander damage. "
        "Then `plan` on double-striking tramplers each blocked by a few creatures (one "
        "in three with lifelink): the size is the product of the four choices' split "
        "counts, lines scored the search's work.\n\n" + table + "\n", "utf-8")
    print(table)
    return 0


if __name__ == "__main__":
    sys.exit(main())
