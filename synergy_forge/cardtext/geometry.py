"""A card's size and its fixed-size text boxes, in millimetres: the one place they are written.

The templates place the boxes (templates/faces.html.j2, kit.css) and print the size `fonts.fit`
finds for each text; `validate` checks the same boxes before anything is rendered.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache

from synergy_forge.cardtext.fonts import Box


@dataclass(frozen=True)
class CardSize:
    width: float = 63.0
    height: float = 88.0
    bleed: float = 3.0
    safe: float = 4.0  # text stays this far inside the trim line


#: The default: a poker card, 63 x 88 mm.
POKER = CardSize()
#: 2.5 x 3.5 in poker cards as print shops cut them: The Game Crafter wants 1/8 in of bleed,
#: MakePlayingCards 0.12 in.
TGC_POKER = CardSize(63.5, 88.9, 3.175)
MPC_POKER = CardSize(63.5, 88.9, 3.048)
#: DriveThruCards' poker cards: 2.5 x 3.5 in with 1/8 in of bleed and a safe area 1/8 in
#: inside the trim, which the kit's 4 mm safe zone already keeps to.
DTC_POKER = CardSize(63.5, 88.9, 3.175)


#: mm between the lines of a mission card's rules block (mission.mission_lines)
RULES_GAP = 0.5
#: A mission card's head row: its number at the left, its stars at the right, the title
#: between them on one line; at least this high, in mm.
MISSION_HEAD = 6.0
#: A mission's title: one line of DejaVu Sans Condensed Bold, at most this size, and never
#: smaller than the rules text (RULES_MIN_PT at the least).
TITLE_PT = 12.0
MISSION_NUMBER = 8.5  # the number's column
MISSION_STARS = 13.5  # the stars' column (five stars at 8 pt)
#: the stats row below the head (rounds, lives, may miss, super/hyper) with its margin, in mm
MISSION_STATS = 11.0
#: The rules block of a mission card is read from a seat: never smaller than this.
RULES_MIN_PT = 8.0


def card_boxes(card: CardSize = POKER) -> dict[str, Box]:
    """The fitted text boxes of a card, by field (a copy of its own for each caller)."""
    return dict(_card_boxes(card))


@cache  # a pure function of a frozen CardSize; callers get a copy (card_boxes)
def _card_boxes(card: CardSize) -> dict[str, Box]:
    inner = card.width - 2 * card.safe
    height = card.height
    safe = card.safe
    return {
        # between the number and the stars, on one line
        "title": Box(inner - MISSION_NUMBER - MISSION_STARS, MISSION_HEAD, TITLE_PT, bold=True,
                     min_pt=RULES_MIN_PT, condensed=True),
        "flavor": Box(inner, 9.5, 7.0, italic=True, min_pt=6.5),
        # a mission's play order, hand, goal deck, challenges, actions (mission.mission_lines);
        # its height is what the title and the flavour text leave (mission.mission_layout)
        "mission-rules": Box(inner, height - 2 * safe - MISSION_HEAD - MISSION_STATS - 8.0,
                             11.0, line_height=1.15, min_pt=RULES_MIN_PT),
        "goal-symbol": Box(inner, 19.0, 48.0, bold=True, line_height=1.1, min_pt=24.0),
        "goal-name": Box(inner, 10.0, 12.0, bold=True),
        "goal-text": Box(inner, height - 2 * safe - 52.0, 9.5),  # above "Added by mission"
        "action-name": Box(inner, 10.0, 12.0, bold=True),
        "action-text": Box(inner, height - 2 * safe - 44.0, 11.0),  # read across the table
    }
