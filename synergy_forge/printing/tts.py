"""The kit for Tabletop Simulator: deck sheets and a saved object that lays out the campaign.

TTS draws a custom deck from a "sheet" (a grid of up to 10 x 7 card faces, at most 4096 px a
side) and either one back image shared by every card, or a back sheet in the same grid
(`UniqueBack`). A card is named by `CardID` = deck number * 100 + its index on the sheet, read
left to right, top to bottom; each card carries the `CustomDeck` entry of its sheet, and a deck
lists its cards' ids in `DeckIDs` and the cards themselves in `ContainedObjects`.

Sheets are made from the card images the build rasterises for its 300 DPI PNGs: the worker
that rasterises a face also cuts its bleed off and halves it (`shrink`: 372 x 520 px for a
poker card) into a small PNG beside it in the cache; as soon as a group's cards are done, the
build lays its small images out on the group's sheets (`compose_group`) while the workers draw
the rest of the kit, so that a group uploads as two images and no 300 DPI PNG is decoded
again. Once every group is done, `export` writes the saved object.

Sheets are RGB PNG: the cards' flat colours compress so well that a PNG sheet is smaller than
a JPEG of it (the number sheet: 121 kB, against 691 kB as JPEG at quality 92), and lossless;
every player of an online game downloads every sheet.
"""

from __future__ import annotations

import hashlib
import json
import time
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from io import BytesIO
from pathlib import Path
from typing import Any

from synergy_forge.cardtext.geometry import CardSize
from synergy_forge.cardtext.i18n import Translator
from synergy_forge.core.mission import Campaign
from synergy_forge.fileio import write_atomic, write_beneath
from synergy_forge.printing.kit import GROUPS, SYMBOLS, Card, Face, build_kit

MAX_COLUMNS, MAX_ROWS, MAX_SIDE = 10, 7, 4096
#: TTS shows the sheet's last slot for a hidden card when `BackIsHidden` is off: keep it free,
#: so a sheet stays valid whatever a user changes in TTS.
CARDS_PER_TTS_SHEET = MAX_COLUMNS * MAX_ROWS - 1
#: Where each row of objects lies on the table, in TTS units (a card is about 2.5 x 3.5).
SPACING_X, ROW_Z = 3.0, {"top": 8.0, "goals": 3.5, "numbers": -1.0}
#: Groups whose decks are dealt face down; the others lie face up to be read.
FACE_DOWN = {"numbers"}


def N_(message: str) -> str:  # gettext's name for "extract now, translate later"
    return message


#: The default colours' names, marked for `pybabel extract`: a campaign's colours are looked up
#: in the catalog by name.
COLOR_NAMES = (N_("red"), N_("yellow"), N_("green"), N_("blue"), N_("purple"))


@dataclass
class Export:
    """What one language's export wrote."""

    saved_object: Path
    images: list[Path] = field(default_factory=list)
    cards: int = 0
    missing: set[str] = field(default_factory=set)  # texts printed in English


@dataclass
class _Sheet:
    """One CustomDeck: up to 69 cards of one group, their faces and backs."""

    number: int
    group: str
    cards: list[Card]
    name: str  # file names start with it
    url: Any = None  # file name -> URL, once known

    @property
    def grid(self) -> tuple[int, int]:
        columns = min(MAX_COLUMNS, len(self.cards))
        return columns, -(-len(self.cards) // columns)

    @property
    def unique_back(self) -> bool:
        return len({c.back.key for c in self.cards}) > 1

    @property
    def face_file(self) -> str:
        return f"{self.name}-faces.png"

    @property
    def back_file(self) -> str:
        return f"{self.name}-backs.png" if self.unique_back else f"{self.name}-back.png"

    def entry(self) -> dict[str, Any]:
        columns, rows = self.grid
        return {"FaceURL": self.url(self.face_file), "BackURL": self.url(self.back_file),
                "NumWidth": columns, "NumHeight": rows, "BackIsHidden": True,
                "UniqueBack": self.unique_back, "Type": 0}


def _plan(campaign: Campaign, language: str) -> list[_Sheet]:
    """Every sheet of the export, numbered from 1, group by group in print order."""
    kit = build_kit(campaign)
    # Every file is named after the campaign and language too: uploaded side by side to one
    # image host or TTS's cloud, the sheets of two languages or campaigns never collide.
    prefix = _prefix(campaign, language)
    sheets: list[_Sheet] = []
    for group in GROUPS:
        cards = kit.get(group, [])
        chunks = [cards[k:k + CARDS_PER_TTS_SHEET]
                  for k in range(0, len(cards), CARDS_PER_TTS_SHEET)]
        for n, chunk in enumerate(chunks, start=1):
            name = f"{prefix}-{group}" + (f"-{n}" if len(chunks) > 1 else "")
            sheets.append(_Sheet(len(sheets) + 1, group, chunk, name))
    return sheets


def _prefix(campaign: Campaign, language: str) -> str:
    name = Translator(language).text(dict(campaign.name))
    return f"{_slug(name) or 'campaign'}-{language}"


@dataclass(frozen=True)
class SheetFiles:
    """What one deck sheet's two images are made of, as plain data (sent to a worker): the
    face keys of its fronts in grid order, and of its backs (one key: a common back)."""

    face_file: str
    fronts: tuple[str, ...]
    back_file: str
    backs: tuple[str, ...]
    columns: int
    rows: int


def sheet_files(campaign: Campaign, language: str, group: str) -> list[SheetFiles]:
    """The sheets of one component group."""
    return [SheetFiles(s.face_file, tuple(c.front.key for c in s.cards), s.back_file,
                       tuple(c.back.key for c in s.cards) if s.unique_back
                       else (s.cards[0].back.key,), *s.grid)
            for s in _plan(campaign, language) if s.group == group]


def write_sheets(sheets: list[SheetFiles], image: Callable[[str], Any], folder: Path,
                 prefix: str = "", root: Path | None = None) -> list[Path]:
    """Lay each sheet's faces out from `image(face key)` (shrunk, RGB) and write its two
    images into `folder`, named `prefix` + their file name (inside `root`: through
    fileio.write_beneath)."""
    from PIL import Image

    written = []

    def save(name: str, picture: Any) -> None:
        buffer = BytesIO()
        picture.save(buffer, format="PNG")
        written.append(_write(root, folder / f"{prefix}{name}", buffer.getvalue(), False))

    def compose(keys: tuple[str, ...], columns: int, rows: int) -> Any:
        width, height = image(keys[0]).size
        sheet = Image.new("RGB", (columns * width, rows * height), "white")
        for index, key in enumerate(keys):
            sheet.paste(image(key), ((index % columns) * width, (index // columns) * height))
        return sheet

    for sheet in sheets:
        save(sheet.face_file, compose(sheet.fronts, sheet.columns, sheet.rows))
        save(sheet.back_file, compose(sheet.backs, sheet.columns, sheet.rows)
             if len(sheet.backs) > 1 else image(sheet.backs[0]))
    return written


def _write(root: Path | None, path: Path, data: bytes | str, durable: bool = True) -> Path:
    if root is None:
        return write_atomic(path, data, durable=durable)
    return write_beneath(root, path, data, durable=durable)


def compose_group(_shared: Any, sheets: list[SheetFiles], shrunk: dict[str, str], cache: str,
                  key: str, root: Path | None = None) -> float:
    """One group's sheets from the small images `shrink` left in the cache (`shrunk`: face key
    -> path), written there as KEY-<file>, then KEY.json listing them (last: its presence says
    the entry is whole)."""
    from PIL import Image

    started = time.perf_counter()
    images: dict[str, Any] = {}

    def image(face: str) -> Any:
        if face not in images:
            with Image.open(shrunk[face]) as png:
                png.load()
                images[face] = png if png.mode == "RGB" else png.convert("RGB")
        return images[face]

    written = write_sheets(sheets, image, Path(cache), prefix=f"{key}-", root=root)
    names = [path.name.removeprefix(f"{key}-") for path in written]
    _write(root, Path(cache) / f"{key}.json", json.dumps(names), False)
    return time.perf_counter() - started


class GroupSheets:
    """A group's sheets from its faces' 300 DPI PNGs, as a build left them in OUT/<lang>/png/:
    how `export` makes the sheets of a group the build did not compose."""

    def __init__(self, campaign: Campaign, language: str, group: str, card: CardSize) -> None:
        self.sheets = sheet_files(campaign, language, group)
        self.card = card
        self.faces: dict[str, Any] = {}

    def add_pngs(self, folder: Path) -> None:
        from PIL import Image

        for key in {k for s in self.sheets for k in (*s.fronts, *s.backs)}:
            with Image.open(folder / f"{key}.png") as png:
                self.faces[key] = shrink(self.card, png)

    def write(self, folder: Path, root: Path | None = None) -> list[Path]:
        return write_sheets(self.sheets, self.faces.__getitem__, folder, root=root)


def shrink(card: CardSize, image: Any) -> Any:
    """A card's 300 DPI image (with bleed) trimmed and shrunk for a TTS sheet, in RGB."""
    box, factor = _shrink(card, image.size)
    small = image.reduce(factor, box=box)
    return small if small.mode == "RGB" else small.convert("RGB")


def _shrink(card: CardSize, png_size: tuple[int, int]) -> tuple[tuple[int, int, int, int], int]:
    """The trimmed card's box in a PNG with bleed, and the whole factor that shrinks it to fit
    10 x 7 on a 4096 px sheet (a poker card: 744 px wide at 300 DPI, 372 on the sheet). A whole
    factor averages square blocks of pixels: as sharp as any filter at this ratio, and fast."""
    width, height = png_size
    bleed_x = round(width * card.bleed / (card.width + 2 * card.bleed))
    bleed_y = round(height * card.bleed / (card.height + 2 * card.bleed))
    box = (bleed_x, bleed_y, width - bleed_x, height - bleed_y)
    factor = max(-(-(box[2] - box[0]) // (MAX_SIDE // MAX_COLUMNS)),
                 -(-(box[3] - box[1]) // (MAX_SIDE // MAX_ROWS)), 1)
    return box, factor


def export(campaign: Campaign, folder: Path, language: str, card: CardSize,
           url_base: str | None = None, root: Path | None = None) -> Export:
    """Write `folder`/tts/'s saved object, once `GroupSheets` has written every group's sheets
    (a group whose sheets are not there, as when its cards were not rendered again, gets them
    from its PNGs under `folder`/png/).

    `url_base` replaces the file:// URLs by `url_base`/<file name>, for sheets uploaded there.
    With `root` (the build's output folder), every file is written through
    fileio.write_beneath.
    """
    from PIL import Image

    target = folder.resolve() / "tts"
    translator = Translator(language)
    sheets = _plan(campaign, language)
    for sheet in sheets:
        sheet.url = (lambda name: f"{url_base.rstrip('/')}/{name}") if url_base else \
            (lambda name: (target / name).as_uri())
    result = Export(target / f"{_prefix(campaign, language)}.json")
    result.images = [target / name for s in sheets for name in (s.face_file, s.back_file)]
    for group in dict.fromkeys(s.group for s in sheets if not (target / s.face_file).is_file()
                               or not (target / s.back_file).is_file()):
        missing = GroupSheets(campaign, language, group, card)
        missing.add_pngs(folder.resolve() / "png" / group)
        missing.write(target, root)
    result.cards = sum(len(s.cards) for s in sheets)
    name = translator.text(dict(campaign.name))
    save = {"SaveName": name, "GameMode": name, "Date": "", "VersionNumber": "",
            "Gravity": 0.5, "PlayArea": 0.5, "Table": "", "Sky": "", "Note": "", "Rules": "",
            "XmlUI": "", "LuaScript": "", "LuaScriptState": "", "TabStates": {},
            "ObjectStates": _objects(sheets, _Namer(campaign, translator))}
    result.missing = translator.missing
    _write(root, result.saved_object, json.dumps(save, ensure_ascii=False, indent=2) + "\n")
    # TTS shows <name>.png beside a saved object as its thumbnail in Saved Objects: the first
    # card (mission 1), cut from its sheet.
    first = sheets[0]
    with Image.open(target / first.face_file) as picture:
        columns, rows = first.grid
        cell = (picture.width // columns, picture.height // rows)
        thumbnail = picture.crop((0, 0, *cell)).resize((256, round(256 * cell[1] / cell[0])))
    buffer = BytesIO()
    thumbnail.save(buffer, format="PNG")
    result.images.append(_write(root, result.saved_object.with_suffix(".png"),
                                buffer.getvalue()))
    return result


def _slug(text: str) -> str:
    """A file name part in plain ASCII (a URL needs no escaping): "Campagne de départ" gives
    campagne-de-depart."""
    # Accents go (é is e and a combining accent); any other character parts words, the
    # typographic apostrophe of "l’école" as the straight one.
    kept = "".join(c.lower() if c.isascii() and c.isalnum() else
                   "" if unicodedata.combining(c) else "-"
                   for c in unicodedata.normalize("NFKD", text))
    return "-".join(part for part in kept.split("-") if part)


def _objects(sheets: list[_Sheet], namer: _Namer) -> list[dict[str, Any]]:
    """The campaign on the table: missions, action cards and specials on the top row, each
    colour's goal deck under it and its number deck below that."""
    # Each table object: (row, its cards as (sheet, index)); colour decks are split by colour.
    decks: dict[tuple[str, Any], list[tuple[_Sheet, int]]] = {}
    for sheet in sheets:
        for index, card in enumerate(sheet.cards):
            if sheet.group in ("goals", "numbers"):
                key: tuple[str, Any] = (sheet.group, card.front.color)
            elif sheet.group == "specials":
                key = ("top", card.front.key)  # each special card lies on its own
            else:
                key = ("top", sheet.group)
            decks.setdefault(key, []).append((sheet, index))
    objects = []
    row_sizes = {row: sum(1 for r, _ in decks if r == row) for row, _ in decks}
    columns: dict[str, int] = {}
    for (row, what), cards in decks.items():
        column = columns.get(row, 0)
        columns[row] = column + 1
        x = (column - (row_sizes[row] - 1) / 2) * SPACING_X  # each row centred on the table
        face_down = cards[0][0].group in FACE_DOWN
        transform = {"posX": x, "posY": 1.0, "posZ": ROW_Z[row], "rotX": 0.0, "rotY": 180.0,
                     "rotZ": 180.0 if face_down else 0.0, "scaleX": 1.0, "scaleY": 1.0,
                     "scaleZ": 1.0}
        contained = [_card(sheet, index, transform, namer) for sheet, index in cards]
        if len(contained) == 1:
            objects.append(contained[0])
            continue
        nickname = namer.deck(cards[0][0].group, what if row in ("goals", "numbers") else None)
        custom = {str(s.number): s.entry() for s in {s.number: s for s, _ in cards}.values()}
        objects.append({"GUID": _guid(f"deck {row} {what}"), "Name": "Deck",
                        "Transform": transform, "Nickname": nickname, "Description": "",
                        "Locked": False, "Grid": True, "Snap": True, "Tooltip": True,
                        "HideWhenFaceDown": face_down, "Hands": False, "SidewaysCard": False,
                        "DeckIDs": [c["CardID"] for c in contained], "CustomDeck": custom,
                        "ContainedObjects": contained})
    return objects


def _card(sheet: _Sheet, index: int, transform: dict[str, float],
          namer: _Namer) -> dict[str, Any]:
    card = sheet.cards[index]
    names = [namer.name(card.front)]
    if card.back.kind != "back":  # a double-faced card: both sides are playable faces
        names.append(namer.name(card.back))
    texts = filter(None, (namer.text(card.front), namer.text(card.back)))
    return {"GUID": _guid(f"card {sheet.group} {card.front.key}"), "Name": "Card",
            "Transform": dict(transform), "Nickname": " / ".join(names),
            "Description": "\n\n".join(texts),
            "Locked": False, "Grid": True, "Snap": True, "Tooltip": True,
            "HideWhenFaceDown": True, "Hands": True, "SidewaysCard": False,
            "CardID": sheet.number * 100 + index, "CustomDeck": {str(sheet.number): sheet.entry()}}


@dataclass
class _Namer:
    """What TTS shows when pointing at a card or deck: what a player would call it."""

    campaign: Campaign
    translator: Translator

    def color(self, color: int) -> str:
        colors = self.campaign.colors
        name = self.translator.gettext(colors[color]) if color < len(colors) else ""
        return f"{name} {SYMBOLS[color % len(SYMBOLS)]}".strip()

    def name(self, face: Face) -> str:
        _, text = self.translator.gettext, self.translator.text
        if face.kind == "mission":
            return _("Mission {number}: {title}").format(number=face.data.number,
                                                         title=text(dict(face.data.title)))
        if face.kind == "goal":
            return f"{text(dict(face.data.name))} ({self.color(face.color or 0)})"
        if face.kind == "number":
            return f"{_('Number')} {face.data.value} ({self.color(face.color or 0)})"
        if face.kind == "action":
            action = self.campaign.actions.get(face.data)
            return _("{letter}: {name}").format(letter=face.data, name=text(dict(action.name))) \
                if action else str(face.data)
        return {"super": _("Super card"), "hyper": _("Hyper card"), "lives": _("Lives"),
                "rounds": _("Rounds")}.get(face.kind, face.key)

    def text(self, face: Face) -> str:
        """The card's rule text, for TTS's tooltip."""
        if face.kind == "goal":
            return self.translator.text(dict(face.data.text))
        action = self.campaign.actions.get(face.data) if face.kind == "action" else None
        return self.translator.text(dict(action.text)) if action else ""

    def deck(self, group: str, color: int | None) -> str:
        _ = self.translator.gettext
        name = {"missions": _("Mission cards"), "goals": _("Goal cards"),
                "numbers": _("Number cards"), "actions": _("Action cards")}.get(group, group)
        return name if color is None else f"{name} {self.color(color)}"


def _guid(key: str) -> str:
    """A stable 6-digit hex id (TTS's GUID format), so the same kit gives the same file."""
    return hashlib.sha256(key.encode("utf-8")).hexdigest()[:6]
