"""Fixed strings in English and French through gettext catalogs (Babel).

The French catalog is the .po file under synergy_forge/cardtext/locale; it is compiled in memory
when a build starts, so no generated .mo file lives in the repository. Strings missing from a
catalog fall back to English and are remembered, so the build can report them. Every string it
gives, fixed or a designer's, is typeset for its language (typography.py: quotes, apostrophes,
no-break spaces).

To add strings: mark them `{{ _("…") }}` in templates/ or `_("…")` in code, then
`pybabel extract -F babel.cfg -o messages.pot .` and `pybabel update -i messages.pot -d
synergy_forge/cardtext/locale` (docs/printing.md).
"""

from __future__ import annotations

import gettext
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from io import BytesIO
from pathlib import Path

from babel.messages.mofile import write_mo
from babel.messages.pofile import read_po

from synergy_forge.typography import typeset

LOCALE_DIR = Path(__file__).resolve().parent / "locale"
SOURCE_LANGUAGE = "en"


@cache
def _catalog_bytes(language: str) -> bytes | None:
    path = LOCALE_DIR / language / "LC_MESSAGES" / "messages.po"
    if not path.is_file():
        return None
    with open(path, "rb") as handle:
        catalog = read_po(handle, locale=language)
    out = BytesIO()
    write_mo(out, catalog, use_fuzzy=False)
    return out.getvalue()


@dataclass
class Translator:
    """gettext for one language that records what it could not translate."""

    language: str
    missing: set[str] = field(default_factory=set)

    def __post_init__(self) -> None:
        data = None if self.language == SOURCE_LANGUAGE else _catalog_bytes(self.language)
        self._translations: gettext.NullTranslations = (
            gettext.GNUTranslations(BytesIO(data)) if data else gettext.NullTranslations())
        self._catalog = getattr(self._translations, "_catalog", {})

    def gettext(self, message: str) -> str:
        if self.language == SOURCE_LANGUAGE:
            return typeset(message, SOURCE_LANGUAGE)
        translated = self._catalog.get(message)
        if not translated:
            self.missing.add(message)
            return typeset(message, SOURCE_LANGUAGE)
        return typeset(translated, self.language)

    def pgettext(self, context: str, message: str) -> str:
        """`message` as said in `context` (its msgctxt): one English word, two translations
        ("Won": a mission "Gagnée", a column of games "Gagnées")."""
        if self.language == SOURCE_LANGUAGE:
            return typeset(message, SOURCE_LANGUAGE)
        translated = self._catalog.get(f"{context}\x04{message}")
        if not translated:
            self.missing.add(message)
            return typeset(message, SOURCE_LANGUAGE)
        return typeset(translated, self.language)

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        if self.language == SOURCE_LANGUAGE:
            return typeset(singular if n == 1 else plural, SOURCE_LANGUAGE)
        if (singular, 0) not in self._catalog:  # plural entries are keyed (msgid, form)
            self.missing.add(singular)
            return typeset(singular if n == 1 else plural, SOURCE_LANGUAGE)
        return typeset(self._translations.ngettext(singular, plural, n), self.language)

    def text(self, value: Mapping[str, str] | None, what: str = "") -> str:
        """A user text in this language, or English (recorded as missing)."""
        if not value:
            return ""
        if self.language in value:
            return typeset(value[self.language], self.language)
        if what and self.language != SOURCE_LANGUAGE:
            self.missing.add(what)
        return typeset(value.get(SOURCE_LANGUAGE) or next(iter(value.values())),
                       SOURCE_LANGUAGE)


def available_languages() -> list[str]:
    """English and every language with a catalog."""
    found = sorted(p.name for p in LOCALE_DIR.iterdir()
                   if (p / "LC_MESSAGES" / "messages.po").is_file())
    return [SOURCE_LANGUAGE, *found]
