"""best_block's floor that knows which blockers are free (solver/blocks/set_floor.py)
against a plain enumeration of every way to give the units disjoint gangs, and
best_block against the brute force on boards whose lifelink blockers strike twice,
assign their toughness or have their damage multiplied (the floor's bound on the life
they gain); and the value of one play alone, which ranks the gangs, against the table
that values it."""

from __future__ import annotations

import itertools

import brute_blocks
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from strategies_blocks import boards, plan_cost

from trample.models.document.board import Board
from trample.solver.blocks.outcome import Outcome, Profile
from trample.solver.blocks.set_floor import SetFloors, UnitPlays
from trample.solver.blocks.value import BLOCK_TERMS, Evaluator
from trample.solver.interface import api

FLOORS = settings(max_examples=150, derandomize=True, deadline=None,
                  suppress_health_check=[HealthCheck.too_slow])
NO_LINE: tuple[dict[str, int], dict[str, int], dict[str, int], dict[str, int]] = (
    {}, {}, {}, {})


def outcome(players: tuple[int, int, int], terms: tuple[int, ...]) -> Outcome:
    return Outcome(((*players, False),), terms, NO_LINE)


@st.composite
def plays(draw: st.DrawFn, terms: int) -> Outcome:
    n1 = draw(st.integers(-3, 6))
    return outcome((n1, n1 + draw(st.integers(-2, 4)), draw(st.integers(0, 2))),
                   tuple(draw(st.integers(-6, 6)) for _ in range(terms)))


@st.composite
def units(draw: st.DrawFn) -> tuple[list[UnitPlays], int, int]:
    """2-3 units over 3-5 blockers: each a list of gangs with a play, maybe the gangs too
    large to list (the base and the blockers' shares), maybe a unit of several attackers
    (its fixed floor only)."""
    blockers = draw(st.integers(3, 5))
    terms = draw(st.integers(1, 3))
    made = []
    for _ in range(draw(st.integers(2, 3))):
        able = draw(st.integers(0, (1 << blockers) - 1))
        base = outcome((0, 0, 0), tuple(draw(st.integers(-5, 0)) for _ in range(terms)))
        shares = []
        for j in range(blockers):
            if able >> j & 1 and draw(st.booleans()):
                gain = draw(st.integers(-4, 0))
                shares.append((1 << j, outcome((gain, gain, 0),
                                               tuple(draw(st.integers(-2, 0))
                                                     for _ in range(terms)))))
        fixed = Outcome(((sum(s.players[0][0] for _, s in shares),
                          sum(s.players[0][1] for _, s in shares), 0, False),),
                        tuple(base.terms[i] + sum(s.terms[i] for _, s in shares)
                              for i in range(terms)), NO_LINE)
        if draw(st.integers(0, 4)) == 0:
            made.append(UnitPlays([], [], fixed, None, able, base, shares))
            continue
        top = draw(st.integers(0, bin(able).count("1")))
        members = [1 << j for j in range(blockers) if able >> j & 1]
        gangs = [sum(c) for k in range(top + 1) for c in itertools.combinations(members, k)]
        big = top + 1 if top < len(members) else None
        made.append(UnitPlays(gangs, [draw(plays(terms)) for _ in gangs], fixed, big, able,
                              base, shares))
    return made, blockers, terms


def ways(made: list[UnitPlays], u: int, free: int):  # type: ignore[no-untyped-def]
    """Every way to give units ``u``.. disjoint gangs within ``free``: the outcomes, one
    per unit, as lists."""
    if u == len(made):
        yield []
        return
    unit = made[u]
    if not unit.gangs and unit.big is None:
        for rest in ways(made, u + 1, free):
            yield [unit.fixed, *rest]
        return
    for gang, play in zip(unit.gangs, unit.plays, strict=True):
        if gang & ~free == 0:
            for rest in ways(made, u + 1, free & ~gang):
                yield [play, *rest]
    if unit.big is not None:
        mine = unit.able & free
        members = [1 << j for j in range(mine.bit_length()) if mine >> j & 1]
        for k in range(unit.big, len(members) + 1):
            for taken in itertools.combinations(members, k):
                gang = sum(taken)
                share = [o for bit, o in unit.shares if gang & bit]
                floor = Outcome(
                    ((sum(o.players[0][0] for o in share), sum(o.players[0][1] for o in share),
                      0, False),),
                    tuple(unit.base.terms[i] + sum(o.terms[i] for o in share)
                          for i in range(len(unit.base.terms))), NO_LINE)
                for rest in ways(made, u + 1, free & ~gang):
                    yield [floor, *rest]


def total(way: list[Outcome]) -> tuple[tuple[int, int, int], tuple[int, ...]]:
    return (tuple(sum(o.players[0][k] for o in way) for k in range(3)),  # type: ignore[return-value]
            tuple(sum(o.terms[i] for o in way) for i in range(len(way[0].terms))))


@FLOORS
@given(drawn=units(), data=st.data())
def test_the_floor_is_the_least_over_every_way_to_share_the_free_blockers(
        drawn: tuple[list[UnitPlays], int, int], data: st.DataObject) -> None:
    made, blockers, terms = drawn
    at_life = data.draw(st.integers(1, 12))
    least_total = data.draw(st.integers(-20, 0))
    sets = SetFloors(made, blockers, 1, terms, None, life=(at_life - 1, least_total))
    assert sets.ok and sets.digits == terms  # small numbers: every term is a digit
    most = sum(max(0, *(o.players[0][1] for o in [*m.plays, m.fixed])) for m in made)
    exact = sets.life_high >= most  # else the columns stop short of every amount

    def code(terms: tuple[int, ...]) -> int:
        return sets.code(Outcome(((0, 0, 0, False),), terms, NO_LINE))

    for u in range(len(made)):
        for free in range(1 << blockers):
            sums = [total(w) for w in ways(made, u, free)]
            floor = sets.floor(u, free)
            assert floor is not None
            assert floor.terms == min(t for _, t in sums)
            assert floor.players[0][:3] == tuple(min(p[k] for p, _ in sums) for k in range(3))
            for budget in range(at_life - 1 - (least_total + 8), at_life - least_total + 4):
                within = [t for p, t in sums if p[1] <= budget]
                found = sets.life_code(u, free, budget)
                if exact or budget <= sets.life_low:
                    assert found == (code(min(within)) if within else None)
                else:
                    # A floor: no more than the least within the budget, no less than
                    # the least of all.
                    assert found is None or code(min(t for _, t in sums)) <= found
                    assert not within or (found is not None and found <= code(min(within)))


@FLOORS
@given(data=st.data())
def test_above_orders_integers_as_the_vectors_they_encode(data: st.DataObject) -> None:
    terms = data.draw(st.integers(1, 4))
    lows = [data.draw(st.integers(-9, 0)) for _ in range(terms)]
    highs = [data.draw(st.integers(0, 9)) for _ in range(terms)]
    # One unit whose plays span the box: its corners.
    corners = [outcome((0, 0, 0), tuple(lows)), outcome((0, 0, 0), tuple(highs))]
    unit = UnitPlays([0, 0], corners, corners[0], None, 0, corners[0], [])
    sets = SetFloors([unit], 1, 1, terms)
    inside = tuple(data.draw(st.integers(lo, hi)) for lo, hi in zip(lows, highs, strict=True))
    gap = tuple(data.draw(st.integers(-12, 12)) for _ in range(terms))
    # With every term a digit, the terms past them are none.
    assert sets.digits == terms
    code = sets.code(outcome((0, 0, 0), inside))
    assert (code > sets.above(gap, 0)) == (inside > gap)


@st.composite
def lifelink_boards(draw: st.DrawFn) -> dict:
    """Tiny boards whose blockers have lifelink, sometimes double strike, sometimes
    assign their toughness, sometimes have their damage multiplied."""
    doc = draw(boards())
    multipliers = []
    for c in doc["creatures"]:
        if c["controller"] == "ap":
            continue
        keywords = c.setdefault("keywords", [])
        if "lifelink" not in keywords and draw(st.integers(0, 2)):
            keywords.append("lifelink")
        if "double strike" not in keywords and draw(st.integers(0, 3)) == 0:
            keywords.append("double strike")
        if draw(st.integers(0, 3)) == 0:
            c["assigns"] = "toughness"
        if draw(st.integers(0, 4)) == 0:
            multipliers.append({"source": c["id"], "target": "*", "factor": 2})
    if multipliers:
        doc["multipliers"] = multipliers
    return doc


@settings(max_examples=150, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(doc=lifelink_boards())
def test_best_block_with_lifelink_blockers_is_the_brute_forces(doc: dict) -> None:
    assume(plan_cost(doc) <= 400)
    value, first, ties = brute_blocks.best_block(doc, None)
    got = api.best_block(doc, ties=True)
    assert "error" not in got, got
    assert {(p["blocker"], p["attacker"]) for p in got["blocks"]} == first
    assert got["ties"] == ties
    assert tuple(got["objective"].values()) == value


@settings(max_examples=80, derandomize=True, deadline=None,
          suppress_health_check=[HealthCheck.too_slow])
@given(doc=boards(), data=st.data())
def test_a_play_alone_is_valued_as_the_table_of_it_alone(doc: dict,
                                                         data: st.DataObject) -> None:
    """Totals.alone, which ranks the gangs, is the value of the one-part table."""
    board = Board.from_json(doc)
    ev = Evaluator(board, BLOCK_TERMS)
    totals = ev.totals(range(len(ev.opponents)))
    for _ in range(3):
        players = tuple((data.draw(st.integers(-30, 30)), data.draw(st.integers(-30, 30)),
                         data.draw(st.integers(0, 12)), data.draw(st.booleans()))
                        for _ in ev.opponents)
        play = Outcome(players, tuple(data.draw(st.integers(-9, 9)) for _ in ev.rest),
                       NO_LINE)
        assert totals.alone(play) == totals.best(totals.add(totals.start(),
                                                            Profile((play,))))[0]
