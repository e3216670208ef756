"""The command line, on top of every layer: each command parses its options, calls one function,
formats the result."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path

import click

from synergy_forge import __version__
from synergy_forge.authoring.diagnostics import InvalidInput
from synergy_forge.core.rules import RuleError

#: Exit codes shared by every command.
EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


def fail_with(problem: InvalidInput) -> None:
    for diagnostic in problem.diagnostics:
        click.echo(str(diagnostic), err=True)
    sys.exit(EXIT_BAD_INPUT)


class _Guarded(click.Group):
    """Bad input is reported where it is found; this catches only our own mistakes, so that a
    user sees one line and a way to report it rather than a traceback."""

    def invoke(self, ctx: click.Context) -> object:
        try:
            return super().invoke(ctx)
        except (click.ClickException, click.exceptions.Exit, click.Abort, SystemExit):
            raise
        except KeyboardInterrupt:
            click.echo("interrupted", err=True)
            sys.exit(130)
        except RuleError as exc:  # a campaign's rule failed on a table no check foresaw
            click.echo(f"synergy-forge: error: {exc}", err=True)
            sys.exit(EXIT_BAD_INPUT)
        except BrokenPipeError:  # output piped into `head` and the like: stop quietly
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
            sys.exit(141)
        except Exception as exc:
            if os.environ.get("SYNERGY_FORGE_DEBUG"):
                raise
            click.echo(f"synergy-forge: internal error: {type(exc).__name__}: {exc}\n"
                       "This is a bug in synergy-forge; run again with SYNERGY_FORGE_DEBUG=1 "
                       "for the details and report them.", err=True)
            sys.exit(3)


@click.group(cls=_Guarded, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="synergy-forge")
def main() -> None:
    """Design, referee, playtest and print missions for the card game Synergy."""


@main.command()
@click.argument("files", nargs=-1, required=True, type=click.Path(path_type=Path))
@click.option("--json", "as_json", is_flag=True, help="Print the verdict as one JSON object "
              "(one per line when several files are given).")
@click.option("--data-rules", is_flag=True, help="Evaluate goals and challenges through their "
              "rule expressions instead of the native fast path (the results are the same).")
def judge(files: tuple[Path, ...], as_json: bool, data_rules: bool) -> None:
    """Settle the round written in FILE (YAML or JSON, see schemas/round.schema.json).

    Exits 0 with the verdict, whatever it is; 2 when a file cannot be judged.
    """
    from synergy_forge.authoring.definitions import standard_rulebook
    from synergy_forge.authoring.roundfile import read_round
    from synergy_forge.core.referee import judge as settle_round
    from synergy_forge.reporting.explain import verdict_json, verdict_text

    rulebook = standard_rulebook(native=not data_rules)
    problems: list = []
    outputs = []
    for path in files:
        try:
            table = read_round(path, rulebook)
        except InvalidInput as exc:
            problems.extend(exc.diagnostics)
            continue
        verdict = settle_round(table, rulebook)
        if as_json:
            outputs.append(json.dumps(verdict_json(verdict, rulebook), ensure_ascii=False))
        else:
            header = f"== {path}\n" if len(files) > 1 else ""
            outputs.append(header + verdict_text(verdict, rulebook))
    click.echo(("\n" if as_json else "\n\n").join(outputs)) if outputs else None
    if problems:
        fail_with(InvalidInput(problems))


FORMATS = ("text", "json", "github")


def _github(diagnostic) -> str:
    # GitHub Actions workflow commands: data must have %, CR and LF escaped.
    def esc(text: str) -> str:
        return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")

    return (f"::{diagnostic.severity} file={esc(diagnostic.file)},line={diagnostic.line},"
            f"col={diagnostic.column},title={diagnostic.check}::{esc(diagnostic.message)}")


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--format", "fmt", type=click.Choice(FORMATS), default="text", show_default=True,
              help="text: FILE:LINE:COLUMN: severity: message [check]; json: one object "
              "(docs/ci.md); github: GitHub Actions annotations.")
def validate(paths: tuple[Path, ...], fmt: str) -> None:
    """Check missions, campaigns, goals, challenges and rounds.

    PATHS are files or folders (a folder with campaign.yaml is a campaign; any other folder is
    searched for *.yaml, *.yml and *.json). Default: the bundled starter campaign. Exits 0 when
    there is no error (warnings allowed), 1 when there are errors, 2 on a usage error (a folder
    with no file to check is one).
    """
    from synergy_forge.authoring.validate import validate_paths
    from synergy_forge.resources import starter_campaign

    report = validate_paths(list(paths) or [starter_campaign()])
    if report.files == 0:  # a folder with nothing to check is a mistake in the command
        click.echo(f"{', '.join(map(str, paths))}: no file to check (a campaign.yaml, or "
                   f"*.yaml, *.yml, *.json files)", err=True)
        sys.exit(EXIT_BAD_INPUT)
    if fmt == "json":
        click.echo(json.dumps(report.as_json(), indent=2, ensure_ascii=False))
    elif fmt == "github":
        for diagnostic in report.diagnostics:
            click.echo(_github(diagnostic))
    else:
        for diagnostic in report.diagnostics:
            click.echo(str(diagnostic))
        files = f"{report.files} file{'s' if report.files != 1 else ''}"
        summary = f"{files} checked: {report.errors} error(s), {report.warnings} warning(s)"
        click.echo(summary, err=bool(report.diagnostics))
    sys.exit(EXIT_FAILED if report.errors else EXIT_OK)


@main.group()
def new() -> None:
    """Start a new mission or campaign from a commented template that validates as written."""


@new.command("mission")
@click.argument("path", type=click.Path(path_type=Path))
@click.option("--force", is_flag=True, help="Overwrite an existing file.")
def new_mission(path: Path, force: bool) -> None:
    """Write a starting mission file at PATH."""
    from synergy_forge.authoring.scaffold import write_mission

    _scaffold(lambda: write_mission(path, force=force))


@new.command("campaign")
@click.argument("folder", type=click.Path(path_type=Path))
@click.option("--languages", default="en,fr", show_default=True,
              help="Comma-separated language codes.")
def new_campaign(folder: Path, languages: str) -> None:
    """Create a campaign folder: campaign.yaml, a first mission, a custom challenge and goal."""
    from synergy_forge.authoring.scaffold import write_campaign

    langs = tuple(x.strip() for x in languages.split(",") if x.strip())
    _scaffold(lambda: write_campaign(folder, langs))


def _scaffold(action) -> None:
    try:
        written = action()
    except FileExistsError as exc:
        click.echo(f"{exc.filename}: already exists; nothing was written (use another path"
                   " or --force for a single file)", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except OSError as exc:
        click.echo(f"{exc.filename}: cannot write: {exc.strerror}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    for path in written:
        click.echo(f"wrote {path}")


def _resolve_mission(spec: str):
    """A mission file, or the number or id of a mission of the bundled starter campaign."""
    from synergy_forge.authoring.loading import load_mission_file
    from synergy_forge.resources import starter_campaign

    path = Path(spec)
    if not path.exists():
        folder = starter_campaign() / "missions"
        matches = [p for p in sorted(folder.glob("*.yaml"))
                   if (spec.isdigit() and p.name.split("-")[0].lstrip("0") == spec.lstrip("0"))
                   or p.stem.split("-", 1)[-1] == spec]
        if not matches:
            click.echo(f"{spec}: no such file, nor a mission number or id of the starter "
                       "campaign", err=True)
            sys.exit(EXIT_BAD_INPUT)
        path = matches[0]
    try:
        return load_mission_file(path)
    except InvalidInput as exc:
        fail_with(exc)


@main.command()
@click.argument("mission")
@click.option("--players", type=click.IntRange(3, 5), help="Player count (default: 4 if the "
              "mission allows it, else its first).")
@click.option("--seed", type=int, help="Seed of the game's shuffles and bots (default: random, "
              "printed).")
@click.option("--bots", default="coop", show_default=True,
              help="One bot for every seat (random, greedy, coop, oracle), or one per seat: "
              "coop,random,…")
@click.option("--log", "log_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Write every decision to this JSON Lines file, for `replay`.")
@click.option("--quiet", is_flag=True, help="Print only the outcome.")
def play(mission: str, players: int | None, seed: int | None, bots: str,
         log_path: Path | None, quiet: bool) -> None:
    """Watch bots play MISSION (a mission file, or a starter mission's number or id)."""
    import random as _random

    from synergy_forge.authoring.gamelog import Recorder, write_log
    from synergy_forge.core.engine import Game
    from synergy_forge.fileio import write_atomic
    from synergy_forge.reporting.explain import outcome_text
    from synergy_forge.reporting.narrate import heading, round_story
    from synergy_forge.sim.bots import BOTS
    from synergy_forge.sim.play import play as play_game

    loaded, rulebook, colors = _resolve_mission(mission)
    count = players or (4 if 4 in loaded.players else loaded.players[0])
    if count not in loaded.players:
        raise click.BadParameter(f"mission {loaded.id} is for {', '.join(map(str, loaded.players))}"
                                 " players", param_hint="--players")
    names = [b.strip() for b in bots.split(",")]
    names = names * count if len(names) == 1 else names
    unknown = [b for b in names if b not in BOTS]
    if unknown or len(names) != count:
        raise click.BadParameter(f"give one bot or {count}, each of {', '.join(BOTS)}",
                                 param_hint="--bots")
    seed = seed if seed is not None else _random.SystemRandom().randrange(10**6)
    game = Game(loaded, count, seed, rulebook, colors)
    started = False

    def show(g: Game) -> None:
        nonlocal started
        if quiet:
            return
        if not started:
            click.echo(heading(g, names) + "\n")
            started = True
        click.echo(round_story(g, g.history[-1]) + "\n")

    recorder = Recorder(game, names) if log_path is not None else None
    play_game(game, names, on_decision=recorder, after_round=show)
    if not started and not quiet:
        click.echo(heading(game, names) + "\n")
    click.echo(outcome_text(game.outcome))
    if recorder is not None and log_path is not None:
        records = recorder.finish(game)
        write_atomic(log_path, write_log(records))
        click.echo(f"log written to {log_path} ({len(records)} records)", err=True)


@main.command()
@click.argument("log_file", type=click.Path(path_type=Path))
def replay(log_file: Path) -> None:
    """Re-run a game log through the engine and confirm its outcome.

    Exits 0 when every decision is legal and the outcome is the same, 1 naming the first
    record that is illegal or disagrees, 2 when the file cannot be read.
    """
    from synergy_forge.authoring.gamelog import ReplayError, log_lines
    from synergy_forge.authoring.gamelog import replay as replay_log
    from synergy_forge.fileio import open_regular
    from synergy_forge.reporting.explain import outcome_text

    try:
        stream = open_regular(log_file)
    except OSError as exc:
        click.echo(f"{log_file}:1:1: error: cannot read the log: {exc.strerror}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    try:
        with stream:
            game = replay_log(log_lines(stream))
    except ReplayError as exc:
        click.echo(f"{log_file}:{exc.line}:1: error: {exc.message}", err=True)
        sys.exit(EXIT_FAILED)
    except OSError as exc:  # a read error part way through
        click.echo(f"{log_file}:1:1: error: cannot read the log: {exc.strerror}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    click.echo(f"{log_file}: replayed {game.outcome.rounds_played} round(s): "  # type: ignore
               f"{outcome_text(game.outcome)} (same outcome as recorded)")


def _card_size(text: str):
    from synergy_forge.printing.layout import CardSize

    try:
        width, height = (float(x) for x in text.lower().split("x"))
    except ValueError:
        raise click.BadParameter("expected WIDTHxHEIGHT in mm, e.g. 63x88") from None
    if not (30 <= width <= 100 and 30 <= height <= 120):
        raise click.BadParameter("cards must be 30 to 100 mm wide and 30 to 120 mm high")
    return CardSize(width, height)


def _out_folder(ctx: click.Context, param: click.Parameter, value: str) -> Path:
    if not value.strip():
        raise click.BadParameter("must name a folder (an empty name would write into the "
                                 "current folder)")
    return Path(value)


@main.command()
@click.argument("campaign_dir", required=False, type=click.Path(exists=True, file_okay=False,
                                                                path_type=Path))
@click.option("--lang", "lang", default="all", show_default=True,
              help="A language of the campaign (en, fr), or all of them.")
@click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4", show_default=True)
@click.option("--out", "out_dir", default="output", show_default=True, callback=_out_folder,
              help="Folder for the PDFs and PNGs (and the cache, in OUT/.cache).")
@click.option("--card-size", default="63x88", show_default=True,
              help="Card size in mm (poker size by default).")
@click.option("--jobs", type=click.IntRange(1, 64), help="Worker processes (default: all "
              "cores).")
@click.option("--no-png", is_flag=True, help="Skip the 300 DPI per-card PNGs.")
@click.option("--tts", is_flag=True, help="Also export deck sheets and a saved object for "
              "Tabletop Simulator, into OUT/<lang>/tts/ (made from the PNGs).")
@click.option("--tts-url-base", metavar="URL", help="Where you will upload the TTS sheets: "
              "their URLs become URL/<file> instead of file:// URLs.")
@click.option("--no-cache", is_flag=True, help="Render everything again, without reading or "
              "keeping OUT/.cache (the output is the same).")
@click.option("--watch", is_flag=True, help="Build, then build again on every save in the "
              "campaign folder, until Ctrl-C.")
def build(campaign_dir: Path | None, lang: str, paper: str, out_dir: Path, card_size: str,
          jobs: int | None, no_png: bool, tts: bool, tts_url_base: str | None, no_cache: bool,
          watch: bool) -> None:
    """Render the print-and-play kit of CAMPAIGN_DIR (default: the starter campaign).

    Writes, per language, one PDF per component group, the rulebook, the challenge sheet, a
    calibration page, one combined print-and-play PDF, and 300 DPI PNGs of every card with
    its bleed. Only what changed since the last build into the same --out is rendered again.
    Exits 1 when the campaign has errors or a text does not fit on its card.
    """
    from synergy_forge.printing.layout import LayoutError, sheet
    from synergy_forge.resources import starter_campaign

    if tts and no_png:
        raise click.UsageError("--tts makes its deck sheets from the PNGs: drop --no-png")
    if tts_url_base is not None:
        if not tts:
            raise click.UsageError("--tts-url-base is for --tts")
        if not tts_url_base.startswith(("http://", "https://")):
            raise click.BadParameter("expected an http:// or https:// URL",
                                     param_hint="--tts-url-base")
    folder = campaign_dir or starter_campaign()
    size = _card_size(card_size)
    try:
        sheet(paper, size)
    except LayoutError as exc:
        raise click.BadParameter(str(exc), param_hint="--card-size") from None
    tts_options = (tts, tts_url_base)
    code = _build_once(folder, lang, paper, out_dir, size, jobs, no_png, no_cache, tts_options)
    if not watch:
        sys.exit(code)
    import logging

    import watchfiles

    logging.getLogger("watchfiles").setLevel(logging.ERROR)  # its own Ctrl-C notice
    outside = out_dir.resolve()

    def campaign_file(change: watchfiles.Change, path: str) -> bool:
        return not Path(path).resolve().is_relative_to(outside) and \
            path.endswith((".yaml", ".yml", ".json"))

    click.echo(f"watching {folder} for changes (Ctrl-C to stop)", err=True)
    try:
        for _ in watchfiles.watch(folder, watch_filter=campaign_file, debounce=200, step=50,
                                  raise_interrupt=False):
            _build_once(folder, lang, paper, out_dir, size, jobs, no_png, no_cache, tts_options)
            click.echo(f"watching {folder} for changes (Ctrl-C to stop)", err=True)
    except KeyboardInterrupt:
        pass


def _build_once(folder: Path, lang: str, paper: str, out_dir: Path, size, jobs: int | None,
                no_png: bool, no_cache: bool, tts_options: tuple[bool, str | None]) -> int:
    """One build; returns the exit code (usage errors exit at once, even with --watch)."""
    tts, tts_url_base = tts_options
    from synergy_forge.authoring.loading import read_campaign
    from synergy_forge.printing.i18n import available_languages
    from synergy_forge.printing.render import Options, OutputFolderError, jobs_for
    from synergy_forge.printing.render import build as render_kit

    result = read_campaign(folder)
    for diagnostic in result.diagnostics:
        click.echo(str(diagnostic), err=True)
    if result.campaign is None:
        click.echo("the campaign has errors: nothing was built", err=True)
        return EXIT_FAILED
    languages = list(result.campaign.languages) if lang == "all" else [lang]
    known = available_languages()
    for language in languages:
        if language not in known:
            raise click.BadParameter(f"no translation for {language!r}; available: "
                                     f"{', '.join(known)}", param_hint="--lang")
    for language in languages:
        if language not in result.campaign.languages:
            click.echo(f"warning: {language} is not one of the campaign's languages; its texts "
                       "will be in English", err=True)
    options = Options(paper, size, png=not no_png, tts=tts, tts_url_base=tts_url_base)
    try:
        with click.progressbar(length=len(jobs_for(languages)), label="Rendering",
                               file=sys.stderr) as bar:
            results = render_kit(result.campaign, out_dir, languages, options, jobs,
                                 progress=lambda r: bar.update(1), cache=not no_cache)
    except OutputFolderError as exc:
        click.echo(f"synergy-forge: error: {exc}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    except OSError as exc:
        click.echo(f"{exc.filename or out_dir}: cannot write: {exc.strerror}", err=True)
        sys.exit(EXIT_BAD_INPUT)
    problems = 0
    for r in sorted(results, key=lambda r: (r.job.language, str(r.path))):
        if r.job.kind == "tts":
            click.echo(f"  {os.path.relpath(r.path)}  Tabletop Simulator, {len(r.pngs)} image(s)")
            continue
        extra = f", {len(r.pngs)} PNGs" if r.pngs else ""
        click.echo(f"  {os.path.relpath(r.path)}  {r.pages} page(s){extra}")
    for r in results:
        for what in r.overflows:
            source, _, field = what.partition("|")
            click.echo(f"{source or 'card text'}: {field} ({r.job.language}) does not fit on "
                       f"its card in {r.job.name}", err=True)
            problems += 1
        for url in r.refused:
            click.echo(f"refused to load {url} while rendering {r.job.name}", err=True)
    missing = sorted({(r.job.language, m) for r in results for m in r.missing})
    for language, message in missing[:20]:
        click.echo(f"warning: no {language} translation for {message!r}; English was used",
                   err=True)
    if len(missing) > 20:
        click.echo(f"warning: … and {len(missing) - 20} more missing translations", err=True)
    pdfs = [r for r in results if r.job.kind != "tts"]
    pngs = sum(len(r.pngs) for r in pdfs)
    exports = len(results) - len(pdfs)
    click.echo(f"Built {len(pdfs)} PDFs and {pngs} PNGs"
               + (f", {exports} Tabletop Simulator export(s)" if exports else "")
               + f" in {out_dir}"
               + (f"; {problems} text(s) do not fit" if problems else ""))
    return EXIT_FAILED if problems else EXIT_OK


def _playtest_sources(paths: tuple[Path, ...]):
    from synergy_forge.authoring.loading import CAMPAIGN_FILE, load_mission_file, read_campaign
    from synergy_forge.resources import starter_campaign
    from synergy_forge.sim.playtest import Playable

    sources = []
    for path in paths or (starter_campaign(),):
        if path.is_dir():
            if not (path / CAMPAIGN_FILE).is_file():
                raise click.BadParameter(f"{path} has no {CAMPAIGN_FILE}", param_hint="PATHS")
            result = read_campaign(path)
            if result.campaign is None:
                fail_with(InvalidInput([d for d in result.diagnostics
                                        if d.severity == "error"]))
            campaign = result.campaign
            sources += [Playable(m, campaign.rulebook, campaign.colors)
                        for m in campaign.missions]
        else:
            try:
                mission, rulebook, colors = load_mission_file(path)
            except InvalidInput as exc:
                fail_with(exc)
            sources.append(Playable(mission, rulebook, tuple(colors)))
    return sources


@main.command()
@click.argument("paths", nargs=-1, type=click.Path(exists=True, path_type=Path))
@click.option("--games", type=click.IntRange(1, 1_000_000), default=100, show_default=True,
              help="Games per mission, player count and bot.")
@click.option("--players", default="all", show_default=True, help="3, 4, 5 or all.")
@click.option("--bots", default="coop,oracle", show_default=True,
              help="Comma-separated: random, greedy, coop, oracle (oracle cheats: it sees "
              "every hand).")
@click.option("--seed", type=int, default=1, show_default=True)
@click.option("--jobs", type=click.IntRange(1, 64), help="Worker processes (default: all "
              "cores). Results are the same whatever the number.")
@click.option("--json", "as_json", is_flag=True, help="Print one JSON object "
              "(docs/playtest.md).")
@click.option("--html", "html_path", type=click.Path(dir_okay=False, path_type=Path),
              help="Also write an HTML report with charts.")
@click.option("--check", is_flag=True, help="Exit 1 when a mission is unwinnable or its "
              "declared stars are outside the estimate.")
def playtest(paths: tuple[Path, ...], games: int, players: str, bots: str, seed: int,
             jobs: int | None, as_json: bool, html_path: Path | None, check: bool) -> None:
    """Estimate each mission's difficulty by playing it many times with bots.

    PATHS are campaign folders or mission files (default: the starter campaign).
    """
    from synergy_forge.reporting.playtest import playtest_html, playtest_text
    from synergy_forge.sim import playtest as pt
    from synergy_forge.sim.bots import BOTS

    names = [b.strip() for b in bots.split(",") if b.strip()]
    unknown = [b for b in names if b not in BOTS]
    if unknown or not names:
        raise click.BadParameter(f"unknown bot(s) {', '.join(unknown)}; expected "
                                 f"{', '.join(BOTS)}", param_hint="--bots")
    if players == "all":
        counts = None
    elif players in ("3", "4", "5"):
        counts = [int(players)]
    else:
        raise click.BadParameter("expected 3, 4, 5 or all", param_hint="--players")
    sources = _playtest_sources(paths)
    total = sum(games * len(names) * len([p for p in (counts or s.mission.players)
                                          if p in s.mission.players]) for s in sources)
    show = total >= 2000 and not as_json
    if show:
        with click.progressbar(length=total, label="Playing", file=sys.stderr) as bar:
            cells = pt.run(sources, names, counts, games, seed, jobs, progress=bar.update)
    else:
        cells = pt.run(sources, names, counts, games, seed, jobs)
    found = pt.estimates(cells)
    report = pt.as_json(cells, found, games, seed, names)
    if as_json:
        click.echo(json.dumps(report, indent=2, ensure_ascii=False))
    else:
        click.echo(playtest_text(report))
    if html_path is not None:
        from synergy_forge.fileio import write_atomic

        write_atomic(html_path, playtest_html(report))
        click.echo(f"report written to {html_path}", err=True)
    failing = [e for e in found if e.fails_check]
    sys.exit(EXIT_FAILED if check and failing else EXIT_OK)


def _register() -> None:
    # One module per command from here on; the studio's own package is imported only when the
    # command runs.
    from synergy_forge.cli.studio import studio

    main.add_command(studio)


_register()
