"""People's games (`playtest --human`): game logs replayed against a campaign, each a game
for the model of people (sim.calibration)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from synergy_forge.authoring.diagnostics import InvalidInput, errors
from synergy_forge.authoring.gamelog import replay_file
from synergy_forge.authoring.loading import Reading, display
from synergy_forge.core.mission import Campaign
from synergy_forge.sim.calibration import PEOPLE, PlayedGame
from synergy_forge.sim.playtest import Playable
from synergy_forge.workspace.campaign import Say, open_workspace


@dataclass(frozen=True)
class PeopleLogs:
    """The logs read, the campaign they were compared with (named `label`) and their games."""

    campaign: Campaign
    label: str
    files: tuple[Path, ...]
    played: list[PlayedGame]

    @property
    def playables(self) -> list[Playable]:
        """The campaign's missions, to play on the ladder."""
        return [Playable(m, self.campaign.rulebook, self.campaign.colors)
                for m in self.campaign.missions]


def people_logs(files: Sequence[Path], campaign: Path | None, say: Say) -> PeopleLogs:
    """Each log replayed against the campaign `campaign` (else the current folder's, see
    campaign.open_workspace): one of its missions when it plays as the campaign's does now,
    else the mission the log carries, with how it plays otherwise (`changes`). A log the
    engine disagrees with raises ReplayError, located."""
    workspace = open_workspace(campaign, say)
    result = workspace.read(Reading.TO_PLAY)
    if result.campaign is None:
        raise InvalidInput(errors(result.diagnostics))
    known = result.campaign
    label = "the starter campaign" if workspace.starter else \
        f"campaign {display(workspace.folder)}"
    played = []
    for file in files:
        replayed = replay_file(file, known, label, changed=True)
        game, outcome = replayed.game, replayed.game.outcome
        assert outcome is not None  # replay returns finished games only
        mission, rulebook = (replayed.known, known.rulebook) \
            if replayed.verified and replayed.known is not None \
            else (game.mission, game.rulebook)
        played.append(PlayedGame(mission, rulebook, game.colors, game.players,
                                 sum(1 for name in replayed.bots if name in PEOPLE),
                                 outcome.won, str(file), replayed.known, replayed.changes))
    return PeopleLogs(known, label, tuple(files), played)
