"""One policy for the paths and patterns a user writes in a campaign.

campaign.yaml names its missions, goals and challenges by paths or glob patterns. Each is read
relative to the campaign folder and must stay inside it, with a bounded number of components
and bounded lengths, before anything touches the file system: the standard library's glob
raises on an absolute pattern (NotImplementedError), on a `**` that is not a whole component
(ValueError) and recurses once per component (RecursionError), and the file system refuses a
name longer than NAME_MAX (ENAMETOOLONG). Every refusal is a sentence for a located
diagnostic (the pattern's FILE:LINE:COLUMN in campaign.yaml).
"""

from __future__ import annotations

import os
import stat
from pathlib import Path, PurePosixPath, PureWindowsPath

#: Bounds on a pattern: far above any campaign's layout, far below what the file system and
#: the glob's recursion stand (255 bytes is Linux's and macOS's NAME_MAX).
MAX_PATTERN_CHARS = 1024
MAX_COMPONENTS = 32
NAME_MAX = 255

GLOB_CHARS = "*?["


def pattern_problem(pattern: str) -> str | None:
    """Why `pattern` cannot name files of a campaign, or None when it can."""
    if not pattern.strip():
        return "an empty path: name a file relative to the campaign folder"
    if "\0" in pattern:
        return "a path cannot hold a NUL character"
    if len(pattern) > MAX_PATTERN_CHARS:
        return (f"a path of {len(pattern)} characters: at most {MAX_PATTERN_CHARS}, relative "
                "to the campaign folder")
    if PurePosixPath(pattern).is_absolute() or PureWindowsPath(pattern).drive \
            or pattern.startswith("~"):
        return ("an absolute path: write it relative to the campaign folder "
                "(e.g. missions/*.yaml)")
    parts = [p for p in pattern.split("/") if p not in ("", ".")]
    if not parts:
        return "names the campaign folder itself: name files inside it (e.g. missions/*.yaml)"
    if len(parts) > MAX_COMPONENTS:
        return (f"a path of {len(parts)} folders and names: at most {MAX_COMPONENTS}")
    for part in parts:
        if part == "..":
            return "'..' leads out of the campaign folder: keep its files inside it"
        if "**" in part and part != "**":
            return (f"'{_short(part)}': '**' must be a whole part of the path, as in "
                    "missions/**/*.yaml")
        if len(os.fsencode(part)) > NAME_MAX:
            return f"'{_short(part)}' is longer than {NAME_MAX} bytes, too long for a file name"
    return None


def pattern_folder(pattern: str) -> str | None:
    """The folder, relative to the campaign's, whose files (or its subfolders') `pattern`
    reads: its parts before the first wildcard, the file name left out ("missions/*.yaml" and
    "missions/01.yaml" read missions/); None when that is the campaign folder itself
    ("*.yaml", "**/*.yaml"), which only `build --out` of the folder itself is refused for
    (its own c/output/ stays usable)."""
    parts = [p for p in pattern.split("/") if p not in ("", ".")]
    fixed = next((i for i, part in enumerate(parts) if any(c in part for c in GLOB_CHARS)),
                 len(parts) - 1)
    return "/".join(parts[:fixed]) or None


def _short(text: str, limit: int = 40) -> str:
    return text if len(text) <= limit else text[: limit - 1] + "…"


def regular_file(path: Path) -> bool:
    """Whether `path` is a regular file (following links): never raises, never opens it, so a
    FIFO, a device or a name the file system refuses is simply not a file."""
    try:
        return stat.S_ISREG(path.stat().st_mode)
    except (OSError, ValueError):
        return False


def inside(path: Path, folder: Path) -> bool:
    """Whether `path`, links followed, lies in `folder` (links followed)."""
    try:
        return path.resolve().is_relative_to(folder.resolve())
    except (OSError, RuntimeError, ValueError):
        return False


def special(path: Path) -> bool:
    """Whether `path` exists but is neither a regular file nor a folder (a FIFO, a socket, a
    device): reading one could block forever."""
    try:
        mode = path.stat().st_mode
    except (OSError, ValueError):
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def expand(folder: Path, pattern: str) -> tuple[list[Path], str | None, list[Path]]:
    """The regular files `pattern` names in `folder`, sorted; a problem (or None): the
    pattern's own, or matches that lie outside the folder through a link; and the matches
    skipped because they are not regular files (FIFOs, devices)."""
    problem = pattern_problem(pattern)
    if problem is not None:
        return [], problem, []
    try:
        if any(ch in pattern for ch in GLOB_CHARS):
            candidates = sorted(folder.glob(pattern))
        else:
            candidates = [folder / pattern]
    except (OSError, ValueError, NotImplementedError, RecursionError) as exc:
        return [], f"cannot be searched: {getattr(exc, 'strerror', None) or exc}", []
    matches = [m for m in candidates if regular_file(m)]
    skipped = [m for m in candidates if special(m)]
    outside = [m for m in matches if not inside(m, folder)]
    if outside:
        return [m for m in matches if m not in outside], (
            f"{_short(str(outside[0].relative_to(folder)), 80)} leads out of the campaign "
            "folder through a link: keep its files inside it"), skipped
    return matches, None, skipped
