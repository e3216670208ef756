"""The full print-and-play kit in one language, against WeasyPrint alone on the same HTML.

    .venv/bin/python bench/bench_build.py [--lang en] [--repeat 3]

Times, on one process then on every core:
  - `render.build` without PNGs: templates, layout, WeasyPrint, the fit check, atomic writes
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

from synergy_forge.authoring.loading import read_campaign
from synergy_forge.printing.i18n import Translator
from synergy_forge.printing.render import Options, build, html_for, jobs_for, url_fetcher
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
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--run", choices=RUNS, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.run:
        print(json.dumps(run(args.run, args.lang)))
        return
    timings: dict[str, float] = {}
    cpu: dict[str, float] = {}
    # Each run in a fresh process (WeasyPrint alone leaves a process slower: its font
    # configurations and garbage stay), repeated `--repeat` times, the runs alternating, and
    # the best kept: a shared machine is noisy. CPU time (the process and its workers) varies
    # less than wall time there.
    for _ in range(args.repeat):
        for label in RUNS:
            output = subprocess.run([sys.executable, __file__, "--lang", args.lang,
                                     "--run", label], check=True, capture_output=True,
                                    text=True).stdout
            measured = json.loads(output.splitlines()[-1])
            timings[label] = min(measured["seconds"], timings.get(label, measured["seconds"]))
            cpu[label] = min(measured["cpu"], cpu.get(label, measured["cpu"]))
    alone = timings.pop("WeasyPrint alone")
    print(f"language {args.lang}, {os.cpu_count()} cores, best of {args.repeat}")
    print(f"{'WeasyPrint alone, same HTML, 1 process:':39} {alone:6.2f} s, "
          f"CPU {cpu['WeasyPrint alone']:6.2f} s")
    for label, seconds in timings.items():
        print(f"{label + ':':39} {seconds:6.2f} s  ({seconds / alone:.2f}x), "
              f"CPU {cpu[label]:6.2f} s")
    png, tts = (f"build with PNGs{x}, all cores" for x in ("", " and TTS"))
    print(f"the TTS export adds {100 * (timings[tts] - timings[png]) / timings[png]:+.0f}% to "
          f"the build with PNGs, {100 * (cpu[tts] - cpu[png]) / cpu[png]:+.0f}% of CPU time")


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
