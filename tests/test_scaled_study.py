"""The study of the benchmark's combats in wide amounts (benchmarks/scaled.py) and the
generator it multiplies them with."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

from benchmarks import generators, runner
from trample.models.document.combat import Combat

ROOT = Path(__file__).resolve().parent.parent


def test_scaled_combats_keep_their_shape_with_every_amount_multiplied() -> None:
    """Same creatures, blocks and keywords; every positive amount at least the factor
    times the original and below it plus half the factor, never past 2^40; valid."""
    for family, size in (("pileup", 50), ("shared30", 30), ("widegang", 100)):
        _, _, doc = runner.FAMILIES[family].make(size, runner._seed(family, size, 0))
        for factor in (2**10, 2**29):
            big = generators.scaled(doc, factor, random.Random(1))
            Combat.from_json(big)
            for key in ("creatures", "planeswalkers", "players"):
                for before, after in zip(doc.get(key, []), big.get(key, []), strict=True):
                    assert {k: v for k, v in before.items()
                            if k not in generators.AMOUNT_FIELDS} == \
                        {k: v for k, v in after.items() if k not in generators.AMOUNT_FIELDS}
                    for field in generators.AMOUNT_FIELDS:
                        if not before.get(field):
                            assert after.get(field) == before.get(field)
                            continue
                        low = before[field] * factor
                        assert min(low, generators.MOST) <= after[field]
                        assert after[field] < low + factor // 2
                        assert after[field] <= generators.MOST
    _, _, doc = runner.FAMILIES["armies"].make(10, 3)
    assert generators.scaled(doc, 1, random.Random(0)) == doc


def test_scaled_quick_run(tmp_path: Path) -> None:
    """Each instance at each factor solved and checked legal (else exit 1), one row
    each, the table with one column per factor."""
    run = subprocess.run([sys.executable, "-m", "benchmarks.scaled", "--quick", "--out",
                          str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                         timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads((tmp_path / "scaled.json").read_text(encoding="utf-8"))
    assert {(r["instance"], r["factor"]) for r in results["rows"]} == {
        (i, f) for i in ("armies-A10-B40", "shared30-A30-B90") for f in (1, 2**20)}
    assert all(r["status"] in ("optimal", "feasible") for r in results["rows"])
    table = (tmp_path / "scaled.md").read_text(encoding="utf-8")
    assert "| instance | x1 | x2^20 |" in table and "| armies-A10-B40 |" in table


def test_scaled_refuses_an_argument_out_of_range() -> None:
    for bad in (["--seeds", "0"], ["--time-limit", "-1"]):
        run = subprocess.run([sys.executable, "-m", "benchmarks.scaled", *bad], cwd=ROOT,
                             capture_output=True, text=True, timeout=120)
        assert run.returncode == 2 and "Traceback" not in run.stderr, run.stderr
