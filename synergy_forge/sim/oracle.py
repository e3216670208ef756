"""The oracle: the cheating ceiling the playtester compares the honest bots to."""

from __future__ import annotations

import random
from typing import Any

from synergy_forge.core.choices import Decision, DecisionKind
from synergy_forge.core.observation import Omniscient
from synergy_forge.sim.convention import best_action, planned_card
from synergy_forge.sim.expert import keep_card, round_state, rules_of
from synergy_forge.sim.greedy import ScoreMemory
from synergy_forge.sim.model import MissionModel


class OracleBot:
    """CHEATS: sees every hand and plays the table convention on the true hands.

    The ceiling the playtester compares the honest bots to: the expert's plan
    (synergy_forge.sim.convention), with every hand read rather than counted, so it has at
    least the expert's information and plays the same joint plan where the expert can count
    every hand. Like the expert, it plans each round for the rounds after it (the hands it
    leaves), uses an action card, in seat order (R12), when one turns a lost round into a won
    one, and takes back the card that leaves the most legal sums (R17).
    """

    name = "oracle"
    #: The cheat, said aloud: this bot is handed `Game.observe_all()`, every hand included.
    sees = "all"

    def __init__(self, rng: random.Random, memory: ScoreMemory | None = None,
                 model: MissionModel | None = None) -> None:
        self.rng = rng
        self.model = MissionModel() if model is None else model

    def choose(self, observation: Omniscient, decision: Decision) -> Any:
        if len(decision.choices) == 1:
            return decision.choices[0]
        kind = decision.kind
        if kind is DecisionKind.SUPER or kind is DecisionKind.HYPER:
            return decision.choices[0]
        view, model = observation.views[decision.seat], self.model
        rules = rules_of(model, view)
        if kind is DecisionKind.TAKE_BACK:
            return keep_card(model, rules, view.hand, decision.cards)
        state = round_state(view, tuple(tuple(sorted(h)) for h in observation.hands),
                            tuple(tuple(sorted(h)) for h in observation.goal_hands))
        if kind is DecisionKind.ACTION:
            return best_action(model, rules, state, decision.uses, view.discards)
        card = planned_card(model, rules, state, decision)
        # None: no legal pair for some seat, and R9 ends the mission whatever is played
        return card if card is not None else decision.choices[0]
