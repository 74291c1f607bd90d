"""The benchmark suite: its generators, its checker, and a quick run end to end.

No timing is asserted anywhere: the machines are shared and noisy.
"""

from __future__ import annotations

import gc
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # benchmarks/ is not installed: import it from the checkout
    sys.path.insert(0, str(ROOT))

from benchmarks import generators  # noqa: E402
from benchmarks.__main__ import main  # noqa: E402
from benchmarks.checks import MethodResult, Mismatch, check, lexicographic_gap  # noqa: E402
from benchmarks.runner import FAMILIES  # noqa: E402
from trample.models.document.combat import Combat  # noqa: E402
from trample.solver.interface import api  # noqa: E402
from trample.solver.optimize.greedy import greedy  # noqa: E402
from trample.solver.rules.assignment import to_entries  # noqa: E402
from trample.solver.rules.choosers import moved_choices  # noqa: E402
from trample.solver.rules.legal_space import legal_space  # noqa: E402

# -- generators ---------------------------------------------------------------------------

CASES: list[tuple[str, Any]] = [
    ("gang", lambda seed: generators.gang_block(300, seed)),
    ("armies", lambda seed: generators.token_army(50, 200, seed)),
    ("shared5", lambda seed: generators.shared_blockers(100, 300, 0.05, seed)),
    ("shared30", lambda seed: generators.shared_blockers(100, 300, 0.30, seed)),
    ("pileup", lambda seed: generators.planeswalker_pileup(200, seed)),
    ("tokens", lambda seed: generators.token_swarm(30, 90, 0.30, seed)),
    ("tiny", lambda seed: generators.tiny(3, seed)),
    ("widegang", lambda seed: generators.wide_gang(300, seed)),
    ("ranks", lambda seed: generators.split_ranks(20, seed)),
    ("banded", lambda seed: generators.banded(30, seed)),
]


@pytest.mark.parametrize(("family", "make"), CASES, ids=[c[0] for c in CASES])
def test_generated_documents_are_valid_and_reproducible(family: str, make: Any) -> None:
    for seed in (0, 1, 2):
        doc = make(seed)
        Combat.from_json(doc)  # refuses an invalid document (509.1a, ids, fields)
        assert json.dumps(doc) == json.dumps(make(seed)), "same seed, same document"
    assert make(0) != make(1)


def test_banded_combats_move_splits_both_ways(capsys: pytest.CaptureFixture[str]) -> None:
    """The banded family has bands (702.22c-d, a block on one member on all, 702.22h) and
    splits each side chooses for the other (702.22j-k); its benchmark answers both sides."""
    doc = generators.banded(30, 1)
    combat = Combat.from_json(doc)
    reasons = set(moved_choices(combat).values())
    assert {"702.22j", "702.22k"} <= reasons
    for blocker in combat.blockers:
        band = {a for a in blocker.blocking}
        assert len({combat.creature(a).attacking for a in band}) == 1
    from benchmarks import banding

    banding.main(["--sizes", "6", "--repeat", "1"])
    rows = [line for line in capsys.readouterr().out.splitlines() if "banded-A6" in line]
    assert [r.split(" | ")[1] for r in rows] == ["attackers", "blockers"]
    assert all(" optimal " in r for r in rows)


def _blockers(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in doc["creatures"] if c.get("blocking")]


def _attackers(doc: dict[str, Any]) -> list[dict[str, Any]]:
    return [c for c in doc["creatures"] if "attacking" in c]


@pytest.mark.parametrize("n", [10, 2000])
def test_gang_block_sizes(n: int) -> None:
    doc = generators.gang_block(n, 7)
    (attacker,) = _attackers(doc)
    blockers = _blockers(doc)
    assert len(blockers) == n and all(b["blocking"] == ["a0"] for b in blockers)
    assert n <= attacker["power"] <= 3 * n and attacker["keywords"] == ["Trample"]
    if n >= 100:
        assert any(b.get("damage") for b in blockers), "some damage marked"
        assert len({b["value"] for b in blockers}) > 3, "varied values"
        assert len({b["toughness"] for b in blockers}) > 2, "mixed toughness"


def test_wide_gang_is_a_tight_knapsack() -> None:
    doc = generators.wide_gang(1000, 5)
    (attacker,) = _attackers(doc)
    blockers = _blockers(doc)
    assert len(blockers) == 1000 and attacker["power"] == 3000
    assert {b["toughness"] for b in blockers} == set(range(1, 7))
    assert {b["value"] for b in blockers} == set(range(1, 10))
    # Killing them all costs more than the power: the kills are a real choice.
    assert sum(b["toughness"] for b in blockers) > attacker["power"]


def test_split_ranks_parts() -> None:
    doc = generators.split_ranks(40, 2)
    attackers, blockers = _attackers(doc), _blockers(doc)
    assert len(attackers) == 40 and len(doc["players"]) == 21
    per = Counter(b["blocking"][0] for b in blockers)
    assert set(per) == {a["id"] for a in attackers} and set(per.values()) <= set(range(2, 7))
    assert all("Trample" in a["keywords"] for a in attackers)
    space = legal_space(Combat.from_json(doc), "attackers")
    assert len(space.parts) == 40, "every attacker with its own blockers is its own part"


def test_token_army_sizes() -> None:
    doc = generators.token_army(500, 2000, 3)
    attackers, blockers = _attackers(doc), _blockers(doc)
    assert (len(attackers), len(blockers)) == (500, 2000)
    assert all(len(b["blocking"]) == 1 for b in blockers)
    blocked = {b["blocking"][0] for b in blockers}
    assert 0 < len(attackers) - len(blocked) < 500, "some attackers unblocked"
    keywords = Counter(k for a in attackers for k in a.get("keywords", []))
    assert 0 < keywords["Trample"] < 500 and keywords["Deathtouch"] > 0


@pytest.mark.parametrize("share", [0.05, 0.30])
def test_shared_blockers_share(share: float) -> None:
    doc = generators.shared_blockers(100, 300, share, 5)
    blockers = _blockers(doc)
    assert len(_attackers(doc)) == 100 and len(blockers) == 300
    multi = [b for b in blockers if len(b["blocking"]) > 1]
    assert len(multi) == round(share * 300)
    assert all(len(b["blocking"]) in (2, 3) for b in multi)
    # 509.1a: every attacker a blocker blocks attacks that blocker's controller.
    target = {a["id"]: a["attacking"] for a in _attackers(doc)}
    assert all(target[a] == b["controller"] for b in blockers for a in b["blocking"])


def test_token_swarm_is_tokens_many_interchangeable() -> None:
    from trample.solver.optimize.cpsat import identical_creatures

    doc = generators.token_swarm(30, 90, 0.30, 4)
    blockers = _blockers(doc)
    assert len(_attackers(doc)) == 30 and len(blockers) == 90
    assert {(b["power"], b["toughness"]) for b in blockers} == set(generators.TOKENS)
    assert sum(len(b["blocking"]) > 1 for b in blockers) == 27
    target = {a["id"]: a["attacking"] for a in _attackers(doc)}
    assert all(target[a] == b["controller"] for b in blockers for a in b["blocking"])
    space = legal_space(Combat.from_json(doc), "attackers")
    alike = [members for part in space.parts
             for _, members in identical_creatures(space, part.sources)]
    assert sum(len(members) - 1 for members in alike) >= 10


def test_planeswalker_pileup_mix() -> None:
    doc = generators.planeswalker_pileup(200, 11)
    attackers = _attackers(doc)
    assert len(attackers) == 200 and len(doc["planeswalkers"]) == 4
    walkers = {w["id"] for w in doc["planeswalkers"]}
    on_walkers = [a for a in attackers if a["attacking"] in walkers]
    assert len(on_walkers) > 100
    assert sum("Trample over planeswalkers" in a.get("keywords", []) for a in on_walkers) > 50
    blocked = {x for b in _blockers(doc) for x in b["blocking"]}
    assert 0 < len(blocked) < 200, "blocked and unblocked attackers"


@pytest.mark.parametrize("k", [1, 2, 3])
def test_tiny_sizes(k: int) -> None:
    doc = generators.tiny(k, 0)
    assert len(_attackers(doc)) == 1 and len(_blockers(doc)) == k


# -- the checker --------------------------------------------------------------------------

def _result(method: str, status: str, objective: tuple[int, ...],
            legal: bool = True) -> MethodResult:
    return MethodResult(method, [0.0], status, objective, legal)


def test_check_stops_when_a_baseline_beats_a_proved_trample() -> None:
    trample = _result("trample", "optimal", (0, 5, 0))
    with pytest.raises(Mismatch, match=r"gang-N7.*trample.*cpsat_mono"):
        check("gang-N7", trample, [_result("cpsat_mono", "feasible", (0, 6, 0))])
    with pytest.raises(Mismatch, match="brute"):
        check("gang-N7", trample, [_result("brute", "optimal", (0, 4, 9))])
    with pytest.raises(Mismatch, match="greedy"):
        check("gang-N7", trample, [_result("greedy", "illegal", (1, 0, 0), legal=False)])
    with pytest.raises(Mismatch, match="trample"):
        check("gang-N7", _result("trample", "optimal", (0, 5, 0), legal=False), [])


def test_check_reports_without_stopping() -> None:
    # A feasible (not proved) trample below a baseline, and an illegal MILP answer, are
    # findings to report, not failures.
    found = check("x", _result("trample", "feasible", (0, 5, 0)),
                  [_result("milp_highs", "optimal", (0, 6, 0)),
                   _result("cpsat_mono", "illegal", (9, 9, 9), legal=False),
                   _result("greedy", "heuristic", (0, 4, 0))])
    assert len(found) == 2 and "milp_highs" in found[0] and "illegal" in found[1]
    assert check("x", _result("trample", "optimal", (0, 5, 0)),
                 [_result("greedy", "heuristic", (0, 4, 7)),
                  _result("cpsat_mono", "optimal", (0, 5, 0))]) == []


def test_lexicographic_gap_is_on_the_first_differing_term() -> None:
    terms = ("lethal", "kills", "player_damage")
    assert lexicographic_gap((0, 200, 5), (0, 150, 9), terms) == ("kills", 25.0)
    assert lexicographic_gap((1, 0, 0), (1, 0, 0), terms) is None


def test_runner_exits_1_on_a_planted_mismatch(monkeypatch: pytest.MonkeyPatch,
                                              tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    # trample "proves" the greedy split optimal: the monolithic model must catch it.
    def planted(doc: dict[str, Any], **_: Any) -> dict[str, Any]:
        space = legal_space(Combat.from_json(doc), "attackers")
        return {"status": "optimal", "assignment": to_entries(space, greedy(space))}

    monkeypatch.setattr(api, "solve", planted)
    status = main(["--quick", "--family", "gang", "--sizes", "50", "--out", str(tmp_path)])
    assert status == 1
    err = capsys.readouterr().err
    assert "correctness check failed" in err and "gang-N50" in err and "trample" in err
    assert json.loads((tmp_path / "results.json").read_text())["checks"]["failure"]


# -- the quick run end to end -------------------------------------------------------------

QuickRun = tuple[subprocess.CompletedProcess[str], Path, dict[str, bytes]]


@pytest.fixture(scope="module")
def quick_run(tmp_path_factory: pytest.TempPathFactory) -> QuickRun:
    """``python -m benchmarks --quick`` as docs/development.md gives it (no ``--out``), its
    temporary folder a new one of the test's: the run, that folder, and the committed
    results as they were before it."""
    import os

    before = _results_state()
    scratch = tmp_path_factory.mktemp("scratch")
    run = subprocess.run([sys.executable, "-m", "benchmarks", "--quick"], cwd=ROOT,
                         capture_output=True, text=True, timeout=600,
                         env={**os.environ, "TMPDIR": str(scratch)})
    return run, scratch, before


def test_quick_run(quick_run: QuickRun) -> None:
    run, scratch, _ = quick_run
    assert run.returncode == 0, run.stderr[-3000:]
    made = [p for p in scratch.iterdir() if p.name.startswith("trample-benchmarks-")]
    assert len(made) == 1
    out = made[0]
    results = json.loads((out / "results.json").read_text(encoding="utf-8"))
    assert {i["family"] for i in results["instances"]} == set(FAMILIES)
    checks = results["checks"]
    assert checks["failure"] is None
    assert checks["instances_checked"] == len(results["instances"]) > 0
    assert checks["comparisons"] >= 4 * checks["instances_checked"]
    assert checks["tiny_pool_checked"] > 0
    for inst in results["instances"]:
        methods = inst["methods"]
        assert {"trample", "greedy", "greedy_value", "cpsat_mono", "milp_highs",
                "brute", "trample_compact", "milp_compact", "milp_compact_highspy"} \
            <= set(methods)
        assert methods["trample"]["legal"] is True and methods["trample"]["times"]
    throughput = results["throughput"]
    assert throughput["in_process"]["per_second"] > 0 and throughput["serve"]["per_second"] > 0
    assert throughput["serve"]["exit_status"] == 0
    table = (out / "results.md").read_text(encoding="utf-8")
    assert "| instance | method | median time |" in table and "gang-N10" in table
    summary = (out / "summary.md").read_text(encoding="utf-8")
    assert "## trample against HiGHS and CP-SAT" in summary and "| HiGHS / trample |" in summary
    assert "| compact MILP / trample |" in summary
    assert "## Growth" in summary and "## Peak memory" in summary
    for inst in results["instances"]:
        assert all(m["peak_memory"] is not None and m["peak_memory"] >= 0
                   for m in inst["methods"].values())
    png = (out / "time_vs_size.png").read_bytes()
    assert png.startswith(b"\x89PNG\r\n\x1a\n")
    import matplotlib.image

    assert matplotlib.image.imread(out / "time_vs_size.png").ndim == 3


# -- the report ------------------------------------------------------------------------

def _instance(family: str, size: int, times: dict[str, tuple[float, str]]) -> dict[str, Any]:
    return {"family": family, "name": f"{family}-{size}", "size": size,
            "methods": {m: {"median_time": t, "status": s} for m, (t, s) in times.items()}}


def test_growth_exponent_is_the_log_log_slope_of_finished_runs() -> None:
    from benchmarks.report import growth

    # trample ~ size^1, HiGHS ~ size^2 until it hits its limit (left out of the fit).
    results = {"instances": [
        _instance("gang", n, {"trample": (1e-4 * n, "optimal"),
                              "milp_highs": (1e-6 * n * n, "optimal" if n < 1000 else
                                             "feasible")})
        for n in (10, 100, 1000, 10000)]}
    slope, points = growth(results, "gang", "trample") or (0.0, 0)
    assert abs(slope - 1.0) < 1e-9 and points == 4
    slope, points = growth(results, "gang", "milp_highs") or (0.0, 0)
    assert abs(slope - 2.0) < 1e-9 and points == 2
    assert growth(results, "armies", "trample") is None


def test_a_peer_stopped_by_its_limit_is_reported_as_over_it() -> None:
    from benchmarks.report import peer_time, speedup

    trample = {"median_time": 2.0, "status": "optimal"}
    stopped = {"median_time": 60.1, "status": "feasible"}
    assert peer_time(stopped, 60) == "> 60 s (feasible)"
    inst = {"methods": {"trample": trample, "milp_highs": stopped,
                        "cpsat_mono": {"median_time": 0.5, "status": "optimal"}}}
    assert speedup(inst, "milp_highs", 60) == "≥ 30.1x"
    assert speedup(inst, "cpsat_mono", 60) == "0.25x"


def test_the_compact_peer_is_the_faster_proved_compact_milp() -> None:
    """The compact MILP is measured in two HiGHS; trample, asked the same terms, is held
    to the faster of those that proved the optimum."""
    from benchmarks.report import missed_targets, speedup

    def method(t: float, status: str = "optimal") -> dict[str, Any]:
        return {"median_time": t, "status": status}

    inst = {"name": "x", "methods": {
        "trample": method(1.0), "trample_compact": method(2.0),
        "milp_compact": method(3.0), "milp_compact_highspy": method(5.0),
        "milp_highs": method(10.0), "cpsat_mono": method(20.0)}}
    assert speedup(inst, "compact", 60) == "1.5x"
    missed = missed_targets({"instances": [inst]})
    assert missed == ["- x: 1.5x faster than the compact MILP (target 2x)"]
    inst["methods"]["milp_compact"] = method(0.5, "feasible")  # stopped: not the peer
    assert speedup(inst, "compact", 60) == "2.5x"
    assert missed_targets({"instances": [inst]}) == []


def test_memory_of_a_call_is_measured() -> None:
    import numpy as np

    from benchmarks import memory

    _, added = memory.peak_of(lambda: np.ones(40 * 2**20 // 8).sum())
    if memory.RESETTABLE:
        assert added >= 30 * 2**20  # a 40 MiB array, touched
    _, small = memory.peak_of(lambda: sum(range(10)))
    assert small < 30 * 2**20 or not memory.RESETTABLE


def test_only_the_first_run_is_measured_for_memory_and_it_is_not_timed(
        monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks import memory, runner

    events: list[str] = []
    real_start = memory.start
    monkeypatch.setattr(memory, "start", lambda: events.append("start") or real_start())
    calls = iter(range(100))

    collecting: list[bool] = []

    def fn() -> int:
        events.append("run")
        collecting.append(gc.isenabled())
        return next(calls)

    times, value, peak = runner.measure(fn, repeat=5, budget=1e9)
    assert events == ["start", "run", "run", "run", "run", "run"]
    assert len(times) == 4 and value == 4 and peak >= 0
    # The garbage collector is paused during the timed runs only, as timeit does.
    assert collecting == [True, False, False, False, False] and gc.isenabled()
    # A fast method runs on until its timed runs took min_time, at most MAX_RUNS of them.
    monkeypatch.setattr(runner, "MAX_RUNS", 50)
    times, _, _ = runner.measure(fn, repeat=5, budget=1e9, min_time=1e9)
    assert len(times) == 50
    calls = iter(range(100))
    # One run only (by repeat, or a value that asks for no more): its time is reported.
    events.clear()
    times, value, _ = runner.measure(fn, repeat=1, budget=1e9)
    assert events == ["start", "run"] and len(times) == 1 and value == 0
    times, value, _ = runner.measure(fn, repeat=5, budget=1e9, again=lambda v: False)
    assert len(times) == 1 and value == 1


# -- the settings benchmark ----------------------------------------------------------------

def test_settings_quick_run(tmp_path: Path) -> None:
    from benchmarks.settings import CONFIGS
    from benchmarks.settings import FAMILIES as SETTING_FAMILIES

    run = subprocess.run([sys.executable, "-m", "benchmarks.settings", "--quick", "--seeds",
                          "1", "--out", str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads((tmp_path / "settings.json").read_text(encoding="utf-8"))
    assert [r["family"] for r in results["rows"]] == list(SETTING_FAMILIES)
    for row in results["rows"]:
        assert set(row["seconds"]) == set(CONFIGS) and min(row["seconds"].values()) > 0
        assert row["status"] == "optimal"
    table = (tmp_path / "settings.md").read_text(encoding="utf-8")
    assert all(name in table for name in CONFIGS) and "| tokens |" in table
    # Which build of trample it measured, as the main benchmark's reports say.
    assert results["meta"]["trample_build"] and \
        f"trample: {results['meta']['trample_build']};" in table


def test_shares_quick_run(tmp_path: Path) -> None:
    """The study of heavier sharing: one instance, every method, the objectives agreed."""
    run = subprocess.run([sys.executable, "-m", "benchmarks.shares", "--quick", "--family",
                          "shared", "--share", "0.5", "--out", str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads((tmp_path / "shares.json").read_text(encoding="utf-8"))
    [row] = results["rows"]
    assert (row["family"], row["share"], row["attackers"]) == ("shared", 0.5, 10)
    assert row["status"] == "optimal" and row["trample"] > 0
    assert row["highs"]["status"] == "optimal" and row["cpsat"]["status"] == "optimal"
    table = (tmp_path / "shares.md").read_text(encoding="utf-8")
    assert "| shared-A10 | 50% |" in table and "| shared | 50% | 1 |" in table


def test_wide_quick_run(tmp_path: Path) -> None:
    """The study of wide amounts: every combat under both objectives and both searches,
    each answer checked legal and the proved objectives agreed (else exit 1)."""
    run = subprocess.run([sys.executable, "-m", "benchmarks.wide", "--quick", "--out",
                          str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads((tmp_path / "wide.json").read_text(encoding="utf-8"))
    rows = results["rows"]
    assert len(rows) == 3 * 2 * 2
    assert {(r["objective"], r["settings"]) for r in rows} == {
        (o, s) for o in ("default", "assigned") for s in ("shipped", "quick way")}
    assert all(r["status"] in ("optimal", "feasible") and r["seconds"] > 0 for r in rows)
    table = (tmp_path / "wide.md").read_text(encoding="utf-8")
    assert "| shipped | 6 |" in table and "| quick way | 6 |" in table


def test_wide_amounts_are_valid_small_combats() -> None:
    """The wide-amounts generator: valid documents of 2-5 attackers and 2-7 blockers,
    every amount within its scale, each scale drawn."""
    import random

    from benchmarks import generators
    from trample.models.document.combat import Combat

    rng = random.Random(0)
    scales = set()
    for _ in range(200):
        doc = generators.wide_amounts(rng)
        Combat.from_json(doc)
        attackers = [c for c in doc["creatures"] if "attacking" in c]
        blockers = [c for c in doc["creatures"] if "blocking" in c]
        assert 2 <= len(attackers) <= 5 and 2 <= len(blockers) <= 7
        amounts = [c[k] for c in doc["creatures"] for k in ("power", "toughness")]
        amounts += [p["life"] for p in doc["players"] if p["id"] == "d"]
        assert min(amounts) >= 0 and max(amounts) <= max(generators.WIDE_SCALES)
        # The scale the combat was drawn at: the least that holds all its amounts.
        scales.add(min(s for s in generators.WIDE_SCALES if s >= max(amounts)))
    assert scales == set(generators.WIDE_SCALES)


@pytest.mark.parametrize("family", ["shared_blockers", "token_swarm"])
def test_two_defender_families_hold_at_any_size(family: str) -> None:
    """Shared blockers and token swarms of a few attackers (some unblockable) are valid
    combats whose blockers block only attackers of their controller, or are refused with
    a ValueError when no attacker can be blocked; none crashes."""
    from benchmarks import generators
    from trample.models.document.combat import Combat

    make = getattr(generators, family)
    made = 0
    for attackers in range(2, 13):
        for seed in range(40):
            try:
                doc = make(attackers, 3 * attackers, 0.5, seed)
            except ValueError as exc:
                assert "can be blocked" in str(exc)
                continue
            Combat.from_json(doc)
            target = {c["id"]: c["attacking"] for c in doc["creatures"] if "attacking" in c}
            for c in doc["creatures"]:
                for a in c.get("blocking", ()):
                    assert target[a] == c["controller"], (c["id"], a)
            made += 1
    assert made > 400


@pytest.mark.parametrize(("study", "argument", "message"), [
    ("shares", ["--share", "1.5"], "--share must be between 0 and 1"),
    ("wide", ["--time-limit", "0"], "--time-limit must be more than 0"),
])
def test_studies_refuse_an_argument_out_of_range(tmp_path: Path, study: str,
                                                 argument: list[str], message: str) -> None:
    run = subprocess.run([sys.executable, "-m", f"benchmarks.{study}", *argument,
                          "--out", str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and message in run.stderr
    assert "Traceback" not in run.stderr


def test_settings_time_every_solve_from_the_document(monkeypatch: pytest.MonkeyPatch) -> None:
    """Each timed solve of the settings study starts with the cache of recent documents
    emptied, as the benchmark's runs do: otherwise the first configuration of an instance
    pays the reading and the legal space that the later ones find kept."""
    from benchmarks import settings
    from trample.solver.interface import api

    events: list[str] = []
    forget, solve = api.forget_spaces, api.solve

    def forgetting() -> None:
        events.append("forget")
        forget()

    def solving(*args: Any, **kwargs: Any) -> Any:
        events.append("solve")
        return solve(*args, **kwargs)

    monkeypatch.setattr(api, "forget_spaces", forgetting)
    monkeypatch.setattr(api, "solve", solving)
    _, answer = settings.time_solve(settings.FAMILIES["tokens"][2](0), 3, 10.0)
    assert answer["status"] == "optimal"
    assert events == ["forget", "solve"] * 3


def test_settings_take_the_configurations_in_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    """The study times the configurations round after round, one solve each per round,
    forward then backward (so that neither what the process warms up on a new instance
    nor what the slowest configuration leaves behind falls on the same one each time),
    and each configuration's time is the median of its rounds."""
    from benchmarks import settings

    calls: list[Any] = []
    spent = iter(range(1, 1000))

    def fake(doc: Any, repeat: int, time_limit: float,
             chosen: Any = None) -> tuple[float, dict[str, Any]]:
        assert repeat == 1
        calls.append(chosen)
        return float(next(spent)), {"status": "optimal", "objective": {"kills": 1}}

    monkeypatch.setattr(settings, "time_solve", fake)
    results = settings.run(["tokens"], 1, 3, True, 10.0)
    configs = [settings.configured(c) for c in settings.CONFIGS.values()]
    assert calls == configs + configs[::-1] + configs
    width = len(configs)
    seconds = results["rows"][0]["seconds"]
    for k, name in enumerate(settings.CONFIGS):
        # Its rounds took k + 1, 2w - k and 2w + k + 1: the median is the second.
        assert seconds[name] == float(2 * width - k)


def test_settings_are_restored_and_a_mismatch_exits_1(monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str],
                                                      tmp_path: Path) -> None:
    from benchmarks import settings
    from trample.solver.optimize import cpsat, search_settings
    from trample.solver.optimize.search_settings import SearchSettings

    def current() -> tuple[Any, ...]:
        return (cpsat.SHIPPED, search_settings.BREAK_SYMMETRY, search_settings.SMALL_MODEL,
                search_settings.HINT_SMALL_MODELS)

    before = current()
    variant = settings.configured({"symmetry": False, "small_model": -1,
                                   "hint_small_models": True, "threads": 1})
    assert variant == SearchSettings(symmetry=False, small_model=-1,
                                     hint_small_models=True, threads=1)
    assert current() == before and SearchSettings() == cpsat.SHIPPED
    assert all(settings.configured(c) for c in settings.CONFIGS.values())

    answers = iter([("optimal", 5), ("optimal", 4)])

    def fake(doc: Any, repeat: int, time_limit: float,
             chosen: Any = None) -> tuple[float, dict[str, Any]]:
        status, kills = next(answers, ("optimal", 5))
        return 0.001, {"status": status, "objective": {"kills": kills}}

    monkeypatch.setattr(settings, "time_solve", fake)
    with pytest.raises(SystemExit) as stopped:
        settings.main(["--quick", "--family", "tokens", "--seeds", "1",
                       "--out", str(tmp_path)])
    assert stopped.value.code == 1
    assert "mismatch on tokens seed 0: no symmetry breaking" in capsys.readouterr().err


# -- packaging and where a run writes -------------------------------------------------------

def _results_state() -> dict[str, bytes]:
    folder = ROOT / "benchmarks" / "results"
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))
            if p.is_file()}


def test_bench_extra_holds_what_the_runner_imports() -> None:
    import tomllib

    from benchmarks.output import BENCH_PACKAGES

    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"][
        "optional-dependencies"]
    bench = {req.split(">")[0].split("=")[0].split("<")[0].strip() for req in extras["bench"]}
    assert set(BENCH_PACKAGES) <= bench
    assert "trample[bench]" in extras["test"]  # the tests run the benchmarks


@pytest.mark.parametrize("hidden", [["scipy"], ["matplotlib"], ["tqdm"], ["scipy", "matplotlib"]])
def test_without_the_bench_extra_one_line_names_it(hidden: list[str]) -> None:
    code = ("import runpy, sys\n"
            + "".join(f"sys.modules[{name!r}] = None\n" for name in hidden)
            + "runpy.run_module('benchmarks', run_name='__main__', alter_sys=True)\n")
    result = subprocess.run([sys.executable, "-c", code, "--quick"], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 2, result
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr
    assert "pip install '.[bench]' (in a clone of trample)" in lines[0]
    named = lines[0].split(" not installed")[0]
    assert ("SciPy" in named) == ("scipy" in hidden)
    assert ("Matplotlib" in named) == ("matplotlib" in hidden)
    assert ("tqdm" in named) == ("tqdm" in hidden)


def test_a_run_without_out_writes_to_a_new_scratch_folder(quick_run: QuickRun) -> None:
    """The quick run was given no ``--out``: its results are in one new folder of the
    temporary folder, which it names, and the committed results are left alone."""
    run, scratch, before = quick_run
    assert run.returncode == 0, run.stderr[-3000:]
    made = [p for p in scratch.iterdir() if p.name.startswith("trample-benchmarks-")]
    assert len(made) == 1 and str(made[0]) in run.stderr
    results = json.loads((made[0] / "results.json").read_text(encoding="utf-8"))
    assert results["checks"]["failure"] is None and results["checks"]["instances_checked"]
    assert _results_state() == before  # the committed results are left as they were


def test_settings_and_batch_reports_default_to_scratch(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    import tempfile

    from benchmarks.output import output_folder

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    first, second = output_folder(None, "settings"), output_folder(None, "settings")
    assert first != second and first.parent == second.parent == tmp_path
    assert str(first) in capsys.readouterr().err
    chosen = output_folder(tmp_path / "a" / "b", "settings")
    assert chosen == tmp_path / "a" / "b" and chosen.is_dir()
    assert capsys.readouterr().err == ""
