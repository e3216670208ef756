"""`synergy-forge table`: people play a mission in the browser, one device each
(synergy_forge/table/, docs/table.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from synergy_forge.core.cards import MAX_PLAYERS, MIN_PLAYERS

from ..output import GAME_LOG
from ..params import BOTS, SEED, OutputFile

if TYPE_CHECKING:
    import socket

    from synergy_forge.core.mission import Mission
    from synergy_forge.table.model import Finished, GameTable
    from synergy_forge.workspace.play import MissionToPlay

DEFAULT_PORT = 8766


@click.command("table")
@click.argument("source", metavar="MISSION-OR-CAMPAIGN")
@click.option("--mission", "mission_key", help="With a campaign folder: the mission's number "
              "or id.")
@click.option("--players", "player_count", type=click.IntRange(MIN_PLAYERS, MAX_PLAYERS),
              help="Player count (default: the smallest the mission allows that seats every "
              "person).")
@click.option("--humans", type=click.IntRange(1, MAX_PLAYERS),
              help="Seats played by people, from seat 0 (default: every seat); bots take the "
              "others.")
@click.option("--bots", type=BOTS, default="coop", show_default=True,
              help="The bot of every bot seat, or one per bot seat: coop,greedy,…")
@click.option("--seed", type=SEED, help="Seed of the game's shuffles and bots (default: random; "
              "it is in the log once the game ends, never shown before).")
@click.option("--log", "log_path", type=OutputFile(GAME_LOG),
              help="Also write the game's log to this JSON Lines file, for `replay` (a new "
              "file, or a game log it replaces; a game dealt again: FILE-2.jsonl, …).")
@click.option("--games", "games_dir", type=click.Path(file_okay=False, path_type=Path),
              help="Folder each finished game's log is added to (default: games/ in the "
              "mission's campaign folder; for the bundled starter campaign, in the current "
              "folder).")
@click.option("--pace", type=click.FloatRange(0, 60), default=1.5, show_default=True,
              help="Seconds a bot waits before each of its choices, so people can follow.")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; 0.0.0.0 lets phones on your network join.")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--no-browser", is_flag=True, help="Do not open seat 0's page in a browser.")
def command(source: str, mission_key: str | None, player_count: int | None,
            humans: int | None, bots: tuple[str, ...], seed: int | None, log_path: Path | None,
            games_dir: Path | None, pace: float, host: str, port: int,
            no_browser: bool) -> None:
    """Play MISSION-OR-CAMPAIGN together in the browser, one device per person.

    MISSION-OR-CAMPAIGN is a mission file, a mission's number or id in the current campaign
    (else the starter campaign), or a campaign folder with --mission. Prints one link per
    person's seat; the referee enforces every rule, bots play the other seats. Each finished
    game's log is added to the games folder. Stop with Ctrl-C.
    """
    import secrets

    from synergy_forge.table.model import GameTable
    from synergy_forge.table.server import Tables, serve

    from ..serving import listening

    chosen = _mission(source, mission_key)
    found = chosen.file
    player_count, seat_kinds = _seats(found.mission, player_count, humans, bots)
    games = games_dir or chosen.games
    # The seed deals every hand: a guessable one would let a player work the others' out.
    seed = seed if seed is not None else secrets.randbits(63)
    sock = listening(host, port, "anyone on your network with a seat's link can play that seat")
    table = GameTable(found.mission, found.rulebook, found.colors, player_count, seed,
                      seat_kinds, actions=dict(found.actions), pace=pace,
                      on_end=lambda finished: _save(finished, log_path, games))
    serve(Tables([table]), sock, lambda: _ready(table, sock, host, no_browser))
    if table.game.outcome is None:
        click.echo("table stopped before the end of the game: no log written for it")
    else:
        click.echo("table stopped")


def _mission(source: str, mission_key: str | None) -> MissionToPlay:
    """MISSION-OR-CAMPAIGN and --mission; a mission they do not name is a usage error."""
    from synergy_forge.workspace.campaign import UnknownMission
    from synergy_forge.workspace.play import mission_to_play

    from ..output import say

    folder = Path(source).is_dir()
    if mission_key is not None and not folder:
        raise click.BadParameter("--mission chooses a mission of a campaign folder; "
                                 f"{source} is already one mission", param_hint="'--mission'")
    try:
        return mission_to_play(source, mission_key, say)
    except UnknownMission as exc:
        raise click.BadParameter(str(exc), param_hint="'--mission'" if folder
                                 else "'MISSION-OR-CAMPAIGN'") from None


def _seats(mission: Mission, player_count: int | None, humans: int | None,
           bots: tuple[str, ...]) -> tuple[int, list[str]]:
    """The table's size and who plays each seat (PERSON or a bot), from the options."""
    from synergy_forge.table.view import PERSON

    people = humans if humans is not None else player_count
    if player_count is None:
        wanted = max(people or 3, 3)
        player_count = next((n for n in sorted(mission.players) if n >= wanted), None)
        if player_count is None:
            raise click.BadParameter(f"mission {mission.id} is for at most "
                                     f"{max(mission.players)} players", param_hint="'--humans'")
    if player_count not in mission.players:
        raise click.BadParameter(f"mission {mission.id} is for "
                                 f"{', '.join(map(str, mission.players))} players",
                                 param_hint="'--players'")
    people = player_count if people is None else people
    if people > player_count:
        raise click.BadParameter(f"{people} people cannot sit at a table of {player_count}",
                                 param_hint="'--humans'")
    bot_seats = player_count - people
    if bot_seats and len(bots) not in (1, bot_seats):
        raise click.BadParameter(f"give one bot or {bot_seats}, one per bot seat; got "
                                 f"{len(bots)}", param_hint="'--bots'")
    return player_count, [PERSON] * people + list(bots * bot_seats if len(bots) == 1 else bots)


def _ready(table: GameTable, sock: socket.socket, host: str, no_browser: bool) -> None:
    """The table is listening: who sits where, each person's link (and its QR code for
    phones on the network), seat 0's page opened."""
    from synergy_forge.table.view import PERSON
    from synergy_forge.web.server import LOOPBACK, public_base

    from ..serving import browse

    m, kinds = table.game.mission, table.seats
    people = len(table.people)
    bot_seats = len(kinds) - people
    who = f"{people} {'person' if people == 1 else 'people'}"
    if bot_seats:
        who += f", {bot_seats} bot{'s' if bot_seats > 1 else ''}"
    click.echo(f'Table for mission {m.number} "{m.label()}": {len(kinds)} players ({who}); '
               "Ctrl-C to stop")
    # Phones join a table on the network by scanning their seat's code off the terminal.
    codes = host not in LOOPBACK and sys.stdout.isatty()
    base = public_base(sock, host)
    for seat, kind in enumerate(kinds):
        if kind == PERSON:
            click.echo(f"seat {seat}: {base}/seat/{table.tokens[seat]}")
            if codes:
                _qr(f"{base}/seat/{table.tokens[seat]}")
        else:
            click.echo(f"seat {seat}: bot {kind}")
    browse(f"{base}/seat/{table.tokens[table.people[0]]}", no_browser)


def _qr(link: str) -> None:
    """The link as a QR code in text (two rows of modules a line), as phones' cameras read it."""
    import segno

    segno.make(link, error="l").terminal(out=sys.stdout, compact=True, border=2)
    sys.stdout.flush()


def _save(finished: Finished, log_path: Path | None, games: Path) -> None:
    """The finished game: its outcome on the terminal, its log written to --log and added to
    the games folder. A log that cannot be written is said in one line; play goes on."""
    import secrets
    import time

    from synergy_forge.authoring.gamelog import write_log
    from synergy_forge.errors import CannotWrite
    from synergy_forge.fileio import write_atomic, write_inside
    from synergy_forge.reporting.explain import outcome_text

    game, records = finished.game, finished.records
    assert game.outcome is not None
    click.echo(f"game over: {outcome_text(game.outcome)} after {game.outcome.rounds_played} "
               "round(s)")
    text = write_log(records)
    stamp = time.strftime("%Y%m%d-%H%M%S", time.gmtime())
    if log_path is not None and finished.number > 1:  # a game dealt again at the same table
        log_path = log_path.with_name(f"{log_path.stem}-{finished.number}{log_path.suffix}")
    targets = [(log_path, True)] if log_path is not None else []
    targets.append((games / f"{game.mission.id}-{stamp}-{secrets.token_hex(3)}.jsonl", False))
    for path, overwrite in targets:
        try:  # --log by the output policy; the games folder's new name never replaces a file,
            # nor leaves the campaign through a link
            if overwrite:
                write_atomic(path, text, kind=GAME_LOG)
            else:
                write_inside(games.parent, path, text)
        except (OSError, CannotWrite) as exc:
            error = exc if isinstance(exc, CannotWrite) else CannotWrite.from_os_error(exc, path)
            click.echo(error.format_message(), err=True)
            continue
        click.echo(f"log written to {path} ({len(records)} records)")
