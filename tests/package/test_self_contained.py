"""The repository carries its own references: nothing in it points at files a clone
does not have (`../shared/…`, the rules reference or format contract by an outside name), and
docs/rules.md holds every ruling the code and tests cite."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
OUTSIDE = re.compile(r"\.\./shared|/work/shared|(?<![\w/-])RULES\.md|MISSION-FORMAT\.md")
SKIP = {".venv", ".git", "output", "node_modules", "__pycache__", ".pytest_cache",
        ".mypy_cache", ".ruff_cache", "build", "dist"}


def repository_files() -> list[Path]:
    """The files of the repository: git's list when it is a checkout, else a walk."""
    try:
        listed = subprocess.run(["git", "ls-files", "-z"], cwd=ROOT, capture_output=True,
                                check=True).stdout.decode().split("\0")
        return [ROOT / name for name in listed if name and (ROOT / name).is_file()]
    except (OSError, subprocess.CalledProcessError):
        return [p for p in ROOT.rglob("*") if p.is_file()
                and not SKIP & set(p.relative_to(ROOT).parts)]


def test_nothing_in_the_repository_points_outside_it():
    this = Path(__file__).resolve()
    found = []
    for path in repository_files():
        if path.resolve() == this:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # fonts, images
        for number, line in enumerate(text.splitlines(), 1):
            if OUTSIDE.search(line):
                found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()[:100]}")
    assert not found, "\n".join(found)


def test_the_check_would_see_a_pointer_outside():
    assert OUTSIDE.search("The contract is `../shared/MISSION-FORMAT.md`")
    assert OUTSIDE.search("follows RULES.md; comments name")
    assert not OUTSIDE.search("follows docs/rules.md")


@pytest.fixture(scope="module")
def rules() -> str:
    return (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def test_docs_rules_defines_every_ruling(rules):
    defined = set(re.findall(r"\*\*(R\d+|S\d+)\.", rules))
    assert {f"R{i}" for i in range(1, 25)} <= defined
    cited = set()
    for path in repository_files():
        if path.suffix in (".py", ".md", ".yaml", ".json") and path.name != "rules.md":
            cited |= set(re.findall(r"\b([RS](?:[1-9]|1\d|2[0-4]))\b(?![.\d])",
                                    path.read_text(encoding="utf-8", errors="replace")))
    rulings = {c for c in cited if c.startswith("R") or c in defined}
    assert rulings <= defined, sorted(rulings - defined)


def test_docs_rules_names_every_card_id(rules):
    from synergy_forge.authoring.definitions import standard_rulebook

    book = standard_rulebook()
    for card_id in [*book.goals, *book.challenges]:
        assert f"`{card_id}`" in rules, card_id
