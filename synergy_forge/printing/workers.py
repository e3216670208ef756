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


def prepare_workers() -> Any:
    """Start the fork server (in the background: this returns at once) and return the
    multiprocessing context that starts workers from it, to hand to `build` (None where there
    is no fork server: workers then fork from the build's process). For the command line
    only: a fork server, like `spawn`, imports the main module again in every worker, which a
    script calling `build` without an `if __name__ == "__main__"` guard does not survive.

    The server gets /dev/null for its output: when nothing needs drawing, it finishes its
    import after the command has exited, and a pipe reading the command's output (a CI log,
    `| tee`) must not wait for it. Workers report through their results, never by printing."""
    import multiprocessing

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return None
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
    return context
