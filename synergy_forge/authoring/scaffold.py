"""`new mission` and `new campaign`: commented starting files that validate as written, and
the campaign's own copy of the schemas their first line names (`schemas --update`)."""

from __future__ import annotations

import errno
import os
import re
import shlex
import unicodedata
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from jsonschema import Draft202012Validator

from synergy_forge.authoring.loading import CAMPAIGN_FILE, Reading, find_campaign, read_campaign
from synergy_forge.authoring.paths import regular_file
from synergy_forge.authoring.schema import validator
from synergy_forge.cardtext.fonts import fit, missing_glyphs
from synergy_forge.cardtext.geometry import card_boxes
from synergy_forge.errors import CannotWrite
from synergy_forge.fileio import (
    OutputKind,
    inside_problem,
    outside_problem,
    read_regular,
    write_atomic,
    write_inside,
)
from synergy_forge.resources import schemas_dir
from synergy_forge.typography import typeset

#: Where a campaign keeps its copy of the schemas, so that the schema lines of its files are
#: relative paths inside the repository and still work after a clone. A dot-folder:
#: the tool's, not the designer's, and left alone by `validate FOLDER`.
SCHEMAS_HOME = Path(".synergy") / "schemas"


#: A schema copy as `new` and `schemas --update` write it (this synergy-forge's schemas all
#: begin so): the only file they replace in .synergy/schemas/.
SCHEMA_COPY = OutputKind("a schema of synergy-forge",
                         b'{\n  "$schema": "https://json-schema.org/draft/2020-12/schema",\n'
                         b'  "$id": "https://synergy-forge.dev/schemas/')


def campaign_schemas(folder: Path) -> Path:
    """The campaign's copy of the schemas."""
    return folder / SCHEMAS_HOME


def schema_line(target: Path, kind: str, campaign: Path | None = None) -> str:
    """The modeline of a new file: the campaign's copy of the schema, by a path relative to the
    file (it survives a clone); outside a campaign, the installed schemas."""
    schema = (campaign_schemas(campaign) if campaign is not None else schemas_dir()) / \
        f"{kind}.schema.json"
    try:
        where = os.path.relpath(schema.resolve(), target.resolve().parent)
    except ValueError:
        where = str(schema)
    return f"# yaml-language-server: $schema={where.replace(os.sep, '/')}\n"


def shipped_schemas() -> dict[str, bytes]:
    """This synergy-forge's schemas, by file name."""
    return {p.name: read_regular(p) for p in sorted(schemas_dir().glob("*.schema.json"))}


def _title(mission_id: str, path: Path | None = None) -> tuple[str, str]:
    """A first title from the mission's id, in English and French ("my-first-mission" is the
    campaign's first; "night-shift" gives "Night shift" in both, to be translated); with the
    words of the file name `path` instead where they are the id's with their accents ("02 Le
    très long voyage.yaml" gives "Le très long voyage", not "Le tres long voyage"), when the
    fonts draw them and they fit."""
    if mission_id == "my-first-mission":
        return "My first mission", "Ma première mission"
    title = mission_id.replace("-", " ").capitalize()
    if path is not None:
        words = " ".join("".join(c if c.isalnum() else " " for c in
                                 unicodedata.normalize("NFC", path.stem)).split())
        words = re.sub(r"^\d+ ", "", words)
        named = words[:1].upper() + words[1:]
        if _folded(named) == title.lower() and not missing_glyphs(named) and \
                all(_comfortable(typeset(named, lang)) for lang in ("en", "fr")):
            return named, named
    return title, title


def _folded(text: str) -> str:
    """`text` without its accents, in lower case."""
    return "".join(c for c in unicodedata.normalize("NFKD", text.lower())
                   if not unicodedata.combining(c))


#: The id a file name gives when none of its characters can be one ("03.yaml", "---.yaml").
FALLBACK_ID = "my-mission"


def mission_id_from(path: Path, taken: frozenset[str] = frozenset()) -> str:
    """The mission's id from its file name, by the schema's own id pattern: accents dropped
    ("déjà" gives "deja"), every other character the pattern refuses a hyphen, the leading
    number left to `number` ("02-night-shift.yaml" gives "night-shift"); suffixed when a
    mission of `taken` has it, and cut until the title made from it fits on the card."""
    schema: Any = validator("mission").schema
    pattern = re.compile(schema["properties"]["id"]["pattern"])
    plain = "".join(c for c in unicodedata.normalize("NFKD", path.stem.lower())
                    if not unicodedata.combining(c))
    parts = [p for p in "".join(c if pattern.search(c) else "-" for c in plain).split("-") if p]
    while parts and parts[0].isdigit():
        parts = parts[1:]
    while parts and not _title_fits(_unique("-".join(parts), taken)):
        parts = parts[:-1] if len(parts) > 1 or len(parts[0]) <= 1 else [parts[0][:-1]]
    found = "-".join(parts)
    return _unique(found if parts and pattern.search(found) else FALLBACK_ID, taken)


def _title_fits(mission_id: str) -> bool:
    return all(_comfortable(typeset(title, lang))
               for title, lang in zip(_title(mission_id), ("en", "fr"), strict=True))


def _comfortable(title: str) -> bool:
    """A new mission's title fits its one line at the rules' largest size: never the one
    that sets every card's rules text smaller (cardtext.mission.campaign_rules_pt)."""
    boxes = card_boxes()
    return (fit(title, boxes["title"]) or 0.0) >= boxes["mission-rules"].pt


def _unique(mission_id: str, taken: frozenset[str]) -> str:
    """`mission_id`, or the first of mission_id-2, -3... that no mission of `taken` has."""
    suffix = 1
    found = mission_id
    while found in taken:
        suffix += 1
        found = f"{mission_id}-{suffix}"
    return found


def mission_text(path: Path, mission_id: str, number: int = 1,
                 languages: tuple[str, ...] = ("en",), campaign: Path | None = None) -> str:
    def text(en: str, fr: str) -> str:
        if languages == ("en",):
            return f'"{en}"'
        parts = {"en": en, "fr": fr}
        return "{" + ", ".join(f'{lang}: "{parts.get(lang, en)}"' for lang in languages) + "}"

    return schema_line(path, "mission", campaign) + f"""\
# A mission card. Every field is explained in docs/mission-format.md; check it with
#   synergy-forge validate {_shell_name(path)}
id: {mission_id}                 # lower-case letters, digits and hyphens; unique in a campaign
number: {number}                         # position in the campaign, from 1
title: {text(*_title(mission_id, path))}
stars: 2                          # printed difficulty 1 to 5; or per count: {{3: 3, 4: 4, 5: 3}}
players: [3, 4, 5]                # the player counts it is made for
rounds: 2                         # successful rounds needed to win (at most 7)
lives: 3                          # failed rounds the group can afford
hand: {{numbers: 10, goals: 7}}     # starting hand; the rest are drawn from face-down decks
order: number-goal-number         # or goal-number-number
allowed_failures: {{3: 1, 4: 1, 5: 2}}   # failed seats a round survives; or one number
challenges: []                    # e.g. [minimum-5, goals-left]
actions: []                       # e.g. [F, H]
super: false
hyper: false
flavor: {text("Play your cards, read the table, trust each other.",
              "Jouez vos cartes, lisez la table, faites-vous confiance.")}
"""


def _shell_name(path: Path) -> str:
    """The file's name as typed in a shell; a name no comment line can hold is left to the
    reader."""
    return shlex.quote(path.name) if path.name.isprintable() else "FILE"


def write_new_mission(path: Path, force: bool = False) -> list[Path]:
    """A mission file; in a campaign, in its languages, with an id and a number no other of
    its missions has (the number after its last), and a schema line naming the campaign's
    copy of the schemas (written if it has none)."""
    languages: tuple[str, ...] = ("en",)
    number, taken = 1, frozenset[str]()
    folder = _campaign_around(path)
    if folder is not None:
        # Every mission file whose id and number can be read counts, even one with errors:
        # the campaign's duplicate checks count them too (loading._MissionIndex).
        read = read_campaign(folder, Reading.TO_PLAY)
        others = [doc.data for doc in read.documents.values() if isinstance(doc.data, dict)
                  and Path(doc.file).resolve() != path.resolve()]
        taken = frozenset(str(data.get("id")) for data in others)
        number = max((n for data in others if type(n := data.get("number")) is int),
                     default=0) + 1
        found = read.campaign or read.usable
        languages = found.languages if found is not None else languages
    text = mission_text(path, mission_id_from(path, taken), number, languages, folder)
    copies: dict[Path, bytes] = {}
    if folder is not None:
        copies = {campaign_schemas(folder) / name: data for name, data in
                  shipped_schemas().items() if not (campaign_schemas(folder) / name).is_file()}
        _check_inside(folder, [] if force else [path], copies, [path] if force else [])
    written = [write_atomic(path, text, overwrite=force)]
    return written + [write_inside(folder, target, data, kind=SCHEMA_COPY)
                      for target, data in copies.items() if folder is not None]


def _campaign_around(path: Path) -> Path | None:
    """The campaign a new file at `path` is written into: the nearest campaign.yaml from the
    folder it is named in (before any link is followed: a link out of the campaign must not
    take the file out of its reach), else as find_campaign finds it."""
    here = Path(os.path.abspath(path)).parent
    for folder in (here, *here.parents):
        if regular_file(folder / CAMPAIGN_FILE):
            return folder
        if os.path.lexists(folder / ".git"):
            break
    return find_campaign(path)


def _check_inside(folder: Path, new: list[Path], copies: Iterable[Path],
                  replaced: Iterable[Path] = ()) -> None:
    """Every file `new` writes into the campaign `folder` checked before any is written
    (fileio.write_inside's policy): a `new` file's name taken is FileExistsError; a link out
    of the campaign, or a schema copy's name holding another file, CannotWrite. `replaced`
    (`new mission --force`) may replace any file, never through a link out."""
    for path, problem in [*((p, outside_problem(folder, p)) for p in replaced),
                          *((p, inside_problem(folder, p)) for p in new),
                          *((p, inside_problem(folder, p, SCHEMA_COPY)) for p in copies)]:
        if problem is None:
            continue
        if path in new and outside_problem(folder, path) is None:
            raise FileExistsError(errno.EEXIST, "exists", str(path))
        raise CannotWrite(str(path), problem)


def language_problem(languages: tuple[str, ...]) -> str | None:
    """Why campaign.yaml's schema would refuse these languages, or None."""
    schema: Any = validator("campaign").schema
    for error in Draft202012Validator(schema["properties"]["languages"]).iter_errors(
            list(languages)):
        if error.validator == "pattern":
            return f"'{error.instance}' is not a language code such as en, fr or fr-CA"
        return "name each language once" if error.validator == "uniqueItems" else \
            "name at least one language"
    return None


def workflow_text() -> str:
    """The GitHub workflow `new campaign` writes, as docs/ci.md shows it: validate on every
    push and pull request, each problem an annotation at its line."""
    from synergy_forge import __version__

    return f"""\
# .github/workflows/missions.yml
name: missions
on: [push, pull_request]
jobs:
  validate:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with: {{python-version: "3.11"}}
      - run: pip install "git+SYNERGY_FORGE_GIT@v{__version__}"
      - run: synergy-forge validate --format github .
"""


def pre_commit_text() -> str:
    """The pre-commit configuration `new campaign` writes, as docs/ci.md shows it."""
    from synergy_forge import __version__

    return f"""\
# .pre-commit-config.yaml
repos:
  - repo: SYNERGY_FORGE_GIT
    rev: v{__version__}
    hooks:
      - id: synergy-forge-validate
"""


#: What git leaves out of a campaign's repository: the kit `build` writes, `playtest --html`
#: reports beside it.
GITIGNORE = "# made by synergy-forge build and playtest --html: made again at will\noutput/\n"


def write_campaign(folder: Path, languages: tuple[str, ...] = ("en", "fr")) -> list[Path]:
    """A campaign folder, laid out as a repository (docs/ci.md): campaign.yaml, a first
    mission, a challenge and a goal card of its own, a round for `judge` in rounds/, the
    GitHub workflow and pre-commit configuration that validate it, a .gitignore for the kit,
    and the copy of the schemas. Refuses (FileExistsError, nothing written) when one of its
    files is already there, but for the repository's .gitignore, workflow and pre-commit
    configuration: those of its own are kept, and none written in their place. The
    languages are ones language_problem accepts."""
    langs = ", ".join(languages)
    names = {"en": "My campaign", "fr": "Ma campagne"}
    name = "{" + ", ".join(f'{lang}: "{names.get(lang, names["en"])}"' for lang in languages) + "}"
    campaign = folder / CAMPAIGN_FILE
    mission = folder / "missions" / "01-my-first-mission.yaml"
    challenge = folder / "challenges" / "odd-sum.yaml"
    goal = folder / "goals" / "close-call.yaml"
    round_file = folder / "rounds" / "close-call.yaml"

    def texts(en: str, fr: str) -> str:
        return "\n".join(f'  {lang}: "{fr if lang == "fr" else en}"' for lang in languages)

    files = {
        campaign: schema_line(campaign, "campaign", folder) + f"""\
# A campaign: its missions and its own challenges and goal cards.
name: {name}
languages: [{langs}]              # every text should exist in each of these
missions: [missions/*.yaml]       # paths or globs, in any order: 'number' decides
challenges: [challenges/*.yaml]   # the campaign's own challenges
goals: [goals/*.yaml]             # the campaign's own goal cards
""",
        mission: mission_text(mission, "my-first-mission", 1, languages, folder),
        challenge: schema_line(challenge, "challenge", folder) + f"""\
# A challenge of this campaign. Kinds and their variables: docs/definitions.md
id: odd-sum
kind: constraint                  # true when a seat keeps the rule
name:
{texts("Odd sum", "Somme impaire")}
text:
{texts("Your sum must be odd.", "Votre somme doit être impaire.")}
rule: "sum is odd"
""",
        goal: schema_line(goal, "goal", folder) + f"""\
# A goal card of this campaign: the rule is true when the seat meets it.
id: close-call
name:
{texts("Close call", "De justesse")}
symbol: "±1"                      # printed large on the card and in its corner (3 characters)
text:
{texts("Be exactly 1 away from another player's sum.",
       "Soyez à exactement 1 de la somme d'un autre joueur.")}
rule: "(sum - 1) in others or (sum + 1) in others"
""",
        round_file: schema_line(round_file, "round", folder) + """\
# A round for `synergy-forge judge rounds/close-call.yaml`: the cards each seat played and
# the goal it chose; the referee says who met their goal and whether the round is won.
allowed_failures: 1
seats:
  - numbers: [2, 4]               # a sum of 6: 5 and 7 are played too, so it is met
    goal: close-call
  - numbers: [1, 4]               # 5
    goal: close-call
  - numbers: [3, 4]               # 7
    goal: close-call
""",
    }
    # The repository's own files: a repository that has its own already keeps them.
    files.update({path: text for path, text in (
        (folder / ".github" / "workflows" / "missions.yml", workflow_text()),
        (folder / ".pre-commit-config.yaml", pre_commit_text()),
        (folder / ".gitignore", GITIGNORE)) if not os.path.lexists(path)})
    # Every name checked before any is written: a file found at the third write would leave
    # half a campaign behind, and a second run would then refuse its campaign.yaml.
    copies = {campaign_schemas(folder) / name: data for name, data in shipped_schemas().items()}
    _check_inside(folder, list(files), copies)
    written = [write_inside(folder, path, text) for path, text in files.items()]
    return written + [write_inside(folder, path, data, kind=SCHEMA_COPY)
                      for path, data in copies.items()]
