"""Why a mission was lost (core.referee.LossReason), in the words of every report: the one
table of them. Words for people live here, in reporting, rather than on the enum in core: core
is the game's vocabulary (the reason's value is its code in logs and JSON), and its wording is
a report's, as the rest of each report's sentences are (in French from the kit's catalog,
for the table: reporting.words)."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import NamedTuple

from synergy_forge.core.referee import LossReason
from synergy_forge.reporting.words import ENGLISH, Words


def N_(message: str) -> str:
    """A message for the catalog (its extraction finds N_): said later, through gettext."""
    return message


class LossWords(NamedTuple):
    #: a few words, for tallies: "lost 8: lives 50%, the hyper card 50%"
    label: str
    #: the end of a sentence: "Lost: the last life was lost", "games ended when …"
    cause: str


LOSS_WORDS: Mapping[LossReason, LossWords] = MappingProxyType({
    LossReason.LIVES: LossWords("lives", N_("the last life was lost")),  # R21
    LossReason.HYPER: LossWords("the hyper card", N_("the hyper card's holder missed its goal")),
    LossReason.CHALLENGE: LossWords("a challenge not kept",
                                    N_("a player could not keep a challenge")),  # R9
    LossReason.NUMBERS: LossWords("number cards",
                                  N_("a player had fewer than two number cards")),  # R21
    LossReason.GOALS: LossWords("goal cards", N_("a player had no goal card left")),  # R22
})


def loss_label(reason: LossReason) -> str:
    return LOSS_WORDS[reason].label


def loss_cause(reason: LossReason, tr: Words = ENGLISH) -> str:
    return tr.gettext(LOSS_WORDS[reason].cause)
