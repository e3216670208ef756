"""Fitting texts into their boxes from the bundled fonts' metrics, without rendering.

Every fixed-size text box of a card (a mission's title and flavour text, a goal's name, symbol
and text...) has a `Box`: its size in mm and its preferred font size. `fit` tries the preferred
size, then smaller ones in half-point steps down to the box's minimum (about 6 pt), and gives
the first size at which the text wraps into the box, or None when even the minimum does not fit
(a word wider than the box included). The wrapping is greedy at spaces, as the browser engine
does, with the fonts' advance widths and a small allowance for shaping: `validate` and `build`
both use it, so a text that will not fit is reported before anything is rendered, and the
card's template prints the fitted size. The boxes themselves are in cardtext/geometry.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache, cached_property
from itertools import repeat
from pathlib import Path

from synergy_forge.resources import templates_dir

MM_PER_PT = 25.4 / 72
#: Kerning and shaping make a line at most this much wider than its advance widths say.
SHAPING_ALLOWANCE = 1.03
STEP = 0.5
MIN_PT = 6.0


@dataclass
class Font:
    advances: dict[int, int]  # code point -> advance, in font units
    units: int  # units per em

    def em_width(self, text: str) -> float:
        """The width of `text` in ems (unknown glyphs count as one em)."""
        return sum(map(self.by_char.get, text, repeat(self.units))) / self.units

    @cached_property
    def by_char(self) -> dict[str, int]:
        return {chr(cp): advance for cp, advance in self.advances.items()}

    def width(self, text: str, pt: float) -> float:
        """The width of `text` at `pt` points, in mm."""
        return self.em_width(text) * pt * MM_PER_PT * SHAPING_ALLOWANCE


FONTS = {False: "DejaVuSans.ttf", True: "DejaVuSans-Bold.ttf"}
#: The italic face of flavour texts (DejaVu Sans Oblique, regular weight only): its widths and
#: glyphs differ from the upright face's (« » included), so italic boxes are measured with it.
ITALIC = "DejaVuSans-Oblique.ttf"
#: The condensed faces (DejaVu Sans Condensed): a mission's title on one line, the rulebook.
CONDENSED = {False: "DejaVuSansCondensed.ttf", True: "DejaVuSansCondensed-Bold.ttf"}
#: The fonts' advance widths, read once with fontTools and kept beside them with each font's
#: hash: reading them back costs far less than fontTools does, in every command that checks
#: or prints a card (validate, build, the studio). A font whose hash differs (replaced without
#: `write_metrics`) is read with fontTools again; tests/printing/test_table_ready.py checks
#: the file.
METRICS = "metrics.json"


@cache
def font(bold: bool = False, italic: bool = False, condensed: bool = False) -> Font:
    import json

    name = ITALIC if italic else (CONDENSED if condensed else FONTS)[bold]
    path = templates_dir() / "fonts" / name
    try:
        kept = json.loads((path.parent / METRICS).read_text(encoding="utf-8"))[name]
    except (OSError, ValueError, KeyError):
        kept = None
    if kept is not None and kept["sha256"] == _sha256(path):
        return Font({int(cp): advance for cp, advance in kept["advances"].items()},
                    kept["units"])
    return read_font(path)


def read_font(path: Path) -> Font:
    """A font's advance widths, read with fontTools."""
    from fontTools.ttLib import TTFont  # type: ignore[import-untyped]

    with TTFont(path, lazy=True) as ttf:
        metrics = ttf["hmtx"].metrics
        advances = {cp: metrics[glyph][0] for cp, glyph in ttf.getBestCmap().items()}
        return Font(advances, ttf["head"].unitsPerEm)


def write_metrics() -> Path:
    """Write templates/fonts/metrics.json from the fonts (after replacing a font):
    `python -c "from synergy_forge.cardtext.fonts import write_metrics; write_metrics()"`."""
    import json

    folder = templates_dir() / "fonts"
    kept = {}
    for name in (*FONTS.values(), ITALIC, *CONDENSED.values()):
        read = read_font(folder / name)
        kept[name] = {"sha256": _sha256(folder / name), "units": read.units,
                      "advances": {str(cp): a for cp, a in sorted(read.advances.items())}}
    target = folder / METRICS
    target.write_text(json.dumps(kept, separators=(",", ":")) + "\n", encoding="utf-8")
    return target


def _sha256(path: Path) -> str:
    import hashlib

    return hashlib.sha256(path.read_bytes()).hexdigest()


@cache
def _drawable(italic: bool = False) -> frozenset[str]:
    both = font(False).advances.keys() & font(True).advances.keys()
    if italic:
        both &= font(italic=True).advances.keys()
    return frozenset(chr(cp) for cp in both) | {"\n", "\t"}


def missing_glyphs(text: str, italic: bool = False) -> list[tuple[int, str]]:
    """(index, character) of each character the bundled fonts (with the italic face, for an
    italic text) cannot draw."""
    drawable = _drawable(italic)
    if set(text) <= drawable:
        return []
    return [(i, ch) for i, ch in enumerate(text) if ch not in drawable]


@dataclass(frozen=True)
class Box:
    """A fixed-size text box: width and height in mm, preferred size in pt."""

    width: float
    height: float
    pt: float
    bold: bool = False
    line_height: float = 1.25
    italic: bool = False
    min_pt: float = MIN_PT
    condensed: bool = False


Paragraph = str | tuple[str, str]  # a text, or (bold lead-in, text)


def _breakable(line: str) -> list[str]:
    """The words a line may break between: at spaces and tabs, never at a no-break space
    (str.split would break there too)."""
    return [word for word in line.replace("\t", " ").split(" ") if word]


def _words(text: Paragraph, bold: bool, italic: bool = False,
           condensed: bool = False) -> list[list[float]]:
    """Each line of a paragraph as its words' widths in ems, a space's width last."""
    face = font(bold, italic, condensed)
    space = face.em_width(" ")
    if isinstance(text, tuple):
        lines = [[font(True, condensed=condensed).em_width(w) for w in _breakable(text[0])]
                 + [face.em_width(w) for w in _breakable(text[1])]]
    else:
        lines = [[face.em_width(w) for w in _breakable(line)] for line in text.split("\n")]
    return [[*line, space] for line in lines]


def _count(lines: list[list[float]], width: float, scale: float) -> int | None:
    """How many lines the words wrap to in `width` mm at `scale` mm per em; None when a word
    is wider than that."""
    count = 0
    for *words, space in lines:
        count += 1
        line = 0.0
        for em in words:
            w = em * scale
            if w > width:
                return None
            if line and line + space * scale + w > width:
                count += 1
                line = w
            else:
                line = line + space * scale + w if line else w
    return count


def lines_needed(text: Paragraph, width: float, pt: float, bold: bool = False,
                 italic: bool = False, condensed: bool = False) -> int | None:
    """How many lines `text` wraps to in `width` mm; None when a word is wider than that."""
    return _count(_words(text, bold, italic, condensed), width,
                  pt * MM_PER_PT * SHAPING_ALLOWANCE)


def fit(text: Paragraph | list[Paragraph], box: Box, gap: float = 0.0) -> float | None:
    """The largest size from box.pt down to box.min_pt at which `text` fits, or None.

    A list is a block of paragraphs, `gap` mm apart.
    """
    paragraphs = [_words(p, box.bold, box.italic, box.condensed)
                  for p in (text if isinstance(text, list) else [text])]
    pt = box.pt
    while pt >= box.min_pt - 1e-9:
        scale = pt * MM_PER_PT * SHAPING_ALLOWANCE
        counts = [_count(p, box.width, scale) for p in paragraphs]
        if None not in counts:
            height = sum(c for c in counts if c is not None) * pt * box.line_height * MM_PER_PT
            if height + gap * (len(paragraphs) - 1) <= box.height + 0.01:
                return pt
        pt = round(pt - STEP, 2)
    return None
