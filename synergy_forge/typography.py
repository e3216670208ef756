"""Printed words as a typesetter would set them, in English and French.

Every text the kit prints goes through `typeset` (printing/i18n.py): the fixed strings of the
catalogs and the texts designers write alike, so a designer's straight quote prints curly and a
French colon never starts a line. What it does:

- apostrophes ’ and quotes “ ” ‘ ’ in English, « » in French, from straight ones;
- French spacing: a narrow no-break space before ; : ! ? and inside « », a no-break space in
  "100 %";
- a no-break space between a number and the word it counts ("3 players", "100 mm"), and
  before a number that ends a clause ("becomes 10."), so that no line ends or starts on a
  bare number;
- no-break spaces in a choice of two cards by letter ("H or J", "F ou G"): a line starting
  with "J." reads as a new sentence.

Idempotent: a text already set (a designer who typed ’ or a narrow space) comes out the same.
A root helper, like textfit, which measures the set text: it imports nothing of the project.
"""

from __future__ import annotations

import re
from functools import lru_cache

NBSP = "\u00a0"
#: narrow no-break space: French spacing before ; : ! ? and inside « »
NNBSP = "\u202f"
_SPACE = "[ \u00a0\u202f]"

_APOSTROPHE = re.compile(r"(?<=\w)'|'(?=\d\d?s\b)")  # l'objectif, players', '90s
_OPENING_SINGLE = re.compile(r"(?:^|(?<=[\s(\[{“«—]))'(?=\S)")
_OPENING_DOUBLE = re.compile(r"(?:^|(?<=[\s(\[{‘—]))\"")
_NUMBER_WORD = re.compile(rf"(?<=\d){_SPACE}(?=[^\W\d_]|%)")
#: a number that ends a clause stays with the word before it ("becomes 10.", "players 1")
_WORD_NUMBER = re.compile(r"(?<=[^\W\d_]) (?=\d+(?:[.,;:!?)»”’\u202f]|$))")
#: two cards named by their letters, as one choice ("H or J", "D ou E")
_LETTER_CHOICE = re.compile(r"\b([A-Z]) (or|and|ou|et) ([A-Z])\b")
_FRENCH_BEFORE = re.compile(rf"(?<=[^\s]){_SPACE}?([;:!?»])(?=\s|$|[\"'”’),.;:!?»])")
_FRENCH_AFTER = re.compile(rf"«{_SPACE}?")
_FRENCH_PERCENT = re.compile(rf"(?<=\d){_SPACE}?(%%?)(?![(a-z])")


def _quotes(text: str, opening: str, closing: str) -> str:
    text = _OPENING_DOUBLE.sub(opening, text)
    return text.replace('"', closing)


@lru_cache(maxsize=8192)
def typeset(text: str, language: str) -> str:
    """`text` with typographic quotes, apostrophes and no-break spaces for `language`."""
    if not text:
        return text
    text = _APOSTROPHE.sub("’", text)
    text = _OPENING_SINGLE.sub("‘", text).replace("'", "’")
    if language == "fr":
        text = _quotes(text.replace("“", '"').replace("”", '"'), "«", "»")
        text = _FRENCH_PERCENT.sub(lambda m: NBSP + m[1], text)
        text = _FRENCH_AFTER.sub("«" + NNBSP, text)
        text = _FRENCH_BEFORE.sub(lambda m: NNBSP + m[1], text)
    else:
        text = _quotes(text, "“", "”")
    text = _LETTER_CHOICE.sub(rf"\1{NBSP}\2{NBSP}\3", text)
    return _WORD_NUMBER.sub(NBSP, _NUMBER_WORD.sub(NBSP, text))
