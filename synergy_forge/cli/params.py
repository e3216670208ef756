"""Click parameter types: one parser per kind of value, each failing with click's own message,
which names the option (`Invalid value for '--bots': …`) and exits 2."""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TypeVar

import click
from click.core import ParameterSource

from synergy_forge.cardtext.geometry import CardSize
from synergy_forge.core.cards import MAX_PLAYERS, MIN_PLAYERS
from synergy_forge.core.engine import MAX_SEED, MIN_SEED
from synergy_forge.fileio import OutputKind, output_problem

Command = TypeVar("Command", bound=Callable[..., Any])

#: A game's seed, in the range a game log holds (one number policy: core.engine).
SEED = click.IntRange(MIN_SEED, MAX_SEED)


class Bots(click.ParamType):
    """Bot names, comma-separated: `coop`, `coop,oracle`. `play` takes one bot for every seat
    or one per seat (checked against the player count by `for_seats`); `playtest` a list."""

    name = "bots"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> tuple[str, ...]:
        if isinstance(value, tuple):
            return value
        from synergy_forge.sim.bots import BOTS

        names = tuple(b.strip() for b in str(value).split(",") if b.strip())
        unknown = [b for b in names if b not in BOTS]
        if unknown or not names:
            self.fail(f"unknown bot(s) {', '.join(unknown) or 'none given'}; expected "
                      f"{', '.join(BOTS)}", param, ctx)
        return names


def for_seats(bots: tuple[str, ...], player_count: int) -> tuple[str, ...]:
    """One bot per seat: a single bot plays every seat; otherwise there must be one each."""
    if len(bots) == 1:
        return bots * player_count
    if len(bots) != player_count:
        raise click.BadParameter(f"give one bot or {player_count}, one per seat; got "
                                 f"{len(bots)}", param_hint="'--bots'")
    return bots


class PlayerCounts(click.ParamType):
    """Player counts: `3`, `4`, `5`, a comma list such as `3,5`, or `all` (None: every count
    the mission allows)."""

    name = "players"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> tuple[int, ...] | None:
        if value is None or isinstance(value, tuple):
            return value
        text = str(value).strip().lower()
        if text == "all":
            return None
        counts: list[int] = []
        for part in text.split(","):
            part = part.strip()
            if not part.isdigit() or not MIN_PLAYERS <= int(part) <= MAX_PLAYERS:
                self.fail(f"expected player counts from {MIN_PLAYERS} to {MAX_PLAYERS} (e.g. 4 "
                          f"or 3,4,5) or all; got {value!r}", param, ctx)
            if int(part) not in counts:
                counts.append(int(part))
        return tuple(sorted(counts))


class CardSizeType(click.ParamType):
    """A card size in millimetres: WIDTHxHEIGHT, e.g. 63x88."""

    name = "WIDTHxHEIGHT"

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> CardSize:
        if isinstance(value, CardSize):
            return value
        try:
            width, height = (float(x) for x in str(value).lower().split("x"))
        except ValueError:
            self.fail(f"expected WIDTHxHEIGHT in mm, e.g. 63x88; got {value!r}", param, ctx)
        if not (30 <= width <= 100 and 30 <= height <= 120):
            self.fail("cards must be 30 to 100 mm wide and 30 to 120 mm high", param, ctx)
        return CardSize(width, height)


class OutputFile(click.Path):
    """A file an option writes (`--log`, `--html`), by the one output policy (fileio.OutputKind):
    refused here, before any work, when something other than an earlier output of `kind` is
    at that name; the write checks again at its last moment."""

    def __init__(self, kind: OutputKind) -> None:
        super().__init__(dir_okay=False, path_type=Path)
        self.kind = kind

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Path:
        path = Path(os.fsdecode(super().convert(value, param, ctx)))
        problem = output_problem(path, self.kind)
        if problem is not None:
            self.fail(f"{path}: {problem}", param, ctx)
        return path


BOTS = Bots()
PLAYER_COUNTS = PlayerCounts()
CARD_SIZE = CardSizeType()


#: The name of `--json`'s value, which only `--format` reads (`fmt` is the command's).
JSON_FLAG = "json_flag"


class _Format(click.Option):
    """`--format`, which `--json` sets to json. Both given with different formats ask for two
    outputs where there is one: a usage error, rather than one silently dropped."""

    def consume_value(self, ctx: click.Context,
                      opts: Mapping[str, Any]) -> tuple[Any, ParameterSource]:
        value, source = super().consume_value(ctx, opts)
        if not opts.get(JSON_FLAG):
            return value, source
        if source == ParameterSource.COMMANDLINE and value != "json":
            raise click.UsageError(f"--json is --format json: it cannot go with --format "
                                   f"{value}; give one of them", ctx)
        return "json", ParameterSource.COMMANDLINE


def report_format(kind: str, help: str) -> Callable[[Command], Command]:
    """`--format` (the reporters of `kind` in reporting.formats) and `--json`, the same as
    `--format json` (with another --format, a usage error): every command that reports
    through the registry takes both, so that `--json` means the same everywhere (README)."""
    from synergy_forge.reporting.formats import formats

    def decorate(command: Command) -> Command:
        command = click.option("--json", JSON_FLAG, is_flag=True, expose_value=False,
                               help="The same as --format json.")(command)
        return click.option("--format", "fmt", cls=_Format, type=click.Choice(formats(kind)),
                            default="text", show_default=True, help=help)(command)

    return decorate
