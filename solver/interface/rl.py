"""Legal splits as Gymnasium actions (the optional extra ``trample[rl]``).

Two encodings of one combat's legal damage splits:

- **flat**: ``Discrete(count)``, action ``i`` is the split at position ``i`` of
  ``enumerate``'s order (:meth:`SplitActions.decode`, built on ``unrank``); only when the
  count fits in 63 bits, as Gymnasium's spaces need;
- **autoregressive**: one pair of ``pair_order`` at a time, the action being its amount,
  ``Discrete(max_amount + 1)`` with a mask of the amounts that still have a legal
  completion (from ``options``). Every episode of :class:`SplitEnv` ends on a legal split,
  whatever the policy, as long as it keeps to the mask; drawing each amount in proportion
  to :meth:`SplitActions.weights` draws splits uniformly.

Observations and masks are fixed-width NumPy arrays (``max_pairs``, ``max_amount``), so
that combats of different sizes batch together.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from trample.solver.interface.api import Prepared, prepare

Document = Mapping[str, Any]
INT64_MAX = 2**63 - 1


class SplitActions:
    """The legal splits of one combat, as flat and autoregressive actions.

    ``combat`` is a combat/1 document or a handle from :func:`trample.solver.interface.api.prepare`.
    """

    def __init__(self, combat: Document | Prepared, *, side: str | None = None) -> None:
        self.handle = combat if isinstance(combat, Prepared) else prepare(combat, side=side)
        self.pairs: list[tuple[str, str]] = self.handle.pair_order()
        self.count: int = self.handle.actions.total

    # -- flat ----------------------------------------------------------------------------

    def discrete(self) -> spaces.Discrete:
        """``Discrete(count)``: every legal split is one action (ValueError when the count
        does not fit in 63 bits: use the autoregressive encoding)."""
        if self.count > INT64_MAX:
            raise ValueError(f"{self.count} legal splits do not fit a Discrete space; use "
                             "the autoregressive encoding")
        return spaces.Discrete(self.count)

    def decode(self, index: int) -> npt.NDArray[np.int64]:
        """The split of action ``index``, as amounts over :attr:`pairs`."""
        amounts = self.handle.actions.unrank(int(index))
        return np.array([amounts.get(p, 0) for p in self.pairs], dtype=np.int64)

    def encode(self, vector: Sequence[int] | npt.NDArray[np.integer[Any]]) -> int:
        """The action of a legal split given as amounts over :attr:`pairs`."""
        entries = [{"source": s, "target": t, "amount": int(a)}
                   for (s, t), a in zip(self.pairs, vector, strict=True)]
        index: int = self.handle.rank(entries)["index"]
        return index

    def action_to_string(self, action: int | Sequence[int] | npt.NDArray[np.integer[Any]]
                         ) -> str:
        """A flat action (an index) or a split (amounts over :attr:`pairs`) in words:
        ``"ogre->bear 2, ogre->dp 3"`` (pairs given nothing are left out)."""
        if isinstance(action, (int, np.integer)):
            vector = self.decode(int(action))
        else:
            vector = np.asarray(action)
        parts = [f"{s}->{t} {int(a)}" for (s, t), a in zip(self.pairs, vector, strict=True)
                 if a]
        return ", ".join(parts) if parts else "no damage"

    # -- autoregressive ------------------------------------------------------------------

    def _options(self, prefix: Sequence[int]) -> list[list[int]]:
        if len(prefix) >= len(self.pairs):
            raise ValueError("every pair already has its amount")
        fixed = [{"source": s, "target": t, "amount": int(a)}
                 for (s, t), a in zip(self.pairs, prefix, strict=False)]
        pair = self.pairs[len(prefix)]
        found: list[list[int]] = self.handle.options(fixed, list(pair))["amounts"]
        return found

    def mask(self, prefix: Sequence[int], width: int) -> npt.NDArray[np.int8]:
        """For the pair after ``prefix`` (the amounts of the first pairs of
        :attr:`pairs`): 1 for each amount below ``width`` with a legal completion."""
        out = np.zeros(width, dtype=np.int8)
        for amount, _ in self._options(prefix):
            if amount >= width:
                raise ValueError(f"amount {amount} does not fit a mask of width {width}")
            out[amount] = 1
        return out

    def weights(self, prefix: Sequence[int], width: int) -> npt.NDArray[np.float64]:
        """The probabilities of the next pair's amounts under a uniform draw of the split
        (each amount's share of the completions)."""
        found = self._options(prefix)
        total = sum(n for _, n in found)
        out = np.zeros(width, dtype=np.float64)
        for amount, n in found:
            out[amount] = n / total
        return out


# Without Gymnasium installed mypy sees gym.Env as Any: the ignore is for that case only.
class SplitEnv(gym.Env[dict[str, Any], np.int64]):  # type: ignore[misc, unused-ignore]
    """Choose a combat's damage split one pair at a time.

    Each episode takes a combat from ``combats`` (called with the environment's NumPy
    generator). The observation holds ``amounts`` (the amounts chosen so far over the
    pairs, -1 for those still open, padded to ``max_pairs``) and ``pair`` (the position of
    the pair to choose next); the action is that pair's amount. ``info["action_mask"]``
    (also :meth:`action_masks`) marks the amounts with a legal completion. When every
    pair has its amount the episode ends with ``reward(document, split)`` (default 0) and
    ``info["split"]``, the amounts over ``info["pairs"]``.
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (Gymnasium's field)

    def __init__(self, combats: Callable[[np.random.Generator], Document], *,
                 max_pairs: int = 8, max_amount: int = 16,
                 reward: Callable[[Document, npt.NDArray[np.int64]], float] | None = None
                 ) -> None:
        self.combats = combats
        self.max_pairs = max_pairs
        self.max_amount = max_amount
        self.reward = reward
        self.action_space = spaces.Discrete(max_amount + 1)
        self.observation_space = spaces.Dict({
            "amounts": spaces.Box(-1, max_amount, shape=(max_pairs,), dtype=np.int64),
            "pair": spaces.Discrete(max_pairs + 1),
        })
        self.document: Document = {}
        self.actions: SplitActions | None = None
        self.chosen: list[int] = []
        self._mask = np.zeros(max_amount + 1, dtype=np.int8)

    def _observe(self) -> dict[str, Any]:
        amounts = np.full(self.max_pairs, -1, dtype=np.int64)
        amounts[:len(self.chosen)] = self.chosen
        return {"amounts": amounts, "pair": len(self.chosen)}

    def _info(self) -> dict[str, Any]:
        assert self.actions is not None
        return {"action_mask": self._mask, "pairs": self.actions.pairs}

    def action_masks(self) -> npt.NDArray[np.int8]:
        """The current mask (the name maskable policies look for)."""
        return self._mask

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start on the next combat."""
        super().reset(seed=seed)
        self.document = self.combats(self.np_random)
        self.actions = SplitActions(self.document)
        if not self.actions.pairs:
            raise ValueError("the combat has no legal (source, recipient) pair to choose")
        if len(self.actions.pairs) > self.max_pairs:
            raise ValueError(f"the combat has {len(self.actions.pairs)} pairs, more than "
                             f"max_pairs={self.max_pairs}")
        self.chosen = []
        self._mask = self.actions.mask(self.chosen, self.max_amount + 1)
        return self._observe(), self._info()

    def step(self, action: np.int64 | int
             ) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Give the next pair ``action`` as its amount (refused outside the mask)."""
        assert self.actions is not None
        a = int(action)
        if not (0 <= a < len(self._mask) and self._mask[a]):
            raise ValueError(f"amount {a} has no legal completion (see the action mask)")
        self.chosen.append(a)
        if len(self.chosen) < len(self.actions.pairs):
            self._mask = self.actions.mask(self.chosen, self.max_amount + 1)
            return self._observe(), 0.0, False, False, self._info()
        split = np.array(self.chosen, dtype=np.int64)
        self._mask = np.zeros(self.max_amount + 1, dtype=np.int8)
        reward = 0.0 if self.reward is None else float(self.reward(self.document, split))
        return self._observe(), reward, True, False, {**self._info(), "split": split}
