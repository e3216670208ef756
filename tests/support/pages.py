"""Reading rendered PDF pages back, for the print tests: every character's fill colour against
the pixels around it (WCAG contrast), and where ink lies on a page."""

from __future__ import annotations

import ctypes
import functools
import re
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pypdfium2.raw as raw

MM = 72 / 25.4


def _luminance(rgb: np.ndarray) -> np.ndarray:
    c = rgb / 255.0
    c = np.where(c <= 0.03928, c / 12.92, ((c + 0.055) / 1.055) ** 2.4)
    return c @ np.array([0.2126, 0.7152, 0.0722])


@functools.lru_cache(maxsize=4096)  # a kit has few colour pairs and tens of thousands of glyphs
def contrast(a: tuple[int, int, int], b: tuple[int, int, int]) -> float:
    la, lb = _luminance(np.array([a, b], dtype=float))
    high, low = max(la, lb), min(la, lb)
    return float((high + 0.05) / (low + 0.05))


@dataclass
class LowContrast:
    page: int
    char: str
    fill: tuple[int, int, int]
    background: tuple[int, int, int]
    ratio: float
    needed: float


def _commonest(keys: np.ndarray, codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For pixels of many rings at once (`keys`: each pixel's ring, rising; `codes`: its colour
    quantised to 8 levels a channel, 5 bits each), the rings that have pixels and each one's
    commonest colour, the first seen of equally common ones (as Counter.most_common gives),
    at the middle of its level (rows of 3). Counted for a whole page at once: a ring is tens
    of pixels, and counting ring by ring in Python was most of a kit's contrast check."""
    pairs, first, counts = np.unique(keys * 32768 + codes, return_index=True,
                                     return_counts=True)
    rings = pairs // 32768
    # Per ring, the most pixels, then the first seen: the first row of each ring after sorting.
    order = np.lexsort((first, -counts, rings))
    rings, chosen = rings[order], (pairs % 32768)[order]
    lead = np.ones(len(rings), dtype=bool)
    lead[1:] = rings[1:] != rings[:-1]
    code = chosen[lead]
    colour = np.stack([(code >> 10) * 8 + 4, ((code >> 5) & 31) * 8 + 4, (code & 31) * 8 + 4],
                      axis=1)
    return rings[lead], colour


def low_contrast_characters(path: Path, scale: float = 2.0) -> tuple[int, list[LowContrast]]:
    """(characters checked, those below WCAG AA against the pixels around them).

    The background of a character is the commonest colour in a thin ring just outside its box,
    leaving out pixels close to the character's own colour (its neighbours' glyphs).
    Large text (18 pt, or 14 pt bold) needs 3:1, other text 4.5:1.
    """
    _, checked, found = check_pages(path, scale, bounds=False)
    return checked, found


def ink_bounds(path: Path, scale: float = 1.0) -> list[tuple[float, float, float, float]]:
    """Per page, the distance in mm from the left, top, right and bottom edges to the nearest
    pixel that is not white."""
    return check_pages(path, scale, characters=False)[0]


def check_pages(path: Path, scale: float = 2.0, bounds: bool = True, characters: bool = True
                ) -> tuple[list[tuple[float, float, float, float]], int, list[LowContrast]]:
    """(ink_bounds, then low_contrast_characters' two figures) from one rendering of each page
    at `scale`: rendering is most of the ink check's time (a fifth of both), and both read the same
    pixels (the grey image ink_bounds reads is the colour one converted, as PIL converts the
    rendering directly). PDFium renders in RGB order, read in place as an array (the same
    pixels as its BGR rendering converted by PIL, without the three copies that took longer
    than the rendering itself)."""
    from PIL import Image

    document = pdfium.PdfDocument(path)
    edges: list[tuple[float, float, float, float]] = []
    checked, found = 0, []
    try:
        for index in range(len(document)):
            page = document[index]
            bitmap = page.render(scale=scale, rev_byteorder=True)  # kept while its pixels are read
            rendered = bitmap.to_numpy()
            if bounds:
                edges.append(_edges(np.asarray(Image.fromarray(rendered).convert("L")), scale))
            if characters:
                counted, low = _low_contrast(page, index, rendered, scale)
                checked += counted
                found += low
            page.close()
    finally:
        document.close()
    return edges, checked, found


def _edges(image: np.ndarray, scale: float) -> tuple[float, float, float, float]:
    rows = np.where((image < 250).any(axis=1))[0]
    cols = np.where((image < 250).any(axis=0))[0]
    h, w = image.shape
    px = MM * scale
    if not len(rows):
        return (w / px, h / px, w / px, h / px)
    return (cols[0] / px, rows[0] / px, (w - 1 - cols[-1]) / px, (h - 1 - rows[-1]) / px)


def _low_contrast(page: pdfium.PdfPage, index: int, image: np.ndarray, scale: float
                  ) -> tuple[int, list[LowContrast]]:
    height = page.get_height()
    text = page.get_textpage()
    handle = text.raw  # for PDFium's own calls, once per page (not a property per call)
    r, g, b, a = (ctypes.c_uint() for _ in range(4))
    left, right, bottom, top = (ctypes.c_double() for _ in range(4))
    # Each character's index, fill colour and the box of pixels around it (3 px beyond its
    # box on every side), for those inside the page: its ring is that box's border.
    chars, fills, boxes = [], [], []
    for k in range(text.count_chars()):
        char = chr(raw.FPDFText_GetUnicode(handle, k))
        if char.isspace() or not char.isprintable():
            continue
        if not raw.FPDFText_GetFillColor(handle, k, r, g, b, a) or a.value == 0:
            continue
        boxed = raw.FPDFText_GetCharBox(handle, k, left, right, bottom, top)  # l, r, b, t
        assert boxed, (index, k)
        x0, x1 = int(left.value * scale) - 3, int(right.value * scale) + 3
        y0, y1 = int((height - top.value) * scale) - 3, int((height - bottom.value) * scale) + 3
        if x0 < 0 or y0 < 0 or x1 >= image.shape[1] or y1 >= image.shape[0]:
            continue
        chars.append((k, char))
        fills.append((r.value, g.value, b.value))
        boxes.append((x0, x1, y0, y1))
    found: list[LowContrast] = []
    if not chars:
        text.close()
        return 0, found
    x0, x1, y0, y1 = np.array(boxes).T
    fill = np.array(fills)
    # Every ring's pixels in one array, ring by ring, each in the order its top row, bottom
    # row, left column, right column (the order that decides between equally common colours).
    width, tall = x1 - x0 + 1, y1 - y0 + 1
    sides = np.stack([width, width, tall, tall], axis=1)  # pixels of each side of each ring
    lengths = sides.ravel()
    starts = np.repeat(np.cumsum(lengths) - lengths, lengths)
    step = np.arange(lengths.sum()) - starts  # a pixel's place along its side
    side = np.repeat(np.tile(np.arange(4), len(chars)), lengths)
    ring = np.repeat(np.arange(len(chars)), sides.sum(axis=1))
    xs = np.where(side < 2, x0[ring] + step, np.where(side == 2, x0[ring], x1[ring]))
    ys = np.where(side >= 2, y0[ring] + step, np.where(side == 0, y0[ring], y1[ring]))
    pixels = image[ys, xs].astype(int)  # the page's pixels are bytes: the rings' alone ints
    # Left out: pixels close to the character's own colour (its neighbours' glyphs).
    far = np.abs(pixels - fill[ring]).sum(axis=1) > 60
    quantised = pixels[far] // 8
    codes = (quantised[:, 0] << 10) | (quantised[:, 1] << 5) | quantised[:, 2]
    rings, backgrounds = _commonest(ring[far], codes)
    for number, background in zip(rings.tolist(), backgrounds.tolist(), strict=True):
        k, char = chars[number]
        size = raw.FPDFText_GetFontSize(handle, k)
        weight = raw.FPDFText_GetFontWeight(handle, k)
        large = size >= 18 or (size >= 14 and weight >= 600)
        needed = 3.0 if large else 4.5
        ratio = contrast(fills[number], tuple(background))
        if ratio < needed - 0.05:  # the ring's colour is quantised to 8 levels
            found.append(LowContrast(index, char, fills[number], tuple(background), ratio,
                                     needed))
    text.close()
    return len(rings), found


def pages(path: Path) -> list[str]:
    document = pdfium.PdfDocument(path)
    try:
        return [page.get_textpage().get_text_range() for page in document]
    finally:
        document.close()


def flat(text: str) -> str:
    """The text on one line; no-break spaces kept (str.split would take them as spaces)."""
    return re.sub(r"[ \t\r\n]+", " ", text.replace("\ufffe", "")).strip()


def plain(text: str) -> str:
    """flat, with no-break spaces as spaces: for what the words say, not how they are set."""
    return flat(text.replace("\u00a0", " ").replace("\u202f", " "))


#: The shifts a back must bear (layout.SHIFT, each way and diagonally), in mm.
SHIFTS = [(dx, dy) for dx in (-2.0, 0.0, 2.0) for dy in (-2.0, 0.0, 2.0) if dx or dy]
#: A pixel with a channel this dark or darker is ink; the kit's paper is #fbfaf7, the sheet's
#: white 255.
INK = 235


def foreign_ink(path: Path, layout, pages: list[int], dpi: float = 100.0
                ) -> list[tuple[int, int, tuple[float, float], int]]:
    """The ink a back would show on its edge when printed off by one of SHIFTS: (page, slot,
    shift, pixels) for each card of `pages` (back pages of `path`, laid out as `layout`, a
    layout.Sheet) whose outer strip shows any. A card is cut anywhere within its bleed, so its
    outer strip runs from its bleed's edge to 0.5 mm inside its trim: with the back landing 2
    mm off, that strip shows what lies from 2.5 mm inside the trim to 2 mm beyond the bleed,
    all of which must be paper (the backs' frame is paper over the bleed and 3 mm of the
    card). In the fold layout, the side a back shares with its own front (the fold) shows that
    front: not another card's, and not checked here."""
    px = dpi / 25.4
    found = []
    document = pdfium.PdfDocument(path)
    try:
        for index in pages:
            image = document[index].render(scale=dpi / 72, rev_byteorder=True).to_numpy()[..., :3]
            dark = (image < INK).any(axis=2)
            for dx, dy in SHIFTS:
                # The printed back moved by (dx, dy): the card at a slot shows what lay at
                # (x - dx, y - dy); beyond the page's edge, nothing.
                sx, sy = round(dx * px), round(dy * px)
                shifted = np.zeros_like(dark)
                h, w = dark.shape
                shifted[max(sy, 0):h + min(sy, 0), max(sx, 0):w + min(sx, 0)] = \
                    dark[max(-sy, 0):h - max(sy, 0), max(-sx, 0):w - max(sx, 0)]
                for number, slot in enumerate(layout.backs):
                    b, card = slot.bleed, layout.card
                    outer = (slot.x - b.left, slot.y - b.top, slot.x + card.width + b.right,
                             slot.y + card.height + b.bottom)
                    inner = [slot.x + 0.5, slot.y + 0.5, slot.x + card.width - 0.5,
                             slot.y + card.height - 0.5]
                    if layout.fold:  # the fold: this card's own front beyond it
                        inner[0] = outer[0]
                    x0, y0, x1, y1 = (round(v * px) for v in outer)
                    i0, j0, i1, j1 = (round(v * px) for v in inner)
                    strip = shifted[y0:y1, x0:x1].copy()
                    strip[j0 - y0:j1 - y0, i0 - x0:i1 - x0] = False
                    if layout.fold and sx > 0:  # what comes in over the fold: its front
                        strip[:, :sx] = False
                    if strip.any():
                        found.append((index, number, (dx, dy), int(strip.sum())))
    finally:
        document.close()
    return found
