"""The greedy rule open-source engines use: lethal damage in order, the rest past it.

Always legal (a gate that holds when damage is assigned keeps holding, because damage
only accumulates), never proved optimal. trample uses it as a CP-SAT hint and as the
answer of last resort when a time limit stops the search before any solution; the
benchmarks use it as a baseline.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable, Sequence

from trample.solver.rules.assignment import Amounts
from trample.solver.rules.legal_space import LegalSpace, Recipient, Source


def greedy(space: LegalSpace, sources: Iterable[Source] | None = None,
           order: Callable[[Source], Sequence[Recipient]] | None = None) -> Amounts:
    """Assign each source's damage recipient by recipient: lethal to creatures, loyalty to
    a planeswalker that gates a later recipient, everything left to the last recipient
    whose conditions hold. ``order`` may reorder a source's recipients (e.g. by value)."""
    received: Counter[str] = Counter()
    touched: set[str] = set()
    amounts: Amounts = {}

    def opens(r: Recipient) -> bool:
        return space.gate_open(r, received, touched)

    touching = space.deathtouch_pairs

    def give(s: Source, r: Recipient, amount: int) -> None:
        if amount <= 0:
            return
        amounts[(s.id, r.id)] = amounts.get((s.id, r.id), 0) + amount
        received[r.id] += amount
        if (s.id, r.id) in touching:
            touched.add(r.id)

    for s in space.sources if sources is None else sources:
        if not s.recipients:
            continue
        recipients = list(order(s) if order is not None else s.recipients)
        remaining = s.power
        last_open: Recipient | None = None
        for r in recipients:
            if not opens(r):
                continue
            last_open = r
            if r.kind == "creature":
                if space.is_lethally_assigned(r.id, received, touched):
                    continue
                cap = space.still_needed(s, r.id, received[r.id])
            elif r.kind == "planeswalker" and any(q.requires_loyalty == r.id for q in recipients):
                cap = space.still_needed(s, r.id, received[r.id])
            else:
                cap = remaining
            amount = min(max(cap, 0), remaining)
            give(s, r, amount)
            remaining -= amount
        if remaining > 0:
            # Everything left goes to the last recipient whose conditions hold now.
            for r in reversed(recipients):
                if opens(r):
                    last_open = r
                    break
            assert last_open is not None, "every source has an ungated recipient"
            give(s, last_open, remaining)
    return amounts
