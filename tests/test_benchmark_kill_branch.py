"""The study of a branch and bound with the ceiling on kills (benchmarks/kill_branch.py):
what it writes, that its bounds hold against the search's answers, and that its branch and
bound agrees with HiGHS where it settles a group. No timing is asserted."""

from __future__ import annotations

import json
import math
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # benchmarks/ is not installed: import it from the checkout
    sys.path.insert(0, str(ROOT))

from benchmarks import kill_branch  # noqa: E402
from trample.solver.optimize.kill_steps import steps_model  # noqa: E402


@pytest.mark.sources
def test_each_searched_group_is_measured(tmp_path: Path) -> None:
    """Every group the search is given gets a row; the ceiling and the relaxations bound
    the optima from above, and the branch and bound, where it settles, finds them."""
    status = kill_branch.main(["shared30=12", "tokens=12", "--seeds", "2", "--repeat", "1",
                               "--nodes", "300", "--out", str(tmp_path)])
    assert status == 0
    rows = json.loads((tmp_path / "kill_branch.json").read_text(encoding="utf-8"))
    assert rows, "the coupled families give the search groups"
    assert {r["instance"] for r in rows} == {"shared30-A12-B36", "tokens-A12-B36"}
    for row in rows:
        kills = row["kills"]
        if kills["ceiling"] is not None and "alone" in kills:
            assert kills["ceiling"] >= kills["alone"] >= kills["optimum"]
        for part in (row["kills_model"], row["question"]):
            if part is None:
                continue
            assert part["root"] + kill_branch.EPS >= part["optimum"]
            assert part["tight"] == (math.floor(part["root"] + kill_branch.EPS)
                                     == part["optimum"])
    text = (tmp_path / "kill_branch.md").read_text(encoding="utf-8")
    assert f"| shared30-A12-B36 | {sum(r['instance'] == 'shared30-A12-B36' for r in rows)} |" \
        in text


@pytest.mark.sources
def test_the_branch_and_bound_finds_the_optimum_of_every_group() -> None:
    """Without a node cap, the depth-first branch and bound and HiGHS agree on each
    searched group's model, and given the optimum the proof settles without a better
    value."""
    groups = [g for seed in range(2) for g in kill_branch.collect("shared30", 12, seed)]
    assert groups
    for group in groups:
        model = steps_model(group.space, group.sources, list(group.terms), group.exclude)
        assert model is not None
        optimum = kill_branch._milp_optimum(model.lp)
        nodes, _, found = kill_branch.branch_and_bound(model.lp, -math.inf, 10**6)
        assert found == optimum and nodes >= 1
        _, _, proved = kill_branch.branch_and_bound(model.lp, optimum, 10**6)
        assert proved == optimum  # nothing above it


@pytest.mark.parametrize("argv", [["nosuch=10"], ["shared30=x"], ["shared30=0"],
                                  ["shared30=10", "--seeds", "0"],
                                  ["shared30=10", "--nodes", "0"]])
def test_bad_usage_exits_2(argv: list[str], tmp_path: Path) -> None:
    with pytest.raises(SystemExit) as exit_info:
        kill_branch.main([*argv, "--out", str(tmp_path)])
    assert exit_info.value.code == 2
    assert not (tmp_path / "kill_branch.json").exists()
