"""A brute-force oracle for combat damage assignment, written only from SPEC.md.

It works on the raw combat/1 JSON dicts (no import from trample) and favours being
obviously correct over being fast: it enumerates every way each assigning creature can
split its power among its recipients, takes the product over the creatures and keeps
the products that `is_legal` accepts. Use it on small combats only.

Decisions taken where SPEC.md is silent (given by the project):

- Keywords are normalized by lower-casing, turning `_` and `-` into spaces, collapsing
  runs of spaces and stripping. A creature with both trample and trample over
  planeswalkers follows the trample-over-planeswalkers rows.
- A creature is lethally assigned when toughness - damage (its "need") is <= the total
  assigned to it by all sources (so need <= 0 is lethal with nothing assigned), or when a
  deathtouch source assigns it at least 1. A planeswalker is loyalty-assigned when the
  total assigned to it is >= its loyalty (loyalty <= 0: always).
- Side `attackers` assigns for the creatures with `attacking`; side `blockers` for those
  with a non-empty `blocking`; then the step filter of 510.4 applies ("first strike"
  includes double strike in the first-strike step).
- A creature whose §2 row gives it no recipients (e.g. blocked, no trample, every blocker
  gone) assigns nothing: like a creature with power <= 0 it is left out of
  `assigning_sources`, and it must have no positive entry.

SPEC §10 (banding and damage-assignment effects), and the decisions taken where it is
silent:

- How much (510.1a): `assigned_amount` is the power, the toughness with
  `assigns: "toughness"`, 0 with `assigns: "none"`; 0 or less assigns nothing.
- Who chooses (`chooser_side`): an attacker belongs to side `blockers` when a creature
  blocking it (one whose `blocking` lists it, whatever the step) has banding, or when two
  different creatures blocking it both have quality Q and the first has `bands with other
  Q` (702.22j), or with `assigned_by: "opponent"`; a blocker belongs to side `attackers`
  likewise for the attackers it blocks (702.22k). Several reasons never flip back. A
  creature neither attacking nor blocking belongs to no side. Then 510.4's step filter,
  then the amount. `blocked: true` with no blocker listed flips nothing.
- Qualities: Q is read from the normalized keyword (`bands with other Q`, so Q is
  lower-cased with `_`, `-` and runs of spaces turned into one space), and each entry of
  `qualities` is normalized the same way before comparing; a keyword with an empty Q is
  ignored.
- `as_though_unblocked` counts only on a blocked attacker (an unblocked one has one kind
  of split anyway; on a creature that is not attacking it is ignored). Such an attacker
  has two *modes*, the §2 row as blocked and the row as if unblocked, each with its own
  recipients and conditions; a mode with no recipients allows exactly the empty split (so
  a Thorn Elemental whose planeswalker left combat, or whose blockers are all gone
  without trample, may also assign nothing). An assignment is legal when some choice of
  one mode per such creature makes every condition hold over the whole assignment.
- An attacker with `as_though_unblocked: true` whose damage belongs to side `blockers`
  raises ValueError (`check_document`), whatever the side asked, the step and whether it
  is blocked.
- `recipients` of a creature with two modes is the union in the order of §3's output:
  its blockers in document order, then what it attacks, then that planeswalker's
  controller (the as-blocked row's order, then the as-unblocked row's new ids).
- Objectives: a side's own creatures are the attackers (side `attackers`) or the
  creatures blocking (side `blockers`); own players are the active player, or every
  other player. `survivals` sums `value` of own creatures that `creature_died` does not
  kill (so one already at toughness 0 or less never survives, as `deaths` counts it);
  `life_kept` is minus the life (not poison) own players lose to the dealt damage,
  lifelink not netted.
"""

from __future__ import annotations

import functools
import itertools
from collections.abc import Iterable, Mapping

SIDES = ("attackers", "blockers")

OUTCOME_TERMS = (
    "losses",
    "deaths",
    "planeswalker_deaths",
    "battle_deaths",
    "poison",
    "life_loss",
    "loyalty_loss",
    "defense_loss",
    "life_gain",
)
ASSIGNED_TERMS = (
    "lethal",
    "kills",
    "planeswalker_kills",
    "battle_kills",
    "player_damage",
    "planeswalker_damage",
    "battle_damage",
)
OWN_SIDE_TERMS = ("survivals", "life_kept")
"""SPEC §10's terms: what a side's own assignment does to its own creatures and players."""
TERMS = OUTCOME_TERMS + ASSIGNED_TERMS + OWN_SIDE_TERMS
BOTH_SIDES_TERMS = ("kills", "deaths", "life_gain", "survivals", "life_kept")

TRAMPLE = "trample"
TRAMPLE_OVER_PLANESWALKERS = "trample over planeswalkers"
DEATHTOUCH = "deathtouch"
FIRST_STRIKE = "first strike"
DOUBLE_STRIKE = "double strike"
INDESTRUCTIBLE = "indestructible"
BANDING = "banding"
BANDS_WITH_OTHER = "bands with other "

# Conditions a recipient may carry (SPEC §2 table, "conditions on the amounts").
NEEDS_BLOCKERS_LETHAL = "every blocker lethally assigned"
NEEDS_TARGET_LOYALTY = "target planeswalker loyalty-assigned"


# ---------------------------------------------------------------------------
# Reading the document
# ---------------------------------------------------------------------------


@functools.cache
def normalize_keyword(keyword: str) -> str:
    """'Trample_Over-Planeswalkers' -> 'trample over planeswalkers'."""
    text = keyword.lower().replace("_", " ").replace("-", " ")
    words = [word for word in text.split(" ") if word != ""]
    return " ".join(words)


def _keywords(creature: dict) -> set[str]:
    return {normalize_keyword(k) for k in creature.get("keywords", [])}


def _has(creature: dict, keyword: str) -> bool:
    return keyword in _keywords(creature)


def _creatures(doc: dict) -> list[dict]:
    return list(doc.get("creatures", []))


def _players(doc: dict) -> list[dict]:
    return list(doc.get("players", []))


def _planeswalkers(doc: dict) -> list[dict]:
    return list(doc.get("planeswalkers", []))


def _battles(doc: dict) -> list[dict]:
    return list(doc.get("battles", []))


def _creature(doc: dict, creature_id: str) -> dict | None:
    for creature in _creatures(doc):
        if creature["id"] == creature_id:
            return creature
    return None


def _planeswalker(doc: dict, pw_id: str) -> dict | None:
    for pw in _planeswalkers(doc):
        if pw["id"] == pw_id:
            return pw
    return None


def _battle(doc: dict, battle_id: str) -> dict | None:
    for battle in _battles(doc):
        if battle["id"] == battle_id:
            return battle
    return None


def _player_ids(doc: dict) -> list[str]:
    return [p["id"] for p in _players(doc)]


def _is_attacking(creature: dict) -> bool:
    return creature.get("attacking") is not None


def _is_blocking(creature: dict) -> bool:
    return len(creature.get("blocking") or []) > 0


def _in_combat_flag(obj: dict) -> bool:
    """A planeswalker's or battle's `in_combat`, default true."""
    return obj.get("in_combat", True) is not False


def _is_live(doc: dict, target_id: str) -> bool:
    """SPEC §2: a player, or a planeswalker or battle still in combat."""
    if target_id in _player_ids(doc):
        return True
    pw = _planeswalker(doc, target_id)
    if pw is not None:
        return _in_combat_flag(pw)
    battle = _battle(doc, target_id)
    if battle is not None:
        return _in_combat_flag(battle)
    return False


def _blockers_of(doc: dict, attacker_id: str) -> list[str]:
    """Every creature whose `blocking` lists the attacker, whatever the step."""
    return [c["id"] for c in _creatures(doc) if attacker_id in (c.get("blocking") or [])]


def effective_step(doc: dict) -> str:
    """SPEC §1 `step`: as given, else first_strike when a creature that is attacking or
    blocking has first strike or double strike, else regular."""
    if doc.get("step") is not None:
        return doc["step"]
    for creature in _creatures(doc):
        in_combat = _is_attacking(creature) or _is_blocking(creature)
        strikes = _has(creature, FIRST_STRIKE) or _has(creature, DOUBLE_STRIKE)
        if in_combat and strikes:
            return "first_strike"
    return "regular"


def _assigns_in_step(creature: dict, step: str) -> bool:
    """510.4."""
    first = _has(creature, FIRST_STRIKE)
    double = _has(creature, DOUBLE_STRIKE)
    if step == "first_strike":
        return first or double
    return double or not first


def _check_side(side: str) -> None:
    if side not in SIDES:
        raise ValueError(f"unknown side {side!r}")


# ---------------------------------------------------------------------------
# SPEC §10: who chooses, and how much
# ---------------------------------------------------------------------------


def qualities(creature: dict) -> set[str]:
    """The creature's `qualities`, normalized as keywords are."""
    return {normalize_keyword(q) for q in creature.get("qualities", [])} - {""}


def bands_with_other(creature: dict) -> set[str]:
    """Every Q of the creature's `bands with other Q` keywords (normalized)."""
    result = set()
    for keyword in _keywords(creature):
        if keyword.startswith(BANDS_WITH_OTHER):
            quality = keyword[len(BANDS_WITH_OTHER):].strip()
            if quality != "":
                result.add(quality)
    return result


def _banding_group(group: list[dict]) -> bool:
    """702.22j/k: the group (the creatures blocking one attacker, or the attackers one
    creature blocks) holds a creature with banding, or a Q creature with `bands with
    other Q` and another, different, Q creature."""
    for first in group:
        if _has(first, BANDING):
            return True
        for quality in bands_with_other(first) & qualities(first):
            for second in group:
                if second is not first and quality in qualities(second):
                    return True
    return False


def banding_moves(doc: dict, creature_id: str) -> bool:
    """True when banding (702.22j for an attacker, 702.22k for a blocker) gives this
    creature's damage to the other side."""
    creature = _creature(doc, creature_id)
    if creature is None:
        return False
    if _is_attacking(creature):
        group = [_creature(doc, b) for b in _blockers_of(doc, creature_id)]
        return _banding_group([c for c in group if c is not None])
    if _is_blocking(creature):
        group = [_creature(doc, a) for a in creature["blocking"]]
        return _banding_group([c for c in group if c is not None])
    return False


def chooser_side(doc: dict, creature_id: str) -> str | None:
    """The side whose request judges, counts, enumerates and optimizes this creature's
    damage: its controller's (`attackers` for an attacking creature, `blockers` for a
    blocking one), or the other when banding (702.22j/k) or `assigned_by: "opponent"`
    moves it (several reasons do not move it back). None for a creature neither
    attacking nor blocking."""
    creature = _creature(doc, creature_id)
    if creature is None:
        return None
    if _is_attacking(creature):
        own, other = "attackers", "blockers"
    elif _is_blocking(creature):
        own, other = "blockers", "attackers"
    else:
        return None
    moved = banding_moves(doc, creature_id) or creature.get("assigned_by") == "opponent"
    return other if moved else own


def other_side_rule(doc: dict, creature_id: str) -> str:
    """The rule `validate` cites for damage given by a creature that does not belong to
    the requesting side: 702.22j / 702.22k when banding moved it there, else 510.1."""
    creature = _creature(doc, creature_id)
    if creature is not None and banding_moves(doc, creature_id):
        return "702.22j" if _is_attacking(creature) else "702.22k"
    return "510.1"


def assigned_amount(creature: dict) -> int:
    """510.1a with SPEC §10's `assigns`: the power, the toughness, or 0 for `none`."""
    kind = creature.get("assigns", "power")
    if kind == "none":
        return 0
    if kind == "toughness":
        return creature["toughness"]
    return creature["power"]


def _as_though_unblocked(doc: dict, creature: dict) -> bool:
    """An attacker with `as_though_unblocked` that is blocked: it has two modes."""
    if not _is_attacking(creature) or creature.get("as_though_unblocked") is not True:
        return False
    return len(_blockers_of(doc, creature["id"])) > 0 or creature.get("blocked") is True


def check_document(doc: dict) -> None:
    """SPEC §10: an attacker with `as_though_unblocked` whose damage the defending side
    assigns is refused (ValueError)."""
    for creature in _creatures(doc):
        if creature.get("as_though_unblocked") is True and _is_attacking(creature) \
                and chooser_side(doc, creature["id"]) == "blockers":
            raise ValueError(f"{creature['id']}: as_though_unblocked on an attacker whose "
                             "damage the defending side assigns")


# ---------------------------------------------------------------------------
# SPEC §2: who assigns, and to whom
# ---------------------------------------------------------------------------


Mode = tuple[list[str], dict[str, tuple[str, ...]]]
"""One kind of split of a creature: its recipients and, for each recipient that has one,
the conditions under which it may get a positive amount."""


def _attacker_plan(doc: dict, attacker: dict, as_blocked: bool | None = None) -> Mode:
    """The §2 row for an attacker: its recipients and, for each recipient that has
    one, the conditions under which it may get a positive amount. `as_blocked` False
    reads the row as if it were unblocked (SPEC §10 `as_though_unblocked`)."""
    target = attacker["attacking"]
    blockers = _blockers_of(doc, attacker["id"])
    blocked = len(blockers) > 0 or attacker.get("blocked") is True
    if as_blocked is False:
        blocked = False
    top = _has(attacker, TRAMPLE_OVER_PLANESWALKERS)
    trample = top or _has(attacker, TRAMPLE)
    live = _is_live(doc, target)
    target_pw = _planeswalker(doc, target)
    top_on_pw = top and target_pw is not None
    controller = target_pw["controller"] if target_pw is not None else None

    if not blocked:
        if live and not top_on_pw:
            return [target], {}  # 510.1b
        if live and top_on_pw:
            return [target, controller], {controller: (NEEDS_TARGET_LOYALTY,)}  # 702.19c
        if top_on_pw:
            return [controller], {}  # 702.19e
        return [], {}  # 506.4c, 510.1b
    if not trample:
        return list(blockers), {}  # 510.1c (empty B: assigns nothing)
    if live and not top_on_pw:
        return [*blockers, target], {target: (NEEDS_BLOCKERS_LETHAL,)}  # 702.19b
    if live and top_on_pw:
        return [*blockers, target, controller], {  # 702.19c
            target: (NEEDS_BLOCKERS_LETHAL,),
            controller: (NEEDS_BLOCKERS_LETHAL, NEEDS_TARGET_LOYALTY),
        }
    if top_on_pw:
        return [*blockers, controller], {controller: (NEEDS_BLOCKERS_LETHAL,)}  # 702.19e
    return list(blockers), {}


def modes(doc: dict, side: str, source_id: str) -> list[Mode]:
    """The kinds of split `source_id` may choose for `side`: one §2 row, or two (as
    blocked, then as if unblocked) for a blocked attacker with `as_though_unblocked`.
    A creature that does not belong to `side` (`chooser_side`) has none."""
    _check_side(side)
    creature = _creature(doc, source_id)
    if creature is None or chooser_side(doc, source_id) != side:
        return []
    if _is_attacking(creature):
        if _as_though_unblocked(doc, creature):
            return [_attacker_plan(doc, creature, True), _attacker_plan(doc, creature, False)]
        return [_attacker_plan(doc, creature)]
    return [(list(creature["blocking"]), {})]  # 510.1d; trample does nothing (702.19a)


def recipients(doc: dict, side: str, source_id: str) -> list[str]:
    """The ids `source_id` may assign to, from the SPEC §2 table (the step and the power
    are not looked at here; see `assigning_sources`): with two modes, the union, in
    order of first appearance (blockers, what it attacks, the planeswalker's controller).
    A creature that does not belong to `side` (`chooser_side`) has none."""
    result: list[str] = []
    for mode_recipients, _conditions in modes(doc, side, source_id):
        result += [r for r in mode_recipients if r not in result]
    return result


def assigning_sources(doc: dict, side: str) -> list[tuple[str, int]]:
    """(id, amount) of every creature that assigns combat damage for `side` in the
    effective step, in document order. Left out: creatures that do not belong to the
    side (`chooser_side`), creatures the step filter excludes, an amount <= 0 (510.1a,
    `assigned_amount`), and creatures with no recipients. Raises ValueError on a
    document `check_document` refuses."""
    _check_side(side)
    check_document(doc)
    step = effective_step(doc)
    result = []
    for creature in _creatures(doc):
        if chooser_side(doc, creature["id"]) != side:
            continue
        if not _assigns_in_step(creature, step):
            continue
        amount = assigned_amount(creature)
        if amount <= 0:
            continue
        if not recipients(doc, side, creature["id"]):
            continue
        result.append((creature["id"], amount))
    return result


# ---------------------------------------------------------------------------
# Judging an assignment
# ---------------------------------------------------------------------------


def _as_amounts(assignment) -> dict[tuple[str, str], int]:
    """A dict {(source, target): amount} from such a dict (itself: its keys are distinct)
    or from another mapping or an iterable of (source, target, amount) triples."""
    if type(assignment) is dict:
        return assignment
    amounts: dict[tuple[str, str], int] = {}
    if isinstance(assignment, Mapping):
        for (source, target), amount in assignment.items():
            amounts[(source, target)] = amounts.get((source, target), 0) + amount
        return amounts
    for source, target, amount in assignment:
        amounts[(source, target)] = amounts.get((source, target), 0) + amount
    return amounts


def _assigned_to(amounts: dict[tuple[str, str], int], target_id: str) -> int:
    return sum(amount for (_source, target), amount in amounts.items() if target == target_id)


def is_lethally_assigned(doc: dict, amounts, creature_id: str) -> bool:
    """510.1e / 702.19b / 702.2c over the whole assignment."""
    amounts = _as_amounts(amounts)
    creature = _creature(doc, creature_id)
    need = creature["toughness"] - creature.get("damage", 0)
    if _assigned_to(amounts, creature_id) >= need:
        return True
    for (source, target), amount in amounts.items():
        if target == creature_id and amount >= 1:
            source_creature = _creature(doc, source)
            if source_creature is not None and _has(source_creature, DEATHTOUCH):
                return True
    return False


def is_loyalty_assigned(doc: dict, amounts, pw_id: str) -> bool:
    """702.19c over the whole assignment."""
    amounts = _as_amounts(amounts)
    return _assigned_to(amounts, pw_id) >= _planeswalker(doc, pw_id)["loyalty"]


def _conditions_hold(doc: dict, amounts: dict[tuple[str, str], int], source: str,
                     conditions: dict[str, tuple[str, ...]]) -> bool:
    """Every §2 condition of a recipient that `source` gives a positive amount."""
    attacker = _creature(doc, source)
    for recipient, needs in conditions.items():
        if amounts.get((source, recipient), 0) <= 0:
            continue
        for need in needs:
            if need == NEEDS_BLOCKERS_LETHAL:
                for blocker in _blockers_of(doc, source):
                    if not is_lethally_assigned(doc, amounts, blocker):
                        return False
            elif need == NEEDS_TARGET_LOYALTY:
                if not is_loyalty_assigned(doc, amounts, attacker["attacking"]):
                    return False
            else:  # pragma: no cover
                raise AssertionError(need)
    return True


def _legal_in_modes(doc: dict, amounts: dict[tuple[str, str], int],
                    sources: dict[str, int], chosen: dict[str, Mode]) -> bool:
    """Legal when each source uses the mode `chosen` for it: every positive entry goes
    from a source to a recipient of its mode, a mode with recipients gets exactly the
    amount (one without gets nothing), and every condition holds over the whole
    assignment."""
    given = {source: 0 for source in sources}
    for (source, target), amount in amounts.items():
        if amount < 0:
            return False
        if amount == 0:
            continue
        if source not in sources:
            return False  # a creature that does not assign here gives something
        if target not in chosen[source][0]:
            return False  # something goes to a non-recipient of the chosen mode
        given[source] += amount
    for source, amount in sources.items():
        owed = amount if chosen[source][0] else 0
        if given[source] != owed:
            return False
    return all(_conditions_hold(doc, amounts, source, chosen[source][1])
               for source in sources)


def _mode_vectors(doc: dict, side: str, sources: dict[str, int]
                  ) -> Iterable[dict[str, Mode]]:
    """Every choice of one mode per assigning source."""
    names = list(sources)
    per_source = [modes(doc, side, source) for source in names]
    for vector in itertools.product(*per_source):
        yield dict(zip(names, vector, strict=True))


def is_legal(doc: dict, side: str, assignment: dict[tuple[str, str], int]) -> bool:
    """SPEC §3: every assigning creature gives exactly its amount to its recipients,
    nothing goes anywhere else, and every §2 condition holds; with SPEC §10's
    `as_though_unblocked`, for some choice of mode per such creature."""
    _check_side(side)
    amounts = _as_amounts(assignment)
    sources = dict(assigning_sources(doc, side))
    return any(_legal_in_modes(doc, amounts, sources, chosen)
               for chosen in _mode_vectors(doc, side, sources))


# ---------------------------------------------------------------------------
# Enumerating
# ---------------------------------------------------------------------------


def weak_compositions(total: int, parts: int) -> list[tuple[int, ...]]:
    """Every tuple of `parts` non-negative integers summing to `total`."""
    if parts == 0:
        return [()] if total == 0 else []
    if parts == 1:
        return [(total,)]
    result = []
    for first in range(total + 1):
        for rest in weak_compositions(total - first, parts - 1):
            result.append((first, *rest))
    return result


def legal_assignments(doc: dict, side: str) -> list[frozenset[tuple[str, str, int]]]:
    """Every distinct legal assignment once, as frozensets of (source, target, amount)
    with amount > 0. The empty frozenset is the one legal assignment when nobody
    assigns. With SPEC §10's `as_though_unblocked`: for every choice of one mode per
    source, the product of each source's splits in its mode, kept when legal in those
    modes; the union over the choices, each assignment once."""
    _check_side(side)
    sources = dict(assigning_sources(doc, side))
    result = []
    seen = set()
    for chosen in _mode_vectors(doc, side, sources):
        per_source = []
        for source, amount in sources.items():
            targets = chosen[source][0]
            splits = []
            if not targets:
                splits.append([])  # this mode assigns nothing (510.1b, 510.1c)
            for split in weak_compositions(amount, len(targets)) if targets else []:
                pairs = zip(targets, split, strict=True)
                splits.append([(source, target, n) for target, n in pairs if n > 0])
            per_source.append(splits)
        for choice in itertools.product(*per_source):
            triples = frozenset(triple for split in choice for triple in split)
            amounts = {(source, target): n for source, target, n in triples}
            if triples not in seen and _legal_in_modes(doc, amounts, sources, chosen):
                seen.add(triples)
                result.append(triples)
    return result


# ---------------------------------------------------------------------------
# SPEC §4: objectives
# ---------------------------------------------------------------------------


def default_objective(side: str) -> list[str]:
    """SPEC §7: the default objective terms."""
    _check_side(side)
    if side == "attackers":
        return list(OUTCOME_TERMS)
    return ["deaths", "life_gain"]


def default_objective_10(side: str) -> list[str]:
    """SPEC §10: the default objective terms once a side may assign the other side's
    creatures. On a document where each side assigns only its own creatures `survivals`
    and `life_kept` are constant, so these order assignments as `default_objective`."""
    _check_side(side)
    if side == "attackers":
        return ["losses", "deaths", "survivals", "planeswalker_deaths", "battle_deaths",
                "poison", "life_loss", "loyalty_loss", "defense_loss", "life_gain"]
    return ["life_kept", "survivals", "deaths", "life_gain"]


def plain_objective(side: str) -> list[str]:
    """SPEC §4: the default objective before §7."""
    _check_side(side)
    if side == "attackers":
        return list(ASSIGNED_TERMS)
    return ["kills"]


def _attacked_ids(doc: dict) -> set[str]:
    return {c["attacking"] for c in _creatures(doc) if _is_attacking(c)}


def _term_value(doc: dict, side: str, amounts: dict[tuple[str, str], int], term: str) -> int:
    if term == "lethal":
        count = 0
        for player in _players(doc):
            if player["id"] == doc["active_player"]:
                continue
            if player.get("life", 20) - _assigned_to(amounts, player["id"]) <= 0:
                count += 1
        return count
    if term == "kills":
        total = 0
        for creature in _creatures(doc):
            opposing = _is_blocking(creature) if side == "attackers" else _is_attacking(creature)
            if not opposing:
                continue
            if _has(creature, INDESTRUCTIBLE):
                continue
            if is_lethally_assigned(doc, amounts, creature["id"]):
                total += creature.get("value", 1)
        return total
    if term in ("planeswalker_kills", "battle_kills"):
        # Those in combat (attacked, not removed) whose assigned damage reaches their
        # loyalty or defense.
        attacked = _attacked_ids(doc)
        things, need = ((_planeswalkers(doc), "loyalty") if term == "planeswalker_kills"
                        else (_battles(doc), "defense"))
        return sum(1 for thing in things
                   if _in_combat_flag(thing) and thing["id"] in attacked
                   and _assigned_to(amounts, thing["id"]) >= thing[need])
    if term == "player_damage":
        return sum(_assigned_to(amounts, pid) for pid in _player_ids(doc))
    if term == "planeswalker_damage":
        return sum(_assigned_to(amounts, pw["id"]) for pw in _planeswalkers(doc))
    if term == "battle_damage":
        return sum(_assigned_to(amounts, b["id"]) for b in _battles(doc))
    raise ValueError(f"unknown objective term {term!r}")  # pragma: no cover


# ---------------------------------------------------------------------------
# SPEC §7: what dealt damage does
# ---------------------------------------------------------------------------


def _toxic_total(creature: dict) -> int:
    """The sum of the creature's `toxic N` keywords."""
    total = 0
    for keyword in creature.get("keywords", []):
        words = normalize_keyword(keyword).split(" ")
        if len(words) == 2 and words[0] == "toxic":
            total += int(words[1])
    return total


def _matches(entry: dict, source_id: str, target_id: str) -> bool:
    return entry["source"] in ("*", source_id) and entry["target"] in ("*", target_id)


def dealt(doc: dict, source_id: str, target_id: str, assigned: int) -> int:
    """SPEC §7 dealt damage: 0 if any prevention entry matches, else the assigned amount
    times every matching factor."""
    for entry in doc.get("prevention", []):
        if _matches(entry, source_id, target_id):
            return 0
    result = assigned
    for entry in doc.get("multipliers", []):
        if _matches(entry, source_id, target_id):
            result *= entry["factor"]
    return result


def results(doc: dict, amounts: dict[tuple[str, str], int]) -> dict:
    """What the dealt damage does (120.3), as plain totals per object."""
    life_lost: dict[str, int] = {}
    poison: dict[str, int] = {}
    life_gained: dict[str, int] = {}
    marked: dict[str, int] = {}
    counters: dict[str, int] = {}
    deathtouched: set[str] = set()
    loyalty_lost: dict[str, int] = {}
    defense_lost: dict[str, int] = {}
    from_source: dict[tuple[str, str], int] = {}
    players = set(_player_ids(doc))
    for (source_id, target_id), assigned in amounts.items():
        amount = dealt(doc, source_id, target_id, assigned)
        if amount <= 0:
            continue
        source = _creature(doc, source_id)
        keywords = _keywords(source)
        if target_id in players:
            if "infect" in keywords:
                poison[target_id] = poison.get(target_id, 0) + amount
            else:
                life_lost[target_id] = life_lost.get(target_id, 0) + amount
            toxic = _toxic_total(source)
            if toxic > 0:
                poison[target_id] = poison.get(target_id, 0) + toxic
            key = (source_id, target_id)
            from_source[key] = from_source.get(key, 0) + amount
        elif _creature(doc, target_id) is not None:
            if "wither" in keywords or "infect" in keywords:
                counters[target_id] = counters.get(target_id, 0) + amount
            else:
                marked[target_id] = marked.get(target_id, 0) + amount
            if DEATHTOUCH in keywords:
                deathtouched.add(target_id)
        elif _planeswalker(doc, target_id) is not None:
            loyalty_lost[target_id] = loyalty_lost.get(target_id, 0) + amount
        else:
            defense_lost[target_id] = defense_lost.get(target_id, 0) + amount
        if "lifelink" in keywords:
            owner = source["controller"]
            life_gained[owner] = life_gained.get(owner, 0) + amount
    return {"life_lost": life_lost, "poison": poison, "life_gained": life_gained,
            "marked": marked, "counters": counters, "deathtouched": deathtouched,
            "loyalty_lost": loyalty_lost, "defense_lost": defense_lost,
            "from_source": from_source}


def player_lost(doc: dict, player: dict, res: dict) -> bool:
    """704.5a-c and loss thresholds."""
    pid = player["id"]
    if player.get("life", 20) - res["life_lost"].get(pid, 0) <= 0:
        return True
    if player.get("poison", 0) + res["poison"].get(pid, 0) >= 10:
        return True
    for entry in doc.get("loss_thresholds", []):
        if entry["player"] != pid:
            continue
        total = entry.get("already", 0) + res["from_source"].get((entry["source"], pid), 0)
        if total >= entry["threshold"]:
            return True
    return False


def creature_died(creature: dict, res: dict) -> bool:
    """704.5f-h."""
    cid = creature["id"]
    toughness = creature["toughness"] - res["counters"].get(cid, 0)
    if toughness <= 0:
        return True
    if _has(creature, INDESTRUCTIBLE):
        return False
    if creature.get("damage", 0) + res["marked"].get(cid, 0) >= toughness:
        return True
    return cid in res["deathtouched"]


def _outcome_value(doc: dict, side: str, res: dict, term: str) -> int:
    """The value of an outcome term, given what the dealt damage does (`results`)."""
    opponents = [p for p in _players(doc) if p["id"] != doc["active_player"]]
    if term == "losses":
        return sum(1 for p in opponents if player_lost(doc, p, res))
    if term == "deaths":
        total = 0
        for creature in _creatures(doc):
            opposing = _is_blocking(creature) if side == "attackers" else _is_attacking(creature)
            if opposing and creature_died(creature, res):
                total += creature.get("value", 1)
        return total
    if term == "planeswalker_deaths":
        return sum(1 for pw in _planeswalkers(doc)
                   if _in_combat_flag(pw) and pw["id"] in _attacked_ids(doc)
                   and pw["loyalty"] - res["loyalty_lost"].get(pw["id"], 0) <= 0)
    if term == "battle_deaths":
        return sum(1 for b in _battles(doc)
                   if _in_combat_flag(b) and b["id"] in _attacked_ids(doc)
                   and b["defense"] - res["defense_lost"].get(b["id"], 0) <= 0)
    if term == "poison":
        return sum(res["poison"].get(p["id"], 0) for p in opponents)
    if term == "life_loss":
        return sum(res["life_lost"].get(p["id"], 0) for p in opponents)
    if term == "loyalty_loss":
        return sum(res["loyalty_lost"].values())
    if term == "defense_loss":
        return sum(res["defense_lost"].values())
    own_players = [doc["active_player"]] if side == "attackers" \
        else [p["id"] for p in opponents]
    if term == "life_gain":
        return sum(res["life_gained"].get(pid, 0) for pid in own_players)
    if term == "life_kept":
        return -sum(res["life_lost"].get(pid, 0) for pid in own_players)
    if term == "survivals":
        total = 0
        for creature in _creatures(doc):
            own = _is_attacking(creature) if side == "attackers" else _is_blocking(creature)
            if own and not creature_died(creature, res):
                total += creature.get("value", 1)
        return total
    raise ValueError(f"unknown objective term {term!r}")  # pragma: no cover


def objective(doc: dict, side: str, assignment, terms: Iterable[str]) -> tuple[int, ...]:
    """The value of each SPEC §4, §7 or §10 term, in order. `assignment` is a dict
    {(source, target): amount} or an iterable of (source, target, amount)."""
    _check_side(side)
    terms = list(terms)
    for term in terms:
        if term not in TERMS:
            raise ValueError(f"unknown objective term {term!r}")
        if side == "blockers" and term not in BOTH_SIDES_TERMS:
            raise ValueError(f"objective term {term!r} does not apply to side 'blockers'")
    amounts = _as_amounts(assignment)
    res = results(doc, amounts) if any(
        term in OUTCOME_TERMS or term in OWN_SIDE_TERMS for term in terms) else None
    return tuple(_outcome_value(doc, side, res, term)
                 if term in OUTCOME_TERMS or term in OWN_SIDE_TERMS
                 else _term_value(doc, side, amounts, term) for term in terms)


def optimum(doc: dict, side: str, terms: Iterable[str]) -> tuple[int, ...]:
    """The lexicographic maximum of `objective` over every legal assignment."""
    terms = list(terms)
    return max(objective(doc, side, a, terms) for a in legal_assignments(doc, side))


def optima(doc: dict, side: str, *term_lists: Iterable[str]) -> list[tuple[int, ...]]:
    """`optimum` for each list of terms, over one enumeration of the legal assignments
    (each term's value is its own: every term is valued once per assignment)."""
    lists = [list(terms) for terms in term_lists]
    every = list(dict.fromkeys(term for terms in lists for term in terms))
    best: list[tuple[int, ...] | None] = [None] * len(lists)
    for assignment in legal_assignments(doc, side):
        value = dict(zip(every, objective(doc, side, assignment, every), strict=True))
        for k, terms in enumerate(lists):
            got = tuple(value[term] for term in terms)
            if best[k] is None or got > best[k]:
                best[k] = got
    if None in best:
        raise ValueError("optima() of a combat with no legal assignment")
    return best  # type: ignore[return-value]
