"""The one table of exit codes (README "Exit codes"), by the type of what stopped a command:
the layers raise errors that say what went wrong, and only the command line turns them into
numbers. Imported by `__main__` before anything else of the program, so it imports little."""

from __future__ import annotations

from synergy_forge.authoring.diagnostics import HasErrors
from synergy_forge.errors import (
    CannotRun,
    CannotWrite,
    CheckFailed,
    SynergyForgeError,
    UnreadableInput,
    WrongInput,
)

EXIT_OK = 0
#: The input can be read but is wrong, or a check the user asked for failed.
EXIT_FAILED = 1
#: The input cannot be read or used as given, or the command line is wrong (click's own).
EXIT_BAD_INPUT = 2
#: A bug of synergy-forge: one line, no traceback.
EXIT_BUG = 3
#: Interrupted (Ctrl-C), and output cut short by a closed pipe: the shells' own codes.
EXIT_INTERRUPTED, EXIT_BROKEN_PIPE = 130, 141

#: (type, exit code), the first row the error is an instance of wins: a campaign or mission
#: with `validate`'s errors is 1 from every command, though it could not be used (2); a log
#: line that cannot be read is 2, though it is a replay error (1).
EXIT_CODES: tuple[tuple[type[BaseException], int], ...] = (
    (HasErrors, EXIT_FAILED),
    (UnreadableInput, EXIT_BAD_INPUT),
    (CannotRun, EXIT_BAD_INPUT),
    (CannotWrite, EXIT_BAD_INPUT),
    (WrongInput, EXIT_FAILED),
    (CheckFailed, EXIT_FAILED),
    (SynergyForgeError, EXIT_FAILED),
    (KeyboardInterrupt, EXIT_INTERRUPTED),
    (BrokenPipeError, EXIT_BROKEN_PIPE),
    # What the file system or a stream refused (a full disk behind stdout, a name too long)
    # is about the user's files.
    (OSError, EXIT_BAD_INPUT),
    (BaseException, EXIT_BUG),
)


def exit_code(error: BaseException) -> int:
    """The code a command that stopped with `error` ends with."""
    return next(code for kind, code in EXIT_CODES if isinstance(error, kind))
