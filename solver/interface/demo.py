"""``trample demo``: the main job on a built-in combat, printed as a readable table."""

from __future__ import annotations

import time
from typing import Any

from trample.models.document.combat import Combat
from trample.solver.interface import api
from trample.solver.optimize.greedy import greedy
from trample.solver.optimize.objectives import evaluate, parse_objective
from trample.solver.rules.legal_space import legal_space

DEMO_COMBAT: dict[str, Any] = {
    "active_player": "you",
    "players": [{"id": "you", "life": 20}, {"id": "opponent", "life": 5}],
    "creatures": [
        {"id": "vessel", "name": "Vessel of the All-Consuming", "controller": "you",
         "power": 9, "toughness": 9, "keywords": ["Trample"], "attacking": "opponent"},
        {"id": "colossus", "name": "Kirin Colossus", "controller": "you", "power": 7,
         "toughness": 7, "keywords": ["Trample over planeswalkers"], "attacking": "jace"},
        {"id": "wall", "name": "Thorn Wall", "controller": "opponent", "power": 0,
         "toughness": 5, "damage": 2, "value": 1, "blocking": ["vessel"]},
        {"id": "adder", "name": "Deathtouch Adder", "controller": "opponent", "power": 1,
         "toughness": 1, "keywords": ["Deathtouch"], "value": 2, "blocking": ["vessel"]},
        {"id": "giant", "name": "Stone Giant", "controller": "opponent", "power": 4,
         "toughness": 4, "value": 3, "blocking": ["vessel", "colossus"]},
        {"id": "goblin", "name": "Goblin Guide", "controller": "opponent", "power": 1,
         "toughness": 1, "value": 1, "blocking": ["colossus"]},
    ],
    "planeswalkers": [{"id": "jace", "name": "Jace", "controller": "opponent", "loyalty": 4}],
    "step": "regular",
}
"""Vessel of the All-Consuming (a 3/3 trample Ogre with six +1/+1 counters, so 9/9) and a
7/7 with trample over planeswalkers attack an opponent at 5 life and their planeswalker;
Stone Giant can block an additional creature and blocks both."""


def _table(rows: list[list[str]], right: set[int]) -> list[str]:
    widths = [max(len(r[i]) for r in rows) for i in range(len(rows[0]))]
    lines = []
    for n, row in enumerate(rows):
        cells = [c.rjust(w) if i in right else c.ljust(w)
                 for i, (c, w) in enumerate(zip(row, widths, strict=True))]
        lines.append("  ".join(cells).rstrip())
        if n == 0:
            lines.append("  ".join("-" * w for w in widths))
    return lines


def render(document: dict[str, Any]) -> str:
    """Solve ``document`` and describe the optimal split in words and a table."""
    combat = Combat.from_json(document)
    space = legal_space(combat, "attackers")
    started = time.perf_counter()
    result = api.solve(document)
    solve_ms = (time.perf_counter() - started) * 1000
    started = time.perf_counter()
    total = api.census_of(space).count()
    count_ms = (time.perf_counter() - started) * 1000

    out = ["trample demo: who takes how much in this combat damage step", ""]
    for c in combat.attackers:
        kw = ", ".join(sorted(c.keywords)) or "no keywords"
        blockers = ", ".join(combat.label(b) for b in combat.blockers_of(c.id)) or "nobody"
        out.append(f"  {c.label} ({c.power}/{c.toughness}, {kw}) attacks "
                   f"{combat.label(c.attacking or '')}, blocked by {blockers}")
    out.append("")

    label = combat.label
    rows = [["source", "target", "amount"]]
    for e in result["assignment"]:
        rows.append([label(e["source"]), label(e["target"]), str(e["amount"])])
    out += _table(rows, {2})
    out.append("")

    amounts = {(e["source"], e["target"]): e["amount"] for e in result["assignment"]}
    received = space.received(amounts)
    touched = space.deathtouched(amounts)
    rows = [["recipient", "gets", "outcome"]]
    for c in combat.blockers:
        got = received.get(c.id, 0)
        dead = space.is_lethally_assigned(c.id, received, touched)
        state = f"{c.power}/{c.toughness}" + (f", {c.damage} damage marked" if c.damage else "")
        rows.append([f"{c.label} ({state})", str(got),
                     "lethal damage" if dead else f"survives ({got} of {c.lethal_need})"])
    for w in combat.planeswalkers:
        got = received.get(w.id, 0)
        rows.append([f"{label(w.id)} (loyalty {w.loyalty})", str(got),
                     "dies" if got >= w.loyalty else f"survives with {w.loyalty - got}"])
    for p in combat.defending_players:
        got = received.get(p.id, 0)
        rows.append([f"{label(p.id)} (life {p.life})", str(got),
                     "loses the game" if p.life - got <= 0 else f"goes to {p.life - got}"])
    out += _table(rows, {1})
    out.append("")

    terms = list(result["objective"])
    values = "  ".join(f"{t} {v}" for t, v in result["objective"].items())
    out.append(f"objective (first term matters most): {values}")
    naive = evaluate(space, greedy(space), parse_objective(terms, "attackers"))
    out.append("greedy lethal-in-order split, as other engines assign: "
               + "  ".join(f"{t} {v}" for t, v in naive.items()))
    proved = "proved" if result["status"] == "optimal" else "not proved"
    out.append(f"status: {result['status']} ({proved}); "
               f"solved in {solve_ms:.1f} ms; {total:,} legal assignments in all "
               f"(counted in {count_ms:.1f} ms)")
    return "\n".join(out)
