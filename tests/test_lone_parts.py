"""The lone parts' path of ``solve._solve`` (``solve._lone_pieces``): on a space whose
every part is one source with blockers of its own, each part's answer is read from its
holding and passing candidates without the general dispatch. Proved equal to the general
path (``SearchSettings.lone_parts`` off: the same assignment, objective and status) and
to the brute-force oracle (tests/brute.py), on random combats of two or three attackers
with every feature the path accepts, and on the search loop's tiny combats; whether the
path answered is checked by its mechanism, never by a clock."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks.generators import small_combat
from trample.models.document.combat import Combat
from trample.solver.optimize import solve
from trample.solver.optimize.objectives import BOTH_SIDES, TERMS, parse_objective, plain_plan
from trample.solver.optimize.search_settings import SHIPPED
from trample.solver.rules.legal_space import LegalSpace, legal_space

import brute
from strategies import combats, contests

GENERAL = replace(SHIPPED, lone_parts=False)
SOME = settings(max_examples=150, deadline=None,
                suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large,
                                       HealthCheck.filter_too_much])
SIDES = st.sampled_from(["attackers", "blockers"])


@st.composite
def lone_parts(draw: Any) -> dict[str, Any]:
    """Two or three attackers, each with zero to three blockers of its own (or blocked by
    none left), on a player of little life, that player's planeswalker or battle:
    trample, trample over planeswalkers and deathtouch on the attackers; deathtouch,
    indestructible, marked damage, toughness 0 and negative values on the blockers; now
    and then lifelink, infect or a first striker (the path must decline or answer as the
    general path does)."""
    creatures: list[dict[str, Any]] = []
    for i in range(draw(st.integers(2, 3))):
        keywords = draw(st.lists(st.sampled_from(
            ["trample", "trample", "trample over planeswalkers", "deathtouch"]),
            max_size=2, unique=True))
        if draw(st.integers(0, 14)) == 0:
            keywords.append(draw(st.sampled_from(["lifelink", "infect", "first strike"])))
        attacker: dict[str, Any] = {
            "id": f"a{i}", "controller": "a", "power": draw(st.integers(0, 7)),
            "toughness": 2, "keywords": keywords, "value": draw(st.integers(-1, 3)),
            "attacking": draw(st.sampled_from(["d", "d", "d", "pw", "bt"]))}
        creatures.append(attacker)
        blockers = draw(st.integers(0, 3))
        if blockers == 0 and draw(st.booleans()):
            attacker["blocked"] = True
        for j in range(blockers):
            blocker: dict[str, Any] = {
                "id": f"b{i}{j}", "controller": "d", "power": draw(st.integers(0, 3)),
                "toughness": draw(st.integers(0, 5)), "damage": draw(st.sampled_from([0, 0, 1])),
                "value": draw(st.integers(-3, 4)), "blocking": [f"a{i}"]}
            kind = draw(st.sampled_from([None, None, None, "deathtouch", "indestructible"]))
            if kind is not None:
                blocker["keywords"] = [kind]
            creatures.append(blocker)
    return {"active_player": "a",
            "players": [{"id": "a"}, {"id": "d", "life": draw(st.integers(1, 12))}],
            "creatures": creatures,
            "planeswalkers": [{"id": "pw", "controller": "d",
                               "loyalty": draw(st.integers(1, 6))}],
            "battles": [{"id": "bt", "protector": "d", "defense": draw(st.integers(1, 6))}],
            "step": "regular"}


def _space(doc: dict[str, Any], side: str) -> LegalSpace:
    return legal_space(Combat.from_json(doc), side)  # type: ignore[arg-type]


def answered(doc: dict[str, Any], side: str, terms: tuple[str, ...]) -> bool:
    """Whether the path answers the space's parts for ``terms`` (as ``optimize`` asks:
    on a plain combat, the assigned-damage terms the outcome terms read)."""
    space = _space(doc, side)
    if space.alternatives:
        return False
    inner = plain_plan(terms)[0] if solve.scoring(space).plain else terms
    exclude = frozenset(solve.contested(space, inner))
    return solve._lone_pieces(space, inner, exclude, SHIPPED) is not None


def assert_as_general_and_brute(doc: dict[str, Any], side: str,
                                terms: tuple[str, ...]) -> bool:
    """That ``optimize`` answers as the general path does (same assignment, objective in
    the same order, status and bound), legal and optimal by brute force; whether the
    path answered."""
    found = solve.optimize(_space(doc, side), terms)
    general = solve.optimize(_space(doc, side), terms, settings=GENERAL)
    assert found.amounts == general.amounts
    assert list(found.objective.items()) == list(general.objective.items())
    assert (found.status, found.bound) == (general.status, general.bound)
    assert found.status == "optimal"
    assert brute.is_legal(doc, side, dict(found.amounts))
    values = tuple(found.objective.values())
    assert values == brute.objective(doc, side, dict(found.amounts), terms)
    assert values == brute.optimum(doc, side, terms)
    return answered(doc, side, terms)


def terms_for(side: str) -> list[str]:
    return [t for t in TERMS if side == "attackers" or t in BOTH_SIDES]


@SOME
@given(doc=st.one_of(lone_parts(), contests(), combats(max_sources=3)), side=SIDES,
       data=st.data())
def test_the_lone_parts_answer_as_the_general_path_and_the_brute_force(
        doc: dict[str, Any], side: str, data: st.DataObject) -> None:
    raw = data.draw(st.one_of(
        st.none(), st.lists(st.sampled_from(terms_for(side)), min_size=1, max_size=6,
                            unique=True)))
    assert_as_general_and_brute(doc, side, parse_objective(raw, side))  # type: ignore[arg-type]


def test_the_path_answers_the_search_loops_combats_of_several_attackers() -> None:
    """The search loop's combats (1-3 attackers, 1-4 blockers each blocking one): every
    one of several attackers is answered by the path, for the default objective and
    for kills then player damage, as the general path and the brute force do."""
    several = 0
    for seed in range(200):
        doc = small_combat(seed)
        if sum(1 for c in doc["creatures"] if c.get("attacking")) < 2:
            continue
        several += 1
        for terms in (parse_objective(None, "attackers"),
                      parse_objective(["kills", "player_damage"], "attackers"),
                      parse_objective(["lethal", "kills"], "attackers")):
            assert assert_as_general_and_brute(doc, "attackers", terms)
    assert several >= 100


def test_the_path_declines_what_it_does_not_handle() -> None:
    """One attacker, a blocker shared by two attackers, an outcome keyword (not a plain
    combat), a band: the path leaves each to the general path."""
    base = small_combat(3)
    one = {**base, "creatures": [c for c in base["creatures"]
                                 if c.get("attacking") in (None,) or c["id"] == "a0"]}
    for c in one["creatures"]:
        if "blocking" in c:
            c["blocking"] = ["a0"]
    shared = {"active_player": "a", "players": [{"id": "a"}, {"id": "d", "life": 5}],
              "creatures": [
                  {"id": "a0", "controller": "a", "power": 3, "toughness": 2,
                   "keywords": ["trample"], "attacking": "d"},
                  {"id": "a1", "controller": "a", "power": 4, "toughness": 2,
                   "keywords": ["trample"], "attacking": "d"},
                  {"id": "b0", "controller": "d", "power": 1, "toughness": 2,
                   "blocking": ["a0", "a1"]}], "step": "regular"}
    lifelink = {**shared, "creatures": [
        {"id": "a0", "controller": "a", "power": 3, "toughness": 2,
         "keywords": ["trample", "lifelink"], "attacking": "d"},
        {"id": "a1", "controller": "a", "power": 4, "toughness": 2, "attacking": "d"},
        {"id": "b0", "controller": "d", "power": 1, "toughness": 2, "blocking": ["a0"]}]}
    plain = {**lifelink, "creatures": [{**c, "keywords": ["trample"]} if c["id"] == "a0"
                                       else c for c in lifelink["creatures"]]}
    terms = parse_objective(None, "attackers")
    for doc in (one, shared, lifelink):
        assert not answered(doc, "attackers", terms)
        assert_as_general_and_brute(doc, "attackers", terms)
    assert answered(plain, "attackers", terms)
    assert_as_general_and_brute(plain, "attackers", terms)
