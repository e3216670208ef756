"""Checks beyond the schema (docs/mission-format.md): each finds a mistake the schema cannot see.

Each check reads the parsed document (for positions) and reports Diagnostics; whether challenges
can be kept at all is decided by the referee itself, never by a list written by hand.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping

from synergy_forge.authoring.definitions import default_symbol, text_of
from synergy_forge.authoring.diagnostics import Diagnostic, Severity
from synergy_forge.authoring.flavour import flavour_numbers
from synergy_forge.authoring.yamlfile import Document
from synergy_forge.cardtext.fonts import fit, missing_glyphs
from synergy_forge.cardtext.geometry import card_boxes
from synergy_forge.core.cards import (
    CARD_VALUES,
    COLOR_SYMBOLS,
    DEFAULT_COLORS,
    GOAL_IDS,
    MAX_ROUNDS,
    Action,
    NumberCard,
    pair_action_cards,
)
from synergy_forge.core.referee import SeatPlay, Table, settle
from synergy_forge.core.rulelang import RuleError, RuleKind, suggest
from synergy_forge.core.rules import Rulebook
from synergy_forge.typography import typeset

WARNING = Severity.WARNING


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


def _clash(challenges: tuple[str, ...], rulebook: Rulebook) -> tuple[str, ...]:
    """The fewest of `challenges` (in the mission's order) that no pair of cards keeps
    together: what the designer has to change, rather than the whole list."""
    from itertools import combinations

    for size in range(1, len(challenges)):
        for subset in combinations(challenges, size):
            if not keepable_pairs(subset, rulebook):
                return subset
    return challenges


def keepable_pairs(challenges: tuple[str, ...], rulebook: Rulebook) -> list[tuple[int, int]]:
    """Every (first, second) pair of one colour's number cards that breaks no challenge.

    Asked of the referee: three seats play the pair, and the verdict says what it broke.
    """
    kept = []
    color = DEFAULT_COLORS[0]
    plan = rulebook.plan(challenges)
    for a, b in itertools.product(CARD_VALUES, repeat=2):
        play = SeatPlay(NumberCard(a, color), NumberCard(b, color), next(iter(rulebook.goals)))
        verdict = settle(Table((play, play, play), challenges), rulebook, plan)
        if not verdict.violations[0]:
            kept.append((a, b))
    return kept


def mission_diagnostics(doc: Document, rulebook: Rulebook,
                        languages: tuple[str, ...] = ("en",),
                        broken: Mapping[tuple[str, str], str] | None = None) -> list[Diagnostic]:
    """The semantic checks of one mission document.

    `doc` holds only the fields that passed the schema (loading.check_mission drops the
    others), so each check looks at what it can and skips a field that is missing. `broken`
    names the campaign's goals and challenges that exist but have errors: ("goal", id) ->
    "FILE:LINE".
    """
    broken = broken or {}
    found = _length_diagnostics(doc)
    found += _goal_diagnostics(doc, rulebook, broken)
    found += _failure_diagnostics(doc)
    found += _stars_diagnostics(doc)
    found += _challenge_diagnostics(doc, rulebook, broken)
    for field_name in ("title", "flavor"):
        found += text_languages(doc, (field_name,), languages)
        found += printable(doc, field_name, field_name)
    found += flavour_numbers(doc)
    return found


def _length_diagnostics(doc: Document) -> list[Diagnostic]:
    """Rounds and lives a mission cannot have, or lives that can never count (R23)."""
    rounds, lives = doc.data.get("rounds"), doc.data.get("lives")
    goals = doc.data.get("goals")
    deck = len(goals) if goals is not None else len(GOAL_IDS)
    found = []
    if rounds is not None and rounds > MAX_ROUNDS:
        found.append(doc.diagnostic(("rounds",), f"a mission can last at most {MAX_ROUNDS} "
                                    f"rounds (one goal card per round, R23), not {rounds}",
                                    "mission.rounds"))
    if lives is not None and lives > MAX_ROUNDS:
        # R23: at most 7 rounds can be played, so at most 7 lives can ever be lost; the
        # printed lives card runs from 0 to 7.
        found.append(doc.diagnostic(("lives",), f"a mission has at most {MAX_ROUNDS} lives, "
                                    f"not {lives}: no more than {MAX_ROUNDS} rounds can be "
                                    "played (R23), and the lives card runs from 0 to 7",
                                    "mission.lives"))
    if found:  # one error does not hide the other; the warning below reads both
        return found
    if rounds is not None and lives is not None and rounds <= deck and \
            lives - 1 > deck - rounds:
        # R23: each round uses one of a seat's `deck` goal cards, so after deck - rounds + 1
        # failed rounds the mission cannot be won; the lives beyond that never count.
        spare = deck - rounds
        can = "no life" if spare == 0 else f"only {spare} of the {lives} lives"
        return [doc.diagnostic(
            ("lives",), f"with {rounds} rounds to win and {deck} goal cards per player, {can} "
            f"can be lost with the mission still winnable: a {_nth(spare + 1)} failed round "
            f"leaves too few goal cards (R23); give {spare + 1} li{'fe' if spare == 0 else 'ves'}"
            f" or more goal cards", "mission.lives", severity=WARNING)]
    return []


def _goal_diagnostics(doc: Document, rulebook: Rulebook,
                      broken: Mapping[tuple[str, str], str]) -> list[Diagnostic]:
    """The goal deck: goals unknown or broken, a hand or rounds it cannot supply (R23)."""
    goals = doc.data.get("goals")
    if goals is None:
        return []
    found: list[Diagnostic] = []
    for i, gid in enumerate(goals):
        if ("goal", gid) in broken:
            found.append(doc.diagnostic(
                ("goals", i), f"goal '{gid}' has an error ({broken['goal', gid]})",
                "mission.broken-definition"))
        elif gid not in rulebook.goals:
            found.append(doc.diagnostic(
                ("goals", i), f"unknown goal '{gid}'{suggest(gid, sorted(rulebook.goals))}",
                "mission.unknown-goal"))
    hand_goals = doc.data.get("hand", {}).get("goals", len(goals))
    if hand_goals > len(goals):
        found.append(doc.diagnostic(
            ("hand", "goals"), f"a starting hand of {hand_goals} goal cards, but the goal "
            f"deck has only {len(goals)}", "mission.hand"))
    rounds = doc.data.get("rounds")
    if rounds is not None and rounds > len(goals):
        found.append(doc.diagnostic(
            ("rounds",), f"{rounds} rounds need {rounds} goal cards per player, but the goal "
            f"deck has only {len(goals)} (R23)", "mission.rounds"))
    return found


def _failure_diagnostics(doc: Document) -> list[Diagnostic]:
    """Allowed failures that let no round fail, or name player counts the mission lacks."""
    players = doc.data.get("players", [3, 4, 5])
    allowed = doc.data.get("allowed_failures", 0)
    found: list[Diagnostic] = []
    if isinstance(allowed, int):
        for p in sorted(players):
            if allowed >= p:
                return [doc.diagnostic(
                    ("allowed_failures",), f"{allowed} allowed failures with {p} players means "
                    "a round can never fail; allow fewer than the player count",
                    "mission.allowed-failures")]
        return []
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
    return found


def _stars_diagnostics(doc: Document) -> list[Diagnostic]:
    """Stars per player count: one for each count the mission is made for and no other; the
    same stars at every count are one number."""
    players = doc.data.get("players", [3, 4, 5])
    stars = doc.data.get("stars")
    if not isinstance(stars, dict):
        return []
    found = [doc.diagnostic(("stars",), f"no stars given for {p} players; add '{p}: N' or "
                            f"drop {p} from 'players'", "mission.stars")
             for p in sorted(players) if str(p) not in stars]
    found += [doc.diagnostic(("stars", key), f"stars for {key} players, but the mission is "
                             f"not made for {key} players; drop '{key}' or add {key} to "
                             "'players'", "mission.stars", key=True)
              for key in stars if int(key) not in players]
    if not found and len(set(stars.values())) == 1:
        same = next(iter(stars.values()))
        found.append(doc.diagnostic(
            ("stars",), f"{same} star{'s' if same > 1 else ''} at every player count: write "
            f"'stars: {same}'", "mission.stars", severity=WARNING))
    return found


def _challenge_diagnostics(doc: Document, rulebook: Rulebook,
                           broken: Mapping[tuple[str, str], str]) -> list[Diagnostic]:
    """Challenges unknown or broken, two that pass or combine, and a set no pair of number
    cards keeps (asked of the referee, R9)."""
    challenges = doc.data.get("challenges", [])
    known = [c for c in challenges if c in rulebook.challenges]
    found: list[Diagnostic] = []
    for i, cid in enumerate(challenges):
        if ("challenge", cid) in broken:
            found.append(doc.diagnostic(
                ("challenges", i), f"challenge '{cid}' has an error "
                f"({broken['challenge', cid]})", "mission.broken-definition"))
        elif cid not in rulebook.challenges:
            found.append(doc.diagnostic(
                ("challenges", i), f"unknown challenge '{cid}'"
                f"{suggest(cid, sorted(rulebook.challenges))}", "mission.unknown-challenge"))
    kinds = [rulebook.challenges[c].kind for c in known]
    passing = kinds.count(RuleKind.PASSING) > 1
    if passing:
        found.append(doc.diagnostic(("challenges",), "goals cannot pass both left and right "
                                    "(R4)", "mission.passing"))
    if kinds.count(RuleKind.COMBINE) > 1:
        found.append(doc.diagnostic(("challenges",), "only one challenge may say how the two "
                                    "cards make a sum (combine)", "mission.combine"))
    if len(known) == len(challenges) and challenges and not passing:
        found += _unkeepable(doc, tuple(challenges), rulebook)
    return found


def _unkeepable(doc: Document, challenges: tuple[str, ...], rulebook: Rulebook
                ) -> list[Diagnostic]:
    """Known challenges that no pair of one colour's number cards keeps, or that fail."""
    try:
        keepable = keepable_pairs(challenges, rulebook)
    except RuleError as exc:  # a campaign's rule that fails (also reported at its file)
        return [doc.diagnostic(("challenges",), f"the challenges cannot be played: {exc}",
                               "mission.rule-fails")]
    if keepable:
        return []
    clash = _clash(challenges, rulebook)
    said = clash[0] if len(clash) == 1 else \
        f"both {clash[0]} and {clash[1]}" if len(clash) == 2 else f"all of {', '.join(clash)}"
    return [doc.diagnostic(("challenges",), f"no two number cards of one colour keep {said}: "
                           "every round would lose the mission (R9)", "mission.unsatisfiable")]


def action_pairing_diagnostics(missions: list[tuple[Document, frozenset[Action]]]
                               ) -> list[Diagnostic]:
    """The missions that force the action cards to be printed one to a card.

    The kit prints two action cards on one physical card when some pairing leaves no mission
    using both faces of a card (cards.pair_action_cards); the missions are added in order, and
    each one after which no pairing remains is named (and left out for the ones after it).
    """
    found: list[Diagnostic] = []
    kept: list[frozenset[Action]] = []
    for doc, used in missions:
        if used in kept:  # many missions share their action cards
            continue
        if pair_action_cards([*kept, used]) is None:
            found.append(doc.diagnostic(
                ("actions",), f"with the other missions' action cards, {', '.join(sorted(used))} "
                "leave no way to print the action cards two to a card without a mission needing "
                "both faces of one card: they will be printed one to a card, with a common back",
                "campaign.action-cards", severity=WARNING))
        else:
            kept.append(used)
    return found


def printable(doc: Document, field_name: str, box_name: str) -> list[Diagnostic]:
    """A card text the bundled fonts cannot draw, or that does not fit in its box on the card
    even at the smallest size (cardtext.fonts.MIN_PT): errors at the text, in each language."""
    value = doc.data.get(field_name)
    if value is None:
        return []
    box = card_boxes()[box_name]
    found = []
    texts = [((field_name,), "en", value)] if isinstance(value, str) else \
        [((field_name, lang), lang, text) for lang, text in value.items() if isinstance(text, str)]
    for path, lang, text in texts:
        missing = missing_glyphs(text, box.italic)
        if missing:
            chars = ", ".join(f"'{ch}' (U+{ord(ch):04X})" for _, ch in missing[:3])
            found.append(doc.diagnostic(path, f"{field_name} ({lang}): the card's fonts have no "
                                        f"glyph for {chars}; it would print as a box",
                                        "text.glyph"))
        elif fit(typeset(text, lang), box) is None:  # measured as printed (typography.py)
            found.append(doc.diagnostic(
                path, f"{field_name} ({lang}) does not fit on its card, even at {box.min_pt:g} pt "
                f"({box.width:g} x {box.height:g} mm): shorten it", "text.fit"))
    return found


def _nth(n: int) -> str:
    return {1: "first", 2: "second", 3: "third", 4: "fourth", 5: "fifth", 6: "sixth",
            7: "seventh"}.get(n, f"{n}th")


def definition_diagnostics(doc: Document, languages: tuple[str, ...]) -> list[Diagnostic]:
    """Language and print checks for a campaign's own goal or challenge (rules are checked on
    reading)."""
    found = text_languages(doc, ("name",), languages) + text_languages(doc, ("text",), languages)
    if "kind" in doc.data:  # a challenge: printed on the mission cards and the reference sheet
        return found + [d for f in ("name", "text") for d in printable(doc, f, "action-text")
                        if d.check == "text.glyph"]
    if "symbol" not in doc.data:
        found.append(doc.diagnostic(
            ("id",), f"goal '{doc.data['id']}' has no symbol: its card will show "
            f"'{default_symbol(text_of(doc.data['name']))}'; add one such as symbol: \"+1\" "
            "(docs/definitions.md)", "goal.symbol", severity=WARNING))
    symbol = doc.data.get("symbol")
    clash = [(i, c) for i, c in enumerate(COLOR_SYMBOLS) if isinstance(symbol, str)
             and c in symbol]
    if clash:  # the card prints its colour's symbol beside the goal's: ▲ on yellow is "▲ ▲"
        i, mark = clash[0]
        found.append(doc.diagnostic(
            ("symbol",), f"'{symbol}' {'is' if symbol == mark else f'holds {mark},'} the "
            f"symbol of the {_NTH[i]} colour "
            f"({DEFAULT_COLORS[i]} unless renamed): on that colour's card it would read "
            f"'{mark} {symbol}'; choose another", "goal.symbol", severity=WARNING))
    return (found + printable(doc, "symbol", "goal-symbol") + printable(doc, "name", "goal-name")
            + printable(doc, "text", "goal-text"))


_NTH = ("first", "second", "third", "fourth", "fifth")
