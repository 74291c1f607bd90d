"""Make tests/ importable as a flat set of helper modules (brute, strategies), and hold the
example combats that several test modules share."""

import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).parent))


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line(
        "markers", "slow: left out of the default run (pyproject.toml's addopts), which "
        "checks the same property on other cases; run with -m slow")
    config.addinivalue_line(
        "markers", "sources: the test needs the modules run from their sources, not from "
        "the compiled build (trample.solver.native): it replaces a function inside one, or "
        "hands a constructor stand-in values that a compiled one refuses by type")


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Under the compiled build, the tests marked ``sources`` (they replace a module's
    function, to spy on it or break it, or hand a constructor stand-in values) are skipped,
    saying so. Every other test runs as it is."""
    from trample import _native

    if not _native.state["compiled"]:
        return
    skip = pytest.mark.skip(reason="needs the modules run from their sources; run it with "
                            f"{_native.PURE_ENV}=1")
    for item in items:
        if "sources" in item.keywords:
            item.add_marker(skip)

SPEC_EXAMPLE: dict[str, Any] = {
    "active_player": "ap",
    "players": [{"id": "ap", "life": 20}, {"id": "dp", "life": 20}],
    "creatures": [
        {"id": "vessel", "controller": "ap", "power": 5, "toughness": 5,
         "keywords": ["Trample"], "attacking": "jace"},
        {"id": "wall", "controller": "dp", "power": 0, "toughness": 4,
         "damage": 1, "value": 3, "blocking": ["vessel"]},
    ],
    "planeswalkers": [{"id": "jace", "controller": "dp", "loyalty": 3}],
    "battles": [{"id": "invasion", "protector": "dp", "defense": 5}],
    "step": "regular",
}
"""The worked example of the combat document (tests/data/spec_example.json)."""


def shared_blockers_combat() -> dict[str, Any]:
    """Eight tramplers all blocked by the same five 1/15 walls: heavily coupled."""
    attackers = [f"t{i}" for i in range(8)]
    creatures: list[dict[str, Any]] = [
        {"id": t, "controller": "a", "power": 20, "toughness": 5, "keywords": ["trample"],
         "attacking": "d"} for t in attackers]
    creatures += [{"id": f"w{j}", "controller": "d", "power": 1, "toughness": 15,
                   "blocking": attackers} for j in range(5)]
    return {"active_player": "a", "players": [{"id": "a"}, {"id": "d"}],
            "creatures": creatures}


@pytest.fixture(autouse=True, scope="session")
def _private_bug_folder(tmp_path_factory: pytest.TempPathFactory) -> Iterator[None]:
    """Bug reports the tests provoke go to a folder of the test run, not the user's cache
    (subprocesses inherit it)."""
    folder = tmp_path_factory.mktemp("bugs")
    folder.chmod(0o700)
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("TRAMPLE_BUG_DIR", str(folder))
        yield
