"""``trample demo --game``: a scripted game from the seed cards, printed as a readable log.

Both Sagas advance chapter by chapter (the mass destroy, the graveyard exile, the mill and
the Spirit, the +1/+1 counter), both return transformed, Vessel and Orochi attack into
blockers and a planeswalker, the solver picks every combat damage split, damage is dealt,
state-based actions run, and Vessel's ten-damage clause ends the game.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace

from trample.models.document.assignment import Assignment, Pair
from trample.models.document.combat import Combat
from trample.models.game.cards import get_card
from trample.models.game.combat_steps import (
    combat_damage_step,
    combat_of,
    declare_combat,
    end_combat,
    game_over,
    has_first_strike_step,
)
from trample.models.game.events import (
    AbilityTriggered,
    CounterAdded,
    CounterRemoved,
    DamageDealt,
    Event,
    KeywordGranted,
    LifeGained,
    LifeLost,
    Milled,
    PlayerLost,
    TokenCreated,
    Transformed,
    ZoneChange,
)
from trample.models.game.sagas import begin_precombat_main
from trample.models.game.seeds import (
    HIDETSUGU,
    OROCHI,
    TEACHINGS,
    VESSEL,
    orochi_attack_trigger,
    resolve_chapter,
)
from trample.models.game.state import (
    GameState,
    Transition,
    add_card,
    begin_turn,
    cleanup,
    enter_card,
    grant_keyword,
    new_game,
)
from trample.solver.actions.plan import guarantee, plan_combat
from trample.solver.interface.game_loop import judge
from trample.solver.optimize.objectives import evaluate, parse_objective
from trample.solver.optimize.solve import optimize
from trample.solver.rules.assignment import to_assignment
from trample.solver.rules.choosers import SIDES
from trample.solver.rules.legal_space import legal_space
from trample.solver.rules.validate import check_answer

YOU, OPPONENT = "you", "opponent"


class Log:
    """The game so far, and its story in lines of text."""

    def __init__(self, state: GameState) -> None:
        self.state = state
        self.lines: list[str] = []
        self.names: dict[str, str] = {}

    def name(self, oid: str) -> str:
        perm = self.state.find_permanent(oid)
        if perm is not None:
            self.names[oid] = perm.name
            return perm.name
        found = self.state.find_card(oid)
        if found is not None:
            return found[2].card.front.name
        return self.names.get(oid, oid)

    def say(self, text: str, indent: int = 1) -> None:
        self.lines.append("  " * indent + text)

    def step(self, transition: Transition, indent: int = 2) -> None:
        """Take a transition's new state and tell its events."""
        before = self.state
        self.state, events = transition
        for event in events:
            text = self.describe(event, before)
            if text:
                self.say(text, indent)

    def remember(self) -> None:
        for perm in self.state.battlefield:
            self.names[perm.id] = perm.name

    def pt(self, oid: str) -> str:
        perm = self.state.find_permanent(oid)
        if perm is None or not perm.is_creature:
            return ""
        return f" ({perm.power}/{perm.toughness})"

    def describe(self, event: Event, before: GameState) -> str:
        self.remember()
        if isinstance(event, ZoneChange):
            why = f" ({event.cause})" if event.cause else ""
            if event.to_zone == "battlefield":
                face = self.name(event.new_object) if event.new_object else event.card
                how = " transformed" if event.transformed else ""
                return f"{event.card} returns to the battlefield{how} as {face}, a new " \
                       f"object{why}"
            name = self.names.get(event.object, event.card.split(" // ")[0])
            if event.to_zone not in ("library", "hand", "graveyard", "exile"):
                return f"{name} ceases to exist{why}"
            return f"{name} goes from {event.from_zone} to {event.to_zone}{why}"
        if isinstance(event, Milled):
            cards = ", ".join(self.name(c) for c in event.cards) or "nothing"
            return f"{event.player} {_verb(event.player, 'mill')} {len(event.cards)}: {cards}"
        if isinstance(event, TokenCreated):
            return f"{event.controller} {_verb(event.controller, 'create')} a {event.card} " \
                   f"token{self.pt(event.object)}"
        if isinstance(event, CounterAdded):
            what = f"{event.amount} {event.kind} counter" + ("s" if event.amount > 1 else "")
            total = self.state.find_permanent(event.object)
            count = f" (now {total.counter(event.kind)})" if total is not None and \
                event.kind == "lore" else self.pt(event.object)
            return f"{self.name(event.object)} gets {what}{count}"
        if isinstance(event, CounterRemoved):
            left = self.state.find_permanent(event.object)
            now = f" ({left.counter(event.kind)} left)" if left is not None else ""
            return f"{self.name(event.object)} loses {event.amount} {event.kind} " \
                   f"counter{'s' if event.amount > 1 else ''}{now}"
        if isinstance(event, KeywordGranted):
            return f"{self.name(event.object)} gains {event.keyword} until end of turn"
        if isinstance(event, DamageDealt):
            return f"{self.name(event.source)} deals {event.amount} damage to " \
                   f"{self.name(event.target)}"
        if isinstance(event, LifeLost):
            return f"{event.player} {_verb(event.player, 'lose')} {event.amount} life " \
                   f"({self.state.player(event.player).life} left)"
        if isinstance(event, LifeGained):
            return f"{event.player} {_verb(event.player, 'gain')} {event.amount} life"
        if isinstance(event, PlayerLost):
            return f"{event.player} LOSES THE GAME ({event.reason})"
        if isinstance(event, AbilityTriggered):
            what = f"chapter {_roman(event.chapter)}" if event.chapter else \
                ABILITIES.get(event.ability, event.ability.replace("_", " "))
            return f"{self.name(event.source)}: {what} triggers"
        if isinstance(event, Transformed):
            return f"{self.name(event.object)} transforms"
        return ""


ABILITIES = {"vessel_counter": "its +1/+1 counter ability",
             "vessel_lose": "its ten-damage ability", "orochi_attack": "its attack trigger"}


def _verb(subject: str, verb: str) -> str:
    return verb if subject == YOU else verb + "s"


def _roman(n: int) -> str:
    return {1: "I", 2: "II", 3: "III"}.get(n, str(n))


def _chapter(log: Log, saga: str, chapter: int, target: str | None = None) -> None:
    title = log.name(saga)
    aim = f", targeting {log.name(target)}" if target else ""
    log.say(f"{title} chapter {_roman(chapter)} resolves{aim}:")
    log.step(resolve_chapter(log.state, saga, chapter, target))


def _main_phase(log: Log) -> None:
    log.say("precombat main phase: a lore counter on each Saga (714.3b)")
    log.step(begin_precombat_main(log.state))


def _turn(log: Log, player: str, first: bool = False) -> None:
    if not first:
        log.step(begin_turn(log.state, player), 0)
    log.lines.append("")
    log.lines.append(f"Turn {log.state.turn}: {player}")


def _pass_turn(log: Log) -> None:
    log.step(cleanup(log.state))
    _turn(log, OPPONENT)
    log.say("(the opponent does nothing)")
    log.step(cleanup(log.state))


def _combat(log: Log, attacks: dict[str, str], blocks: dict[str, list[str]],
            before_damage: Callable[[Log], None] | None = None) -> None:
    log.say("combat: " + "; ".join(f"{log.name(a)}{log.pt(a)} attacks {log.name(t)}"
                                   for a, t in attacks.items()))
    for b, attacked in blocks.items():
        log.say(f"{log.name(b)}{log.pt(b)} blocks " + ", ".join(log.name(a) for a in attacked))
    log.step(declare_combat(log.state, attacks, blocks))
    if before_damage is not None:
        before_damage(log)
    steps = ["first_strike", "regular"] if has_first_strike_step(
        combat_of(log.state)) else ["regular"]
    planned: dict[Pair, int] | None = None
    if steps[0] == "first_strike":
        # Both steps at once: the attackers' first-strike split that guarantees the most
        # over the whole combat, whatever the defenders answer in each step.
        found_plan = plan_combat(combat_of(log.state, "first_strike"))
        planned = dict(found_plan.first_strike)
        terms = ", ".join(f"{t} {v}" for t, v in found_plan.objective.items() if v)
        log.say(f"planned across both steps ({found_plan.status}; guaranteed {terms}; the "
                "combat document does not know what triggers will add between the steps)")
    for step in steps:
        if game_over(log.state):
            break
        combat = combat_of(log.state, step)
        chosen: list[tuple[str, str, int]] = []
        log.say(f"{step.replace('_', '-')} combat damage step; the solver's splits:")
        for side in SIDES:
            space = legal_space(combat, side)
            found = optimize(space, parse_objective(None, side))
            if side == "attackers" and step == "first_strike" and planned is not None:
                found = replace(found, amounts=planned,
                                objective=evaluate(space, planned,
                                                   parse_objective(None, side)))
            check_answer(space, found.amounts, "solve")
            split = to_assignment(space, found.amounts)
            if not split:
                continue
            terms = ", ".join(f"{t} {v}" for t, v in found.objective.items() if v)
            log.say(f"{side} ({found.status}; {terms or 'nothing to gain'}):", 2)
            for source, target, amount in split.entries:
                log.say(f"{log.name(source)} -> {log.name(target)}: {amount}", 3)
            chosen += split.entries
        log.say("damage is dealt at once, then triggers and state-based actions (510.2, 704):")
        log.step(combat_damage_step(log.state, step, _fixed(Assignment(tuple(chosen))), judge))
    log.step(end_combat(log.state))


def _fixed(chosen: Assignment) -> Callable[[Combat], Assignment]:
    """An ``assign`` that answers the split already chosen (and printed)."""
    return lambda _combat: chosen


def play() -> list[str]:
    """Play the scripted game; the log, line by line."""
    log = Log(new_game((YOU, OPPONENT)))
    state = log.state
    for name in ("Forest", "Grizzly Bears", "Llanowar Elves", "Forest", "Forest"):
        state, _ = add_card(state, YOU, "library", get_card(name))
    ids: dict[str, str] = {}
    for key, name in (("thopter", "Ornithopter"), ("elves", "Llanowar Elves"),
                      ("ring", "Sol Ring"), ("bears", "Grizzly Bears"),
                      ("myr", "Darksteel Myr"), ("hawk", "Vampire Nighthawk"),
                      ("jace", "Jace Beleren")):
        state, ids[key], _ = enter_card(state, get_card(name), OPPONENT)
    log.state = state
    log.lines += ["trample demo --game: Hidetsugu Consumes All and Teachings of the Kirin",
                  "",
                  "The opponent has Ornithopter, Llanowar Elves, Sol Ring, Grizzly Bears, "
                  "Darksteel Myr, Vampire Nighthawk and Jace Beleren (loyalty 3)."]

    # Turn 1: Hidetsugu Consumes All.
    _turn(log, YOU, first=True)
    log.say(f"you cast {HIDETSUGU.split(' // ')[0]}; it enters with a lore counter (714.3a)")
    log.state, hidetsugu, events = enter_card(log.state, get_card(HIDETSUGU), YOU,
                                              summoning_sick=True)
    log.step((log.state, events))
    _chapter(log, hidetsugu, 1)
    _pass_turn(log)

    # Turn 3: chapter II exiles the graveyards; Teachings of the Kirin mills and makes a
    # Spirit.
    _turn(log, YOU)
    _main_phase(log)
    _chapter(log, hidetsugu, 2)
    log.say(f"you cast {TEACHINGS.split(' // ')[0]}")
    log.state, teachings, events = enter_card(log.state, get_card(TEACHINGS), YOU,
                                              summoning_sick=True)
    log.step((log.state, events))
    _chapter(log, teachings, 1)
    spirit = next(p.id for p in log.state.battlefield if p.name == "Spirit")
    _pass_turn(log)

    # Turn 5: Hidetsugu III returns it as Vessel; Teachings II puts a counter on the
    # Spirit (the only creature you control when the chapters trigger together).
    _turn(log, YOU)
    _main_phase(log)
    _chapter(log, teachings, 2, spirit)
    _chapter(log, hidetsugu, 3)
    vessel = next(p.id for p in log.state.battlefield if p.name == VESSEL)
    _pass_turn(log)

    # Turn 7: Teachings III returns it as Orochi; Vessel attacks Jace, the Spirit the
    # opponent.
    _turn(log, YOU)
    _main_phase(log)
    _chapter(log, teachings, 3)
    orochi = next(p.id for p in log.state.battlefield if p.name == OROCHI)
    _combat(log, {vessel: ids["jace"], spirit: OPPONENT}, {ids["bears"]: [vessel]})
    _pass_turn(log)

    # Turn 9: Orochi's trigger feeds Vessel; Vessel gains double strike and attacks.
    _turn(log, YOU)
    log.say(f"an effect gives {VESSEL} double strike until end of turn")
    log.step(grant_keyword(log.state, vessel, "Double strike"))
    forest = next(c.id for c in log.state.player(YOU).graveyard if c.card.name == "Forest")

    def orochi_trigger(log: Log) -> None:
        log.say(f"{OROCHI}'s attack trigger, second mode: exile target noncreature card "
                f"from a graveyard (Forest); when you do, a +1/+1 counter on {VESSEL}")
        log.step(orochi_attack_trigger(log.state, orochi, "noncreature", forest, vessel))

    _combat(log, {vessel: OPPONENT, orochi: ids["jace"], spirit: ids["jace"]},
            {ids["myr"]: [vessel], ids["hawk"]: [spirit]}, orochi_trigger)
    lost = [p.id for p in log.state.players if p.lost]
    log.lines.append("")
    dealt = log.state.damage_dealt(vessel, OPPONENT)
    log.lines.append(f"{VESSEL} dealt {dealt} damage to the opponent this turn; "
                     f"{' and '.join(lost) or 'nobody'} lost the game.")
    return log.lines


LOOKAHEAD = {
    "active_player": "you", "players": [{"id": "you"}, {"id": "opponent"}],
    "creatures": [
        {"id": "lifelinker", "name": "Double-striking lifelinker", "controller": "you",
         "power": 4, "toughness": 4, "keywords": ["Double strike", "Lifelink"],
         "attacking": "opponent"},
        {"id": "bear1", "name": "Bear A", "controller": "opponent", "power": 2,
         "toughness": 2, "blocking": ["lifelinker"]},
        {"id": "bear2", "name": "Bear B", "controller": "opponent", "power": 2,
         "toughness": 2, "blocking": ["lifelinker"]}],
}
"""A combat where the best first-strike split for that step alone is not the best for
the whole combat: killing both blockers with first-strike damage leaves the regular
damage nowhere to go (blocked, no trample), so half the life is gained."""


def lookahead() -> list[str]:
    """Planning both steps against choosing each step on its own, on :data:`LOOKAHEAD`."""
    combat = Combat.from_json(LOOKAHEAD)
    space = legal_space(combat, "attackers")
    alone = optimize(space, parse_objective(None, "attackers")).amounts
    planned = plan_combat(combat)

    def split(amounts: Mapping[Pair, int]) -> str:
        return ", ".join(f"{combat.label(s)} -> {combat.label(t)}: {n}"
                         for s, t, n in to_assignment(space, amounts).entries)

    def value(found: Mapping[str, int]) -> str:
        return ", ".join(f"{t} {v}" for t, v in found.items() if v)

    return ["", "Planning both steps beats choosing each step on its own: a 4/4 with double "
            "strike and lifelink blocked by two 2/2 bears.",
            f"  best first-strike split for that step alone: {split(alone)}",
            f"    guarantees over the whole combat: {value(guarantee(combat, alone))}",
            f"  planned across both steps: {split(planned.first_strike)}",
            f"    guarantees over the whole combat: {value(planned.objective)}"]


def render() -> str:
    """The game log as one text, then a combat where planning both steps pays."""
    return "\n".join(play() + lookahead())
