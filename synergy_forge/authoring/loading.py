"""From files to domain objects: YAML -> schema -> semantic checks -> Mission / Campaign.

Every problem becomes a Diagnostic; nothing here raises on bad input.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from enum import Enum
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING, Any

from synergy_forge.authoring.definitions import (
    definition_from,
    standard_actions,
    standard_rulebook,
    text_of,
)
from synergy_forge.authoring.diagnostics import (
    Diagnostic,
    HasErrors,
    InvalidInput,
    Severity,
    errors,
)
from synergy_forge.authoring.lint import (
    action_pairing_diagnostics,
    definition_diagnostics,
    mission_diagnostics,
)
from synergy_forge.authoring.paths import expand, pattern_folder, pattern_problem, regular_file
from synergy_forge.authoring.schema import schema_problems
from synergy_forge.authoring.yamlfile import Document, read_document
from synergy_forge.cardtext.geometry import POKER, CardSize
from synergy_forge.core.cards import DEFAULT_COLORS, GOAL_IDS, Action, Order
from synergy_forge.core.mission import Campaign, Mission, median_stars
from synergy_forge.core.rules import ActionText, Definition, Rulebook

if TYPE_CHECKING:
    from synergy_forge.authoring.kept import Kept

CAMPAIGN_FILE = "campaign.yaml"


def display(path: Path) -> str:
    """A path as the user would type it: relative to the working folder when inside it."""
    try:
        relative = os.path.relpath(path)
    except ValueError:
        return str(path)
    return str(path) if relative.startswith("..") else relative


def mission_from_data(data: dict[str, Any], source: str = "") -> Mission:
    players = tuple(sorted(data.get("players", [3, 4, 5])))
    allowed = data.get("allowed_failures", 0)
    per_count = {p: allowed for p in players} if isinstance(allowed, int) else \
        {int(k): v for k, v in allowed.items()}
    hand = data.get("hand", {})
    stars = data["stars"]
    stars_per_count = dict(sorted((int(k), v) for k, v in stars.items())) \
        if isinstance(stars, dict) else {}
    return Mission(
        id=data["id"], number=data["number"], title=text_of(data["title"]),
        stars=median_stars(stars_per_count) if stars_per_count else stars,
        stars_per_count=stars_per_count,
        rounds=data["rounds"], lives=data["lives"], players=players,
        hand_numbers=hand.get("numbers", 10),
        hand_goals=hand.get("goals", len(data.get("goals", GOAL_IDS))),
        order=Order(data.get("order", Order.NUMBER_GOAL_NUMBER)), allowed_failures=per_count,
        challenges=tuple(data.get("challenges", [])),
        actions=tuple(Action(a) for a in data.get("actions", [])),
        goals=tuple(data.get("goals", GOAL_IDS)),
        super=data.get("super", False), hyper=data.get("hyper", False),
        flavor=text_of(data.get("flavor")), source=source,
    )


#: Fields whose checks read another field: when that one is wrong, they are not checked.
_DEPENDS = {"players": ("allowed_failures", "stars"), "goals": ("lives", "hand")}

#: ("goal" | "challenge", id) -> "FILE:LINE" of a campaign's definition that has errors.
Broken = dict[tuple[str, str], str]


def check_mission(doc: Document, rulebook: Rulebook, languages: tuple[str, ...] = ("en",),
                  broken: Broken | None = None) -> tuple[Mission | None, list[Diagnostic]]:
    """The mission in `doc` (None when it has errors) and every problem found in it.

    A schema error in one field does not hide the checks of the others: those run on the
    fields that passed, so one run shows every mistake."""
    found, bad = schema_problems(doc, "mission")
    if isinstance(doc.data, dict):
        for name, followers in _DEPENDS.items():
            if name in bad:
                bad.update(followers)
        usable = replace(doc, data={k: v for k, v in doc.data.items() if k not in bad})
        found += mission_diagnostics(usable, rulebook, languages, broken)
    found = sorted(set(found))
    if errors(found):
        return None, found
    return mission_from_data(doc.data, doc.file), found


#: What the card check of a mission with errors takes for a field whose value the schema
#: refused: its card's texts (title, flavour, rules block) do not depend on these.
_STAND_IN = {"id": "mission", "number": 1, "stars": 1, "rounds": 1, "lives": 1,
             "allowed_failures": 0}


def card_stand_in(doc: Document, rulebook: Rulebook) -> Mission | None:
    """The mission of `doc`, which has errors, as its card would print it, for the card's fit
    check (one run, every finding: an error elsewhere never hides that its card cannot fit);
    None when a field the card's texts are made of has an error, or names a goal or
    challenge that is not there."""
    if not isinstance(doc.data, dict):
        return None
    bad = schema_problems(doc, "mission")[1]
    if bad & {"title", "flavor", "challenges", "actions", "hand", "goals", "order", "players",
              "super", "hyper"}:
        return None
    data = {**{k: v for k, v in doc.data.items() if k not in bad},
            **{k: v for k, v in _STAND_IN.items() if k in bad or k not in doc.data}}
    if any(c not in rulebook.challenges for c in data.get("challenges", ())) or \
            any(g not in rulebook.goals for g in data.get("goals", ())):
        return None
    try:
        return mission_from_data(data, doc.file)
    except (KeyError, TypeError, ValueError):
        return None


@dataclass
class CampaignResult:
    """What reading a campaign gave: the campaign (None when it has errors) and every problem."""

    campaign: Campaign | None
    diagnostics: list[Diagnostic] = field(default_factory=list)
    files: int = 0
    #: every file read, so a folder walk does not check them twice
    paths: set[Path] = field(default_factory=set)
    #: the campaign's goals and challenges that exist but have errors
    broken: Broken = field(default_factory=dict)
    #: each mission's file as read, by its name (Mission.source), to place later findings
    documents: dict[str, Document] = field(default_factory=dict)
    #: the missions read without error, as a campaign, even when other files have errors
    usable: Campaign | None = None
    #: the folders its patterns name, whose files it reads (workspace.Workspace.sources
    #: adds the layout's folders)
    pattern_folders: list[Path] = field(default_factory=list)
    #: what earlier readings of the folder gave (read_campaign's `kept`)
    kept: Kept | None = field(default=None, repr=False, compare=False)

    def document(self, path: Path) -> Document:
        """One of the campaign's files parsed (InvalidInput when it cannot be)."""
        if self.kept is not None:
            return self.kept.document(path, display(path))
        return read_document(path, display(path))
    #: the missions with errors as their cards would print them (card_stand_in), for the
    #: cards' fit check
    stand_ins: list[Mission] = field(default_factory=list)

    def read(self, path: Path) -> Document | None:
        """Read one of the campaign's files, counting it; None (and a diagnostic) if it fails."""
        self.files += 1
        self.paths.add(path.resolve())
        try:
            return self.document(path)
        except InvalidInput as exc:
            self.diagnostics += exc.diagnostics
            return None


def _expand(doc: Document, root: Path, key: str) -> tuple[list[Path], list[Diagnostic]]:
    """The files the patterns under `key` name, in a stable order, each once; every pattern
    goes through the campaign's path policy (authoring/paths.py) first."""
    found: list[Diagnostic] = []
    paths: list[Path] = []
    seen: set[Path] = set()
    for i, pattern in enumerate(doc.data.get(key, [])):
        matches, problem, skipped = expand(root, pattern)
        if problem is not None:
            found.append(doc.diagnostic((key, i), problem, "campaign.path"))
        for other in skipped:
            found.append(doc.diagnostic(
                (key, i), f"{display(other)} is not a regular file (a FIFO, socket or device); "
                "skipped", "campaign.not-a-file", severity=Severity.WARNING))
        if not matches and problem is None:
            found.append(doc.diagnostic((key, i), f"'{pattern}' matches no file",
                                        "campaign.missing-file"))
        for m in matches:
            real = m.resolve()
            if real in seen:
                found.append(doc.diagnostic((key, i), f"{display(m)} is listed twice",
                                            "campaign.duplicate-file"))
            else:
                seen.add(real)
                paths.append(m)
    return paths, found


class Reading(Enum):
    """What a campaign folder is read for: which of its files are read, and whether the
    checks nobody would see (a rule's failing inputs, the print checks of goals and
    challenges) run."""

    #: campaign.yaml, its goals and challenges and its missions, every check (validate, build,
    #: playtest, the studio)
    WHOLE = "whole"
    #: the same files, the unseen checks left out: its missions are only played (replay)
    TO_PLAY = "to-play"
    #: campaign.yaml, goals and challenges, every check: the campaign a mission file is played
    #: or made in, which must have no error (play FILE, new, the table)
    CONTEXT = "context"
    #: the same files, the unseen checks left out: the context of one file validated or judged
    LOOKUP = "lookup"

    @property
    def missions(self) -> bool:
        return self in (Reading.WHOLE, Reading.TO_PLAY)

    @property
    def thorough(self) -> bool:
        return self in (Reading.WHOLE, Reading.CONTEXT)


def read_campaign(folder: Path, reading: Reading = Reading.WHOLE,
                  kept: Kept | None = None) -> CampaignResult:
    """Read and check a campaign folder: campaign.yaml, its own goals and challenges, and (as
    `reading` says) its missions; with `kept`, only the files that changed since the readings
    it kept are parsed and checked again."""
    result = CampaignResult(None, kept=kept)
    doc = _read_campaign_file(folder, result, reading)
    if doc is None:
        return result
    result.pattern_folders = _pattern_folders(doc, folder)
    languages = tuple(doc.data.get("languages", ["en"]))
    result.diagnostics += _name_languages(doc, languages)
    rulebook = standard_rulebook().extended(
        _read_definitions(doc, folder, result, languages, reading.thorough))
    colors = tuple(doc.data.get("colors", DEFAULT_COLORS))
    if not reading.missions:
        result.campaign = Campaign(text_of(doc.data["name"]), (), rulebook, languages, colors,
                                   doc.file, standard_actions())
        return result
    missions = _read_missions(doc, folder, result, rulebook, languages)
    if "name" in doc.data:
        # The missions read without error, as a campaign: the checks of whole missions (their
        # printed cards) run on them even while other files have errors.
        result.usable = Campaign(text_of(doc.data["name"]), tuple(missions), rulebook,
                                 languages, colors, doc.file, standard_actions())
    if not errors(result.diagnostics):
        result.campaign = result.usable
    return result


def _pattern_folders(doc: Document, folder: Path) -> list[Path]:
    """CampaignResult.pattern_folders: the folder of each pattern of campaign.yaml
    (authoring/paths.pattern_folder), each once."""
    named = [pattern_folder(pattern) for key in ("missions", "goals", "challenges")
             for pattern in doc.data.get(key, [])
             if isinstance(pattern, str) and pattern_problem(pattern) is None]
    return list(dict.fromkeys(folder / name for name in named if name is not None))


def _read_campaign_file(folder: Path, result: CampaignResult, reading: Reading
                        ) -> Document | None:
    """campaign.yaml, its fields that passed the schema only; None when nothing more can be
    read (the file has errors and no mission is to be read, or it is not a mapping)."""
    try:
        doc = result.document(folder / CAMPAIGN_FILE)
    except InvalidInput as exc:
        result.diagnostics += exc.diagnostics
        return None
    result.files = 1
    result.paths.add((folder / CAMPAIGN_FILE).resolve())
    found, bad = schema_problems(doc, "campaign")
    result.diagnostics += found
    if (found and not reading.missions) or not isinstance(doc.data, dict):
        return None
    # A mistake in one field of campaign.yaml does not hide the missions' own checks: the
    # fields that passed are used (the campaign itself is not built while it has errors).
    return replace(doc, data={k: v for k, v in doc.data.items() if k not in bad})


def _read_definitions(doc: Document, folder: Path, result: CampaignResult,
                      languages: tuple[str, ...], thorough: bool) -> list[Definition]:
    """The campaign's own goals and challenges that have no error, each id once and none a
    built-in's; the others are named in `result.broken`."""
    own: list[Definition] = []
    seen_ids: dict[str, str] = {}
    builtin = standard_rulebook()
    for key, kind in (("goals", "goal"), ("challenges", "challenge")):
        paths, found = _expand(doc, folder, key)
        result.diagnostics += found
        for path in paths:
            sub = result.read(path)
            definition = None
            if sub is not None:
                read = partial(_read_definition, sub, kind, languages, thorough)
                definition, found, broken = read() if result.kept is None else \
                    result.kept.keep(("definition", sub.file, sub.text, kind, languages,
                                      thorough), read)
                result.diagnostics += found
                result.broken.update(b for b in broken if b[0] not in result.broken)
            if sub is None or definition is None:
                continue
            if definition.id in builtin.goals or definition.id in builtin.challenges:
                result.diagnostics.append(sub.diagnostic(
                    ("id",), f"'{definition.id}' is a built-in id; give yours another name",
                    "definition.duplicate-id"))
            elif definition.id in seen_ids:
                result.diagnostics.append(sub.diagnostic(
                    ("id",), f"'{definition.id}' is already defined in {seen_ids[definition.id]}",
                    "definition.duplicate-id"))
            else:
                seen_ids[definition.id] = sub.file
                own.append(definition)
    return own


def _read_definition(sub: Document, kind: str, languages: tuple[str, ...], thorough: bool
                     ) -> tuple[Definition | None, list[Diagnostic],
                                list[tuple[tuple[str, str], str]]]:
    """One goal or challenge file: its definition (None when it has errors), its findings,
    and the entry of CampaignResult.broken it makes."""
    definition, found = definition_from(sub, kind, thorough=thorough)
    broken = []
    if definition is None:
        # Missions naming it hear that it has an error, not that it does not exist.
        given = sub.data.get("id") if isinstance(sub.data, dict) else None
        first = errors(found)[0] if errors(found) else None
        if isinstance(given, str) and first is not None:
            broken.append(((kind, given), f"{first.file}:{first.line}"))
        if thorough:  # its texts' checks, on the fields that passed
            found = found + _broken_definition_texts(sub, kind, languages)
        return None, found, broken
    if thorough:  # a context's definitions are not the file being checked: their print
        # checks (the fonts' metrics, 70 ms) would only be thrown away
        found = found + definition_diagnostics(sub, languages)
    return definition, found, broken


def _read_missions(doc: Document, folder: Path, result: CampaignResult, rulebook: Rulebook,
                   languages: tuple[str, ...]) -> list[Mission]:
    """The campaign's missions that have no error, by number; every mission's findings, and
    the campaign's own across them, added to `result`."""
    paths, found = _expand(doc, folder, "missions")
    result.diagnostics += found
    missions: list[Mission] = []
    index = _MissionIndex()
    for path in paths:
        sub = result.read(path)
        if sub is None:
            index.numbered = False
            continue
        result.documents[sub.file] = sub
        mission, found = result.kept.mission(sub, rulebook, languages, result.broken) \
            if result.kept is not None else check_mission(sub, rulebook, languages, result.broken)
        result.diagnostics += found
        if mission is not None:
            missions.append(mission)
        elif (stand_in := card_stand_in(sub, rulebook)) is not None:
            result.stand_ins.append(stand_in)
        result.diagnostics += index.add(sub)
    missions.sort(key=lambda m: (m.number, m.id))
    result.diagnostics += index.diagnostics()
    return missions


@dataclass
class _MissionIndex:
    """The campaign's checks across its missions: ids and numbers used twice, gaps in the
    numbering, and action cards that cannot be printed two to a card.

    Every mission file whose id and number can be read counts, even one with errors
    elsewhere: "mission 3 is missing" would be false. Likewise every mission whose action
    cards can be read counts for their printing (a mission with errors elsewhere still has
    its cards printed once mended)."""

    by_id: dict[str, str] = field(default_factory=dict)
    by_number: dict[int, Document] = field(default_factory=dict)
    #: every mission's number is known: gaps can be told
    numbered: bool = True
    actions: list[tuple[int, Document, frozenset[Action]]] = field(default_factory=list)

    def add(self, sub: Document) -> list[Diagnostic]:
        """Count one mission file; what it repeats of the ones before."""
        found: list[Diagnostic] = []
        data = sub.data if isinstance(sub.data, dict) else {}
        mission_id, number = data.get("id"), data.get("number")
        if isinstance(mission_id, str):
            if mission_id in self.by_id:
                found.append(sub.diagnostic(
                    ("id",), f"mission id '{mission_id}' is also used by "
                    f"{self.by_id[mission_id]}", "campaign.duplicate-id"))
            self.by_id.setdefault(mission_id, sub.file)
        used = data.get("actions", [])
        if isinstance(used, list) and all(isinstance(a, str) and a in Action.__members__
                                          for a in used):
            self.actions.append((number if isinstance(number, int) else 0, sub,
                                 frozenset(Action(a) for a in used)))
        if not (isinstance(number, int) and not isinstance(number, bool) and number >= 1):
            self.numbered = False
        else:
            if number in self.by_number:
                found.append(sub.diagnostic(
                    ("number",), f"mission number {number} is also used by "
                    f"{self.by_number[number].file}", "campaign.duplicate-number"))
            self.by_number.setdefault(number, sub)
        return found

    def diagnostics(self) -> list[Diagnostic]:
        """Once every mission is counted: the action cards' printing, gaps in the numbers."""
        self.actions.sort(key=lambda entry: (entry[0], entry[1].file))
        found = action_pairing_diagnostics([(doc, used) for _, doc, used in self.actions])
        expected = 1
        # A mission file that cannot be read, or whose number cannot, may hold the "missing"
        # number: gaps are told only when every number is known.
        for number, sub in sorted(self.by_number.items()) if self.numbered else ():
            if number > expected:
                gap = f"{expected}" if number == expected + 1 else f"{expected} to {number - 1}"
                found.append(sub.diagnostic(
                    ("number",), f"mission {gap} is missing: numbers should run 1..N without "
                    "gaps", "campaign.numbering", severity=Severity.WARNING))
            expected = number + 1
        return found


def _broken_definition_texts(doc: Document, kind: str,
                             languages: tuple[str, ...]) -> list[Diagnostic]:
    """The text checks of a campaign goal or challenge that has errors, on its fields that
    passed the schema (a missing symbol is not reported for a symbol that is wrong)."""
    if not isinstance(doc.data, dict):
        return []
    bad = schema_problems(doc, kind)[1]
    usable = {k: v for k, v in doc.data.items() if k not in bad}
    if not {"id", "name"} <= set(usable):
        return []
    return [d for d in definition_diagnostics(replace(doc, data=usable), languages)
            if not (d.check == "goal.symbol" and "symbol" in doc.data
                    and "symbol" not in usable)]


def _name_languages(doc: Document, languages: tuple[str, ...]) -> list[Diagnostic]:
    from synergy_forge.authoring.lint import text_languages

    return text_languages(doc, ("name",), languages)


def find_campaign(path: Path) -> Path | None:
    """The campaign `path` (a file or a folder) belongs to, as an absolute folder: the nearest
    folder holding a campaign.yaml from `path` (a file's own folder) upwards, as git finds its
    repository. The search ends at the root of the repository it starts in (a folder holding
    .git: a campaign does not reach outside its repository) or of the file system.

    Every command finds a campaign here, from a file's path as the user gave it (`x.yaml`,
    whose Path has no parents until made absolute) or from the current folder. Links are
    followed, as the campaign's own path policy follows them (authoring/paths.py): a file is
    where its link points."""
    try:
        here = Path(path).resolve()
    except (OSError, RuntimeError, ValueError):  # a loop of links, a NUL
        return None
    start = here if here.is_dir() else here.parent
    for folder in (start, *start.parents):
        if regular_file(folder / CAMPAIGN_FILE):
            return folder
        if os.path.lexists(folder / ".git"):
            return None
    return None


def mission_to_data(mission: Mission) -> dict[str, Any]:
    """The mission as file data again (for game logs); mission_from_data reads it back."""
    data: dict[str, Any] = {
        "id": mission.id, "number": mission.number, "title": dict(mission.title),
        "stars": {str(k): v for k, v in mission.stars_per_count.items()}
        if mission.stars_per_count else mission.stars,
        "players": list(mission.players), "rounds": mission.rounds,
        "lives": mission.lives,
        "hand": {"numbers": mission.hand_numbers, "goals": mission.hand_goals},
        "order": str(mission.order),
        "allowed_failures": {str(k): v for k, v in mission.allowed_failures.items()},
        "challenges": list(mission.challenges), "actions": [str(a) for a in mission.actions],
        "goals": list(mission.goals), "super": mission.super, "hyper": mission.hyper,
    }
    if mission.flavor:
        data["flavor"] = dict(mission.flavor)
    return data


def definition_to_data(definition: Definition) -> dict[str, Any]:
    """A goal or challenge as file data again (for game logs)."""
    data: dict[str, Any] = {"id": definition.id, "name": dict(definition.name),
                            "text": dict(definition.text)}
    if definition.kind.value != "goal":
        data["kind"] = str(definition.kind)
    if definition.rule is not None:
        data["rule"] = definition.rule
    if definition.direction:
        data["direction"] = "left" if definition.direction > 0 else "right"
    if definition.kind.value == "sum":
        data["step"] = definition.step
    return data


@dataclass(frozen=True)
class MissionFile:
    """A mission file read and checked with its campaign's goals, challenges, colours and
    action cards (the built-in ones outside a campaign), and the document it was read from:
    a command that changes the file in place checks that it still says that first."""

    mission: Mission
    rulebook: Rulebook
    colors: tuple[str, ...]
    actions: Mapping[Action, ActionText]
    document: Document
    #: the campaign folder it was read in, absolute; None outside any campaign
    campaign: Path | None
    #: its campaign's name by language (what a table's page is titled with); {} outside any
    name: Mapping[str, str] = field(default_factory=dict)


def read_mission_file(path: Path, document: Document | None = None,
                      context: CampaignResult | None = None) -> MissionFile:
    """The mission file `path` (its `document`, when already read) checked in its campaign
    (`context`: that campaign read as Reading.CONTEXT, when already read). Raises HasErrors
    with every error found, the campaign's own included; InvalidInput when it cannot be
    read."""
    doc = document if document is not None else read_document(path, display(path))
    folder = find_campaign(path)
    campaign = None
    if folder is not None:
        context = context if context is not None else read_campaign(folder, Reading.CONTEXT)
        if context.campaign is None or errors(context.diagnostics):
            raise HasErrors(errors(context.diagnostics))
        campaign = context.campaign
    rulebook = campaign.rulebook if campaign is not None else standard_rulebook()
    mission, found = check_mission(doc, rulebook,
                                   campaign.languages if campaign is not None else ("en",),
                                   context.broken if context is not None else {})
    if mission is None:
        raise HasErrors(errors(found))
    return MissionFile(mission, rulebook,
                       campaign.colors if campaign is not None else DEFAULT_COLORS,
                       dict(campaign.actions if campaign is not None and campaign.actions
                            else standard_actions()), doc, folder,
                       dict(campaign.name) if campaign is not None else {})


def overfull_mission_cards(result: CampaignResult, card: CardSize = POKER) -> list[Diagnostic]:
    """The mission cards' check (cardtext: rules blocks that cannot fit on a card of `card`'s
    size) on the missions of a campaign read without error (even when other files have errors:
    one run, every finding), each finding at the field of its mission file."""
    found: list[Diagnostic] = []
    if result.usable is not None:  # the missions without error, whatever the other files have
        from synergy_forge.cardtext.mission import mission_card_findings  # the fonts: 70 ms

        kept = result.kept
        # and those with errors, as their cards would print them
        campaign = replace(result.usable, missions=result.usable.missions +
                           tuple(result.stand_ins))
        layouts = None
        if kept is not None:  # each mission's layout by what it is made from
            rules = kept.rulebook(campaign.rulebook), repr(sorted(campaign.actions.items()))

            def layouts(mission: Mission, language: str,
                        compute: Callable[[], dict[str, Any]]) -> dict[str, Any]:
                return kept.keep(("layout", repr(mission), *rules, language, card), compute)

        for finding in mission_card_findings(campaign, card, layouts):
            doc = result.documents.get(finding.source)
            if doc is not None:
                found.append(doc.diagnostic(finding.field, finding.message, finding.check,
                                            key=True, **({"severity": Severity.WARNING}
                                                         if finding.warning else {})))
    return found
