"""Who may attack and block, and which declarations are legal: the one place the rules of
declaring attackers (508.1) and blockers (509.1a-c) are written (SPEC §11).

Checking, counting, enumerating, the options of one blocker, evaluating and searching
(:mod:`trample.solver.blocks`), and the game model's
:func:`~trample.models.game.combat_steps.declare_combat`, all read them from here:

- :func:`block_rules` reads a board once into :class:`BlockRules`: the *possible* pairs
  (509.1a, with the evasion abilities), each blocker's limit, each attacker's least and
  most blockers (509.1b, menace 702.111b), and the requirements (509.1c);
- :meth:`BlockRules.restriction_violations` judges one declaration against 509.1a-b and
  :meth:`BlockRules.obeyed` counts the requirements it obeys; the 509.1c maximum they
  are held to is worked out over all the declarations, by
  :func:`trample.solver.blocks.space.most_obeyed`, and the whole judgement of a
  declaration is :func:`trample.solver.blocks.space.violations`;
- :func:`attack_rules` and :class:`AttackRules` do the same for attacks (508.1a, 508.1b,
  508.1d, 302.6).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from trample.models.document.board import ANY, Board
from trample.models.document.combat import Combat, Creature, brief_repr
from trample.models.document.errors import InputError
from trample.models.document.reading import check_id, check_list, check_object
from trample.models.document.rule_index import Rule

Block = tuple[str, str]
"""(blocker, attacker)."""

FLYING = "flying"
REACH = "reach"
MENACE = "menace"
SHADOW = "shadow"
HORSEMANSHIP = "horsemanship"
DEFENDER = "defender"
HASTE = "haste"


@dataclass(frozen=True, slots=True)
class Violation:
    """One way a declaration breaks the rules (``blocker``/``attacker`` None where it is
    not one pair's; for attacks, ``blocker`` is None and ``attacker`` the creature)."""

    rule: str
    blocker: str | None
    attacker: str | None
    message: str

    def to_json(self) -> dict[str, object]:
        """As ``check_blocks`` prints it."""
        return {"rule": str(self.rule), "blocker": self.blocker, "attacker": self.attacker,
                "message": self.message}


@dataclass(frozen=True, slots=True)
class Requirement:
    """One requirement of 509.1c: ``must_block`` (``creature`` blocks), ``must_be_blocked``
    (``creature`` is blocked), or ``lure`` (``creature`` blocks ``attacker``)."""

    kind: Literal["must_block", "must_be_blocked", "lure"]
    creature: str
    attacker: str | None = None

    def obeyed(self, blocks: Mapping[str, Sequence[str]], blocked: Mapping[str, int]) -> bool:
        """Whether a declaration (blocker -> attackers; attacker -> its blockers) obeys it."""
        if self.kind == "must_block":
            return bool(blocks.get(self.creature))
        if self.kind == "must_be_blocked":
            return blocked.get(self.creature, 0) > 0
        return self.attacker in blocks.get(self.creature, ())


def defending_player(combat: Combat, attacker: Creature) -> str | None:
    """The player ``attacker`` attacks: the player itself, the planeswalker's controller,
    or the battle's protector (None when it attacks nothing)."""
    target = attacker.attacking
    if target is None or target not in combat:
        return None
    kind = combat.kind(target)
    if kind == "player":
        return target
    if kind == "planeswalker":
        return combat.planeswalker(target).controller
    if kind == "battle":
        return combat.battle(target).protector
    return None


def why_not(board: Board, blocker: Creature, attacker: Creature) -> str | None:
    """Why ``blocker`` can't block ``attacker`` (509.1a, with the evasion abilities
    702.9b, 702.17b, 702.28b, 702.31b), or None when the pair is possible."""
    b, a = blocker.id, attacker.id
    if blocker.is_attacking:
        return f"{b!r} is attacking and can't block"
    mine = board.of(b)
    if mine.tapped:
        return f"{b!r} is tapped and can't block"
    if not mine.can_block:
        return f"{b!r} can't block (an effect says so)"
    if not attacker.is_attacking:
        return f"{a!r} is not attacking"
    defending = defending_player(board.combat, attacker)
    if blocker.controller != defending:
        return (f"{b!r} is not controlled by the player {a!r} attacks "
                f"({defending!r})")
    if not board.of(a).can_be_blocked:
        return f"{a!r} can't be blocked (an effect says so)"
    for who, whom in board.cannot_block:
        if who in (b, ANY) and whom in (a, ANY):
            return f"{b!r} can't block {a!r} (cannot_block)"
    if attacker.has(FLYING) and not (blocker.has(FLYING) or blocker.has(REACH)):
        return f"{a!r} has flying: only a creature with flying or reach blocks it (702.9b)"
    if attacker.has(HORSEMANSHIP) and not blocker.has(HORSEMANSHIP):
        return f"{a!r} has horsemanship: only a creature with horsemanship blocks it " \
               "(702.31b)"
    if attacker.has(SHADOW) and not blocker.has(SHADOW):
        return f"{a!r} has shadow: only a creature with shadow blocks it (702.28b)"
    if blocker.has(SHADOW) and not attacker.has(SHADOW):
        return f"{b!r} has shadow: it blocks only creatures with shadow (702.28b)"
    return None


@dataclass(frozen=True, slots=True)
class BlockRules:
    """What decides the legality of block declarations on one board."""

    board: Board
    pairs: tuple[Block, ...]
    """The possible pairs: blockers in document order, each one's attackers in document
    order (``block_pairs``)."""
    blockers: tuple[str, ...]
    """The creatures with a possible pair, in document order."""
    attackers: tuple[str, ...]
    """The attacking creatures, in document order."""
    choices_of: Mapping[str, tuple[str, ...]]
    """A blocker's possible attackers, in document order."""
    limit: Mapping[str, int]
    """How many attackers a blocker may block (``blocks_max``; "any": all it may)."""
    least: Mapping[str, int]
    """The fewest blockers a blocked attacker may have (``min_blockers``, 2 with menace)."""
    most: Mapping[str, int | None]
    """The most blockers it may have (``max_blockers``), None: no limit."""
    requirements: tuple[Requirement, ...]
    most_obeyed_found: list[int] = field(default_factory=list, compare=False, repr=False)
    """The 509.1c maximum once :func:`~trample.solver.blocks.space.most_obeyed` has
    worked it out (kept with the rules it belongs to)."""

    @property
    def pair_set(self) -> frozenset[Block]:
        """:attr:`pairs` as a set."""
        return frozenset(self.pairs)

    def obeyed(self, blocks: Mapping[str, Sequence[str]]) -> int:
        """How many requirements a declaration obeys."""
        counts = blocked_counts(blocks)
        return sum(1 for r in self.requirements if r.obeyed(blocks, counts))

    def restriction_violations(self, blocks: Mapping[str, Sequence[str]],
                               bands: Mapping[str, str] | None = None) -> list[Violation]:
        """509.1a-b: pairs that are not possible, too many attackers for a blocker, too
        few or too many blockers for an attacker. ``bands`` (the game model's: attacker
        -> the first member of its band) counts a band as one attacker for how many a
        blocker blocks (blocking one member blocks the band, 702.22h)."""
        board = self.board
        combat = board.combat
        found: list[Violation] = []
        possible = self.pair_set
        for b, attackers in blocks.items():
            for a in attackers:
                if (b, a) not in possible:
                    reason = why_not(board, combat.creature(b), combat.creature(a))
                    found.append(Violation(Rule.R509_1A, b, a, f"{b!r} can't block {a!r}: "
                                           f"{reason or 'not a possible pair'}"))
            blocked = len(attackers) if not bands else \
                len({bands.get(a, a) for a in attackers})
            if blocked > self.limit.get(b, 1):
                found.append(Violation(Rule.R509_1B, b, None, f"{b!r} blocks "
                                       f"{blocked} attackers; it may block at most "
                                       f"{self.limit.get(b, 1)}"))
        for a, n in blocked_counts(blocks).items():
            least = self.least.get(a, 1)
            most = self.most.get(a)
            if n < least:
                why = " (menace, 702.111b)" if least == 2 and \
                    combat.creature(a).has(MENACE) else ""
                found.append(Violation(Rule.R509_1B, None, a, f"{a!r} is blocked by {n} "
                                       f"creature{'s' if n != 1 else ''}; it can't be "
                                       f"blocked except by {least} or more{why}"))
            if most is not None and n > most:
                found.append(Violation(Rule.R509_1B, None, a, f"{a!r} is blocked by {n} "
                                       f"creatures; it can't be blocked by more than {most}"))
        return found


def blocked_counts(blocks: Mapping[str, Sequence[str]]) -> dict[str, int]:
    """Attacker -> how many creatures block it."""
    counts: dict[str, int] = {}
    for attackers in blocks.values():
        for a in attackers:
            counts[a] = counts.get(a, 0) + 1
    return counts


def block_rules(board: Board) -> BlockRules:
    """The legality of block declarations on ``board``, read once."""
    combat = board.combat
    attackers = tuple(c.id for c in combat.creatures if c.is_attacking)
    by_id = {c.id: c for c in combat.creatures}
    pairs: list[Block] = []
    choices: dict[str, tuple[str, ...]] = {}
    limit: dict[str, int] = {}
    for c in combat.creatures:
        if c.is_attacking:
            continue
        mine = tuple(a for a in attackers if why_not(board, c, by_id[a]) is None)
        if mine:
            choices[c.id] = mine
            pairs.extend((c.id, a) for a in mine)
        wanted = board.of(c.id).blocks_max
        limit[c.id] = len(attackers) if wanted is None else wanted
    least = {a: max(board.of(a).min_blockers, 2 if by_id[a].has(MENACE) else 1)
             for a in attackers}
    most = {a: board.of(a).max_blockers for a in attackers}
    requirements: list[Requirement] = []
    for c in combat.creatures:
        if c.is_attacking or c.controller == combat.active_player:
            continue
        if board.of(c.id).must_block:
            requirements.append(Requirement("must_block", c.id))
    for a in attackers:
        if board.of(a).must_be_blocked:
            requirements.append(Requirement("must_be_blocked", a))
        if board.of(a).lure:
            defending = defending_player(combat, by_id[a])
            requirements.extend(Requirement("lure", c.id, a) for c in combat.creatures
                                if c.controller == defending and not c.is_attacking)
    return BlockRules(board, tuple(pairs), tuple(choices), attackers, choices, limit, least,
                      most, tuple(requirements))


def parse_blocks(rules: BlockRules, raw: object, path: str = "blocks"
                 ) -> dict[str, tuple[str, ...]]:
    """A list of ``{"blocker", "attacker"}`` pairs as blocker -> attackers (in document
    order). Unknown ids and a pair given twice are input errors; everything else is the
    rules' to judge (:meth:`BlockRules.violations`)."""
    combat = rules.board.combat
    order = {c.id: i for i, c in enumerate(combat.creatures)}
    seen: set[Block] = set()
    blocks: dict[str, list[str]] = {}
    for i, item in enumerate(check_list(raw, path)):
        entry = check_object(item, f"{path}[{i}]", frozenset({"blocker", "attacker"}))
        ids = []
        for key in ("blocker", "attacker"):
            if key not in entry:
                raise InputError(f"{path}[{i}].{key}", "required field is missing")
            value = check_id(entry[key], f"{path}[{i}].{key}")
            if value not in combat or combat.kind(value) != "creature":
                raise InputError(f"{path}[{i}].{key}", f"{brief_repr(value)} is not a "
                                 "creature of the board")
            ids.append(value)
        pair = (ids[0], ids[1])
        if pair in seen:
            raise InputError(f"{path}[{i}]", f"the pair {pair[0]!r} blocks {pair[1]!r} is "
                             "given twice")
        seen.add(pair)
        blocks.setdefault(pair[0], []).append(pair[1])
    return {b: tuple(sorted(a, key=order.__getitem__)) for b, a in
            sorted(blocks.items(), key=lambda kv: order[kv[0]])}


def pairs_json(blocks: Mapping[str, Sequence[str]], rules: BlockRules) -> list[dict[str, str]]:
    """A declaration as ``check_blocks`` takes it: its pairs in :attr:`BlockRules.pairs`
    order."""
    chosen = {(b, a) for b, attackers in blocks.items() for a in attackers}
    return [{"blocker": b, "attacker": a} for b, a in rules.pairs if (b, a) in chosen]


# -- attacks ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class AttackRules:
    """What decides the legality of attack declarations on one board."""

    board: Board
    able: tuple[str, ...]
    """The creatures that may attack (508.1a, 302.6, 702.3b), in document order."""
    targets: tuple[str, ...]
    """What they may attack (508.1b): the players other than the active player, then the
    planeswalkers they control, then the battles they protect, each in document order."""
    required: tuple[str, ...]
    """The able creatures with ``must_attack`` (508.1d)."""

    def violations(self, attacks: Mapping[str, str]) -> list[Violation]:
        """Every way an attack declaration (creature -> target) breaks 508.1."""
        found: list[Violation] = []
        able = set(self.able)
        targets = set(self.targets)
        for c, target in attacks.items():
            if c not in able:
                found.append(Violation(Rule.R508_1A, None, c, f"{c!r} can't attack: "
                                       f"{why_not_attack(self.board, c)}"))
            elif target not in targets:
                found.append(Violation(Rule.R508_1B, None, c, f"{c!r} can't attack "
                                       f"{target!r}: not a player, planeswalker or battle "
                                       "of an opponent"))
        for c in self.required:
            if c not in attacks:
                found.append(Violation(Rule.R508_1D, None, c, f"{c!r} attacks each combat "
                                       "if able (must_attack), and it is able"))
        return found


def why_not_attack(board: Board, creature_id: str) -> str | None:
    """Why a creature can't attack (508.1a, 302.6, 702.3b), or None when it can."""
    combat = board.combat
    creature = combat.creature(creature_id)
    mine = board.of(creature_id)
    if creature.controller != combat.active_player:
        return "it is not the active player's"
    if mine.tapped:
        return "it is tapped"
    if not mine.can_attack:
        return "an effect says it can't attack"
    if creature.has(DEFENDER):
        return "it has defender (702.3b)"
    if mine.summoning_sick and not creature.has(HASTE):
        return "it is summoning sick and has no haste (302.6)"
    return None


def attack_rules(board: Board) -> AttackRules:
    """The legality of attack declarations on ``board``, read once."""
    combat = board.combat
    able = tuple(c.id for c in combat.creatures if why_not_attack(board, c.id) is None)
    opponents = [p.id for p in combat.players if p.id != combat.active_player]
    targets = (*opponents,
               *(w.id for w in combat.planeswalkers if w.controller in opponents),
               *(b.id for b in combat.battles if b.protector in opponents))
    required = tuple(c for c in able if board.of(c).must_attack)
    return AttackRules(board, able, targets, required)


def parse_attacks(rules: AttackRules, raw: object, path: str = "attacks") -> dict[str, str]:
    """A list of ``{"attacker", "target"}`` as creature -> target, in document order.
    Unknown ids and a creature given twice are input errors."""
    combat = rules.board.combat
    order = {c.id: i for i, c in enumerate(combat.creatures)}
    attacks: dict[str, str] = {}
    for i, item in enumerate(check_list(raw, path)):
        entry = check_object(item, f"{path}[{i}]", frozenset({"attacker", "target"}))
        for key in ("attacker", "target"):
            if key not in entry:
                raise InputError(f"{path}[{i}].{key}", "required field is missing")
        c = check_id(entry["attacker"], f"{path}[{i}].attacker")
        t = check_id(entry["target"], f"{path}[{i}].target")
        if c not in combat or combat.kind(c) != "creature":
            raise InputError(f"{path}[{i}].attacker", f"{brief_repr(c)} is not a creature "
                             "of the board")
        if t not in combat:
            raise InputError(f"{path}[{i}].target", f"{brief_repr(t)} is not a player, "
                             "planeswalker or battle of the board")
        if c in attacks:
            raise InputError(f"{path}[{i}].attacker", f"{c!r} is given twice")
        attacks[c] = t
    return dict(sorted(attacks.items(), key=lambda kv: order[kv[0]]))


def attacks_json(attacks: Mapping[str, str]) -> list[dict[str, str]]:
    """An attack declaration as ``best_attack`` prints it."""
    return [{"attacker": c, "target": t} for c, t in attacks.items()]


def attack_order(rules: AttackRules, attacks: Mapping[str, str]) -> tuple[int, ...]:
    """The attack declaration's vector (SPEC §11): per able creature, 0 or the position
    (from 1) of its target."""
    position = {t: i + 1 for i, t in enumerate(rules.targets)}
    return tuple(position[attacks[c]] if c in attacks else 0 for c in rules.able)


def declaration_vector(rules: BlockRules, blocks: Mapping[str, Iterable[str]]
                       ) -> tuple[int, ...]:
    """The block declaration's 0/1 vector over :attr:`BlockRules.pairs`."""
    chosen = {(b, a) for b, attackers in blocks.items() for a in attackers}
    return tuple(1 if p in chosen else 0 for p in rules.pairs)
