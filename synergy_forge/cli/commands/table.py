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
    from synergy_forge.core.mission import Mission
    from synergy_forge.table.model import Finished, GameTable
    from synergy_forge.table.session import Opened, Wanted
    from synergy_forge.table.store import Store
    from synergy_forge.workspace.play import MissionToPlay

DEFAULT_PORT = 8766


@click.command("table")
@click.argument("source", metavar="[MISSION-OR-CAMPAIGN]", required=False)
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
@click.option("--state", "state_path", type=click.Path(dir_okay=False, path_type=Path),
              help="The tables' state file (SQLite): every game is kept there as it is "
              "played, and `table` started again with it resumes every unfinished one "
              "(default: .synergy/tables.sqlite3 in the campaign; for the starter campaign, "
              "in your data folder).")
@click.option("--idle", type=click.FloatRange(0, 7 * 24 * 60), default=120, show_default=True,
              help="Minutes after which a table nobody uses ends (0: never).")
@click.option("--pace", type=click.FloatRange(0, 60), default=1.5, show_default=True,
              help="Seconds a bot waits before each of its choices, so people can follow.")
@click.option("--review-rollouts", type=click.IntRange(0, 10000), default=100,
              show_default=True, help="Games played on from each decision, per chance at "
              "most, in a game's review, made while it is played (0: no review).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on; 0.0.0.0 lets phones on your network join.")
@click.option("--port", type=click.IntRange(0, 65535), default=DEFAULT_PORT, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--no-browser", is_flag=True, help="Do not open the host's page (with one "
              "person, their seat's) in a browser.")
def command(source: str | None, mission_key: str | None, player_count: int | None,
            humans: int | None, bots: tuple[str, ...], seed: int | None, log_path: Path | None,
            games_dir: Path | None, state_path: Path | None, idle: float, pace: float,
            review_rollouts: int, host: str, port: int, no_browser: bool) -> None:
    """Play MISSION-OR-CAMPAIGN together in the browser, one device per person.

    MISSION-OR-CAMPAIGN is a mission file, a mission's number or id in the current campaign
    (else the starter campaign), or a campaign folder with --mission. Prints the host's link
    (every seat's link and QR code, bots for people who left, rematches, the campaign's next
    mission), the spectators' link and one link per person's seat; the referee enforces every
    rule, bots play the other seats. Each finished game's log is added to the games folder.

    Every decision is kept in the state file: started again, `table` resumes every unfinished
    game where it stopped, with the same links (without MISSION-OR-CAMPAIGN, only those).
    Stop with Ctrl-C.
    """
    from synergy_forge.table.server import Tables, serve
    from synergy_forge.table.store import Store
    from synergy_forge.web.server import public_base

    from ..serving import listening

    chosen = _mission(source, mission_key) if source is not None else None
    if chosen is None and any(v is not None for v in (mission_key, player_count, humans, seed,
                                                      log_path, games_dir)):
        raise click.UsageError("--mission, --players, --humans, --seed, --log and --games "
                               "describe a new table: name its MISSION-OR-CAMPAIGN too")
    wanted = None if chosen is None else \
        _wanted(chosen, player_count, humans, bots, seed, log_path, games_dir, pace,
                review_rollouts)
    state = state_path or _default_state(chosen)
    sock = listening(host, port, "anyone on your network with a seat's link can play that seat")
    store = Store(state)
    try:
        opened = _open(store, state, idle * 60 or None, wanted)
        tables = Tables(opened.tables, public_base(sock, host), idle * 60 or None)
        serve(tables, sock, lambda: _ready(opened, state, host, no_browser, tables.base))
        _stopped(opened, state)
    finally:
        store.close()


def _open(store: Store, state: Path, idle: float | None, wanted: Wanted | None) -> Opened:
    """The state file's unfinished tables and the one asked for (table.session.open_tables);
    a usage error when there is none."""
    from synergy_forge.table.session import open_tables

    opened = open_tables(store, idle, _save, wanted)
    for row, why in opened.broken:
        click.echo(f"warning: {state}: table {row.id} cannot be resumed ({why}); it is left "
                   "as it is", err=True)
    if not opened.tables:
        raise click.UsageError(f"no unfinished table in {state}: name a mission to open one "
                               "(synergy-forge table 5)")
    return opened


def _stopped(opened: Opened, state: Path) -> None:
    """The server stopped: where each unfinished game is kept."""
    for table in opened.tables:
        if not table.ended and not table.over:
            click.echo(f"table stopped in round {table.game.round_number} of mission "
                       f"{table.game.mission.number}: kept in {state}; `synergy-forge table` "
                       "started again resumes it")
    click.echo("table stopped")


def _wanted(chosen: MissionToPlay, player_count: int | None, humans: int | None,
            bots: tuple[str, ...], seed: int | None, log_path: Path | None,
            games_dir: Path | None, pace: float, review_rollouts: int) -> Wanted:
    """The table the options ask for, opened when the state file does not hold it already."""
    import secrets

    from synergy_forge.table.model import GameTable
    from synergy_forge.table.session import Wanted

    found = chosen.file
    players, seats = _seats(found.mission, player_count, humans, bots)
    # The seed deals every hand: a guessable one would let a player work the others' out.
    dealt = seed if seed is not None else secrets.randbits(63)
    options = {"pace": pace, "log": None if log_path is None else str(log_path.absolute()),
               "games": str((games_dir or chosen.games).absolute()),
               "campaign": None if found.campaign is None else str(found.campaign),
               "review_rollouts": review_rollouts}
    return Wanted(found.mission.id, tuple(seats), lambda store: GameTable(
        found.mission, found.rulebook, found.colors, players, dealt, seats,
        actions=dict(found.actions), campaign=found.name, pace=pace, on_end=_save, store=store,
        options=options))


def _default_state(chosen: MissionToPlay | None) -> Path:
    """The state file of the mission's campaign (without a mission: of the campaign here),
    kept out of the campaign's git."""
    from synergy_forge.workspace.campaign import workspace_here
    from synergy_forge.workspace.play import keep_out_of_git, state_file

    if chosen is not None:
        state = state_file(chosen.file.campaign)
    else:
        here = workspace_here()
        state = state_file(here.folder if here is not None else None)
    keep_out_of_git(state)
    return state


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


def _ready(opened: Opened, state: Path, host: str, no_browser: bool, base: str) -> None:
    """The tables are listening: each one's links (with a QR code of each seat's for phones on
    the network), how people join, the host's page opened (the seat's, for one person)."""
    from synergy_forge.web.server import LOOPBACK

    from ..serving import browse

    for ended in opened.ended:
        title = ended.games[-1].header["mission"]["id"]
        click.echo(f"table {ended.id} ({title}) ended: nobody had used it for longer than "
                   "--idle")
    # Phones join a table on the network by scanning their seat's code off the terminal.
    codes = host not in LOOPBACK and sys.stdout.isatty()
    for table in opened.tables:
        _links(table, table in opened.resumed, base, codes)
    click.echo(f"state: {state} (every decision is kept there; the same command again "
               "resumes an unfinished game)")
    if host not in LOOPBACK:
        address = base.split("//", 1)[1].rsplit(":", 1)[0]
        click.echo(f"Who can join: anyone on this machine's networks (its address there: "
                   f"{address}) who has a link. A seat's link is that seat's key: send each "
                   "only to its player (or let them scan its code, here or on the host's "
                   "page); the watch link lets anyone watch; the host link is yours alone. "
                   "Nobody outside your network can reach the table unless your router "
                   "forwards this port to this machine.")
    first = opened.new or opened.tables[0]
    alone = first.people
    browse(f"{base}/seat/{first.keys[alone[0]]}" if len(alone) == 1 else
           f"{base}/host/{first.host}", no_browser)


def _links(table: GameTable, resumed: bool, base: str, codes: bool) -> None:
    """A table's heading (who sits where; where a resumed game is), its host's and
    spectators' links, each person's seat's link."""
    from synergy_forge.table.view import PERSON

    m, kinds, game = table.game.mission, table.players, table.game
    people = kinds.count(PERSON)
    bot_seats = len(kinds) - people
    who = f"{people} {'person' if people == 1 else 'people'}"
    if bot_seats:
        who += f", {bot_seats} bot{'s' if bot_seats > 1 else ''}"
    where = ""
    if resumed:
        where = f", resumed in round {game.round_number}" + \
            (f" of game {game.number}" if game.number > 1 else "")
    click.echo(f'Table for mission {m.number} "{m.label()}": {len(kinds)} players ({who})'
               f"{where}; Ctrl-C to stop")
    click.echo(f"host: {base}/host/{table.host}")
    click.echo(f"watch: {base}/watch/{table.watch}")
    for seat, kind in enumerate(kinds):
        if kind == PERSON:
            click.echo(f"seat {seat}: {base}/seat/{table.keys[seat]}")
            if codes:
                _qr(f"{base}/seat/{table.keys[seat]}")
        else:
            click.echo(f"seat {seat}: bot {kind}")


def _qr(link: str) -> None:
    """The link as a QR code in text (two rows of modules a line), as phones' cameras read it."""
    import segno

    segno.make(link, error="l").terminal(out=sys.stdout, compact=True, border=2)
    sys.stdout.flush()


def _save(finished: Finished) -> None:
    """The finished game: its outcome on the terminal, its log written to --log and added to
    the games folder (as the table's options say). A log that cannot be written is said in
    one line; play goes on."""
    import secrets
    import time

    from synergy_forge.authoring.gamelog import write_log
    from synergy_forge.errors import CannotWrite
    from synergy_forge.fileio import write_atomic, write_inside
    from synergy_forge.reporting.explain import outcome_text

    game, records = finished.game, finished.records
    log = finished.options.get("log")
    log_path = Path(log) if log is not None else None
    games = Path(finished.options["games"])
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
