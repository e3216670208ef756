"""Diagnostics: every problem found in a user's file, as a value that says where and what."""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

from synergy_forge.errors import UnreadableInput

#: At most this many findings of one kind in one file, then one saying how many more: a file
#: of 900,000 wrong items answers in seconds, in a screenful.
MAX_REPEATED = 20


class Severity(StrEnum):
    ERROR = "error"
    WARNING = "warning"


@dataclass(frozen=True, order=True, slots=True)
class Diagnostic:
    """One problem at FILE:LINE:COLUMN (1-based). `check` is a stable id users can look up."""

    file: str
    line: int
    column: int
    severity: Severity
    message: str
    check: str

    def __str__(self) -> str:
        # A message may go on with lines quoting the user's text (a rule with a caret under
        # the problem); the check id stays on the first line, with the location.
        first, newline, rest = self.message.partition("\n")
        return (f"{self.file}:{self.line}:{self.column}: {self.severity}: {first} "
                f"[{self.check}]{newline}{rest}")

    def to_json(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "column": self.column,
            "severity": str(self.severity),
            "message": self.message,
            "check": self.check,
        }


class InvalidInput(UnreadableInput):
    """Raised at the edge when a file cannot be used; carries every diagnostic found."""

    def __init__(self, diagnostics: list[Diagnostic]) -> None:
        super().__init__("\n".join(str(d) for d in diagnostics))
        self.diagnostics = sorted(diagnostics)

    def format_message(self) -> str:
        return "\n".join(str(d) for d in self.diagnostics)


class HasErrors(InvalidInput):
    """A campaign or mission that was read but has the errors `validate` reports: the same
    failure from every command that is given it (validate, build, playtest, tune, play), not
    a file that cannot be read at all (cli/exits.py tells them apart)."""


def errors(diagnostics: list[Diagnostic]) -> list[Diagnostic]:
    return [d for d in diagnostics if d.severity is Severity.ERROR]
