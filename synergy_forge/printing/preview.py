"""One card face at a time for the studio, drawn exactly as `build` draws it; a drawn card shrunk
for a web page (`publish`)."""

from __future__ import annotations

from synergy_forge.cardtext.i18n import Translator
from synergy_forge.core.mission import Campaign
from synergy_forge.printing.draw import RenderContext, draw, rasterise
from synergy_forge.printing.html import environment, html_for
from synergy_forge.printing.jobs import Job, Options
from synergy_forge.printing.kit import Face, build_kit


class CardPreview:
    """One card face at a time, exactly as `build` draws it (the same HTML, templates, CSS and
    WeasyPrint), fast enough to follow a designer's saves: the templates are compiled and the
    fonts loaded once (its own RenderContext). Not thread-safe: use it from one thread."""

    def __init__(self, campaign: Campaign, language: str, options: Options | None = None):
        self.options = options or Options()
        self.translator = Translator(language)
        self.env = environment(self.translator, campaign, self.options)
        self.context = RenderContext()
        self.use(campaign)

    def use(self, campaign: Campaign) -> None:
        """Draw `campaign`'s cards from now on, keeping the compiled templates: they read the
        campaign (its rules, actions) through the environment's globals, replaced here."""
        self.campaign = campaign
        self.env.globals.update(environment(self.translator, campaign, self.options).globals)
        self.kit = build_kit(campaign)

    def html(self, group: str, face: Face) -> str:
        """The face's document, byte for byte the one `build` renders for its PNG."""
        job = Job("cards", self.translator.language, group)
        return html_for(job, self.campaign, self.options, self.translator, only=[face],
                        env=self.env)[0]

    def render(self, html: str, dpi: int = 150) -> tuple[bytes, list[str]]:
        """One face's document to a PNG at `dpi`, and the texts that do not fit."""
        drawn = draw(html, self.context)
        return rasterise(drawn.pdf, dpi)[0], drawn.overflows


def shrunk(png: bytes, width: int) -> tuple[bytes, tuple[int, int]]:
    """A card's PNG (a build's, 300 DPI) at `width` pixels across, for a web page, and its
    size: 256 colours, the cards' flat inks and their type's edges, at half the bytes of full
    colour (Pillow's median cut gives the same bytes on every run)."""
    import io

    from PIL import Image

    with Image.open(io.BytesIO(png)) as image:
        image.load()
        small = image.convert("RGB")
    size = (width, round(small.height * width / small.width))
    out = io.BytesIO()
    small.resize(size, Image.Resampling.LANCZOS).quantize(256, dither=Image.Dither.NONE).save(
        out, "PNG", optimize=True)
    return out.getvalue(), size
