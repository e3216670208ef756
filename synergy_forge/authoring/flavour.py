"""The numbers a mission's flavour text states, checked against its card.

A flavour text that says "Two lives, five rounds" on a card of 3 lives and 4 rounds sends a
table to play the wrong mission. This finds a count (in digits or in words, English and French)
that names rounds, lives or failures, and `flavour_numbers` warns where it differs from the
card, at the words themselves.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

from synergy_forge.authoring.diagnostics import Diagnostic, Severity
from synergy_forge.authoring.yamlfile import Document

CHECK = "mission.flavour-numbers"

#: Counts in words. French "un"/"une" is also the article ("d'une manche": a round), so it
#: counts only as "un seul", "une seule"; English "a" is never a count.
_WORDS = {
    "en": {"zero": 0, "one": 1, "single": 1, "two": 2, "three": 3, "four": 4, "five": 5,
           "six": 6, "seven": 7, "eight": 8, "nine": 9, "ten": 10},
    "fr": {"zéro": 0, "un": 1, "une": 1, "deux": 2, "trois": 3, "quatre": 4, "cinq": 5,
           "six": 6, "sept": 7, "huit": 8, "neuf": 9, "dix": 10},
}
#: What is counted: the card's field each noun speaks of.
_NOUNS = {
    "en": {"rounds": r"rounds?|wins?|victor(?:y|ies)", "lives": r"li(?:fe|ves)",
           "failures": r"failures?|miss(?:es)?|mistakes?|slips?"},
    "fr": {"rounds": r"manches?|victoires?", "lives": r"vies?",
           "failures": r"échecs?|erreurs?|faux[ \u00a0]pas"},
}
#: A word between the count and the noun ("one spare failure", "trois petites manches"),
#: unless it ends the phrase ("two cards and rounds").
_NOT_BETWEEN = {"and", "or", "of", "to", "in", "the", "a", "cards", "card", "more", "fewer",
                "less", "et", "ou", "de", "des", "du", "à", "en", "cartes", "carte", "plus",
                "moins"}
#: A count after these names some of the card's rounds, not how many ("the last two rounds").
_NOT_AFTER = {"last", "first", "next", "final", "other", "every", "derniers", "dernières",
              "premiers", "premières", "prochains", "prochaines", "autres"}


@dataclass(frozen=True)
class StatedCount:
    """A count in a text: `what` (rounds, lives or failures), its value, where it is."""

    what: str
    value: int
    start: int
    phrase: str


def _pattern(language: str) -> re.Pattern[str]:
    words = sorted(_WORDS[language], key=len, reverse=True)
    nouns = "|".join(f"(?P<{what}>{alternatives})"
                     for what, alternatives in _NOUNS[language].items())
    return re.compile(
        rf"(?<!\w)(?P<count>\d+|{'|'.join(words)})"
        r"(?P<alone>[ \u00a0\u202f]+seule?s?)?"
        r"(?:[ \u00a0\u202f]+(?P<between>[^\W\d]+(?:-[^\W\d]+)?))?"
        rf"[ \u00a0\u202f]+(?:{nouns})(?!\w)", re.IGNORECASE)


_PATTERNS = {language: _pattern(language) for language in _WORDS}


def stated_counts(text: str, language: str) -> Iterator[StatedCount]:
    """Every count of rounds, lives or failures that `text` states (English rules for a
    language without its own)."""
    words = _WORDS.get(language, _WORDS["en"])
    for match in _PATTERNS.get(language, _PATTERNS["en"]).finditer(text):
        count = match["count"].lower()
        if count in ("un", "une") and not match["alone"]:
            continue
        between = (match["between"] or "").lower()
        if between in _NOT_BETWEEN:
            continue
        before = re.findall(r"[\w’']+", text[:match.start()])
        if before and before[-1].lower() in _NOT_AFTER:
            continue
        what = next(name for name in ("rounds", "lives", "failures") if match[name])
        value = int(count) if count.isdigit() else words[count]
        yield StatedCount(what, value, match.start(), match.group(0))


def _card_values(data: dict[str, Any], what: str) -> dict[int, int]:
    """The card's value of `what`, by player count (the same for every count but failures)."""
    players = data.get("players", [3, 4, 5])
    if what != "failures":
        return {p: data[what] for p in players}
    allowed = data.get("allowed_failures", 0)
    if isinstance(allowed, int):
        return {p: allowed for p in players}
    return {p: allowed[str(p)] for p in players if str(p) in allowed}


def _contradicts(stated: StatedCount, values: dict[int, int], text: str) -> bool:
    """Whether the count differs from the card. Allowed failures that depend on the player count
    may be stated for some counts, in a sentence that names players ("From four players, one
    failure is forgiven"); said without, a count must hold at every table."""
    if not values or all(v == stated.value for v in values.values()):
        return False
    if stated.value not in values.values():
        return True
    sentence = re.split(r"[.!?]", text[:stated.start])[-1] + \
        re.split(r"[.!?]", text[stated.start:])[0]
    return not re.search(r"\b(?:players?|joueu(?:r|rs|se|ses))\b", sentence, re.IGNORECASE)


def _card_says(what: str, values: dict[int, int]) -> str:
    if len(set(values.values())) == 1:
        value = next(iter(values.values()))
        return {"rounds": f"{value} round{'s' * (value != 1)} to win",
                "lives": f"{value} li{'ves' if value != 1 else 'fe'}",
                "failures": f"{value} allowed failure{'s' * (value != 1)}"}[what]
    return "allowed failures " + ", ".join(f"{v} with {p} players"
                                           for p, v in sorted(values.items()))


def _position(doc: Document, path: tuple[str, ...], phrase: str) -> tuple[int, int]:
    """Where `phrase` is written inside the text at `path`: the text's own position when the
    file writes it otherwise (escapes, a folded block)."""
    line, column = doc.where(path)
    lines = doc.text.split("\n")
    if not 0 < line <= len(lines):
        return line, column
    offset = sum(len(text) + 1 for text in lines[:line - 1]) + column - 1
    following = re.compile(r"\n\S").search(doc.text, offset)  # not past the next top-level key
    found = doc.text.find(phrase, offset, following.start() if following else len(doc.text))
    if found < 0:
        return line, column
    before = doc.text[:found]
    return before.count("\n") + 1, found - (before.rfind("\n") + 1) + 1


def flavour_numbers(doc: Document, field_name: str = "flavor") -> list[Diagnostic]:
    """A warning at each count of rounds, lives or failures in the mission's flavour text that
    differs from its card, in every language."""
    value = doc.data.get(field_name)
    if value is None:
        return []
    texts = [((field_name,), "en", value)] if isinstance(value, str) else \
        [((field_name, lang), lang, text) for lang, text in value.items() if isinstance(text, str)]
    found = []
    for path, language, text in texts:
        for stated in stated_counts(text, language):
            try:
                values = _card_values(doc.data, stated.what)
            except (KeyError, TypeError):  # a field the schema refused is reported there
                continue
            if _contradicts(stated, values, text):
                line, column = _position(doc, path, stated.phrase)
                found.append(Diagnostic(
                    doc.file, line, column, Severity.WARNING,
                    f"the flavour text ({language}) says \"{stated.phrase}\" but the card has "
                    f"{_card_says(stated.what, values)}: change the text or the card", CHECK))
    return found
