"""Legal splits as Gymnasium actions (the optional extra ``rl``: ``pip install '.[rl]'``).

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
that combats of different sizes batch together. :class:`SplitEnv` passes Gymnasium's
``check_env``: an amount outside the mask is refused without raising (the state stays as
it was, the reward is ``illegal_reward``, ``info["illegal_action"]`` is true), as masked
environments do; an action that is not an integer at all is a TypeError.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

import gymnasium as gym
import numpy as np
import numpy.typing as npt
from gymnasium import spaces

from trample.models.document.assignment import Pair
from trample.solver.interface.api import Prepared, prepare

Document = Mapping[str, Any]
INT64_MAX = 2**63 - 1


def _integer(value: object, what: str) -> int:
    """``value`` as an int when it is one (a Python or NumPy integer, or a 0-d integer
    array); TypeError for anything else, a float or a bool included, rather than a
    silent truncation."""
    if isinstance(value, (bool, np.bool_)):
        raise TypeError(f"{what} must be an integer, not {value!r}")
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, np.ndarray) and value.ndim == 0 \
            and np.issubdtype(value.dtype, np.integer):
        return int(value)
    raise TypeError(f"{what} must be an integer, not {value!r}")


def _amounts(values: Sequence[object] | npt.NDArray[Any], what: str) -> list[int]:
    """A sequence of amounts as ints (TypeError for one that is not an integer,
    ValueError for a negative one)."""
    if isinstance(values, (str, bytes)) or np.ndim(values) != 1:  # type: ignore[arg-type]
        raise TypeError(f"{what} must be a sequence of integer amounts, not {values!r}")
    out = [_integer(v, f"{what}[{i}]") for i, v in enumerate(values)]
    for i, amount in enumerate(out):
        if amount < 0:
            raise ValueError(f"{what}[{i}] must be at least 0, not {amount}")
    return out


class SplitActions:
    """The legal splits of one combat, as flat and autoregressive actions.

    ``combat`` is a combat/1 document or a handle from :func:`trample.solver.interface.api.prepare`.
    """

    def __init__(self, combat: Document | Prepared, *, side: str | None = None) -> None:
        self.handle = combat if isinstance(combat, Prepared) else prepare(combat, side=side)
        self.pairs: list[Pair] = self.handle.pair_order()
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
        """The split of action ``index``, as amounts over :attr:`pairs` (TypeError for an
        index that is not an integer, ValueError for one outside ``range(count)``)."""
        at = _integer(index, "index")
        if not 0 <= at < self.count:
            raise ValueError(f"index must be at least 0 and below {self.count} (the legal "
                             f"splits), not {at}")
        amounts = self.handle.actions.unrank(at)
        return np.array([amounts.get(p, 0) for p in self.pairs], dtype=np.int64)

    def encode(self, vector: Sequence[int] | npt.NDArray[np.integer[Any]]) -> int:
        """The action of a legal split given as amounts over :attr:`pairs`."""
        amounts = self._vector(vector)
        entries = [{"source": s, "target": t, "amount": a}
                   for (s, t), a in zip(self.pairs, amounts, strict=True)]
        index: int = self.handle.rank(entries)["index"]
        return index

    def action_to_string(self, action: int | Sequence[int] | npt.NDArray[np.integer[Any]]
                         ) -> str:
        """A flat action (an index) or a split (amounts over :attr:`pairs`) in words:
        ``"ogre->bear 2, ogre->dp 3"`` (pairs given nothing are left out)."""
        scalar = np.ndim(action) == 0  # an index (or a value that is not an action)
        vector = self.decode(action).tolist() if scalar else self._vector(action)  # type: ignore[arg-type]
        parts = [f"{s}->{t} {a}" for (s, t), a in zip(self.pairs, vector, strict=True) if a]
        return ", ".join(parts) if parts else "no damage"

    def _vector(self, vector: Sequence[int] | npt.NDArray[np.integer[Any]]) -> list[int]:
        """A split's amounts over :attr:`pairs`, checked: one integer for each pair."""
        amounts = _amounts(vector, "split")
        if len(amounts) != len(self.pairs):
            raise ValueError(f"a split has one amount for each of the {len(self.pairs)} "
                             f"pairs, not {len(amounts)}")
        return amounts

    # -- autoregressive ------------------------------------------------------------------

    def _options(self, prefix: Sequence[int]) -> list[list[int]]:
        amounts = _amounts(prefix, "prefix")
        if len(amounts) >= len(self.pairs):
            raise ValueError(f"every pair already has its amount (a prefix of {len(amounts)} "
                             f"amounts over {len(self.pairs)} pairs)")
        fixed = [{"source": s, "target": t, "amount": a}
                 for (s, t), a in zip(self.pairs, amounts, strict=False)]
        pair = self.pairs[len(amounts)]
        found: list[list[int]] = self.handle.options(fixed, list(pair))["amounts"]
        return found

    def mask(self, prefix: Sequence[int], width: int) -> npt.NDArray[np.int8]:
        """For the pair after ``prefix`` (the amounts of the first pairs of
        :attr:`pairs`): 1 for each amount below ``width`` with a legal completion."""
        out = np.zeros(_integer(width, "width"), dtype=np.int8)
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
        out = np.zeros(_integer(width, "width"), dtype=np.float64)
        for amount, n in found:
            if amount >= width:
                raise ValueError(f"amount {amount} does not fit weights of width {width}")
            out[amount] = n / total
        return out


# Without Gymnasium installed mypy sees gym.Env as Any: the ignore is for that case only.
class _ChoiceEnv(gym.Env[dict[str, Any], np.int64]):  # type: ignore[misc, unused-ignore]
    """What :class:`SplitEnv` and :class:`BlockEnv` share: an episode of choices, each
    masked to those with a legal completion, ending when every one is made.

    A choice outside the mask is refused, not raised on: the step leaves the episode as it
    was (same observation and mask, not terminated, not truncated), rewards
    ``illegal_reward`` and says ``info["illegal_action"]``. A :meth:`reset` that fails
    leaves the episode it found as it was (only the generator has moved on, so the next
    reset draws another document). :meth:`step` before the first reset or after the
    episode ended is a RuntimeError.
    """

    metadata: dict[str, Any] = {"render_modes": []}  # noqa: RUF012 (Gymnasium's field)
    chosen_key = "choices"
    """The observation's key for the choices made so far."""
    position_key = "position"
    """The observation's key for the position of the next choice."""

    def __init__(self, documents: Callable[[np.random.Generator], Document], *,
                 choices: int, width: int, illegal_reward: float) -> None:
        self.documents = documents
        self.choices = choices
        self.width = width
        self.illegal_reward = float(illegal_reward)
        self.action_space = spaces.Discrete(width)
        self.observation_space = spaces.Dict({
            self.chosen_key: spaces.Box(-1, width - 1, shape=(choices,), dtype=np.int64),
            self.position_key: spaces.Discrete(choices + 1),
        })
        self.document: Document = {}
        self.actions: Any = None
        self.chosen: list[int] = []
        self.ended = False
        self._mask = np.zeros(width, dtype=np.int8)

    # What each environment says of its document and its choices.
    def _actions_of(self, document: Document) -> Any:
        raise NotImplementedError

    def _steps(self, actions: Any) -> int:
        raise NotImplementedError

    def _names(self, actions: Any) -> dict[str, Any]:
        raise NotImplementedError

    def _end(self, actions: Any) -> tuple[float, dict[str, Any]]:
        raise NotImplementedError

    def _observe(self) -> dict[str, Any]:
        chosen = np.full(self.choices, -1, dtype=np.int64)
        chosen[:len(self.chosen)] = self.chosen
        return {self.chosen_key: chosen, self.position_key: len(self.chosen)}

    def _info(self, actions: Any) -> dict[str, Any]:
        # Copies: what a step returns is the caller's to keep, unchanged by later steps.
        return {"action_mask": self._mask.copy(), **self._names(actions)}

    def action_masks(self) -> npt.NDArray[np.int8]:
        """The current mask (the name maskable policies look for)."""
        return self._mask

    def reset(self, *, seed: int | None = None, options: dict[str, Any] | None = None
              ) -> tuple[dict[str, Any], dict[str, Any]]:
        """Start on the next document (on failure, the episode in progress is left as it
        was)."""
        super().reset(seed=seed)
        document = self.documents(self.np_random)
        actions = self._actions_of(document)
        mask = actions.mask([], self.width)
        self.document, self.actions, self.chosen, self._mask = document, actions, [], mask
        self.ended = False
        return self._observe(), self._info(actions)

    def step(self, action: np.int64 | int
             ) -> tuple[dict[str, Any], float, bool, bool, dict[str, Any]]:
        """Make the next choice; one outside the mask is refused (the episode stays as it
        was, rewarded ``illegal_reward``)."""
        actions = self.actions
        if actions is None:
            raise RuntimeError("step() before reset(): call reset() to start an episode")
        if self.ended:
            raise RuntimeError("step() after the episode ended: call reset() to start "
                               "another")
        a = _integer(action, "action")
        if not (0 <= a < len(self._mask) and self._mask[a]):
            return self._observe(), self.illegal_reward, False, False, {
                **self._info(actions), "illegal_action": True}
        self.chosen.append(a)
        if len(self.chosen) < self._steps(actions):
            self._mask = actions.mask(self.chosen, self.width)
            return self._observe(), 0.0, False, False, self._info(actions)
        self._mask = np.zeros(self.width, dtype=np.int8)
        self.ended = True
        reward, extra = self._end(actions)
        return self._observe(), reward, True, False, {**self._info(actions), **extra}


class SplitEnv(_ChoiceEnv):
    """Choose a combat's damage split one pair at a time.

    Each episode takes a combat from ``combats`` (called with the environment's NumPy
    generator). The observation holds ``amounts`` (the amounts chosen so far over the
    pairs, -1 for those still open, padded to ``max_pairs``) and ``pair`` (the position of
    the pair to choose next); the action is that pair's amount. ``info["action_mask"]``
    (also :meth:`action_masks`) marks the amounts with a legal completion. When every
    pair has its amount the episode ends with ``reward(document, split)`` (default 0) and
    ``info["split"]``, the amounts over ``info["pairs"]``.

    An amount outside the mask is refused as :class:`_ChoiceEnv` says; a reset fails when
    the next combat has no pair, more than ``max_pairs`` pairs, or an amount past
    ``max_amount``.
    """

    chosen_key = "amounts"
    position_key = "pair"

    def __init__(self, combats: Callable[[np.random.Generator], Document], *,
                 max_pairs: int = 8, max_amount: int = 16,
                 reward: Callable[[Document, npt.NDArray[np.int64]], float] | None = None,
                 illegal_reward: float = -1.0) -> None:
        super().__init__(combats, choices=max_pairs, width=max_amount + 1,
                         illegal_reward=illegal_reward)
        self.combats = combats
        self.max_pairs = max_pairs
        self.max_amount = max_amount
        self.reward = reward

    def _actions_of(self, document: Document) -> SplitActions:
        actions = SplitActions(document)
        if not actions.pairs:
            raise ValueError("the combat has no legal (source, recipient) pair to choose")
        if len(actions.pairs) > self.max_pairs:
            raise ValueError(f"the combat has {len(actions.pairs)} pairs, more than "
                             f"max_pairs={self.max_pairs}")
        return actions

    def _steps(self, actions: SplitActions) -> int:
        return len(actions.pairs)

    def _names(self, actions: SplitActions) -> dict[str, Any]:
        return {"pairs": list(actions.pairs)}

    def _end(self, actions: SplitActions) -> tuple[float, dict[str, Any]]:
        split = np.array(self.chosen, dtype=np.int64)
        reward = 0.0 if self.reward is None else float(self.reward(self.document, split))
        return reward, {"split": split}


# -- SPEC §11: blocks as actions ---------------------------------------------------------


class BlockActions:
    """The legal block declarations of one board, one blocker's choice at a time.

    A blocker's choice is a set of attackers, as a bitmask over :attr:`attackers` (the
    board's attacking creatures in document order: bit ``j`` for attacker ``j``), so that
    boards of different sizes share one action space. :attr:`blockers` are the creatures
    that may block something, in declaration order; :meth:`mask` marks the choices of the
    next one that have a legal completion, and :meth:`weights` their share of the
    completions (drawing each choice by them draws a legal declaration uniformly).
    """

    def __init__(self, board: Document) -> None:
        from trample.models.game.declarations import block_rules
        from trample.solver.interface.blocks_api import read_board

        self.board = read_board(board)
        self.rules = block_rules(self.board)
        self.attackers: list[str] = list(self.rules.attackers)
        self.blockers: list[str] = list(self.rules.blockers)
        self.count: int = self._program({}).count()

    def _program(self, fixed: Mapping[str, Sequence[str]]) -> Any:
        from trample.solver.blocks.space import program

        return program(self.rules, fixed)

    def choice(self, bits: int) -> tuple[str, ...]:
        """The attackers of a bitmask, in document order."""
        return tuple(a for j, a in enumerate(self.attackers) if bits >> j & 1)

    def bits(self, attackers: Sequence[str]) -> int:
        """The bitmask of a set of attackers."""
        return sum(1 << self.attackers.index(a) for a in attackers)

    def _options(self, prefix: Sequence[int]) -> list[tuple[int, int]]:
        if len(prefix) >= len(self.blockers):
            raise ValueError("every blocker already has its choice")
        fixed = {b: self.choice(_integer(bits, f"choices[{i}]"))
                 for i, (b, bits) in enumerate(zip(self.blockers, prefix, strict=False))}
        found = self._program(fixed).options_of(self.blockers[len(prefix)])
        return [(self.bits(c), n) for c, n in found]

    def mask(self, prefix: Sequence[int], width: int) -> npt.NDArray[np.int8]:
        """For the blocker after ``prefix`` (the choices of the first blockers): 1 for each
        choice below ``width`` with a legal completion."""
        out = np.zeros(width, dtype=np.int8)
        for bits, _ in self._options(prefix):
            if bits >= width:
                raise ValueError(f"choice {bits} does not fit a mask of width {width}")
            out[bits] = 1
        return out

    def weights(self, prefix: Sequence[int], width: int) -> npt.NDArray[np.float64]:
        """The probabilities of the next blocker's choices under a uniform draw of the
        declaration (each choice's share of the completions)."""
        found = self._options(prefix)
        total = sum(n for _, n in found)
        out = np.zeros(width, dtype=np.float64)
        for bits, n in found:
            out[bits] = n / total
        return out

    def declaration(self, choices: Sequence[int]) -> list[dict[str, str]]:
        """The declaration of every blocker's choice, as ``check_blocks`` takes it."""
        return [{"blocker": b, "attacker": a}
                for b, bits in zip(self.blockers, choices, strict=True)
                for a in self.choice(int(bits))]


class BlockEnv(_ChoiceEnv):
    """Declare a board's blocks one blocker at a time (SPEC §11).

    Each episode takes a board from ``boards`` (called with the environment's NumPy
    generator). The observation holds ``choices`` (each blocker's choice so far, as a
    bitmask over the attackers, -1 for those still open, padded to ``max_blockers``) and
    ``blocker`` (the position of the blocker to choose next); the action is that
    blocker's choice, ``Discrete(2 ** max_attackers)``. ``info["action_mask"]`` (also
    :meth:`action_masks`) marks the choices with a legal completion, so that an episode
    kept to the mask ends on a legal declaration (509.1a-c). It ends with
    ``reward(board, declaration)`` (default 0) and ``info["declaration"]``, the pairs as
    ``check_blocks`` and ``evaluate_blocks`` take them; ``trample.api.evaluate_blocks``
    gives its exact value, the natural reward of a blocking agent.

    As :class:`SplitEnv`: a choice outside the mask is refused without raising (the
    episode stays as it was, the reward is ``illegal_reward``, ``info["illegal_action"]``
    is true); a failed :meth:`reset` leaves the episode as it was; :meth:`step` before a
    reset or after the end is a RuntimeError.
    """

    chosen_key = "choices"
    position_key = "blocker"

    def __init__(self, boards: Callable[[np.random.Generator], Document], *,
                 max_blockers: int = 8, max_attackers: int = 6,
                 reward: Callable[[Document, list[dict[str, str]]], float] | None = None,
                 illegal_reward: float = -1.0) -> None:
        if not 1 <= max_attackers <= 16:
            raise ValueError("max_attackers: from 1 to 16 (the action is a bitmask over "
                             "them)")
        super().__init__(boards, choices=max_blockers, width=1 << max_attackers,
                         illegal_reward=illegal_reward)
        self.boards = boards
        self.max_blockers = max_blockers
        self.max_attackers = max_attackers
        self.reward = reward

    def _actions_of(self, document: Document) -> BlockActions:
        actions = BlockActions(document)
        if not actions.blockers:
            raise ValueError("the board has no creature that may block: no choice to make")
        if len(actions.blockers) > self.max_blockers:
            raise ValueError(f"the board has {len(actions.blockers)} creatures that may "
                             f"block, more than max_blockers={self.max_blockers}")
        if len(actions.attackers) > self.max_attackers:
            raise ValueError(f"the board has {len(actions.attackers)} attackers, more than "
                             f"max_attackers={self.max_attackers}")
        return actions

    def _steps(self, actions: BlockActions) -> int:
        return len(actions.blockers)

    def _names(self, actions: BlockActions) -> dict[str, Any]:
        return {"blockers": list(actions.blockers), "attackers": list(actions.attackers)}

    def _end(self, actions: BlockActions) -> tuple[float, dict[str, Any]]:
        declaration = actions.declaration(self.chosen)
        reward = 0.0 if self.reward is None else float(self.reward(self.document,
                                                                   declaration))
        return reward, {"declaration": declaration}
