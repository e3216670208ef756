"""Goals and challenges as data: the definitions a table knows, and the rulebook holding them.

Every goal and challenge, built-in or a campaign's own, is a `Definition`. Its `rule` is an
expression of the rule language (`rulelang.py`), compiled once; `check` is the callable the
referee calls. A built-in may carry a native `check` instead (see `native.py`), which tests
prove equal to its expression.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any

from synergy_forge.core.cards import Action
from synergy_forge.core.native import NATIVE
from synergy_forge.core.rulelang import RuleKind, compile_rule


@dataclass(frozen=True, slots=True)
class Definition:
    """One goal card or challenge: its id, kind, names and card text, and its rule.

    Immutable, names and texts included (read-only mappings): bots read definitions through
    the rulebook of their observation."""

    id: str
    kind: RuleKind
    name: Mapping[str, str]
    text: Mapping[str, str]
    rule: str | None = None
    #: PASSING only: +1 passes to the left neighbour (seat i+1), -1 to the right (R1, R4).
    direction: int = 0
    #: SUM only: sum rules apply in increasing step (R7: double-plus-3 before five-is-ten).
    step: int = 50
    #: Where the definition was written, for messages: "path:line", or "" for built-ins.
    origin: str = ""
    builtin: bool = False
    check: Callable[..., Any] | None = field(default=None, compare=False, repr=False)
    #: GOAL only: the short sign printed large on the card (+1, =, ≠...), read across a table.
    symbol: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "name", MappingProxyType(dict(self.name)))
        object.__setattr__(self, "text", MappingProxyType(dict(self.text)))

    def label(self, language: str = "en") -> str:
        return self.name.get(language) or self.name.get("en") or self.id

    def __reduce__(self) -> tuple[Any, ...]:
        # The compiled check is a closure and cannot be pickled: a definition travels to a
        # worker process as its data and is compiled again there (a native twin by its id).
        native = self.check is not None and NATIVE.get(self.id) is self.check
        return (_restored, (self.id, self.kind, dict(self.name), dict(self.text), self.rule,
                            self.direction, self.step, self.origin, self.builtin, native,
                            self.symbol))

    def card_text(self, language: str = "en") -> str:
        return self.text.get(language) or self.text.get("en") or ""


def _restored(id: str, kind: RuleKind, name: dict[str, str], text: dict[str, str],
              rule: str | None, direction: int, step: int, origin: str, builtin: bool,
              native: bool, symbol: str = "") -> Definition:
    check = NATIVE[id] if native else compile_rule(kind, rule, origin) if rule else None
    return Definition(id, kind, name, text, rule, direction, step, origin, builtin, check,
                      symbol)


@dataclass(frozen=True)
class ActionText:
    """What an action card says (its effect is in referee.arrange and the engine)."""

    card: Action
    name: Mapping[str, str]
    text: Mapping[str, str]

    def label(self, language: str = "en") -> str:
        return self.name.get(language) or self.name.get("en") or str(self.card)

    def card_text(self, language: str = "en") -> str:
        return self.text.get(language) or self.text.get("en") or ""


@dataclass(frozen=True, slots=True)
class ChallengePlan:
    """A mission's challenges sorted by what they do, ready for the referee's inner loop."""

    direction: int
    value_rules: tuple[Callable[..., Any], ...]
    combine: Callable[..., Any] | None
    sum_rules: tuple[Callable[..., Any], ...]
    constraints: tuple[tuple[str, Callable[..., Any]], ...]


@dataclass(frozen=True, slots=True, eq=False)
class Rulebook:
    """The goals and challenges a table knows: the built-ins plus a campaign's own.

    Immutable: its mappings are read-only views and it keeps no cache, so a bot that reads it
    (through its observation) can change nothing for anyone. What is derived from it is kept
    by whoever asks for it again and again (a game its plan, the bots' mission model), keyed
    by the rulebook itself where need be: rulebooks compare and hash by identity.
    """

    goals: Mapping[str, Definition]
    challenges: Mapping[str, Definition]
    #: goal id -> check, for the referee's inner loop.
    goal_checks: Mapping[str, Callable[..., Any]] = field(init=False, repr=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "goals", MappingProxyType(dict(self.goals)))
        object.__setattr__(self, "challenges", MappingProxyType(dict(self.challenges)))
        checks = {gid: g.check for gid, g in self.goals.items()}
        object.__setattr__(self, "goal_checks", MappingProxyType(checks))

    def plan(self, challenge_ids: tuple[str, ...]) -> ChallengePlan:
        """The challenges `challenge_ids` name, grouped by kind, in the order R7 applies them."""
        found = [self.challenges[c] for c in challenge_ids]
        return ChallengePlan(
            direction=sum(c.direction for c in found if c.kind is RuleKind.PASSING),
            value_rules=tuple(c.check for c in found
                              if c.kind is RuleKind.VALUE and c.check is not None),
            combine=next((c.check for c in found if c.kind is RuleKind.COMBINE), None),
            sum_rules=tuple(c.check for c in sorted(found, key=lambda c: c.step)
                            if c.kind is RuleKind.SUM and c.check is not None),  # S4
            constraints=tuple((c.id, c.check) for c in found
                              if c.kind is RuleKind.CONSTRAINT and c.check is not None),
        )

    def __reduce__(self) -> tuple[Any, ...]:
        return (Rulebook, (dict(self.goals), dict(self.challenges)))

    def goal(self, goal_id: str) -> Definition:
        return self.goals[goal_id]

    def challenge(self, challenge_id: str) -> Definition:
        return self.challenges[challenge_id]

    def extended(self, definitions: Iterable[Definition]) -> Rulebook:
        """This rulebook with more definitions; a later one with the same id replaces."""
        goals = dict(self.goals)
        challenges = dict(self.challenges)
        for definition in definitions:
            target = goals if definition.kind is RuleKind.GOAL else challenges
            target[definition.id] = definition
        return Rulebook(goals, challenges)

