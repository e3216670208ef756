"""The table's words: one glossary per language (cardtext.glossary) shared with the printed kit,
counts said with their language's plural rules, the referee's words and the outcome in each
of the page's languages, action cards' changes in the round table's arithmetic, the icon."""

from __future__ import annotations

import re

import pytest
from support.tables import game_table, serving

from synergy_forge.cardtext.glossary import stray_terms, term
from synergy_forge.cardtext.i18n import Translator
from synergy_forge.core.engine import Game
from synergy_forge.sim.play import play
from synergy_forge.table.view import outcome, round_summary
from synergy_forge.table.words import words
from synergy_forge.workspace.play import mission_file


def _texts(table: dict) -> list[str]:
    found = []
    for value in table.values():
        if isinstance(value, str):
            found.append(value)
        elif isinstance(value, dict):
            found += [v for k, v in value.items() if k != "count"]
    return found


def test_the_french_table_says_what_the_kit_says_one_term_per_concept():
    """Issue 43: "number card" was "carte nombre" at the table, "carte numérotée" in the kit;
    a person at the table was "personne", which reads "nobody"."""
    french = words()["fr"]
    assert stray_terms(_texts(french), "fr") == []
    assert french["person"] == term("player", "fr") == "joueur ou joueuse"
    assert words()["en"]["person"] == "player"


def test_the_kit_s_french_catalog_keeps_to_the_glossary():
    from babel.messages.pofile import read_po

    from synergy_forge.cardtext.i18n import LOCALE_DIR

    with open(LOCALE_DIR / "fr" / "LC_MESSAGES" / "messages.po", "rb") as handle:
        catalog = read_po(handle, locale="fr")
    texts = [s for m in catalog if m.id
             for s in (m.string if isinstance(m.string, tuple) else (m.string,))]
    assert len(texts) > 100 and stray_terms(texts, "fr") == []


@pytest.mark.parametrize(("language", "key", "count", "said"), [
    ("en", "n-lives-left", 1, "1 life left"), ("en", "n-lives-left", 2, "2 lives left"),
    ("en", "n-lives-left", 0, "0 lives left"), ("fr", "n-lives-left", 0, "0 vie restante"),
    ("fr", "n-lives-left", 2, "2 vies restantes"), ("en", "n-goals", 1, "1 goal card"),
    ("fr", "n-numbers", 3, "3 cartes numérotées"),
])
def test_counts_are_said_with_the_language_s_plural_rules(language, key, count, said):
    """Issue 43: "1 lives left", "1 goals". A word with a count holds its forms from the
    catalog (ngettext); the page picks one with Intl.PluralRules, whose "one" is n == 1 in
    English and n in (0, 1) in French, as the catalog's Plural-Forms say."""
    entry = words()[language][key]
    form = "one" if (count == 1 if language == "en" else count in (0, 1)) else "other"
    params = {"lives": count, "n": count}
    assert entry[form].format(**params) == said
    translator = Translator(language)
    assert translator.ngettext("{lives} life left", "{lives} lives left", count).format(
        lives=count) == said or key != "n-lives-left"


def _finished(mission: str, players: int, seed: int) -> Game:
    found = mission_file(mission, lambda line: None)
    game = Game(found.mission, players, seed, found.rulebook, found.colors)
    play(game, ["greedy"] * players)
    return game


def test_the_referee_s_words_and_the_outcome_are_in_each_of_the_page_s_languages():
    """Issue 43: the referee's words and the API's outcome text were English only."""
    game = _finished("24", 4, 3)  # goals passed right, an odd second card, action cards
    rounds = [round_summary(game, record) for record in game.history]
    ended = outcome(game)
    assert ended is not None and set(ended["texts"]) == {"en", "fr"}
    assert ended["texts"]["en"] == ended["text"]  # `play` says the same
    assert ended["texts"]["fr"].startswith(("Gagnée", "Perdue\u202f: "))  # typeset
    for summary in rounds:
        assert summary["texts"]["en"] == summary["text"]
        french = summary["texts"]["fr"]
        assert french.startswith(f"Manche {summary['round']}\n")
        assert "place 0" in french and "seat " not in french and " goal " not in french
        assert "passe à droite" in french and stray_terms([french], "fr") == []


def test_an_action_card_s_change_is_in_the_round_table_s_arithmetic():
    """Issue 43: the round table showed "1 + 4" beside a sum of 6 where F added 1 to the
    first card; each seat's cards now come with their values after the actions."""
    for seed in range(1, 60):
        game = _finished("12", 3, seed)  # Stairway: F, plus one
        for record in game.history:
            for seat in round_summary(game, record)["seats"]:
                if seat["first_effective"] != seat["first"]["value"]:
                    assert seat["first_effective"] == seat["first"]["value"] + 1
                    if seat["counted"]:
                        assert seat["sum"] == seat["first_effective"] + \
                            seat["second_effective"]
                    return
    pytest.fail("no F card used in 59 games")


def test_the_table_answers_the_icon_browsers_ask_for():
    """Issue 43: /favicon.ico was a 404 on every page."""
    with serving(game_table("1", ["person", "greedy", "greedy"])) as (client, _):
        status, headers, data = client.request("GET", "/favicon.ico")
    assert status == 200 and headers["content-type"] == "image/svg+xml"
    assert data.startswith(b"<svg")


@pytest.mark.parametrize("name", ["index.html", "host.html"])
def test_every_page_links_the_icon_and_loads_the_shared_script_first(name):
    """Issue 43: the host's page had no icon; its head repeated the seat page's. Both are
    the shared head (static/page.html) and their own body, with no inline script (CSP)."""
    from synergy_forge.table.server import PAGES, page_html

    page = page_html(name).decode()
    assert '<link rel="icon" href="/favicon.ico"' in page
    assert re.findall(r"<script[^>]*>", page) == [
        '<script src="/static/page.js" defer>', f'<script src="/static/{PAGES[name][0]}" defer>']
    assert page.count("<head>") == page.count("<header>") == page.count("<main") == 1


def test_the_pages_share_their_helpers_rather_than_repeat_them():
    from importlib.resources import files

    static = files("synergy_forge.table").joinpath("static")
    for name in ("table.js", "host.js"):
        script = static.joinpath(name).read_text(encoding="utf-8")
        for helper in ("el", "t", "localized", "colorName", "setStatus", "refresh", "connect"):
            assert f"function {helper}(" not in script, (name, helper)


def test_a_table_keeps_its_campaign_s_name_through_a_restart(tmp_path):
    """Issue 43: the pages named no campaign (the studio its folder's). The table's mission
    card carries its campaign's name in each language, kept in the table's options so that
    a table resumed from its state file (and its next mission) has it too."""
    from synergy_forge.authoring.definitions import standard_actions
    from synergy_forge.table.model import GameTable
    from synergy_forge.table.session import open_tables
    from synergy_forge.table.store import Store

    found = mission_file("1", lambda line: None)
    assert found.name["en"] == "Starter campaign" and found.name["fr"]
    store = Store(tmp_path / "state.sqlite")
    try:
        table = GameTable(found.mission, found.rulebook, found.colors, 3, 1,
                          ["person", "greedy", "greedy"], actions=standard_actions(),
                          campaign=found.name, store=store)
        assert table.view(0)["table"]["mission"]["campaign"] == dict(found.name)
        table.stop()
        resumed = open_tables(store, None, lambda finished: None, None).resumed
        assert [t.campaign_name for t in resumed] == [dict(found.name)]
        assert resumed[0].view(0)["table"]["mission"]["campaign"] == dict(found.name)
        resumed[0].stop()
    finally:
        store.close()


def test_the_seat_watch_and_host_pages_speak_french_with_the_campaign_s_name(browser):
    """Issue 43, in a browser: every page of the table (a seat's on a phone, the spectators',
    the host's) says the glossary's words and its counts with French plural rules, and is
    titled with the campaign's name."""
    from support.browser import PHONE, wait_for, wider_than_the_screen

    from synergy_forge.authoring.definitions import standard_actions
    from synergy_forge.table.model import GameTable

    found = mission_file("1", lambda line: None)
    name = found.name["fr"]
    table = GameTable(found.mission, found.rulebook, found.colors, 3, 1,
                      ["person", "person", "greedy"], actions=standard_actions(),
                      campaign=found.name, pace=0)
    context = browser.new_context(viewport=PHONE, locale="fr-FR")
    try:
        with serving(table) as (client, _):
            base = f"http://127.0.0.1:{client.port}"
            seat = context.new_page()
            seat.goto(f"{base}/seat/{table.keys[0]}")
            wait_for(seat, "window.table && window.table.updates > 0")
            text = seat.locator("body").inner_text()
            assert seat.title().endswith(" · " + name), seat.title()
            assert "joueur ou joueuse" in text and not re.search(r"(?<![’'a-z])personne\b", text)
            assert re.search(r"\d sur \d vies?\b", text) and "en main\u202f: " in text
            assert wider_than_the_screen(seat) == []
            watch = context.new_page()
            watch.goto(f"{base}/watch/{table.watch}")
            wait_for(watch, "window.table && window.table.updates > 0")
            assert watch.title().endswith(" · " + name) and "Spectateur" in \
                watch.locator("body").inner_text()
            assert wider_than_the_screen(watch) == []
            host = context.new_page()
            host.goto(f"{base}/host/{table.host}")
            wait_for(host, "window.host && window.host.updates > 0")
            wait_for(host, "document.body.innerText.includes('page ouverte')")
            text = host.locator("body").inner_text()
            assert host.title().startswith("Hôte\u202f: ") and host.title().endswith(" · " + name)
            assert re.search(r"Partie 1, manche 1\u202f: \d sur \d vies?, \d sur \d manches? "
                             r"gagnées?", text), text
            assert "en ligne (1 page ouverte)" in text and "son joueur ou sa joueuse" in text
            assert host.evaluate("document.querySelector('link[rel=icon]').href") == \
                f"{base}/favicon.ico"
    finally:
        context.close()


def _strings(value) -> list[str]:
    """Every text of a nested words table (a word with a count: each of its forms)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for key, inner in value.items() if key != "count" for s in _strings(inner)]
    return []


#: A colon, semicolon, exclamation or question mark after a plain space (which may break the
#: line before it) or after no space at all; 10:30 and https:// are no punctuation.
_PLAIN_BEFORE_HIGH = re.compile(r"(?:^|[^\u202f\u00a0])[;:!?](?![\d/])")


def test_the_table_s_french_has_a_no_break_space_before_high_punctuation():
    """The review page's own French ("Revue : mission", "l'expert : ...") had plain spaces
    before its colons, where the rest of the table sets a narrow no-break space (typeset)."""
    from synergy_forge.table.server import _reviewing

    assert _PLAIN_BEFORE_HIGH.search("Revue : mission") and \
        _PLAIN_BEFORE_HIGH.search("Revue: mission") and \
        not _PLAIN_BEFORE_HIGH.search("Revue\u202f: à 10:30, https://x")
    french = _strings(words()["fr"])
    assert len(french) > 150 and "review-page" in words()["fr"]
    french += [_reviewing("fr", 3, 5, None), _reviewing("fr", 3, 5, "E")]
    assert [text for text in french if _PLAIN_BEFORE_HIGH.search(text)] == []
