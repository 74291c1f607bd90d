"""Correctness while timing: every answer is judged by trample's validator and compared.

The rules (a :class:`Mismatch` stops the run with exit status 1):

- trample's assignment must be legal;
- a greedy baseline must be legal (it is trample's own ``greedy``: an illegal answer is a
  bug in trample); another baseline's illegal answer is reported, not compared;
- a proved-optimal trample must be at least every legal baseline, and equal to every
  baseline that proved optimality (brute force included);
- a trample answer that is not proved (``feasible``) below a legal baseline is reported
  as a finding, not a failure.

Objectives are compared as lexicographic tuples in the order of the terms.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field

from trample.solver.optimize.objectives import evaluate
from trample.solver.rules.legal_space import LegalSpace
from trample.solver.rules.validate import violations

GREEDY = ("greedy", "greedy_value")


class Mismatch(Exception):
    """A correctness check failed: the message names the instance and the methods."""


@dataclass
class MethodResult:
    """One method on one instance: its times, status, and (if it assigns) its answer."""

    method: str
    times: list[float] = field(default_factory=list)
    status: str = ""
    objective: tuple[int, ...] | None = None
    legal: bool | None = None
    gap: float | None = None
    note: str = ""
    ratio: float | None = None
    """Median time over trample's median time on the same instance, same run."""
    peak_memory: int | None = None
    """The most resident memory one run added, in bytes (benchmarks.memory)."""
    extra: dict[str, object] = field(default_factory=dict)

    @property
    def proved(self) -> bool:
        """Whether the method proved its answer optimal."""
        return self.status == "optimal"


def assess(result: MethodResult, space: LegalSpace,
           amounts: Mapping[tuple[str, str], int] | None, terms: Sequence[str]) -> None:
    """Fill in ``legal`` and ``objective`` of ``result`` from its assignment."""
    if amounts is None:
        return
    result.legal = not violations(space, amounts)
    if not result.legal and result.status in ("optimal", "feasible", "heuristic"):
        result.note = (result.note + "; " if result.note else "") + \
            f"illegal ({result.status}): {violations(space, amounts)[0].message}"
        result.status = "illegal"
    result.objective = tuple(evaluate(space, amounts, terms).values())


def lexicographic_gap(best: Sequence[int], other: Sequence[int],
                      terms: Sequence[str]) -> tuple[str, float] | None:
    """The first term where ``other`` differs from ``best`` and the shortfall on it, in
    percent of ``best``'s value there (of 1 when that is 0); None when equal."""
    for term, b, o in zip(terms, best, other, strict=True):
        if b != o:
            return term, 100.0 * (b - o) / max(1, abs(b))
    return None


def check(instance: str, trample: MethodResult, baselines: Sequence[MethodResult]) -> list[str]:
    """Compare trample with every baseline on one instance; the findings to report.

    Raises :class:`Mismatch` on a bug (see the module docstring).
    """
    findings: list[str] = []
    if trample.legal is not True or trample.objective is None:
        raise Mismatch(f"{instance}: trample returned an illegal assignment ({trample.note})")
    for b in baselines:
        if b.legal is None or b.objective is None:
            continue
        if not b.legal:
            if b.method in GREEDY:
                raise Mismatch(f"{instance}: {b.method} (trample.solver.optimize.greedy) "
                               f"returned an illegal assignment: {b.note}")
            findings.append(f"{instance}: {b.method} returned an illegal assignment ({b.note})")
            continue
        if trample.proved:
            if b.objective > trample.objective:
                raise Mismatch(f"{instance}: trample (proved optimal) {trample.objective} is "
                               f"below {b.method} {b.objective}")
            if b.proved and b.objective != trample.objective:
                raise Mismatch(f"{instance}: trample and {b.method} both proved optimal but "
                               f"differ: {trample.objective} vs {b.objective}")
        elif b.objective > trample.objective:
            findings.append(f"{instance}: trample ({trample.status}, not proved) "
                            f"{trample.objective} is below {b.method} ({b.status}) "
                            f"{b.objective}")
    return findings

