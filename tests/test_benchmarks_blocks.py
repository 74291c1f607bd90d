"""The blocks benchmark (SPEC §11): its boards, its exhaustive method, its heuristic, and a
quick run end to end, whose exhaustive and best_block answers must agree.

No timing is asserted anywhere: the machines are shared and noisy.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:  # benchmarks/ is not installed: import it from the checkout
    sys.path.insert(0, str(ROOT))

from benchmarks import blocks, boards  # noqa: E402
from benchmarks.block_heuristic import duel, heuristic_blocks  # noqa: E402
from trample import api  # noqa: E402
from trample.models.document.combat import Combat  # noqa: E402

# -- boards --------------------------------------------------------------------------------


@pytest.mark.parametrize("variant", list(boards.VARIANTS))
def test_boards_are_reproducible_and_valid(variant: str) -> None:
    drawn = [boards.board(6, 6, boards.VARIANTS[variant], seed) for seed in range(30)]
    assert drawn[0] == boards.board(6, 6, boards.VARIANTS[variant], 0)
    assert drawn[0] != drawn[1]
    menace = requirements = 0
    for board in drawn:
        attackers = [c for c in board["creatures"] if c.get("attacking") == "dp"]
        assert len(attackers) == 6 and len(board["creatures"]) == 12
        assert all(1 <= c[k] <= 6 for c in board["creatures"] for k in ("power", "toughness"))
        assert all(5 <= p["life"] <= 20 for p in board["players"])
        menace += sum("Menace" in c.get("keywords", ()) for c in attackers)
        requirements += sum(bool(c.get(k)) for c in board["creatures"]
                            for k in ("must_block", "lure", "must_be_blocked"))
        assert api.count_blocks(board)["count"] >= 1  # the API reads it
    assert (menace > 0) == boards.VARIANTS[variant].menace
    assert (requirements > 0) == boards.VARIANTS[variant].requirements


def test_attack_boards_have_no_attackers_yet() -> None:
    board = boards.attack_board(4, 4, boards.VARIANTS["menace+requirements"], 3)
    assert not any("attacking" in c for c in board["creatures"])
    answer = api.best_attack(board)
    assert answer["status"] == "optimal"


# -- the exhaustive method -----------------------------------------------------------------

OGRE_BOARD: dict[str, Any] = {
    "active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": 3}],
    "creatures": [
        {"id": "ogre", "controller": "ap", "power": 3, "toughness": 3, "attacking": "dp",
         "value": 3},
        {"id": "bear", "controller": "dp", "power": 2, "toughness": 2, "must_block": True},
        {"id": "cub", "controller": "dp", "power": 1, "toughness": 1}]}


def test_combat_of_makes_the_combat_of_a_declaration() -> None:
    board = {**OGRE_BOARD, "creatures": [
        {"id": "a1", "controller": "ap", "power": 2, "toughness": 2, "attacking": "dp"},
        {"id": "a2", "controller": "ap", "power": 2, "toughness": 2, "attacking": "dp"},
        {"id": "wall", "controller": "dp", "power": 0, "toughness": 5, "blocks_max": 2,
         "must_block": True}]}
    made = blocks.combat_of(board, [{"blocker": "wall", "attacker": "a2"},
                                    {"blocker": "wall", "attacker": "a1"}])
    wall = made["creatures"][2]
    assert wall == {"id": "wall", "controller": "dp", "power": 0, "toughness": 5,
                    "blocking": ["a1", "a2"]}  # document order, no board-only fields
    assert Combat.from_json(made).creature("wall").blocking == ("a1", "a2")
    assert "blocking" not in board["creatures"][2]  # the board is left as it was


def test_exhaustive_method_finds_the_least_value() -> None:
    """Life 3 against a 3/3 worth 3: the bear must block (509.1c), so the legal
    declarations are the bear alone (the bear dies, worth 1, the ogre lives: trade +1) and
    the bear with the cub (3 damage kill the ogre, worth 3; it kills both, worth 2: trade
    -1). Nobody loses either way; the gang is the better block."""
    listed = api.enumerate_blocks(OGRE_BOARD)["declarations"]
    found = blocks.exhaustive_block(OGRE_BOARD, listed, 10.0)
    assert found.status == "optimal" and found.valued == len(listed) == 2
    assert found.value[:2] == (0, -1) and found.ties == 1
    assert _pairs(found.blocks) == {("bear", "ogre"), ("cub", "ogre")}
    answer = api.best_block(OGRE_BOARD, ties=True)
    assert blocks.value_of(answer["objective"]) == found.value
    assert answer["ties"] == found.ties


def test_an_exhaustive_run_that_cannot_value_every_declaration_is_no_reference(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """Out of budget, it stops; a declaration plan refuses (too large to plan exactly) makes
    it refused; neither gives a value to compare."""
    listed = api.enumerate_blocks(OGRE_BOARD)["declarations"]
    stopped = blocks.exhaustive_block(OGRE_BOARD, listed, 10.0, budget=0.0)
    assert (stopped.status, stopped.valued, stopped.value) == ("stopped", 0, ())
    from trample.models.document.errors import InputError

    def refuse(combat: dict[str, Any], *_: Any, **__: Any) -> Any:
        raise InputError("combat", "too large to plan exactly")

    monkeypatch.setattr(api, "plan", refuse)
    refused = blocks.exhaustive_block(OGRE_BOARD, listed, 10.0)
    assert refused.status == "refused" and "too large to plan exactly" in refused.note


def test_a_best_block_that_differs_from_the_exhaustive_method_stops_the_run(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """The check can fail: a best_block answering a worse declaration is caught."""
    real = api.best_block

    def wrong(board: dict[str, Any], **options: Any) -> Any:
        answer = real(board, **options)
        alone = [{"blocker": "bear", "attacker": "ogre"}]
        worse = api.evaluate_blocks(board, [alone])["results"][0]
        return {**answer, **worse, "blocks": alone}

    monkeypatch.setattr(api, "best_block", wrong)
    monkeypatch.setattr(blocks.boards, "board", lambda *_: OGRE_BOARD)
    with pytest.raises(blocks.Mismatch, match="differs from the exhaustive method"):
        blocks.run_blocks(blocks.replace(blocks.QUICK), "plain", 1, 0)


# -- the heuristic ---------------------------------------------------------------------------


def _board(life: int, *creatures: dict[str, Any]) -> dict[str, Any]:
    return {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": life}],
            "creatures": list(creatures)}


def _a(cid: str, power: int, toughness: int, value: int = 1, **more: Any) -> dict[str, Any]:
    return {"id": cid, "controller": "ap", "power": power, "toughness": toughness,
            "value": value, "attacking": "dp", **more}


def _b(cid: str, power: int, toughness: int, value: int = 1, **more: Any) -> dict[str, Any]:
    return {"id": cid, "controller": "dp", "power": power, "toughness": toughness,
            "value": value, **more}


def _pairs(declaration: list[dict[str, str]]) -> set[tuple[str, str]]:
    return {(p["blocker"], p["attacker"]) for p in declaration}


def test_duels_follow_first_strike_and_deathtouch() -> None:
    from benchmarks.block_heuristic import _fighter

    knight = _fighter(_a("k", 2, 2, keywords=["First strike"]), 0)
    bear = _fighter(_b("b", 2, 2), 1)
    snake = _fighter(_b("s", 1, 1, keywords=["Deathtouch"]), 2)
    giant = _fighter(_a("g", 5, 5), 3)
    assert duel(knight, bear) == (False, True)  # the bear dies before it deals damage
    assert duel(giant, snake) == (True, True)
    assert duel(giant, bear) == (False, True)


@pytest.mark.parametrize(("board", "expected"), [
    # A blocker that kills and survives blocks.
    (_board(20, _a("bear", 2, 2), _b("wall", 3, 4)), {("wall", "bear")}),
    # A trade of a worth-more blocker is not made while the attack is not lethal...
    (_board(20, _a("ogre", 3, 3, 1), _b("elf", 3, 3, 5)), set()),
    # ...but is when it is.
    (_board(3, _a("ogre", 3, 3, 1), _b("elf", 3, 3, 5)), {("elf", "ogre")}),
    # A chump block only against a lethal attack.
    (_board(5, _a("giant", 5, 5), _b("squire", 1, 1)), {("squire", "giant")}),
    (_board(6, _a("giant", 5, 5), _b("squire", 1, 1)), set()),
    # Two blockers that together kill an attacker worth more than the one it can kill.
    (_board(20, _a("troll", 4, 4, 5), _b("b1", 2, 3, 1), _b("b2", 2, 3, 1)),
     {("b1", "troll"), ("b2", "troll")}),
    # Menace: a second blocker is added...
    (_board(20, _a("rogue", 2, 2, keywords=["Menace"]), _b("w1", 1, 4), _b("w2", 1, 4)),
     {("w1", "rogue"), ("w2", "rogue")}),
    # ...or the block dropped.
    (_board(20, _a("rogue", 2, 2, keywords=["Menace"]), _b("w1", 3, 4)), set()),
    # Flying: only a blocker with reach or flying can block.
    (_board(20, _a("bird", 1, 1, keywords=["Flying"]), _b("bear", 2, 2),
            _b("spider", 1, 3, keywords=["Reach"])), {("spider", "bird")}),
    # Requirements: the lure attacker is blocked by the blocker able to.
    (_board(20, _a("bait", 1, 1, lure=True), _a("ox", 1, 1), _b("cub", 0, 1, 1)),
     {("cub", "bait")}),
])
def test_the_heuristic_blocks_as_its_passes_say(board: dict[str, Any],
                                                expected: set[tuple[str, str]]) -> None:
    declared = heuristic_blocks(board)
    assert _pairs(declared) == expected
    assert api.check_blocks(board, declared)["legal"]


def test_the_heuristic_misses_what_the_search_finds() -> None:
    """One blocker at a time, the most powerful attacker first: the reach blocker kills the
    4/2 (the cheapest blocker that kills it and lives), and then nothing can block the
    flyer worth 5. The search keeps the reach blocker for the flyer and walls the 4/2."""
    board = _board(20, _a("brute", 4, 2, 1), _a("drake", 3, 3, 5, keywords=["Flying"]),
                   _b("spider", 5, 5, 1, keywords=["Reach"]), _b("wall", 1, 5, 1))
    declared = heuristic_blocks(board)
    assert _pairs(declared) == {("spider", "brute")}
    judged = api.evaluate_blocks(board, [declared])["results"][0]
    best = api.best_block(board)
    assert _pairs(best["blocks"]) == {("spider", "drake"), ("wall", "brute")}
    assert judged["objective"]["trade"] == -1 and best["objective"]["trade"] == -5


# -- the run end to end ----------------------------------------------------------------------


def test_quick_run_is_well_formed_and_agrees(tmp_path: Path) -> None:
    run = subprocess.run([sys.executable, "-m", "benchmarks.blocks", "--quick", "--families",
                          "plain,menace+requirements", "--out", str(tmp_path)],
                         cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-3000:]
    results = json.loads((tmp_path / "results.json").read_text(encoding="utf-8"))
    assert results["checks"]["failure"] is None
    assert results["terms"] == list(blocks.TERMS)
    families = ("plain", "menace+requirements")
    sizes = blocks.QUICK.sizes
    assert [(r["family"], r["n"]) for r in results["blocks"]] == \
        [(f, n) for f in families for n in sizes]
    for r in results["blocks"]:
        bb, ex = r["best_block"], r["exhaustive"]
        assert bb["status"] == "optimal" and bb["median_time"] > 0 and bb["runs"] >= 1
        assert ex["status"] == "optimal" and r["agree"] is True
        assert ex["objective"] == bb["objective"] and ex["ties"] == bb["ties"] >= 1
        assert _pairs(ex["blocks"]) == _pairs(bb["blocks"])
        assert ex["ratio"] == pytest.approx(ex["median_time"] / bb["median_time"])
    assert results["checks"]["exhaustive_compared"] == len(results["blocks"])
    assert all(r["checked"] for r in results["attacks"])
    assert len(results["heuristic"]) == \
        len(families) * len(blocks.QUICK.heuristic_sizes) * blocks.QUICK.heuristic_boards
    for r in results["heuristic"]:
        h = r["heuristic"]
        assert (h["objective"] is not None) == h["legal"]
        assert h["legal"] or h["rules"]
        if h["legal"] and r["optimum"]["status"] == "optimal":
            assert h["objective"] >= r["optimum"]["objective"]
    for r in results["throughput"]:
        assert r["declarations"] >= 1 and r["batch"]["per_second"] > 0
    counts = {(r["family"], r["n"], r["method"]): r for r in results["counts"]}
    assert len(counts) == len(families) * len(blocks.QUICK.count_sizes) * 2
    for (family, n, method), r in counts.items():
        assert r["status"] == "exact"
        if method == "block_options":
            assert r["completions"] == counts[(family, n, "count_blocks")]["count"]
    summary = (tmp_path / "summary.md").read_text(encoding="utf-8")
    for heading in ("## Targets", "## best_block against the exhaustive method",
                    "## best_attack", "## evaluate_blocks throughput",
                    "## The heuristic, measured", "## count_blocks and block_options",
                    "## What limits each figure", "## Peak memory", "## Correctness"):
        assert heading in summary
    profiled = {(r["method"], r["n"]) for r in results["profiles"]}
    assert profiled == {("best_block", max(sizes)), ("evaluate_blocks", 3),
                        ("best_attack", max(blocks.QUICK.attack_sizes))}
    for r in results["profiles"]:
        assert r["status"] == "optimal" and r["total"] > 0 and r["by_own"]
        assert any(f["function"].startswith("solver/") for f in r["by_cumulative"])
    assert "| best_block 4x4 (plain board 0) | optimal |" in summary
    assert "| plain | 3 | 1 |" in summary and "1/1 proved and equal |" in summary
    assert "| menace+requirements | all |" in summary
    assert (tmp_path / "growth.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # The report is written again from results.json alone, the same.
    (tmp_path / "summary.md").unlink()
    (tmp_path / "growth.png").unlink()
    again = subprocess.run([sys.executable, "-m", "benchmarks.blocks_report", str(tmp_path)],
                           cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert again.returncode == 0, again.stderr
    assert (tmp_path / "summary.md").read_text(encoding="utf-8") == summary
    assert (tmp_path / "growth.png").exists()


@pytest.mark.parametrize(("argument", "message"), [
    (["--sizes", "0"], "--sizes '0': give integers of at least 1"),
    (["--families", "plain,nope"], "--families 'plain,nope': choose among"),
    (["--time-limit", "0"], "--time-limit must be more than 0"),
    (["--exhaustive-max", "200000"], "--exhaustive-max must be at most 100000"),
])
def test_bad_arguments_are_refused(tmp_path: Path, argument: list[str], message: str) -> None:
    run = subprocess.run([sys.executable, "-m", "benchmarks.blocks", *argument, "--out",
                          str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 2 and message in run.stderr
    assert "Traceback" not in run.stderr
