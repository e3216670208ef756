"""The review of a table's finished game (docs/table.md, "The review"): `GET /api/review/TOKEN`
from any of the table's links and its page, in English and French, refused before the end;
and `replay LOG --review` from the game's log, the same review."""

from __future__ import annotations

import json
import random
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
