"""The full print-and-play kit in one language, against WeasyPrint alone on the same HTML.

    .venv/bin/python bench/bench_build.py [--lang en] [--repeat 5]

Times, on one process then on every core:
  - `printing.build.build` without PNGs: templates, layout, WeasyPrint, the fit check, atomic writes
    and the combined PDF;
  - WeasyPrint alone: `HTML(string=…).write_pdf(stylesheets=[kit.css])` on exactly the final
    HTML of each document (generated beforehand, not timed), one after the other, each with
    its own font configuration and stylesheet, as `weasyprint -s kit.css` would;
and, separately, the build with its 300 DPI PNGs, and with them the Tabletop Simulator export
(`--tts`), whose cost is the difference between those two (target, issue 13: at most 20%).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

from synergy_forge.authoring.loading import read_campaign
from synergy_forge.cardtext.i18n import Translator
from synergy_forge.printing.build import build
from synergy_forge.printing.draw import url_fetcher
from synergy_forge.printing.html import html_for
from synergy_forge.printing.jobs import Options, jobs_for
from synergy_forge.resources import starter_campaign, templates_dir

RUNS = {  # label: (processes, PNGs, TTS); 0 processes: WeasyPrint alone
    "WeasyPrint alone": (0, False, False),
    "build, 1 process": (1, False, False),
    "build, all cores": (None, False, False),
    "build with PNGs, all cores": (None, True, False),
    "build with PNGs and TTS, all cores": (None, True, True),
}


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lang", default="en")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--run", choices=RUNS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        print(json.dumps(run(args.run, args.lang)))
        return
    # Each run in a fresh process (WeasyPrint alone leaves a process slower: its font
    # configurations and garbage stay), the runs alternating, `--repeat` rounds. This host's
    # speed drifts by a quarter within minutes, so each ratio is taken within one round (the
    # build against the WeasyPrint run just before it, TTS against the build with PNGs just
    # before it) and the median over the rounds is reported, with the best times.
    seconds: dict[str, list[float]] = {label: [] for label in RUNS}
    cpu: dict[str, list[float]] = {label: [] for label in RUNS}
    for _ in range(args.repeat):
        for label in RUNS:
            output = subprocess.run([sys.executable, __file__, "--lang", args.lang,
                                     "--run", label], check=True, capture_output=True,
                                    text=True).stdout
            measured = json.loads(output.splitlines()[-1])
            seconds[label].append(measured["seconds"])
            cpu[label].append(measured["cpu"])
    alone = "WeasyPrint alone"
    print(f"language {args.lang}, {os.cpu_count()} cores, {args.repeat} rounds; best time, "
          "and the median of the ratios taken within each round")
    print(f"{alone + ', same HTML, 1 process:':39} {min(seconds[alone]):6.2f} s, "
          f"CPU {min(cpu[alone]):6.2f} s")
    for label in list(RUNS)[1:]:
        ratio = median(s / a for s, a in zip(seconds[label], seconds[alone], strict=True))
        print(f"{label + ':':39} {min(seconds[label]):6.2f} s  ({ratio:.2f}x), "
              f"CPU {min(cpu[label]):6.2f} s")
    png, tts = (f"build with PNGs{x}, all cores" for x in ("", " and TTS"))
    wall = median(t / p - 1 for t, p in zip(seconds[tts], seconds[png], strict=True))
    used = median(t / p - 1 for t, p in zip(cpu[tts], cpu[png], strict=True))
    print(f"the TTS export adds {100 * wall:+.0f}% to the build with PNGs, {100 * used:+.0f}% "
          "of CPU time (medians)")


def run(label: str, language: str) -> dict[str, float]:
    """One measured run in this (fresh) process: the campaign is read and, for WeasyPrint
    alone, the HTML generated beforehand, untimed; WeasyPrint is imported before timing both."""
    from weasyprint import CSS, HTML
    from weasyprint.text.fonts import FontConfiguration

    campaign = read_campaign(starter_campaign()).campaign
    assert campaign is not None
    processes, png, tts = RUNS[label]
    documents = [html_for(job, campaign, Options(png=False), Translator(job.language))[0]
                 for job in jobs_for([language])]
    os.environ["SOURCE_DATE_EPOCH"] = "1767225600"
    with tempfile.TemporaryDirectory() as out:
        start, used = time.perf_counter(), cpu_seconds()
        if processes == 0:
            for html in documents:
                fonts = FontConfiguration()
                # (Before 2026-11-22 the documents linked the stylesheet themselves.)
                css = [] if 'rel="stylesheet"' in html else [
                    CSS(filename=str(templates_dir() / "kit.css"), font_config=fonts,
                        url_fetcher=url_fetcher([]))]
                HTML(string=html, base_url=str(templates_dir()) + "/",
                     url_fetcher=url_fetcher([])).write_pdf(stylesheets=css, font_config=fonts)
        else:
            build(campaign, Path(out), [language], Options(png=png, tts=tts), jobs=processes)
        return {"seconds": time.perf_counter() - start, "cpu": cpu_seconds() - used}


def cpu_seconds() -> float:
    """User and system time of this process and of its finished worker processes."""
    me, workers = (resource.getrusage(who) for who in
                   (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return me.ru_utime + me.ru_stime + workers.ru_utime + workers.ru_stime


if __name__ == "__main__":
    main()
