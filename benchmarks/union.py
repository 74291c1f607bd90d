"""Time legal splits as actions on combats with attackers that may assign as though
unblocked (Thorn Elemental): build and count, unrank, rank, options, sample and the
first 1,000 of enumerate, in CPU milliseconds (median of repeated calls).

``python -m benchmarks.union``. Two families: k independent trampling Thorns, each with
two 1/2 blockers, beside ten blocked 3/3 tramplers (the union is counted per Thorn); and
k Thorns that one creature blocks with them (one group: 3^k terms).
"""

from __future__ import annotations

import argparse
import itertools
import random
from typing import Any

from benchmarks.timing import cpu_ms
from trample.solver.actions import union
from trample.solver.interface import api


def thorns(k: int, power: int, others: int, shared: bool) -> dict[str, Any]:
    """k trampling Thorns attacking dp; shared: one 1/2 creature blocks them all, else
    each has two 1/2 blockers; ``others`` blocked 3/3 tramplers beside them."""
    creatures: list[dict[str, Any]] = []
    if shared:
        creatures.append({"id": "z", "controller": "dp", "power": 1, "toughness": 2,
                          "blocking": [f"t{i}" for i in range(k)]})
    for i in range(k):
        creatures.append({"id": f"t{i}", "controller": "ap", "power": power,
                          "toughness": power, "keywords": ["trample"], "attacking": "dp",
                          "as_though_unblocked": True})
        for j in range(0 if shared else 2):
            creatures.append({"id": f"b{i}{j}", "controller": "dp", "power": 1,
                              "toughness": 2, "blocking": [f"t{i}"]})
    for i in range(others):
        creatures.append({"id": f"o{i}", "controller": "ap", "power": 3, "toughness": 3,
                          "keywords": ["trample"], "attacking": "dp"})
        creatures.append({"id": f"w{i}", "controller": "dp", "power": 1, "toughness": 2,
                          "blocking": [f"o{i}"]})
    return {"active_player": "ap", "players": [{"id": "ap", "life": 20},
                                               {"id": "dp", "life": 20}],
            "creatures": creatures, "planeswalkers": [], "battles": []}


CASES = [(1, 7, 0, False), (1, 7, 10, False), (2, 7, 10, False), (4, 7, 10, False),
         (6, 5, 10, False), (10, 4, 0, False), (2, 5, 10, True), (3, 5, 10, True),
         (4, 4, 10, True), (5, 4, 5, True), (6, 3, 5, True), (7, 3, 5, True)]


def row(k: int, power: int, others: int, shared: bool, repeat: int) -> str:
    """One line of timings for one combat."""
    doc = thorns(k, power, others, shared)
    build = cpu_ms(lambda: api.prepare(doc, side="attackers").count(), repeat)
    handle = api.prepare(doc, side="attackers")
    actions = handle.actions
    n = actions.total
    rng = random.Random(1)
    indices = [rng.randrange(n) for _ in range(5)]
    found = [actions.unrank(i) for i in indices]
    unrank = cpu_ms(lambda: [actions.unrank(i) for i in indices], repeat) / 5
    rank = cpu_ms(lambda: [actions.rank(a) for a in found], repeat) / 5
    options = cpu_ms(lambda: actions.options({}, actions.pairs[0]), repeat)
    sample = cpu_ms(lambda: [actions.sample(rng) for _ in range(100)], repeat) / 100
    listing = cpu_ms(lambda: list(itertools.islice(actions.enumerate(), 1000)), 1)
    kind = "one blocker for all" if shared else "independent"
    return (f"{kind:>19} k={k:<2} power={power} others={others:<2} "
            f"pairs={len(actions.pairs):<3} terms={union.terms_needed(handle.space):<5} "
            f"count={n:.3e}  build+count {build:7.1f}  unrank {unrank:6.1f}  "
            f"rank {rank:6.1f}  options {options:6.2f}  sample {sample:6.3f}  "
            f"enumerate 1000 {listing:7.0f}")


def main() -> None:
    """Print one line per combat."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    for case in CASES:
        print(row(*case, repeat=args.repeat))


if __name__ == "__main__":
    main()
