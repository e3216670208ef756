"""`python -m synergy_forge` and the `synergy-forge` console script.

Kept tiny, with the command line imported inside `run`: a Ctrl-C while the program is still
starting (importing click and the package takes a good tenth of a second) is then handled
like any other, not shown as a traceback of the import. Only the exit codes come first.
"""

import _thread
import gc
import os
import sys

from synergy_forge.cli.exits import EXIT_INTERRUPTED


def collect_less() -> None:
    """Look for garbage cycles every 50,000 new objects, not 700: a kit's millions of
    short-lived WeasyPrint objects made the searches a cost of their own (docs/performance.md).
    Called on import, so workers that import this module (spawn, the fork server) and the
    test suite (tests/conftest.py) run as the command does."""
    gc.set_threshold(50_000, 20, 20)


collect_less()

_print_unraisable = sys.unraisablehook


def _interrupt_again(unraisable: "sys.UnraisableHookArgs") -> None:
    """sys.unraisablehook. A Ctrl-C whose KeyboardInterrupt is raised in code whose errors
    Python can only print and drop (a callback run after a fork, such as logging's lock
    release when the pool forks its workers; a weakref callback of the import system; a
    __del__) was lost: a traceback, then the command ran on to its end as if no Ctrl-C had
    come. It is raised again in the main thread instead, as soon as the code that dropped it
    has returned: from another thread, since the main thread would take an interrupt made
    here at once, inside this hook, which drops it too. (Should it land in such code again,
    it comes back here, and again.)"""
    if issubclass(unraisable.exc_type, KeyboardInterrupt):
        import contextlib  # loaded already (runpy uses it): nothing imported before run()

        # No new thread while the interpreter exits: it is ending anyway.
        with contextlib.suppress(RuntimeError):
            _thread.start_new_thread(_thread.interrupt_main, ())
    else:
        _print_unraisable(unraisable)


def run() -> None:
    sys.unraisablehook = _interrupt_again
    try:
        from synergy_forge.cli.group import run as program
    except KeyboardInterrupt:  # nothing started yet: nothing to stop
        sys.stderr.write("interrupted\n")
        sys.stderr.flush()
        os._exit(EXIT_INTERRUPTED)
    try:
        program()
    finally:
        # The command is done; what is left on the heap is thrown away at exit, so it is not
        # searched for garbage cycles again while the interpreter shuts down.
        gc.freeze()


# Guarded: worker processes started with "spawn" (the studio's) import this module again.
if __name__ == "__main__":
    run()
