"""Goals and challenges as data: a rule is a Jinja expression run in the sandbox.

Every goal and challenge, built-in or a campaign's own, is a `Definition`. Its `rule` is an
expression that the sandbox compiles once; `check` is the callable the referee calls. A built-in
may carry a native `check` instead (see `native.py`), which tests prove equal to its expression.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache, lru_cache
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from synergy_forge.core.cards import CARD_VALUES, Action
from synergy_forge.core.memo import Memo
from synergy_forge.core.native import NATIVE
from synergy_forge.errors import UnreadableInput

if TYPE_CHECKING:
    from jinja2 import nodes
    from jinja2.sandbox import ImmutableSandboxedEnvironment


class RuleKind(StrEnum):
    """What a definition does to a round (docs/rules.md "Sums", "Constraint challenges",
    "Goals")."""

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


def _number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@cache
def _sandbox() -> ImmutableSandboxedEnvironment:
    """One sandbox for every rule; it holds no state a rule can change. Made (and Jinja
    imported) on the first rule parsed: `validate` of one mission, run on every save, often
    needs none (docs/performance.md).

    `*` and `**` are kept to numbers at run time too: `[0] * 1000` repeated would build lists
    of any size, which the allow-list's static checks also refuse."""
    from jinja2 import StrictUndefined
    from jinja2.exceptions import SecurityError
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    class RuleSandbox(ImmutableSandboxedEnvironment):
        intercepted_binops = frozenset({"*", "**"})

        def call_binop(self, context: Any, operator: str, left: Any, right: Any) -> Any:
            if not (_number(left) and _number(right)):
                raise SecurityError(f"'{operator}' works on numbers only in a rule")
            if operator == "**" and not (isinstance(right, int) and 0 <= right <= MAX_POWER):
                raise SecurityError(f"a power may only be 0 to {MAX_POWER}")
            return super().call_binop(context, operator, left, right)

    return RuleSandbox(undefined=StrictUndefined)


class RuleError(UnreadableInput, ValueError):
    """A rule that does not compile, names a variable its kind does not have, or fails on an
    input; `origin` is where it was written ("file:line", or "" when unknown). Exit 2: the
    campaign's rule cannot be used."""

    def __init__(self, detail: str, origin: str = "") -> None:
        super().__init__(f"{origin}: {detail}" if origin else detail)
        self.detail, self.origin = detail, origin


#: What a rule may be made of (docs/definitions.md "What a rule may use"). Anything else is
#: refused when the rule is read, so that no rule can cost more than a few microseconds.
MAX_RULE_LENGTH = 500
MAX_NESTING = 20  # brackets; checked on the text, since Jinja's parser recurses on them
MAX_DEPTH = 50  # of the parse tree; the sandbox's compiler and the grid recurse on it, and
# Python compiles at most 200 nested brackets in the code Jinja writes
MAX_PREFIXES = 10  # signs or `not`s in a row: Jinja's parser recurses on each as well
MAX_LITERAL = 1000
MAX_POWER = 3  # `x ** 2`, `x ** 3`: a literal exponent only
#: A value, combine or sum rule gives a whole number within this bound (and so every sum does).
MAX_VALUE = 1000
#: No whole number in a rule may grow past this, whatever the variables (below 2**63, so that
#: the grid's arrays compute exactly what Python does).
MAX_MAGNITUDE = 10**15
FILTERS = ("abs", "length", "count", "min", "max", "sum", "sort", "unique", "first", "last")
TESTS = ("none", "odd", "even", "divisibleby")
_LISTS = {"others", "sums", "distinct"}
_CONSTANTS = {"true", "false", "none", "True", "False", "None"}
_KEYWORDS = {"and", "or", "not", "in", "is", "if", "else", "true", "false", "none", "True",
             "False", "None"}
_OPERATORS = {"+", "-", "*", "/", "//", "%", "**", "==", "!=", "<", "<=", ">", ">=", "(", ")",
              "[", "]", ",", "|"}


@cache
def _allowed_nodes() -> tuple[type[nodes.Node], ...]:
    """Node types of an allowed rule (a second line of defence behind the token checks)."""
    from jinja2 import nodes

    return (nodes.Const, nodes.Name, nodes.List, nodes.Tuple, nodes.Add, nodes.Sub, nodes.Mul,
            nodes.Div, nodes.FloorDiv, nodes.Mod, nodes.Pow, nodes.Neg, nodes.Pos,
            nodes.Compare, nodes.Operand, nodes.And, nodes.Or, nodes.Not, nodes.CondExpr,
            nodes.Test, nodes.Filter, nodes.Getitem)


class RuleProblem(str):
    """A reason a rule is refused, with `offset`: where in the rule text it is (0-based)."""

    offset: int

    def __new__(cls, message: str, offset: int = 0) -> RuleProblem:
        problem = super().__new__(cls, message)
        problem.offset = offset
        return problem


def parse_rule(rule: str) -> tuple[nodes.Expr | None, RuleProblem | None]:
    """The rule's expression tree, or None and why it does not compile, at the offset of the
    token the parser stopped at.

    The rule is parsed on its own as an expression (as `compile_rule` compiles it), never
    wrapped in `{{ (…) }}`: the user is told about their own text, and a `}}` in it ends
    nothing.
    """
    from jinja2 import TemplateSyntaxError
    from jinja2.lexer import TokenStream
    from jinja2.parser import Parser

    sandbox = _sandbox()
    pulled: list[int] = []  # start offset of each token handed to the parser so far
    offset, lexer_failed = 0, False

    def tokens() -> Iterator[tuple[int, str, str]]:
        nonlocal offset, lexer_failed
        try:
            for lineno, kind, value in sandbox.lexer.tokeniter(rule, None, state="variable"):
                if kind != "whitespace":
                    pulled.append(offset)
                offset += len(value)
                yield lineno, kind, value
        except TemplateSyntaxError:
            lexer_failed = True  # it stopped at `offset`, before the text it cannot read
            raise

    try:  # the parser and its stream read a first token at once: a lexer error comes early
        parser = Parser(sandbox, "", state="variable")
        parser.stream = TokenStream(sandbox.lexer.wrap(tokens()), None, None)
        expression = parser.parse_expression()
        if not parser.stream.eos:
            found = parser.stream.current.value
            raise TemplateSyntaxError(f"unexpected {found!r} after a complete expression", 1)
    except TemplateSyntaxError as exc:
        problem = exc.message or "not a valid expression"
        at_end = "end of template" in problem
        problem = re.sub(r"unexpected char (\S+) at \d+", r"unexpected character \1", problem)
        problem = problem.replace("'end of template'", "end of the rule").replace(
            "end of template", "end of the rule").rstrip(".")
        where = offset if lexer_failed or at_end or not pulled else pulled[-1]
        return None, RuleProblem(f"the rule does not compile: {problem}", where)
    return expression, None


def rule_problems(kind: RuleKind, rule: str) -> list[RuleProblem]:
    """Every reason `rule` cannot be used for a definition of `kind`; empty when it can.

    Checked in order of cost, each before anything that could be slow or recurse on it: the
    length and bracket nesting of the text, each token against the allow-list, then the parse
    tree's depth and the size its numbers can reach.
    """
    if len(rule) > MAX_RULE_LENGTH:
        return [RuleProblem(f"the rule is {len(rule)} characters long; at most "
                            f"{MAX_RULE_LENGTH} are allowed", MAX_RULE_LENGTH)]
    depth = 0
    for offset, char in enumerate(rule):
        depth += (char in "([{") - (char in ")]}")
        if depth > MAX_NESTING:
            return [RuleProblem(f"brackets nested more than {MAX_NESTING} deep", offset)]
    allowed = VARIABLES[kind]
    problem = _token_problem(kind, rule, allowed)
    if problem is not None:
        return [problem]
    expression, problem = parse_rule(rule)
    if expression is None:
        return [problem] if problem is not None else []
    problem = _tree_problem(expression)
    return [problem] if problem is not None else []


def _token_problem(kind: RuleKind, rule: str, allowed: Mapping[str, str]) -> RuleProblem | None:
    from jinja2 import TemplateSyntaxError

    try:  # the rule alone, as parse_rule reads it: offsets are the user's own
        tokens = list(_sandbox().lexer.tokeniter(rule, None, state="variable"))
    except TemplateSyntaxError as exc:
        _, problem = parse_rule(rule)  # says where, in the user's words
        return problem or RuleProblem(f"the rule does not compile: {exc.message}")
    offset = 0
    previous: list[str] = []  # the significant tokens so far
    found: tuple[str, int] | None = None
    run = 0
    for index, (_, token, value) in enumerate(tokens):
        at, offset = offset, offset + len(value)
        if token == "whitespace":
            continue
        before = previous[-1] if previous else ""
        # Signs and `not` in a row: Jinja's parser recurses once for each.
        prefix = value == "not" or (value in ("-", "+") and (
            before in _OPERATORS - {")", "]"} or before in _KEYWORDS - _CONSTANTS or not before))
        run = run + 1 if prefix else 0
        if run > MAX_PREFIXES:
            found = (f"more than {MAX_PREFIXES} signs or 'not's in a row", at)
        elif token == "string":
            found = (f"text ({value}) is not allowed in a rule: rules work on numbers", at)
        elif token in ("integer", "float"):
            number = float(value.replace("_", "")) if token == "float" else \
                int(value.replace("_", ""), 0)
            if abs(number) > MAX_LITERAL:
                found = (f"{value} is too large: numbers in a rule are at most {MAX_LITERAL}", at)
            elif before == "**" and (token == "float" or number > MAX_POWER):
                found = (f"a power may only be a literal 0 to {MAX_POWER}", at)
        elif token == "name":
            after = next((v for _, t, v in tokens[index + 1:] if t != "whitespace"), "")
            if before == "|":
                if value not in FILTERS:
                    found = (f"the filter '{value}' is not allowed; a rule may use "
                             f"{', '.join(FILTERS)}", at)
                elif after == "(":
                    found = (f"the filter '{value}' takes no arguments in a rule", at)
            elif (before == "is" and value != "not") or previous[-2:] == ["is", "not"]:
                if value not in TESTS:
                    found = (f"the test '{value}' is not allowed; a rule may use "
                             f"{', '.join(TESTS)}", at)
            elif value not in _KEYWORDS and value not in allowed:
                known = ", ".join(allowed) or "none"
                close = difflib.get_close_matches(value, list(allowed), n=1)
                did = f" (did you mean '{close[0]}'?)" if close else ""
                found = (f"unknown variable '{value}'{did}; a {kind} rule may use: {known}", at)
            elif after == "(" and value not in _KEYWORDS:
                found = (f"'{value}' is not a function: calls are not allowed in a rule", at)
        elif value == "**" and next((t for _, t, _ in tokens[index + 1:]
                                     if t != "whitespace"), "") != "integer":
            found = (f"a power may only be a literal 0 to {MAX_POWER}", offset)
        elif token == "operator" and value not in _OPERATORS:
            what = {".": "attribute access (.) is", "~": "joining text (~) is",
                    ":": "slices (:) are", "{": "mappings ({ }) are",
                    "=": "assignments (=) are"}.get(value, f"'{value}' is")
            found = (f"{what} not allowed in a rule", at)
        elif token not in ("operator",):
            found = (f"'{value.strip()}' is not allowed in a rule", max(at, 0))
        if found is not None:
            return RuleProblem(found[0], max(found[1], 0))
        previous.append(value)
    return None


def _tree_problem(root: nodes.Node) -> RuleProblem | None:
    """The first node an allowed rule cannot hold, or numbers that could grow too large.

    Walks the tree with an explicit stack (nothing here recurses in Python); `bound` is the
    largest magnitude each subexpression can reach, every variable being at most MAX_VALUE
    and `others`, `sums` and `distinct` at most 5 long.
    """
    from jinja2 import nodes

    order: list[tuple[nodes.Node, int]] = []
    stack: list[tuple[nodes.Node, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return RuleProblem(f"the rule is nested more than {MAX_DEPTH} levels deep (each "
                               "operation on the result of another is a level); simplify it")
        if not isinstance(node, _allowed_nodes()):
            return RuleProblem(f"{type(node).__name__.lower()} is not allowed in a rule")
        if isinstance(node, nodes.CondExpr) and node.expr2 is None:
            return RuleProblem("'x if condition' needs an 'else' in a rule")
        if isinstance(node, nodes.Const) and isinstance(node.value, str):
            return RuleProblem("text is not allowed in a rule: rules work on numbers")
        if isinstance(node, nodes.Filter | nodes.Test) and (
                node.kwargs or node.dyn_args or node.dyn_kwargs
                or (node.args and getattr(node, "name", "") != "divisibleby")):
            return RuleProblem(f"'{node.name}' takes no arguments in a rule")
        order.append((node, depth))
        stack.extend((child, depth + 1) for child in node.iter_child_nodes())
    bound: dict[int, float] = {}
    size: dict[int, int] = {}  # the most items each list can hold
    for node, _ in reversed(order):  # children before their parents
        parts = [bound.get(id(child), 0) for child in node.iter_child_nodes()]
        if isinstance(node, nodes.Const):
            value = abs(node.value) if isinstance(node.value, int | float) else 1
        elif isinstance(node, nodes.Name):
            value = MAX_VALUE
            if node.name in _LISTS:
                size[id(node)] = 5  # one sum per seat
        elif isinstance(node, nodes.Add | nodes.Sub):
            value = parts[0] + parts[1]
        elif isinstance(node, nodes.Mul):
            if any(isinstance(side, nodes.List | nodes.Tuple) or (
                    isinstance(side, nodes.Name) and side.name in _LISTS)
                   for side in (node.left, node.right)):
                return RuleProblem("a list cannot be multiplied in a rule")
            value = parts[0] * parts[1]
        elif isinstance(node, nodes.Pow):
            exponent = node.right.value if isinstance(node.right, nodes.Const) else None
            if type(exponent) is not int or not 0 <= exponent <= MAX_POWER:
                return RuleProblem(f"a power may only be a literal 0 to {MAX_POWER}")
            value = max(parts[0], 1) ** exponent
        elif isinstance(node, nodes.List | nodes.Tuple):
            value, size[id(node)] = max(parts, default=0), len(node.items)
        elif isinstance(node, nodes.Filter) and node.name in ("sum", "length", "count"):
            length = size.get(id(node.node), MAX_VALUE)  # a list's length, at most
            value = length * max(parts[0], 1) if node.name == "sum" else length
        else:  # comparisons, tests, and/or/not, choices, min, max, abs, x[k], /, //, %
            value = max(parts, default=1)
        if isinstance(node, nodes.Filter) and node.name in ("sort", "unique", "first", "last"):
            size[id(node)] = size.get(id(node.node), MAX_VALUE)
        if value > MAX_MAGNITUDE:
            return RuleProblem(f"numbers in the rule can grow past {MAX_MAGNITUDE:,}; "
                               "keep them small")
        bound[id(node)] = value
    return None


def compile_rule(kind: RuleKind, rule: str, origin: str = "") -> Callable[..., Any]:
    """The positional callable the referee calls for a rule of `kind` (see VARIABLES order).

    A rule that fails on some input (an index past the end of a list, a division by zero, a
    comparison with a missing neighbour) raises RuleError naming `origin` ("file:line") and
    the input; `rule_failure` looks for such inputs ahead of play.
    """
    problems = rule_problems(kind, rule)
    if problems:
        raise RuleError(problems[0])
    compiled = _sandbox().compile_expression(rule)
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
        if isinstance(result, bool) or not isinstance(result, int) or \
                abs(result) > MAX_VALUE:
            given = ", ".join(f"{k}={v!r}" for k, v in zip(names, args, strict=True))
            raise RuleError(f"a {kind} rule must give a whole number from {-MAX_VALUE} to "
                            f"{MAX_VALUE}; '{rule}' gave {result!r} for {given}", origin)
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
        for first, second in itertools.product(effective, CARD_VALUES):
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
    (through its observation) can change nothing for anyone. What is derived from it is
    remembered by the module that derives it (`plan` here, pair sums in the referee), keyed by
    the rulebook itself: rulebooks compare and hash by identity.
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
        plan = _PLANS.get((self, challenge_ids))
        if plan is None:
            found = [self.challenges[c] for c in challenge_ids]
            plan = _PLANS.remember((self, challenge_ids), ChallengePlan(
                direction=sum(c.direction for c in found if c.kind is RuleKind.PASSING),
                value_rules=tuple(c.check for c in found
                                  if c.kind is RuleKind.VALUE and c.check is not None),
                combine=next((c.check for c in found if c.kind is RuleKind.COMBINE), None),
                sum_rules=tuple(c.check for c in sorted(found, key=lambda c: c.step)
                                if c.kind is RuleKind.SUM and c.check is not None),  # S4
                constraints=tuple((c.id, c.check) for c in found
                                  if c.kind is RuleKind.CONSTRAINT and c.check is not None),
            ))
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


#: The plan of each (rulebook, challenges) asked: a rulebook has few challenge sets.
_PLANS: Memo[tuple[Rulebook, tuple[str, ...]], ChallengePlan] = Memo(1024)
