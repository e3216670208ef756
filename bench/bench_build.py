"""The full print-and-play kit in one language, against WeasyPrint alone on the same HTML.

    .venv/bin/python bench/bench_build.py [--lang en] [--repeat 2]

Times, on one process then on every core:
  - `render.build` without PNGs: templates, layout, WeasyPrint, the fit check, atomic writes
    and the combined PDF;
  - WeasyPrint alone: `HTML(string=…).write_pdf()` on exactly the final HTML of each document
    (generated beforehand, not timed), one after the other;
and, separately, the build with its 300 DPI PNGs, and with them the Tabletop Simulator export
(`--tts`), whose cost is the difference between those two (target, issue 13: at most 20%).
"""

from __future__ import annotations

import argparse
import os
import resource
import tempfile
import time
from pathlib import Path

from synergy_forge.authoring.loading import read_campaign
from synergy_forge.printing.i18n import Translator
from synergy_forge.printing.render import Options, build, html_for, jobs_for, url_fetcher
from synergy_forge.resources import starter_campaign, templates_dir


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lang", default="en")
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    from weasyprint import HTML

    folder = starter_campaign()
    campaign = read_campaign(folder).campaign
    assert campaign is not None
    options = Options(png=False)
    documents = [html_for(job, campaign, options, Translator(job.language))[0]
                 for job in jobs_for([args.lang])]
    os.environ["SOURCE_DATE_EPOCH"] = "1767225600"
    start = time.perf_counter()
    for html in documents:
        HTML(string=html, base_url=str(templates_dir()) + "/",
             url_fetcher=url_fetcher([])).write_pdf()
    alone = time.perf_counter() - start
    timings: dict[str, float] = {}
    cpu: dict[str, float] = {}
    # The two builds with PNGs alternate, best of `--repeat`, as a shared machine is noisy; CPU
    # time (this process and its workers) varies less than wall time there.
    runs = [("build, 1 process", 1, False, False), ("build, all cores", None, False, False)]
    runs += [("build with PNGs, all cores", None, True, False),
             ("build with PNGs and TTS, all cores", None, True, True)] * args.repeat
    for label, jobs, png, tts in runs:
        with tempfile.TemporaryDirectory() as out:
            start, used = time.perf_counter(), cpu_seconds()
            build(campaign, Path(out), [args.lang], Options(png=png, tts=tts), jobs=jobs)
            seconds, used = time.perf_counter() - start, cpu_seconds() - used
            timings[label] = min(seconds, timings.get(label, seconds))
            cpu[label] = min(used, cpu.get(label, used))
    print(f"{len(documents)} documents, language {args.lang}, {os.cpu_count()} cores")
    print(f"WeasyPrint alone, same HTML, 1 process: {alone:6.2f} s")
    for label, seconds in timings.items():
        print(f"{label + ':':39} {seconds:6.2f} s  ({seconds / alone:.2f}x), "
              f"CPU {cpu[label]:6.2f} s")
    png, tts = (f"build with PNGs{x}, all cores" for x in ("", " and TTS"))
    print(f"the TTS export adds {100 * (timings[tts] - timings[png]) / timings[png]:+.0f}% to "
          f"the build with PNGs, {100 * (cpu[tts] - cpu[png]) / cpu[png]:+.0f}% of CPU time")


def cpu_seconds() -> float:
    """User and system time of this process and of its finished worker processes."""
    me, workers = (resource.getrusage(who) for who in
                   (resource.RUSAGE_SELF, resource.RUSAGE_CHILDREN))
    return me.ru_utime + me.ru_stime + workers.ru_utime + workers.ru_stime


if __name__ == "__main__":
    main()
