"""The kit for Tabletop Simulator: deck sheets and a saved object that lays out the campaign.

TTS draws a custom deck from a "sheet" (a grid of up to 10 x 7 card faces, at most 4096 px a
side) and either one back image shared by every card, or a back sheet in the same grid
(`UniqueBack`). A card is named by `CardID` = deck number * 100 + its index on the sheet, read
left to right, top to bottom (two copies of a card, one cell: the same CardID); each card
carries the `CustomDeck` entry of its sheet, and a deck lists its cards' ids in `DeckIDs` and
the cards themselves in `ContainedObjects`. Several CustomDecks may draw on one sheet of
faces, each with its own back (`_Deck`: a group's decks one a colour).

Sheets are made from the card images the build rasterises for its 300 DPI PNGs: the worker
that rasterises a face also cuts its bleed off and halves it (`shrink`: 372 x 520 px for a
poker card) into a small image beside it in the cache (`ppm_bytes`); as soon as a group's
cards are done, the build lays its small images out on the group's sheets (`compose_group`)
while the workers draw the rest of the kit, so that no 300 DPI PNG is decoded again. Once
every group is done, `export` writes the saved object.

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


@dataclass(frozen=True)
class SheetFiles:
    """One image of the export, as plain data: its file name and the face keys of its cells
    in grid order (one key and a 1 x 1 grid: a single card's image, such as a deck's back)."""

    file: str
    keys: tuple[str, ...]
    columns: int
    rows: int


def _grid(cells: int) -> tuple[int, int]:
    columns = min(MAX_COLUMNS, cells)
    return columns, -(-cells // columns)


@dataclass
class _Deck:
    """One CustomDeck: cards of one group drawn from a sheet of faces, with one back image or
    (UniqueBack) a sheet of backs in the same grid. The decks of a group whose backs are
    plain backs (numbers, goals: one back a colour) share one sheet of the group's different
    faces, each deck with its colour's back: a card's two copies are one cell, and no sheet
    of backs repeats one back in every cell (encoding those sheets was most of the export's
    time)."""

    number: int
    group: str
    cards: list[Card]
    cells: list[int]  # each card's place on the face sheet
    faces: SheetFiles
    back: SheetFiles
    url: Any = None  # file name -> URL, once known

    @property
    def unique_back(self) -> bool:
        return len(self.back.keys) > 1

    def entry(self) -> dict[str, Any]:
        return {"FaceURL": self.url(self.faces.file), "BackURL": self.url(self.back.file),
                "NumWidth": self.faces.columns, "NumHeight": self.faces.rows,
                "BackIsHidden": True, "UniqueBack": self.unique_back, "Type": 0}


def _looks(face: Face) -> tuple[Any, ...]:
    """What a face's image shows: two faces alike but for their key (a number card's two
    copies) have one image."""
    return face.kind, repr(face.data), face.color, face.missions


def _plan(campaign: Campaign, language: str) -> list[_Deck]:
    """Every CustomDeck of the export, numbered from 1, group by group in print order."""
    kit = build_kit(campaign)
    # Every file is named after the campaign and language too: uploaded side by side to one
    # image host or TTS's cloud, the sheets of two languages or campaigns never collide.
    prefix = _prefix(campaign, language)
    decks: list[_Deck] = []
    for group in GROUPS:
        cards = kit.get(group, [])
        plain = all(card.back.kind == "back" for card in cards)
        # A cell per different face (a plain back comes apart), or per different face and
        # back (both sides of a card are faces, or some backs are).
        cell_of: dict[tuple[Any, ...], int] = {}
        looks = [_looks(c.front) if plain else (_looks(c.front), _looks(c.back)) for c in cards]
        firsts: list[Card] = []
        for card, look in zip(cards, looks, strict=True):
            if look not in cell_of:
                cell_of[look] = len(firsts)
                firsts.append(card)
        chunks = [firsts[k:k + CARDS_PER_TTS_SHEET]
                  for k in range(0, len(firsts), CARDS_PER_TTS_SHEET)]
        for n, chunk in enumerate(chunks):
            name = f"{prefix}-{group}" + (f"-{n + 1}" if len(chunks) > 1 else "")
            faces = SheetFiles(f"{name}-faces.png", tuple(c.front.key for c in chunk),
                               *_grid(len(chunk)))
            mine = [(card, cell_of[look] - n * CARDS_PER_TTS_SHEET)
                    for card, look in zip(cards, looks, strict=True)
                    if cell_of[look] // CARDS_PER_TTS_SHEET == n]
            if plain:  # a deck per back, all drawing on the one face sheet
                by_back: dict[str, list[tuple[Card, int]]] = {}
                for card, cell in mine:
                    by_back.setdefault(card.back.key, []).append((card, cell))
                for key, members in by_back.items():
                    back = SheetFiles(f"{prefix}-{key}.png", (key,), 1, 1)
                    decks.append(_Deck(len(decks) + 1, group, [c for c, _ in members],
                                       [cell for _, cell in members], faces, back))
                continue
            backs = tuple(c.back.key for c in chunk)
            back = SheetFiles(f"{name}-backs.png", backs, faces.columns, faces.rows) \
                if len(set(backs)) > 1 else SheetFiles(f"{name}-back.png", backs[:1], 1, 1)
            decks.append(_Deck(len(decks) + 1, group, [c for c, _ in mine],
                               [cell for _, cell in mine], faces, back))
    return decks


def _prefix(campaign: Campaign, language: str) -> str:
    name = Translator(language).text(dict(campaign.name))
    return f"{_slug(name) or 'campaign'}-{language}"


def _images(decks: list[_Deck]) -> list[SheetFiles]:
    """The export's images, each once, in the decks' order: face sheets and backs."""
    return list({image.file: image for deck in decks
                 for image in (deck.faces, deck.back)}.values())


def sheet_files(campaign: Campaign, language: str, group: str) -> list[SheetFiles]:
    """The images of one component group: its face sheets and its backs."""
    return _images([deck for deck in _plan(campaign, language) if deck.group == group])


def write_sheets(sheets: list[SheetFiles], image: Callable[[str], Any], folder: Path,
                 prefix: str = "", root: Path | None = None) -> list[Path]:
    """Lay each sheet's cells out from `image(face key)` (shrunk, RGB) and write it into
    `folder`, named `prefix` + its file name (inside `root`: through fileio.write_beneath)."""
    from PIL import Image

    written = []
    for sheet in sheets:
        if len(sheet.keys) == 1 and sheet.columns == 1:
            picture = image(sheet.keys[0])
        else:
            width, height = image(sheet.keys[0]).size
            picture = Image.new("RGB", (sheet.columns * width, sheet.rows * height), "white")
            for index, key in enumerate(sheet.keys):
                picture.paste(image(key), ((index % sheet.columns) * width,
                                           (index // sheet.columns) * height))
        buffer = BytesIO()
        picture.save(buffer, format="PNG")
        written.append(_write(root, folder / f"{prefix}{sheet.file}", buffer.getvalue(), False))
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
            with Image.open(shrunk[face]) as small:
                small.load()
                images[face] = small if small.mode == "RGB" else small.convert("RGB")
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

        for key in {k for s in self.sheets for k in s.keys}:
            with Image.open(folder / f"{key}.png") as png:
                self.faces[key] = shrink(self.card, png)

    def write(self, folder: Path, root: Path | None = None) -> list[Path]:
        return write_sheets(self.sheets, self.faces.__getitem__, folder, root=root)


def ppm_bytes(image: Any) -> bytes:
    """A shrunk card as the build keeps it for its sheets: an uncompressed PPM, which takes
    a tenth of a PNG's time to write and to read back (a PNG, even at zlib level 1, was a
    quarter of the export's time); store.whole checks its length against its header."""
    buffer = BytesIO()
    image.save(buffer, format="PPM")
    return buffer.getvalue()


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
    decks = _plan(campaign, language)
    for deck in decks:
        deck.url = (lambda name: f"{url_base.rstrip('/')}/{name}") if url_base else \
            (lambda name: (target / name).as_uri())
    result = Export(target / f"{_prefix(campaign, language)}.json")
    images = _images(decks)
    result.images = [target / image.file for image in images]
    for group in dict.fromkeys(deck.group for deck in decks
                               if not all((target / image.file).is_file()
                                          for image in (deck.faces, deck.back))):
        missing = GroupSheets(campaign, language, group, card)
        missing.add_pngs(folder.resolve() / "png" / group)
        missing.write(target, root)
    result.cards = sum(len(deck.cards) for deck in decks)
    name = translator.text(dict(campaign.name))
    save = {"SaveName": name, "GameMode": name, "Date": "", "VersionNumber": "",
            "Gravity": 0.5, "PlayArea": 0.5, "Table": "", "Sky": "", "Note": "", "Rules": "",
            "XmlUI": "", "LuaScript": "", "LuaScriptState": "", "TabStates": {},
            "ObjectStates": _objects(decks, _Namer(campaign, translator))}
    result.missing = translator.missing
    _write(root, result.saved_object, json.dumps(save, ensure_ascii=False, indent=2) + "\n")
    # TTS shows <name>.png beside a saved object as its thumbnail in Saved Objects: the first
    # card (mission 1), cut from its sheet.
    first = decks[0].faces
    with Image.open(target / first.file) as picture:
        cell = (picture.width // first.columns, picture.height // first.rows)
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


def _objects(sheets: list[_Deck], namer: _Namer) -> list[dict[str, Any]]:
    """The campaign on the table: missions, action cards and specials on the top row, each
    colour's goal deck under it and its number deck below that."""
    # Each table object: (row, its cards as (CustomDeck, index)); colour decks are split by
    # colour (a colour's cards share one back: one CustomDeck).
    decks: dict[tuple[str, Any], list[tuple[_Deck, int]]] = {}
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


def _card(sheet: _Deck, index: int, transform: dict[str, float],
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
            "CardID": sheet.number * 100 + sheet.cells[index],
            "CustomDeck": {str(sheet.number): sheet.entry()}}


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
