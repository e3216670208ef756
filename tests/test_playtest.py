"""The playtester: honest intervals, sensible bot ordering, the same results on any --jobs."""

from __future__ import annotations

import json
import random
from dataclasses import replace

from click.testing import CliRunner

from synergy_forge.authoring.loading import read_campaign
from synergy_forge.cli import main
from synergy_forge.core.mission import Mission
from synergy_forge.resources import starter_campaign
from synergy_forge.sim.playtest import (
    Cell,
    Playable,
    Tally,
    describe_stars,
    estimates,
    play_batch,
    run,
    star_range,
    stars_for,
    why_lost,
    wilson,
)


def test_wilson_interval_covers_the_true_rate_about_95_percent_of_the_time():
    rng = random.Random(7)
    p, n, trials = 0.3, 100, 2000
    covered = 0
    for _ in range(trials):
        wins = sum(rng.random() < p for _ in range(n))
        low, high = wilson(wins, n)
        covered += low <= p <= high
    # Binomial spread of the coverage over 2000 trials is about 0.5%; Wilson's is near 95%.
    assert 0.93 <= covered / trials <= 0.97
    assert wilson(0, 50)[0] == 0.0 and wilson(50, 50)[1] == 1.0


def test_a_mission_that_cannot_be_won_has_rate_zero_inside_its_interval(rulebook):
    # No pair of cards keeps both: every game is lost at the first card 3 (R9).
    mission = Mission(id="never", number=1, title={"en": "Never"}, stars=5, rounds=1, lives=1,
                      players=(3,), allowed_failures={3: 0},
                      challenges=("low-to-high", "high-to-low"))
    tally = play_batch(mission, rulebook, ("red", "yellow", "green"), 3, "coop", range(30))
    assert tally.wins == 0 and tally.losses == {"challenge": 30}
    low, high = tally.interval
    assert low == 0.0 <= high < 0.15


def test_oracle_beats_coop_beats_random_on_the_same_deals():
    campaign = read_campaign(starter_campaign()).campaign
    sources = [Playable(campaign.mission(n), campaign.rulebook, campaign.colors)
               for n in (1, 4, 9)]
    cells = run(sources, ["random", "coop", "oracle"], [4], games=60, seed=3, jobs=1)
    rates = {(c.mission.number, c.bot): c.tally.wins for c in cells}
    for number in (1, 4, 9):
        # Paired games (the same 60 deals); the tolerance of 3 games absorbs ties broken at
        # random, while the measured gaps are tens of games wide.
        assert rates[(number, "oracle")] >= rates[(number, "coop")] - 3
        assert rates[(number, "coop")] >= rates[(number, "random")] - 3
    assert sum(rates[(n, "coop")] for n in (1, 4, 9)) > sum(rates[(n, "random")]
                                                            for n in (1, 4, 9))


def test_results_do_not_depend_on_jobs():
    args = ["playtest", str(starter_campaign() / "missions" / "02-warm-up.yaml"),
            str(starter_campaign() / "missions" / "08-heavy-lifting.yaml"),
            "--games", "12", "--bots", "random,coop", "--json", "--seed", "5"]
    one = CliRunner().invoke(main, [*args, "--jobs", "1"])
    two = CliRunner().invoke(main, [*args, "--jobs", "2"])
    assert one.exit_code == 0, one.output
    assert json.loads(one.stdout) == json.loads(two.stdout)  # progress lines go to stderr


def test_json_report_and_check(tmp_path):
    report_file = tmp_path / "report.html"
    result = CliRunner().invoke(main, [
        "playtest", str(starter_campaign() / "missions" / "01-first-notes.yaml"), "--games",
        "10", "--players", "3", "--bots", "coop,oracle", "--json", "--html", str(report_file)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.output[:result.output.rindex("}") + 1])
    mission = report["missions"][0]
    assert mission["id"] == "first-notes" and mission["declared_stars"] == 1
    for cell in mission["results"]:
        assert {"games", "wins", "win_rate", "ci_low", "ci_high", "stars", "stars_low",
                "stars_high", "players", "bot", "losses", "goals"} <= set(cell)
        assert cell["games"] == 10 and cell["ci_low"] <= cell["win_rate"] <= cell["ci_high"]
    assert "coordination_gap" in mission["estimate"]
    html = report_file.read_text()
    assert "<svg" in html and "First notes" in html


def test_check_fails_a_mission_whose_stars_disagree(tmp_path):
    campaign = read_campaign(starter_campaign()).campaign
    wrong = replace(campaign.mission(1), stars=5)
    cells = run([Playable(wrong, campaign.rulebook, campaign.colors)], ["coop", "oracle"],
                [4], games=30, seed=1, jobs=1)
    found = estimates(cells)
    assert any(w.startswith("declared 5 stars") for w in found[0].warnings)
    assert found[0].fails_check
    # The same mission as a user's file: `--check` exits 1 and says which mission fails,
    # while without --check the same report exits 0.
    source = (starter_campaign() / "missions" / "01-first-notes.yaml").read_text()
    assert "\nstars: 1\n" in source
    wrong_file = tmp_path / "01-first-notes.yaml"
    wrong_file.write_text(source.replace("\nstars: 1\n", "\nstars: 5\n"))
    args = ["playtest", str(wrong_file), "--games", "30", "--players", "4", "--jobs", "1"]
    checked = CliRunner().invoke(main, [*args, "--check"])
    assert checked.exit_code == 1, checked.output
    assert "declared 5 stars, estimated" in checked.output
    assert "playtest --check: 1 mission(s) fail: 1 first-notes" in checked.output
    assert CliRunner().invoke(main, args).exit_code == 0
    missing = CliRunner().invoke(main, [*args[:1], str(wrong_file.with_name("none.yaml"))])
    assert missing.exit_code == 2  # no such file: a usage error


def test_check_fails_a_player_count_no_bot_could_win():
    mission = read_campaign(starter_campaign()).campaign.mission(1)
    def cells(wins_at_3: dict[str, int]) -> list[Cell]:
        return [Cell(mission, players, bot, Tally(games=100, wins=wins_at_3[bot]
                                                  if players == 3 else 60))
                for players in (3, 4) for bot in ("coop", "oracle")]

    found = estimates(cells({"coop": 0, "oracle": 0}))[0]
    assert "unwinnable at 3 players: no bot won any of its 200 games there, not even the " \
           "oracle" in found.warnings
    assert found.fails_check
    # The oracle searches rather than trying every play: a coop win disproves "unwinnable".
    found = estimates(cells({"coop": 1, "oracle": 0}))[0]
    assert not any(w.startswith("unwinnable") for w in found.warnings)
    # An oracle that never wins where coop does is reported, without failing the check.
    blind = [Cell(mission, 4, bot, Tally(games=100, wins=0 if bot == "oracle" else 55))
             for bot in ("coop", "oracle")]
    found = estimates(blind)[0]
    assert any(w.startswith("the oracle never won, though other bots did (coop 55 games)")
               for w in found.warnings)
    assert not found.fails_check
    # Without the oracle in the run, nothing is claimed.
    coop_only = estimates([c for c in cells({"coop": 0, "oracle": 0}) if c.bot == "coop"])[0]
    assert not any(w.startswith("unwinnable") for w in coop_only.warnings)


def test_star_bands():
    assert stars_for(0.9) == 1 and stars_for(0.0) == 5
    assert star_range(0.3, 0.6) == (1, 3)  # 60% is 1 star, 30% is 3 stars
    assert describe_stars(2, 3) == "between 2 and 3 stars" and describe_stars(1, 1) == "1 star"


def test_an_unwinnable_mission_is_explained_by_the_cause_its_figures_show(rulebook):
    # R23: four goal cards cannot last five rounds; the oracle wins rounds but every game
    # ends with a player out of goal cards.
    mission = Mission(id="five", number=1, title={"en": "Five"}, stars=5, rounds=5, lives=2,
                      players=(3,), allowed_failures={3: 0},
                      goals=("equal", "unique", "between", "one-higher"),
                      challenges=("minimum-5", "no-doubles", "even"))
    cells = run([Playable(mission, rulebook, ("red", "yellow", "green"))], ["coop", "oracle"],
                None, games=20, seed=1, jobs=1)
    (found,) = estimates(cells)
    (unwinnable,) = [w for w in found.warnings if w.startswith("unwinnable")]
    assert "its games ended when a player ran out of goal cards (100%)" in unwinnable
    assert unwinnable.endswith("a 4-card goal deck with 5 rounds to win leaves no failed round "
                               "(R23)")
    assert "action cards" not in unwinnable
    # The text report says why each bot lost, with shares, rounds won and lives left.
    from synergy_forge.reporting.playtest import text as playtest_text
    from synergy_forge.sim.playtest import PlaytestResult

    text = playtest_text(PlaytestResult(20, 1, ("coop", "oracle"), cells, [found])).text
    oracle = cells[1].tally
    rounds = f"{oracle.rounds_won / 20:.1f}"
    assert f"        oracle lost 20: goal cards 100%; per game {rounds}/5 rounds won, " \
           f"{2 - oracle.lives_lost / 20:.1f}/2 lives left" in text.splitlines()


def test_why_games_were_lost_names_the_commonest_ends_with_their_shares():
    mission = read_campaign(starter_campaign()).campaign.mission(1)
    tally = Tally(games=10, wins=2, rounds_won=12, lives_lost=20)
    tally.losses.update({"lives": 6, "challenge": 2})
    assert why_lost(tally, mission, "coop's") == (
        "coop's games ended when the last life was lost (75%), a player could not keep a "
        f"challenge (25%), after 1.2 of {mission.rounds} rounds won with "
        f"{mission.lives - 2:.1f} of {mission.lives} lives left on average")
    assert why_lost(Tally(games=5, wins=5), mission, "coop's") == ""


def test_html_report_renders_the_typed_result():
    from collections import Counter

    from synergy_forge.reporting.playtest import html, playtest_to_json, text
    from synergy_forge.sim.playtest import PlaytestResult

    mission = read_campaign(starter_campaign()).campaign.mission(1)
    cells = [Cell(mission, 3, "coop", Tally(games=10, wins=4, losses=Counter(lives=6))),
             Cell(mission, 4, "coop", Tally(games=10, wins=6,
                                            losses=Counter(lives=2, challenge=2))),
             Cell(mission, 3, "oracle", Tally(games=10, wins=9, losses=Counter(lives=1)))]
    result = PlaytestResult(10, 1, ("coop", "oracle"), cells, estimates(cells))
    page = html(result).text
    # coop pooled over both counts: 10 wins of 20 games, a bar of half the 650-pixel scale.
    assert 'width="325.0" height="7" fill="#1b6fc2"' in page
    # Losses of the star bot (coop) only, added over the player counts: 8 lives, 2 challenge.
    row = page[page.index("How missions are lost"):]
    assert "<th>challenge</th><th>lives</th>" in row and "<td>2</td><td>8</td>" in row
    assert "First notes" in page
    # The JSON and text reporters read the same result.
    assert playtest_to_json(result)["missions"][0]["results"][1]["win_rate"] == 0.6
    assert "      3 players: coop 40% [17%, 69%]  oracle 90% [60%, 98%]" in text(result).text
