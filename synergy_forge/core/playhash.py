"""What changes play: a mission's content hash, and the changes between two versions of it.

`play_data` is everything about a mission that can change a game of it: its settings (player
counts, rounds, lives, hands, order, allowed failures at its player counts, actions, the
super and hyper cards) and the rules of every goal of its goal deck and every challenge,
built-in or a campaign's own. Not its id, number, title, flavour, declared stars or file,
nor the names, texts, symbols and ids of its goals and challenges: a re-rated or re-titled
mission plays the same. Lists are put in a canonical order where their order cannot change
play: the goal deck is shuffled (R2), constraints are all kept at once (R8), actions are a
set; value rules apply in the order listed and sum rules by step (R7), so those keep theirs.
A rule is compared by its tokens (whitespace between them does not change it).

`play_hash` is the SHA-256 of that data as canonical JSON (sorted keys, ASCII, no spaces),
cut to PLAY_HASH_LENGTH hex digits: the same on every run, platform and Python version.
`play_changes` names what differs between two versions, for messages.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from synergy_forge.core.mission import Mission
from synergy_forge.core.rulelang import RuleKind, canonical_rule
from synergy_forge.core.rules import Definition, Rulebook

#: Bumped whenever play_data changes shape, so that an old hash never matches a new one.
PLAY_FORMAT = 1
#: Hex digits of the hash: 64 bits, short enough to read out, far from any chance collision.
PLAY_HASH_LENGTH = 16
#: The settings play_data keeps, named as in a mission file.
SETTINGS = ("players", "rounds", "lives", "hand", "order", "allowed_failures", "actions",
            "super", "hyper")


def rule_data(definition: Definition) -> dict[str, Any]:
    """What of a goal or challenge changes play: its kind, its rule and, by kind, its
    direction (passing) or step (sum)."""
    data: dict[str, Any] = {"kind": str(definition.kind)}
    if definition.rule is not None:
        data["rule"] = canonical_rule(definition.rule)
    if definition.kind is RuleKind.PASSING:
        data["direction"] = definition.direction
    if definition.kind is RuleKind.SUM:
        data["step"] = definition.step
    return data


def _key(data: Any) -> str:
    return json.dumps(data, sort_keys=True, ensure_ascii=True, separators=(",", ":"))


def settings_data(mission: Mission) -> dict[str, Any]:
    players = sorted(mission.players)
    return {
        "players": players, "rounds": mission.rounds, "lives": mission.lives,
        "hand": {"numbers": mission.hand_numbers, "goals": mission.hand_goals},
        "order": str(mission.order),
        "allowed_failures": {str(p): mission.allowed_failures.get(p, 0) for p in players},
        "actions": sorted(str(a) for a in mission.actions),
        "super": mission.super, "hyper": mission.hyper,
    }


def _challenges(mission: Mission, rulebook: Rulebook) -> dict[str, list[dict[str, Any]]]:
    found = [rule_data(rulebook.challenges[c]) for c in mission.challenges]
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for data in found:
        by_kind.setdefault(data["kind"], []).append(data)
    for kind, items in by_kind.items():
        if kind == RuleKind.SUM:
            items.sort(key=lambda d: d["step"])  # stable: equal steps keep their order (R7)
        elif kind != RuleKind.VALUE:  # value rules apply in the order listed
            items.sort(key=_key)
    return by_kind


def play_data(mission: Mission, rulebook: Rulebook) -> dict[str, Any]:
    """Everything about `mission` (its goals and challenges read from `rulebook`) that can
    change a game of it, in a canonical form (the module's docstring says what and why)."""
    return {
        "format": PLAY_FORMAT, **settings_data(mission),
        "goals": sorted((rule_data(rulebook.goals[g]) for g in mission.goals), key=_key),
        "challenges": _challenges(mission, rulebook),
    }


def play_hash(mission: Mission, rulebook: Rulebook) -> str:
    """The mission's content hash: equal for two missions exactly when they play the same
    (play_data), PLAY_HASH_LENGTH lowercase hex digits."""
    digest = hashlib.sha256(_key(play_data(mission, rulebook)).encode("ascii")).hexdigest()
    return digest[:PLAY_HASH_LENGTH]


@dataclass(frozen=True)
class PlayChange:
    """One difference in play between two versions of a mission: a setting of the mission
    (`subject` "mission", `key` as in the file: "rounds", "goals" for the deck's goal ids,
    "challenges" for its challenge ids), or a goal's or challenge's rule (`subject` "goal" or
    "challenge", `id` its id, `key` "rule", "kind", "direction" or "step")."""

    subject: str
    id: str
    key: str
    before: Any
    after: Any


def play_changes(before: Mission, before_rules: Rulebook, after: Mission,
                 after_rules: Rulebook) -> list[PlayChange]:
    """What changes play between two versions of a mission, settings first: empty exactly
    when their play_data (and so their play_hash) are the same."""
    old, new = play_data(before, before_rules), play_data(after, after_rules)
    if old == new:
        return []
    changes = [PlayChange("mission", after.id, key, old[key], new[key])
               for key in SETTINGS if old[key] != new[key]]
    for subject, ids, table in (("goal", "goals", "goals"),
                                ("challenge", "challenges", "challenges")):
        theirs: Mapping[str, Definition] = getattr(before_rules, table)
        ours: Mapping[str, Definition] = getattr(after_rules, table)
        shared = [d for d in dict.fromkeys(getattr(after, ids)) if d in getattr(before, ids)]
        for definition_id in shared:
            a, b = rule_data(theirs[definition_id]), rule_data(ours[definition_id])
            changes += [PlayChange(subject, definition_id, key, a.get(key), b.get(key))
                        for key in ("kind", "rule", "direction", "step")
                        if a.get(key) != b.get(key)]
        listed_before, listed_after = list(getattr(before, ids)), list(getattr(after, ids))
        # The ids listed differ, or only an order that matters for play does: name the lists.
        if sorted(listed_before) != sorted(listed_after) or (
                old[ids] != new[ids] and not any(c.subject == subject for c in changes)):
            changes.append(PlayChange("mission", after.id, ids, listed_before, listed_after))
    return changes
