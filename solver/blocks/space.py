"""The legal block declarations of a board, counted, listed and offered one blocker at a
time, exactly (SPEC §11: ``count_blocks``, ``enumerate_blocks``, ``block_options``), and
the 509.1c maximum they rest on.

A declaration is a choice per blocker (a set of attackers, in :attr:`BlockRules.pairs`
order: blockers in document order), so the declarations are the paths of a layered
program, one layer per blocker. Its *state* after some blockers is what the rules still
need to judge the rest: for each attacker that has a least or most number of blockers
or must be blocked, how many blockers it has so far (capped where more makes no
difference), and how many requirements the choices so far obey. An attacker's count is
judged and folded into the requirements once its last possible blocker is passed, so
the states stay few on boards of many creatures. The program keeps, per layer, how many
choices before lead to each state (forward) and how many after complete it (backward):
the count is the second at the first layer; one blocker's options are the products of
the two around its layer; enumeration walks the layers in declaration order along states
that have a completion, so it never backtracks.

Beyond :data:`MAX_STATES` states in one layer, or :data:`MAX_CHOICES` choices for one
blocker, a board is refused with its size, never estimated.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from itertools import combinations
from math import comb

from trample.models.document.combat import brief_repr
from trample.models.document.errors import InputError
from trample.models.document.reading import check_id, check_list, check_object
from trample.models.document.rule_index import Rule
from trample.models.game.declarations import BlockRules, Violation

MAX_STATES = 500_000
"""The most states one layer of the program may hold."""
MAX_CHOICES = 1 << 16
"""The most sets of attackers one blocker may choose from."""

State = tuple[tuple[int, ...], int]
"""(per tracked attacker, its blockers so far; requirements obeyed so far)."""
Choice = tuple[str, ...]


def choices(rules: BlockRules, blocker: str) -> list[Choice]:
    """The sets of attackers ``blocker`` may block (509.1a-b: possible pairs, at most its
    limit), ascending by its part of the declaration vector (its first pair the most
    significant)."""
    mine = rules.choices_of.get(blocker, ())
    k = len(mine)
    most = min(rules.limit.get(blocker, 1), k)
    size = sum(comb(k, s) for s in range(most + 1))
    if size > MAX_CHOICES:
        raise InputError("combat", f"too large to count exactly: {blocker!r} may block "
                         f"{size:,} sets of attackers (the limit is {MAX_CHOICES:,})")
    found = [c for s in range(most + 1) for c in combinations(range(k), s)]
    found.sort(key=lambda c: sum(1 << (k - 1 - j) for j in c))
    return [tuple(mine[j] for j in c) for c in found]


def parse_fixed(rules: BlockRules, raw: object, path: str = "fixed"
                ) -> dict[str, tuple[str, ...]]:
    """``{blocker: [attackers...]}`` as blocker -> attackers in document order; unknown
    ids and an attacker listed twice are input errors (a set that no legal declaration
    has is not: its count is 0)."""
    combat = rules.board.combat
    order = {c.id: i for i, c in enumerate(combat.creatures)}
    table = check_object(raw, path)
    fixed: dict[str, tuple[str, ...]] = {}
    for blocker, attackers in table.items():
        here = f"{path}.{blocker}"
        check_id(blocker, here)
        if blocker not in combat or combat.kind(blocker) != "creature":
            raise InputError(here, f"{brief_repr(blocker)} is not a creature of the board")
        listed: list[str] = []
        for j, a in enumerate(check_list(attackers, here)):
            check_id(a, f"{here}[{j}]")
            if a not in combat or combat.kind(a) != "creature":
                raise InputError(f"{here}[{j}]", f"{brief_repr(a)} is not a creature of the "
                                 "board")
            if a in listed:
                raise InputError(f"{here}[{j}]", f"{a!r} is listed twice")
            listed.append(a)
        fixed[blocker] = tuple(sorted(listed, key=order.__getitem__))
    return fixed


class Program:
    """The layered program of a board's legal declarations that agree with ``fixed``
    (``target``: the number of requirements a legal declaration obeys; None: count the
    restriction-legal ones whatever they obey)."""

    def __init__(self, rules: BlockRules, fixed: Mapping[str, Sequence[str]] | None = None,
                 target: int | None = None) -> None:
        self.rules = rules
        fixed = fixed or {}
        self.possible = all(not attackers for b, attackers in fixed.items()
                            if b not in rules.choices_of)
        self.layers = rules.blockers
        self.options: list[list[Choice]] = []
        for b in self.layers:
            mine = choices(rules, b)
            if b in fixed:
                wanted = tuple(fixed[b])
                mine = [c for c in mine if c == wanted]
            self.options.append(mine)
        tracked = [a for a in rules.attackers
                   if rules.least.get(a, 1) > 1 or rules.most.get(a) is not None
                   or any(r.kind == "must_be_blocked" and r.creature == a
                          for r in rules.requirements)]
        self.tracked = tracked
        slot = {a: i for i, a in enumerate(tracked)}
        self.cap = tuple(_cap(rules, a) for a in tracked)
        must_be_blocked = {r.creature for r in rules.requirements
                           if r.kind == "must_be_blocked"}
        self.must_be_blocked = tuple(a in must_be_blocked for a in tracked)
        # Where each tracked attacker's count is judged: after its last possible blocker
        # (before the first layer when it has none).
        last = {a: -1 for a in tracked}
        for i, b in enumerate(self.layers):
            for a in rules.choices_of[b]:
                if a in slot:
                    last[a] = i
        self.closing: list[list[int]] = [[] for _ in range(len(self.layers) + 1)]
        for a, i in last.items():
            self.closing[i + 1].append(slot[a])
        local: dict[tuple[str, str | None], int] = {}
        for r in rules.requirements:
            if r.kind == "must_block":
                local[(r.creature, None)] = local.get((r.creature, None), 0) + 1
            elif r.kind == "lure":
                local[(r.creature, r.attacker)] = local.get((r.creature, r.attacker), 0) + 1
        # Per layer and choice: the tracked slots it adds a blocker to, and the
        # requirements it obeys.
        self.effects: list[list[tuple[tuple[int, ...], int]]] = []
        for b, mine in zip(self.layers, self.options, strict=True):
            row = []
            for c in mine:
                obeyed = local.get((b, None), 0) if c else 0
                obeyed += sum(local.get((b, a), 0) for a in c)
                row.append((tuple(slot[a] for a in c if a in slot), obeyed))
            self.effects.append(row)
        self.target = target
        self.start: State = self._close((tuple(0 for _ in tracked), 0), 0)  # type: ignore[assignment]
        self.forward: list[dict[State, int]] = []
        self.backward: list[dict[State, int]] = []
        self._built = False

    def _close(self, state: State, layer: int) -> State | None:
        """``state`` with the attackers judged at ``layer`` judged: None when one has a
        number of blockers it can't have (509.1b)."""
        counts, obeyed = state
        if not self.closing[layer]:
            return state
        as_list = list(counts)
        for s in self.closing[layer]:
            n = as_list[s]
            if 0 < n < self.rules.least.get(self.tracked[s], 1):
                return None
            if n and self.must_be_blocked[s]:
                obeyed += 1
            as_list[s] = 0
        return tuple(as_list), obeyed

    def _step(self, state: State, layer: int, choice: int) -> State | None:
        counts, obeyed = state
        slots, gained = self.effects[layer][choice]
        if slots:
            as_list = list(counts)
            for s in slots:
                as_list[s] += 1
                if as_list[s] > self.cap[s]:
                    most = self.rules.most.get(self.tracked[s])
                    if most is not None:
                        return None  # more blockers than it may have
                    as_list[s] = self.cap[s]
            counts = tuple(as_list)
        return self._close((counts, obeyed + gained), layer + 1)

    def _final(self, state: State) -> bool:
        return self.target is None or state[1] == self.target

    def build(self) -> Program:
        """Work out both tables (once)."""
        if self._built:
            return self
        self._built = True
        layers = len(self.layers)
        forward: list[dict[State, int]] = [{} for _ in range(layers + 1)]
        if self.possible and self.start is not None:
            forward[0][self.start] = 1
        for i in range(layers):
            here, nxt = forward[i], forward[i + 1]
            for state, ways in here.items():
                for j in range(len(self.options[i])):
                    after = self._step(state, i, j)
                    if after is not None:
                        nxt[after] = nxt.get(after, 0) + ways
            if len(nxt) > MAX_STATES:
                raise InputError("combat", f"too large to count exactly: more than "
                                 f"{MAX_STATES:,} states after {i + 1} of {layers} "
                                 f"blockers ({len(self.rules.pairs):,} possible pairs, "
                                 f"{len(self.tracked)} attackers with limits or "
                                 f"requirements)")
        backward: list[dict[State, int]] = [{} for _ in range(layers + 1)]
        backward[layers] = {s: 1 for s in forward[layers] if self._final(s)}
        for i in range(layers - 1, -1, -1):
            later, here = backward[i + 1], backward[i]
            for state in forward[i]:
                total = 0
                for j in range(len(self.options[i])):
                    after = self._step(state, i, j)
                    if after is not None:
                        total += later.get(after, 0)
                if total:
                    here[state] = total
        self.forward, self.backward = forward, backward
        return self

    def count(self) -> int:
        """The number of declarations."""
        self.build()
        return self.backward[0].get(self.start, 0) if self.start is not None else 0

    def finals(self) -> set[int]:
        """The numbers of requirements the restriction-legal declarations obey."""
        self.build()
        return {obeyed for _, obeyed in self.forward[len(self.layers)]}

    def options_of(self, blocker: str) -> list[tuple[Choice, int]]:
        """Each choice of ``blocker`` with a completion, and how many it has."""
        self.build()
        if blocker not in self.layers:
            total = self.count()
            return [((), total)] if total else []
        i = self.layers.index(blocker)
        out = []
        for j, choice in enumerate(self.options[i]):
            total = 0
            for state, ways in self.forward[i].items():
                after = self._step(state, i, j)
                if after is not None:
                    total += ways * self.backward[i + 1].get(after, 0)
            if total:
                out.append((choice, total))
        return out

    def walk(self) -> Iterator[dict[str, Choice]]:
        """Every declaration, in declaration order (blocker -> its attackers, blockers
        that block nothing left out)."""
        self.build()
        if self.start is None or self.start not in self.backward[0]:
            return
        layers = len(self.layers)
        picked: list[int] = [0] * layers
        states: list[State] = [self.start]
        stack: list[int] = [0]  # the next choice to try at each depth
        while stack:
            depth = len(stack) - 1
            if depth == layers:
                yield {b: self.options[i][picked[i]] for i, b in enumerate(self.layers)
                       if self.options[i][picked[i]]}
                stack.pop()
                states.pop()
                continue
            j = stack[-1]
            if j >= len(self.options[depth]):
                stack.pop()
                states.pop()
                continue
            stack[-1] = j + 1
            after = self._step(states[-1], depth, j)
            if after is not None and after in self.backward[depth + 1]:
                picked[depth] = j
                states.append(after)
                stack.append(0)


def _cap(rules: BlockRules, attacker: str) -> int:
    """Where an attacker's count of blockers stops mattering: past its most (refused), or
    at its least when it has no most (more are the same)."""
    most = rules.most.get(attacker)
    return most if most is not None else rules.least.get(attacker, 1)


def most_obeyed(rules: BlockRules) -> int:
    """509.1c: the most requirements a restriction-legal declaration obeys (the empty
    declaration always obeys the restrictions), worked out once per rules."""
    if not rules.requirements:
        return 0
    if not rules.most_obeyed_found:
        found = Program(rules).finals()
        rules.most_obeyed_found.append(max(found) if found else 0)
    return rules.most_obeyed_found[0]


def violations(rules: BlockRules, blocks: Mapping[str, Sequence[str]]) -> list[Violation]:
    """Every way a declaration breaks 509.1a-c (empty: legal)."""
    found = rules.restriction_violations(blocks)
    if found or not rules.requirements:
        return found
    obeyed = rules.obeyed(blocks)
    best = most_obeyed(rules)
    if obeyed < best:
        found.append(Violation(Rule.R509_1C, None, None, f"it obeys {obeyed} of the "
                               f"requirements; a legal declaration obeys {best} (the most "
                               "any declaration can)"))
    return found


def program(rules: BlockRules, fixed: Mapping[str, Sequence[str]] | None = None) -> Program:
    """The program of the legal declarations (509.1a-c) that agree with ``fixed``."""
    return Program(rules, fixed, most_obeyed(rules) if rules.requirements else None)
