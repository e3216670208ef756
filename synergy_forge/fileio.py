"""Writing files safely: atomically, and never over something the user wrote unless asked."""

from __future__ import annotations

import contextlib
import errno
import os
import stat
import tempfile
from pathlib import Path
from typing import BinaryIO


def write_atomic(path: Path, data: bytes | str, *, overwrite: bool = True,
                 durable: bool = True) -> Path:
    """Write `data` to `path` through a temporary file in the same folder, then rename.

    An interrupted write leaves the old file (or none), never half of the new one. With
    `overwrite=False` an existing file raises FileExistsError and is left untouched.
    `durable=False` skips the fsync before the rename (each costs a journal commit), for files
    that can be made again and are checked before use (the build's cache): a crash may leave
    such a file empty, never half of it in place of the old one.
    """
    path = Path(path)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    try:
        _write_atomic(path, payload, overwrite=overwrite, durable=durable)
    except OSError as exc:
        if exc.filename is not None and str(exc.filename) != str(path) \
                and not isinstance(exc, FileExistsError) and exc.errno is not None:
            # The hidden temporary file is ours, not the user's: name the file they asked for.
            raise type(exc)(exc.errno, exc.strerror, str(path)) from None
        raise
    return path


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


def _write_atomic(path: Path, payload: bytes, *, overwrite: bool, durable: bool) -> None:
    try:
        mode = os.stat(path).st_mode
    except (FileNotFoundError, NotADirectoryError):
        pass
    else:
        # A rename over /dev/full or /dev/stdout (a link to a pipe) would replace the device or
        # the link itself, and a FIFO would lose its reader: only regular files are replaced.
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder, expected a file name", str(path))
        if not stat.S_ISREG(mode) or _stream_link(path):
            raise OSError(errno.EINVAL, "not a regular file (a device, FIFO, socket or "
                          "stream); give a file name", str(path))
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=temp_prefix(path.name), suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
            if durable:
                os.fsync(handle.fileno())
        os.chmod(tmp, 0o644)
        if overwrite:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)  # fails if the name exists: no window to lose a user's file
            except FileExistsError:
                raise FileExistsError(errno.EEXIST, "file exists", str(path)) from None
            os.unlink(tmp)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


def open_regular(path: Path) -> BinaryIO:
    """Open `path` for reading only if it is a regular file: a FIFO, a device or a socket would
    block or never end, a folder cannot be read. Raises OSError (its strerror says why).

    Opened without blocking, so that a FIFO with no writer is refused rather than waited on.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    try:
        mode = os.fstat(fd).st_mode
        if stat.S_ISDIR(mode):
            raise IsADirectoryError(errno.EISDIR, "is a folder, expected a file", str(path))
        if not stat.S_ISREG(mode):
            raise OSError(errno.EINVAL, "not a regular file (a pipe, FIFO or device); give a "
                          "file", str(path))
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise
