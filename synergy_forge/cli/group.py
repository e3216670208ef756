"""The `synergy-forge` group: finds the commands and turns every error into its exit code
(the table of `exits`).

A command is one module of `synergy_forge.cli.commands` whose `command` is a click command
named after the module; adding a command is adding such a module (it is imported only when
it runs, or for `--help`).
"""

from __future__ import annotations

import contextlib
import errno
import importlib
import os
import pkgutil
import sys
from typing import Any, NoReturn

import click

from synergy_forge import __version__
from synergy_forge.cli import commands
from synergy_forge.cli.exits import EXIT_INTERRUPTED, exit_code
from synergy_forge.errors import SynergyForgeError


class Main(click.Group):
    """The one place where errors end the program: a SynergyForgeError prints its message on
    stderr; anything else is our own mistake, reported in one line with a way to report it
    rather than a traceback. The code is the error's in exits.EXIT_CODES."""

    def list_commands(self, ctx: click.Context) -> list[str]:
        found = {m.name for m in pkgutil.iter_modules(commands.__path__)
                 if not m.name.startswith("_")}
        return sorted(found | set(self.commands))

    def get_command(self, ctx: click.Context, cmd_name: str) -> click.Command | None:
        if cmd_name in self.commands:
            return self.commands[cmd_name]
        if cmd_name not in self.list_commands(ctx):
            return None
        module = importlib.import_module(f"{commands.__name__}.{cmd_name}")
        command: click.Command = module.command
        return command

    def main(self, *args: Any, **kwargs: Any) -> Any:
        try:
            return super().main(*args, **kwargs)
        except OSError as exc:  # --help or --version into a full disk: before any command
            _os_error_exit(exc)

    def invoke(self, ctx: click.Context) -> object:
        try:
            result = super().invoke(ctx)
            # Output still buffered fails here, with an exit code, not at the interpreter's exit.
            sys.stdout.flush()
            return result
        except (click.ClickException, click.exceptions.Exit, click.Abort, SystemExit):
            raise
        except SynergyForgeError as exc:
            message = exc.format_message()
            if message:
                click.echo(message, err=True)
            sys.exit(exit_code(exc))
        except KeyboardInterrupt as exc:
            click.echo("interrupted", err=True)
            sys.exit(exit_code(exc))
        except BrokenPipeError as exc:  # output piped into `head` and the like: stop quietly
            _drop_stdout()
            sys.exit(exit_code(exc))
        except OSError as exc:  # the user's files or streams, not a bug: one line
            _os_error_exit(exc)
        except Exception as exc:
            if os.environ.get("SYNERGY_FORGE_DEBUG"):
                raise
            click.echo(f"synergy-forge: internal error: {type(exc).__name__}: {exc}\n"
                       "This is a bug in synergy-forge; run again with SYNERGY_FORGE_DEBUG=1 "
                       "for the details and report them.", err=True)
            sys.exit(exit_code(exc))


def os_error_text(exc: OSError) -> str:
    """`exc` in one line: the file it names (cut short when very long), and why."""
    reason = exc.strerror or str(exc)
    if exc.filename is None:
        return f"cannot write the output: {reason}" if exc.errno in _WRITE_ERRNOS else reason
    name = os.fsdecode(exc.filename) if isinstance(exc.filename, bytes) else str(exc.filename)
    if len(name) > 120:
        name = name[:60] + "…" + name[-59:]
    return f"{name}: {reason}"


_WRITE_ERRNOS = {errno.ENOSPC, errno.EIO, errno.EFBIG, errno.EDQUOT, errno.EPIPE,
                 errno.EBADF, errno.EROFS}


def _os_error_exit(exc: OSError) -> NoReturn:
    with contextlib.suppress(OSError):
        click.echo(f"synergy-forge: error: {os_error_text(exc)}", err=True)
    _drop_stdout()
    sys.exit(exit_code(exc))


def _drop_stdout() -> None:
    """Point stdout at /dev/null, so that what is still buffered for it is not written again
    (and fails again) when the interpreter exits."""
    # no real stdout (tests' runners): nothing to point elsewhere
    with contextlib.suppress(OSError, ValueError, AttributeError):
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())


@click.group(cls=Main, context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="synergy-forge")
def main() -> None:
    """Design, referee, playtest and print missions for the card game Synergy."""


def run() -> None:
    """The `synergy-forge` program (its console script, and `python -m synergy_forge`): `main`,
    ended at once after Ctrl-C.

    By then the command has stopped its work on the way out (its pool's workers ended, its
    cluster's units cancelled, its temporary files removed); nothing at exit is waited for
    (the pool's own threads). It also makes the exit status 130 every time: Python 3.11 ends a
    process with SIGINT instead when the interrupt had passed through code that a library ran
    with exec() (a dataclass being made while a module is imported), even though it was
    caught and reported here.
    """
    try:
        main()
    except SystemExit as exc:
        if exc.code != EXIT_INTERRUPTED:
            raise
        for stream in (sys.stdout, sys.stderr):
            with contextlib.suppress(Exception):
                stream.flush()
        os._exit(EXIT_INTERRUPTED)
