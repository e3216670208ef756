"""The game's words in each language: one term per concept, shared by the printed kit, the
table and the studio. The kit's catalog (locale/) and the table's words (table/words.py) use
these terms; `stray_terms` finds a variant that slipped in (the table once said "carte nombre"
where the kit says "carte numérotée", and "personne", which reads "nobody", for a player).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    """A concept's word in each language, and the variants no text may use for it."""

    en: str
    fr: str
    #: variants, per language, matched as whole words (case-sensitive where the case matters)
    avoid: dict[str, tuple[str, ...]]


GLOSSARY: dict[str, Term] = {
    "number card": Term("number card", "carte numérotée",
                        {"fr": ("carte nombre", "cartes nombre", "carte numéro",
                                "cartes numéro")}),
    "goal card": Term("goal card", "carte Objectif", {"fr": ("carte objectif",
                                                             "cartes objectif")}),
    "action card": Term("action card", "carte Action", {"fr": ("carte action",
                                                               "cartes action")}),
    "super card": Term("super card", "Super Carte", {"fr": ("super carte",)}),
    "hyper card": Term("hyper card", "Hyper Carte", {"fr": ("hyper carte", "Hyper carte")}),
    # a person at the table, not a bot ("personne" alone reads "nobody")
    "player": Term("player", "joueur ou joueuse", {}),
    "seat": Term("seat", "place", {"fr": ("siège", "sièges")}),
    "round": Term("round", "manche", {"fr": ("tour de jeu",)}),
    "life": Term("life", "vie", {}),
    "challenge": Term("challenge", "défi", {}),
    "discard row": Term("discard row", "défausse", {}),
}


def term(concept: str, language: str) -> str:
    """The concept's word in `language` (English where the glossary has no other)."""
    found = GLOSSARY[concept]
    return found.fr if language == "fr" else found.en


def stray_terms(texts: Iterable[str], language: str) -> list[tuple[str, str, str]]:
    """(text, variant, the glossary's term) for each text that names a concept by a variant."""
    found = []
    for text in texts:
        for name, entry in GLOSSARY.items():
            for variant in entry.avoid.get(language, ()):
                if re.search(rf"(?<!\w){re.escape(variant)}(?!\w)", text):
                    found.append((text, variant, term(name, language)))
    return found
