"""The seat page in a real browser (Debian's Chromium through Playwright): three people, each in
a browser context of their own (two on a phone's screen, one of them in French, and one playing
by keyboard only), play a whole mission by tapping cards; one leaves and comes back; the log
replays. Then one person with two bots, whose page comes back by itself after the network is
lost. On a phone, in either language, no page is ever wider than the screen; on a tablet the
rounds' tables fit the side column."""

from __future__ import annotations

import contextlib
import json
import random
import shutil
import socket
import threading
import time
import urllib.request

from click.testing import CliRunner
from support.browser import LAPTOP, PHONE, wait_for, wider_than_the_screen
from support.processes import TableProcess

from synergy_forge.cli import main
from synergy_forge.resources import starter_campaign


def state(page, expression: str):
    return page.evaluate(f"() => {expression}")


def open_seat(context, link: str):
    page = context.new_page()
    page.goto(link)
    wait_for(page, "window.table && window.table.updates > 0", timeout=15_000)
    return page


#: What the game loop reads of a page, in one evaluate(): each is a round trip through
#: Playwright's driver and the browser, some 8 ms of CPU, and the loop reads three pages.
STATUS = ("({over: Boolean(window.table.view && window.table.view.outcome), "
          "choices: document.querySelectorAll('button.choice').length, "
          "sending: document.body.classList.contains('sending')})")


def tap(page, rng: random.Random, seen: dict) -> bool:
    """Tap one of the seat's choices (a card of the hand, or a button); False when none.
    `seen`: the page's STATUS, just read."""
    count = seen["choices"]
    if not count or seen["sending"]:
        return False
    try:
        page.locator("button.choice").nth(rng.randrange(count)).click(timeout=2000)
    except Exception:  # redrawn under the pointer by a newer view: the next turn tries again
        return False
    return True


def press(page, seen: dict) -> bool:
    """Choose with the keyboard only: Tab to the first choice, then Enter. `seen`: the page's
    STATUS, just read."""
    if not seen["choices"]:
        return False
    page.locator("body").focus()
    for _ in range(40):
        page.keyboard.press("Tab")
        # The view's version when a choice has the focus (one round trip, not two), else null.
        before = state(page, "document.activeElement && document.activeElement.dataset.choice "
                             "? window.table.view.version : null")
        if before is not None:
            page.keyboard.press("Enter")
            wait_for(page, f"window.table.view.version > {before}", timeout=10_000)
            return True
    raise AssertionError("no choice is reachable with Tab")


def test_three_people_play_a_whole_mission_in_three_browsers(browser, tmp_path):
    # Mission 22 of the starter campaign, in one round instead of four: every part of the
    # page (the super card, a seat's return, the outcome) comes in its first round, and the
    # other three rounds were a third of its CPU (every choice is drawn again in three browsers).
    campaign = tmp_path / "campaign"
    shutil.copytree(starter_campaign(), campaign)
    mission = campaign / "missions" / "22-the-captain.yaml"
    text = mission.read_text(encoding="utf-8")
    assert "\nrounds: 4\n" in text
    mission.write_text(text.replace("\nrounds: 4\n", "\nrounds: 1\n"), encoding="utf-8")
    log = tmp_path / "game.jsonl"
    table = TableProcess(str(mission), "--players", "3", "--seed", "8", "--log", str(log),
                         "--games", str(tmp_path / "games"))
    contexts = [browser.new_context(viewport=PHONE), browser.new_context(viewport=LAPTOP),
                browser.new_context(viewport=PHONE, locale="fr-FR")]
    try:
        pages = [open_seat(contexts[seat], table.links[seat]) for seat in range(3)]
        # Seat 2's browser speaks French: the page does too, and the choice can switch it.
        assert state(pages[2], "document.documentElement.lang") == "fr"
        assert "Votre main" in pages[2].locator("#hand-title").inner_text()
        assert pages[0].locator("#hand-title").inner_text() == "Your hand"
        # Mission 22 starts with the super card, given by seat 0 (R24): to one of 3 seats.
        assert pages[0].locator("#prompt").inner_text() == "Give the super card to a seat"
        assert pages[0].locator("#choices button.choice").count() == 3
        assert pages[1].locator("#prompt").inner_text() == "Not your turn: watch the table."
        rng = random.Random(4)
        choices = 0
        left = False
        deadline = time.monotonic() + 240
        while True:
            assert time.monotonic() < deadline, "the game did not end"
            moved, ended = False, 0
            for seat, page in enumerate(pages):
                seen = state(page, STATUS)
                ended += seen["over"]
                if not seen["over"]:
                    moved |= press(page, seen) if seat == 1 else tap(page, rng, seen)
            if ended == len(pages):
                break
            choices += moved
            if choices == 6 and not left:
                # Seat 2 closes its tab mid-game and opens its link again: same seat, same hand
                # (the server's: the closing page may not have had its last update yet).
                pages[2].close()
                pages[2] = open_seat(contexts[2], table.links[2])
                api = table.links[2].replace("/seat/", "/api/seat/")
                with urllib.request.urlopen(api, timeout=10) as response:
                    hand = json.loads(response.read())["hand"]
                assert json.loads(state(pages[2], "JSON.stringify(window.table.view.hand)")) \
                    == hand
                left = True
                # Mid-game, on a phone, in English and in French: nothing wider than the screen.
                assert [wider_than_the_screen(pages[seat]) for seat in (0, 2)] == [[], []]
            if not moved:
                time.sleep(0.05)
        outcomes = [p.locator("#outcome").inner_text() for p in pages]
        assert all(p.locator("#outcome").is_visible() for p in pages)
        assert outcomes[0] == outcomes[1]
        assert outcomes[0].startswith(("Mission lost", "★ Mission won"))
        assert outcomes[2].startswith(("Mission perdue", "★ Mission gagnée"))
        assert [wider_than_the_screen(pages[seat]) for seat in (0, 2)] == [[], []]
        # Every page was updated in place (no reload) and agrees with the others.
        views = [state(p, "window.table.view.outcome") for p in pages]
        assert views[0] == views[1] == views[2]
        assert state(pages[0], "window.table.updates") > 10
        pages[1].screenshot(path=str(tmp_path / "table.png"), full_page=True)
    finally:
        for context in contexts:
            context.close()
        code, out, err = table.stop()
    assert code == 0 and "Traceback" not in err
    assert f"log written to {log}" in out
    replayed = CliRunner().invoke(main, ["replay", "--campaign", str(campaign), str(log)])
    assert replayed.exit_code == 0, replayed.output


class Cable:
    """A TCP relay between the browser and the table: `cut()` drops every connection and
    refuses new ones, as a lost network does, until `mend()`."""

    def __init__(self, port: int) -> None:
        self.target = port
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.open: list = []
        self.cut_off = False
        self.lock = threading.Lock()
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            if self.cut_off:
                client.close()
                continue
            server = socket.create_connection(("127.0.0.1", self.target))
            with self.lock:
                self.open += [client, server]
            for a, b in ((client, server), (server, client)):
                threading.Thread(target=self._pump, args=(a, b), daemon=True).start()

    @staticmethod
    def _pump(source, sink) -> None:
        try:
            while data := source.recv(65536):
                sink.sendall(data)
        except OSError:
            pass
        finally:
            for end in (source, sink):
                with contextlib.suppress(OSError):
                    end.close()

    def cut(self) -> None:
        self.cut_off = True
        with self.lock:
            for end in self.open:
                with contextlib.suppress(OSError):
                    end.shutdown(socket.SHUT_RDWR)
            self.open = []

    def mend(self) -> None:
        self.cut_off = False


def test_one_person_with_two_bots_finishes_through_a_lost_network_and_a_wrong_link_says_so(browser):
    # One table and one page for all three (a lost network and a wrong link were a table and
    # a browser context of their own, each a second of CPU to start).
    from support.processes import choose, get

    table = TableProcess("5", "--humans", "1", "--pace", "0.1", "--seed", "6")
    link = table.links[0]
    port = int(link.split(":")[2].split("/")[0])
    cable = Cable(port)
    context = browser.new_context(viewport=PHONE)
    try:
        # The page comes back after the network is lost.
        page = open_seat(context, link.replace(f":{port}/", f":{cable.port}/"))
        cable.cut()
        wait_for(page, "document.getElementById('status').classList.contains('lost')",
                 timeout=10_000)
        # The game goes on meanwhile (the person's other device chooses).
        view = get(link)
        view = choose(link, view["legal"][0]["id"])
        assert state(page, "window.table.view.version") < view["version"]
        cable.mend()
        # Reconnected by itself, with no reload: the page has the table's latest view.
        wait_for(page, f"window.table.view.version >= {view['version']}", timeout=20_000)
        wait_for(page, "document.getElementById('status').classList.contains('live')",
                 timeout=10_000)
        assert state(page, "window.table.view.hand") == get(link)["hand"]
        assert wider_than_the_screen(page) == []  # mid-game, on a phone
        # Then the person finishes the game in the browser, with the two bots.
        rng = random.Random(1)
        deadline = time.monotonic() + 120
        while not (seen := state(page, STATUS))["over"]:
            assert time.monotonic() < deadline, "the game did not end"
            if not tap(page, rng, seen):
                time.sleep(0.05)
        seats = page.locator("#seats li")
        assert seats.count() == 3 and "bot coop" in seats.nth(1).inner_text()
        # Every round settled, in the referee's words: the last under the turn, the others aside.
        rounds = state(page, "window.table.view.table.rounds.length")
        assert page.locator("#last-round section.round-played").count() == min(rounds, 1)
        assert page.locator("#history section.round-played").count() == max(rounds - 1, 0)
        if rounds:
            page.locator("#last-round summary").click()
            assert "Round: " in page.locator("#last-round pre").inner_text()
        # Every round's table fits a phone's screen, in English and in French (longer words:
        # the trial's "Dernière manche" was cut at its last column).
        assert wider_than_the_screen(page) == []
        page.get_by_role("button", name="Français").click()
        wait_for(page, "document.documentElement.lang === 'fr'")
        assert "Dernière manche" in page.locator("#last-title").inner_text()
        assert wider_than_the_screen(page) == []
        # Not even in their own boxes: the tables fit, in closer columns. Nor on a tablet,
        # whose side column holds the earlier rounds (at 3:2 it was 300px wide at 800px, and
        # the French tables scrolled there).
        boxes = ("[...document.querySelectorAll('.table-box')].map("
                 "b => b.scrollWidth - b.clientWidth)")
        assert not any(state(page, boxes))
        for width in (800, 1000):
            page.set_viewport_size({"width": width, "height": 900})
            overflows = state(page, boxes)
            assert wider_than_the_screen(page) == [] and not any(overflows), (width, overflows)
        # A seat's link with a character wrong is no seat, in words a person reads (a page
        # of the same context).
        wrong = context.new_page()
        response = wrong.goto(table.links[0][:-4] + "AAAA")
        assert response.status == 404
        assert "No such table link: check the link" in wrong.inner_text("body")
    finally:
        context.close()
        table.stop()


#: The focused element, whether its outline can be seen (a ring of 2 px or more), and what it is.
FOCUS = ("(() => { const e = document.activeElement; const s = getComputedStyle(e);"
         " return {tag: e.tagName.toLowerCase(), id: e.id, choice: e.dataset.choice || null,"
         " cls: typeof e.className === 'string' ? e.className : '',"
         " ring: s.outlineStyle !== 'none' && parseFloat(s.outlineWidth) >= 2,"
         " version: window.table.view.version,"
         " over: Boolean(window.table.view.outcome),"
         " mine: window.table.view.legal.length > 0 &&"
         " !document.body.classList.contains('sending')}; })()")


def test_a_seat_played_from_start_to_end_by_keyboard_alone(browser):
    """Tab to a card, Enter or Space to play it, every focus visible; after a choice the focus
    stays where the play is (the next choice, else the prompt), so the next turn needs no trip
    back through the page; at the end, Tab reaches the review's link and Play again, and Enter
    deals again. Mission 22: the super card, goal and number cards, actions, take-backs."""
    table = TableProcess("22", "--humans", "1", "--pace", "0", "--seed", "3")
    context = browser.new_context(viewport=PHONE)
    try:
        page = open_seat(context, table.links[0])
        page.locator("body").focus()
        keys, choices, tabs_at_turn = ["Enter", "Space"], 0, []
        deadline = time.monotonic() + 180
        while True:
            assert time.monotonic() < deadline, "the game did not end"
            seen = state(page, FOCUS)
            if seen["over"]:
                break
            if not seen["mine"]:  # not our turn, or our last choice is still being sent
                time.sleep(0.05)
                continue
            tabs = 0
            while not seen["choice"]:  # Tab on to a choice (past the prompt, if it has the focus)
                page.keyboard.press("Tab")
                tabs += 1
                seen = state(page, FOCUS)
                assert tabs < 30, f"no choice is reachable with Tab: {seen}"
            tabs_at_turn.append(tabs)
            assert seen["ring"], f"the focus cannot be seen on {seen}"
            page.keyboard.press(keys[choices % 2])
            choices += 1
            wait_for(page, f"window.table.view.version > {seen['version']}", timeout=10_000)
        assert choices >= 8
        # The first choice needs a few Tabs from the top of the page; after that, the focus
        # is already on a choice or on the prompt, one Tab before the first card.
        assert max(tabs_at_turn[1:]) <= 1, tabs_at_turn
        found = []
        for _ in range(30):  # on to the review's link and Play again, each focus visible
            page.keyboard.press("Tab")
            seen = state(page, FOCUS)
            if (seen["tag"] == "a" and "review" in seen["cls"]) or "again" in seen["cls"]:
                assert seen["ring"], seen
                found.append(seen["tag"])
            if "again" in seen["cls"]:
                break
        assert found == ["a", "button"], found
        page.keyboard.press("Enter")
        wait_for(page, "window.table.view.table.game === 2 && !window.table.view.outcome")
    finally:
        context.close()
        table.stop()


def test_the_host_deals_the_same_cards_again_from_the_host_page(browser):
    """A rematch with the same deal, clicked on the host's page: every seat's cards are the
    first game's, at the same links."""
    from support.tables import game_table, people, played, serving

    table = game_table("5", people(3), seed=61)
    first = {seat: table.view(seat)["hand"] for seat in range(3)}
    goals = {seat: table.view(seat)["goal_hand"] for seat in range(3)}
    played(table)
    with serving(table) as (client, _):
        base = f"http://127.0.0.1:{client.port}"
        context = browser.new_context(viewport=LAPTOP)
        try:
            host = context.new_page()
            host.goto(f"{base}/host/{table.host}")
            wait_for(host, "window.host && window.host.view && window.host.view.over")
            host.get_by_role("button", name="Rematch: the same deal").click()
            wait_for(host, "window.host.view.table.game === 2 && !window.host.view.over")
            seat = open_seat(context, f"{base}/seat/{table.keys[1]}")
            shown = json.loads(state(seat, "JSON.stringify(window.table.view.hand)"))
            assert shown == first[1]
            assert seat.locator("#hand .card").count() == len(first[1])
        finally:
            context.close()
        assert {s: client.view(table.keys[s])[1]["hand"] for s in range(3)} == first
        assert {s: client.view(table.keys[s])[1]["goal_hand"] for s in range(3)} == goals
