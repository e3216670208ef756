"""`synergy-forge build`."""

from __future__ import annotations

from pathlib import Path

import click

from synergy_forge.errors import CannotWrite, CheckFailed
from synergy_forge.printing.layout import CardSize

from ..output import show
from ..params import CARD_SIZE
from ..progress import Progress


@click.command("build")
@click.argument("campaign_dir", required=False, type=click.Path(exists=True, file_okay=False,
                                                                path_type=Path))
@click.option("--lang", "lang", default="all", show_default=True,
              help="A language of the campaign (en, fr), or all of them.")
@click.option("--paper", type=click.Choice(["a4", "letter"]), default="a4", show_default=True)
@click.option("--out", "out_dir", type=click.Path(file_okay=False, path_type=Path),
              default=Path("output"), show_default=True, help="Folder for the PDFs and PNGs.")
@click.option("--card-size", type=CARD_SIZE, default="63x88", show_default=True,
              help="Card size in mm (poker size by default).")
@click.option("--jobs", type=click.IntRange(1, 64), help="Worker processes (default: all "
              "cores).")
@click.option("--no-png", is_flag=True, help="Skip the 300 DPI per-card PNGs.")
@click.option("--tts", is_flag=True, help="Also export deck sheets and a saved object for "
              "Tabletop Simulator, into OUT/<lang>/tts/ (made from the PNGs).")
@click.option("--tts-url-base", metavar="URL", help="Where you will upload the TTS sheets: "
              "their URLs become URL/<file> instead of file:// URLs.")
def command(campaign_dir: Path | None, lang: str, paper: str, out_dir: Path,
            card_size: CardSize, jobs: int | None, no_png: bool, tts: bool,
            tts_url_base: str | None) -> None:
    """Render the print-and-play kit of CAMPAIGN_DIR (default: the starter campaign).

    Writes, per language, one PDF per component group, the rulebook, the challenge sheet, a
    calibration page, one combined print-and-play PDF, and 300 DPI PNGs of every card with
    its bleed. Exits 1 when the campaign has errors or a text does not fit on its card.
    """
    from synergy_forge.authoring.loading import read_campaign
    from synergy_forge.printing.i18n import available_languages
    from synergy_forge.printing.layout import LayoutError, sheet
    from synergy_forge.printing.render import Options, jobs_for
    from synergy_forge.printing.render import build as render_kit
    from synergy_forge.reporting.build import overflows
    from synergy_forge.reporting.build import text as build_report
    from synergy_forge.resources import starter_campaign

    if tts and no_png:
        raise click.UsageError("--tts makes its deck sheets from the PNGs: drop --no-png")
    if tts_url_base is not None:
        if not tts:
            raise click.UsageError("--tts-url-base is for --tts")
        if not tts_url_base.startswith(("http://", "https://")):
            raise click.BadParameter("expected an http:// or https:// URL",
                                     param_hint="'--tts-url-base'")
    folder = campaign_dir or starter_campaign()
    try:
        sheet(paper, card_size)
    except LayoutError as exc:
        raise click.BadParameter(str(exc), param_hint="'--card-size'") from None
    result = read_campaign(folder)
    for diagnostic in result.diagnostics:
        click.echo(str(diagnostic), err=True)
    if result.campaign is None:
        raise CheckFailed("the campaign has errors: nothing was built")
    languages = list(result.campaign.languages) if lang == "all" else [lang]
    known = available_languages()
    for language in languages:
        if language not in known:
            raise click.BadParameter(f"no translation for {language!r}; available: "
                                     f"{', '.join(known)}", param_hint="'--lang'")
    for language in languages:
        if language not in result.campaign.languages:
            click.echo(f"warning: {language} is not one of the campaign's languages; its texts "
                       "will be in English", err=True)
    options = Options(paper, card_size, png=not no_png, tts=tts, tts_url_base=tts_url_base)
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
        with Progress(len(jobs_for(languages)), "Rendering") as bar:
            results = render_kit(result.campaign, out_dir, languages, options, jobs,
                                 progress=lambda r: bar.update(1))
    except OSError as exc:
        raise CannotWrite.from_os_error(exc, out_dir) from None
    report = build_report(results, out_dir)
    show(report)
    if overflows(results):
        raise CheckFailed()
