"""A print run: what `build` does once it has a campaign read without errors, as one call
(the command parses, reads and reports; `--watch` calls this on every save)."""

from __future__ import annotations

from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from synergy_forge.core.mission import Campaign
from synergy_forge.errors import CannotWrite
from synergy_forge.printing.build import build
from synergy_forge.printing.jobs import Options, Rendered, jobs_for

#: The field of a mission card's rules block (its data-what), which `validate` checks from the
#: fonts' metrics before rendering: an overflow there is already reported at the mission file.
RULES_BLOCK = "challenges"


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
              progress: Callable[[Rendered], None] | None = None,
              checked: Collection[str] = (), workers: Any = None,
              sources: Collection[Path] = ()) -> PrintRun:
    """Every document of `campaign` in `languages`, written into `out_dir` (printing.build);
    the rules blocks of the mission files in `checked` were found too long before rendering
    and reported there, so their overflows are not counted twice. A folder or file that
    cannot be written is CannotWrite (exit 2), nothing of the user's overwritten. `workers`:
    the multiprocessing context to start worker processes from (printing.build.build);
    `sources`: the folders the campaign's files are read from, which `out_dir` must stay out
    of (printing.output.check_output_folder)."""
    try:
        built = build(campaign, out_dir, languages, options, jobs, progress=progress,
                      cache=cache, workers=workers, sources=sources)
    except OSError as exc:
        raise CannotWrite.from_os_error(exc, out_dir) from None
    for rendered in built.results:
        rendered.overflows = [o for o in rendered.overflows
                              if not (o.field == RULES_BLOCK and o.source in checked)]
    return PrintRun(built.results, built.removed, built.drew, built.pieces)
