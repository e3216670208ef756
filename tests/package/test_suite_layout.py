"""The suite's own shape: test modules by layer (tests/<layer>/, the package's layers, and
package/ for the whole), what they share in tests/support/, fixtures in conftest.py; no test
imports conftest or another test module, and each helper is defined once."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
LAYERS = {"core", "sim", "authoring", "printing", "workspace", "cli", "web", "package"}


def modules() -> list[Path]:
    return sorted(p for p in TESTS.rglob("*.py") if "__pycache__" not in p.parts)


def imported(path: Path) -> set[str]:
    """The top-level names of the modules `path` imports."""
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found |= {alias.name.split(".")[0] for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found


def test_every_test_module_is_in_its_layers_folder():
    misplaced = [p.relative_to(TESTS).as_posix() for p in modules()
                 if p.name.startswith("test_") and p.parent.name not in LAYERS]
    assert misplaced == []
    assert {p.parent.name for p in modules() if p.name.startswith("test_")} == LAYERS


def test_no_test_imports_conftest_or_another_test_module():
    wrong = {p.relative_to(TESTS).as_posix(): sorted(
        name for name in imported(p) if name == "conftest" or name.startswith("test_"))
        for p in modules()}
    assert {k: v for k, v in wrong.items() if v} == {}


def test_each_helper_is_defined_once():
    """Two `make_table`s (the referee's round and the browser table) were one name for two
    things; now each helper name of the suite is one definition."""
    defined: dict[str, list[str]] = {}
    for path in modules():
        if path.name.startswith("test_"):
            continue  # a test module's own helpers are its own
        for node in ast.parse(path.read_text(encoding="utf-8")).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef):
                defined.setdefault(node.name, []).append(path.relative_to(TESTS).as_posix())
    assert {name: where for name, where in defined.items() if len(where) > 1} == {}
    assert defined["make_table"] == ["support/rounds.py"]
    assert defined["game_table"] == ["support/tables.py"]


def test_the_checks_can_fail(tmp_path: Path):
    stray = tmp_path / "test_x.py"
    stray.write_text("from conftest import make_table\nimport test_build as b\n")
    assert imported(stray) == {"conftest", "test_build"}
