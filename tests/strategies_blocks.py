"""Hypothesis strategies for SPEC §11: tiny boards before blocks (attackers already
declared) and before attacks, with the §11 fields at random, small enough for the brute
force of tests/brute_blocks.py.

`boards()` draws 1-3 attackers and 1-3 blockers with keywords among trample, deathtouch,
first strike, double strike, flying, reach, menace, lifelink, indestructible, shadow and
horsemanship; life 1-20; values -2..5; sometimes a planeswalker (and an attacker that
tramples over it), sometimes two defending players, sometimes a blocker that may block two
attackers or any number, sometimes a creature whose damage the other side divides
(`assigned_by`). `plan_cost`
measures what valuing a board costs the brute force, so that the tests that value every
declaration can keep to boards it walks through quickly.
"""

from __future__ import annotations

from hypothesis import strategies as st

try:
    from . import brute, brute_blocks
    from .strategies import split_count
except ImportError:  # tests/ is not a package
    import brute_blocks

    import brute
    from strategies import split_count

KEYWORDS = ("trample", "deathtouch", "first strike", "double strike", "flying", "reach",
            "menace", "lifelink", "indestructible", "shadow", "horsemanship")
# Evasion and menace come up often enough to make pairs impossible and gangs necessary;
# strikes are rarer (each one doubles the steps the brute force walks through).
WEIGHTED = (("trample", 3), ("deathtouch", 3), ("first strike", 1), ("double strike", 1),
            ("flying", 2), ("reach", 3), ("menace", 2), ("lifelink", 2),
            ("indestructible", 1), ("shadow", 1), ("horsemanship", 1))
POOL = tuple(k for k, weight in WEIGHTED for _ in range(weight))
ATTACK_KEYWORDS = ("haste", "defender")
POWER = st.sampled_from((1, 2, 3, 1, 2, 0, 4))
TOUGHNESS = st.sampled_from((1, 2, 3, 4, 1, 2))
VALUE = st.integers(-2, 5)
# Mostly two or three a side: one attacker against one blocker says little.
SIZES = st.sampled_from((2, 3, 1, 2, 3))
LIFE = st.one_of(st.integers(1, 6), st.integers(1, 20))


def rarely(draw: st.DrawFn, odds: int = 4) -> bool:
    """True about once in ``odds`` draws (false in the simplest example, so that shrinking
    drops the rare fields)."""
    return draw(st.integers(0, odds - 1)) == odds - 1


@st.composite
def keyword_list(draw: st.DrawFn) -> list[str]:
    chosen: list[str] = []
    for _ in range(draw(st.sampled_from((0, 1, 1, 2)))):
        keyword = draw(st.sampled_from(POOL))
        if keyword not in chosen:
            chosen.append(keyword)
    return chosen


@st.composite
def _body(draw: st.DrawFn, cid: str, controller: str) -> dict:
    c: dict = {"id": cid, "controller": controller, "power": draw(POWER),
               "toughness": draw(TOUGHNESS)}
    if draw(st.booleans()):
        c["value"] = draw(VALUE)
    if rarely(draw, 6):
        c["damage"] = draw(st.integers(0, c["toughness"] - 1))
    keywords = draw(keyword_list())
    if keywords:
        c["keywords"] = keywords
    return c


@st.composite
def boards(draw: st.DrawFn, attacking: bool = True, max_attackers: int = 3,
           max_blockers: int = 3) -> dict:
    """A board before blocks (``attacking``) or before attacks (no `attacking`)."""
    defenders = ["d0", "d1"] if rarely(draw) else ["d0"]
    players = [{"id": "ap", "life": draw(LIFE)}]
    players += [{"id": d, "life": draw(LIFE)} for d in defenders]
    doc: dict = {"active_player": "ap", "players": players}
    goals = list(defenders)
    if rarely(draw, 3):
        doc["planeswalkers"] = [{"id": "pw", "controller": draw(st.sampled_from(defenders)),
                                 "loyalty": draw(st.integers(1, 5))}]
        goals.append("pw")
    creatures = []
    for i in range(draw(SIZES.filter(lambda n: n <= max_attackers))):
        c = draw(_body(f"a{i}", "ap"))
        if attacking:
            c["attacking"] = draw(st.sampled_from(goals))
        if rarely(draw, 8):
            c["can_be_blocked"] = False
        if rarely(draw, 6):
            c["min_blockers"] = draw(st.integers(1, 3))
        if rarely(draw, 6):
            c["max_blockers"] = draw(st.integers(1, 2))
        if rarely(draw, 5):
            c["must_be_blocked"] = True
        if rarely(draw, 5):
            c["lure"] = True
        if not attacking:
            if rarely(draw, 6):
                c["tapped"] = True
            if rarely(draw, 5):
                c["summoning_sick"] = True
            if rarely(draw, 5):
                c.setdefault("keywords", []).append(draw(st.sampled_from(ATTACK_KEYWORDS)))
            if rarely(draw, 8):
                c["can_attack"] = False
            if rarely(draw, 5):
                c["must_attack"] = True
        creatures.append(c)
    if attacking and rarely(draw, 5):
        creatures.append(draw(_body("home", "ap")))  # stays home: §11's survivals
    for j in range(draw(SIZES.filter(lambda n: n <= max_blockers))):
        c = draw(_body(f"b{j}", draw(st.sampled_from(defenders))))
        if rarely(draw, 8):
            c["tapped"] = True
        if rarely(draw, 8):
            c["can_block"] = False
        if rarely(draw, 5):
            c["blocks_max"] = draw(st.sampled_from((2, 2, "any", 1)))
        if rarely(draw, 5):
            c["must_block"] = True
        creatures.append(c)
    order = draw(st.permutations(range(len(creatures)))) if rarely(draw, 3) else None
    doc["creatures"] = [creatures[k] for k in order] if order else creatures
    if rarely(draw, 5):
        ids = [c["id"] for c in creatures]
        doc["cannot_block"] = [
            {"blocker": draw(st.sampled_from([*ids, "*"])),
             "attacker": draw(st.sampled_from([*ids, "*"]))}
            for _ in range(draw(st.integers(1, 2)))]
    # Drawn last, so that the boards drawn before these fields were added stay as they were.
    for c in creatures:
        if c.get("attacking") == "pw" and rarely(draw, 4):
            c.setdefault("keywords", []).append("trample over planeswalkers")
        if rarely(draw, 8):
            c["assigned_by"] = "opponent"  # the other side divides its damage
    return doc


def combat_cost(made: dict) -> int:
    """About how many leaves `brute_plan.plan_value` walks through on a made combat: the
    splits of both sides in the regular step, times those of the first-strike step when
    a creature in combat strikes first."""
    regular = dict(made, step="regular")
    cost = split_count(regular, "attackers") * split_count(regular, "blockers")
    if brute.effective_step({**made, "step": None}) == "first_strike":
        cost *= split_count(made, "attackers") * split_count(made, "blockers")
    return cost


def plan_cost(doc: dict) -> int:
    """What valuing every legal declaration of a board costs the brute force."""
    return sum(combat_cost(brute_blocks.made_combat(doc, d))
               for d in brute_blocks.legal_declarations(doc))


def attack_cost(doc: dict) -> int:
    """What `brute_blocks.best_attack` costs on a board before attacks."""
    return sum(plan_cost(brute_blocks.attack_board(doc, at))
               for at in brute_blocks.attack_declarations(doc))
