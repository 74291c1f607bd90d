"""A blocking heuristic of the kind open engines ship, for the blocks benchmark.

Modelled on Forge's ``AiBlockController``: passes over the attackers, the most dangerous
first (power descending), each pass choosing among the blockers still free, the least
valuable first (``value``, then power):

1. **good blocks**: one blocker that kills the attacker and survives; else, against an
   attacker without trample, one that survives without killing it; else one that kills it
   and is worth less than it;
2. **trade blocks**, only while the attack as declared so far is lethal: one blocker that
   kills the attacker;
3. **gang blocks** of two or three blockers that together kill the attacker, when what the
   attacker can kill among them is worth less than it (or the attack is lethal); against a
   first- or double-strike attacker only blockers with first strike join a gang;
4. **chump blocks**, while the attack is lethal: each time, the free blocker and the
   attacker (unblocked, or a trampler already blocked) that take the most damage off the
   attack, the cheapest blocker among equals;
5. **requirements** last, as Forge does: a free blocker able to block an attacker with
   ``lure`` blocks it, else a free blocker with ``must_block`` blocks the first attacker
   it can; then an unblocked attacker with ``must_be_blocked`` gets the cheapest free
   blocker that can block it. Each requirement is met on its own, one after another: the
   declaration may still obey fewer requirements than the most any declaration obeys
   (509.1c), and is then illegal.

Menace (``min_blockers``) is respected in every pass that blocks with one creature by
adding the cheapest free blockers up to the minimum, or dropping the block when there are
not enough. Which pairs are possible (flying, reach, ``cannot_block``) comes from
``api.block_pairs``.

Its predictions look at one attacker and its own blockers at a time, as those engines do:
a duel of one attacker and one blocker is played out exactly (first strike, double strike,
deathtouch); a gang's damage is summed; the attack is *lethal* when the damage of the
unblocked attackers and what tramplers push past their blockers' toughness reaches the
defending player's life (lifelink and the other side's choices ignored). The declaration it
makes is valued by trample exactly (``api.evaluate_blocks``), which also judges it legal.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from itertools import combinations
from typing import Any

from trample import api

GANG_MAX = 3


@dataclass(frozen=True)
class Fighter:
    """What the heuristic reads of one creature of the board."""

    id: str
    index: int
    power: int
    toughness: int
    value: int
    keywords: frozenset[str]
    min_blockers: int = 1
    must_block: bool = False
    lure: bool = False
    must_be_blocked: bool = False

    @property
    def first_strike(self) -> bool:
        """Deals damage in the first-strike step."""
        return bool({"first strike", "double strike"} & self.keywords)

    @property
    def double_strike(self) -> bool:
        """Deals damage in both steps."""
        return "double strike" in self.keywords

    @property
    def deathtouch(self) -> bool:
        """Any damage it deals is lethal."""
        return "deathtouch" in self.keywords

    @property
    def trample(self) -> bool:
        """Assigns what its blockers do not need to the player."""
        return "trample" in self.keywords

    @property
    def hits(self) -> int:
        """How many times it deals its power in a combat."""
        return 2 if self.double_strike else 1

    def strikes(self, first: bool) -> bool:
        """Whether it deals damage in the first-strike step (``first``) or the regular one."""
        return self.first_strike if first else self.double_strike or not self.first_strike

    def needs(self, source: Fighter) -> int:
        """The damage from ``source`` that kills it."""
        return 1 if source.deathtouch else self.toughness

    @property
    def cheapness(self) -> tuple[int, int, int, int]:
        """Least valuable first (Forge's ``getWorstCreatureAI``)."""
        return (self.value, self.power, self.toughness, self.index)


def _fighter(raw: Mapping[str, Any], index: int) -> Fighter:
    keywords = frozenset(str(k).lower().replace("_", " ").replace("-", " ")
                         for k in raw.get("keywords", ()))
    least = int(raw.get("min_blockers", 1))
    if "menace" in keywords:
        least = max(least, 2)
    return Fighter(raw["id"], index, int(raw["power"]), int(raw["toughness"]),
                   int(raw.get("value", 1)), keywords, least,
                   bool(raw.get("must_block")), bool(raw.get("lure")),
                   bool(raw.get("must_be_blocked")))


def duel(attacker: Fighter, blocker: Fighter) -> tuple[bool, bool]:
    """Whether the attacker and the blocker die when they fight each other alone."""
    marked = {attacker.id: 0, blocker.id: 0}
    dead = {attacker.id: False, blocker.id: False}
    for first in (True, False):
        dealt = []
        for source, target in ((attacker, blocker), (blocker, attacker)):
            if not dead[source.id] and source.strikes(first) and source.power > 0:
                dealt.append((source, target))
        for source, target in dealt:
            marked[target.id] += source.power
            if marked[target.id] >= target.needs(source):
                dead[target.id] = True
    return dead[attacker.id], dead[blocker.id]


def gang_kills(attacker: Fighter, gang: Iterable[Fighter]) -> bool:
    """Whether the blockers' damage together kills the attacker (summed, as Forge does)."""
    total = 0
    for b in gang:
        if b.power <= 0:
            continue
        if b.deathtouch:
            return True
        total += b.power * b.hits
    return total >= attacker.toughness


def value_at_risk(attacker: Fighter, gang: tuple[Fighter, ...]) -> int:
    """The most value the attacker's damage can kill among its blockers."""
    budget = attacker.power * attacker.hits
    best = 0
    for k in range(1, len(gang) + 1):
        for killed in combinations(gang, k):
            if sum(b.needs(attacker) for b in killed) <= budget:
                best = max(best, sum(b.value for b in killed))
    return best


class Declaration:
    """The blocks made so far, and what the heuristic predicts of them."""

    def __init__(self, attackers: list[Fighter], blockers: list[Fighter],
                 possible: set[tuple[str, str]], life: int) -> None:
        self.attackers = attackers
        self.blockers = blockers
        self.possible = possible
        self.life = life
        self.blocks: dict[str, list[Fighter]] = {a.id: [] for a in attackers}
        self.free = sorted(blockers, key=lambda b: b.cheapness)

    def can(self, blocker: Fighter, attacker: Fighter) -> bool:
        """Whether the pair is possible and the blocker still free."""
        return blocker in self.free and (blocker.id, attacker.id) in self.possible

    def candidates(self, attacker: Fighter) -> list[Fighter]:
        """The free blockers that can block ``attacker``, cheapest first."""
        return [b for b in self.free if (b.id, attacker.id) in self.possible]

    def add(self, attacker: Fighter, gang: Iterable[Fighter]) -> None:
        """Declare the blocks of ``gang`` on ``attacker``."""
        for b in gang:
            self.free.remove(b)
            self.blocks[attacker.id].append(b)

    def with_menace(self, attacker: Fighter, chosen: Fighter) -> list[Fighter] | None:
        """``chosen`` and, for an attacker that needs more blockers, the cheapest free ones
        up to its minimum; None when there are not enough."""
        gang = [chosen]
        for b in self.candidates(attacker):
            if len(gang) + len(self.blocks[attacker.id]) >= attacker.min_blockers:
                break
            if b is not chosen:
                gang.append(b)
        return gang if len(gang) + len(self.blocks[attacker.id]) >= attacker.min_blockers \
            else None

    def incoming(self) -> int:
        """The damage the attack deals the defending player, as predicted."""
        total = 0
        for a in self.attackers:
            damage = max(0, a.power) * a.hits
            blockers = self.blocks[a.id]
            if not blockers:
                total += damage
            elif a.trample:
                total += max(0, damage - sum(b.needs(a) for b in blockers))
        return total

    @property
    def lethal(self) -> bool:
        """Whether the attack as declared so far kills the defending player."""
        return self.incoming() >= self.life

    def unblocked(self) -> list[Fighter]:
        """The attackers without blockers, in the order of the passes."""
        return [a for a in self.attackers if not self.blocks[a.id]]

    def pairs(self) -> list[dict[str, str]]:
        """The declaration as ``api.evaluate_blocks`` reads it."""
        return [{"blocker": b.id, "attacker": a.id} for a in self.attackers
                for b in sorted(self.blocks[a.id], key=lambda f: f.index)]


def _single(decl: Declaration, attacker: Fighter, chosen: Fighter | None) -> None:
    if chosen is None:
        return
    gang = decl.with_menace(attacker, chosen)
    if gang is not None:
        decl.add(attacker, gang)


def good_blocks(decl: Declaration) -> None:
    """Pass 1: blocks that win or lose nothing."""
    for a in decl.unblocked():
        options = decl.candidates(a)
        fights = {b.id: duel(a, b) for b in options}
        safe = [b for b in options if not fights[b.id][1]]
        chosen = next((b for b in safe if fights[b.id][0]), None)
        if chosen is None and safe and not a.trample:
            chosen = safe[0]
        if chosen is None and not safe:
            chosen = next((b for b in options if fights[b.id][0] and b.value < a.value), None)
        _single(decl, a, chosen)


def trade_blocks(decl: Declaration) -> None:
    """Pass 2: a blocker that kills the attacker and dies, while the attack is lethal."""
    for a in decl.unblocked():
        if not decl.lethal:
            return
        _single(decl, a, next((b for b in decl.candidates(a) if duel(a, b)[0]), None))


def gang_blocks(decl: Declaration) -> None:
    """Pass 3: two or three blockers that kill the attacker, when that is worth it."""
    for a in decl.unblocked():
        options = [b for b in decl.candidates(a) if b.first_strike or not a.first_strike]
        done = False
        for k in range(max(2, a.min_blockers), GANG_MAX + 1):
            for gang in combinations(options, k):
                if gang_kills(a, gang) and (value_at_risk(a, gang) < a.value or decl.lethal):
                    decl.add(a, gang)
                    done = True
                    break
            if done:
                break


def chump_blocks(decl: Declaration) -> None:
    """Pass 4: while the attack is lethal, the chump that takes the most damage off it."""
    while decl.lethal:
        before = decl.incoming()
        best: tuple[int, tuple[int, int, int, int], Fighter, list[Fighter]] | None = None
        for a in decl.attackers:
            if decl.blocks[a.id] and not a.trample:
                continue
            for b in decl.candidates(a):
                gang = decl.with_menace(a, b)
                if gang is None:
                    continue
                decl.blocks[a.id].extend(gang)
                saved = before - decl.incoming()
                del decl.blocks[a.id][-len(gang):]
                if saved > 0 and (best is None or (saved, _neg(b.cheapness)) >
                                  (best[0], _neg(best[1]))):
                    best = (saved, b.cheapness, a, gang)
        if best is None:
            return
        decl.add(best[2], best[3])


def _neg(key: tuple[int, ...]) -> tuple[int, ...]:
    return tuple(-k for k in key)


def requirement_blocks(decl: Declaration) -> None:
    """Pass 5: the requirements, last, as Forge assigns them: each free blocker able to
    block an attacker with ``lure`` blocks it, else one with ``must_block`` blocks the
    first attacker it can; then each unblocked attacker with ``must_be_blocked`` gets the
    cheapest free blocker that can block it (menace respected as in the other passes)."""
    lures = [a for a in decl.attackers if a.lure]
    for b in list(decl.free):
        if b not in decl.free:  # taken as a second blocker for menace meanwhile
            continue
        targets = [a for a in lures if decl.can(b, a)]
        if b.must_block:
            targets += [a for a in decl.attackers if decl.can(b, a) and a not in targets]
        for a in targets:
            gang = decl.with_menace(a, b)
            if gang is not None:
                decl.add(a, gang)
                break
    for a in decl.unblocked():
        if a.must_be_blocked:
            _single(decl, a, next(iter(decl.candidates(a)), None))


def heuristic_blocks(board: Mapping[str, Any]) -> list[dict[str, str]]:
    """The declaration the heuristic makes on a board (one defending player)."""
    fighters = [_fighter(c, i) for i, c in enumerate(board["creatures"])]
    attackers = [f for f, c in zip(fighters, board["creatures"], strict=True)
                 if c.get("attacking") is not None]
    defender = board["creatures"][attackers[0].index]["attacking"] if attackers else None
    blockers = [f for f, c in zip(fighters, board["creatures"], strict=True)
                if c["controller"] == defender]
    attackers.sort(key=lambda a: (-a.power, a.index))
    life = next(p.get("life", 20) for p in board["players"] if p["id"] == defender) \
        if defender is not None else 0
    possible = {(b, a) for b, a in api.block_pairs(dict(board))["pairs"]}
    decl = Declaration(attackers, blockers, possible, life)
    for step in (good_blocks, trade_blocks, gang_blocks, chump_blocks, requirement_blocks):
        step(decl)
    return decl.pairs()
