"""Seeded boards of SPEC §11 (combats before blockers are declared) for the blocks benchmark.

Every generator draws from ``random.Random(seed)`` only and returns a plain dict that
``api.best_block`` accepts: the same arguments give the same board. A board is an army of
``n`` attackers (all attacking ``dp``) against an army of ``n`` untapped blockers, each
creature of power and toughness 1-6 and value 1-5, the keywords of the issue drawn at
random: trample, deathtouch, first strike (now and then double strike), flying, lifelink on
both sides, reach on blockers, menace on attackers when the family has it. Life is 5-20 for
both players. A family with requirements also gives some blockers ``must_block``, some
attackers ``lure`` or ``must_be_blocked``.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Any

Board = dict[str, Any]

ATTACKER_KEYWORDS = (("Trample", 0.3), ("Deathtouch", 0.15), ("First strike", 0.15),
                     ("Flying", 0.2), ("Lifelink", 0.15))
"""Each attacker gets each keyword with this chance (double strike replaces first strike
one time in four)."""
BLOCKER_KEYWORDS = (("Deathtouch", 0.15), ("First strike", 0.15), ("Flying", 0.1),
                    ("Reach", 0.2), ("Lifelink", 0.1))
MENACE = 0.25
"""The chance of menace on an attacker, in the families with menace."""
MUST_BLOCK, LURE, MUST_BE_BLOCKED = 0.2, 0.1, 0.1
"""The chances of each requirement, in the families with requirements."""


@dataclass(frozen=True)
class Variant:
    """What a family draws besides the armies."""

    menace: bool
    requirements: bool

    @property
    def name(self) -> str:
        """``plain``, ``menace``, ``requirements`` or ``menace+requirements``."""
        parts = [p for p, on in (("menace", self.menace),
                                 ("requirements", self.requirements)) if on]
        return "+".join(parts) or "plain"


VARIANTS = {v.name: v for v in (Variant(False, False), Variant(True, False),
                                Variant(False, True), Variant(True, True))}


def _keywords(rng: random.Random, table: tuple[tuple[str, float], ...]) -> list[str]:
    found = []
    for keyword, chance in table:
        if rng.random() < chance:
            if keyword == "First strike" and rng.random() < 0.25:
                keyword = "Double strike"
            found.append(keyword)
    return found


def _creature(rng: random.Random, cid: str, controller: str,
              table: tuple[tuple[str, float], ...]) -> dict[str, Any]:
    creature: dict[str, Any] = {"id": cid, "controller": controller,
                                "power": rng.randint(1, 6), "toughness": rng.randint(1, 6),
                                "value": rng.randint(1, 5)}
    keywords = _keywords(rng, table)
    if keywords:
        creature["keywords"] = keywords
    return creature


def board(attackers: int, blockers: int, variant: Variant, seed: int) -> Board:
    """``attackers`` creatures of ``ap`` attacking ``dp``, ``blockers`` creatures of ``dp``
    able to block them (as evasion allows), drawn as the module says."""
    rng = random.Random(seed)
    creatures = []
    for i in range(attackers):
        a = _creature(rng, f"a{i}", "ap", ATTACKER_KEYWORDS)
        a["attacking"] = "dp"
        if variant.menace and rng.random() < MENACE:
            a.setdefault("keywords", []).append("Menace")
        if variant.requirements:
            if rng.random() < LURE:
                a["lure"] = True
            elif rng.random() < MUST_BE_BLOCKED:
                a["must_be_blocked"] = True
        creatures.append(a)
    for j in range(blockers):
        b = _creature(rng, f"b{j}", "dp", BLOCKER_KEYWORDS)
        if variant.requirements and rng.random() < MUST_BLOCK:
            b["must_block"] = True
        creatures.append(b)
    return {"active_player": "ap",
            "players": [{"id": "ap", "life": rng.randint(5, 20)},
                        {"id": "dp", "life": rng.randint(5, 20)}],
            "creatures": creatures}


def attack_board(attackers: int, blockers: int, variant: Variant, seed: int) -> Board:
    """The same armies before attackers are declared (``best_attack``'s board): nobody is
    attacking yet."""
    drawn = board(attackers, blockers, variant, seed)
    for creature in drawn["creatures"]:
        creature.pop("attacking", None)
    return drawn
