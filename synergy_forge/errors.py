"""Every error synergy-forge reports to a user, in one hierarchy (click's style), each type
saying what went wrong, never how the program ends: the command line maps the types to exit
codes in one table (`synergy_forge.cli.exits`).

- `UnreadableInput`: the input cannot be read or used as given (a file a command needs that
  cannot be read; `validate`, and any command reading a whole campaign, report such a file as
  one of the located errors instead);
- `WrongInput`: the input is well-formed but wrong: a rule fails on a table, a log disagrees
  with the engine;
- `CheckFailed`: a check the user asked for failed;
- `CannotRun`, `CannotWrite`: the work or an output cannot be made where asked.

The errors of the layers (authoring's InvalidInput, core's RuleError, IllegalRound,
IllegalChoice, authoring's ReplayError) derive from these; this module imports no layer.
"""

from __future__ import annotations


class SynergyForgeError(Exception):
    """Base of every error a user may see."""

    def format_message(self) -> str:
        """What the command line prints on stderr: located errors print their own
        FILE:LINE:COLUMN lines, the others are prefixed with the program's name."""
        return f"synergy-forge: error: {self}"


class UnreadableInput(SynergyForgeError):
    """A file or value that cannot be read or used as given."""


class CannotRun(SynergyForgeError):
    """The work cannot be run here as asked, whatever the input: an address that cannot be
    listened on, a cluster that cannot be reached, worker processes that keep dying (as for
    input that cannot be used as given: the command line asked for what cannot be)."""


class NoCampaign(UnreadableInput):
    """A folder that a command needs to be a campaign holds no campaign.yaml; the message
    starts with the file it looked for."""

    def format_message(self) -> str:
        return str(self)


class WrongInput(SynergyForgeError):
    """Input that can be read but says something the rules or the data refuse."""


class CheckFailed(SynergyForgeError):
    """A check the user asked for failed; the command has already printed why, so the message
    may be empty."""

    def __init__(self, message: str = "") -> None:
        super().__init__(message)

    def format_message(self) -> str:
        return str(self)


class CannotWrite(SynergyForgeError):
    """An output that cannot be written where the user asked; nothing the user wrote was
    overwritten."""

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
    it: nothing was written, so that save is kept."""

    def __init__(self, path: str) -> None:
        super().__init__(f"{path}: changed since it was read (saved meanwhile?); nothing was "
                         "written, so your version stays: run the command again")
        self.path = path

    def format_message(self) -> str:
        return str(self)
