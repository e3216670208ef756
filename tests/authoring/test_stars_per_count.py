"""Stars per player count (docs/mission-format.md): `stars: {3: 2, 4: 3, 5: 2}` beside the one
number, through the schema, validate, the model, the game log, `new mission`, `tune --write`
and the printed card."""

from __future__ import annotations

import hashlib
import pickle
import re
import shutil
from dataclasses import replace
from io import BytesIO
from pathlib import Path

import pypdfium2 as pdfium
import pytest
from click.testing import CliRunner
from support.files import validate_files

from synergy_forge.authoring.edit import edit_mission_text
from synergy_forge.authoring.gamelog import Recorder, replay, write_log
from synergy_forge.authoring.loading import (
    mission_from_data,
    mission_to_data,
    read_campaign,
    read_mission_file,
)
from synergy_forge.authoring.scaffold import mission_text
from synergy_forge.authoring.yamlfile import parse_document
from synergy_forge.cardtext.geometry import MISSION_STARS, POKER
from synergy_forge.cardtext.i18n import Translator
from synergy_forge.cardtext.mission import mission_layout, stars_lines
from synergy_forge.cli import main
from synergy_forge.core.engine import Game
from synergy_forge.core.mission import Mission, median_stars
from synergy_forge.printing.draw import RenderContext, draw
from synergy_forge.printing.preview import CardPreview
from synergy_forge.resources import starter_campaign
from synergy_forge.sim.play import play
from synergy_forge.table.view import mission_card

GOOD = """\
id: good
number: 1
title: Good
stars: 1
rounds: 3
lives: 3
"""

def found(tmp_path: Path, text: str) -> list[tuple]:
    report = validate_files(tmp_path, {"m.yaml": text}, [Path("m.yaml")])
    return [(d.line, d.column, str(d.severity), d.check, d.message) for d in report.diagnostics]


def read(text: str) -> Mission:
    return mission_from_data(parse_document(text.encode(), "m.yaml").data)


# -- the schema and validate ----------------------------------------------------------------

@pytest.mark.parametrize("stars", ["{3: 2, 4: 3, 5: 2}", "{5: 2, 3: 1, 4: 3}",
                                   "\n  3: 5\n  4: 4\n  5: 1"])
def test_stars_per_count_validate_clean(tmp_path, stars):
    assert found(tmp_path, GOOD.replace("stars: 1", f"stars: {stars}")) == []


CASES = {
    # stars: (line, column, severity, check, words of the message)
    "{3: 2, 4: 3, 6: 2}": (4, 21, "error", "schema.enum", "keys must be one of 3, 4, 5"),
    "{3: 2, 4: 0, 5: 2}": (4, 18, "error", "schema.minimum", "must be at least 1, got 0"),
    "{3: 2, 4: 6, 5: 2}": (4, 18, "error", "schema.maximum", "must be at most 5, got 6"),
    "[2, 3, 2]": (4, 8, "error", "schema.anyOf", "must be a whole number or a mapping"),
    "{}": (4, 8, "error", "schema.minProperties", "must not be empty"),
    "{3: 2, 4: 3.0, 5: 2}": (4, 18, "error", "schema.type", "3.0 is not a whole number"),
    # every player count the mission is made for needs its stars, as allowed_failures does
    "{3: 2, 4: 3}": (4, 8, "error", "mission.stars", "no stars given for 5 players; add "
                     "'5: N' or drop 5 from 'players'"),
    # the same stars at every count: one number
    "{3: 2, 4: 2, 5: 2}": (4, 8, "warning", "mission.stars", "2 stars at every player count: "
                           "write 'stars: 2'"),
}


@pytest.mark.parametrize("stars", sorted(CASES))
def test_each_stars_problem_is_located(tmp_path, stars):
    line, column, severity, check, words = CASES[stars]
    [(got_line, got_column, got_severity, got_check, message)] = \
        found(tmp_path, GOOD.replace("stars: 1", f"stars: {stars}"))
    assert (got_line, got_column, got_severity, got_check) == (line, column, severity, check)
    assert words in message, message


def test_stars_for_a_count_the_mission_is_not_made_for_is_an_error_at_its_key(tmp_path):
    text = GOOD.replace("stars: 1", "players: [3, 4]\nstars:\n  3: 2\n  4: 3\n  5: 3")
    assert found(tmp_path, text) == [
        (8, 3, "error", "mission.stars", "stars for 5 players, but the mission is not made "
         "for 5 players; drop '5' or add 5 to 'players'")]
    # one player count, one value: valid, and said better as one number
    one = GOOD.replace("stars: 1", "players: [4]\nstars: {4: 3}")
    assert [d[2:4] for d in found(tmp_path, one)] == [("warning", "mission.stars")]


def test_stars_are_not_counted_against_players_that_are_themselves_wrong(tmp_path):
    text = GOOD.replace("stars: 1", "players: [3, 6]\nstars: {3: 2, 4: 3}")
    assert [d[3] for d in found(tmp_path, text)] == ["schema.maximum"]


# -- the model ------------------------------------------------------------------------------

def test_one_rating_is_the_median_the_higher_middle_one_for_two_counts():
    assert median_stars({3: 2, 4: 3, 5: 2}) == 2
    assert median_stars({3: 1, 4: 3, 5: 5}) == 3
    assert median_stars({4: 2, 5: 3}) == 3
    assert median_stars({3: 4, 5: 1}) == 4
    assert median_stars({4: 5}) == 5


def test_stars_at_each_count_and_one_number_for_every_count():
    per_count = read(GOOD.replace("stars: 1", "stars: {5: 2, 3: 2, 4: 3}"))
    assert per_count.stars == 2
    assert dict(per_count.stars_per_count) == {3: 2, 4: 3, 5: 2}
    assert list(per_count.stars_per_count) == [3, 4, 5]  # by count, whatever the file's order
    assert [per_count.stars_at(p) for p in (3, 4, 5)] == [2, 3, 2]
    single = read(GOOD.replace("stars: 1", "stars: 4"))
    assert single.stars == 4 and dict(single.stars_per_count) == {}
    assert [single.stars_at(p) for p in (3, 4, 5)] == [4, 4, 4]
    two = read(GOOD.replace("stars: 1", "players: [4, 5]\nstars: {4: 2, 5: 3}"))
    assert two.stars == 3 and two.stars_at(4) == 2
    with pytest.raises(TypeError):
        per_count.stars_per_count[3] = 5


def test_other_stars_replace_the_per_count_ones_and_the_median_keeps_them():
    # tune's replace(mission, stars=target): the target, at every count
    mission = read(GOOD.replace("stars: 1", "stars: {3: 2, 4: 3, 5: 2}"))
    moved = replace(mission, stars=4)
    assert dict(moved.stars_per_count) == {} and [moved.stars_at(p) for p in (3, 4, 5)] == \
        [4, 4, 4]
    assert replace(mission, stars=2) == mission
    assert replace(mission, stars=2).stars_at(4) == 3


def test_a_mission_travels_to_a_worker_with_its_stars_per_count():
    mission = read(GOOD.replace("stars: 1", "stars: {3: 2, 4: 3, 5: 2}"))
    copy = pickle.loads(pickle.dumps(mission))
    assert copy == mission and copy.stars_at(4) == 3


# -- the game log ---------------------------------------------------------------------------

def test_the_game_log_keeps_the_stars_per_count_and_replays(rulebook):
    mission = read(GOOD.replace("stars: 1", "stars: {3: 2, 4: 3, 5: 1}"))
    data = mission_to_data(mission)
    assert data["stars"] == {"3": 2, "4": 3, "5": 1}
    assert mission_from_data(data) == mission
    assert mission_to_data(read(GOOD))["stars"] == 1
    game = Game(mission, 4, 7, rulebook)
    recorder = Recorder(game, ["random"] * 4)
    records = recorder.finish(play(game, ["random"] * 4, on_decision=recorder))
    assert records[0]["mission"]["stars"] == {"3": 2, "4": 3, "5": 1}
    again = replay(write_log(records).splitlines()).mission
    assert replace(again, source="") == mission and again.stars_at(4) == 3


# -- new mission and tune --write ---------------------------------------------------------

def test_new_mission_names_the_per_count_form_and_both_forms_validate(tmp_path):
    text = mission_text(tmp_path / "m.yaml", "fresh")
    [line] = [line for line in text.splitlines() if line.startswith("stars:")]
    assert line.startswith("stars: 2 ") and "{3: 3, 4: 4, 5: 3}" in line
    assert found(tmp_path, text) == []
    per_count = text.replace("stars: 2 ", "stars: {3: 3, 4: 4, 5: 3} ", 1)
    assert found(tmp_path / "other", per_count) == []


BLOCK = """\
id: good
number: 1
title: Good
stars:      # harder with four
  3: 2
  4: 3
  5: 2
# the rest
rounds: 3
lives: 3
"""


def test_edit_changes_stars_per_count_in_place_and_one_number_replaces_them():
    before = read(BLOCK)
    harder = replace(before, stars=2, stars_per_count={3: 2, 4: 4, 5: 2})
    out = edit_mission_text(BLOCK, "m.yaml", before, harder)
    assert out == BLOCK.replace("  4: 3", "  4: 4")
    assert read(out) == harder
    # tune's target other than their median: one number, the comments kept
    out = edit_mission_text(BLOCK, "m.yaml", before, replace(before, stars=4))
    assert out == "id: good\nnumber: 1\ntitle: Good\nstars: 4      # harder with four\n" \
        "# the rest\nrounds: 3\nlives: 3\n"
    flow = GOOD.replace("stars: 1", "stars: {3: 2, 4: 3, 5: 2}  # by count")
    out = edit_mission_text(flow, "m.yaml", read(flow), replace(read(flow), stars=1))
    assert out == GOOD.replace("stars: 1", "stars: 1  # by count")
    # and one number becomes stars per count
    out = edit_mission_text(GOOD, "m.yaml", read(GOOD), harder)
    assert out == GOOD.replace("stars: 1", "stars: {3: 2, 4: 4, 5: 2}") and read(out) == harder
    # a block at the end of a file without its last newline
    last = "id: good\nnumber: 1\ntitle: Good\nrounds: 3\nlives: 3\nstars:\n  3: 2\n  4: 3\n" \
        "  5: 2"
    out = edit_mission_text(last, "m.yaml", read(last), replace(read(last), stars=5))
    assert out == "id: good\nnumber: 1\ntitle: Good\nrounds: 3\nlives: 3\nstars: 5"


def test_allowed_failures_written_as_a_block_are_replaced_by_one_number_too():
    text = GOOD + "allowed_failures:\n  3: 0\n  4: 1\n  5: 1\nflavor: Quiet.\n"
    before = read(text)
    out = edit_mission_text(text, "m.yaml", before,
                            replace(before, allowed_failures={3: 1, 4: 1, 5: 1}))
    assert out == GOOD + "allowed_failures: 1\nflavor: Quiet.\n"


EASY = """\
id: easy
number: 1
title: Easy   # every goal is met
stars:        # by count
  3: 1
  4: 2
players: [3, 4]
rounds: 1
lives: 1
goals: [always]
"""


def test_tune_write_on_a_mission_with_stars_per_count(tmp_path):
    (tmp_path / "campaign.yaml").write_text(
        "name: Test\nmissions: [missions/*.yaml]\ngoals: [goals/*.yaml]\n")
    (tmp_path / "goals").mkdir()
    (tmp_path / "goals" / "always.yaml").write_text(
        'id: always\nname: Always\nsymbol: "*"\ntext: "Any sum will do."\n'
        'rule: "sum >= 0"\n')
    (tmp_path / "missions").mkdir()
    path = tmp_path / "missions" / "01-easy.yaml"
    path.write_text(EASY)
    # rated 2 (the higher of two counts), estimated 1: only the declared stars change
    result = CliRunner().invoke(main, ["tune", str(path), "--stars", "1", "--games", "25",
                                       "--jobs", "1", "--write"])
    assert result.exit_code == 0, result.output
    assert "declared 2 stars, target 1 star" in result.output
    assert path.read_text() == EASY.replace("stars:        # by count\n  3: 1\n  4: 2\n",
                                            "stars: 1        # by count\n")
    mission = read_mission_file(path).mission
    assert mission.stars == 1 and dict(mission.stars_per_count) == {}


# -- the card -------------------------------------------------------------------------------

def test_the_card_prints_a_line_a_count_only_where_the_stars_differ():
    en, fr = Translator("en"), Translator("fr")
    mission = read(GOOD.replace("stars: 1", "stars: {3: 1, 4: 3, 5: 2}"))
    lines = stars_lines(mission, en)
    assert lines is not None
    assert lines["lines"] == [("3p", "\u202f★"), ("4p", "\u202f★★★"), ("5p", "\u202f★★")]
    assert lines["pt"] == 7.0
    french = stars_lines(mission, fr)
    assert french is not None and french["lines"][1] == ("4\u202fj", "\u202f★★★")
    # five stars at one count: a smaller size, so that its line fits the stars' column
    hardest = stars_lines(replace(mission, stars=3, stars_per_count={3: 1, 4: 3, 5: 5}), en)
    assert hardest is not None and hardest["pt"] == 6.0
    # one number, or the same at every count: the five-star gauge
    assert stars_lines(read(GOOD), en) is None
    same = read(GOOD.replace("stars: 1", "stars: {3: 2, 4: 2, 5: 2}"))
    assert stars_lines(same, en) is None


@pytest.fixture(scope="module")
def campaign(tmp_path_factory):
    """The starter campaign whose mission 1 has stars per count, and mission 30 five stars
    at five players (its head also holds the super and hyper box's row below)."""
    folder = tmp_path_factory.mktemp("stars") / "camp"
    shutil.copytree(starter_campaign(), folder)
    for name, stars in (("01-first-notes.yaml", "{3: 1, 4: 3, 5: 2}"),
                        ("30-full-synergy.yaml", "{3: 3, 4: 4, 5: 5}")):
        path = folder / "missions" / name
        text = path.read_text(encoding="utf-8")
        path.write_text(re.sub(r"(?m)^stars: .*$", f"stars: {stars}", text, count=1),
                        encoding="utf-8")
    result = read_campaign(folder)
    assert result.campaign is not None and result.diagnostics == [], result.diagnostics
    return result.campaign


def test_the_head_grows_to_hold_the_lines_and_the_rules_still_fit(campaign):
    for number in (1, 30):
        mission = campaign.mission(number)
        for language in ("en", "fr"):
            layout = mission_layout(mission, campaign, Translator(language), POKER)
            single = mission_layout(replace(mission, stars=mission.stars % 5 + 1), campaign,
                                    Translator(language), POKER)
            assert single["stars"] is None and layout["fits"]
            assert float(layout["head"].split(";")[0].split(":")[1].removesuffix("mm")) >= \
                layout["stars"]["height"] > 6.0


@pytest.mark.parametrize("language", ["en", "fr"])
@pytest.mark.parametrize("number", [1, 30])
def test_the_drawn_card_shows_each_count_in_the_head_above_the_stats(campaign, language,
                                                                     number):
    """Drawn as build and the studio draw it: each count's line inside the stars' column,
    above the stats row, its stars after its label; nothing overflows."""
    preview = CardPreview(campaign, language)
    face = next(f for card in preview.kit["missions"] for f in (card.front, card.back)
                if f.kind == "mission" and f.data.number == number)
    html = preview.html("missions", face)
    assert 'class="stars by-count"' in html
    drawn = draw(html, RenderContext())
    assert drawn.overflows == []
    page = pdfium.PdfDocument(BytesIO(drawn.pdf))[0]
    text = page.get_textpage()
    trim_right = page.get_trimbox()[2]  # the page is the card with its bleed around it
    chars = text.get_text_range()
    mm = 72 / 25.4
    label = "{n}p" if language == "en" else "{n}\u202fj"
    stats = chars.index("manches" if language == "fr" else "rounds")  # "rounds to / win"
    stats_top = text.get_charbox(chars.rindex("\r\n", 0, stats) - 1)[3]  # rounds, in figures
    safe_right = trim_right - POKER.safe * mm
    stars = campaign.mission(number).stars_per_count
    for count, n in stars.items():
        at = chars.index(label.format(n=count))
        row = chars[at:at + len(label.format(n=count)) + 1 + n]
        assert row.endswith("★" * n) and not chars[at + len(row):].startswith("★"), row
        boxes = [text.get_charbox(i) for i in range(at, at + len(row))]
        assert min(box[1] for box in boxes) > stats_top  # above the stats row
        assert max(box[2] for box in boxes) <= safe_right + 0.5  # inside the safe area
        assert min(box[0] for box in boxes) >= safe_right - MISSION_STARS * mm - 0.5


def test_the_table_shows_the_stars_of_its_player_count(campaign):
    mission = campaign.mission(1)
    shown = [mission_card(mission, p, mission.failures_allowed(p), campaign.rulebook,
                          campaign.actions)["stars"] for p in (3, 4, 5)]
    assert shown == [1, 3, 2]


def test_the_studio_shows_the_card_as_printed(tmp_path):
    from synergy_forge.studio.model import Studio

    folder = tmp_path / "camp"
    shutil.copytree(starter_campaign(), folder)
    for path in sorted((folder / "missions").glob("*.yaml"))[2:]:
        path.unlink()
    first = folder / "missions" / "01-first-notes.yaml"
    first.write_text(re.sub(r"(?m)^stars: .*$", "stars: {3: 1, 4: 3, 5: 2}",
                            first.read_text(encoding="utf-8"), count=1), encoding="utf-8")
    studio = Studio(folder)
    studio.reload()
    shown = studio.state()["missions"][0]
    assert shown["diagnostics"] == [] and shown["overflows"] == []
    campaign = read_campaign(folder).campaign
    assert campaign is not None
    preview = CardPreview(campaign, "en")
    face = next(f for card in preview.kit["missions"] for f in (card.front, card.back)
                if f.kind == "mission" and f.data.number == 1)
    printed = preview.html("missions", face)
    assert "<b>4p</b>\u202f★★★</span>" in printed
    digest = hashlib.sha256(printed.encode("utf-8")).hexdigest()
    assert shown["card"][0] == f"/cards/{digest}.png"
    image = studio.image(digest)
    assert image is not None and image.startswith(b"\x89PNG")
