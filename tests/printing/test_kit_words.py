"""The printed kit's words: no straight quote, nothing under 6 pt and every mission's rules at
8 pt, French print set in French typography, flavour texts in the bundled italic; and a
rulebook that credits the game, says it is unofficial, and has every rule players need."""

from __future__ import annotations

import ctypes
import re
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as raw
import pytest
from support.pages import pages, plain

from synergy_forge.authoring.loading import read_campaign
from synergy_forge.resources import starter_campaign
from synergy_forge.typography import typeset

# -- the printed kit -----------------------------------------------------------------------------

@pytest.fixture(scope="module")
def kit(starter_kit: Path) -> Path:
    """The starter kit in every language (conftest.py: built once per test run)."""
    return starter_kit


@pytest.mark.parametrize("language", ["en", "fr"])
def test_nothing_printed_has_a_straight_quote(kit, language):
    text = "\n".join(pages(kit / language / f"print-and-play-{language}.pdf"))
    assert text.count("’") > 20
    straight = [text[max(0, i - 30):i + 30] for i, ch in enumerate(text) if ch in "'\""]
    assert straight == []


def character_sizes(path: Path) -> list[tuple[int, str, float]]:
    """(page, character, size in pt) of every printed character of a PDF, spaces left out."""
    document = pdfium.PdfDocument(path)
    try:
        found = []
        for index, page in enumerate(document):
            text = page.get_textpage()
            for k in range(text.count_chars()):
                char = chr(raw.FPDFText_GetUnicode(text.raw, k))
                if char.strip() and char != "\ufffe":
                    # WeasyPrint writes sizes in CSS px: 1 pt = 3/4 px.
                    found.append((index, char, raw.FPDFText_GetFontSize(text.raw, k) * 0.75))
        return found
    finally:
        document.close()


@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_mission_card_prints_its_rules_at_8_pt_and_nothing_under_6_pt(kit, language):
    """Read from a seat. Measured in the built kit's one-card-a-page PDF of the
    mission cards: nothing under 6 pt, and the only text under 8 pt is the flavour and the
    stats' labels."""
    from collections import Counter

    from synergy_forge.cardtext.i18n import Translator

    campaign = read_campaign(starter_campaign()).campaign
    translator = Translator(language)
    _ = translator.gettext
    labels = "".join(_(s) for s in ("rounds to win", "lives", "may miss", "super", "hyper")) \
        + "".join(_("{players}p").format(players=n) for n in (3, 4, 5))
    sizes = character_sizes(kit / language / "cards-missions.pdf")
    missions = sorted(campaign.missions, key=lambda m: m.number)
    assert {page for page, _, _ in sizes} == set(range(len(missions))) and len(missions) == 30
    for index, mission in enumerate(missions):
        on_card = [(char, size) for page, char, size in sizes if page == index]
        head = "".join(char for char, _ in on_card[:40])
        assert head.startswith(str(mission.number)), (index, head)  # the card is this mission's
        assert min(size for _, size in on_card) >= 5.99, mission.number
        small = Counter(char for char, size in on_card if size < 7.99)
        # stars per player count, a line a count in the head at 6 to 7 pt (docs/printing.md)
        by_count = "".join(_("{players}p").format(players=n) + "★" * stars
                           for n, stars in mission.stars_per_count.items())
        allowed = Counter(typeset(translator.text(mission.flavor) + labels + "3/4/5" + by_count,
                                  language).replace(" ", "").replace("\u00a0", "")
                          .replace("\u202f", ""))
        assert not small - allowed, (mission.number, small - allowed)
        assert sum(size >= 7.99 for _, size in on_card) > 60, mission.number  # the rules
        # The stats' labels and the player-count key at 7 pt (issue 44), the flavour at 6.5
        flavour = set(typeset(translator.text(mission.flavor), language))
        stars = set(by_count) if mission.stars_per_count else set()
        assert all(size >= 6.99 for char, size in on_card if char not in flavour | stars), \
            (mission.number, sorted({(c, round(z, 1)) for c, z in on_card if z < 6.99}))


@pytest.mark.parametrize("language", ["en", "fr"])
def test_nothing_in_the_kit_is_printed_under_6_pt(kit, language):
    """Read from the rendered PDF: every card, sheet label, rulebook page, the
    challenge sheet and the calibration page. (Mission cards' rules at 8 pt or more:
    test_visual.py; the rulebook's running text is larger still.)"""
    sizes = character_sizes(kit / language / f"print-and-play-{language}.pdf")
    assert len(sizes) > 20000
    small = [(page + 1, char, round(size, 2)) for page, char, size in sizes if size < 5.99]
    assert small == []
    rulebook = [size for _, _, size in character_sizes(kit / language / "rulebook.pdf")]
    # all but the table drawing's labels and the example's small cards
    assert sum(size >= 7.99 for size in rulebook) / len(rulebook) > 0.95


def test_french_print_follows_french_typography(kit):
    text = "\n".join(pages(kit / "fr" / "print-and-play-fr.pdf"))
    assert "“" not in text and "”" not in text and text.count("«\u202f") == text.count("\u202f»")
    assert text.count("«") >= 4
    bad = [text[max(0, m.start() - 20):m.end() + 5]
           for m in re.finditer(r"(?<![\u202f\u00a0])[;:!?](?=\s)", text)]
    assert bad == []
    assert "100\u00a0%" in text and "100 %" not in text and "100\u00a0mm" in text


@pytest.mark.parametrize("language, groups", [
    # (How many may miss at each player count is in the card's stats row, as "1/2", "3/4
    # players": no line of text to break.)
    ("en", ("C\u00a0Double recovery",
            "without Unique\u00a0(≠), plus Close call\u00a0(±1)")),
    ("fr", ("C\u00a0Double récupération",
            "sans Unique\u00a0(≠), plus De justesse\u00a0(±1)")),
])
def test_mission_cards_keep_their_groups_unbroken(kit, language, groups):
    """A line break after an action's letter parts it from its name; a goal's sign in
    brackets is not read as a sum ("without Unique ≠ with Close call ±1")."""
    text = re.sub(r"[ \r\n]+", " ", "\n".join(pages(kit / language / "missions.pdf")))
    assert [g for g in groups if g not in text] == []


def font_names(path: Path, page: int, words: str) -> set[str]:
    document = pdfium.PdfDocument(path)
    try:
        textpage = document[page].get_textpage()
        text = textpage.get_text_range()
        start = text.index(words)
        names = set()
        for i in range(start, start + len(words)):
            size = raw.FPDFText_GetFontInfo(textpage.raw, i, None, 0, None)
            buffer = ctypes.create_string_buffer(size)
            raw.FPDFText_GetFontInfo(textpage.raw, i, buffer, size, None)
            names.add(buffer.value.decode().split("+")[-1])
        return names
    finally:
        document.close()


def test_flavour_texts_print_in_the_bundled_italic(kit):
    assert font_names(kit / "en" / "missions.pdf", 0, "Nobody speaks") == {"Forge-Sans-Italic"}
    assert font_names(kit / "fr" / "missions.pdf", 0, "Personne ne parle") == \
        {"Forge-Sans-Italic"}
    # (the title on one line in the condensed bold face, issue 44)
    assert font_names(kit / "en" / "missions.pdf", 0, "First notes") == \
        {"Forge-Condensed,-Bold-Semi-Condensed"}


def test_the_italic_face_is_measured_with_its_own_metrics():
    from synergy_forge.cardtext import fonts as textfit
    from synergy_forge.cardtext.geometry import card_boxes
    from synergy_forge.resources import templates_dir

    textfit.font.cache_clear()
    assert textfit.font(italic=True) == textfit.read_font(
        templates_dir() / "fonts" / textfit.ITALIC)
    assert card_boxes()["flavor"].italic
    assert textfit.font(italic=True).em_width("«") != textfit.font().em_width("«")


# -- the rulebook --------------------------------------------------------------------------------


@pytest.mark.parametrize("language, first_page, credits", [
    ("en", ("Synergy: how to play", "3 to 5 players", "No talking about your cards",
            "fan-made and unofficial", "not affiliated with or endorsed by Jolly Dutch",
            "Robert Brouwer"),
     ("Credits", "Synergy: a game designed by Robert Brouwer, published by Jolly Dutch.",
      "This print-and-play kit is fan-made and unofficial. It is not affiliated with or "
      "endorsed by Jolly Dutch or Robert Brouwer.", "DejaVu")),
    ("fr", ("Synergy : comment jouer", "3 à 5 joueurs", "Ne parlez pas de vos cartes",
            "fait par des fans et non officiel", "ni affilié à Jolly Dutch",
            "Robert Brouwer"),
     ("Crédits", "Synergy : un jeu conçu par Robert Brouwer, édité par Jolly Dutch.",
      "Ce kit à imprimer est fait par des fans et non officiel. Il n’est ni affilié à Jolly "
      "Dutch ou à Robert Brouwer, ni approuvé par eux.", "DejaVu")),
])
def test_the_rulebook_opens_with_players_silence_and_the_notice(kit, language, first_page,
                                                                credits):
    text = pages(kit / language / "rulebook.pdf")
    first = plain(text[0])
    assert [w for w in first_page if w not in first] == []
    assert first.find(first_page[1]) < first.find(first_page[2]) < len(first) // 2
    # the credits, on the last page: the designer and the publisher, and the notice again
    last = plain(text[-1])
    assert [w for w in credits if w not in last] == []
    challenges = plain(pages(kit / language / "challenges.pdf")[0])
    assert first_page[3] in challenges


def test_the_rulebook_has_every_rule_players_need(kit):
    text = plain(" ".join(pages(kit / "en" / "rulebook.pdf")))
    for words in (
        "Your left neighbour is the next player clockwise",  # the table-layout diagram
        "Cards you play this round", "Your discard row, face up",
        "belongs, until the round ends, to the player it now lies in front of",  # R18
        "A and C may take back any number card of your discard row, whatever its colour",  # R13
        "Lay F or G beside the number card it changes",
        "H or J face up in front of the player who used it",
        "Colours nobody plays stay in the box",
    ):
        assert words in text, words


def test_challenges_come_after_how_to_play_in_the_order_players_meet_them(kit, starter_order):
    text = plain(" ".join(pages(kit / "en" / "rulebook.pdf")))
    table = text.index("Challenge From")
    assert text.index("A round, step by step") < text.index("Winning and losing") < table
    positions = [text.index(name, table) for name in starter_order]
    assert positions == sorted(positions)
    assert "Goals to the right As soon as" in text and "Mission 6" in text


@pytest.fixture(scope="module")
def starter_order() -> list[str]:
    campaign = read_campaign(starter_campaign()).campaign
    assert campaign is not None
    seen: list[str] = []
    for mission in sorted(campaign.missions, key=lambda m: m.number):
        seen += [c for c in mission.challenges if c not in seen]
    return [campaign.rulebook.challenge(c).name["en"] for c in seen]


@pytest.mark.parametrize("language, heading, follows", [
    ("en", "An example round", "The sums are 5, 10"),
    ("fr", "Un exemple de manche", "Les sommes sont 5, 10"),
    ("en", "The table", "Seen from above"),
    ("fr", "La table", "Vue de dessus"),
])
def test_no_heading_is_left_at_a_page_foot(kit, language, heading, follows):
    for page in pages(kit / language / "rulebook.pdf"):
        lines = [line.strip() for line in page.splitlines() if line.strip()]
        if heading in lines:
            assert follows in plain(page)
            assert lines[-1] != heading
            return
    pytest.fail(f"no page with {heading!r}")


def test_the_rulebook_lists_only_the_campaign_goals_the_kit_prints(tmp_path):
    """A campaign goal no mission adds to its goal deck is not printed; the rulebook neither
    counts nor lists it ("10 goal cards of this campaign" where 5 were printed)."""
    import shutil

    from synergy_forge.authoring.loading import read_campaign
    from synergy_forge.cardtext.i18n import Translator
    from synergy_forge.printing.html import html_for
    from synergy_forge.printing.jobs import Job, Options
    from synergy_forge.resources import starter_campaign

    folder = tmp_path / "camp"
    shutil.copytree(starter_campaign(), folder)
    spare = folder / "goals" / "spare.yaml"
    spare.write_text((folder / "goals" / "close-call.yaml").read_text().replace(
        "id: close-call", "id: spare-goal").replace("Close call", "Spare goal"))
    campaign = read_campaign(folder).campaign
    assert campaign is not None and "spare-goal" in campaign.rulebook.goals
    html, _ = html_for(Job("rulebook", "en"), campaign, Options(png=False), Translator("en"))
    assert "Spare goal" not in html and "Close call" in html
    assert "5 goal cards of this campaign" in html


# -- the rulebook as a booklet ---------------------------------------------------------------------

def text_lines(path: Path) -> list[str]:
    """Every line of text of a PDF as PDFium reads it back, a hyphenated word's two halves on
    their own lines (PDFium joins them with U+FFFE)."""
    return [line for page in pages(path)
            for line in page.replace("\r", "").replace("\ufffe", "\n").split("\n")]


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_rulebook_is_set_in_two_columns_of_60_to_75_characters(kit, language):
    """The rulebook ran 93 characters a line (up to 123). In two columns of DejaVu
    Sans Condensed, hyphenated: the running text's lines (45 characters or more: table cells
    and paragraphs' last lines are shorter) are 60 to 75 characters by their median, and no
    line is longer than 75 (A4 here; Letter in test_table_ready.py)."""
    import statistics

    lines = text_lines(kit / language / "rulebook.pdf")
    body = [len(line) for line in lines if len(line) >= 45]
    assert len(body) > 100
    assert 60 <= statistics.median(body) <= 75, statistics.median(body)
    assert max(len(line) for line in lines) <= 75, max(lines, key=len)


@pytest.mark.parametrize("language", ["en", "fr"])
def test_every_rulebook_page_is_numbered(kit, language):
    text = pages(kit / language / "rulebook.pdf")
    assert len(text) >= 3
    for number, page in enumerate(text, start=1):
        assert f"{number} / {len(text)}" in plain(page), number
    assert not re.search(r"\d / \d", plain(pages(kit / language / "challenges.pdf")[0]))


@pytest.mark.slow
@pytest.mark.parametrize("language, paper", [("en", "a4"), ("fr", "letter")])
def test_no_table_of_the_rulebook_is_split(language, paper):
    """The goals table was split across two pages. Laid out by WeasyPrint from the
    rulebook's HTML: each table (goals, action cards, the example round, challenges) is one
    box, on one page and in one column (a table split over pages or columns is two boxes of
    one element)."""
    from weasyprint import HTML
    from weasyprint.formatting_structure.boxes import TableBox

    from synergy_forge.cardtext.i18n import Translator
    from synergy_forge.printing.draw import RenderContext, url_fetcher
    from synergy_forge.printing.html import html_for
    from synergy_forge.printing.jobs import Job, Options
    from synergy_forge.resources import templates_dir

    campaign = read_campaign(starter_campaign()).campaign
    assert campaign is not None
    html, _ = html_for(Job("rulebook", language), campaign, Options(paper=paper, png=False),
                       Translator(language))
    context = RenderContext()
    try:
        document = HTML(string=html, base_url=str(templates_dir()) + "/",
                        url_fetcher=url_fetcher([])).render(
            stylesheets=[context.stylesheet], font_config=context.fonts)
    finally:
        context.release()
    seen: list[int] = []

    def walk(box) -> None:
        if isinstance(box, TableBox):
            seen.append(id(box.element))
            return
        for child in getattr(box, "children", []):
            walk(child)

    for page in document.pages:
        walk(page._page_box)
    assert len(set(seen)) >= 4 and len(seen) == len(set(seen)), len(seen) - len(set(seen))


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_challenge_sheet_is_one_page_read_across_a_table(kit, language):
    """The challenge sheet was set at 9 pt with half its page empty. Its size is
    the largest at which it fills its one page (printing.html.challenge_sheet_pt): for the
    starter's 16 challenges, 13 pt or more on A4, every challenge's name and rule at it."""
    from collections import Counter

    path = kit / language / "challenges.pdf"
    assert len(pages(path)) == 1
    sizes = Counter(round(size, 1) for _, char, size in character_sizes(path)
                    if char.isalpha())
    # the names and rules: the commonest size (the title, the notice and "From" aside)
    assert sizes.most_common(1)[0][0] >= 13.0, sizes
    text = plain(pages(path)[0])
    campaign = read_campaign(starter_campaign()).campaign
    assert campaign is not None
    for challenge in campaign.rulebook.challenges.values():
        assert plain(typeset(challenge.name[language], language)) in text


def test_the_rulebook_lists_the_components_the_build_checks(kit):
    """The component list counts what the kit prints (printing.components, which
    the build checks against what the engine deals and plays for every mission)."""
    from synergy_forge.printing.components import components
    from synergy_forge.printing.kit import build_kit

    campaign = read_campaign(starter_campaign()).campaign
    assert campaign is not None
    box = components(build_kit(campaign))
    assert (box.numbers, box.goal_cards, box.own_goal_cards, box.missions, box.mission_cards,
            len(box.actions), box.action_cards) == (50, 35, 5, 30, 15, 10, 5)
    english = plain(" ".join(pages(kit / "en" / "rulebook.pdf")))
    for words in (f"{box.numbers} number cards: in each of the {box.colours} colours",
                  f"{box.goal_cards} goal cards of the base set",
                  f"{box.own_goal_cards} goal cards of this campaign",
                  f"{box.missions} missions on {box.mission_cards} cards",
                  f"{len(box.actions)} action cards (A to J) on {box.action_cards} cards",
                  "a rounds card (0 to 7), and 2 coins", "16 to 19 mm"):
        assert words in english, words
    french = plain(" ".join(pages(kit / "fr" / "rulebook.pdf")))
    assert f"{box.missions} missions sur {box.mission_cards} cartes" in french


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_rulebook_states_its_three_rulings_as_rulings(kit, language):
    """Three statements stricter than the published rules (one action card a
    player a round, a mission lost when a round starts without a goal card, super and hyper
    holders for the whole mission) are printed as this kit's rulings, with their ids in
    docs/rules.md."""
    text = plain(" ".join(pages(kit / language / "rulebook.pdf")))
    for ruling in ("R12", "R22", "R24"):
        assert ruling in text, ruling
    rules = (Path(__file__).resolve().parents[2] / "docs" / "rules.md").read_text("utf-8")
    assert " ".join(rules.split()).count("*Checked against the published rulebook:*") == 3


# -- mission cards with a hierarchy (issue 44) ----------------------------------------------------

@pytest.mark.parametrize("language", ["en", "fr"])
def test_mission_cards_print_one_rules_size_and_titles_on_one_line_never_smaller(language):
    """Issue 44: the rules text changed size from card to card on one sheet (8 to 11 pt) and
    titles shrank under it or wrapped. Every mission card of the starter prints its rules at
    the campaign's one size in the language (campaign_rules_pt: the largest that fits every
    card, 9 pt in English, 8 pt in French), and its title on one line (as high as the head) in
    DejaVu Sans Condensed Bold, at that size or larger; drawn, nothing overflows."""
    import re as regex

    from synergy_forge.cardtext.geometry import MISSION_HEAD
    from synergy_forge.cardtext.i18n import Translator
    from synergy_forge.cardtext.mission import campaign_rules_pt
    from synergy_forge.printing.draw import RenderContext, draw
    from synergy_forge.printing.html import html_for
    from synergy_forge.printing.jobs import Job, Options

    campaign = read_campaign(starter_campaign()).campaign
    assert campaign is not None
    size = campaign_rules_pt(campaign, Translator(language))
    assert size == {"en": 9.0, "fr": 8.0}[language]
    html, _ = html_for(Job("cards", language, "missions"), campaign, Options(png=False),
                       Translator(language))
    rules = regex.findall(r'class="rules fit" style="font-size:([\d.]+)pt', html)
    titles = regex.findall(r'<h2 class="fit" style="font-size:([\d.]+)pt;height:([\d.]+)mm"',
                           html)
    assert len(rules) == len(titles) == len(campaign.missions) == 30
    assert {float(pt) for pt in rules} == {size}
    assert all(float(pt) >= size and float(height) == MISSION_HEAD for pt, height in titles)
    context = RenderContext()
    try:
        assert draw(html, context).overflows == []
    finally:
        context.release()


def test_validate_names_the_one_mission_that_sets_every_card_s_rules_smaller(tmp_path):
    """Issue 44: with one rules size on every card, one crowded card sets it for all;
    validate says which (a warning at its challenges), where it alone holds the others a
    point or more below and near the smallest size read from a seat. The starter's closest
    cards tie, and say nothing (test_validate)."""
    import shutil

    from click.testing import CliRunner

    from synergy_forge.cli import main

    folder = tmp_path / "camp"
    (folder / "missions").mkdir(parents=True)
    shutil.copy(starter_campaign() / "campaign.yaml", folder / "campaign.yaml")
    for path in (starter_campaign() / "missions").glob("*.yaml"):
        if path.name[:2] in ("01", "24"):
            shutil.copy(path, folder / "missions" / path.name)
    (folder / "campaign.yaml").write_text(
        (folder / "campaign.yaml").read_text(encoding="utf-8"), encoding="utf-8")
    result = CliRunner().invoke(main, ["validate", str(folder)])
    assert "24-crossed-wires.yaml" in result.output and "[mission.rules-size]" in result.output, \
        result.output
    assert "warning: mission 24's card (fr) sets the rules text of every mission card to 8 pt: " \
           "without it they would be 11 pt" in result.output
    assert "(en)" not in result.output  # 9 pt in English: readable enough to say nothing


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_stats_labels_keep_clear_of_their_boxes_borders(language):
    """Issue 44: drawn, "rounds to win" and "échecs permis" touched their boxes' borders
    (0.1 mm from the line). Every line of every stats box of the starter's mission cards keeps
    0.35 mm or more inside its box's border, on the poker card and a print shop's."""
    from weasyprint import HTML

    from synergy_forge.cardtext.i18n import Translator
    from synergy_forge.printing.draw import RenderContext, url_fetcher
    from synergy_forge.printing.html import html_for
    from synergy_forge.printing.jobs import PRESETS, Job, Options
    from synergy_forge.resources import templates_dir

    campaign = read_campaign(starter_campaign()).campaign
    assert campaign is not None
    px = 25.4 / 96  # mm
    context = RenderContext()
    tight: list[tuple[str, int, float]] = []
    checked = 0
    try:
        for options in (Options(png=False), Options(card=PRESETS["dtc"].card, png=False)):
            html, _ = html_for(Job("cards", language, "missions"), campaign, options,
                               Translator(language))
            document = HTML(string=html, base_url=str(templates_dir()) + "/",
                            url_fetcher=url_fetcher([])).render(
                stylesheets=[context.stylesheet], font_config=context.fonts)

            def lines(box):
                if type(box).__name__ == "LineBox":
                    yield box
                for child in getattr(box, "children", []):
                    yield from lines(child)

            def stats(box):
                element = getattr(box, "element", None)
                if element is not None and getattr(box, "element_tag", None) == "div" and \
                        "stat" in (element.get("class") or "").split():
                    yield box
                    return
                for child in getattr(box, "children", []):
                    yield from stats(child)

            for number, page in enumerate(document.pages, 1):
                for stat in stats(page._page_box):
                    left = stat.border_box_x() + stat.border_left_width
                    right = stat.border_box_x() + stat.border_width() - stat.border_right_width
                    for line in lines(stat):
                        for piece in line.children:
                            text = getattr(piece, "text", None)
                            if text is None or not text.strip():
                                continue
                            checked += 1
                            gap = min(piece.position_x - left,
                                      right - piece.position_x - piece.margin_width()) * px
                            if gap < 0.35:
                                tight.append((text, number, round(gap, 2)))
    finally:
        context.release()
    assert checked > 300 and tight == [], tight
