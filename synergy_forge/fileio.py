"""Writing files safely: atomically, and never over something the user wrote unless asked.

Two ways to write: `write_atomic` for outputs (a report, a kit, a log: the command made them
and may make them again) and `replace_text` for the designer's own files that a command
changes in place (`tune --write`), where a lost save is lost work.

An output file the user names (`play --log FILE`, `playtest --html FILE`) is one policy,
`OutputKind`: it is written where nothing is (or an empty file), or over an earlier output of
the same kind, known by how it begins; anything else at that name (a mission, a note, a
folder, a device) is the user's, and the write is refused with that file untouched.

A file a command writes into a campaign (its copy of the schemas, `new`'s files, a game's log
in games/) is `write_inside`: the same policy, and never through a link (of the file or of a
folder on its way) that leads out of the campaign, which a cloned repository can carry.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from synergy_forge.errors import CannotWrite, ChangedMeanwhile

#: Bytes of the target's name kept in its temporary file's name: with the dot, the random
#: part and ".tmp" it stays far below NAME_MAX (255) whatever the target's legal name.
TEMP_NAME_BYTES = 64


def temp_prefix(name: str) -> str:
    """`.NAME.` for the temporary file beside NAME, NAME cut to TEMP_NAME_BYTES of UTF-8."""
    short = name.encode("utf-8", "surrogateescape")[:TEMP_NAME_BYTES]
    return "." + short.decode("utf-8", "ignore") + "."


def _stream_link(path: Path) -> bool:
    """Whether `path` is a link into /proc (/dev/stdout and the like): renaming over it would
    replace the system's link, not write to the stream."""
    try:
        if not os.path.islink(path):
            return False
        target = os.path.normpath(os.path.join(os.path.dirname(path), os.readlink(path)))
        return target.startswith("/proc/")
    except OSError:
        return False


def _replaceable(path: Path) -> None:
    """Raises OSError unless `path` is missing or a regular file: a rename over /dev/full or
    /dev/stdout (a link to a pipe) would replace the device or the link itself, and a FIFO
    would lose its reader."""
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        return
    if stat.S_ISDIR(mode):
        raise IsADirectoryError(errno.EISDIR, "is a folder, expected a file name", str(path))
    if not stat.S_ISREG(mode) or _stream_link(path):
        raise OSError(errno.EINVAL, "not a regular file (a device, FIFO, socket or "
                      "stream); give a file name", str(path))


@dataclass(frozen=True)
class OutputKind:
    """What an output option writes, for the policy above: `what` it is, in words (the
    refusal says "exists and is not <what>"), and `start`, the bytes every such file begins
    with, by which one written earlier is known."""

    what: str
    start: bytes


def output_problem(path: Path, kind: OutputKind) -> str | None:
    """Why an output of `kind` may not be written at `path` (a sentence ending "nothing was
    written"), or None when it may: nothing is there, an empty file, or an earlier output of
    `kind` (a link: the file it points to). Never blocks (a FIFO is not opened)."""
    try:
        _replaceable(path)
        with open_regular(path) as handle:
            head = handle.read(len(kind.start))
    except (FileNotFoundError, NotADirectoryError):
        return None  # nothing to lose (a folder that is a file: the write itself says so)
    except PermissionError:
        return f"exists and cannot be read to tell whether it is {kind.what}; nothing was " \
            "written"
    except OSError as exc:
        if isinstance(exc, IsADirectoryError) or exc.errno == errno.EINVAL:
            return f"{exc.strerror}; nothing was written"
        return None  # a name the file system refuses (too long...): the write says so
    if head in (b"", kind.start):
        return None
    return f"exists and is not {kind.what}: nothing was written (give another name, or " \
        "remove that file first)"


def outside_problem(root: Path, path: Path) -> str | None:
    """Why `path` may not be written as a file of the folder `root` (a campaign's): it, or a
    folder on its way, is a link (dangling or not) that leads out of `root` (a sentence
    ending "nothing was written"); None when the file it names is inside `root`."""
    home = os.path.realpath(root)
    target = os.path.realpath(path)
    if os.path.commonpath([home, target]) == home:
        return None
    return f"leads out of the campaign's folder through a link (to {target}): nothing was " \
        "written (remove the link, or write elsewhere)"


def write_inside(root: Path, path: Path, data: bytes | str, *,
                 kind: OutputKind | None = None) -> Path:
    """`data` as the file `path` of the folder `root` (a campaign): never through a link out
    of `root` (outside_problem), and over nothing, or, with `kind`, an earlier output of that
    kind (output_problem); CannotWrite (exit 2) otherwise, with nothing written. Without
    `kind` an existing name is FileExistsError."""
    problem = outside_problem(root, path)
    if problem is not None:
        raise CannotWrite(str(path), problem)
    if kind is None:
        return write_atomic(path, data, overwrite=False)
    return write_atomic(path, data, kind=kind)


def inside_problem(root: Path, path: Path, kind: OutputKind | None = None) -> str | None:
    """Why write_inside(root, path, kind=kind) would refuse, found before anything is written
    (so that a command writing several files writes all or none): a link out of `root`, or a
    file there that is not an earlier output of `kind` (without `kind`: any)."""
    problem = outside_problem(root, path)
    if problem is not None:
        return problem
    if kind is None:
        return "already exists; nothing was written" if os.path.lexists(path) else None
    return output_problem(path, kind)


def _temporary(path: Path, payload: bytes, durable: bool, mode: int) -> str:
    """A new file beside `path` holding `payload` with `mode`; its name. An OSError names
    `path` (not the hidden temporary name, which means nothing to the user)."""
    try:
        fd, tmp = tempfile.mkstemp(prefix=temp_prefix(path.name), suffix=".tmp",
                                   dir=path.parent)
    except OSError as exc:
        exc.filename = str(path)
        raise
    with _removed_on_failure(tmp):
        with os.fdopen(fd, "wb") as handle:
            _fill(handle, payload, durable)
        os.chmod(tmp, mode)
    return tmp


def _fill(handle: BinaryIO, payload: bytes, durable: bool) -> None:
    """Write the whole of a new file; `durable`: on the disk before it replaces another."""
    handle.write(payload)
    handle.flush()
    if durable:
        os.fsync(handle.fileno())


@contextlib.contextmanager
def _removed_on_failure(tmp: str, dir_fd: int | None = None) -> Iterator[None]:
    """Delete the temporary file `tmp` (in the folder `dir_fd`, else by its path) when the
    block fails, Ctrl-C included: a write that does not finish leaves nothing behind."""
    try:
        yield
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp, dir_fd=dir_fd)
        raise


def write_atomic(path: Path, data: bytes | str, *, overwrite: bool = True,
                 durable: bool = True, kind: OutputKind | None = None) -> Path:
    """Write `data` to `path` through a temporary file in the same folder, then rename.

    An interrupted write leaves the old file (or none), never half of the new one. With
    `overwrite=False` an existing file raises FileExistsError and is left untouched; with
    `overwrite` a link is followed (the file it points to is replaced, the link stays) and an
    existing file keeps its mode. `durable=False` skips the fsync before the rename (each
    costs a journal commit), for files that can be made again and are checked before use (the
    build's cache): a crash may leave such a file empty, never half of it in place of the old
    one. With `kind`, an output the user named: the file in place is checked by
    `output_problem` at the last moment before it is replaced, and CannotWrite (exit 2) leaves
    it untouched.
    """
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        _write_atomic(path, payload, overwrite=overwrite, durable=durable, kind=kind)
    except OSError as exc:
        if exc.filename is not None and str(exc.filename) != str(path) \
                and not isinstance(exc, FileExistsError) and exc.errno is not None:
            # The hidden temporary file is ours, not the user's: name the file they asked for.
            raise type(exc)(exc.errno, exc.strerror, str(path)) from None
        raise
    return path


def _write_atomic(path: Path, payload: bytes, *, overwrite: bool, durable: bool,
                  kind: OutputKind | None) -> None:
    _replaceable(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    mode = 0o644
    target = path  # the file written: a link's target; the caller's name is returned
    if overwrite:
        target = Path(os.path.realpath(path))
        with contextlib.suppress(OSError):
            mode = stat.S_IMODE(os.stat(target).st_mode)
    tmp = _temporary(target, payload, durable, mode)
    with _removed_on_failure(tmp):
        problem = output_problem(path, kind) if kind is not None else None
        if problem is not None:
            raise CannotWrite(str(path), problem)
        if overwrite:
            os.replace(tmp, target)
        else:
            try:
                os.link(tmp, target)  # fails if the name exists: no window to lose a user's file
            except FileExistsError:
                raise FileExistsError(errno.EEXIST, "file exists", str(target)) from None
            os.unlink(tmp)


def editable(path: Path) -> Path:
    """The file an in-place edit of `path` changes: `path`, or the file its link points to (a
    link stays a link). Raises CannotWrite (exit 2) naming `path` when the user cannot, or
    chose not to let anyone, change it.

    A file that nobody may write (`chmod a-w`) is read-only by choice, and refused even to
    root, as editors do. The file is replaced whole, by a new file made beside it, so its
    folder must let the user make one.
    """
    target = Path(os.path.realpath(path))
    shown = str(path) if target == Path(os.path.abspath(path)) else \
        f"{path} (a link to {target})"
    try:
        mode = os.stat(target).st_mode
        folder_mode = os.stat(target.parent).st_mode
    except OSError as exc:
        raise CannotWrite(shown, f"cannot be read: {exc.strerror}; nothing was written"
                          ) from None
    if not stat.S_ISREG(mode):
        raise CannotWrite(shown, "is not a regular file; nothing was written")
    if not mode & 0o222 or not os.access(target, os.W_OK):
        raise CannotWrite(shown, "is read-only; nothing was written (make it writable, "
                          "e.g. chmod u+w, to let it be changed)")
    if not folder_mode & 0o222 or not os.access(target.parent, os.W_OK | os.X_OK):
        raise CannotWrite(shown, f"its folder {target.parent} is read-only (the file is "
                          "replaced whole, by a new file made beside it); nothing was written")
    return target


def replace_text(path: Path, read: str, text: str) -> Path:
    """Change the user's text file `path`, which said `read` (decoded from UTF-8, a leading
    byte-order mark dropped) when the command read it, to say `text`; returns the file changed.

    Nothing the user saved is lost: a link's target is changed and the link kept (`editable`,
    which also refuses a read-only file or folder: CannotWrite, exit 2); the file keeps its
    mode, its owner where allowed, and its byte-order mark; and just before the new file
    takes its place, the file is read again: if it no longer says `read` (saved in an editor
    while the command ran, or removed), ChangedMeanwhile (exit 1) and nothing is written.
    The replace itself is atomic (a crash leaves the old file or the new one).
    """
    if not os.path.exists(path):  # removed (or its link broken) since it was read
        raise ChangedMeanwhile(str(path))
    target = editable(path)
    info = os.stat(target)
    current = _read(target)
    bom = b"\xef\xbb\xbf" if current is not None and current.startswith(b"\xef\xbb\xbf") \
        else b""
    try:
        tmp = _temporary(target, bom + text.encode("utf-8"), True, stat.S_IMODE(info.st_mode))
    except OSError as exc:
        raise CannotWrite(str(path), f"cannot make a file in its folder {target.parent}: "
                          f"{exc.strerror}; nothing was written") from None
    with _removed_on_failure(tmp):
        with contextlib.suppress(OSError):  # only root may give a file away
            os.chown(tmp, info.st_uid, info.st_gid)
            os.chmod(tmp, stat.S_IMODE(info.st_mode))  # chown clears set-id bits
        # The last moment to notice a save made while the command ran.
        if _text(_read(target)) != read:
            raise ChangedMeanwhile(str(path))
        os.replace(tmp, target)
    return target


def _read(path: Path) -> bytes | None:
    try:
        with open_regular(path) as handle:
            return handle.read()
    except OSError:
        return None


def _text(raw: bytes | None) -> str | None:
    if raw is None:
        return None
    try:
        return raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError:
        return None


def open_regular(path: Path) -> BinaryIO:
    """Open `path` for reading only if it is a regular file: a FIFO, a device or a socket would
    block or never end, a folder cannot be read. Raises OSError (its strerror says why).

    Opened without blocking, so that a FIFO with no writer is refused rather than waited on.
    The file object owns its descriptor from the start (built-in open with an opener): a
    Ctrl-C at any moment can leak it at worst, never close it twice (which would close
    whichever file was given that number next).
    """
    try:
        handle = open(path, "rb", opener=_without_blocking)  # noqa: SIM115 (returned open)
    except IsADirectoryError:
        raise IsADirectoryError(errno.EISDIR, "is a folder, expected a file", str(path)
                                ) from None
    try:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            raise OSError(errno.EINVAL, "not a regular file (a pipe, FIFO or device); give a "
                          "file", str(path))
        os.set_blocking(handle.fileno(), True)
        return handle
    except BaseException:
        handle.close()
        raise


def _without_blocking(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NONBLOCK)


# --- Writes confined to a folder (the build's output) ---------------------------------------
#
# A path like OUT/en/png/x.png is opened one folder at a time from OUT's own descriptor, each
# with O_NOFOLLOW: a folder inside OUT swapped for a link (to anywhere) while the build runs is
# refused, never followed, and the file is made and renamed through that folder's descriptor
# (openat and renameat), so nothing outside OUT is written or deleted whatever happens to the
# folders meanwhile.

_FOLDER_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0)


def _relative_parts(root: Path, path: Path) -> tuple[str, ...]:
    parts = Path(os.path.abspath(path)).relative_to(os.path.abspath(root)).parts
    if any(part in ("", ".", "..") for part in parts):
        raise ValueError(f"{path} is not inside {root}")
    return parts


def open_beneath(root: Path, folder: Path, *, create: bool = True) -> int:
    """A descriptor of `folder` (inside `root`), every folder below `root` opened without
    following a link (made when missing, with `create`). The caller closes it. Raises
    OSError naming the first folder that is a link or not a folder."""
    fd = os.open(root, _FOLDER_FLAGS)
    here = Path(root)
    try:
        for part in _relative_parts(root, folder):
            here = here / part
            try:
                inner = os.open(part, _FOLDER_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
            except FileNotFoundError:
                if not create:
                    raise
                with contextlib.suppress(FileExistsError):
                    os.mkdir(part, 0o755, dir_fd=fd)
                inner = os.open(part, _FOLDER_FLAGS | os.O_NOFOLLOW, dir_fd=fd)
            except OSError as exc:
                if exc.errno in (errno.ELOOP, errno.ENOTDIR, errno.EMLINK):
                    raise OSError(errno.ELOOP, "not a folder any more (a link or a file took its "
                                  "place during the build): nothing is written through it",
                                  str(here)) from None
                raise
            os.close(fd)
            fd = inner
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_beneath(root: Path, path: Path, data: bytes | str, *, durable: bool = True) -> Path:
    """write_atomic for a file inside `root` (the build's output), through open_beneath: the
    temporary file is made and renamed in the folder's descriptor, a link at `path` itself is
    replaced (never followed)."""
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd = open_beneath(root, Path(path).parent)
    try:
        name = Path(path).name
        for _ in range(100):
            tmp = f"{temp_prefix(name)}{os.urandom(4).hex()}.tmp"
            try:
                out = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW
                              | getattr(os, "O_CLOEXEC", 0), 0o644, dir_fd=fd)
                break
            except FileExistsError:
                continue
        else:
            raise FileExistsError(errno.EEXIST, "no free temporary name", str(path))
        with _removed_on_failure(tmp, fd):
            with os.fdopen(out, "wb") as handle:
                _fill(handle, payload, durable)
            os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
    finally:
        os.close(fd)
    return Path(path)


def same_beneath(root: Path, path: Path, data: bytes) -> bool:
    """Whether `path` inside `root` is a regular file holding `data`, read through
    open_beneath (its folders are checked even when nothing needs writing)."""
    fd = open_beneath(root, Path(path).parent)
    try:
        try:
            handle = os.open(Path(path).name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
                             | getattr(os, "O_CLOEXEC", 0), dir_fd=fd)
        except OSError:
            return False
        with os.fdopen(handle, "rb") as file:
            found = os.fstat(file.fileno())
            return stat.S_ISREG(found.st_mode) and found.st_size == len(data) and \
                file.read() == data
    finally:
        os.close(fd)


def names_beneath(root: Path, folder: Path) -> list[tuple[str, bool]]:
    """(name, whether it is a regular file) of each entry of `folder` inside `root`, read
    through open_beneath (links not followed); [] when the folder is missing."""
    try:
        fd = open_beneath(root, folder, create=False)
    except FileNotFoundError:
        return []
    try:
        with os.scandir(fd) as entries:
            return [(e.name, e.is_file(follow_symlinks=False)) for e in entries]
    finally:
        os.close(fd)


def unlink_beneath(root: Path, folder: Path, names: list[str]) -> list[str]:
    """Delete `names` (files or links: a link itself, never what it points to) from `folder`
    inside `root`; a missing name or a folder is left alone. The names deleted."""
    fd = open_beneath(root, folder, create=False)
    deleted = []
    try:
        for name in names:
            with contextlib.suppress(FileNotFoundError, IsADirectoryError, PermissionError):
                os.unlink(name, dir_fd=fd)
                deleted.append(name)
    finally:
        os.close(fd)
    return deleted


def read_regular(path: Path) -> bytes:
    """The bytes of `path` if it is a regular file (a FIFO left in a cache would block a plain
    read for ever); raises OSError otherwise."""
    with open_regular(path) as handle:
        return handle.read()
