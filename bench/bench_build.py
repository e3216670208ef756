"""The full print-and-play kit in one language, against WeasyPrint alone on the same HTML.

    .venv/bin/python bench/bench_build.py [--lang en]

Times, on one process then on every core:
  - `render.build` without PNGs: templates, layout, WeasyPrint, the fit check, atomic writes
    and the combined PDF;
  - WeasyPrint alone: `HTML(string=…).write_pdf()` on exactly the final HTML of each document
    (generated beforehand, not timed), one after the other;
and, separately, the build with its 300 DPI PNGs.
"""

from __future__ import annotations

import argparse
import os
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
    timings = {}
    for label, jobs, png in (("build, 1 process", 1, False), ("build, all cores", None, False),
                             ("build with PNGs, all cores", None, True)):
        with tempfile.TemporaryDirectory() as out:
            start = time.perf_counter()
            build(campaign, Path(out), [args.lang], Options(png=png), jobs=jobs)
            timings[label] = time.perf_counter() - start
    print(f"{len(documents)} documents, language {args.lang}, {os.cpu_count()} cores")
    print(f"WeasyPrint alone, same HTML, 1 process: {alone:6.2f} s")
    for label, seconds in timings.items():
        print(f"{label + ':':39} {seconds:6.2f} s  ({seconds / alone:.2f}x)")


if __name__ == "__main__":
    main()
