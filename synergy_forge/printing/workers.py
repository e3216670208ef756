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


class WarmWorkers:
    """A build's workers kept from one build to the next (`build --watch`): the processes, each
    with WeasyPrint's fonts loaded and the kit's stylesheet parsed, and this process's own
    render context, so that a rebuild after a save pays only for the pieces that changed. Use
    it as a context manager: on leaving, the workers end and the fonts' folder is removed."""

    def __init__(self, context: Any, jobs: int | None) -> None:
        """`context`: what `prepare_workers` returned (None: workers fork from this process);
        `jobs`: processes at most (None: every core; 1: the pieces are drawn in this one)."""
        import multiprocessing
        import tempfile

        from synergy_forge.pool import Pool, workers_for
        from synergy_forge.printing.draw import RenderContext
        from synergy_forge.printing.piece import render_piece

        self._fonts = tempfile.mkdtemp(prefix="synergy-forge-build-")
        self.render = RenderContext(self._fonts)
        workers = workers_for(jobs, os.cpu_count() or 1)
        if workers > 1 and context is None:
            # Not forked from a build: they would hold its open files after it, the lock on
            # --out among them, and the next build would find --out locked.
            context = multiprocessing.get_context("spawn")
        self._pool = Pool(render_piece, self.render, workers, context if workers > 1 else None)

    def run(self, units: Any) -> Any:
        """`render_piece(render, *unit)` for every unit, as pool.Pool.run yields them."""
        return self._pool.run(units)

    def __enter__(self) -> WarmWorkers:
        return self

    def __exit__(self, *exc: object) -> None:
        import shutil

        try:
            self._pool.__exit__(*exc)
        finally:
            self.render.release()
            shutil.rmtree(self._fonts, ignore_errors=True)
