"""The studio's speed: one card drawn, and a save reaching the open page.

    .venv/bin/python bench/bench_studio.py [--saves 10]

1. One card, front and back, to PNG through `preview.CardPreview` (the studio's API): HTML from
   the templates, WeasyPrint, PDFium at 150 DPI. Best and median of 20, after one warm-up, in
   wall time and in this process's CPU time (what it takes when no other process wants the
   core; the load average is printed).
2. Update latency, in headless Chromium (Debian's package, through Playwright) on the studio
   of a copy of the starter campaign (30 missions): the time from a mission file's save to
   (a) its new title shown on the page, (b) its new card image loaded, with no page reload.
   Estimates run meanwhile, as they do for a user.
Targets (issue 14): (1) at most 150 ms; (2) within 1 s.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from synergy_forge.authoring.loading import read_campaign  # noqa: E402
from synergy_forge.printing.preview import CardPreview  # noqa: E402
from synergy_forge.resources import starter_campaign  # noqa: E402

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]


def one_card() -> tuple[list[float], list[float]]:
    campaign = read_campaign(starter_campaign()).campaign
    assert campaign is not None
    preview = CardPreview(campaign, "en")
    card = preview.kit["missions"][3]
    times, cpu = [], []
    for _ in range(21):
        started, used = time.perf_counter(), time.process_time()
        for face in (card.front, card.back):
            preview.render(preview.html("missions", face))
        times.append(time.perf_counter() - started)
        cpu.append(time.process_time() - used)
    return times[1:], cpu[1:]


def latency(saves: int) -> tuple[list[float], list[float]]:
    from playwright.sync_api import sync_playwright

    texts, cards = [], []
    with tempfile.TemporaryDirectory() as work:
        folder = Path(work) / "camp"
        shutil.copytree(starter_campaign(), folder)
        server = subprocess.Popen(
            [sys.executable, "-m", "synergy_forge", "studio", str(folder), "--port", "0",
             "--no-browser"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
            env={**os.environ, "PYTHONPATH": str(ROOT)})
        assert server.stdout is not None
        url = re.search(r"http://\S+/", server.stdout.readline()).group(0)  # type: ignore
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path="/usr/bin/chromium",
                                                     args=CHROMIUM_ARGS)
                page = browser.new_page()
                page.goto(url)
                poll(page, "document.querySelectorAll('img.face').length === 60 && [...document"
                     ".querySelectorAll('img.face')].every(i => i.complete && i.naturalWidth)",
                     120)
                page.evaluate("() => { window.marker = 1; }")
                mission = folder / "missions" / "05-mirror.yaml"
                if not mission.exists():
                    mission = sorted((folder / "missions").glob("05-*.yaml"))[0]
                original = mission.read_text(encoding="utf-8")
                for n in range(saves):
                    title = f"Saved {n}"
                    before = page.evaluate("() => document.querySelectorAll('section.mission')[4]"
                                           ".querySelector('img.face').getAttribute('src')")
                    started = time.perf_counter()
                    mission.write_text(re.sub(r'title: \{en: "[^"]*"', f'title: {{en: "{title}"',
                                              original), encoding="utf-8")
                    poll(page, "document.querySelectorAll('section.mission')[4]"
                         f".querySelector('h3').textContent.includes('{title}')", 10)
                    texts.append(time.perf_counter() - started)
                    poll(page, "(() => { const i = document.querySelectorAll('section.mission')[4]"
                         f".querySelector('img.face'); return i.getAttribute('src') !== '{before}'"
                         " && i.complete && i.naturalWidth > 0; })()", 10)
                    cards.append(time.perf_counter() - started)
                    time.sleep(0.5)
                assert page.evaluate("() => window.marker") == 1, "the page was reloaded"
                mission.write_text(original, encoding="utf-8")
                browser.close()
        finally:
            server.terminate()
            server.wait(10)
    return texts, cards


def poll(page, condition: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not page.evaluate(f"() => Boolean({condition})"):
        if time.monotonic() > deadline:
            raise SystemExit(f"not true after {seconds} s: {condition}")
        time.sleep(0.005)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--saves", type=int, default=10)
    args = parser.parse_args()
    card, cpu = one_card()
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    print(f"one card, front and back to PNG: best {min(card) * 1000:.0f} ms, "
          f"median {statistics.median(card) * 1000:.0f} ms (20 runs); CPU time of this "
          f"process: best {min(cpu) * 1000:.0f} ms, median {statistics.median(cpu) * 1000:.0f} ms")
    texts, cards = latency(args.saves)
    for label, values in (("save -> title on the page", texts),
                          ("save -> new card image loaded", cards)):
        print(f"{label}: median {statistics.median(values) * 1000:.0f} ms, "
              f"worst {max(values) * 1000:.0f} ms ({len(values)} saves)")


if __name__ == "__main__":
    main()
