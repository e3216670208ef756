"""The playtester: honest intervals, sensible bot ordering, the same results on any --jobs."""

from __future__ import annotations

import itertools
import json
import random
from dataclasses import replace

import pytest
from click.testing import CliRunner

from synergy_forge.authoring.loading import read_campaign
from synergy_forge.cli import main
from synergy_forge.core.mission import Mission
from synergy_forge.core.referee import LossReason
from synergy_forge.resources import starter_campaign
from synergy_forge.sim.ladder import stars_for, wilson
from synergy_forge.sim.playtest import (
    Cell,
    Playable,
    Tally,
    describe_stars,
    estimates,
    play_batch,
    run,
)


def words(estimate) -> list[str]:
    """The estimate's findings as the reports say them."""
    from synergy_forge.reporting.playtest import finding_text

    return [finding_text(f, estimate.mission) for f in estimate.findings]


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
    cells = run(sources, ["random", "coop", "oracle"], [4], games=30, seed=3, jobs=1)
    rates = {(c.mission.number, c.bot): c.tally.wins for c in cells}
    for number in (1, 4, 9):
        # Paired games (the same 30 deals); the tolerance of 3 games absorbs ties broken at
        # random, while the measured gaps are 7 to 21 games wide.
        assert rates[(number, "oracle")] >= rates[(number, "coop")] - 3
        assert rates[(number, "coop")] >= rates[(number, "random")] - 3
    assert sum(rates[(n, "coop")] for n in (1, 4, 9)) > sum(rates[(n, "random")]
                                                            for n in (1, 4, 9))


@pytest.mark.slow
def test_results_do_not_depend_on_jobs():
    # 4 games a cell, not 12: either way each cell is one unit of the pool (50 games), so the
    # two workers share the same 12 units (2 missions x 3 player counts x 2 bots); what could
    # differ is where they run and the order they come back in, not how many games they hold.
    args = ["playtest", str(starter_campaign() / "missions" / "02-warm-up.yaml"),
            str(starter_campaign() / "missions" / "08-heavy-lifting.yaml"),
            "--games", "4", "--bots", "random,coop", "--json", "--seed", "5"]
    one = CliRunner().invoke(main, [*args, "--jobs", "1"])
    two = CliRunner().invoke(main, [*args, "--jobs", "2"])
    assert one.exit_code == 0, one.output
    # stdout only: a slow machine also gets progress lines on stderr.
    assert json.loads(one.stdout) == json.loads(two.stdout)


def test_json_report_and_check(tmp_path):
    report_file = tmp_path / "report.html"
    result = CliRunner().invoke(main, [
        "playtest", str(starter_campaign() / "missions" / "01-first-notes.yaml"), "--games",
        "10", "--players", "3", "--bots", "expert,oracle", "--json", "--html", str(report_file)])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["estimate"]["bot"] == "expert" and report["estimate"]["rungs"][-1] == 1.0
    mission = report["missions"][0]
    assert mission["id"] == "first-notes"
    for cell in mission["results"]:
        assert {"games", "wins", "win_rate", "ci_low", "ci_high", "players", "bot", "experts",
                "table", "losses", "goals"} <= set(cell)
        assert cell["ci_low"] <= cell["win_rate"] <= cell["ci_high"]
        # The oracle plays --games games; each table of the ladder starts with a fifth of them.
        assert cell["games"] == 10 if cell["bot"] == "oracle" else cell["games"] >= 2
    assert [c["experts"] for c in mission["results"] if c["bot"] == "expert"] == [3, 2, 1, 0]
    estimate = mission["estimate"]
    assert "coordination_gap" in estimate and estimate["bot"] == "expert"
    # The win rate at each rung of skill, never falling, and each table's games at 3 players.
    rungs = estimate["rungs"]
    assert [r["skill"] for r in rungs] == [0.0, 0.25, 0.5, 0.75, 1.0]
    assert all(a["win_rate"] <= b["win_rate"] for a, b in itertools.pairwise(rungs))
    assert set(estimate["players"]) == {"3"}
    assert [t["experts"] for t in estimate["players"]["3"]["tables"]] == [0, 1, 2, 3]
    assert estimate["limited_by_bot"] is False
    needed = estimate["skill_needed"]
    assert needed is None or 0.0 <= needed <= 1.0
    html = report_file.read_text()
    assert "<svg" in html and "First notes" in html


@pytest.mark.slow
def test_check_fails_a_mission_whose_stars_disagree(tmp_path):
    campaign = read_campaign(starter_campaign()).campaign
    wrong = replace(campaign.mission(24), stars=1)
    # 10 games a table to start: a 4-star mission (4 stars at every count) is far from 1,
    # even on so few.
    cells = run([Playable(wrong, campaign.rulebook, campaign.colors)], ["expert", "oracle"],
                [4], games=10, seed=1, jobs=1)
    found = estimates(cells)
    assert any(w.startswith("declared 1 star,") for w in words(found[0]))
    assert found[0].fails_check
    # The same mission as a user's file: `--check` exits 1 and says which mission fails,
    # while without --check the same report exits 0.
    source = (starter_campaign() / "missions" / "24-crossed-wires.yaml").read_text()
    assert "\nstars: 4\n" in source
    wrong_file = tmp_path / "24-crossed-wires.yaml"
    wrong_file.write_text(source.replace("\nstars: 4\n", "\nstars: 1\n"))
    args = ["playtest", str(wrong_file), "--games", "10", "--players", "4", "--jobs", "1"]
    checked = CliRunner().invoke(main, [*args, "--check"])
    assert checked.exit_code == 1, checked.output
    assert "declared 1 star, estimated" in checked.output
    assert "playtest --check: 1 mission(s) fail: 24 crossed-wires" in checked.output
    assert CliRunner().invoke(main, args).exit_code == 0
    missing = CliRunner().invoke(main, [*args[:1], str(wrong_file.with_name("none.yaml"))])
    assert missing.exit_code == 2  # no such file: a usage error


def test_check_fails_a_player_count_no_bot_could_win():
    mission = read_campaign(starter_campaign()).campaign.mission(1)
    def cells(wins_at_3: dict[str, int]) -> list[Cell]:
        return [Cell(mission, players, bot, Tally(games=100, wins=wins_at_3[bot]
                                                  if players == 3 else 60),
                     players if bot == "expert" else None)
                for players in (3, 4) for bot in ("coop", "oracle", "expert")
                if bot in wins_at_3]

    found = estimates(cells({"coop": 0, "oracle": 0, "expert": 0}))[0]
    assert "unwinnable at 3 players: no bot won any of its 300 games there, not even the " \
           "oracle" in words(found)
    assert found.fails_check
    # The oracle searches rather than trying every play: a coop win disproves "unwinnable".
    found = estimates(cells({"coop": 1, "oracle": 0, "expert": 0}))[0]
    assert not any(w.startswith("unwinnable") for w in words(found))
    # An oracle that never wins where coop does is reported, without failing the check.
    blind = [Cell(replace(mission, stars=5), 4, bot,
                  Tally(games=100, wins=0 if bot == "oracle" else 55),
                  4 if bot == "expert" else None) for bot in ("coop", "oracle", "expert")]
    found = estimates(blind)[0]
    assert any(w.startswith("the oracle never won, though other bots did (coop 55, expert 55 "
                            "games)") for w in words(found))
    assert not found.fails_check
    # Without the expert in the run there is no estimate to fail.
    assert not estimates(cells({"coop": 0, "oracle": 0}))
    # The expert alone (no oracle) is enough to claim it.
    found = estimates(cells({"expert": 0}))[0]
    assert "unwinnable at 3 players: no bot won any of its 100 games there, not even the " \
           "expert" in words(found)
    assert found.fails_check


def test_star_bands():
    # Stars from the skill needed: below 0.2 one star, ..., 0.8 and up (or never) five.
    assert stars_for(0.1) == 1 and stars_for(0.0) == 1 and stars_for(0.85) == 5
    assert stars_for(None) == 5 and stars_for(0.5) == 3
    assert describe_stars(2, 3) == "between 2 and 3 stars" and describe_stars(1, 1) == "1 star"


def test_an_unwinnable_mission_is_explained_by_the_cause_its_figures_show(rulebook):
    # R23: four goal cards and five rounds to win: the bots win rounds but every game ends
    # with a player out of goal cards.
    mission = Mission(id="five", number=1, title={"en": "Five"}, stars=5, rounds=5, lives=2,
                      players=(3,), allowed_failures={3: 0}, hand_goals=4,
                      goals=("equal", "unique", "between", "one-higher"),
                      challenges=("minimum-5", "no-doubles", "even"))
    cells = run([Playable(mission, rulebook, ("red", "yellow", "green"))], ["oracle", "expert"],
                None, games=20, seed=1, jobs=1)
    (found,) = estimates(cells)
    (unwinnable,) = [w for w in words(found) if w.startswith("unwinnable")]
    assert "its games ended when a player had no goal card left (100%)" in unwinnable
    assert unwinnable.endswith("a 4-card goal deck with 5 rounds to win leaves no failed round "
                               "(R23)")
    assert "action cards" not in unwinnable
    # The text report says why each bot lost, with shares, rounds won and lives left.
    from synergy_forge.reporting.playtest import text as playtest_text
    from synergy_forge.sim.playtest import PlaytestResult

    text = playtest_text(PlaytestResult(20, 1, ("oracle", "expert"), cells, [found])).text
    oracle = cells[0].tally
    rounds = f"{oracle.rounds_won / 20:.1f}"
    assert f"        oracle lost 20: goal cards 100%; per game {rounds}/5 rounds won, " \
           f"{2 - oracle.lives_lost / 20:.1f}/2 lives left" in text.splitlines()


def test_why_games_were_lost_names_the_commonest_ends_with_their_shares():
    mission = read_campaign(starter_campaign()).campaign.mission(1)
    tally = Tally(games=10, wins=2, rounds_won=12, lives_lost=20)
    tally.losses.update({LossReason.LIVES: 6, LossReason.CHALLENGE: 2})
    from synergy_forge.reporting.playtest import why_lost

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
    cells = [Cell(mission, 3, "expert", Tally(games=10, wins=4, losses=Counter(lives=6)), 3),
             Cell(mission, 4, "expert", Tally(games=10, wins=6,
                                              losses=Counter(lives=2, challenge=2)), 4),
             Cell(mission, 3, "expert", Tally(games=10, wins=1, losses=Counter(lives=9)), 2),
             Cell(mission, 3, "oracle", Tally(games=10, wins=9, losses=Counter(lives=1)))]
    result = PlaytestResult(10, 1, ("expert", "oracle"), cells, estimates(cells))
    page = html(result).text
    # The experts' own tables pooled over both counts: 10 wins of 20 games, a bar of half the
    # scale (the mixed table is not pooled in).
    assert '<i style="width:50.0%;background:#2e7d32">' in page
    # Losses of the experts' own tables, added over the player counts.
    row = page[page.index("How missions are lost"):]
    assert "<th>challenge</th><th>lives</th>" in row
    assert '<td data-label="challenge">2</td><td data-label="lives">8</td>' in row
    assert "First notes" in page and "Win rate over skill" in page and "<polyline" in page
    # The JSON and text reporters read the same result.
    missions = playtest_to_json(result)["missions"][0]
    assert missions["results"][2]["win_rate"] == 0.1 and missions["results"][2]["experts"] == 2
    tables = missions["estimate"]["players"]["3"]["tables"]
    assert [(t["experts"], t["games"]) for t in tables] == [(0, 0), (1, 0), (2, 10), (3, 10)]
    report = text(result).text
    assert "      3 players:  ladder 0: " in report and "oracle 90% [60%, 98%]" in report
    assert "        tables: novices not played, 1 expert not played, 2 experts 10% of 10, " \
        "experts 40% of 10" in report


def test_findings_have_a_stable_code_and_their_figures_in_the_json():
    """The JSON says each finding as a code with its figures (docs/playtest.md),
    beside the same finding in words; the words of a loss reason are the ones every report
    uses (`play`'s "Lost: …" included), from one table."""
    from synergy_forge.reporting.explain import outcome_text
    from synergy_forge.reporting.playtest import playtest_to_json
    from synergy_forge.sim.playtest import PlaytestResult

    mission = read_campaign(starter_campaign()).campaign.mission(1)
    lost = Tally(games=100, wins=0)
    lost.losses.update({LossReason.GOALS: 100})
    cells = [Cell(mission, 3, bot, lost if bot == "oracle" else Tally(games=100, wins=0),
                  3 if bot == "expert" else None) for bot in ("oracle", "expert")]
    (estimate,) = estimates(cells)
    report = playtest_to_json(PlaytestResult(100, 1, ("oracle", "expert"), cells, [estimate]))
    found = report["missions"][0]["estimate"]
    assert found["findings"][0] == {"code": "unwinnable", "bot": "oracle",
                                    "losses": {"goals": 100}}
    assert [f["code"] for f in found["findings"]] == [
        "unwinnable", "beyond-expert", "declared-stars-outside-estimate"]
    assert found["findings"][1]["win_rate"] == 0.0
    assert found["findings"][2]["stars_low"] == found["findings"][2]["stars_high"] == 5
    assert len(found["warnings"]) == 3 and found["fails_check"] is True
    assert "its games ended when a player had no goal card left (100%)" in found["warnings"][0]
    end = type("Outcome", (), {"won": False, "reason": LossReason.GOALS})()
    assert outcome_text(end) == "Lost: a player had no goal card left"
    assert json.dumps(report["missions"][0]["results"][0]["losses"]) == '{"goals": 100}'
    assert json.dumps(dict(lost.losses)) == '{"goals": 100}'  # enum keys, the same JSON




def test_the_html_report_fits_a_phone(browser, tmp_path):
    """At 390 px (a phone) the page is 390 px wide, no element reaches past it, and every
    cell of the missions table and every bar is on screen: each row a card of labelled lines,
    each bar under its mission (it was 900 px wide, its tables cut at the edge)."""
    from collections import Counter

    from synergy_forge.reporting.playtest import html
    from synergy_forge.sim.playtest import PlaytestResult

    campaign = read_campaign(starter_campaign()).campaign
    cells = [Cell(campaign.mission(n), p, "expert", Tally(games=10, wins=n % 10,
                                                          losses=Counter(lives=10 - n % 10)), p)
             for n in (1, 14, 30) for p in (3, 4, 5)]
    result = PlaytestResult(10, 1, ("expert",), cells, estimates(cells))
    report = tmp_path / "report.html"
    report.write_text(html(result).text, encoding="utf-8")
    context = browser.new_context(viewport={"width": 390, "height": 844})
    try:
        page = context.new_page()
        page.goto(report.as_uri())
        assert page.evaluate("document.documentElement.scrollWidth") == 390
        past = page.evaluate("""Array.from(document.querySelectorAll('body *'))
            .filter(e => e.getBoundingClientRect().right > 391)
            .map(e => e.tagName + ' ' + (e.textContent || '').slice(0, 30))""")
        assert past == [], past
        cells = page.locator('td[data-label="Skill needed"]')
        assert cells.count() == 3 and all(cells.nth(i).is_visible() for i in range(3))
        # labelled: the header row is hidden, each line says what it is
        assert page.evaluate("""getComputedStyle(document.querySelector(
            'td[data-label="Skill needed"]'), '::before').content""") == '"Skill needed: "'
    finally:
        context.close()
