"""PDF files joined with PDFium, sheets imposed from the cards' own pages with pikepdf, and
both made reproducible: the same pages give the same bytes."""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from io import BytesIO
from pathlib import Path

from synergy_forge.printing.layout import Bleed

MM = 72 / 25.4


@dataclass(frozen=True)
class Placed:
    """A card's own page set on a sheet: page `page` of source `source`, its trim box's
    top-left corner at (`x`, `y`) mm from the sheet's, showing `bleed` mm of its bleed; or,
    with `frame`, only what lies `frame` mm inside its trim, in a rectangle with corners
    rounded as a back's panel (a shop's full-bleed back on a home sheet: the sheet's frame
    draws the paper around it)."""

    source: int
    page: int
    x: float
    y: float
    bleed: Bleed
    frame: float = 0.0


#: The corner radius of a back's panel (templates/kit.css .back-panel), in mm.
PANEL_RADIUS = 2.5
#: A quarter circle as a cubic Bézier curve: the control points' distance, for a radius 1.
KAPPA = 0.5523


def _rounded(left: float, bottom: float, width: float, height: float, radius: float) -> str:
    """A rectangle with rounded corners as a PDF path (points)."""
    right, top, k = left + width, bottom + height, radius * (1 - KAPPA)
    return (f"{left + radius:.4f} {bottom:.4f} m {right - radius:.4f} {bottom:.4f} l "
            f"{right - k:.4f} {bottom:.4f} {right:.4f} {bottom + k:.4f} {right:.4f} "
            f"{bottom + radius:.4f} c {right:.4f} {top - radius:.4f} l "
            f"{right:.4f} {top - k:.4f} {right - k:.4f} {top:.4f} {right - radius:.4f} "
            f"{top:.4f} c {left + radius:.4f} {top:.4f} l "
            f"{left + k:.4f} {top:.4f} {left:.4f} {top - k:.4f} {left:.4f} {top - radius:.4f} c "
            f"{left:.4f} {bottom + radius:.4f} l "
            f"{left:.4f} {bottom + k:.4f} {left + k:.4f} {bottom:.4f} {left + radius:.4f} "
            f"{bottom:.4f} c h")


def impose(frame: Path, sources: list[Path], sheets: list[list[Placed]]) -> bytes:
    """The pages of `frame` (a sheet's labels and marks, no cards) with each card of `sheets`
    (one list per page) drawn under them: each source page becomes one form XObject, drawn in
    as many places as it is used (a back on every sheet of its deck), clipped to its slot's
    bleed. Its text stays text; its fonts and images are copied once per source document.

    What the sheet showed when WeasyPrint drew the cards on it in place, from pages drawn
    once (tests/printing/test_build.py compares the two pixel by pixel)."""
    import pikepdf

    with pikepdf.open(frame) as out:
        opened: dict[int, pikepdf.Pdf] = {}
        # Each source page once: its name (its own, as the frame's pages may share one
        # resource dictionary), its form XObject in `out`, its trim box.
        forms: dict[tuple[int, int], tuple[str, pikepdf.Object, list[float]]] = {}
        try:
            for page, placed in zip(out.pages, sheets, strict=True):
                top = float(page.mediabox[3])
                if "/Resources" not in page.obj:
                    page.obj.Resources = pikepdf.Dictionary()
                if "/XObject" not in page.obj.Resources:
                    page.obj.Resources.XObject = pikepdf.Dictionary()
                xobjects = page.obj.Resources.XObject
                drawing = []
                for card in placed:
                    if (card.source, card.page) not in forms:
                        if card.source not in opened:
                            opened[card.source] = pikepdf.open(sources[card.source])
                        own = opened[card.source].pages[card.page]
                        form = own.as_form_xobject()
                        form.BBox = own.mediabox  # the whole bleed: the trim box by default
                        forms[card.source, card.page] = (
                            f"/SynergyCard{len(forms)}", out.copy_foreign(form),
                            [float(v) for v in own.trimbox])
                    name, form, trim = forms[card.source, card.page]
                    xobjects[name] = form
                    b = card.bleed
                    # The trim box's lower-left corner on the sheet, in points from its own.
                    x, y = card.x * MM, top - card.y * MM - (trim[3] - trim[1])
                    if card.frame:
                        inset = card.frame * MM
                        clip = _rounded(x + inset, y + inset, trim[2] - trim[0] - 2 * inset,
                                        trim[3] - trim[1] - 2 * inset, PANEL_RADIUS * MM)
                    else:
                        left, bottom = x - b.left * MM, y - b.bottom * MM
                        width = trim[2] - trim[0] + (b.left + b.right) * MM
                        height = trim[3] - trim[1] + (b.top + b.bottom) * MM
                        clip = f"{left:.4f} {bottom:.4f} {width:.4f} {height:.4f} re"
                    drawing.append(f"q {clip} W n "
                                   f"1 0 0 1 {x - trim[0]:.4f} {y - trim[1]:.4f} cm {name} Do Q")
                if drawing:  # under the frame's labels and marks, as in the sheet's HTML
                    page.contents_add(out.make_stream("\n".join(drawing).encode()),
                                      prepend=True)
            buffer = BytesIO()
            out.save(buffer, deterministic_id=True, compress_streams=True)
        finally:
            for source in opened.values():
                source.close()
    return buffer.getvalue()


def merge(paths: list[Path], whole_sheets: bool = False) -> bytes:
    """PDFs one after the other in one PDF. With `whole_sheets` (a kit printed double-sided),
    a document of an odd number of pages is followed by a blank page of its last page's size,
    so that every document starts on a fresh sheet: printed duplex, no component backs onto
    another (the one-page challenge sheet would otherwise carry the rulebook's first page)."""
    import pypdfium2 as pdfium

    merged = pdfium.PdfDocument.new()
    sources = []
    try:
        for number, path in enumerate(paths):
            source = pdfium.PdfDocument(path)
            sources.append(source)
            merged.import_pages(source)
            if whole_sheets and len(source) % 2 and number < len(paths) - 1:
                width, height = source[len(source) - 1].get_size()
                merged.new_page(width, height).close()
        buffer = BytesIO()
        merged.save(buffer)
    finally:
        for source in sources:
            source.close()
        merged.close()
    return reproducible(buffer.getvalue())


def reproducible(pdf: bytes) -> bytes:
    """PDFium stamps the save time and a random /ID; make both depend on the content only.

    Each replacement keeps its length, so the cross-reference offsets stay right.
    """
    pdf = re.sub(rb"/CreationDate\(D:\d{14}", b"/CreationDate(D:20260101000000", pdf)
    digest = hashlib.sha256(re.sub(rb"/ID\s*\[[^\]]*\]", b"", pdf)).hexdigest().encode()

    def fixed_id(match: re.Match[bytes]) -> bytes:
        text = match.group(0)
        out, k = bytearray(), 0
        inside = False
        for byte in text:
            char = bytes([byte])
            if char in b"<(":
                inside = True
            elif char in b">)":
                inside = False
            elif inside and char in b"0123456789abcdefABCDEF":
                char = digest[k % len(digest): k % len(digest) + 1]
                k += 1
            out += char
        return bytes(out)

    return re.sub(rb"/ID\s*\[[^\]]*\]", fixed_id, pdf)
