"""Every error synergy-forge reports to a user, in one hierarchy (click's style).

Each error carries the exit code the command line ends with, so that no command chooses one
by hand (the CLI maps them in one place, `synergy_forge.cli.main`):

- 1: the input is well-formed but wrong: a rule fails on a table, a log disagrees with the
  engine, a check fails (`validate` errors, `playtest --check`, a text that does not fit);
- 2: the input cannot be read or used as given, or the command line is wrong (click's own
  usage errors also exit 2). A file that cannot be read is exit 2 where the command needs
  that file; `validate`, and any command reading a whole campaign, report it as one of the
  located errors (exit 1).

The errors of the layers (authoring's InvalidInput, core's RuleError, IllegalRound,
IllegalChoice, authoring's ReplayError) derive from these; this module imports no layer.
"""

from __future__ import annotations

#: Exit codes shared by every command (README "Exit codes").
EXIT_OK, EXIT_FAILED, EXIT_BAD_INPUT = 0, 1, 2


class SynergyForgeError(Exception):
    """Base of every error a user may see; `exit_code` is what the command line exits with."""

    exit_code: int = EXIT_FAILED

    def format_message(self) -> str:
        """What the command line prints on stderr: located errors print their own
        FILE:LINE:COLUMN lines, the others are prefixed with the program's name."""
        return f"synergy-forge: error: {self}"


class UnreadableInput(SynergyForgeError):
    """A file or value that cannot be read or used as given (exit 2)."""

    exit_code = EXIT_BAD_INPUT


class CannotRun(SynergyForgeError):
    """The work cannot be run here as asked, whatever the input: an address that cannot be
    listened on, a cluster that cannot be reached, worker processes that keep dying (exit 2,
    as for input that cannot be used as given: the command line asked for what cannot be)."""

    exit_code = EXIT_BAD_INPUT


class NoCampaign(UnreadableInput):
    """A folder that a command needs to be a campaign holds no campaign.yaml (exit 2); the
    message starts with the file it looked for."""

    def format_message(self) -> str:
        return str(self)


class WrongInput(SynergyForgeError):
    """Input that can be read but says something the rules or the data refuse (exit 1)."""

    exit_code = EXIT_FAILED


class CheckFailed(SynergyForgeError):
    """A check the user asked for failed; the command has already printed why, so the message
    may be empty (exit 1, or the code of the worst error it printed)."""

    exit_code = EXIT_FAILED

    def __init__(self, message: str = "", exit_code: int = EXIT_FAILED) -> None:
        super().__init__(message)
        self.exit_code = exit_code

    def format_message(self) -> str:
        return str(self)


class CannotWrite(SynergyForgeError):
    """An output that cannot be written where the user asked (exit 2); nothing the user wrote
    was overwritten."""

    exit_code = EXIT_BAD_INPUT

    def __init__(self, path: str, reason: str) -> None:
        super().__init__(f"{path}: {reason}")
        self.path, self.reason = path, reason

    def format_message(self) -> str:
        return str(self)

    @classmethod
    def from_os_error(cls, exc: OSError, path: object = "", hint: str = "") -> CannotWrite:
        """`exc` raised while writing to `path` (or the file the error names); `hint` says
        what to do when the file exists."""
        where = str(exc.filename or path)
        if isinstance(exc, FileExistsError):
            return cls(where, "already exists; nothing was written" + hint)
        return cls(where, f"cannot write: {exc.strerror or exc}")


class ChangedMeanwhile(WrongInput):
    """A file the command changes in place was saved by someone else after the command read
    it (exit 1): nothing was written, so that save is kept."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path}: changed since it was read (saved meanwhile?); nothing was "
                         "written, so your version stays: run the command again")
        self.path = path

    def format_message(self) -> str:
        return str(self)
