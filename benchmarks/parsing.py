"""How fast combat/1 documents are read, and how clearly bad ones are refused.

``python -m benchmarks.parsing`` times :meth:`Combat.from_json` (the hand-written reader
of :mod:`trample.models.document.reading`: structure, bounds, references and the rules checked on
input) on a tiny document and on large generated ones, and, when ``msgspec`` is
installed (``pip install msgspec``), msgspec Structs declaring the same structural layer
(types, bounds, unknown fields; no references or rules), from a dict (``convert``) and
from the JSON bytes (``decode``, which replaces ``json.loads`` too). Then it prints what
each says about a few broken documents. Times are the best of ``--repeat`` runs, in
microseconds of CPU time per document.
"""

import argparse
import copy
import json
import time
import timeit
from collections.abc import Callable, Sequence
from typing import Annotated, Any

from benchmarks import generators
from trample.models.document.combat import Combat
from trample.models.document.errors import InputError

DOCUMENTS: dict[str, Callable[[], dict[str, Any]]] = {
    "tiny (1 attacker, 3 blockers)": lambda: generators.tiny(3, 1),
    "gang block, N = 2,000": lambda: generators.gang_block(2000, 1),
    "token armies, 500 x 2,000": lambda: generators.token_army(500, 2000, 1),
    "shared blockers, 200 x 200, 30%": lambda: generators.shared_blockers(200, 200, 0.3, 1),
}

BROKEN: dict[str, Callable[[dict[str, Any]], None]] = {
    "a misspelt field (toughnes)": lambda d: d["creatures"][2].update(
        toughnes=d["creatures"][2].pop("toughness")),
    "power is a string": lambda d: d["creatures"][0].update(power="3"),
    "power 2^40 + 1": lambda d: d["creatures"][0].update(power=2**40 + 1),
    "a block is not an id": lambda d: d["creatures"][2].update(blocking=[7]),
    "a required field is missing": lambda d: d["creatures"][1].pop("controller"),
    "a misspelt keyword (Trampel)": lambda d: d["creatures"][0].update(keywords=["Trampel"]),
}


def msgspec_schema() -> Any:
    """The combat/1 structure as msgspec Structs, or None without msgspec."""
    try:
        import msgspec
    except ImportError:
        return None
    # Built at run time (no postponed annotations in this module): msgspec resolves the
    # annotations of these local classes when the decoder is made.
    Int = Annotated[int, msgspec.Meta(ge=-(2**40), le=2**40)]
    Id = Annotated[str, msgspec.Meta(min_length=1, max_length=200)]
    Text = Annotated[str, msgspec.Meta(max_length=1000)]

    class Player(msgspec.Struct, forbid_unknown_fields=True):
        id: Id
        life: Int = 20
        name: Text | None = None

    class Creature(msgspec.Struct, forbid_unknown_fields=True):
        id: Id
        controller: Id
        power: Int
        toughness: Int
        damage: Annotated[int, msgspec.Meta(ge=0, le=2**40)] = 0
        value: Int = 1
        keywords: Annotated[list[Text], msgspec.Meta(max_length=20_000)] = []
        attacking: Id | None = None
        blocked: bool | None = None
        blocking: Annotated[list[Id], msgspec.Meta(max_length=1_000)] = []
        name: Text | None = None

    class Planeswalker(msgspec.Struct, forbid_unknown_fields=True):
        id: Id
        controller: Id
        loyalty: Int
        in_combat: bool = True
        name: Text | None = None

    class Battle(msgspec.Struct, forbid_unknown_fields=True):
        id: Id
        protector: Id
        defense: Int
        in_combat: bool = True
        name: Text | None = None

    class Document(msgspec.Struct, forbid_unknown_fields=True):
        active_player: Id
        players: Annotated[list[Player], msgspec.Meta(min_length=1, max_length=20_000)]
        creatures: Annotated[list[Creature], msgspec.Meta(max_length=20_000)]
        planeswalkers: list[Planeswalker] = []
        battles: list[Battle] = []
        step: str | None = None
        format: str | None = None
        side: Any = None
        objective: Any = None
        assignment: Any = None
        time_limit: Any = None

    return Document


def _best(call: Callable[[], object], number: int, repeat: int) -> float:
    # CPU time of this process: on a shared machine, wall-clock time measures the others too.
    timer = timeit.Timer(call, timer=time.process_time)
    return min(timer.timeit(number) / number for _ in range(repeat)) * 1e6


def measure(repeat: int = 5, quick: bool = False) -> list[dict[str, Any]]:
    """One row per document: microseconds per parse for each reader."""
    schema = msgspec_schema()
    rows = []
    for name, make in DOCUMENTS.items():
        doc = make()
        raw = json.dumps(doc).encode()
        number = (200 if quick else 20_000) if name.startswith("tiny") else (1 if quick else 20)
        row: dict[str, Any] = {
            "document": name,
            "from_json": _best(lambda doc=doc: Combat.from_json(doc), number, repeat),
            "loads + from_json": _best(lambda raw=raw: Combat.from_json(json.loads(raw)),
                                       number, repeat),
        }
        if schema is not None:
            import msgspec

            decoder = msgspec.json.Decoder(schema)
            row["msgspec convert"] = _best(
                lambda doc=doc: msgspec.convert(doc, schema), number, repeat)
            row["msgspec decode"] = _best(lambda raw=raw, decoder=decoder: decoder.decode(raw),
                                          number, repeat)
        rows.append(row)
    return rows


def messages() -> list[tuple[str, str, str | None]]:
    """(defect, trample's message, msgspec's message or None) for each broken document."""
    schema = msgspec_schema()
    out = []
    for what, mutate in BROKEN.items():
        doc = copy.deepcopy(generators.tiny(3, 1))
        mutate(doc)
        try:
            Combat.from_json(doc)
            ours = "accepted"
        except InputError as exc:
            ours = str(exc)
        theirs = None
        if schema is not None:
            import msgspec

            try:
                msgspec.convert(doc, schema)
                theirs = "accepted"
            except msgspec.ValidationError as exc:
                theirs = str(exc)
        out.append((what, ours, theirs))
    return out


def main(argv: Sequence[str] | None = None) -> None:
    """Print the table of times and the messages side by side."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks.parsing", description=__doc__)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--quick", action="store_true", help="a few runs, for a smoke test")
    args = parser.parse_args(argv)
    rows = measure(args.repeat, args.quick)
    columns = list(rows[0])
    print(" | ".join(columns))
    for row in rows:
        print(" | ".join([row["document"], *(f"{row[c]:,.1f}" for c in columns[1:])]))
    for what, ours, theirs in messages():
        print(f"\n{what}:\n  trample: {ours}")
        if theirs is not None:
            print(f"  msgspec: {theirs}")


if __name__ == "__main__":
    main()
