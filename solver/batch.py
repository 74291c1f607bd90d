"""Judge many candidate splits of one combat at once, with NumPy.

For agents that score thousands of candidates (a policy network's outputs, say): each
row of an integer array is one assignment, one column per legal (source, recipient)
pair in :func:`pair_order`. The answer is a boolean mask, one entry per row, equal to
``not violations(...)`` for the same assignment (the tests check that it is).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from trample.solver.rules import LegalSpace

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


def pair_order(space: LegalSpace) -> list[tuple[str, str]]:
    """The columns of a candidate array: every legal (source, recipient) pair, sources in
    document order, each source's recipients in the order of its legal space."""
    return list(space.pairs)


def validate_many(space: LegalSpace, amounts: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """A legality mask over the rows of ``amounts`` (shape ``(k, len(pair_order))``)."""
    import numpy as np

    pairs = pair_order(space)
    a = np.asarray(amounts)
    if a.ndim == 1:
        a = a.reshape(1, -1)
    if a.ndim != 2 or a.shape[1] != len(pairs):
        raise ValueError(f"amounts must have shape (k, {len(pairs)}): one column per legal "
                         "(source, recipient) pair in pair_order")
    if a.dtype.kind not in "iu":
        raise ValueError("amounts must be an integer array")
    a = a.astype(np.int64, copy=False)
    ok: npt.NDArray[np.bool_] = np.all(a >= 0, axis=1)

    # 510.1a: each source assigns exactly its power.
    column = {pair: j for j, pair in enumerate(pairs)}
    starts, powers = [], []
    for s in space.sources:
        if s.recipients:
            starts.append(column[(s.id, s.recipients[0].id)])
            powers.append(s.power)
    if starts:
        totals = np.add.reduceat(a, starts, axis=1)
        ok &= np.all(totals == np.asarray(powers, dtype=np.int64), axis=1)

    # 702.19b-e: a gated recipient gets damage only once its conditions hold, judged
    # over the whole assignment (510.1e).
    gated = [(j, r) for j, ((_, _), r) in enumerate(space.pairs.items()) if r.gated]
    if not gated:
        return ok
    received: dict[str, np.ndarray[Any, Any]] = {}

    def total(target: str) -> np.ndarray[Any, Any]:
        if target not in received:
            cols = [j for j, (_, t) in enumerate(pairs) if t == target]
            received[target] = a[:, cols].sum(axis=1)
        return received[target]

    lethal: dict[str, np.ndarray[Any, Any]] = {}

    def lethally_assigned(creature: str) -> np.ndarray[Any, Any]:
        if creature not in lethal:
            need = space.combat.creature(creature).lethal_need
            reached = total(creature) >= need
            touch = [j for j, (s, t) in enumerate(pairs)
                     if t == creature and s in space.deathtouchers]
            if touch:
                reached = reached | np.any(a[:, touch] > 0, axis=1)
            lethal[creature] = reached
        return lethal[creature]

    for j, r in gated:
        holds = np.ones(a.shape[0], dtype=bool)
        for wall in r.requires_lethal:
            holds &= lethally_assigned(wall)
        if r.requires_loyalty is not None:
            holds &= total(r.requires_loyalty) >= space.combat.planeswalker(
                r.requires_loyalty).loyalty
        ok &= (a[:, j] == 0) | holds
    return ok
