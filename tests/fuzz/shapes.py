"""Documents, assignments and JSON-RPC requests built from fuzz bytes.

Everything here draws from a :class:`Draw` over an ``atheris.FuzzedDataProvider`` (or
anything with the same ``Consume*`` methods), so that libFuzzer's mutations of the bytes
become mutations of the structure. ``valid_combat`` builds small combat/1 documents
that parse; ``broken`` then damages any JSON-shaped value the ways a hostile caller
would: wrong types, missing and unknown fields, duplicate and dangling ids, huge
integers, NaN, deep nesting, long strings.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Protocol, TypeVar

T = TypeVar("T")


class Provider(Protocol):
    """The part of ``atheris.FuzzedDataProvider`` used here."""

    def ConsumeIntInRange(self, lo: int, hi: int) -> int: ...
    def ConsumeBool(self) -> bool: ...
    def ConsumeInt(self, size: int) -> int: ...
    def ConsumeUnicode(self, count: int) -> str: ...
    def remaining_bytes(self) -> int: ...


class Draw:
    """Typed choices over a fuzz data provider (an exhausted provider gives the minimum)."""

    def __init__(self, provider: Provider) -> None:
        self.p = provider

    def int(self, lo: int, hi: int) -> int:
        return self.p.ConsumeIntInRange(lo, hi)

    def bool(self) -> bool:
        return self.p.ConsumeBool()

    def one_in(self, n: int) -> bool:
        """True about once in ``n`` draws (never once the bytes run out)."""
        return self.p.ConsumeIntInRange(0, n - 1) == n - 1

    def pick(self, options: Sequence[T]) -> T:
        return options[self.p.ConsumeIntInRange(0, len(options) - 1)]

    def subset(self, options: Sequence[T], min_size: int = 0, max_size: int = 99) -> list[T]:
        chosen = [o for o in options if self.bool()]
        while len(chosen) < min(min_size, len(options)):
            extra = self.pick(options)
            if extra not in chosen:
                chosen.append(extra)
            elif self.p.remaining_bytes() == 0:
                chosen = list(options[:min_size])
        return chosen[:max_size]

    def text(self, max_len: int = 12) -> str:
        return self.p.ConsumeUnicode(self.int(0, max_len))

    def raw_int(self) -> int:
        return self.p.ConsumeInt(self.int(1, 12))


# -- pools of interesting values --------------------------------------------------------------

INTS: tuple[int, ...] = (0, 1, -1, 2, 3, 5, 20, 2**31 - 1, 2**31, -(2**31), 2**40, -(2**40),
                         2**40 + 1, -(2**40 + 1), 2**53 + 1, 2**63, -(2**63), 2**64, 10**100,
                         -(10**100))
PYTHON_INTS: tuple[int, ...] = (10**5000, -(10**5000))
"""Integers no JSON decoder here produces (over the 4,300-digit limit): Python callers only."""
FLOATS: tuple[float, ...] = (0.0, -0.0, 1.0, 3.0, 1.5, -2.5, 1e308, 1e-300, 2.0**41,
                             math.nan, math.inf, -math.inf)
IDS: tuple[str, ...] = ("p0", "p1", "p2", "c0", "c1", "c2", "c3", "c4", "pw0", "pw1", "b0",
                        "b1")
STRINGS: tuple[str, ...] = (
    *IDS, "", " ", "ghost", "x" * 200, "y" * 201, "trample", "Trample_Over-Planeswalkers",
    "banding", "Bands with other", "deathtouch", "Double Strike", "first_strike", "regular",
    "combat/1", "combat/2", "attackers", "blockers", "kills", "lethal", "\udcff", "\x00", "\u00e9",
    "\u202e", "null", "2.0", "2.0\n", "id", "__proto__")
FIELDS: tuple[str, ...] = (
    "id", "controller", "power", "toughness", "damage", "value", "keywords", "attacking",
    "blocked", "blocking", "name", "life", "loyalty", "in_combat", "protector", "defense",
    "active_player", "players", "creatures", "planeswalkers", "battles", "step", "format",
    "side", "objective", "assignment", "time_limit", "source", "target", "amount", "combat",
    "limit", "n", "seed", "toughnes", "", " ", "ID", "jsonrpc", "method", "params")
DEPTHS: tuple[int, ...] = (2, 10, 100, 900, 999, 1001, 3000, 20_000)


def nested(depth: int, as_dict: bool = False, core: Any = None) -> Any:
    """``depth`` nested lists (or ``{"a": ...}`` objects) around ``core``, built without
    recursion."""
    value: Any = [] if core is None else core
    for _ in range(depth):
        value = {"a": value} if as_dict else [value]
    return value


def hostile(d: Draw, depth: int = 0, *, python: bool = False) -> Any:
    """Any JSON-shaped value, biased to edges; ``python`` adds what only Python callers can
    pass (tuples, integers past the decimal-conversion limit, deep nesting)."""
    kind = d.int(0, 11)
    if kind == 0:
        return d.pick(INTS)
    if kind == 1:
        return d.raw_int()
    if kind == 2:
        return d.pick(FLOATS)
    if kind == 3:
        return d.bool()
    if kind == 4:
        return None
    if kind == 5:
        return d.pick(STRINGS)
    if kind == 6:
        return d.text()
    if kind == 7 and depth < 3:
        items = [hostile(d, depth + 1, python=python) for _ in range(d.int(0, 3))]
        return tuple(items) if python and d.one_in(4) else items
    if kind == 8 and depth < 3:
        return {d.pick(FIELDS): hostile(d, depth + 1, python=python) for _ in range(d.int(0, 3))}
    if kind == 9 and python:
        return nested(d.pick(DEPTHS), as_dict=d.bool())
    if kind == 10 and python:
        return d.pick(PYTHON_INTS)
    return d.pick((0, "", [], {}, None, "p0", 1))


# -- valid documents -------------------------------------------------------------------------

KEYWORDS: tuple[str, ...] = ("trample", "trample over planeswalkers", "deathtouch",
                             "first strike", "double strike", "indestructible", "Flying",
                             "lifelink")
SPELLINGS = (str.lower, str.upper, str.title,
             lambda k: k.replace(" ", "_"), lambda k: k.replace(" ", "-").upper())


def _keywords(d: Draw) -> list[str]:
    return [d.pick(SPELLINGS)(k) for k in d.subset(KEYWORDS, max_size=3)]


def _creature(d: Draw, cid: str, controller: str, *, power_max: int) -> dict[str, Any]:
    creature: dict[str, Any] = {"id": cid, "controller": controller,
                                "power": d.int(-1, power_max), "toughness": d.int(-1, 5)}
    if d.bool():
        creature["damage"] = d.int(0, 3)
    if d.bool():
        creature["value"] = d.int(-2, 4)
    if d.bool():
        creature["keywords"] = _keywords(d)
    # Banding and the effects on who assigns and how much (combat/1 §10), now and then.
    if d.one_in(6):
        band = d.pick(("Banding", "bands with other Legendary", "Bands_With-Other wolves"))
        creature["keywords"] = [*creature.get("keywords", []), band]
    if d.one_in(5):
        creature["qualities"] = d.subset(("Legendary", "wolves", "Dinosaurs"), min_size=1)
    if d.one_in(5):
        creature["assigns"] = d.pick(("toughness", "none", "power"))
    if d.one_in(8):
        creature["assigned_by"] = d.pick(("opponent", "controller"))
    return creature


def valid_combat(d: Draw, *, max_attackers: int = 3, max_blockers: int = 4,
                 power_max: int = 5) -> dict[str, Any]:
    """A small combat/1 document that parses (ids from :data:`IDS`)."""
    player_ids = ["p0", "p1", "p2"][: d.int(2, 3)]
    active = d.pick(player_ids)
    defenders = [p for p in player_ids if p != active]
    players: list[dict[str, Any]] = []
    for pid in player_ids:
        player: dict[str, Any] = {"id": pid}
        if d.bool():
            player["life"] = d.pick((20, 1, 0, -1, 3, 5, 2**31))
        players.append(player)
    walkers: list[dict[str, Any]] = []
    for i in range(d.int(0, 2)):
        walker: dict[str, Any] = {"id": f"pw{i}", "controller": d.pick([*defenders, active]),
                                  "loyalty": d.int(-1, 6)}
        if d.one_in(3):
            walker["in_combat"] = d.bool()
        walkers.append(walker)
    battles: list[dict[str, Any]] = []
    for i in range(d.int(0, 1)):
        battle: dict[str, Any] = {"id": f"b{i}", "protector": d.pick([*defenders, active]),
                                  "defense": d.int(-1, 6)}
        if d.one_in(3):
            battle["in_combat"] = d.bool()
        battles.append(battle)
    defender_of = {p: p for p in defenders}
    defender_of.update({w["id"]: w["controller"] for w in walkers if w["controller"] != active})
    defender_of.update({b["id"]: b["protector"] for b in battles if b["protector"] != active})
    targets = sorted(defender_of)
    ids = iter(f"c{i}" for i in range(99))
    attackers: list[dict[str, Any]] = []
    for _ in range(d.int(0, max_attackers)):
        attacker = _creature(d, next(ids), active, power_max=power_max)
        attacker["attacking"] = d.pick(targets)
        if d.one_in(5):
            attacker["as_though_unblocked"] = True
        attackers.append(attacker)
    blockers: list[dict[str, Any]] = []
    for _ in range(d.int(0, max_blockers) if attackers else 0):
        controller = defender_of[d.pick(attackers)["attacking"]]
        eligible = [a["id"] for a in attackers if defender_of[a["attacking"]] == controller]
        blocker = _creature(d, next(ids), controller, power_max=power_max)
        blocker["blocking"] = d.subset(eligible, min_size=1, max_size=3)
        blockers.append(blocker)
    idle = [_creature(d, next(ids), d.pick(player_ids), power_max=power_max)
            for _ in range(d.int(0, 1))]
    blocked = {a for b in blockers for a in b["blocking"]}
    for attacker in attackers:
        if d.one_in(4):
            attacker["blocked"] = True if attacker["id"] in blocked else d.bool()
    creatures = attackers + blockers + idle
    if d.bool():
        creatures.reverse()
    doc: dict[str, Any] = {"active_player": active, "players": players,
                           "creatures": creatures}
    if walkers or d.bool():
        doc["planeswalkers"] = walkers
    if battles or d.bool():
        doc["battles"] = battles
    if d.one_in(3):
        doc["step"] = d.pick(("regular", "first_strike", None))
    if d.one_in(8):
        doc["format"] = "combat/1"
    return doc


# -- breaking them ---------------------------------------------------------------------------


def _slots(value: Any, out: list[tuple[Any, Any]], budget: int = 400) -> None:
    """Every (container, key) inside ``value``, breadth first, at most ``budget``."""
    queue = [value]
    while queue and len(out) < budget:
        current = queue.pop(0)
        if isinstance(current, dict):
            for key in list(current):
                out.append((current, key))
                queue.append(current[key])
        elif isinstance(current, list):
            for i in range(len(current)):
                out.append((current, i))
                queue.append(current[i])


def broken(d: Draw, value: Any, *, python: bool = False) -> Any:
    """``value`` (a JSON-shaped document, changed in place) with one to four defects."""
    for _ in range(d.int(1, 4)):
        slots: list[tuple[Any, Any]] = []
        _slots(value, slots)
        if not slots or d.one_in(40):
            return hostile(d, python=python)
        container, key = d.pick(slots)
        op = d.int(0, 6)
        if op <= 1:  # a wrong (or edge) value
            container[key] = hostile(d, python=python)
        elif op == 2:  # a field or element gone
            del container[key]
        elif op == 3 and isinstance(container, dict):  # an unknown or duplicated field
            container[d.pick(FIELDS)] = hostile(d, python=python)
        elif op == 3:  # an element twice
            container.insert(key, container[key])
        elif op == 4:  # an id that clashes or dangles
            container[key] = d.pick(STRINGS)
        elif op == 5:  # an integer at an edge
            container[key] = d.pick(INTS + (PYTHON_INTS if python else ()))
        elif isinstance(container, list) and len(container) > 1:  # another order
            j = d.int(0, len(container) - 1)
            container[key], container[j] = container[j], container[key]
    return value


# -- assignments and requests ----------------------------------------------------------------


def _ids(doc: Any, keys: tuple[str, ...]) -> list[str]:
    out: list[str] = []
    for key in keys:
        objs = doc.get(key) if isinstance(doc, dict) else None
        for obj in objs if isinstance(objs, list) else []:
            if isinstance(obj, dict) and isinstance(obj.get("id"), str):
                out.append(obj["id"])
    return out


def all_ids(doc: Any) -> list[str]:
    """Every id the document names (for fuzzed assignment entries)."""
    return _ids(doc, ("players", "creatures", "planeswalkers", "battles")) or ["ghost"]


def assignment(d: Draw, doc: Any, *, python: bool = False) -> Any:
    """A list of ``{source, target, amount}`` entries over the document's ids, sometimes
    malformed."""
    ids = all_ids(doc)
    creatures = _ids(doc, ("creatures",)) or ids
    entries: list[Any] = []
    for _ in range(d.int(0, 5)):
        entry: dict[str, Any] = {"source": d.pick(creatures), "target": d.pick(ids),
                                 "amount": d.int(0, 6)}
        entries.append(entry)
    if d.one_in(3):
        return broken(d, entries, python=python)
    if d.one_in(10):
        return {"assignment": entries}
    return entries


METHODS: tuple[str, ...] = ("solve", "validate", "count", "enumerate", "sample", "apply",
                            "Solve", "", "rpc.discover")
REQUEST_IDS: tuple[Any, ...] = (1, 0, -1, 7, "x", "", None, 1.5, 2.0, 2**70, True, [], {},
                                10**30)
OPTIONS: dict[str, tuple[str, ...]] = {
    "solve": ("side", "objective", "time_limit"), "validate": ("side", "assignment"),
    "count": ("side",), "enumerate": ("side", "limit"), "sample": ("side", "n", "seed")}


def params(d: Draw, method: str) -> Any:
    """The ``params`` of a request: a small combat (valid or broken) and the options the
    method takes (sometimes others)."""
    if d.one_in(12):
        return hostile(d)
    doc = valid_combat(d)
    out: dict[str, Any] = {"combat": broken(d, doc) if d.one_in(4) else doc}
    takes = OPTIONS.get(method, ())
    if d.one_in(3):
        out["side"] = d.pick(("attackers", "blockers", "defenders", None, 1))
    if "objective" in takes and d.one_in(3):
        terms = ["lethal", "kills", "planeswalker_kills", "battle_kills", "player_damage",
                 "planeswalker_damage", "battle_damage", "nope"]
        out["objective"] = d.subset(terms) if d.bool() else hostile(d)
    if "time_limit" in takes and d.one_in(3):
        limit = hostile(d)
        if isinstance(limit, (int, float)) and not isinstance(limit, bool) and limit > 1:
            limit = min(limit, 1.0)  # a valid time limit, but a short one: fuzzing, not waiting
        out["time_limit"] = limit
    if method == "validate" and not d.one_in(10):
        out["assignment"] = assignment(d, doc)
    for key, small in (("limit", (1, 0, 3)), ("n", (1, 0, 4)), ("seed", (0, 1, 2**40))):
        # Without a limit, enumerate lists up to 10,000 assignments: rarely, to fuzz fast.
        if key in takes and (not d.one_in(8) if key == "limit" else d.one_in(3)):
            out[key] = d.pick(small) if not d.one_in(3) else d.pick(
                (*INTS, None, "3", 2.0, True))
    if d.one_in(10):
        out[d.pick(FIELDS)] = hostile(d)
    return out


def request(d: Draw) -> Any:
    """One JSON-RPC request object, mostly well formed around fuzzed params."""
    method = d.pick(METHODS) if not d.one_in(10) else hostile(d)
    req: dict[str, Any] = {}
    if not d.one_in(10):
        req["jsonrpc"] = "2.0" if not d.one_in(10) else hostile(d)
    req["method"] = method
    if not d.one_in(10):
        req["params"] = params(d, method if isinstance(method, str) else "")
    if not d.one_in(6):  # without an id: a notification
        req["id"] = d.int(0, 10**6) if not d.one_in(5) else d.pick(REQUEST_IDS)
    if d.one_in(15):
        req[d.pick(FIELDS)] = hostile(d)
    return req
