"""Validating 300 mission files: synergy-forge against check-jsonschema, in the same run.

    .venv/bin/python bench/bench_validate.py [--repeat 5]

Builds a campaign of 300 missions (the starter's thirty, ten times over, renumbered) in a
temporary folder, then times, best of --repeat:
  - `synergy-forge validate DIR` as a command (schema + semantic checks + lines and columns),
  - `check-jsonschema --schemafile schemas/mission.schema.json FILES…` on the same 300 files
    (schema only; no extra flags: each schema carries common.schema.json, docs/decisions.md),
  - `validate_paths` inside one process (no interpreter start-up),
  - start-up: `synergy-forge validate FILE` of one mission file, as pre-commit and editors run
    it on every save (target 0.3 s), for a mission of the starter campaign (its campaign.yaml
    and own goals and challenges are read too) and for a loose mission file; best wall time
    and best CPU time (user + system) of --startup-repeat runs, CPU time being what a busy
    machine disturbs least. `--startup-only` skips the rest.
"""

from __future__ import annotations

import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
STARTER = ROOT / "missions" / "starter"
BIN = Path(sys.executable).parent


def build(folder: Path) -> list[Path]:
    for sub in ("challenges", "goals"):
        shutil.copytree(STARTER / sub, folder / sub)
    shutil.copy(STARTER / "campaign.yaml", folder / "campaign.yaml")
    (folder / "missions").mkdir()
    files = []
    for k in range(10):
        for path in sorted((STARTER / "missions").glob("*.yaml")):
            text = path.read_text(encoding="utf-8")
            number = int(re.search(r"^number: (\d+)", text, re.M).group(1)) + 30 * k
            text = re.sub(r"^number: \d+", f"number: {number}", text, flags=re.M)
            text = re.sub(r"^id: (.*)", rf"id: \1-{k}", text, flags=re.M)
            target = folder / "missions" / f"{number:03d}.yaml"
            target.write_text(text, encoding="utf-8")
            files.append(target)
    return files


def best(command: list[str], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        result = subprocess.run(command, capture_output=True, text=True)
        times.append(time.perf_counter() - start)
        if result.returncode != 0:
            raise SystemExit(f"{command[0]} failed:\n{result.stdout}\n{result.stderr}")
    return min(times)


def startup(path: Path, repeat: int) -> tuple[float, float]:
    """(best wall, best CPU) seconds of `synergy-forge validate PATH` as a new process."""
    walls, cpus = [], []
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        result = subprocess.run([str(BIN / "synergy-forge"), "validate", str(path)],
                                capture_output=True, text=True)
        walls.append(time.perf_counter() - start)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        if result.returncode != 0:
            raise SystemExit(f"validate {path} failed:\n{result.stdout}\n{result.stderr}")
    return min(walls), min(cpus)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--startup-repeat", type=int, default=20)
    parser.add_argument("--startup-only", action="store_true")
    args = parser.parse_args()
    in_campaign = next((STARTER / "missions").glob("05-*.yaml"))
    with tempfile.TemporaryDirectory() as tmp:
        loose = Path(tmp) / "loose.yaml"
        shutil.copy(in_campaign, loose)
        for label, path in (("mission in the starter campaign", in_campaign),
                            ("loose mission file", loose)):
            wall, cpu = startup(path, args.startup_repeat)
            print(f"validate one file, {label + ':':32} {wall:6.3f} s wall, {cpu:6.3f} s CPU "
                  f"(best of {args.startup_repeat}; load {os.getloadavg()[0]:.1f})")
    if args.startup_only:
        return
    with tempfile.TemporaryDirectory() as tmp:
        folder = Path(tmp)
        files = build(folder)
        schema = ROOT / "schemas" / "mission.schema.json"
        ours = best([str(BIN / "synergy-forge"), "validate", str(folder)], args.repeat)
        theirs = best([str(BIN / "check-jsonschema"), "--schemafile", str(schema),
                       *map(str, files)], args.repeat)
        from synergy_forge.workspace.validate import validate_paths

        validate_paths([folder])  # warm: schemas compiled, built-ins read
        in_process = []
        for _ in range(args.repeat):
            start = time.perf_counter()
            report = validate_paths([folder])
            in_process.append(time.perf_counter() - start)
        assert report.errors == 0, report.diagnostics[:3]
    print(f"{len(files)} mission files (+ campaign, 2 challenges, 1 goal), best of {args.repeat}")
    print(f"synergy-forge validate (command): {ours:6.3f} s")
    print(f"check-jsonschema (command):       {theirs:6.3f} s")
    print(f"validate_paths (in process):      {min(in_process):6.3f} s")
    print(f"ratio ours / check-jsonschema:    {ours / theirs:6.2f}")


if __name__ == "__main__":
    main()
