"""The single-source path (trample.solver.optimize.fastpath.solve_single): the answer of a space of
one source on a plain combat, its objective read once, legality judged by a check for
that one source. Proved against the general path (``solve.optimize``) and against the
brute-force oracle (tests/brute.py), and its legality check against the validator and
the oracle on every split; what it skips is checked by its mechanism (calls made)."""

from __future__ import annotations

import copy
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.generators import tiny
from trample.models.document.combat import Combat
from trample.models.document.errors import InternalError
from trample.solver.interface import api
from trample.solver.optimize import fastpath, solve
from trample.solver.optimize.objectives import BOTH_SIDES, TERMS, parse_objective
from trample.solver.rules.legal_space import LegalSpace, legal_space
from trample.solver.rules.validate import is_legal, violations

import brute
from strategies import combats, lone_sources

SOME = settings(max_examples=120, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def terms_for(side: str) -> list[str]:
    return [t for t in TERMS if side == "attackers" or t in BOTH_SIDES]


def odd_single(rng: random.Random) -> dict[str, Any]:
    """One attacker (sometimes beside an attacker of power 0 and an idle creature) on a
    player, a planeswalker or a battle, blocked by up to five creatures: life, loyalty,
    defense and toughness at 0 or below, marked damage, deathtouch on either side,
    indestructible, removed from combat, a blocked attacker whose blockers are gone, first
    strike, and a few outcome effects (the path must decline those)."""
    players: list[dict[str, Any]] = [{"id": "ap", "life": rng.randint(-1, 20)},
                                     {"id": "dp", "life": rng.choice((0, 1, 2, 3, 5, -2))}]
    if rng.random() < 0.2:
        players.append({"id": "dq", "life": rng.randint(0, 6)})
    if rng.random() < 0.1:
        players[1]["poison"] = rng.choice((0, 9, 10))
    defenders = [p["id"] for p in players[1:]]
    walkers = [{"id": f"pw{k}", "controller": rng.choice(defenders),
                "loyalty": rng.randint(-1, 6), "in_combat": rng.random() < 0.8}
               for k in range(rng.choice((0, 0, 1, 2)))]
    battles = [{"id": "bt", "protector": rng.choice(defenders), "defense": rng.randint(0, 5),
                "in_combat": rng.random() < 0.8} for _ in range(rng.choice((0, 0, 1)))]
    owner_of = {p: p for p in defenders}
    owner_of.update({w["id"]: w["controller"] for w in walkers})
    owner_of.update({b["id"]: b["protector"] for b in battles})
    target = rng.choice(sorted(owner_of))
    keywords = [k for k, p in (("trample", 0.45), ("trample over planeswalkers", 0.3),
                               ("deathtouch", 0.25)) if rng.random() < p]
    if rng.random() < 0.1:
        keywords.append(rng.choice(["first strike", "double strike", "indestructible",
                                    "lifelink", "toxic 2", "wither"]))
    attacker: dict[str, Any] = {"id": "a0", "controller": "ap", "power": rng.randint(0, 8),
                                "toughness": 3, "attacking": target, "keywords": keywords,
                                "value": rng.randint(-2, 5)}
    creatures = [attacker]
    if rng.random() < 0.15:
        creatures.append({"id": "a1", "controller": "ap", "power": 0, "toughness": 2,
                          "attacking": target})
    count = rng.choice((0, 1, 1, 2, 2, 3, 3, 4, 5))
    for i in range(count):
        blocker: dict[str, Any] = {
            "id": f"b{i}", "controller": owner_of[target], "power": rng.randint(0, 4),
            "toughness": rng.randint(-1, 5), "damage": rng.choice((0, 0, 0, 1, 2, 4)),
            "value": rng.choice((-1, 0, 1, 2, 3, 5, 8)), "blocking": ["a0"]}
        blocker["keywords"] = [k for k, p in (("indestructible", 0.1), ("deathtouch", 0.1),
                                              ("first strike", 0.08)) if rng.random() < p]
        creatures.append(blocker)
    if count == 0 and rng.random() < 0.3:
        attacker["blocked"] = True
    if rng.random() < 0.1:
        creatures.append({"id": "idle", "controller": owner_of[target], "power": 3,
                          "toughness": 3})
    doc: dict[str, Any] = {"active_player": "ap", "players": players, "creatures": creatures,
                           "planeswalkers": walkers, "battles": battles}
    if rng.random() < 0.1:
        doc["step"] = rng.choice(["first_strike", "regular"])
    if rng.random() < 0.05:
        doc["multipliers"] = [{"source": "a0", "target": "*", "factor": rng.choice((1, 2))}]
    if rng.random() < 0.03:
        doc["prevention"] = [{"source": "a0", "target": target}]
    return doc


SWEEP = [odd_single(random.Random(seed)) for seed in range(400)]


def single_or_none(space: LegalSpace, terms: tuple[str, ...]) -> fastpath.Single | None:
    """The path's answer, asked afresh (nothing kept from an earlier request)."""
    space.memo.pop("single", None)
    return fastpath.solve_single(space, terms)


def assert_as_general_and_brute(doc: dict[str, Any], side: str,
                                terms: tuple[str, ...]) -> bool:
    """Whether the path answered; if so, that its answer is the general path's (same
    assignment, same objective values, in the same order), legal and optimal by brute
    force, and that asking again gives the same answer."""
    space = legal_space(Combat.from_json(doc), side)  # type: ignore[arg-type]
    found = single_or_none(space, terms)
    if found is None:
        return False
    amounts, objective = found
    general = solve.optimize(legal_space(Combat.from_json(doc), side),  # type: ignore[arg-type]
                             terms)
    assert general.status == "optimal" and general.bound is None
    assert amounts == general.amounts
    assert list(objective.items()) == list(general.objective.items())
    assert brute.is_legal(doc, side, dict(amounts))
    assert tuple(objective.values()) == brute.objective(doc, side, dict(amounts), terms)
    assert tuple(objective.values()) == brute.optimum(doc, side, terms)
    assert fastpath.solve_single(space, terms) == found  # kept, unchanged
    answer = api._single_result(space, found)  # as the general answer is written
    assert answer == api._solve_result(space, general)
    assert list(answer) == list(api._solve_result(space, general))
    return True


@SOME
@given(doc=st.one_of(lone_sources(), combats(max_sources=2)),
       side=st.sampled_from(["attackers", "blockers"]), data=st.data())
def test_the_single_path_answers_as_the_general_one(doc: dict[str, Any], side: str,
                                                    data: st.DataObject) -> None:
    terms = data.draw(st.one_of(
        st.none(), st.lists(st.sampled_from(terms_for(side)), min_size=1, max_size=6,
                            unique=True)))
    assert_as_general_and_brute(doc, side, parse_objective(terms, side))  # type: ignore[arg-type]


def test_the_single_path_on_a_sweep_of_edges() -> None:
    """Every combat of the sweep, both sides, the default objective and a drawn one:
    where the path answers, it answers as the general path and the oracle; and it answers
    most of them (else the sweep proves little)."""
    rng = random.Random(7)
    answered = asked = 0
    for doc in SWEEP:
        for side in ("attackers", "blockers"):
            for raw in (None, rng.sample(terms_for(side), rng.randint(1, 5))):
                asked += 1
                answered += assert_as_general_and_brute(
                    doc, side, parse_objective(raw, side))  # type: ignore[arg-type]
    assert answered >= asked // 3


def compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    """Every way to write ``total`` as ``parts`` whole numbers >= 0, in order."""
    if parts == 1:
        return [(total,)]
    return [(first, *rest) for first in range(total + 1)
            for rest in compositions(total - first, parts - 1)]


def every_split(space: LegalSpace) -> list[dict[tuple[str, str], int]]:
    """Every split of the source's power over its recipients, and over them plus one
    target that is none of them; and those of one less and one more than the power."""
    source = space.sources[0]
    stranger = next((c.id for c in space.combat.creatures if c.id != source.id
                     and source.recipient(c.id) is None), space.combat.active_player)
    splits = []
    targets = [r.id for r in source.recipients]
    for where in (targets, [*targets, stranger]):
        for total in (source.power, source.power - 1, source.power + 1):
            for parts in compositions(max(total, 0), len(where)):
                splits.append({(source.id, t): a for t, a in zip(where, parts, strict=True)
                               if a > 0})
    return splits


def test_the_single_legality_check_judges_as_the_validator_and_the_oracle() -> None:
    """On every split of each single-source space of the sweep (and a few illegal by
    their total or their target), the legality check of the single path says legal
    exactly when the validator lists nothing and the oracle accepts it."""
    judged = illegal = 0
    for doc in SWEEP[:200]:
        for side in ("attackers", "blockers"):
            space = legal_space(Combat.from_json(doc), side)  # type: ignore[arg-type]
            if len(space.sources) != 1 or space.alternatives or not space.sources[0].recipients:
                continue
            splits = every_split(space)
            if len(splits) > 300:  # the many-blocker ones: the sweep has plenty smaller
                continue
            for amounts in splits:
                legal = is_legal(space, amounts)
                assert legal == (not violations(space, amounts))
                assert legal == brute.is_legal(doc, side, amounts)
                judged += 1
                illegal += not legal
    assert judged > 2_000 and 0.2 * judged < illegal < 0.9 * judged


KINDS = st.lists(st.tuples(st.integers(1, 7), st.integers(-3, 9)), min_size=1, max_size=4)


@SOME
@given(kinds=KINDS, data=st.data())
def test_the_small_knapsack_chooses_as_the_array_one(kinds: list[tuple[int, int]],
                                                     data: st.DataObject) -> None:
    """The plain-Python table picks the very subset the NumPy table picks (not only one
    of the same value): a tiny combat's answer is unchanged by which one fills it."""
    picks = data.draw(st.lists(st.integers(0, len(kinds) - 1), max_size=10))
    costs = [kinds[k][0] for k in picks]
    values = [kinds[k][1] for k in picks]
    capacity = data.draw(st.integers(0, 40))
    small = fastpath._knapsack(costs, values, capacity)
    threshold = fastpath.SMALL_CELLS
    try:
        fastpath.SMALL_CELLS = -1  # every table to NumPy
        array = fastpath._knapsack(costs, values, capacity)
    finally:
        fastpath.SMALL_CELLS = threshold
    assert small == array


TINY = [tiny(1 + i % 3, i) for i in range(60)]


@pytest.mark.sources
def test_a_tiny_solve_skips_the_general_search_and_the_validator(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A tiny combat is answered by the single path: neither ``solve.optimize`` nor the
    general validator runs, and a space asked again finds its answer kept (no candidate
    built again)."""
    calls: list[str] = []
    real_candidates = fastpath._lone_candidates
    monkeypatch.setattr(api, "optimize", lambda *a, **k: calls.append("optimize"))
    monkeypatch.setattr(solve, "violations", lambda *a: calls.append("violations"))
    monkeypatch.setattr(fastpath, "_lone_candidates",
                        lambda *a: calls.append("candidates") or real_candidates(*a))
    for doc in TINY:
        handle = api.prepare(doc)
        first = handle.solve()
        first["objective"]["losses"] = -7  # the caller's own answer: not the kept one
        first["assignment"].clear()
        again = handle.solve()
        assert again == api.solve(copy.deepcopy(doc)) and again["assignment"]
        assert again["objective"]["losses"] >= 0
    assert "optimize" not in calls and "violations" not in calls
    assert 0 < calls.count("candidates") <= 2 * len(TINY)


@pytest.mark.sources
def test_an_illegal_single_answer_is_never_printed(monkeypatch: pytest.MonkeyPatch) -> None:
    """A candidate that breaks a rule (here: one more than the power) is an internal
    error naming the rule, not an answer."""
    doc = copy.deepcopy(next(doc for doc in TINY if len(doc["creatures"]) > 2))
    # A keyword the numbers path does not read (it changes no damage): the single path.
    doc["creatures"][0]["keywords"] = [*doc["creatures"][0].get("keywords", []), "Haste"]
    real = fastpath._lone_candidates

    def wrong(space: LegalSpace, source: Any) -> Any:
        return [{pair: amount + 1 for pair, amount in amounts.items()}
                for amounts in real(space, source) or []]

    monkeypatch.setattr(fastpath, "_lone_candidates", wrong)
    api.forget_spaces()
    with pytest.raises(InternalError, match=r"illegal assignment: .* more than its power"):
        api.solve(doc)


# -- the combat/1 reader ---------------------------------------------------------------------

class RandomBytes:
    """The fuzz data provider's ``Consume*`` methods over a seeded ``random.Random``."""

    def __init__(self, seed: int) -> None:
        self.rng = random.Random(seed)

    def ConsumeIntInRange(self, lo: int, hi: int) -> int:
        return self.rng.randint(lo, hi)

    def ConsumeBool(self) -> bool:
        return self.rng.random() < 0.5

    def ConsumeInt(self, size: int) -> int:
        return self.rng.randint(-(2 ** (8 * size - 1)), 2 ** (8 * size - 1) - 1)

    def ConsumeUnicode(self, count: int) -> str:
        return "".join(chr(self.rng.choice((0x61, 0x41, 0x20, 0xe9, 0x5f, 0x2d)))
                       for _ in range(count))

    def remaining_bytes(self) -> int:
        return 1 << 20


def read(doc: Any) -> Combat | str:
    """The combat read from ``doc``, or its refusal as it prints."""
    from trample.models.document.errors import InputError

    try:
        return Combat.from_json(doc)
    except InputError as exc:
        return str(exc)


def json_like(value: Any, depth: int = 4) -> Any:
    """``value`` with every list a tuple, every object a read-only Mapping and every
    integer a NumPy one, down to ``depth`` levels (a document's fields are within four):
    values the reader takes as their plain JSON counterparts."""
    import types

    import numpy as np

    if depth and type(value) is dict:
        return types.MappingProxyType({k: json_like(v, depth - 1) for k, v in value.items()})
    if depth and type(value) is list:
        return tuple(json_like(v, depth - 1) for v in value)
    if type(value) is int and -2**62 < value < 2**62:
        return np.int64(value)
    return value


def assert_as_constructed(combat: Combat | str) -> None:
    """The combat read equals the one its constructor builds from the same fields, the
    look-ups the reader builds itself included."""
    assert isinstance(combat, Combat), combat
    built = Combat(combat.active_player, combat.players, combat.creatures,
                   combat.planeswalkers, combat.battles, combat.step, combat.prevention,
                   combat.multipliers, combat.loss_thresholds)
    assert combat == built
    for name in ("_index", "_blockers", "memo"):
        assert list(getattr(combat, name).items()) == list(getattr(built, name).items())
    assert all(type(getattr(c, f)) is int for c in combat.creatures
               for f in ("power", "toughness", "damage", "value"))


def fuzzed_documents(count: int) -> list[tuple[Any, Any]]:
    """``count`` valid documents of the fuzzers' shapes, each with a broken copy."""
    from fuzz import shapes

    found = []
    for seed in range(count):
        draw = shapes.Draw(RandomBytes(seed))  # type: ignore[arg-type]
        doc = shapes.valid_combat(draw)
        found.append((doc, shapes.broken(draw, json.loads(json.dumps(doc)),
                                         python=seed % 2 == 0)))
    return found


def test_the_reader_builds_what_the_constructor_builds() -> None:
    """Valid documents (the benchmarks' tiny and large ones, the edge sweep, the fuzzers'
    shapes): each is read to the combat the constructor builds from its fields, with
    equal look-ups; broken copies of the fuzzers' shapes are refused in most cases (the
    breakage is sometimes harmless)."""
    from benchmarks import generators

    documents: list[Any] = [tiny(1 + i % 3, i) for i in range(200)] + SWEEP[:200] + [
        generators.gang_block(1_000, 0), generators.token_army(100, 400, 1),
        generators.split_ranks(160, 2), generators.wide_gang(2_000, 3),
        generators.planeswalker_pileup(200, 4)]
    refused = 0
    for doc, broken in fuzzed_documents(1_500):
        documents.append(doc)
        got = read(broken)
        if isinstance(got, str):
            refused += 1
        else:
            assert_as_constructed(got)
    for doc in documents:
        assert_as_constructed(read(doc))
    assert refused > 1_000


def test_json_like_values_read_as_their_plain_json() -> None:
    """Tuples for lists, Mappings for objects and NumPy integers for ints (what the
    field-path toolkit takes beside exact JSON types) read to the same combat as the plain
    document; a broken document is refused at the same field either way."""
    for doc, broken in fuzzed_documents(400):
        assert read(json_like(doc)) == read(doc)
        plain, like = read(broken), read(json_like(broken))
        if isinstance(plain, str):
            assert isinstance(like, str)
            assert like.split(":")[0] == plain.split(":")[0], (plain, like)
        else:
            assert like == plain


def test_the_limit_on_blocks_in_all_is_named() -> None:
    """Past the limit on blocks in all the whole document is refused, naming the blocker
    whose list crosses it."""
    from trample.models.document.combat import MAX_BLOCKS

    per = 64
    attackers = [{"id": f"a{i}", "controller": "a", "power": 1, "toughness": 1,
                  "attacking": "d"} for i in range(per)]
    blockers = [{"id": f"b{j}", "controller": "d", "power": 1, "toughness": 1,
                 "blocking": [a["id"] for a in attackers]}
                for j in range(MAX_BLOCKS // per + 1)]
    doc = {"active_player": "a", "players": [{"id": "a"}, {"id": "d"}],
           "creatures": attackers + blockers}
    refusal = read(doc)
    assert refusal == (f"creatures[{per + MAX_BLOCKS // per}].blocking: the document has "
                       f"more than {MAX_BLOCKS:,} blocks in all, the limit")
