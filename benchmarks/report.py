"""Write a run's results: results.json, results.md, summary.md and time_vs_size.png."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import Any

from benchmarks.runner import FAMILIES

SOLVERS = ("trample", "cpsat_mono", "milp_highs", "brute", "greedy", "greedy_value")
SPEED_TARGETS = (
    ("gang", "gang-N1000", 50.0),
    ("armies", "armies-A500-B2000", 20.0),
    ("shared5", "shared5-A100-B300", 10.0),
)
SHARED30_TARGET = "shared30-A100-B300"
TINY_TARGETS = {"in_process": 5000.0, "serve": 2000.0}

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
        f"baseline time limit {meta['time_limit']:g} s, CP-SAT baseline with "
        f"{meta['cpsat_workers']} workers; median of up to {meta['repeat']} runs. "
        f"Objective: {', '.join(results['terms'])} (lexicographic, first term first). "
        "Ratio: the method's median time over trample's, same instance, same run.", "",
        "| instance | method | median time | runs | status | objective | ratio to trample "
        "| note |",
        "| --- | --- | ---: | ---: | --- | --- | ---: | --- |",
    ]
    for inst in results["instances"]:
        for name, m in inst["methods"].items():
            note = m["note"]
            if "gap_percent" in m["extra"] and m["extra"]["gap_term"]:
                note = f"gap {m['extra']['gap_percent']:.1f}% on {m['extra']['gap_term']}"
            if m["gap"] is not None and m["status"] != "optimal":
                note = (note + "; " if note else "") + f"solver gap {m['gap']:.2e}"
            if "gaps_at" in m["extra"]:
                gaps = ", ".join(f"{t} s: {_gap(g)}" for t, g in m["extra"]["gaps_at"].items())
                note = (note + "; " if note else "") + f"gap at {gaps}"
            ratio = "-" if m["ratio"] is None else f"{m['ratio']:.3g}x"
            lines.append(f"| {inst['name']} | {name} | {seconds(m['median_time'])} | "
                         f"{len(m['times'])} | {m['status']} | {short(m['objective'])} | "
                         f"{ratio} | {note} |")
    tp = results.get("throughput")
    if tp:
        lines += ["", "## Tiny combats: throughput", "",
                  f"{tp['pool']} distinct tiny combats (one attacker, one to three blockers), "
                  f"each checked against brute force and greedy ({tp['pool_checked']} checked); "
                  f"{tp['pool_over_small_group']} of them have more than 64 legal assignments "
                  "(trample's CP-SAT path, the others are solved by inspection).",
                  "", "| how | solves | median time | solves per second |",
                  "| --- | ---: | ---: | ---: |"]
        for how in ("in_process", "serve"):
            t = tp[how]
            n = t.get("solves", t.get("requests"))
            lines.append(f"| {how.replace('_', '-')} | {n:,} | {seconds(t['median_time'])} | "
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


def _speed_row(results: Results, family: str, name: str, target: float) -> str:
    inst = _instance(results, name)
    where = name
    if inst is None:
        inst = _largest(results, family)
        if inst is None:
            return f"| {family} | {target:g}x faster than monolithic CP-SAT | not run | - |"
        where = f"{inst['name']} (target size {name} not in this run)"
    t, c = inst["methods"]["trample"], inst["methods"]["cpsat_mono"]
    speedup = c["median_time"] / t["median_time"]
    bound = c["status"] != "optimal"
    measured = (f"{where}: trample {seconds(t['median_time'])} ({t['status']}), monolithic "
                f"CP-SAT {seconds(c['median_time'])} ({c['status']}): "
                f"{'≥ ' if bound else ''}{speedup:.3g}x")
    if t["status"] != "optimal":
        verdict = "not met (trample did not prove optimality)"
    else:
        verdict = _verdict(speedup, target, bound)
    return f"| {family} | proved optimum {target:g}x faster than monolithic CP-SAT | " \
           f"{measured} | {verdict} |"


def _shared30_row(results: Results) -> str:
    inst = _instance(results, SHARED30_TARGET)
    where = SHARED30_TARGET
    if inst is None:
        inst = _largest(results, "shared30")
        if inst is None:
            return "| shared30 | proved optimum where monolithic CP-SAT has none | not run | - |"
        where = f"{inst['name']} (target size not in this run)"
    t, c = inst["methods"]["trample"], inst["methods"]["cpsat_mono"]
    gaps = c["extra"].get("gaps_at", {})
    gap_text = ", ".join(f"{k} s: {_gap(g)}" for k, g in gaps.items())
    measured = (f"{where}: trample {seconds(t['median_time'])} ({t['status']}); monolithic "
                f"CP-SAT {c['status']} in {seconds(c['median_time'])}, gap at {gap_text}")
    if t["status"] != "optimal":
        verdict = "not met (trample did not prove optimality)"
    elif c["status"] == "optimal":
        ratio = c["median_time"] / t["median_time"]
        verdict = f"not met (monolithic CP-SAT proved it too, {ratio:.2g}x trample's time)"
    else:
        verdict = "met"
    return f"| shared30 | proved optimum where monolithic CP-SAT has none after " \
           f"{results['meta']['time_limit']:g} s | {measured} | {verdict} |"


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
        f"wall time {_wall(meta['wall_time'])}. Times are medians of up to "
        f"{meta['repeat']} runs in this run; speed-ups are ratios measured in the same run. "
        f"Timing: {meta['timing']}. The targets are reported here, not required.", "",
        "Methods: **trample** (`trample.solver.api.solve`, end to end, time limit "
        f"{meta['trample_time_limit']:g} s); **cpsat_mono**: one CP-SAT model of the whole "
        f"combat (no decomposition, no fast paths, {meta['cpsat_workers']} workers, limit "
        f"{meta['time_limit']:g} s), the lexicographic objective as one weighted sum "
        "(mixed-radix weights from each term's bounds); **milp_highs**: the same model as a "
        "MILP (big-M) in SciPy's HiGHS, same limit; **greedy** / **greedy_value**: "
        "`trample.solver.greedy` in declaration order / blockers by value; **brute**: every "
        "legal assignment, when at most 20,000.", "",
        "Gap of a solver at its limit: |bound - objective| / max(1, |objective|) on the "
        "weighted objective. Greedy gap: the lexicographic objectives are compared term by "
        "term; the gap is the shortfall on the first term that differs, in percent of "
        "trample's value of that term.", "",
        "## Targets", "",
        "| family | target | measured | verdict |", "| --- | --- | --- | --- |",
    ]
    for family, name, target in SPEED_TARGETS:
        out.append(_speed_row(results, family, name, target))
    out.append(_shared30_row(results))
    tp = results.get("throughput")
    for how, target in TINY_TARGETS.items():
        label = "in-process" if how == "in_process" else "through `serve`"
        if not tp:
            out.append(f"| tiny | ≥ {target:,.0f} solves/s {label} | not run | - |")
            continue
        rate = tp[how]["per_second"]
        n = tp[how].get("solves", tp[how].get("requests"))
        out.append(f"| tiny | ≥ {target:,.0f} solves/s {label} | {rate:,.0f} solves/s "
                   f"({n:,} solves over {tp['pool']} combats, {tp['pool_over_small_group']} "
                   f"of which need CP-SAT) | {_verdict(rate, target)} |")
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
                "| instance | trample | cpsat_mono | milp_highs | brute | greedy gap | "
                "greedy_value gap |", "| --- | --- | --- | --- | --- | --- | --- |"]
        for inst in instances:
            m = inst["methods"]
            cells = []
            for method in ("trample", "cpsat_mono", "milp_highs", "brute"):
                r = m[method]
                if r["status"] == "skipped":
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
            ax.plot(xs, ys, marker="o", label=method, color=colors[method],
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
    fig.suptitle("time against size (x: stopped by the time limit, not proved)")
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
