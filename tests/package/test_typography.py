"""French texts follow French typography: a (narrow) no-break space before : ; ! ? and inside
« » quotes, never straight quotes. Checked over the French catalog of the printed kit and every
French text of the starter campaign and of the built-in definitions."""

from __future__ import annotations

import re
from pathlib import Path

import yaml
from babel.messages.pofile import read_po

from synergy_forge.cardtext.i18n import LOCALE_DIR
from synergy_forge.resources import definitions_dir, starter_campaign

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
