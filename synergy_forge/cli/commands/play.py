"""`synergy-forge play`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from synergy_forge.core.cards import MAX_PLAYERS, MIN_PLAYERS

from ..output import GAME_LOG, write_output
from ..params import BOTS, SEED, OutputFile, for_seats

if TYPE_CHECKING:
    from synergy_forge.authoring.loading import MissionFile
    from synergy_forge.core.engine import Game


@click.command("play")
@click.argument("mission")
@click.option("--players", "player_count", type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS),
              help="Player count (default: 4 if the mission allows it, else its first).")
@click.option("--seed", type=SEED, help="Seed of the game's shuffles and bots (default: random, "
              "printed).")
@click.option("--bots", type=BOTS, default="coop", show_default=True,
              help="One bot for every seat (random, greedy, coop, expert, oracle), or one per "
              "seat: coop,random,…")
@click.option("--log", "log_path", type=OutputFile(GAME_LOG),
              help="Write every decision to this JSON Lines file, for `replay` (a new file, "
              "or a game log it replaces).")
@click.option("--quiet", is_flag=True, help="Print only the outcome.")
def command(mission: str, player_count: int | None, seed: int | None, bots: tuple[str, ...],
            log_path: Path | None, quiet: bool) -> None:
    """Watch bots play MISSION: a mission file, or the number or id of a mission of the
    campaign of the current folder or the nearest one above it (the bundled starter campaign
    when there is none)."""
    import random

    from synergy_forge.authoring.gamelog import Recorder
    from synergy_forge.core.engine import Game
    from synergy_forge.reporting.explain import outcome_text
    from synergy_forge.sim.play import play

    from ..output import say

    found = _mission(mission, say)
    loaded = found.mission
    player_count = player_count or (4 if 4 in loaded.players else loaded.players[0])
    if player_count not in loaded.players:
        raise click.BadParameter(f"mission {loaded.id} is for "
                                 f"{', '.join(map(str, loaded.players))} players",
                                 param_hint="'--players'")
    names = list(for_seats(bots, player_count))
    seed = seed if seed is not None else random.SystemRandom().randrange(10**6)
    game = Game(loaded, player_count, seed, found.rulebook, found.colors)
    story = _Story(names, quiet)
    recorder = Recorder(game, names) if log_path is not None else None
    play(game, names, on_decision=recorder, after_round=story)
    story.begin(game)
    assert game.outcome is not None  # play returns finished games only
    click.echo(outcome_text(game.outcome))
    if recorder is not None and log_path is not None:
        _write_log(log_path, recorder.finish(game))


def _mission(spec: str, say: Callable[[str], None]) -> MissionFile:
    """MISSION, by file, number or id; one it does not name is a usage error."""
    from synergy_forge.workspace.campaign import UnknownMission
    from synergy_forge.workspace.play import mission_file

    try:
        return mission_file(spec, say)
    except UnknownMission as exc:
        raise click.BadParameter(str(exc), param_hint="'MISSION'") from None


class _Story:
    """The game told round by round as it is played (nothing but the outcome with --quiet):
    who sits where, then each round."""

    def __init__(self, names: list[str], quiet: bool) -> None:
        self.names, self.quiet, self.started = names, quiet, False

    def begin(self, game: Game) -> None:
        from synergy_forge.reporting.narrate import heading

        if not self.started and not self.quiet:
            click.echo(heading(game, self.names) + "\n")
        self.started = True

    def __call__(self, game: Game) -> None:
        from synergy_forge.reporting.narrate import round_story

        if not self.quiet:
            self.begin(game)
            click.echo(round_story(game, game.history[-1]) + "\n")


def _write_log(path: Path, records: list[dict[str, Any]]) -> None:
    from synergy_forge.authoring.gamelog import write_log

    write_output(path, write_log(records), GAME_LOG)
    click.echo(f"log written to {path} ({len(records)} records)", err=True)
