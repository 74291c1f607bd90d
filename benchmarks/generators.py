"""Seeded generators of large combats (combat/1 documents) for the benchmarks.

Every generator takes its sizes and a seed, draws from ``random.Random(seed)`` only, and
returns a plain dict that :meth:`trample.models.document.combat.Combat.from_json` accepts: the same
arguments give the same document. The families:

- :func:`gang_block`: one trampler blocked by ``n`` creatures (power up to 3n);
- :func:`token_army`: ``attackers`` against ``blockers``, each blocker blocking one
  attacker, some attackers unblocked, a mix of trample and deathtouch;
- :func:`shared_blockers`: two defending players; a ``share`` of the blockers block two or
  three attackers (all attacking the blocker's controller, 509.1a);
- :func:`token_swarm`: like :func:`shared_blockers`, but the blockers are tokens of four
  kinds, so many are interchangeable;
- :func:`planeswalker_pileup`: attackers on a few planeswalkers (one removed from combat),
  many with trample over planeswalkers, blocked and unblocked;
- :func:`wide_gang`: one trampler of power 3n blocked by ``n`` creatures of toughness
  1 to 6 and values 1 to 9, every blocker worth killing and the knapsack tight;
- :func:`split_ranks`: pairs of tramplers, each pair attacking a different defending
  player, each attacker with its own wall of blockers (many small independent parts
  meeting only at the players' life);
- :func:`tiny`: one attacker and one to three blockers;
- :func:`small_combat`: one to three attackers and one to four blockers, the combats a
  search loop values by the thousand (with ``first_strike``, of the first-strike step,
  for ``plan``).
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from typing import Any

Document = dict[str, Any]

ACTIVE = "ap"


def _player(pid: str, life: int = 20) -> dict[str, Any]:
    return {"id": pid, "life": life}


def _blocker(rng: random.Random, cid: str, controller: str, blocking: list[str],
             *, toughness: tuple[int, int] = (1, 6)) -> dict[str, Any]:
    """A blocking creature: mixed toughness, some damage marked, varied values."""
    t = rng.randint(*toughness)
    creature: dict[str, Any] = {"id": cid, "controller": controller,
                                "power": rng.randint(0, 5), "toughness": t,
                                "value": rng.choice((-1, 0, 1, 1, 2, 2, 3, 4, 5, 8)),
                                "blocking": blocking}
    if t > 1 and rng.random() < 0.2:
        creature["damage"] = rng.randint(1, t - 1)
    if rng.random() < 0.04:
        creature["keywords"] = ["Indestructible"]
    return creature


def _attacker(rng: random.Random, cid: str, target: str, power: int,
              keywords: list[str]) -> dict[str, Any]:
    creature: dict[str, Any] = {"id": cid, "controller": ACTIVE, "power": power,
                                "toughness": rng.randint(1, 8), "attacking": target,
                                "value": rng.randint(1, 6)}
    if keywords:
        creature["keywords"] = keywords
    return creature


def gang_block(n: int, seed: int) -> Document:
    """One trampler attacking ``dp``, blocked by ``n`` creatures; power between n and 3n."""
    rng = random.Random(seed)
    power = rng.randint(n, 3 * n)
    creatures = [_attacker(rng, "a0", "dp", power, ["Trample"])]
    creatures += [_blocker(rng, f"b{i}", "dp", ["a0"], toughness=(1, 4)) for i in range(n)]
    # Life near what passes through after lethal to everyone, so `lethal` is contested.
    spare = power - sum(c["toughness"] - c.get("damage", 0) for c in creatures[1:])
    life = max(1, spare + rng.randint(-5, 5)) if spare > 0 else rng.randint(5, 20)
    return {"format": "combat/1", "active_player": ACTIVE,
            "players": [_player(ACTIVE), _player("dp", life)],
            "creatures": creatures, "step": "regular"}


def wide_gang(n: int, seed: int) -> Document:
    """One trampler of power 3n attacking ``dp``, blocked by ``n`` creatures of toughness
    1 to 6 (no damage marked) and values 1 to 9: killing every blocker costs about 3.5n,
    more than the power, so the best set of kills is a real knapsack."""
    rng = random.Random(seed)
    creatures: list[dict[str, Any]] = [
        {"id": "a0", "controller": ACTIVE, "power": 3 * n, "toughness": 5,
         "attacking": "dp", "keywords": ["Trample"], "value": 5}]
    creatures += [{"id": f"b{i}", "controller": "dp", "power": rng.randint(0, 4),
                   "toughness": rng.randint(1, 6), "value": rng.randint(1, 9),
                   "blocking": ["a0"]} for i in range(n)]
    return {"format": "combat/1", "active_player": ACTIVE,
            "players": [_player(ACTIVE), _player("dp", rng.randint(5, 40))],
            "creatures": creatures, "step": "regular"}


def split_ranks(attackers: int, seed: int) -> Document:
    """``attackers`` tramplers (power 4 to 20, a quarter with deathtouch) split among
    ``attackers // 2`` defending players of low life; each is blocked by its own two to six
    creatures (toughness 1 to 8, some damage marked, a few indestructible)."""
    rng = random.Random(seed)
    defenders = [f"d{k}" for k in range(max(1, attackers // 2))]
    creatures: list[dict[str, Any]] = []
    blockers: list[dict[str, Any]] = []
    for i in range(attackers):
        target = defenders[i % len(defenders)]
        keywords = ["Trample", "Deathtouch"] if rng.random() < 0.25 else ["Trample"]
        creatures.append(_attacker(rng, f"a{i}", target, rng.randint(4, 20), keywords))
        for _ in range(rng.randint(2, 6)):
            blockers.append(_blocker(rng, f"b{len(blockers)}", target, [f"a{i}"],
                                     toughness=(1, 8)))
    players = [_player(ACTIVE), *(_player(d, rng.randint(1, 12)) for d in defenders)]
    return {"format": "combat/1", "active_player": ACTIVE, "players": players,
            "creatures": creatures + blockers, "step": "regular"}


def token_army(attackers: int, blockers: int, seed: int) -> Document:
    """``attackers`` tokens against ``blockers`` creatures, each blocking one attacker.

    About a fifth of the attackers are unblocked; half have trample, a fifth deathtouch.
    """
    rng = random.Random(seed)
    creatures: list[dict[str, Any]] = []
    for i in range(attackers):
        keywords = []
        if rng.random() < 0.5:
            keywords.append("Trample")
        if rng.random() < 0.2:
            keywords.append("Deathtouch")
        creatures.append(_attacker(rng, f"a{i}", "dp", rng.randint(1, 8), keywords))
    blocked = [c["id"] for c in creatures if rng.random() < 0.8] or [creatures[0]["id"]]
    # Every blocked attacker gets one blocker; the rest go to random blocked attackers.
    targets = [*blocked, *(rng.choice(blocked) for _ in range(blockers - len(blocked)))]
    targets = targets[:blockers]
    rng.shuffle(targets)
    creatures += [_blocker(rng, f"b{j}", "dp", [a], toughness=(1, 4))
                  for j, a in enumerate(targets)]
    unblocked = sum(c["power"] for c in creatures[:attackers] if c["id"] not in set(targets))
    life = unblocked + rng.randint(1, 20 + attackers)
    return {"format": "combat/1", "active_player": ACTIVE,
            "players": [_player(ACTIVE), _player("dp", life)],
            "creatures": creatures, "step": "regular"}


def _two_defenders(rng: random.Random, attackers: int, blockers: int, share: float,
                   attacker: Callable[[int, str], tuple[dict[str, Any], bool]],
                   blocker: Callable[[int, str, list[str], int], dict[str, Any]],
                   life_per_attacker: int) -> Document:
    """Attackers alternating between two defending players (``attacker(i, target)``: the
    creature, and whether it may be blocked), then ``blockers`` blockers
    (``blocker(j, controller, blockable attackers of controller, k)``, blocking ``k`` of
    them): ``round(share * blockers)`` block two or three, the others one."""
    defenders = ("dp1", "dp2")
    creatures: list[dict[str, Any]] = []
    by_defender: dict[str, list[str]] = {d: [] for d in defenders}
    for i in range(attackers):
        target = defenders[i % 2]
        creature, blockable = attacker(i, target)
        creatures.append(creature)
        if blockable:
            by_defender[target].append(creature["id"])
    multi = round(share * blockers)
    # A defender with three blockable attackers or more, else any with one (a few
    # attackers, some unblockable, may leave none with three).
    eligible = [d for d in defenders if len(by_defender[d]) >= 3] or \
        [d for d in defenders if by_defender[d]]
    if not eligible:
        raise ValueError(f"none of the {attackers} attackers can be blocked: try "
                         "another seed")
    for j in range(blockers):
        controller = rng.choice(eligible)
        k = rng.choice((2, 3)) if j < multi else 1
        k = min(k, len(by_defender[controller]))
        creatures.append(blocker(j, controller, by_defender[controller], k))
    lives = [_player(d, rng.randint(20, 20 + life_per_attacker * attackers))
             for d in defenders]
    return {"format": "combat/1", "active_player": ACTIVE,
            "players": [_player(ACTIVE), *lives], "creatures": creatures, "step": "regular"}


def shared_blockers(attackers: int, blockers: int, share: float, seed: int) -> Document:
    """Two defending players; ``round(share * blockers)`` blockers block two or three
    attackers attacking their controller (509.1a), the others one."""
    rng = random.Random(seed)

    def attacker(i: int, target: str) -> tuple[dict[str, Any], bool]:
        keywords = []
        if rng.random() < 0.6:
            keywords.append("Trample")
        if rng.random() < 0.1:
            keywords.append("Deathtouch")
        creature = _attacker(rng, f"a{i}", target, rng.randint(2, 10), keywords)
        return creature, rng.random() < 0.9

    def blocker(j: int, controller: str, pool: list[str], k: int) -> dict[str, Any]:
        return _blocker(rng, f"b{j}", controller, rng.sample(pool, k))

    return _two_defenders(rng, attackers, blockers, share, attacker, blocker, 4)


TOKENS = ((1, 1), (2, 2), (1, 1), (0, 4))
"""The (power, toughness) of the token kinds :func:`token_swarm` draws from (1/1 twice as
often); a token's value is its toughness."""


def token_swarm(attackers: int, blockers: int, share: float, seed: int) -> Document:
    """``attackers`` (70% tramplers, power 3 to 12) on two defending players, blocked by
    ``blockers`` tokens; ``round(share * blockers)`` of them block two or three of their
    controller's attackers, the others one."""
    rng = random.Random(seed)

    def attacker(i: int, target: str) -> tuple[dict[str, Any], bool]:
        keywords = ["Trample"] if rng.random() < 0.7 else []
        return _attacker(rng, f"a{i}", target, rng.randint(3, 12), keywords), True

    def blocker(j: int, controller: str, pool: list[str], k: int) -> dict[str, Any]:
        power, toughness = rng.choice(TOKENS)
        return {"id": f"t{j}", "controller": controller, "power": power,
                "toughness": toughness, "value": toughness, "blocking": rng.sample(pool, k)}

    return _two_defenders(rng, attackers, blockers, share, attacker, blocker, 2)


def planeswalker_pileup(attackers: int, seed: int, walkers: int = 4) -> Document:
    """``attackers`` on ``walkers`` planeswalkers of ``dp`` (the last removed from combat)
    and on ``dp``; most planeswalker attackers have trample over planeswalkers; about half
    the attackers are blocked, by one to three creatures each."""
    rng = random.Random(seed)
    planeswalkers: list[dict[str, Any]] = [
        {"id": f"pw{k}", "controller": "dp", "loyalty": rng.randint(3, 8)}
        for k in range(walkers)]
    if walkers >= 2:
        planeswalkers[-1]["in_combat"] = False
    creatures: list[dict[str, Any]] = []
    blockers: list[dict[str, Any]] = []
    for i in range(attackers):
        on_walker = rng.random() < 0.75
        target = rng.choice(planeswalkers)["id"] if on_walker else "dp"
        roll = rng.random()
        if on_walker and roll < 0.6:
            keywords = ["Trample over planeswalkers"]
        elif roll < 0.8:
            keywords = ["Trample"]
        else:
            keywords = []
        if rng.random() < 0.1:
            keywords.append("Deathtouch")
        creatures.append(_attacker(rng, f"a{i}", target, rng.randint(1, 9), keywords))
        if rng.random() < 0.5:
            for _ in range(rng.randint(1, 3)):
                blockers.append(_blocker(rng, f"b{len(blockers)}", "dp", [f"a{i}"],
                                         toughness=(1, 5)))
    life = rng.randint(10, 10 + 2 * attackers)
    return {"format": "combat/1", "active_player": ACTIVE,
            "players": [_player(ACTIVE), _player("dp", life)],
            "creatures": creatures + blockers, "planeswalkers": planeswalkers,
            "step": "regular"}


def tiny(blockers: int, seed: int) -> Document:
    """One attacker (usually a trampler, sometimes with deathtouch) and ``blockers``
    blockers, for throughput."""
    rng = random.Random(seed)
    keywords = ["Trample"] if rng.random() < 0.7 else []
    if rng.random() < 0.2:
        keywords.append("Deathtouch")
    creatures = [_attacker(rng, "a0", "dp", rng.randint(1, 6), keywords)]
    creatures += [_blocker(rng, f"b{i}", "dp", ["a0"], toughness=(1, 4))
                  for i in range(blockers)]
    return {"format": "combat/1", "active_player": ACTIVE,
            "players": [_player(ACTIVE), _player("dp", rng.randint(1, 20))],
            "creatures": creatures, "step": "regular"}


FIRST_STRIKE_KEYWORDS = ("First strike", "Double strike")


def small_combat(seed: int, first_strike: bool = False) -> Document:
    """One to three attackers on one defending player and one to four blockers, each
    blocking one of them (some attackers unblocked): tramplers, deathtouch, marked damage,
    indestructible blockers and values as the large families draw them. With
    ``first_strike``, some attackers have first strike or double strike (at least one),
    some blockers first strike, and the document is of the first-strike step."""
    rng = random.Random(seed)
    creatures: list[dict[str, Any]] = []
    for i in range(rng.randint(1, 3)):
        keywords = ["Trample"] if rng.random() < 0.6 else []
        if rng.random() < 0.15:
            keywords.append("Deathtouch")
        if first_strike and (rng.random() < 0.5 or i == 0):
            keywords.append(rng.choice(FIRST_STRIKE_KEYWORDS))
        creatures.append(_attacker(rng, f"a{i}", "dp", rng.randint(1, 8), keywords))
    attackers = [c["id"] for c in creatures]
    for j in range(rng.randint(1, 4)):
        blocker = _blocker(rng, f"b{j}", "dp", [rng.choice(attackers)], toughness=(1, 5))
        if first_strike and rng.random() < 0.2:
            blocker["keywords"] = [*blocker.get("keywords", []), "First strike"]
        creatures.append(blocker)
    return {"format": "combat/1", "active_player": ACTIVE,
            "players": [_player(ACTIVE), _player("dp", rng.randint(1, 20))],
            "creatures": creatures, "step": "first_strike" if first_strike else "regular"}


def banded(attackers: int, seed: int) -> Document:
    """Attacking bands (702.22c: two or three creatures with banding, sometimes one
    without) and lone attackers on one defending player; each band or attacker blocked by
    one to three creatures, a block on a band blocking all of it (702.22h); a quarter of
    the blockers with banding, some pairs of Wolves that band with each other, some
    creatures that assign damage equal to their toughness. Both sides then choose some
    of the other side's splits (702.22j-k)."""
    rng = random.Random(seed)
    creatures: list[dict[str, Any]] = []
    blockers: list[dict[str, Any]] = []
    i = 0
    while i < attackers:
        size = min(rng.choice((1, 1, 2, 3)), attackers - i)
        band = [f"a{i + k}" for k in range(size)]
        for k, cid in enumerate(band):
            keywords = ["Trample"] if rng.random() < 0.4 else []
            if size > 1 and (k > 0 or rng.random() < 0.7):
                keywords.append("Banding")
            creature = _attacker(rng, cid, "dp", rng.randint(1, 6), keywords)
            if rng.random() < 0.1:
                creature["assigns"] = "toughness"
            creatures.append(creature)
        for _ in range(rng.choice((0, 1, 1, 2, 3))):
            blocker = _blocker(rng, f"b{len(blockers)}", "dp", band, toughness=(1, 5))
            roll = rng.random()
            if roll < 0.25:
                blocker["keywords"] = [*blocker.get("keywords", []), "Banding"]
            elif roll < 0.4:
                blocker["keywords"] = [*blocker.get("keywords", []),
                                       "Bands with other Wolves of the Hunt"]
                blocker["qualities"] = ["Wolves of the Hunt"]
            elif roll < 0.55:
                blocker["qualities"] = ["Wolves of the Hunt"]
            blockers.append(blocker)
        i += size
    life = rng.randint(10, 10 + 2 * attackers)
    return {"format": "combat/1", "active_player": ACTIVE,
            "players": [_player(ACTIVE), _player("dp", life)],
            "creatures": creatures + blockers, "step": "regular"}


WIDE_SCALES = (16, 64, 1000, 2**20, 2**33, 2**40)
"""The largest amounts :func:`wide_amounts` draws from (2^40: the most a document holds)."""


def wide_amounts(rng: random.Random) -> Document:
    """A small combat of wide amounts: 2-5 attackers (70% tramplers, 15% deathtouch) on
    one player, 2-7 blockers each blocking 1-3 of them, every amount up to a scale drawn
    from :data:`WIDE_SCALES`; half the time the attackers' powers and the blockers'
    toughness sit at the top of it (walls that need all the damage)."""
    scale = rng.choice(WIDE_SCALES)
    even = rng.random() < 0.5
    ids = [f"x{i}" for i in range(rng.randint(2, 5))]
    creatures = []
    for x in ids:
        keywords = [k for k, p in (("trample", 0.7), ("deathtouch", 0.15)) if rng.random() < p]
        creatures.append({"id": x, "controller": ACTIVE,
                          "power": scale if even else rng.randint(1, scale),
                          "toughness": rng.randint(1, scale), "keywords": keywords,
                          "attacking": "d"})
    for j in range(rng.randint(2, 7)):
        creatures.append({"id": f"b{j}", "controller": "d", "power": rng.randint(0, scale),
                          "toughness": scale if even else rng.randint(1, scale),
                          "blocking": rng.sample(ids, rng.randint(1, min(3, len(ids)))),
                          "value": rng.randint(1, 5)})
    return {"format": "combat/1", "active_player": ACTIVE,
            "players": [_player(ACTIVE), _player("d", rng.randint(1, scale))],
            "creatures": creatures, "step": "regular"}



MOST = 2**40
"""The largest amount a document holds."""
AMOUNT_FIELDS = ("power", "toughness", "loyalty", "defense", "life")
"""The amounts :func:`scaled` multiplies."""


def scaled(doc: Document, factor: int, rng: random.Random) -> Document:
    """``doc`` with every positive amount (power, toughness, loyalty, defense, life)
    multiplied by ``factor`` plus noise below half of it, capped at :data:`MOST`: the
    same combat in amounts that no common divisor brings back, so that wide amounts are
    met where the benchmark's families have their shapes."""
    out = json.loads(json.dumps(doc))
    for key in ("creatures", "planeswalkers", "battles", "players"):
        for item in out.get(key, []):
            for field in AMOUNT_FIELDS:
                amount = item.get(field)
                if isinstance(amount, int) and amount > 0 and factor > 1:
                    item[field] = min(MOST, amount * factor + rng.randrange(factor // 2))
    return out
