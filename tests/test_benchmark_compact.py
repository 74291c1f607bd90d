"""The compact MILP baseline (benchmarks/compact.py) and its place in the benchmark run.

The compact model's answers are checked against the independent brute force of SPEC
(tests/brute.py), not against trample. No timing is asserted.
"""

from __future__ import annotations

import contextlib
import json
import math
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # benchmarks/ is not installed: import it from the checkout
    sys.path.insert(0, str(ROOT))

try:
    from . import brute
except ImportError:
    import brute  # type: ignore[no-redef]

from benchmarks import compact, generators, runner  # noqa: E402
from benchmarks.__main__ import main  # noqa: E402
from benchmarks.baselines import Outcome  # noqa: E402
from trample.models.document.combat import Combat  # noqa: E402
from trample.solver.optimize.greedy import greedy  # noqa: E402
from trample.solver.rules.legal_space import legal_space  # noqa: E402

ASSIGNED = ("lethal", "kills", "planeswalker_kills", "battle_kills", "player_damage",
            "planeswalker_damage", "battle_damage")
BRUTE_SPLITS = 4_000
"""Brute force runs on a combat whose product of every source's splits is at most this."""


def _splits(doc: dict[str, Any]) -> int:
    total = 1
    for source, power in brute.assigning_sources(doc, "attackers"):
        parts = len(brute.recipients(doc, "attackers", source))
        total *= math.comb(power + parts - 1, parts - 1) if parts else 1
    return total


def _small_documents() -> list[dict[str, Any]]:
    """Small combats of the families the compact model covers, brute force within reach:
    shared blockers, planeswalker pile-ups (trample over planeswalkers, one planeswalker
    out of combat), split ranks (low life) and the search loop's small combats."""
    docs: list[dict[str, Any]] = []
    for seed in range(400):
        made = [generators.small_combat(seed), generators.planeswalker_pileup(3, seed),
                generators.split_ranks(2, seed)]
        with contextlib.suppress(ValueError):  # no attacker can be blocked on some seeds
            made.append(generators.shared_blockers(3, 5, 0.6, seed))
        docs += [d for d in made if _splits(d) <= BRUTE_SPLITS]
    return docs


DOCUMENTS = _small_documents()


def test_the_small_documents_hold_what_the_model_must_get_right() -> None:
    """Deathtouch, negative values (the converse rows), indestructible blockers, trample
    over planeswalkers, a planeswalker out of combat and reachable players all occur."""
    def has(doc: dict[str, Any], keyword: str) -> bool:
        return any(keyword in c.get("keywords", ()) for c in doc["creatures"])

    assert len(DOCUMENTS) >= 600
    assert sum(has(d, "Deathtouch") for d in DOCUMENTS) >= 30
    assert sum(has(d, "Indestructible") for d in DOCUMENTS) >= 10
    assert sum(has(d, "Trample over planeswalkers") for d in DOCUMENTS) >= 30
    assert sum(any(c.get("value", 1) < 0 and c.get("blocking") for c in d["creatures"])
               for d in DOCUMENTS) >= 30
    assert sum(any(not w.get("in_combat", True) for w in d.get("planeswalkers", ()))
               for d in DOCUMENTS) >= 30
    assert sum("lethal" in compact.question(d) for d in DOCUMENTS) >= 30


@pytest.mark.parametrize("chunk", [0, 1, *(pytest.param(c, marks=pytest.mark.slow)
                                           for c in (2, 3))])
def test_compact_milp_is_legal_and_optimal_against_brute_force(chunk: int) -> None:
    """On every small combat: the compact MILP's answer is legal (SPEC §2-3), and its
    objective on the terms it weighs is brute force's optimum on them, solved by highspy
    or by SciPy without presolve (SciPy's HiGHS 1.12 with presolve is wrong on a few:
    see the next test)."""
    for doc in DOCUMENTS[chunk::4]:
        terms = compact.question(doc)
        best = brute.optimum(doc, "attackers", terms)
        for backend in ("highspy", "scipy"):
            out = compact.compact_milp(doc, 10.0, backend)
            assert out.status == "optimal" and out.amounts is not None, out
            assert brute.is_legal(doc, "attackers", out.amounts), (doc, out.amounts)
            assert brute.objective(doc, "attackers", out.amounts, terms) == best, \
                (backend, doc, terms)


def test_a_combat_scipys_highs_gets_wrong_with_presolve() -> None:
    """SciPy 1.17's HiGHS (1.12), presolve on, "proved" a split of this combat that kills
    the blocker of value 2 where the one of value 3 can die: highspy and SciPy without
    presolve answer brute force's optimum, and SciPy with presolve at least a legal
    split (a wrong optimum of it in the benchmark stops the run: checked above)."""
    doc = {"format": "combat/1", "active_player": "ap", "step": "regular",
           "players": [{"id": "ap", "life": 20}, {"id": "dp", "life": 16}],
           "creatures": [
               {"id": "a0", "controller": "ap", "power": 9, "toughness": 3,
                "attacking": "dp"},
               {"id": "a1", "controller": "ap", "power": 7, "toughness": 6,
                "attacking": "pw1", "keywords": ["Trample over planeswalkers"]},
               {"id": "a2", "controller": "ap", "power": 1, "toughness": 8,
                "attacking": "pw0", "keywords": ["Trample over planeswalkers", "Deathtouch"]},
               {"id": "b0", "controller": "dp", "power": 3, "toughness": 4, "value": 2,
                "blocking": ["a1"]},
               {"id": "b1", "controller": "dp", "power": 4, "toughness": 4, "value": 3,
                "blocking": ["a1"]},
               {"id": "b2", "controller": "dp", "power": 3, "toughness": 5, "value": 8,
                "blocking": ["a2"]}],
           "planeswalkers": [{"id": "pw0", "controller": "dp", "loyalty": 3},
                             {"id": "pw1", "controller": "dp", "loyalty": 4}]}
    terms = compact.question(doc)
    best = brute.optimum(doc, "attackers", terms)
    found = {b: compact.compact_milp(doc, 10.0, b) for b in compact.BACKENDS}
    for backend, out in found.items():
        assert out.status == "optimal" and out.amounts is not None
        assert brute.is_legal(doc, "attackers", out.amounts)
        if backend != "scipy-presolve":
            assert brute.objective(doc, "attackers", out.amounts, terms) == best, backend


def test_the_terms_left_out_cannot_vary() -> None:
    """The question is the whole question: every assigned-damage term the compact model
    leaves out has one value over all legal assignments, so its optimum is the optimum
    of SPEC §4's default order."""
    for doc in DOCUMENTS[::3]:
        terms = compact.question(doc)
        left_out = [t for t in ASSIGNED if t not in terms]
        values = {brute.objective(doc, "attackers", a, left_out)
                  for a in brute.legal_assignments(doc, "attackers")}
        assert len(values) == 1, (doc, terms, values)


@pytest.mark.parametrize(("change", "message"), [
    (lambda d: d["creatures"][0].update(keywords=["First strike"]), "first strike"),
    (lambda d: d.update(step="first_strike"), "regular damage step"),
    (lambda d: d["creatures"][0].update(keywords=["Banding"]), "banding"),
    (lambda d: d.update(battles=[{"id": "x", "protector": "dp", "defense": 3}]),
     "'battles'"),
    (lambda d: d["creatures"][0].update(assigns="toughness"), "'assigns'"),
    (lambda d: d.update(side="blockers"), "attackers"),
])
def test_what_the_compact_model_does_not_cover_is_refused(change: Any, message: str) -> None:
    doc = generators.tiny(2, 3)
    change(doc)
    with pytest.raises(compact.Unmodeled, match=message):
        compact.question(doc)
    out = compact.compact_milp(doc, 1.0)
    assert out.status == "skipped" and out.amounts is None and message in out.note


def test_the_weights_make_the_sum_lexicographic() -> None:
    """Each term's weight is more than the whole range of the terms after it: one
    blocker's kill outweighs any amount of damage to the player."""
    doc = generators.gang_block(40, 3)
    m = compact.build(doc)
    assert m.terms[-1] == "player_damage"
    kill = max(w for v, w in m.objective.items() if m.names[v].startswith("lethal["))
    damage = sum(w * (m.upper[v] - m.lower[v]) for v, w in m.objective.items()
                 if m.names[v].endswith("->dp"))
    assert kill > damage > 0


def test_the_compact_milp_leaves_trample_its_highs() -> None:
    """HiGHS's scheduler is one per process: after the compact MILP's highspy solve, a
    HiGHS instance as trample makes it still runs (one that asked for another number of
    threads would be refused, and trample's searches left to CP-SAT)."""
    import numpy as np
    from highspy import _core as highs

    from trample.solver.optimize.highs import new_highs

    assert compact.compact_milp(generators.shared_blockers(6, 18, 0.3, 1), 10.0,
                                "highspy").status == "optimal"
    h = new_highs()
    empty = np.zeros(0, dtype=np.int32)
    h.addCols(1, np.array([-1.0]), np.array([0.0]), np.array([3.0]), 0, empty, empty,
              np.zeros(0))
    h.changeColsIntegrality(1, np.array([0], dtype=np.int32),
                            np.full(1, highs.HighsVarType.kInteger))
    h.run()
    assert h.getModelStatus() == highs.HighsModelStatus.kOptimal
    assert list(h.getSolution().col_value) == [3.0]


# -- in the benchmark run -----------------------------------------------------------------

def test_measure_alternated_takes_the_methods_in_turn(monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks import memory

    events: list[str] = []
    real = memory.start
    monkeypatch.setattr(memory, "start", lambda: events.append("memory") or real())

    def method(name: str) -> Any:
        return lambda: events.append(name) or name

    out = runner.measure_alternated({"a": method("a"), "b": method("b")}, repeat=4,
                                    budget=1e9)
    assert events == ["memory", "a", "memory", "b", *["a", "b"] * 3]
    assert all(len(r.times) == len(r.cpu_times) == 3 for r in out.values())
    # A method that asks for no more stops the rounds, after its first run.
    events.clear()
    out = runner.measure_alternated({"a": method("a"), "b": method("b")}, repeat=4,
                                    budget=1e9, again=lambda name, _: name != "b")
    assert events == ["memory", "a", "memory", "b"] and len(out["a"].times) == 1


def test_runner_exits_1_when_the_compact_milp_differs(monkeypatch: pytest.MonkeyPatch,
                                                      tmp_path: Path,
                                                      capsys: pytest.CaptureFixture[str]
                                                      ) -> None:
    """A compact MILP that "proves" the greedy split optimal differs from trample on the
    terms it weighs: the run stops with exit 1 naming the instance."""
    def planted(doc: dict[str, Any], time_limit: float, backend: str = "") -> Outcome:
        space = legal_space(Combat.from_json(doc), "attackers")
        return Outcome("optimal", greedy(space), extra={"terms": list(compact.question(doc))})

    monkeypatch.setattr(compact, "compact_milp", planted)
    status = main(["--quick", "--family", "gang", "--sizes", "50", "--out", str(tmp_path)])
    assert status == 1
    err = capsys.readouterr().err
    assert "correctness check failed" in err and "gang-N50" in err and "milp_compact" in err


def test_quick_run_measures_the_compact_milp_on_every_family(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "benchmarks", "--quick", "--family",
                          "shared30,pileup,ranks", "--out", str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    for inst in results["instances"]:
        m = inst["methods"]
        mine = m["trample_compact"]
        for method in ("milp_compact", "milp_compact_highspy"):
            theirs = m[method]
            assert mine["status"] == theirs["status"] == "optimal"
            assert mine["objective"] == theirs["objective"]
            assert mine["extra"]["terms"] == theirs["extra"]["terms"]
            assert len(theirs["objective"]) == len(theirs["extra"]["terms"])
            assert theirs["ratio"] > 0 and "paired_ratio" in theirs["extra"]
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    assert "| compact MILP / trample |" in summary and "round by round" in summary
