"""The seed-by-seed study against the compact MILP (benchmarks/compact_seeds.py): what it
writes, and that it stops on an answer that differs. No timing is asserted."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # benchmarks/ is not installed: import it from the checkout
    sys.path.insert(0, str(ROOT))

from benchmarks import compact, compact_seeds  # noqa: E402
from benchmarks.baselines import Outcome  # noqa: E402
from benchmarks.runner import COMPACT  # noqa: E402
from trample.models.document.combat import Combat  # noqa: E402
from trample.solver.optimize.greedy import greedy  # noqa: E402
from trample.solver.rules.legal_space import legal_space  # noqa: E402


def test_each_seed_is_measured_and_checked(tmp_path: Path) -> None:
    """Every seed of every instance gets a row with each method's times and the
    objective every method agreed on; the summary counts the seeds per instance."""
    status = compact_seeds.main(["shared30=10", "pileup=10", "--seeds", "2", "--repeat", "1",
                                 "--out", str(tmp_path)])
    assert status == 0
    results = json.loads((tmp_path / "compact_seeds.json").read_text(encoding="utf-8"))
    rows = results["rows"]
    assert results["failure"] is None
    assert [(r["instance"], r["seed"]) for r in rows] == [
        ("shared30-A10-B30", 0), ("shared30-A10-B30", 1), ("pileup-A10", 0), ("pileup-A10", 1)]
    for row in rows:
        assert set(row["cpu"]) == set(row["wall"]) == {"trample", *COMPACT}
        assert row["status"] == "optimal"
        assert len(row["objective"]) == len(row["terms"]) > 0
        assert row["ratio_wall"] > 0
    text = (tmp_path / "compact_seeds.md").read_text(encoding="utf-8")
    assert "| shared30-A10-B30 | 2 |" in text and "| pileup-A10 | 2 |" in text


def test_a_compact_answer_that_differs_stops_the_study(monkeypatch: pytest.MonkeyPatch,
                                                       tmp_path: Path,
                                                       capsys: pytest.CaptureFixture[str]
                                                       ) -> None:
    """A compact MILP that "proves" the greedy split optimal differs from trample on a gang
    block: exit 1, naming the combat, and the failure kept in the results."""
    def planted(doc: dict[str, Any], time_limit: float, backend: str = "") -> Outcome:
        space = legal_space(Combat.from_json(doc), "attackers")
        return Outcome("optimal", greedy(space), extra={"terms": list(compact.question(doc))})

    monkeypatch.setattr(compact, "compact_milp", planted)
    status = compact_seeds.main(["gang=50", "--seeds", "1", "--repeat", "1",
                                 "--out", str(tmp_path)])
    assert status == 1
    assert "gang-N50" in capsys.readouterr().err
    results = json.loads((tmp_path / "compact_seeds.json").read_text(encoding="utf-8"))
    assert "gang-N50" in results["failure"] and results["rows"] == []


@pytest.mark.parametrize("argv", [["nosuch=10"], ["shared30=x"], ["shared30=0"],
                                  ["shared30=10", "--seeds", "0"],
                                  ["shared30=10", "--time-limit", "0"],
                                  ["shared30=10", "--set", "nosuch=1"],
                                  ["shared30=10", "--set", "kill_steps=maybe"],
                                  ["shared30=10", "--set", "milp_pairs=many"],
                                  ["shared30=10", "--set", "backend=milp"]])
def test_bad_usage_exits_2(argv: list[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_info:
        compact_seeds.main([*argv, "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    assert not (tmp_path / "compact_seeds.json").exists()


def test_a_setting_changed_reaches_the_solver() -> None:
    """``--set`` changes the named fields from the shipped settings, each of its type."""
    changed = compact_seeds.settings_from(["kill_steps=true", "milp_pairs=90",
                                           "milp_probe_time=0.5"])
    assert (changed.kill_steps, changed.milp_pairs, changed.milp_probe_time) == \
        (True, 90, 0.5)
    assert compact_seeds.settings_from([]) == compact_seeds.SHIPPED
