"""The build's cache of pieces, OUT/.cache: each drawn piece under the hash of its final HTML,
the assets and the renderers' versions, so that a rebuild draws only what changed (the output
is the same with or without it). Entries are written atomically but not durably: one a crash
left damaged is drawn again rather than trusted (`entry`, `whole`)."""

from __future__ import annotations

import hashlib
import json
import stat
from pathlib import Path
from typing import Any

from synergy_forge.fileio import (
    names_beneath,
    read_regular,
    same_beneath,
    unlink_beneath,
    write_beneath,
)
from synergy_forge.resources import templates_dir

#: Part of every cache key: bump it when rendering changes in a way the HTML does not show.
RENDER_VERSION = "7"  # 3: sheets imposed from the cards' pages; 4: IDs blind to data-what;
# 5: a piece's overflows include the texts left off their card's page (draw._split_cards)
# 6: overflows measured by the border boxes: a last paragraph's bottom margin is not one
# 7: TTS sheets of different faces, a deck per back; shrunk cards kept as PPM
CACHE_DIR = ".cache"
TEMPLATES = "templates"  # OUT/.cache/templates/: the compiled templates


def digest(*parts: str | bytes) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(part.encode("utf-8") if isinstance(part, str) else part)
        hasher.update(b"\0")
    return hasher.hexdigest()


def assets_digest() -> str:
    """What besides the HTML decides the output: every asset file, the renderers' versions."""
    from importlib.metadata import version

    parts: list[str | bytes] = [RENDER_VERSION, version("weasyprint"), version("pypdfium2"),
                                version("pikepdf"), version("pillow")]
    root = templates_dir()
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.name.endswith(".j2"):  # templates are in the HTML
            parts += [path.relative_to(root).as_posix(), path.read_bytes()]
    return digest(*parts)


def entry(store: Path, key: str) -> dict[str, Any] | None:
    """A cached piece's facts (pages, texts that overflow, refused URLs), or None when the
    entry is missing or damaged (its PDF not the size it was written with, its facts
    unreadable): it is then drawn again rather than trusted."""
    try:
        meta = json.loads(read_regular(store / f"{key}.json").decode("utf-8"))
        if (store / f"{key}.pdf").stat().st_size == meta["bytes"]:
            return dict(meta)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


#: How a PNG or a PDF ends when it was written whole (a PNG's IEND chunk; a PDF's `%%EOF`,
#: maybe followed by a line end): the tail `whole` reads.
_ENDINGS = {".png": b"IEND\xaeB`\x82", ".pdf": b"%%EOF"}
_TAIL = 32


def whole(path: Path) -> bool:
    """A cached image or PDF is there as a regular file and whole: not empty, not cut short
    (what a crash or a hand can leave of it; it is then drawn again, never copied into the kit
    as it is)."""
    try:
        status = path.stat()
        if not stat.S_ISREG(status.st_mode) or status.st_size == 0:
            return False  # stat first: opening a FIFO left there would wait for a writer
        if path.suffix == ".ppm":  # a raw image: as long as its header says
            with open(path, "rb") as handle:
                header = handle.read(32).split(b"\n")
            width, height = (int(v) for v in header[1].split())
            return header[0] == b"P6" and status.st_size == \
                len(b"\n".join(header[:3])) + 1 + 3 * width * height
        ending = _ENDINGS.get(path.suffix)
        if ending is None:
            return True
        with open(path, "rb") as handle:
            handle.seek(max(0, status.st_size - _TAIL))
            tail = handle.read(_TAIL)
    except (OSError, ValueError, IndexError):
        return False
    return tail.endswith(ending) if path.suffix == ".png" else ending in tail


def sheets_listed(store: Path, key: str) -> list[str] | None:
    """The sheet files a cached TTS group lists, or None when the listing or a sheet is
    missing, empty or unreadable (the group is then composed again)."""
    try:
        names = json.loads(read_regular(store / f"{key}.json").decode("utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(names, list) or not all(
            isinstance(n, str) and n == Path(n).name and not n.startswith(".")
            and whole(store / f"{key}-{n}") for n in names):
        return None
    return names


def place(root: Path, target: Path, source: Path) -> Path:
    """Copy a cache entry to the output `target` inside `root`, leaving a file that is
    already the same alone."""
    data = read_regular(source)
    if not same_beneath(root, target, data):
        write_beneath(root, target, data)  # an output: durable
    return target


def prune(root: Path, store: Path, used: set[str]) -> None:
    """Delete every cache entry this build did not use, leftovers of killed writes, and
    anything there that is not a regular file (a FIFO would block the next build's reads):
    through the store's own descriptor, so that a store swapped for a link is refused."""
    unlink_beneath(root, store, [name for name, regular in names_beneath(root, store)
                                 if name != TEMPLATES and (name[:64] not in used
                                                           or not regular)])
