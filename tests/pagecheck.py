"""Reading rendered PDF pages back, for the print tests: every character's fill colour against
the pixels around it (WCAG contrast), and where ink lies on a page."""

from __future__ import annotations

import ctypes
import functools
from collections import Counter
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


def _commonest(pixels: np.ndarray) -> tuple[int, int, int]:
    """The commonest colour of `pixels` quantised to 8 levels a channel (the first seen of
    equally common ones), at the middle of its level. Counted by Counter, whose most_common
    gives the first seen of equally common ones: a ring is tens of pixels, and np.unique's
    sort cost more than the count (a third of a kit's contrast check, once per character)."""
    quantised = pixels // 8
    codes = (quantised[:, 0] << 10) | (quantised[:, 1] << 5) | quantised[:, 2]
    code = Counter(codes.tolist()).most_common(1)[0][0]
    return ((code >> 10) * 8 + 4, ((code >> 5) & 31) * 8 + 4, (code & 31) * 8 + 4)


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
    rendering directly)."""
    document = pdfium.PdfDocument(path)
    edges: list[tuple[float, float, float, float]] = []
    checked, found = 0, []
    try:
        for index in range(len(document)):
            page = document[index]
            rendered = page.render(scale=scale).to_pil().convert("RGB")
            if bounds:
                edges.append(_edges(np.asarray(rendered.convert("L")), scale))
            if characters:
                counted, low = _low_contrast(page, index, np.asarray(rendered), scale)
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
    checked, found = 0, []
    text = page.get_textpage()
    for k in range(text.count_chars()):
        char = chr(raw.FPDFText_GetUnicode(text, k))
        if char.isspace() or not char.isprintable():
            continue
        r, g, b, a = (ctypes.c_uint() for _ in range(4))
        if not raw.FPDFText_GetFillColor(text, k, r, g, b, a) or a.value == 0:
            continue
        fill = (r.value, g.value, b.value)
        left, bottom, right, top = text.get_charbox(k)
        x0, x1 = int(left * scale) - 3, int(right * scale) + 3
        y0, y1 = int((height - top) * scale) - 3, int((height - bottom) * scale) + 3
        if x0 < 0 or y0 < 0 or x1 >= image.shape[1] or y1 >= image.shape[0]:
            continue
        box = image[y0:y1 + 1, x0:x1 + 1]
        # The page's pixels are bytes: the ring's alone made ints (not the whole box's).
        ring = np.concatenate([box[0], box[-1], box[:, 0], box[:, -1]]).astype(int)
        far = ring[np.abs(ring - fill).sum(axis=1) > 60]
        if not len(far):
            continue
        background = _commonest(far)
        size = raw.FPDFText_GetFontSize(text, k)
        weight = raw.FPDFText_GetFontWeight(text, k)
        large = size >= 18 or (size >= 14 and weight >= 600)
        needed = 3.0 if large else 4.5
        ratio = contrast(fill, background)
        checked += 1
        if ratio < needed - 0.05:  # the ring's colour is quantised to 8 levels
            found.append(LowContrast(index, char, fill, background, ratio, needed))
    text.close()
    return checked, found
