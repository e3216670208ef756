"""Typography in English and French (synergy_forge.typography): French texts take a (narrow)
no-break space before : ; ! ? and inside « » quotes, never straight quotes, over the French
catalog of the printed kit and every French text of the starter campaign and of the built-in
definitions; `typeset` sets them so, and a no-break space is no place to wrap."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
import yaml
from babel.messages.pofile import read_po

from synergy_forge.cardtext.fonts import font
from synergy_forge.cardtext.i18n import LOCALE_DIR
from synergy_forge.resources import definitions_dir, starter_campaign
from synergy_forge.typography import typeset

NO_BREAK = "\u202f\u00a0"


def typography_problems(text: str) -> list[str]:
    problems = []
    for match in re.finditer(r"(.?)([:;!?])(.?)", text):
        before, mark, after = match.groups()
        if mark == ":" and (after.isdigit() or after == "/"):  # 10:30, https://
            continue
        if before not in NO_BREAK:
            problems.append(f"{mark!r} after {before!r} in {text!r}")
    if '"' in text or "“" in text or "”" in text:
        problems.append(f"straight or English quotes in {text!r}")
    for match in re.finditer(r"«(.)|(.)»", text):
        if (match.group(1) or match.group(2)) not in NO_BREAK:
            problems.append(f"« » without a no-break space inside in {text!r}")
    return problems


def french_texts(value, where: str):
    if isinstance(value, dict):
        for key, inner in value.items():
            if key == "fr" and isinstance(inner, str):
                yield where, inner
            else:
                yield from french_texts(inner, f"{where}.{key}")
    elif isinstance(value, list):
        for i, inner in enumerate(value):
            yield from french_texts(inner, f"{where}[{i}]")


def test_the_rule_itself():
    assert typography_problems("3 joueurs: 1")
    assert typography_problems("Prêt ?")  # an ordinary space can break the line before "?"
    assert typography_problems('jamais "ajuster"')
    assert typography_problems("jamais « ajuster »")
    assert not typography_problems("3 joueurs\u202f: 1 ; ou\u202f? «\u202fajuster\u202f»"
                                   .replace(" ;", "\u202f;"))


def test_the_french_catalog_follows_french_typography():
    with open(LOCALE_DIR / "fr" / "LC_MESSAGES" / "messages.po", "rb") as handle:
        catalog = read_po(handle, locale="fr")
    problems = []
    for message in catalog:
        if not message.id:
            continue
        strings = message.string if isinstance(message.string, tuple) else (message.string,)
        for string in strings:
            assert string, f"untranslated: {message.id!r}"
            problems += typography_problems(string)
    assert not problems, "\n".join(problems)


def test_the_starter_campaign_and_definitions_follow_french_typography():
    files = [*starter_campaign().rglob("*.yaml"), *definitions_dir().rglob("*.yaml")]
    assert len(files) > 30
    problems = []
    for path in files:
        data = yaml.safe_load(Path(path).read_text(encoding="utf-8"))
        for where, text in french_texts(data, path.name):
            problems += [f"{where}: {p}" for p in typography_problems(text)]
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("text, language, expected", [
    ("the mission's \"Goal deck\" line", "en", "the mission’s “Goal deck” line"),
    ("players' cards, 'quoted'", "en", "players’ cards, ‘quoted’"),
    ("Print at 100%% and 100 mm", "en", "Print at 100%% and 100\u00a0mm"),
    ("l'objectif : oui; non! quoi ?", "fr",
     "l’objectif\u202f: oui\u202f; non\u202f! quoi\u202f?"),
    ("la ligne \"Objectifs\" et « Main »", "fr",
     "la ligne «\u202fObjectifs\u202f» et «\u202fMain\u202f»"),
    ("Imprimez à 100 %% (taille réelle), 100% ou %(n)s cartes", "fr",
     "Imprimez à 100\u00a0%% (taille réelle), 100\u00a0% ou %(n)s cartes"),
    ("3 joueurs, à 21:35, https://x", "fr", "3\u00a0joueurs, à\u00a021:35, https://x"),
    ("A sum of exactly 5 becomes 10.", "en", "A sum of exactly 5\u00a0becomes\u00a010."),
    ("From mission 6: add 3 to it", "en", "From mission\u00a06: add 3\u00a0to it"),
    # a choice of two cards by letter is one group: no line starts with "J."
    ("may not use action cards H or J.", "en", "may not use action cards H\u00a0or\u00a0J."),
    ("les cartes Action H ou J.", "fr", "les cartes Action H\u00a0ou\u00a0J."),
    ("I or a card", "en", "I or a card"),
])
def test_typeset(text, language, expected):
    assert typeset(text, language) == expected
    assert typeset(expected, language) == expected  # already set: unchanged


def test_a_no_break_space_is_no_place_to_wrap():
    # textfit breaks lines only where the renderer may: "3 players 1" stays one word.
    from synergy_forge.cardtext.fonts import lines_needed

    group = "3\u00a0players\u00a01"
    width = font().width("3 players", 7.0)
    assert lines_needed(group.replace("\u00a0", " "), width, 7.0) == 2
    assert lines_needed(group, width, 7.0) is None  # wider than the box: cannot wrap
