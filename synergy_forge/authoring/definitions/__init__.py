"""Reading goal and challenge definition files, the built-ins' and a campaign's own."""

from __future__ import annotations

from functools import cache, lru_cache
from typing import Any

from synergy_forge.authoring.diagnostics import Diagnostic, Severity
from synergy_forge.authoring.schema import schema_diagnostics, schema_problems
from synergy_forge.authoring.yamlfile import Document, read_document
from synergy_forge.core.cards import Action
from synergy_forge.core.native import NATIVE
from synergy_forge.core.rulelang import (
    RuleKind,
    RuleProblem,
    compile_rule,
    rule_failure,
    rule_problems,
)
from synergy_forge.core.rules import ActionText, Definition, Rulebook
from synergy_forge.resources import definitions_dir


def text_of(value: Any) -> dict[str, str]:
    """A text field as {language: text}; a bare string is English."""
    if isinstance(value, str):
        return {"en": value}
    return dict(value or {})


@lru_cache(maxsize=256)
def _failure(kind: RuleKind, rule: str) -> str | None:
    """Why `rule` fails on some input a round can give it, or None. Trying every table takes a
    quarter of a second, so each rule is tried once per process (the studio reads a campaign
    on every save): a pure function of its kind and text, returning an immutable str, so its
    cache may stay (tests/package/test_architecture.py)."""
    return rule_failure(kind, compile_rule(kind, rule, "<rule>"))


def definition_from(doc: Document, kind_file: str, builtin: bool = False,
                    native: bool = False,
                    thorough: bool = True) -> tuple[Definition | None, list[Diagnostic]]:
    """A Definition from a parsed goal or challenge file, or the diagnostics that prevent it.

    `thorough=False` leaves out the search for inputs that make the rule fail (a tenth of a
    second a rule): for a campaign read only as the context of one mission file, whose own
    diagnostics nobody asked for. A built-in's rule is ours and tested: it is not parsed here.
    """
    # A schema error elsewhere in the file does not hide the rule's own checks (one run,
    # every finding); only a rule or kind that cannot be read stops them.
    schema_found, bad = schema_problems(doc, kind_file)
    data = doc.data
    if schema_found and (not isinstance(data, dict) or "rule" in bad or "kind" in bad
                         or not isinstance(data.get("rule", ""), str)
                         or (kind_file != "goal" and "kind" not in data)):
        return None, schema_found
    kind = RuleKind.GOAL if kind_file == "goal" else RuleKind(data["kind"])
    rule = data.get("rule")
    if rule is not None and not builtin:
        found = [rule_diagnostic(doc, rule, p) for p in rule_problems(kind, rule)]
        if found:
            return None, sorted(set(schema_found + found))
    line, _ = doc.where(())
    problems: list[Diagnostic] = []
    check = None
    if native and data["id"] in NATIVE:
        check = NATIVE[data["id"]]
    elif rule is not None:
        rule_line, _ = doc.where(("rule",))
        check = compile_rule(kind, rule, f"{doc.file}:{rule_line}")
        failure = None if builtin or not thorough else _failure(kind, rule)
        if failure is not None:  # an error, but the definition is kept: missions naming it
            problems.append(  # are not also told it does not exist
                doc.diagnostic(("rule",), failure, "definition.rule-fails"))
    if schema_found:
        return None, sorted(set(schema_found + problems))
    direction = {"left": 1, "right": -1}.get(data.get("direction", ""), 0)
    return Definition(
        id=data["id"], kind=kind, name=text_of(data["name"]), text=text_of(data["text"]),
        rule=rule, direction=direction, step=data.get("step", 50),
        origin="" if builtin else f"{doc.file}:{line}", builtin=builtin, check=check,
        symbol=data.get("symbol") or (default_symbol(text_of(data["name"]))
                                      if kind is RuleKind.GOAL else ""),
    ), problems


def default_symbol(name: dict[str, str]) -> str:
    """The symbol printed for a goal that gives none: the initials of its English name."""
    words = (name.get("en") or next(iter(name.values()), "?")).split()
    return "".join(w[0] for w in words[:2]).upper() or "?"


def rule_diagnostic(doc: Document, rule: str, problem: RuleProblem) -> Diagnostic:
    """A refused rule, at the column of the problem when the rule sits on one line of the file,
    with the rule quoted and a caret under the problem."""
    line, column = doc.where(("rule",))
    source = doc.line_text(line)
    quoted = source[column - 1:column] in ("'", '"')
    start = column - 1 + quoted
    if source[start:start + problem.offset] == rule[:problem.offset]:
        column = start + problem.offset + 1
    shown, at = rule.replace("\n", " "), problem.offset
    if len(shown) > 72:  # a window around the problem
        begin = max(0, at - 36)
        shown, at = shown[begin:begin + 72], at - begin
    message = f"{problem}\n    {shown}\n    {' ' * at}^"
    return Diagnostic(doc.file, line, column, Severity.ERROR, message, "definition.rule")


@cache  # a pure function of the package's own files, returning an immutable Rulebook
def standard_rulebook(native: bool = True) -> Rulebook:
    """The seven goals and thirteen challenges of docs/rules.md, from their definition files.

    `native=True` swaps each rule's expression for its proven-equal twin in native.py.
    """
    goals: dict[str, Definition] = {}
    challenges: dict[str, Definition] = {}
    for folder, kind_file, target in (("goals", "goal", goals),
                                      ("challenges", "challenge", challenges)):
        for path in sorted((definitions_dir() / folder).glob("*.yaml")):
            doc = read_document(path)
            definition, found = definition_from(doc, kind_file, builtin=True, native=native)
            if definition is None:  # a broken built-in is a bug in this package, not user error
                raise RuntimeError("\n".join(str(d) for d in found))
            target[definition.id] = definition
    return Rulebook(goals, challenges)


def standard_actions() -> dict[Action, ActionText]:
    """The ten action cards' names and texts, from definitions/actions/: a copy of its own for
    each caller (the files are read once per process)."""
    return dict(_read_actions())


@cache  # a pure function of the package's own files; callers get a copy (standard_actions)
def _read_actions() -> dict[Action, ActionText]:
    found = {}
    for path in sorted((definitions_dir() / "actions").glob("*.yaml")):
        doc = read_document(path)
        problems = schema_diagnostics(doc, "action")
        if problems:
            raise RuntimeError("\n".join(str(d) for d in problems))
        card = Action(doc.data["id"])
        found[card] = ActionText(card, text_of(doc.data["name"]), text_of(doc.data["text"]))
    return found
