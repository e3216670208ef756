"""Kits built once per test run and shared by its workers (`once_per_run`), and small
campaigns named as the starter campaign is, so that their builds start from the starter
kit's cache (conftest.starter_kit) and draw only what differs."""

from __future__ import annotations

import contextlib
import fcntl
import os
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest
from click.testing import CliRunner

from synergy_forge.cli import main


def once_per_run(factory: pytest.TempPathFactory, name: str, make: Callable[[Path], None]) -> Path:
    """The folder NAME, made by make(folder) once per test run: under pytest-xdist the first
    worker to ask makes it in the run's shared temporary folder while the others wait for it
    (a worker's module- or session-scoped fixture would be made again on every worker). Tests
    only read it, or copy it."""
    root = factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # popen-gwN's parent: the run's, shared by its workers
    folder, made = root / name, root / f"{name}.made"
    with open(root / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file is closed
        if not made.exists():
            make(folder)
            made.touch()
    return folder


#: The starter campaign's name: a small campaign named so is built from the starter kit's
#: cache (conftest.small_kit), drawing only what differs from the starter's kit.
STARTER = "{en: Starter campaign, fr: Campagne de départ}"


#: The name of conftest.shop_kit's campaign, and of the presets' (its cache's) below.
SHOP = "{en: Small, fr: Petite}"


def small_campaign(tmp_path: Path, title: str, name: str = STARTER) -> Path:
    """TMP_PATH/camp: two missions titled TITLE, in English and French (kept if there)."""
    campaign = tmp_path / "camp"
    if not campaign.exists():
        (campaign / "missions").mkdir(parents=True)
        (campaign / "campaign.yaml").write_text(
            f"name: {name}\nlanguages: [en, fr]\nmissions: [missions/*.yaml]\n",
            encoding="utf-8")
        for n in (1, 2):
            (campaign / "missions" / f"{n}.yaml").write_text(
                f"id: m{n}\nnumber: {n}\ntitle: {{en: '{title}', fr: '{title}'}}\nstars: 1\n"
                f"rounds: 2\nlives: 2\n", encoding="utf-8")
    return campaign


def build_small(tmp_path: Path, title: str, out: str, seed: Path | None = None) -> Path:
    """small_campaign's kit in TMP_PATH/OUT, built from TMP_PATH by relative paths (the HTML
    names the files as given: copies of it and its cache elsewhere are then the same)."""
    small_campaign(tmp_path, title)
    if seed is not None:
        seeded(seed, tmp_path / out)
    with contextlib.chdir(tmp_path):
        result = CliRunner().invoke(main, ["build", "camp", "--out", out, "--no-png", "--jobs",
                                           "1", "--lang", "en"])
    assert result.exit_code in (0, 1), result.output
    return tmp_path / out


def seeded(small_kit: Path, out: Path) -> Path:
    """OUT with small_kit's cache in it (conftest.py: build_small(ROOT, "Same", "a"), done
    once per test run, not on every xdist worker this module's tests are spread over): the
    pieces a build of another small campaign shares with it (the decks but the missions, when
    the options are the same) are not drawn again, as in a designer's rebuild (a rebuild is
    the same as a first build: tested below)."""
    shutil.copytree(small_kit / "a" / ".cache", out / ".cache")
    return out


def tts_campaign(folder: Path) -> Path:
    """Three missions (an odd number: the last mission card has a plain back) and a goal card
    of the campaign's own, which mission 3 puts in play. Named as the starter campaign is (a
    piece's HTML, hence its cache key, holds the campaign's name): its build starts from the
    starter kit's cache, whose decks, with their PNGs, it shares (conftest.tts_kit)."""
    (folder / "missions").mkdir(parents=True)
    (folder / "goals").mkdir()
    (folder / "campaign.yaml").write_text(
        "name: {en: Starter campaign, fr: Campagne de départ}\nlanguages: [en, fr]\n"
        "missions: [missions/*.yaml]\ngoals: [goals/*.yaml]\n", encoding="utf-8")
    (folder / "goals" / "close-call.yaml").write_text(
        "id: close-call\nname: {en: Close call, fr: De justesse}\n"
        "text: {en: Be 1 away from a sum., fr: Soyez à 1 d'une somme.}\n"
        "rule: \"(sum - 1) in others or (sum + 1) in others\"\n", encoding="utf-8")
    for n, title in ((1, "First"), (2, "Second"), (3, "Third")):
        goals = "goals: [one-higher, equal, close-call]\n" if n == 3 else ""
        (folder / "missions" / f"{n}.yaml").write_text(
            f"id: m{n}\nnumber: {n}\ntitle: {{en: {title}, fr: {title} fr}}\nstars: 1\n"
            f"rounds: 2\nlives: 2\n{goals}", encoding="utf-8")
    return folder
