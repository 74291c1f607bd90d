"""A brute-force oracle for planning both combat damage steps, written only from the
text of SPEC §8 (and §7 for what damage does), on raw combat/1 dicts: plain nested
enumeration of the four choices, no pruning. Use it on tiny combats only.

SPEC §10 in both steps: each side's split covers the creatures that belong to it
(`brute.chooser_side`, read from the document of that step). The regular step's
document is the combat that remains, so a creature moved by banding goes back to its
controller's side once every creature that moved it has died in the first-strike step
(an attacker blocked only by a creature with banding that died is still blocked,
509.1h, but no longer blocked by a creature with banding). The attackers' objective is
scored on the whole combat as before: `deaths` the blockers that die, `survivals` the
attackers that live, whichever side chose the damage that killed them."""

from __future__ import annotations

import copy
from collections.abc import Callable

import brute

PLAN_TERMS = ["losses", "deaths", "survivals", "planeswalker_deaths", "battle_deaths",
              "poison", "life_loss", "loyalty_loss", "defense_loss", "life_gain"]


def _died(doc: dict, res: dict) -> set[str]:
    return {c["id"] for c in doc["creatures"] if brute.creature_died(c, res)}


def _lost(doc: dict, res: dict) -> set[str]:
    """Players who lose after this step's damage; lifelink's gain comes at the same time."""
    lost = set()
    for p in doc["players"]:
        gained = dict(p)
        gained["life"] = p.get("life", 20) + res["life_gained"].get(p["id"], 0)
        if brute.player_lost(doc, gained, res):
            lost.add(p["id"])
    return lost


def step(doc: dict, amounts: dict) -> tuple[dict, dict, set[str], set[str]]:
    """Deal one step: (the regular step's document, results, dead creatures, lost
    players), per SPEC §8's list."""
    res = brute.results(doc, amounts)
    died = _died(doc, res)
    lost = _lost(doc, res)
    nxt = copy.deepcopy(doc)
    for p in nxt["players"]:
        p["life"] = p.get("life", 20) - res["life_lost"].get(p["id"], 0) \
            + res["life_gained"].get(p["id"], 0)
        p["poison"] = p.get("poison", 0) + res["poison"].get(p["id"], 0)
    creatures = []
    for c in nxt["creatures"]:
        if c["id"] in died:
            continue
        counters = res["counters"].get(c["id"], 0)
        c["power"] -= counters
        c["toughness"] -= counters
        c["damage"] = c.get("damage", 0) + res["marked"].get(c["id"], 0)
        if c.get("attacking") is not None:
            had = [b for b in doc["creatures"] if c["id"] in (b.get("blocking") or [])]
            if (had or c.get("blocked") is True) and all(b["id"] in died for b in had):
                c["blocked"] = True
        if c.get("blocking"):
            c["blocking"] = [a for a in c["blocking"] if a not in died]
        creatures.append(c)
    nxt["creatures"] = creatures
    for w in nxt.get("planeswalkers", []):
        w["loyalty"] -= res["loyalty_lost"].get(w["id"], 0)
        if w["loyalty"] <= 0:
            w["in_combat"] = False
    for b in nxt.get("battles", []):
        b["defense"] -= res["defense_lost"].get(b["id"], 0)
        if b["defense"] <= 0:
            b["in_combat"] = False
    alive = {c["id"] for c in creatures}
    thresholds = []
    for t in nxt.get("loss_thresholds", []):
        t["already"] = t.get("already", 0) + res["from_source"].get((t["source"], t["player"]), 0)
        if t["source"] in alive and t["player"] not in lost and t["already"] < t["threshold"]:
            thresholds.append(t)
    nxt["loss_thresholds"] = thresholds
    for key in ("prevention", "multipliers"):
        nxt[key] = [e for e in nxt.get(key, [])
                    if e["source"] not in died and e["target"] not in died]
    nxt["step"] = "regular"
    return nxt, res, died, lost


def score(doc: dict, steps: list[tuple[dict, set[str], set[str]]], end: dict,
          terms: list[str]) -> tuple[int, ...]:
    """The attackers' objective over the whole combat. ``steps``: (results, dead
    creatures, lost players) of each step; ``end``: the combat after the last."""
    active = doc["active_player"]
    opponents = {p["id"] for p in doc["players"] if p["id"] != active}
    attacked = {c["attacking"] for c in doc["creatures"] if c.get("attacking")}
    lost = set().union(*(s[2] for s in steps)) & opponents
    died = set().union(*(s[1] for s in steps))
    blockers = [c for c in doc["creatures"] if c.get("blocking")]
    attackers = [c for c in doc["creatures"] if c.get("attacking")]
    final_loyalty = {w["id"]: w["loyalty"] for w in end.get("planeswalkers", [])}
    final_defense = {b["id"]: b["defense"] for b in end.get("battles", [])}
    deaths = sum(c.get("value", 1) for c in blockers if c["id"] in died)
    values = {
        "losses": len(lost),
        "deaths": deaths,
        # SPEC §11: the defenders' creatures that die less the attackers' that die.
        "trade": deaths - sum(c.get("value", 1) for c in attackers if c["id"] in died),
        "survivals": sum(c.get("value", 1) for c in attackers if c["id"] not in died),
        "planeswalker_deaths": sum(1 for w in doc.get("planeswalkers", [])
                                   if w.get("in_combat", True) and w["id"] in attacked
                                   and final_loyalty[w["id"]] <= 0),
        "battle_deaths": sum(1 for b in doc.get("battles", [])
                             if b.get("in_combat", True) and b["id"] in attacked
                             and final_defense[b["id"]] <= 0),
        "poison": sum(r["poison"].get(p, 0) for r, _, _ in steps for p in opponents),
        "life_loss": sum(r["life_lost"].get(p, 0) for r, _, _ in steps for p in opponents),
        "loyalty_loss": sum(sum(r["loyalty_lost"].values()) for r, _, _ in steps),
        "defense_loss": sum(sum(r["defense_lost"].values()) for r, _, _ in steps),
        "life_gain": sum(r["life_gained"].get(active, 0) for r, _, _ in steps),
    }
    return tuple(values[t] for t in terms)


def _splits(doc: dict, side: str) -> list[dict]:
    return [{(s, t): n for s, t, n in a} for a in brute.legal_assignments(doc, side)]


def _regular(doc: dict, first: list, d2: dict, terms: list[str]) -> tuple[int, ...]:
    """max over the attackers' regular split of min over the defenders' of the score,
    after the first-strike step's ``first`` results."""
    return max(_worst(d2, a2, lambda end, result: score(doc, [*first, result], end, terms))
               for a2 in _splits(d2, "attackers"))


def _worst(doc: dict, attackers: dict,
           value: Callable[[dict, tuple[dict, set, set]], tuple[int, ...]]
           ) -> tuple[int, ...]:
    """min over the defenders' split of ``value`` of the step both splits make: its
    document after and its (result, died, lost)."""
    def after(blockers: dict) -> tuple[int, ...]:
        end, res, died, lost = step(doc, {**attackers, **blockers})
        return value(end, (res, died, lost))
    return min(after(b) for b in _splits(doc, "blockers"))


def plan_value(doc: dict, terms: list[str] | None = None) -> tuple[int, ...]:
    """max over the attackers' first-strike split of min over the defenders' of max over
    the attackers' regular split of min over the defenders' of the score."""
    terms = terms or PLAN_TERMS
    if brute.effective_step(doc) != "first_strike":
        return _regular(doc, [], doc, terms)
    return max(line_value(doc, a1, terms) for a1 in _splits(doc, "attackers"))


def line_value(doc: dict, a1: dict, terms: list[str] | None = None) -> tuple[int, ...]:
    """What the first-strike split ``a1`` guarantees: min over the defenders' reply."""
    chosen = terms or PLAN_TERMS
    return _worst(doc, a1, lambda d2, result: _regular(doc, [result], d2, chosen))


def regular_line_value(doc: dict, a2: dict, terms: list[str] | None = None) -> tuple[int, ...]:
    """What the attackers' split ``a2`` of a regular-step document guarantees: min over
    the defenders' reply of the score."""
    chosen = terms or PLAN_TERMS
    return _worst(doc, a2, lambda end, result: score(doc, [result], end, chosen))
