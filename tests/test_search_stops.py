"""``project`` stopped by its time limit or a cancel: the nearest legal assignment found,
never an illegal one, and ``"status": "feasible"`` whenever the answer is not proved.

The stops here never depend on the clock: a cancel already set, a deadline long past,
or a cancel that sets itself after a given number of looks (a counter of work steps).
Answers are checked against the brute force of ``brute_actions.py`` and ``brute.py``.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from fractions import Fraction
from pathlib import Path
from typing import Any
from unittest import mock

from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # benchmarks/ is not installed: import it from the checkout
    sys.path.insert(0, str(ROOT))

import brute_actions  # noqa: E402

from benchmarks import generators  # noqa: E402
from trample.solver.actions.splits import Actions, parse_values  # noqa: E402
from trample.solver.actions.union import UnionActions  # noqa: E402
from trample.solver.count.work import CountOutOfReach  # noqa: E402
from trample.solver.interface import api  # noqa: E402
from trample.solver.optimize.cancel import Cancel  # noqa: E402

import brute  # noqa: E402
from strategies import combats  # noqa: E402

SOME = st.one_of(combats(max_sources=3), combats(max_sources=3, rich=True))
SIDES = st.sampled_from(["attackers", "blockers"])
SMALL = 1500


class CancelAfter:
    """A clock that sets a :class:`Cancel` at its ``looks``-th reading: a search stopped
    after a fixed amount of its own work, whatever the machine. The searches read the
    clock at each step when they have a deadline (one far off here), next to their look
    at the cancel; the cancel itself stays the plain class (the compiled build's classes
    cannot be subclassed here)."""

    def __init__(self, looks: int) -> None:
        self.looks = looks
        self.cancel = Cancel()
        self.deadline = time.monotonic() + 10**6
        self._clock = time.monotonic

    def __call__(self) -> float:
        self.looks -= 1
        if self.looks <= 0:
            self.cancel.set()
        return self._clock()

    @contextmanager
    def running(self) -> Iterator[Cancel]:
        """The cancel, with this clock as :func:`time.monotonic` while inside."""
        with mock.patch("time.monotonic", self):
            yield self.cancel


def _small(doc: dict, side: str) -> bool:
    try:
        return api.count(doc, side=side)["count"] <= SMALL
    except CountOutOfReach:
        return False


def _values(draw: Any, pairs: list, doc: dict) -> list[dict]:
    top = max((c["power"] for c in doc["creatures"]), default=1)
    number = st.one_of(st.integers(-2, top + 2),
                       st.fractions(-2, top + 2, max_denominator=12).map(float))
    return [{"source": s, "target": t, "amount": draw(number)} for s, t in pairs
            if draw(st.booleans())]


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.data(), SOME, SIDES, st.integers(1, 14), st.booleans())
def test_a_stopped_projection_is_legal_and_no_nearer_than_the_nearest(
        data: Any, doc: dict, side: str, looks: int, searched: bool) -> None:
    """Stopped after any number of looks, by CP-SAT's model or by looking at each split:
    a legal split at its true distance, not nearer than the nearest; when it says it is
    exact, it is the brute force's answer."""
    assume(_small(doc, side))
    pairs = [tuple(p) for p in api.pairs(doc, side=side)["pairs"]]
    listed = [a["assignment"] for a in api.enumerate_assignments(doc, side=side)]
    order = brute_actions.ordered(doc, side, pairs, listed)
    space = api.space_of(doc, side)
    raw = _values(data.draw, pairs, doc)
    values = parse_values(space, raw)
    vector, nearest = brute_actions.project(doc, side, pairs, order, values)
    stop = CancelAfter(looks)
    with stop.running() as cancel:
        found = Actions(space).projection(values, exhaustive_limit=0 if searched else 10**9,
                                          deadline=stop.deadline, cancel=cancel)
    assert cancel.is_set() or found.exact  # the stop is reached, or the search ended first
    assert brute.is_legal(doc, side, dict(found.amounts))
    got = tuple(found.amounts.get(p, 0) for p in pairs)
    assert found.distance == brute_actions.distance(pairs, got, values)
    assert found.distance >= nearest
    if found.exact:
        assert got == vector


def test_a_cancel_already_set_answers_a_legal_split_marked_feasible() -> None:
    """Past :data:`~trample.solver.actions.splits.PROJECT_LIMIT` splits (CP-SAT's model):
    a cancel set before the call answers at once, with the greedy split."""
    doc = generators.shared_blockers(6, 4, 0.5, 1)
    handle = api.prepare(doc)
    assert handle.count()["count"] > 20_000
    wish = [{"source": s, "target": t, "amount": 1.5} for s, t in handle.pair_order()]
    cancel = Cancel()
    cancel.set()
    got = api.project(doc, wish, cancel=cancel)
    assert got["status"] == "feasible"
    amounts = {(e["source"], e["target"]): e["amount"] for e in got["assignment"]}
    assert brute.is_legal(doc, "attackers", amounts)
    values = {(e["source"], e["target"]): Fraction(e["amount"]) for e in wish}
    pairs = list(handle.pair_order())
    assert Fraction(got["distance"]) == brute_actions.distance(
        pairs, tuple(amounts.get(p, 0) for p in pairs), values)
    exact = api.project(doc, wish)
    assert "status" not in exact
    assert Fraction(exact["distance"]) <= Fraction(got["distance"])


def test_a_deadline_long_past_stops_a_union_of_sets_of_splits() -> None:
    """Attackers that may assign as though unblocked: one model per set of splits; a
    deadline long past searches none past the first, and answers a legal split."""
    doc = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": 30}],
           "creatures": [
               *({"id": f"a{i}", "controller": "ap", "power": 9, "toughness": 4,
                  "keywords": ["trample"], "attacking": "dp", "as_though_unblocked": True}
                 for i in range(3)),
               *({"id": f"b{j}", "controller": "dp", "power": 1, "toughness": 3,
                  "blocking": [f"a{j % 3}", f"a{(j + 1) % 3}"]} for j in range(4))]}
    space = api.space_of(doc, None)
    union = UnionActions(space)
    assert union.total > 20_000
    values = {p: Fraction(3, 2) for p in union.pairs}
    found = union.projection(values, deadline=0.0)
    assert not found.exact
    assert brute.is_legal(doc, "attackers", dict(found.amounts))
    assert found.distance >= union.projection(values).distance
