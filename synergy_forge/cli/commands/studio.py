"""`synergy-forge studio`: the live preview in the browser (synergy_forge/studio/)."""

from __future__ import annotations

from pathlib import Path

import click


@click.command("studio")
@click.argument("campaign_dir", required=False, type=click.Path(exists=True, file_okay=False,
                                                                path_type=Path))
@click.option("--port", type=click.IntRange(0, 65535), default=8765, show_default=True,
              help="Port to listen on (0: any free port).")
@click.option("--host", default="127.0.0.1", show_default=True,
              help="Address to listen on. Anything but the loopback shows your files to the "
              "network.")
@click.option("--lang", help="Language of the cards (default: the campaign's first).")
@click.option("--no-browser", is_flag=True, help="Do not open the page in a browser.")
def command(campaign_dir: Path | None, port: int, host: str, lang: str | None,
           no_browser: bool) -> None:
    """Show CAMPAIGN_DIR's cards, problems and difficulty in the browser, live.

    CAMPAIGN_DIR defaults to the campaign of the current folder or the nearest one above it
    (the bundled starter campaign when there is none). Every save of a campaign file
    updates the open page; each mission's difficulty estimate grows while the page is open.
    Stop with Ctrl-C: the studio then exits 0 (it runs until stopped).
    """
    from synergy_forge.cardtext.i18n import available_languages
    from synergy_forge.workspace.campaign import open_workspace

    from ..output import say
    from ..serving import browse, listening

    folder = open_workspace(campaign_dir, say).folder
    if lang is not None and lang not in available_languages():
        raise click.BadParameter(f"no translation for {lang!r}; available: "
                                 f"{', '.join(available_languages())}", param_hint="--lang")
    sock = listening(host, port, "other machines that can reach it will see your campaign's "
                     "files as the studio shows them")
    from synergy_forge.studio.model import Studio
    from synergy_forge.studio.server import serve

    def ready(url: str) -> None:
        click.echo(f"Studio for {folder.resolve().name if str(folder) == '.' else folder} at "
                   f"{url} (Ctrl-C to stop)")
        browse(url, no_browser)

    serve(Studio(folder, lang), sock, ready)
    click.echo("studio stopped")
