"""Checks beyond the schema (MISSION-FORMAT.md): each finds a mistake the schema cannot see.

Each check reads the parsed document (for positions) and reports Diagnostics; whether challenges
can be kept at all is decided by the referee itself, never by a list written by hand.
"""

from __future__ import annotations

import difflib
import itertools
from typing import Any

from synergy_forge.authoring.diagnostics import Diagnostic, Severity
from synergy_forge.authoring.yamlfile import Document
from synergy_forge.core.cards import DEFAULT_COLORS, MAX_ROUNDS, NumberCard
from synergy_forge.core.memo import Memo
from synergy_forge.core.referee import SeatPlay, Table, settle
from synergy_forge.core.rules import Rulebook, RuleError, RuleKind

WARNING = Severity.WARNING


def suggest(word: str, options: list[str]) -> str:
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


def text_languages(doc: Document, path: tuple, languages: tuple[str, ...]) -> list[Diagnostic]:
    """A text missing in a declared language: a warning, and English is printed instead."""
    value = doc.data
    for part in path:
        value = value.get(part) if isinstance(value, dict) else None
    if value is None:
        return []
    present = {"en"} if isinstance(value, str) else set(value)
    missing = [lang for lang in languages if lang not in present]
    if not missing:
        return []
    name = ".".join(str(p) for p in path)
    return [doc.diagnostic(path, f"'{name}' has no {', '.join(missing)} text; English will be "
                           "used", "text.missing-language", severity=WARNING)]


def keepable_pairs(challenges: tuple[str, ...], rulebook: Rulebook) -> list[tuple[int, int]]:
    """Every (first, second) pair of one colour's number cards that breaks no challenge.

    Asked of the referee: three seats play the pair, and the verdict says what it broke.
    """
    found = _KEEPABLE.get((rulebook, challenges))
    if found is not None:
        return list(found)
    kept = []
    color = DEFAULT_COLORS[0]
    for a, b in itertools.product(range(1, 6), repeat=2):
        play = SeatPlay(NumberCard(a, color), NumberCard(b, color), next(iter(rulebook.goals)))
        verdict = settle(Table((play, play, play), challenges), rulebook)
        if not verdict.violations[0]:
            kept.append((a, b))
    _KEEPABLE.remember((rulebook, challenges), tuple(kept))
    return kept


#: keepable_pairs per (rulebook, challenges): a campaign asks about each challenge set once.
_KEEPABLE: Memo[tuple[Rulebook, tuple[str, ...]], tuple[tuple[int, int], ...]] = Memo(1024)


def mission_diagnostics(doc: Document, rulebook: Rulebook,
                        languages: tuple[str, ...] = ("en",)) -> list[Diagnostic]:
    """The semantic checks of one mission document that already passed its schema."""
    data: dict[str, Any] = doc.data
    found: list[Diagnostic] = []
    rounds, lives = data["rounds"], data["lives"]
    if rounds > MAX_ROUNDS:
        found.append(doc.diagnostic(("rounds",), f"a mission can last at most {MAX_ROUNDS} "
                                    f"rounds (one goal card per round, R23), not {rounds}",
                                    "mission.rounds"))
    elif rounds + lives - 1 > MAX_ROUNDS:
        usable = MAX_ROUNDS - rounds + 1
        found.append(doc.diagnostic(
            ("lives",), f"with {rounds} rounds to win, only {usable} of the {lives} lives can "
            f"ever be lost before the goal cards run out (R23)", "mission.lives",
            severity=WARNING))

    goals = data.get("goals")
    if goals is not None:
        for i, gid in enumerate(goals):
            if gid not in rulebook.goals:
                found.append(doc.diagnostic(
                    ("goals", i), f"unknown goal '{gid}'{suggest(gid, sorted(rulebook.goals))}",
                    "mission.unknown-goal"))
        hand_goals = data.get("hand", {}).get("goals", len(goals))
        if hand_goals > len(goals):
            found.append(doc.diagnostic(
                ("hand", "goals"), f"a starting hand of {hand_goals} goal cards, but the goal "
                f"deck has only {len(goals)}", "mission.hand"))
        if rounds > len(goals):
            found.append(doc.diagnostic(
                ("rounds",), f"{rounds} rounds need {rounds} goal cards per player, but the goal "
                f"deck has only {len(goals)} (R23)", "mission.rounds"))

    players = data.get("players", [3, 4, 5])
    allowed = data.get("allowed_failures", 0)
    if isinstance(allowed, int):
        for p in sorted(players):
            if allowed >= p:
                found.append(doc.diagnostic(
                    ("allowed_failures",), f"{allowed} allowed failures with {p} players means "
                    "a round can never fail; allow fewer than the player count",
                    "mission.allowed-failures"))
                break
    else:
        for p in sorted(players):
            if str(p) not in allowed:
                found.append(doc.diagnostic(
                    ("allowed_failures",), f"no allowed failures given for {p} players; add "
                    f"'{p}: N' or drop {p} from 'players'", "mission.allowed-failures"))
            elif allowed[str(p)] >= p:
                found.append(doc.diagnostic(
                    ("allowed_failures", str(p)), f"{allowed[str(p)]} allowed failures with {p} "
                    "players means a round can never fail", "mission.allowed-failures"))
        for key in allowed:
            if int(key) not in players:
                found.append(doc.diagnostic(
                    ("allowed_failures", key), f"allowed failures for {key} players, but the "
                    f"mission is not made for {key} players", "mission.allowed-failures",
                    key=True, severity=WARNING))

    challenges = data.get("challenges", [])
    known = [c for c in challenges if c in rulebook.challenges]
    for i, cid in enumerate(challenges):
        if cid not in rulebook.challenges:
            found.append(doc.diagnostic(
                ("challenges", i), f"unknown challenge '{cid}'"
                f"{suggest(cid, sorted(rulebook.challenges))}", "mission.unknown-challenge"))
    kinds = [rulebook.challenges[c].kind for c in known]
    if kinds.count(RuleKind.PASSING) > 1:
        found.append(doc.diagnostic(("challenges",), "goals cannot pass both left and right "
                                    "(R4)", "mission.passing"))
    if kinds.count(RuleKind.COMBINE) > 1:
        found.append(doc.diagnostic(("challenges",), "only one challenge may say how the two "
                                    "cards make a sum (combine)", "mission.combine"))
    if len(known) == len(challenges) and challenges and not any(
        d.check == "mission.passing" for d in found
    ):
        try:
            keepable = keepable_pairs(tuple(challenges), rulebook)
        except RuleError as exc:  # a campaign's rule that fails (also reported at its file)
            found.append(doc.diagnostic(
                ("challenges",), f"the challenges cannot be played: {exc}", "mission.rule-fails"))
        else:
            if not keepable:
                found.append(doc.diagnostic(
                    ("challenges",), f"no two number cards of one colour keep all of "
                    f"{', '.join(challenges)}: every round would lose the mission (R9)",
                    "mission.unsatisfiable"))
    for field_name in ("title", "flavor"):
        found += text_languages(doc, (field_name,), languages)
    return found


def definition_diagnostics(doc: Document, languages: tuple[str, ...]) -> list[Diagnostic]:
    """Language checks for a campaign's own goal or challenge (rules are checked on reading)."""
    return text_languages(doc, ("name",), languages) + text_languages(doc, ("text",), languages)
