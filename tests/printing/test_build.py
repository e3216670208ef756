"""`synergy-forge build`: what a person printing the game at home gets."""

from __future__ import annotations

import contextlib
import json
import re
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
import pytest
from click.testing import CliRunner
from support.kits import SHOP, build_small, seeded, small_campaign

from synergy_forge.cli import main
from synergy_forge.printing.layout import sheet
from synergy_forge.resources import starter_campaign
from synergy_forge.typography import typeset

MM = 72 / 25.4


def boxes(path: Path, index: int = 0) -> dict[str, tuple[float, ...]]:
    document = pdfium.PdfDocument(path)
    try:
        page = document[index]
        return {name: tuple(round(v / MM, 1) for v in getattr(page, f"get_{name}box")())
                for name in ("media", "trim", "bleed")}
    finally:
        document.close()


def text_of(path: Path) -> str:
    document = pdfium.PdfDocument(path)
    try:
        return "\n".join(document[i].get_textpage().get_text_range()
                         for i in range(len(document)))
    finally:
        document.close()


def pages(path: Path) -> int:
    document = pdfium.PdfDocument(path)
    try:
        return len(document)
    finally:
        document.close()


def test_every_document_is_there_with_its_pages(starter_kit):
    for language in ("en", "fr"):
        folder = starter_kit / language
        # 30 missions on 15 cards: 2 sheets; 35 + 5 campaign goal cards: 5 sheets; 50 numbers:
        # 6 sheets; 5 action cards and 4 specials: 1 sheet each. Each sheet has a back page.
        expected = {"missions.pdf": 4, "goals.pdf": 10, "numbers.pdf": 12, "actions.pdf": 2,
                    "specials.pdf": 2, "calibration.pdf": 2, "challenges.pdf": 1,
                    "rulebook.pdf": 4}
        for name, count in expected.items():
            assert pages(folder / name) == count, name
        # The one-page challenge sheet is followed by a blank page (every document on fresh
        # sheets, printed double-sided).
        assert pages(folder / f"print-and-play-{language}.pdf") == sum(expected.values()) + 1
    # PNGs: the English kit's (conftest.starter_kit built the French one with --no-png, which
    # leaves none).
    png = starter_kit / "en" / "png" / "numbers"
    assert len(list(png.glob("*.png"))) == 55  # 50 + 5 backs
    assert not (starter_kit / "fr" / "png").exists()


def test_every_document_of_the_print_and_play_pdf_starts_on_a_fresh_sheet(starter_kit):
    """Printed double-sided, no component backs onto another: each document's first page is
    the front of a sheet (an even index), the page after an odd document blank."""
    from synergy_forge.printing.jobs import COMBINED

    for language in ("en", "fr"):
        folder = starter_kit / language
        document = pdfium.PdfDocument(folder / f"print-and-play-{language}.pdf")
        try:
            texts = [document[i].get_textpage().get_text_range() for i in range(len(document))]
        finally:
            document.close()
        index = 0
        for name in COMBINED:
            first = pdfium.PdfDocument(folder / name)
            try:
                count, opening = len(first), first[0].get_textpage().get_text_range()
            finally:
                first.close()
            assert index % 2 == 0 and texts[index] == opening, (language, name, index)
            index += count
            if count % 2 and index < len(texts):
                assert not texts[index].strip(), (language, name, "blank page after it")
                index += 1
        assert index == len(texts)


def test_page_boxes(starter_kit):
    a4 = (0.0, 0.0, 210.0, 297.0)
    for name in ("missions.pdf", "calibration.pdf", "rulebook.pdf"):
        assert boxes(starter_kit / "en" / name) == {"media": a4, "trim": a4, "bleed": a4}
    # One card a page, for print-on-demand: 3 mm bleed around a 63 x 88 mm trim box.
    # (WeasyPrint puts the trim box at the origin and the bleed at negative coordinates.)
    card = boxes(starter_kit / "en" / "cards-goals.pdf")
    assert card["media"] == card["bleed"] == (-3.0, -3.0, 66.0, 91.0)
    assert card["trim"] == (0.0, 0.0, 63.0, 88.0)


def test_titles_in_both_languages(starter_kit):
    english = text_of(starter_kit / "en" / "missions.pdf")
    french = text_of(starter_kit / "fr" / "missions.pdf")
    for title in ("First notes", "Crossed wires", "Full synergy"):
        assert title in english
    for title in ("Premières notes", "Fils croisés", "Synergie totale"):
        assert title in french
    # The French rulebook's own title (locale/fr), not the English one.
    rulebook = text_of(starter_kit / "fr" / "rulebook.pdf")
    assert "comment jouer" in rulebook and "how to play" not in rulebook.lower()
    # Rule texts come from the definitions the referee uses.
    assert typeset("Votre somme ne peut pas être inférieure à 5.", "fr") in \
        text_of(starter_kit / "fr" / "challenges.pdf").replace("\r\n", " ").replace("\n", " ")


def test_png_cards_are_not_blank_and_backs_mirror_fronts(starter_kit):
    from PIL import Image, ImageStat

    image = Image.open(starter_kit / "en" / "png" / "numbers" / "number-0-0.png")
    width, height = image.size  # 69 x 94 mm at 300 DPI, give or take rounding
    assert abs(width - 815) <= 1 and abs(height - 1110) <= 1
    assert max(ImageStat.Stat(image.convert("L")).extrema[0]) - \
        min(ImageStat.Stat(image.convert("L")).extrema[0]) > 100
    # The front of the card at column 0 and its back at column 2 of the same row.
    layout = sheet("a4")
    for front, back in zip(layout.fronts, layout.backs, strict=True):
        assert back.y == front.y
        assert abs((back.x + layout.card.width / 2) - (210 - front.x - layout.card.width / 2)) \
            < 0.01
    document = pdfium.PdfDocument(starter_kit / "en" / "goals.pdf")
    try:
        front = document[4].render(scale=1).to_pil().convert("RGB")  # third sheet: red, yellow
        back = document[5].render(scale=1).to_pil().convert("RGB")
    finally:
        document.close()

    def colour_at(img, slot):
        return img.getpixel((int((slot.x + 30) * MM), int((slot.y + 5) * MM)))

    def colours_in_panel(img, slot):  # the back's panel, inside its paper frame: a pattern
        box = (int((slot.x + 15) * MM), int((slot.y + 15) * MM), int((slot.x + 45) * MM),
               int((slot.y + 70) * MM))
        return {colour for _, colour in img.crop(box).getcolors(10000)}

    for i in range(9):
        assert colour_at(front, layout.fronts[i]) in colours_in_panel(back, layout.backs[i])
        # ... framed by paper: a shifted back shows nothing of its neighbour
        slot = layout.backs[i]
        assert back.getpixel((int((slot.x + 30) * MM), int((slot.y + 1.2) * MM))) == \
            (251, 250, 247)


def same_kit(small_kit: Path, tmp_path: Path) -> Path:
    """TMP_PATH/camp and TMP_PATH/a (its kit and cache) as build_small(TMP_PATH, "Same", "a")
    leaves them, copied: the copy's rebuild draws nothing (tested below)."""
    shutil.copytree(small_kit / "camp", tmp_path / "camp")
    shutil.copytree(small_kit / "a", tmp_path / "a")
    return tmp_path / "a"


def test_hostile_text_is_printed_literally_and_nothing_is_fetched(tmp_path, small_kit):
    # In the title (one line, issue 44: short) and the flavour text (two lines: the rest).
    hostile = '<img src="file:///etc/passwd"> {{ 7*7 }} <b>x</b>'
    small_campaign(tmp_path, "<i>{{ 7*7 }}</i>")
    mission = tmp_path / "camp" / "missions" / "1.yaml"
    mission.write_text(mission.read_text() + f"flavor: '{hostile}'\n")
    out = build_small(tmp_path, "<i>{{ 7*7 }}</i>", "out", seed=small_kit)
    text = text_of(out / "en" / "missions.pdf").replace("\r", "").replace("\n", "")
    # Printed as words (quotes set as typography.py sets any text), not as markup.
    assert typeset('<img src="file:///etc/passwd">', "en") in text and "{{ 7*7 }}" in text
    assert "<i>{{ 7*7 }}</i>" in text and "<b>x</b>" in text
    assert "49" not in text


def test_the_url_fetcher_refuses_what_is_not_ours():
    from synergy_forge.printing.draw import RefusedURL, url_fetcher
    from synergy_forge.resources import templates_dir

    refused: list[str] = []
    fetch = url_fetcher(refused)
    with pytest.raises(RefusedURL):
        fetch.fetch("file:///etc/passwd")
    with pytest.raises((RefusedURL, ValueError)):
        fetch.fetch("https://example.com/x.css")
    assert refused[0] == "file:///etc/passwd"
    response = fetch.fetch((templates_dir() / "kit.css").resolve().as_uri())
    response.close()


def test_a_long_title_shrinks_to_fit_and_an_impossible_one_is_reported_once_at_its_line(
        tmp_path, small_kit):
    # One line between the number and the stars, at a size never below the rules'.
    shrunk = build_small(tmp_path, "A title rather long", "first", seed=small_kit)
    assert "A title rather long" in text_of(shrunk / "en" / "missions.pdf")
    long_title = "A title far too long " * 12
    campaign = small_campaign(tmp_path / "long", long_title)
    result = CliRunner().invoke(main, ["build", str(campaign), "--out", str(tmp_path / "o"),
                                       "--no-png", "--jobs", "1", "--lang", "en"])
    assert result.exit_code == 1
    # Found from the fonts' metrics before rendering: one error per text, at its field.
    assert result.output.count("1.yaml:3:") == 2  # the English and the French title
    assert "1.yaml:3:13: error: title (en) does not fit on its card, even at 8 pt" in \
        result.output
    assert "nothing was built" in result.output


def test_bad_input(tmp_path):
    runner = CliRunner()
    assert runner.invoke(main, ["build", str(tmp_path / "nope")]).exit_code == 2
    assert runner.invoke(main, ["build", "--paper", "a3"]).exit_code == 2
    assert runner.invoke(main, ["build", "--card-size", "200x300"]).exit_code == 2
    broken = tmp_path / "broken"
    shutil.copytree(starter_campaign(), broken)
    (broken / "missions" / "01-first-notes.yaml").write_text("id: [\n")
    result = runner.invoke(main, ["build", str(broken), "--out", str(tmp_path / "o")])
    assert result.exit_code == 1 and "01-first-notes.yaml:2:1: error:" in result.output
    assert not (tmp_path / "o").exists() or not any((tmp_path / "o").rglob("*.pdf"))


def test_a4_kit_keeps_4_mm_blank_edges_and_wcag_aa_contrast(starter_kit):
    """Every page of both print-and-play PDFs: no ink within 4 mm of an edge; every character
    of the French one at WCAG AA against the pixels around it (every English character is
    checked on the Letter kit, test_table_ready.py: the paper changes the sheets around the
    cards, not their colours; checking both languages on both papers was half this test's
    time). Both read from one rendering of each page at 144 DPI (support.pages.check_pages: a
    second rendering was a fifth of the test's time)."""
    from support.pages import check_pages

    for language in ("en", "fr"):
        pdf = starter_kit / language / f"print-and-play-{language}.pdf"
        bounds, checked, low = check_pages(pdf, scale=2, characters=language == "fr")
        assert len(bounds) > 30 and min(min(b) for b in bounds) >= 4.0
        if language == "fr":
            assert checked > 15000 and not low, low[:10]


def sheet_images(path: Path, dpi: int = 20) -> list[bytes]:
    from synergy_forge.printing.draw import page_images

    return [image.tobytes() for _, image in page_images(path.read_bytes(), dpi)]


def kit_files(out: Path) -> dict[str, bytes]:
    return {str(p.relative_to(out)): p.read_bytes() for p in out.rglob("*")
            if p.is_file() and p.relative_to(out).parts[0] not in (".cache", ".lock")}


def test_a_rebuild_renders_only_the_changed_pieces_and_equals_a_fresh_build_from_anywhere(
        tmp_path, monkeypatch, small_kit, harfbuzz_subsetter):
    """A rebuild after one title changed draws that title's piece alone, and its kit is byte
    for byte the kit a build without cache draws afresh, from the campaign named by another
    path (the rebuild's by a relative one, the fresh build's by its absolute one): builds are
    byte-identical wherever the campaign is and however it is named (a PDF's identifier
    hashing the files' paths as given made them differ). One fresh build for both checks:
    each was a whole kit drawn again (about 9 s of CPU)."""
    from synergy_forge.printing import build as render

    out = same_kit(small_kit, tmp_path)
    cached = {p.name for p in (out / ".cache").iterdir()}
    rendered: list[str] = []
    original = render.render_piece

    def counting(shared, html, key, *rest):
        rendered.append(key)
        return original(shared, html, key, *rest)

    monkeypatch.setattr(render, "render_piece", counting)

    def rebuild() -> str:
        with contextlib.chdir(tmp_path):
            result = CliRunner().invoke(main, ["build", "camp", "--out", "a", "--no-png",
                                               "--jobs", "1", "--lang", "en"])
        assert result.exit_code == 0, result.output
        return result.output

    said = rebuild()
    assert rendered == []  # nothing changed: nothing drawn, and the report says so
    pieces = re.search(r" \(0 of its (\d+) pieces drawn, the others from the cache\)", said)
    assert pieces, said
    mission = tmp_path / "camp" / "missions" / "1.yaml"
    mission.write_text(mission.read_text().replace("en: 'Same'", "en: 'Other'"))
    sheets_before = sheet_images(out / "en" / "missions.pdf")
    said = rebuild()
    # Mission 1's face: its piece of eight faces is drawn again, nothing else; the missions'
    # sheets are imposed again from it, and only the page it is on changed.
    assert len(rendered) == 1
    assert f" (1 of its {pieces[1]} pieces drawn, the others from the cache)" in said
    assert "Other" in text_of(out / "en" / "missions.pdf")
    sheets_after = sheet_images(out / "en" / "missions.pdf")
    assert len(sheets_after) == len(sheets_before)
    assert [i for i, (a, b) in enumerate(zip(sheets_before, sheets_after, strict=True))
            if a != b] == [0]
    # Wherever the campaign is and however it is named: here by its absolute path.
    fresh = CliRunner().invoke(main, ["build", str(tmp_path / "camp"), "--out",
                                      str(tmp_path / "b"), "--no-png", "--jobs", "1", "--lang",
                                      "en", "--no-cache"])
    assert fresh.exit_code == 0, fresh.output
    # The kit, not the cache (whose keys hash the HTML, which names the files as given).
    built = kit_files(out)
    assert sum(name.endswith(".pdf") for name in built) > 10
    assert built == kit_files(tmp_path / "b")
    assert not (tmp_path / "b" / ".cache").exists()
    # The old title's pieces were pruned: the changed piece's entries (its PDF and facts)
    # replaced, the missions' imposed sheets' and the combined PDF's too, nothing else.
    now = {p.name for p in (out / ".cache").iterdir()}
    gone, new = cached - now, now - cached
    assert rendered[0] + ".pdf" in new and len(gone) == len(new) <= 8, (gone, new)


def test_empty_out_is_a_usage_error(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    result = CliRunner().invoke(main, ["build", "--out", "", "--no-png"])
    assert result.exit_code == 2 and "must name a folder" in result.output
    assert list(tmp_path.iterdir()) == []


def test_a_symlink_inside_out_is_a_usage_error_before_anything_is_written(tmp_path):
    out = tmp_path / "out"
    (out / "en").mkdir(parents=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (out / "en" / "png").symlink_to(elsewhere)
    result = CliRunner().invoke(main, ["build", "--out", str(out), "--lang", "en"])
    assert result.exit_code == 2 and "symbolic link" in result.output, result.output
    assert sorted(p.name for p in out.rglob("*")) == ["en", "png"]
    assert list(elsewhere.iterdir()) == []


class Planned(Exception):
    """Raised by a stand-in for printing.build.plan: the build went past its checks of --out."""

@pytest.fixture
def new_campaign(tmp_path, monkeypatch) -> Path:
    """TMP_PATH/c, made by `new campaign c`, with missions also read from TMP_PATH/c/more/
    (campaign.yaml's own pattern), as the working folder; the build stops where it would
    start planning its documents (Planned), so that nothing is drawn."""
    from synergy_forge.printing import build as render

    monkeypatch.chdir(tmp_path)
    assert CliRunner().invoke(main, ["new", "campaign", "c"]).exit_code == 0
    campaign = tmp_path / "c" / "campaign.yaml"
    campaign.write_text(campaign.read_text().replace("missions: [missions/*.yaml]",
                                                     "missions: [missions/*.yaml, more/*.yaml]"))
    (tmp_path / "c" / "more").mkdir()
    shutil.copy(next((tmp_path / "c" / "missions").iterdir()), tmp_path / "c" / "more" / "2.yaml")
    (tmp_path / "c" / "more" / "2.yaml").write_text(
        (tmp_path / "c" / "more" / "2.yaml").read_text().replace("number: 1", "number: 2")
        .replace("id: my-first-mission", "id: second"))

    def plan(*args, **kwargs):
        raise Planned()

    monkeypatch.setattr(render, "plan", plan)
    monkeypatch.chdir(tmp_path / "c")
    return tmp_path / "c"


@pytest.mark.parametrize("out", ["missions", ".", "./", ".synergy/schemas", "goals/sub",
                                 "challenges", "rounds", "more/kit", "../c"])
def test_an_out_that_is_the_campaign_folder_or_inside_a_folder_it_reads_is_a_usage_error(
        new_campaign, out):
    """A kit written among the campaign's files is read back as the campaign's: `build --out
    missions --tts` wrote missions/en/tts/*.json, which `validate .` then reported as broken
    missions. Refused (exit 2) before anything is written, naming the folder: the campaign
    folder itself, .synergy/, the layout folders `validate` reads (missions/, goals/,
    challenges/, rounds/, actions/) and the folders campaign.yaml's patterns read (more/)."""
    before = sorted(new_campaign.parent.rglob("*"))
    result = CliRunner().invoke(main, ["build", "--out", out, "--lang", "en", "--tts"])
    assert result.exit_code == 2, (result.output, result.exception)
    assert f"--out {out.rstrip('/')}" in result.output or f"--out {out}" in result.output, \
        result.output
    assert "a folder the campaign reads its files from" in result.output or \
        "the campaign folder itself" in result.output, result.output
    assert sorted(new_campaign.parent.rglob("*")) == before


@pytest.mark.parametrize("out", ["output", "kit/missions-pdf", "../elsewhere"])
def test_an_out_elsewhere_in_or_beside_the_campaign_is_used(new_campaign, out):
    result = CliRunner().invoke(main, ["build", "--out", out, "--lang", "en"])
    # (Planned, raised where the drawing would start, is reported as an internal error.)
    assert "internal error: Planned" in result.output, result.output


def test_a_second_build_into_the_same_folder_is_refused(tmp_path):
    from synergy_forge.printing.output import locked

    out = tmp_path / "out"
    with locked(out):  # a build is running
        result = CliRunner().invoke(main, ["build", "--out", str(out), "--lang", "en"])
    assert result.exit_code == 2 and "another build is writing into this folder" in \
        result.output
    assert not (out / "en").exists()


def test_watch_rebuilds_on_save_and_stops_on_ctrl_c(tmp_path, small_kit):
    """The first build starts from small_kit's cache, of the same campaign (nothing drawn
    again: what is tested is the rebuild on save, which draws the saved title's piece, and
    the stop). The save is made as soon as the command says it is watching: a save after
    that line must be seen (it was once said before the watcher existed)."""
    import os
    import queue
    import signal
    import subprocess
    import sys
    import threading
    import time

    campaign = small_campaign(tmp_path, "Same")
    out = seeded(small_kit, tmp_path / "watched")
    root = Path(__file__).resolve().parents[2]
    process = subprocess.Popen(
        # The campaign by a relative path, as small_kit's was built: the first build draws
        # nothing (its pieces' HTML, which names the files as given, is small_kit's).
        [sys.executable, "-m", "synergy_forge", "build", "camp", "--out", out.name,
         "--lang", "en", "--no-png", "--jobs", "1", "--watch"], cwd=tmp_path,
        # One stream, so that the lines come in the order the command said them ("Built" on
        # stdout, then "watching" on stderr).
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**os.environ, "PYTHONPATH": str(root), "PYTHONUNBUFFERED": "1"},
        # As from a terminal: a test run started in the background by a shell (a CI step
        # with `&`) ignores SIGINT, and a child inherits that, Ctrl-C and all.
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    said: queue.Queue[str | None] = queue.Queue()
    lines: list[str] = []

    def read() -> None:
        for line in process.stdout:
            said.put(line)
        said.put(None)  # the command ended

    reader = threading.Thread(target=read, daemon=True)
    reader.start()

    def wait_for(start: str) -> None:
        """The command's lines up to the next that starts with `start`."""
        deadline = time.monotonic() + 120
        while not lines or not lines[-1].startswith(start):
            try:
                line = said.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no line starting {start!r}: {lines}") from None
            assert line is not None, f"the command ended before {start!r}: {lines}"
            lines.append(line)

    try:
        wait_for("Built ")
        wait_for("watching ")
        mission = campaign / "missions" / "1.yaml"
        mission.write_text(mission.read_text().replace("en: 'Same'", "en: 'Saved again'"))
        wait_for("Built ")
        assert "Saved again" in text_of(out / "en" / "missions.pdf")
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
        reader.join(timeout=30)
    while (line := said.get_nowait()) is not None:
        lines.append(line)
    assert process.returncode == 0, lines
    assert not any("Traceback" in line for line in lines), lines


def test_a_png_and_tts_rebuild_rasterises_one_face_equals_the_first_build_and_leaves_nothing_outside_out(  # noqa: E501
        tmp_path, monkeypatch, tts_kit, harfbuzz_subsetter):
    """Cards are drawn eight faces to a piece, but each face's PNG is cached on its own: after
    one title changes, the piece is drawn again and that one face alone rasterised; changed
    back, the kit equals the one first built. None of these builds leaves anything in the
    system's temporary folder or OUT/.tmp (WeasyPrint's font folders go to the build's own
    folder, removed at the end): once test_nothing_is_left_outside_out, whose own fresh build
    cost as much as this one. The campaign is test_tts's, whose kit with PNGs and TTS sheets
    is built once per run (conftest.tts_kit: from the command line, two workers, the campaign
    by the same relative path; its missions drawn and rasterised there, its decks from the
    starter kit's cache): a title is changed and the kit rebuilt from that kit's cache
    (exactly the files showing the title change), then changed back and rebuilt, which must
    give tts_kit's English kit, byte for byte. (A --no-cache build of the changed campaign to
    compare with was two thirds of this test's time; the --no-cache build, and that it leaves
    nothing but the kit in OUT, are tested on the kit without PNGs, above.)"""
    import tempfile

    from support.kits import tts_campaign

    from synergy_forge.authoring.loading import read_campaign
    from synergy_forge.printing import build as render
    from synergy_forge.printing.jobs import Options
    from synergy_forge.printing.workers import prepare_workers

    # The fork server the workers come from, as the command's (started first, as any earlier
    # build of this process did: the folder of its socket, multiprocessing's own, would be
    # made in SYSTEM below, whose path under xdist's folders can be too long for a socket).
    workers = prepare_workers()
    system = tmp_path / "system-tmp"
    system.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(system))
    folder = tts_campaign(tmp_path / "camp")
    monkeypatch.chdir(tmp_path)  # the campaign by a relative path, as tts_kit's was built

    def build(out: Path, jobs: int = 2) -> None:
        campaign = read_campaign(Path("camp")).campaign
        assert campaign is not None
        render.build(campaign, out, ["en"], Options(tts=True), jobs=jobs, workers=workers)

    shutil.copytree(tts_kit / "out" / ".cache", tmp_path / "a" / ".cache")
    mission = folder / "missions" / "1.yaml"
    mission.write_text(mission.read_text().replace("en: First", "en: Other"))
    build(tmp_path / "a")  # mission 1's piece drawn on a worker
    assert "Other" in text_of(tmp_path / "a" / "en" / "missions.pdf")

    def english_kit(out: Path) -> dict[str, bytes]:
        # The saved object names the files by their absolute path: compared folder-blind.
        return {name: data.replace(str(out.resolve()).encode(), b"OUT")
                if name.endswith(".json") else data
                for name, data in kit_files(out).items() if Path(name).parts[0] == "en"}

    fresh = english_kit(tts_kit / "out")
    # What shows mission 1's title changed, and nothing else: a stale piece, PNG or sheet of
    # the old title (which the second rebuild, back to it, would not show) fails here.
    changed = english_kit(tmp_path / "a")
    assert changed.keys() == fresh.keys()
    assert sorted(name for name in fresh if fresh[name] != changed[name]) == [
        "en/cards-missions.pdf", "en/missions.pdf", "en/png/missions/mission-01.png",
        "en/print-and-play-en.pdf", "en/tts/starter-campaign-en-missions-faces.png",
        "en/tts/starter-campaign-en.json", "en/tts/starter-campaign-en.png"]
    rasterised: list[int] = []
    from synergy_forge.printing import piece

    original = piece.page_images

    def counting(pdf, dpi=piece.PNG_DPI, pages=None):
        for index, image in original(pdf, dpi, pages):
            rasterised.append(index)
            yield index, image

    monkeypatch.setattr(piece, "page_images", counting)
    mission.write_text(mission.read_text().replace("en: Other", "en: First"))
    build(tmp_path / "a", jobs=1)  # in this process, where page_images is counted
    assert rasterised == [0]  # mission 1's front, the first page of its piece
    new = english_kit(tmp_path / "a")
    assert any(name.endswith(".json") for name in new if "/tts/" in name)
    assert sum(name.endswith(".png") for name in new) > 100
    assert new == fresh
    # (A folder of multiprocessing's own, removed at exit, may be there.)
    assert [p.name for p in system.iterdir() if not p.name.startswith("pymp-")] == []
    assert not (tmp_path / "a" / ".tmp").exists()


def test_a_rebuild_removes_the_outputs_of_cards_no_longer_in_the_campaign_and_nothing_else(
        tmp_path, monkeypatch, tts_kit):
    """Mission 3 of test_tts's campaign puts the campaign's own goal in play: once its file is
    deleted, the rebuild into the same --out (conftest.tts_kit's, with its cache: only what
    changed is drawn) removes mission 3's PNG, its card's plain back, the goal's five PNGs
    (which a print shop upload of png/ would otherwise still send) and the TTS sheet no longer
    used, and says so; a file of the
    user's in --out, even beside the PNGs, stays, as do the other language's files."""
    shutil.copytree(tts_kit / "camp", tmp_path / "camp")
    shutil.copytree(tts_kit / "out", tmp_path / "out")
    mine = [tmp_path / "out" / "notes.txt", tmp_path / "out" / "en" / "png" / "missions" /
            "my-mission-3.png", tmp_path / "out" / "en" / "tts" / "old.json",
            tmp_path / "out" / "fr" / "png" / "goals" / "goal-0-close-call.png"]
    for path in mine:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("the user's")
    (tmp_path / "camp" / "missions" / "3.yaml").unlink()
    monkeypatch.chdir(tmp_path)  # the campaign by a relative path, as tts_kit's was built
    result = CliRunner().invoke(main, ["build", "camp", "--out", "out", "--tts", "--jobs", "1",
                                       "--lang", "en"])
    assert result.exit_code == 0, result.output
    gone = ["en/png/goals/goal-0-close-call.png", "en/png/goals/goal-1-close-call.png",
            "en/png/goals/goal-2-close-call.png", "en/png/goals/goal-3-close-call.png",
            "en/png/goals/goal-4-close-call.png", "en/png/missions/back-mission.png",
            "en/png/missions/mission-03.png",
            # two missions, one card: the missions' sheet of backs gives way to their one back
            "en/tts/starter-campaign-en-missions-backs.png"]
    for name in gone:
        assert not (tmp_path / "out" / name).exists(), name
        assert f"  removed out/{name}\n" in result.output, result.output
    assert "Removed 8 PNGs an earlier build made that this one no longer makes" in \
        result.output, result.output
    assert all(path.read_text() == "the user's" for path in mine)
    pngs = {p.relative_to(tmp_path / "out").as_posix()
            for p in (tmp_path / "out" / "en" / "png").rglob("*.png")}
    built = re.search(r"Built \d+ PDFs and (\d+) PNGs", result.output)
    assert built and len(pngs) - 1 == sum(
        int(n) for n in re.findall(r"page\(s\), (\d+) PNGs", result.output)), result.output


def test_only_files_a_build_wrote_of_the_languages_it_builds_are_removed(tmp_path):
    """The record of what a build wrote (OUT/.written.json) is read, not trusted: a name out
    of the language's folder, or out of OUT, is never removed, nor another spelling of a file
    this build wrote (`en/./b.png`), nor a file of a kind no build writes (a note listed by
    hand); a damaged record removes nothing."""
    from synergy_forge.printing.output import WRITTEN_FILE, forget

    out = tmp_path / "out"
    names = ["en/a.png", "en/b.png", "fr/a.png", "notes.txt", ".cache/k", "en/../notes.txt",
             "../outside.txt", str(tmp_path / "outside.txt"), "en", "en/./b.png", "en//b.png",
             "en/png/mine.txt"]
    for name in ["en/a.png", "en/b.png", "fr/a.png", "notes.txt", ".cache/k",
                 "en/png/mine.txt"]:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        (out / name).write_text("x")
    (tmp_path / "outside.txt").write_text("x")
    (out / WRITTEN_FILE).write_text(json.dumps({"en": names, "fr": ["fr/a.png"]}))
    assert forget(out, ["en"], [out / "en" / "b.png"]) == [out / "en" / "a.png"]
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*")
                  if p.is_file()) == ["out/.cache/k", "out/.written.json", "out/en/b.png",
                                      "out/en/png/mine.txt", "out/fr/a.png", "out/notes.txt",
                                      "outside.txt"]
    assert json.loads((out / WRITTEN_FILE).read_text()) == {"en": ["en/b.png"],
                                                            "fr": ["fr/a.png"]}
    (out / WRITTEN_FILE).write_text("{damaged")
    assert forget(out, ["en", "fr"], []) == []
    assert (out / "en" / "b.png").exists() and (out / "fr" / "a.png").exists()


def test_cache_entries_a_crash_left_empty_or_cut_short_are_drawn_again(tmp_path, small_kit,
                                                                       harfbuzz_subsetter):
    """Cache entries are written without an fsync each (outputs with one); what a power loss
    or a hand can leave of them, empty files or files cut short, is never trusted: the next
    build draws them again (`store.whole`)."""
    out = same_kit(small_kit, tmp_path)
    before = kit_files(out)
    pieces = sorted((out / ".cache").glob("*.pdf"))
    # Every PDF the build puts together (imposed sheets, merged documents, the combined PDF:
    # entries without facts, which only `whole` vets) and two drawn pieces (each drawn
    # again costs a WeasyPrint document: two show it as well as half the pieces did), the
    # two smallest: a damaged entry is found by its size and facts, not by what it draws,
    # and the smallest are drawn again soonest (the first two by name were the calibration
    # page, the most expensive of the small kit's pieces, and eight number cards).
    assembled = [p for p in pieces if not p.with_suffix(".json").exists()]
    drawn = sorted((p for p in pieces if p.with_suffix(".json").exists()),
                   key=lambda p: (p.stat().st_size, p.name))
    assert len(assembled) > 5 and len(drawn) > 5
    for number, piece in enumerate(assembled + drawn[:2]):
        if number % 2:
            piece.write_bytes(piece.read_bytes()[: piece.stat().st_size // 2])
        else:
            piece.write_bytes(b"")
    build_small(tmp_path, "Same", "a")
    assert kit_files(out) == before


def test_mission_rules_that_cannot_fit_are_an_error_at_the_challenges_from_validate_and_build(
        tmp_path, starter_kit, monkeypatch):
    """The rules block of a mission card (play order, goal deck, hand, challenges, actions) is
    fitted from the fonts' metrics: what cannot fit at 8 pt is found before rendering,
    at the mission's `challenges`, by validate and by build (and not again after rendering).
    The campaign is a starter copy cut to its first eight missions, one piece of eight mission
    cards: mission 8 is the one whose card cannot hold its rules, the others' cards are the
    starter's (the four pieces of all thirty, mission 20 failing the same way, were half of
    this test's time). The build command runs whole (its plan, the fit checks before and after
    drawing, assembly and report) on the missions' documents alone, from the starter kit's
    cache: the rules are on the mission cards, which are drawn, and their sheets imposed
    (the other documents the cut campaign changes, its action cards, goal sheets, challenge
    sheet and rulebook, were two thirds of the build's drawing)."""
    from support.files import crowded_rules_campaign

    from synergy_forge.printing import build as render

    every_job = render.jobs_for

    def missions_only(languages):
        return [job for job in every_job(languages) if job.group == "missions"]

    monkeypatch.setattr(render, "jobs_for", missions_only)
    monkeypatch.setattr(render, "COMBINED", ["missions.pdf"])  # the print-and-play PDF's parts

    campaign = crowded_rules_campaign(tmp_path / "camp")
    for mission in (campaign / "missions").glob("*.yaml"):
        if int(mission.name[:2]) > 8:
            mission.unlink()
    where = "08-heavy-lifting.yaml:9:1: error: mission 8's card (en): its rules"
    checked = CliRunner().invoke(main, ["validate", str(campaign)])
    assert checked.exit_code == 1 and checked.output.count(where) == 1, checked.output
    assert "(fr)" not in checked.output  # the French text is short: its card fits
    assert "(the longest: 'odd-sum')" in checked.output
    alone = CliRunner().invoke(main, ["validate", str(campaign / "missions" /
                                                   "08-heavy-lifting.yaml")])
    assert alone.exit_code == 1 and alone.output.count(where) == 1, alone.output  # pre-commit
    shutil.copytree(starter_kit / ".cache", tmp_path / "o" / ".cache")
    built = CliRunner().invoke(main, ["build", str(campaign), "--out", str(tmp_path / "o"),
                                      "--no-png", "--lang", "en", "--jobs", "1"])
    assert built.exit_code == 1 and built.output.count(where) == 1, built.output
    assert "does not fit on its card in" not in built.output  # not a second time
    # The mission cards were drawn, and checked after drawing (which leaves alone the card
    # reported above: with that check blind to it, the card is reported a second time).
    assert "/en/missions.pdf" in built.output and "/en/rulebook.pdf" not in built.output


def test_a_damaged_cache_entry_is_drawn_again_not_trusted(tmp_path, small_kit,
                                                           harfbuzz_subsetter):
    """An entry whose facts are unreadable or whose PDF is not the size it was written with
    (a hand, a disk) is drawn again: the same kit, exit 0, no internal error."""
    out = same_kit(small_kit, tmp_path)
    before = kit_files(out)
    facts = sorted((out / ".cache").glob("*.json"))
    facts[0].write_text("{broken")
    pdf = facts[1].with_suffix(".pdf")
    pdf.write_bytes(pdf.read_bytes()[:100])
    with contextlib.chdir(tmp_path):
        result = CliRunner().invoke(main, ["build", "camp", "--out", "a", "--no-png", "--jobs",
                                           "1", "--lang", "en"])
    assert result.exit_code == 0, result.output
    assert kit_files(out) == before


def ink_coverage(image) -> float:
    """The share of the page covered in ink, from its pixels: 0 for white paper, 1 for solid
    black (each channel's darkness, averaged)."""
    import numpy as np

    pixels = np.asarray(image.convert("RGB"), dtype=float)
    return float(1 - pixels.mean() / 255)


def page_ink(path: Path) -> list[float]:
    """ink_coverage of each page of a PDF, rendered at 20 DPI."""
    from synergy_forge.printing.draw import page_images

    return [ink_coverage(image) for _, image in page_images(path.read_bytes(), 20)]


#: The ink saver's kits (ink_saver_kits): paper and layout, each built from the one before's
#: cache.
INK_SAVER_KITS = (("a4", "duplex"), ("a4", "fold"), ("letter", "duplex"),
                  ("letter", "fold"))


@pytest.fixture(scope="session")
def ink_saver_kits(tmp_path_factory, small_kit) -> Path:
    """ROOT/camp (small_kit's campaign: two missions, every deck and every kind of card and
    back the starter's thirty missions have) and its English kits built with --ink-saver, by
    a relative path, in ROOT/a4-duplex, ROOT/a4-fold, ROOT/letter-duplex and ROOT/letter-fold,
    once per test run (conftest.once_per_run: this module's tests are spread over xdist's workers).
    The A4 build starts from small_kit's cache: the pieces the ink saver leaves alone (the
    rulebook, the challenge sheet, the calibration page) are not drawn again; every card and
    sheet is. Each later build starts from the one before's cache: the same cards, other
    sheets (the fold kit's rulebook and challenge sheet on Letter, the duplex kit's). Three
    tests read them: each had kits of its own, which drew the cards, or the Letter sheets,
    rulebook and challenge sheet, again."""
    from support.kits import once_per_run

    def build(root: Path) -> None:
        root.mkdir()
        small_campaign(root, "Same")
        seed = small_kit / "a"
        for paper, layout in INK_SAVER_KITS:
            out = root / f"{paper}-{layout}"
            shutil.copytree(seed / ".cache", out / ".cache")
            seed = out
            with contextlib.chdir(root):  # by a relative path, as small_kit's was built
                result = CliRunner().invoke(main, [
                    "build", "camp", "--out", out.name, "--paper", paper, "--layout", layout,
                    "--ink-saver", "--no-png", "--lang", "en", "--jobs", "1"])
            assert result.exit_code == 0, result.output

    return once_per_run(tmp_path_factory, "ink-saver-kits", build)


def test_ink_saver_sheets_are_at_most_a_quarter_ink(ink_saver_kits, small_kit):
    """`build --ink-saver` draws light backs and bands; every page of the kit it
    writes (the print-and-play PDF: every group's sheets, fronts and backs, and the pages
    around them), measured from its pixels, is at most 25% ink, on A4 and on Letter, and on
    Letter with the fold layout."""
    for paper, layout in INK_SAVER_KITS:
        kit = ink_saver_kits / f"{paper}-{layout}" / "en" / "print-and-play-en.pdf"
        inks = page_ink(kit)
        assert len(inks) == pages(kit) > 25
        assert max(inks) <= 0.25, (paper, layout, [(i + 1, round(ink, 3))
                                                   for i, ink in enumerate(inks) if ink > 0.25])
    # The measure sees heavy pages: without --ink-saver the backs are over a third ink.
    assert max(page_ink(small_kit / "a" / "en" / "print-and-play-en.pdf")) > 0.35


def test_ink_saver_text_on_its_light_bands_and_stripes_meets_wcag_aa(ink_saver_kits):
    """Every character of the ink saver's A4 kit is at least WCAG AA (4.5:1) against the pixels
    around it (docs/printing.md): the corners on the light bands and the backs' symbols on
    their stripes are in --tint-text, the colour darkened for the tint (in --ink-text, made
    for the paper, they were 3.4 to 4.2 to 1). Its cards and sheets are the Letter kits'."""
    from support.pages import low_contrast_characters

    checked, low = low_contrast_characters(
        ink_saver_kits / "a4-duplex" / "en" / "print-and-play-en.pdf")
    assert checked > 2000 and not low, (checked, low[:5])


def first_pieces(drawn: dict[str, Path]) -> Callable[..., Any]:
    """A stand-in for printing.build.build, as print_run calls it: the first piece (eight faces) of
    each cards document, drawn (unless OUT/.cache has it) by the build's own `render_piece`
    (printing/piece.py), which rasterises its first face and each back among its faces, each face's
    PNG recorded in `drawn` under its name in the kit. (Every face of a piece is a page of the same
    size: rasterising all eight, a PNG each at 300 DPI, was most of the tgc case's time.)"""
    from synergy_forge.printing import build as render
    from synergy_forge.printing.draw import RenderContext
    from synergy_forge.printing.piece import render_piece
    from synergy_forge.printing.store import CACHE_DIR

    def build(campaign, out_dir: Path, languages: list[str], options, *_, **__) -> Any:
        root = out_dir.resolve()
        store = root / CACHE_DIR
        store.mkdir(parents=True, exist_ok=True)
        context = RenderContext()
        try:
            for document in render.plan(campaign, languages, options):
                if document.job.kind == "cards":
                    key, html, names = next(document.pieces())
                    wanted = [name if index == 0 or face.key.startswith("back-") else None
                              for index, (face, name) in enumerate(zip(document.faces, names,
                                                                       strict=False))]
                    render_piece(context, html, key, str(store), wanted, None, str(root))
                    for face, name in zip(document.faces, wanted, strict=False):
                        if name:
                            drawn[f"{face.key}.png"] = store / f"{name}.png"
        finally:
            context.release()
        return render.Built([], [], 0, 0)

    return build


@pytest.mark.parametrize("shop", ["tgc", "mpc"])
def test_a_shop_preset_writes_a_manifest_of_face_back_and_quantity(tmp_path, shop):
    """The PNG folders did not say which back goes with which face, nor how many of
    each. With a tgc or mpc preset the build writes png/<shop>-manifest.csv and .json (the
    build's own `_manifest`, on the documents the build plans: no drawing needed): one row per
    different card in print order, in the shop's words, every card counted once, the files
    those the build writes, and two copies one row only when their pictures are the same (the
    same cache key: the same face HTML)."""
    import csv

    from synergy_forge.authoring.loading import read_campaign
    from synergy_forge.printing import build as render
    from synergy_forge.printing.html import single_faces
    from synergy_forge.printing.jobs import PRESETS, Options
    from synergy_forge.printing.kit import build_kit

    folder = small_campaign(tmp_path, "Mission", SHOP)
    (folder / "missions" / "3.yaml").write_text(
        "id: m3\nnumber: 3\ntitle: {en: Three, fr: Trois}\nstars: 1\nrounds: 2\nlives: 2\n",
        encoding="utf-8")
    campaign = read_campaign(folder).campaign
    assert campaign is not None
    options = Options(card=PRESETS[shop].card, shop=shop, full_bleed_backs=True)
    cards = [d for d in render.plan(campaign, ["fr"], options) if d.job.kind == "cards"]
    out = tmp_path / "out"
    out.mkdir()
    written = render._manifest(campaign, out, "fr", options, cards)
    assert [r.path.name for r in written] == [f"{shop}-manifest.csv", f"{shop}-manifest.json"]
    words = {"tgc": ["deck", "Face", "Back", "Quantity"],
             "mpc": ["deck", "Front", "Back", "Quantity"]}[shop]
    with open(out / "fr" / "png" / f"{shop}-manifest.csv", encoding="utf-8") as handle:
        rows = list(csv.reader(handle))
    assert rows[0] == words
    kit = build_kit(campaign)
    assert sum(int(r[3]) for r in rows[1:]) == sum(len(c) for c in kit.values()) == \
        written[0].pages
    files = {f"{g}/{face.key}.png" for g, c in kit.items() for face in single_faces(c)}
    assert {r[1] for r in rows[1:]} | {r[2] for r in rows[1:]} <= files
    by_deck: dict[str, list[list[str]]] = {}
    for row in rows[1:]:
        by_deck.setdefault(row[0], []).append(row)
    # Three missions on two cards: mission 2 is the back of mission 1, a plain back behind 3.
    assert by_deck["missions"] == [
        ["missions", "missions/mission-01.png", "missions/mission-02.png", "1"],
        ["missions", "missions/mission-03.png", "missions/back-mission.png", "1"]]
    # Two number cards of each value, one picture: one row of 2, behind its colour's back.
    assert len(by_deck["numbers"]) == 25 and {r[3] for r in by_deck["numbers"]} == {"2"}
    assert by_deck["numbers"][0] == ["numbers", "numbers/number-0-0.png",
                                     "numbers/back-number-0.png", "2"]
    key_of = {face.key: key for d in cards for face, key in zip(d.faces, d.face_keys,
                                                              strict=True)}
    assert key_of["number-0-0"] == key_of["number-0-1"] != key_of["number-0-2"]
    # The action cards as the build pairs them, each letter once.
    assert sorted(r[1][-5] + r[2][-5] for r in by_deck["actions"]) == \
        sorted(c.front.data + c.back.data for c in kit["actions"])
    manifest = json.loads((out / "fr" / "png" / f"{shop}-manifest.json").read_text("utf-8"))
    assert manifest["shop"] == {"tgc": "The Game Crafter", "mpc": "MakePlayingCards"}[shop]
    assert (manifest["image"]["width"], manifest["image"]["height"]) == PRESETS[shop].pixels
    assert [[d["deck"], *row.values()] for d in manifest["decks"] for row in d["rows"]] == \
        [[r[0], r[1], r[2], int(r[3])] for r in rows[1:]]
    assert {d["deck"]: d["backs"] for d in manifest["decks"]}["numbers"] == 5


@pytest.mark.parametrize("preset", ["tgc", "mpc"])
def test_a_preset_s_card_images_are_the_size_its_shop_takes(preset, tmp_path, shop_kit,
                                                            monkeypatch):
    """tgc: 825 x 1125 px, mpc: 822 x 1122 px, for every face and back. The
    command is run with the whole kit's drawing replaced by the first piece of each deck
    (`first_pieces`: the build's own drawing of eight faces and rasterising of the deck's
    first card and the backs among them, on the options the command made of --preset): every face
    of a deck is drawn on the same page size, so these show the size of them all (the whole
    kit, about 130 images, was three quarters of this test's time). The tgc build starts from
    the cache of conftest.shop_kit, the same campaign built with --preset dtc, whose card and
    bleed are TGC's: it draws nothing, only rasterises. A piece's cache key hashes its HTML,
    which holds the card's size and bleed: a tgc card other than DTC's would be drawn afresh,
    at its own size, and its images fail here (a build from a cache equals one without:
    tested above). The mpc card is no other preset's: drawn here."""
    from PIL import Image

    from synergy_forge.printing import print_run

    campaign = small_campaign(tmp_path, "Mission", SHOP)
    drawn: dict[str, Path] = {}
    if preset == "tgc":
        shutil.copytree(shop_kit / "out" / ".cache", tmp_path / preset / ".cache")
    monkeypatch.setattr(print_run, "build", first_pieces(drawn))
    with contextlib.chdir(tmp_path):  # by a relative path, as shop_kit's was built
        result = CliRunner().invoke(main, ["build", "camp", "--out", preset, "--preset",
                                           preset, "--jobs", "1", "--lang", "fr"])
    assert result.exit_code == 0, result.output
    # Five decks' first faces; the goals' and numbers' backs, the four specials' backs.
    assert len(drawn) == 11 and sum(name.startswith("back-") for name in drawn) == 6
    # Each deck's cards and backs (specials: super, hyper, lives, rounds).
    assert {name.removesuffix(".png").split("-")[0] for name in drawn} >= {
        "mission", "goal", "number", "action", "back", "super"}
    for name, path in sorted(drawn.items()):
        with Image.open(path) as image:
            # the shops' own figures (docs/printing.md), not the code's
            assert image.size == {"tgc": (825, 1125), "mpc": (822, 1122)}[preset], name
            if name.startswith("back-"):
                # Printed to the edge for a shop's cut (1/16 in either way): no paper frame,
                # whose width the cut would change from card to card (a back told apart).
                rgb = image.convert("RGB")
                for x, y in ((40, 40), (image.width // 2, 40), (40, image.height - 41)):
                    assert rgb.getpixel((x, y)) != (251, 250, 247), (name, x, y)
    refused = CliRunner().invoke(main, ["build", str(campaign), "--preset", preset,
                                        "--card-size", "63x88", "--out", str(tmp_path / "x")])
    assert refused.exit_code == 2 and "--preset sets the card size" in refused.output


@pytest.mark.parametrize("paper", ["a4", "letter"])
def test_the_fold_layout_puts_each_back_beside_its_front_on_one_side(paper):
    """`--layout fold`, for printers without duplex: landscape, single-sided; each
    back shares its front's fold line (no bleed across it), and the marks stay beyond the
    quarter inch some printers cannot print."""
    from synergy_forge.printing.layout import PRINTABLE, fold_sheet

    layout = fold_sheet(paper)
    assert layout.width > layout.height and layout.per_sheet == 4
    for front, back in zip(layout.fronts, layout.backs, strict=True):
        assert back.y == front.y and abs(back.x - front.x - layout.card.width) < 1e-6
        assert front.bleed.right == back.bleed.left == 0
    for mark in (*layout.marks, *layout.folds):
        assert min(mark.x, mark.y) >= PRINTABLE - 1e-6
        assert mark.x + mark.width <= layout.width - PRINTABLE + 1e-6
        assert mark.y + mark.height <= layout.height - PRINTABLE + 1e-6


def test_a_fold_build_is_single_sided_and_labelled(ink_saver_kits):
    """The ink saver's Letter fold kit (ink_saver_kits: a fold kit of its own, on A4 without
    the ink saver, drew its sheets again; the sheets and their labels are laid out the same
    on either paper, with or without the ink saver)."""
    numbers = ink_saver_kits / "letter-fold" / "en" / "numbers.pdf"
    assert pages(numbers) == 13  # 50 number cards, 4 pairs a page, one side each
    assert "Numbers · fold in two · sheet 1/13" in text_of(numbers)
    # Nothing is printed on a back: the calibration page is one page, without a duplex check.
    calibration = ink_saver_kits / "letter-fold" / "en" / "calibration.pdf"
    assert pages(calibration) == 1
    assert "Print on one side of the paper only" in text_of(calibration)
    assert "Duplex check" not in text_of(calibration)


def same_but_antialiasing(drawn, imposed) -> tuple[float, int]:
    """(share of pixels that differ, how many of them are no edge moved by under a pixel):
    a pixel of one image whose value lies outside the range of the other's 3 x 3 pixels
    around it, by more than 16 levels in a channel, is not anti-aliasing."""
    import numpy as np

    # 16-bit: every value below (0 to 255, a difference, a bound 16 beyond one) fits, and
    # the copies below are a quarter of 64-bit ones (the same figures, under half the time).
    a, b = (np.asarray(image.convert("RGB"), dtype=np.int16) for image in (drawn, imposed))
    assert a.shape == b.shape
    height, width = a.shape[:2]
    strays = 0
    for one, other in ((a, b), (b, a)):
        padded = np.pad(other, ((1, 1), (1, 1), (0, 0)), mode="edge")
        # The 3 x 3 pixels around each pixel as nine shifted copies of the image: their
        # minimum and maximum, element by element (a reduction over strided 3 x 3 windows
        # gives the same and took most of this function's time).
        around = [padded[dy:dy + height, dx:dx + width] for dy in range(3) for dx in range(3)]
        low, high = np.minimum.reduce(around), np.maximum.reduce(around)
        strays += int(((one < low - 16) | (one > high + 16)).any(axis=2).sum())
    return float((np.abs(a - b).max(axis=2) > 8).mean()), strays


def assert_imposed_like_drawn(out: Path, campaign, options, language: str,
                              groups: tuple[str, ...] | None = None) -> None:
    """The first sheet of each group the build imposed from the cards' own pages (its front
    and its back, or its fold page) against the same sheet drawn by WeasyPrint with the cards
    in place (`html_for`'s sheet HTML, how a sheet can also be drawn), rasterised at
    50 DPI: the same but for anti-aliasing along edges (PDF renderers draw a clip's edge, or a
    hard colour stop of a ring pattern, a fraction of a pixel apart depending on how the
    drawing is nested; measured: at most 0.3% of a page's pixels, each within the range of the
    other image's pixels around it). Every sheet is imposed by the same code: the first of
    each group has every kind of card and back the group has."""
    from synergy_forge.cardtext.i18n import Translator
    from synergy_forge.printing.draw import RenderContext, draw, page_images
    from synergy_forge.printing.html import html_for, sheet_for
    from synergy_forge.printing.jobs import Job
    from synergy_forge.printing.kit import GROUPS, build_kit

    context = RenderContext()
    kit = build_kit(campaign)
    per = sheet_for(options).per_sheet
    try:
        for group in groups or GROUPS:
            sheets = -(-len(kit[group]) // per)
            html, _ = html_for(Job("sheets", language, group), campaign, options,
                               Translator(language), only=kit[group][:per],
                               numbering=(0, sheets))
            drawn = [image for _, image in page_images(draw(html, context).pdf, 50)]
            built = (out / language / f"{group}.pdf").read_bytes()
            assert len(pdfium.PdfDocument(built)) == sheets * len(drawn), group
            imposed = [image for _, image in page_images(built, 50, range(len(drawn)))]
            for number, (reference, image) in enumerate(zip(drawn, imposed, strict=True)):
                share, strays = same_but_antialiasing(reference, image)
                assert share < 0.01 and strays == 0, (group, number, share, strays)
    finally:
        context.release()


def test_imposed_sheets_are_the_sheets_weasyprint_draws_a4(starter_kit):
    """Every group of the starter kit, in French: imposition places pages, whatever their
    language (English sheets are checked on the ink saver's Letter kits, duplex and fold,
    below; drawing both languages' reference sheets here was half this test's time)."""
    from synergy_forge.authoring.loading import read_campaign
    from synergy_forge.printing.jobs import Options

    campaign = read_campaign(starter_campaign()).campaign
    assert_imposed_like_drawn(starter_kit, campaign, Options(), "fr")
    assert "Premières notes" in text_of(starter_kit / "fr" / "missions.pdf")


# With the A4 duplex kit above (in French): both papers, both layouts, the ink saver and both
# languages.
def test_imposed_sheets_are_the_sheets_weasyprint_draws_on_letter_duplex_and_fold(
        ink_saver_kits):
    """Letter, in English, duplex then fold: the ink saver's kits (ink_saver_kits; kits of
    its own, without the ink saver, drew the Letter sheets, rulebook and challenge sheet
    again: imposition places the cards' pages, whatever they print)."""
    from synergy_forge.authoring.loading import read_campaign
    from synergy_forge.printing.jobs import Options

    with contextlib.chdir(ink_saver_kits):
        campaign = read_campaign(Path("camp")).campaign
        assert campaign is not None
        for layout in ("duplex", "fold"):
            out = ink_saver_kits / f"letter-{layout}"
            # Two groups: a deck of one back design, a deck of cards printed on both sides;
            # every group of the A4 kit is checked above.
            assert_imposed_like_drawn(out, campaign, Options(
                paper="letter", png=False, layout=layout, ink_saver=True), "en",
                ("goals", "actions"))
            assert "Same" in text_of(out / "en" / "missions.pdf")


@pytest.mark.parametrize(("paper", "fold"), [("a4", False), ("letter", False), ("a4", True),
                                             ("letter", True)])
def test_cut_guides_follow_every_cut_and_never_touch_a_card(paper, fold):
    """Cut guides continue the crop marks across the sheet, through the gutters.
    None lies on any card's trim (a line there would stay on a card cut 1 to 2 mm off): an
    edge with a gutter or the margin beside it has its guide GUIDE_GAP outside it, a line
    two cards share has guides only where it crosses a gutter; every cut line of a front has
    one, along the front. (In the fold layout the backs' edges have none: below.)"""
    from synergy_forge.printing.layout import EDGE, GUIDE, GUIDE_GAP, fold_sheet

    layout = fold_sheet(paper) if fold else sheet(paper)
    card = layout.card
    trims = [(s.x, s.y, card.width, card.height) for s in layout.fronts + (
        layout.backs if fold else ())]
    for guide in layout.guides + layout.fold_guides:
        assert guide.x >= EDGE and guide.y >= EDGE
        assert guide.x + guide.width <= layout.width - EDGE
        assert guide.y + guide.height <= layout.height - EDGE
        for x, y, w, h in trims:
            overlap_x = min(guide.x + guide.width, x + w) - max(guide.x, x)
            overlap_y = min(guide.y + guide.height, y + h) - max(guide.y, y)
            assert overlap_x <= 1e-6 or overlap_y <= 1e-6, (guide, (x, y))
    # Along the front itself in the fold layout; on a duplex sheet somewhere along the line
    # (a shared cut line is guided through the gutters).
    fold_lines = {round(b.x, 3) for b in layout.backs} if fold else set()
    for front in layout.fronts:
        for cut in {round(front.x, 3), round(front.x + card.width, 3)} - fold_lines:
            assert any(g.width == GUIDE and abs(g.x + GUIDE / 2 - cut) <= GUIDE_GAP + GUIDE
                       and (not fold or (g.y < front.y + card.height
                                         and g.y + g.height > front.y))
                       for g in layout.guides), (front, cut)
        for cut in (front.y, front.y + card.height):
            assert any(g.height == GUIDE and abs(g.y + GUIDE / 2 - cut) <= GUIDE_GAP + GUIDE
                       and (not fold or (g.x < front.x + card.width
                                         and g.x + g.width > front.x))
                       for g in layout.guides), (front, cut)
    # A shared cut line (A4's columns, Letter's rows) is guided through the gutters only.
    if not fold:
        cuts_x = {round(v, 3) for x, _, w, _ in trims for v in (x, x + w)}
        cuts_y = {round(v, 3) for _, y, _, h in trims for v in (y, y + h)}
        shared = layout.gutter_x == 0
        inner = sorted(cuts_x if shared else cuts_y)[1:-1]
        for cut in inner:
            pieces = [g for g in layout.guides if abs(
                (g.x if shared else g.y) + GUIDE / 2 - cut) < 1e-6]
            assert pieces and all((g.height if shared else g.width)
                                  <= max(layout.gutter_x, layout.gutter_y) + 1e-6
                                  for g in pieces)


@pytest.mark.parametrize(("paper", "fold"), [("a4", False), ("letter", False), ("a4", True),
                                             ("letter", True)])
def test_nothing_is_drawn_within_a_back_s_reach(paper, fold):
    """No label, crop mark or cut guide within the card's bleed and 2 mm of any
    back's trim (`Sheet.reach`), where a duplex shift, a fold or a cut 2 mm off would carry it
    onto one back and not the others (on A4 and Letter the back pages keep no label and no
    crop mark: their margins are within reach). The fronts' own marks and label would be
    (what the back pages had before), and the fold layout's crop marks beside the backs keep
    their length where the margin allows."""
    from synergy_forge.printing.layout import LABEL, MIN_MARK, PRINTABLE, SHIFT, fold_sheet

    layout = fold_sheet(paper) if fold else sheet(paper)
    zones = [layout.reach(b) for b in layout.backs]
    assert all(z[0] <= b.x - layout.card.bleed - SHIFT for z, b in zip(zones, layout.backs,
                                                                       strict=True))

    def within(mark) -> bool:
        return any(mark.x < z[2] and z[0] < mark.x + mark.width and mark.y < z[3]
                   and z[1] < mark.y + mark.height for z in zones)

    drawn = (layout.marks + layout.folds + layout.guides + layout.fold_guides) if fold \
        else layout.back_marks
    assert not [m for m in drawn if within(m)]
    if fold:
        # Above the first front, out of the backs' reach but for its last 5 mm (the label's
        # own length is the rendered test's to check, below: it is text).
        first = layout.fronts[0]
        assert layout.label == (first.x + layout.card.width / 2, PRINTABLE + LABEL / 2, False)
        assert not any(z[0] < first.x + layout.card.width - layout.card.bleed - SHIFT - 0.25
                       and z[2] > first.x for z in zones)
        assert len(layout.marks) >= 8 and all(
            max(m.width, m.height) >= MIN_MARK - 1e-6 and min(m.x, m.y) >= PRINTABLE - 1e-6
            for m in layout.marks + layout.folds)
    else:
        assert layout.back_marks == () and layout.back_label is None
        assert any(within(m) for m in layout.marks)  # the check sees what it looks for


def group_backs(folder: Path, fold: bool) -> Iterator[tuple[Path, list[int]]]:
    """Each group's sheets PDF in `folder` and its pages that hold backs: every other page
    of a duplex kit, every page of a fold kit."""
    from synergy_forge.printing.kit import GROUPS

    for group in GROUPS:
        path = folder / f"{group}.pdf"
        count = pages(path)
        yield path, list(range(count) if fold else range(1, count, 2))


def test_no_back_shows_foreign_ink_when_printed_2_mm_off_a4(starter_kit):
    """Every back page of the A4 kit (English and French), shifted 2 mm each way
    and diagonally: the outer strip of no card shows ink (support.pages.foreign_ink: a crop
    mark, a label, a neighbour's panel). The ink saver's kits, A4 and Letter, duplex and
    fold, below; the Letter kit's full backs in test_table_ready.py."""
    from support.pages import foreign_ink

    layout = sheet("a4")
    for language in ("en", "fr"):
        for path, backs in group_backs(starter_kit / language, False):
            assert not foreign_ink(path, layout, backs), (language, path.name)
    # The check sees ink where there is some: the fronts, with their marks, label and guides.
    path = starter_kit / "en" / "numbers.pdf"
    assert len(foreign_ink(path, layout, [0])) > 9


def test_a_shop_s_full_bleed_backs_are_framed_on_the_home_sheets(shop_kit):
    """A preset's backs run to the edge of their bleed (for the shop's cut), and sheets of
    them, duplex at home, showed a neighbour's colour on a 2 mm shift (the numbers' second
    sheet: red beside yellow). On the sheets each back is drawn inside the home backs' paper
    frame (conftest.shop_kit: DriveThruCards' poker card, its number sheets)."""
    from support.pages import foreign_ink

    from synergy_forge.printing.jobs import PRESETS

    path = shop_kit / "out" / "fr" / "numbers.pdf"
    layout = sheet("a4", PRESETS["dtc"].card)
    assert not foreign_ink(path, layout, list(range(1, pages(path), 2)))


def test_no_ink_saver_back_shows_foreign_ink_when_printed_2_mm_off(ink_saver_kits):
    """A4 and Letter, duplex and fold (where the fold or cut may be 2 mm off: the
    pairs lie far enough apart that the next pair's front is out of reach)."""
    from support.pages import foreign_ink

    from synergy_forge.printing.layout import fold_sheet

    for paper, layout in INK_SAVER_KITS:
        fold = layout == "fold"
        shape = fold_sheet(paper) if fold else sheet(paper)
        for path, backs in group_backs(ink_saver_kits / f"{paper}-{layout}" / "en", fold):
            assert not foreign_ink(path, shape, backs), (paper, layout, path.name)


def test_cut_guides_are_on_the_fronts_never_on_the_backs():
    """A back with a line on it could be told from the others once a duplex shift moves the
    line onto it: guides go on the fronts (and the fold layout's one side) only."""
    from synergy_forge.authoring.loading import read_campaign
    from synergy_forge.cardtext.i18n import Translator
    from synergy_forge.printing.html import html_for
    from synergy_forge.printing.jobs import Job, Options

    campaign = read_campaign(starter_campaign()).campaign
    for layout in ("duplex", "fold"):
        html, _ = html_for(Job("sheets", "en", "specials"), campaign,
                           Options(layout=layout, png=False), Translator("en"), frame=True)
        pages = html.split('<section class="sheet')[1:]
        assert [page.count('class="guide') > 0 for page in pages] == \
            ([True, False] if layout == "duplex" else [True])


def test_without_harfbuzz_subsetter_the_fonts_are_dated_and_build_says_so(tmp_path, monkeypatch):
    """Where WeasyPrint finds no HarfBuzz subsetter (Debian's libharfbuzz-subset0 is not
    pulled in by Pango), it subsets with fontTools, which stamps each embedded font with the
    time of drawing (here SOURCE_DATE_EPOCH, to show it without waiting a second): the same
    document gives other bytes. The build's report warns, naming the package; with the
    subsetter, it says nothing."""
    from weasyprint.pdf import fonts

    from synergy_forge.printing.draw import RenderContext, draw, fonts_dated_by_fonttools
    from synergy_forge.printing.jobs import Job, Rendered
    from synergy_forge.printing.piece import render_piece
    from synergy_forge.printing.print_run import PrintRun
    from synergy_forge.printing.store import entry
    from synergy_forge.reporting.build import text

    monkeypatch.setattr(fonts, "harfbuzz_subset", None)
    assert fonts_dated_by_fonttools()
    html = "<html><body><p>Synergy 5</p></body></html>"
    drawn = []
    for epoch in ("0", "1767225600"):
        monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
        context = RenderContext(str(tmp_path))
        try:
            drawn.append(draw(html, context))
        finally:
            context.release()
    assert drawn[0].pdf != drawn[1].pdf and drawn[0].dated_fonts
    # A build's piece keeps it in its cache entry, whence the document's result has it.
    cache = tmp_path / "cache"
    cache.mkdir()
    context = RenderContext(str(tmp_path))
    try:
        render_piece(context, html, "piece", str(cache), [None], None, str(tmp_path))
        assert entry(cache, "piece")["dated_fonts"]
        monkeypatch.undo()
        assert draw(html, context).dated_fonts == fonts_dated_by_fonttools()
    finally:
        context.release()

    def report(dated: bool) -> str:
        rendered = Rendered(Job("rulebook", "en"), tmp_path / "rulebook.pdf", 4, 0.0,
                            dated_fonts=dated)
        return text(PrintRun([rendered]), tmp_path).note

    assert report(True).startswith("warning:") and "libharfbuzz-subset0" in report(True)
    assert "libharfbuzz-subset0" not in report(False)


def test_build_watch_s_warm_workers_draw_each_rebuild_on_the_same_processes_as_a_cold_build_does(
        tmp_path, small_kit):
    """build --watch keeps its workers (WarmWorkers): the fonts loaded and the stylesheet
    parsed once, not at every save. Two saves are drawn by the same processes, which end with
    it, and the kit is byte for byte a build's without them."""
    import multiprocessing

    from synergy_forge.printing.build import build
    from synergy_forge.printing.jobs import Options
    from synergy_forge.printing.workers import WarmWorkers
    from synergy_forge.workspace.campaign import Workspace

    campaign = small_campaign(tmp_path, "Same")
    out = seeded(small_kit, tmp_path / "warm")
    mission = campaign / "missions" / "1.yaml"
    text = mission.read_text()
    before = {p.pid for p in multiprocessing.active_children()}
    drawn_by: list[set[int]] = []
    with WarmWorkers(None, 2) as warm:
        for title in ("First save", "Second save"):
            mission.write_text(text.replace("en: 'Same'", f"en: '{title}'"))
            read = Workspace(campaign).read().campaign
            assert read is not None
            built = build(read, out, ["en"], Options(png=False), 2, workers=warm)
            assert built.drew == 1
            drawn_by.append({p.pid for p in multiprocessing.active_children()} - before)
    assert drawn_by[0] and drawn_by[1] == drawn_by[0]
    assert {p.pid for p in multiprocessing.active_children()} - before == set()
    assert "Second save" in text_of(out / "en" / "missions.pdf")
    cold = build_small(tmp_path, "Same", "cold", seed=small_kit)  # the campaign as saved
    assert kit_files(out) == kit_files(cold)
