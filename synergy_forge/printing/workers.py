"""Where a build's worker processes come from: a fork server started early by the command.

Importing WeasyPrint takes 0.4 s (cffi parses its C declarations each time). `prepare_workers`
starts a fork server that imports it while the command still imports its own modules, reads
the campaign and writes the HTML; the workers that draw pieces then fork from it, ready, and a
rebuild after a small edit does not wait for the import. This module imports nothing heavy,
so that the command can start the server first.
"""

from __future__ import annotations

import os
import sys
from typing import Any

_FORK_SERVER: Any = None  # the context of the fork server prepare_workers started


def worker_context() -> Any:
    """The multiprocessing context of the fork server `prepare_workers` started, or None
    (then workers fork from this process)."""
    return _FORK_SERVER


def prepare_workers() -> None:
    """Start the fork server (in the background: this returns at once). For the command line
    only: a fork server, like `spawn`, imports the main module again in every worker, which a
    script calling `build` without an `if __name__ == "__main__"` guard does not survive.

    The server gets /dev/null for its output: when nothing needs drawing, it finishes its
    import after the command has exited, and a pipe reading the command's output (a CI log,
    `| tee`) must not wait for it. Workers report through their results, never by printing."""
    global _FORK_SERVER
    import multiprocessing

    if _FORK_SERVER is not None or "forkserver" not in multiprocessing.get_all_start_methods():
        return
    from multiprocessing import forkserver

    context = multiprocessing.get_context("forkserver")
    context.set_forkserver_preload(["weasyprint", "synergy_forge.printing.build"])
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        saved = [os.dup(1), os.dup(2)]
    except OSError:  # no output to protect (closed): start the server as it is
        forkserver.ensure_running()
    else:
        null = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(null, 1)
            os.dup2(null, 2)
            forkserver.ensure_running()
        finally:
            os.dup2(saved[0], 1)
            os.dup2(saved[1], 2)
            for fd in (*saved, null):
                os.close(fd)
    _FORK_SERVER = context
