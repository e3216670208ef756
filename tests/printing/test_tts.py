"""`synergy-forge build --tts`: the kit as Tabletop Simulator decks, for playtesting online."""

from __future__ import annotations

import functools
import json
import re
import shutil
import urllib.parse
import urllib.request
from pathlib import Path

import pytest
from click.testing import CliRunner
from PIL import Image, ImageChops, ImageStat

from synergy_forge.cli import main
from synergy_forge.core.cards import GOAL_IDS, NUMBER_VALUES, Action

BUILT_IN_GOALS = {"one-higher": "One higher", "one-lower": "One lower", "equal": "Equal",
                  "unique": "Unique", "between": "Between", "second-highest": "Second highest",
                  "second-lowest": "Second lowest"}
COLORS = [("red", "●"), ("yellow", "▲"), ("green", "■"), ("blue", "◆"), ("purple", "★")]


@pytest.fixture(scope="module")
def kit(tts_kit: Path) -> Path:
    """small_campaign's English kit, with --tts (conftest.tts_kit: built once per run, and
    shared with test_build's PNG and TTS rebuild)."""
    return tts_kit / "out"


@pytest.fixture(scope="module")
def french(kit: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """small_campaign's French export in FOLDER/fr/tts/, as `export` makes a group's sheets the
    build did not compose: from the faces' PNGs under FOLDER/fr/png/ (that this equals the
    build's own sheets: test_sheets_not_made_with_the_cards_are_made_from_the_pngs). The PNGs
    are stand-ins, one small image a face (a poker card with its bleed, 1 px a mm): what is
    read of the French export is its names and the form of its sheets; every card's picture
    is checked on the English kit (building the French one with --tts rasterised every face
    once more, a third of tts_kit's time)."""
    from synergy_forge.authoring.loading import read_campaign
    from synergy_forge.cardtext.geometry import CardSize
    from synergy_forge.printing.html import single_faces
    from synergy_forge.printing.kit import build_kit
    from synergy_forge.printing.tts import export

    folder = tmp_path_factory.mktemp("french")
    campaign = read_campaign(kit.parent / "camp").campaign
    assert campaign is not None
    for group, cards in build_kit(campaign).items():
        (folder / "fr" / "png" / group).mkdir(parents=True)
        for n, face in enumerate(single_faces(cards)):
            Image.new("RGB", (69, 94), (n, 255 - n, 128)).save(
                folder / "fr" / "png" / group / f"{face.key}.png")
    export(campaign, folder / "fr", "fr", CardSize())
    return folder


def saved_object(out: Path, language: str) -> dict:
    name = {"en": "starter-campaign-en.json", "fr": "campagne-de-depart-fr.json"}[language]
    return json.loads((out / language / "tts" / name).read_text("utf-8"))


def cards_of(thing: dict) -> list[dict]:
    return thing["ContainedObjects"] if thing["Name"] == "Deck" else [thing]


def every_card(save: dict) -> list[dict]:
    return [card for thing in save["ObjectStates"] for card in cards_of(thing)]


def by_nickname(save: dict) -> dict[str, dict]:
    return {thing["Nickname"]: thing for thing in save["ObjectStates"]}


def local(url: str) -> Path:
    assert url.startswith("file:///"), url
    return Path(urllib.request.url2pathname(urllib.parse.urlparse(url).path))


def test_the_saved_object_holds_every_deck_of_the_campaign(kit):
    save = saved_object(kit, "en")
    assert save["SaveName"] == "Starter campaign"
    things = by_nickname(save)
    for color, symbol in COLORS:
        numbers = things[f"Number cards {color} {symbol}"]
        # Ten number cards a colour, in play order (two of each value, R2).
        assert [c["Nickname"] for c in numbers["ContainedObjects"]] == \
            [f"Number {v} ({color} {symbol})" for v in NUMBER_VALUES]
        goals = {c["Nickname"] for c in things[f"Goal cards {color} {symbol}"]
                 ["ContainedObjects"]}
        assert {f"{name} ({color} {symbol})" for name in BUILT_IN_GOALS.values()} <= goals
    assert set(BUILT_IN_GOALS) == set(GOAL_IDS)
    nicknames = [c["Nickname"] for c in every_card(save)]
    # The campaign's own goal card is in the export, as many times as the kit prints it.
    assert any("Close call" in n for n in nicknames)
    missions = [c["Nickname"] for c in cards_of(things["Mission cards"])]
    assert missions == ["Mission 1: First / Mission 2: Second", "Mission 3: Third"]
    actions = " / ".join(c["Nickname"] for c in cards_of(things["Action cards"]))
    for action in Action:
        assert actions.count(f"{action}: ") == 1, action
    for special in ("Super card", "Hyper card", "Lives", "Rounds"):
        assert things[special]["Name"] == "Card"
    goal_texts = {c["Description"] for c in every_card(save) if "Close call" in c["Nickname"]}
    assert goal_texts == {"Be 1\u00a0away from a sum."}  # typeset as printed: 1 and its word


def test_card_ids_match_their_sheets_and_decks_their_cards(kit):
    save = saved_object(kit, "en")
    entries: dict[str, dict] = {}
    for thing in save["ObjectStates"]:
        cards = cards_of(thing)
        if thing["Name"] == "Deck":
            assert thing["DeckIDs"] == [c["CardID"] for c in cards]
            assert set(thing["CustomDeck"]) == {str(c["CardID"] // 100) for c in cards}
            assert len(cards) > 1
        for card in cards:
            deck, index = divmod(card["CardID"], 100)
            (number, entry), = card["CustomDeck"].items()
            assert number == str(deck)
            assert index < entry["NumWidth"] * entry["NumHeight"]
            assert 1 <= entry["NumWidth"] <= 10 and 1 <= entry["NumHeight"] <= 7
            assert entry["BackIsHidden"] is True
            assert entries.setdefault(number, entry) == entry  # one sheet per deck number
            if thing["Name"] == "Deck":
                assert thing["CustomDeck"][number] == entry
    cards = every_card(save)
    assert len({c["GUID"] for c in cards}) == len(cards)
    # Two cards share a CardID (a cell of their sheet) only when they are copies of one card
    # (the two number cards of a value): a sheet holds each different face once.
    named: dict[int, set[str]] = {}
    for card in cards:
        named.setdefault(card["CardID"], set()).add(card["Nickname"])
    assert all(len(names) == 1 for names in named.values())
    assert len(named) < len(cards)
    # No two decks are stacked on one spot.
    spots = [(t["Transform"]["posX"], t["Transform"]["posZ"]) for t in save["ObjectStates"]]
    assert len(spots) == len(set(spots))


def test_sheets_are_rgb_within_tts_limits_and_next_to_the_saved_object(kit, french):
    # Named after campaign and language, so that both languages can share one image host.
    en, fr = ({p.name for p in (out / lang / "tts").iterdir()}
              for out, lang in ((kit, "en"), (french, "fr")))
    assert en.isdisjoint(fr) and all(n.startswith("starter-campaign-en") for n in en)
    assert all(n.isascii() for n in fr)
    # ... whatever the name: accents dropped, any other character (an apostrophe, straight
    # or typographic) parts words.
    from synergy_forge.printing.tts import _slug

    assert _slug("Petit essai à l'école") == _slug("Petit essai à l’école") == \
        "petit-essai-a-l-ecole"
    for out, language in ((kit, "en"), (french, "fr")):
        save = saved_object(out, language)
        folder = (out / language / "tts").resolve()
        entries = {n: e for c in every_card(save) for n, e in c["CustomDeck"].items()}
        for entry in entries.values():
            face = Image.open(local(entry["FaceURL"]))
            back = Image.open(local(entry["BackURL"]))
            for image in (face, back):
                assert Path(image.filename).parent == folder
                assert image.mode == "RGB"
                assert max(image.size) <= 4096
            cell = (face.width // entry["NumWidth"], face.height // entry["NumHeight"])
            assert face.size == (cell[0] * entry["NumWidth"], cell[1] * entry["NumHeight"])
            assert abs(cell[0] / cell[1] - 63 / 88) < 0.01  # a poker card, bleed cut off
            # Double-faced cards (missions, actions) have a back sheet; a deck with one back
            # has one back image.
            assert back.size == (face.size if entry["UniqueBack"] else cell)


@functools.lru_cache(maxsize=2)
def _sheet(path: Path) -> Image.Image:
    """A deck's sheet, decoded once for all its cards (a deck's cards come one after another;
    decoding a sheet per card was most of this module's time). Callers only crop it."""
    return Image.open(path).convert("RGB")


def cell_of(card: dict, side: str) -> Image.Image:
    """The part of the card's sheet that TTS shows for it: its CardID's slot, left to right,
    top to bottom, or the whole image for a shared back."""
    (_, entry), = card["CustomDeck"].items()
    sheet = _sheet(local(entry[side]))
    if side == "BackURL" and not entry["UniqueBack"]:
        return sheet
    w, h = sheet.width // entry["NumWidth"], sheet.height // entry["NumHeight"]
    column, row = divmod(card["CardID"] % 100, entry["NumWidth"])[::-1]
    return sheet.crop((column * w, row * h, column * w + w, row * h + h))


@functools.lru_cache(maxsize=256)
def _card(png: Path, size: tuple[int, int]) -> Image.Image:
    """A card's PNG, bleed cut off, at `size`: decoded once (a deck's back is compared with
    every card of the deck: decoding it again each time was a third of the decoding).
    Callers only read it."""
    image = Image.open(png).convert("RGB")
    bleed_x, bleed_y = round(image.width * 3 / 69), round(image.height * 3 / 94)
    image = image.crop((bleed_x, bleed_y, image.width - bleed_x, image.height - bleed_y))
    return image.resize(size, Image.Resampling.BOX)


def looks_like(cell: Image.Image, png: Path) -> float:
    """Mean difference (0-255) between a sheet's cell and a card's PNG, bleed cut off."""
    # Compared at a quarter size, so that how each was scaled does not count.
    size = (cell.width // 4, cell.height // 4)
    return ImageStat.Stat(ImageChops.difference(cell.resize(size, Image.Resampling.BOX),
                                                _card(png, size)).convert("L")).mean[0]


def test_each_card_id_shows_its_own_face_and_back(kit):
    png = kit / "en" / "png"
    goal_keys = {name: key for key, name in BUILT_IN_GOALS.items()} | {"Close call": "close-call"}
    checked = 0
    for card in every_card(saved_object(kit, "en")):
        name = card["Nickname"]
        if name.startswith(("Number ", *goal_keys)):
            what, color = name[:-1].split(" (")
            c = [f"{n} {s}" for n, s in COLORS].index(color)
            if what.startswith("Number "):
                index = NUMBER_VALUES.index(int(what.split()[1]))
                face, back = png / "numbers" / f"number-{c}-{index}.png", \
                    png / "numbers" / f"back-number-{c}.png"
            else:
                face, back = png / "goals" / f"goal-{c}-{goal_keys[what]}.png", \
                    png / "goals" / f"back-goal-{c}.png"
        elif name.startswith("Mission "):
            numbers = [int(part.split(":")[0].split()[1]) for part in name.split(" / ")]
            face = png / "missions" / f"mission-{numbers[0]:02d}.png"
            back = png / "missions" / (f"mission-{numbers[1]:02d}.png" if len(numbers) > 1
                                       else "back-mission.png")
        elif name[1:3] == ": ":  # an action card, "A: name", double-faced "A: … / F: …"
            letters = [part[0] for part in name.split(" / ")]
            face = png / "actions" / f"action-{letters[0]}.png"
            back = png / "actions" / f"action-{letters[-1]}.png" if len(letters) > 1 else None
        else:
            assert name in ("Super card", "Hyper card", "Lives", "Rounds"), name
            continue
        # Another card of the kit differs by 2 or more (a goal card's text alone).
        assert looks_like(cell_of(card, "FaceURL"), face) < 1, name
        if back is not None:
            assert looks_like(cell_of(card, "BackURL"), back) < 1, name
        checked += 1
    assert checked >= 2 + 5 + 5 * (10 + 7)


def test_french_export_names_cards_in_french_with_french_typography(french):
    save = saved_object(french, "fr")
    things = by_nickname(save)
    assert "Cartes numérotées rouge ●" in things and "Cartes Objectif violet ★" in things
    # A no-break space before the colon, as French typography wants (the catalog uses the
    # narrow one, U+202F, before : ; ! ?; tests/package/test_typography.py).
    assert things["Cartes Mission"]["ContainedObjects"][0]["Nickname"].replace(
        "\u202f", "\u00a0") == "Mission 1\u00a0: First fr / Mission 2\u00a0: Second fr"
    assert all(re.search("[\u00a0\u202f]: ", c["Nickname"])
               for c in cards_of(things["Cartes Action"]))
    assert not any("cards" in n for n in things)


def test_url_base_gives_http_urls_and_the_same_export_twice_is_identical(kit, tmp_path):
    from synergy_forge.authoring.loading import read_campaign
    from synergy_forge.cardtext.geometry import CardSize
    from synergy_forge.printing.tts import export

    campaign = read_campaign(kit.parent / "camp").campaign
    shutil.copytree(kit / "en" / "tts", tmp_path / "en" / "tts")
    first = export(campaign, tmp_path / "en", "en", CardSize(), "https://example.org/kit/")
    save = json.loads(first.saved_object.read_text("utf-8"))
    names = {p.name for p in first.images}
    for card in every_card(save):
        for entry in card["CustomDeck"].values():
            for url in (entry["FaceURL"], entry["BackURL"]):
                assert url.startswith("https://example.org/kit/")
                assert url.removeprefix("https://example.org/kit/") in names
    before = {p: p.read_bytes() for p in [first.saved_object, *first.images]}
    export(campaign, tmp_path / "en", "en", CardSize(), "https://example.org/kit/")
    assert before == {p: p.read_bytes() for p in before}


def test_sheets_not_made_with_the_cards_are_made_from_the_pngs(kit, tmp_path):
    from synergy_forge.authoring.loading import read_campaign
    from synergy_forge.cardtext.geometry import CardSize
    from synergy_forge.printing.tts import export

    campaign = read_campaign(kit.parent / "camp").campaign
    shutil.copytree(kit / "en", tmp_path / "en")
    sheets = sorted((tmp_path / "en" / "tts").glob("starter-campaign-en-numbers-*.png"))
    made = {p.name: p.read_bytes() for p in sheets}
    for path in sheets:
        path.unlink()
    export(campaign, tmp_path / "en", "en", CardSize())
    assert made == {p.name: p.read_bytes() for p in sheets}


def test_tts_options_that_cannot_work_are_usage_errors(tmp_path):
    runner = CliRunner()
    out = tmp_path / "o"
    result = runner.invoke(main, ["build", "--tts", "--no-png", "--out", str(out)])
    assert result.exit_code == 2 and "--no-png" in result.output
    result = runner.invoke(main, ["build", "--tts", "--tts-url-base", "ftp://x", "--out",
                                  str(out)])
    assert result.exit_code == 2 and "--tts-url-base" in result.output
    result = runner.invoke(main, ["build", "--tts-url-base", "https://x", "--out", str(out)])
    assert result.exit_code == 2 and "--tts" in result.output
    assert not out.exists()


@pytest.mark.parametrize("url", ['https://exa mple.org/"x', "https://", "https:///sheets/",
                                 "https://example.org/a b/", "https://example.org/<x>",
                                 "https://example.org:port/", "https://example.org/?x=1",
                                 "https://example.org/#top", "https://example.org/%zz/",
                                 "https://example.org/é/"])
def test_a_tts_url_base_that_is_no_http_url_with_a_host_is_a_usage_error(tmp_path, url):
    """The base is written as it is before each sheet's name into the saved object, whose
    URLs TTS fetches: a space, a quote, no host, a query or fragment (the name would end up in
    it) would be a URL that loads nothing, seen only when the players sit down."""
    out = tmp_path / "o"
    # (--lang xx: a URL let through would stop at the language, exit 2 too, before drawing.)
    result = CliRunner().invoke(main, ["build", "--tts", "--tts-url-base", url, "--out",
                                       str(out), "--lang", "xx"])
    assert result.exit_code == 2, result.output
    assert "Invalid value for '--tts-url-base'" in result.output, result.output
    assert "Traceback" not in result.output and not out.exists()


def test_a_tts_url_base_that_is_an_http_url_is_accepted():
    from synergy_forge.cli.commands.build import _url_problem

    for url in ("https://example.org/synergy/", "http://example.org", "HTTPS://Example.org/a",
                "https://user@example.org:8443/a%20b/", "https://[::1]/sheets",
                "https://example.org/~me/(kit)/"):
        assert _url_problem(url) is None, url
