"""A random masked policy chooses damage splits, pair by pair, for many small combats.

Run ``python -m trample.solver.examples.random_policy --combats 10000`` (needs the
``rl`` extra: ``pip install '.[rl]'`` in a clone of trample). Each combat (one attacker,
one to three blockers, drawn from the seed) is played once in
:class:`~trample.solver.interface.rl.SplitEnv`, the policy drawing each amount uniformly
among those the mask allows, and once through the flat encoding (a random index of
``Discrete(count)``, decoded by ``unrank``). Every split is then checked with
``validate_many``; the run stops at the first illegal one.
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Sequence
from typing import Any

import numpy as np

from trample.solver.interface.rl import SplitActions, SplitEnv

KEYWORDS: tuple[list[str], ...] = (["trample"], ["trample"], [], ["trample", "deathtouch"],
                                   ["deathtouch"])


def random_combat(rng: np.random.Generator) -> dict[str, Any]:
    """One attacker (usually a trampler) on a player, blocked by one to three creatures."""
    blockers = int(rng.integers(1, 4))
    creatures: list[dict[str, Any]] = [
        {"id": "a", "controller": "ap", "power": int(rng.integers(1, 7)),
         "toughness": int(rng.integers(1, 7)), "attacking": "dp",
         "keywords": KEYWORDS[int(rng.integers(len(KEYWORDS)))]}]
    for i in range(blockers):
        toughness = int(rng.integers(1, 5))
        creatures.append({"id": f"b{i}", "controller": "dp",
                          "power": int(rng.integers(0, 4)), "toughness": toughness,
                          "damage": int(rng.integers(0, toughness)), "blocking": ["a"]})
    return {"active_player": "ap",
            "players": [{"id": "ap"}, {"id": "dp", "life": int(rng.integers(1, 21))}],
            "creatures": creatures}


def main(argv: Sequence[str] | None = None) -> int:
    """Play the combats; return how many were checked (every split legal)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--combats", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--show", type=int, default=3, help="print the first N splits")
    args = parser.parse_args(argv)

    env = SplitEnv(random_combat, max_pairs=4, max_amount=6)
    env.action_space.seed(args.seed)
    rng = np.random.default_rng(args.seed)
    started = time.perf_counter()
    steps = 0
    for n in range(args.combats):
        _, info = env.reset(seed=args.seed + n)
        done = False
        while not done:
            action = env.action_space.sample(mask=info["action_mask"])
            _, _, done, _, info = env.step(action)
            steps += 1
        assert env.actions is not None
        actions: SplitActions = env.actions
        flat = actions.decode(int(rng.integers(actions.count)))
        splits = np.stack([info["split"], flat])
        legal = np.asarray(actions.handle.validate_many(splits))
        if not legal.all():
            raise SystemExit(f"combat {n}: an illegal split {splits[~legal][0].tolist()} "
                             f"over {actions.pairs}")
        if n < args.show:
            print(f"combat {n}: {actions.count} legal splits; policy chose "
                  f"{actions.action_to_string(info['split'])!r} (index "
                  f"{actions.encode(info['split'])}); index drawn: "
                  f"{actions.action_to_string(flat)!r}")
    seconds = time.perf_counter() - started
    print(f"{args.combats} combats, {steps} steps, every split legal "
          f"({seconds:.1f} s, {1000 * seconds / max(args.combats, 1):.2f} ms a combat)")
    checked: int = args.combats
    return checked


if __name__ == "__main__":
    main()
