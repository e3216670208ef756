"""A YAML reader that remembers where every value was written.

Designers' files are read here and nowhere else: UTF-8 only, a size cap, no anchors or aliases
(so an expansion bomb fails at once), duplicate keys refused, and a line and column for every
node so that later checks can point at the exact spot.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from synergy_forge.authoring.diagnostics import Diagnostic, InvalidInput, Severity
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
    try:
        with open_regular(path) as handle:
            raw = handle.read(MAX_BYTES + 1)
    except IsADirectoryError:
        raise _error(name, 1, 1, "is a folder, expected a file", "file") from None
    except OSError as exc:
        raise _error(name, 1, 1, f"cannot read the file: {exc.strerror}", "file") from None
    if len(raw) > MAX_BYTES:
        raise _error(name, 1, 1, f"the file is larger than {MAX_BYTES // 1024 // 1024} MiB", "file")
    return parse_document(raw, name)


def parse_document(raw: bytes, name: str) -> Document:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        before = raw[: exc.start]
        line = before.count(b"\n") + 1
        column = exc.start - (before.rfind(b"\n") + 1) + 1
        raise _error(name, line, column, "the file is not UTF-8 text", "encoding") from None
    text = text.removeprefix("\ufeff")
    loader = Loader(text)
    try:
        data, values, keys = _build(loader, name)
    except yaml.MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line, column = (mark.line + 1, mark.column + 1) if mark else (1, 1)
        problem = exc.problem or "not valid YAML"
        raise _error(name, line, column, f"YAML syntax: {problem}") from None
    except yaml.reader.ReaderError as exc:
        before = text[: exc.position]
        line, column = before.count("\n") + 1, exc.position - (before.rfind("\n") + 1) + 1
        raise _error(name, line, column, f"the file holds a control character ({exc.reason})",
                     "encoding") from None
    except yaml.YAMLError as exc:
        raise _error(name, 1, 1, f"YAML syntax: {exc}") from None
    finally:
        loader.dispose()
    return Document(name, data, values, keys, text)


def _build(loader: Any, name: str) -> tuple[Any, dict[PathKey, tuple[int, int]], dict]:
    """Build plain data from the parser's events with an explicit stack.

    Events rather than the composer: the C composer recurses and can crash the interpreter on
    deeply nested input, while the event stream is flat and shows every anchor and alias.
    """
    values: dict[PathKey, tuple[int, int]] = {(): (1, 1)}
    keys: dict[PathKey, tuple[int, int]] = {}
    # Each frame: [container, path, pending key (mappings), key position]
    stack: list[list[Any]] = []
    root: Any = None
    documents = 0

    def place(value: Any, mark: Any) -> PathKey | None:
        """Put a finished value into the open container; return its path."""
        nonlocal root
        if not stack:
            root = value
            return ()
        frame = stack[-1]
        container, path = frame[0], frame[1]
        if isinstance(container, list):
            container.append(value)
            return (*path, len(container) - 1)
        if frame[2] is None:  # this value is a key
            kline, kcol = mark.line + 1, mark.column + 1
            if isinstance(value, bool) or not isinstance(value, str | int):
                raise _error(name, kline, kcol, "a key must be a name or a whole number")
            key = str(value)
            if key in container:
                raise _error(name, kline, kcol, f"the key {key!r} appears twice")
            frame[2] = key
            keys[(*path, key)] = (kline, kcol)
            return None
        key = frame[2]
        frame[2] = None
        container[key] = value
        return (*path, key)

    def open_path() -> PathKey:
        if not stack:
            return ()
        frame = stack[-1]
        container, path = frame[0], frame[1]
        if isinstance(container, list):
            return (*path, len(container))
        if frame[2] is None:
            mark = event.start_mark
            raise _error(name, mark.line + 1, mark.column + 1,
                         "a key must be a name or a whole number")
        return (*path, frame[2])

    while True:
        event = loader.get_event()
        if event is None or isinstance(event, yaml.StreamEndEvent):
            break
        mark = event.start_mark
        line, column = mark.line + 1, mark.column + 1
        if isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                raise _error(name, line, column,
                             "the file holds more than one YAML document; expected one")
            continue
        if isinstance(event, yaml.AliasEvent) or getattr(event, "anchor", None):
            raise _error(name, line, column, "anchors and aliases (& and *) are not allowed")
        if isinstance(event, yaml.MappingStartEvent | yaml.SequenceStartEvent):
            if len(stack) >= MAX_DEPTH:
                raise _error(name, line, column, f"nested deeper than {MAX_DEPTH} levels")
            path = open_path()
            values[path] = (line, column)
            container: Any = {} if isinstance(event, yaml.MappingStartEvent) else []
            stack.append([container, path, None, mark])
        elif isinstance(event, yaml.MappingEndEvent | yaml.SequenceEndEvent):
            container, _, _, start = stack.pop()
            place(container, start)
        elif isinstance(event, yaml.ScalarEvent):
            is_key = stack and isinstance(stack[-1][0], dict) and stack[-1][2] is None
            if is_key and event.value == "<<" and event.implicit[0]:
                raise _error(name, line, column, "merge keys (<<) are not allowed")
            value = _scalar(loader, event, name)
            target = place(value, mark)
            if target is not None:
                values[target] = (line, column)
    return root, values, keys


def _scalar(loader: Any, event: yaml.ScalarEvent, name: str) -> Any:
    tag = event.tag
    if tag is None or tag == "!":
        tag = loader.resolve(yaml.ScalarNode, event.value, event.implicit)
    node = yaml.ScalarNode(tag, event.value, event.start_mark, event.end_mark, event.style)
    try:
        value = loader.construct_object(node)
    except Exception as exc:  # a constructor can fail in many ways on a hostile tag
        mark = event.start_mark
        problem = getattr(exc, "problem", None) or "cannot read this value"
        raise _error(name, mark.line + 1, mark.column + 1, f"YAML value: {problem}") from None
    if not isinstance(value, str | int | float | bool | type(None)):
        return event.value  # dates and binary stay the text the user wrote
    return value
