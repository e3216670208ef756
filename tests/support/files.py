"""Writing a few files into a folder and validating them from there, as a designer would; a
starter campaign with one mission card whose rules cannot fit; a command run in this process,
from a folder or with a hang failing the test."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from click.testing import CliRunner, Result

from synergy_forge.cli import main
from synergy_forge.resources import starter_campaign
from synergy_forge.workspace.validate import Report, validate_paths


def validate_files(folder: Path, files: dict[str, str], targets: list[Path]) -> Report:
    """Write `files` (relative name -> text) under `folder`, then validate `targets` with
    `folder` as the current folder, so that diagnostics name the files as written."""
    folder.mkdir(exist_ok=True)
    for name, text in files.items():
        path = folder / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        return validate_paths(targets)
    finally:
        os.chdir(cwd)


def crowded_rules_campaign(folder: Path) -> Path:
    """A copy of the starter campaign at `folder` whose mission 8 has four challenges, one of
    them with a very long English text: its card's rules block cannot fit at 8 pt (in
    English only), reported at missions/08-heavy-lifting.yaml line 9, its `challenges`."""
    shutil.copytree(starter_campaign(), folder)
    challenge = folder / "challenges" / "odd-sum.yaml"
    long = "Your sum must be odd. " + "An odd sum is one odd card and one even card. " * 14
    challenge.write_text(challenge.read_text().replace('en: "Your sum must be odd."',
                                                       f'en: "{long.strip()}"'))
    mission = folder / "missions" / "08-heavy-lifting.yaml"
    mission.write_text(mission.read_text().replace(
        "challenges: [minimum-5]", "challenges: [minimum-5, odd-sum, threes-are-zero, no-doubles]"))
    return folder


class Hang(BaseException):
    """A command still running at its deadline. Not an Exception: the command line turns
    those into exit codes (an OSError is exit 2), and a hang must fail the test, not pass
    as one."""

@contextlib.contextmanager
def deadline(seconds: float) -> Iterator[None]:
    """Raise Hang in the main thread after `seconds`: SIGALRM interrupts even a system call
    that would wait for ever (opening a FIFO nobody writes to), and its handler raises."""

    def expired(signum: int, frame: Any) -> None:
        raise Hang(f"still running after {seconds} s")

    previous = signal.signal(signal.SIGALRM, expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def invoke_within(*args: Any, seconds: float = 60) -> Result:
    """The command run in this process (an interpreter's start and its imports less than a
    process of its own), its exit code and outputs the program's; a hang fails the test
    (Hang) as a subprocess's timeout did, and so does an exception the command let out (a
    program would have printed a traceback)."""
    with deadline(seconds):
        result = CliRunner().invoke(main, [str(a) for a in args])
    assert result.exception is None or isinstance(result.exception, SystemExit), \
        result.exception
    return result


def run(*args: str, cwd: Path) -> subprocess.CompletedProcess:
    """The command run in this process from `cwd` (an interpreter's start less each time),
    with its exit code and outputs as the program's; an exception the command let out fails
    the test (a program would have printed a traceback)."""
    with contextlib.chdir(cwd):
        result = CliRunner().invoke(main, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(args, result.exit_code, result.stdout, result.stderr)
