"""The README's transcripts are what the commands print: each `$ synergy-forge …` block is run
(in a scratch folder, on the bundled files it names) and its output must match, `…` standing
for any text on a line, or any lines when it is alone on its line."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest
from click.testing import CliRunner
from support.pages import plain

from synergy_forge.cli import main

ROOT = Path(__file__).resolve().parents[2]
#: Transcripts whose input files the README does not give, or that take minutes (build).
NOT_RUN = ("validate broken.yaml", "build ")


def transcripts() -> list[list[tuple[list[str], list[str]]]]:
    """Each fenced block of the README as (command arguments, expected output lines) pairs."""
    blocks = re.findall(r"^```\n(\$ synergy-forge .*?)^```", (ROOT / "README.md").read_text(),
                        flags=re.MULTILINE | re.DOTALL)
    found = []
    for block in blocks:
        steps: list[tuple[list[str], list[str]]] = []
        for line in block.splitlines():
            if line.startswith("$ synergy-forge "):
                steps.append((shlex.split(line.removeprefix("$ synergy-forge ")), []))
            else:
                steps[-1][1].append(line)
        found.append(steps)
    return found


def pattern(expected: list[str]) -> re.Pattern[str]:
    parts = []
    for line in expected:
        if line.strip() == "…":
            parts.append(r"(?:[^\n]*\n)*?")
        else:
            parts.append(re.escape(line).replace("…", r"[^\n]*") + r"\n")
    return re.compile("".join(parts))


BLOCKS = [steps for steps in ([(args, out) for args, out in block
                               if not " ".join(args).startswith(NOT_RUN)]
                              for block in transcripts()) if steps]


def test_the_readme_has_transcripts_to_check():
    commands = {args[0] for block in BLOCKS for args, _ in block}
    assert {"new", "validate", "play", "replay", "playtest", "judge"} <= commands


@pytest.mark.parametrize("block", BLOCKS, ids=lambda b: " ".join(b[0][0][:2]))
def test_readme_transcript(block, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for args, expected in block:
        args = [str(ROOT / a) if a.startswith("missions/") else a for a in args]
        result = CliRunner().invoke(main, args)
        assert result.exit_code == 0, result.output
        shown = result.stdout.replace(str(ROOT) + "/", "")
        assert pattern(expected).fullmatch(shown), f"{args}:\n{shown}"


def test_the_readme_says_the_kit_is_fan_made_and_unofficial_near_its_top():
    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    top = plain(readme[:3000])
    for words in ("Synergy is a game designed by Robert Brouwer and published by Jolly Dutch",
                  "fan-made and unofficial", "not affiliated with or endorsed by Jolly Dutch"):
        assert words in top, words
