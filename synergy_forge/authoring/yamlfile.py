"""A YAML reader that remembers where every value was written.

Designers' files are read here and nowhere else: UTF-8 only, a size cap, no anchors or aliases
(so an expansion bomb fails at once), duplicate keys refused, and a line and column for every
node so that later checks can point at the exact spot.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from synergy_forge.authoring.diagnostics import MAX_REPEATED, Diagnostic, InvalidInput, Severity
from synergy_forge.fileio import open_regular

MAX_BYTES = 2 * 1024 * 1024
MAX_DEPTH = 64


Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)

PathKey = tuple[str | int, ...]


@dataclass(frozen=True)
class Document:
    """A parsed file: plain data plus the 1-based (line, column) of every value and mapping key."""

    file: str
    data: Any
    values: dict[PathKey, tuple[int, int]]
    keys: dict[PathKey, tuple[int, int]]
    #: The file's text, for messages that quote a line (empty for data not read from a file).
    text: str = field(default="", repr=False, compare=False)

    def line_text(self, line: int) -> str:
        """Line `line` (1-based) of the file, or "" when unknown."""
        lines = self.text.splitlines()
        return lines[line - 1] if 0 < line <= len(lines) else ""

    def where(self, path: PathKey, key: bool = False) -> tuple[int, int]:
        """The closest known position of `path` (its key when `key`), walking up to the root."""
        path = tuple(path)
        if key and path in self.keys:
            return self.keys[path]
        while path not in self.values and path:
            path = path[:-1]
        return self.values.get(path, (1, 1))

    def diagnostic(
        self, path: PathKey, message: str, check: str, *, key: bool = False,
        severity: Severity = Severity.ERROR,
    ) -> Diagnostic:
        line, column = self.where(path, key)
        return Diagnostic(self.file, line, column, severity, message, check)


def _error(file: str, line: int, column: int, message: str, check: str = "yaml") -> InvalidInput:
    return InvalidInput([Diagnostic(file, line, column, Severity.ERROR, message, check)])


def read_document(path: Path, display: str | None = None) -> Document:
    """Read and parse `path`. Raises InvalidInput with a located diagnostic on any problem."""
    name = display or str(path)
    return parse_document(read_bytes(path, name), name)


def read_bytes(path: Path, name: str) -> bytes:
    """The bytes of `path` (a regular file of at most MAX_BYTES), as `read_document` reads
    them. Raises InvalidInput, at `name`, when it cannot."""
    try:
        with open_regular(path) as handle:
            raw = handle.read(MAX_BYTES + 1)
    except IsADirectoryError:
        raise _error(name, 1, 1, "is a folder, expected a file", "file") from None
    except OSError as exc:
        raise _error(name, 1, 1, f"cannot read the file: {exc.strerror}", "file") from None
    if len(raw) > MAX_BYTES:
        raise _error(name, 1, 1, f"the file is larger than {MAX_BYTES // 1024 // 1024} MiB", "file")
    return raw


#: Bidirectional controls and the other invisible formatting characters (Unicode's Cf, but
#: the zero-width joiner and non-joiner that some scripts' words need): a right-to-left
#: override in a title prints it mirrored, runs on in a terminal or a page title, and can make
#: a rule read otherwise than it runs. Refused wherever they are, comments included.
INVISIBLE = re.compile(
    "[\u00ad\u0600-\u0605\u061c\u06dd\u070f\u0890\u0891\u08e2\u180e\u200b\u200e"
    "\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb\U000110bd"
    "\U000110cd\U00013430-\U0001343f\U0001bca0-\U0001bca3\U0001d173-\U0001d17a"
    "\U000e0001\U000e0020-\U000e007f]")
_INVISIBLE_MESSAGE = ("an invisible formatting character (U+{code:04X}: a direction control, "
                      "zero-width space or the like), which would print or show otherwise than "
                      "it reads: delete it")


def _place(text: str, offset: int) -> tuple[int, int]:
    """(line, column) of `offset` in `text`, in characters as an editor counts them."""
    before = text[:offset]
    return before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1


def parse_document(raw: bytes, name: str) -> Document:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        # In characters, as an editor counts them, not bytes: the text before is valid UTF-8.
        head = raw[: exc.start].decode("utf-8").removeprefix("\ufeff")
        line = head.count("\n") + 1
        column = len(head) - (head.rfind("\n") + 1) + 1
        raise _error(name, line, column, "the file is not UTF-8 text", "encoding") from None
    text = text.removeprefix("\ufeff")
    # Looked for here rather than left to the parser: libyaml gives its place in UTF-8 bytes,
    # and PyYAML's own reader raises it before there is a loader to catch it in.
    control = yaml.reader.Reader.NON_PRINTABLE.search(text)
    if control:
        before = text[: control.start()]
        line, column = before.count("\n") + 1, len(before) - (before.rfind("\n") + 1) + 1
        raise _error(name, line, column, f"the file holds a control character "
                     f"(U+{ord(control.group()):04X}), which YAML does not allow", "encoding")
    hidden = [Diagnostic(name, *_place(text, found.start()), Severity.ERROR,
                         _INVISIBLE_MESSAGE.format(code=ord(found.group())), "encoding")
              for found in itertools.islice(INVISIBLE.finditer(text), MAX_REPEATED)]
    if hidden:
        more = sum(1 for _ in INVISIBLE.finditer(text)) - len(hidden)
        if more:
            hidden.append(Diagnostic(name, *_place(text, len(text)), Severity.ERROR,
                                     f"and {more} more such character(s) in this file",
                                     "encoding"))
        raise InvalidInput(hidden)
    loader = Loader(text)
    try:
        data, values, keys = _build(loader, name)
    except yaml.MarkedYAMLError as exc:
        line, column, message = explain_syntax(text, exc)
        raise _error(name, line, column, message) from None
    except yaml.YAMLError as exc:
        raise _error(name, 1, 1, f"YAML syntax: {exc}") from None
    finally:
        loader.dispose()
    return Document(name, data, values, keys, text)


_NO_SPACE_COLON = re.compile(r"^(\s*(?:-\s+)?)([A-Za-z_][\w-]*):(?=[^\s/:])(\S.*)$")
_NO_SPACE_DASH = re.compile(r"^(\s*)-(?=[^\s-])(.*)$")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _at(mark: Any) -> tuple[int, int]:
    return mark.line + 1, mark.column + 1


def explain_syntax(text: str, error: yaml.MarkedYAMLError) -> tuple[int, int, str]:
    """(line, column, message) for a YAML syntax error: what designers usually got wrong and
    the usual fix, in one line, rather than the parser's words, located where it is fixed.

    The parser gives where it noticed the problem, often a line after the mistake, and where
    what it was reading began: the quote or bracket never closed, the line whose key lacks its
    ':'. The mistakes it gives no place for (`key:value`, `-item`, an unquoted `: ` inside a
    value, a key out of line with its neighbours) are looked for in the lines up to there.
    """
    problem, context = error.problem or "", error.context or ""
    mark = error.problem_mark or error.context_mark
    line, column = _at(mark) if mark else (1, 1)
    start = _at(error.context_mark) if error.context_mark else (line, column)
    lines = text.split("\n")
    current = lines[line - 1] if 0 < line <= len(lines) else ""
    if current[column - 1:column] == "\t" and not current[:column - 1].strip():
        return line, column, ("a tab in the indentation: YAML indents with spaces only; "
                              "replace the tab with spaces")
    if "quoted scalar" in context:
        if "end of stream" in problem or "document" in problem:
            return *start, "this quoted text is never closed: add the closing quote"
        backslash = current.rfind("\\", 0, column)  # the parser stops in or after the escape
        return line, backslash + 1 if backslash >= 0 else column, (
            "an escape YAML does not know: in double quotes a backslash starts one (\\n, \\\", "
            "\\\\); write \\\\ for a backslash itself, or put the text in single quotes")
    for closing, what in (("]", "list in [ ]"), ("}", "mapping in { }")):
        if f"expected ',' or '{closing}'" in problem:
            # It ran to the end of the file, or on to a line no deeper than its own: a key.
            ended = not current[column - 1:].strip() and not any(map(str.strip, lines[line:]))
            if ended or (line > start[0] and _indent(current) <= _indent(lines[start[0] - 1])):
                return *start, f"this {what} is never closed: add the closing {closing}"
            message = f"a {what} is not closed, or two items lack a comma between"
            left = current[:column - 1].rstrip()
            if current[column - 1:column] == ":" and left:  # an item ran on into a ':'
                column = len(left) - len(left.split()[-1]) + 1
                message += ", or a value holds ': ' (put it in quotes)"
            return line, column, message
    # A key that never meets its ':' is on the line where the parser began reading it.
    upto = lines[:start[0]] if "simple key" in context else lines[:line]
    for number in range(len(upto), max(0, len(upto) - 3), -1):
        here = upto[number - 1]
        if here.lstrip().startswith("#"):
            continue
        match = _NO_SPACE_COLON.match(here)
        if match and not here.lstrip().startswith(("'", '"')):
            lead, key, value = match.groups()
            return number, len(lead) + len(key) + 1, (
                f"'{key}:{value}' needs a space after the colon: write '{key}: {value}'")
        match = _NO_SPACE_DASH.match(here)
        if match and here.strip() != "---":
            lead, item = match.groups()
            return number, len(lead) + 1, (f"'-{item}' needs a space after the dash to be a "
                                           f"list item: write '- {item}'")
    if "mapping values are not allowed" in problem and current:
        first = current.find(": ")
        if 0 <= first < column - 1 and not current.lstrip().startswith(("-", "{", "[")):
            key, value = current.strip().split(": ", 1)
            return line, column, (f"the value of '{key}' holds ': ', which YAML reads as "
                                  f"another key; put the value in quotes: {key}: "
                                  f"\"{value.replace(chr(34), chr(92) + chr(34))}\"")
    if "mapping values are not allowed" in problem or "expected key" in problem or \
            "expected <block end>" in problem:
        before = [(n, t) for n, t in enumerate(lines[: line - 1], 1)
                  if t.strip() and not t.lstrip().startswith("#")]
        if before and current.strip():
            above_number, above = before[-1]
            if _indent(current) != _indent(above) and not above.rstrip().endswith(":"):
                return line, _indent(current) + 1, (
                    f"this line starts at column {_indent(current) + 1} but line "
                    f"{above_number} above it at column {_indent(above) + 1}: keys of one "
                    "mapping must line up (indent with the same number of spaces)")
    if "could not find expected ':'" in problem:
        return *start, "a ':' is missing after the key on this line: write 'key: value'"
    return line, column, f"YAML syntax: {problem or 'not valid YAML'}"


def _build(loader: Any, name: str) -> tuple[Any, dict[PathKey, tuple[int, int]], dict]:
    """Build plain data from the parser's events with an explicit stack.

    Events rather than the composer: the C composer recurses and can crash the interpreter on
    deeply nested input, while the event stream is flat and shows every anchor and alias.
    """
    builder = _Builder(name)
    while True:
        event = loader.get_event()
        if event is None or isinstance(event, yaml.StreamEndEvent):
            break
        mark = event.start_mark
        line, column = mark.line + 1, mark.column + 1
        if isinstance(event, yaml.DocumentStartEvent):
            builder.documents += 1
            if builder.documents > 1:
                raise _error(name, line, column,
                             "the file holds more than one YAML document; expected one")
            continue
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise _error(name, line, column, "anchors and aliases (& and *) are not allowed")
        if isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            builder.start(event)
        elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            container, _, _, start = builder.stack.pop()
            builder.place(container, start)
        elif isinstance(event, yaml.ScalarEvent):
            if builder.at_key() and event.value == "<<" and event.implicit[0]:
                raise _error(name, line, column, "merge keys (<<) are not allowed")
            target = builder.place(_scalar(loader, event, name), mark)
            if target is not None:
                builder.values[target] = (line, column)
    return builder.root, builder.values, builder.keys


class _Builder:
    """The data of one file as its events arrive: the containers still open, and where each
    value and key was written."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.values: dict[PathKey, tuple[int, int]] = {(): (1, 1)}
        self.keys: dict[PathKey, tuple[int, int]] = {}
        # Each frame: [container, path, pending key (mappings), key position]
        self.stack: list[list[Any]] = []
        self.root: Any = None
        self.documents = 0

    def at_key(self) -> bool:
        """Whether the next value is a key of the open mapping."""
        return bool(self.stack) and isinstance(self.stack[-1][0], dict) and \
            self.stack[-1][2] is None

    def start(self, event: Any) -> None:
        """A mapping or a list starts."""
        mark = event.start_mark
        line, column = mark.line + 1, mark.column + 1
        if len(self.stack) >= MAX_DEPTH:
            raise _error(self.name, line, column, f"nested deeper than {MAX_DEPTH} levels")
        path = self._open_path(event)
        self.values[path] = (line, column)
        container: Any = {} if isinstance(event, yaml.MappingStartEvent) else []
        self.stack.append([container, path, None, mark])

    def _open_path(self, event: Any) -> PathKey:
        if not self.stack:
            return ()
        frame = self.stack[-1]
        container, path = frame[0], frame[1]
        if isinstance(container, list):
            return (*path, len(container))
        if frame[2] is None:
            mark = event.start_mark
            raise _error(self.name, mark.line + 1, mark.column + 1,
                         "a key must be a name or a whole number")
        return (*path, frame[2])

    def place(self, value: Any, mark: Any) -> PathKey | None:
        """Put a finished value into the open container; return its path (None for a key)."""
        if not self.stack:
            self.root = value
            return ()
        frame = self.stack[-1]
        container, path = frame[0], frame[1]
        if isinstance(container, list):
            container.append(value)
            return (*path, len(container) - 1)
        if frame[2] is None:  # this value is a key
            kline, kcol = mark.line + 1, mark.column + 1
            if isinstance(value, bool) or not isinstance(value, str | int):
                raise _error(self.name, kline, kcol, "a key must be a name or a whole number")
            key = str(value)
            if key in container:
                first = self.keys[(*path, key)][0]
                raise _error(self.name, kline, kcol,
                             f"the key {key!r} appears twice (first on line {first})")
            frame[2] = key
            self.keys[(*path, key)] = (kline, kcol)
            return None
        key = frame[2]
        frame[2] = None
        container[key] = value
        return (*path, key)


INT_TAG, FLOAT_TAG = "tag:yaml.org,2002:int", "tag:yaml.org,2002:float"
#: The longest number a file may hold: every whole number the formats take has at most 19
#: digits (a game's seed, below 2**63); a longer one is refused before any conversion.
MAX_NUMBER_CHARS = 24
_DECIMAL = re.compile(r"[-+]?(?:0|[1-9][0-9_]*)\Z")
_FORMS = (("0x", "hexadecimal"), ("0b", "binary"), ("0", "octal"))


def number_problem(text: str, tag: str) -> str | None:
    """Why the YAML number `text` (resolved as `tag`) is refused, or None.

    YAML 1.1 also reads 0x1F, 0b101, 017 and 1:30 (base 60) as whole numbers: a hexadecimal
    of thousands of digits escapes Python's limit on integer strings, and PyYAML's base-60
    conversion is quadratic (minutes for a 2 MB value). Only decimal numbers of bounded
    length are converted; the others are refused with what to write instead."""
    if tag not in (INT_TAG, FLOAT_TAG):
        return None
    if len(text) > MAX_NUMBER_CHARS:
        return (f"a number of {len(text)} characters: the formats take numbers of at most "
                f"{MAX_NUMBER_CHARS}")
    if ":" in text:
        return (f"'{text}' is a base-60 number in YAML 1.1; write the number in decimal, or "
                "put text in quotes")
    if tag == INT_TAG and not _DECIMAL.match(text):
        digits = text.lstrip("+-")
        form = next((word for prefix, word in _FORMS if digits.lower().startswith(prefix)),
                    None)
        if form is None:  # an explicit !!int on text
            return f"'{text}' is not a whole number"
        try:
            instead = f"write {int(text.replace('_', ''), 0) if form != 'octal' else int(text, 8)}"
        except ValueError:
            instead = "write it in decimal"
        article = "an" if form[0] in "aeiou" else "a"
        return (f"'{text}' is {article} {form} number in YAML; whole numbers are decimal: "
                f"{instead}")
    return None


def _scalar(loader: Any, event: yaml.ScalarEvent, name: str) -> Any:
    tag = event.tag
    if tag is None or tag == "!":
        tag = loader.resolve(yaml.ScalarNode, event.value, event.implicit)
    # The parser always marks its events (the stubs allow None, and the C parser's own Mark).
    start: Any = event.start_mark
    end: Any = event.end_mark
    problem = number_problem(event.value, tag)
    if problem is not None:
        raise _error(name, start.line + 1, start.column + 1, problem, "number")
    node = yaml.ScalarNode(tag, event.value, start, end, event.style)
    try:
        value = loader.construct_object(node)
    except Exception as exc:  # a constructor can fail in many ways on a hostile tag
        problem = getattr(exc, "problem", None) or "cannot read this value"
        raise _error(name, start.line + 1, start.column + 1, f"YAML value: {problem}") from None
    if not isinstance(value, str | int | float | bool | type(None)):
        return event.value  # dates and binary stay the text the user wrote
    return value
