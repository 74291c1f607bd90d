"""The Gymnasium adapter as a masked environment: checked by Gymnasium, then played.

Run ``python -m trample.solver.examples.masked_env`` (needs Gymnasium: from a clone,
``pip install '.[rl]'``). It builds a :class:`~trample.solver.interface.rl.SplitEnv` on
small random combats, runs Gymnasium's own ``check_env`` on it, and plays ``--episodes``
episodes with a policy that samples each amount among those ``info["action_mask"]``
allows, except that every ``--illegal-every``-th step it picks an amount outside the mask
on purpose: the environment refuses that amount (the episode stays where it was, the
reward is ``illegal_reward``, ``info["illegal_action"]`` is true) instead of raising.
Every split an episode ends on is checked by ``validate``.
"""

from __future__ import annotations

import argparse
import warnings
from collections.abc import Sequence

import numpy as np
from gymnasium.utils.env_checker import check_env

from trample.solver.examples.random_policy import random_combat
from trample.solver.interface import api
from trample.solver.interface.rl import SplitEnv


def play(episodes: int, seed: int, illegal_every: int) -> dict[str, int]:
    """Check the environment with ``check_env``, then play ``episodes`` episodes; the
    counts of steps, refused amounts and legal splits (SystemExit on an illegal one)."""
    env = SplitEnv(random_combat, max_pairs=4, max_amount=6, illegal_reward=-1.0)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a warning from the checker is a failure here
        # No render modes to check: the environment draws nothing.
        check_env(env, skip_render_check=True)
    env.action_space.seed(seed)
    counts = {"steps": 0, "refused": 0, "legal": 0}
    for episode in range(episodes):
        _, info = env.reset(seed=seed + episode)
        done = False
        while not done:
            counts["steps"] += 1
            mask = info["action_mask"]
            if illegal_every and counts["steps"] % illegal_every == 0 and not mask.all():
                action = np.int64(np.flatnonzero(mask == 0)[0])  # outside the mask
            else:
                action = env.action_space.sample(mask=mask)
            _, reward, done, truncated, info = env.step(action)
            if info.get("illegal_action"):
                assert reward == env.illegal_reward and not done and not truncated
                counts["refused"] += 1
        pairs, split = info["pairs"], info["split"]
        entries = [{"source": s, "target": t, "amount": int(a)}
                   for (s, t), a in zip(pairs, split, strict=True) if a]
        verdict = api.validate(env.document, entries)
        if not verdict["legal"]:
            raise SystemExit(f"episode {episode}: an illegal split {entries}: {verdict}")
        counts["legal"] += 1
    return counts


def main(argv: Sequence[str] | None = None) -> dict[str, int]:
    """Run the check and the episodes; print and return the counts."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--episodes", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--illegal-every", type=int, default=5, metavar="K",
                        help="pick an amount outside the mask every K-th step (0: never)")
    args = parser.parse_args(argv)
    counts = play(args.episodes, args.seed, args.illegal_every)
    print(f"check_env passed; {args.episodes} episodes, {counts['steps']} steps, "
          f"{counts['refused']} amounts outside the mask refused, "
          f"{counts['legal']} splits, every one legal")
    return counts


if __name__ == "__main__":
    main()
