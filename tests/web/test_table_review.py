"""The review of a table's finished game (docs/table.md, "The review"): `GET /api/review/TOKEN`
from any of the table's links and its page, in English and French, refused before the end;
and `replay LOG --review` from the game's log, the same review."""

from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time
from html import escape

import pytest
from support.tables import first_legal, game_table, people, play_randomly, played, serving

from synergy_forge.authoring.gamelog import write_log
from synergy_forge.reporting.review import review_records
from synergy_forge.table.review import NoReview, review_of
from synergy_forge.table.session import resume
from synergy_forge.table.store import Store

SEED = 4_121


@pytest.mark.slow
def test_the_review_of_a_finished_game_from_every_link_and_the_same_from_its_log(tmp_path):
    table = game_table("1", people(3), seed=SEED, options={"review_rollouts": 4})
    with serving(table) as (client, _):
        token = table.keys[0]
        status, _, refused = client.request("GET", f"/api/review/{token}")
        assert status == 409 and b"over" in refused  # not before the end
        play_randomly(client, table, random.Random(1))
        assert table.game.over
        deadline = time.monotonic() + 240
        while True:
            status, _, raw = client.request("GET", f"/api/review/{table.watch}")
            data = json.loads(raw)
            assert status == 200, data
            if data["ready"]:
                break
            assert 0 <= data["done"] <= data["total"]
            assert time.monotonic() < deadline, "the review never came"
            time.sleep(0.5)
        decisions = [r for r in table.records if r["type"] == "decision"]
        assert [(d["seat"], d["choice"]) for d in data["decisions"]] == \
            [(d["seat"], d["choice"]) for d in decisions]
        for item in data["decisions"]:
            assert 0 <= item["win_before"] <= 1 and 0 <= item["win_after"] <= 1
            assert item["by"] == "person"
        # Every link of the table gives the same review; a token of no table, none.
        for link in (table.host, table.keys[2]):
            same = json.loads(client.request("GET", f"/api/review/{link}")[2])
            assert same["decisions"] == data["decisions"]
        assert client.request("GET", "/api/review/nothing-here")[0] == 404
        status, _, page = client.request("GET", f"/review/{token}?lang=fr")
        assert status == 200 and b"<svg" in page and b'lang="fr"' in page
        # Its words are the table's, as /api/words serves them to the other pages.
        served = json.loads(client.request("GET", "/api/words")[2])
        for key in ("costliest", "decisions", "before", "after"):
            assert escape(served["fr"]["review-page"][key]).encode() in page
        assert served["en"]["review-page"]["costliest"] == "The costliest decisions"
        assert b"<script" not in page and b"style=" not in page  # the CSP allows neither
        # Cards in words ("rouge 3"), not in the notation of the JSON ("red:3").
        assert not re.search(rb">[a-z]+:[a-z0-9-]+<", page) and b"rouge" in page
        status, _, page = client.request("GET", f"/review/{token}",
                                         headers={"accept-language": "en-GB,en"})
        assert status == 200 and b"The costliest decisions" in page
        assert client.request("GET", "/static/review.css")[0] == 200
    log = tmp_path / "game.jsonl"
    log.write_text(write_log(table.records), encoding="utf-8")
    done = subprocess.run([sys.executable, "-m", "synergy_forge", "replay", str(log), "--review",
                           "--rollouts", "4", "--json"], capture_output=True, text=True,
                          timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    from_log = json.loads(done.stdout)
    assert from_log["decisions"] == data["decisions"]  # the table's review: seed 0 both
    assert "replayed" in done.stderr


def test_a_table_reviews_each_step_during_play_keeps_it_and_is_ready_soon_after_the_end(
        tmp_path):
    """Each complete step is reviewed while the game goes on (table/review.py), each decision
    kept in the state file as it is reviewed; a table resumed from the file does not review
    them again; nothing is shown before the end; the review at the end is the log's."""
    path = tmp_path / "state.sqlite3"
    store = Store(path)
    table = game_table("5", people(3), seed=SEED, store=store, options={"review_rollouts": 4})
    for _ in range(7):
        first_legal(table)
    job = table.review
    assert job is not None and job.total >= 7
    _wait(lambda: job.done == job.total)
    with pytest.raises(NoReview):  # during the game, nothing of it
        review_of(table)
    kept = store.reviews(table.id, 1, job.settings)
    assert [k["index"] for k in kept] == list(range(job.total))
    table.stop()
    store.close()

    again = Store(path)
    [row] = again.open_tables()
    resumed = resume(again, row)
    assert resumed.review is not None and resumed.review.reviewed == job.reviewed
    records = played(resumed)
    reviewing = review_of(resumed)
    _wait(lambda: reviewing.result is not None or reviewing.error is not None)
    assert reviewing.error is None and reviewing.seconds is not None
    assert reviewing.result.review == review_records(records, 4, 0).review
    resumed.end()
    again.close()


def _wait(condition, seconds: float = 240) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "the review never came"
        time.sleep(0.05)


def _reviewed_game(mission: str, players: int, seed: int):
    """A game of `mission` played by random bots, reviewed with made-up chances (what the
    review's words say does not depend on them), the first three decisions marked."""
    from synergy_forge.core.engine import Game
    from synergy_forge.reporting.review import GameReview
    from synergy_forge.sim.bots import make_bot
    from synergy_forge.sim.review import Review, Reviewed
    from synergy_forge.workspace.play import mission_file

    found = mission_file(mission, lambda line: None)
    game = Game(found.mission, players, seed, found.rulebook, found.colors)
    playing, items = game.copy(), []
    bots = [make_bot("random", seed, seat) for seat in range(players)]
    while not playing.over:
        step = [(d, bots[d.seat].choose(playing.observe(d.seat), d)) for d in playing.pending()]
        for decision, choice in step:
            index = len(items)
            items.append(Reviewed(index, playing.round_number, decision.seat, decision.kind, choice,
                                  decision.choices[0], 0.8, 0.6 if index < 3 else 0.8, 10,
                                  0.1, 0.1, 0.05, marked=index < 3))
        playing.apply([choice for _, choice in step])
    return GameReview(Review(tuple(items), 10, 0, playing.outcome.won), game,
                      ("person",) * len(items))


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_review_names_cards_and_actions_as_the_seat_page_does(language):
    """The review listed each choice in the log's notation ("red:3", "F.target=2") in French
    too: its page and `replay --review`'s text now name them in their language, as the seat
    page does (a number card by colour and value, a goal card by its goal's printed name, an
    action card by its letter and name, then what it does); its JSON keeps the notation."""
    from synergy_forge.authoring.definitions import standard_actions
    from synergy_forge.cardtext.i18n import Translator
    from synergy_forge.core.actions import ActionUse
    from synergy_forge.core.cards import GoalCard, NumberCard
    from synergy_forge.core.choices import choice_text
    from synergy_forge.reporting.review import html, review_to_json, text
    from synergy_forge.table.words import words

    for seed in range(1, 40):  # a game where some seat used an action card
        reviewed = _reviewed_game("22", 4, seed)  # the super card, goals, action H
        uses = [r.choice for r in reviewed.review.decisions if isinstance(r.choice, ActionUse)]
        if uses:
            break
    else:
        pytest.fail("no action card used in 39 games")
    said, page = text(reviewed, language).text, html(reviewed, language).text
    served = words()[language]
    colour = Translator(language).gettext
    game = reviewed.game
    for item in reviewed.review.decisions:
        notation = choice_text(item.choice)
        choice = item.choice
        if isinstance(choice, NumberCard):
            named = f"{colour(choice.color)} {choice.value}"
        elif isinstance(choice, GoalCard):
            named = f"{colour(choice.color)} {game.rulebook.goal(choice.goal).label(language)}"
        elif isinstance(choice, ActionUse):
            named = f"{choice.card} ({standard_actions()[choice.card].label(language)})" + \
                served["colon"] + served[f"action-{choice.card}"].split("{")[0]
        elif choice is None:
            named = served["no-action"]
        else:
            named = served["seat"].format(seat=choice)
        assert named in said and escape(named) in page, (notation, named)
    for notation in {choice_text(r.choice) for r in reviewed.review.decisions}:
        if re.search(r"[:=]|^seat|^none$", notation):  # "H" alone is also the card's letter
            assert f" {notation} " not in said and f">{notation}<" not in page
    assert not re.search(r"\b(red|yellow|green|blue|purple):", said + page)
    data = review_to_json(reviewed)
    assert [d["text"] for d in data["decisions"]] == \
        [choice_text(r.choice) for r in reviewed.review.decisions]
    if language == "fr":
        assert "Les décisions les plus coûteuses\u202f:" in said
        assert re.search(r"\d\u00a0% ±\d", said) and "Revue\u202f: mission" in page


#: Each label of the chart shown (one of two: a phone's, a wider screen's): its size on the
#: screen in CSS pixels (its font size times the drawing's scale) and whether it lies inside
#: the chart (a label cut at its edge cannot be read).
CHART_LABELS = """() => {
    const shown = [...document.querySelectorAll("svg.chart")]
        .filter((svg) => getComputedStyle(svg).display !== "none");
    return shown.map((svg) => {
        const box = svg.getBoundingClientRect();
        return [...svg.querySelectorAll("text")].map((t) => {
            const at = t.getBoundingClientRect();
            return {text: t.textContent,
                    px: parseFloat(getComputedStyle(t).fontSize) * svg.getScreenCTM().a,
                    inside: at.left >= box.left - 0.5 && at.right <= box.right + 0.5};
        });
    });
}"""


@pytest.mark.parametrize("language", ["en", "fr"])
def test_the_review_chart_s_labels_are_readable_on_a_phone_and_a_laptop(browser, language):
    """The chart's labels were 6 px on a 390 px phone (a 720-unit drawing at half scale); a
    phone now has a chart drawn for its width, its labels 12 CSS px or more and inside it,
    and the laptop's is as it was; the page is no wider than either screen."""
    from support.browser import LAPTOP, PHONE, wider_than_the_screen

    from synergy_forge.reporting.review import html

    page_html = html(_reviewed_game("22", 4, 1), language).text
    context = browser.new_context(viewport=PHONE)
    try:
        page = context.new_page()
        page.set_content(page_html)
        for screen, least in ((PHONE, 12), (LAPTOP, 12)):
            assert wider_than_the_screen(page, screen) == []
            [labels] = page.evaluate(CHART_LABELS)
            assert len(labels) >= 8  # the percentages and the rounds
            assert [label for label in labels if label["px"] < least] == [], screen
            assert [label for label in labels if not label["inside"]] == [], screen
    finally:
        context.close()
