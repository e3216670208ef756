"""What to upload to a print shop (build --preset tgc|mpc): for each different card, its face
image, its back image and how many of it, as CSV and JSON beside the PNGs.

The PNG folders alone did not say which back goes with which face (mission 1's back is
mission 2; the action cards' pairs are chosen by the build) nor how many of each (two of each
number card). Rows are the cards of each group in print order, one row per different pair of
images (the same face and back images, whatever their file names: the two number cards of a
value), with the shop's own words for the columns.
"""

from __future__ import annotations

import csv
import io
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from synergy_forge.printing.kit import Card, Face


@dataclass(frozen=True)
class Shop:
    """A print shop's words for its upload: the two sides and the count, and its product."""

    name: str
    face: str
    back: str
    quantity: str
    product: str


SHOPS = {
    "tgc": Shop("The Game Crafter", "Face", "Back", "Quantity", "Poker Deck"),
    "mpc": Shop("MakePlayingCards", "Front", "Back", "Quantity", "poker size cards"),
}


@dataclass(frozen=True)
class Row:
    deck: str  # the kit's group: missions, goals, numbers, actions, specials
    face: str  # the image's path inside png/
    back: str
    quantity: int


def rows(kit: dict[str, list[Card]], image: Callable[[str, Face], tuple[str, str]]
         ) -> list[Row]:
    """One row per different (face image, back image) of each group, in print order, with how
    many cards show it. `image(group, face)` is the face's file inside png/ and what its
    picture is (a key equal for equal pictures)."""
    found: list[Row] = []
    for group, cards in kit.items():
        counted: dict[tuple[str, str], int] = {}
        named: dict[tuple[str, str], tuple[str, str]] = {}
        for card in cards:
            (face, face_key), (back, back_key) = image(group, card.front), image(group, card.back)
            counted[face_key, back_key] = counted.get((face_key, back_key), 0) + 1
            named.setdefault((face_key, back_key), (face, back))
        found += [Row(group, *named[key], count) for key, count in counted.items()]
    return found


def csv_text(shop: Shop, found: Iterable[Row]) -> str:
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(["deck", shop.face, shop.back, shop.quantity])
    for row in found:
        writer.writerow([row.deck, row.face, row.back, row.quantity])
    return buffer.getvalue()


def json_text(shop: Shop, found: list[Row], title: str, language: str,
              pixels: tuple[int, int]) -> str:
    decks: dict[str, list[Row]] = {}
    for row in found:
        decks.setdefault(row.deck, []).append(row)
    data = {
        "shop": shop.name, "product": shop.product, "campaign": title, "language": language,
        "image": {"width": pixels[0], "height": pixels[1], "dpi": 300,
                  "note": "each image is the card with its bleed"},
        "decks": [{"deck": deck, "cards": sum(r.quantity for r in group),
                   "backs": len({r.back for r in group}),
                   "rows": [{shop.face: r.face, shop.back: r.back, shop.quantity: r.quantity}
                            for r in group]} for deck, group in decks.items()],
    }
    return json.dumps(data, ensure_ascii=False, indent=1) + "\n"


def file_names(shop: str) -> tuple[Path, Path]:
    """The manifest's two files, inside a language's png/ folder."""
    return Path(f"{shop}-manifest.csv"), Path(f"{shop}-manifest.json")
