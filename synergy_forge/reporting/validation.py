"""`validate`'s report as text (FILE:LINE:COLUMN lines), JSON (docs/ci.md) and GitHub
Actions annotations."""

from __future__ import annotations

import json

from synergy_forge.authoring.diagnostics import Diagnostic
from synergy_forge.reporting import Output
from synergy_forge.workspace.validate import Report


def text(report: Report, verbose: bool = False) -> Output:
    lines = "\n".join(str(d) for d in report.diagnostics)
    files = f"{report.files} file{'s' if report.files != 1 else ''}"
    summary = f"{files} checked: {report.errors} error(s), {report.warnings} warning(s)"
    if report.skipped and not verbose:
        summary += f"; {len(report.skipped)} skipped (--verbose lists them)"
    # The summary goes with the diagnostics on stdout only when there are none; otherwise to
    # stderr, so that stdout stays one diagnostic a line for editors and scripts.
    if report.diagnostics:
        return Output(lines, note=summary)
    return Output(summary)


def to_json(report: Report) -> Output:
    return Output(json.dumps(report.to_json(), indent=2, ensure_ascii=False))


def escape_data(value: str) -> str:
    """A workflow command's message, escaped per GitHub's rules (`%`, CR, LF)."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def escape_property(value: str) -> str:
    """A workflow command's property value (file, title): as a message, and `:` and `,` too,
    which would otherwise end the value (`a,b:c.yaml` -> `a%2Cb%3Ac.yaml`)."""
    return escape_data(value).replace(":", "%3A").replace(",", "%2C")


def annotation(diagnostic: Diagnostic) -> str:
    """One GitHub Actions annotation (`::error file=…,line=…,col=…,title=…::message`)."""
    return (f"::{diagnostic.severity} file={escape_property(diagnostic.file)},"
            f"line={diagnostic.line},col={diagnostic.column},"
            f"title={escape_property(diagnostic.check)}::{escape_data(diagnostic.message)}")


def github(report: Report) -> Output:
    return Output("\n".join(annotation(d) for d in report.diagnostics))
