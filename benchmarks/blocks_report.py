"""Write a blocks run's results: results.json, summary.md and growth.png."""

from __future__ import annotations

import json
import math
import statistics
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from benchmarks.report import mebibytes, seconds

Results = dict[str, Any]

BLOCK_TARGETS = ((8, 1.0), (12, 10.0))
"""best_block: (N, seconds) the median at N x N should stay under."""
EXHAUSTIVE_N, EXHAUSTIVE_SPEEDUP = 5, 100.0
ATTACK_N, ATTACK_SECONDS = 5, 1.0
THROUGHPUT_TARGET = 5_000.0
"""evaluate_blocks: declarations a second on 3 x 3 boards."""


def write_all(results: Results, out: Path) -> None:
    """Every output file of a run into ``out``."""
    out.mkdir(parents=True, exist_ok=True)
    (out / "results.json").write_text(json.dumps(results, indent=1) + "\n", encoding="utf-8")
    (out / "summary.md").write_text(summary(results), encoding="utf-8")
    plot(results, out / "growth.png")


def _median(values: Iterable[float]) -> float:
    found = [v for v in values if not math.isnan(v)]
    return statistics.median(found) if found else float("nan")


def _groups(rows: Sequence[dict[str, Any]], key: str = "n"
            ) -> list[tuple[str, int, list[dict[str, Any]]]]:
    """Rows grouped by (family, size), families in the order they first appear."""
    order: dict[tuple[str, int], list[dict[str, Any]]] = {}
    for r in rows:
        order.setdefault((r["family"], r[key]), []).append(r)
    families = list(dict.fromkeys(r["family"] for r in rows))
    return [(f, n, order[(f, n)]) for f in families
            for n in sorted(n for g, n in order if g == f)]


def _time_cell(records: Sequence[dict[str, Any]], limit: float) -> str:
    """The median over boards of each board's median time, and how many boards were not
    proved (the time limit answered ``feasible``, or trample refused the board); '> limit'
    when most were not (the median is then the limit, not a time to the proof)."""
    stopped = sum(r["status"] == "feasible" for r in records)
    refused = sum(r["status"] == "refused" for r in records)
    notes = ", ".join(f"{k}/{len(records)} {what}" for k, what in
                      ((stopped, "stopped"), (refused, "refused")) if k)
    if (stopped + refused) * 2 > len(records):
        return f"> {limit:g} s ({notes})"
    median = _median(r["median_time"] for r in records)
    return f"{seconds(median)}" + (f" ({notes})" if notes else "")


def _verdict(ok: bool | None) -> str:
    return "not run" if ok is None else ("met" if ok else "not met")


def _compared(r: dict[str, Any]) -> bool:
    return bool(r["exhaustive"]) and r["exhaustive"]["status"] == "optimal"


def block_table(results: Results) -> list[str]:
    """best_block by family and N, against the exhaustive method where it ran."""
    limit = results["meta"]["config"]["time_limit"]
    out = ["| family | N | boards | legal declarations (median) | best_block | slowest board "
           "| exhaustive | exhaustive / best_block | answers |",
           "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"]
    for family, n, rows in _groups(results["blocks"]):
        bb = [r["best_block"] for r in rows]
        compared = [r for r in rows if _compared(r)]
        exhaustive = [r["exhaustive"] for r in compared]
        ex = seconds(_median(e["median_time"] for e in exhaustive)) if exhaustive else "-"
        others = []
        for status in ("skipped", "refused", "stopped"):
            k = sum(1 for r in rows if r["exhaustive"] and r["exhaustive"]["status"] == status)
            if k:
                others.append(f"{k} {status}")
        if others:
            ex += f" ({', '.join(others)})"
        ratio = f"{_median(e['ratio'] for e in exhaustive):.3g}x" if exhaustive else "-"
        out.append(f"| {family} | {n} | {len(rows)} | "
                   f"{_median(float(r['declarations']) for r in rows):,.0f} | "
                   f"{_time_cell(bb, limit)} | {seconds(max(b['median_time'] for b in bb))} | "
                   f"{ex} | {ratio} | {_answers(compared)} |")
    return out


def _answers(compared: Sequence[dict[str, Any]]) -> str:
    """How best_block's answers compare with the exhaustive method's: proved and equal
    (value, declaration, ties), or not proved and of the same value or worse."""
    if not compared:
        return "-"
    proved = sum(1 for r in compared if r.get("agree"))
    unproved = [r for r in compared if r["best_block"]["status"] != "optimal"]
    same = sum(1 for r in unproved
               if r["best_block"].get("objective") == r["exhaustive"]["objective"])
    parts = [f"{proved}/{len(compared)} proved and equal"] if proved else []
    if unproved:
        parts.append(f"{len(unproved)} not proved: {same} of the least value, "
                     f"{len(unproved) - same} worse")
    return "; ".join(parts)


def slower_than_exhaustive(results: Results) -> list[str]:
    """In words: the boards where best_block took longer than valuing every declaration."""
    compared = [r for r in results["blocks"] if _compared(r)]
    slower = [r for r in compared if r["exhaustive"]["ratio"] < 1]
    if not slower:
        return [f"best_block was faster than the exhaustive method on every one of the "
                f"{len(compared)} boards compared.", ""]
    most = max(r["declarations"] for r in slower)
    unproved = sum(1 for r in slower if r["best_block"]["status"] != "optimal")
    with_requirements = sum(1 for r in slower if "requirements" in r["family"])
    return [f"best_block took longer than the exhaustive method on {len(slower)} of the "
            f"{len(compared)} boards compared, boards of at most {most:,} legal declarations "
            f"({with_requirements} of them with requirements; {unproved} not proved within "
            "the time limit): where few declarations are legal, valuing each with plan is "
            "the quicker way.", ""]


def block_notes(results: Results) -> list[str]:
    """The boards where the exhaustive method ran but gave no reference, and why."""
    out = []
    for r in results["blocks"]:
        e = r["exhaustive"]
        if e and e["status"] in ("refused", "stopped"):
            out.append(f"- {r['family']} {r['n']}x{r['n']} board {r['board']} (seed "
                       f"{r['seed']}, legal declarations: {r['declarations']:,}; best_block "
                       f"{r['best_block']['status']} in {seconds(r['best_block']['median_time'])}"
                       f"): exhaustive {e['status']}, {e['note']}")
    return ["Boards where the exhaustive method gives no reference:", "", *out, ""] \
        if out else []


def attack_table(results: Results) -> list[str]:
    """best_attack by family and N."""
    limit = results["meta"]["config"]["time_limit"]
    out = ["| family | N | boards | best_attack | slowest board | checked against best_block "
           "on every attack |", "| --- | ---: | ---: | ---: | ---: | --- |"]
    for family, n, rows in _groups(results["attacks"]):
        ba = [r["best_attack"] for r in rows]
        checked = sum(1 for r in rows if r.get("checked"))
        out.append(f"| {family} | {n} | {len(rows)} | {_time_cell(ba, limit)} | "
                   f"{seconds(max(b['median_time'] for b in ba))} | "
                   f"{f'{checked}/{len(rows)} equal' if checked else '-'} |")
    return out


def _rate(rows: Sequence[dict[str, Any]], how: str) -> float:
    total = sum(r["declarations"] for r in rows)
    spent = sum(r[how]["median_time"] for r in rows)
    return total / spent if spent > 0 else float("nan")


PROFILE_ROWS = 5
"""Functions shown per figure, by own time and by cumulative time."""


def _function(name: str) -> str:
    """``solver/blocks/search.py:417(_quick)`` as ``search._quick``."""
    where, _, function = name.partition("(")
    module = where.rsplit("/", 1)[-1].split(":")[0].removesuffix(".py")
    return f"{module}.{function.rstrip(')')}" if function else name


def profile_table(results: Results) -> list[str]:
    """Per profiled figure: its call's top functions by own time, and by cumulative time
    below the call itself (those under 95% of it), each with its share of the call."""
    rows = results.get("profiles", [])
    if not rows:
        return ["Not run."]
    out = ["| figure | status | seconds (profiled) | by own time | by cumulative time |",
           "| --- | --- | ---: | --- | --- |"]
    for r in rows:
        own = ", ".join(f"{_function(f['function'])} {f['own_share']:.0%}"
                        for f in r["by_own"][:PROFILE_ROWS])
        below = [f for f in r["by_cumulative"] if f["cumulative_share"] < 0.95]
        cumulative = ", ".join(f"{_function(f['function'])} {f['cumulative_share']:.0%}"
                               for f in below[:PROFILE_ROWS])
        out.append(f"| {r['method']} {r['n']}x{r['n']} ({r['family']} board {r['board']}) | "
                   f"{r['status']} | {r['total']:.2f} | {own} | {cumulative} |")
    return out


def throughput_table(results: Results) -> list[str]:
    """evaluate_blocks: declarations a second on 3 x 3 boards."""
    rows = results["throughput"]
    out = ["| family | boards | legal declarations | all in one call | one a call |",
           "| --- | ---: | ---: | ---: | ---: |"]
    families = list(dict.fromkeys(r["family"] for r in rows))
    for family in [*families, "all"]:
        mine = [r for r in rows if family in ("all", r["family"])]
        out.append(f"| {family} | {len(mine)} | {sum(r['declarations'] for r in mine):,} | "
                   f"{_rate(mine, 'batch'):,.0f}/s | {_rate(mine, 'single'):,.0f}/s |")
    return out


def heuristic_counts(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """How the heuristic fared on some boards: illegal, equal, worse, games and trade lost."""
    proved = [r for r in rows if r["optimum"]["status"] == "optimal"]
    illegal = [r for r in proved if not r["heuristic"]["legal"]]
    legal = [r for r in proved if r["heuristic"]["legal"]]
    worse = [r for r in legal if r["heuristic"]["objective"] != r["optimum"]["objective"]]
    games = [r for r in worse if r["heuristic"]["objective"][0] > r["optimum"]["objective"][0]]
    same_games = [r for r in legal if r["heuristic"]["objective"][0]
                  == r["optimum"]["objective"][0]]
    trade = [r["heuristic"]["objective"][1] - r["optimum"]["objective"][1] for r in same_games]
    lost = [t for t in trade if t > 0]
    rules: dict[str, int] = {}
    for r in illegal:
        for rule in r["heuristic"]["rules"]:
            rules[rule] = rules.get(rule, 0) + 1
    return {"boards": len(rows), "proved": len(proved), "illegal": len(illegal),
            "rules": rules, "legal": len(legal), "equal": len(legal) - len(worse),
            "worse": len(worse), "games_lost": len(games), "trade_lost": len(lost),
            "trade_lost_mean": sum(lost) / len(lost) if lost else 0.0,
            "trade_lost_max": max(lost, default=0),
            "trade_lost_per_board": sum(lost) / len(same_games) if same_games else 0.0,
            "later_terms": len(worse) - len(games) - len(lost)}


def _share(k: int, n: int) -> str:
    return f"{k} ({100 * k / n:.0f}%)" if n else "0"


def heuristic_table(results: Results) -> list[str]:
    """The heuristic's losses by family and N, and over all boards of each family."""
    out = ["| family | N | boards | illegal | legal and optimal | legal and worse | games "
           "lost (losses 0 -> 1) | trade lost: boards, mean, max | worse on a later term "
           "only |", "| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: |"]
    rows = results["heuristic"]
    groups = _groups(rows)
    families = list(dict.fromkeys(r["family"] for r in rows))
    for family, n, mine in [*groups, *((f, 0, [r for r in rows if r["family"] == f])
                                       for f in families)]:
        c = heuristic_counts(mine)
        p = c["proved"]
        rules = ", ".join(f"{rule}: {k}" for rule, k in sorted(c["rules"].items()))
        illegal = _share(c["illegal"], p) + (f" ({rules})" if rules else "")
        trade = (f"{c['trade_lost']}, {c['trade_lost_mean']:.1f}, {c['trade_lost_max']}"
                 if c["trade_lost"] else "0")
        size = "all" if n == 0 else str(n)
        unproved = f" ({c['boards'] - p} not proved, left out)" if p < c["boards"] else ""
        out.append(f"| {family} | {size} | {p}{unproved} | {illegal} | "
                   f"{_share(c['equal'], p)} | {_share(c['worse'], p)} | "
                   f"{_share(c['games_lost'], p)} | {trade} | {c['later_terms']} |")
    return out


def _count_cell(r: dict[str, Any] | None) -> str:
    if r is None:
        return "-"
    if r["status"] == "refused":
        return f"refused after {seconds(r['median_time'])}: {r['message']}"
    what = f"{r['digits']} digits" if r["method"] == "count_blocks" else \
        f"{r['choices']} choices, {r['digits']}-digit total"
    return f"{seconds(r['median_time'])} ({what})"


def count_table(results: Results) -> list[str]:
    """count_blocks and block_options by family and N; the largest N that answered."""
    rows = results["counts"]
    out = ["| family | N | count_blocks | block_options (first blocker, nothing fixed) |",
           "| --- | ---: | --- | --- |"]
    for family, n, mine in _groups(rows):
        by = {r["method"]: r for r in mine}
        out.append(f"| {family} | {n} | {_count_cell(by.get('count_blocks'))} | "
                   f"{_count_cell(by.get('block_options'))} |")
    out += ["", "| family | largest N counted | smallest N refused |", "| --- | ---: | ---: |"]
    for family in dict.fromkeys(r["family"] for r in rows):
        mine = [r for r in rows if r["family"] == family and r["method"] == "count_blocks"]
        exact = [r["n"] for r in mine if r["status"] == "exact"]
        refused = [r["n"] for r in mine if r["status"] == "refused"]
        out.append(f"| {family} | {max(exact, default='-')} | "
                   f"{min(refused) if refused else 'none of the sizes run'} |")
    return out


def memory_table(results: Results) -> list[str]:
    """The most resident memory one call added, per family and method, over the run."""
    methods: list[tuple[str, str, str]] = [
        ("best_block", "blocks", "best_block"), ("exhaustive", "blocks", "exhaustive"),
        ("best_attack", "attacks", "best_attack"),
        ("evaluate_blocks", "throughput", "batch"),
        ("count_blocks", "counts", "count_blocks"),
        ("block_options", "counts", "block_options")]
    families = list(dict.fromkeys(r["family"] for part in ("blocks", "attacks", "throughput",
                                                           "counts") for r in results[part]))
    out = ["| family | " + " | ".join(m for m, _, _ in methods) + " |",
           "| --- |" + " ---: |" * len(methods)]
    for family in families:
        cells = []
        for _, part, key in methods:
            peaks = []
            for r in results[part]:
                if r["family"] != family:
                    continue
                m = r if part == "counts" else r.get(key)
                if part == "counts" and r["method"] != key:
                    continue
                if m and m.get("peak_memory") is not None:
                    peaks.append(m["peak_memory"])
            cells.append(mebibytes(max(peaks)) if peaks else "-")
        out.append(f"| {family} | " + " | ".join(cells) + " |")
    return out


def targets(results: Results) -> list[str]:
    """The targets of the issue, measured (reported, not required)."""
    out = ["| target | measured | verdict |", "| --- | --- | --- |"]
    blocks = results["blocks"]
    for n, limit in BLOCK_TARGETS:
        rows = [r["best_block"] for r in blocks if r["n"] == n]
        if not rows:
            out.append(f"| best_block {n}x{n} < {limit:g} s (median) | not run | - |")
            continue
        median = _median(r["median_time"] for r in rows)
        stopped = sum(r["status"] != "optimal" for r in rows)
        shown = f"> {results['meta']['config']['time_limit']:g} s" if stopped * 2 > len(rows) \
            else seconds(median)
        out.append(f"| best_block {n}x{n} < {limit:g} s (median) | {shown} over {len(rows)} "
                   f"boards of every family ({stopped} stopped by the time limit) | "
                   f"{_verdict(median < limit and stopped * 2 <= len(rows))} |")
    ratios = [r["exhaustive"]["ratio"] for r in blocks if r["n"] == EXHAUSTIVE_N
              and r["exhaustive"] and r["exhaustive"]["status"] == "optimal"]
    ratio = _median(ratios)
    out.append(f"| best_block {EXHAUSTIVE_N}x{EXHAUSTIVE_N} >= {EXHAUSTIVE_SPEEDUP:g}x faster "
               f"than exhaustive | " + (f"{ratio:.3g}x (median over {len(ratios)} boards)"
                                        if ratios else "not run") +
               f" | {_verdict(ratio >= EXHAUSTIVE_SPEEDUP if ratios else None)} |")
    attacks = [r["best_attack"] for r in results["attacks"] if r["n"] == ATTACK_N]
    if attacks:
        median = _median(r["median_time"] for r in attacks)
        stopped = sum(r["status"] != "optimal" for r in attacks)
        out.append(f"| best_attack {ATTACK_N}x{ATTACK_N} < {ATTACK_SECONDS:g} s (median) | "
                   f"{seconds(median)} over {len(attacks)} boards ({stopped} stopped) | "
                   f"{_verdict(median < ATTACK_SECONDS and not stopped)} |")
    else:
        out.append(f"| best_attack {ATTACK_N}x{ATTACK_N} < {ATTACK_SECONDS:g} s | not run | - |")
    rows = results["throughput"]
    rate = _rate(rows, "batch") if rows else float("nan")
    out.append(f"| evaluate_blocks >= {THROUGHPUT_TARGET:,.0f} declarations/s on 3x3 | " +
               (f"{rate:,.0f}/s in one call a board ({_rate(rows, 'single'):,.0f}/s one a "
                "call)" if rows else "not run") +
               f" | {_verdict(rate >= THROUGHPUT_TARGET if rows else None)} |")
    return out


def summary(results: Results) -> str:
    """summary.md: every table of the run, with what each figure is."""
    meta = results["meta"]
    cfg = meta["config"]
    checks = results["checks"]
    out = [
        "# Blocks and attacks (SPEC §11): benchmark summary", "",
        f"`{meta['command']}`, {meta['date']}, {meta['cpus']} CPUs (shared, noisy), trample "
        f"{meta['trample']} ({meta['trample_build']}), Python {meta['python']}, wall time "
        f"{meta['wall_time']:.0f} s. Timing: {meta['timing']}. Time limit of each "
        f"best_block / best_attack call: {cfg['time_limit']:g} s.", "",
        "Boards: N attackers against N blockers (benchmarks/boards.py), power and toughness "
        "1-6, values 1-5, life 5-20, trample, deathtouch, first and double strike, flying, "
        "reach, lifelink; `menace` families give attackers menace, `requirements` families "
        "give `must_block`, `lure`, `must_be_blocked`. Every (family, N) has its own seeded "
        "boards. Objective: SPEC §11's default, "
        f"{', '.join(results['terms'])} (lexicographic; the attackers' side: a defender's "
        "block is better when smaller).", "",
        "## Targets (reported, not required)", "", *targets(results), "",
        "## best_block against the exhaustive method", "",
        "best_block: `api.best_block(board, time_limit)`, the median over the boards of each "
        "board's median time (\"stopped\": the time limit answered `feasible`). Exhaustive: "
        "`api.enumerate_blocks` then `api.plan` on the combat each legal declaration makes, "
        f"the least value kept; run where a board has at most {cfg['exhaustive_max']:,} "
        f"legal declarations, for at most {cfg.get('exhaustive_budget', math.inf):g} s a "
        "run (\"refused\": plan refused or did not prove a declaration). Exhaustive / "
        "best_block: the median over boards of the ratio of "
        "their times on the same board. Answers, on the boards compared: best_block proved "
        "its answer and the value, the declaration (the first of least value in declaration "
        "order) and `ties` are equal (any "
        "difference stops the run; a best_block stopped by its time limit must not be below the "
        "least value).", "", *block_table(results), "", *slower_than_exhaustive(results),
        *block_notes(results),
        "## best_attack", "",
        "`api.best_attack` on the same armies before attacks are declared. Checked: the "
        "largest value over every attack declaration, each valued by `api.best_block`, and "
        "the first attack of that value, equal to best_attack's.", "",
        *attack_table(results), "",
        "## evaluate_blocks throughput (3 x 3)", "",
        "Every legal declaration of a board (`api.enumerate_blocks`) valued by "
        "`api.evaluate_blocks`: all of them in one call (a search loop's batch), and one "
        "declaration a call; declarations per second = declarations over the sum of the "
        "boards' median times.", "", *throughput_table(results), "",
        "## The heuristic, measured", "",
        "benchmarks/block_heuristic.py blocks as Forge's AiBlockController does (good "
        "blocks, trades and chumps only when the attack is lethal, gangs of up to three that "
        "kill the attacker, menace by a second blocker or no block, requirements last). Its "
        "declaration is judged and valued by `api.evaluate_blocks` and compared with "
        "best_block's proved optimum on the same board. Illegal: evaluate_blocks refuses it "
        "(509.1b restrictions, 509.1c requirements). Games lost: the heuristic's block loses "
        "the game (losses 1) where the optimum does not. Trade lost: on boards where both "
        "lose or both survive, the heuristic's `trade` (value of the defender's dead "
        "creatures minus the attacker's) above the optimum's: how many boards, the mean and "
        "largest loss. Worse on a later term: equal losses and trade, worse on poison, "
        "life loss, lifelink (the later terms).", "", *heuristic_table(results), "",
        "## count_blocks and block_options: how far they reach", "",
        "One board a (family, N). count_blocks: the number of legal declarations (its "
        "digits); block_options: the choices of the first blocker with nothing fixed and "
        "the sum of their completions (checked equal to the count). A refusal is shown with "
        "its message.", "", *count_table(results), "",
        "## What limits each figure", "",
        "One call of each figure's method under cProfile (benchmarks/search_loop.py's "
        "`profile`; the profiler slows the call, the shares stay): the functions of trample "
        "and the libraries it calls that take most of the call's time, by their own time and "
        "by their cumulative time (below 95% of the call: the calls inside it). Time limit "
        "as above.", "", *profile_table(results), "",
        "## Peak memory", "",
        f"The most resident memory one call added ({meta['memory']}), over every board of "
        "the family.", "", *memory_table(results), "",
        "## Correctness", "",
        f"{checks['exhaustive_compared']} boards where best_block equals the exhaustive "
        f"method (value, declaration, ties); {checks['attacks_checked']} boards where "
        f"best_attack equals best_block over every attack; {checks['heuristic_judged']} "
        "heuristic declarations judged by evaluate_blocks (none of them below the proved "
        f"optimum). Failure: {checks['failure'] or 'none'}.", ""]
    return "\n".join(out)


def plot(results: Results, path: Path) -> None:
    """Median time against N, log scale: best_block and the exhaustive method, best_attack,
    count_blocks and block_options, one line per family; and best_block's and the
    exhaustive method's time on each board against its number of legal declarations."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.ticker import MaxNLocator

    limit = results["meta"]["config"]["time_limit"]
    panels: list[tuple[str, list[tuple[str, str, str]]]] = [
        ("best_block (solid) and exhaustive (dashed)",
         [("blocks", "best_block", "-"), ("blocks", "exhaustive", "--")]),
        ("best_attack", [("attacks", "best_attack", "-")]),
        ("count_blocks (solid) and block_options (dashed)",
         [("counts", "count_blocks", "-"), ("counts", "block_options", "--")])]
    fig, axes = plt.subplots(1, len(panels) + 1, figsize=(21, 5), squeeze=False)
    palette = plt.get_cmap("tab10")
    families = list(dict.fromkeys(r["family"] for part in ("blocks", "attacks", "counts")
                                  for r in results[part]))
    colors = {f: palette(i % 10) for i, f in enumerate(families)}
    for ax, (title, lines) in zip(axes.flat, panels, strict=False):
        drawn = False
        for part, method, style in lines:
            for family, points, stopped in _series(results[part], method):
                if not points:
                    continue
                ax.plot(*zip(*points, strict=True), marker="o", linestyle=style,
                        color=colors[family], label=f"{family} {method}")
                if stopped:
                    ax.scatter(*zip(*stopped, strict=True), marker="x", s=80, color="black",
                               zorder=3)
                drawn = True
        ax.set_yscale("log")
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
        ax.set_title(title, fontsize=10)
        ax.set_xlabel("N (N attackers x N blockers)")
        ax.set_ylabel("median time (s)")
        ax.grid(True, which="both", alpha=0.3)
        if drawn:
            ax.legend(fontsize=6)
    _by_declarations(axes.flat[len(panels)], results, colors)
    fig.suptitle(f"SPEC §11 on random armies, log scale; x: stopped by the time limit "
                 f"({limit:g} s) or refused", fontsize=10)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def _by_declarations(ax: Any, results: Results, colors: dict[str, Any]) -> None:
    """Each board of the blocks part: time against its legal declarations, log-log."""
    for family in colors:
        rows = [r for r in results["blocks"] if r["family"] == family]
        for method, marker in (("best_block", "o"), ("exhaustive", "^")):
            points = [(r["declarations"], r[method]["median_time"]) for r in rows
                      if r.get(method) and r[method]["status"] in ("optimal", "feasible")]
            if points:
                ax.scatter(*zip(*points, strict=True), marker=marker, s=18,
                           color=colors[family], alpha=0.7, label=f"{family} {method}")
        stopped = [(r["declarations"], r["best_block"]["median_time"]) for r in rows
                   if r["best_block"]["status"] != "optimal"]
        if stopped:
            ax.scatter(*zip(*stopped, strict=True), marker="x", s=60, color="black",
                       zorder=3)
    ax.set_xscale("log")
    ax.set_yscale("log")
    ax.set_title("each board: best_block (o), exhaustive (^)", fontsize=10)
    ax.set_xlabel("legal declarations of the board")
    ax.set_ylabel("median time (s)")
    ax.grid(True, which="both", alpha=0.3)
    ax.legend(fontsize=6)


def _series(rows: Sequence[dict[str, Any]], method: str
            ) -> list[tuple[str, list[tuple[int, float]], list[tuple[int, float]]]]:
    """Per family: (N, median over boards) points, and the points stopped or refused."""
    out = []
    for family in dict.fromkeys(r["family"] for r in rows):
        points, stopped = [], []
        by_n: dict[int, list[dict[str, Any]]] = {}
        for r in rows:
            if r["family"] != family:
                continue
            m = r if "method" in r else r.get(method)
            if "method" in r and r["method"] != method:
                continue
            if not m or "median_time" not in m or m.get("status") == "skipped" \
                    or (method == "exhaustive" and m["status"] != "optimal"):
                continue  # an exhaustive run that gave no answer has no time to show
            by_n.setdefault(r["n"], []).append(m)
        for n in sorted(by_n):
            point = (n, _median(m["median_time"] for m in by_n[n]))
            points.append(point)
            if any(m["status"] not in ("optimal", "exact") for m in by_n[n]):
                stopped.append(point)
        out.append((family, points, stopped))
    return out


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m benchmarks.blocks_report DIR``: write summary.md and growth.png again
    from DIR/results.json (after a change to the report, without running again)."""
    import argparse

    parser = argparse.ArgumentParser(prog="python -m benchmarks.blocks_report",
                                     description=main.__doc__)
    parser.add_argument("folder", type=Path, help="a folder with results.json")
    args = parser.parse_args(argv)
    source = args.folder / "results.json"
    try:
        results = json.loads(source.read_text(encoding="utf-8"))
    except (OSError, ValueError) as exc:
        parser.error(f"{source}: {exc}")
    (args.folder / "summary.md").write_text(summary(results), encoding="utf-8")
    plot(results, args.folder / "growth.png")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
