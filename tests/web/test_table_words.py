"""The table's words: one glossary per language (cardtext.glossary) shared with the printed kit,
counts said with their language's plural rules, the referee's words and the outcome in each
of the page's languages, action cards' changes in the round table's arithmetic, the icon."""

from __future__ import annotations

import json

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


def test_the_seat_page_links_the_icon_and_reads_the_words_it_is_given():
    from synergy_forge.table.server import ASSETS

    page = ASSETS.response("index.html").body.decode()
    assert '<link rel="icon" href="/favicon.ico"' in page
    assert json.loads(json.dumps(words()))["fr"]["referee"] == "Les mots de l'arbitre"


def test_the_seat_page_is_titled_with_the_campaign_s_name():
    """Issue 43: the pages named no campaign (the studio its folder's). The table's mission
    card carries its campaign's name in each language; the page puts it in its title."""
    from synergy_forge.authoring.definitions import standard_actions
    from synergy_forge.table.model import GameTable
    from synergy_forge.table.server import ASSETS

    found = mission_file("1", lambda line: None)
    assert found.name["en"] == "Starter campaign" and found.name["fr"]
    table = GameTable(found.mission, found.rulebook, found.colors, 3, 1,
                      ["person", "greedy", "greedy"], actions=standard_actions(),
                      campaign=found.name)
    try:
        assert table.view(0)["table"]["mission"]["campaign"] == dict(found.name)
    finally:
        table.stop()
    script = ASSETS.response("table.js").body.decode()
    assert 'localized(m.campaign) || t("page-title")' in script
