"""Write a run's results: results.json, results.md, summary.md and time_vs_size.png."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from benchmarks.runner import FAMILIES

SOLVERS = ("trample", "milp_compact", "milp_compact_highspy", "milp_highs", "cpsat_mono",
           "brute", "greedy", "greedy_value")
COMPACT = ("milp_compact", "milp_compact_highspy")
"""The compact MILP a user would write (:mod:`benchmarks.compact`), in SciPy's HiGHS and
in highspy's: the faster of the two is the peer."""
PEERS = ("compact", "milp_highs", "cpsat_mono")
"""The exact peers trample is measured against: the compact MILP, and the whole-combat
model of every term in HiGHS and in CP-SAT."""
PEER_NAMES = {"compact": "the compact MILP", "milp_compact": "compact MILP (SciPy)",
              "milp_compact_highspy": "compact MILP (highspy)", "milp_highs": "HiGHS",
              "cpsat_mono": "CP-SAT"}
BASE = {"compact": "trample_compact", "milp_compact": "trample_compact",
        "milp_compact_highspy": "trample_compact"}
"""The run of trample a peer is compared with when not trample's own: the compact MILP
with trample asked the same terms."""
GROWTH_METHODS = ("trample", "milp_compact", "milp_compact_highspy", "milp_highs",
                  "cpsat_mono", "greedy")
STOPPED = ("feasible", "unknown")
TINY_TARGETS = {"in_process": 20000.0, "serve": 10000.0}
SPEED_TARGETS = {"compact": 2.0, "milp_highs": 2.0, "cpsat_mono": 10.0}
"""How many times faster than each peer trample aims to prove the optimum."""
RETIRED = {("cpsat_mono", "shared30-A30-B90"):
           "retired there: no search built on CP-SAT reaches it (docs/performance.md)"}
"""Targets no longer held to on one instance, and why."""

Results = dict[str, Any]


def seconds(t: float | None) -> str:
    """A duration for people: 12.3 µs, 4.56 ms, 7.89 s."""
    if t is None or math.isnan(t):
        return "-"
    if t < 1e-3:
        return f"{t * 1e6:.1f} µs"
    if t < 1:
        return f"{t * 1e3:.2f} ms"
    return f"{t:.2f} s"


def mebibytes(n: int | None) -> str:
    """A byte count for people, in MiB."""
    if n is None:
        return "-"
    return f"{n / 2**20:.1f} MiB" if n < 10 * 2**20 else f"{n / 2**20:.0f} MiB"


def short(objective: list[int] | None) -> str:
    """A lexicographic objective as ``a/b/c/...``."""
    return "-" if objective is None else "/".join(str(v) for v in objective)


def write_all(results: Results, out: Path) -> None:
    """Every output file of a run into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    (out / "results.md").write_text(results_table(results), encoding="utf-8")
    (out / "summary.md").write_text(summary(results), encoding="utf-8")
    plot(results, out / "time_vs_size.png")


def results_table(results: Results) -> str:
    """results.md: one row per instance and method."""
    meta = results["meta"]
    lines = [
        "# Benchmark results", "",
        f"`{meta['command']}` on {meta['date']}, {meta['cpus']} CPUs, Python "
        f"{meta['python']}, OR-Tools {meta['ortools']}, SciPy {meta['scipy']}; "
        f"trample: {meta.get('trample_build', 'pure Python')}; "
        f"baseline time limit {meta['time_limit']:g} s, CP-SAT baseline with "
        f"{meta['cpsat_workers']} workers; timing: {meta['timing']}. "
        f"Objective: {', '.join(results['terms'])} (lexicographic, first term first). "
        "Ratio: the method's median time over trample's, same instance, same run. "
        f"Peak memory: {meta.get('memory', '-')}.", "",
        "| instance | method | median time | runs | status | objective | ratio to trample "
        "| peak memory | note |",
        "| --- | --- | ---: | ---: | --- | --- | ---: | ---: | --- |",
    ]
    for inst in results["instances"]:
        for name, m in inst["methods"].items():
            note = m["note"]
            if "gap_percent" in m["extra"] and m["extra"]["gap_term"]:
                note = f"gap {m['extra']['gap_percent']:.1f}% on {m['extra']['gap_term']}"
            if m["gap"] is not None and m["status"] != "optimal":
                note = (note + "; " if note else "") + f"solver gap {m['gap']:.2e}"
            if "terms" in m["extra"]:
                note = (note + "; " if note else "") + \
                    f"objective on {', '.join(m['extra']['terms'])}"
            if "gaps_at" in m["extra"]:
                gaps = ", ".join(f"{t} s: {_gap(g)}" for t, g in m["extra"]["gaps_at"].items())
                note = (note + "; " if note else "") + f"gap at {gaps}"
            ratio = "-" if m["ratio"] is None else f"{m['ratio']:.3g}x"
            lines.append(f"| {inst['name']} | {name} | {seconds(m['median_time'])} | "
                         f"{len(m['times'])} | {m['status']} | {short(m['objective'])} | "
                         f"{ratio} | {mebibytes(m.get('peak_memory'))} | {note} |")
    tp = results.get("throughput")
    if tp:
        lines += ["", "## Tiny combats: throughput", "",
                  f"{tp['pool']} distinct tiny combats (one attacker, one to three blockers), "
                  f"each checked against brute force and greedy ({tp['pool_checked']} checked); "
                  f"{tp['pool_over_small_group']} of them have more than 64 legal assignments "
                  "(trample's CP-SAT path, the others are solved by inspection).",
                  "", "| how | solves | median time | solves per second |",
                  "| --- | ---: | ---: | ---: |"]
        for how in ("in_process", "serve", "in_process_new", "serve_new"):
            t = tp.get(how)
            if t is None:
                continue
            n = t.get("solves", t.get("requests"))
            label = how.replace("_new", "").replace("_", "-") + \
                (", each combat new" if how.endswith("_new")
                 else f", {tp['pool']} combats again")
            lines.append(f"| {label} | {n:,} | {seconds(t['median_time'])} | "
                         f"{t['per_second']:,.0f} |")
    return "\n".join(lines) + "\n"


def _wall(t: float) -> str:
    return f"{t:.0f} s" if t < 120 else f"{t / 60:.1f} min"


def _gap(g: float | None) -> str:
    return "no solution" if g is None else f"{g:.2e}"


def _instance(results: Results, name: str) -> dict[str, Any] | None:
    return next((i for i in results["instances"] if i["name"] == name), None)


def _largest(results: Results, family: str) -> dict[str, Any] | None:
    found = [i for i in results["instances"] if i["family"] == family]
    return max(found, key=lambda i: i["size"]) if found else None


def _verdict(measured: float, target: float, lower_bound: bool = False) -> str:
    if measured >= target:
        return "met"
    qualifier = "≥ " if lower_bound else ""
    return f"not met ({qualifier}{measured / target:.2g}x of the target)"


def peer_time(m: dict[str, Any], limit: float) -> str:
    """A peer's median time, or "> limit" when its time limit stopped it."""
    if m["status"] == "skipped":
        return "skipped"
    if m["status"] in STOPPED:
        return f"> {limit:g} s ({m['status']})"
    if m["status"] == "illegal":
        return "illegal answer"
    return seconds(m["median_time"])


def _base(inst: dict[str, Any], peer: str) -> dict[str, Any] | None:
    """The run of trample that ``peer`` is compared with on ``inst`` (None: not run)."""
    methods: dict[str, dict[str, Any]] = inst["methods"]
    return methods.get(BASE.get(peer, "trample"))


def _peer(inst: dict[str, Any], peer: str) -> dict[str, Any] | None:
    """``peer``'s result on ``inst``; for ``compact``, the faster of the compact MILPs
    that proved the optimum (else the first of them run)."""
    methods: dict[str, dict[str, Any]] = inst["methods"]
    if peer != "compact":
        return methods.get(peer)
    run = [methods[m] for m in COMPACT if m in methods]
    proved = [m for m in run if m["status"] == "optimal"]
    return min(proved, key=lambda m: m["median_time"]) if proved else \
        (run[0] if run else None)


def speedup(inst: dict[str, Any], peer: str, limit: float) -> str:
    """How many times faster trample proved the optimum than ``peer`` on ``inst``, in the
    same run ("≥" when the peer was stopped by its limit; "-" when not comparable)."""
    m = _peer(inst, peer)
    t = _base(inst, peer)
    if m is None or t is None or m["status"] in ("skipped", "illegal"):
        return "-"
    ratio = m["median_time"] / t["median_time"]
    bound = "≥ " if m["status"] in STOPPED else ""
    return f"{bound}{ratio:.3g}x" + ("" if t["status"] == "optimal" else f" ({t['status']})")


def targets_table(results: Results) -> list[str]:
    """One row per instance: trample (its own question, and the compact model's), the
    compact MILP, the whole-combat model in HiGHS and in CP-SAT, and how many times faster
    trample is than each, all measured in the same run."""
    limit = results["meta"]["time_limit"]
    out = ["| instance | trample | trample, compact question | compact MILP (SciPy) "
           "| compact MILP (highspy) | HiGHS (MILP) | CP-SAT (monolithic) "
           "| compact MILP / trample | HiGHS / trample | CP-SAT / trample |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |"]
    for inst in results["instances"]:
        m = inst["methods"]
        row = [inst["name"]]
        for method in ("trample", "trample_compact"):
            t = m.get(method)
            row.append("-" if t is None else seconds(t["median_time"])
                       + ("" if t["status"] == "optimal" else f" ({t['status']})"))
        row += [peer_time(m[p], limit) if p in m else "-"
                for p in (*COMPACT, "milp_highs", "cpsat_mono")]
        row += [speedup(inst, p, limit) for p in PEERS]
        out.append("| " + " | ".join(row) + " |")
    return out


def slower_than_highs(results: Results) -> list[str]:
    """The instances where a HiGHS model proved the optimum faster than trample (asked
    the same question), in words."""
    found = []
    for inst in results["instances"]:
        for peer in (*COMPACT, "milp_highs"):
            h, t = inst["methods"].get(peer), _base(inst, peer)
            if h is None or t is None:
                continue
            if h["status"] == "optimal" and h["median_time"] < t["median_time"]:
                found.append((t["median_time"] / h["median_time"], inst["name"], t, h,
                              PEER_NAMES[peer]))
    return [f"- {name}: trample {seconds(t['median_time'])}, {peer} "
            f"{seconds(h['median_time'])}: trample {ratio:.3g}x slower"
            for ratio, name, t, h, peer in sorted(found, reverse=True)]


def paired_table(results: Results) -> list[str]:
    """trample on the compact question against each compact MILP, timed in turn: each
    one's median and quartiles, and the ratio of the MILP's run to trample's run of the
    same round (wall clock and CPU), median and quartiles."""
    out = ["| instance | terms | trample, median (q1-q3) | MILP | MILP, median (q1-q3) | "
           "rounds | MILP / trample by round, wall (q1-q3) | by round, CPU (q1-q3) |",
           "| --- | --- | ---: | --- | ---: | ---: | ---: | ---: |"]

    def quartiles(r: dict[str, Any]) -> str:
        q = r["extra"].get("spread")
        return "-" if q is None else \
            f"{seconds(q['median'])} ({seconds(q['q1'])}-{seconds(q['q3'])})"

    for inst in results["instances"]:
        m = inst["methods"]
        t = m.get("trample_compact")
        if t is None:
            continue
        for method in COMPACT:
            if method not in m:
                continue
            c = m[method]
            cells = [inst["name"], ", ".join(t["extra"]["terms"]), quartiles(t),
                     c["extra"].get("backend", method), quartiles(c) + (
                         "" if c["status"] == "optimal" else f" ({c['status']})"),
                     str(len(c["times"]))]
            for key in ("paired_ratio", "paired_cpu_ratio"):
                q = c["extra"].get(key)
                cells.append("-" if q is None else
                             f"{q['median']:.3g}x ({q['q1']:.3g}-{q['q3']:.3g})")
            out.append("| " + " | ".join(cells) + " |")
    return out


def missed_targets(results: Results) -> list[str]:
    """The instances where trample is not at least :data:`SPEED_TARGETS` times faster than
    a peer (a peer stopped by its limit counts at its limit: the real ratio is larger)."""
    found = []
    for inst in results["instances"]:
        for peer, target in SPEED_TARGETS.items():
            m = _peer(inst, peer)
            t = _base(inst, peer)
            if m is None or t is None or m["status"] in ("skipped", "illegal"):
                continue
            ratio = m["median_time"] / t["median_time"]
            if t["status"] != "optimal" or ratio < target:
                retired = RETIRED.get((peer, inst["name"]))
                found.append(f"- {inst['name']}: {ratio:.2g}x faster than "
                             f"{PEER_NAMES[peer]} (target {target:g}x)"
                             + ("" if t["status"] == "optimal" else f", trample {t['status']}")
                             + (f"; {retired}" if retired else ""))
    return found


def growth(results: Results, family: str, method: str) -> tuple[float, int] | None:
    """The least-squares slope of log(time) against log(size) over the family's instances
    the method finished (skipped runs and runs stopped by a time limit are left out), and
    how many points it rests on; None with fewer than two sizes."""
    points = [(i["size"], i["methods"][method]["median_time"]) for i in results["instances"]
              if i["family"] == family and method in i["methods"]
              and i["methods"][method]["status"] not in ("skipped", *STOPPED)
              and i["methods"][method]["median_time"] > 0]
    if len({x for x, _ in points}) < 2:
        return None
    xs = [math.log(x) for x, _ in points]
    ys = [math.log(y) for _, y in points]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / \
        sum((x - mx) ** 2 for x in xs)
    return slope, len(points)


def growth_table(results: Results) -> list[str]:
    """Fitted growth exponent per family and method (time ~ size^k)."""
    out = ["| family | " + " | ".join(GROWTH_METHODS) + " |",
           "| --- |" + " ---: |" * len(GROWTH_METHODS)]
    for family in FAMILIES:
        if family == "tiny" or not any(i["family"] == family for i in results["instances"]):
            continue
        cells = []
        for method in GROWTH_METHODS:
            fit = growth(results, family, method)
            cells.append("-" if fit is None else f"{fit[0]:.2f} ({fit[1]} sizes)")
        out.append(f"| {family} | " + " | ".join(cells) + " |")
    return out


def memory_table(results: Results) -> list[str]:
    """Peak resident memory added per family and method, at the family's largest size."""
    methods = [*SOLVERS[:5], "greedy"]
    out = ["| family (largest size) | " + " | ".join(methods) + " |",
           "| --- |" + " ---: |" * len(methods)]
    for family in FAMILIES:
        inst = _largest(results, family)
        if inst is None:
            continue
        cells = [mebibytes(inst["methods"][m].get("peak_memory")) if m in inst["methods"]
                 else "-" for m in methods]
        out.append(f"| {family} ({inst['name']}) | " + " | ".join(cells) + " |")
    return out


def greedy_gaps(results: Results, family: str, method: str) -> str:
    """The greedy baseline's lexicographic gap on one family, in words."""
    rows = [i["methods"][method]["extra"] for i in results["instances"]
            if i["family"] == family and method in i["methods"]]
    if family == "tiny" and results.get("throughput"):
        rows += results["throughput"]["pool_greedy_gaps"][method]
    if not rows:
        return "-"
    worse = [r for r in rows if r.get("gap_term")]
    if not worse:
        return f"0% (optimal on {len(rows)}/{len(rows)})"
    by_term: dict[str, list[float]] = {}
    for r in worse:
        by_term.setdefault(r["gap_term"], []).append(r["gap_percent"])
    parts = [f"{term}: mean {sum(v) / len(v):.1f}%, max {max(v):.1f}% ({len(v)})"
             for term, v in by_term.items()]
    return f"below optimum on {len(worse)}/{len(rows)}; " + "; ".join(parts)


def summary(results: Results) -> str:
    """summary.md: where trample stands against each target, per family."""
    meta = results["meta"]
    checks = results["checks"]
    out = [
        "# Benchmark summary", "",
        f"`{meta['command']}`, {meta['date']}, {meta['cpus']} CPUs (shared, noisy), "
        f"trample: {meta.get('trample_build', 'pure Python')}, "
        f"wall time {_wall(meta['wall_time'])}. Times are medians in this run (see "
        "Timing); speed-ups are ratios measured in the same run. "
        f"Timing: {meta['timing']}. The targets are reported here, not required.", "",
        "Methods: **trample** (`trample.solver.interface.api.solve`, end to end, time limit "
        f"{meta['trample_time_limit']:g} s); **cpsat_mono**: one CP-SAT model of the whole "
        f"combat (no decomposition, no fast paths, {meta['cpsat_workers']} workers, limit "
        f"{meta['time_limit']:g} s), the lexicographic objective as one weighted sum "
        "(mixed-radix weights from each term's bounds); **milp_highs**: the same model as a "
        "MILP (big-M) in SciPy's HiGHS, same limit; **milp_compact**: the compact MILP a "
        "user would write (`benchmarks/compact.py`: an amount per legal pair, a binary per "
        "blocker that matters, the trample gates as big-M rows, only the terms that vary, "
        "one HiGHS solve through SciPy's `milp`, presolve on), same limit; "
        "**milp_compact_highspy**: the same model in highspy's HiGHS 1.16 (trample's own); "
        "both against **trample_compact**: trample asked those same terms, the three "
        "timed in turn; the faster compact MILP is the peer; **greedy** / **greedy_value**: "
        "`trample.solver.optimize.greedy` in declaration order / blockers by value; "
        "**brute**: every legal assignment, when at most 20,000.", "",
        "Gap of a solver at its limit: |bound - objective| / max(1, |objective|) on the "
        "weighted objective. Greedy gap: the lexicographic objectives are compared term by "
        "term; the gap is the shortfall on the first term that differs, in percent of "
        "trample's value of that term.", "",
        "## trample against HiGHS and CP-SAT", "",
        "Every instance of the run: trample's median time (optimal unless said), on its "
        "default objective and on the compact model's terms, the peers' (\"> limit\": "
        "stopped by the time limit without a proof), and how many times faster trample is "
        "than each (the compact MILP against trample asked the same terms, the other two "
        "against trample's own column).", "",
        *targets_table(results), "",
        "## trample against the compact MILP, round by round", "",
        "trample asked the compact model's terms and the compact MILP, one run of each per "
        "round: the median and quartiles of each, and of the MILP's time over trample's "
        "in the same round, by the wall clock and by CPU time (every thread of the "
        "process; the load of other work on a shared machine lengthens the wall clock, "
        "hardly the CPU time).", "",
        *paired_table(results), "",
    ]
    slower = slower_than_highs(results)
    missed = missed_targets(results)
    out += ["Where a HiGHS model proved the optimum faster than trample:" if slower else
            "No HiGHS model proved an optimum faster than trample in this run.", "",
            *slower, "",
            "Where trample is not yet "
            + " and ".join(f"{v:g}x faster than {PEER_NAMES[k]}"
                           for k, v in SPEED_TARGETS.items()) + ":" if missed else
            "Every target of speed against the peers is met in this run.", "", *missed, "",
            "## Growth", "",
            "Fitted growth exponent k of time ~ size^k per method (least squares on log-log "
            "over the sizes the method finished; size = creatures in combat); the plot is "
            "time_vs_size.png.", "", *growth_table(results), "",
            "## Peak memory", "",
            f"Resident memory a method added at its peak ({meta.get('memory', '-')}), at "
            "each family's largest size; every instance is in results.md.", "",
            *memory_table(results), "",
            "## Other targets", "",
            "| family | target | measured | verdict |", "| --- | --- | --- | --- |"]
    tp = results.get("throughput")
    for how, target in TINY_TARGETS.items():
        label = "in-process" if how == "in_process" else "through `serve`"
        if not tp:
            out.append(f"| tiny | ≥ {target:,.0f} solves/s {label} | not run | - |")
            continue
        again = tp[how]["per_second"]
        fresh = tp.get(f"{how}_new")
        if fresh is None:  # results of a run before new combats were measured
            out.append(f"| tiny | ≥ {target:,.0f} solves/s {label} | {again:,.0f} solves/s "
                       f"(combats asked again) | {_verdict(again, target)} |")
            continue
        rate = fresh["per_second"]
        n = fresh.get("solves", fresh.get("requests"))
        out.append(f"| tiny | ≥ {target:,.0f} solves/s {label} | {rate:,.0f} solves/s, "
                   f"each of {n:,} combats new ({again:,.0f}/s on {tp['pool']} combats asked "
                   f"again and again, which the cache of recent combats answers) | "
                   f"{_verdict(rate, target)} |")
    for family in FAMILIES:
        if any(i["family"] == family for i in results["instances"]):
            out.append(f"| {family} | greedy objective gap | declaration order: "
                       f"{greedy_gaps(results, family, 'greedy')}; by value: "
                       f"{greedy_gaps(results, family, 'greedy_value')} | (reported) |")

    out += ["", "## Per family", ""]
    for family, spec in FAMILIES.items():
        instances = [i for i in results["instances"] if i["family"] == family]
        if not instances:
            continue
        out += [f"### {family} ({spec.size_meaning})", "",
                "| instance | trample | trample_compact | milp_compact | milp_compact_highspy "
                "| milp_highs | cpsat_mono | brute | greedy gap | greedy_value gap |",
                "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
        for inst in instances:
            m = inst["methods"]
            cells = []
            for method in ("trample", "trample_compact", *COMPACT, "milp_highs",
                           "cpsat_mono", "brute"):
                r = m.get(method)
                if r is None or r["status"] == "skipped":
                    cells.append("skipped")
                    continue
                ratio = "" if method == "trample" else f", {r['ratio']:.3g}x"
                gap = f", gap {r['gap']:.1e}" if r["gap"] and r["status"] != "optimal" else ""
                cells.append(f"{seconds(r['median_time'])} {r['status']}{ratio}{gap}")
            for method in ("greedy", "greedy_value"):
                e = m[method]["extra"]
                cells.append(f"{e['gap_percent']:.1f}% {e['gap_term']}" if e.get("gap_term")
                             else "0%")
            out.append(f"| {inst['name']} | " + " | ".join(cells) + " |")
        out.append("")
        census = [i for i in instances if "count" in i["methods"]]
        if census:
            out += ["| instance | count | sample | validate |", "| --- | --- | --- | --- |"]
            for inst in census:
                m = inst["methods"]
                c = m["count"]
                count = f"{seconds(c['median_time'])} ({c['note'] or c['status']})"
                rate = m["sample"]["extra"]["draws_per_second"]
                out.append(f"| {inst['name']} | {count} | {seconds(m['sample']['median_time'])} "
                           f"({m['sample']['note']}, {rate:,.1f}/s) | "
                           f"{seconds(m['validate']['median_time'])} |")
            out.append("")

    out += ["## Correctness", "",
            f"{checks['instances_checked']} instances checked ({checks['comparisons']} "
            f"baseline answers judged legal or not and compared with trample's), "
            f"{checks['tiny_pool_checked']} tiny combats checked against brute force and "
            f"greedy. Failure: {checks['failure'] or 'none'}.", ""]
    findings = checks["findings"]
    out += [f"- {f}" for f in findings] if findings else ["No findings."]
    return "\n".join(out) + "\n"


def plot(results: Results, path: Path) -> None:
    """Median time against size (creatures in combat), log-log, one panel per family."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import NullFormatter

    families = [f for f in FAMILIES if any(i["family"] == f for i in results["instances"])]
    cols = 3
    rows = max(1, math.ceil(len(families) / cols))
    fig, axes = plt.subplots(rows, cols, figsize=(5 * cols, 4 * rows), squeeze=False)
    methods = [*SOLVERS, "count", "sample", "validate"]
    palette = plt.get_cmap("tab10")
    colors = {m: palette(i % 10) for i, m in enumerate(methods)}
    for ax, family in zip(axes.flat, families, strict=False):
        instances = sorted((i for i in results["instances"] if i["family"] == family),
                           key=lambda i: i["size"])
        for method in methods:
            points = [(i["size"], i["methods"][method]) for i in instances
                      if method in i["methods"] and i["methods"][method]["status"] != "skipped"]
            if not points:
                continue
            xs = [p[0] for p in points]
            ys = [p[1]["median_time"] for p in points]
            fit = growth(results, family, method)
            label = method if fit is None else f"{method} (k={fit[0]:.2f})"
            ax.plot(xs, ys, marker="o", label=label, color=colors[method],
                    linestyle="--" if method in ("count", "sample", "validate") else "-")
            stopped = [(x, p["median_time"]) for x, p in points
                       if p["status"] in ("feasible", "unknown")]
            if stopped:
                ax.scatter(*zip(*stopped, strict=True), marker="x", s=80, color="black",
                           zorder=3)
        ax.set_xscale("log")
        ax.set_yscale("log")
        sizes = sorted({i["size"] for i in instances})
        ax.set_xticks(sizes, [str(x) for x in sizes], fontsize=7)
        ax.xaxis.set_minor_formatter(NullFormatter())
        ax.yaxis.set_minor_formatter(NullFormatter())
        ax.set_title(family)
        ax.set_xlabel("creatures in combat")
        ax.set_ylabel("median time (s)")
        ax.grid(True, which="both", alpha=0.3)
        ax.legend(fontsize=7)
    for ax in list(axes.flat)[len(families):]:
        ax.axis("off")
    fig.suptitle("time against size, log-log; k: fitted growth exponent (time ~ size^k) "
                 "over finished runs; x: stopped by the time limit, not proved")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
