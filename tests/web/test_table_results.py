"""Games played at the table are results: their logs, added to the campaign's games/, show in
the studio beside the bots' estimate (games, wins, the win rate's Wilson interval)."""

from __future__ import annotations

import json
import random
import shutil
import threading

import pytest
from support.tables import game_table

from synergy_forge.authoring.gamelog import PERSON, Recorder, write_log
from synergy_forge.authoring.loading import read_campaign
from synergy_forge.core.engine import Game
from synergy_forge.resources import starter_campaign
from synergy_forge.sim.ladder import wilson
from synergy_forge.sim.play import play
from synergy_forge.studio.model import CardPreview, Studio
from synergy_forge.workspace.play import mission_file
from synergy_forge.workspace.snapshot import read_people_games


def finished_log(mission: str, seats: list[str], seed: int) -> str:
    """A game played to its end at a table (people choosing at random, bots at once)."""
    table = game_table(mission, seats, seed=seed)
    bots = threading.Thread(target=table.run_bots, daemon=True)
    bots.start()
    rng = random.Random(seed)
    while table.records is None:
        for seat in table.people:
            view = table.view(seat)
            if view["legal"]:
                table.choose(seat, rng.choice(view["legal"])["id"])
    table.stop()
    return write_log(table.records)


@pytest.mark.slow
def test_the_studio_shows_what_people_played(tmp_path, monkeypatch):
    # The mission card is not drawn (WeasyPrint): only the missions' results are read here
    # (test_studio draws the cards).
    monkeypatch.setattr(CardPreview, "render", lambda self, html, dpi: (b"", []))
    folder = tmp_path / "camp"
    shutil.copytree(starter_campaign(), folder)
    # Its first two missions only: the studio draws every mission's card on reload (30 of them,
    # most of this test's time), and two are enough: one with people's games, one without.
    for path in (folder / "missions").glob("*.yaml"):
        if not path.name.startswith(("01-", "02-")):
            path.unlink()
    games = folder / "games"
    games.mkdir()
    logs = [finished_log("1", [PERSON, PERSON, "coop"], seed) for seed in range(4)]
    for i, text in enumerate(logs):
        (games / f"first-notes-{i}.jsonl").write_text(text)
    wins = sum(json.loads(text.splitlines()[-1])["result"] == "won" for text in logs)
    # Not counted: bots alone (as `play --log` writes), a log of mission 1's earlier rules
    # (one life more), a file that is no log.
    found = mission_file("1", print)
    game = Game(found.mission, 3, 9, found.rulebook, found.colors)
    recorder = Recorder(game, ["coop"] * 3)
    play(game, ["coop"] * 3, on_decision=recorder)
    (games / "bots.jsonl").write_text(write_log(recorder.finish(game)))
    header, *rest = logs[0].splitlines()
    older = json.loads(header)
    older["mission"]["lives"] += 1
    (games / "older.jsonl").write_text("\n".join([json.dumps(older), *rest]) + "\n")
    (games / "broken.jsonl").write_text("{not json\n")

    studio = Studio(folder)
    studio.reload()
    missions = {m["id"]: m for m in studio.state()["missions"]}
    low, high = wilson(wins, 4)
    assert missions["first-notes"]["people"] == {
        "games": 4, "wins": wins, "rate": wins / 4, "low": low, "high": high, "earlier": 1}
    assert missions["warm-up"]["people"] is None


def test_no_games_folder_no_results(tmp_path):
    assert read_people_games(tmp_path, read_campaign(starter_campaign()).campaign) == {}


def test_the_studio_counts_people_by_what_changes_play(tmp_path):
    """A re-rated, re-titled mission keeps its people's games; once a goal of its campaign
    plays otherwise (its rule), they are games of its earlier rules (core.playhash)."""
    folder = tmp_path / "camp"
    shutil.copytree(starter_campaign(), folder)
    mission = mission_file("21", print)
    game = Game(mission.mission, 4, 3, mission.rulebook, mission.colors)
    recorder = Recorder(game, [PERSON] * 4)
    play(game, ["random"] * 4, on_decision=recorder)
    (folder / "games").mkdir()
    (folder / "games" / "g.jsonl").write_text(write_log(recorder.finish(game)))
    path = folder / "missions" / "21-close-calls.yaml"
    path.write_text(path.read_text().replace("stars: 3", "stars: 5").replace(
        '{en: "Close calls"', '{en: "Near misses"'))
    counted = read_people_games(folder, read_campaign(folder).campaign)
    assert (counted["close-calls"].games, counted["close-calls"].earlier) == (1, 0)
    goal = folder / "goals" / "close-call.yaml"
    goal.write_text(goal.read_text().replace("sum - 1", "sum - 2"))
    counted = read_people_games(folder, read_campaign(folder).campaign)
    assert (counted["close-calls"].games, counted["close-calls"].earlier) == (0, 1)


def test_the_studio_reads_a_logs_lines_as_replay_does(tmp_path):
    """The one reader of a log's lines: what replay refuses is not counted, and a line that
    is JSON but no record is skipped (it stopped the studio's reload before)."""
    from synergy_forge.authoring.gamelog import header as game_header
    from synergy_forge.workspace.snapshot import PeopleGames

    found = mission_file("1", print)
    mission = found.mission
    header = json.dumps(game_header(Game(mission, 3, 1, found.rulebook, found.colors),
                                    [PERSON, "coop", "coop"]))
    end = '{"type": "end", "result": "won"}'
    games = tmp_path / "games"
    games.mkdir()
    (games / "counted.jsonl").write_text(f"{header}\n{end}\n")
    twice = header.replace('{"type": "game"', '{"type": "game", "type": "game"', 1)
    (games / "key-twice.jsonl").write_text(f"{twice}\n{end}\n")
    (games / "list-last.jsonl").write_text(f"{header}\n[1]\n")
    (games / "cut.jsonl").write_text(f"{header}\n{end[:20]}\n")
    starter = read_campaign(starter_campaign()).campaign
    assert read_people_games(tmp_path, starter) == {mission.id: PeopleGames(games=1, wins=1)}
