"""The Gymnasium adapter: flat and autoregressive encodings of legal splits."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("gymnasium")

from trample.solver.interface import api
from trample.solver.interface.rl import SplitActions, SplitEnv

from conftest import SPEC_EXAMPLE

OGRE = {"active_player": "ap", "players": [{"id": "ap"}, {"id": "dp", "life": 3}],
        "creatures": [{"id": "ogre", "controller": "ap", "power": 5, "toughness": 5,
                       "keywords": ["trample"], "attacking": "dp"},
                      {"id": "bear", "controller": "dp", "power": 2, "toughness": 2,
                       "blocking": ["ogre"]}]}


def test_flat_actions_are_enumerate_order() -> None:
    actions = SplitActions(SPEC_EXAMPLE)
    space = actions.discrete()
    assert space.n == api.count(SPEC_EXAMPLE)["count"] == actions.count
    listed = [a["assignment"] for a in api.enumerate_assignments(SPEC_EXAMPLE)]
    for i, entries in enumerate(listed):
        vector = actions.decode(i)
        amounts = {(e["source"], e["target"]): e["amount"] for e in entries}
        assert vector.tolist() == [amounts.get(p, 0) for p in actions.pairs]
        assert actions.encode(vector) == i
    assert api.validate_many(SPEC_EXAMPLE, np.stack([actions.decode(i) for i in
                                                     range(space.n)])).all()


def test_action_to_string() -> None:
    actions = SplitActions(OGRE)
    assert actions.pairs == [("ogre", "bear"), ("ogre", "dp")]
    assert actions.action_to_string(0) == "ogre->bear 5"
    assert actions.action_to_string([2, 3]) == "ogre->bear 2, ogre->dp 3"
    assert actions.action_to_string(np.int64(3)) == "ogre->bear 2, ogre->dp 3"


def test_masks_and_weights_follow_options() -> None:
    actions = SplitActions(OGRE)
    assert actions.mask([], 7).tolist() == [0, 0, 1, 1, 1, 1, 0]
    assert actions.weights([], 7).tolist() == [0, 0, 0.25, 0.25, 0.25, 0.25, 0]
    assert actions.mask([2], 7).tolist() == [0, 0, 0, 1, 0, 0, 0]
    with pytest.raises(ValueError, match="width"):
        actions.mask([], 4)


def test_too_many_splits_for_a_discrete_space() -> None:
    big = {"active_player": "a", "players": [{"id": "a"}, {"id": "d"}],
           "creatures": [{"id": f"t{i}", "controller": "a", "power": 2**20, "toughness": 1,
                          "keywords": ["trample"], "attacking": "d"} for i in range(5)]
           + [{"id": f"w{i}", "controller": "d", "power": 1, "toughness": 1,
               "blocking": [f"t{j}" for j in range(5)]} for i in range(1)]}
    actions = SplitActions(big)
    assert actions.count > 2**63
    with pytest.raises(ValueError, match="Discrete"):
        actions.discrete()
    i = actions.count - 12345
    assert actions.encode(actions.decode(i)) == i


def test_env_episodes_end_on_legal_splits_and_refuse_masked_amounts() -> None:
    env = SplitEnv(lambda rng: SPEC_EXAMPLE, max_pairs=4, max_amount=5)
    obs, info = env.reset(seed=1)
    assert obs["amounts"].tolist() == [-1, -1, -1, -1] and obs["pair"] == 0
    assert env.observation_space.contains(obs)
    bad = int(np.flatnonzero(info["action_mask"] == 0)[0])
    refused = env.step(bad)  # outside the mask: refused, the episode as it was
    assert refused[0]["amounts"].tolist() == obs["amounts"].tolist()
    assert refused[1:4] == (-1.0, False, False) and refused[4]["illegal_action"] is True
    assert refused[4]["action_mask"].tolist() == info["action_mask"].tolist()
    done = False
    while not done:
        obs, reward, done, truncated, info = env.step(
            env.action_space.sample(mask=env.action_masks()))
        assert env.observation_space.contains(obs) and not truncated and reward == 0.0
    assert api.validate_many(SPEC_EXAMPLE, info["split"]).all()
    assert len(info["pairs"]) == len(info["split"])


def _validated(document: object, pairs: list[tuple[str, str]], split: np.ndarray) -> bool:
    entries = [{"source": s, "target": t, "amount": int(a)}
               for (s, t), a in zip(pairs, split, strict=True) if a]
    return bool(api.validate(document, entries)["legal"])


def test_a_failed_reset_leaves_the_episode_as_it_was() -> None:
    """The next combat's amount does not fit max_amount: reset raises, and the episode
    in progress goes on with its own combat and mask to a legal split."""
    too_big = {**OGRE, "creatures": [{**OGRE["creatures"][0], "power": 50},
                                     OGRE["creatures"][1]]}
    combats = iter([OGRE, too_big])
    env = SplitEnv(lambda rng: next(combats), max_pairs=2, max_amount=5)
    obs, info = env.reset(seed=0)
    before = (env.document, env.actions, list(env.chosen), info["action_mask"].tolist())
    with pytest.raises(ValueError, match="does not fit"):
        env.reset()
    assert (env.document, env.actions, env.chosen, env.action_masks().tolist()) == before
    obs, _, done, _, info = env.step(2)  # ogre->bear 2: then dp takes 3
    assert obs["amounts"].tolist() == [2, -1] and not done
    assert env.action_masks().tolist() == [0, 0, 0, 1, 0, 0]
    obs, _, done, _, info = env.step(3)
    assert done and info["split"].tolist() == [2, 3]
    assert _validated(OGRE, info["pairs"], info["split"])


def test_a_reset_that_fails_first_leaves_no_episode() -> None:
    env = SplitEnv(lambda rng: {"active_player": "ap", "players": [{"id": "ap"},
                                                                   {"id": "dp"}],
                                "creatures": []})
    with pytest.raises(ValueError, match="no legal"):
        env.reset(seed=0)
    with pytest.raises(RuntimeError, match=r"before reset\(\)"):
        env.step(0)


def test_the_adapters_errors_say_what_is_wrong() -> None:
    env = SplitEnv(lambda rng: OGRE, max_pairs=2, max_amount=6)
    with pytest.raises(RuntimeError, match=r"step\(\) before reset\(\)"):
        env.step(2)
    env.reset(seed=0)
    for bad in (1.7, "2", True, np.float64(2.0), [2]):
        with pytest.raises(TypeError, match="action must be an integer"):
            env.step(bad)  # type: ignore[arg-type]
    assert env.chosen == []
    env.step(np.array(2))  # a 0-d integer array is an integer
    env.step(np.int64(3))
    with pytest.raises(RuntimeError, match="after the episode ended"):
        env.step(0)
    actions = SplitActions(OGRE)
    with pytest.raises(TypeError, match=r"index must be an integer, not 1\.9"):
        actions.decode(1.9)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="below 4"):
        actions.decode(4)
    with pytest.raises(TypeError, match=r"prefix\[0\] must be an integer, not 2.5"):
        actions.mask([2.5], 8)  # type: ignore[list-item]
    with pytest.raises(ValueError, match="at least 0"):
        actions.mask([-1], 8)
    with pytest.raises(TypeError, match=r"index must be an integer, not 1\.9"):
        actions.action_to_string(1.9)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="one amount for each of the 2 pairs"):
        actions.action_to_string([1, 2, 3])
    with pytest.raises(ValueError, match="width 3"):
        actions.weights([], 3)
    with pytest.raises(ValueError, match="every pair already has its amount"):
        actions.mask([2, 3], 8)
    with pytest.raises(TypeError, match="split"):
        actions.encode([2.0, 3.0])  # type: ignore[list-item]
    assert actions.encode([2, 3]) == 3 and actions.action_to_string(np.array(3)) == \
        "ogre->bear 2, ogre->dp 3"


def test_the_environment_passes_gymnasiums_checker() -> None:
    import warnings

    from gymnasium.utils.env_checker import check_env

    from trample.solver.examples.random_policy import random_combat

    env = SplitEnv(random_combat, max_pairs=4, max_amount=6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        check_env(env, skip_render_check=True)


def test_the_masked_environment_example_runs() -> None:
    from trample.solver.examples import masked_env

    counts = masked_env.main(["--episodes", "60", "--seed", "4", "--illegal-every", "3"])
    assert counts["legal"] == 60 and counts["refused"] > 0
    assert counts["steps"] >= 60 + counts["refused"]


# -- SPEC §11: blocking as actions ----------------------------------------------------------


def test_block_actions_draw_every_legal_declaration_with_equal_weight() -> None:
    # Multiplying the weights along a declaration's choices gives 1/count for every legal
    # declaration, so drawing by them draws uniformly; and the masks allow exactly the
    # legal declarations (enumerate_blocks lists them).
    from trample.solver.examples.blocking_env import random_board
    from trample.solver.interface.rl import BlockActions

    rng = np.random.default_rng(7)
    for _ in range(12):
        board = random_board(rng)
        actions = BlockActions(board)
        width = 1 << len(actions.attackers)
        reached: list[list[dict[str, str]]] = []

        def walk(prefix: list[int], weight: float, actions: BlockActions = actions,
                 width: int = width, reached: list[list[dict[str, str]]] = reached) -> None:
            if len(prefix) == len(actions.blockers):
                assert weight == pytest.approx(1 / actions.count)
                reached.append(actions.declaration(prefix))
                return
            mask = actions.mask(prefix, width)
            weights = actions.weights(prefix, width)
            assert set(np.flatnonzero(mask)) == set(np.flatnonzero(weights))
            for bits in np.flatnonzero(mask):
                walk([*prefix, int(bits)], weight * weights[bits])

        walk([], 1.0)
        listed = api.enumerate_blocks(board)["declarations"]

        def pairs(declaration: list[dict[str, str]]) -> frozenset[tuple[str, str]]:
            return frozenset((p["blocker"], p["attacker"]) for p in declaration)

        assert sorted(map(sorted, map(pairs, reached))) == sorted(map(sorted, map(pairs, listed)))
        assert len(reached) == actions.count == api.count_blocks(board)["count"]


def test_the_blocking_environment_passes_gymnasiums_checker_and_ends_legal() -> None:
    from trample.solver.examples import blocking_env

    found = blocking_env.main(["--episodes", "12", "--seed", "3"])
    assert found["episodes"] == 12
    # The best block is at least as good for the defender as random legal blocks.
    assert found["best_block_reward"] >= found["mean_reward"]


def test_the_blocking_environment_refuses_a_choice_outside_the_mask() -> None:
    from trample.solver.examples.blocking_env import random_board
    from trample.solver.interface.rl import BlockEnv

    env = BlockEnv(random_board, max_blockers=3, max_attackers=3, illegal_reward=-5.0)
    with pytest.raises(RuntimeError, match="before reset"):
        env.step(0)
    observation, info = env.reset(seed=11)
    outside = np.flatnonzero(info["action_mask"] == 0)
    assert outside.size, "a board whose first blocker may make every choice"
    again, reward, done, truncated, refused = env.step(int(outside[0]))
    assert refused["illegal_action"] and reward == -5.0 and not done and not truncated
    assert np.array_equal(again["choices"], observation["choices"])
    with pytest.raises(TypeError):
        env.step(1.5)  # type: ignore[arg-type]
