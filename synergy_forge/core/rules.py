"""Goals and challenges as data: a rule is a Jinja expression run in the sandbox.

Every goal and challenge, built-in or a campaign's own, is a `Definition`. Its `rule` is an
expression that the sandbox compiles once; `check` is the callable the referee calls. A built-in
may carry a native `check` instead (see `native.py`), which tests prove equal to its expression.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from typing import Any

from jinja2 import StrictUndefined, TemplateSyntaxError, meta
from jinja2.sandbox import ImmutableSandboxedEnvironment

from synergy_forge.core.cards import Action
from synergy_forge.core.native import NATIVE


class RuleKind(StrEnum):
    """What a definition does to a round (RULES.md "Sums", "Constraint challenges", "Goals")."""

    GOAL = "goal"  # a goal card: does a seat's sum meet it?
    CONSTRAINT = "constraint"  # a rule of play every seat must keep (R8, R9)
    VALUE = "value"  # how a card's effective value counts (R6)
    COMBINE = "combine"  # how the two counted values make the sum (R7a)
    SUM = "sum"  # a change to the sum once combined (R7b, R7c)
    PASSING = "passing"  # goal cards move to a neighbour when revealed (R4)


#: The variables a rule of each kind may use. This table is the documentation of the format
#: (docs/definitions.md) and the list the linter checks expressions against.
VARIABLES: Mapping[RuleKind, Mapping[str, str]] = {
    RuleKind.GOAL: {
        "sum": "this seat's sum",
        "others": "the sums of the other counted seats (R14), a list",
        "sums": "the sums of every counted seat, this one included, a list",
        "distinct": "the distinct values of `sums`, smallest first (R11)",
        "left": "the sum of the nearest counted seat to the left, or none (R10)",
        "right": "the sum of the nearest counted seat to the right, or none (R10)",
    },
    RuleKind.CONSTRAINT: {
        "first": "the counted value of the first number card (R6)",
        "second": "the counted value of the second number card (R6)",
        "first_effective": "the first card's printed value after F and G (R5); parity uses it",
        "second_effective": "the second card's printed value after F and G (R5)",
        "sum": "the final sum, after every sum rule (R7)",
        "identical": "true when both cards have the same colour and effective value",
    },
    RuleKind.VALUE: {
        "value": "the card's effective value (R5)",
    },
    RuleKind.COMBINE: {
        "first": "the counted value of the first number card",
        "second": "the counted value of the second number card",
    },
    RuleKind.SUM: {
        "sum": "the sum so far",
        "first": "the counted value of the first number card",
        "second": "the counted value of the second number card",
        "identical": "true when both cards have the same colour and effective value",
    },
    RuleKind.PASSING: {},
}

# One sandbox for every rule; it holds no state a rule can change.
_SANDBOX = ImmutableSandboxedEnvironment(undefined=StrictUndefined)


class RuleError(ValueError):
    """A rule that does not compile, names a variable its kind does not have, or fails on an
    input; `origin` is where it was written ("file:line", or "" when unknown)."""

    def __init__(self, detail: str, origin: str = "") -> None:
        super().__init__(f"{origin}: {detail}" if origin else detail)
        self.detail, self.origin = detail, origin


def rule_problems(kind: RuleKind, rule: str) -> list[str]:
    """Every reason `rule` cannot be used for a definition of `kind`; empty when it can."""
    try:
        ast = _SANDBOX.parse("{{ (" + rule + ") }}")
    except TemplateSyntaxError as exc:
        return [f"the rule does not compile: {exc.message}"]
    allowed = VARIABLES[kind]
    unknown = sorted(meta.find_undeclared_variables(ast) - set(allowed))
    if unknown:
        names = ", ".join(unknown)
        known = ", ".join(allowed) or "none"
        return [f"the rule uses unknown variable(s) {names}; a {kind} rule may use: {known}"]
    return []


def compile_rule(kind: RuleKind, rule: str, origin: str = "") -> Callable[..., Any]:
    """The positional callable the referee calls for a rule of `kind` (see VARIABLES order).

    A rule that fails on some input (an index past the end of a list, a division by zero, a
    comparison with a missing neighbour) raises RuleError naming `origin` ("file:line") and
    the input; `rule_failure` looks for such inputs ahead of play.
    """
    problems = rule_problems(kind, rule)
    if problems:
        raise RuleError(problems[0])
    compiled = _SANDBOX.compile_expression(rule)
    names = tuple(VARIABLES[kind])

    def expression(context: dict[str, Any]) -> Any:
        try:
            return compiled(context)
        except Exception as exc:  # the sandbox's own errors and Python's, from user text
            given = ", ".join(f"{k}={v!r}" for k, v in context.items())
            raise RuleError(f"the rule '{rule}' fails for {given}: {exc}", origin) from exc

    if kind in (RuleKind.GOAL, RuleKind.CONSTRAINT):

        def test(*args: Any) -> bool:
            return bool(expression(dict(zip(names, args, strict=True))))

        # A constraint's arguments are a few small numbers: remember its answers (the sandbox
        # costs some 15 µs a call). A goal's include lists, which cannot be keys.
        return test if kind is RuleKind.GOAL else lru_cache(maxsize=8192)(test)

    def number(*args: Any) -> int:
        result = expression(dict(zip(names, args, strict=True)))
        if isinstance(result, bool) or not isinstance(result, int):
            given = ", ".join(f"{k}={v!r}" for k, v in zip(names, args, strict=True))
            raise RuleError(f"a {kind} rule must give a whole number; '{rule}' gave "
                            f"{result!r} for {given}", origin)
        return result

    return lru_cache(maxsize=8192)(number)


def _goal_inputs() -> Iterator[tuple[Any, ...]]:
    """Goal inputs of every shape a round can give: 2 to 5 counted sums (R14 can leave two),
    each seat's view of them, neighbours present or missing (R10); every sum a seat can have
    with three players, a spread of them with more (about 6,000 inputs, 0.1 s)."""
    every, some, few = range(0, 17), (0, 1, 2, 3, 5, 8, 13, 15), (0, 1, 5, 8, 15)
    for n, values in ((3, every), (4, some), (5, few), (2, some)):
        for table in itertools.combinations_with_replacement(values, n):
            everyone = list(table)
            distinct = sorted(set(everyone))
            for i in range(n):
                others = everyone[:i] + everyone[i + 1:]
                left, right = (None, None) if n == 2 else (table[(i + 1) % n], table[i - 1])
                yield table[i], others, everyone, distinct, left, right
            if n <= 3 and set(table) <= set(some):
                # a seat ignored by J still meets its goal against the counted seats (R14)
                for own in (0, 7, 15):
                    seen = [*everyone, own]
                    yield own, everyone, seen, sorted(set(seen)), None, None
                    yield own, everyone, seen, sorted(set(seen)), table[0], table[-1]


def _inputs(kind: RuleKind) -> Iterator[tuple[Any, ...]]:
    effective, counted = range(0, 7), range(0, 7)
    if kind is RuleKind.GOAL:
        yield from _goal_inputs()
    elif kind is RuleKind.VALUE:
        yield from ((v,) for v in effective)
    elif kind is RuleKind.COMBINE:
        yield from itertools.product(counted, counted)
    elif kind is RuleKind.SUM:
        yield from itertools.product(range(0, 16), counted, counted, (False, True))
    elif kind is RuleKind.CONSTRAINT:
        for first, second in itertools.product(effective, range(1, 6)):
            for total in {first + second, first + second + 3, abs(first - second), 10}:
                for identical in (False, True):
                    yield first, second, first, second, total, identical


def rule_failure(kind: RuleKind, check: Callable[..., Any]) -> str | None:
    """Why `check` fails on some input a round can give it (the input named), or None when it
    never does."""
    for args in _inputs(kind):
        try:
            check(*args)
        except RuleError as exc:
            return exc.detail
    return None


@dataclass(frozen=True)
class Definition:
    """One goal card or challenge: its id, kind, names and card text, and its rule."""

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


@dataclass(frozen=True)
class Rulebook:
    """The goals and challenges a table knows: the built-ins plus a campaign's own."""

    goals: Mapping[str, Definition]
    challenges: Mapping[str, Definition]
    # Memo of facts derived from the fields above (plan(), the lint's keepable pairs): it
    # never changes what the rulebook says.
    memo: dict[Any, Any] = field(default_factory=dict, compare=False, repr=False)

    #: goal id -> check, for the referee's inner loop.
    goal_checks: Mapping[str, Callable[..., Any]] = field(init=False, compare=False, repr=False)

    def __post_init__(self) -> None:
        checks = {gid: g.check for gid, g in self.goals.items()}
        object.__setattr__(self, "goal_checks", checks)

    def plan(self, challenge_ids: tuple[str, ...]) -> ChallengePlan:
        """The challenges `challenge_ids` name, grouped by kind, in the order R7 applies them."""
        plan = self.memo.get(challenge_ids)
        if plan is None:
            found = [self.challenges[c] for c in challenge_ids]
            plan = ChallengePlan(
                direction=sum(c.direction for c in found if c.kind is RuleKind.PASSING),
                value_rules=tuple(c.check for c in found if c.kind is RuleKind.VALUE),
                combine=next((c.check for c in found if c.kind is RuleKind.COMBINE), None),
                sum_rules=tuple(c.check for c in sorted(found, key=lambda c: c.step)
                                if c.kind is RuleKind.SUM),  # S4
                constraints=tuple((c.id, c.check) for c in found
                                  if c.kind is RuleKind.CONSTRAINT),
            )
            self.memo[challenge_ids] = plan
        return plan

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

