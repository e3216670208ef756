"""What a game is played with and what it leaves: its `Setup`, fixed before the first
decision; a `RoundRecord` per round settled; its `Outcome`; and the seeds a game takes. The
engine (`engine.Game`) makes them; logs, reports and statistics read them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

from synergy_forge.core.mission import Mission
from synergy_forge.core.referee import LossReason, Table, Verdict
from synergy_forge.core.rules import ChallengePlan, Rulebook


@dataclass(frozen=True, slots=True)
class Outcome:
    """How a mission ended; in words: `reporting.explain.outcome_text`."""

    won: bool
    reason: LossReason | None
    rounds_won: int
    lives: int
    rounds_played: int


@dataclass(frozen=True, slots=True)
class RoundRecord:
    """What happened in one round, for narration and statistics."""

    number: int
    table: Table
    verdict: Verdict
    lives_after: int
    rounds_won_after: int


#: The seeds a game takes: the game log's range (schemas/gamelog.schema.json, a signed 64-bit
#: integer, as JSON readers elsewhere hold it), so that every game `play` starts can be logged
#: and replayed. The command line's --seed options take exactly these.
MIN_SEED, MAX_SEED = -(2**63), 2**63 - 1


class Setup(NamedTuple):
    """What a game is played with, fixed before the first decision. The seed decides every
    deal, so it is never shown to a seat; the holders of the super and hyper cards are
    chosen by the first decisions (R24) and kept by the game's state. Each game has its own,
    which its copies share."""

    mission: Mission
    players: int
    seed: int
    rulebook: Rulebook
    colors: tuple[str, ...]
    plan: ChallengePlan
    allowed_failures: int
