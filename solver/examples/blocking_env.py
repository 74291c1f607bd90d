"""Blocking as a masked environment: checked by Gymnasium, then played, every declaration
valued exactly.

Run ``python -m trample.solver.examples.blocking_env`` (needs Gymnasium: from a clone,
``pip install '.[rl]'``). It builds a :class:`~trample.solver.interface.rl.BlockEnv` on
small random boards (attackers with flying, trample, menace, first strike; blockers with
reach, deathtouch), runs Gymnasium's ``check_env`` on it, and plays ``--episodes``
episodes with a policy that samples each blocker's choice among those
``info["action_mask"]`` allows. The reward of an episode is minus the attackers'
``trade`` of the declaration it ends on (``evaluate_blocks``: the exact value over both
damage steps), and its legality is checked by ``check_blocks``; at the end the average
reward is set beside the best block's (``best_block``) on the same boards.
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from gymnasium.utils.env_checker import check_env

from trample.solver.interface import api
from trample.solver.interface.rl import BlockEnv

ATTACKER_KEYWORDS: tuple[list[str], ...] = ([], ["flying"], ["trample"], ["menace"],
                                           ["first strike"])
BLOCKER_KEYWORDS: tuple[list[str], ...] = ([], [], ["reach"], ["deathtouch"])


def random_board(rng: np.random.Generator) -> dict[str, Any]:
    """Two or three attackers on a player with little life, two or three blockers."""
    creatures: list[dict[str, Any]] = []
    for i in range(int(rng.integers(2, 4))):
        creatures.append({"id": f"a{i}", "controller": "ap", "attacking": "dp",
                          "power": int(rng.integers(1, 6)),
                          "toughness": int(rng.integers(1, 6)),
                          "value": int(rng.integers(1, 6)),
                          "keywords": ATTACKER_KEYWORDS[int(rng.integers(5))]})
    for i in range(int(rng.integers(2, 4))):
        creatures.append({"id": f"b{i}", "controller": "dp",
                          "power": int(rng.integers(0, 5)),
                          "toughness": int(rng.integers(1, 6)),
                          "value": int(rng.integers(1, 6)),
                          "keywords": BLOCKER_KEYWORDS[int(rng.integers(4))]})
    return {"active_player": "ap",
            "players": [{"id": "ap"}, {"id": "dp", "life": int(rng.integers(3, 11))}],
            "creatures": creatures}


def value_reward(board: Mapping[str, Any], declaration: Sequence[Mapping[str, object]]
                 ) -> float:
    """Minus the attackers' trade, and minus 100 if the defending player loses."""
    result = api.evaluate_blocks(board, [list(declaration)], objective=["losses", "trade"])
    objective = result["results"][0]["objective"]
    return -float(100 * objective["losses"] + objective["trade"])


def play(episodes: int, seed: int) -> dict[str, float]:
    """Check the environment, play ``episodes`` episodes; the counts and mean rewards."""
    env = BlockEnv(random_board, max_blockers=3, max_attackers=3, reward=value_reward)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning from the checker is a failure here
        check_env(env, skip_render_check=True)
    env.action_space.seed(seed)
    total = best = 0.0
    for episode in range(episodes):
        _, info = env.reset(seed=seed + episode)
        done = False
        reward = 0.0
        while not done:
            action = env.action_space.sample(mask=info["action_mask"])
            _, reward, done, _, info = env.step(action)
        verdict = api.check_blocks(env.document, info["declaration"])
        if not verdict["legal"]:
            raise SystemExit(f"episode {episode}: an illegal declaration "
                             f"{info['declaration']}: {verdict}")
        total += reward
        found = api.best_block(env.document, objective=["losses", "trade"])
        best += value_reward(env.document, found["blocks"])
    return {"episodes": episodes, "mean_reward": total / episodes,
            "best_block_reward": best / episodes}


def main(argv: Sequence[str] | None = None) -> dict[str, float]:
    """Run the check and the episodes; print and return the figures."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    found = play(args.episodes, args.seed)
    print(f"check_env passed; {args.episodes} episodes, every declaration legal; mean "
          f"reward of random legal blocks {found['mean_reward']:.2f}, of the best block "
          f"{found['best_block_reward']:.2f}")
    return found


if __name__ == "__main__":
    main()
