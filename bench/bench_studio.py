"""The studio's speed, and `build --watch`'s: a save reaching the open page while the estimates
run, and a one-mission rebuild against a cold build.

    .venv/bin/python bench/bench_studio.py [--before REV] [--rounds 4] [--busy 2]

1. One card, front and back, to PNG through `preview.CardPreview` (the studio's API): HTML from
   the templates, WeasyPrint, PDFium at 150 DPI. Best and median of 20, after one warm-up, in
   wall time and in this process's CPU time.
2. Save to screen, in headless Chromium (Debian's build, through Playwright) on the studio of a
   copy of the starter campaign (30 missions), its page open for 3 s first so that the
   estimates are running and growing: the time from a mission file's save to (a) its new title
   on screen, (b) its new card image loaded and on screen, with no page reload. Measured in
   the page (the frame after the change, on the wall clock this process reads), not by polling
   it. On the host as it is ("idle"), then with --busy processes spinning at this one's
   priority (the cores busy).
3. The studio's cold start (the process started to every card on the page) against a save's
   new card (2b): the studio's one-mission rebuild.
4. `build --watch --lang en` (all cores), with the cards' PNGs and with --no-png: its first
   build (a cold build: a fresh process, an empty --out) and then one mission's title edited,
   from the save to the rebuild's end ("watching" said again), three edits per process.

With --before REV, everything but (1) is measured on REV's code too (exported with git
archive), the two alternating round by round in one run: the host's load drifts within
minutes. The load average is printed before each round. Targets (issue 46): (2a) within
0.3 s idle and busy; (3) and (4) the rebuild within 0.2x of the cold start.
"""

from __future__ import annotations

import argparse
import os
import queue
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from synergy_forge.authoring.loading import read_campaign  # noqa: E402
from synergy_forge.printing.preview import CardPreview  # noqa: E402
from synergy_forge.resources import starter_campaign  # noqa: E402

CHROMIUM = shutil.which("chromium-headless-shell") or shutil.which("chromium") or \
    "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu",
                 "--disable-background-networking", "--disable-component-update",
                 "--disable-sync", "--no-first-run"]
#: The mission edited: the fifth, in the middle of the page's first screen.
EDITED = "05-"
#: How long a page is open before a save, and between two saves: the estimates are running.
OPEN = 3.0
SAVES_PER_VISIT = 2
#: The builds measured: the kit as `build` makes it (PDFs and the cards' PNGs), and the PDFs
#: alone, where the fixed cost of a rebuild weighs most against a cold build.
BUILDS = {"with PNGs": (), "--no-png": ("--no-png",)}


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


def export(rev: str, into: Path) -> Path:
    """REV's files (git archive), to run its code from."""
    into.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(ROOT), "archive", rev], check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


class Lines:
    """A process's output lines, each with the wall time it was read at."""

    def __init__(self, stream) -> None:
        self.lines: queue.Queue[tuple[float, str]] = queue.Queue()
        threading.Thread(target=self._read, args=(stream,), daemon=True).start()

    def _read(self, stream) -> None:
        for line in stream:
            self.lines.put((time.time(), line))
        self.lines.put((time.time(), ""))

    def until(self, pattern: str, seconds: float = 600) -> tuple[float, str]:
        deadline = time.monotonic() + seconds
        while True:
            at, line = self.lines.get(timeout=max(0.1, deadline - time.monotonic()))
            if line == "":
                raise SystemExit(f"the process ended before printing {pattern!r}")
            if re.search(pattern, line):
                return at, line


def start(code: Path, *args: str) -> tuple[subprocess.Popen, Lines, Lines]:
    process = subprocess.Popen(
        [sys.executable, "-m", "synergy_forge", *args], stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONPATH": str(code), "PYTHONUNBUFFERED": "1"})
    return process, Lines(process.stdout), Lines(process.stderr)


def stop(process: subprocess.Popen) -> None:
    process.terminate()
    try:
        process.wait(20)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@contextmanager
def busy(count: int) -> Iterator[None]:
    """`count` processes spinning, at this process's priority: the cores busy."""
    spinners = [subprocess.Popen([sys.executable, "-c", "while True: pass"])
                for _ in range(count)]
    try:
        time.sleep(0.5)
        yield
    finally:
        for spinner in spinners:
            spinner.kill()
            spinner.wait()


#: Installed in the page before a save: the wall time (ms) of the frame after the edited
#: mission's heading shows `title`, and of the frame after its new front image has loaded.
ARM = """([file, title]) => {
    const section = () => document.querySelector(`section.mission[data-file$="${file}"]`);
    const before = section().querySelector('img.face').getAttribute('src');
    const seen = window.seen = {};
    const frame = (name) => requestAnimationFrame(() => { seen[name] = Date.now(); });
    const check = () => {
        const s = section();
        if (!s) return;
        if (!seen.titleChanged && s.querySelector('h3').textContent.includes(title)) {
            seen.titleChanged = true;
            frame('title');
        }
        const img = s.querySelector('img.face');
        if (!seen.cardChanged && img && img.getAttribute('src') !== before) {
            if (img.complete && img.naturalWidth > 0) {
                seen.cardChanged = true;
                frame('card');
            } else {
                img.addEventListener('load', check, { once: true });
            }
        }
        if (seen.titleChanged && seen.cardChanged) observer.disconnect();
    };
    const observer = new MutationObserver(check);
    observer.observe(document.getElementById('missions'),
                     { subtree: true, childList: true, characterData: true, attributes: true });
}"""

ALL_CARDS = ("document.querySelectorAll('img.face').length === 60 && [...document"
             ".querySelectorAll('img.face')].every(i => i.complete && i.naturalWidth)")


def wait(page, condition: str, seconds: float) -> None:
    deadline = time.monotonic() + seconds
    while not page.evaluate(f"() => Boolean({condition})"):
        if time.monotonic() > deadline:
            raise SystemExit(f"not true after {seconds} s: {condition}")
        time.sleep(0.1)


class Studio:
    """One variant's studio on its own copy of the campaign, for the whole run."""

    def __init__(self, name: str, code: Path, work: Path) -> None:
        self.name = name
        self.folder = work / f"camp-{name}"
        shutil.copytree(starter_campaign(), self.folder)
        self.mission = next((self.folder / "missions").glob(f"{EDITED}*.yaml"))
        self.original = self.mission.read_text(encoding="utf-8")
        self.started = time.time()
        self.process, out, _ = start(code, "studio", str(self.folder), "--port", "0",
                                     "--no-browser")
        self.url = re.search(r"http://\S+/", out.until("http://")[1]).group(0)  # type: ignore
        self.saves = 0
        self.cold: float | None = None

    def visit(self, page, saves: int) -> list[tuple[float, float]]:
        """Open the page, let the estimates run, save `saves` times: (to the title, to the
        card) of each save, in seconds."""
        page.goto(self.url)
        wait(page, ALL_CARDS, 300)
        if self.cold is None:  # the first visit: the studio's cold start
            self.cold = time.time() - self.started
        found = []
        for _ in range(saves):
            time.sleep(OPEN)
            self.saves += 1
            title = f"Saved {self.name} {self.saves}"
            page.evaluate(ARM, [self.mission.name, title])
            saved = time.time()
            self.mission.write_text(re.sub(r'title: \{en: "[^"]*"', f'title: {{en: "{title}"',
                                           self.original), encoding="utf-8")
            wait(page, "window.seen.title && window.seen.card", 60)
            seen = page.evaluate("() => window.seen")
            found.append((seen["title"] / 1000 - saved, seen["card"] / 1000 - saved))
        page.goto("about:blank")  # the estimates stop while no page is open
        return found


def watch_build(code: Path, work: Path, name: str, edits: int, *options: str
                ) -> tuple[float, list[float]]:
    """`build --watch` on a fresh copy into an empty --out: its first build, and each edit's
    rebuild, in seconds."""
    folder = work / f"build-{name}"
    shutil.rmtree(folder, ignore_errors=True)
    shutil.copytree(starter_campaign(), folder)
    out = work / f"out-{name}"
    shutil.rmtree(out, ignore_errors=True)
    mission = folder / "missions" / "07-pass-it-left.yaml"
    original = mission.read_text(encoding="utf-8")
    started = time.time()
    process, _, err = start(code, "build", str(folder), "--out", str(out), "--lang", "en",
                            "--watch", *options)
    try:
        cold = err.until("^watching")[0] - started
        rebuilt = []
        for n in range(edits):
            time.sleep(0.5)
            saved = time.time()
            mission.write_text(original.replace('title: {en: "', f'title: {{en: "Edit {n} ', 1),
                               encoding="utf-8")
            rebuilt.append(err.until("^watching")[0] - saved)
    finally:
        stop(process)
    return cold, rebuilt


def summary(values: list[float]) -> str:
    return (f"median {statistics.median(values) * 1000:5.0f} ms, worst "
            f"{max(values) * 1000:5.0f} ms ({len(values)})")


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--before", metavar="REV", help="also measure REV's code, alternating")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--busy", type=int, default=os.cpu_count() or 2,
                        help="processes spinning for the busy host (default: one per core)")
    parser.add_argument("--no-card", action="store_true", help="skip (1)")
    parser.add_argument("--no-build", action="store_true", help="skip (4)")
    args = parser.parse_args()
    print(f"{os.cpu_count()} cores, load average {os.getloadavg()[0]:.1f}")
    if not args.no_card:
        card, cpu = one_card()
        print(f"one card, front and back to PNG: best {min(card) * 1000:.0f} ms, median "
              f"{statistics.median(card) * 1000:.0f} ms (20 runs); CPU time of this process: "
              f"best {min(cpu) * 1000:.0f} ms, median {statistics.median(cpu) * 1000:.0f} ms")
    from playwright.sync_api import sync_playwright

    loads: list[float] = []
    with tempfile.TemporaryDirectory() as temp:
        work = Path(temp)
        variants = [("after", ROOT)]
        if args.before:
            variants.insert(0, ("before", export(args.before, work / "before")))
        latency: dict[tuple[str, str], list[tuple[float, float]]] = {}
        builds: dict[tuple[str, str], list[tuple[float, list[float]]]] = {}
        studios: dict[str, Studio] = {}
        try:
            with sync_playwright() as playwright:
                browser = playwright.chromium.launch(executable_path=CHROMIUM,
                                                     args=CHROMIUM_ARGS)
                page = browser.new_page(viewport={"width": 1280, "height": 900})
                for name, code in variants:  # one at a time: each cold start alone
                    studios[name] = Studio(name, code, work)
                    studios[name].visit(page, 0)
                for round_ in range(args.rounds):
                    order = variants if round_ % 2 == 0 else variants[::-1]
                    loads.append(os.getloadavg()[0])
                    print(f"round {round_ + 1}: load average {loads[-1]:.1f}", flush=True)
                    for host in ("idle", "busy"):
                        for name, _ in order:
                            if host == "busy":
                                with busy(args.busy):
                                    found = studios[name].visit(page, SAVES_PER_VISIT)
                            else:
                                found = studios[name].visit(page, SAVES_PER_VISIT)
                            latency.setdefault((name, host), []).extend(found)
                    if not args.no_build:
                        for kind, options in BUILDS.items():
                            for name, code in order:
                                builds.setdefault((name, kind), []).append(
                                    watch_build(code, work, name, 3, *options))
                browser.close()
        finally:
            for studio in studios.values():
                stop(studio.process)
    print(f"load average while measuring: {min(loads):.1f} to {max(loads):.1f}")
    for name, _ in variants:
        for host in ("idle", "busy"):
            found = latency[(name, host)]
            print(f"{name:6} {host}: save -> title on screen: {summary([t for t, _ in found])}; "
                  f"-> card on screen: {summary([c for _, c in found])}")
        cold = studios[name].cold or 0.0
        cards = [c for host in ("idle", "busy") for _, c in latency[(name, host)]]
        print(f"{name:6} studio: cold start to every card {cold:.2f} s; a save's card "
              f"median {statistics.median(cards):.2f} s ({statistics.median(cards) / cold:.0%})")
    for (name, kind), found in builds.items():
        colds = [c for c, _ in found]
        ratios = [statistics.median(edits) / c for c, edits in found]
        edits = [e for _, es in found for e in es]
        print(f"{name:6} build --watch {kind}: cold {statistics.median(colds):.2f} s (best "
              f"{min(colds):.2f}); one title edited {summary(edits)}; median ratio per round "
              f"{statistics.median(ratios):.0%}")


if __name__ == "__main__":
    main()
