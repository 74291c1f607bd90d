"""Every Comprehensive Rules number trample cites, and where each one is implemented.

:class:`Rule` is the one spelling of a rule number in code: the ``rule`` of a violation
and of a source or recipient of the legal space is a member (a ``str``, so JSON output is
the plain number). Each member has a one-line :attr:`Rule.summary` and :attr:`Rule.where`,
the qualified names of the functions and classes that implement it, so that a reader who
meets "702.19c" in an answer finds its code: ``Rule("702.19c").where``, or
``Rule.of("704.5g")`` for the nearest cited parent of a number. It lives in ``models``
(which imports nothing from ``solver``) so that both packages can use it; ``where``
holds names, not objects, for the same reason. The table of rules in docs/rules.md is
:func:`markdown_table`.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from enum import StrEnum


class Rule(StrEnum):
    """A rule number of the Comprehensive Rules (September 2025) that trample implements."""

    R302_6 = "302.6"
    R500_2 = "500.2"
    R506_4 = "506.4"
    R506_4C = "506.4c"
    R508_1 = "508.1"
    R508_1A = "508.1a"
    R508_1B = "508.1b"
    R508_1D = "508.1d"
    R509_1A = "509.1a"
    R509_1B = "509.1b"
    R509_1C = "509.1c"
    R510_1 = "510.1"
    R510_1A = "510.1a"
    R510_1B = "510.1b"
    R510_1C = "510.1c"
    R510_1D = "510.1d"
    R510_1E = "510.1e"
    R510_2 = "510.2"
    R510_4 = "510.4"
    R702_2C = "702.2c"
    R702_3B = "702.3b"
    R702_9B = "702.9b"
    R702_17B = "702.17b"
    R702_19A = "702.19a"
    R702_19B = "702.19b"
    R702_19C = "702.19c"
    R702_19D = "702.19d"
    R702_19E = "702.19e"
    R702_19F = "702.19f"
    R702_22J = "702.22j"
    R702_22K = "702.22k"
    R702_28B = "702.28b"
    R702_31B = "702.31b"
    R702_111B = "702.111b"
    R704 = "704"
    R714_3A = "714.3a"
    R714_3B = "714.3b"

    @property
    def summary(self) -> str:
        """What trample does for this rule, in one line."""
        return SUMMARY[self]

    @property
    def where(self) -> tuple[str, ...]:
        """Qualified names of the code that implements it, most specific first."""
        return WHERE[self]

    @classmethod
    def of(cls, number: str) -> Rule | None:
        """The member for ``number`` or, failing that, for its nearest parent that trample
        cites (``"704.5g"`` -> 704; ``"510.1"`` -> 510.1); ``None`` if there is none."""
        text = number.strip()
        while text:
            if text in cls._value2member_map_:
                return cls(text)
            # Drop a trailing subrule letter, then a trailing ".N".
            shorter = re.sub(r"(?<=\d)[a-z]$|\.\d+$", "", text)
            if shorter == text:
                return None
            text = shorter
        return None


_RULES = "trample.solver.rules.legal_space"
_BLOCKS = "trample.models.game.declarations"

SUMMARY: Mapping[Rule, str] = {
    Rule.R302_6: "a summoning-sick creature can't attack unless it has haste "
                 "(`summoning_sick`)",
    Rule.R500_2: "a step ends only once the stack is empty: no combat damage is dealt while "
                 "an ability waits on the stack (the game model refuses, at `state.stack`)",
    Rule.R506_4: "a planeswalker or battle removed from combat is no longer attacked; "
                 "`planeswalker_kills` and `battle_kills` count only those in combat",
    Rule.R506_4C: "an attacker whose planeswalker or battle was removed from combat "
                  "(`in_combat: false`) assigns nothing, unless 702.19e applies",
    Rule.R508_1: "declaring attackers: who may attack what, and what must attack "
                 "(`best_attack` and the game model's `declare_combat`)",
    Rule.R508_1A: "only the active player's untapped creatures that can attack attack "
                  "(`tapped`, `can_attack`)",
    Rule.R508_1B: "an attacker attacks an opponent, or a planeswalker an opponent controls, "
                  "or a battle an opponent protects",
    Rule.R508_1D: "a creature that must attack attacks if able (`must_attack`)",
    Rule.R509_1A: "a blocker blocks creatures attacking its controller or what they control "
                  "or protect (checked on input); on a board, the possible pairs: untapped, "
                  "able to block, the evasion abilities and `cannot_block`",
    Rule.R509_1B: "restrictions: how many attackers a creature blocks (`blocks_max`), the "
                  "fewest and most blockers of an attacker (`min_blockers`, menace, "
                  "`max_blockers`)",
    Rule.R509_1C: "requirements: a legal declaration obeys as many of them as any "
                  "declaration that obeys the restrictions (the maximum computed exactly)",
    Rule.R510_1: "for side `attackers` only attacking creatures assign, for `blockers` only "
                 "blocking ones",
    Rule.R510_1A: "a creature assigns damage equal to its power (its toughness with "
                  "`assigns: toughness`, none with `assigns: none`), all of it; 0 or less "
                  "assigns nothing",
    Rule.R510_1B: "an unblocked attacker assigns all its damage to what it attacks",
    Rule.R510_1C: "a blocked attacker divides its damage among its blockers as its "
                  "controller chooses, lethal or not; blocked with no blockers left, it "
                  "assigns nothing",
    Rule.R510_1D: "a blocker divides its damage among the attackers it blocks",
    Rule.R510_1E: "lethal damage counts damage already marked and damage from every other "
                  "source this step, not prevention or protection",
    Rule.R510_2: "all combat damage of a step is dealt at once, then triggers and "
                 "state-based actions",
    Rule.R510_4: "the first-strike step: first and double strike; the regular step: double "
                 "strike or no first strike",
    Rule.R702_2C: "with deathtouch, 1 damage is lethal",
    Rule.R702_3B: "a creature with defender can't attack",
    Rule.R702_9B: "a creature with flying can be blocked only by creatures with flying or "
                  "reach",
    Rule.R702_17B: "reach lets a creature block creatures with flying",
    Rule.R702_19A: "trample does nothing for a blocking creature",
    Rule.R702_19B: "a trampler may assign to what it attacks only once all its blockers are "
                   "lethally assigned",
    Rule.R702_19C: "trample over planeswalkers: past the blockers and the planeswalker's "
                   "loyalty, to its controller",
    Rule.R702_19D: "a blocked trampler whose blockers are all gone assigns all to what it "
                   "attacks",
    Rule.R702_19E: "trample over planeswalkers, planeswalker removed from combat: to its "
                   "controller",
    Rule.R702_19F: "without trample over planeswalkers, nothing to the player when "
                   "attacking a planeswalker",
    Rule.R702_22J: "an attacking creature blocked by a creature with banding (or by a Q "
                   "creature with `bands with other Q` and another Q creature) has its "
                   "damage assigned by the defending player: it belongs to side `blockers`",
    Rule.R702_22K: "a blocking creature that blocks a creature with banding (or a Q "
                   "creature with `bands with other Q` and another Q creature) has its "
                   "damage assigned by the active player: it belongs to side `attackers`",
    Rule.R702_28B: "a creature with shadow blocks and is blocked only by creatures with "
                   "shadow",
    Rule.R702_31B: "a creature with horsemanship can be blocked only by creatures with "
                   "horsemanship",
    Rule.R702_111B: "a creature with menace can't be blocked except by two or more creatures",
    Rule.R704: "state-based actions after damage: lethal and deathtouch damage destroy, "
               "a player at 0 life loses, and the rest of 704.5",
    Rule.R714_3A: "a Saga enters with a lore counter",
    Rule.R714_3B: "a lore counter on each Saga as the precombat main phase begins",
}

WHERE: Mapping[Rule, tuple[str, ...]] = {
    Rule.R302_6: (f"{_BLOCKS}.why_not_attack",),
    Rule.R500_2: ("trample.models.game.combat_steps.check_stack_empty",),
    Rule.R506_4: ("trample.solver.optimize.objectives.walker_targets",
                  "trample.solver.optimize.objectives.battle_targets"),
    Rule.R506_4C: (f"{_RULES}._attacker_rows", "trample.models.document.combat.Combat.is_live"),
    Rule.R508_1: (f"{_BLOCKS}.attack_rules",
                  "trample.models.game.combat_steps.judge_declaration"),
    Rule.R508_1A: (f"{_BLOCKS}.why_not_attack", f"{_BLOCKS}.AttackRules.violations"),
    Rule.R508_1B: (f"{_BLOCKS}.attack_rules", f"{_BLOCKS}.AttackRules.violations"),
    Rule.R508_1D: (f"{_BLOCKS}.AttackRules.violations",),
    Rule.R509_1A: ("trample.models.document.combat._parse_combat", f"{_BLOCKS}.why_not"),
    Rule.R509_1B: (f"{_BLOCKS}.BlockRules.restriction_violations",),
    Rule.R509_1C: (
                   "trample.solver.blocks.space.most_obeyed",
                   "trample.solver.blocks.space.violations"),
    Rule.R510_1: (f"{_RULES}.legal_space",),
    Rule.R510_1A: (f"{_RULES}.legal_space", f"{_RULES}.LegalSpace.columns",
                   "trample.solver.rules.validate.violations"),
    Rule.R510_1B: (f"{_RULES}._attacker_rows",),
    Rule.R510_1C: (f"{_RULES}._attacker_rows",),
    Rule.R510_1D: (f"{_RULES}.legal_space",),
    Rule.R510_1E: (f"{_RULES}.LegalSpace.thresholds", f"{_RULES}.LegalSpace.unmet"),
    Rule.R510_2: ("trample.models.game.combat_steps.deal_combat_damage",),
    Rule.R510_4: (f"{_RULES}.assigns_in_step",),
    Rule.R702_2C: (f"{_RULES}.LegalSpace.deathtouch_pairs", f"{_RULES}.LegalSpace.still_needed",
                   f"{_RULES}.LegalSpace.unmet"),
    Rule.R702_3B: (f"{_BLOCKS}.why_not_attack",),
    Rule.R702_9B: (f"{_BLOCKS}.why_not",),
    Rule.R702_17B: (f"{_BLOCKS}.why_not",),
    Rule.R702_19A: (f"{_RULES}.legal_space",),
    Rule.R702_19B: (f"{_RULES}._attacker_rows", f"{_RULES}.LegalSpace.conditions",
                    f"{_RULES}.LegalSpace.unmet"),
    Rule.R702_19C: (f"{_RULES}._attacker_rows", f"{_RULES}.LegalSpace.conditions",
                    f"{_RULES}.LegalSpace.unmet"),
    Rule.R702_19D: (f"{_RULES}._attacker_rows",),
    Rule.R702_19E: (f"{_RULES}._attacker_rows",),
    Rule.R702_19F: (f"{_RULES}._attacker_recipients", f"{_RULES}.Source.rule_against"),
    Rule.R702_22J: ("trample.solver.rules.choosers.moved_choices", f"{_RULES}.legal_space"),
    Rule.R702_22K: ("trample.solver.rules.choosers.moved_choices", f"{_RULES}.legal_space"),
    Rule.R702_28B: (f"{_BLOCKS}.why_not",),
    Rule.R702_31B: (f"{_BLOCKS}.why_not",),
    Rule.R702_111B: (f"{_BLOCKS}.block_rules",),
    Rule.R704: ("trample.models.game.damage.check_state_based_actions",),
    Rule.R714_3A: ("trample.models.game.state._enter",),
    Rule.R714_3B: ("trample.models.game.sagas.begin_precombat_main",),
}


def markdown_table() -> str:
    """The table of rules of docs/rules.md: number, what trample does, where (one row a member)."""
    lines = ["| rule | what trample does | where |", "| --- | --- | --- |"]
    for rule in Rule:
        where = ", ".join(f"`{name.removeprefix('trample.')}`" for name in rule.where)
        lines.append(f"| {rule.value} | {rule.summary} | {where} |")
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    print(markdown_table(), end="")
