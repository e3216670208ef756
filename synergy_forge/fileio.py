"""Writing files safely: atomically, and never over something the user wrote unless asked."""

from __future__ import annotations

import contextlib
import errno
import os
import tempfile
from pathlib import Path


def write_atomic(path: Path, data: bytes | str, *, overwrite: bool = True) -> Path:
    """Write `data` to `path` through a temporary file in the same folder, then rename.

    An interrupted write leaves the old file (or none), never half of the new one. With
    `overwrite=False` an existing file raises FileExistsError and is left untouched.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    payload = data.encode("utf-8") if isinstance(data, str) else data
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(payload)
            handle.flush()
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
    return path
