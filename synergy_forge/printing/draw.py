"""WeasyPrint on one final HTML document, PDFium from its PDF to images.

Every drawing goes through a `RenderContext`: the fonts loaded and the kit's stylesheet parsed
once for all the documents a process draws, passed explicitly (a build's worker receives its
own, empty, and fills it on its first drawing). It also holds:
- a URL fetcher that serves the project's own assets and refuses everything else;
- fixed PDF metadata and identifier, so the same input gives the same bytes;
- a check of every fixed-size text box: text that does not fit is reported with its source.
"""

from __future__ import annotations

import hashlib
import re
import shutil
import tempfile
import urllib.parse
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path
from typing import Any

from synergy_forge.resources import templates_dir

PNG_DPI = 300
# The fonts embedded in a PDF carry no date where WeasyPrint subsets them with HarfBuzz
# (libharfbuzz-subset, 4.1 or later), which keeps the font's own `head` timestamps: the same
# input gives the same bytes without changing this process's environment. Where that library
# is missing, WeasyPrint falls back to fontTools, which stamps every embedded font with the
# time of drawing (or SOURCE_DATE_EPOCH): each drawing says so (Drawn.dated_fonts), and
# `build` warns.


def fonts_dated_by_fonttools() -> bool:
    """Whether WeasyPrint subsets fonts with fontTools on this machine (WeasyPrint's own test,
    weasyprint.pdf.fonts.Font.subset): each PDF then embeds its fonts with the time it was
    drawn, and two builds of the same campaign differ in those bytes."""
    from weasyprint.pdf import fonts
    from weasyprint.text.ffi import harfbuzz

    return not (fonts.harfbuzz_subset and harfbuzz.hb_version_atleast(4, 1, 0))


class RefusedURL(ValueError):
    pass


def url_fetcher(refused: list[str]) -> Any:
    """WeasyPrint may read files under templates/ and nothing else: no other file, no network.

    Each refused URL is recorded in `refused` (WeasyPrint itself only logs a warning).
    """
    from weasyprint.urls import URLFetcher

    root = templates_dir().resolve()

    class AssetFetcher(URLFetcher):
        def fetch(self, url: str, headers: Any = None) -> Any:
            parsed = urllib.parse.urlparse(url)
            if parsed.scheme == "file":
                from urllib.request import url2pathname  # (http.client: 30 ms)

                path = Path(url2pathname(parsed.path)).resolve()
                if path.is_relative_to(root) and path.is_file():
                    return super().fetch(url, headers)
            refused.append(url)
            raise RefusedURL(f"synergy-forge fetches only its own assets, not {url}")

    return AssetFetcher(allowed_protocols=("file",))


class RenderContext:
    """WeasyPrint's font configuration and templates/kit.css parsed with it, made on first use:
    loading the fonts and parsing the stylesheet once per process instead of once per piece is
    a quarter of the build's time (docs/performance.md). Every kit document is drawn with this
    stylesheet; the documents themselves carry only their page size (no <link>), so that one
    parsed copy serves them all. Pickled (to a worker), it travels empty."""

    def __init__(self, fonts_folder: str | None = None) -> None:
        """`fonts_folder`: where WeasyPrint copies the fonts (a folder of its own is made in
        it); by default the system's temporary folder."""
        self.fonts_folder = fonts_folder
        self._fonts: Any = None
        self._stylesheet: Any = None

    def __getstate__(self) -> dict[str, Any]:
        return {"fonts_folder": self.fonts_folder}

    def __setstate__(self, state: dict[str, Any]) -> None:
        self.__init__(state["fonts_folder"])  # type: ignore[misc]

    @property
    def fonts(self) -> Any:
        if self._fonts is None:
            import atexit

            from weasyprint.text.fonts import FontConfiguration

            self._fonts = FontConfiguration()
            if self.fonts_folder is not None:
                # WeasyPrint makes this folder itself, in the system's temporary folder,
                # unless one is set: given here, instead of changing tempfile.tempdir.
                self._fonts._folder = Path(tempfile.mkdtemp(prefix="weasyprint-",
                                                            dir=self.fonts_folder))
            # Released before the interpreter tears modules down: collected after that, its
            # __del__ fails noisily ("Exception ignored in FontConfiguration.__del__").
            atexit.register(self.release)
        return self._fonts

    @property
    def stylesheet(self) -> Any:
        if self._stylesheet is None:
            from weasyprint import CSS

            self._stylesheet = CSS(filename=str(templates_dir() / "kit.css"),
                                   url_fetcher=url_fetcher([]), font_config=self.fonts)
        return self._stylesheet

    def release(self) -> None:
        """Drop the font configuration and the temporary folder WeasyPrint copied the fonts
        to (its own clean-up runs only when the object is collected, never at exit)."""
        fonts, self._fonts, self._stylesheet = self._fonts, None, None
        folder = getattr(fonts, "_folder", None)
        if folder:
            shutil.rmtree(folder, ignore_errors=True)
            fonts._folder = None


@dataclass
class Drawn:
    """One HTML document drawn by WeasyPrint: the PDF and what the fit check found."""

    pdf: bytes
    pages: int
    overflows: list[str]
    refused: list[str]
    #: its fonts carry the time it was drawn (fonts_dated_by_fonttools)
    dated_fonts: bool = False


#: A box's data-what attribute in the templates' HTML (autoescaped: no quote inside).
_DATA_WHAT = re.compile(r' data-what="[^"]*"')


def draw(html: str, context: RenderContext) -> Drawn:
    """WeasyPrint on one final HTML document: the one implementation behind build and the
    studio's previews, so what the studio shows is what prints."""
    from weasyprint import HTML

    refused: list[str] = []
    document = HTML(string=html, base_url=str(templates_dir()) + "/",
                    url_fetcher=url_fetcher(refused)).render(
        stylesheets=[context.stylesheet], font_config=context.fonts)
    # The identifier is a hash of what prints: not of the boxes' data-what, which name the
    # user's files by the path they were given, so that the same campaign gives the same
    # bytes wherever it is checked out and built from.
    printed = _DATA_WHAT.sub("", html)
    identifier = hashlib.sha256(printed.encode("utf-8")).hexdigest()[:32].encode()
    pdf = document.write_pdf(pdf_identifier=identifier)
    return Drawn(pdf, len(document.pages), overflows(document), refused,
                 fonts_dated_by_fonttools())


def overflows(document: Any) -> list[str]:
    """Every `.fit` box whose content runs past its own bottom or right edge (a word wider
    than its box is clipped as surely as a text too tall). A block counts by its border
    box: its margins are never drawn, so a paragraph's bottom margin below the box's last line
    (a mission card's rules block: a RULES_GAP after each paragraph, which cardtext.fonts.fit
    counts only between them) clips nothing. Inline boxes count by their margin boxes, the
    height their line box gives them: a glyph's em box overhangs a line tighter than the
    font's ascent and descent (a goal's symbol, line-height 1.1) without its ink doing so."""
    from weasyprint.formatting_structure.boxes import BlockLevelBox

    found = []

    def extent(box: Any) -> tuple[float, float]:
        if isinstance(box, BlockLevelBox):
            right = box.border_box_x() + box.border_width()
            end = box.border_box_y() + box.border_height()
        else:
            right = box.position_x + box.margin_width()
            end = box.position_y + box.margin_height()
        for child in getattr(box, "children", []):
            r, e = extent(child)
            right, end = max(right, r), max(end, e)
        return right, end

    def walk(box: Any) -> None:
        element = getattr(box, "element", None)
        if element is not None and "fit" in (element.get("class") or "").split() and \
                getattr(box, "element_tag", None) and box.children:
            right_limit = box.content_box_x() + box.width
            limit = box.content_box_y() + box.height
            extents = [extent(child) for child in box.children]
            if max(e for _, e in extents) > limit + 0.5 or \
                    max(r for r, _ in extents) > right_limit + 0.5:
                found.append(element.get("data-what") or "a text")
                return
        for child in getattr(box, "children", []):
            walk(child)

    for page in document.pages:
        walk(page._page_box)
    found.extend(_split_cards(document))
    return sorted(set(found))


def _split_cards(document: Any) -> list[str]:
    """The cards' `.fit` boxes not drawn on their card's page. A face whose content runs below
    its page's bottom (a card size too small for the face's fixed heights) has it carried onto
    the next page, under the next card, or dropped after the last: each text box still fits
    its own content, so the check above finds nothing, and the face printed without its name
    or text (an action card at 50 x 70 mm: its letter alone)."""
    owner: dict[int, int] = {}  # a card's .fit element -> the card's element
    texts: dict[int, Any] = {}  # the cards' .fit elements
    pages: list[tuple[set[int], list[Any]]] = []  # per page: its cards, its .fit elements

    def walk(box: Any, cards: set[int], drawn: list[Any]) -> None:
        element = getattr(box, "element", None)
        if element is not None and getattr(box, "element_tag", None):
            classes = (element.get("class") or "").split()
            if "card" in classes and id(element) not in cards:
                cards.add(id(element))
                for inner in element.iter():
                    if "fit" in (inner.get("class") or "").split():
                        owner[id(inner)], texts[id(inner)] = id(element), inner
            if "fit" in classes:
                drawn.append(element)
        for child in getattr(box, "children", []):
            walk(child, cards, drawn)

    for page in document.pages:
        pages.append((set(), []))
        walk(page._page_box, *pages[-1])
    with_card = {id(text) for cards, drawn in pages for text in drawn
                 if owner.get(id(text)) in cards}
    return [texts[key].get("data-what") or "a text" for key in owner if key not in with_card]


def page_images(pdf: bytes, dpi: int = PNG_DPI,
                pages: Iterable[int] | None = None) -> Iterator[tuple[int, Any]]:
    """(page index, PIL image) of each page (or of `pages`) of `pdf` at `dpi`: one card with its
    bleed per page of a cards document (the bleed box is the whole page)."""
    import pypdfium2 as pdfium
    from PIL import Image

    document = pdfium.PdfDocument(pdf)
    try:
        for index in range(len(document)) if pages is None else pages:
            page = document[index]
            bitmap = page.render(scale=dpi / 72, may_draw_forms=False)
            # PDFium rounds the size up: a page a hair over 825 px wide (2.75 in at 300 DPI,
            # in floating point) would come out 826 px, which a print shop refuses. The image
            # is read from the bitmap's top-left `size` pixels, row by row (its `stride`):
            # the same pixels as the whole bitmap cropped, without copying it twice (a
            # quarter of a face's rasterising).
            size = (round(page.get_width() * dpi / 72), round(page.get_height() * dpi / 72))
            yield index, Image.frombuffer("RGB", size, bitmap.buffer, "raw", bitmap.mode,
                                          bitmap.stride, 1)
    finally:
        document.close()


def png_bytes(image: Any, dpi: int | None, level: int) -> bytes:
    """`image` as PNG, compressed at zlib `level` (6 for files we publish, 1 for previews and
    intermediate images: twice as fast)."""
    buffer = BytesIO()
    image.save(buffer, format="PNG", optimize=False, compress_level=level,
               **({"dpi": (dpi, dpi)} if dpi else {}))
    return buffer.getvalue()


def rasterise(pdf: bytes, dpi: int = PNG_DPI) -> list[bytes]:
    """Each page as a PNG."""
    return [png_bytes(image, dpi, 6 if dpi == PNG_DPI else 1)
            for _, image in page_images(pdf, dpi)]
