"""The table's JSON API (docs/table.md), spoken to over HTTP as a community bot would: the
seat's view, choices (legal, illegal, stale, malformed), tokens, the defences, the log."""

from __future__ import annotations

import json
import random
import secrets
import threading
import time

import pytest
from support.tables import game_table, leaks, people, play_randomly, serving

from synergy_forge.authoring.gamelog import replay, write_log
from synergy_forge.core.engine import Game
from synergy_forge.table.view import PERSON

SEED = 7_291_804_553_117


def test_the_view_holds_what_the_issue_lists():
    table = game_table("5", people(3), seed=SEED)
    with serving(table) as (client, _):
        status, view, _ = client.view(table.tokens[1])
    assert status == 200
    assert view["seat"] == 1 and view["color"] == "yellow" and view["outcome"] is None
    assert len(view["hand"]) == 6 and len(view["goal_hand"]) == 4  # mission 5 deals 6 + 4
    assert all(set(c) == {"kind", "color", "value"} and c["color"] == "yellow"
               for c in view["hand"] + view["goal_hand"])
    assert view["legal"] and all(isinstance(item["id"], str) for item in view["legal"])
    assert {item["card"]["value"] for item in view["legal"]} == \
        {c["value"] for c in view["hand"]}  # any first number card
    table_view = view["table"]
    assert table_view["mission"]["title"] == {"en": "Short hand", "fr": "Main réduite"}
    assert table_view["lives"] == 3 and table_view["round"] == 1
    assert [s["player"] for s in table_view["seats"]] == ["person"] * 3
    assert table_view["step"] == {"kind": "first-number", "seats": [0, 1, 2]}


def test_no_response_to_a_seat_holds_another_seats_hidden_card():
    """Mission 5 deals 6 of 10 number cards and 4 of 7 goal cards: the rest of each hand is
    known to nobody else, and must reach no other seat, in any response or event."""
    table = game_table("5", people(3), seed=SEED)
    game = table.game
    found: list[str] = []
    streamed: list[str] = []
    with serving(table) as (client, _):
        # The check can fail: a seat's own view does hold its hidden cards.
        _, own, raw = client.view(table.tokens[1])
        assert leaks(game, 0, own, raw.decode()), "the leak check finds nothing to find"

        def listen() -> None:
            import http.client

            connection = http.client.HTTPConnection("127.0.0.1", client.port, timeout=30)
            connection.request("GET", f"/api/seat/{table.tokens[0]}/events")
            response = connection.getresponse()
            for line in response:
                if line.startswith(b"data: "):
                    streamed.append(line[6:].decode())
                    if json.loads(line[6:])["outcome"] is not None:
                        break
            connection.close()

        reader = threading.Thread(target=listen, daemon=True)
        reader.start()
        deadline = time.monotonic() + 10
        while not streamed:  # its first event, the view on connecting: it sees every change
            assert time.monotonic() < deadline and reader.is_alive(), "no event streamed"
            time.sleep(0.01)
        play_randomly(client, table, random.Random(5),
                      lambda seat, data, text: found.extend(leaks(game, seat, data, text)))
        reader.join(timeout=20)
    assert not found, found[:5]
    assert len(streamed) > 5  # one event per change, the last with the outcome
    # What is still hidden at the end was hidden all along: no event of seat 0 held it.
    for text in streamed:
        assert not leaks(game, 0, json.loads(text), text)
    # Nor the seed, anywhere.
    assert str(SEED) not in "".join(streamed)


def test_three_people_finish_and_the_log_replays():
    table = game_table("22", people(3), seed=11)
    with serving(table) as (client, _):
        last = play_randomly(client, table, random.Random(2))
    outcomes = [view["outcome"] for view in last.values()]
    assert outcomes[0] is not None and outcomes.count(outcomes[0]) == 3
    assert all(view["legal"] == [] for view in last.values())
    assert table.records is not None
    assert table.records[0]["bots"] == [PERSON] * 3  # the header says who played
    replayed = replay(write_log(table.records).splitlines())
    assert replayed.outcome == table.game.outcome
    assert outcomes[0]["rounds_played"] == table.game.outcome.rounds_played


def test_one_person_and_two_bots_finish():
    table = game_table("12", [PERSON, "coop", "coop"], seed=3)
    with serving(table) as (client, _):
        last = play_randomly(client, table, random.Random(1))
    assert last[0]["outcome"] is not None
    assert table.records is not None and table.records[0]["bots"] == [PERSON, "coop", "coop"]
    assert replay(write_log(table.records).splitlines()).outcome == table.game.outcome
    seats = last[0]["table"]["seats"]
    assert [(s["player"], s["bot"]) for s in seats] == [("person", None), ("bot", "coop"),
                                                        ("bot", "coop")]


@pytest.mark.parametrize("token", ["", "x", "0" * 32, "../../etc/passwd", "%2e%2e"])
def test_a_wrong_token_is_refused_everywhere(token):
    table = game_table("5", people(3))
    with serving(table) as (client, _):
        real = table.tokens[0]
        for wrong in {token, real[:-1], real + "x", real.upper()} - {real}:
            for method, path in (("GET", f"/seat/{wrong}"), ("GET", f"/api/seat/{wrong}"),
                                 ("GET", f"/api/seat/{wrong}/events"),
                                 ("POST", f"/api/seat/{wrong}/choose")):
                status, _, body = client.request(method, path, b'{"choice": "x"}',
                                                 {"content-type": "application/json"})
                assert status in (403, 404), (method, path, status)
                assert b"yellow" not in body and b"red" not in body
        assert table.changes.version == 0  # nothing changed


def test_an_illegal_choice_is_refused_and_changes_nothing():
    table = game_table("5", people(3), seed=SEED)
    with serving(table) as (client, _):
        token = table.tokens[0]
        _, before, raw = client.view(token)
        # Not a card, another seat's card, a later step's, a later round's, a card not held.
        held = {c["value"] for c in before["hand"]}
        absent = next((v for v in range(1, 6) if v not in held), 9)
        for choice in ("1.first-number.red-9", "1.first-number.yellow-1",
                       f"1.first-number.red-{absent}", "1.goal.red-equal",
                       "2.first-number.red-1", "1.take-back.red-1"):
            status, data, _ = client.choose(token, choice)
            assert status == 409, (choice, status)
            assert "not a legal choice" in data["error"]
        raw_after = client.view(token)[2]
        assert raw_after == raw and table.changes.version == 0
        assert table.recorder.records[1:] == []


def test_stale_choices_are_refused():
    table = game_table("5", people(3), seed=SEED)
    with serving(table) as (client, _):
        tokens = table.tokens
        _, view, _ = client.view(tokens[0])
        first = view["legal"][0]["id"]
        assert client.choose(tokens[0], first)[0] == 200
        # Chosen already (face down, waiting for the others): the same again, or another.
        status, data, _ = client.choose(tokens[0], first)
        assert status == 409 and "already chosen" in data["error"]
        status, again, _ = client.view(tokens[0])
        assert again["legal"] == [] and again["laid"]["id"] == first
        for seat in (1, 2):
            client.choose(tokens[seat], client.view(tokens[seat])[1]["legal"][0]["id"])
        # The step moved on (goal cards now): the old id is stale.
        _, view, _ = client.view(tokens[0])
        assert view["decision"] == "goal"
        version = table.changes.version
        status, data, _ = client.choose(tokens[0], first)
        assert status == 409 and table.changes.version == version
        assert "made for round 1, step 0, and the game is now at round 1, step 1" in \
            data["error"]


@pytest.mark.parametrize("body, kind, status", [
    (b"not json", "application/json", 422),
    (b"[1, 2]", "application/json", 422),
    (b'{"pick": "x"}', "application/json", 422),
    (b'{"choice": 3}', "application/json", 422),
    (b'{"choice": ""}', "application/json", 422),
    (b'{"choice": null}', "application/json", 422),
    (b"\xff\xfe", "application/json", 422),
    (b'{"choice": "1.first-number.red-1"}', "text/plain", 415),
    (b'{"choice": "' + b"x" * 2000 + b'"}', "application/json", 413),
])
def test_malformed_choices_are_refused(body, kind, status):
    table = game_table("5", people(3), seed=SEED)
    with serving(table) as (client, _):
        got, _, data = client.request("POST", f"/api/seat/{table.tokens[0]}/choose", body,
                                      {"content-type": kind})
        assert got == status
        assert "error" in json.loads(data)
        assert table.changes.version == 0


def test_not_this_seats_turn():
    table = game_table("12", people(3), seed=4)  # actions: seats act one by one
    with serving(table) as (client, _):
        for _ in range(20):
            views = {s: client.view(t)[1] for s, t in table.tokens.items()}
            if views[0]["table"]["step"]["kind"] == "action":
                break
            for seat, view in views.items():
                if view["legal"]:
                    client.choose(table.tokens[seat], view["legal"][0]["id"])
        acting = views[0]["table"]["step"]["seats"]
        idle = next(s for s in range(3) if s not in acting)
        assert views[idle]["legal"] == []
        status, data, _ = client.choose(table.tokens[idle], "1.action.none")
        assert status == 409 and "not your turn" in data["error"]


def test_host_header_csp_and_no_caching():
    table = game_table("5", people(3))
    with serving(table) as (client, _):
        token = table.tokens[0]
        status, _, _ = client.request("GET", f"/api/seat/{token}",
                                      headers={"host": "evil.example"})
        assert status == 400
        for path in (f"/seat/{token}", f"/api/seat/{token}", "/static/table.js", "/nope"):
            status, headers, _ = client.request("GET", path)
            policy = headers["content-security-policy"]
            assert "default-src 'none'" in policy and "script-src 'self'" in policy
            assert "unsafe" not in policy
            assert headers["referrer-policy"] == "no-referrer"
        assert client.request("GET", f"/api/seat/{token}")[1]["cache-control"] == "no-store"
        # Nothing lists the seats.
        for path in ("/", "/seat/", "/api/seat/", "/api/seats", "/static/index.html"):
            assert client.request("GET", path)[0] == 404


def test_requests_are_rate_limited(monkeypatch):
    from synergy_forge.web.server import RateLimit

    # The buckets' clock stopped: on a loaded machine 80 requests could take long enough for
    # a bucket to fill again between them, and none be refused.
    monkeypatch.setattr(RateLimit, "clock", staticmethod(lambda: 1000.0))
    table = game_table("5", people(3))
    with serving(table) as (client, _):
        token = table.tokens[0]
        statuses = [client.request("GET", f"/api/seat/{token}")[0] for _ in range(80)]
        assert 429 in statuses and statuses[0] == 200
        # Another seat is not slowed by this one.
        assert client.request("GET", f"/api/seat/{table.tokens[1]}")[0] == 200
        strangers = [client.request("GET", f"/api/seat/{secrets.token_urlsafe(24)}")[0]
                     for _ in range(40)]
        assert set(strangers) == {404, 429}


def test_no_endpoint_reveals_the_seed():
    table = game_table("5", people(3), seed=SEED)
    with serving(table) as (client, _):
        token = table.tokens[0]
        texts = [client.request("GET", path)[2] for path in
                 (f"/seat/{token}", f"/api/seat/{token}", "/api/words", "/static/table.js")]
        play_randomly(client, table, random.Random(3),
                      lambda seat, data, text: texts.append(text.encode()))
    assert not any(str(SEED).encode() in text for text in texts)
    assert not any(b'"seed"' in text for text in texts)


def test_the_bot_in_the_docs_plays_a_seat_to_the_end(tmp_path):
    import re
    import subprocess
    import sys
    from pathlib import Path

    docs = (Path(__file__).resolve().parents[2] / "docs" / "table.md").read_text()
    code = re.search(r"### A bot of your own\n\n```python\n(.*?)```", docs, re.DOTALL).group(1)
    # Its pause while others play suits people at a table; this table's bots play at once
    # (pace 0), so the script pauses a fifth as long: 10 requests a second at most, within
    # the seat's rate. Everything else runs as the docs print it.
    assert "time.sleep(0.5)" in code
    code = code.replace("time.sleep(0.5)", "time.sleep(0.1)")
    table = game_table("5", [PERSON, "coop", "coop"], seed=2)
    with serving(table) as (client, _):
        script = code.replace("http://127.0.0.1:8766/api/seat/TOKEN",
                              f"http://127.0.0.1:{client.port}/api/seat/{table.tokens[0]}")
        done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                              timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == table.view(0)["outcome"]["text"]


def test_open_pages_per_seat_are_bounded():
    import http.client

    from synergy_forge.table.server import STREAMS_PER_SEAT
    from synergy_forge.web.server import RECONNECT_MS

    def open_stream(token: str) -> tuple[http.client.HTTPConnection, int]:
        connection = http.client.HTTPConnection("127.0.0.1", client.port, timeout=10)
        connection.request("GET", f"/api/seat/{token}/events")
        response = connection.getresponse()
        if response.status == 200:
            # The page is told to come back a second after a lost stream, not the browsers' 3.
            assert response.readline() == f"retry: {RECONNECT_MS}\n".encode()
            assert response.readline().startswith(b"event: view")
        return connection, response.status

    table = game_table("5", people(3))
    with serving(table) as (client, group):
        token = table.tokens[0]
        streams = [open_stream(token) for _ in range(STREAMS_PER_SEAT)]
        assert all(status == 200 for _, status in streams)
        assert open_stream(token)[1] == 429
        other, status = open_stream(table.tokens[1])  # another seat is not held back
        assert status == 200
        for connection, _ in [*streams, (other, status)]:
            connection.close()
        # Closed pages free their places (noticed at the next keep-alive at the latest).
        deadline = time.monotonic() + 15
        while group.streams and time.monotonic() < deadline:
            time.sleep(0.1)
        assert not group.streams
        assert open_stream(token)[1] == 200


def test_the_same_mission_dealt_again_once_the_game_is_over():
    ended = []
    table = game_table("5", [PERSON, PERSON, "coop"], seed=SEED)
    table.on_end = lambda finished: ended.append(finished.records)
    with serving(table) as (client, _):
        token = table.tokens[0]
        status, _, data = client.request("POST", f"/api/seat/{token}/again")
        assert status == 409 and "not over" in json.loads(data)["error"]
        first = play_randomly(client, table, random.Random(8))
        assert first[0]["outcome"] is not None and len(ended) == 1
        status, _, data = client.request("POST", f"/api/seat/{table.tokens[1]}/again")
        again = json.loads(data)
        assert status == 200 and again["outcome"] is None and again["table"]["game"] == 2
        assert again["table"]["rounds"] == [] and again["version"] > first[1]["version"]
        assert client.view(token)[1]["legal"]  # everyone plays on, same links
        second = play_randomly(client, table, random.Random(9))
        assert second[0]["outcome"] is not None
    assert len(ended) == 2 and ended[0][0]["seed"] != ended[1][0]["seed"]
    for records in ended:  # each game's log replays on its own
        assert replay(write_log(records).splitlines()).outcome is not None


def test_a_choice_of_the_previous_game_is_refused_after_again():
    """After "again" the new game's rounds count from 1 again: an id from a view of the
    previous game names that game, and the engine refuses it (409) every time, even where the
    same card is legal in the new deal, which is the case for each try here."""
    table = game_table("5", people(3), seed=SEED)
    with serving(table) as (client, _):
        token = table.tokens[0]
        for game in range(1, 6):
            old = client.view(token)[1]["legal"][0]
            play_randomly(client, table, random.Random(game))
            # A new deal in which the same card is legal again at the same point.
            table.again(seed=next(s for s in range(100, 1000) if old["card"] in [
                {"kind": "number", "color": c.color, "value": c.value}
                for c in Game(table.game.mission, 3, s, table.game.rulebook,
                              table.game.colors).pending()[0].choices]))
            _, view, raw = client.view(token)
            assert view["table"]["game"] == game + 1
            assert old["card"] in [item["card"] for item in view["legal"]]
            assert old["id"] not in [item["id"] for item in view["legal"]]
            status, data, _ = client.choose(token, old["id"])
            assert status == 409, data
            assert f"made in game {game}, and this is game {game + 1}" in data["error"]
            assert client.view(token)[2] == raw  # refused: nothing changed


def test_a_mission_lost_to_a_challenge_says_which_seat_could_not_keep_it():
    """R9: a seat with no second card that keeps the challenges loses the mission; the
    outcome names it (and only it) for every seat, as a player would say it aloud."""
    for seed in range(40):
        table = game_table("12", people(3), seed=seed)  # Climbing: second card higher (R9)
        rng = random.Random(seed)
        while not table.game.over:
            for seat in range(3):
                view = table.view(seat)
                if view["legal"]:
                    table.choose(seat, rng.choice(view["legal"])["id"])
        result = table.view(0)["outcome"]
        if result["reason"] == "challenge":
            break
    else:
        pytest.fail("no random game of mission 12 was lost to its challenge")
    game = table.game
    assert result["stuck"] and result["stuck"] == [
        seat for seat in range(3) if not game.second_choices(seat)]
    assert all(table.view(seat)["outcome"] == result for seat in range(3))
