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
    with pytest.raises(ValueError, match="mask"):
        env.step(bad)
    done = False
    while not done:
        obs, reward, done, truncated, info = env.step(
            env.action_space.sample(mask=env.action_masks()))
        assert env.observation_space.contains(obs) and not truncated and reward == 0.0
    assert api.validate_many(SPEC_EXAMPLE, info["split"]).all()
    assert len(info["pairs"]) == len(info["split"])
