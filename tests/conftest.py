from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from support.kits import once_per_run

from synergy_forge.__main__ import collect_less
from synergy_forge.authoring.definitions import standard_rulebook
from synergy_forge.core.rules import Rulebook

# The suite collects garbage as the command does (synergy_forge/__main__.py), its workers too.
collect_less()
# The user's data folder (the tables' state of the starter campaign's missions) is a
# temporary one: no test writes to the home of whoever runs the suite, commands run by the
# tests included (they inherit it).
os.environ["XDG_DATA_HOME"] = tempfile.mkdtemp(prefix="synergy-forge-data-")

#: Modules whose tests are spread test by test under pytest-xdist: test_build's, each a long,
#: independent build, and two modules of independent tests without module-scoped fixtures that
#: mostly wait (on a server leaving, on commands), which as one unit ran on alone at the end of
#: a run while the other worker was done. Every other module runs whole on one worker, which
#: sets up its module-scoped fixtures (a built kit, a running studio, a browser) once. (A SPREAD
#: module's own fixtures would be set up on every worker: the kits it shares are built once per
#: run, once_per_run.)
SPREAD = ("tests/printing/test_build.py", "tests/web/test_table_api.py",
          "tests/package/test_readme.py")
#: Kits built once per run (once_per_run) from the starter kit's cache, each read by several
#: units: the first unit that uses one builds it while the others wait for it.
BUILT_ONCE = ("small_kit", "shop_kit", "tts_kit", "ink_saver_kits")
#: Fixtures that build a kit or start a browser, a cluster or a studio: every test using one
#: is `slow` (pytest -m "not slow", the quick pass, neither builds nor starts them), like a
#: test marked so for its own seconds of CPU.
HEAVY = ("starter_kit", *BUILT_ONCE, "browser", "cluster", "studio")


class _ByModule:
    """`make test` runs `pytest -n auto` (pytest-xdist, docs/decisions.md): the work unit is a
    module, or one test of a SPREAD module. (xdist's own `--dist loadgroup` cannot mark tests
    under pytest 9, whose node ids are read-only.)"""

    @staticmethod
    def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
        from xdist.scheduler import LoadScopeScheduling

        class ByModule(LoadScopeScheduling):
            def _split_scope(self, nodeid: str) -> str:
                module = nodeid.split("::", 1)[0]
                return nodeid if module in SPREAD else module  # as _unit

        return ByModule(config, log)


def pytest_configure(config: pytest.Config) -> None:
    if config.pluginmanager.hasplugin("xdist"):
        config.pluginmanager.register(_ByModule(), "synergy-forge-by-module")
        # Units go out in the order pytest_collection_modifyitems gives, not largest first.
        config.option.loadscopereorder = False
    # A test run started in the background (`make test &`, some CI runners) ignores SIGINT,
    # and so would every command a test starts: a server sent Ctrl-C before it installs its
    # own handler would then run on, and the test wait for it. A handler, unlike an ignored
    # signal, is not inherited across exec: commands start with Ctrl-C's default, as from a
    # terminal. (This process, and each xdist worker, then stops on Ctrl-C as usual.)
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def _unit(item: pytest.Item) -> str:
    module = item.nodeid.split("::", 1)[0]
    return item.nodeid if module in SPREAD else module


@pytest.hookimpl(tryfirst=True)  # before -m deselects by marker
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests using a HEAVY fixture are marked slow. Then the order xdist hands the units out
    in (and a serial run's). A unit handed out last runs on alone while the other worker
    idles, so the long units go first and short ones fill the end:
    0. the first unit that uses the starter kit (about half a minute to build, once per run);
    1. the other slow units that do not use it (a test marked slow, or a HEAVY fixture: a
       browser, a cluster, a studio), while the kit is built;
    2. the units that build a BUILT_ONCE kit, those whose kit is made from another's last
       (test_build.ink_saver_kits from small_kit);
    3. the other units that use the starter kit;
    4. the units that only read a BUILT_ONCE kit: handed out beside its builder, one worker
       would wait for the other's build;
    5. the rest."""
    slow: set[str] = set()
    kit: list[str] = []
    builders: dict[str, str] = {}  # a fixture of BUILT_ONCE -> the first unit that uses it
    readers: set[str] = set()
    for item in items:
        unit = _unit(item)
        fixtures = getattr(item, "fixturenames", ())
        if item.get_closest_marker("slow") or any(name in fixtures for name in HEAVY):
            slow.add(unit)
            item.add_marker(pytest.mark.slow)
        if "starter_kit" in fixtures and unit not in kit:
            kit.append(unit)
        for name in BUILT_ONCE:
            if name in fixtures and builders.setdefault(name, unit) != unit:
                readers.add(unit)

    def rank(item: pytest.Item) -> tuple[int, int]:
        unit = _unit(item)
        if kit and unit == kit[0]:
            return 0, 0
        if unit in builders.values():
            fixtures = getattr(item, "fixturenames", ())
            return 2, sum(name in fixtures for name in BUILT_ONCE)
        if unit in readers:
            return 4, 0
        if unit in kit:
            return 3, 0
        return (1 if unit in slow else 5), 0

    items.sort(key=rank)  # stable: a module's tests keep their order


@pytest.fixture(scope="session")
def starter_kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The starter campaign's kit (A4, every language), built once per test run (about half a
    minute of CPU). Tests only read it; its cache (OUT/.cache) seeds the builds of campaigns
    named like it (a starter copy, test_build's small campaign), whose shared decks are then
    not drawn again (a piece's HTML, hence its cache key, has the campaign's name in its
    title). Two builds into OUT: French without PNGs, then English with them. No test reads a
    French PNG (PNGs are rasterised by the same code whatever the language: the English ones
    are read, in test_build.py and test_tts.py), and they were a sixth of this fixture's CPU;
    every French PDF is read. The English build comes last: a build keeps only the cache
    entries it used (store.prune), and every build seeded from this cache is English. On one
    process: build workers each start their own WeasyPrint and fonts (a fifth more CPU here),
    and under pytest-xdist the other core is busy with the other worker's tests anyway; the
    command's workers are tested on tts_kit's build and test_build's PNG and TTS rebuild."""
    from synergy_forge.cli import main

    def build(out: Path) -> None:
        for language, png in (("fr", ["--no-png"]), ("en", [])):
            result = CliRunner().invoke(main, ["build", "--out", str(out), "--jobs", "1",
                                               "--lang", language, *png])
            assert result.exit_code == 0, result.output

    return once_per_run(tmp_path_factory, "starter-kit", build)


@pytest.fixture(scope="session")
def small_kit(tmp_path_factory: pytest.TempPathFactory, starter_kit: Path) -> Path:
    """ROOT, with support.kits.build_small(ROOT, "Same", "a") done in it (ROOT/camp, two
    missions, and its English kit without PNGs in ROOT/a), once per test run: test_build's
    tests copy it (same_kit) or its cache (seeded). The campaign is named as the starter is
    (support.kits.STARTER): its build starts from the starter kit's cache and draws only what
    differs (its missions, its goal and action cards, those groups' sheets, the rulebook and
    the challenge sheet), half the CPU of a build from nothing (a build from a cache equals
    one without: test_build)."""
    from support.kits import build_small

    def build(root: Path) -> None:
        root.mkdir()
        shutil.copytree(starter_kit / ".cache", root / "a" / ".cache")
        build_small(root, "Same", "a")

    return once_per_run(tmp_path_factory, "small-kit", build)


@pytest.fixture(scope="session")
def shop_kit(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """ROOT/camp (support.kits.small_campaign(ROOT, "Mission", SHOP): "Small", "Petite" in
    French) and its French kit built with --preset dtc, from ROOT by relative paths, in
    ROOT/out, once per test run: test_dtc reads its decks; test_build's tgc case, whose card
    and bleed are DTC's (63.5 x 88.9 mm, 3.175 mm), builds the same campaign from its cache,
    drawing nothing (a build from a cache equals one without: test_build). Without PNGs
    (--no-png, which dtc, whose own output is its decks' PDFs, allows): no test reads them
    (the tgc case rasterises the pieces it checks), and they were half of this build."""
    from support.kits import SHOP, small_campaign

    from synergy_forge.cli import main
    from synergy_forge.printing import build as render

    every_job = render.jobs_for

    def cards_only(languages: list[str]) -> list:
        return [job for job in every_job(languages) if job.kind == "cards"
                or (job.kind, job.group) == ("sheets", "numbers")]

    def build(root: Path) -> None:
        root.mkdir()
        small_campaign(root, "Mission", SHOP)
        # The cards documents alone (their DTC decks are made from them), and the number
        # sheets (a shop's backs framed on a home sheet: test_build): no test reads this kit's
        # other sheets, rulebook, challenge sheet or calibration page, which were about half
        # of its drawing; the print-and-play PDF is then made of the mission cards.
        with contextlib.chdir(root), pytest.MonkeyPatch.context() as patch:
            patch.setattr(render, "jobs_for", cards_only)
            patch.setattr(render, "COMBINED", ["cards-missions.pdf"])
            result = CliRunner().invoke(main, ["build", "camp", "--out", "out", "--preset",
                                               "dtc", "--no-png", "--jobs", "1", "--lang",
                                               "fr"])
        assert result.exit_code == 0, result.output
        assert "out/fr/dtc/numbers.pdf" in result.output

    return once_per_run(tmp_path_factory, "shop-kit", build)


@pytest.fixture(scope="session")
def tts_kit(tmp_path_factory: pytest.TempPathFactory, starter_kit: Path) -> Path:
    """ROOT/camp (support.kits.tts_campaign: three missions and a goal card of its own, in
    English and French) and its English kit with PNGs and the Tabletop Simulator export, in
    ROOT/out, built from ROOT by relative paths once per test run: test_tts reads it;
    test_build's PNG and TTS rebuild (English) starts from its cache (its PNGs, shrunk cards
    and sheets made already). The campaign is named as the starter is: its build starts from
    the starter kit's cache, and draws only what differs (its missions, its goal card's piece,
    the sheets' frames, the rulebook and challenge sheet), and rasterises the shared decks'
    faces again only for their TTS images (their PNGs are kept: the same key, the same bytes).
    That a build from a cache equals one without is tested in test_build. English only: the
    French build was a third of this fixture's time for what test_tts reads of it, the saved
    object's names and its sheets' file names, which test_tts.french makes with tts.export
    from stand-in card images."""
    from support.kits import tts_campaign

    from synergy_forge.cli import main

    def build(root: Path) -> None:
        root.mkdir()
        tts_campaign(root / "camp")
        shutil.copytree(starter_kit / ".cache", root / "out" / ".cache")
        with contextlib.chdir(root):
            result = CliRunner().invoke(main, ["build", "camp", "--out", "out", "--tts",
                                               "--jobs", "2", "--lang", "en"])
        assert result.exit_code == 0, result.output
        assert "Tabletop Simulator" in result.output

    return once_per_run(tmp_path_factory, "tts-kit", build)


@pytest.fixture(scope="session")
def rulebook() -> Rulebook:
    return standard_rulebook(native=True)


@pytest.fixture(scope="session")
def data_rulebook() -> Rulebook:
    return standard_rulebook(native=False)


@pytest.fixture
def harfbuzz_subsetter() -> None:
    """For a test comparing the bytes of two drawings: where WeasyPrint has no HarfBuzz
    subsetter and falls back to fontTools, each PDF's fonts carry the time they were drawn
    (printing.draw.fonts_dated_by_fonttools), and such a test would fail by the clock."""
    from synergy_forge.printing.draw import fonts_dated_by_fonttools

    if fonts_dated_by_fonttools():
        pytest.fail("this test compares the bytes of two drawings: it needs HarfBuzz's font "
                    "subsetter, apt-get install libharfbuzz-subset0 (README; .ci/run installs "
                    "it)")


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    """One headless Chromium per test process (Playwright), shared by test_studio and
    test_table_browser: each test opens contexts of its own in it (pages, storage and cookies
    are a context's), and each module had launched one, about 1.5-2 s of CPU with Playwright's
    driver, where xdist ran both modules on one worker."""
    from support.browser import ARGS, CHROMIUM

    if not Path(CHROMIUM).exists():
        pytest.fail("the browser tests need Chromium: apt-get install chromium-headless-shell "
                    "(README)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        chromium = playwright.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        yield chromium
        chromium.close()


def pytest_sessionfinish(session: pytest.Session) -> None:
    """Every object left is frozen (gc.freeze): pytest's unraisable-exception plugin then
    collects garbage twice more, and the interpreter once at exit, each over a worker's whole
    heap (a million objects after a run: about 1.5 s each), and the run waits for the last
    worker to be done with them. Garbage found then would only be reported if its __del__
    raised; every test's own objects were collected as it ran."""
    import gc

    gc.freeze()
