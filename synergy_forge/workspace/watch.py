"""The one file watcher: a campaign folder's saves, for `build --watch` and the studio."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Collection
from pathlib import Path

#: The files whose saves count: the campaign's own.
CAMPAIGN_FILES = (".yaml", ".yml", ".json")
#: How often the watcher looks whether its folder is still the one it watches (seconds).
RECHECK = 0.5


def _identity(folder: Path) -> tuple[int, int] | None:
    """The folder's (device, inode), or None when it is not there: a folder deleted and made
    again is another folder, which must be watched anew."""
    try:
        found = os.stat(folder)
    except OSError:
        return None
    return found.st_dev, found.st_ino


def watch(folder: Path, on_change: Callable[[], object], stopping: threading.Event, *,
          files: tuple[str, ...] = CAMPAIGN_FILES, ignore: Collection[Path] = (),
          after: Callable[[], None] | None = None, debounce: int = 50) -> None:
    """Call `on_change` once the folder is watched, then after every save of a file ending
    in `files` (outside the folders `ignore`), until `stopping` is set; `after` once each
    call has returned, when saves are watched for again. In the main thread, Ctrl-C is
    raised as KeyboardInterrupt.

    The folder itself may go (deleted, renamed, replaced by a checkout): `on_change` is
    called then too (to say why the campaign cannot be read), and again once a folder is back
    there, which is watched anew."""
    import watchfiles

    logging.getLogger("watchfiles").setLevel(logging.ERROR)
    root = os.path.abspath(folder)
    left_out = [path.resolve() for path in ignore]

    def wanted(change: watchfiles.Change, path: str) -> bool:
        if os.path.abspath(path) == root:
            return True
        return path.endswith(files) and not any(Path(path).resolve().is_relative_to(out)
                                                for out in left_out)

    def changed() -> None:
        on_change()
        if after is not None:
            after()

    read: tuple[int, int] | None = (-1, -1)  # nothing read yet
    while not stopping.is_set():
        armed = _identity(folder)
        if armed is None:  # gone: say why the campaign cannot be read, wait for it
            if read is not None:
                read = None
                changed()
            stopping.wait(RECHECK)
            continue
        try:
            # Watched first, then read: a save between the two is in the first changes.
            for saved in watchfiles.watch(
                    folder, watch_filter=wanted, debounce=debounce, step=20,
                    stop_event=stopping, yield_on_timeout=True,
                    rust_timeout=int(RECHECK * 1000), raise_interrupt=True):
                if any(os.path.abspath(path) == root for _, path in saved):
                    read = (-1, -1)  # the folder itself went or came: read it again, even
                    break  # if a new one has the old one's inode, and watch it anew
                if _identity(folder) != armed:
                    break  # deleted or replaced: watch the folder there now
                if saved or read != armed:
                    read = armed
                    changed()
        except (OSError, RuntimeError):  # the folder went while the watch was set up
            stopping.wait(RECHECK)
