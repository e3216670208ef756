"""A print run: every document of a campaign read without errors, written, as one call
(workspace.build checks the campaign first and reports what it already found)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from synergy_forge.core.mission import Campaign
from synergy_forge.errors import CannotWrite
from synergy_forge.printing.build import build
from synergy_forge.printing.jobs import Options, Rendered, jobs_for


@dataclass(frozen=True)
class PrintRun:
    """What a build wrote, each document with the texts that do not fit on their card."""

    results: list[Rendered]
    #: the files an earlier build wrote that this one no longer makes, removed
    removed: list[Path] = field(default_factory=list)
    #: the pieces (eight card faces, a sheet's frames, a document) drawn, of how many: the
    #: others were whole in the cache
    drew: int = 0
    pieces: int = 0

    @property
    def dated_fonts(self) -> bool:
        """Whether some of its PDFs embed fonts dated with the time they were drawn (drawn
        where WeasyPrint has no HarfBuzz subsetter: printing.draw.fonts_dated_by_fonttools)."""
        return any(r.dated_fonts for r in self.results)

    @property
    def overflows(self) -> int:
        """How many texts do not fit on their card: what makes `build` exit 1."""
        return sum(len(r.overflows) for r in self.results)


def documents(languages: Collection[str]) -> int:
    """How many documents a print run in `languages` renders (for a progress bar)."""
    return len(jobs_for(languages))


def print_run(campaign: Campaign, out_dir: Path, languages: list[str], options: Options,
              jobs: int | None, *, cache: bool = True,
              progress: Callable[[Rendered], None] | None = None, workers: Any = None,
              sources: Collection[Path] = ()) -> PrintRun:
    """Every document of `campaign` in `languages`, written into `out_dir` (printing.build).
    A folder or file that cannot be written is CannotWrite (exit 2), nothing of the user's
    overwritten. `workers`:
    the multiprocessing context to start worker processes from (printing.build.build);
    `sources`: the folders the campaign's files are read from, which `out_dir` must stay out
    of (printing.output.check_output_folder)."""
    try:
        built = build(campaign, out_dir, languages, options, jobs, progress=progress,
                      cache=cache, workers=workers, sources=sources)
    except OSError as exc:
        raise CannotWrite.from_os_error(exc, out_dir) from None
    return PrintRun(built.results, built.removed, built.drew, built.pieces)
