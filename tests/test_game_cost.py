"""The cost of ``apply`` grows linearly with the number of permanents (no scan of the
battlefield per permanent touched): checked by counting operations, not by a clock, and
once in a subprocess on 10,000 permanents against a generous budget."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from trample.models.game.cards import get_card
from trample.models.game.combat_steps import declare_combat
from trample.models.game.state import GameState, enter_card, new_game
from trample.models.game.state_json import state_to_json
from trample.solver.interface.game_loop import apply


def big_battle(n: int) -> GameState:
    """``n`` Grizzly Bears on each side; half of the attacker's attack, a quarter are
    blocked one on one, so half of the attackers and every blocker die."""
    state = new_game(("ap", "dp"), life=10**6)
    bears = get_card("Grizzly Bears")
    ids = []
    for owner in ("ap", "dp"):
        for _ in range(n):
            state, oid, _ = enter_card(state, bears, owner)
            ids.append(oid)
    attackers = ids[:n // 2]
    blocks = {ids[n + i]: [attackers[i]] for i in range(n // 4)}
    state, _ = declare_combat(state, dict.fromkeys(attackers, "dp"), blocks)
    return state


def _calls(n: int) -> int:
    doc = state_to_json(big_battle(n))
    count = 0

    def profile(frame: object, event: str, arg: object) -> None:
        nonlocal count
        if event == "call":
            count += 1

    sys.setprofile(profile)
    try:
        apply(doc, {"action": "combat_damage"})
    finally:
        sys.setprofile(None)
    return count


def test_combat_damage_costs_linear_operations() -> None:
    # Every Python call (generator resumptions included, so a scan of the battlefield per
    # permanent shows) while applying combat_damage: four times the permanents must cost
    # about four times the calls, not sixteen.
    small, large = _calls(200), _calls(800)
    assert large < 6 * small, (small, large)


def test_ten_thousand_permanents_in_a_subprocess(tmp_path: Path) -> None:
    # Healthy: under 1 s (about 3 s on a loaded machine); quadratic code took 10 s to over
    # a minute.
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state_to_json(big_battle(5000))))
    result = subprocess.run([sys.executable, "-m", "trample.solver", "apply", str(path),
                             '{"action": "combat_damage"}'],
                            capture_output=True, text=True, timeout=90)
    assert result.returncode == 0, result.stderr
    out = json.loads(result.stdout)
    # The blocked attackers and their blockers die.
    assert len(out["state"]["battlefield"]) == 10_000 - 2 * 1250


def test_a_state_past_its_limits_is_refused_naming_the_field() -> None:
    import pytest

    from trample.models.document.errors import InputError
    from trample.models.game.state_json import MAX_PERMANENTS, MAX_ZONE_CARDS, state_from_json

    doc = state_to_json(new_game())
    with pytest.raises(InputError, match="limit is 20,000") as info:
        state_from_json({**doc, "battlefield": [{}] * (MAX_PERMANENTS + 1)}, "state")
    assert info.value.path == "state.battlefield"
    players = [{**doc["players"][0], "graveyard": [{}] * (MAX_ZONE_CARDS + 1)}]
    with pytest.raises(InputError) as info:
        state_from_json({**doc, "players": players}, "state")
    assert info.value.path == "state.players[0].graveyard"


def test_card_text_and_keywords_are_bounded() -> None:
    import pytest

    from trample.models.document.errors import InputError
    from trample.models.game.cards import MAX_CARD_KEYWORDS, MAX_CARD_TEXT, card_from_json

    face = {"name": "Front", "type_line": "Creature", "oracle_text": "x"}
    card = {"name": "Big", "layout": "transform", "keywords": ["Trample"],
            "card_faces": [face, {**face, "name": "Back"}]}
    with pytest.raises(InputError) as info:
        card_from_json({**card, "keywords": ["k"] * (MAX_CARD_KEYWORDS + 1)}, "cards[0]")
    assert info.value.path == "cards[0].keywords"
    long_face = {**face, "oracle_text": "x" * (MAX_CARD_TEXT + 1)}
    with pytest.raises(InputError) as info:
        card_from_json({**card, "card_faces": [long_face, face]}, "cards[0]")
    assert info.value.path == "cards[0].card_faces[0].oracle_text"
    # At the limits a card is read (each keyword looked for once in each face's text).
    widest = {**card, "keywords": [f"kw{i}" for i in range(MAX_CARD_KEYWORDS)],
              "card_faces": [{**face, "oracle_text": "kw7 " * (MAX_CARD_TEXT // 4)}] * 2}
    assert card_from_json(widest).front.keywords == ("kw7",)
