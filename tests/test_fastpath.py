"""The lone source's exact method (trample.solver.optimize.fastpath): the knapsack by kind of
blockers against plain enumeration and against a 0/1 table over every blocker, and whole
lone splits against the brute-force oracle (tests/brute.py)."""

from __future__ import annotations

import itertools
import subprocess
import sys
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from trample.models.document.combat import Combat
from trample.solver.interface import api
from trample.solver.optimize import fastpath
from trample.solver.rules.legal_space import legal_space

import brute
from strategies import lone_sources

ROOT = Path(__file__).resolve().parent.parent
ALL_TERMS = brute.default_objective("attackers")
QUICK = settings(max_examples=150, deadline=None,
                 suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def table_knapsack(costs: list[int], values: list[int], capacity: int) -> int:
    """The best total value by a 0/1 table over every blocker (no grouping): the method
    the knapsack by kind replaced, kept here as a reference."""
    best = np.zeros(capacity + 1, dtype=np.int64)
    for cost, value in zip(costs, values, strict=True):
        if value > 0 and cost <= capacity:
            best[cost:] = np.maximum(best[cost:], best[: capacity + 1 - cost] + value)
    return int(best[capacity])


def enumerated(costs: list[int], values: list[int], capacity: int) -> int:
    """The best total value over every subset."""
    best = 0
    for mask in itertools.product((0, 1), repeat=len(costs)):
        if sum(c for c, m in zip(costs, mask, strict=True) if m) <= capacity:
            best = max(best, sum(v for v, m in zip(values, mask, strict=True) if m))
    return best


def check_choice(costs: list[int], values: list[int], capacity: int) -> int:
    chosen = fastpath._knapsack(costs, values, capacity)
    assert chosen is not None
    assert len(set(chosen)) == len(chosen)
    assert sum(costs[i] for i in chosen) <= capacity
    assert all(values[i] > 0 for i in chosen)
    return sum(values[i] for i in chosen)


# Few kinds, so that many blockers are interchangeable (the grouping is exercised).
KINDS = st.lists(st.tuples(st.integers(1, 7), st.integers(-3, 9)), min_size=1, max_size=4)


@QUICK
@given(kinds=KINDS, data=st.data())
def test_knapsack_by_kind_matches_enumeration(kinds: list[tuple[int, int]],
                                              data: st.DataObject) -> None:
    picks = data.draw(st.lists(st.integers(0, len(kinds) - 1), max_size=12))
    costs = [kinds[k][0] for k in picks]
    values = [kinds[k][1] for k in picks]
    capacity = data.draw(st.integers(0, 40))
    assert check_choice(costs, values, capacity) == enumerated(costs, values, capacity)


@settings(max_examples=40, deadline=None)
@given(kinds=st.lists(st.tuples(st.integers(1, 30), st.integers(-5, 50)), min_size=1,
                      max_size=12),
       seed=st.integers(0, 2**32 - 1), n=st.integers(50, 600), share=st.floats(0.1, 0.9))
def test_knapsack_by_kind_matches_the_table_on_medium_ones(
        kinds: list[tuple[int, int]], seed: int, n: int, share: float) -> None:
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, len(kinds), n)
    costs = [kinds[k][0] for k in picks]
    values = [kinds[k][1] for k in picks]
    capacity = int(share * sum(costs))
    assert check_choice(costs, values, capacity) == table_knapsack(costs, values, capacity)


def test_knapsack_gcd_and_huge_power_with_few_kinds() -> None:
    # Costs sharing a factor, a capacity far beyond any table: grouped, scaled, exact.
    costs = [10**6, 2 * 10**6, 3 * 10**6] * 400
    values = [1, 3, 4] * 400
    capacity = 1_500 * 10**6 + 999_999
    chosen = check_choice(costs, values, capacity)
    # Reference on the scaled problem (costs 1, 2, 3; capacity 1,500).
    assert chosen == table_knapsack([c // 10**6 for c in costs], values, 1_500)
    # Everything fits: taken without a table, whatever the power.
    assert check_choice(costs, values, 10**12) == sum(values)


def test_knapsack_keeps_the_best_of_each_cost() -> None:
    # 5,000 blockers of cost 2 and distinct values: only the best capacity // 2 matter.
    costs = [2] * 5_000
    values = list(range(1, 5_001))
    assert check_choice(costs, values, 21) == sum(range(4_991, 5_001))


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), n=st.integers(1, 70), widest=st.integers(2, 400),
       share=st.floats(0.0, 1.0))
# Rows past STEP_ARRAYS steps as arrays, then a row of fewer steps (in the compiled build
# merge_steps took the array and raised).
@example(seed=0, n=39, widest=17, share=0.265625)
def test_the_steps_choose_as_the_table(seed: int, n: int, widest: int,
                                       share: float) -> None:
    """Row by row as step functions (plain Python for a few steps, NumPy for many), the
    knapsack picks the very subset the table picks, not only one of the same value."""
    rng = np.random.default_rng(seed)
    costs = [int(c) for c in rng.integers(1, widest + 1, n)]
    values = [int(v) for v in rng.integers(-3, 40, n)]
    capacity = int(share * sum(costs))
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(fastpath, "STEP_STATES", 0)
        patch.setattr(fastpath, "STEP_SHARE", 2**62)
        table = fastpath._knapsack(costs, values, capacity)
        patch.setattr(fastpath, "STEP_STATES", 2**62)
        steps = fastpath._knapsack(costs, values, capacity)
    assert steps == table


@settings(max_examples=60, deadline=None)
@given(costs=st.lists(st.integers(2**28, 2**34), min_size=1, max_size=11),
       values=st.lists(st.integers(-3, 2**20), min_size=11, max_size=11),
       share=st.floats(0.0, 1.0))
def test_wide_amounts_on_few_blockers_are_exact_past_any_table(
        costs: list[int], values: list[int], share: float) -> None:
    """Amounts of 2^28 to 2^34 (a table of billions of cells) on up to 11 blockers: a few
    steps, and the enumeration's optimum."""
    values = values[: len(costs)]
    capacity = int(share * sum(costs))
    assert check_choice(costs, values, capacity) == enumerated(costs, values, capacity)


def test_too_many_steps_past_the_table_are_left_to_cp_sat(
        monkeypatch: pytest.MonkeyPatch) -> None:
    costs = [2**33 + 7 * k * k for k in range(12)]
    values = [1 + k for k in range(12)]
    capacity = sum(costs) // 2
    assert len(costs) * capacity > fastpath.MAX_CELLS
    assert check_choice(costs, values, capacity) == enumerated(costs, values, capacity)
    monkeypatch.setattr(fastpath, "STEP_MOST", 20)
    assert fastpath._knapsack(costs, values, capacity) is None


def test_too_large_values_are_left_to_cp_sat() -> None:
    assert fastpath._knapsack([1, 1], [2**62, 2**62], 1) is None


def space_and_source(doc: dict[str, Any], side: str = "attackers") -> tuple[Any, Any]:
    space = legal_space(Combat.from_json(doc), side)
    return space, space.sources[0]


@st.composite
def lone_tramplers(draw: st.DrawFn) -> dict[str, Any]:
    """One trampler (or not) on a player, a planeswalker or a battle, blocked by up to six
    creatures of at most three kinds: many interchangeable blockers, negative values,
    indestructible ones, deathtouch, marked damage."""
    keywords = draw(st.lists(st.sampled_from(["trample", "trample over planeswalkers",
                                              "deathtouch"]), max_size=2, unique=True))
    target = draw(st.sampled_from(["d", "pw", "bt"]))
    creatures: list[dict[str, Any]] = [
        {"id": "x", "controller": "a", "power": draw(st.integers(1, 9)), "toughness": 3,
         "keywords": keywords, "attacking": target}]
    kinds = draw(st.lists(st.fixed_dictionaries({
        "toughness": st.integers(0, 4), "damage": st.integers(0, 2),
        "value": st.integers(-2, 4),
        "keywords": st.sampled_from([[], [], ["indestructible"]])}), min_size=1, max_size=3))
    for j, k in enumerate(draw(st.lists(st.integers(0, len(kinds) - 1), min_size=1,
                                        max_size=6))):
        creatures.append({"id": f"b{j}", "controller": "d", "power": 0,
                          "blocking": ["x"], **kinds[k]})
    return {"active_player": "a",
            "players": [{"id": "a"}, {"id": "d", "life": draw(st.integers(1, 9))}],
            "creatures": creatures,
            "planeswalkers": [{"id": "pw", "controller": "d",
                               "loyalty": draw(st.integers(1, 6))}],
            "battles": [{"id": "bt", "protector": "d", "defense": draw(st.integers(1, 6))}],
            "step": "regular"}


def assert_lone_optimum(doc: dict[str, Any], side: str, terms: list[str]) -> None:
    space, source = space_and_source(doc, side)
    found = fastpath.solve_lone(space, source, terms)
    assert found is not None
    assert brute.is_legal(doc, side, dict(found))
    assert brute.objective(doc, side, dict(found), terms) == brute.optimum(doc, side, terms)


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=lone_tramplers(), data=st.data())
def test_lone_trampler_against_brute_force(doc: dict[str, Any], data: st.DataObject) -> None:
    terms = list(data.draw(st.permutations(ALL_TERMS)))
    assert_lone_optimum(doc, "attackers", terms[: data.draw(st.integers(1, len(terms)))])


@settings(max_examples=120, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=lone_sources(), side=st.sampled_from(["attackers", "blockers"]), data=st.data())
def test_lone_sources_against_brute_force(doc: dict[str, Any], side: str,
                                          data: st.DataObject) -> None:
    space = legal_space(Combat.from_json(doc), side)
    lone = [s for s in space.sources
            if not any(r.id in {q.id for o in space.sources if o is not s
                                for q in o.recipients} for r in s.recipients)]
    if len(space.sources) != 1 or not lone or not lone[0].recipients:
        return  # not a lone source (the search handles it), or one with nothing to assign to
    terms = ["kills"]
    if side == "attackers":
        terms = list(data.draw(st.permutations(ALL_TERMS)))
        terms = terms[: data.draw(st.integers(1, len(terms)))]
    assert_lone_optimum(doc, side, terms)


def wide_gang(n: int, seed: int) -> dict[str, Any]:
    rng = np.random.default_rng(seed)
    creatures: list[dict[str, Any]] = [
        {"id": "a0", "controller": "a", "power": 3 * n, "toughness": 5, "attacking": "d",
         "keywords": ["Trample"]}]
    for i in range(n):
        creature: dict[str, Any] = {"id": f"b{i}", "controller": "d", "power": 1,
                                    "toughness": int(rng.integers(1, 7)),
                                    "value": int(rng.integers(-2, 10)), "blocking": ["a0"]}
        roll = rng.random()
        if roll < 0.1:
            creature["keywords"] = ["indestructible"]
        elif roll < 0.3 and creature["toughness"] > 1:
            creature["damage"] = int(rng.integers(1, creature["toughness"]))
        creatures.append(creature)
    return {"active_player": "a", "players": [{"id": "a"}, {"id": "d", "life": 30}],
            "creatures": creatures}


@pytest.mark.parametrize("seed", range(3))
def test_medium_gang_kills_what_the_table_kills(seed: int) -> None:
    doc = wide_gang(400, seed)
    space, source = space_and_source(doc)
    found = fastpath.solve_lone(space, source, ["kills"])
    assert found is not None
    assert brute.is_legal(doc, "attackers", dict(found))
    killable = [c for c in doc["creatures"][1:]
                if "indestructible" not in c.get("keywords", [])]
    need = [c["toughness"] - c.get("damage", 0) for c in killable]
    expected = table_knapsack(need, [c["value"] for c in killable], 3 * 400)
    assert brute.objective(doc, "attackers", dict(found), ["kills"]) == (expected,)


def test_deathtouch_gang_kills_the_best_blockers() -> None:
    # Deathtouch: every blocker costs 1, so the best `power` positive values die.
    doc = wide_gang(300, 7)
    doc["creatures"][0].update(power=50, keywords=["Trample", "Deathtouch"])
    space, source = space_and_source(doc)
    found = fastpath.solve_lone(space, source, ["kills"])
    assert found is not None
    values = sorted((c["value"] for c in doc["creatures"][1:]
                     if "indestructible" not in c.get("keywords", []) and c["value"] > 0),
                    reverse=True)
    assert brute.objective(doc, "attackers", dict(found), ["kills"]) == (sum(values[:50]),)


def test_the_users_gang_is_solved_without_search() -> None:
    """One trampler of power 12,000 gang-blocked by 4,000 creatures of toughness 1-6 and
    values 1-9 (54 kinds): a 0/1 table over every blocker would need 48 million cells,
    over the old cap, so it fell to CP-SAT; by kind it is a few million."""
    doc = wide_gang(4_000, 11)
    for c in doc["creatures"][1:]:
        c.pop("keywords", None)
        c.pop("damage", None)
        c["value"] = abs(c["value"]) % 9 + 1
    space, source = space_and_source(doc)
    found = fastpath.solve_lone(space, source, ["kills"])
    assert found is not None
    assert api.solve(doc, objective=["kills"])["status"] == "optimal"


def test_gang_of_19999_fits_in_memory_and_time() -> None:
    """The largest gang block the document allows, in a subprocess with a 1 GiB address
    space on top of the interpreter's own (the healthy peak is about 80 MB resident) and a
    120 s budget (healthy: about 1 s)."""
    script = f"""
import resource, sys
sys.path.insert(0, {str(ROOT)!r})
from benchmarks import generators
from trample.solver.interface import api
doc = generators.wide_gang(19_999, 3)
soft, hard = resource.getrlimit(resource.RLIMIT_AS)
used = int(open('/proc/self/statm').read().split()[0]) * resource.getpagesize()
resource.setrlimit(resource.RLIMIT_AS, (used + 2**30, hard))
answer = api.solve(doc, time_limit=60)
print(answer["status"], "ortools.sat.python.cp_model" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=120, check=False)
    assert done.returncode == 0, done.stderr[-2000:]
    # Optimal, and without loading CP-SAT at all: the knapsack alone proved it.
    assert done.stdout.split() == ["optimal", "False"]
