"""Every package's docstring stays true: each module or folder it names in backquotes is
there, and each module of the package is named (a new module is described where its
package is)."""

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
