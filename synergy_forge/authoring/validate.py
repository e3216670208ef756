"""`validate`: check any mix of files and folders and gather every diagnostic."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from synergy_forge.authoring.definitions import definition_from, standard_rulebook
from synergy_forge.authoring.diagnostics import Diagnostic, InvalidInput, Severity
from synergy_forge.authoring.loading import (
    CAMPAIGN_FILE,
    check_mission,
    detect_kind,
    display,
    find_campaign,
    read_campaign,
)
from synergy_forge.authoring.roundfile import table_from
from synergy_forge.authoring.yamlfile import read_document

SUFFIXES = (".yaml", ".yml", ".json")


@dataclass
class Report:
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0

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
        }


def validate_file(path: Path) -> tuple[list[Diagnostic], int]:
    """Check one file by its format; a mission uses its campaign's own goals and challenges."""
    if path.name == CAMPAIGN_FILE:
        result = read_campaign(path.parent)
        return result.diagnostics, result.files
    try:
        doc = read_document(path, display(path))
    except InvalidInput as exc:
        return exc.diagnostics, 1
    kind = detect_kind(doc, path)
    rulebook = standard_rulebook()
    languages: tuple[str, ...] = ("en",)
    campaign_dir = find_campaign(path)
    if campaign_dir is not None:
        context = read_campaign(campaign_dir, with_missions=False)
        if context.campaign is not None:
            rulebook, languages = context.campaign.rulebook, context.campaign.languages
    if kind == "mission":
        return check_mission(doc, rulebook, languages)[1], 1
    if kind == "round":
        try:
            table_from(doc, rulebook)
        except InvalidInput as exc:
            return exc.diagnostics, 1
        return [], 1
    return definition_from(doc, kind)[1], 1


def validate_paths(paths: list[Path]) -> Report:
    """Every diagnostic for the given files and folders, sorted, each once."""
    report = Report()
    found: set[Diagnostic] = set()
    seen: set[Path] = set()
    for path in paths:
        if path.is_dir():
            campaigns = sorted(p.parent for p in path.rglob(CAMPAIGN_FILE))
            for folder in campaigns:
                result = read_campaign(folder)
                found.update(result.diagnostics)
                report.files += result.files
                seen.update(result.paths)
            for file in sorted(path.rglob("*")):
                if file.suffix in SUFFIXES and file.is_file() and file.resolve() not in seen:
                    seen.add(file.resolve())
                    diagnostics, count = validate_file(file)
                    found.update(diagnostics)
                    report.files += count
        elif path.resolve() not in seen:
            seen.add(path.resolve())
            diagnostics, count = validate_file(path)
            found.update(diagnostics)
            report.files += count
    report.diagnostics = sorted(found)
    return report
