"""Print geometry: where each card lies on a sheet, in millimetres, fronts and backs.

Cards sit 3 x 3 on a sheet, centred. Nothing is printed within `EDGE` mm of a page edge, since
most home printers cannot print there: the outer bleed and the crop marks stay inside it. Along
each axis the trim boxes are `gutter` apart and each card's bleed reaches half-way into the
gutter, so a slightly wide cut still shows the card's own colours. When the paper is too tight
for a useful gutter (Letter is 279.4 mm high, three cards 264 mm), the cards share their cut
lines: one cut separates two cards, and there is no bleed between them on that axis.

Crop marks are ticks in the outer bleed, one on each cut line at each side of the grid, so
they never print on a card. Cut guides continue them across the sheet on the fronts, never on
a card's trim (`_guides`; docs/printing.md says why). Backs are the fronts mirrored left to
right, for long-edge duplex: the back of the card at column c lies at column 2-c, so it lands
behind its front.

Nothing but the cards themselves is printed within a back's reach (`reach`: its bleed and
SHIFT beyond its trim), where a duplex shift, or a fold or cut that far off, would carry it
onto one back and not the others: no label, crop mark or cut guide (`_clear`).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import pairwise

from synergy_forge.cardtext.geometry import POKER, CardSize

PAPERS: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
COLUMNS = ROWS = 3
#: No ink closer than this to any page edge (home printers: about 4 mm), with 0.5 mm to spare.
EDGE = 4.5
#: What some printers cannot print (a quarter inch): crop marks and sheet labels stay beyond it.
PRINTABLE = 6.35
#: A gutter narrower than this is not worth cutting twice: the cards share a cut line instead.
MIN_GUTTER = 2.0
#: Crop marks stop this short of the trim line, so a mark never shows on a cut card.
MARK_GAP = 0.6
#: A sheet label's height (6 pt), in mm.
LABEL = 2.6
#: A crop mark this long at least, between PRINTABLE and the trim line, where the paper allows.
MARK = 2.4
#: A cut guide's width, and how far from the trim line it keeps, on the side away from the
#: card: a cut through the middle of the line leaves none of it inside the trim.
GUIDE = 0.15
GUIDE_GAP = 0.1
#: How far a back may land from where its front says: a home printer's duplex shift, or a
#: fold or cut that far off its line (docs/printing.md promises 2 mm).
SHIFT = 2.0
#: And what is drawn beyond a back's reach keeps this much further away (its own edges).
CLEARANCE = 0.25
#: A crop mark cut shorter than this to keep it out of a back's reach is left out.
MIN_MARK = 1.5


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
    #: Where the sheet's label (component, side, sheet n/N) is centred, in mm, and whether it
    #: runs up a gutter (turned a quarter) rather than across the top margin; None: no room.
    label: tuple[float, float, bool] | None = None
    #: The fold layout: fronts and backs on one single-sided page, each back beside its front,
    #: folded along `folds` (lines to fold on, drawn as marks in the margins).
    fold: bool = False
    folds: tuple[Mark, ...] = ()
    #: Cut guides: each cut line continued across the sheet wherever it touches no card's
    #: trim (`_guides`), drawn on the fronts (and the fold layout's single side) only; and the
    #: fold lines continued the same way through the gutters.
    guides: tuple[Mark, ...] = ()
    fold_guides: tuple[Mark, ...] = ()
    #: A duplex sheet's back page: its crop marks and label, those out of every back's
    #: `reach` (on A4 and Letter, none: its margins are within it).
    back_marks: tuple[Mark, ...] = ()
    back_label: tuple[float, float, bool] | None = None

    @property
    def per_sheet(self) -> int:
        return len(self.fronts)

    def reach(self, slot: Slot) -> tuple[float, float, float, float]:
        """What a back at `slot` may show (x0, y0, x1, y1, in mm): its trim box grown by the
        card's bleed (a cut within it) and SHIFT (the back landing that far off)."""
        grow = self.card.bleed + SHIFT + CLEARANCE
        return (slot.x - grow, slot.y - grow, slot.x + self.card.width + grow,
                slot.y + self.card.height + grow)


class LayoutError(ValueError):
    pass


Zone = tuple[float, float, float, float]


def _clear(marks: list[Mark], zones: list[Zone], width: float, height: float,
           ticks: bool) -> list[Mark]:
    """`marks` less what lies in `zones` (the backs' reach). A mark is a thin line along its
    longer side. A cut guide (`ticks` False) keeps each piece outside every zone. A crop mark
    (`ticks` True), a tick in a margin pointing at the grid, is cut where it would enter a
    zone and then starts at PRINTABLE from the page's edge instead, keeping what length the
    margin allows; shorter than MIN_MARK, it is left out."""
    kept: list[Mark] = []
    for mark in marks:
        along_y = mark.height > mark.width
        start = mark.y if along_y else mark.x
        end = start + (mark.height if along_y else mark.width)
        across = (mark.x, mark.x + mark.width) if along_y else (mark.y, mark.y + mark.height)
        spans = [((z[1], z[3]) if along_y else (z[0], z[2])) for z in zones
                 if ((z[0], z[2]) if along_y else (z[1], z[3]))[0] < across[1]
                 and ((z[0], z[2]) if along_y else (z[1], z[3]))[1] > across[0]]
        if ticks:
            page = height if along_y else width
            if start < page / 2:  # in the top (left) margin, pointing down (right)
                cut = min([low for low, _ in spans] or [end])
                pieces = [(start, end)] if cut >= end else [(PRINTABLE, cut)]
            else:
                cut = max([high for _, high in spans] or [start])
                pieces = [(start, end)] if cut <= start else [(cut, page - PRINTABLE)]
        else:
            pieces = [(start, end)]
            for low, high in spans:
                pieces = [part for a, b in pieces
                          for part in ((a, min(b, low)), (max(a, high), b)) if part[1] > part[0]]
        for a, b in pieces:
            if b - a < (MIN_MARK if ticks else 1e-6):
                continue
            a, b = round(a, 3), round(b - a, 3)
            kept.append(Mark(mark.x, a, mark.width, b) if along_y
                        else Mark(a, mark.y, b, mark.height))
    return kept


def _guides(trims: list[tuple[float, float, float, float]], width: float,
            height: float) -> list[Mark]:
    """Cut guides for cards whose trim boxes are `trims` (x, y, width, height, in mm): along
    every cut line, over the grid's whole extent, wherever the line touches no card's trim.

    - An edge with a gutter or the margin beside it: one line along the whole grid, GUIDE_GAP
      outside the trim, on the side with no card (through the gutters it crosses too).
    - A cut line two cards share (no gutter between them): nothing over the cards, where any
      line would end up inside one of them when the cut is 1 mm off; a line centred on the
      cut through each gutter it crosses.
    Computed on an untransposed grid and on its transpose (rows, then columns)."""
    guides: list[Mark] = []
    for across in (False, True):
        boxes = [(y, x, h, w) if across else (x, y, w, h) for x, y, w, h in trims]
        start, end = min(b[1] for b in boxes), max(b[1] + b[3] for b in boxes)
        bands = sorted({(b[1], b[1] + b[3]) for b in boxes})
        gaps = [(a[1], b[0]) for a, b in pairwise(bands) if b[0] > a[1]]
        for line in sorted({round(v, 3) for b in boxes for v in (b[0], b[0] + b[2])}):
            before = any(abs(b[0] + b[2] - line) < 1e-6 for b in boxes)  # a card ends here
            after = any(abs(b[0] - line) < 1e-6 for b in boxes)  # a card starts here
            if before and after:  # shared: only through the gutters
                pieces = [(line - GUIDE / 2, a, b - a) for a, b in gaps]
            elif before:
                pieces = [(line + GUIDE_GAP, start, end - start)]
            else:
                pieces = [(line - GUIDE_GAP - GUIDE, start, end - start)]
            for offset, along, length in pieces:
                guide = (round(offset, 3), round(along, 3), GUIDE, round(length, 3))
                guides.append(Mark(guide[1], guide[0], guide[3], guide[2]) if across
                              else Mark(*guide))
    return [g for g in guides if g.x >= 0 and g.y >= 0 and g.x + g.width <= width
            and g.y + g.height <= height]


def _axis(paper: float, card: float, count: int, bleed: float) -> tuple[float, float, float]:
    """(gutter, outer margin to the trim line, outer bleed) along one axis: gutters only when
    the outer margins keep room for crop marks beyond PRINTABLE."""
    spare = paper - count * card
    gutter = min(2 * bleed, (spare - 2 * (PRINTABLE + MARK + MARK_GAP)) / (count - 1))
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
    # From the bleed's edge, or PRINTABLE when that is nearer the paper's edge, to MARK_GAP
    # short of the trim line.
    start_y, start_x = max(top - oy, PRINTABLE), max(left - ox, PRINTABLE)
    if top - MARK_GAP - start_y > 0:
        for x in cuts_x:
            for y in (start_y, height - top + MARK_GAP):
                marks.append(Mark(round(x - tick / 2, 3), round(y, 3), tick,
                                  round(top - MARK_GAP - start_y, 3)))
    if left - MARK_GAP - start_x > 0:
        for y in cuts_y:
            for x in (start_x, width - left + MARK_GAP):
                marks.append(Mark(round(x, 3), round(y - tick / 2, 3),
                                  round(left - MARK_GAP - start_x, 3), tick))
    label: tuple[float, float, bool] | None = None
    if top - MARK_GAP - PRINTABLE >= LABEL:  # across the top margin, between two cut lines
        label = (width / 2, PRINTABLE + LABEL / 2, False)
    elif gx >= LABEL + 1:  # up the first gutter, beside the top row
        label = (left + card.width + gx / 2, top + card.height / 2, True)
    guides = _guides([(f.x, f.y, card.width, card.height) for f in fronts], width, height)
    layout = Sheet(paper, width, height, card, gx, gy, ox, oy, fronts, backs, tuple(marks), label,
                   guides=tuple(guides))
    zones = [layout.reach(b) for b in backs]
    # On a back page, across the top margin above every back's reach, or nowhere: the
    # margins of A4 and Letter lie within it.
    back_label = (width / 2, PRINTABLE + LABEL / 2, False) \
        if min(z[1] for z in zones) >= PRINTABLE + LABEL else None
    return replace(layout, back_marks=tuple(_clear(marks, zones, width, height, True)),
                   back_label=back_label)


#: A calibration cross: its arms, and the scale of 1 mm ticks around it, in mm.
CROSS = 10.0
SCALE = 5


def calibration_crosses(paper: str) -> tuple[tuple[float, float], ...]:
    """The top-left corners of the calibration page's crosses on its front, in mm: in its
    lower half (the instructions are above), clear of the edge a printer cannot reach, and
    not symmetric about the page's centre, so that a back flipped on the short edge (turned
    half a turn from a long-edge flip) puts no cross behind a cross. The back's crosses lie at
    (width - x - CROSS, y): behind these ones after a long-edge flip."""
    width, height = PAPERS[paper]
    return ((24.0, height - 118.0), (width - 62.0, height - 92.0), (56.0, height - 48.0))


#: The fold layout: pairs (front, back) side by side, this many mm apart (at least), on
#: landscape paper.
FOLD_GUTTER = 6.0


def fold_sheet(paper: str = "a4", card: CardSize = POKER) -> Sheet:
    """Single-sided sheets for printers without duplex: on landscape `paper`, pairs of cards
    side by side, the front at the left and its back at the right sharing the fold line (cut
    round the pair, fold it in two along that line, glue or sleeve it). As many pairs as fit
    with FOLD_GUTTER between them and room for crop marks beyond PRINTABLE. Beside a back,
    the next pair's front keeps its bleed out of the back's `reach`: the pairs lie that much
    further apart (a back folded or cut 2 mm off would show that front's edge)."""
    if paper not in PAPERS:
        raise LayoutError(f"unknown paper {paper!r}; expected one of {', '.join(PAPERS)}")
    height, width = PAPERS[paper]  # landscape
    room = PRINTABLE + MARK + MARK_GAP
    gx = max(FOLD_GUTTER, round(2 * card.bleed + SHIFT + CLEARANCE, 3))
    gy = FOLD_GUTTER
    columns = int((width - 2 * room + gx) // (2 * card.width + gx))
    rows = int((height - 2 * room + gy) // (card.height + gy))
    if columns < 1 or rows < 1:
        raise LayoutError(f"a folded pair of {card.width} x {card.height} mm cards does not fit "
                          f"on {paper}")
    left = (width - columns * 2 * card.width - (columns - 1) * gx) / 2
    top = (height - rows * card.height - (rows - 1) * gy) / 2
    side_x, side_y = min(card.bleed, gx / 2), min(card.bleed, gy / 2)
    outer_x, outer_y = min(card.bleed, left - EDGE), min(card.bleed, top - EDGE)
    fronts, backs, marks, folds = [], [], [], []
    tick = 0.3
    for r in range(rows):
        y = round(top + r * (card.height + gy), 3)
        b_top = outer_y if r == 0 else side_y
        b_bottom = outer_y if r == rows - 1 else side_y
        for c in range(columns):
            x = round(left + c * (2 * card.width + gx), 3)
            b_left = outer_x if c == 0 else side_x
            b_right = outer_x if c == columns - 1 else side_x
            fronts.append(Slot(x, y, Bleed(b_top, 0.0, b_bottom, b_left)))
            backs.append(Slot(round(x + card.width, 3), y, Bleed(b_top, b_right, b_bottom, 0.0)))
    cuts_x = sorted({round(left + c * (2 * card.width + gx) + d, 3)
                     for c in range(columns) for d in (0, 2 * card.width)})
    fold_x = [round(left + c * (2 * card.width + gx) + card.width, 3)
              for c in range(columns)]
    cuts_y = sorted({round(top + r * (card.height + gy) + d, 3)
                     for r in range(rows) for d in (0, card.height)})
    start_y, start_x = max(top - outer_y, PRINTABLE), max(left - outer_x, PRINTABLE)
    for x in cuts_x:
        for y0 in (start_y, height - top + MARK_GAP):
            marks.append(Mark(round(x - tick / 2, 3), round(y0, 3), tick,
                              round(top - MARK_GAP - start_y, 3)))
    for x in fold_x:
        for y0 in (start_y, height - top + MARK_GAP):
            folds.append(Mark(round(x - tick / 2, 3), round(y0, 3), tick,
                              round(top - MARK_GAP - start_y, 3)))
    for y in cuts_y:
        for x0 in (start_x, width - left + MARK_GAP):
            marks.append(Mark(round(x0, 3), round(y - tick / 2, 3),
                              round(left - MARK_GAP - start_x, 3), tick))
    # The pair's fold line is a line two cards share: its guides run through the gutters only,
    # grey like the fold marks.
    guides = _guides([(f.x, f.y, card.width, card.height) for f in fronts + backs], width,
                     height)
    folded = {round(x - GUIDE / 2, 3) for x in fold_x}
    layout = Sheet(paper, width, height, card, gx, gy, outer_x, outer_y,
                   tuple(fronts), tuple(backs), (), None, True)
    # The backs share the page: marks and guides keep out of their reach (the fronts' cut
    # guides stop short of it; continue the cut along a ruler).
    zones = [layout.reach(b) for b in backs]
    # Above the first front: the crop marks at the backs' edges now reach the margin's
    # PRINTABLE line, and one crossed the label when it was centred on the page.
    label = (fronts[0].x + card.width / 2, PRINTABLE + LABEL / 2, False) \
        if top - MARK_GAP >= PRINTABLE + LABEL else None
    return replace(
        layout, marks=tuple(_clear(marks, zones, width, height, True)), label=label,
        folds=tuple(_clear(folds, zones, width, height, True)),
        guides=tuple(_clear([g for g in guides if g.x not in folded or g.width != GUIDE],
                            zones, width, height, False)),
        fold_guides=tuple(_clear([g for g in guides if g.x in folded and g.width == GUIDE],
                                 zones, width, height, False)))
