"""Time banded combats (702.22j-k: each side chooses some of the other side's splits):
solve, count and validate for both sides, in CPU milliseconds (median of repeated calls).

``python -m benchmarks.banding [--sizes 6,30,120,480] [--repeat 5]``. The combats come from
:func:`benchmarks.generators.banded`; every answer is checked by the validator, and the
counts are exact or refused (never estimated). Sizes are attackers.
"""

from __future__ import annotations

import argparse

from benchmarks.generators import banded
from benchmarks.timing import cpu_ms
from trample.solver.count.work import CountOutOfReach
from trample.solver.interface import api
from trample.solver.rules.choosers import moved_choices


def row(size: int, side: str, repeat: int) -> str:
    """One line of timings for one combat and side."""
    doc = banded(size, seed=size)
    moved = len(moved_choices(api.space_of(doc, side).combat))  # type: ignore[arg-type]
    answer = api.solve(doc, side=side)  # type: ignore[arg-type]
    assert api.validate(doc, answer["assignment"], side=side)["legal"]  # type: ignore[arg-type]
    solve = cpu_ms(lambda: api.solve(doc, side=side), repeat)  # type: ignore[arg-type]
    validate = cpu_ms(lambda: api.validate(doc, answer["assignment"],
                                           side=side), repeat)  # type: ignore[arg-type]
    try:
        digits = len(str(api.count(doc, side=side)["count"]))  # type: ignore[arg-type]
        count = f"{cpu_ms(lambda: api.count(doc, side=side), repeat):9.2f}"  # type: ignore[arg-type]
    except CountOutOfReach:
        digits, count = 0, "  refused"
    return (f"| banded-A{size} | {side} | {len(doc['creatures'])} | {moved} | "
            f"{answer['status']} | {solve:.2f} | {validate:.2f} | {count} | {digits} |")


def main(argv: list[str] | None = None) -> None:
    """Print the table."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.banding",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--sizes", default="6,30,120,480")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args(argv)
    print("| instance | side | creatures | splits chosen by the other side | status | "
          "solve ms | validate ms | count ms | count digits |")
    print("| --- | --- | ---: | ---: | --- | ---: | ---: | ---: | ---: |")
    for size in (int(s) for s in args.sizes.split(",")):
        for side in ("attackers", "blockers"):
            print(row(size, side, args.repeat), flush=True)


if __name__ == "__main__":
    main()
