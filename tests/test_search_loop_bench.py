"""The search loop's benchmark (benchmarks/search_loop.py) and its small combats.

No timing is asserted.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # benchmarks/ is not installed: import it from the checkout
    sys.path.insert(0, str(ROOT))

from benchmarks import generators  # noqa: E402
from trample.models.document.combat import Combat  # noqa: E402


def test_small_combats_are_valid_and_of_the_asked_sizes() -> None:
    for seed in range(200):
        for first in (False, True):
            doc = generators.small_combat(seed, first)
            combat = Combat.from_json(doc)
            attackers = [c for c in doc["creatures"] if "attacking" in c]
            blockers = [c for c in doc["creatures"] if c.get("blocking")]
            assert 1 <= len(attackers) <= 3 and 1 <= len(blockers) <= 4
            assert combat.step == ("first_strike" if first else "regular")
            assert doc == generators.small_combat(seed, first)


def test_search_loop_quick_run(tmp_path: Path) -> None:
    from benchmarks.search_loop import TARGETS

    run = subprocess.run([sys.executable, "-m", "benchmarks.search_loop", "--quick",
                          "--profile", "--out", str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads((tmp_path / "search_loop.json").read_text(encoding="utf-8"))
    assert set(TARGETS) == {"api.solve", "batched", "serve", "plan"}
    paths = results["paths"]
    assert len(paths) == 7 and all(len(p["rounds"]) == 2 for p in paths.values())
    checks = results["checks"]
    assert checks["validated"] == 300 and checks["brute_compared"] >= 150
    assert checks["plans_proved"] == 30
    from benchmarks.search_loop import STAGES

    stages = results["stages"]
    assert list(stages) == list(STAGES) and all(v > 0 for v in stages.values())
    by_attackers = results["by_attackers"]
    assert list(by_attackers) == ["1", "2", "3"] and all(v > 0 for v in by_attackers.values())
    profiles = results["profiles"]
    assert set(profiles) <= set(paths) and len(profiles) == 5
    for found in profiles.values():
        assert found["by_own"] and all("/benchmarks/" not in row["function"]
                                       for row in found["by_cumulative"])
    assert "## Profile: api.solve" in (tmp_path / "search_loop.md").read_text()


def test_search_loop_stops_on_a_path_that_answers_otherwise() -> None:
    from benchmarks.checks import Mismatch
    from benchmarks.search_loop import _checked

    docs = [generators.small_combat(1)]
    answer = {"assignment": [{"source": "a0", "target": "dp", "amount": 1}],
              "objective": {"kills": 0}}
    _checked("x", docs, [answer], [dict(answer)])
    with pytest.raises(Mismatch, match="small combat 0: serve"):
        _checked("serve", docs, [{**answer, "objective": {"kills": 1}}], [answer])
