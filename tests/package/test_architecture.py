"""The package's shape, read from its source (issue 24): state passed explicitly, nothing
process-wide changed, modules small enough to read.

- no `global` statement;
- no module-level object that a function writes (item, attribute or mutating method), except
  the caches listed in ALLOWED_STATE, each with the reason it may stay;
- no function cached for the whole process (functools.cache / lru_cache) that hands out a
  mutable object, except those in ALLOWED_CACHES;
- nothing process-wide changed: no write to os.environ or tempfile.tempdir, no os.chdir;
- no module over MAX_LINES lines;
- the packages that read the user's files (READERS) open none but through fileio's one
  regular-file read (open_regular, read_regular): a plain open of a FIFO waits for ever.

Each check is also run on a small made-up module that breaks it, so that it can fail.
"""

from __future__ import annotations

import ast
import functools
import textwrap
from collections.abc import Iterator
from pathlib import Path

import synergy_forge

PACKAGE = Path(synergy_forge.__file__).resolve().parent
MAX_LINES = 600

#: Long modules being split in another branch, with the reason; the test says when an entry
#: can go (core/engine.py's went when the engine was split along its phases).
KNOWN_LONG: dict[str, str] = {}

_PURE = ("a bounded memo (core.memo) of a pure function of immutable public facts: emptying it "
         "changes no result, only the time, and a dict look-up is what the hot path can afford "
         "(docs/performance.md)")

_CARDS = ("a bounded memo (core.memo) of a pure function of public facts and the cards it is "
          "asked about (as referee's _PAIR_SUMS): an answer is found only by asking about the "
          "same cards, so no seat learns another's from it; emptying it changes no result")

#: (module, name) -> why that module-level object may be written by a function. Every entry
#: must still be found: a stale one fails the test.
ALLOWED_STATE = {
    ("pool.py", "_THIS_WORKER"):
        "a worker process's own slot for the value its pool sent once, written only by the "
        "pool's initializer inside that worker (never in the process that runs the pool): "
        "concurrent.futures reaches a unit's function by name only",
    ("sim/chances.py", "_GRID_RULES"): _PURE + "; its values are read-only mappings",
    ("sim/chances.py", "_GRIDS"): _PURE,
    ("sim/chances.py", "_TABLES"): _PURE,
    ("sim/chances.py", "_ANSWERS"): _PURE + "; its callers are handed copies of its values",
    ("sim/greedy.py", "_PUBLIC_SUPPORTS"): _PURE,
    ("sim/greedy.py", "_SUPPORTS"): _PURE,
    ("sim/greedy.py", "_AFFINITY"): _PURE,
    ("sim/greedy.py", "_LEGAL_SUMS"): _CARDS,
    ("sim/coop.py", "_OPENINGS"): _PURE,
    ("sim/coop.py", "_BEST"): _CARDS + "; its values are read-only mappings",
    ("sim/expert.py", "_COUNTED"): _PURE,
    ("sim/belief.py", "_OPENINGS"): _PURE + "; an opening's own memo of its posteriors too",
    ("sim/belief.py", "_REPLIES"): _PURE + "; a reply's own memo of its posteriors too",
    ("sim/belief.py", "_DEALS"): _PURE,
    ("sim/policy.py", "_METS"): _PURE + "; its arrays are only read",
    ("sim/belief.py", "_CHAINS"): _PURE,
    ("sim/expert.py", "_CHAINS"): _PURE,
    ("sim/expert.py", "_DEALS"): _PURE,
    ("sim/convention.py", "_PLANS"): _PURE,
    ("sim/convention.py", "_HAND_VALUES"): _PURE,
    ("sim/convention.py", "_GOAL_EASE"): _PURE,
    ("sim/convention.py", "_OPTIONS"): _PURE + "; its values are tuples of named tuples",
    ("sim/mixed.py", "_MET"): _PURE + "; its arrays are only read (indexed into new ones)",
    ("sim/mixed.py", "_REPLIES"): _CARDS + " (where goals are in decks, the asking seat's "
                                           "own goal hand); its values are tuples",
    ("sim/convention.py", "_FIRST_MET"): _PURE + "; each value fills itself in with answers of "
                                                 "the same pure function (`_FirstMet`)",
    ("sim/convention.py", "_GOALS_MET"): _PURE + "; its values are memos of the same kind",
    ("authoring/lint.py", "_KEEPABLE"): _PURE,
    ("core/rules.py", "_PLANS"): _PURE + "; keyed by the rulebook itself (compared by identity)",
    ("core/referee.py", "_PAIR_SUMS"): _PURE,
}

#: (module, function) -> why a function cached for the whole process may return a mutable type.
ALLOWED_CACHES = {
    ("authoring/definitions/__init__.py", "_read_actions"):
        "private: its one caller, standard_actions, hands out a copy",
    ("cardtext/geometry.py", "_card_boxes"):
        "private: its one caller, card_boxes, hands out a copy (the boxes are frozen)",
}

_MUTATORS = frozenset({
    "append", "extend", "insert", "remove", "pop", "popitem", "clear", "update", "setdefault",
    "add", "discard", "remember", "sort", "reverse", "appendleft", "extendleft",
    "__setitem__", "__delitem__", "difference_update", "intersection_update",
    "symmetric_difference_update"})
_MUTABLE_RETURNS = frozenset({"dict", "list", "set", "Dict", "List", "Set", "defaultdict",
                              "Counter", "OrderedDict", "deque", "bytearray", "Memo"})
_CACHES = frozenset({"cache", "lru_cache"})
#: The packages that read campaign files, game logs and the other files a user names.
READERS = ("authoring/", "cli/", "studio/", "table/", "workspace/")
#: Modules whose `.open` is not a file's: descriptors, browsers.
_OTHER_OPENS = frozenset({"os", "webbrowser"})


@functools.cache
def _parse(source: str) -> ast.Module:
    """A module's tree, parsed once for all the checks (the package's hundred modules take
    half a second to parse; the checks only read the trees)."""
    return ast.parse(source)


@functools.cache
def _nodes(source: str) -> tuple[ast.AST, ...]:
    """Every node of a module's tree in ast.walk's order, listed once for all the checks: each
    check walked every tree again (ast.walk is most of their time)."""
    return tuple(ast.walk(_parse(source)))


def _modules() -> Iterator[tuple[str, str]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE).as_posix(), path.read_text(encoding="utf-8")


def global_statements(source: str) -> list[int]:
    """The lines of every `global` statement."""
    return [node.lineno for node in _nodes(source) if isinstance(node, ast.Global)]


def _root_name(node: ast.expr) -> str | None:
    """`X` of X, X[...], X.attr, X[...].attr..."""
    while isinstance(node, (ast.Subscript, ast.Attribute)):
        node = node.value
    return node.id if isinstance(node, ast.Name) else None


def _bound_locally(function: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda,
                   inside: tuple[ast.AST, ...]) -> set[str]:
    """Names a function binds itself (its arguments, its assignments): not the module's.
    `inside`: the function's nodes (ast.walk(function))."""
    args = function.args
    names = {a.arg for a in (*args.posonlyargs, *args.args, *args.kwonlyargs)}
    names |= {a.arg for a in (args.vararg, args.kwarg) if a is not None}
    for node in inside:
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
    return names


def written_module_objects(source: str) -> set[str]:
    """Module-level names whose object some function (or method) of the module writes: an
    item or an attribute stored or deleted, a mutating method called, or a `global` rebind."""
    tree = _parse(source)
    module_names: set[str] = set()
    for node in tree.body:
        targets = node.targets if isinstance(node, ast.Assign) else \
            [node.target] if isinstance(node, (ast.AnnAssign, ast.AugAssign)) else []
        module_names |= {t.id for t in targets if isinstance(t, ast.Name)}
    written: set[str] = set()
    for function in _nodes(source):
        if not isinstance(function, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            continue
        inside = tuple(ast.walk(function))  # walked once for the three looks below
        local = _bound_locally(function, inside)
        for node in inside:
            if isinstance(node, ast.Global):
                written |= set(node.names)
            elif isinstance(node, (ast.Subscript, ast.Attribute)) and \
                    isinstance(node.ctx, (ast.Store, ast.Del)):
                written.add(_root_name(node) or "")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and \
                    node.func.attr in _MUTATORS:
                written.add(_root_name(node.func.value) or "")
        written -= local - {n for g in inside if isinstance(g, ast.Global) for n in g.names}
    return written & module_names


def _decorator_name(node: ast.expr) -> str:
    node = node.func if isinstance(node, ast.Call) else node
    return node.attr if isinstance(node, ast.Attribute) else \
        node.id if isinstance(node, ast.Name) else ""


def mutable_caches(source: str) -> set[str]:
    """Functions cached for the whole process whose return annotation is a mutable type."""
    found = set()
    for node in _nodes(source):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.returns and \
                any(_decorator_name(d) in _CACHES for d in node.decorator_list):
            returned = node.returns
            if isinstance(returned, ast.Constant) and isinstance(returned.value, str):
                returned = ast.parse(returned.value, mode="eval").body
            outer = returned.value if isinstance(returned, ast.Subscript) else returned
            if _decorator_name(outer) in _MUTABLE_RETURNS:
                found.add(node.name)
    return found


def process_wide_changes(source: str) -> list[int]:
    """Lines that change the whole process: os.environ written, tempfile.tempdir set,
    os.chdir, os.putenv."""
    lines = []
    for node in _nodes(source):
        if isinstance(node, (ast.Subscript, ast.Attribute)) and \
                isinstance(node.ctx, (ast.Store, ast.Del)):
            text = ast.unparse(node)
            if text.startswith("os.environ[") or text == "tempfile.tempdir":
                lines.append(node.lineno)
        elif isinstance(node, ast.Call):
            callee = ast.unparse(node.func)
            if callee in ("os.chdir", "os.putenv", "os.unsetenv") or (
                    callee.startswith("os.environ.") and node.func.attr in _MUTATORS):  # type: ignore[attr-defined]
                lines.append(node.lineno)
    return lines


def direct_reads(source: str) -> list[int]:
    """Lines that open or read a file other than through fileio: open(), Path.open(),
    read_text(), read_bytes()."""
    lines = []
    for node in _nodes(source):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        if isinstance(func, ast.Name):
            read = func.id == "open"
        elif isinstance(func, ast.Attribute):
            other = isinstance(func.value, ast.Name) and func.value.id in _OTHER_OPENS
            read = func.attr in ("read_text", "read_bytes") or (func.attr == "open"
                                                                 and not other)
        else:
            read = False
        if read:
            lines.append(node.lineno)
    return lines


# -- the package ---------------------------------------------------------------------------

def test_no_global_statement():
    found = {name: lines for name, source in _modules() if (lines := global_statements(source))}
    assert found == {}, "pass the state explicitly (a context object) instead of `global`"


def test_no_module_level_object_written_by_a_function():
    found = {(name, obj) for name, source in _modules()
             for obj in written_module_objects(source)}
    unexplained = found - ALLOWED_STATE.keys()
    assert not unexplained, (
        f"module-level objects written by functions: {sorted(unexplained)}; pass the state "
        "explicitly (a context object, a memo owned by the object that uses it)")
    stale = ALLOWED_STATE.keys() - found
    assert not stale, f"allowed but no longer written: remove {sorted(stale)} from ALLOWED_STATE"


def test_no_process_wide_cache_hands_out_a_mutable_object():
    found = {(name, function) for name, source in _modules()
             for function in mutable_caches(source)}
    assert found - ALLOWED_CACHES.keys() == set(), \
        "return an immutable view (MappingProxyType, a tuple) or a copy from a cached function"
    assert ALLOWED_CACHES.keys() - found == set(), "stale entries in ALLOWED_CACHES"


def test_nothing_process_wide_is_changed():
    found = {name: lines for name, source in _modules()
             if (lines := process_wide_changes(source))}
    assert found == {}, "pass it explicitly (dir=, env=) instead of changing the process"


def test_the_users_files_are_read_only_through_fileio():
    found = {name: lines for name, source in _modules() if name.startswith(READERS)
             and (lines := direct_reads(source))}
    assert found == {}, "read through synergy_forge.fileio.open_regular or read_regular"


def too_long(sources: dict[str, str]) -> dict[str, int]:
    """The modules over MAX_LINES lines, with their length."""
    lengths = {name: len(source.splitlines()) for name, source in sources.items()}
    return {name: n for name, n in lengths.items() if n > MAX_LINES}


def test_no_module_over_600_lines():
    found = too_long(dict(_modules()))
    assert found.keys() <= KNOWN_LONG.keys(), f"split along their concepts: {found}"
    short_again = KNOWN_LONG.keys() - found.keys()
    assert not short_again, f"{sorted(short_again)} is short now: remove it from KNOWN_LONG"


# -- each check can fail --------------------------------------------------------------------

def _made_up(source: str) -> str:
    return textwrap.dedent(source)


def test_the_checks_find_what_they_forbid():
    assert global_statements(_made_up("""
        X = None
        def f():
            global X
            X = 1
    """)) == [4]
    assert written_module_objects(_made_up("""
        from synergy_forge.core.memo import Memo
        CACHE = {}
        SEEN = []
        MEMO = Memo(4)
        SLOT = object()
        KEPT = {}
        REBOUND = None
        def f(key):
            CACHE[key] = 1
            SEEN.append(key)
            MEMO.remember(key, 2)
            SLOT.value = key
            return KEPT.get(key)
        class C:
            def g(self):
                global REBOUND
                REBOUND = self
    """)) == {"CACHE", "SEEN", "MEMO", "SLOT", "REBOUND"}
    # A function's own variable of the same name is not the module's.
    assert written_module_objects(_made_up("""
        CACHE = {}
        def f(CACHE):
            CACHE[1] = 2
    """)) == set()
    assert mutable_caches(_made_up("""
        from functools import cache, lru_cache
        @cache
        def a() -> dict[str, int]: ...
        @lru_cache(maxsize=4)
        def b() -> "list[int]": ...
        @cache
        def c() -> tuple[int, ...]: ...
        def d() -> dict[str, int]: ...
    """)) == {"a", "b"}
    assert process_wide_changes(_made_up("""
        import os, tempfile
        def f():
            os.environ["SOURCE_DATE_EPOCH"] = "0"
            tempfile.tempdir = "/tmp/x"
            os.environ.update(A="1")
            os.chdir("/")
            return os.environ.get("HOME")
    """)) == [4, 5, 6, 7]
    assert direct_reads(_made_up("""
        import os, webbrowser
        def f(path):
            open(path)
            path.open("rb")
            path.read_text()
            path.read_bytes()
            os.open(path, os.O_RDONLY)
            webbrowser.open("http://localhost")
    """)) == [4, 5, 6, 7]


def test_a_long_module_is_found():
    assert too_long({"long.py": "x = 1\n" * (MAX_LINES + 1), "short.py": "x = 1\n" * MAX_LINES}) \
        == {"long.py": MAX_LINES + 1}


# -- at run time -----------------------------------------------------------------------------

def test_drawing_changes_nothing_process_wide(tmp_path, monkeypatch, harfbuzz_subsetter):
    """A drawing leaves the environment and the temporary folder as they were (the fonts'
    timestamp needs no SOURCE_DATE_EPOCH: WeasyPrint subsets them with HarfBuzz), puts
    WeasyPrint's font copies in the folder it is given, and gives the same bytes whatever
    the environment says."""
    import os
    import tempfile

    from synergy_forge.printing.draw import RenderContext, draw

    html = "<html><body><p>Synergy: « 5 ★ » <b>bold</b> <i>italic</i></p></body></html>"
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    environment, temporary = dict(os.environ), tempfile.tempdir
    pdfs = []
    for epoch in (None, "0", "1767225600"):
        if epoch is not None:
            monkeypatch.setenv("SOURCE_DATE_EPOCH", epoch)
        before = dict(os.environ)
        context = RenderContext(str(tmp_path))
        try:
            pdfs.append(draw(html, context).pdf)
            assert dict(os.environ) == before and tempfile.tempdir == temporary
            assert [p.name[:11] for p in tmp_path.iterdir()] == ["weasyprint-"]
        finally:
            context.release()
        assert list(tmp_path.iterdir()) == []
    monkeypatch.delenv("SOURCE_DATE_EPOCH", raising=False)
    assert dict(os.environ) == environment
    assert pdfs[0] == pdfs[1] == pdfs[2]
