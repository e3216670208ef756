"""The package's comments and docstrings say why, not when: what an issue asked, which session
made a change and on what date is the history git keeps (and docs/performance.md for the
figures), so none of it is written in the source."""

from __future__ import annotations

import re
from pathlib import Path

import synergy_forge

PACKAGE = Path(synergy_forge.__file__).resolve().parent
#: What tells history: an issue or session by number, a date.
HISTORY = re.compile(r"\b(?:[Ii]ssues? #?\d+|[Ss]essions? \d+|20\d\d-\d\d-\d\d)\b")


def history(source: str) -> list[tuple[int, str]]:
    """The (line number, words) of every mention of history in `source`."""
    return [(number, match.group(0)) for number, line in enumerate(source.splitlines(), 1)
            for match in HISTORY.finditer(line)]


def test_the_package_source_tells_no_history():
    found = {path.relative_to(PACKAGE).as_posix(): where
             for path in sorted(PACKAGE.rglob("*.py"))
             if (where := history(path.read_text(encoding="utf-8")))}
    assert found == {}


def test_the_check_can_fail():
    source = ('"""Faster since issue 24 (session 17, measured 2026-11-23)."""\n'
              "x = 1  # see issues 3\n"
              "y = 2  # an issue of the magazine, 2026 cards\n")
    assert history(source) == [(1, "issue 24"), (1, "session 17"), (1, "2026-11-23"),
                               (2, "issues 3")]
