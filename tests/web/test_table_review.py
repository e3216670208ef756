"""The review of a table's finished game (docs/table.md, "The review"): `GET /api/review/TOKEN`
from any of the table's links and its page, in English and French, refused before the end;
and `replay LOG --review` from the game's log, the same review."""

from __future__ import annotations

import json
import random
import subprocess
import sys
import time

import pytest
from support.tables import game_table, people, play_randomly, serving

from synergy_forge.authoring.gamelog import write_log

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
        assert b"Revue" in page
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
