"""The language the referee's words are said in: English as written (every command's output),
or a Translator's (the kit's catalog, cardtext/locale) for a table's seat that reads another."""

from __future__ import annotations

from synergy_forge.cardtext.i18n import Translator


class _English:
    """The reports' own words as written, untouched: English, as `judge` and `play` print
    them (a Translator would also typeset them)."""

    language = "en"

    def gettext(self, message: str) -> str:
        return message

    def pgettext(self, context: str, message: str) -> str:
        return message

    def ngettext(self, singular: str, plural: str, n: int) -> str:
        return singular if n == 1 else plural


ENGLISH = _English()
Words = _English | Translator
