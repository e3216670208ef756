"""`synergy-forge build`."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from synergy_forge.cardtext.geometry import POKER, CardSize
from synergy_forge.errors import CheckFailed
from synergy_forge.printing.workers import WarmWorkers, prepare_workers

from ..output import say, show
from ..params import CARD_SIZE
from ..progress import Progress

if TYPE_CHECKING:
    from synergy_forge.core.mission import Campaign
    from synergy_forge.printing.jobs import Options
    from synergy_forge.workspace.campaign import Workspace


def _out_folder(ctx: click.Context, param: click.Parameter, value: str) -> Path:
    if not value.strip():
        raise click.BadParameter("must name a folder (an empty name would write into the "
                                 "current folder)")
    return Path(value)


@click.command("build")
@click.argument("campaign_dir", required=False, type=click.Path(exists=True, file_okay=False,
                                                                path_type=Path))
@click.option("--lang", "lang", default="all", show_default=True,
              help="A language of the campaign (en, fr), or all of them.")
@click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4", show_default=True)
@click.option("--out", "out_dir", default="output", show_default=True, callback=_out_folder,
              help="Folder for the PDFs and PNGs (and the cache, in OUT/.cache); by default "
              "output/ in the campaign's folder.")
@click.option("--card-size", type=CARD_SIZE, default=f"{POKER.width:g}x{POKER.height:g}",
              show_default=True, help="Card size in mm (poker size by default).")
@click.option("--jobs", type=click.IntRange(1, 64), help="Worker processes (default: all "
              "cores).")
@click.option("--no-png", is_flag=True, help="Skip the 300 DPI per-card PNGs.")
@click.option("--tts", is_flag=True, help="Also export deck sheets and a saved object for "
              "Tabletop Simulator, into OUT/<lang>/tts/ (made from the PNGs).")
@click.option("--tts-url-base", metavar="URL", help="Where you will upload the TTS sheets: "
              "their URLs become URL/<file> instead of file:// URLs.")
@click.option("--no-cache", is_flag=True, help="Render everything again, without reading or "
              "keeping OUT/.cache (the output is the same).")
@click.option("--layout", "sheet_layout", type=click.Choice(["duplex", "fold"]),
              default="duplex", show_default=True, help="duplex: sheets of 3 x 3 cards, "
              "fronts then backs, to print double-sided; fold: single-sided sheets, each back "
              "beside its front, to fold in two (printers without duplex).")
@click.option("--ink-saver", is_flag=True, help="Light backs and colour bands: no sheet more "
              "than a quarter covered in ink.")
@click.option("--preset", type=click.Choice(["tgc", "mpc", "dtc"]), help="A print shop's card "
              "size and bleed, so that each card's PNG is the image it takes: tgc (The Game "
              "Crafter, 825x1125 px), mpc (MakePlayingCards, 822x1122 px), dtc (DriveThruCards, "
              "825x1125 px; also one CMYK PDF/X-1a PDF per deck, front, back, front..., in "
              "OUT/<lang>/dtc/). See docs/printing.md.")
@click.option("--watch", is_flag=True, help="Build, then build again on every save in the "
              "campaign folder, until Ctrl-C.")
def command(campaign_dir: Path | None, lang: str, paper: str, out_dir: Path,
            card_size: CardSize, jobs: int | None, no_png: bool, tts: bool,
            tts_url_base: str | None, no_cache: bool, sheet_layout: str, ink_saver: bool,
            preset: str | None, watch: bool) -> None:
    """Render the print-and-play kit of CAMPAIGN_DIR (default: the campaign of the current
    folder or the nearest one above it; the bundled starter campaign when there is none).

    Writes, per language, one PDF per component group, the rulebook, the challenge sheet, a
    calibration page, one combined print-and-play PDF, and 300 DPI PNGs of every card with
    its bleed. Only what changed since the last build into the same --out is rendered again.
    Exits 1 when the campaign has errors or a text does not fit on its card.
    """
    _check_options(no_png, tts, tts_url_base, preset)
    # Before the heavy imports: the fork server imports WeasyPrint meanwhile.
    workers = prepare_workers() if jobs != 1 else None
    from synergy_forge.printing.jobs import PRESETS, Options
    from synergy_forge.printing.layout import LayoutError, fold_sheet, sheet
    from synergy_forge.workspace.campaign import open_workspace

    workspace = open_workspace(campaign_dir, say)
    out_dir = _default_out(workspace, out_dir)
    if preset is not None:
        card_size = PRESETS[preset].card
    try:
        (fold_sheet if sheet_layout == "fold" else sheet)(paper, card_size)
    except LayoutError as exc:
        raise click.BadParameter(str(exc), param_hint="'--card-size'") from None
    options = Options(paper, card_size, png=not no_png, tts=tts, tts_url_base=tts_url_base,
                      ink_saver=ink_saver, layout=sheet_layout, dtc=preset == "dtc",
                      full_bleed_backs=preset is not None, shop=preset)

    def build_once(workers: Any) -> bool:
        nonlocal workspace  # each reading after a save keeps what the one before read
        workspace = workspace.again()
        return _build_once(workspace, lang, out_dir, options, jobs, not no_cache, workers)

    if watch:
        _watch(workspace.folder, out_dir, build_once, WarmWorkers(workers, jobs))
    elif not build_once(workers):
        raise CheckFailed()


def _default_out(workspace: Workspace, out_dir: Path) -> Path:
    """--out as given, else output/ of the campaign's own folder (the current folder's for the
    bundled starter campaign): a bare `build` in any folder below the campaign builds the one
    kit, with its cache."""
    source = click.get_current_context().get_parameter_source("out_dir")
    if source is click.core.ParameterSource.DEFAULT and not workspace.starter:
        return workspace.folder / out_dir
    return out_dir


def _check_options(no_png: bool, tts: bool, tts_url_base: str | None,
                   preset: str | None) -> None:
    """The options that do not go together, refused before any work."""
    if tts and no_png:
        raise click.UsageError("--tts makes its deck sheets from the PNGs: drop --no-png")
    if tts_url_base is not None:
        if not tts:
            raise click.UsageError("--tts-url-base is for --tts")
        problem = _url_problem(tts_url_base)
        if problem is not None:
            raise click.BadParameter(f"{tts_url_base!r}: {problem}",
                                     param_hint="'--tts-url-base'")
    if preset is not None:
        if click.get_current_context().get_parameter_source("card_size") is \
                click.core.ParameterSource.COMMANDLINE:
            raise click.UsageError("--preset sets the card size: drop --card-size")
        if no_png and preset != "dtc":  # dtc's own output is its decks' PDFs
            raise click.UsageError("--preset is for the cards' PNGs: drop --no-png")


#: What a URL may hold as it is (RFC 3986's unreserved and reserved characters, and `%`).
_URL_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
                       "-._~:/@!$&'()*+,;=%[]")


def _url_problem(url: str) -> str | None:
    """Why `url` cannot be the base of the TTS sheets' URLs (base/<file>, written as it is into
    the saved object, which TTS fetches), or None when it can: an http(s) URL with a host, no
    character a URL must not hold (a space, a quote...), no query or fragment (the file name
    would be appended to them)."""
    from urllib.parse import urlsplit

    bad = sorted({ch for ch in url if ch not in _URL_CHARS} - {"?", "#"})
    if bad:
        return (f"{', '.join(repr(ch) for ch in bad)} cannot be in a URL as it is "
                "(percent-encode it, e.g. a space as %20)")
    if "?" in url or "#" in url:
        return "the sheets' file names are added after it: give a folder's URL, without ? or #"
    if any(len(part) < 2 or not all(c in "0123456789abcdefABCDEF" for c in part[:2])
           for part in url.split("%")[1:]):
        return "'%' must be followed by two hexadecimal digits"
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises on a port that is not a number
    except ValueError as exc:
        return f"not a URL: {exc}"
    if parts.scheme.lower() not in ("http", "https"):
        return "expected an http:// or https:// URL"
    if not parts.hostname:
        return "no host: expected https://HOST/FOLDER"
    return None


def _watch(folder: Path, out_dir: Path, build_once: Callable[[Any], bool],
           warm: WarmWorkers) -> None:
    """--watch: `build_once(warm)` once the campaign folder is watched, then on every save of
    a campaign file, until Ctrl-C (exit 0 once it watches: that is how it ends). The workers
    are kept from one build to the next: a save costs the pieces it changed."""
    import threading

    from synergy_forge.workspace.watch import watch

    watching = False

    def ready() -> None:  # said once saves are watched for again, so that none is missed
        nonlocal watching
        watching = True
        click.echo(f"watching {folder} for changes (Ctrl-C to stop)", err=True)

    try:
        with warm:
            watch(folder, lambda: build_once(warm), threading.Event(), ignore=(out_dir,),
                  after=ready, debounce=200)
    except KeyboardInterrupt:
        if not watching:
            raise


def _build_once(workspace: Workspace, lang: str, out_dir: Path, options: Options,
                jobs: int | None, cache: bool, workers: Any = None) -> bool:
    """One build; False when the campaign has errors or a text does not fit (reported here).
    Usage errors raise, and end even a --watch."""
    from synergy_forge.printing.print_run import documents
    from synergy_forge.reporting.formats import render
    from synergy_forge.workspace.build import check_kit, print_kit

    check = check_kit(workspace, options.card)
    show(render("kit-check", "text", check))
    if check.campaign is None:
        return False
    languages = _languages(check.campaign, lang)
    with Progress(documents(languages), "Rendering") as bar:
        kit = print_kit(check, out_dir, languages, options, jobs, cache=cache,
                        progress=lambda r: bar.update(1), workers=workers)
    show(render("build", "text", kit, out_dir=out_dir))
    return kit.fits


def _languages(campaign: Campaign, lang: str) -> list[str]:
    """--lang: the campaign's languages (all), or one we have a translation for, which the
    campaign may not have (its texts then in English, said on stderr)."""
    from synergy_forge.cardtext.i18n import available_languages

    languages = list(campaign.languages) if lang == "all" else [lang]
    known = available_languages()
    for language in languages:
        if language not in known:
            raise click.BadParameter(f"no translation for {language!r}; available: "
                                     f"{', '.join(known)}", param_hint="'--lang'")
    for language in languages:
        if language not in campaign.languages:
            click.echo(f"warning: {language} is not one of the campaign's languages; its texts "
                       "will be in English", err=True)
    return languages
