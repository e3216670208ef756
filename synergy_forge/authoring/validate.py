"""`validate`: check any mix of files and folders and gather every diagnostic.

A folder is a repository as designers keep them, next to their CI and tool files: only
Synergy files are checked (`synergy_file`), the rest is skipped and listed with --verbose. A
file named on the command line is always checked.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field, replace
from pathlib import Path

from synergy_forge.authoring.definitions import (
    definition_from,
    standard_actions,
    standard_rulebook,
)
from synergy_forge.authoring.diagnostics import Diagnostic, InvalidInput, Severity
from synergy_forge.authoring.loading import (
    CAMPAIGN_FILE,
    CampaignResult,
    Reading,
    check_mission,
    detect_kind,
    display,
    find_campaign,
    read_campaign,
)
from synergy_forge.authoring.paths import regular_file
from synergy_forge.authoring.yamlfile import read_document
from synergy_forge.cardtext.geometry import POKER, CardSize
from synergy_forge.core.mission import Campaign
from synergy_forge.fileio import open_regular

SUFFIXES = (".yaml", ".yml", ".json")
#: Folder name -> the kind of file it holds, as in the starter campaign and `new campaign`
#: (None: missions, which may sit beside rounds; their keys decide).
LAYOUT = {"missions": None, "goals": "goal", "challenges": "challenge", "rounds": "round",
          "actions": "action"}
#: `# yaml-language-server: $schema=…/mission.schema.json` (what `new` writes), or a JSON
#: file's "$schema" key naming one of our schemas.
MODELINE = re.compile(r"""\$schema["']?\s*[=:]\s*["']?[^\s"']*?\b"""
                      r"(mission|campaign|challenge|goal|round|action)\.schema\.json")
#: Other tools' configuration files a missions repository is likely to hold.
TOOL_FILES = {"mkdocs.yml", "mkdocs.yaml", "docker-compose.yml", "docker-compose.yaml",
              "compose.yml", "compose.yaml", "codecov.yml", "netlify.toml", "renovate.json",
              "package.json", "package-lock.json", "tsconfig.json", "environment.yml",
              "readthedocs.yml", "dependabot.yml", "action.yml", "action.yaml",
              "pnpm-lock.yaml", "pubspec.yaml", "CITATION.cff", "composer.json"}


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


def declared_kind(path: Path) -> str | None:
    """The kind a file's schema line (modeline, or JSON "$schema") names, if it has one."""
    try:
        with open_regular(path) as handle:  # a FIFO would block a plain open for ever
            head = handle.read(2048).decode("utf-8", "replace")
    except OSError:
        return None
    match = MODELINE.search(head)
    return match.group(1) if match else None


def kind_of(path: Path, doc_kind: str) -> str:
    """A file's format: its schema line, then its name and folder, then its keys (doc_kind)."""
    if path.name == CAMPAIGN_FILE:
        return "campaign"
    return declared_kind(path) or LAYOUT.get(path.parent.name) or doc_kind


def overfull_mission_cards(result: CampaignResult, card: CardSize = POKER) -> list[Diagnostic]:
    """The mission cards' check (cardtext: rules blocks that cannot fit on a card of `card`'s
    size) on the missions of a campaign read without error (even when other files have errors:
    one run, every finding), each finding at the field of its mission file."""
    found: list[Diagnostic] = []
    if result.usable is not None:  # the missions without error, whatever the other files have
        from synergy_forge.cardtext.mission import mission_card_findings  # the fonts: 70 ms

        for finding in mission_card_findings(result.usable, card):
            doc = result.documents.get(finding.source)
            if doc is not None:
                found.append(doc.diagnostic(finding.field, finding.message, finding.check,
                                            key=True))
    return found


def _campaign_diagnostics(folder: Path) -> CampaignResult:
    """read_campaign, plus the mission cards' check on the campaign when it has no error."""
    result = read_campaign(folder)
    result.diagnostics += overfull_mission_cards(result) + _schema_copy(folder)
    return result


def _schema_copy(folder: Path) -> list[Diagnostic]:
    """A warning when the campaign's copy of the schemas (`new campaign`) is not this
    synergy-forge's: editors would check its files against another version."""
    from synergy_forge import __version__
    from synergy_forge.authoring.scaffold import campaign_schemas, schema_state

    if not campaign_schemas(folder).is_dir():
        return []
    state = schema_state(folder)
    if not (state.missing or state.stale):
        return []
    return [Diagnostic(display(folder / CAMPAIGN_FILE), 1, 1, Severity.WARNING,
                       f"the campaign's schemas ({display(state.folder)}) are not those of "
                       f"synergy-forge {__version__}: run `synergy-forge schemas --update` "
                       "and commit them", "campaign.schemas")]


def validate_file(path: Path) -> tuple[list[Diagnostic], int]:
    """Check one file by its format; a mission uses its campaign's own goals and challenges."""
    if path.name == CAMPAIGN_FILE:
        result = _campaign_diagnostics(path.parent)
        return result.diagnostics, result.files
    try:
        doc = read_document(path, display(path))
    except InvalidInput as exc:
        return exc.diagnostics, 1
    kind = kind_of(path, detect_kind(doc, path))
    if kind == "action":
        from synergy_forge.authoring.schema import schema_diagnostics

        return schema_diagnostics(doc, "action"), 1
    if kind == "campaign":  # a campaign file by its schema line, under another name
        from synergy_forge.authoring.schema import schema_diagnostics

        return schema_diagnostics(doc, "campaign"), 1
    if kind == "round":  # with its campaign's goals, challenges and colours, like judge
        from synergy_forge.authoring.judging import round_context
        from synergy_forge.authoring.roundfile import table_from

        own = round_context(find_campaign(path))
        try:
            table_from(doc, own.rulebook, own.colors, own.broken)
        except InvalidInput as exc:
            return exc.diagnostics, 1
        return [], 1
    rulebook = standard_rulebook()
    languages: tuple[str, ...] = ("en",)
    broken = None
    campaign = Campaign({"en": ""}, (), rulebook, languages, actions=standard_actions())
    campaign_dir = find_campaign(path)
    if campaign_dir is not None:
        context = read_campaign(campaign_dir, Reading.LOOKUP)
        if context.campaign is not None:
            campaign = context.campaign
            rulebook, languages = context.campaign.rulebook, context.campaign.languages
            broken = context.broken
    if kind == "mission":
        mission, found = check_mission(doc, rulebook, languages, broken)
        if mission is not None:  # the card's check, on a campaign of this mission alone
            from synergy_forge.cardtext.mission import mission_card_findings

            alone = replace(campaign, missions=(mission,))
            found += [doc.diagnostic(f.field, f.message, f.check, key=True)
                      for f in mission_card_findings(alone)]
        return found, 1
    return definition_from(doc, kind)[1], 1


def synergy_file(path: Path, root: Path) -> str | None:
    """Why a file met in a folder walk is not checked, or None when it is a Synergy file:
    it carries one of our schema lines or sits in the mission layout (missions/, goals/...).
    Campaigns' files are known before the walk."""
    if path.name in TOOL_FILES:
        return "another tool's configuration"
    if declared_kind(path) is not None:
        return None
    inside = path.parent.relative_to(root).parts if path.parent != root else ()
    if any(part in LAYOUT for part in (*root.resolve().parts[-1:], *inside)):
        return None
    return "not a Synergy file (no campaign.yaml lists it, no schema line, not in missions/)"


def _walk(root: Path, skipped: list[tuple[str, str]]) -> tuple[list[Path], list[Path]]:
    """(campaign folders, other data files) under root, dot-folders and dot-files left out."""
    campaigns: list[Path] = []
    files: list[Path] = []
    for folder, subfolders, names in os.walk(root):
        here = Path(folder)
        for sub in sorted(subfolders):
            if sub == ".synergy":  # our own: the campaign's copy of the schemas
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
    for path in paths:
        if path.is_dir():
            campaigns, files = _walk(path, report.skipped)
            for folder in campaigns:
                result = _campaign_diagnostics(folder)
                found.update(result.diagnostics)
                report.files += result.files
                seen.update(result.paths)
            for file in files:
                if file.resolve() in seen:
                    continue
                why = synergy_file(file, path)
                if why is not None:
                    report.skipped.append((display(file), why))
                    continue
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
