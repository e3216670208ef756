"""The print-and-play kit at the table: physically right, readable, playable from
its own pages, printable on home printers. Letter is built here, in English; A4, in every
language, in test_build.py (conftest.starter_kit, which the French cases here read)."""

from __future__ import annotations

import shutil
from pathlib import Path

import pypdfium2 as pdfium
import pypdfium2.raw as raw
import pytest
from click.testing import CliRunner
from support.pages import MM, check_pages, foreign_ink

from synergy_forge.authoring.loading import read_campaign
from synergy_forge.cardtext.fonts import Box, fit
from synergy_forge.cardtext.geometry import card_boxes
from synergy_forge.cli import main
from synergy_forge.core.cards import Action, pair_action_cards
from synergy_forge.printing.kit import INKS, PAPER, build_kit, colours, contrast
from synergy_forge.printing.layout import CROSS, EDGE, PAPERS, SCALE, calibration_crosses, sheet
from synergy_forge.resources import starter_campaign
from synergy_forge.typography import typeset

#: Most home printers leave this much of every edge blank.
PRINTER_MARGIN = 4.0


def text_of(path: Path, index: int | None = None) -> str:
    document = pdfium.PdfDocument(path)
    try:
        pages = range(len(document)) if index is None else [index]
        return "\n".join(document[i].get_textpage().get_text_range() for i in pages)
    finally:
        document.close()


def flat(text: str) -> str:
    return " ".join(text.replace("\r", " ").replace("\n", " ").replace("\ufffe", "").split())


@pytest.fixture(scope="module")
def letter_kit(tmp_path_factory, starter_kit) -> Path:
    out = tmp_path_factory.mktemp("letter")
    # The A4 kit's cache in: its cards are drawn already (a rebuild from a cache equals one
    # without, test_build.py); the letter sheets, calibration page, rulebook and challenge
    # sheet are drawn here. In English: Letter changes the pages around the texts, not the
    # texts; French, whose texts are longer, is checked on A4 (test_build.py), and its
    # Letter pages were half this build. On one process: two workers, each starting its own
    # WeasyPrint, cost more than they saved on eight documents.
    shutil.copytree(starter_kit / ".cache", out / ".cache")
    result = CliRunner().invoke(main, ["build", "--paper", "letter", "--out", str(out),
                                       "--no-png", "--jobs", "1", "--lang", "en"])
    assert result.exit_code == 0, result.output
    return out


@pytest.fixture(scope="module")
def starter():
    campaign = read_campaign(starter_campaign()).campaign
    assert campaign is not None
    return campaign


# -- physically right ---------------------------------------------------------------------------

def test_no_mission_uses_both_faces_of_one_action_card(starter):
    cards = build_kit(starter)["actions"]
    assert len(cards) == 5
    for card in cards:
        faces = {card.front.data, card.back.data}
        for mission in starter.missions:
            assert not faces <= set(mission.actions), (mission.number, faces)
    # Missions 17 (C, D), 29 (I, J) and 30 (A, B, C, D) are what the old fixed pairs broke.
    assert {frozenset(m.actions) for m in starter.missions} >= {
        frozenset("CD"), frozenset("IJ"), frozenset("ABCD")}


def test_pairing_is_impossible_when_six_actions_are_used_together():
    assert pair_action_cards([frozenset(Action(a) for a in "ABCDEF")]) is None
    assert pair_action_cards([frozenset(Action(a) for a in "ABCDE")]) is not None
    assert pair_action_cards([]) == [(Action.A, Action.B), (Action.C, Action.D),
                                     (Action.E, Action.F), (Action.G, Action.H),
                                     (Action.I, Action.J)]


def small_campaign(tmp_path: Path, missions: dict[str, str]) -> Path:
    folder = tmp_path / "camp"
    (folder / "missions").mkdir(parents=True)
    (folder / "campaign.yaml").write_text("name: Small\nmissions: [missions/*.yaml]\n")
    for name, extra in missions.items():
        number = int(name)
        (folder / "missions" / f"{name}.yaml").write_text(
            f"id: m{number}\nnumber: {number}\ntitle: Mission {number}\nstars: 1\nrounds: 2\n"
            f"lives: 2\n{extra}", encoding="utf-8")
    return folder


def test_single_sided_action_cards_when_missions_force_it_and_validate_names_them(tmp_path):
    """The action cards' sheets are drawn as build draws them, whole (printing/html.py's sheets
    job; build imposes the same cards on the same frames, which gives the same pages:
    test_build.py's imposed-sheets tests): a build of the whole kit, for these pages,
    was six times as long."""
    from synergy_forge.cardtext.i18n import Translator
    from synergy_forge.printing.draw import RenderContext, draw
    from synergy_forge.printing.html import html_for
    from synergy_forge.printing.jobs import Job, Options

    folder = small_campaign(tmp_path, {"1": "actions: [A, B, C]\n",
                                       "2": "actions: [A, B, C, D, E, F]\n",
                                       "3": "actions: [G, H]\n"})
    result = CliRunner().invoke(main, ["validate", str(folder)])
    assert result.exit_code == 0, result.output  # a warning: the kit still prints
    assert "2.yaml:7:10: warning: with the other missions' action cards, A, B, C, D, E, F " \
        "leave no way" in result.output
    assert "1.yaml" not in result.output and "3.yaml" not in result.output
    campaign = read_campaign(folder).campaign
    cards = build_kit(campaign)["actions"]
    assert len(cards) == 10 and {c.back.kind for c in cards} == {"back"}
    html, _ = html_for(Job("sheets", "en", "actions"), campaign, Options(png=False),
                       Translator("en"))
    context = RenderContext(str(tmp_path))
    try:
        pdf = tmp_path / "actions.pdf"
        pdf.write_bytes(draw(html, context).pdf)
    finally:
        context.release()
    # Fronts page, backs page, fronts page, backs page: the backs carry no action text (and
    # no sheet label: a back page holds the backs alone), only their deck's name.
    assert "Recover" in text_of(pdf, 0) and "Recover" not in text_of(pdf, 1)
    assert "Recover" not in text_of(pdf, 3) and "A C T I O N" in text_of(pdf, 3)


def test_lives_and_rounds_cards_run_from_0_to_7(letter_kit):
    specials = flat(text_of(letter_kit / "en" / "specials.pdf", 0))
    assert specials.count("0 1 2 3 4 5 6 7") == 2


def test_each_colour_has_the_seven_base_goals_and_the_campaign_goal_is_an_added_card(starter):
    goals = build_kit(starter)["goals"]
    base = [c.front for c in goals if not c.front.missions]
    added = [c.front for c in goals if c.front.missions]
    assert len(base) == 35 and len({f.data.id for f in base}) == 7
    assert [(f.data.id, f.missions) for f in added] == [("close-call", (21,))] * 5


def test_campaign_goal_cards_say_which_missions_add_them_in_each_language(letter_kit,
                                                                         starter_kit):
    assert "Added by mission 21" in flat(text_of(letter_kit / "en" / "goals.pdf"))
    assert "Ajoutée par la mission 21" in flat(text_of(starter_kit / "fr" / "goals.pdf"))


def test_mission_cards_say_which_goal_cards_to_take(letter_kit, starter_kit):
    missions = flat(text_of(letter_kit / "en" / "missions.pdf"))
    assert "Goal deck the base goal cards without Unique (≠), plus Close call (±1)" in missions
    assert "Goal deck the 7 base goal cards" in missions
    assert "Starting hand 6 number and 4 goal cards; the rest are your decks" in missions
    french = flat(text_of(starter_kit / "fr" / "missions.pdf"))
    assert "Objectifs les cartes Objectif de base sans Unique (≠), plus De justesse (±1)" in french


def test_a_mission_card_reads_without_the_rulebook(letter_kit, starter):
    missions = flat(text_of(letter_kit / "en" / "missions.pdf"))
    # Mission 30: each challenge with its rule, each action card with its name.
    for challenge in starter.missions[-1].challenges:
        definition = starter.rulebook.challenge(challenge)
        assert flat(typeset(f"{definition.name['en']} {definition.text['en']}", "en")) in missions
    assert "Action cards A Recover · B Switch · C Double recovery · D Trade goals" in missions
    # Who may miss, by player count, and the super and hyper cards (S, Ω: their own cards say
    # their rules), in the stats row.
    # (issue 44: each figure above its player count, the key read at a glance)
    assert "0 3p 1 4p 1 5p may miss S Ω super hyper Play order" in missions


def test_nothing_is_printed_within_4_mm_of_a_letter_page_edge_and_characters_meet_wcag_aa(
        letter_kit):
    """No ink within PRINTER_MARGIN of any page edge; every character at WCAG AA against the
    pixels around it. In English (letter_kit): both are checked in French, and the ink in
    English too, on A4 (test_build.py). The pages are rendered once for both checks
    (support.pages.check_pages: a second rendering was a fifth of the two checks' time)."""
    bounds, checked, low = check_pages(letter_kit / "en" / "print-and-play-en.pdf", scale=2)
    assert len(bounds) > 30 and min(min(b) for b in bounds) >= PRINTER_MARGIN
    assert checked > 15000
    assert not low, low[:10]


@pytest.mark.parametrize("paper", sorted(PAPERS))
def test_cut_lines_and_crop_marks_stay_inside_the_printable_area(paper):
    layout = sheet(paper)
    width, height = PAPERS[paper]
    for slot in layout.fronts + layout.backs:
        assert slot.x - slot.bleed.left >= EDGE and slot.y - slot.bleed.top >= EDGE
        assert slot.x + layout.card.width + slot.bleed.right <= width - EDGE
        assert slot.y + layout.card.height + slot.bleed.bottom <= height - EDGE
        # cut lines well inside: at least 7 mm from every edge
        assert min(slot.x, slot.y, width - slot.x - 63, height - slot.y - 88) >= 7
    for mark in layout.marks:
        assert mark.x >= EDGE and mark.y >= EDGE
        assert mark.x + mark.width <= width - EDGE and mark.y + mark.height <= height - EDGE
    # Letter is too short for a gutter: rows share their cut lines.
    assert (layout.gutter_y == 0) == (paper == "letter")


def test_no_letter_back_shows_foreign_ink_when_printed_2_mm_off(letter_kit):
    """Every back page of the Letter kit shifted 2 mm each way: no card's outer
    strip shows ink (the label that ran up a gutter, 1.1 mm from two backs, is on the fronts
    only now; A4 in test_build.py)."""
    from synergy_forge.printing.kit import GROUPS

    layout = sheet("letter")
    for group in GROUPS:
        path = letter_kit / "en" / f"{group}.pdf"
        document = pdfium.PdfDocument(path)
        count = len(document)
        document.close()
        assert not foreign_ink(path, layout, list(range(1, count, 2))), group


def test_the_letter_rulebook_is_set_in_columns_of_60_to_75_characters(letter_kit):
    """On Letter (A4 in test_kit_words.py): its columns are a little wider."""
    import statistics

    document = pdfium.PdfDocument(letter_kit / "en" / "rulebook.pdf")
    try:
        lines = [line for page in document for line in page.get_textpage().get_text_range()
                 .replace("\r", "").replace("\ufffe", "\n").split("\n")]
    finally:
        document.close()
    body = [len(line) for line in lines if len(line) >= 45]
    assert 60 <= statistics.median(body) <= 75 and max(map(len, lines)) <= 75


@pytest.mark.parametrize("language", ["en", "fr"])
def test_lives_and_rounds_cards_take_the_coins_people_use(language):
    """Their circles were 10 mm, for coins of 16 to 19 mm (a 1 or 2 euro cent coin,
    a penny, a dime). Each value 0 to 7 has a circle of 18.5 mm, a 19 mm coin fitting it to
    within a quarter millimetre, apart from the others and on the card; its text still fits
    (drawn, no overflow)."""
    import re

    from synergy_forge.cardtext.i18n import Translator
    from synergy_forge.printing.draw import RenderContext, draw
    from synergy_forge.printing.html import html_for
    from synergy_forge.printing.jobs import Job, Options

    campaign = read_campaign(starter_campaign()).campaign
    assert campaign is not None
    faces = [c.front for c in build_kit(campaign)["specials"] if c.front.kind in ("lives",
                                                                                 "rounds")]
    html, _ = html_for(Job("cards", language, "specials"), campaign, Options(png=False),
                       Translator(language), only=faces)
    for page in html.split('<section class="sheet">')[1:]:
        spots = [(float(x), float(y), float(w), n) for x, y, w, n in re.findall(
            r'class="spot" style="left:([\d.]+)mm;top:([\d.]+)mm;width:([\d.]+)mm;[^"]*">'
            r'(\d)</span>', page)]
        assert [n for *_, n in spots] == [str(n) for n in range(8)]
        assert all(w >= 18.5 for *_, w, _ in spots)
        for a in spots:
            for b in spots:
                if a is not b:
                    assert max(abs(a[0] - b[0]), abs(a[1] - b[1])) >= a[2]
    context = RenderContext()
    try:
        assert draw(html, context).overflows == []
    finally:
        context.release()


def test_each_colour_has_text_colours_that_meet_aa():
    for i in range(len(INKS)):
        c = colours(i)
        assert contrast(c["ink-text"], PAPER) >= 4.5
        assert contrast(c["on-ink"], c["ink"]) >= 4.5
    assert colours(1)["on-ink"] != "#ffffff"  # yellow carries dark text


def test_calibration_crosses_never_touch_the_text(letter_kit):
    path = letter_kit / "en" / "calibration.pdf"
    document = pdfium.PdfDocument(path)
    try:
        for index in range(2):
            page = document[index]
            width, height = page.get_width() / MM, page.get_height() / MM
            crosses = [(x if index == 0 else width - x - CROSS, y)
                       for x, y in calibration_crosses("letter")]
            text = page.get_textpage()
            assert text.count_chars() > 5
            for k in range(text.count_chars()):
                left, bottom, right, top = (v / MM for v in text.get_charbox(k))
                top, bottom = height - top, height - bottom
                for x, y in crosses:
                    apart = right < x - 6 or left > x + 16 or bottom < y - 6 or top > y + 16
                    assert apart, (index, k, (left, top), (x, y))
    finally:
        document.close()


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_a_short_edge_flip_puts_no_back_cross_behind_a_front_cross(paper):
    """Crosses symmetric about the page's centre line up after either flip, so they
    could not tell a wrong flip edge. A long-edge flip puts the back's (width - x - CROSS, y)
    behind the front's (x, y); a short-edge flip puts it behind (width - x - CROSS,
    height - y - CROSS), which must be far (> 10 mm) from every front cross."""
    width, height = PAPERS[paper]
    front = calibration_crosses(paper)
    for x, y in front:
        assert min(x, y, width - x - CROSS, height - y - CROSS) >= 6.35 + SCALE
        short = (width - x - CROSS, height - y - CROSS)
        assert all(abs(short[0] - fx) + abs(short[1] - fy) > 10 for fx, fy in front)


def test_the_hyper_card_has_its_own_sign(letter_kit):
    specials = text_of(letter_kit / "en" / "specials.pdf", 0)
    assert "Ω" in specials
    assert "\nH\n" not in f"\n{specials}\n".replace("\r", "")


# -- readable ------------------------------------------------------------------------------------

def test_every_goal_has_a_symbol_printed_large_and_in_the_corner(letter_kit, starter):
    symbols = {g.id: g.symbol for g in starter.rulebook.goals.values()}
    assert symbols == {"one-higher": "+1", "one-lower": "−1", "equal": "=", "unique": "≠",
                       "between": "<•<", "second-highest": "2↑", "second-lowest": "2↓",
                       "close-call": "±1"}
    document = pdfium.PdfDocument(letter_kit / "en" / "goals.pdf")
    try:
        text = document[0].get_textpage()
        sizes = {}
        for k in range(text.count_chars()):
            char = text.get_text_range(k, 1)
            if char == "≠":
                sizes.setdefault(char, []).append(raw.FPDFText_GetFontSize(text, k))
        # once large in the middle (readable at 1.5 m: about 12 mm high), once in the corner
        assert max(sizes["≠"]) >= 40 and min(sizes["≠"]) >= 12
    finally:
        document.close()


def test_a_goal_without_symbol_gets_its_initials_and_a_warning(tmp_path):
    folder = small_campaign(tmp_path, {"1": ""})
    (folder / "campaign.yaml").write_text("name: Small\nmissions: [missions/*.yaml]\n"
                                          "goals: [goals/*.yaml]\n")
    (folder / "goals").mkdir()
    (folder / "goals" / "near.yaml").write_text(
        "id: near\nname: Near miss\ntext: Be 2 away from someone.\n"
        "rule: \"(sum - 2) in others or (sum + 2) in others\"\n")
    result = CliRunner().invoke(main, ["validate", str(folder)])
    assert "near.yaml:1:5: warning: goal 'near' has no symbol: its card will show 'NM'" in \
        result.output
    assert read_campaign(folder).campaign.rulebook.goal("near").symbol == "NM"
    (folder / "goals" / "near.yaml").write_text(
        "id: near\nname: Near miss\nsymbol: \"±2±\"\ntext: Be 2 away.\nrule: \"sum in others\"\n")
    assert "symbol" not in CliRunner().invoke(main, ["validate", str(folder)]).output
    (folder / "goals" / "near.yaml").write_text(
        "id: near\nname: Near miss\nsymbol: \"±2±2\"\ntext: Be 2 away.\nrule: \"sum in others\"\n")
    result = CliRunner().invoke(main, ["validate", str(folder)])
    assert result.exit_code == 1 and "near.yaml:3:9: error:" in result.output


def test_texts_shrink_step_by_step_to_6_pt_before_they_do_not_fit():
    box = Box(47.0, 10.0, 11.0, bold=True)  # a title's box, 47 x 10 mm at 11 pt bold
    assert fit("Short", box) == 11.0
    sizes = [fit("A title rather long " * n, box) for n in range(1, 9)]
    assert sizes[0] == 11.0 and sizes == sorted(sizes, key=lambda s: -(s or 0))
    assert 6.0 in sizes and None in sizes  # the last step before not fitting at all
    assert fit("x" * 300, Box(55, 80, 9)) is None  # one word wider than the box


def test_validate_reports_wide_words_and_characters_without_glyphs_at_their_line(tmp_path):
    folder = small_campaign(tmp_path, {"1": "flavor: " + "W" * 300 + "\n",
                                       "2": "flavor: \"Good luck 🎲\"\n"})
    result = CliRunner().invoke(main, ["validate", str(folder)])
    assert result.exit_code == 1
    assert "1.yaml:7:9: error: flavor (en) does not fit on its card, even at 6.5 pt" in \
        result.output
    assert "2.yaml:7:9: error: flavor (en): the card's fonts have no glyph for '🎲' (U+1F3B2)" \
        in result.output


# -- a rulebook to play from ---------------------------------------------------------------------

def test_the_rulebook_teaches_how_to_play_first_with_counts_and_an_example(letter_kit,
                                                                           starter_kit):
    for kit, language, words in (
            (letter_kit, "en", ("how to play", "Components", "50 number cards", "35 goal cards",
                                "5 goal cards of this campaign", "Setup",
                                "A round, step by step", "An example round", "Goals",
                                "Action cards", "Challenges", "Super and hyper",
                                "Winning and losing", "±1", "Odd total")),
            (starter_kit, "fr", ("comment jouer", "Matériel", "50 cartes numérotées",
                                 "Mise en place", "Un exemple de manche",
                                 "Victoire et défaite"))):
        text = flat(text_of(kit / language / "rulebook.pdf"))
        positions = [text.find(w) for w in words]
        assert -1 not in positions, [w for w, p in zip(words, positions, strict=True) if p < 0]
        assert positions[:2] == sorted(positions[:2])
        assert "this campaign's own" not in text
    english = flat(text_of(letter_kit / "en" / "rulebook.pdf"))
    assert english.find("A round, step by step") < english.find("Challenges")
    assert "Red has 5, the second lowest: met. Yellow has 10" in english


def test_more_lives_than_the_lives_card_shows_is_an_error_at_the_line(tmp_path):
    folder = small_campaign(tmp_path, {"1": ""})
    mission = folder / "missions" / "1.yaml"
    mission.write_text(mission.read_text().replace("rounds: 2\nlives: 2", "rounds: 1\nlives: 8"))
    result = CliRunner().invoke(main, ["validate", str(folder)])
    assert result.exit_code == 1
    assert "1.yaml:6:8: error: a mission has at most 7 lives, not 8" in result.output
    mission.write_text(mission.read_text().replace("lives: 8", "lives: 7"))
    assert CliRunner().invoke(main, ["validate", str(folder)]).exit_code == 0


@pytest.mark.slow
def test_a_word_wider_than_its_box_once_rendered_is_reported_by_build(tmp_path, monkeypatch):
    """At the default card size the word fits (validate is happy); on 50 x 70 mm cards it is
    wider than the title's box, which only the rendered page can tell. The build command
    runs whole (its plan, drawing, fit check, assembly and report) on the missions' documents
    alone: the title is on the mission cards, and no other deck has a 50 x 70 mm cache to
    start from (drawing the goals, numbers, actions and specials, the rulebook, challenge
    sheet and calibration page was five sixths of this test's time)."""
    from synergy_forge.cardtext.fonts import font
    from synergy_forge.printing import build as render

    every_job = render.jobs_for

    def missions_only(languages):
        return [job for job in every_job(languages) if job.group == "missions"]

    monkeypatch.setattr(render, "jobs_for", missions_only)
    monkeypatch.setattr(render, "COMBINED", ["missions.pdf"])  # the print-and-play PDF's parts

    # 33 mm, 20 mm on a 50 x 70 mm card; one line of condensed bold, 8 pt at least (issue 44)
    width = card_boxes()["title"].width
    title = font(True, condensed=True)
    n = next(n for n in range(5, 80) if title.width("W" * n, 8.0) > width - 6)
    assert title.width("W" * n, 8.0) < width
    folder = small_campaign(tmp_path, {"1": ""})
    mission = folder / "missions" / "1.yaml"
    mission.write_text(mission.read_text().replace("title: Mission 1", "title: " + "W" * n))
    assert CliRunner().invoke(main, ["validate", str(folder)]).exit_code == 0
    result = CliRunner().invoke(main, ["build", str(folder), "--out", str(tmp_path / "o"),
                                       "--no-png", "--jobs", "1", "--card-size", "50x70"])
    assert result.exit_code == 1, result.output
    # at the mission's field, as validate reports what it finds
    assert ("1.yaml:3:1: error: title (en) does not fit on its card in missions.pdf "
            "[text.fit]") in result.output
    assert "o/en/missions.pdf" in result.output and "o/en/numbers.pdf" not in result.output


def test_a_face_whose_name_and_text_run_off_its_card_is_reported_not_printed_without_them():
    """On 50 x 70 mm cards an action card's fixed heights (its letter, name and text) are
    taller than the card: WeasyPrint carried the name and text onto the next page, under the
    next card, and the face printed with its letter alone while build said nothing (each text
    box still held its own text). Every text left off its card is reported, the same way
    build and the studio report a text too long (one check, printing/draw.py)."""
    from synergy_forge.cardtext.geometry import CardSize
    from synergy_forge.printing.jobs import Options
    from synergy_forge.printing.preview import CardPreview

    campaign = read_campaign(starter_campaign()).campaign
    assert campaign is not None
    for size, expected in ((CardSize(), []),
                           (CardSize(50, 70), ["|action A: name", "|action A: text"])):
        preview = CardPreview(campaign, "en", Options(card=size))
        face = preview.kit["actions"][0].front
        _, overflows = preview.render(preview.html("actions", face), dpi=30)
        assert sorted(overflows) == expected, size


def test_the_kept_font_metrics_are_the_fonts_own_and_a_changed_font_is_read_again(tmp_path,
                                                                                  monkeypatch):
    """textfit reads the advance widths from templates/fonts/metrics.json (fast) only while
    each font's hash matches; after `write_metrics` they equal what fontTools reads."""
    from synergy_forge.cardtext import fonts as textfit
    from synergy_forge.resources import templates_dir

    fonts = templates_dir() / "fonts"
    for bold, name in textfit.FONTS.items():
        textfit.font.cache_clear()
        assert textfit.font(bold) == textfit.read_font(fonts / name)
    # A font replaced without writing the metrics again: read with fontTools, not the file.
    moved = tmp_path / "templates"
    shutil.copytree(templates_dir(), moved)
    (moved / "fonts" / "DejaVuSans.ttf").write_bytes((fonts / "DejaVuSans-Bold.ttf").read_bytes())
    monkeypatch.setattr(textfit, "templates_dir", lambda: moved)
    textfit.font.cache_clear()
    try:
        assert textfit.font(False) == textfit.read_font(fonts / "DejaVuSans-Bold.ttf")
    finally:
        textfit.font.cache_clear()
