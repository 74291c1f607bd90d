"""The declared order walked with the frontier program's counts
(:class:`trample.solver.count.walk.FrontierWalk`): the same order as the declared-order
table, checked against that table and the brute force on small combats where the
declared order keeps many blockers open and the frontier few; its options against the
brute force; its work bounded by a counter, never a clock."""

from __future__ import annotations

import random
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # benchmarks/ is not installed: import it from the checkout
    sys.path.insert(0, str(ROOT))

import brute_actions  # noqa: E402

from benchmarks import generators  # noqa: E402
from trample.models.document.combat import Combat  # noqa: E402
from trample.solver.actions.splits import Actions  # noqa: E402
from trample.solver.count.census import Census  # noqa: E402
from trample.solver.count.declared import PartSpace  # noqa: E402
from trample.solver.count.frontier import FrontierPart  # noqa: E402
from trample.solver.count.walk import FrontierWalk  # noqa: E402
from trample.solver.count.work import WORK_LIMIT, CountOutOfReach  # noqa: E402
from trample.solver.interface import api  # noqa: E402
from trample.solver.rules.legal_space import LegalSpace, legal_space  # noqa: E402

import brute  # noqa: E402

FEW = settings(max_examples=25, deadline=None,
               suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
LISTED = 300
"""Largest space whose every index is checked."""


@st.composite
def crossed_walls(draw: st.DrawFn) -> dict:
    """Attackers a0 .. a(2k-1) and blockers, b_i blocking a_i and a_(i+k), some of the
    rungs a_(i+k), a_(i+1) (and now and then a third attacker): in declared order every
    b_i is open from a_i to a_(i+k), k of them at once; the frontier program keeps few.
    Some attackers have deathtouch, trample over planeswalkers or no trample."""
    k = draw(st.integers(2, 3))
    attackers = [f"a{i}" for i in range(2 * k)]
    creatures: list[dict] = []
    for a in attackers:
        keywords = draw(st.lists(st.sampled_from(
            ["trample", "trample", "trample", "deathtouch", "trample over planeswalkers"]),
            max_size=2, unique=True))
        creatures.append({"id": a, "controller": "a", "power": draw(st.integers(1, 3)),
                          "toughness": 2, "keywords": keywords,
                          "attacking": draw(st.sampled_from(["d", "d", "pw"]))})
    walls = [[attackers[i], attackers[i + k]] for i in range(k)]
    # Rungs: c_i blocks a_(i+k) and a_(i+1), so that the walls make one part.
    walls += [[attackers[i + k], attackers[i + 1]] for i in range(k - 1)
              if draw(st.booleans())]
    for i, blocking in enumerate(walls):
        if draw(st.integers(0, 3)) == 0:
            extra = draw(st.sampled_from(attackers))
            if extra not in blocking:
                blocking.append(extra)
        creatures.append({"id": f"b{i}", "controller": "d", "power": 1,
                          "toughness": draw(st.integers(1, 3)),
                          "damage": draw(st.integers(0, 1)), "blocking": blocking})
    return {"active_player": "a", "players": [{"id": "a"}, {"id": "d", "life": 5}],
            "creatures": creatures,
            "planeswalkers": [{"id": "pw", "controller": "d",
                               "loyalty": draw(st.integers(1, 3))}]}


def _space(doc: dict) -> LegalSpace:
    return legal_space(Combat.from_json(doc), "attackers")


@contextmanager
def _walked() -> Iterator[None]:
    """Every part the frontier program counts is walked, never tabled."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("trample.solver.count.census.DECLARED_SHARE", 10**12)
        yield


def _small(doc: dict, limit: int) -> bool:
    try:
        return 0 < api.count(doc)["count"] <= limit
    except CountOutOfReach:
        return False


@FEW
@given(crossed_walls())
def test_the_walk_keeps_the_declared_order_of_the_table_and_the_brute_force(doc: dict
                                                                           ) -> None:
    assume(_small(doc, LISTED))
    space = _space(doc)
    tabled = Actions(space)
    assume(any(isinstance(c, FrontierPart) for c in tabled.census.counters))
    assert not any(isinstance(p, FrontierWalk) for p in tabled.parts)
    with _walked():
        walked = Actions(space)
        assert any(isinstance(p, FrontierWalk) for p in walked.parts)
    expected = list(tabled.census.enumerate())
    got = list(walked.census.enumerate())
    assert got == expected
    # ... and both are the brute force's legal assignments, each once.
    pairs = [tuple(p) for p in api.pairs(doc)["pairs"]]
    listed = [[{"source": s, "target": t, "amount": a} for (s, t), a in amounts.items()]
              for amounts in got]
    brute_actions.ordered(doc, "attackers", pairs, listed)
    assert walked.total == len(expected)
    for i, amounts in enumerate(expected):
        assert walked.unrank(i) == amounts
        assert walked.rank(amounts) == i


@FEW
@given(crossed_walls(), st.randoms())
def test_options_of_walked_parts_match_the_brute_force(doc: dict, rng: random.Random
                                                      ) -> None:
    assume(_small(doc, 1500))
    pairs = [tuple(p) for p in api.pairs(doc)["pairs"]]
    listed = [a["assignment"] for a in api.enumerate_assignments(doc)]
    order = brute_actions.ordered(doc, "attackers", pairs, listed)
    handle = api.prepare(doc)
    with _walked():  # the walked parts' options come from the frontier program
        assume(any(isinstance(p, FrontierWalk) for p in handle.actions.parts))
    for _ in range(3):
        model = rng.choice(order)
        chosen = rng.sample(range(len(pairs)), rng.randint(0, len(pairs) - 1))
        fixed = {pairs[j]: (model[j] if rng.random() < 0.8 else rng.randint(0, 3))
                 for j in chosen}
        entries = [{"source": s, "target": t, "amount": a} for (s, t), a in fixed.items()]
        for pair in [rng.choice(pairs), *(p for p in pairs if p not in fixed)][:3]:
            assert handle.options(entries, list(pair))["amounts"] == brute_actions.options(
                pairs, order, fixed, pair)


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_the_walks_counts_are_the_tables_completions(seed: int) -> None:
    # From every state of the declared-order table, the moves and the completions of
    # the states they lead to: each a count of the later sources by the frontier
    # program, the earlier ones' progress carried in.
    space = _space(generators.shared_blockers(8, 20, 0.4, seed))
    checked = 0
    for part in space.parts:
        if not (len(part.sources) > 1 and (part.lethal_items or part.loyalty_items)
                and FrontierPart.fits(space, part)):
            continue
        try:
            table = PartSpace(space, part, [WORK_LIMIT])
        except CountOutOfReach:
            continue
        walk = FrontierWalk(space, part, FrontierPart(space, part, [10**7]), 10**7)
        assert walk.count() == table.count()
        for layer in range(len(part.sources)):
            for state, moves in table.moves[layer].items():
                walk.renew()
                assert walk.moves_from(layer, state) == moves
                for move in moves:
                    assert walk.after(layer, move.next_state) == table.after(
                        layer, move.next_state)
                    checked += 1
    assert checked > 0


def test_a_ladder_the_table_refuses_is_walked() -> None:
    # Ten tramplers: blocker b_i blocks a_i and a_(i+5), c_i blocks a_(i+5) and a_(i+1).
    # In declared order five blockers are open at once (more than a million steps of
    # the table); the frontier program keeps one (under a thousand).
    k = 5
    creatures = [{"id": f"a{i}", "controller": "a", "power": 3, "toughness": 1,
                  "keywords": ["trample"], "attacking": "d"} for i in range(2 * k)]
    creatures += [{"id": f"b{i}", "controller": "d", "power": 1, "toughness": 2,
                   "blocking": [f"a{i}", f"a{i + k}"]} for i in range(k)]
    creatures += [{"id": f"c{i}", "controller": "d", "power": 1, "toughness": 2,
                   "blocking": [f"a{i + k}", f"a{i + 1}"]} for i in range(k - 1)]
    doc = {"active_player": "a", "players": [{"id": "a"}, {"id": "d"}],
           "creatures": creatures}
    space = _space(doc)
    [part] = space.parts
    with pytest.raises(CountOutOfReach):
        PartSpace(space, part, [WORK_LIMIT])
    census = Census(space)
    [walk] = census.parts
    assert isinstance(walk, FrontierWalk)
    actions = Actions(space, census)
    assert actions.total == 25_544_518
    first = list(zip(range(5), census.enumerate(), strict=False))
    for i, amounts in first:
        assert brute.is_legal(doc, "attackers", amounts)
        assert actions.unrank(i) == amounts
        assert actions.rank(amounts) == i
    rng = random.Random(3)
    for _ in range(5):
        i = rng.randrange(actions.total)
        amounts = actions.unrank(i)
        assert brute.is_legal(doc, "attackers", amounts)
        assert actions.rank(amounts) == i
        assert walk.budget[0] >= 0
    # Options list every amount, their completions summing to the count.
    for pair in actions.pairs[:4]:
        found = actions.options({}, pair)
        assert sum(n for _, n in found) == actions.total


def test_a_walk_past_its_work_refuses_with_the_width() -> None:
    space = _space(generators.shared_blockers(30, 90, 0.3, 1))
    census = Census(space)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr("trample.solver.count.walk.WALK_WORK", 0.01)
        walks = [p for p in census.parts if isinstance(p, FrontierWalk)]
        assert walks
        with pytest.raises(CountOutOfReach, match=r"walking their declared order.* "
                                                  r"open at once.*more than [\d,]+ steps"):
            Actions(space, census).unrank(0)


@pytest.mark.parametrize(("seed", "family"), [
    (1, "shared_blockers"), (1, "token_swarm"), (4, "shared_blockers"),
    pytest.param(4, "token_swarm", marks=pytest.mark.slow)])
def test_30_by_90_combats_rank_and_unrank_within_the_walks_work(family: str,
                                                               seed: int) -> None:
    space = _space(getattr(generators, family)(30, 90, 0.3, seed))
    actions = Actions(space)
    walks = [p for p in actions.parts if isinstance(p, FrontierWalk)]
    assert walks
    rng = random.Random(seed)
    for _ in range(2):
        i = rng.randrange(actions.total)
        amounts = actions.unrank(i)
        for walk in walks:
            assert walk.budget[0] >= 0 < walk.walk_limit
        assert actions.rank(amounts) == i


@pytest.mark.parametrize(("family", "seed"), [("shared_blockers", 7), ("token_swarm", 10)])
def test_the_coupled_combats_count_once_refused_are_walked_too(family: str,
                                                             seed: int) -> None:
    # Counted only since their frontier program takes a narrower order: the walk of
    # the declared order, backed by it, ranks and unranks them as well.
    space = _space(getattr(generators, family)(30, 90, 0.3, seed))
    actions = Actions(space)
    assert any(isinstance(p, FrontierWalk) for p in actions.parts)
    i = random.Random(seed).randrange(actions.total)
    amounts = actions.unrank(i)
    assert actions.rank(amounts) == i
