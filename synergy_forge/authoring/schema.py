"""JSON Schema validation with messages that point at the line and column of the mistake."""

from __future__ import annotations

import json
from dataclasses import replace
from functools import cache
from typing import Any

from jsonschema import Draft202012Validator, validators
from jsonschema.exceptions import ValidationError, best_match
from referencing import Registry, Resource

from synergy_forge.authoring.diagnostics import MAX_REPEATED, Diagnostic
from synergy_forge.authoring.yamlfile import Document
from synergy_forge.core.rulelang import suggest
from synergy_forge.fileio import read_regular
from synergy_forge.resources import schemas_dir

BASE = "https://synergy-forge.dev/schemas/"
KINDS = ("mission", "campaign", "challenge", "goal", "round")


@cache
def registry() -> Registry:
    """Every schema of schemas/, by its $id: cross-file $refs never reach the network."""
    resources = []
    for path in sorted(schemas_dir().glob("*.schema.json")):
        contents = json.loads(read_regular(path).decode("utf-8"))
        resources.append((contents["$id"], Resource.from_contents(contents)))
    return Registry().with_resources(resources)


def _whole(checker: Any, value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


# JSON Schema counts 1.0 as an integer; the game does not (a hand of 6.0 cards, a round's
# super seat 1.0): every format's whole numbers are ints here, so schema and loader agree.
_Validator = validators.extend(
    Draft202012Validator,
    type_checker=Draft202012Validator.TYPE_CHECKER.redefine("integer", _whole),
)


@cache
def validator(kind: str, part: str = "") -> Draft202012Validator:
    """A validator for one file kind, its cross-file $refs inlined once through the registry.

    The schemas on disk keep their $refs (editors follow them); inlining them here saves
    jsonschema a registry lookup on every use (docs/performance.md).
    """
    uri = f"{BASE}{kind}.schema.json"
    contents = registry().contents(uri)
    if part:  # one of the file's $defs (a game log's record kinds)
        contents = contents["$defs"][part]
    schema = _inline(contents, registry().resolver(uri))
    return _Validator(schema)


def _inline(node: Any, resolver: Any) -> Any:
    if isinstance(node, list):
        return [_inline(item, resolver) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        resolved = resolver.lookup(node["$ref"])
        target = _inline(resolved.contents, resolved.resolver)
        extra = {k: v for k, v in node.items() if k != "$ref"}
        # Sibling keywords (title, description) describe this use of the definition.
        return {**target, **extra} if isinstance(target, dict) else target
    return {k: (v if k in ("$defs", "const", "enum", "default") else _inline(v, resolver))
            for k, v in node.items() if k != "$defs"}


def schema_diagnostics(doc: Document, kind: str, part: str = "") -> list[Diagnostic]:
    """One diagnostic per schema violation in `doc`, each at the offending node (against one
    of the schema's $defs when `part` names it)."""
    return schema_problems(doc, kind, part)[0]


#: How many schema errors of one file are counted at most, past the MAX_REPEATED shown.
COUNTED = 10_000


def schema_problems(doc: Document, kind: str,
                    part: str = "") -> tuple[list[Diagnostic], set[str | int]]:
    """schema_diagnostics, and the top-level fields they are in (an unknown field included),
    so that later checks can still look at every other field."""
    found: list[Diagnostic] = []
    fields: set[str | int] = set()
    more = 0
    errors = validator(kind, part).iter_errors(doc.data)
    for error in errors:
        if len(found) >= MAX_REPEATED and error.absolute_path:
            # Past the cap only counted, and its field noted, up to COUNTED: a file of
            # 900,000 wrong items answers in seconds, in a screenful.
            more += 1
            fields.add(error.absolute_path[0])
            if more >= COUNTED:
                # The errors not looked at may be in any field: none is read as valid.
                fields.update(doc.data if isinstance(doc.data, dict) else ())
                break
            continue
        error = _deepest(error)
        path = tuple(error.absolute_path)
        message, on_key, path = _describe(error, path)
        diagnostic = doc.diagnostic(path, message, f"schema.{error.validator}", key=on_key)
        if len(found) < MAX_REPEATED:
            found.append(diagnostic)
        else:
            more += 1
        if path:
            fields.add(path[0])
    if more:
        count = f"at least {more:,}" if more >= COUNTED else f"{more:,}"
        found.append(replace(max(found), message=f"and {count} more schema error(s) in this "
                             f"file (the first {MAX_REPEATED} are shown)", check="schema.more"))
    return sorted(set(found)), fields


def _deepest(error: ValidationError) -> ValidationError:
    """For anyOf/oneOf, the alternative that came closest rather than "is not valid under…".

    Closest means: an alternative whose type fits the value (so its complaint is about the
    value itself); when no alternative's type fits, the anyOf error itself, described by type.
    """
    while error.context:
        branches: dict[Any, list[ValidationError]] = {}
        for sub in error.context:
            branches.setdefault(sub.relative_schema_path[0], []).append(sub)
        fitting = [
            errs for errs in branches.values()
            if not any(e.validator == "type" and not e.relative_path for e in errs)
        ]
        if not fitting:
            return error
        error = best_match(fitting[0])
    return error


def _alternatives(error: ValidationError) -> str:
    kinds: list[str] = []
    branches: Any = error.validator_value  # set on every error a validator reports
    for branch in branches:
        t = branch.get("type") if isinstance(branch, dict) else None
        if t is None and isinstance(branch, dict) and "$ref" in branch:
            try:
                t = registry().resolver(BASE).lookup(branch["$ref"]).contents.get("type")
            except Exception:  # an unresolvable ref only costs us a word in a message
                t = None
        label = _TYPES.get(t, t) if isinstance(t, str) else "another form"
        if label not in kinds:
            kinds.append(label)
    return " or ".join(kinds)


def _kind_of(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, bool):
        return f"{str(value).lower()} (true/false)"
    if isinstance(value, int | float):
        return f"the number {value}"
    if isinstance(value, str):
        return f"the text {value!r}"
    if isinstance(value, list):
        return "a list"
    return "a mapping"


_TYPES = {
    "object": "a mapping (key: value)",
    "array": "a list",
    "string": "a text",
    "integer": "a whole number",
    "number": "a number",
    "boolean": "true or false",
    "null": "nothing (null)",
}


def _field(path: tuple[Any, ...]) -> str:
    """A path as a designer reads it: seats[1].numbers[0]."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return f"'{text}'" if text else "the file"


def _describe(error: ValidationError, path: tuple[Any, ...]) -> tuple[str, bool, tuple[Any, ...]]:
    """(message, point at the key rather than the value, path) for one schema error."""
    where = _field(path) if path else "the file"
    found = _field_problem(error, path, where)
    if found is not None:
        return found
    return _value_problem(error, where), False, path


def _field_problem(error: ValidationError, path: tuple[Any, ...], where: str
                   ) -> tuple[str, bool, tuple[Any, ...]] | None:
    """A mapping's keys and fields: a key of the wrong form, a field missing, unknown or not
    allowed here; None for an error about a value."""
    # Set on every error a validator reports (the stubs also allow jsonschema's "unset").
    v: Any = error.validator
    value: Any = error.instance
    arg: Any = error.validator_value
    schema: Any = error.schema
    if "propertyNames" in error.relative_schema_path:
        rule = f"one of {', '.join(map(str, arg))}" if v == "enum" else "of the right form"
        return f"{where} cannot have the key {value!r}; keys must be {rule}", True, \
            (*path, value)
    if v == "required":
        missing = [name for name in arg if isinstance(value, dict) and name not in value]
        names = ", ".join(f"'{m}'" for m in missing) or str(arg)
        return f"{where} is missing the required field {names}", False, path
    if v == "additionalProperties" and isinstance(value, dict):
        allowed = sorted(schema.get("properties", {}))
        extra = [k for k in value if k not in schema.get("properties", {})]
        if extra:
            expected = f"; expected one of: {', '.join(allowed)}" if allowed else ""
            did = suggest(extra[0], allowed)
            return f"unknown field '{extra[0]}'{did}{expected}", True, (*path, extra[0])
    if v == "propertyNames":
        return f"{error.message}", True, path
    if v == "not" and isinstance(arg, dict) and "required" in arg:
        return f"{where} may not have the field {', '.join(arg['required'])} here", False, path
    return None


def _value_problem(error: ValidationError, where: str) -> str:
    """What is wrong with a value: its type, its choices, its bounds, its form or size."""
    v: Any = error.validator
    value: Any = error.instance
    arg: Any = error.validator_value
    schema: Any = error.schema
    if v in ("anyOf", "oneOf", "type"):
        return _type_problem(error, where)
    if v == "enum":
        options = ", ".join(str(o) for o in arg)
        return f"{where} must be one of {options}; got {_kind_of(value)}"
    if v == "const":
        return f"{where} must be {arg!r}, got {_kind_of(value)}"
    if v in ("minimum", "exclusiveMinimum"):
        return f"{where} must be at least {arg}, got {value}"
    if v in ("maximum", "exclusiveMaximum"):
        return f"{where} must be at most {arg}, got {value}"
    if v == "pattern":
        title = schema.get("title") if isinstance(schema, dict) else None
        hint = f" ({schema['description']})" if isinstance(schema, dict) and \
            "description" in schema else ""
        return f"{where}: {value!r} is not a valid {(title or 'value').lower()}{hint}"
    if v in ("minLength", "minProperties"):
        return f"{where} must not be empty"
    if v == "minItems":
        return f"{where} needs at least {arg} item(s), got {len(value)}"
    if v == "maxItems":
        return f"{where} allows at most {arg} item(s), got {len(value)}"
    if v == "uniqueItems":
        dup = next((item for i, item in enumerate(value) if item in value[:i]), None)
        return f"{where} lists {dup!r} more than once"
    return f"{where}: {error.message}"


def _type_problem(error: ValidationError, where: str) -> str:
    """A value of the wrong type, or matching none of the alternatives it may be."""
    v: Any = error.validator
    value: Any = error.instance
    arg: Any = error.validator_value
    wanted = arg if isinstance(arg, list) else [arg]
    whole = "integer" in json.dumps(arg) if v != "type" else "integer" in wanted
    if whole and isinstance(value, float) and value.is_integer():
        return f"{where}: {value} is not a whole number: write {int(value)}"
    if v != "type":
        return f"{where} must be {_alternatives(error)}, got {_kind_of(value)}"
    expected = " or ".join(_TYPES.get(t, str(t)) for t in wanted)
    hint = ""
    if "array" in wanted and isinstance(value, str) and value.startswith("-"):
        # `-a` on its own line is text to YAML, not a list item
        hint = " (a list item needs a space after the dash: '- item')"
    return f"{where} must be {expected}, got {_kind_of(value)}{hint}"


