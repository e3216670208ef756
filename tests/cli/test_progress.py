"""Progress off a terminal: a plain line every few seconds, so CI logs are never silent."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pytest

from synergy_forge.cli.progress import Progress

ROOT = Path(__file__).resolve().parents[2]
FIRST = next((ROOT / "missions" / "starter" / "missions").glob("01-*.yaml"))


def test_off_a_terminal_a_plain_line_comes_even_while_no_unit_finishes():
    stream = io.StringIO()
    with Progress(10, "Rendering", stream=stream, every=0.05) as progress:
        progress.update(3)
        deadline = time.monotonic() + 60
        while progress.lines < 2:  # one slow unit: the lines keep coming
            assert time.monotonic() < deadline, "no second line while a unit runs"
            time.sleep(0.01)
    lines = stream.getvalue().splitlines()
    assert len(lines) >= 3
    assert lines[0].startswith("Rendering: 3/10 (30%), ") and lines[0].endswith(" s elapsed")
    assert lines[-1].startswith("Rendering: 3/10 done in ")
    assert "\r" not in stream.getvalue()


def test_a_run_shorter_than_the_interval_prints_nothing():
    stream = io.StringIO()
    with Progress(10, "Playing", stream=stream, every=5) as progress:
        progress.update(10)
    assert stream.getvalue() == ""


@pytest.mark.slow
def test_playtest_in_a_pipe_reports_progress_on_stderr_every_few_seconds(monkeypatch):
    # Off a terminal, as in the pipe CI and make give: the command's stderr here is not a
    # terminal either (CliRunner's), and the command decides by that alone (Progress asks
    # its stream's isatty()), in this process (an interpreter's start and imports less). The
    # interval is shortened so that the test is quick: to 0.05 s, so that 100 games (some
    # 0.4 s) give several lines, as 300 did at 0.2 s.
    from click.testing import CliRunner

    import synergy_forge.cli.progress as progress
    from synergy_forge.cli import main

    monkeypatch.setattr(progress, "EVERY", 0.05)
    result = CliRunner().invoke(main, ["playtest", str(FIRST), "--games", "100", "--bots",
                                       "coop", "--players", "3", "--jobs", "1"])
    assert result.exit_code == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("Playing: ")]
    assert len(lines) >= 2, result.stderr
    assert " elapsed" in lines[0]
    assert lines[-1].startswith("Playing: 100/100 done in ")
    assert "100 games per mission" not in result.stderr  # the report stays on stdout
    assert "100 games per mission" in result.stdout


def test_tune_says_settings_tried_games_played_and_time_left_as_it_goes(monkeypatch):
    """`tune` printed nothing for minutes (the README promises progress for every long
    command): off a terminal a line every few seconds says how many settings were tried,
    how many games of the budget were played, and the time left at most."""
    import re

    from click.testing import CliRunner

    import synergy_forge.cli.progress as progress
    from synergy_forge.cli import main

    monkeypatch.setattr(progress, "EVERY", 0.05)
    result = CliRunner().invoke(main, ["tune", str(FIRST), "--stars", "3", "--games", "25",
                                       "--budget", "3000", "--players", "3", "--jobs", "1"])
    assert result.exit_code in (0, 1), result.output
    lines = [line for line in result.stderr.splitlines() if line.startswith("Tuning: ")]
    assert len(lines) >= 2, result.stderr
    pace = re.compile(r"Tuning: [\d,]+/3,000 games \(\d+%\), \d+ setting\(s\) tried, .* "
                      r"elapsed(, at most .* left)?$")
    assert all(pace.match(line) for line in lines[:-1]), lines
    assert re.match(r"Tuning: [\d,]+/3,000 games, \d+ setting\(s\) tried, done in ", lines[-1])
    assert "Tuning" not in result.stdout
