"""`python -m synergy_forge` and the `synergy-forge` console script.

Kept tiny, with the command line imported inside `run`: a Ctrl-C while the program is still
starting (importing click and the package takes a good tenth of a second) is then handled
like any other, not shown as a traceback of the import.
"""

import os
import sys


def run() -> None:
    try:
        from synergy_forge.cli.main import run as program
    except KeyboardInterrupt:  # nothing started yet: nothing to stop
        sys.stderr.write("interrupted\n")
        sys.stderr.flush()
        os._exit(130)  # cli.main.EXIT_INTERRUPTED
    program()


# Guarded: worker processes started with "spawn" (the studio's) import this module again.
if __name__ == "__main__":
    run()
