"""What a seat is shown, as JSON data (docs/table.md): built only from the seat's own
`Observation`, the finished rounds and the outcome, so no other seat's hidden card, no deck
order and no seed can reach it.

Every card is an object with `kind` ("number" or "goal"), `color` and `value` (a number, or a
goal's id). A choice is known by its id (`core.choices.choice_id`): the game, its round and
step, the decision's kind and what it picks, so the engine refuses an id from an earlier view
or an earlier game rather than take it for a choice of a later one.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from functools import cache
from types import MappingProxyType
from typing import Any

from synergy_forge.authoring.gamelog import PERSON
from synergy_forge.cardtext.i18n import Translator
from synergy_forge.core.actions import ActionUse
from synergy_forge.core.cards import COLOR_SYMBOLS, Action, GoalCard, NumberCard
from synergy_forge.core.choices import (
    Choice,
    Decision,
    DecisionKind,
    StateId,
    choice_from_json,
    choice_id,
    use_json,
)
from synergy_forge.core.engine import Game, Outcome, RoundRecord
from synergy_forge.core.mission import Mission
from synergy_forge.core.observation import Observation
from synergy_forge.core.referee import LossReason
from synergy_forge.core.rules import ActionText, Rulebook
from synergy_forge.reporting.explain import outcome_text, verdict_to_json
from synergy_forge.reporting.narrate import describe_action, round_story
from synergy_forge.reporting.words import ENGLISH, Words
from synergy_forge.table.words import LANGUAGES


def symbol(seat: int) -> str:
    """The symbol of a seat's colour, printed on its cards (● ▲ ■ ◆ ★)."""
    return COLOR_SYMBOLS[seat % len(COLOR_SYMBOLS)]


def card(c: NumberCard | GoalCard | None) -> dict[str, Any] | None:
    if c is None:
        return None
    if isinstance(c, GoalCard):
        return {"kind": "goal", "color": c.color, "value": c.goal}
    return {"kind": "number", "color": c.color, "value": c.value}


@cache
def _languages() -> Mapping[str, Words]:
    """The seat page's languages, each with the referee's words in it (English as `play`
    says them, the others from the kit's catalog)."""
    return MappingProxyType({language: ENGLISH if language == "en" else Translator(language)
                             for language in LANGUAGES})


def in_every_language(say: Callable[[Words], str]) -> dict[str, str]:
    """{language: what `say` says in it}: the page shows its reader's."""
    return {language: say(words) for language, words in _languages().items()}


def action_use(use: ActionUse) -> dict[str, Any]:
    """A use of an action card for the page: the game log's shape with the page's cards, and
    what it does in words (the page says it in its own, words.py)."""
    return {**use_json(use, card), "text": describe_action(use)}


def legal_item(state: StateId, decision: Decision, choice: Choice) -> dict[str, Any]:
    """A choice for the page: its id (`choices.choice_id`, which names the game's state, so
    one from an earlier view is refused), its kind, and what it picks."""
    return {"id": choice_id(state, decision.kind, choice), **decision_item(decision.kind, choice)}


def decision_item(kind: DecisionKind, choice: Choice) -> dict[str, Any]:
    """A choice of a `kind` decision for the page: its kind and what it picks, `card` (a card
    laid or taken back), `seat` (given the super or hyper card) or `action` (null: none)."""
    item: dict[str, Any] = {"kind": str(kind)}
    if isinstance(choice, NumberCard | GoalCard):
        item["card"] = card(choice)
    elif isinstance(choice, ActionUse):
        item["action"] = action_use(choice)
    elif choice is None:
        item["action"] = None
    else:
        item["seat"] = choice
    return item


def mission_card(mission: Mission, players: int, allowed_failures: int, rulebook: Rulebook,
                 actions: Mapping[Action, ActionText],
                 campaign: Mapping[str, str] | None = None) -> dict[str, Any]:
    """The mission card as printed, with every name and text in each language it has; the
    stars and allowed failures are those of this table's player count; `campaign` its
    campaign's name (the page's title)."""
    def definition(kind: str, key: str) -> dict[str, Any]:
        d = rulebook.goal(key) if kind == "goal" else rulebook.challenge(key)
        data = {"id": d.id, "name": dict(d.name), "text": dict(d.text)}
        if kind == "goal":
            data["symbol"] = d.symbol
        return data

    def action(a: Action) -> dict[str, Any]:
        printed = actions.get(a)
        return {"card": str(a), "name": dict(printed.name) if printed else {},
                "text": dict(printed.text) if printed else {}}

    return {
        "id": mission.id, "number": mission.number, "title": dict(mission.title),
        "campaign": dict(campaign or {}),
        "flavor": dict(mission.flavor), "stars": mission.stars_at(players),
        "rounds": mission.rounds,
        "lives": mission.lives, "players": players, "allowed_failures": allowed_failures,
        "order": str(mission.order),
        "hand": {"numbers": mission.hand_numbers, "goals": mission.hand_goals},
        "challenges": [definition("challenge", c) for c in mission.challenges],
        "actions": [action(a) for a in mission.actions],
        "goals": [definition("goal", g) for g in dict.fromkeys(mission.goals)],
        "super": mission.super, "hyper": mission.hyper,
    }


def printed_actions(card: Mapping[str, Any]) -> dict[Action, ActionText]:
    """The action cards of a mission card (`mission_card`) as printed: its review names them
    as its pages do."""
    return {Action(a["card"]): ActionText(Action(a["card"]), a["name"], a["text"])
            for a in card["actions"]}


def round_summary(game: Game, record: RoundRecord) -> dict[str, Any]:
    """A settled round: the cards each seat laid, the referee's verdict seat by seat and in
    its own words (`reporting.narrate`), and the lives and rounds after it."""
    table, verdict = record.table, record.verdict
    judged = verdict_to_json(verdict, game.rulebook)
    seats = []
    for i, (play, seat) in enumerate(zip(table.plays, judged["seats"], strict=True)):
        # each card's value after the round's action cards (F, G: R13), that the sum adds
        judge = verdict.seats[i]
        seats.append({"seat": i, "color": table.colors[i], "first": card(play.first),
                      "first_effective": judge.first_effective,
                      "second_effective": judge.second_effective,
                      "goal": play.goal, "second": card(play.second), "goal_met": seat["goal"],
                      "sum": seat["sum"], "counted": seat["counted"], "met": seat["success"],
                      "violations": seat["violations"], "explanation": seat["explanation"]})
    return {"round": record.number, "success": verdict.success, "failures": verdict.failures,
            "allowed_failures": verdict.allowed_failures,
            "lost_reasons": judged["lost_reasons"],
            "actions": [action_use(u) for u in table.actions], "seats": seats,
            "lives_after": record.lives_after, "rounds_won_after": record.rounds_won_after,
            "text": round_story(game, record),
            "texts": in_every_language(lambda words: round_story(game, record, words))}


def outcome(game: Game) -> dict[str, Any] | None:
    """How the game ended, the same for every seat; `stuck` names the seats that had no card
    to keep a challenge when that lost the mission before the round was settled (R9), as
    they would say at the table: which cards they hold stays theirs."""
    result = game.outcome
    if result is None:
        return None
    stuck: list[int] = []
    unsettled = not game.history or game.history[-1].number != game.round_number
    if result.reason is LossReason.CHALLENGE and unsettled:
        stuck = [seat for seat in range(game.players) if not game.second_choices(seat)]
    return {"won": result.won, "reason": str(result.reason) if result.reason else None,
            "text": outcome_text(result),
            "texts": in_every_language(lambda words: outcome_text(result, words)),
            "rounds_won": result.rounds_won,
            "lives": result.lives, "rounds_played": result.rounds_played, "stuck": stuck}


def public_view(seen: Observation, seats: Sequence[Mapping[str, Any]],
                pending: Sequence[Decision], chosen: Mapping[int, Choice],
                mission: dict[str, Any], rounds: Sequence[dict[str, Any]],
                result: Outcome | None) -> dict[str, Any]:
    """What every seat sees alike, from one seat's observation (its face-up part only): the
    mission, each seat's cards on the table, counts and discard rows, whose turn it is; and
    from `seats`, who plays each seat (`player` PERSON or "bot", `bot` its name), whether its
    person is `away` (a bot plays for them) and has a page open (`connected`)."""
    waiting = [d.seat for d in pending if d.seat not in chosen]
    table = seen.table
    out_seats = []
    for i in range(seen.players):
        first, goal, second = table[i]
        out_seats.append({
            "seat": i, "color": seen.colors[i], "symbol": symbol(i), **seats[i],
            "table": {"first": card(first), "goal": card(goal), "second": card(second)},
            "delta": seen.deltas[i],
            "laid": i in chosen,  # a card or choice made, face down until everyone's is in
            "waiting": i in waiting,
            "hand": {"numbers": seen.hand_numbers[i], "goals": seen.hand_goals[i]},
            "deck": {"numbers": seen.deck_numbers[i], "goals": seen.deck_goals[i]},
            "discards": [card(c) for c in seen.discards[i]],
            "super": seen.super_seat == i, "hyper": seen.hyper_seat == i,
        })
    return {
        "mission": mission, "players": seen.players, "seats": out_seats,
        "lives": seen.lives, "rounds_won": seen.rounds_won, "round": seen.round_number,
        "step": {"kind": "over" if result else str(pending[0].kind) if pending else "over",
                 "seats": waiting},
        "actions_available": sorted(str(a) for a in seen.actions_available),
        "actions_used": [action_use(u) for u in seen.actions_used],
        "rounds": list(rounds),
    }


def own_view(seen: Observation, state: StateId, player: str,
             decision: Decision | None, chosen: Choice, has_chosen: bool,
             result: dict[str, Any] | None, version: int) -> dict[str, Any]:
    """The part of a seat's view that is its own: who plays it now (`player`: PERSON or a
    bot's name), its hands, its face-down choice, its legal choices (none when it is not its
    turn, or a bot plays it), their ids made in `state`."""
    seat = seen.seat
    if player != PERSON:
        decision = decision if has_chosen else None
    legal = [] if decision is None or has_chosen else \
        [legal_item(state, decision, c) for c in decision.choices]
    laid = None
    if has_chosen:
        laid = legal_item(state, decision, chosen) if decision else None
    return {
        "seat": seat, "color": seen.colors[seat], "symbol": symbol(seat),
        "player": player,
        "hand": [card(c) for c in seen.hand], "goal_hand": [card(c) for c in seen.goal_hand],
        "decision": str(decision.kind) if decision is not None and not has_chosen else None,
        "laid": laid, "legal": legal, "outcome": result, "version": version,
    }


def revealed(game: Game, records: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Everything about a finished game, for spectators and the review: each seat's hands and
    decks as they ended, and every decision in order with who made it (the game's log)."""
    hands = [{"seat": i, "hand": [card(c) for c in sorted(game.hands[i])],
              "goal_hand": [card(c) for c in sorted(game.goal_hands[i])],
              "deck": [card(c) for c in reversed(game.decks[i])],
              "goal_deck": [card(c) for c in reversed(game.goal_decks[i])]}
             for i in range(game.players)]
    decisions = []
    for record in records:
        if record.get("type") != "decision":
            continue
        kind = DecisionKind(record["kind"])
        decisions.append({"round": record["round"], "seat": record["seat"],
                          "by": record.get("by"),
                          **decision_item(kind, choice_from_json(kind, record["choice"]))})
    return {"hands": hands, "decisions": decisions}


def mission_label(mission: Mission) -> dict[str, Any]:
    """A mission as a list of games names it: its id, number and title."""
    return {"id": mission.id, "number": mission.number, "title": dict(mission.title)}


#: Why a game ended when a campaign rule failed in play: no LossReason, the referee did not
#: settle it.
RULE_FAILED = "rule-failed"


def broken_outcome(rule: str, rounds_won: int, lives: int, rounds_played: int
                   ) -> dict[str, Any]:
    """The view's outcome of a game a campaign rule stopped: `rule` says which, where and for
    what input ("FILE:LINE: the rule … fails for …", as `play` says it, in every language)."""
    return {"won": False, "reason": RULE_FAILED, "text": rule, "rule": rule,
            "rounds_won": rounds_won, "lives": lives, "rounds_played": rounds_played,
            "stuck": []}


def outcome_of_record(record: Mapping[str, Any]) -> dict[str, Any]:
    """The view's outcome from a game log's end record (a game finished before a restart, or
    stopped by a rule: its record has the rule's words)."""
    if record.get("reason") == RULE_FAILED:
        return broken_outcome(str(record.get("rule", "")), record["rounds_won"],
                              record["lives"], record["rounds_played"])
    result = Outcome(record["result"] == "won",
                     LossReason(record["reason"]) if record["reason"] else None,
                     record["rounds_won"], record["lives"], record["rounds_played"])
    return {"won": result.won, "reason": record["reason"], "text": outcome_text(result),
            "rounds_won": result.rounds_won, "lives": result.lives,
            "rounds_played": result.rounds_played, "stuck": []}
