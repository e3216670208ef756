"""Incremental builds: a rebuild against a cold build, as a user runs them.

    .venv/bin/python bench/bench_incremental.py [--lang en] [--jobs N] [--repeat 5]

On a copy of the starter campaign, one language, with PNGs, each step a fresh
`python -m synergy_forge build` process (start-up included):
  1. cold: an empty --out;
  2. nothing changed;
  3. one mission's title edited;
  4. --no-cache into another folder, and a byte-for-byte comparison of the two outputs.
Targets (issue 14): step 3 at most 20% of step 1, step 2 at most 10%, step 4 identical.
"""

from __future__ import annotations

import argparse
import filecmp
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from statistics import median

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from synergy_forge.resources import starter_campaign  # noqa: E402


def build(campaign: Path, out: Path, lang: str, jobs: str | None, *extra: str) -> float:
    command = [sys.executable, "-m", "synergy_forge", "build", str(campaign), "--out", str(out),
               "--lang", lang, *extra] + (["--jobs", jobs] if jobs else [])
    started = time.perf_counter()
    subprocess.run(command, check=True, capture_output=True,
                   env={**os.environ, "PYTHONPATH": str(ROOT)})
    return time.perf_counter() - started


def same(a: Path, b: Path) -> list[str]:
    """Files that differ or are missing, cache and lock left out."""
    names = {p.relative_to(a) for p in a.rglob("*") if p.is_file()} | \
        {p.relative_to(b) for p in b.rglob("*") if p.is_file()}
    names = {n for n in names if n.parts[0] not in (".cache", ".lock")}
    return sorted(str(n) for n in names
                  if not ((a / n).is_file() and (b / n).is_file()
                          and filecmp.cmp(a / n, b / n, shallow=False)))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lang", default="en")
    parser.add_argument("--jobs")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    cold, unchanged, edited = [], [], []
    with tempfile.TemporaryDirectory() as work:
        campaign = Path(work) / "camp"
        shutil.copytree(starter_campaign(), campaign)
        mission = campaign / "missions" / "07-pass-it-left.yaml"
        original = mission.read_text(encoding="utf-8")
        # Steps 1 to 3 `--repeat` times (rounds), each time into a new folder from the
        # original title.
        for attempt in range(args.repeat):
            out = Path(work) / f"out{attempt}"
            mission.write_text(original, encoding="utf-8")
            cold.append(build(campaign, out, args.lang, args.jobs))
            unchanged.append(build(campaign, out, args.lang, args.jobs))
            mission.write_text(original.replace("title: {en: \"", "title: {en: \"New ", 1),
                               encoding="utf-8")
            edited.append(build(campaign, out, args.lang, args.jobs))
        fresh = Path(work) / "fresh"
        no_cache = build(campaign, fresh, args.lang, args.jobs, "--no-cache")
        differ = same(out, fresh)
    best = min(cold)
    # This host's speed drifts within minutes: each ratio is taken within one round (the
    # rebuilds against that round's cold build), and the median over the rounds reported.
    kept = median(u / c for u, c in zip(unchanged, cold, strict=True))
    edit = median(e / c for e, c in zip(edited, cold, strict=True))
    print(f"starter campaign, language {args.lang}, PNGs, {os.cpu_count()} cores, "
          f"jobs {args.jobs or 'all'}, {args.repeat} rounds; best time, median ratio")
    print(f"cold build:              {best:6.2f} s")
    print(f"nothing changed:         {min(unchanged):6.2f} s  ({kept:.0%} of cold)")
    print(f"one title edited:        {min(edited):6.2f} s  ({edit:.0%} of cold)")
    print(f"--no-cache (same input): {no_cache:6.2f} s")
    print("output identical to --no-cache: " + ("yes" if not differ else f"NO: {differ[:5]}"))


if __name__ == "__main__":
    main()
