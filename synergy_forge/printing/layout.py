"""Print geometry: where each card lies on a sheet, in millimetres, fronts and backs.

Cards sit 3 x 3 on a sheet, centred. Nothing is printed within `EDGE` mm of a page edge, since
most home printers cannot print there: the outer bleed and the crop marks stay inside it. Along
each axis the trim boxes are `gutter` apart and each card's bleed reaches half-way into the
gutter, so a slightly wide cut still shows the card's own colours. When the paper is too tight
for a useful gutter (Letter is 279.4 mm high, three cards 264 mm), the cards share their cut
lines: one cut separates two cards, and there is no bleed between them on that axis.

Crop marks are ticks in the outer bleed, one on each cut line at each side of the grid, so
they never print on a card. Backs are the fronts mirrored left to right, for long-edge duplex:
the back of the card at column c lies at column 2-c, so it lands behind its front.
"""

from __future__ import annotations

from dataclasses import dataclass

from synergy_forge.cardtext.geometry import POKER, CardSize

PAPERS: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
COLUMNS = ROWS = 3
PER_SHEET = COLUMNS * ROWS
#: No ink closer than this to any page edge (home printers: about 4 mm), with 0.5 mm to spare.
EDGE = 4.5
#: A gutter narrower than this is not worth cutting twice: the cards share a cut line instead.
MIN_GUTTER = 2.0
#: Crop marks stop this short of the trim line, so a mark never shows on a cut card.
MARK_GAP = 0.6


@dataclass(frozen=True)
class Bleed:
    """How far a card's art reaches past its trim line on each side, in mm."""

    top: float
    right: float
    bottom: float
    left: float

    @classmethod
    def even(cls, bleed: float) -> Bleed:
        return cls(bleed, bleed, bleed, bleed)


@dataclass(frozen=True)
class Slot:
    """One card's place on a sheet: its trim box's top-left corner, in mm from the page's."""

    x: float
    y: float
    bleed: Bleed = Bleed(0, 0, 0, 0)


@dataclass(frozen=True)
class Mark:
    """One crop-mark tick: a rectangle in mm."""

    x: float
    y: float
    width: float
    height: float


@dataclass(frozen=True)
class Sheet:
    paper: str
    width: float
    height: float
    card: CardSize
    gutter_x: float  # between trim boxes, side by side (0: shared cut lines)
    gutter_y: float  # between trim boxes, one above the other
    outer_x: float  # the outer bleed at the left and right of the grid
    outer_y: float  # the outer bleed above and below the grid
    fronts: tuple[Slot, ...]
    backs: tuple[Slot, ...]
    marks: tuple[Mark, ...]


class LayoutError(ValueError):
    pass


def _axis(paper: float, card: float, count: int, bleed: float) -> tuple[float, float, float]:
    """(gutter, outer margin to the trim line, outer bleed) along one axis."""
    spare = paper - count * card
    gutter = min(2 * bleed, (spare - 2 * (EDGE + bleed)) / (count - 1))
    if gutter < MIN_GUTTER:
        gutter = 0.0
    gutter = round(gutter, 2)
    margin = (spare - (count - 1) * gutter) / 2
    outer = min(bleed, margin - EDGE)
    return gutter, margin, round(outer, 3)


def sheet(paper: str = "a4", card: CardSize = POKER) -> Sheet:
    """The 3 x 3 layout of `card` on `paper`, keeping `EDGE` mm of every edge blank."""
    if paper not in PAPERS:
        raise LayoutError(f"unknown paper {paper!r}; expected one of {', '.join(PAPERS)}")
    width, height = PAPERS[paper]
    gx, left, ox = _axis(width, card.width, COLUMNS, card.bleed)
    gy, top, oy = _axis(height, card.height, ROWS, card.bleed)
    if ox < 0 or oy < 0:
        raise LayoutError(f"{COLUMNS} x {ROWS} cards of {card.width} x {card.height} mm do not "
                          f"fit on {paper} ({width} x {height} mm) with {EDGE} mm margins")

    def bleed(c: int, r: int) -> Bleed:
        return Bleed(oy if r == 0 else gy / 2, ox if c == COLUMNS - 1 else gx / 2,
                     oy if r == ROWS - 1 else gy / 2, ox if c == 0 else gx / 2)

    fronts = tuple(Slot(round(left + c * (card.width + gx), 3),
                        round(top + r * (card.height + gy), 3), bleed(c, r))
                   for r in range(ROWS) for c in range(COLUMNS))
    backs = tuple(Slot(round(width - s.x - card.width, 3), s.y,
                       Bleed(s.bleed.top, s.bleed.left, s.bleed.bottom, s.bleed.right))
                  for s in fronts)
    cuts_x = sorted({round(left + c * (card.width + gx) + d, 3)
                     for c in range(COLUMNS) for d in (0, card.width)})
    cuts_y = sorted({round(top + r * (card.height + gy) + d, 3)
                     for r in range(ROWS) for d in (0, card.height)})
    tick = 0.3
    marks: list[Mark] = []
    if oy > MARK_GAP:
        for x in cuts_x:
            for y in (top - oy, height - top + MARK_GAP):
                marks.append(Mark(round(x - tick / 2, 3), round(y, 3), tick, oy - MARK_GAP))
    if ox > MARK_GAP:
        for y in cuts_y:
            for x in (left - ox, width - left + MARK_GAP):
                marks.append(Mark(round(x, 3), round(y - tick / 2, 3), ox - MARK_GAP, tick))
    return Sheet(paper, width, height, card, gx, gy, ox, oy, fronts, backs, tuple(marks))
