"""Playing whole games: one bot at each seat, decisions asked and applied until the end.

What is recorded of a game is the caller's business (`on_decision`): the game log's encoding
lives in `authoring.gamelog`, the narration in `reporting.narrate`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from synergy_forge.core.choices import Choice, Decision
from synergy_forge.core.engine import Game
from synergy_forge.sim.bots import SEES_SEAT, Bot, SeatMemories, make_bot
from synergy_forge.sim.model import MissionModel


def play(game: Game, bot_names: Sequence[str], *,
         on_decision: Callable[[Game, Decision, Choice], None] | None = None,
         after_round: Callable[[Game], None] | None = None,
         memories: SeatMemories | None = None, model: MissionModel | None = None) -> Game:
    """Play `game` to its end with one bot per seat; returns it, finished.

    `memories` and `model`: the bots' memories and the mission model to keep across the games
    a caller plays (bots.SeatMemories, sim.model); without them, this game's own.

    `on_decision(game, decision, choice)` is called for every decision before it is applied;
    `after_round(game)` after every settled round.
    """
    model = MissionModel() if model is None else model  # one for every seat of the game
    bots: list[Bot] = [make_bot(name, game.seed, seat, memories=memories, model=model)
                       for seat, name in enumerate(bot_names)]
    for bot in bots:  # who sits where is public at a table (sim.mixed)
        seated = getattr(bot, "seated", None)
        if seated is not None:
            seated(tuple(bot_names))
    # What each bot is shown (as bots.view_for says), decided once: its seat's observation, nothing
    # (the random bot reads nothing), or everything (the oracle's cheat).
    sees = [getattr(bot, "sees", SEES_SEAT) for bot in bots]
    rounds_seen = 0
    while not game.over:
        decisions = game.pending()
        choices = [bots[d.seat].choose(
            game.observe(d.seat) if sees[d.seat] == SEES_SEAT
            else game.observe_all() if sees[d.seat] == "all" else None, d)
            for d in decisions]
        if on_decision is not None:
            for decision, choice in zip(decisions, choices, strict=True):
                on_decision(game, decision, choice)
        game.apply(choices)
        if after_round is not None and len(game.history) > rounds_seen:
            rounds_seen = len(game.history)
            after_round(game)
    return game
