"""The one registry of the kinds of file a campaign holds: how a file's kind is told (its
schema line, its name and folder, its keys) and how one file of each kind is checked.

`validate` walks folders with it, `schemas` finds the schema lines it names, `build`
refuses to write into its folders."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING

from synergy_forge.authoring.definitions import definition_from, standard_actions
from synergy_forge.authoring.diagnostics import Diagnostic, InvalidInput
from synergy_forge.authoring.loading import CAMPAIGN_FILE, Reading, check_mission
from synergy_forge.authoring.schema import schema_diagnostics
from synergy_forge.authoring.yamlfile import Document
from synergy_forge.core.mission import Campaign
from synergy_forge.fileio import open_regular

if TYPE_CHECKING:
    from synergy_forge.workspace.campaign import Workspace

#: What a file of some kind is checked with: its document, and the campaign it lies in (None
#: outside any: the built-in goals and challenges).
Check = Callable[[Document, "Workspace | None"], list[Diagnostic]]


@dataclass(frozen=True)
class FileKind:
    """One format of file: `name` is its schema's (NAME.schema.json); `folder`, the campaign
    layout's folder for it (as `new campaign` and the starter campaign lay it out); `key`, a
    top-level key that only files of this kind have (None: told otherwise)."""

    name: str
    folder: str | None
    key: str | None
    check: Check


def _schema_only(kind: str) -> Check:
    return lambda doc, workspace: schema_diagnostics(doc, kind)


def _definition(kind: str) -> Check:
    return lambda doc, workspace: definition_from(doc, kind)[1]


def _round(doc: Document, workspace: Workspace | None) -> list[Diagnostic]:
    """A round, with its campaign's goals, challenges and colours, as `judge` reads it."""
    from synergy_forge.authoring.judging import round_context
    from synergy_forge.authoring.roundfile import table_from

    own = round_context(workspace.folder if workspace else None,
                        read=workspace.read(Reading.LOOKUP) if workspace else None)
    try:
        table_from(doc, own.rulebook, own.colors, own.broken)
    except InvalidInput as exc:
        return exc.diagnostics
    return []


def _mission(doc: Document, workspace: Workspace | None) -> list[Diagnostic]:
    """A mission, with its campaign's goals, challenges and languages; once it has no error,
    its card's check on a campaign of this mission alone."""
    context = workspace.read(Reading.LOOKUP) if workspace is not None else None
    campaign = context.campaign if context is not None else None
    if campaign is None:
        from synergy_forge.authoring.definitions import standard_rulebook

        campaign = Campaign({"en": ""}, (), standard_rulebook(), ("en",),
                            actions=standard_actions())
    mission, found = check_mission(doc, campaign.rulebook, campaign.languages,
                                   context.broken if context is not None and
                                   context.campaign is not None else None)
    if mission is not None:
        from synergy_forge.cardtext.mission import mission_card_findings  # the fonts: 70 ms

        alone = replace(campaign, missions=(mission,))
        found += [doc.diagnostic(f.field, f.message, f.check, key=True)
                  for f in mission_card_findings(alone)]
    return found


#: Every kind, in the order their keys are tried (a mission has none of theirs). A
#: campaign.yaml is a campaign by its name; under another name, by its key or schema line.
KINDS = (
    FileKind("round", "rounds", "seats", _round),
    FileKind("challenge", "challenges", "kind", _definition("challenge")),
    FileKind("goal", "goals", "rule", _definition("goal")),
    FileKind("campaign", None, "missions", _schema_only("campaign")),
    FileKind("action", "actions", None, _schema_only("action")),
    FileKind("mission", "missions", None, _mission),
)
BY_NAME = {kind.name: kind for kind in KINDS}
MISSION = BY_NAME["mission"]
#: The layout's folders, missions/ first.
LAYOUT_FOLDERS = tuple(kind.folder for kind in (MISSION, *KINDS[:-1]) if kind.folder)

SUFFIXES = (".yaml", ".yml", ".json")
_NAMES = "|".join(kind.name for kind in KINDS)
#: `# yaml-language-server: $schema=…/mission.schema.json` (what `new` writes), or a JSON
#: file's "$schema" key naming one of our schemas.
SCHEMA_REFERENCE = re.compile(r"""\$schema["']?\s*[=:]\s*["']?[^\s"']*?\b"""
                              rf"({_NAMES})\.schema\.json")
#: The first line that names a YAML file's schema for yaml-language-server: the path before
#: the schema's name, and the kind.
SCHEMA_LINE = re.compile(r"^#\s*yaml-language-server:\s*\$schema=(\S*?)"
                         rf"({_NAMES})\.schema\.json\s*$")
#: How much of a file's head a schema line is looked for in.
HEAD = 2048


def declared_kind(head: str) -> FileKind | None:
    """The kind a file's schema line (or JSON "$schema") names in its `head`, if any."""
    match = SCHEMA_REFERENCE.search(head[:HEAD])
    return BY_NAME[match.group(1)] if match else None


def file_head(path: Path) -> str:
    """The first bytes of a file, where a schema line would be ("" when it cannot be read:
    the read that follows says why)."""
    try:
        with open_regular(path) as handle:  # a FIFO would block a plain open for ever
            return handle.read(HEAD).decode("utf-8", "replace")
    except OSError:
        return ""


def kind_of(path: Path, doc: Document) -> FileKind:
    """A file's kind: campaign.yaml by its name, then its schema line, then its folder (a
    file in missions/, where rounds may sit too, is told by its keys), then its keys."""
    if path.name == CAMPAIGN_FILE:
        return BY_NAME["campaign"]
    declared = declared_kind(doc.text)
    if declared is not None:
        return declared
    by_folder = next((k for k in KINDS if k.folder == path.parent.name), None)
    if by_folder is not None and by_folder is not MISSION:
        return by_folder
    data = doc.data if isinstance(doc.data, dict) else {}
    return next((k for k in KINDS if k.key is not None and k.key in data), MISSION)


#: Other tools' configuration files a missions repository is likely to hold.
TOOL_FILES = {"mkdocs.yml", "mkdocs.yaml", "docker-compose.yml", "docker-compose.yaml",
              "compose.yml", "compose.yaml", "codecov.yml", "netlify.toml", "renovate.json",
              "package.json", "package-lock.json", "tsconfig.json", "environment.yml",
              "readthedocs.yml", "dependabot.yml", "action.yml", "action.yaml",
              "pnpm-lock.yaml", "pubspec.yaml", "CITATION.cff", "composer.json"}


def synergy_file(path: Path, root: Path) -> str | None:
    """Why a file met in a folder walk is not checked, or None when it is a Synergy file: it
    sits in the layout (missions/, goals/...) or carries one of our schema lines. Campaigns'
    files are known before the walk."""
    if path.name in TOOL_FILES:
        return "another tool's configuration"
    inside = path.parent.relative_to(root).parts if path.parent != root else ()
    if any(part in LAYOUT_FOLDERS for part in (*root.resolve().parts[-1:], *inside)):
        return None
    if declared_kind(file_head(path)) is not None:
        return None
    return "not a Synergy file (no campaign.yaml lists it, no schema line, not in missions/)"
