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


#: mm between the lines of a mission card's rules block (mission.mission_lines)
RULES_GAP = 0.6
#: a mission card's head (number, stars) and stats row with their margins, in mm
MISSION_HEAD = 6.0
MISSION_STATS = 10.0


@cache
def card_boxes(card: CardSize = POKER) -> dict[str, Box]:
    """The fitted text boxes of a card, by field."""
    inner = card.width - 2 * card.safe
    height = card.height
    safe = card.safe
    return {
        "title": Box(inner, 10.0, 11.0, bold=True),
        "flavor": Box(inner, 9.5, 7.0, italic=True),
        # a mission's play order, hand, goal deck, challenges, actions (mission.mission_lines)
        "mission-rules": Box(inner, height - 2 * safe - 36.5, 7.0),
        "goal-symbol": Box(inner, 19.0, 48.0, bold=True, line_height=1.1, min_pt=24.0),
        "goal-name": Box(inner, 10.0, 12.0, bold=True),
        "goal-text": Box(inner, height - 2 * safe - 49.0, 9.5),  # above "Added by mission"
        "action-name": Box(inner, 10.0, 12.0, bold=True),
        "action-text": Box(inner, height - 2 * safe - 44.0, 9.0),
    }
