"""One Assignment type for the solver and the game, and JSON only at the edges: the game
asks the solver with a typed Combat and gets an Assignment back, with no combat/1
document built or parsed in between."""

from __future__ import annotations

import pytest
from test_game_legality import battle

from trample.models.document import assignment as assignment_module
from trample.models.document.assignment import Assignment
from trample.models.document.combat import Combat
from trample.models.document.errors import InputError
from trample.models.game.combat_steps import combat_document, combat_of
from trample.models.game.state_json import state_to_json
from trample.solver.interface import api
from trample.solver.interface.game_loop import apply, solver_assign
from trample.solver.rules.assignment import parse_assignment, to_entries
from trample.solver.rules.legal_space import legal_space


def test_from_json_and_to_json() -> None:
    raw = [{"source": "a", "target": "b", "amount": 2}, {"source": "a", "target": "c",
                                                         "amount": 0},
           {"source": "d", "target": "b", "amount": 1}]
    given = Assignment.from_json(raw)
    assert dict(given) == {("a", "b"): 2, ("d", "b"): 1}  # 120.8: 0 assigns nothing
    assert given.to_json() == [raw[0], raw[2]]
    assert [e[:2] for e in given.listed()] == [("a", "b"), ("a", "c"), ("d", "b")]
    assert given.path_of(("d", "b"), "d") == "assignment[2]"
    assert given.path_of(None, "a") == "assignment[0]"
    assert given.path_of(None, "zz") == "assignment"
    # A value: equal as a mapping whatever the order, hashable, never changed.
    again = Assignment.of({("d", "b"): 1, ("a", "b"): 2, ("x", "y"): 0})
    assert again == given and hash(again) == hash(given)
    assert Assignment.from_json(given) is given
    with pytest.raises(AttributeError):
        given.entries = ()  # type: ignore[misc]


@pytest.mark.parametrize(("raw", "path"), [
    ("x", "assignment"),
    ([{"source": "a", "target": "b"}], "assignment[0].amount"),
    ([{"source": "a", "target": "b", "amount": -1}], "assignment[0].amount"),
    ([{"source": "a", "target": "b", "amount": 1}, {"source": "a", "target": "b",
                                                    "amount": 2}], "assignment[1]"),
    ([{"source": 3, "target": "b", "amount": 1}], "assignment[0].source"),
])
def test_one_parser_for_solver_and_game(raw: object, path: str) -> None:
    # The solver's parse and the game's read the same entry format with the same parser.
    doc = combat_document(battle()[0])
    with pytest.raises(InputError) as by_model:
        Assignment.from_json(raw)
    with pytest.raises(InputError) as by_solver:
        parse_assignment(Combat.from_json(doc), raw)
    assert by_model.value.path == by_solver.value.path == path
    assert by_model.value.reason == by_solver.value.reason


def test_the_solver_answers_the_one_type() -> None:
    state, _ = battle()
    combat = combat_of(state, "regular")
    chosen = solver_assign()(combat)
    assert isinstance(chosen, Assignment)
    # The same split api.solve prints for each side, in the same canonical order.
    doc = combat.to_json()
    printed = [*api.solve(doc, side="attackers")["assignment"],
               *api.solve(doc, side="blockers")["assignment"]]
    assert chosen.to_json() == printed
    space = legal_space(combat, "attackers")
    attackers = {pair: n for pair, n in chosen.items() if pair in space.pairs}
    assert to_entries(space, attackers) == api.solve(doc, side="attackers")["assignment"]


def test_the_game_passes_typed_values_to_the_solver(monkeypatch: pytest.MonkeyPatch) -> None:
    # combat_damage through the solver: no combat/1 document is parsed and no assignment
    # list is read anywhere between the game and the solver.
    state, _ = battle()
    doc = state_to_json(state)

    def no_parse(*args: object, **kwargs: object) -> None:
        raise AssertionError("JSON parsed inside the game loop")

    monkeypatch.setattr(Combat, "from_json", no_parse)
    reads: list[object] = []
    real = assignment_module.Assignment.from_json.__func__  # type: ignore[attr-defined]

    def counting(cls: type[Assignment], entries: object, path: str = "assignment"
                 ) -> Assignment:
        reads.append(entries)
        result: Assignment = real(cls, entries, path)
        return result

    monkeypatch.setattr(Assignment, "from_json", classmethod(counting))
    out = apply(doc, {"action": "combat_damage"})
    assert [e for e in out["events"] if e["event"] == "DamageDealt"]
    assert all(isinstance(r, Assignment) for r in reads), reads
