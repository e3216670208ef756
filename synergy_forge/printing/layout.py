"""Print geometry: where each card lies on a sheet, in millimetres, fronts and backs.

Cards sit 3 x 3 on a sheet, centred, with their trim boxes `gutter` apart; each card's bleed
reaches half-way into the gutter, so the art fills it and a slightly wide cut still shows the
card's own colours. Backs are the fronts mirrored left to right, for long-edge duplex: the back
of the card at column c lies at column 2-c, so it lands behind its front.
"""

from __future__ import annotations

from dataclasses import dataclass

PAPERS: dict[str, tuple[float, float]] = {"a4": (210.0, 297.0), "letter": (215.9, 279.4)}
COLUMNS = ROWS = 3
PER_SHEET = COLUMNS * ROWS


@dataclass(frozen=True)
class CardSize:
    width: float = 63.0
    height: float = 88.0
    bleed: float = 3.0
    safe: float = 4.0  # text stays this far inside the trim line


@dataclass(frozen=True)
class Slot:
    """One card's place on a sheet: its trim box's top-left corner, in mm from the page's."""

    x: float
    y: float


@dataclass(frozen=True)
class Sheet:
    paper: str
    width: float
    height: float
    card: CardSize
    gutter: float  # between trim boxes
    inner_bleed: float  # how far each card's art reaches into the gutter
    fronts: tuple[Slot, ...]
    backs: tuple[Slot, ...]


class LayoutError(ValueError):
    pass


def sheet(paper: str = "a4", card: CardSize = CardSize()) -> Sheet:
    """The 3 x 3 layout of `card` on `paper`; the gutter shrinks when the paper is tight."""
    if paper not in PAPERS:
        raise LayoutError(f"unknown paper {paper!r}; expected one of {', '.join(PAPERS)}")
    width, height = PAPERS[paper]
    # The outer bleed may run into the printer's margin: it is trimmed away anyway.
    room_x = (width - COLUMNS * card.width - 2 * card.bleed) / (COLUMNS - 1)
    room_y = (height - ROWS * card.height - 2 * card.bleed) / (ROWS - 1)
    gutter = min(2 * card.bleed, room_x, room_y)
    if gutter < 0:
        raise LayoutError(f"{COLUMNS} x {ROWS} cards of {card.width} x {card.height} mm do not "
                          f"fit on {paper} ({width} x {height} mm)")
    gutter = round(gutter, 2)
    grid_w = COLUMNS * card.width + (COLUMNS - 1) * gutter
    grid_h = ROWS * card.height + (ROWS - 1) * gutter
    left, top = (width - grid_w) / 2, (height - grid_h) / 2
    fronts = tuple(Slot(round(left + c * (card.width + gutter), 3),
                        round(top + r * (card.height + gutter), 3))
                   for r in range(ROWS) for c in range(COLUMNS))
    backs = tuple(Slot(round(width - s.x - card.width, 3), s.y) for s in fronts)
    return Sheet(paper, width, height, card, gutter, round(gutter / 2, 3), fronts, backs)
