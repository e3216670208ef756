"""The rule language: what a goal's or challenge's `rule` may say, and how it runs.

A rule is a Jinja expression, read once by `parse_rule` into Jinja's own parse tree. That tree
is checked against an allow-list (`rule_problems`: the linter's findings), compiled for the
sandbox (`compile_rule`: the callable the referee calls) and, for goals, run over whole grids
of tables by `synergy_forge.sim.grid`: one parser, so the referee, the linter and the grid
never read one rule two ways. The definitions that carry rules are in `rules.py`.
"""

from __future__ import annotations

import difflib
import itertools
import re
from collections.abc import Callable, Iterator, Mapping
from enum import StrEnum
from functools import cache, lru_cache
from typing import TYPE_CHECKING, Any

from synergy_forge.core.cards import CARD_VALUES
from synergy_forge.errors import UnreadableInput

if TYPE_CHECKING:
    from jinja2 import nodes
    from jinja2.sandbox import ImmutableSandboxedEnvironment


def suggest(word: str, options: list[str]) -> str:
    """" (did you mean 'close-call'?)" for the option nearest a mistyped name, else "": the
    one suggestion every unknown name gets (rules, missions, rounds)."""
    close = difflib.get_close_matches(word, options, n=1, cutoff=0.6)
    return f" (did you mean '{close[0]}'?)" if close else ""


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
    input; `origin` is where it was written ("file:line", or "" when unknown). Unreadable
    input: the campaign's rule cannot be used."""

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


@lru_cache(maxsize=1024)
def canonical_rule(rule: str) -> str:
    """The rule as its tokens, one space apart: two texts that differ only in whitespace
    between tokens (a YAML block's line breaks, spaces around an operator) run alike and give
    the same text. A rule the lexer cannot read keeps its words, one space apart."""
    from jinja2 import TemplateSyntaxError

    try:
        return " ".join(value for _, token, value in
                        _sandbox().lexer.tokeniter(rule, None, state="variable")
                        if token != "whitespace")
    except TemplateSyntaxError:
        return " ".join(rule.split())


def rule_problems(kind: RuleKind, rule: str) -> list[RuleProblem]:
    """Every reason `rule` cannot be used for a definition of `kind`; empty when it can."""
    _, problem = checked_rule(kind, rule)
    return [problem] if problem is not None else []


def checked_rule(kind: RuleKind, rule: str) -> tuple[nodes.Expr | None, RuleProblem | None]:
    """The parse tree of `rule` once it passes every check for `kind`, else None and the first
    reason it does not.

    Checked in order of cost, each before anything that could be slow or recurse on it: the
    length and bracket nesting of the text, each token against the allow-list, then the parse
    tree's depth and the size its numbers can reach.
    """
    if len(rule) > MAX_RULE_LENGTH:
        return None, RuleProblem(f"the rule is {len(rule)} characters long; at most "
                                 f"{MAX_RULE_LENGTH} are allowed", MAX_RULE_LENGTH)
    depth = 0
    for offset, char in enumerate(rule):
        depth += (char in "([{") - (char in ")]}")
        if depth > MAX_NESTING:
            return None, RuleProblem(f"brackets nested more than {MAX_NESTING} deep", offset)
    problem = _token_problem(kind, rule, VARIABLES[kind])
    if problem is not None:
        return None, problem
    expression, problem = parse_rule(rule)
    if expression is None:
        return None, problem
    problem = _shape_problem(expression) or _size_problem(expression)
    return (None, problem) if problem is not None else (expression, None)


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
            message = _name_problem(kind, value, previous, after, allowed)
            found = (message, at) if message is not None else None
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


def _name_problem(kind: RuleKind, name: str, previous: list[str], after: str,
                  allowed: Mapping[str, str]) -> str | None:
    """Why a name cannot stand where it is (after `previous` tokens, before `after`): a filter,
    a test or a variable off the allow-list, or a call."""
    before = previous[-1] if previous else ""
    if before == "|":
        if name not in FILTERS:
            return f"the filter '{name}' is not allowed; a rule may use {', '.join(FILTERS)}"
        if after == "(":
            return f"the filter '{name}' takes no arguments in a rule"
    elif (before == "is" and name != "not") or previous[-2:] == ["is", "not"]:
        if name not in TESTS:
            return f"the test '{name}' is not allowed; a rule may use {', '.join(TESTS)}"
    elif name not in _KEYWORDS and name not in allowed:
        known = ", ".join(allowed) or "none"
        return (f"unknown variable '{name}'{suggest(name, list(allowed))}; a {kind} rule may "
                f"use: {known}")
    elif after == "(" and name not in _KEYWORDS:
        return f"'{name}' is not a function: calls are not allowed in a rule"
    return None


def _walk(root: nodes.Node) -> list[tuple[nodes.Node, int]]:
    """Every node of the tree with its depth (the root's is 1), each before its children; an
    explicit stack, so that nothing here recurses in Python."""
    order: list[tuple[nodes.Node, int]] = []
    stack: list[tuple[nodes.Node, int]] = [(root, 1)]
    while stack:
        node, depth = stack.pop()
        order.append((node, depth))
        if depth <= MAX_DEPTH:  # the walk of a tree too deep stops just past the limit
            stack.extend((child, depth + 1) for child in node.iter_child_nodes())
    return order


def _shape_problem(root: nodes.Node) -> RuleProblem | None:
    """The first node an allowed rule cannot hold: too deep, of a kind off the allow-list, or
    given what the rule language leaves out."""
    from jinja2 import nodes

    for node, depth in _walk(root):
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
    return None


def _size_problem(root: nodes.Node) -> RuleProblem | None:
    """Whether numbers in an allowed rule could grow too large.

    `bound` is the largest magnitude each subexpression can reach, every variable being at
    most MAX_VALUE and `others`, `sums` and `distinct` at most 5 long.
    """
    from jinja2 import nodes

    bound: dict[int, float] = {}
    size: dict[int, int] = {}  # the most items each list can hold
    for node, _ in reversed(_walk(root)):  # children before their parents
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


def _compiled(tree: nodes.Expr) -> Callable[[dict[str, Any]], Any]:
    """The sandbox's callable for a checked tree: what `compile_expression` builds from a
    rule's text, built here from the tree the checks read rather than from a second parse."""
    from jinja2 import nodes
    from jinja2.runtime import Undefined

    sandbox = _sandbox()
    tree.set_environment(sandbox)
    body = [nodes.Assign(nodes.Name("result", "store"), tree, lineno=1)]
    template = sandbox.from_string(nodes.Template(body, lineno=1))
    # Every call copies the template's globals into a new context. Jinja keeps them as a
    # ChainMap over the sandbox's, costly to copy (docs/performance.md); the sandbox's globals
    # never change, so a plain dict of the same items is the same.
    template.globals = dict(template.globals)
    known, render, new_context = template.globals, template.root_render_func, \
        template.new_context

    def evaluate(context: dict[str, Any]) -> Any:
        # What jinja2's TemplateExpression(template, undefined_to_none=True) does, with the
        # context's variables (the globals, then the rule's inputs over them) made in one dict
        # instead of two copies of the inputs (a fifth of the cost of a rule as cheap as `sum in
        # others`).
        made = new_context({**known, **context}, shared=True)
        for _ in render(made):
            pass
        result = made.vars["result"]
        return None if isinstance(result, Undefined) else result

    return evaluate


def compile_rule(kind: RuleKind, rule: str, origin: str = "") -> Callable[..., Any]:
    """The positional callable the referee calls for a rule of `kind` (see VARIABLES order).

    A rule that fails on some input (an index past the end of a list, a division by zero, a
    comparison with a missing neighbour) raises RuleError naming `origin` ("file:line") and
    the input; `rule_failure` looks for such inputs ahead of play.
    """
    tree, problem = checked_rule(kind, rule)
    if tree is None:
        raise RuleError(problem or "the rule does not compile")
    compiled = _compiled(tree)
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


