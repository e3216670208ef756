"""The difficulty estimate's cost against the coop bot's on the same missions and --games.

    .venv/bin/python bench/bench_ladder.py [--games 100] [--checkout DIR …] [--repeats 1]

For each checkout (default: this one), runs `synergy-forge playtest missions/starter --json`
with its default bots (the skill ladder) and again with `--bots coop`, in that checkout's own
venv, and measures the CPU seconds of the whole process tree (the command and its workers:
RUSAGE_CHILDREN of a child that waits for them), not wall time, so that other work on the
machine shares the cores without inflating the figures. Checkouts run alternately, one command
at a time. Prints each run and the ratio ladder / coop per checkout.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

#: Runs one command and prints its process tree's CPU seconds (user + system) as JSON.
MEASURE = """
import json, resource, subprocess, sys
code = subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL).returncode
used = resource.getrusage(resource.RUSAGE_CHILDREN)
print(json.dumps({"code": code, "cpu": used.ru_utime + used.ru_stime}))
"""


def cpu_seconds(checkout: Path, args: list[str]) -> float:
    python = checkout / ".venv" / "bin" / "python"
    command = [str(python), "-m", "synergy_forge", "playtest",
               str(checkout / "missions" / "starter"), "--json", *args]
    out = subprocess.run([sys.executable, "-c", MEASURE, *command], capture_output=True,
                         text=True, check=True, cwd=checkout)
    found = json.loads(out.stdout.strip().splitlines()[-1])
    if found["code"] not in (0, 1):  # 1: --check findings are not asked for, but tolerated
        raise SystemExit(f"{checkout}: playtest exited {found['code']}")
    return float(found["cpu"])


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--checkout", type=Path, action="append", default=[])
    parser.add_argument("--repeats", type=int, default=1)
    args = parser.parse_args()
    checkouts = args.checkout or [ROOT]
    results: dict[Path, dict[str, list[float]]] = {c: {"ladder": [], "coop": []}
                                                   for c in checkouts}
    for _ in range(args.repeats):
        for kind, extra in (("ladder", []), ("coop", ["--bots", "coop"])):
            for checkout in checkouts:
                seconds = cpu_seconds(checkout, ["--games", str(args.games), *extra])
                results[checkout][kind].append(seconds)
                print(f"{checkout}: {kind:6} {seconds:7.1f} CPU s", flush=True)
    for checkout, found in results.items():
        ladder, coop = min(found["ladder"]), min(found["coop"])
        print(f"{checkout}: ladder {ladder:.1f} s, coop {coop:.1f} s: {ladder / coop:.2f}x "
              f"(fewest of {args.repeats})")


if __name__ == "__main__":
    main()
