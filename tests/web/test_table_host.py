"""The host's link and the spectators' (docs/table.md): every seat's link and QR code, a seat
handed to a bot and back, someone away played for by a bot, rematches with the same deal or a
new one, the campaign's next mission, the end of the table and of idle tables; spectators who
see no hand before the end and everything after it. Spoken to over HTTP, as the pages do."""

from __future__ import annotations

import gc
import http.client
import json
import random
import shutil
import threading
import time
import weakref

import pytest
from support.tables import game_table, leaks, people, play_randomly, serving

from synergy_forge.authoring.gamelog import replay, write_log
from synergy_forge.resources import starter_campaign
from synergy_forge.table.view import PERSON

SEED = 90_311_577


def wait_until(condition, seconds: float = 30, what: str = "") -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, what or "timed out"
        time.sleep(0.01)


def test_the_host_sees_every_link_and_no_hand():
    table = game_table("5", people(3), seed=SEED)
    game = table.game
    with serving(table) as (client, _):
        status, host = client.get(f"/api/host/{table.host}")
        assert status == 200 and host["host"] is True
        base = f"http://127.0.0.1:{client.port}"
        assert [s["link"] for s in host["seats"]] == \
            [f"{base}/seat/{table.keys[seat]}" for seat in range(3)]
        assert host["watch"]["link"] == f"{base}/watch/{table.watch}"
        assert [(s["player"], s["connected"]) for s in host["seats"]] == [(PERSON, False)] * 3
        # Seen by every seat at once, nothing of a seat's hand is in it during the game.
        found = []
        for _ in range(4):
            raw = client.request("GET", f"/api/host/{table.host}")[2].decode()
            for seat in range(3):
                found += leaks(game, seat, json.loads(raw), raw)
            for seat in range(3):
                legal = client.view(table.keys[seat])[1]["legal"]
                if legal:
                    client.choose(table.keys[seat], legal[0]["id"])
        assert not found, found[:3]
        # A QR code per seat and for the spectators, drawn here for the link itself.
        import io

        import segno

        for name, link in [("seat-1.svg", f"{base}/seat/{table.keys[1]}"),
                           ("watch.svg", f"{base}/watch/{table.watch}")]:
            status, headers, svg = client.request("GET", f"/api/host/{table.host}/qr/{name}")
            drawn = io.BytesIO()
            segno.make(link, error="m").save(drawn, kind="svg", scale=4, border=2,
                                             xmldecl=False)
            assert status == 200 and headers["content-type"] == "image/svg+xml"
            assert svg == drawn.getvalue()
        assert client.request("GET", f"/api/host/{table.host}/qr/seat-9.svg")[0] == 404
        # Each kind of link opens only its own door.
        for path in (f"/api/host/{table.keys[0]}", f"/api/watch/{table.host}",
                     f"/api/seat/{table.watch}", f"/api/host/{table.watch}"):
            assert client.request("GET", path)[0] == 404, path


def test_who_is_connected_is_seen_by_the_host_and_the_table():
    table = game_table("5", people(3), seed=SEED)
    with serving(table) as (client, _):
        connection = http.client.HTTPConnection("127.0.0.1", client.port, timeout=10)
        connection.request("GET", f"/api/seat/{table.keys[2]}/events")
        response = connection.getresponse()
        assert response.status == 200
        wait_until(lambda: client.get(f"/api/host/{table.host}")[1]["seats"][2]["connected"])
        assert client.view(table.keys[0])[1]["table"]["seats"][2]["connected"] is True
        connection.close()
        # The page closed: noticed at the stream's next keep-alive at the latest.
        wait_until(lambda: not client.get(f"/api/host/{table.host}")[1]["seats"][2]["connected"],
                   20)


def test_a_seat_handed_to_a_bot_and_back():
    table = game_table("12", people(3), seed=SEED)
    with serving(table) as (client, _):
        host = f"/api/host/{table.host}"
        # A round by people, then seat 1 to the expert for a while, then back.
        for _ in range(3):
            for seat in range(3):
                legal = client.view(table.keys[seat])[1]["legal"]
                if legal:
                    client.choose(table.keys[seat], legal[0]["id"])
        status, view = client.post(f"{host}/seat/1", {"bot": "expert"})
        assert status == 200 and view["seats"][1]["player"] == "expert"
        _, seat_view, _ = client.view(table.keys[1])
        assert seat_view["player"] == "expert" and seat_view["legal"] == []
        assert seat_view["table"]["seats"][1]["bot"] == "expert"
        handed_at = len(table.recorder.records)
        for _ in range(12):  # seat 1 is the bot's: the others play, it plays by itself
            version = table.changes.version
            for seat in (0, 2):
                legal = client.view(table.keys[seat])[1]["legal"]
                if legal:
                    client.choose(table.keys[seat], legal[0]["id"])
            wait_until(lambda seen=version: table.changes.version != seen or table.game.over
                       or not any(d.seat == 1 for d in table.game.pending()), 10)
        status, refused = client.choose(table.keys[1], "g1.r1.s0.first-number.yellow:1")[:2]
        assert status == 409 and "given this seat to bot expert" in refused["error"]
        status, view = client.post(f"{host}/seat/1", {"bot": None})
        assert view["seats"][1]["player"] == PERSON
        last = play_randomly(client, table, random.Random(3))
        assert last[1]["outcome"] is not None
    records = table.records
    by = [(r["seat"], r["by"]) for r in records if r["type"] == "decision"]
    assert (1, "expert") in by and by.count((1, "expert")) < len([b for b in by if b[0] == 1])
    assert all(who == PERSON for seat, who in by if seat != 1)
    assert [who for seat, who in by[:handed_at - 1] if seat == 1] == \
        [PERSON] * len([1 for seat, _ in by[:handed_at - 1] if seat == 1])
    # The log replays; its header says who played most of each seat's decisions.
    replayed = replay(write_log(records).splitlines())
    assert replayed.outcome == table.game.outcome
    ones = [who for seat, who in by if seat == 1]
    assert records[0]["bots"][1] == (PERSON if ones.count(PERSON) >= ones.count("expert")
                                     else "expert")


def test_bad_host_requests_are_refused():
    table = game_table("5", people(3), seed=SEED)
    with serving(table) as (client, _):
        host = f"/api/host/{table.host}"
        for path, body, status in [
                (f"{host}/seat/1", {"bot": "nobody"}, 422),
                (f"{host}/seat/1", {"robot": "coop"}, 422),
                (f"{host}/seat/7", {"bot": "coop"}, 404),
                (f"{host}/away", {"seconds": -1}, 422),
                (f"{host}/away", {"seconds": "soon"}, 422),
                (f"{host}/away", {"seconds": 10, "bot": "nobody"}, 422),
                (f"{host}/rematch", {"deal": "old"}, 422),
                (f"{host}/rematch", {"deal": "same"}, 409),  # not over yet
                (f"{host}/next", {}, 409)]:
            got, answer = client.post(path, body)
            assert got == status, (path, body, answer)
            assert "error" in answer
        assert table.players == [PERSON] * 3 and table.options["away"] is None


def test_someone_away_is_played_for_by_a_bot_until_they_are_back():
    table = game_table("5", people(3), seed=SEED)
    with serving(table) as (client, _):
        status, view = client.post(f"/api/host/{table.host}/away",
                                   {"seconds": 0.3, "bot": "coop"})
        assert status == 200 and view["away"] == {"seconds": 0.3, "bot": "coop"}
        # Seats 0 and 1 keep pages open; seat 2 has none and says nothing.
        streams = []
        for seat in (0, 1):
            connection = http.client.HTTPConnection("127.0.0.1", client.port, timeout=10)
            connection.request("GET", f"/api/seat/{table.keys[seat]}/events")
            assert connection.getresponse().status == 200
            streams.append(connection)
        wait_until(lambda: client.get(f"/api/host/{table.host}")[1]["seats"][2]["away"], 10)
        for seat in (0, 1):
            client.choose(table.keys[seat], client.view(table.keys[seat])[1]["legal"][0]["id"])
        # The bot lays seat 2's card: the step is done without it.
        wait_until(lambda: table.game.steps >= 1, 10, "the away bot did not play")
        decisions = [r for r in table.recorder.records if r["type"] == "decision"]
        assert [r["by"] for r in decisions if r["seat"] == 2] == ["coop"]
        # Back, with its page open: theirs again at once, and for as long as it is open.
        connection = http.client.HTTPConnection("127.0.0.1", client.port, timeout=10)
        connection.request("GET", f"/api/seat/{table.keys[2]}/events")
        assert connection.getresponse().status == 200
        streams.append(connection)
        wait_until(lambda: not client.get(f"/api/host/{table.host}")[1]["seats"][2]["away"], 10)
        assert client.view(table.keys[2])[1]["player"] == PERSON
        time.sleep(0.5)  # longer than the limit: a page open is being here
        for _ in range(2):  # the bot may have laid its card of the step under way already
            steps = table.game.steps
            for seat in range(3):
                legal = client.view(table.keys[seat])[1]["legal"]
                if legal:
                    client.choose(table.keys[seat], legal[0]["id"])
            wait_until(lambda before=steps: table.game.steps > before, 10)
        decisions = [r for r in table.recorder.records if r["type"] == "decision"]
        assert decisions[-1]["seat"] == 2 and decisions[-1]["by"] == PERSON
        for connection in streams:
            connection.close()


def test_rematch_with_the_same_deal_and_a_new_one_at_the_same_links():
    table = game_table("5", people(3), seed=SEED)
    first_hands = {seat: table.view(seat)["hand"] for seat in range(3)}
    keys = dict(table.keys)
    with serving(table) as (client, _):
        host = f"/api/host/{table.host}"
        play_randomly(client, table, random.Random(1))
        seed = table.game.seed
        status, view = client.post(f"{host}/rematch", {"deal": "same"})
        assert status == 200 and view["table"]["game"] == 2 and view["outcome"] is None
        assert table.keys == keys and table.game.seed == seed
        assert {seat: client.view(keys[seat])[1]["hand"] for seat in range(3)} == first_hands
        assert [g["number"] for g in view["games"]] == [1]
        play_randomly(client, table, random.Random(2))
        status, view = client.post(f"{host}/rematch", {"deal": "new"})
        assert status == 200 and view["table"]["game"] == 3 and table.game.seed != seed
        assert [g["number"] for g in view["games"]] == [1, 2]


def test_the_campaigns_next_mission_on_a_campaign_evening(tmp_path):
    campaign = tmp_path / "camp"
    shutil.copytree(starter_campaign(), campaign)
    from synergy_forge.authoring.definitions import standard_actions
    from synergy_forge.table.model import GameTable
    from synergy_forge.workspace.play import mission_file

    found = mission_file(str(campaign / "missions" / "04-in-step.yaml"), print)
    table = GameTable(found.mission, found.rulebook, found.colors, 3, SEED, people(3),
                      actions=standard_actions(), pace=0,
                      options={"campaign": str(found.campaign)})
    with serving(table) as (client, _):
        host = f"/api/host/{table.host}"
        assert client.get(host)[1]["campaign"] is True
        play_randomly(client, table, random.Random(4))
        status, view = client.post(f"{host}/next", {})
        assert status == 200, view
        assert view["table"]["mission"]["number"] == 5 and view["table"]["game"] == 2
        assert view["table"]["lives"] == table.game.mission.lives  # nothing carried over
        [first] = view["games"]
        assert first["mission"]["number"] == 4 and first["outcome"]["text"]
    # A mission in no campaign has no next one.
    alone = game_table("5", people(3), seed=SEED)
    with serving(alone) as (client, _):
        play_randomly(client, alone, random.Random(4))
        status, answer = client.post(f"/api/host/{alone.host}/next", {})
        assert status == 409 and "not in a campaign" in answer["error"]


def test_the_host_ends_the_table_its_links_stop_and_its_pages_are_told():
    table = game_table("5", [PERSON, PERSON, "coop"], seed=SEED)
    ended = []
    with serving(table) as (client, group):
        group.on_empty = lambda: ended.append(True)
        connection = http.client.HTTPConnection("127.0.0.1", client.port, timeout=10)
        connection.request("GET", f"/api/seat/{table.keys[0]}/events")
        response = connection.getresponse()
        status, answer = client.post(f"/api/host/{table.host}/end", {})
        assert status == 200 and answer == {"ended": True}
        # The open page's stream ends (the page then finds its link gone).
        done = threading.Event()
        threading.Thread(target=lambda: (response.read(), done.set()), daemon=True).start()
        assert done.wait(15)
        for path in (f"/api/seat/{table.keys[0]}", f"/api/watch/{table.watch}",
                     f"/api/host/{table.host}"):
            assert client.request("GET", path)[0] == 404
        assert group.tables == [] and ended == [True]
        assert table.stopping.is_set()


def test_a_table_nobody_uses_ends_and_its_memory_is_freed():
    table = game_table("5", people(3), seed=SEED)
    alive = weakref.ref(table)
    with serving(table, idle=0.5) as (client, group):
        del table
        assert client.view(alive().keys[0])[0] == 200
        group.sweep()
        assert group.tables  # used just now
        time.sleep(0.6)
        group.sweep()
        assert group.tables == [] and not group.seats and not group.hosts
    gc.collect()
    assert alive() is None, gc.get_referrers(alive())


def test_spectators_see_no_hand_during_the_game_and_everything_after():
    table = game_table("5", people(3), seed=SEED)
    game = table.game
    found = []
    with serving(table) as (client, _):
        watch = f"/api/watch/{table.watch}"

        def check(seat, data, text):
            raw = client.polite("GET", watch)[2].decode()
            seen = json.loads(raw)
            assert seen["seat"] is None and seen["hand"] == [] and seen["legal"] == []
            if seen["outcome"] is None:
                assert seen["revealed"] is None
                found.extend(leaks(game, -1, seen, raw))  # no seat's hidden card at all

        play_randomly(client, table, random.Random(6), check)
        status, after = client.get(watch)
    assert status == 200 and not found, found[:3]
    assert after["outcome"] is not None
    hands = after["revealed"]["hands"]
    assert [len(h["hand"]) for h in hands] == [len(game.hands[s]) for s in range(3)]
    assert len(after["revealed"]["decisions"]) == \
        len([r for r in table.records if r["type"] == "decision"])


@pytest.mark.parametrize("kind", ["watch", "host"])
def test_spectators_and_host_pages_exist(kind):
    table = game_table("5", people(3), seed=SEED)
    with serving(table) as (client, _):
        token = table.watch if kind == "watch" else table.host
        status, headers, body = client.request("GET", f"/{kind}/{token}")
        assert status == 200 and b"<html" in body
        assert "script-src 'self'" in headers["content-security-policy"]
        assert client.request("GET", f"/{kind}/{'x' * 32}")[0] == 404
