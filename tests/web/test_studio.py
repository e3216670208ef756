"""`synergy-forge studio`, driven in a real browser: headless Chromium (Debian's package) through
Playwright. The server runs as a subprocess on a free loopback port, as a user starts it."""

from __future__ import annotations

import copy
import http.client
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from support.browser import LAPTOP, PHONE, wait_for, wider_than_the_screen

from synergy_forge.resources import starter_campaign
from synergy_forge.studio.model import BATCH, Studio

ROOT = Path(__file__).resolve().parents[2]


class Server:
    def __init__(self, folder: Path) -> None:
        env = {**os.environ, "PYTHONPATH": str(ROOT), "PYTHONUNBUFFERED": "1"}
        self.process = subprocess.Popen(
            [sys.executable, "-m", "synergy_forge", "studio", str(folder), "--port", "0",
             "--no-browser"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
            start_new_session=True)  # a process group of its own, as a shell starts it
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        found = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert found, line + (self.process.stderr.read() if self.process.stderr else "")
        self.url, self.port = found.group(0), int(found.group(1))

    def get(self, path: str) -> http.client.HTTPResponse:
        """A request with the path sent exactly as written (no client-side normalisation)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=10)
        connection.request("GET", path)
        response = connection.getresponse()
        response.read()
        connection.close()
        return response

    def stop(self) -> tuple[int, str, str]:
        """Ctrl-C as a terminal sends it: to every process of the command (its estimator's
        workers too), then its exit code and output."""
        os.killpg(self.process.pid, signal.SIGINT)
        try:
            out, err = self.process.communicate(timeout=20)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise
        return self.process.returncode, out, err


def small_campaign(folder: Path) -> Path:
    """The starter campaign cut down to its first two missions (one card, its two faces), each
    for three players only: the estimator's first batch of every mission is then two batches,
    not twelve (a five-player batch costs four times a three-player one), and its card is
    drawn again after each edit. Nothing shown depends on how many player counts or cards
    there are: two missions are one that an edit changes and one that it leaves alone."""
    shutil.copytree(starter_campaign(), folder)
    missions = sorted((folder / "missions").glob("*.yaml"))
    for path in missions[2:]:
        path.unlink()
    for path in missions[:2]:
        text, found = re.subn(r"(?m)^allowed_failures: \{3: (\d+),.*\}$",
                              r"players: [3]\nallowed_failures: {3: \1}",
                              path.read_text(encoding="utf-8"))
        assert found == 1, path
        # stars per player count (the starter's Warm-up) at its one count
        text = re.sub(r"(?m)^stars: \{3: (\d+),.*\}$", r"stars: \1", text)
        path.write_text(text, encoding="utf-8")
    return folder


@pytest.fixture(scope="module")
def studio(tmp_path_factory) -> Iterator[tuple[Server, Path]]:
    folder = small_campaign(tmp_path_factory.mktemp("studio") / "camp")
    server = Server(folder)
    yield server, folder
    if server.process.poll() is None:
        server.stop()


@pytest.mark.parametrize("path", [
    "/../../etc/passwd", "/%2e%2e/%2e%2e/etc/passwd", "/static/../../../etc/passwd",
    "/static/..%2f..%2f..%2fetc%2fpasswd", "/static/%2e%2e%2fmodel.py", "/static/model.py",
    "/static/index.html/..", "/cards/..%2f..%2fcampaign.yaml", "/cards/" + "0" * 64 + ".png",
    "/missions/01-first-notes.yaml", "/campaign.yaml", "//etc/passwd", "/static/%00"])
def test_nothing_outside_the_studio_is_served(studio, path):
    server, _ = studio
    assert server.get(path).status == 404


def test_the_icon_browsers_ask_for_is_served_not_a_404(studio):
    server, _ = studio
    for path in ("/favicon.ico", "/static/favicon.svg"):
        response = server.get(path)
        assert response.status == 200 and response.getheader("content-type") == \
            "image/svg+xml", path


def test_strict_content_security_policy_on_every_response(studio):
    server, _ = studio
    for path in ("/", "/static/studio.js", "/api/state", "/nope"):
        policy = server.get(path).getheader("content-security-policy")
        assert policy and "script-src 'self'" in policy and "default-src 'none'" in policy
        assert "unsafe-inline" not in policy and "unsafe-eval" not in policy
    # The page has no inline script: its one script is a file of the server's.
    page = (ROOT / "synergy_forge" / "studio" / "static" / "index.html").read_text()
    assert re.findall(r"<script[^>]*>", page) == ['<script src="/static/studio.js" defer>']


def test_cards_diagnostics_live_updates_without_reload_and_only_the_changed_estimate_restarts(
        studio, browser, tmp_path):
    server, folder = studio
    page = browser.new_page(viewport=LAPTOP)
    page.goto(server.url)
    wait_for(page, "document.querySelectorAll('section.mission').length === 2")
    # Titled with the campaign's name, not its folder's (issue 43).
    assert page.title() == "Starter campaign · synergy-forge studio", page.title()
    # Both faces of every card drawn (PNG loaded), and no problem listed.
    wait_for(page, "[...document.querySelectorAll('section.mission img.face')].length === 4 && "
                   "[...document.querySelectorAll('img.face')].every(i => i.complete && "
                   "i.naturalWidth > 0)")
    first = page.locator("section.mission").first
    assert "1. First notes" in first.locator("h3").inner_text()
    assert first.locator(".diagnostics li.ok").inner_text() == "no problem found"
    rows = page.locator("#overview tbody tr")
    assert rows.count() == 2 and rows.first.locator("td").nth(2).inner_text() == "2★"
    # The difficulty estimate grows while the page is open.
    wait_for(page, "window.studio.state.missions[0].estimate && "
                   "window.studio.state.missions[0].estimate.games >= 20")
    assert "declared 2★, estimated" in first.locator(".estimate").inner_text()
    page.screenshot(path=str(tmp_path / "studio.png"))
    if os.environ.get("SYNERGY_FORGE_SCREENSHOT"):
        page.screenshot(path=os.environ["SYNERGY_FORGE_SCREENSHOT"])
    # On a phone the page fits its screen: a mission's card, problems and estimate one under
    # the other, the overview in a box of its own.
    assert wider_than_the_screen(page, PHONE) == []
    assert wider_than_the_screen(page, LAPTOP) == []

    # An edit on disk reaches the page in place: the marker set on window survives.
    page.evaluate("window.marker = 'still the same page'")
    front = first.locator("img.face").first.get_attribute("src")
    mission = folder / "missions" / "01-first-notes.yaml"
    original = mission.read_text(encoding="utf-8")
    mission.write_text(original.replace('en: "First notes"', 'en: "Loud notes"'),
                       encoding="utf-8")
    wait_for(page, "document.querySelector('section.mission h3').textContent"
                   ".includes('Loud notes')", timeout=10_000)
    wait_for(page, f"document.querySelector('section.mission img.face').getAttribute('src') "
                   f"!== {front!r} && document.querySelector('section.mission img.face')"
                   ".complete", timeout=10_000)
    assert page.evaluate("window.marker") == "still the same page"

    # A broken file shows its located errors instead of a stale card.
    mission.write_text(original.replace("rounds: ", "rounds: [", 1), encoding="utf-8")
    wait_for(page, "document.querySelector('section.mission .broken') !== null",
             timeout=10_000)
    errors = first.locator(".diagnostics li.error").all_inner_texts()
    assert errors and all(re.match(r".*missions/01-first-notes\.yaml:\d+:\d+: error", e)
                          for e in errors), errors
    assert first.locator("img.face").count() == 0
    assert wider_than_the_screen(page, PHONE) == []  # the errors and their box, on a phone
    page.set_viewport_size(LAPTOP)

    # User text is shown as text, never run as HTML.
    hostile = '<img src=x id=injected onerror="window.owned=1">'
    mission.write_text(original.replace('en: "First notes"', f"en: '{hostile}'"),
                       encoding="utf-8")
    wait_for(page, "document.querySelector('section.mission h3').textContent"
                   ".includes('<img src=x')", timeout=10_000)
    assert page.evaluate("document.getElementById('injected') === null && !window.owned")
    mission.write_text(original, encoding="utf-8")
    wait_for(page, "document.querySelector('section.mission h3').textContent"
                   ".includes('First notes')", timeout=10_000)
    assert page.evaluate("window.marker") == "still the same page"

    # Only the changed mission's estimate restarts (on the same page: a page of its own was a
    # second of the browser's CPU to open). Each batch plays every table of the skill ladder
    # (games counted over all of them). A batch of each mission is enough (a restart shows as
    # fewer games than that, or none); two took twice as long.
    wait_for(page, "window.studio.state && window.studio.state.missions.every("
                   f"m => m.estimate && m.estimate.games >= {BATCH})", timeout=240_000)
    games = page.evaluate("window.studio.state.missions.map(m => m.estimate.games)")
    other = folder / "missions" / "02-warm-up.yaml"
    before = other.read_text(encoding="utf-8")
    try:
        # Lives change the game: mission 2 starts again; a title would not.
        other.write_text(re.sub(r"(?m)^lives: (\d+)", lambda m: f"lives: {int(m[1]) + 1}",
                                before), encoding="utf-8")
        wait_for(page, "window.studio.state.missions[1].estimate === null || "
                       f"window.studio.state.missions[1].estimate.games < {games[1]}",
                 timeout=10_000)
        after = page.evaluate("window.studio.state.missions.map(m => m.estimate ? "
                              "m.estimate.games : 0)")
        assert after[0] >= games[0]
    finally:
        other.write_text(before, encoding="utf-8")
        page.close()


def test_games_are_played_only_while_a_page_is_open(studio, browser):
    import json

    server, _ = studio

    def state() -> dict:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        connection.request("GET", "/api/state")
        found = json.loads(connection.getresponse().read())
        connection.close()
        return found

    def games(found: dict) -> int:
        return sum(m["estimate"]["games"] for m in found["missions"] if m["estimate"])

    def until(condition, what: str) -> dict:
        deadline = time.monotonic() + 60
        while not condition(found := state()):
            assert time.monotonic() < deadline, f"not after 60 s: {what}"
            time.sleep(0.05)
        return found

    page = browser.new_page()
    page.goto(server.url)
    start = games(until(lambda s: s["pages"] == 1, "the page is counted"))
    until(lambda s: games(s) >= start + BATCH, "a batch played while the page is open")
    page.close()
    # The stream notices the page is gone, and the batches under way land: one state says
    # both, and from then on no batch starts (the estimator starts one only for open pages).
    closed = until(lambda s: s["pages"] == 0 and s["playing"] == 0, "page gone, nothing under way")
    time.sleep(0.5)  # many turns of the estimator's loop, each of which could start a batch
    after = state()
    assert (after["playing"], games(after)) == (0, games(closed))


def test_no_campaign_is_a_usage_error(tmp_path):
    # In this process (an interpreter's start less): the exit code and stderr are the
    # program's; the studio's own process is the module's server, stopped with Ctrl-C below.
    from click.testing import CliRunner

    from synergy_forge.cli import main

    result = CliRunner().invoke(main, ["studio", str(tmp_path), "--no-browser"])
    assert result.exit_code == 2 and "no campaign here" in result.stderr, result.output


def test_the_studio_draws_the_very_html_build_prints():
    from synergy_forge.authoring.loading import read_campaign
    from synergy_forge.printing.build import plan
    from synergy_forge.printing.jobs import Options
    from synergy_forge.printing.preview import CardPreview

    campaign = read_campaign(starter_campaign()).campaign
    assert campaign is not None
    preview = CardPreview(campaign, "fr")
    printed = {html for document in plan(campaign, ["fr"], Options())
               if document.job.name == "cards-missions.pdf" for html in document.face_html}
    faces = [face for card in preview.kit["missions"] for face in (card.front, card.back)]
    assert len(faces) == 30
    assert {preview.html("missions", face) for face in faces} == printed
    image, overflows = preview.render(preview.html("missions", faces[0]))
    assert image.startswith(b"\x89PNG") and overflows == []


def test_a_page_of_another_site_cannot_reach_it_by_a_dns_name(studio):
    server, _ = studio
    connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
    connection.request("GET", "/api/state", headers={"Host": f"attacker.example:{server.port}"})
    response = connection.getresponse()
    assert response.status == 400 and b"missions" not in response.read()
    connection.close()


def test_a_title_too_long_for_its_card_is_reported_after_every_save(tmp_path):
    from synergy_forge.studio.model import Studio

    folder = small_campaign(tmp_path / "camp")
    mission = folder / "missions" / "01-first-notes.yaml"
    mission.write_text(mission.read_text(encoding="utf-8").replace(
        'en: "First notes"', 'en: "' + "A title far too long " * 12 + '"'), encoding="utf-8")
    studio = Studio(folder)
    studio.reload()
    # Found from the fonts' metrics, as validate finds it: located at the title; a print
    # problem only, so the card stays on show (README) and the mission is still estimated.
    first = studio.state()["missions"][0]
    assert [d["check"] for d in first["diagnostics"]] == ["text.fit"]
    assert first["diagnostics"][0]["where"].endswith("01-first-notes.yaml:4:13")
    assert first["card"] is not None and all(first["card"]) and first["playable"]
    assert first["overflows"] == []  # said once, at its line, not again as the card's overflow
    studio.reload()  # and again after the next save
    assert studio.state()["missions"][0]["diagnostics"] == first["diagnostics"]


def test_a_face_drawn_alone_is_pixel_for_pixel_its_page_in_the_build_piece():
    """build draws eight faces to a document and rasterises its pages; the studio draws one
    face's own document (and build keys that face's PNG by it): the same pixels either way."""
    from io import BytesIO

    from PIL import Image, ImageChops

    from synergy_forge.authoring.loading import read_campaign
    from synergy_forge.printing.build import FACES_PER_PIECE, plan
    from synergy_forge.printing.draw import draw, page_images
    from synergy_forge.printing.jobs import Options
    from synergy_forge.printing.preview import CardPreview

    campaign = read_campaign(starter_campaign()).campaign
    assert campaign is not None
    preview = CardPreview(campaign, "en")
    cards = next(d for d in plan(campaign, ["en"], Options())
                 if d.job.name == "cards-goals.pdf")
    count = FACES_PER_PIECE
    assert len(cards.keys) > 1 and len(cards.face_html) == len(cards.faces)
    piece = draw(cards.html[1], preview.context)
    for index, image in page_images(piece.pdf, 60):
        alone, _ = preview.render(cards.face_html[count + index], dpi=60)
        with Image.open(BytesIO(alone)) as own:
            assert ImageChops.difference(own.convert("RGB"), image.convert("RGB")).getbbox() \
                is None, cards.faces[count + index].key


def test_the_studio_shows_a_mission_whose_rules_cannot_fit_as_validate_does(tmp_path):
    """Located at its `challenges` as validate says it, once (not again as the card's overflow),
    and, being a print problem only, with its card and its difficulty still shown."""
    from support.files import crowded_rules_campaign

    from synergy_forge.studio.model import Studio

    folder = crowded_rules_campaign(tmp_path / "camp")
    # Mission 8 and the mission on the other side of its card: the card drawn is the one the
    # whole campaign prints, without drawing the campaign's other fourteen cards (3 s).
    for path in (folder / "missions").glob("*.yaml"):
        if not path.name.startswith(("07-", "08-")):
            path.unlink()
    studio = Studio(folder, "en")
    studio.reload()
    eight = next(m for m in studio.state()["missions"] if m["number"] == 8)
    assert [(d["where"].rsplit("/", 1)[-1], d["check"]) for d in eight["diagnostics"]] == \
        [("08-heavy-lifting.yaml:9:1", "text.fit")]
    assert "mission 8's card (en): its rules" in eight["diagnostics"][0]["message"]
    assert eight["overflows"] == [] and eight["playable"]
    assert eight["card"] is not None and all(eight["card"])


#: Records, in window.touched, which part of the page each change of the page's DOM was in: a
#: mission's section ("FILE h3", "FILE cards", "FILE side", "FILE estimate") or an overview
#: row's cell ("row I cell J").
TOUCHED = """() => {
    window.touched = new Set();
    const where = (node) => {
        const section = node.closest('section.mission');
        if (section) {
            const part = [...section.children].find((c) => c.contains(node));
            return section.dataset.file.split('/').pop() + ' ' +
                (part ? part.className || part.tagName.toLowerCase() : 'section');
        }
        const row = node.closest('#overview tbody tr');
        if (row) {
            const cell = [...row.children].findIndex((c) => c.contains(node));
            return 'row ' + [...row.parentElement.children].indexOf(row) + ' cell ' + cell;
        }
        return node.closest('#missions, #overview tbody') ? 'the list itself' : null;
    };
    new MutationObserver((records) => {
        for (const r of records) {
            const found = where(r.target.nodeType === 1 ? r.target : r.target.parentElement);
            if (found) window.touched.add(found);
        }
    }).observe(document.body, { subtree: true, childList: true, characterData: true,
                                attributes: true });
}"""


def test_the_page_redraws_only_what_changed_and_asks_again_for_the_state_after_a_gap(
        studio, browser):
    server, folder = studio
    page = browser.new_page(viewport=LAPTOP)
    try:
        page.goto(server.url)
        wait_for(page, "[...document.querySelectorAll('section.mission img.face')].length === 4 "
                       "&& [...document.querySelectorAll('img.face')].every(i => i.complete && "
                       "i.naturalWidth > 0)")
        page.evaluate(TOUCHED)

        def touched() -> set[str]:
            found = set(page.evaluate("[...window.touched]"))
            page.evaluate("window.touched.clear()")
            return found

        # The estimates grow: their boxes and the overview's estimate cells, nothing else.
        games = "window.studio.state.missions.reduce((n, m) => n + " \
            "(m.estimate ? m.estimate.games : 0), 0)"
        start = page.evaluate(f"[window.studio.updates, {games}]")
        wait_for(page, f"window.studio.updates >= {start[0] + 2} && {games} > {start[1]}",
                 timeout=120_000)
        allowed = {"01-first-notes.yaml estimate", "02-warm-up.yaml estimate",
                   "row 0 cell 3", "row 1 cell 3"}
        assert touched() <= allowed
        # A title saved: its heading, its row's name, and the card (both missions' faces are
        # its two sides); neither mission's problems, nor the other's heading or row.
        mission = folder / "missions" / "01-first-notes.yaml"
        original = mission.read_text(encoding="utf-8")
        faces = "[...document.querySelectorAll('img.face')]"
        before = page.evaluate(f"{faces}.map(i => i.getAttribute('src'))")
        mission.write_text(original.replace('en: "First notes"', 'en: "Quiet notes"'),
                           encoding="utf-8")
        wait_for(page, "document.querySelector('section.mission h3').textContent"
                       ".includes('Quiet notes')", timeout=10_000)
        # The first mission's side, on both missions' cards, drawn again.
        wait_for(page, f"{faces}.every((i, n) => {before}[n] !== {before}[0] || "
                       f"i.getAttribute('src') !== {before}[n]) && {faces}.every(i => "
                       "i.complete && i.naturalWidth > 0 && !i.classList.contains('waiting'))",
                 timeout=30_000)
        found = touched()
        assert {"01-first-notes.yaml h3", "01-first-notes.yaml cards", "row 0 cell 1",
                "02-warm-up.yaml cards"} <= found
        assert found <= allowed | {"01-first-notes.yaml h3", "01-first-notes.yaml cards",
                                   "02-warm-up.yaml cards", "row 0 cell 0", "row 0 cell 1",
                                   "row 0 cell 2"}
        # A change that does not follow the page's version (one was missed): the page asks
        # for the whole state, and shows it.
        version = page.evaluate("window.studio.state.version")
        mission.write_text(original, encoding="utf-8")
        page.evaluate(f"window.studio.drawChange({{version: {version + 1000}, "
                      f"since: {version + 999}, missions: {{}}}})")
        assert page.evaluate("window.studio.fetches") == 1
        wait_for(page, "document.querySelector('section.mission h3').textContent"
                       ".includes('First notes')", timeout=10_000)
        assert page.evaluate("window.studio.state.missions.length") == 2
    finally:
        page.close()


def test_ctrl_c_stops_the_studio_with_exit_0_while_a_page_is_open_and_games_are_played(studio,
                                                                                      browser):
    # The module's last test: it stops the module's studio. The studio runs until Ctrl-C: that
    # is how it ends, not an interruption (README, Exit codes). Ctrl-C comes while a page is
    # open and the estimator's worker is playing a batch (the state says so), sent to every
    # process of the command as a terminal does. (test_interrupt started a studio of its own
    # on the 30 missions of the starter campaign for this.)
    import json

    server, _ = studio
    page = browser.new_page()
    page.goto(server.url)
    wait_for(page, "window.studio.updates > 0")

    def playing() -> int:
        connection = http.client.HTTPConnection("127.0.0.1", server.port, timeout=10)
        connection.request("GET", "/api/state")
        found = json.loads(connection.getresponse().read())["playing"]
        connection.close()
        return found

    deadline = time.monotonic() + 60
    while not playing():
        assert time.monotonic() < deadline, "no batch played while the page is open"
        time.sleep(0.05)
    code, out, err = server.stop()
    assert code == 0, err
    assert "Traceback" not in err
    # stdout says where the studio is and that it stopped; no line per request, on either
    # (as the table: the page asked for its state, its events and its cards).
    assert out == "studio stopped\n"  # after the "Studio for … at URL" line the test read
    assert "HTTP/1.1" not in out + err and "GET /" not in out + err
    page.close()


def quiet_studio(folder: Path, monkeypatch) -> Studio:
    """A studio of the small campaign, read, its cards not drawn (WeasyPrint): what it sends
    is tested, not what it draws (the browser test above draws them)."""
    from synergy_forge.studio.model import CardPreview, Studio

    monkeypatch.setattr(CardPreview, "render", lambda self, html, dpi: (b"png", []))
    studio = Studio(small_campaign(folder))
    studio.reload()
    return studio


def apply(state: dict, changes: dict) -> dict:
    """What studio.js does with a change (drawChange), on the data alone."""
    state = copy.deepcopy(state)
    missions = {m["file"]: m for m in state["missions"]}
    for file, fields in changes["missions"].items():
        missions.setdefault(file, {"file": file}).update(fields)
    order = changes.get("order", [m["file"] for m in state["missions"]])
    state["missions"] = [missions[file] for file in order]
    state.update({k: changes[k] for k in ("campaign", "folder", "problems") if k in changes})
    state["version"] = changes["version"]
    return state


def shown(state: dict) -> dict:
    """A state less what the page does not show (pages open, games under way)."""
    return {k: v for k, v in state.items() if k not in ("pages", "playing")}


def play_a_batch(studio: Studio, index: int = 0) -> None:
    """What the estimator does when a batch of games lands, for the mission at `index`."""
    from synergy_forge.sim.playtest import play_tables

    entry = studio.snapshot.entries[index]
    campaign = studio.snapshot.campaign
    assert entry.mission is not None and campaign is not None
    tally = play_tables(entry.mission, campaign.rulebook, campaign.colors, 3, (1, 2))
    with studio.lock:
        studio.tallies[entry.play_key][3].add(tally)
        studio.batches[entry.play_key] += 1
        studio._publish(urgent=False)


def test_a_save_sends_only_the_parts_it_changed_and_a_batch_only_its_missions_estimate(
        tmp_path, monkeypatch):
    studio = quiet_studio(tmp_path / "camp", monkeypatch)
    folder = studio.folder
    before = studio.state()
    first, second = (m["file"] for m in before["missions"])
    assert studio.changes(before["version"]) == \
        {"version": before["version"], "since": before["version"], "missions": {}}
    # A title: the card part (its heading, its card drawn again) of the mission and of the
    # other on its card (the two are the two faces of one card), nothing else.
    mission = folder / "missions" / "01-first-notes.yaml"
    mission.write_text(mission.read_text(encoding="utf-8").replace(
        'en: "First notes"', 'en: "Loud notes"'), encoding="utf-8")
    studio.reload()
    edited = studio.changes(before["version"])
    assert list(edited["missions"]) == [first, second] and "order" not in edited
    for fields in edited["missions"].values():
        assert set(fields) == {"number", "title", "id", "stars", "card"}
    assert edited["missions"][first]["title"] == "Loud notes"
    assert edited["missions"][second]["title"] == before["missions"][1]["title"]
    assert studio.urgent == studio.version == edited["version"] > before["version"]
    assert shown(apply(before, edited)) == shown(studio.state())
    # A batch of games of the second mission: its estimate part alone, not urgent.
    saved = studio.state()
    play_a_batch(studio, 1)
    progress = studio.changes(saved["version"])
    assert list(progress["missions"]) == [second]
    assert set(progress["missions"][second]) == {"playable", "estimate", "people"}
    assert progress["missions"][second]["estimate"]["games"] > 0
    assert studio.urgent == saved["version"] < studio.version
    assert shown(apply(saved, progress)) == shown(studio.state())
    # Applied to any state between `since` and now, a change gives the state now: the page
    # may hold a newer state than the change follows (asked for after a gap).
    assert shown(apply(before, studio.changes(before["version"]))) == shown(studio.state())
    # A mission gone, one broken: the order, and the broken one's parts.
    (folder / "missions" / "02-warm-up.yaml").unlink()
    mission.write_text("id: [\n", encoding="utf-8")
    studio.reload()
    gone = studio.changes(saved["version"])
    assert gone["order"] == [first] and list(gone["missions"]) == [first]  # the other gone
    assert gone["missions"][first]["card"] is None and gone["missions"][first]["errors"]
    assert shown(apply(saved, gone)) == shown(studio.state())


def test_the_estimates_progress_is_paced_and_a_save_goes_ahead_of_it(tmp_path, monkeypatch):
    """A page's stream: the state, then a change; the estimates' progress alone waits for PACE
    after the last event (set to ten minutes here), a save's change is sent at once, with the
    progress that waited."""
    import asyncio
    import json

    from synergy_forge.studio import server

    studio = quiet_studio(tmp_path / "camp", monkeypatch)
    monkeypatch.setattr(server, "PACE", 600.0)
    first = studio.state()["missions"][0]["file"]

    class Open:  # a page that stays open
        async def is_disconnected(self) -> bool:
            return False

    def event(message: str) -> tuple[str, dict]:
        name, data = re.fullmatch(r"(?:retry: \d+\n)?event: (\w+)\ndata: (.*)\n\n", message,
                                  re.S).groups()
        return name, json.loads(data)

    def save() -> None:
        mission = studio.folder / "missions" / "01-first-notes.yaml"
        mission.write_text(mission.read_text(encoding="utf-8").replace(
            'en: "First notes"', 'en: "Loud notes"'), encoding="utf-8")
        studio.reload()

    async def page() -> list[tuple[str, dict]]:
        stream = server._stream(studio, Open())
        received = [event(await anext(stream))]
        assert studio.clients == 1
        await asyncio.to_thread(play_a_batch, studio, 1)
        await asyncio.to_thread(play_a_batch, studio, 0)
        waiting = asyncio.ensure_future(anext(stream))
        assert (await asyncio.wait({waiting}, timeout=2.0))[0] == set()  # paced: not sent
        await asyncio.to_thread(save)
        received.append(event(await asyncio.wait_for(waiting, 60)))
        await stream.aclose()
        return received

    from concurrent.futures import ThreadPoolExecutor

    try:  # in a thread of its own: Playwright's fixtures keep a loop running in this one
        with ThreadPoolExecutor(1) as thread:
            (state, start), (change, changed) = thread.submit(asyncio.run, page()).result()
    finally:
        studio.stopping.set()
    assert (state, change) == ("state", "change") and changed["since"] == start["version"]
    assert changed["missions"][first]["title"] == "Loud notes"
    assert all(fields["estimate"]["games"] for fields in changed["missions"].values())
    assert studio.clients == 0
