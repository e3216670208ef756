"""Writing a few files into a folder and validating them from there, as a designer would."""

from __future__ import annotations

import os
from pathlib import Path

from synergy_forge.authoring.validate import Report, validate_paths


def validate_files(folder: Path, files: dict[str, str], targets: list[Path]) -> Report:
    """Write `files` (relative name -> text) under `folder`, then validate `targets` with
    `folder` as the current folder, so that diagnostics name the files as written."""
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        return validate_paths(targets)
    finally:
        os.chdir(cwd)
