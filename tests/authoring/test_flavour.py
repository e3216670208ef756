"""A flavour text that states a number of rounds, lives or failures agrees with its card,
in English and French, in words or digits (a warning at the words, where it does not)."""

from __future__ import annotations

from pathlib import Path

import pytest
from support.files import validate_files

from synergy_forge.authoring.flavour import stated_counts
from synergy_forge.resources import starter_campaign
from synergy_forge.workspace.validate import validate_paths

MISSION = """\
id: thin
number: 1
title: Thin
stars: 1
rounds: 4
lives: 3
allowed_failures: {3: 0, 4: 1, 5: 1}
"""


def flavour_warnings(tmp_path: Path, flavour: str) -> list[tuple[int, int, str]]:
    report = validate_files(tmp_path, {"m.yaml": MISSION + flavour}, [Path("m.yaml")])
    return [(d.line, d.column, d.message) for d in report.diagnostics
            if d.check == "mission.flavour-numbers" and str(d.severity) == "warning"]


def test_flavour_counts_that_contradict_the_card_are_warned_at_the_words(tmp_path):
    found = flavour_warnings(tmp_path, 'flavor:\n  en: "Two lives, five rounds. Tread softly."\n'
                             '  fr: "Avec 4 manches et trois vies, tout va bien."\n')
    assert [(line, column) for line, column, _ in found] == [(9, 8), (9, 19)]
    assert 'says "Two lives" but the card has 3 lives' in found[0][2]
    assert 'says "five rounds" but the card has 4 rounds to win' in found[1][2]


def test_flavour_counts_in_french_words_and_digits(tmp_path):
    found = flavour_warnings(tmp_path, "flavor:\n  en: Fine.\n"
                             "  fr: \"Il reste deux vies et 5 petites manches.\"\n")
    assert [(line, column) for line, column, _ in found] == [(10, 17), (10, 30)]
    assert '(fr) says "deux vies"' in found[0][2] and '"5 petites manches"' in found[1][2]


def test_a_plain_flavour_string_is_english_and_located(tmp_path):
    found = flavour_warnings(tmp_path, "flavor: Only one life this time.\n")
    assert [(line, column) for line, column, _ in found] == [(8, 14)]


def test_failures_that_depend_on_the_player_count(tmp_path):
    # 0 with 3 players, 1 with 4 or 5: "one failure" holds only where players are named.
    found = flavour_warnings(tmp_path, "flavor: One spare failure is on the table.\n")
    assert len(found) == 1 and "0 with 3 players, 1 with 4 players" in found[0][2]
    assert flavour_warnings(tmp_path, "flavor: From four players on, one failure is forgiven.\n"
                            ) == []
    assert len(flavour_warnings(tmp_path, "flavor: With five players, two failures.\n")) == 1


@pytest.mark.parametrize("text, language, counts", [
    ("Two lives, five rounds, no pairs.", "en", [("lives", 2), ("rounds", 5)]),
    ("Four rounds in a row.", "en", [("rounds", 4)]),
    ("The last two rounds are the hardest.", "en", []),
    ("Two cards and rounds to go.", "en", []),
    ("One player may step out of a round.", "en", []),
    ("Un joueur peut se retirer d'une manche.", "fr", []),  # "une": the article
    ("Il ne vous reste qu'une seule vie.", "fr", [("lives", 1)]),
    ("Quatre manches d'affilée", "fr", [("rounds", 4)]),
    ("Trois victoires, deux échecs permis.", "fr", [("rounds", 3), ("failures", 2)]),
    ("4\u00a0manches", "fr", [("rounds", 4)]),
])
def test_stated_counts(text, language, counts):
    assert [(c.what, c.value) for c in stated_counts(text, language)] == counts


def test_the_starter_missions_flavour_agrees_with_their_cards():
    report = validate_paths([starter_campaign()])
    assert [str(d) for d in report.diagnostics if d.check == "mission.flavour-numbers"] == []
