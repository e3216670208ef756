"""The output folder: refused when it could lead writes outside it or into the campaign's own
files, held by one build at a time, every path written inside it (fileio.write_beneath opens
its folders without following links, so a folder swapped for a link during the build is
refused), and what an earlier build wrote there but this one does not, removed (`forget`)."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Collection, Iterator
from pathlib import Path, PurePosixPath

from synergy_forge.errors import UnreadableInput
from synergy_forge.fileio import read_regular, same_beneath, unlink_beneath, write_beneath
from synergy_forge.printing.store import CACHE_DIR

TEMP_DIR = ".tmp"
LOCK_FILE = ".lock"
#: The files the last build of each language wrote, by language, as paths relative to OUT:
#: what a build may remove (`forget`), and nothing else of the folder.
WRITTEN_FILE = ".written.json"


class OutputFolderError(UnreadableInput):
    """--out cannot be used as it is (a usage error: nothing was written)."""


def kit_folders(languages: Collection[str]) -> tuple[str, ...]:
    """The folders below OUT a build writes in: OUT/<lang> for each of `languages`, the
    cache, the build's scratch folder."""
    return (*languages, CACHE_DIR, TEMP_DIR)


def check_output_folder(out_dir: Path, campaign: Path | None = None,
                        sources: Collection[Path] = (), written: Collection[str] = ()
                        ) -> None:
    """Refuse a folder we could be tricked into writing outside of: a symbolic link anywhere
    inside it (the folder itself may be one: the user chose it). Refuse the `campaign`
    folder itself and any folder inside one of its `sources` (the folders its files are read
    from, workspace.Workspace.sources): the kit would be read back as the
    campaign's missions or schemas, and `validate` would report it. The same for each folder
    below OUT the command writes in, `written` (relative paths: `kit_folders` for a build;
    publish's adds the site's): a campaign in a folder named `en` is not OUT/en of a build
    into its parent."""
    where = _resolved(out_dir)
    instead = f", e.g. {campaign / 'output'}" if campaign is not None else ""
    home = _resolved(campaign) if campaign is not None else None
    if home is not None and where is not None and where == home:
        raise OutputFolderError(
            f"--out {out_dir}: the campaign folder itself, where the kit would be mixed with the "
            f"campaign's files: choose a folder for it{instead} (nothing was written)")
    for name in written:
        inner = _resolved(out_dir / name)
        if home is not None and inner is not None and home.is_relative_to(inner):
            raise OutputFolderError(
                f"--out {out_dir}: {out_dir / name}{os.sep} would be written, which holds "
                f"the campaign's own files: choose a folder for it{instead} (nothing was "
                "written)")
    for source in sources:
        read = _resolved(source)
        if where is not None and read is not None and where.is_relative_to(read):
            raise OutputFolderError(
                f"--out {out_dir}: inside {source}/, a folder the campaign reads its files from, "
                "where the kit would be read back as the campaign's own files: choose a folder "
                f"outside it{instead} (nothing was written)")
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputFolderError(f"{out_dir}: not a folder")
    if not out_dir.exists():
        return
    for folder, subfolders, files in os.walk(out_dir):
        for name in subfolders + files:
            if os.path.islink(os.path.join(folder, name)):
                raise OutputFolderError(
                    f"{os.path.join(folder, name)}: a symbolic link inside the output folder; "
                    "remove it or choose another --out (nothing was written)")


def _resolved(path: Path) -> Path | None:
    """`path` with its links followed, or None when they loop (writing there fails, and the
    write says so)."""
    try:
        return path.resolve()
    except (OSError, RuntimeError):
        return None


@contextlib.contextmanager
def locked(out_dir: Path) -> Iterator[None]:
    """Hold an exclusive lock on the output folder, so that two builds never mix their files."""
    import fcntl

    out_dir.mkdir(parents=True, exist_ok=True)
    handle = open(out_dir / LOCK_FILE, "a+b")  # noqa: SIM115 - held for the whole build
    try:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OutputFolderError(f"{out_dir}: another build is writing into this folder; "
                                    "wait for it to finish or choose another --out") from None
        yield
    finally:
        handle.close()  # closing releases the lock


def inside(root: Path, relative: Path) -> Path:
    """`relative` in `root`, by name only: no `..`, nothing absolute. Whether its folders are
    still folders when it is written is fileio.write_beneath's to check, at that moment."""
    if relative.is_absolute() or ".." in relative.parts:
        raise ValueError(f"{relative} would be written outside {root}")
    return root / relative


#: What a build writes in OUT/<lang>/: PDFs, PNGs, the TTS saved object and a print shop's
#: manifest (JSON and CSV).
OUTPUT_SUFFIXES = (".pdf", ".png", ".json", ".csv")


def forget(root: Path, languages: Collection[str], written: Collection[Path]) -> list[Path]:
    """Remove from `root` (the output folder) each file the last build of one of `languages`
    wrote (as WRITTEN_FILE says) that this build did not write (`written`): the PNG of a card
    taken out of the campaign, the TTS sheets of a build with --tts, a deck of --preset dtc.
    Then record `written` in WRITTEN_FILE. The files removed, inside `root`.

    Only files a build wrote are removed, never anything else of the folder (a damaged
    WRITTEN_FILE removes nothing), each through fileio.unlink_beneath (a link, never what it
    points to). The other languages' files stay, as their last build left them."""
    try:
        earlier = json.loads(read_regular(root / WRITTEN_FILE).decode("utf-8"))
    except (OSError, ValueError):
        earlier = {}
    if not isinstance(earlier, dict):
        earlier = {}
    now: dict[str, list[str]] = {language: [] for language in languages}
    for path in written:
        relative = PurePosixPath(path.relative_to(root).as_posix())
        now[relative.parts[0]].append(str(relative))
    removed = []
    for language in languages:
        names = earlier.get(language)
        kept = set(now[language])
        for name in sorted(names) if isinstance(names, list) else ():
            # Compared as written (`en/./a.pdf` is `en/a.pdf`, which this build may just have
            # written), and only the kinds of file a build writes: a record edited by hand
            # cannot make it remove a note of the user's.
            relative = PurePosixPath(name) if isinstance(name, str) else PurePosixPath("/")
            if str(relative) in kept or relative.is_absolute() or ".." in relative.parts \
                    or relative.parts[:1] != (language,) or len(relative.parts) < 2 \
                    or relative.suffix not in OUTPUT_SUFFIXES:
                continue  # not a file of this language's kit: left alone
            target = root / relative
            with contextlib.suppress(OSError):  # gone already, or its folder: nothing to do
                if unlink_beneath(root, target.parent, [target.name]):
                    removed.append(target)
    record = {**{k: v for k, v in earlier.items() if k not in now},
              **{k: sorted(v) for k, v in now.items()}}
    data = json.dumps(record, indent=1, sort_keys=True).encode("utf-8")
    if not same_beneath(root, root / WRITTEN_FILE, data):  # a rebuild of the same kit: untouched
        write_beneath(root, root / WRITTEN_FILE, data)
    return removed
