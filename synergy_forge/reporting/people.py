"""`playtest --human`'s report: people's games across the campaign's missions."""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from synergy_forge.authoring.gamelog import replay_file
from synergy_forge.core.mission import Campaign
from synergy_forge.core.playhash import PlayChange
from synergy_forge.sim.calibration import PEOPLE, PlayedGame

#: How long a changed value may be in a line before it is cut.
SHOWN = 40


def _value(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= SHOWN else text[:SHOWN - 1] + "…"


def change_text(change: PlayChange) -> str:
    """"rounds 4 → 3", "goal 'close-call': rule "…" → "…"": the log's side, then the
    campaign's."""
    where = change.key if change.subject == "mission" else \
        f"{change.subject} '{change.id}': {change.key}"
    return f"{where} {_value(change.before)} → {_value(change.after)}"


def changes_text(changes: Sequence[PlayChange]) -> str:
    return "; ".join(change_text(c) for c in changes)


def changed_json(games: Sequence[PlayedGame], included: bool) -> list[dict[str, Any]]:
    """The logs of missions whose play changed since: which log, which mission, what changed
    (`log`: the log's mission, `campaign`: the campaign's), and whether it was counted."""
    return [{"log": g.source, "id": g.mission.id,
             "number": g.known.number if g.known is not None else g.mission.number,
             "included": included,
             "changes": [{"subject": c.subject, "id": c.id, "key": c.key, "log": c.before,
                          "campaign": c.after} for c in g.changes]} for g in games]


def played_games(files: Sequence[Path], campaign: Campaign, label: str) -> list[PlayedGame]:
    """Each log replayed against `campaign` (called `label`), as a game for the model: one of
    the campaign's missions when it plays as the campaign's does now, else the mission the
    log carries, with how it plays otherwise (`changes`). A log the engine disagrees with
    raises ReplayError, located."""
    played = []
    for file in files:
        replayed = replay_file(file, campaign, label, changed=True)
        game, outcome = replayed.game, replayed.game.outcome
        assert outcome is not None  # replay returns finished games only
        mission, rulebook = (replayed.known, campaign.rulebook) \
            if replayed.verified and replayed.known is not None \
            else (game.mission, game.rulebook)
        played.append(PlayedGame(mission, rulebook, game.colors, game.players,
                                 sum(1 for name in replayed.bots if name in PEOPLE),
                                 outcome.won, str(file), replayed.known, replayed.changes))
    return played
