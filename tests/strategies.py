"""Hypothesis strategies: small, valid combat/1 documents and candidate assignments.

`combats()` only builds documents that obey the SPEC §1 validity rules, and keeps them
small enough for the brute-force oracle in `brute.py` (the product of the per-source
split counts stays at or below SPLIT_BUDGET for both sides).
`proposals(doc, side)` mixes legal assignments, mutated ones and random ones.
"""

from __future__ import annotations

import functools
import json
import math

from hypothesis import assume
from hypothesis import strategies as st

try:
    from . import brute
except ImportError:  # tests/ is not a package: pytest puts tests/ on sys.path
    import brute

SPLIT_BUDGET = 20_000

RECOGNIZED = (
    "trample",
    "trample over planeswalkers",
    "deathtouch",
    "first strike",
    "double strike",
    "indestructible",
)
UNKNOWN = ("Flying", "lifelink", "Protection from Green", "VIGILANCE", "menace", "Reach")
SEPARATORS = (" ", "_", "-", "  ", "_-", " - ")
# Weighted towards creatures that assign and can die; the edge values still come up.
POWERS = (2, 3, 1, 4, 2, 5, 3, 1, 0, -1)
TOUGHNESSES = (2, 3, 1, 4, 2, 5, 3, 6, 1, 0, -1)
DAMAGES = (1, 0, 2, 1, 3, 6)
# How often each recognized keyword is picked (first/double strike thin out the sources).
KEYWORD_WEIGHTS = (
    ("trample", 3),
    ("trample over planeswalkers", 2),
    ("deathtouch", 2),
    ("indestructible", 1),
    ("first strike", 1),
    ("double strike", 1),
)
WEIGHTED_RECOGNIZED = tuple(k for k, weight in KEYWORD_WEIGHTS for _ in range(weight))
NO_STRIKE = tuple(k for k in WEIGHTED_RECOGNIZED if "strike" not in k)
IN_COMBAT = (None, None, True, False)  # None: the key is left out (default true)


def _alternating(word: str) -> str:
    return "".join(ch.upper() if i % 2 else ch for i, ch in enumerate(word))


CASES = (str.lower, str.upper, str.title, str.capitalize, _alternating)
EDGES = ("", " ", "_")


def spellings(keyword: str) -> tuple[str, ...]:
    """Spellings of a recognized keyword that all normalize back to it: every case style
    with every separator and edge, plus some with mixed separators and cases."""
    words = keyword.split(" ")
    variants = [keyword]
    for case in CASES:
        for sep in SEPARATORS:
            for edge in EDGES:
                variants.append(edge + sep.join(case(w) for w in words) + edge)
    if len(words) > 1:
        # Different separators in one spelling, e.g. "Trample_Over-Planeswalkers".
        for case in CASES:
            for first, second in (("_", "-"), ("-", " "), (" ", "_"), ("  ", "-_")):
                seps = [first, second]
                text = case(words[0])
                for i, word in enumerate(words[1:]):
                    text += seps[i % 2] + case(word)
                variants.append(text)
        # Different cases in one spelling, e.g. "first STRIKE".
        variants.append(" ".join(CASES[i % len(CASES)](w) for i, w in enumerate(words)))
    return tuple(dict.fromkeys(variants))


def _spelling_strategy(keyword: str):
    """Mostly spellings without leading/trailing ` ` or `_` (those only test stripping)."""
    inner = [v for v in spellings(keyword) if v == v.strip(" _")]
    edged = [v for v in spellings(keyword) if v != v.strip(" _")]
    return st.one_of(st.sampled_from(inner), st.sampled_from(inner), st.sampled_from(edged))


SPELLINGS = {k: _spelling_strategy(k) for k in RECOGNIZED}
N_RECOGNIZED = st.sampled_from([0, 1, 1, 1, 2, 3])
UNKNOWN_LISTS = st.lists(st.sampled_from(UNKNOWN), max_size=2, unique=True)
POWER = st.sampled_from(POWERS)
TOUGHNESS = st.sampled_from(TOUGHNESSES)
DAMAGE = st.sampled_from(DAMAGES)
VALUE = st.integers(-3, 5)
LIFE = st.one_of(st.integers(-1, 8), st.just(20))
LOYALTY = st.integers(-1, 5)
DEFENSE = st.integers(-1, 6)
IN_COMBAT_ST = st.sampled_from(IN_COMBAT)
BLOCK_SIZE = st.sampled_from([1, 1, 2, 2, 3])
STEP = st.sampled_from([None, None, "regular", "first_strike"])


RICH_POOL = ("trample", "trample", "trample", "trample over planeswalkers",
             "trample over planeswalkers", "deathtouch", "indestructible")


@functools.cache  # one strategy for each set of arguments, built once
@st.composite
def keyword_lists(draw, strikes: bool = True, rich: bool = False) -> list[str]:
    pool = RICH_POOL if rich else WEIGHTED_RECOGNIZED if strikes else NO_STRIKE
    chosen = []
    for _ in range(draw(N_RECOGNIZED)):
        keyword = draw(st.sampled_from(pool))
        if keyword not in chosen:
            chosen.append(keyword)
    spelled = [draw(SPELLINGS[k]) for k in chosen] + draw(UNKNOWN_LISTS)
    return draw(st.permutations(spelled))


def _maybe(draw, key: str, strategy, obj: dict) -> None:
    """Set obj[key] to a drawn value, or leave the key out (its default applies)."""
    if draw(st.booleans()):
        obj[key] = draw(strategy)


@functools.cache  # one strategy for each set of arguments, built once
@st.composite
def _creature(draw, cid: str, controller: str, strikes: bool = True,
              rich: bool = False) -> dict:
    creature = {
        "id": cid,
        "controller": controller,
        "power": draw(POWER),
        "toughness": draw(TOUGHNESS),
    }
    if draw(st.integers(0, 2)) == 0:
        creature["damage"] = draw(DAMAGE)
    _maybe(draw, "value", VALUE, creature)
    if draw(st.integers(0, 3)) > 0:
        creature["keywords"] = draw(keyword_lists(strikes, rich))
    return creature


def split_count(doc: dict, side: str) -> int:
    """How many products `brute.legal_assignments` walks through for this side."""
    product = 1
    for source, power in brute.assigning_sources(doc, side):
        parts = len(brute.recipients(doc, side, source))
        product *= math.comb(power + parts - 1, parts - 1)
    return product


@st.composite
def combats(draw, max_sources: int = 4, rich: bool = False) -> dict:
    """A valid combat/1 document small enough for brute force (no top-level `side`).

    ``rich`` leans towards what makes the choice hard: tramplers (of both kinds) with
    several blockers, blockers shared between attackers, planeswalkers several creatures
    attack; the default spreads over every feature evenly.
    """
    n_players = draw(st.integers(2, 3))
    player_ids = [f"p{i}" for i in range(n_players)]
    active = draw(st.sampled_from(player_ids))
    defenders = [p for p in player_ids if p != active]
    players = []
    for pid in player_ids:
        player = {"id": pid}
        _maybe(draw, "life", LIFE, player)
        players.append(player)

    def owner(draw_):
        # Mostly a defending player, sometimes the active player.
        return draw_(st.sampled_from(defenders + defenders + [active]))

    def attackable(prefix: str, whose: str, amount: str, amounts: st.SearchStrategy[int]
                   ) -> list[dict]:
        # 0-2 planeswalkers or battles: each one's player, its loyalty or defense, and
        # sometimes in_combat.
        made = []
        for i in range(draw(st.integers(0, 2))):
            target = {"id": f"{prefix}{i}", whose: owner(draw), amount: draw(amounts)}
            in_combat = draw(IN_COMBAT_ST)
            if in_combat is not None:
                target["in_combat"] = in_combat
            made.append(target)
        return made

    planeswalkers = attackable("pw", "controller", "loyalty", LOYALTY)
    battles = attackable("b", "protector", "defense", DEFENSE)

    # What a creature of the active player may attack, and whom each target belongs to.
    defender_of = {p: p for p in defenders}
    for pw in planeswalkers:
        if pw["controller"] != active:
            defender_of[pw["id"]] = pw["controller"]
    for battle in battles:
        if battle["protector"] != active:
            defender_of[battle["id"]] = battle["protector"]
    # Attacks on one main defending player are the common case: it makes blocks of
    # several attackers possible.
    main = draw(st.sampled_from(defenders))
    targets = [main, main, main, *defenders, *sorted(defender_of)]
    walkers = sorted(t for t in defender_of if t.startswith("pw"))
    if rich and walkers and draw(st.booleans()):
        # Several attackers on one planeswalker: its loyalty couples trample over
        # planeswalkers with everything else that attacks it (702.19c).
        focus = draw(st.sampled_from(walkers))
        targets = [focus, focus, focus, *targets]
    counts = [n for n in range(1, max_sources + 1)] * 2 + [0]
    blocker_counts = [2, 3, 3, 4, 5] if rich else counts

    # About one document in three has first strike or double strike at all, so that
    # the regular step with every creature assigning stays common.
    strikes = draw(st.integers(0, 2 if not rich else 5)) == 0
    creatures = []
    counter = iter(range(1000))

    attackers = []
    for _ in range(draw(st.sampled_from([1, 2, 2, 3] if rich else counts))):
        attacker = draw(_creature(f"c{next(counter)}", active, strikes, rich))
        attacker["attacking"] = draw(st.sampled_from(targets))
        attackers.append(attacker)
    creatures += attackers

    blockers = []
    for _ in range(draw(st.sampled_from(blocker_counts))):
        if attackers and (rich or draw(st.integers(0, 5)) > 0):
            # Usually the defender of some attacker, so that it has something to block.
            first = draw(st.sampled_from(attackers))
            controller = defender_of[first["attacking"]]
        else:
            controller = draw(st.sampled_from(defenders))
        blocker = draw(_creature(f"c{next(counter)}", controller, strikes, rich))
        eligible = [a["id"] for a in attackers if defender_of[a["attacking"]] == controller]
        if eligible:
            size = draw(st.sampled_from([1, 2, 2, 3]) if rich else BLOCK_SIZE)
            blocker["blocking"] = draw(
                st.lists(
                    st.sampled_from(eligible),
                    min_size=1,
                    max_size=min(size, len(eligible)),
                    unique=True,
                )
            )
            blockers.append(blocker)
        creatures.append(blocker)  # with no eligible attacker: an idle creature

    for _ in range(draw(st.integers(0, 2))):  # creatures neither attacking nor blocking
        creatures.append(draw(_creature(f"c{next(counter)}", draw(st.sampled_from(player_ids)))))

    blocked_ids = {aid for b in blockers for aid in b["blocking"]}
    for attacker in attackers:
        if attacker["id"] in blocked_ids:
            choices = [None, True]
        else:
            choices = [None, None, None, None, True, False]
        flag = draw(st.sampled_from(choices))
        if flag is not None:
            attacker["blocked"] = flag

    # `planeswalkers` and `battles` are always present (possibly empty), as in SPEC §1:
    # the SPEC gives them no default.
    doc = {
        "active_player": active,
        "players": players,
        "creatures": draw(st.permutations(creatures)),
        "planeswalkers": planeswalkers,
        "battles": battles,
    }
    step = draw(STEP)
    if step is not None:
        doc["step"] = step

    assume(split_count(doc, "attackers") <= SPLIT_BUDGET)
    assume(split_count(doc, "blockers") <= SPLIT_BUDGET)
    return doc


@st.composite
def pileups(draw) -> dict:
    """Two or three attackers on one planeswalker (some with trample over planeswalkers),
    blockers shared between them: the loyalty and lethal thresholds couple everything."""
    walker = {"id": "pw", "controller": "d", "loyalty": draw(st.integers(-1, 5))}
    if draw(st.integers(0, 4)) == 0:
        walker["in_combat"] = False
    creatures = []
    attackers = []
    for i in range(draw(st.integers(2, 3))):
        keywords = draw(st.lists(st.sampled_from(["trample over planeswalkers", "trample",
                                                  "deathtouch"]), max_size=2, unique=True))
        attacker = {"id": f"a{i}", "controller": "a", "power": draw(st.integers(0, 4)),
                    "toughness": 2, "keywords": keywords,
                    "attacking": draw(st.sampled_from(["pw", "pw", "pw", "d"]))}
        attackers.append(attacker["id"])
        creatures.append(attacker)
    for j in range(draw(st.integers(0, 2))):
        blocking = draw(st.lists(st.sampled_from(attackers), min_size=1, max_size=2,
                                 unique=True))
        creatures.append({"id": f"b{j}", "controller": "d", "power": draw(st.integers(0, 2)),
                          "toughness": draw(st.integers(1, 3)),
                          "damage": draw(st.integers(0, 2)),
                          "value": draw(st.integers(-1, 3)), "blocking": blocking})
    doc = {"active_player": "a",
           "players": [{"id": "a"}, {"id": "d", "life": draw(st.integers(1, 6))}],
           "creatures": creatures, "planeswalkers": [walker], "battles": []}
    assume(split_count(doc, "attackers") <= SPLIT_BUDGET)
    assume(split_count(doc, "blockers") <= SPLIT_BUDGET)
    return doc


@st.composite
def lone_sources(draw) -> dict:
    """One creature assigning alone, for either side: an attacker of a player, a
    planeswalker or a battle with zero to four blockers, or a blocker of up to three
    attackers. Values, deathtouch, marked damage and thresholds vary widely, so that the
    best split sits at every kind of breakpoint."""
    target = draw(st.sampled_from(["d", "pw", "pw", "bt"]))
    keywords = draw(st.lists(st.sampled_from(["trample", "trample over planeswalkers",
                                              "deathtouch", "indestructible"]),
                             max_size=3, unique=True))
    power = draw(st.integers(0, 9))
    creatures = [{"id": "x", "controller": "a", "power": power, "toughness": 3,
                  "keywords": keywords, "attacking": target,
                  "value": draw(st.integers(-3, 4))}]
    others = draw(st.integers(0, 2))  # attackers that only get blocked (for side blockers)
    for i in range(others):
        creatures.append({"id": f"y{i}", "controller": "a", "power": 0,
                          "toughness": draw(st.integers(-1, 4)),
                          "damage": draw(st.integers(0, 2)),
                          "keywords": draw(st.lists(st.just("indestructible"), max_size=1)),
                          "value": draw(st.integers(-3, 4)), "attacking": target})
    attackers = [c["id"] for c in creatures]
    blockers = draw(st.integers(0, 4))
    for j in range(blockers):
        blocks = ["x"] if j else draw(st.lists(st.sampled_from(attackers), min_size=1,
                                               max_size=len(attackers), unique=True)
                                      .map(lambda ids: sorted(set(ids) | {"x"})))
        creatures.append({"id": f"b{j}", "controller": "d",
                          "power": draw(st.integers(0, 5)) if j == 0 else 0,
                          "toughness": draw(st.integers(-1, 5)),
                          "damage": draw(st.integers(0, 3)),
                          "keywords": draw(st.lists(st.sampled_from(["deathtouch",
                                                                     "indestructible"]),
                                                    max_size=1)),
                          "value": draw(st.integers(-3, 5)), "blocking": blocks})
    if blockers == 0 and draw(st.booleans()):
        creatures[0]["blocked"] = True
    doc = {"active_player": "a",
           "players": [{"id": "a"}, {"id": "d", "life": draw(st.integers(-1, 9))}],
           "creatures": creatures,
           "planeswalkers": [{"id": "pw", "controller": "d", "loyalty": draw(st.integers(-1, 7)),
                              "in_combat": draw(st.sampled_from([True, True, True, False]))}],
           "battles": [{"id": "bt", "protector": "d", "defense": draw(st.integers(-1, 7)),
                        "in_combat": draw(st.sampled_from([True, True, False]))}],
           "step": "regular"}
    assume(split_count(doc, "attackers") <= SPLIT_BUDGET)
    assume(split_count(doc, "blockers") <= SPLIT_BUDGET)
    return doc


@st.composite
def contests(draw) -> dict:
    """Two or three attackers, each with blockers of its own, on one player with little
    life (and maybe that player's planeswalker): the parts are independent for legality
    and coupled only by the objective's thresholds."""
    creatures = []
    for i in range(draw(st.integers(2, 3))):
        keywords = draw(st.lists(st.sampled_from(["trample", "trample",
                                                  "trample over planeswalkers",
                                                  "deathtouch"]), max_size=2, unique=True))
        creatures.append({"id": f"a{i}", "controller": "a", "power": draw(st.integers(0, 6)),
                          "toughness": 2, "keywords": keywords,
                          "attacking": draw(st.sampled_from(["d", "d", "pw"]))})
        for j in range(draw(st.integers(0, 2))):
            creatures.append({"id": f"b{i}{j}", "controller": "d", "power": 1,
                              "toughness": draw(st.integers(1, 5)),
                              "value": draw(st.integers(-4, 3)), "blocking": [f"a{i}"]})
    doc = {"active_player": "a",
           "players": [{"id": "a"}, {"id": "d", "life": draw(st.integers(1, 8))}],
           "creatures": creatures,
           "planeswalkers": [{"id": "pw", "controller": "d", "loyalty": draw(st.integers(1, 5))}],
           "battles": [], "step": "regular"}
    assume(split_count(doc, "attackers") <= SPLIT_BUDGET)
    return doc


# token_swarms' kinds of token and of attacker (built once: drawing from them is what varies).
SWARM_KINDS = st.lists(
    st.fixed_dictionaries({"power": st.integers(0, 2), "toughness": st.integers(1, 3),
                           "damage": st.integers(0, 1),
                           "value": st.sampled_from([1, 1, 2, -1]),
                           "keywords": st.lists(st.sampled_from(["deathtouch",
                                                                 "indestructible"]),
                                                max_size=1)}),
    min_size=1, max_size=2)
SWARM_TEMPLATES = st.lists(
    st.fixed_dictionaries({
        "power": st.integers(0, 5), "toughness": st.integers(1, 3),
        "damage": st.integers(0, 1), "value": st.integers(-1, 3),
        "keywords": st.lists(st.sampled_from(["trample", "trample", "deathtouch",
                                              "trample over planeswalkers"]),
                             max_size=2, unique=True),
        "attacking": st.sampled_from(["d", "d", "pw"])}),
    min_size=1, max_size=2)


@st.composite
def token_swarms(draw) -> dict:
    """One to three attackers, several of them alike, blocked by tokens of one or two
    kinds, some tokens blocking several attackers: many creatures that can trade places
    (the CP-SAT model breaks that symmetry), on either side."""
    kinds = draw(SWARM_KINDS)
    templates = draw(SWARM_TEMPLATES)
    creatures = [{"id": f"a{i}", "controller": "a", **draw(st.sampled_from(templates))}
                 for i in range(draw(st.sampled_from([1, 2, 3, 3])))]
    ids = [c["id"] for c in creatures]
    groupings = draw(st.lists(st.lists(st.sampled_from(ids), min_size=1, max_size=3,
                                       unique=True).map(sorted), min_size=1, max_size=2))
    for j in range(draw(st.integers(2, 5))):
        creatures.append({"id": f"t{j}", "controller": "d", **draw(st.sampled_from(kinds)),
                          "blocking": draw(st.sampled_from(groupings))})
    doc = {"active_player": "a",
           "players": [{"id": "a"}, {"id": "d", "life": draw(st.integers(1, 9))}],
           "creatures": creatures,
           "planeswalkers": [{"id": "pw", "controller": "d", "loyalty": draw(st.integers(1, 5))}],
           "battles": [], "step": "regular"}
    assume(split_count(doc, "attackers") <= SPLIT_BUDGET)
    assume(split_count(doc, "blockers") <= SPLIT_BUDGET)
    return doc


# ---------------------------------------------------------------------------
# Candidate assignments
# ---------------------------------------------------------------------------


@functools.lru_cache(maxsize=256)
def _legal_cached(doc_json: str, side: str) -> tuple[frozenset, ...]:
    return tuple(brute.legal_assignments(json.loads(doc_json), side))


def cached_legal_assignments(doc: dict, side: str) -> tuple[frozenset, ...]:
    return _legal_cached(json.dumps(doc, sort_keys=True), side)


def _all_ids(doc: dict) -> list[str]:
    ids = [p["id"] for p in doc["players"]]
    ids += [c["id"] for c in doc.get("creatures", [])]
    ids += [pw["id"] for pw in doc.get("planeswalkers", [])]
    ids += [b["id"] for b in doc.get("battles", [])]
    return ids


def proposals(doc: dict, side: str):
    """Candidate assignments {(source, target): amount >= 0} for `doc` and `side`: legal
    ones (sometimes with explicit zero entries), legal ones mutated, and random ones.
    Sources are always creature ids; targets are any id of the document."""
    legal = cached_legal_assignments(doc, side)
    all_ids = _all_ids(doc)
    creature_ids = [c["id"] for c in doc.get("creatures", [])]
    sources = dict(brute.assigning_sources(doc, side))
    idle = [cid for cid in creature_ids if cid not in sources]

    any_pair = (
        st.tuples(st.sampled_from(creature_ids), st.sampled_from(all_ids))
        if creature_ids
        else st.nothing()
    )

    @st.composite
    def from_legal(draw) -> dict:
        base = draw(st.sampled_from(legal))
        result = {(s, t): a for s, t, a in base}
        if creature_ids and draw(st.integers(0, 3)) == 0:
            pair = draw(any_pair)
            result.setdefault(pair, 0)  # an explicit zero means nothing
        return result

    @st.composite
    def mutated(draw) -> dict:
        result = draw(from_legal())
        positive = sorted(pair for pair, amount in result.items() if amount > 0)
        ops = ["add"]
        if positive:
            ops += ["move", "move", "remove", "redirect"]
        if idle:
            ops.append("intruder")
        op = draw(st.sampled_from(ops))
        if op == "add":
            pair = draw(any_pair) if creature_ids else None
            if pair is not None:
                result[pair] = result.get(pair, 0) + 1
        elif op == "move":
            source, target = draw(st.sampled_from(positive))
            # Usually to another recipient of the same source, sometimes anywhere.
            others = [t for t in all_ids if t != target]
            preferred = [t for t in brute.recipients(doc, side, source) if t != target]
            pool = preferred if preferred and draw(st.integers(0, 3)) > 0 else others
            new_target = draw(st.sampled_from(pool))
            result[(source, target)] -= 1
            result[(source, new_target)] = result.get((source, new_target), 0) + 1
        elif op == "remove":
            pair = draw(st.sampled_from(positive))
            result[pair] -= 1
        elif op == "redirect":
            source, target = draw(st.sampled_from(positive))
            outside = [t for t in all_ids if t not in brute.recipients(doc, side, source)]
            if outside:
                new_target = draw(st.sampled_from(outside))
                moved = draw(st.integers(1, result[(source, target)]))
                result[(source, target)] -= moved
                result[(source, new_target)] = result.get((source, new_target), 0) + moved
        elif op == "intruder":
            source = draw(st.sampled_from(idle))
            target = draw(st.sampled_from(all_ids))
            result[(source, target)] = result.get((source, target), 0) + draw(st.integers(1, 3))
        return result

    if creature_ids:
        random_ones = st.dictionaries(any_pair, st.integers(0, 6), max_size=6)
    else:
        random_ones = st.just({})
    return st.one_of(from_legal(), mutated(), mutated(), random_ones)


OUTCOME_KEYWORDS = ("infect", "wither", "lifelink", "toxic 1", "Toxic_2", "Lifelink", "INFECT")


@st.composite
def with_outcomes(draw, base=None) -> dict:
    """A combat of ``base`` (by default :func:`combats`) with the fields that change what
    dealt damage does: poison counters, infect, wither, lifelink and toxic on either side,
    prevention and multipliers (factor 0-3) between any ids or ``*``, loss thresholds."""
    doc = draw(base if base is not None else st.one_of(combats(), combats(rich=True)))
    for player in doc["players"]:
        if draw(st.integers(0, 2)) == 0:
            player["poison"] = draw(st.sampled_from([0, 3, 8, 9, 10]))
    for creature in doc["creatures"]:
        if draw(st.integers(0, 2)) == 0:
            extra = draw(st.lists(st.sampled_from(OUTCOME_KEYWORDS), min_size=1, max_size=2))
            creature["keywords"] = [*creature.get("keywords", []), *extra]
    creature_ids = [c["id"] for c in doc["creatures"]]
    ids = [o["id"] for key in ("players", "creatures", "planeswalkers", "battles")
           for o in doc.get(key, [])]
    sources = st.sampled_from([*creature_ids, "*"]) if creature_ids else st.just("*")
    targets = st.sampled_from([*ids, "*"])
    prevention = draw(st.lists(st.fixed_dictionaries({"source": sources, "target": targets}),
                               max_size=2))
    if prevention:
        doc["prevention"] = prevention
    multipliers = draw(st.lists(st.fixed_dictionaries(
        {"source": sources, "target": targets, "factor": st.integers(0, 3)}), max_size=2))
    if multipliers:
        doc["multipliers"] = multipliers
    if creature_ids and draw(st.booleans()):
        thresholds = []
        for _ in range(draw(st.integers(1, 2))):
            threshold = draw(st.integers(1, 6))
            thresholds.append({"source": draw(st.sampled_from(creature_ids)),
                               "player": draw(st.sampled_from(
                                   [p["id"] for p in doc["players"]])),
                               "threshold": threshold,
                               "already": draw(st.integers(0, threshold - 1))})
        doc["loss_thresholds"] = thresholds
    return doc
