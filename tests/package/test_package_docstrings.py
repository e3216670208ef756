"""Every package's docstring stays true: each module or folder it names in backquotes is
there, each module of the package is named (a new module is described where its package is),
and where it says what it imports, it imports no other layer."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import synergy_forge

PACKAGE = Path(synergy_forge.__file__).resolve().parent
PACKAGES = sorted(p.parent for p in PACKAGE.rglob("__init__.py") if "__pycache__" not in p.parts)
#: `name`, `name/` or `name.attribute`: what reads as a module of the package.
NAMED = re.compile(r"`([a-z_][a-z0-9_]*)(/|\.[A-Za-z_][\w.]*)?`")
#: Packages whose modules are listed elsewhere (one per command, found by name).
UNLISTED = {"cli/commands", "authoring/definitions"}


def named(doc: str) -> set[str]:
    """The module and folder names `doc` gives in backquotes."""
    return {match.group(1) for match in NAMED.finditer(doc)}


def parts(package: Path) -> set[str]:
    """The modules and folders of `package` a docstring may name."""
    return {p.stem for p in package.glob("*.py") if p.stem != "__init__"} | \
        {p.name for p in package.iterdir() if p.is_dir() and p.name != "__pycache__"}


def docstring(package: Path) -> str:
    return ast.get_docstring(ast.parse((package / "__init__.py").read_text("utf-8"))) or ""


#: Words in backquotes that are not modules: the package's own names.
OTHER_NAMES = {"main", "command", "to_json"}


def missing(package: Path, root: Path = PACKAGE) -> tuple[set[str], set[str]]:
    """(names the docstring gives that are neither modules of the package nor of `root`, the
    top package whose layers it may name; modules it leaves out)."""
    doc, here = docstring(package), parts(package)
    said = named(doc) - OTHER_NAMES - {"synergy_forge"}
    wrong = {name for name in said if name not in here and name not in parts(root)}
    key = package.relative_to(root).as_posix()
    left_out = set() if key in UNLISTED or package == root else \
        {name for name in here if name not in said}
    return wrong, left_out


@pytest.mark.parametrize("package", PACKAGES, ids=lambda p: p.relative_to(PACKAGE).as_posix())
def test_a_package_docstring_names_its_modules_and_only_them(package: Path) -> None:
    assert docstring(package), "every package says what it holds"
    assert missing(package) == (set(), set())


#: The layers: the top package's folders that are packages.
LAYERS = {p.name for p in PACKAGES if p.parent == PACKAGE}


def claimed_layers(doc: str) -> set[str] | None:
    """The layers named in backquotes in the docstring's sentence on what it imports; None
    where it has none."""
    sentence = re.search(r"\b[Ii]mports\b[^.]*\.", doc)
    return None if sentence is None else named(sentence.group(0)) & LAYERS


def imported_layers(package: Path, root: Path = PACKAGE) -> set[str]:
    """The other layers that the modules of `package` (its subpackages too) import."""
    found = set()
    for path in package.rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text("utf-8"))):
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
                names = [node.module] + [f"{node.module}.{a.name}" for a in node.names]
            else:
                continue
            found |= {n.split(".")[1] for n in names if n.startswith(f"{root.name}.")}
    layers = {p.name for p in root.iterdir() if (p / "__init__.py").is_file()}
    return found & layers - {package.name}


@pytest.mark.parametrize("package", sorted(p for p in PACKAGES if p.parent == PACKAGE),
                         ids=lambda p: p.name)
def test_a_package_imports_what_its_docstring_says(package: Path) -> None:
    claimed = claimed_layers(docstring(package))
    if claimed is not None:
        assert imported_layers(package) <= claimed


def test_the_check_can_fail(tmp_path: Path) -> None:
    """A docstring naming a module that is gone (printing's `render` and `i18n` were) and
    leaving one out (`store`) fails; a sibling layer may be named."""
    package = tmp_path / "printing"
    package.mkdir()
    (tmp_path / "core").mkdir()
    (package / "__init__.py").write_text(
        '"""The `kit` and `render`, beside `layout/`; imports `core`."""\n')
    (package / "kit.py").write_text("")
    (package / "store.py").write_text("")
    (package / "layout").mkdir()
    assert missing(package, tmp_path) == ({"render"}, {"store"})
    (package / "__init__.py").write_text('"""`kit`, `store`, `layout/`; imports `core`."""\n')
    assert missing(package, tmp_path) == (set(), set())
    assert len(PACKAGES) >= 10


def test_the_imports_check_can_fail(tmp_path: Path) -> None:
    """A docstring saying "Imports only `core`" of a package that imports `cardtext` too."""
    root = tmp_path / "synergy_forge"
    for layer in ("core", "cardtext", "printing"):
        (root / layer).mkdir(parents=True)
        (root / layer / "__init__.py").write_text("")
    (root / "errors.py").write_text("")
    (root / "printing" / "kit.py").write_text(
        "from synergy_forge.core import cards\nimport synergy_forge.cardtext.fonts\n"
        "from synergy_forge import errors\nfrom . import layout\n")
    assert imported_layers(root / "printing", root) == {"core", "cardtext"}
    assert claimed_layers("The kit. Imports only `core`: values.") == {"core"}
    assert claimed_layers("Imports `cardtext` and `core`.") == {"cardtext", "core"}
    assert claimed_layers("The kit, drawn.") is None
