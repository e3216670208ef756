"""`new mission` and `new campaign`: commented starting files that validate as written."""

from __future__ import annotations

import os
from pathlib import Path

from synergy_forge.authoring.loading import find_campaign, read_campaign
from synergy_forge.fileio import write_atomic
from synergy_forge.resources import schemas_dir


def _schema_line(target: Path, kind: str) -> str:
    schema = schemas_dir() / f"{kind}.schema.json"
    try:
        where = os.path.relpath(schema, target.resolve().parent)
    except ValueError:
        where = str(schema)
    return f"# yaml-language-server: $schema={where}\n"


def mission_text(path: Path, mission_id: str, number: int = 1,
                 languages: tuple[str, ...] = ("en",)) -> str:
    def text(en: str, fr: str) -> str:
        if languages == ("en",):
            return f'"{en}"'
        parts = {"en": en, "fr": fr}
        return "{" + ", ".join(f'{lang}: "{parts.get(lang, en)}"' for lang in languages) + "}"

    return _schema_line(path, "mission") + f"""\
# A mission card. Every field is explained in docs/mission-format.md; check it with
#   synergy-forge validate {path.name}
id: {mission_id}                 # lower-case letters, digits and hyphens; unique in a campaign
number: {number}                         # position in the campaign, from 1
title: {text("My first mission", "Ma première mission")}
stars: 1                          # difficulty as printed, 1 to 5
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


def write_mission(path: Path, force: bool = False) -> list[Path]:
    mission_id = "".join(c if c.isalnum() else "-" for c in path.stem.lower()).strip("-")
    mission_id = "-".join(part for part in mission_id.split("-") if part) or "my-mission"
    languages: tuple[str, ...] = ("en",)
    folder = find_campaign(path)
    if folder is not None:  # speak the campaign's languages
        found = read_campaign(folder, with_missions=False).campaign
        languages = found.languages if found is not None else languages
        numbers = [m.number for m in (read_campaign(folder).campaign or found).missions] \
            if found is not None else []
        number = max(numbers, default=0) + 1
    else:
        number = 1
    text = mission_text(path, mission_id, number, languages)
    return [write_atomic(path, text, overwrite=force)]


def write_campaign(folder: Path, languages: tuple[str, ...] = ("en", "fr")) -> list[Path]:
    """A campaign folder; refuses to touch a folder that already has a campaign.yaml."""
    langs = ", ".join(languages)
    names = {"en": "My campaign", "fr": "Ma campagne"}
    name = "{" + ", ".join(f'{lang}: "{names.get(lang, names["en"])}"' for lang in languages) + "}"
    campaign = folder / "campaign.yaml"
    mission = folder / "missions" / "01-my-first-mission.yaml"
    challenge = folder / "challenges" / "odd-sum.yaml"
    goal = folder / "goals" / "close-call.yaml"

    def texts(en: str, fr: str) -> str:
        return "\n".join(f'  {lang}: "{fr if lang == "fr" else en}"' for lang in languages)

    files = {
        campaign: _schema_line(campaign, "campaign") + f"""\
# A campaign: its missions and its own challenges and goal cards.
name: {name}
languages: [{langs}]              # every text should exist in each of these
missions: [missions/*.yaml]       # paths or globs, in any order: 'number' decides
challenges: [challenges/*.yaml]   # the campaign's own challenges
goals: [goals/*.yaml]             # the campaign's own goal cards
""",
        mission: mission_text(mission, "my-first-mission", 1, languages),
        challenge: _schema_line(challenge, "challenge") + f"""\
# A challenge of this campaign. Kinds and their variables: docs/definitions.md
id: odd-sum
kind: constraint                  # true when a seat keeps the rule
name:
{texts("Odd sum", "Somme impaire")}
text:
{texts("Your sum must be odd.", "Votre somme doit être impaire.")}
rule: "sum is odd"
""",
        goal: _schema_line(goal, "goal") + f"""\
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
    }
    if campaign.exists():
        raise FileExistsError(None, "exists", str(campaign))
    return [write_atomic(path, text, overwrite=False) for path, text in files.items()]
