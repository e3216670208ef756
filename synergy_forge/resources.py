"""Where the package's own files are: in the installed wheel, or in a source checkout."""

from __future__ import annotations

from pathlib import Path

PACKAGE = Path(__file__).resolve().parent


def _shipped(name: str) -> Path:
    # The wheel carries schemas/ and templates/ inside the package (pyproject.toml); a source
    # checkout or an editable install keeps them at the top of the repository.
    inside = PACKAGE / name
    return inside if inside.is_dir() else PACKAGE.parent / name


def schemas_dir() -> Path:
    return _shipped("schemas")


def templates_dir() -> Path:
    return _shipped("templates")


def definitions_dir() -> Path:
    return PACKAGE / "authoring" / "definitions"


def bundled_missions() -> Path:
    """missions/: in a checkout at the top; in a wheel, the copy inside the package."""
    return _shipped("missions")


def starter_campaign() -> Path:
    return bundled_missions() / "starter"
