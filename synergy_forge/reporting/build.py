"""`build`'s report: the campaign's problems before the print run, then the documents written
and what did not fit, was refused or is not translated (on stderr, as warnings and
errors)."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from synergy_forge.printing.jobs import Overflow, Rendered
from synergy_forge.printing.print_run import PrintRun
from synergy_forge.reporting import Output

if TYPE_CHECKING:
    from synergy_forge.authoring.yamlfile import Document
    from synergy_forge.workspace.build import Kit, KitCheck

#: Missing translations listed one by one; past this, a count.
MISSING_SHOWN = 20
#: Files removed (of an earlier build) listed one by one; past this, a count.
REMOVED_SHOWN = 10


def _counted(paths: list[Path]) -> str:
    """"6 PNGs and 1 PDF": how many files of each kind, by their suffix."""
    kinds: dict[str, int] = {}
    for path in paths:
        kind = path.suffix.lstrip(".").upper() or "file"
        kinds[kind] = kinds.get(kind, 0) + 1
    said = [f"{n} {kind}{'s' if n > 1 else ''}" for kind, n in sorted(kinds.items())]
    return " and ".join([", ".join(said[:-1]), said[-1]] if len(said) > 1 else said)


def check_text(check: KitCheck) -> Output:
    """What reading the campaign found, on stderr before the print run starts."""
    notes = [str(d) for d in check.diagnostics]
    if check.campaign is None:
        notes.append("the campaign has errors: nothing was built")
    return Output("", "\n".join(notes))


def kit_text(kit: Kit, out_dir: Path) -> Output:
    """The print run's report (`text`), and how many mission cards the check before it
    found too small for their rules."""
    said = text(kit.run, out_dir, kit.check.result.documents)
    cards = len(kit.check.cards)
    if not cards:
        return said
    line = f"{cards} mission card(s) cannot hold their rules (errors above)"
    return Output(said.text, f"{said.note}\n{line}" if said.note else line)


def text(run: PrintRun, out_dir: Path, documents: Mapping[str, Document] | None = None
         ) -> Output:
    """`documents`: the mission files read (by the name a card's text gives as its source), at
    whose fields a text that does not fit is reported, as `validate` reports one."""
    results = run.results
    lines = []
    for r in sorted(results, key=lambda r: (r.job.language, str(r.path))):
        if r.job.kind == "tts":
            lines.append(f"  {os.path.relpath(r.path)}  Tabletop Simulator, {len(r.pngs)} "
                         "image(s)")
            continue
        if r.job.kind == "manifest":
            lines.append(f"  {os.path.relpath(r.path)}  face, back and quantity of {r.pages} "
                         "cards")
            continue
        extra = f", {len(r.pngs)} PNGs" if r.pngs else ""
        lines.append(f"  {os.path.relpath(r.path)}  {r.pages} page(s){extra}")
    notes = []
    for r in results:
        notes += [_overflow(o, r, documents or {}) for o in r.overflows]
        notes += [f"refused to load {url} while rendering {r.job.name}" for url in r.refused]
    missing = sorted({(r.job.language, m) for r in results for m in r.missing})
    notes += [f"warning: no {language} translation for {message!r}; English was used"
              for language, message in missing[:MISSING_SHOWN]]
    if len(missing) > MISSING_SHOWN:
        notes.append(f"warning: … and {len(missing) - MISSING_SHOWN} more missing translations")
    if run.dated_fonts:
        notes.append("warning: HarfBuzz's font subsetter (libharfbuzz-subset0, 4.1 or later) "
                     "is not installed, so WeasyPrint subsets the fonts with fontTools, which "
                     "dates each PDF's fonts with the time it was drawn: two builds of the same "
                     "campaign differ in those bytes (apt-get install libharfbuzz-subset0)")
    problems = run.overflows
    pdfs = [r for r in results if r.job.kind not in ("tts", "manifest")]
    pngs = sum(len(r.pngs) for r in pdfs)
    exports = sum(r.job.kind == "tts" for r in results)
    manifests = sum(r.job.kind == "manifest" for r in results) // 2
    lines.append(f"Built {len(pdfs)} PDFs and {pngs} PNGs"
                 + (f", {exports} Tabletop Simulator export(s)" if exports else "")
                 + (f", {manifests} print shop manifest(s) (CSV and JSON)" if manifests
                    else "")
                 + f" in {out_dir}"
                 + (f" ({run.drew} of its {run.pieces} pieces drawn, the others from the "
                    "cache)" if run.drew < run.pieces else "")
                 + (f"; {problems} text(s) do not fit" if problems else ""))
    if run.removed:
        lines += [f"  removed {os.path.relpath(path)}" for path in run.removed[:REMOVED_SHOWN]]
        if len(run.removed) > REMOVED_SHOWN:
            lines.append(f"  … and {len(run.removed) - REMOVED_SHOWN} more")
        lines.append(f"Removed {_counted(run.removed)} an earlier build made that this one no "
                     "longer makes (cards no longer in the campaign, or an option left off)")
    return Output("\n".join(lines), "\n".join(notes))


def _overflow(overflow: Overflow, rendered: Rendered, documents: Mapping[str, Document]) -> str:
    """A text that does not fit, at its field (FILE:LINE:COLUMN) when it is a mission's."""
    said = (f"{overflow.field} ({rendered.job.language}) does not fit on its card in "
            f"{rendered.job.name}")
    document = documents.get(overflow.source)
    if document is None:
        return f"{overflow.source or 'card text'}: {said}"
    return str(document.diagnostic((overflow.field,), said, "text.fit", key=True))
