"""An attacker that may assign as though it weren't blocked (Thorn Elemental): count,
enumerate, sample, rank, unrank, count with fixed amounts, options, project, pair_order
and validate_many over the union of its two sets of splits, against the brute force of
``brute.py`` and ``brute_actions.py``."""

from __future__ import annotations

import copy
import random
from fractions import Fraction
from itertools import product
from typing import Any

import brute_actions
import numpy as np
import pytest
from documents import combat, creature
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from trample.models.document.errors import InputError
from trample.solver.actions import union
from trample.solver.actions.splits import Actions, parse_values
from trample.solver.count.census import Census
from trample.solver.count.work import CountOutOfReach
from trample.solver.interface import api
from trample.solver.rules.legal_space import legal_space, mode_space, modes_of
from trample.solver.rules.validate import violations
from trample.solver.rules.validate_many import legal_rows

import brute
from strategies import combats

A, B = "attackers", "blockers"


def thorn(power: int = 5, keywords: tuple[str, ...] = (), attacking: str = "dp",
          **extra: Any) -> dict:
    return creature("thorn", "ap", power, power, keywords=list(keywords),
                    attacking=attacking, as_though_unblocked=True, **extra)


JACE = {"id": "jace", "controller": "dp", "loyalty": 2}
GONE = {"id": "jace", "controller": "dp", "loyalty": 2, "in_combat": False}

CASES: dict[str, dict] = {
    # Non-trampling Thorn with two blockers: its blockers, then the player.
    "plain": combat([thorn(), creature("x", "dp", 2, 2, blocking=["thorn"]),
                     creature("y", "dp", 2, 2, blocking=["thorn"])]),
    "trample": combat([thorn(keywords=("trample",)),
                       creature("x", "dp", 2, 2, blocking=["thorn"]),
                       creature("y", "dp", 2, 2, blocking=["thorn"])]),
    "deathtouch trample": combat([thorn(4, ("trample", "deathtouch")),
                                  creature("x", "dp", 2, 2, blocking=["thorn"]),
                                  creature("y", "dp", 3, 3, blocking=["thorn"])]),
    # Blockers all gone: as blocked it assigns nothing (or, trampling, all past them).
    "blockers gone": combat([thorn(3, blocked=True)]),
    "blockers gone, trample": combat([thorn(3, ("trample",), blocked=True)]),
    # Its blocker already has lethal damage marked: as blocked, any split of 3.
    "blocker marked": combat([thorn(3, ("trample",)),
                              creature("x", "dp", 2, 2, damage=2, blocking=["thorn"])]),
    # Blockers gone and what it attacks out of combat: it assigns nothing either way.
    "nothing to assign to": combat([thorn(3, attacking="jace", blocked=True),
                                    creature("o", "ap", 2, 2, attacking="dp")], (GONE,)),
    "over planeswalkers": combat([thorn(4, ("trample over planeswalkers",), "jace"),
                                  creature("x", "dp", 1, 1, blocking=["thorn"])], (JACE,)),
    "over planeswalkers, with imp": combat([
        thorn(4, ("trample over planeswalkers",), "jace"),
        creature("x", "dp", 1, 1, blocking=["thorn"]),
        creature("imp", "ap", 2, 2, attacking="jace")], (JACE,)),
    "planeswalker gone": combat([thorn(3, attacking="jace"),
                                 creature("x", "dp", 2, 2, blocking=["thorn"])], (GONE,)),
    "planeswalker gone, over planeswalkers": combat([
        thorn(3, ("trample over planeswalkers",), "jace"),
        creature("x", "dp", 2, 2, blocking=["thorn"])], (GONE,)),
    # Coupled: z blocks Thorn and a trampler, whose damage past z needs z lethal.
    "coupled": combat([thorn(3, ("trample",)),
                       creature("t", "ap", 3, 3, keywords=["trample"], attacking="dp"),
                       creature("z", "dp", 2, 2, blocking=["thorn", "t"]),
                       creature("w", "dp", 1, 1, blocking=["t"])]),
    "two thorns": combat([thorn(3, ("trample",)),
                          creature("thorn2", "ap", 3, 3, attacking="dp",
                                   as_though_unblocked=True),
                          creature("z", "dp", 2, 2, blocking=["thorn", "thorn2"]),
                          creature("w", "dp", 1, 1, blocking=["thorn2"])]),
    "two thorns, one unblocked": combat([
        thorn(3), creature("free", "ap", 2, 2, attacking="dp", as_though_unblocked=True),
        creature("z", "dp", 1, 2, blocking=["thorn"])]),
}


def _order(doc: dict, side: str = A) -> tuple[list, list]:
    """pair_order (checked against the brute force's) and enumerate's vectors (checked to
    be exactly the brute force's legal assignments, once each, and ascending)."""
    pairs = [tuple(p) for p in api.pairs(doc, side=side)["pairs"]]
    assert pairs == brute_actions.pair_order(doc, side)
    listed = [a["assignment"] for a in api.enumerate_assignments(doc, side=side)]
    vectors = brute_actions.ordered(doc, side, pairs, listed)
    assert vectors == sorted(vectors)
    return pairs, vectors


def _entries(fixed: dict) -> list[dict]:
    return [{"source": s, "target": t, "amount": a} for (s, t), a in fixed.items()]


@pytest.mark.parametrize("name", sorted(CASES))
def test_count_enumerate_rank_unrank(name: str) -> None:
    doc = CASES[name]
    assert legal_space(api.Combat.from_json(doc), A).alternatives
    pairs, order = _order(doc)
    handle = api.prepare(doc, side=A)
    assert handle.count() == api.count(doc, side=A) == {"count": len(order)}
    for i, vector in enumerate(order):
        got = handle.unrank(i)["assignment"]
        assert brute_actions.as_vector(pairs, got) == vector
        assert handle.rank(got) == {"index": i}
    with pytest.raises(InputError, match=r"^index"):
        handle.unrank(len(order))


def test_known_counts() -> None:
    # As blocked, 5 split between x and y (6 ways), as unblocked all to dp; over
    # planeswalkers, 5 as blocked and 3 as unblocked (the brute force's own tests).
    assert api.count(CASES["plain"], side=A) == {"count": 6 + 1}
    assert api.count(CASES["over planeswalkers"], side=A) == {"count": 8}
    assert api.pairs(CASES["plain"], side=A)["pairs"] == [
        ["thorn", "x"], ["thorn", "y"], ["thorn", "dp"]]


@pytest.mark.parametrize("name", sorted(CASES))
def test_count_and_options_with_fixed_amounts(name: str) -> None:
    doc = CASES[name]
    pairs, order = _order(doc)
    handle = api.prepare(doc, side=A)
    rng = random.Random(name)
    for _ in range(12):
        model = rng.choice(order)
        chosen = rng.sample(range(len(pairs)), rng.randint(0, len(pairs)))
        fixed = {pairs[j]: (model[j] if rng.random() < 0.7 else rng.randint(0, 3))
                 for j in chosen}
        expected = brute_actions.count(pairs, order, fixed)
        assert handle.count(_entries(fixed)) == {"count": expected}
        for pair in pairs:
            got = handle.options(_entries(fixed), list(pair))["amounts"]
            assert got == brute_actions.options(pairs, order, fixed, pair)
            assert sum(n for _, n in got) == expected


@pytest.mark.parametrize("name", sorted(CASES))
def test_walk_and_sort_give_the_same_order(name: str) -> None:
    space = api.space_of(CASES[name], A)
    sorted_ = list(union.UnionActions(space).enumerate())
    walked = list(union.UnionActions(space, sort_limit=0).enumerate())
    assert walked == sorted_


@pytest.mark.parametrize("name", sorted(CASES))
def test_samples_are_legal_and_cover_small_spaces(name: str, monkeypatch: pytest.MonkeyPatch
                                                  ) -> None:
    doc = CASES[name]
    pairs, order = _order(doc)
    draws = [brute_actions.as_vector(pairs, d["assignment"])
             for d in api.sample(doc, side=A, n=40 * len(order), seed=7)]
    assert set(draws) == set(order)  # every split, none other (a fixed seed: no flakes)
    again = [brute_actions.as_vector(pairs, d["assignment"])
             for d in api.sample(doc, side=A, n=40 * len(order), seed=7)]
    assert again == draws
    # Drawing pair by pair (the fallback when a piece is a small share of its space).
    monkeypatch.setattr(union, "REJECTIONS", 0)
    space = api.space_of(doc, A)
    u, rng = union.UnionActions(space), random.Random(3)
    drawn = {tuple(s.get(p, 0) for p in pairs) for s in (u.sample(rng)
                                                         for _ in range(40 * len(order)))}
    assert drawn == set(order)


@pytest.mark.parametrize("name", sorted(CASES))
def test_validate_many_is_validate_per_row(name: str) -> None:
    doc = CASES[name]
    pairs, order = _order(doc)
    space = api.space_of(doc, A)
    top = max(c["power"] for c in doc["creatures"])
    rows = [v for v in product(range(top + 1), repeat=len(pairs))][:4000]
    rows += [tuple(-1 if j == 0 else 0 for j in range(len(pairs)))]
    mask = legal_rows(space, np.array(rows, dtype=np.int64))
    for row, ok in zip(rows, mask, strict=True):
        amounts = {p: a for p, a in zip(pairs, row, strict=True) if a}
        expected = min(row) >= 0 and not violations(space, amounts)
        assert bool(ok) == expected, row
        if min(row) >= 0:
            assert expected == (row in set(order))
    with pytest.raises(ValueError, match="shape"):
        legal_rows(space, np.zeros((1, len(pairs) + 1), dtype=np.int64))


def _values(rng: random.Random, pairs: list) -> dict:
    out: dict = {}
    for p in pairs:
        if rng.random() < 0.7:
            out[p] = Fraction(rng.randint(-4, 20), rng.choice([1, 1, 2, 3]))
    return out


@pytest.mark.parametrize("name", sorted(CASES))
def test_project_is_the_nearest_then_best_then_first(name: str) -> None:
    doc = CASES[name]
    pairs, order = _order(doc)
    space = api.space_of(doc, A)
    u = union.UnionActions(space)
    rng = random.Random(name)
    for trial in range(6):
        values = _values(rng, pairs) if trial else {}
        vector, d = brute_actions.project(doc, A, pairs, order, values)
        for limit in (10**6, 0):  # by inspection, then with CP-SAT per mode space
            got, distance = u.project(values, exhaustive_limit=limit)
            assert tuple(got.get(p, 0) for p in pairs) == vector, limit
            assert distance == d
    raw = [{"source": "thorn", "target": pairs[-1][1], "amount": 100}]
    answer = api.project(doc, raw, side=A)
    assert api.validate(doc, answer["assignment"], side=A)["legal"]


def test_order_is_ascending_lexicographic() -> None:
    # Plain Thorn, 5 damage, 2/2 blockers x and y: every (x, 5 - x, 0), then (0, 0, 5).
    got = [brute_actions.as_vector([("thorn", "x"), ("thorn", "y"), ("thorn", "dp")],
                                   a["assignment"])
           for a in api.enumerate_assignments(CASES["plain"], side=A)]
    assert got == [(0, 0, 5), *((x, 5 - x, 0) for x in range(6))]
    assert api.rank(CASES["plain"], [{"source": "thorn", "target": "dp", "amount": 5}],
                    side=A) == {"index": 0}


def test_invalid_input_keeps_its_messages() -> None:
    doc = CASES["plain"]
    with pytest.raises(InputError, match="is not legal, so it has no index"):
        api.rank(doc, [{"source": "thorn", "target": "x", "amount": 2},
                       {"source": "thorn", "target": "dp", "amount": 3}], side=A)
    with pytest.raises(InputError, match=r"not a legal \(source, recipient\) pair"):
        api.count_fixed(doc, [{"source": "x", "target": "thorn", "amount": 0}], side=A)
    with pytest.raises(InputError, match=r"^index|must be at least 0"):
        api.unrank(doc, -1, side=A)
    # A pair only the splits as unblocked use is a pair of pair_order.
    assert api.count_fixed(doc, [{"source": "thorn", "target": "dp", "amount": 5}],
                           side=A) == {"count": 1}
    assert api.options(doc, [], ["thorn", "dp"], side=A)["amounts"] == [[0, 6], [5, 1]]


def test_plain_spaces_are_untouched() -> None:
    # Without the flag: no union, the Census's order, nothing built for the union.
    doc = copy.deepcopy(CASES["coupled"])
    del doc["creatures"][0]["as_though_unblocked"]
    space = api.space_of(doc, A)
    assert not space.alternatives
    assert isinstance(union.census_of(space), Census)
    assert isinstance(api.prepare(doc, side=A).actions, Actions)
    assert [dict(a) for a in Census(space).enumerate()] == list(
        union.census_of(space).enumerate())
    assert not any(k.startswith("union") for k in space.memo)
    # The blockers' side of a Thorn combat is plain too.
    assert not api.space_of(CASES["coupled"], B).alternatives


def test_too_many_terms_are_refused_with_their_number() -> None:
    # Eight Thorns that one creature blocks: 3^8 = 6561 counts to add up.
    creatures = [creature(f"t{i}", "ap", 1, 1, attacking="dp", as_though_unblocked=True)
                 for i in range(8)]
    creatures.append(creature("z", "dp", 1, 1, blocking=[f"t{i}" for i in range(8)]))
    doc = combat(creatures)
    with pytest.raises(CountOutOfReach, match="6,561 counts"):
        api.count(doc, side=A)
    with pytest.raises(CountOutOfReach, match="6,561 counts"):
        api.unrank(doc, 0, side=A)
    # Judging needs no count.
    assert len(api.pair_order(doc, side=A)) == 16
    assert api.validate(doc, [{"source": f"t{i}", "target": "dp", "amount": 1}
                              for i in range(8)], side=A)["legal"]


def test_independent_thorns_are_counted_apart() -> None:
    # Eight Thorns, each with its own 1/1 blocker: each gives its 1 to it or to dp, 2^8
    # in all, from 8 * 3 counts (not 3^8).
    creatures = []
    for i in range(8):
        creatures.append(creature(f"t{i}", "ap", 1, 1, attacking="dp",
                                  as_though_unblocked=True))
        creatures.append(creature(f"b{i}", "dp", 1, 1, blocking=[f"t{i}"]))
    doc = combat(creatures)
    space = api.space_of(doc, A)
    assert union.terms_needed(space) == 24
    u = union.UnionActions(space)
    assert u.count() == 256
    pairs = u.pairs
    vectors = [tuple(a.get(p, 0) for p in pairs) for a in u.enumerate()]
    assert vectors == sorted(set(vectors)) and len(vectors) == 256
    assert all(u.rank(u.unrank(i)) == i for i in range(0, 256, 17))
    fixed = {("t0", "dp"): 1, ("t3", "b3"): 1}
    assert u.count(fixed) == 64
    assert u.options(fixed, ("t5", "dp")) == [(0, 32), (1, 32)]


def test_plan_enumerates_the_union() -> None:
    from trample.solver.actions.plan import _count, splits

    # 5 trample damage, 2/2s x and y: 6 splits between them, (2, 2, 1) past them as
    # blocked, and all 5 to dp as unblocked.
    doc = CASES["trample"]
    parsed = api.Combat.from_json(doc)
    assert _count(parsed, A) == 8
    assert sorted(map(sorted, (a.items() for a in splits(parsed, A)))) == sorted(
        sorted({(s, t): n for s, t, n in a}.items())
        for a in brute.legal_assignments(doc, A))


@pytest.mark.parametrize("name", ["plain", "trample", "over planeswalkers", "coupled",
                                  "wall"])
def test_plan_searches_the_union(name: str) -> None:
    import brute_plan

    # "wall": a 3/3 Thorn blocked by a 0/5 wall it cannot kill: only as though unblocked
    # does its damage do anything (3 life).
    doc = CASES.get(name) or combat([thorn(3), creature("wall", "dp", 0, 5,
                                                        blocking=["thorn"])])
    found = api.plan(doc)
    assert tuple(found["objective"].values()) == brute_plan.plan_value(doc)
    if name == "wall":
        assert found["objective"]["life_loss"] == 3


@st.composite
def thorn_combats(draw: Any) -> dict:
    """Small combats with as_though_unblocked on some blocked attackers."""
    doc = draw(combats(max_sources=3, rich=True))
    blocked = {a for c in doc["creatures"] for a in c.get("blocking", ())}
    flagged = False
    for c in doc["creatures"]:
        attacked = "attacking" in c and (c["id"] in blocked or c.get("blocked") is True)
        if attacked and draw(st.booleans()):
            c["as_though_unblocked"] = True
            flagged = True
    assume(flagged)
    return doc


def _small(doc: dict, side: str) -> bool:
    try:
        space = api.space_of(doc, side)
        return bool(space.alternatives) and api.count(doc, side=side)["count"] <= 600
    except (CountOutOfReach, InputError):
        return False


@settings(max_examples=30, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(thorn_combats(), st.randoms(use_true_random=False))
def test_generated_thorn_combats_agree_with_the_brute_force(doc: dict, rng: random.Random
                                                            ) -> None:
    assume(_small(doc, A))
    pairs, order = _order(doc)
    handle = api.prepare(doc, side=A)
    assert handle.count() == {"count": len(order)}
    for i in rng.sample(range(len(order)), min(len(order), 12)):
        got = handle.unrank(i)["assignment"]
        assert brute_actions.as_vector(pairs, got) == order[i]
        assert handle.rank(got) == {"index": i}
    space = api.space_of(doc, A)
    for vector in rng.sample(order, min(len(order), 5)):
        amounts = {p: a for p, a in zip(pairs, vector, strict=True) if a}
        # Every legal split lies in the piece modes_of names, legal in its mode space.
        assert not violations(mode_space(space, modes_of(space, amounts)), amounts)
        fixed = {p: a for p, a in amounts.items() if rng.random() < 0.5}
        fixed.update({p: 0 for p in pairs if p not in amounts and rng.random() < 0.3})
        assert handle.count(_entries(fixed)) == {
            "count": brute_actions.count(pairs, order, fixed)}
        if not pairs:  # nothing assigns anything: the one split is the empty one
            break
        pair = rng.choice(pairs)
        assert handle.options(_entries(fixed), list(pair))["amounts"] == \
            brute_actions.options(pairs, order, fixed, pair)
    mask = handle.validate_many(np.array(order, dtype=np.int64))
    assert mask.all()
    for d in handle.sample(n=5, seed=rng.randrange(100)):
        assert brute.is_legal(doc, A, {(e["source"], e["target"]): e["amount"]
                                       for e in d["assignment"]})
    values = parse_values(space, [{"source": s, "target": t, "amount": float(v)}
                                  for (s, t), v in _values(rng, pairs).items()])
    vector, d = brute_actions.project(doc, A, pairs, order, values)
    got, distance = union.UnionActions(space).project(values)
    assert (tuple(got.get(p, 0) for p in pairs), distance) == (vector, d)


def test_serve_methods_see_the_union() -> None:
    from trample.solver.interface import serve

    doc = CASES["coupled"]
    pairs, order = _order(doc)

    def ask(method: str, **params: Any) -> Any:
        answer = serve.handle({"jsonrpc": "2.0", "id": 1, "method": method,
                               "params": {"combat": doc, "side": A, **params}})
        assert answer is not None
        return answer.get("result", answer.get("error"))

    assert ask("count") == {"count": len(order)}
    assert ask("pair_order") == {"pairs": [list(p) for p in pairs]}
    listed = ask("enumerate", limit=len(order) + 1)["assignments"]
    assert [brute_actions.as_vector(pairs, a) for a in listed] == order
    last = ask("unrank", index=len(order) - 1)["assignment"]
    assert brute_actions.as_vector(pairs, last) == order[-1]
    assert ask("rank", assignment=last) == {"index": len(order) - 1}
    assert ask("options", fixed=[], pair=list(pairs[0]))["amounts"] == \
        brute_actions.options(pairs, order, {}, pairs[0])
    for drawn in ask("sample", n=5, seed=1)["assignments"]:
        assert brute_actions.as_vector(pairs, drawn) in order
    assert ask("unrank", index=len(order))["code"] == -32602


def test_split_actions_decode_and_encode_the_union() -> None:
    pytest.importorskip("gymnasium")
    from trample.solver.interface.rl import SplitActions

    doc = CASES["over planeswalkers, with imp"]
    pairs, order = _order(doc)
    actions = SplitActions(doc, side=A)
    assert actions.pairs == pairs
    assert actions.count == len(order)
    for i, vector in enumerate(order):
        assert tuple(actions.decode(i)) == vector
        assert actions.encode(vector) == i
    weights = actions.weights([], 8)
    assert weights.sum() == pytest.approx(1.0)
