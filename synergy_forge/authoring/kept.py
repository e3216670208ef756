"""What reading a campaign's files gave, kept between readings of its folder, so that the
studio and `build --watch` parse and check again only the files a save changed."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar, cast

from synergy_forge.authoring.diagnostics import Diagnostic, InvalidInput
from synergy_forge.authoring.loading import Broken, check_mission
from synergy_forge.authoring.yamlfile import Document, parse_document, read_bytes
from synergy_forge.core.mission import Mission
from synergy_forge.core.rules import Rulebook

T = TypeVar("T")


class Kept:
    """What reading a campaign's files gave, kept from one reading of its folder to the next
    (the studio and `build --watch` read it again after every save): a file whose bytes are
    those read before is not parsed again, nor checked again against the same goals,
    challenges and languages. Only what the last reading used is kept (`turn`)."""

    def __init__(self) -> None:
        self._now: dict[tuple[Any, ...], Any] = {}
        self._before: dict[tuple[Any, ...], Any] = {}
        self._rulebooks: dict[Rulebook, str] = {}

    def turn(self) -> None:
        """A new reading begins (after a save): what the one before did not use goes."""
        self._before, self._now, self._rulebooks = self._now, {}, {}

    def keep(self, key: tuple[Any, ...], compute: Callable[[], T]) -> T:
        """`compute()`, or what it gave for `key` in this reading or the one before. `key`
        must name everything the result depends on, by value."""
        if key in self._now:
            return cast(T, self._now[key])
        found = self._before.pop(key) if key in self._before else compute()
        self._now[key] = found
        return cast(T, found)

    def rulebook(self, rulebook: Rulebook) -> str:
        """A rulebook by value (its definitions): each reading makes a rulebook of its own."""
        if rulebook not in self._rulebooks:
            self._rulebooks[rulebook] = repr((sorted(rulebook.goals.items()),
                                              sorted(rulebook.challenges.items())))
        return self._rulebooks[rulebook]

    def document(self, path: Path, name: str) -> Document:
        """`read_document(path, name)`, parsed again only when its bytes changed."""
        raw = read_bytes(path, name)

        def parse() -> Document | list[Diagnostic]:
            try:
                return parse_document(raw, name)
            except InvalidInput as exc:
                return exc.diagnostics

        found = self.keep(("document", name, raw), parse)
        if isinstance(found, list):
            raise InvalidInput(list(found))
        return found

    def mission(self, doc: Document, rulebook: Rulebook, languages: tuple[str, ...],
                broken: Broken) -> tuple[Mission | None, list[Diagnostic]]:
        """`check_mission`, run again only when the file or what it is checked with changed."""
        mission, found = self.keep(
            ("mission", doc.file, doc.text, self.rulebook(rulebook), languages,
             tuple(sorted(broken.items()))),
            lambda: check_mission(doc, rulebook, languages, broken))
        return mission, list(found)
