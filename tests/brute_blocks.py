"""A brute-force oracle for SPEC §11 (blocks and attacks), written only from its text, on
raw board dicts: every subset of the possible pairs is tried, every attack declaration is
listed, and every declaration is valued by the nested enumeration of tests/brute_plan.py.
Use it on tiny boards only: it is exponential in the pairs and in the attackers.

Decisions taken where SPEC §11 is silent:

- Keywords are normalized as `brute.normalize_keyword` does. `min_blockers` of a creature
  with menace is the larger of its `min_blockers` and 2; `max_blockers` absent is no limit;
  `blocks_max` `"any"` is no limit.
- Requirements are counted literally over the pairs given, possible or not: a creature
  with `must_block` obeys once when it is the blocker of some pair; an attacker with
  `must_be_blocked` once when it is the attacker of some pair; an attacker with `lure`
  once for every pair that names it and a creature of its defending player. Restrictions
  (509.1b) are counted over the pairs given too.
- A creature that is not in combat takes no damage, so every creature of the active
  player that does not attack is alive at the end (the boards built for the tests have
  toughness above their marked damage).
"""

from __future__ import annotations

import copy
import itertools
import json
from collections.abc import Iterable, Iterator, Mapping

try:
    from . import brute, brute_plan
except ImportError:  # tests/ is not a package
    import brute_plan

    import brute

Pair = tuple[str, str]
Declaration = frozenset[Pair]
Attack = tuple[tuple[str, str], ...]

DEFAULT_TERMS = ["losses", "trade", "planeswalker_deaths", "battle_deaths", "poison",
                 "life_loss", "loyalty_loss", "defense_loss", "life_gain"]
"""The default objective of SPEC §11's methods."""

RULE_PAIR = "509.1a"
RULE_RESTRICTION = "509.1b"
RULE_REQUIREMENT = "509.1c"


# ---------------------------------------------------------------------------
# Reading the board
# ---------------------------------------------------------------------------


def keywords(creature: dict) -> set[str]:
    return {brute.normalize_keyword(k) for k in creature.get("keywords", [])}


def creature(doc: dict, cid: str) -> dict | None:
    for c in doc.get("creatures", []):
        if c["id"] == cid:
            return c
    return None


def defending_player(doc: dict, target: str) -> str | None:
    """The player an attack on ``target`` is against: that player, the controller of that
    planeswalker, the protector of that battle."""
    for p in doc["players"]:
        if p["id"] == target:
            return target
    for w in doc.get("planeswalkers", []):
        if w["id"] == target:
            return w["controller"]
    for b in doc.get("battles", []):
        if b["id"] == target:
            return b["protector"]
    return None


def min_blockers(c: dict) -> int:
    """702.111b: menace makes it at least 2."""
    least = c.get("min_blockers", 1)
    return max(least, 2) if "menace" in keywords(c) else least


def max_blockers(c: dict) -> float:
    return c.get("max_blockers", float("inf"))


def blocks_max(c: dict) -> float:
    most = c.get("blocks_max", 1)
    return float("inf") if most == "any" else most


# ---------------------------------------------------------------------------
# 509.1a-c
# ---------------------------------------------------------------------------


def _matches(entry: dict, b: str, a: str) -> bool:
    return entry["blocker"] in ("*", b) and entry["attacker"] in ("*", a)


def is_possible(doc: dict, b_id: str, a_id: str) -> bool:
    """SPEC §11's possible pair."""
    b, a = creature(doc, b_id), creature(doc, a_id)
    if b is None or a is None or a.get("attacking") is None:
        return False
    if b.get("attacking") is not None or b.get("tapped") is True:
        return False
    if b.get("can_block") is False or a.get("can_be_blocked") is False:
        return False
    if b["controller"] != defending_player(doc, a["attacking"]):
        return False
    if any(_matches(e, b_id, a_id) for e in doc.get("cannot_block", [])):
        return False
    bk, ak = keywords(b), keywords(a)
    if "flying" in ak and not ({"flying", "reach"} & bk):
        return False  # 702.9b, 702.17b
    if "horsemanship" in ak and "horsemanship" not in bk:
        return False  # 702.31b
    return ("shadow" in ak) == ("shadow" in bk)  # 702.28b, both ways


def block_pairs(doc: dict) -> list[Pair]:
    """Blockers in document order and, for each, its attackers in document order."""
    ids = [c["id"] for c in doc["creatures"]]
    return [(b, a) for b in ids for a in ids if is_possible(doc, b, a)]


def restrictions_hold(doc: dict, decl: Iterable[Pair]) -> bool:
    """509.1b: blocks_max of each blocker, min_blockers and max_blockers of each attacker
    that is blocked, counted over the pairs given."""
    decl = list(decl)
    for b in {b for b, _ in decl}:
        c = creature(doc, b)
        if c is not None and sum(1 for x, _ in decl if x == b) > blocks_max(c):
            return False
    for a in {a for _, a in decl}:
        c = creature(doc, a)
        n = sum(1 for _, y in decl if y == a)
        if c is not None and not min_blockers(c) <= n <= max_blockers(c):
            return False
    return True


def restriction_legal(doc: dict, decl: Iterable[Pair]) -> bool:
    decl = list(decl)
    return all(is_possible(doc, b, a) for b, a in decl) and restrictions_hold(doc, decl)


def obeyed(doc: dict, decl: Iterable[Pair]) -> int:
    """The requirements the declaration obeys (SPEC §11's table)."""
    decl = list(decl)
    total = 0
    for c in doc["creatures"]:
        if c.get("must_block") is True and any(b == c["id"] for b, _ in decl):
            total += 1
        if c.get("must_be_blocked") is True and any(a == c["id"] for _, a in decl):
            total += 1
        if c.get("lure") is True and c.get("attacking") is not None:
            them = defending_player(doc, c["attacking"])
            for b, a in decl:
                blocker = creature(doc, b)
                if a == c["id"] and blocker is not None and blocker["controller"] == them:
                    total += 1
    return total


def declarations(doc: dict) -> Iterator[Declaration]:
    """Every subset of the possible pairs, in declaration order (the 0/1 vector over
    `block_pairs`, ascending)."""
    pairs = block_pairs(doc)
    for bits in itertools.product((0, 1), repeat=len(pairs)):
        yield frozenset(p for p, bit in zip(pairs, bits, strict=True) if bit)


def requirement_max(doc: dict) -> int:
    """509.1c: the most requirements any restriction-legal declaration obeys."""
    return max(obeyed(doc, d) for d in declarations(doc) if restrictions_hold(doc, d))


_LEGAL: dict[str, list[Declaration]] = {}


def legal_declarations(doc: dict) -> list[Declaration]:
    """The legal declarations in declaration order."""
    key = json.dumps(doc, sort_keys=True)
    if key not in _LEGAL:
        most = requirement_max(doc)
        _LEGAL[key] = [d for d in declarations(doc)
                       if restrictions_hold(doc, d) and obeyed(doc, d) == most]
    return list(_LEGAL[key])


def check(doc: dict, decl: Iterable[Pair]) -> dict:
    """`check_blocks` plainly: legal, the rules broken, the requirements obeyed and the
    most obeyed."""
    decl = list(decl)
    most = requirement_max(doc)
    got = obeyed(doc, decl)
    rules = set()
    if not all(is_possible(doc, b, a) for b, a in decl):
        rules.add(RULE_PAIR)
    if not restrictions_hold(doc, decl):
        rules.add(RULE_RESTRICTION)
    if got < most:
        rules.add(RULE_REQUIREMENT)
    return {"legal": not rules, "rules": rules, "obeyed": got, "max": most}


def agrees(decl: Declaration, fixed: Mapping[str, Iterable[str]]) -> bool:
    """Every blocker of ``fixed`` blocks exactly the attackers given."""
    return all({a for b, a in decl if b == blocker} == set(attackers)
               for blocker, attackers in fixed.items())


def count(doc: dict, fixed: Mapping[str, Iterable[str]] | None = None) -> int:
    return sum(1 for d in legal_declarations(doc) if agrees(d, fixed or {}))


def options(doc: dict, fixed: Mapping[str, Iterable[str]],
            blocker: str | None = None) -> tuple[str, list[tuple[list[str], int]]]:
    """The blocker (default: the first blocker of `block_pairs` not in ``fixed``) and every
    set of attackers it blocks in a legal declaration agreeing with ``fixed``, with how
    many, ascending by its part of the vector."""
    pairs = block_pairs(doc)
    if blocker is None:
        blocker = next(b for b, _ in pairs if b not in fixed)
    mine = [a for b, a in pairs if b == blocker]
    found: dict[tuple[int, ...], int] = {}
    for d in legal_declarations(doc):
        if agrees(d, fixed):
            part = tuple(int((blocker, a) in d) for a in mine)
            found[part] = found.get(part, 0) + 1
    return blocker, [([a for a, bit in zip(mine, part, strict=True) if bit], n)
                     for part, n in sorted(found.items())]


# ---------------------------------------------------------------------------
# Values
# ---------------------------------------------------------------------------


def made_combat(doc: dict, decl: Iterable[Pair]) -> dict:
    """The combat the declaration makes: each blocker's `blocking` lists its attackers in
    document order; step first_strike."""
    decl = set(decl)
    made = copy.deepcopy(doc)
    order = [c["id"] for c in doc["creatures"]]
    for c in made["creatures"]:
        mine = [a for a in order if (c["id"], a) in decl]
        if mine:
            c["blocking"] = mine
    made["step"] = "first_strike"
    return made


BOARD_FIELDS = ("tapped", "summoning_sick", "can_attack", "can_block", "can_be_blocked",
                "blocks_max", "min_blockers", "max_blockers", "must_block", "must_be_blocked",
                "lure", "must_attack")
"""The creature fields SPEC §11 adds to a board (top level: `cannot_block`)."""


def combat_document(made: dict) -> dict:
    """A made combat without the board's fields: a combat/1 document, to give to the
    methods that read one (`validate`)."""
    plain = {k: v for k, v in made.items() if k != "cannot_block"}
    plain["creatures"] = [{k: v for k, v in c.items() if k not in BOARD_FIELDS}
                          for c in made["creatures"]]
    return plain


_VALUES: dict[tuple[str, tuple[str, ...]], tuple[int, ...]] = {}


def _with_home(made: dict, value: Iterable[int], terms: list[str]) -> tuple[int, ...]:
    """§11's `survivals` counts every creature of the active player alive at the end,
    those that do not attack included. They take no damage, so that is `brute_plan`'s
    survivals plus a constant, which changes no choice of the nested enumeration."""
    home = sum(c.get("value", 1) for c in made["creatures"]
               if c["controller"] == made["active_player"] and c.get("attacking") is None)
    return tuple(v + home if term == "survivals" else v
                 for v, term in zip(value, terms, strict=True))


def combat_value(made: dict, terms: list[str]) -> tuple[int, ...]:
    """`plan`'s value of a made combat, with §11's `survivals`."""
    key = (json.dumps(made, sort_keys=True), tuple(terms))
    if key not in _VALUES:
        _VALUES[key] = _with_home(made, brute_plan.plan_value(made, terms), terms)
    return _VALUES[key]


def guaranteed(made: dict, first_strike: Mapping[Pair, int],
               terms: list[str]) -> tuple[int, ...]:
    """What the attackers' first-strike split guarantees on a made combat (§11's
    `survivals`): the defenders' worst reply, then both regular splits."""
    return _with_home(made, brute_plan.line_value(made, dict(first_strike), terms), terms)


def value(doc: dict, decl: Iterable[Pair], terms: list[str] | None = None) -> tuple[int, ...]:
    return combat_value(made_combat(doc, decl), terms or DEFAULT_TERMS)


def best_block(doc: dict, terms: list[str] | None = None
               ) -> tuple[tuple[int, ...], Declaration, int]:
    """The smallest value, the first legal declaration in declaration order with it, and
    how many legal declarations have it."""
    valued = [(value(doc, d, terms), d) for d in legal_declarations(doc)]
    least = min(v for v, _ in valued)
    first = next(d for v, d in valued if v == least)
    return least, first, sum(1 for v, _ in valued if v == least)


# ---------------------------------------------------------------------------
# Attacks (508.1a-d, 302.6)
# ---------------------------------------------------------------------------


def may_attack(doc: dict, c: dict) -> bool:
    kw = keywords(c)
    return (c["controller"] == doc["active_player"] and c.get("tapped") is not True
            and c.get("can_attack") is not False and "defender" not in kw
            and (c.get("summoning_sick") is not True or "haste" in kw))


def targets(doc: dict) -> list[str]:
    """508.1b: the other players, then the planeswalkers they control, then the battles
    they protect, each in document order."""
    others = [p["id"] for p in doc["players"] if p["id"] != doc["active_player"]]
    return (others
            + [w["id"] for w in doc.get("planeswalkers", []) if w["controller"] in others]
            + [b["id"] for b in doc.get("battles", []) if b["protector"] in others])


def attack_declarations(doc: dict) -> list[Attack]:
    """The legal attack declarations in attack order: the vector over the creatures that
    may attack (document order) of 0 or the position from 1 of the target, ascending; a
    creature with `must_attack` that may attack always attacks (508.1d)."""
    able = [c for c in doc["creatures"] if may_attack(doc, c)]
    goals = targets(doc)
    result = []
    for vector in itertools.product(range(len(goals) + 1), repeat=len(able)):
        if any(c.get("must_attack") is True and v == 0
               for c, v in zip(able, vector, strict=True)):
            continue
        result.append(tuple((c["id"], goals[v - 1])
                            for c, v in zip(able, vector, strict=True) if v > 0))
    return result


def attack_board(doc: dict, attack: Attack) -> dict:
    """The board before blocks after the attack declaration."""
    board = copy.deepcopy(doc)
    chosen = dict(attack)
    for c in board["creatures"]:
        if c["id"] in chosen:
            c["attacking"] = chosen[c["id"]]
    return board


def best_attack(doc: dict, terms: list[str] | None = None
                ) -> tuple[tuple[int, ...], Attack, int, Declaration]:
    """The largest value of the best block, the first attack declaration in attack order
    with it, how many attack declarations have it, and the best block against it."""
    valued = [(best_block(attack_board(doc, at), terms), at)
              for at in attack_declarations(doc)]
    most = max(v[0] for v, _ in valued)
    block, first = next((v[1], at) for v, at in valued if v[0] == most)
    return most, first, sum(1 for v, _ in valued if v[0] == most), block
