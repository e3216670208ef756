"""Results in words and formats for people and machines, rendered from the typed results of
the layers below: a round's verdict explained (`explain`), a game narrated (`narrate`), why a
mission was lost (`losses`), in English or a table seat's language (`words`), validation
reports (`validation`), playtest reports (`playtest`), people's games (`people`), a finished
game's `review`, a choice in a person's words as the table names it (`choicewords`), what
`build` wrote (`build`), what `tune` found (`tune`), a campaign's
website (`publish`). `formats.REPORTERS` holds every
reporter by result kind and format name; the CLI's `--format` choices come from it.
JSON follows one convention: a value that owns its documented shape has `to_json()`
(Diagnostic, Report), a shape built here is `<thing>_to_json()` (verdicts, playtests), and
each kind's JSON reporter is `to_json`. May import `workspace` and the middle layers
(authoring, sim, printing) whose results it renders."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Output:
    """What a reporter produces: `text` for standard output (or the report's file), and an
    optional `note` for standard error (a summary that must not mix with parsed output)."""

    text: str
    note: str = ""
