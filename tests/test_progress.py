"""Progress off a terminal: a plain line every few seconds, so CI logs are never silent."""

from __future__ import annotations

import io
import subprocess
import sys
import time
from pathlib import Path

import pytest

from synergy_forge.cli.progress import Progress

ROOT = Path(__file__).resolve().parent.parent
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
def test_playtest_in_a_pipe_reports_progress_on_stderr_every_few_seconds(tmp_path):
    # A pipe is what CI and make give; the interval is shortened so that the test is quick:
    # to 0.05 s, so that 100 games (some 0.4 s) give several lines, as 300 did at 0.2 s.
    code = ("import sys; import synergy_forge.cli.progress as p; p.EVERY = 0.05; "
            "from synergy_forge.cli import main; sys.exit(main())")
    result = subprocess.run(
        [sys.executable, "-c", code, "playtest", str(FIRST), "--games", "100", "--bots", "coop",
         "--players", "3", "--jobs", "1"], capture_output=True, text=True, timeout=300,
        cwd=ROOT, env={"PYTHONPATH": str(ROOT), "PATH": ""})
    assert result.returncode == 0, result.stderr
    lines = [line for line in result.stderr.splitlines() if line.startswith("Playing: ")]
    assert len(lines) >= 2, result.stderr
    assert " elapsed" in lines[0]
    assert lines[-1].startswith("Playing: 100/100 done in ")
    assert "100 games per mission" not in result.stderr  # the report stays on stdout
