"""Bounds on the work and output of one request, and the messages that report them.

- CR 510.1a is reported only when a source's entries do not total its power, with the
  true total (a misdirected entry counts toward it);
- ``validate`` output stays bounded whatever the assignment (a few recipients named per
  message, at most ``MAX_VIOLATIONS`` violations, then how many were left out);
- ``count``, ``sample`` and ``enumerate`` charge big-integer arithmetic to their budget:
  huge counts are refused within seconds, not computed for minutes.

Bounds are checked in a subprocess against a time and memory budget many times the
healthy cost (about a second and 50 MB here).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from trample.models.document.errors import TrampleError
from trample.solver.count.work import CountOutOfReach
from trample.solver.interface import api
from trample.solver.rules.validate import NAMED_RECIPIENTS

Doc = dict[str, Any]


def tramplers(n: int, blockers: int, power: int, shared_toughness: int | None = None) -> Doc:
    """``n`` tramplers of ``power``, each blocked by ``blockers`` 1/1s of its own and,
    with ``shared_toughness``, all by one more blocker of that toughness."""
    creatures: list[Doc] = [
        {"id": f"a{i}", "controller": "ap", "power": power, "toughness": 1,
         "keywords": ["trample"], "attacking": "dp"} for i in range(n)]
    creatures += [{"id": f"b{i}_{j}", "controller": "dp", "power": 1, "toughness": 1,
                   "blocking": [f"a{i}"]} for i in range(n) for j in range(blockers)]
    if shared_toughness is not None:
        creatures.append({"id": "s", "controller": "dp", "power": 1,
                          "toughness": shared_toughness,
                          "blocking": [f"a{i}" for i in range(n)]})
    return {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp"}],
            "creatures": creatures}


RHINO: Doc = {
    "active_player": "ap", "players": [{"id": "ap"}, {"id": "dp"}],
    "creatures": [
        {"id": "rhino", "controller": "ap", "power": 6, "toughness": 6,
         "keywords": ["trample"], "attacking": "dp"},
        {"id": "bear", "controller": "dp", "power": 2, "toughness": 2,
         "blocking": ["rhino"]}]}


# -- CR 510.1a ------------------------------------------------------------------------------

def test_510_1a_not_reported_when_a_misdirected_entry_totals_the_power() -> None:
    # rhino -> ap 6: ap may not receive it, but 6 of its 6 is assigned: one violation.
    found = api.validate(RHINO, [{"source": "rhino", "target": "ap", "amount": 6}])
    assert not found["legal"]
    rules = [v["rule"] for v in found["violations"]]
    assert "510.1a" not in rules
    assert len(rules) == 1 and rules[0] != "510.1a"
    assert "assigns 6 to ap" in found["violations"][0]["message"]


def test_510_1a_reports_the_true_total_of_an_under_assignment() -> None:
    found = api.validate(RHINO, [{"source": "rhino", "target": "ap", "amount": 2},
                                 {"source": "rhino", "target": "bear", "amount": 2}])
    [total] = [v for v in found["violations"] if v["rule"] == "510.1a"]
    assert "assigns 4 of its 6" in total["message"]
    assert "must assign all of it" in total["message"]


def test_510_1a_words_an_over_assignment_as_such() -> None:
    found = api.validate(RHINO, [{"source": "rhino", "target": "bear", "amount": 10}])
    [total] = [v for v in found["violations"] if v["rule"] == "510.1a"]
    assert "assigns 10 of its 6" in total["message"]
    assert "more than its power" in total["message"]


# -- validate output -----------------------------------------------------------------------

def misdirected(entries: int) -> tuple[Doc, list[Doc]]:
    """a0 (power 1, ``entries`` blockers) assigns 1 to each of a1's ``entries`` blockers."""
    doc = tramplers(2, entries, 1)
    assignment = [{"source": "a0", "target": f"b1_{j}", "amount": 1} for j in range(entries)]
    return doc, assignment


def test_a_misdirected_entry_names_a_few_recipients_and_counts_the_rest() -> None:
    doc, assignment = misdirected(40)
    found = api.validate(doc, assignment[:1])
    message = found["violations"][0]["message"]
    # a0 may assign to its 40 blockers and dp: a few named, the rest counted.
    assert message.count("b0_") == NAMED_RECIPIENTS
    assert f"and {41 - NAMED_RECIPIENTS} more" in message


def test_validate_lists_at_most_max_violations_and_says_how_many_more() -> None:
    doc, assignment = misdirected(api.MAX_VIOLATIONS + 200)
    found = api.validate(doc, assignment)
    assert len(found["violations"]) == api.MAX_VIOLATIONS
    # Every misdirected entry, a0's over-assignment (1,200 of its 1) and a1's nothing
    # (0 of its 1), both 510.1a.
    assert found["omitted"] == 200 + 2
    small = api.validate(RHINO, [{"source": "rhino", "target": "bear", "amount": 6}])
    assert "omitted" not in small


CHILD = """
import json, sys
from trample.solver.interface import api
from trample.models.document.errors import TrampleError
doc = json.load(open(sys.argv[2]))
what = sys.argv[1]
try:
    if what == "validate":
        out = json.dumps(api.validate(doc))
    elif what == "count":
        out = json.dumps(api.count(doc))
    elif what == "sample":
        out = json.dumps(list(api.sample(doc, n=2)))
    else:
        out = json.dumps(list(api.enumerate_assignments(doc, limit=2)))
    error = None
except TrampleError as exc:
    out, error = "", [type(exc).__name__, str(exc)]
# The peak of this process's own memory: ru_maxrss would keep the peak of the process
# that started it (Linux carries it across exec), whatever that one ran before.
rss = int(next(line for line in open("/proc/self/status") if line.startswith("VmHWM:"))
          .split()[1])
print(json.dumps({"bytes": len(out), "error": error, "rss_kb": rss}))
"""


def bounded(tmp_path: Path, what: str, doc: Doc, seconds: float = 60) -> dict[str, Any]:
    """Run ``api.<what>`` on ``doc`` in a child: its output size, error and peak memory.
    The child must finish within ``seconds`` (a generous budget: healthy is ~1 s)."""
    path = tmp_path / "doc.json"
    path.write_text(json.dumps(doc))
    done = subprocess.run([sys.executable, "-c", CHILD, what, str(path)], capture_output=True,
                          text=True, timeout=seconds, check=True)
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_validate_output_and_memory_are_bounded(tmp_path: Path) -> None:
    # 1,000 entries each misdirected from a source of 1,001 recipients: every message
    # once named all of them (a gigabyte of output from a megabyte document).
    doc, assignment = misdirected(1000)
    doc["assignment"] = assignment
    got = bounded(tmp_path, "validate", doc)
    assert got["error"] is None
    assert got["bytes"] < 1_000_000
    assert got["rss_kb"] < 500_000


# -- count, sample, enumerate: big-integer work is charged ---------------------------------

BIG_WORK = [
    # 19 tramplers of power 2^40 with 999 blockers each and one shared blocker.
    pytest.param(tramplers(19, 999, 2**40, shared_toughness=60), id="19x999"),
    # 95 tramplers of power 2^40 with 98 blockers each, coupled by a shared 1/60.
    pytest.param(tramplers(95, 98, 2**40, shared_toughness=60), id="95x98"),
]


@pytest.mark.parametrize("doc", BIG_WORK)
@pytest.mark.parametrize("what", ["count", "sample", "enumerate"])
def test_big_integer_work_is_refused_within_seconds(tmp_path: Path, what: str,
                                                    doc: Doc) -> None:
    got = bounded(tmp_path, what, doc, seconds=20)
    assert got["error"] is not None and got["error"][0] == "CountOutOfReach"
    assert "refused rather than estimated" in got["error"][1]
    assert got["rss_kb"] < 500_000


def test_a_huge_count_within_reach_is_still_exact() -> None:
    # Independent tramplers of power 2^40: the count is the product of the parts'
    # binomials, thousands of digits, computed exactly.
    from math import comb
    doc = tramplers(3, 20, 2**40)
    power = 2**40
    holding = comb(power + 19, 19)  # all of it among the 20 blockers
    passing = comb(power - 1, 20)  # each blocker at least 1 (lethal), the player too
    assert api.count(doc)["count"] == (holding + passing) ** 3


def test_count_out_of_reach_is_a_trample_error() -> None:
    assert issubclass(CountOutOfReach, TrampleError)
