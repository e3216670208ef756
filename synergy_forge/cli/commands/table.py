"""`synergy-forge table`: people play a mission in the browser, one device each
(synergy_forge/table/, docs/table.md)."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from synergy_forge.core.cards import MAX_PLAYERS, MIN_PLAYERS

from ..params import BOTS, SEED

if TYPE_CHECKING:
    from synergy_forge.core.cards import Action
    from synergy_forge.core.mission import Mission
    from synergy_forge.core.rules import ActionText, Rulebook
    from synergy_forge.table.model import Finished

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
@click.option("--log", "log_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write the game's log to this JSON Lines file, for `replay` (a game "
              "dealt again: FILE-2.jsonl, …).")
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
    from synergy_forge.table.view import PERSON
    from synergy_forge.web.server import LOOPBACK, listen

    mission, rulebook, colors, actions, campaign_dir = _load(source, mission_key)
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
    seat_kinds = [PERSON] * people + list(bots * bot_seats if len(bots) == 1 else bots)
    games = games_dir or _default_games(campaign_dir)
    # The seed deals every hand: a guessable one would let a player work the others' out.
    seed = seed if seed is not None else secrets.randbits(63)
    if host not in LOOPBACK:
        click.echo(f"warning: listening on {host}: anyone on your network with a seat's link "
                   "can play that seat", err=True)
    sock = listen(host, port)  # CannotRun (exit 2) when it cannot

    def ended(finished: Finished) -> None:
        _save(finished, log_path, games)

    table = GameTable(mission, rulebook, colors, player_count, seed, seat_kinds,
                      actions=actions, pace=pace, on_end=ended)
    tables = Tables([table])
    base = _public_base(sock, host)

    def ready() -> None:
        m = mission
        who = f"{people} {'person' if people == 1 else 'people'}"
        if bot_seats:
            who += f", {bot_seats} bot{'s' if bot_seats > 1 else ''}"
        click.echo(f'Table for mission {m.number} "{m.label()}": {player_count} players ({who}); '
                   "Ctrl-C to stop")
        # Phones join a table on the network by scanning their seat's code off the terminal.
        codes = host not in LOOPBACK and sys.stdout.isatty()
        for seat, kind in enumerate(seat_kinds):
            if kind == PERSON:
                link = f"{base}/seat/{table.tokens[seat]}"
                click.echo(f"seat {seat}: {link}")
                if codes:
                    _qr(link)
            else:
                click.echo(f"seat {seat}: bot {kind}")
        if not no_browser:
            import webbrowser

            webbrowser.open(f"{base}/seat/{table.tokens[table.people[0]]}")

    serve(tables, sock, ready)
    if table.game.outcome is None:
        click.echo("table stopped before the end of the game: no log written for it")
    else:
        click.echo("table stopped")


def _load(source: str, mission_key: str | None) -> tuple[
        Mission, Rulebook, tuple[str, ...], dict[Action, ActionText], Path | None]:
    """The mission to play, its rulebook, colours and action cards' texts, and the folder of
    its campaign (None for the bundled starter campaign)."""
    from synergy_forge.authoring.definitions import standard_actions
    from synergy_forge.authoring.diagnostics import HasErrors, errors
    from synergy_forge.authoring.loading import (
        CAMPAIGN_FILE,
        display,
        find_campaign,
        read_campaign,
    )
    from synergy_forge.resources import starter_campaign

    from ..inputs import resolve_mission

    path = Path(source)
    if path.is_dir():
        if not (path / CAMPAIGN_FILE).is_file():
            raise click.BadParameter(f"{path} has no {CAMPAIGN_FILE}: give a campaign folder, a "
                                     "mission file or a starter mission's number",
                                     param_hint="'MISSION-OR-CAMPAIGN'")
        result = read_campaign(path)
        if result.campaign is None or errors(result.diagnostics):
            raise HasErrors(errors(result.diagnostics))
        campaign = result.campaign
        numbers = ", ".join(str(m.number) for m in campaign.missions)
        if mission_key is None:
            if len(campaign.missions) != 1:
                raise click.BadParameter(f"{path} has {len(campaign.missions)} missions: choose "
                                         f"one with --mission (numbers {numbers})",
                                         param_hint="'--mission'")
            mission = campaign.missions[0]
        else:
            try:
                mission = campaign.mission(mission_key)
            except KeyError:
                raise click.BadParameter(f"{path} has no mission {mission_key!r} (numbers "
                                         f"{numbers})", param_hint="'--mission'") from None
        return (mission, campaign.rulebook, campaign.colors, dict(campaign.actions) or
                standard_actions(), path)
    if mission_key is not None:
        raise click.BadParameter("--mission chooses a mission of a campaign folder; "
                                 f"{source} is already one mission", param_hint="'--mission'")
    mission, rulebook, colors = resolve_mission(source)
    # The campaign the mission was found in: its file's, or the current one's for a number.
    folder = find_campaign(Path(mission.source).resolve()) if mission.source else None
    actions = standard_actions()
    if folder is not None:
        context = read_campaign(folder, with_missions=False).campaign
        actions = dict(context.actions) if context is not None and context.actions else actions
    if folder is not None and folder == starter_campaign().resolve():
        folder = None
    return mission, rulebook, colors, actions, Path(display(folder)) if folder else None


def _qr(link: str) -> None:
    """The link as a QR code in text (two rows of modules a line), as phones' cameras read it."""
    import segno

    segno.make(link, error="l").terminal(out=sys.stdout, compact=True, border=2)
    sys.stdout.flush()


def _default_games(campaign_dir: Path | None) -> Path:
    return (campaign_dir if campaign_dir is not None else Path(".")) / "games"


def _public_base(sock: object, host: str) -> str:
    """http://HOST:PORT as others reach it: on every interface, this machine's address on
    the network rather than 0.0.0.0."""
    import socket

    from synergy_forge.web.server import base_url

    assert isinstance(sock, socket.socket)
    base = base_url(sock)
    if host not in ("0.0.0.0", "::"):
        return base
    port = sock.getsockname()[1]
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))  # no packet is sent: this only picks the interface
        address = probe.getsockname()[0]
    except OSError:
        address = socket.gethostname()
    finally:
        probe.close()
    return f"http://{address}:{port}"


def _save(finished: Finished, log_path: Path | None, games: Path) -> None:
    """The finished game: its outcome on the terminal, its log written to --log and added to
    the games folder. A log that cannot be written is said in one line; play goes on."""
    import secrets
    import time

    from synergy_forge.authoring.gamelog import write_log
    from synergy_forge.errors import CannotWrite
    from synergy_forge.fileio import write_atomic
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
        try:
            write_atomic(path, text, overwrite=overwrite)
        except OSError as exc:
            click.echo(CannotWrite.from_os_error(exc, path).format_message(), err=True)
            continue
        click.echo(f"log written to {path} ({len(records)} records)")
