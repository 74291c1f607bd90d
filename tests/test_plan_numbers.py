"""``plan`` on numbers (solver/actions/plan_numbers.py) against the general search of
solver/actions/plan.py and the independent brute force of tests/brute_plan.py, on random
tiny combats with every keyword the numbers' path takes."""

from __future__ import annotations

import copy
from itertools import product
from typing import Any

import brute_plan
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from trample.models.document.combat import Combat
from trample.models.document.errors import InputError
from trample.models.document.tiny import read_tiny
from trample.solver.actions import plan as planning
from trample.solver.actions import plan_numbers as numbers
from trample.solver.actions.plan import ACCEPTED_TERMS, PLAN_TERMS, plan_combat, splits
from trample.solver.optimize.cancel import Cancel

import brute

ATTACKER_KEYWORDS = ("first strike", "double strike", "trample", "trample", "deathtouch",
                     "lifelink", "indestructible", "flying", "menace")
BLOCKER_KEYWORDS = ("first strike", "double strike", "deathtouch", "indestructible", "reach")


@st.composite
def combats(draw: st.DrawFn, attackers: int = 3, blockers: int = 4, power: int = 6) -> dict:
    """Attackers on the one defending player, each blocker on one attacker: marked damage,
    values below 1, poison and life near lethal, an attacker blocked by creatures now gone,
    either step."""
    creatures: list[dict] = []
    for i in range(draw(st.integers(1, attackers))):
        creature = {"id": f"a{i}", "controller": "ap", "power": draw(st.integers(0, power)),
                    "toughness": draw(st.integers(1, 5)),
                    "keywords": draw(st.lists(st.sampled_from(ATTACKER_KEYWORDS),
                                              max_size=3, unique=True)),
                    "value": draw(st.integers(-1, 4)), "attacking": "dp"}
        if draw(st.integers(0, 4)) == 0:
            creature["damage"] = draw(st.integers(0, creature["toughness"]))
        creatures.append(creature)
    names = [c["id"] for c in creatures]
    for j in range(draw(st.integers(0, blockers))):
        creature = {"id": f"b{j}", "controller": "dp", "power": draw(st.integers(0, 4)),
                    "toughness": draw(st.integers(1, 5)),
                    "keywords": draw(st.lists(st.sampled_from(BLOCKER_KEYWORDS),
                                              max_size=2, unique=True)),
                    "value": draw(st.integers(-1, 4)),
                    "blocking": [draw(st.sampled_from(names))]}
        if draw(st.integers(0, 3)) == 0:
            creature["damage"] = draw(st.integers(0, creature["toughness"]))
        creatures.append(creature)
    blocked = {c["blocking"][0] for c in creatures if c.get("blocking")}
    for creature in creatures[:len(names)]:
        if creature["id"] not in blocked and draw(st.integers(0, 5)) == 0:
            creature["blocked"] = True  # its blockers are gone (509.1h)
    if draw(st.booleans()):
        creatures = draw(st.permutations(creatures))
    return {"active_player": "ap",
            "players": [{"id": "ap", "life": draw(st.integers(1, 20))},
                        {"id": "dp", "life": draw(st.integers(1, 14)),
                         "poison": draw(st.sampled_from([0, 0, 0, 9, 10]))}],
            "creatures": creatures,
            "step": draw(st.sampled_from(["first_strike", "first_strike", "regular"]))}


@st.composite
def objectives(draw: st.DrawFn) -> list[str]:
    if draw(st.booleans()):
        return list(PLAN_TERMS)
    return list(draw(st.permutations(ACCEPTED_TERMS)))[: draw(st.integers(1, 5))]


PROPERTY = settings(max_examples=300, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])


def general(combat: Combat, terms: list[str], deadline: float | None = None,
            cancel: Cancel | None = None) -> planning.Plan:
    """The general search alone (the numbers' path not asked)."""
    return planning._Search(combat, terms, deadline, cancel).run()


def line(found: planning.Plan | numbers.NumericPlan) -> tuple[object, ...]:
    value = found.value if isinstance(found, numbers.NumericPlan) \
        else tuple(found.objective.values())
    return (value, found.first_strike, found.blockers_first_strike,
            found.attackers_regular, found.blockers_regular)


@st.composite
def crowded(draw: st.DrawFn, blockers: int = 4, power: int = 7) -> dict:
    """A combat of the first-strike step whose first attacker strikes first and is
    blocked by two to ``blockers`` more creatures (small enough for the numbers' size
    limit with the default bounds)."""
    doc = draw(combats(attackers=2, blockers=1, power=3))
    first = next(c for c in doc["creatures"] if "attacking" in c)
    first["power"] = draw(st.integers(1, power))
    first["keywords"] = [k for k in first["keywords"] if k not in ("first strike",
                                                                    "double strike")]
    first["keywords"].append(draw(st.sampled_from(["first strike", "double strike"])))
    for j in range(draw(st.integers(2, blockers))):
        blocker = {"id": f"w{j}", "controller": "dp", "power": draw(st.integers(0, 4)),
                   "toughness": draw(st.integers(1, 5)),
                   "keywords": draw(st.lists(st.sampled_from(BLOCKER_KEYWORDS),
                                             max_size=2, unique=True)),
                   "value": draw(st.integers(-1, 4)), "blocking": [first["id"]]}
        if draw(st.integers(0, 3)) == 0:
            blocker["damage"] = draw(st.integers(0, blocker["toughness"]))
        doc["creatures"].append(blocker)
    first.pop("blocked", None)
    doc["step"] = "first_strike"
    return doc


@PROPERTY
@given(doc=st.one_of(combats(), crowded()), terms=objectives())
def test_the_numbers_give_the_general_search_s_value_and_line(doc: dict,
                                                              terms: list[str]) -> None:
    """The same value and the same four splits (the first of each choice, in the legal
    space's order, whose value is the combat's)."""
    combat = Combat.from_json(doc)
    found = numbers.numeric_plan(combat, terms, planning.MAX_PLAN_SIZE)
    assert found is not None
    assert line(found) == line(general(combat, terms))
    answer = plan_combat(combat, terms)
    assert answer.status == "optimal"
    assert line(answer) == line(found)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=combats(attackers=2, blockers=2, power=4), terms=objectives())
def test_the_numbers_reach_the_brute_force_minimax(doc: dict, terms: list[str]) -> None:
    combat = Combat.from_json(doc)
    found = numbers.numeric_plan(combat, terms, planning.MAX_PLAN_SIZE)
    assert found is not None
    expected = brute_plan.plan_value(doc, terms)
    assert found.value == expected
    if brute.effective_step(doc) == "first_strike":
        assert brute.is_legal(doc, "attackers", found.first_strike)
        assert brute_plan.line_value(doc, found.first_strike, terms) == expected
    else:
        assert brute.is_legal(doc, "attackers", found.attackers_regular)
        assert brute_plan.regular_line_value(doc, found.attackers_regular, terms) == expected


@PROPERTY
@given(doc=combats())
def test_each_attacker_s_splits_come_in_the_legal_space_s_order(doc: dict) -> None:
    """The attackers' first-strike splits, each attacker's listed on numbers and the
    first attacker varying slowest, are the legal space's, in its order."""
    combat = Combat.from_json(doc)
    found = numbers._parts(combat)
    assert found is not None
    parts, player = found[:2]
    listed = []
    for part in parts:
        start = tuple((i, b[3]) for i, b in enumerate(part.blockers))
        ways = part.splits(start) if (part.first if combat.step == "first_strike"
                                      else part.regular) else None
        listed.append([numbers._amounts(part, start, s, player) for s in ways or [None]])
    combined = [{k: v for d in each for k, v in d.items()} for each in product(*listed)]
    assert combined == splits(combat, "attackers")


@PROPERTY
@given(doc=crowded(blockers=5, power=8))
def test_the_first_split_of_each_outcome_is_the_first_in_the_legal_space_s_order(
        doc: dict) -> None:
    """Of the attackers' first-strike splits, listed one by one, the first that kills
    each set of blockers (and deals the player each amount) are the ones worked out for
    them, in the same order."""
    combat = Combat.from_json(doc)
    if combat.step != "first_strike":
        return
    found = numbers._parts(combat)
    assert found is not None
    for part in found[0]:
        start = tuple((i, b[3]) for i, b in enumerate(part.blockers))
        limits = [(i, b[3], 1 << 30 if b[7] else min(1, b[2] - b[3]) if part.deathtouch
                   else b[2] - b[3], b[8]) for i, b in enumerate(part.blockers)]
        worked_out = numbers._first_of_each(part, start, limits)
        if worked_out is None or not part.first:
            continue
        firsts: dict[tuple[object, ...], numbers.Split] = {}
        for split in part.splits(start) or ():
            amounts, player = split
            kills = tuple(n >= limit[2] for n, limit in zip(amounts, limits, strict=True))
            firsts.setdefault((kills, player), split)
        assert worked_out == list(firsts.values())


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=combats(), stop=st.sampled_from(["deadline", "cancel"]))
def test_a_stopped_plan_answers_as_the_general_search_does(doc: dict, stop: str) -> None:
    """A deadline passed or a cancel set before the numbers are done: the general search
    answers, ``feasible`` with a proved split as ever (or ``optimal`` when its one
    candidate was proved)."""
    combat = Combat.from_json(doc)
    cancel = Cancel()
    if stop == "cancel":
        cancel.set()
    deadline = 0.0 if stop == "deadline" else None
    found = plan_combat(combat, PLAN_TERMS, deadline=deadline, cancel=cancel)
    expected = general(combat, list(PLAN_TERMS), deadline, cancel)
    assert (found.status, line(found)) == (expected.status, line(expected))
    if found.status == "feasible" and brute.effective_step(doc) == "first_strike":
        assert brute.is_legal(doc, "attackers", found.first_strike)


def plain() -> dict:
    return {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": 5}],
            "creatures": [
                {"id": "a", "controller": "ap", "power": 4, "toughness": 3,
                 "keywords": ["first strike", "trample"], "attacking": "dp"},
                {"id": "c", "controller": "ap", "power": 2, "toughness": 2,
                 "attacking": "dp"},
                {"id": "b", "controller": "dp", "power": 2, "toughness": 2,
                 "blocking": ["a"]},
                {"id": "d", "controller": "dp", "power": 1, "toughness": 1,
                 "blocking": ["c"]}],
            "step": "first_strike"}


def with_change(change: str) -> dict:
    doc = plain()
    creatures = doc["creatures"]
    if change == "planeswalker":
        doc["planeswalkers"] = [{"id": "jace", "controller": "dp", "loyalty": 3}]
        creatures[1]["attacking"] = "jace"
    elif change == "shared blocker":
        creatures[2]["blocking"] = ["a", "c"]
    elif change == "blocker lifelink":
        creatures[2]["keywords"] = ["lifelink"]
    elif change == "infect":
        creatures[0]["keywords"].append("infect")
    elif change == "banding":
        creatures[2]["keywords"] = ["banding"]
    elif change == "bystander":
        creatures.append({"id": "e", "controller": "dp", "power": 1, "toughness": 1})
    elif change == "multiplier":
        doc["multipliers"] = [{"source": "*", "target": "dp", "factor": 2}]
    elif change == "loss threshold":
        doc["loss_thresholds"] = [{"source": "a", "player": "dp", "threshold": 3}]
    return doc


def test_the_numbers_take_a_plain_combat() -> None:
    assert numbers.numeric_plan(Combat.from_json(plain()), PLAN_TERMS,
                                planning.MAX_PLAN_SIZE) is not None


@pytest.mark.parametrize("change", ["planeswalker", "shared blocker", "blocker lifelink",
                                    "infect", "banding", "bystander", "multiplier",
                                    "loss threshold"])
def test_the_numbers_decline_what_they_do_not_implement(change: str) -> None:
    """Declined, the combat goes the general way, whose answer the brute force confirms."""
    doc = with_change(change)
    combat = Combat.from_json(doc)
    assert numbers.numeric_plan(combat, PLAN_TERMS, planning.MAX_PLAN_SIZE) is None
    found = plan_combat(combat)
    assert tuple(found.objective.values()) == brute_plan.plan_value(doc)


def test_a_combat_over_the_size_limit_goes_the_general_way() -> None:
    """Declined when its size may pass the limit: the general way counts it exactly and
    refuses it with its size."""
    combat = Combat.from_json(plain())
    size = planning.plan_size(combat)
    assert numbers.size_bound(combat.step == "first_strike", numbers._parts(combat)[0]) >= size  # type: ignore[index]
    assert numbers.numeric_plan(combat, PLAN_TERMS, size - 1) is None
    with pytest.raises(Exception, match=f"{size:,} legal splits in product"):
        plan_combat(combat, max_size=size - 1)


@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(doc=combats(), data=st.data())
def test_the_regular_document_is_the_one_deal_step_builds(doc: dict,
                                                          data: st.DataObject) -> None:
    """After any two legal first-strike splits, the same combat as the general step's
    (and so as ``next_step``'s, which the brute force checks)."""
    from trample.models.document.outcomes import deal_step

    combat = Combat.from_json(doc)
    if combat.step != "first_strike":
        return
    a1 = data.draw(st.sampled_from(splits(combat, "attackers")))
    b1 = data.draw(st.sampled_from(splits(combat, "blockers")))
    both = {**a1, **b1}
    expected = deal_step(combat, both).after
    assert numbers.regular_combat(combat, both) == expected
    assert planning.regular_document(combat, a1, b1) == expected


def test_an_attacker_with_many_blockers_goes_the_general_way() -> None:
    """The sets of blockers it may kill are too many to read on numbers."""
    doc = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": 5}],
           "creatures": [{"id": "a", "controller": "ap", "power": 1, "toughness": 3,
                          "keywords": ["double strike"], "attacking": "dp"}]
           + [{"id": f"b{j}", "controller": "dp", "power": 0, "toughness": 1,
               "blocking": ["a"]} for j in range(16)],
           "step": "first_strike"}
    combat = Combat.from_json(doc)
    assert numbers.numeric_plan(combat, PLAN_TERMS, planning.MAX_PLAN_SIZE) is None
    assert tuple(plan_combat(combat).objective.values()) == brute_plan.plan_value(doc)


def answer_through_spaces(doc: dict, terms: list[str]) -> dict:
    """``api.plan``'s answer written the general way: each split's entries in the order
    of its step's legal space, the regular step's read on the document after first-strike
    damage."""
    from trample.solver.rules.assignment import to_entries
    from trample.solver.rules.legal_space import legal_space

    combat = Combat.from_json(doc)
    found = plan_combat(combat, terms)
    regular = planning.regular_document(combat, found.first_strike,
                                        found.blockers_first_strike) \
        if combat.step == "first_strike" else combat
    return {"status": found.status, "objective": found.objective,
            "first_strike": to_entries(legal_space(combat, "attackers"), found.first_strike),
            "line": {
                "blockers_first_strike": to_entries(legal_space(combat, "blockers"),
                                                    found.blockers_first_strike),
                "attackers_regular": to_entries(legal_space(regular, "attackers"),
                                                found.attackers_regular),
                "blockers_regular": to_entries(legal_space(regular, "blockers"),
                                               found.blockers_regular)}}


DECLINED = ("blocker lifelink", "shared blocker", "infect", "bystander", "wither")


@st.composite
def declined(draw: st.DrawFn) -> dict:
    """A small combat with something the numbers' path does not take."""
    doc = draw(combats(attackers=2, blockers=3, power=4))
    creatures = doc["creatures"]
    attackers = [c for c in creatures if "attacking" in c]
    blockers = [c for c in creatures if "blocking" in c]
    change = draw(st.sampled_from(DECLINED))
    if change == "blocker lifelink" and blockers:
        blockers[0]["keywords"] = [*blockers[0]["keywords"], "lifelink"]
    elif change == "shared blocker" and blockers and len(attackers) > 1:
        blockers[0]["blocking"] = [a["id"] for a in attackers]
    elif change in ("infect", "wither"):
        attackers[0]["keywords"] = [*attackers[0]["keywords"], change]
    else:
        creatures.append({"id": "e", "controller": "dp", "power": 1, "toughness": 1})
    return doc


@PROPERTY
@given(doc=st.one_of(combats(), declined()), terms=objectives())
def test_the_answer_written_without_legal_spaces_is_the_one_written_with_them(
        doc: dict, terms: list[str]) -> None:
    """Every entry list in the legal spaces' order, the same status and objective, on the
    combats the numbers' path answers (written from their amounts) and on those it
    declines (written through the legal spaces)."""
    from trample.solver.interface import api

    combat = Combat.from_json(doc)
    taken = numbers.numeric_plan(combat, terms, planning.MAX_PLAN_SIZE) is not None
    found = plan_combat(Combat.from_json(doc), terms)
    assert found.ordered == taken
    assert api.plan(doc, terms) == answer_through_spaces(doc, terms)


def tidied(doc: dict) -> dict:
    """The combat without what the tiny reader leaves to the general one (poison,
    ``blocked``, a creature dealt lethal damage already)."""
    doc = copy.deepcopy(doc)
    for player in doc["players"]:
        player.pop("poison", None)
    for creature in doc["creatures"]:
        creature.pop("blocked", None)
        if creature.get("damage", 0) >= creature["toughness"]:
            creature["damage"] = creature["toughness"] - 1
    return doc


@PROPERTY
@given(doc=st.one_of(combats(), crowded()), terms=objectives())
def test_a_combat_read_straight_from_its_dict_is_planned_as_its_combat(
        doc: dict, terms: list[str]) -> None:
    """The tiny reader takes the combat, and its numbers give the plan the combat's own
    give, which ``api.plan`` answers as the legal spaces write it."""
    from trample.solver.interface import api

    doc = tidied(doc)
    tiny = read_tiny(doc)
    assert tiny is not None
    combat = Combat.from_json(doc)
    assert tiny[0] == (combat.step == "first_strike")
    on_numbers = planning.plan_tiny(tiny, terms)
    general_plan = plan_combat(combat, terms)
    assert (on_numbers is None) == (numbers.numeric_plan(combat, terms,
                                                         planning.MAX_PLAN_SIZE) is None)
    if on_numbers is not None:
        assert line(on_numbers) == line(general_plan)
        assert on_numbers.leaves == general_plan.leaves
    assert api.plan(doc, terms) == answer_through_spaces(doc, terms)


def test_the_search_loops_first_strike_combats_are_read_straight() -> None:
    from benchmarks.generators import small_combat

    taken = 0
    for seed in range(200):
        tiny = read_tiny(small_combat(seed, True))
        assert tiny is not None and tiny[0]
        taken += planning.plan_tiny(tiny) is not None
    assert taken == 200


def _general_plan(doc: Any, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``api.plan`` with the document read by the general reader alone."""
    from trample.solver.interface import api

    with monkeypatch.context() as patch:
        patch.setattr(api, "read_tiny", lambda document: None)
        return _plan_answer(doc)


def _plan_answer(doc: Any) -> Any:
    from trample.solver.interface import api

    try:
        return api.plan(doc)
    except InputError as exc:
        return ("refused", str(exc))


def test_a_field_of_the_wrong_shape_gets_the_general_readers_plan(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Every variant of a first-strike combat (a field of the wrong type or value, a
    keyword or field the tiny reader leaves to the general one) gets the general
    reader's answer, or its refusal word for word."""
    from test_solve_numbers import _variants

    from benchmarks.generators import small_combat

    doc = small_combat(0, True)
    doc["creatures"].sort(key=lambda c: "blocking" in c)
    assert doc["creatures"][0]["id"] == "a0" and "blocking" in doc["creatures"][-1]
    assert read_tiny(doc) is not None
    variants = _variants(doc)
    for path, value in ((("step",), None), (("step",), "regular"),
                        (("creatures", -1, "keywords"), ["First Strike"]),
                        (("creatures", -1, "keywords"), ["Lifelink"]),
                        (("creatures", -1, "keywords"), ["Trample"]),
                        (("creatures", -1, "keywords"), ["Double strike", "Reach"]),
                        (("creatures", 0, "keywords"), ["Lifelink", "Flying", "menace"]),
                        (("creatures", 0, "keywords"), ["first strike", "FIRST STRIKE"]),
                        (("creatures", 0, "keywords"), ["First strike", "Infect"]),
                        (("creatures", 0, "power"), 0), (("creatures", 0, "power"), -2),
                        (("creatures", 0, "blocked"), True),
                        (("creatures", 0, "blocked"), False),
                        (("players", 1, "poison"), 10), (("players", 1, "poison"), -1),
                        (("players", 1, "life"), 0), (("objective",), ["kills"]),
                        (("objective",), "nothing"), (("time_limit",), 0)):
        new = copy.deepcopy(doc)
        where = new
        for key in path[:-1]:
            where = where[key]
        where[path[-1]] = value
        if path == ("step",) and value is None:
            del where["step"]
        variants.append(new)
    refused = taken = 0
    for odd in variants:
        mine = _plan_answer(odd)
        assert mine == _general_plan(odd, monkeypatch), odd
        refused += isinstance(mine, tuple)
        taken += read_tiny(odd) is not None
    assert refused > len(variants) // 2
    assert taken >= 15


@pytest.mark.parametrize("options", [{"objective": "nothing"}, {"objective": ["kills"]},
                                     {"objective": ["trade", "trade"]}, {"objective": 3},
                                     {"objective": ["trade"]}, {"time_limit": 0},
                                     {"time_limit": "x"}, {"time_limit": 5}])
def test_options_of_a_combat_read_straight_get_the_general_answer(
        options: dict[str, Any], monkeypatch: pytest.MonkeyPatch) -> None:
    """A bad objective or time limit is refused as the general path refuses it; a good
    one answers as the general path does."""
    from benchmarks.generators import small_combat
    from trample.solver.interface import api

    doc = small_combat(3, True)
    assert read_tiny(doc) is not None

    def answer() -> Any:
        try:
            return api.plan(doc, **options)
        except InputError as exc:
            return ("refused", str(exc))

    mine = answer()
    with monkeypatch.context() as patch:
        patch.setattr(api, "read_tiny", lambda document: None)
        assert mine == answer()
