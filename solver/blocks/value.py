"""The exact value of a declaration (SPEC §11): ``plan`` (§8) on the combat it makes,
found part by part.

A declaration's combat falls into *parts* that share no creature (an attacker and its
blockers, joined with every attacker a blocker of theirs also blocks) and no planeswalker
or battle they attack (its loyalty or defense, and its leaving combat after first-strike
damage, couple its attackers). What one part's damage does touches the others only
through the defending players: whether a player loses the game (``losses``) counts every
part's damage, lifelink, poison and loss thresholds together. Every other term of the
objective is a sum over the parts.

So a part in which the defending players have no choice (each blocker blocks one
attacker, as almost always) is a one-player problem: the attackers' *plays* there (a
first-strike split and, after the defenders' forced reply, a regular split) give a set
of outcomes, each the part's terms and what it does to each defending player (net life
lost after the first step and after both, poison, a reached loss threshold). Only the
outcomes no other outcome dominates are kept (:class:`Profile`), and the attackers'
best over all the parts is a dynamic program over the players' totals (:func:`combine`):
exact, and each part's profile is worked out once per search (:class:`Profiles`).

A part in which the defenders choose (a blocker of several attackers, an attacker whose
damage the defending player assigns) is played by ``plan`` itself, joined with every
other part that touches one of its players, so that the players' totals of such a group
are all inside it; its value then adds to the rest (the sum of two independent games'
values is the value of their sum).
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from operator import add
from typing import Literal

from trample.models.document.board import Board
from trample.models.document.combat import Combat, Creature
from trample.models.document.errors import InputError
from trample.models.document.keywords import DOUBLE_STRIKE
from trample.models.document.outcomes import (
    LIFELINK,
    StepResult,
    deal_step,
    has_lost,
)
from trample.models.game.declarations import defending_player
from trample.solver.actions.plan import (
    MAX_PLAN_SIZE,
    SPLITS_PER_CHECK,
    Plan,
    Scorer,
    plan_combat,
    plan_size,
    splits,
)
from trample.solver.blocks.direct import direct_quick, plain_part, quiet_step
from trample.solver.blocks.outcome import Line, Outcome, Players, Profile, Vector
from trample.solver.optimize.greedy import greedy
from trample.solver.rules.assignment import Amounts
from trample.solver.rules.legal_space import legal_space

BLOCK_TERMS: tuple[str, ...] = ("losses", "trade", "planeswalker_deaths", "battle_deaths",
                                "poison", "life_loss", "loyalty_loss", "defense_loss",
                                "life_gain")
"""The default objective of the §11 methods."""

MAX_PLAYS = 200_000
"""The most plays (first-strike split times regular split) one part's profile walks."""
CHECK_EVERY = 256
"""Plays dealt between two looks at the clock."""
MAX_LAST_STEP_POWER = 512
"""The most damage a lone choosing source may divide for the last step's dynamic program
(its work grows with the square of it); past it, the plays are listed, within
:data:`MAX_PLAYS`."""


def _too_large() -> InputError:
    return InputError("combat", f"too large to value exactly: one part has more than "
                      f"{MAX_PLAYS:,} plays")


class _TooMany(Exception):
    """More splits than the caller takes."""


def _listed(combat: Combat, side: Literal["attackers", "blockers"],
            most: int) -> list[Amounts] | None:
    """Every legal split of ``side`` in this step (:func:`splits`), or None when there
    are more than ``most``: a power in the billions has billions of splits, which are
    not listed to find that out."""
    looked = 0

    def check() -> None:
        nonlocal looked
        looked += 1
        if looked * SPLITS_PER_CHECK > most:
            raise _TooMany

    try:
        found = splits(combat, side, check)
    except _TooMany:
        return None
    return found if len(found) <= most else None


@dataclass(frozen=True, slots=True)
class Played:
    """A group played by ``plan`` (the defenders choose in it)."""

    value: Vector
    """Every term of the objective, ``losses`` counting the group's own players."""
    found: Plan


class TwoPlayer(Exception):
    """The defending players choose in this part."""


@dataclass(frozen=True, slots=True)
class Evaluation:
    """The value of a declaration and one principal line of it."""

    value: Vector
    status: str
    line: Line
    combat: Combat
    pieces: tuple[tuple[Combat, Outcome], ...] | None = None
    """When every part is a one-player part: each part's combat alone
    (:func:`sub_combat`) and the outcome it plays, whose lines make up :attr:`line`."""


def parts(combat: Combat) -> list[tuple[str, ...]]:
    """The creatures in combat in parts (document order within and between): attackers
    with their blockers, joined through a shared blocker or a shared planeswalker or
    battle they attack."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    def join(x: str, y: str) -> None:
        parent[find(x)] = find(y)

    by_target: dict[str, str] = {}
    for c in combat.creatures:
        if c.is_attacking or c.is_blocking:
            parent[c.id] = c.id
    for c in combat.creatures:
        for a in c.blocking:
            if a in parent:
                join(c.id, a)
        if c.is_attacking and c.attacking is not None \
                and combat.kind(c.attacking) in ("planeswalker", "battle"):
            if c.attacking in by_target:
                join(c.id, by_target[c.attacking])
            else:
                by_target[c.attacking] = c.id
    groups: dict[str, list[str]] = {}
    for c in combat.creatures:
        if c.id in parent:
            groups.setdefault(find(c.id), []).append(c.id)
    return [tuple(g) for g in groups.values()]


def touched(combat: Combat, members: Iterable[str]) -> frozenset[str]:
    """The defending players a part's damage, lifelink or loss thresholds can reach."""
    found: set[str] = set()
    mine = set(members)
    for cid in mine:
        c = combat.creature(cid)
        if c.is_attacking:
            player = defending_player(combat, c)
            if player is not None:
                found.add(player)
        elif c.controller != combat.active_player:
            found.add(c.controller)
    found.update(t.player for t in combat.loss_thresholds if t.source in mine)
    return frozenset(found - {combat.active_player})


def sub_combat(combat: Combat, members: Iterable[str],
               players: frozenset[str] | None = None) -> Combat:
    """The combat of some parts alone: their creatures, the effects that can apply to
    them; with ``players``, only those defending players (and what they control)."""
    mine = set(members)
    return _sub_combat(combat, tuple(c for c in combat.creatures if c.id in mine), players)


def _sub_combat(combat: Combat, creatures: tuple[Creature, ...],
                players: frozenset[str] | None = None) -> Combat:
    """:func:`sub_combat` with the part's creatures given (as they are in the part: each
    one is ``combat``'s creature of that id, or it as a declaration makes it)."""
    if players is None and not (combat.planeswalkers or combat.battles or combat.prevention
                                or combat.multipliers or combat.loss_thresholds):
        # Every player kept, and nothing else to sort out (the common combat).
        return replace(combat, creatures=creatures)
    return _filtered_sub_combat(combat, creatures, players)


def _filtered_sub_combat(combat: Combat, creatures: tuple[Creature, ...],
                         players: frozenset[str] | None = None) -> Combat:
    """:func:`_sub_combat`, each player, planeswalker, battle, effect and loss threshold
    kept or left out by what it names."""
    mine = {c.id for c in creatures}
    creature_ids = {c.id for c in combat.creatures}
    kept_players = tuple(p for p in combat.players if players is None
                         or p.id == combat.active_player or p.id in players)
    player_ids = {p.id for p in kept_players}
    walkers = tuple(w for w in combat.planeswalkers if w.controller in player_ids)
    battles = tuple(b for b in combat.battles if b.protector in player_ids)
    known = mine | player_ids | {w.id for w in walkers} | {b.id for b in battles}

    def kept(*ids: str) -> bool:
        return all(i == "*" or i in known or (i not in creature_ids and players is None)
                   for i in ids)

    return replace(
        combat, players=kept_players, creatures=creatures,
        planeswalkers=walkers, battles=battles,
        prevention=tuple(e for e in combat.prevention if kept(e.source, e.target)),
        multipliers=tuple(m for m in combat.multipliers if kept(m.source, m.target)),
        loss_thresholds=tuple(t for t in combat.loss_thresholds
                              if t.source in mine and t.player in player_ids))


def _minus(a: Players, b: Players) -> Players:
    """What ``a`` adds to ``b`` (a threshold reached counts where ``a`` reaches it)."""
    return tuple((n1 - m1, n2 - m2, p - q, f)
                 for (n1, n2, p, f), (m1, m2, q, _) in zip(a, b, strict=True))


def _plus(a: Players, b: Players) -> Players:
    return tuple((n1 + m1, n2 + m2, p + q, f or g)
                 for (n1, n2, p, f), (m1, m2, q, g) in zip(a, b, strict=True))


def _undominated(found: list[tuple[Players, Vector, tuple[int, ...]]]
                 ) -> list[tuple[Players, Vector, tuple[int, ...]]]:
    """The partial sums no other one dominates (as :func:`_dominates` judges outcomes;
    the first of equal ones kept)."""
    found.sort(key=lambda f: f[1], reverse=True)
    kept: list[tuple[Players, Vector, tuple[int, ...]]] = []
    for item in found:
        players, terms, _ = item
        if any(_at_least(k[0], players) and k[1] >= terms for k in kept):
            continue
        kept.append(item)
    return kept


def _at_least(a: Players, b: Players) -> bool:
    return all(n1 >= m1 and n2 >= m2 and p >= q and (f or not g)
               for (n1, n2, p, f), (m1, m2, q, g) in zip(a, b, strict=True))


def _dominates(a: Outcome, b: Outcome) -> bool:
    """``a`` is at least as good for the attackers as ``b`` in every context."""
    for (n1, n2, p, f), (m1, m2, q, g) in zip(a.players, b.players, strict=True):
        if n1 < m1 or n2 < m2 or p < q or (g and not f):
            return False
    return a.terms >= b.terms


def _pareto(outcomes: list[Outcome]) -> tuple[Outcome, ...]:
    """The outcomes not dominated by another (the first of equal ones kept)."""
    outcomes.sort(key=lambda o: o.terms, reverse=True)
    kept: list[Outcome] = []
    seen: set[tuple[Players, Vector]] = set()
    for o in outcomes:
        key = (o.players, o.terms)
        if key in seen:
            continue
        if any(_dominates(k, o) for k in kept):
            continue
        seen.add(key)
        kept.append(o)
    return tuple(kept)


class Evaluator:
    """Values declarations of one board for one objective; each part's profile (or
    group's plan) is worked out once."""

    def __init__(self, board: Board, terms: Sequence[str], *, constant_survivals: int = 0,
                 deadline: float | None = None) -> None:
        self.board = board
        self.terms = tuple(terms)
        self.rest = tuple(t for t in self.terms if t != "losses")
        self.deadline = deadline
        self.constant_survivals = constant_survivals
        """What the active player's creatures that do not attack add to ``survivals``
        (they survive: SPEC §11)."""
        self.opponents = tuple(p.id for p in board.combat.players
                               if p.id != board.combat.active_player)
        self.profiles: dict[tuple[object, ...], Profile | None] = {}
        self.status = "optimal"
        self._changes: dict[tuple[object, ...], list[tuple[Players, Vector, bool]]] = {}
        """What each amount of one source does to one recipient in a last step
        (:meth:`_last_step`), by what it depends on."""
        self.watch: Callable[[], None] | None = None
        """Called now and then while a profile is worked out (raises to stop)."""
        self._first = replace(board.combat, step="first_strike")
        self._order = {c.id: i for i, c in enumerate(board.combat.creatures)}
        self._blocking: dict[tuple[str, tuple[str, ...]], Creature] = {}
        """Each blocker as a declaration makes it, by what it blocks (built once)."""
        self._totals: dict[tuple[int, ...], Totals] = {}
        self._part_of: dict[tuple[object, ...], Combat] = {}
        self.direct_rows = True
        """Work out the last step's changes from the numbers in parts of the common shape
        (:meth:`_direct_row`; off, they are dealt on the game model's combats)."""
        """Each part's combat alone, by its key (as its profile was worked out on)."""

    # -- the combats a declaration makes -------------------------------------------------

    def _made(self, c: Creature, blocks: Mapping[str, Sequence[str]]) -> Creature:
        blocked = blocks.get(c.id)
        if not blocked:
            return c
        key = (c.id, tuple(blocked))
        found = self._blocking.get(key)
        if found is None:
            found = self._blocking[key] = replace(
                c, blocking=tuple(sorted(blocked, key=self._order.__getitem__)))
        return found

    def made(self, blocks: Mapping[str, Sequence[str]]) -> Combat:
        """The combat a block declaration makes: the board's ``made(blocks)``, each
        blocker's new state built once per evaluator."""
        return replace(self._first, creatures=tuple(self._made(c, blocks)
                                                    for c in self.board.combat.creatures))

    def part(self, blocks: Mapping[str, Sequence[str]], members: Iterable[str]) -> Combat:
        """``sub_combat(self.made(blocks), members)``, without making the whole combat."""
        mine = set(members)
        return _sub_combat(self._first, tuple(self._made(c, blocks)
                                              for c in self.board.combat.creatures
                                              if c.id in mine))

    def totals(self, players: Sequence[int]) -> Totals:
        """The dynamic program over these players' totals (its bounds depend only on the
        board: the creatures' power, toughness, lifelink and the players' life)."""
        key = tuple(players)
        found = self._totals.get(key)
        if found is None:
            found = self._totals[key] = Totals(self._first, self, key)
        return found

    # -- one part ------------------------------------------------------------------------

    def key(self, combat: Combat, members: Sequence[str]) -> tuple[object, ...]:
        """What a part's profile depends on: its creatures as they are in this combat
        (their blocks and attacks), for this objective."""
        mine = set(members)
        return tuple((c.id, c.attacking, c.blocking) for c in combat.creatures
                     if c.id in mine)

    def profile(self, combat: Combat, members: Sequence[str]) -> Profile | None:
        """The part's profile, or None when the defending players choose in it."""
        return self._keyed(self.key(combat, members), combat, members)

    def _keyed(self, key: tuple[object, ...], combat: Combat, members: Sequence[str]
               ) -> Profile | None:
        if key in self.profiles:
            return self.profiles[key]
        return self._profile(key, sub_combat(combat, members))

    def part_profile(self, part: Combat) -> Profile | None:
        """:meth:`profile` of a part given alone (:meth:`part`)."""
        key = tuple((c.id, c.attacking, c.blocking) for c in part.creatures)
        if key in self.profiles:
            return self.profiles[key]
        return self._profile(key, part)

    def _profile(self, key: tuple[object, ...], part: Combat) -> Profile | None:
        self._part_of[key] = part
        try:
            found: Profile | None = Profile(_pareto(self._outcomes(part)))
        except TwoPlayer:
            found = None
        self.profiles[key] = found
        return found

    def quick(self, combat: Combat, members: Sequence[str]) -> Outcome | None:
        """One play of a one-player part, found without a search: each step's greedy
        split (lethal damage in order, the rest past it), the defenders' forced reply.
        The attackers can always play it, so the part is worth at least this to them;
        None when the defending players choose in the part."""
        return self.part_quick(sub_combat(combat, members))

    def part_quick(self, part: Combat) -> Outcome | None:
        """:meth:`quick` of a part given alone (:meth:`part`)."""
        direct = direct_quick(part, self.opponents, self.rest)
        if direct is not None:
            return direct
        return self.dealt_quick(part)

    def dealt_quick(self, part: Combat) -> Outcome | None:
        """:meth:`part_quick` worked out by dealing each step on the game model's
        combats (any part)."""
        first_space = legal_space(part, "blockers")
        b1 = first_space.forced
        if b1 is None:
            return None
        a1 = greedy(legal_space(part, "attackers"))
        first = deal_step(part, {**a1, **b1})
        regular = first.after
        assert regular is not None
        b2 = legal_space(regular, "blockers").forced
        if b2 is None:
            return None
        a2 = greedy(legal_space(regular, "attackers"))
        second = deal_step(regular, {**a2, **b2}, last=True)
        return Outcome(self._players(part, first, second),
                       Scorer(part, self.rest).score(first, second), (a1, b1, a2, b2))

    def _outcomes(self, part: Combat) -> list[Outcome]:
        scorer = Scorer(part, self.rest)
        first_attacks = _listed(part, "attackers", MAX_PLAYS)
        first_replies = _listed(part, "blockers", 1)
        if first_replies is None or len(first_replies) > 1:
            raise TwoPlayer
        b1 = first_replies[0] if first_replies else {}
        found: list[Outcome] = []
        plays = 0
        seen: set[Combat] = set()
        if first_attacks is None:
            raise _too_large()
        for a1 in first_attacks:
            if self.watch is not None:
                self.watch()
            first = quiet_step(part, {**a1, **b1})
            regular = first.after
            assert regular is not None
            # Two first-strike splits that leave the same combat (and so did the same to
            # every creature, player, planeswalker and battle) have the same plays after.
            if regular in seen:
                continue
            seen.add(regular)
            replies = _listed(regular, "blockers", 1)
            if replies is None or len(replies) > 1:
                raise TwoPlayer
            b2 = replies[0] if replies else {}
            last = self._last_step(part, scorer, first, regular, b2, (a1, b1))
            if last is not None:
                found.extend(last)
                continue
            attacks = _listed(regular, "attackers", MAX_PLAYS - plays)
            if attacks is None:
                raise _too_large()
            plays += len(attacks)
            for k, a2 in enumerate(attacks):
                if self.watch is not None and k % CHECK_EVERY == CHECK_EVERY - 1:
                    self.watch()
                second = deal_step(regular, {**a2, **b2}, last=True)
                found.append(Outcome(self._players(part, first, second),
                                     scorer.score(first, second), (a1, b1, a2, b2)))
        return found

    def _last_step(self, part: Combat, scorer: Scorer, first: StepResult, regular: Combat,
                   b2: Amounts, before: tuple[Amounts, Amounts]) -> list[Outcome] | None:
        """The undominated outcomes of the last step when one attacking source alone has a
        choice there (every other split forced), without going through its splits: with
        one source choosing, what an amount does to one recipient (its death, a player's
        life, a planeswalker's loyalty) depends on that amount alone, so a split's outcome
        is the forced one plus each recipient's change, and a dynamic program over the
        source's recipients in order (its amount so far, which of the creatures and
        planeswalkers that gate a later recipient have reached their threshold, 702.19b-c)
        keeps the undominated sums. Each change is worked out by dealing the step
        (:func:`deal_step`); the gates are the legal space's. None when the step is not
        of that shape (several sources choosing, a source that may assign as though
        unblocked, a gate on something out of order), for the plain enumeration."""
        space = legal_space(regular, "attackers")
        if space.alternatives:
            return None
        choosing = [s for s in space.sources if len(s.recipients) > 1]
        if len(choosing) != 1:
            return None
        source = choosing[0]
        if source.power > MAX_LAST_STEP_POWER:
            return None
        forced: dict[tuple[str, str], int] = dict(b2)
        for s in space.sources:
            if s is source or not s.recipients:
                continue
            r = s.recipients[0]
            if r.requires_lethal or r.requires_loyalty is not None:
                return None
            if s.power > 0:
                forced[(s.id, r.id)] = s.power
        order = [r.id for r in source.recipients]
        position = {rid: i for i, rid in enumerate(order)}
        gates: list[tuple[int, ...]] = []
        for r in source.recipients:
            items = (*r.requires_lethal, *((r.requires_loyalty,) if r.requires_loyalty
                                           is not None else ()))
            if any(position.get(c, len(order)) >= position[r.id] for c in items):
                return None  # a gate on a later recipient, or on one of another source
            gates.append(tuple(position[c] for c in items))
        received_forced: dict[str, int] = {}
        # What the attacking side's own forced splits give each recipient: lethal and
        # loyalty are judged over the splits of the side that chooses (a split the
        # defending side chooses, 702.22j or an effect, does not open a gate).
        own_forced: dict[str, int] = {}
        for pair, amount in forced.items():
            target = pair[1]
            received_forced[target] = received_forced.get(target, 0) + amount
            if pair not in b2:
                own_forced[target] = own_forced.get(target, 0) + amount
        base_second = deal_step(regular, forced, last=True)
        base_players = self._players(part, first, base_second)
        base_terms = scorer.score(first, base_second)
        power = source.power
        # Per recipient and amount: the change it makes, and whether it meets its
        # threshold (lethal damage, 510.1e, 702.2c; loyalty, 702.19c).
        change: list[list[tuple[Players, Vector, bool]]] = []
        own = regular.creature(source.id)
        # In a part of the common shape, the choosing source is its attacker and nothing
        # else deals damage to its recipients.
        plain = plain_part(part, self.rest) is not None
        thresholds = tuple(t for t in regular.loss_thresholds if t.source == source.id)
        for r in source.recipients:
            # What an amount does to one recipient depends on the source, the recipient
            # and what the forced splits give it (the part's effects are the same for
            # every step and play): kept per search, so that the first-strike splits that
            # leave this pair as it was share it.
            key = (own, regular.get(r.id), received_forced.get(r.id, 0),
                   own_forced.get(r.id, 0), thresholds, r, space.thresholds.get(r.id),
                   (source.id, r.id) in space.deathtouch_pairs)
            row_known = self._changes.get(key)
            if row_known is not None:
                change.append(row_known)
                continue
            if plain and self.direct_rows:
                row_known = self._changes[key] = self._direct_row(
                    own, r.id, r.kind, space.thresholds.get(r.id), power,
                    (source.id, r.id) in space.deathtouch_pairs)
                change.append(row_known)
                continue
            row = []
            for x in range(power + 1):
                if x == 0:
                    second = base_second
                else:
                    second = deal_step(regular, {**forced, (source.id, r.id): x}, last=True)
                received = {r.id: own_forced.get(r.id, 0) + x}
                touched = {r.id} if x > 0 and (source.id, r.id) in space.deathtouch_pairs \
                    else set()
                if r.kind == "creature":
                    met = space.is_lethally_assigned(r.id, received, touched)
                elif r.kind == "planeswalker" and r.id in space.thresholds:
                    met = space.is_loyalty_assigned(r.id, received)
                else:
                    met = False
                row.append((_minus(self._players(part, first, second), base_players),
                            tuple(a - b for a, b in zip(scorer.score(first, second),
                                                        base_terms, strict=True)), met))
            self._changes[key] = row
            change.append(row)
        # The program: (amount so far, recipients met) -> undominated (players, terms,
        # amounts chosen).
        zero_players = tuple((0, 0, 0, False) for _ in base_players)
        states: dict[tuple[int, int], list[tuple[Players, Vector, tuple[int, ...]]]] = {
            (0, 0): [(zero_players, tuple(0 for _ in base_terms), ())]}
        for i in range(len(source.recipients)):
            nxt: dict[tuple[int, int], list[tuple[Players, Vector, tuple[int, ...]]]] = {}
            for (used, met_mask), partials in states.items():
                opened = all(met_mask >> g & 1 for g in gates[i])
                top = power - used if opened else 0
                for x in range(top + 1):
                    dp, dt, reaches = change[i][x]
                    at = (used + x, met_mask | (1 << i) if reaches else met_mask)
                    bucket = nxt.setdefault(at, [])
                    for pl, te, xs in partials:
                        bucket.append((_plus(pl, dp), tuple(map(add, te, dt)), (*xs, x)))
            states = {k: _undominated(v) for k, v in nxt.items()}
        a1, b1 = before
        out: list[Outcome] = []
        for (used, _), partials in states.items():
            if used != power:
                continue
            for pl, te, xs in partials:
                a2 = {(source.id, rid): x for rid, x in zip(order, xs, strict=True) if x}
                a2.update((pair, amount) for pair, amount in forced.items()
                          if pair not in b2)
                out.append(Outcome(_plus(base_players, pl),
                                   tuple(a + b for a, b in zip(base_terms, te, strict=True)),
                                   (a1, b1, a2, b2)))
        return out

    def _direct_row(self, source: Creature, recipient: str, kind: str, need: int | None,
                    power: int, deathtouch: bool) -> list[tuple[Players, Vector, bool]]:
        """A row of :meth:`_last_step`'s changes in a part of the common shape
        (:func:`~trample.solver.blocks.direct.plain_part`), from the numbers: ``x``
        damage to a blocker kills it (and meets its threshold) when it reaches its lethal
        damage ``need`` or is deathtouch damage, adding its value to ``deaths`` and
        ``trade``; to the player, it is ``x`` more life lost; with lifelink the active
        player gains ``x``."""
        lifelink = LIFELINK in source.keywords
        zero = tuple((0, 0, 0, False) for _ in self.opponents)
        value = self.board.combat.creature(recipient).value if kind == "creature" else 0
        row: list[tuple[Players, Vector, bool]] = []
        for x in range(power + 1):
            found = {"life_gain": x if lifelink else 0}
            players = zero
            met = False
            if kind == "creature":
                assert need is not None
                met = x > 0 and (deathtouch or x >= need)
                if met:
                    found["deaths"] = found["trade"] = value
            else:
                found["life_loss"] = x
                players = tuple((0, x, 0, False) if p == recipient else (0, 0, 0, False)
                                for p in self.opponents)
            row.append((players, tuple(found.get(t, 0) for t in self.rest), met))
        return row

    def _players(self, part: Combat, first: StepResult, second: StepResult) -> Players:
        out: list[tuple[int, int, int, bool]] = []
        for p in self.opponents:
            o1, o2 = first.outcome, second.outcome
            n1 = o1.life_loss.get(p, 0) - o1.life_gain.get(p, 0)
            n2 = n1 + o2.life_loss.get(p, 0) - o2.life_gain.get(p, 0)
            poison = o1.poison.get(p, 0) + o2.poison.get(p, 0)
            reached = any(t.player == p and t.already + o1.by_source.get((t.source, p), 0)
                          + o2.by_source.get((t.source, p), 0) >= t.threshold
                          for t in part.loss_thresholds)
            out.append((n1, n2, poison, reached))
        return tuple(out)

    # -- a whole declaration -------------------------------------------------------------

    def evaluate(self, combat: Combat) -> Evaluation:
        """The value of the combat a declaration makes, and one principal line."""
        groups = parts(combat)
        one: list[tuple[tuple[str, ...], Profile]] = []
        two: list[tuple[str, ...]] = []
        keys: list[tuple[object, ...]] = []
        for members in groups:
            key = self.key(combat, members)
            prof = self._keyed(key, combat, members)
            if prof is None:
                two.append(members)
            else:
                one.append((members, prof))
                keys.append(key)
        played: list[Played] = []
        owned: frozenset[str] = frozenset()
        if two:
            one, played, owned = self._play_groups(combat, one, two)
        dp_players = tuple(i for i, p in enumerate(self.opponents) if p not in owned)
        value, picks = combine(combat, self, [prof for _, prof in one], dp_players)
        total = list(value)
        for g in played:
            total = [x + y for x, y in zip(total, g.value, strict=True)]
        lines: list[Line] = [o.line for o in picks]
        lines.extend((g.found.first_strike, g.found.blockers_first_strike,
                      g.found.attackers_regular, g.found.blockers_regular) for g in played)
        merged: Line = ({}, {}, {}, {})
        for line in lines:
            for k in range(4):
                merged[k].update(line[k])
        if "survivals" in self.terms:
            total[self.terms.index("survivals")] += self.constant_survivals
        pieces = None if two else tuple((self._part_of[k], o)
                                        for k, o in zip(keys, picks, strict=True))
        return Evaluation(tuple(total), self.status, merged, combat, pieces)

    def _play_groups(self, combat: Combat, one: list[tuple[tuple[str, ...], Profile]],
                     two: list[tuple[str, ...]]
                     ) -> tuple[list[tuple[tuple[str, ...], Profile]], list[Played],
                                frozenset[str]]:
        """Join each part in which the defenders choose with every part that touches one
        of its players, and play each such group with ``plan``."""
        reach = {m: touched(combat, m) for m, _ in one}
        groups: list[tuple[set[str], set[str]]] = [(set(m), set(touched(combat, m)))
                                                   for m in two]
        changed = True
        while changed:
            changed = False
            for i in range(len(groups)):
                for j in range(i + 1, len(groups)):
                    if groups[i][1] & groups[j][1]:
                        groups[i][0].update(groups[j][0])
                        groups[i][1].update(groups[j][1])
                        del groups[j]
                        changed = True
                        break
                if changed:
                    break
            for members, prof in list(one):
                for g in groups:
                    if reach[members] & g[1]:
                        g[0].update(members)
                        g[1].update(reach[members])
                        one.remove((members, prof))
                        changed = True
                        break
        played = []
        owned: set[str] = set()
        for group, players in groups:
            part = sub_combat(combat, [c.id for c in combat.creatures if c.id in group],
                              frozenset(players))
            size = plan_size(part)
            if size > MAX_PLAN_SIZE:
                raise InputError("combat", f"too large to value exactly: a group in which "
                                 f"the defending players choose has {size:,} lines of play "
                                 f"(the limit is {MAX_PLAN_SIZE:,})")
            found = plan_combat(part, self.terms, self.deadline)
            if found.status != "optimal":
                self.status = "feasible"
            played.append(Played(tuple(found.objective[t] for t in self.terms), found))
            owned.update(players)
        return one, played, frozenset(owned)


State = tuple[tuple[int, int, int, bool], ...]
Table = dict[State, tuple[Vector, tuple[Outcome, ...]]]


class Totals:
    """The attackers' best over one-player parts, part by part: a dynamic program over
    the defending players' totals (at ``players``, indexes into the evaluator's
    opponents), each state keeping the best sum of the other terms and the outcomes
    that reach it. ``losses`` is judged on the totals (704, loss thresholds). A total
    is kept within what can still matter: past the player's life by more than all the
    life the defenders could gain, the player has lost whatever comes; short of it by
    more than all the damage the attackers could deal, the player survives whatever
    comes (:func:`reach`)."""

    def __init__(self, combat: Combat, ev: Evaluator, players: Sequence[int]) -> None:
        self.ev = ev
        self.players = tuple(players)
        self.lives = [next(p for p in combat.players if p.id == ev.opponents[i])
                      for i in players]
        gained, dealt = reach(combat, [ev.opponents[i] for i in players])
        self.bounds = [(life.life - 1 - most, life.life + gain, max(10 - life.poison, 0))
                       for life, gain, most in zip(self.lives, gained, dealt, strict=True)]
        # Where each player's totals make them lose (704, read from has_lost): the
        # least net life lost, and the least poison given, that do. Losing is monotone
        # in both, so a bisection finds them: the range of life lost spans the attackers'
        # power, which may be in the billions.
        self.losing = [_losing(life.life, life.poison, lo, hi, most)
                       for life, (lo, hi, most) in zip(self.lives, self.bounds, strict=True)]
        self.losses_at = ev.terms.index("losses") if "losses" in ev.terms else -1

    def start(self) -> Table:
        """Before any part."""
        return {tuple((0, 0, 0, False) for _ in self.players):
                (tuple(0 for _ in self.ev.rest), ())}

    def add(self, table: Table, profile: Profile, keep: bool = False) -> Table:
        """The table once one more part plays one of its outcomes (``keep``: remember
        which, for the line of play)."""
        nxt: Table = {}
        players, bounds = self.players, self.bounds
        if len(players) == 1:
            # The common table of one defending player, without the loop over players.
            i = players[0]
            lo, hi, most = bounds[0]
            outcomes = profile.outcomes
            for state, (terms, picks) in table.items():
                n1, n2, p, f = state[0]
                for o in outcomes:
                    m1, m2, q, g = o.players[i]
                    key: State = ((min(max(n1 + m1, lo), hi), min(max(n2 + m2, lo), hi),
                                   min(p + q, most), f or g),)
                    added = tuple(map(add, terms, o.terms))
                    held = nxt.get(key)
                    if held is None or added > held[0]:
                        nxt[key] = (added, (*picks, o) if keep else ())
            return nxt
        for state, (terms, picks) in table.items():
            for o in profile.outcomes:
                new = []
                for k, i in enumerate(players):
                    n1, n2, p, f = state[k]
                    m1, m2, q, g = o.players[i]
                    lo, hi, most = bounds[k]
                    n1 = min(max(n1 + m1, lo), hi)
                    n2 = min(max(n2 + m2, lo), hi)
                    new.append((n1, n2, min(p + q, most), f or g))
                key = tuple(new)
                added = tuple(x + y for x, y in zip(terms, o.terms, strict=True))
                held = nxt.get(key)
                if held is None or added > held[0]:
                    nxt[key] = (added, (*picks, o) if keep else ())
        return nxt

    def alone(self, outcome: Outcome) -> Vector:
        """The value of one part's play alone: ``best(add(start(), Profile((outcome,))))``
        without the tables."""
        state = tuple((min(max(m1, lo), hi), min(max(m2, lo), hi), min(q, most), g)
                      for (m1, m2, q, g), (lo, hi, most)
                      in zip((outcome.players[i] for i in self.players), self.bounds,
                             strict=True))
        return self._value(state, outcome.terms, None)

    def _value(self, state: State, terms: Vector, offset: Outcome | None) -> Vector:
        if len(self.losing) == 1:
            # One defending player, without the loop.
            at_life, at_poison = self.losing[0]
            n1, n2, p, f = state[0]
            if offset is not None:
                m1, m2, q, g = offset.players[self.players[0]]
                n1, n2, p, f = n1 + m1, n2 + m2, p + q, f or g
                terms = tuple(map(add, terms, offset.terms))
            lost = 1 if f or n1 >= at_life or n2 >= at_life or p >= at_poison else 0
            at = self.losses_at
            return terms if at < 0 else (*terms[:at], lost, *terms[at:])
        losses = 0
        for k, (at_life, at_poison) in enumerate(self.losing):
            n1, n2, p, f = state[k]
            if offset is not None:
                m1, m2, q, g = offset.players[self.players[k]]
                n1, n2, p, f = n1 + m1, n2 + m2, p + q, f or g
            if f or n1 >= at_life or n2 >= at_life or p >= at_poison:
                losses += 1
        if offset is not None:
            terms = tuple(x + y for x, y in zip(terms, offset.terms, strict=True))
        at = self.losses_at
        return terms if at < 0 else (*terms[:at], losses, *terms[at:])

    def best(self, table: Table, offset: Outcome | None = None
             ) -> tuple[Vector, tuple[Outcome, ...]]:
        """The attackers' best value over the table (each state moved by ``offset``)."""
        found: tuple[Vector, tuple[Outcome, ...]] | None = None
        for state, (terms, picks) in table.items():
            value = self._value(state, terms, offset)
            if found is None or value > found[0]:
                found = (value, picks)
        assert found is not None
        return found

    def against(self, table: Table, offset: Outcome | None, bound: Vector) -> int:
        """How the attackers' best over the table compares with ``bound``: 1 above it
        (found at the first state that is), 0 equal, -1 below."""
        verdict = -1
        for state, (terms, _) in table.items():
            value = self._value(state, terms, offset)
            if value > bound:
                return 1
            if value == bound:
                verdict = 0
        return verdict


def _losing(life: int, poison: int, lo: int, hi: int, most: int) -> tuple[int, int]:
    """The least net life lost in ``lo..hi`` with which a player at ``life`` and
    ``poison`` loses (by :func:`has_lost`; ``hi + 1``: none), and the least poison given
    in ``0..most`` with which they lose having lost ``lo`` (``most + 1``: none)."""
    return (_least(lo, hi, lambda n: has_lost(life - n, poison)),
            _least(0, most, lambda q: has_lost(life - lo, poison + q)))


def _least(lo: int, hi: int, holds: Callable[[int], bool]) -> int:
    """The least ``n`` in ``lo..hi`` for which ``holds(n)``, ``holds`` being false up to
    some point and true from there on; ``hi + 1`` when it holds nowhere."""
    if hi < lo:
        return hi + 1
    return lo + bisect_left(range(lo, hi + 1), True, key=holds)


def most_factor(combat: Combat, source: str) -> int:
    """The most a source's damage can be multiplied by (every multiplier that may match
    it, whatever the target)."""
    factor = 1
    for m in combat.multipliers:
        if m.source in (source, "*") and m.factor > 1:
            factor *= m.factor
    return factor


def most_dealt(combat: Combat, c: Creature) -> int:
    """The most combat damage a creature deals in both steps: what it assigns (510.1a), in
    one step or, with double strike, two (510.4), multiplied at most so much (damage
    counters and -1/-1 counters between the steps only lower it)."""
    steps = 2 if c.has(DOUBLE_STRIKE) else 1
    return steps * max(c.amount, 0) * most_factor(combat, c.id)


def reach(combat: Combat, players: Sequence[str]) -> tuple[list[int], list[int]]:
    """For each of ``players``: at most how much life the defenders' lifelink could gain
    them, and at most how much damage the attackers could deal them, in both steps."""
    def most(c: Creature) -> int:
        return 2 * max(c.power, c.toughness, 0) * most_factor(combat, c.id)

    attacking = sum(most(c) for c in combat.creatures if c.controller == combat.active_player)
    gained = [sum(most(c) for c in combat.creatures
                  if c.controller == p and c.has("lifelink")) for p in players]
    return gained, [attacking] * len(players)


def combine(combat: Combat, ev: Evaluator, profiles: Sequence[Profile],
            players: Sequence[int]) -> tuple[Vector, tuple[Outcome, ...]]:
    """The attackers' best over the one-player parts, with the outcome each plays."""
    totals = ev.totals(players)
    table = totals.start()
    for prof in profiles:
        table = totals.add(table, prof, keep=True)
    return totals.best(table)


def non_attacking_value(board: Board, attacks: Mapping[str, str] | None = None) -> int:
    """The ``value`` of the active player's creatures that do not attack (they survive)."""
    combat = board.combat
    return sum(c.value for c in combat.creatures if c.controller == combat.active_player
               and not ((attacks is not None and c.id in attacks)
                        or (attacks is None and c.is_attacking)))
