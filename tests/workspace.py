"""Writing a few files into a folder and validating them from there, as a designer would; a
starter campaign with one mission card whose rules cannot fit."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from synergy_forge.authoring.validate import Report, validate_paths
from synergy_forge.resources import starter_campaign


def validate_files(folder: Path, files: dict[str, str], targets: list[Path]) -> Report:
    """Write `files` (relative name -> text) under `folder`, then validate `targets` with
    `folder` as the current folder, so that diagnostics name the files as written."""
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        return validate_paths(targets)
    finally:
        os.chdir(cwd)


def crowded_rules_campaign(folder: Path) -> Path:
    """A copy of the starter campaign at `folder` whose mission 8 has four challenges, one of
    them with a very long English text: its card's rules block cannot fit at 8 pt (in
    English only), reported at missions/08-heavy-lifting.yaml line 9, its `challenges`."""
    shutil.copytree(starter_campaign(), folder)
    challenge = folder / "challenges" / "odd-sum.yaml"
    long = "Your sum must be odd. " + "An odd sum is one odd card and one even card. " * 14
    challenge.write_text(challenge.read_text().replace('en: "Your sum must be odd."',
                                                       f'en: "{long.strip()}"'))
    mission = folder / "missions" / "08-heavy-lifting.yaml"
    mission.write_text(mission.read_text().replace(
        "challenges: [minimum-5]", "challenges: [minimum-5, odd-sum, threes-are-zero, no-doubles]"))
    return folder
