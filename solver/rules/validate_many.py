"""Judge many candidate splits of one combat at once, with NumPy.

For agents that score thousands of candidates (a policy network's outputs, say): each
row of an integer array is one assignment, one column per legal (source, recipient)
pair in :func:`pair_columns`. The answer is a boolean mask, one entry per row, equal to
``not violations(...)`` for the same assignment (the tests check that it is).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from trample.models.document.assignment import Pair
from trample.solver.rules.legal_space import LegalSpace
from trample.solver.rules.pieces import pieces, union_pairs

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt


def pair_columns(space: LegalSpace) -> list[Pair]:
    """The columns of a candidate array: every legal (source, recipient) pair, sources in
    document order, each source's recipients in the order of its legal space (with an
    attacker that may assign as though unblocked, the pairs of both its sets of splits:
    :func:`trample.solver.rules.pieces.union_pairs`)."""
    if space.alternatives:
        return union_pairs(space)
    return list(space.pairs)


def integer_rows(amounts: npt.ArrayLike, columns: int) -> npt.NDArray[np.int64]:
    """``amounts`` as a (k, ``columns``) array of int64 (one row for a single vector), or
    ValueError when it is not an integer array of that width."""
    import numpy as np

    a = np.asarray(amounts)
    if a.ndim == 1:
        a = a.reshape(1, -1)
    if a.ndim != 2 or a.shape[1] != columns:
        raise ValueError(f"amounts must have shape (k, {columns}): one column per legal "
                         "(source, recipient) pair in pair_order")
    if a.dtype.kind not in "iu":
        raise ValueError("amounts must be an integer array")
    return a.astype(np.int64, copy=False)


def legal_rows(space: LegalSpace, amounts: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """A legality mask over the rows of ``amounts`` (shape ``(k, len(pair_columns))``): the
    API's ``validate_many`` on a legal space."""
    import numpy as np

    if space.alternatives:
        return _validate_union(space, amounts)
    pairs = pair_columns(space)
    a = integer_rows(amounts, len(pairs))
    ok: npt.NDArray[np.bool_] = np.all(a >= 0, axis=1)

    # The legal space gives the columns of each rule: 510.1a (each source assigns exactly
    # its power) and 702.19b-e (a gated column is positive only once the thresholds of its
    # conditions are met, judged over the whole assignment: 510.1e, 702.2c, 702.19c).
    cols = space.columns
    if cols.starts:
        totals = np.add.reduceat(a, cols.starts, axis=1)
        ok &= np.all(totals == np.asarray(cols.powers, dtype=np.int64), axis=1)
    if not cols.gates:
        return ok
    met = []
    for into, touch, threshold in zip(cols.item_columns, cols.item_touch, cols.thresholds,
                                      strict=True):
        reached = _sum(a, into) >= threshold
        if touch:
            reached |= np.any(a[:, touch] > 0, axis=1)
        met.append(reached)
    for j, needs in cols.gates:
        holds = met[needs[0]]
        for n in needs[1:]:
            holds = holds & met[n]
        ok &= (a[:, j] == 0) | holds
    return ok


def _sum(a: npt.NDArray[np.int64], columns: tuple[int, ...]) -> npt.NDArray[np.int64]:
    """Row sums over ``columns`` (a view, not a copy, for the common single column)."""
    if len(columns) == 1:
        return a[:, columns[0]]
    total: npt.NDArray[np.int64] = a[:, list(columns)].sum(axis=1)
    return total


def _validate_union(space: LegalSpace, amounts: npt.ArrayLike) -> npt.NDArray[np.bool_]:
    """:func:`legal_rows` over the union of pieces (:mod:`.pieces`): a row is legal when it
    is a legal split of some piece, i.e. legal in the piece's mode space, nothing to a
    pair outside it, and within the piece (:attr:`Piece.reaches`: each attacker fixed to
    its blocked splits gives one of its blockers damage). Pieces hold disjoint sets of
    splits whose union is the space's legal splits, so this is :func:`violations` per
    row, judged by the set of splits its modes (:func:`modes_of`) name."""
    import numpy as np

    pairs = union_pairs(space)
    a = integer_rows(amounts, len(pairs))
    column = {p: j for j, p in enumerate(pairs)}
    ok = np.zeros(a.shape[0], dtype=bool)
    for piece in pieces(space):
        inside = [column[p] for p in piece.space.pairs]
        kept = set(inside)
        outside = [j for j in range(len(pairs)) if j not in kept]
        rows = np.all(a[:, outside] == 0, axis=1) if outside \
            else np.ones(a.shape[0], dtype=bool)
        for attacker, walls in piece.reaches:
            rows &= np.any(a[:, [column[(attacker, b)] for b in walls]] > 0, axis=1)
        rows &= ~ok  # a row is in at most one piece; those already legal are done
        if rows.any():
            ok[rows] = legal_rows(piece.space, a[rows][:, inside])
    return ok
