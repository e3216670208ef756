"""`validate`: check any mix of files and folders and gather every diagnostic.

A folder is a repository as designers keep them, next to their CI and tool files: only
Synergy files are checked (kinds.synergy_file), the rest is skipped and listed with
--verbose. A file named on the command line is always checked. Each campaign is read once,
however many of its files are checked.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path

from synergy_forge.authoring.diagnostics import Diagnostic, InvalidInput, Severity
from synergy_forge.authoring.loading import (
    CAMPAIGN_FILE,
    display,
    find_campaign,
    overfull_mission_cards,
)
from synergy_forge.authoring.paths import regular_file
from synergy_forge.authoring.yamlfile import read_document
from synergy_forge.workspace.campaign import TOOL_FOLDER, Workspace
from synergy_forge.workspace.kinds import SUFFIXES, kind_of, synergy_file
from synergy_forge.workspace.schemas import schema_copy_warnings


@dataclass
class Report:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0
    #: (path, why) of what a folder walk left alone, for --verbose
    skipped: list[tuple[str, str]] = field(default_factory=list)

    @property
    def errors(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity is Severity.ERROR)

    @property
    def warnings(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity is Severity.WARNING)

    def to_json(self) -> dict[str, object]:
        return {
            "valid": self.errors == 0,
            "files": self.files,
            "errors": self.errors,
            "warnings": self.warnings,
            "diagnostics": [d.to_json() for d in self.diagnostics],
            "skipped": [{"path": p, "reason": r} for p, r in self.skipped],
        }


class _Campaigns:
    """The campaigns the checked files lie in, each read once (by its absolute folder)."""

    def __init__(self) -> None:
        self.found: dict[Path, Workspace] = {}

    def of(self, path: Path) -> Workspace | None:
        """The campaign `path` lies in (authoring.loading.find_campaign), if any."""
        folder = find_campaign(path)
        return None if folder is None else self.found.setdefault(folder, Workspace(folder))

    def named(self, folder: Path) -> Workspace:
        """The campaign in `folder`, as given (its files are shown as the user named them)."""
        known = self.found.get(folder.resolve())
        if known is None or known.folder != folder:
            known = self.found[folder.resolve()] = Workspace(folder)
        return known


def check_campaign(workspace: Workspace) -> Report:
    """A whole campaign as validate checks it: read_campaign's findings, the mission cards'
    check once its missions read, and a warning when its copy of the schemas is stale."""
    result = workspace.read()
    return Report(result.diagnostics + overfull_mission_cards(result) +
                  schema_copy_warnings(workspace.folder), result.files)


def validate_file(path: Path, campaigns: _Campaigns | None = None) -> Report:
    """One file checked by its kind; a mission, goal or round with its campaign's own goals
    and challenges (`campaigns`: those already read)."""
    campaigns = campaigns or _Campaigns()
    if path.name == CAMPAIGN_FILE:
        return check_campaign(campaigns.named(path.parent))
    try:
        doc = read_document(path, display(path))
    except InvalidInput as exc:
        return Report(exc.diagnostics, 1)
    return Report(kind_of(path, doc).check(doc, campaigns.of(path)), 1)


def _walk(root: Path, skipped: list[tuple[str, str]]) -> tuple[list[Path], list[Path]]:
    """(campaign folders, other data files) under root, dot-folders and dot-files left out."""
    campaigns: list[Path] = []
    files: list[Path] = []
    for folder, subfolders, names in os.walk(root):
        here = Path(folder)
        for sub in sorted(subfolders):
            if sub == TOOL_FOLDER:  # our own: the campaign's copy of the schemas
                continue
            if sub.startswith(".") or sub in ("node_modules", "__pycache__"):
                skipped.append((display(here / sub) + "/", "a hidden or tool folder"))
        subfolders[:] = sorted(s for s in subfolders
                               if not s.startswith(".") and s not in ("node_modules",
                                                                      "__pycache__"))
        for name in sorted(names):
            if not name.endswith(SUFFIXES):
                continue
            if name.startswith("."):
                skipped.append((display(here / name), "a hidden file (tool configuration)"))
            elif not regular_file(here / name):
                skipped.append((display(here / name), "not a regular file (a FIFO, socket, "
                                "device or broken link): not read"))
            elif name == CAMPAIGN_FILE:
                campaigns.append(here)
            else:
                files.append(here / name)
    return campaigns, files


def validate_paths(paths: list[Path]) -> Report:
    """Every diagnostic for the given files and folders, sorted, each once."""
    report = Report()
    found: set[Diagnostic] = set()
    seen: set[Path] = set()
    campaigns = _Campaigns()

    def check(file: Path) -> None:
        seen.add(file.resolve())
        checked = validate_file(file, campaigns)
        found.update(checked.diagnostics)
        report.files += checked.files

    for path in paths:
        if not path.is_dir():
            if path.resolve() not in seen:
                check(path)
            continue
        folders, files = _walk(path, report.skipped)
        for folder in folders:
            workspace = campaigns.named(folder)
            checked = check_campaign(workspace)
            found.update(checked.diagnostics)
            report.files += checked.files
            seen.update(workspace.read().paths)
        for file in files:
            if file.resolve() in seen:
                continue
            why = synergy_file(file, path)
            if why is not None:
                report.skipped.append((display(file), why))
                continue
            check(file)
    report.diagnostics = sorted(found)
    return report
