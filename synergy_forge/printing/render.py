"""Rendering the print-and-play kit: Jinja templates to HTML, WeasyPrint to PDF, PDFium to PNG.

Every document is rendered in its own worker process (they are independent), with:
- autoescaping on, and user text only ever passed as data, never compiled as a template;
- a URL fetcher that serves the project's own assets and refuses everything else;
- fixed PDF metadata and identifier, so the same input gives the same bytes;
- atomic writes (temporary file, then rename) to paths inside the output folder;
- a check of every fixed-size text box: text that does not fit is reported with its source.
"""

from __future__ import annotations

import hashlib
import os
import re
import time
import urllib.parse
import urllib.request
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from io import BytesIO
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from synergy_forge.core.cards import GOAL_IDS, Action
from synergy_forge.core.mission import Campaign
from synergy_forge.fileio import write_atomic
from synergy_forge.pool import run_units
from synergy_forge.printing.i18n import Translator
from synergy_forge.printing.kit import (
    GROUPS,
    SYMBOLS,
    Face,
    action_pairs,
    build_kit,
    colours,
    example_round,
    goal_changes,
    mission_lines,
)
from synergy_forge.printing.layout import EDGE, PAPERS, PER_SHEET, Bleed, CardSize, Sheet, sheet
from synergy_forge.resources import templates_dir
from synergy_forge.textfit import MM_PER_PT, card_boxes, fit, lines_needed

PNG_DPI = 300
#: mm between the lines of a mission card's rules block (kit.mission_lines)
RULES_GAP = 0.6
#: a mission card's head (number, stars) and stats row with their margins, in mm
MISSION_HEAD = 6.0
MISSION_STATS = 10.0
#: Fonts are subset with a fixed timestamp (fontTools reads SOURCE_DATE_EPOCH), so that the
#: same input gives byte-identical PDFs. 2026-01-01T00:00:00Z.
FIXED_EPOCH = "1767225600"


class RefusedURL(ValueError):
    pass


def url_fetcher(refused: list[str]) -> Any:
    """WeasyPrint may read files under templates/ and nothing else: no other file, no network.

    Each refused URL is recorded in `refused` (WeasyPrint itself only logs a warning).
    """
    from weasyprint.urls import URLFetcher  # type: ignore[import-untyped]  # no type hints

    root = templates_dir().resolve()

    class AssetFetcher(URLFetcher):
        def fetch(self, url: str, headers: Any = None) -> Any:
            parsed = urllib.parse.urlparse(url)
            if parsed.scheme == "file":
                path = Path(urllib.request.url2pathname(parsed.path)).resolve()
                if path.is_relative_to(root) and path.is_file():
                    return super().fetch(url, headers)
            refused.append(url)
            raise RefusedURL(f"synergy-forge fetches only its own assets, not {url}")

    return AssetFetcher(allowed_protocols=("file",))


def environment(translator: Translator, campaign: Campaign,
                card: CardSize | None = None) -> Environment:
    card = card or CardSize()
    env = Environment(
        loader=FileSystemLoader(templates_dir()),
        autoescape=select_autoescape(["html", "j2"], default_for_string=True),
        undefined=StrictUndefined,
        extensions=["jinja2.ext.i18n"],
        trim_blocks=True,
        lstrip_blocks=True,
    )
    # Added by the i18n extension above, which the Environment type does not know of.
    env.install_gettext_callables(  # type: ignore[attr-defined]
        translator.gettext, translator.ngettext, newstyle=True)
    actions = campaign.actions
    boxes = card_boxes(card.width, card.height, card.safe)

    def fitted(text: str, box: str) -> str:
        """The font size of `text` in its box (textfit): too long a text gets the smallest
        size, and the check after rendering reports it."""
        return f"font-size:{fit(text, boxes[box]) or boxes[box].min_pt}pt"

    def mission_layout(mission: Any) -> dict[str, Any]:
        """A mission card's boxes: the title and the flavour text take the lines they need
        (at most their boxes), and the rules block gets the height left between them."""
        taken: dict[str, dict[str, Any]] = {}
        heights: dict[str, float] = {}
        for name, text in (("title", translator.text(mission.title)),
                           ("flavor", translator.text(mission.flavor))):
            box = boxes[name]
            pt = fit(text, box) or box.min_pt
            lines = (lines_needed(text, box.width, pt, box.bold) or 99) if text else 0
            height = min(box.height, lines * pt * box.line_height * MM_PER_PT + 0.3)
            taken[name] = {"style": f"font-size:{pt}pt;height:{height:.2f}mm"}
            heights[name] = height
        top = MISSION_HEAD + heights["title"] + MISSION_STATS
        rules_box = replace(boxes["mission-rules"], height=round(
            card.height - 2 * card.safe - top - heights["flavor"] - 1.0, 2))
        rules = mission_lines(mission, campaign, translator)
        size = fit(list(rules), rules_box, RULES_GAP) or rules_box.min_pt
        return {"title": taken["title"], "flavor": taken["flavor"], "lines": rules,
                "rules": f"font-size:{size}pt;top:{top:.2f}mm;height:{rules_box.height}mm"}

    env.globals.update(
        t=translator.text,
        colours=lambda i: ";".join(f"--{k}:{v}" for k, v in colours(i).items()),
        symbol=lambda i: SYMBOLS[i] if i is not None else "",
        fitted=fitted,
        mission_layout=mission_layout,
        rules_gap=RULES_GAP,
        goal_changes=goal_changes,
        challenge=campaign.rulebook.challenge,
        goal=campaign.rulebook.goal,
        action=lambda letter: actions[Action(letter)],
        default_goals=list(GOAL_IDS),
        language=translator.language,
    )
    return env


@dataclass(frozen=True)
class Job:
    """One document to render: `kind` is sheets, cards (one per page, for PNGs), rulebook,
    challenges or calibration."""

    kind: str
    language: str
    group: str = ""

    @property
    def name(self) -> str:
        if self.kind == "sheets":
            return f"{self.group}.pdf"
        if self.kind == "cards":
            return f"cards-{self.group}.pdf"
        return f"{self.kind}.pdf"


@dataclass
class Rendered:
    job: Job
    path: Path
    pages: int
    seconds: float
    overflows: list[str] = field(default_factory=list)
    missing: set[str] = field(default_factory=set)
    refused: list[str] = field(default_factory=list)
    pngs: list[Path] = field(default_factory=list)


@dataclass(frozen=True)
class Options:
    paper: str = "a4"
    card: CardSize = field(default_factory=CardSize)
    png: bool = True
    #: Tabletop Simulator export (printing/tts.py), made from the PNGs; needs `png`.
    tts: bool = False
    #: Where the TTS sheets will be uploaded: their URLs become this + file name.
    tts_url_base: str | None = None


def _pages_for(kit_cards: list, layout: Sheet) -> list[dict[str, Any]]:
    pages = []
    for start in range(0, len(kit_cards), PER_SHEET):
        chunk = kit_cards[start:start + PER_SHEET]
        pages.append({"side": "front", "cards": list(zip(layout.fronts, [c.front for c in chunk],
                                                         strict=False))})
        pages.append({"side": "back", "cards": list(zip(layout.backs, [c.back for c in chunk],
                                                        strict=False))})
    return pages


def _single_faces(kit_cards: list) -> list[Face]:
    """Every different face of a group once: fronts, and each distinct back."""
    faces, seen = [], set()
    for card in kit_cards:
        for face in (card.front, card.back):
            if face.key not in seen:
                seen.add(face.key)
                faces.append(face)
    return faces


def html_for(job: Job, campaign: Campaign, options: Options,
             translator: Translator) -> tuple[str, list[Face]]:
    """The final HTML of a job, and (for cards jobs) the face of each page."""
    env = environment(translator, campaign, options.card)
    title = f"{translator.text(dict(campaign.name))} - {job.name}"
    paper = {"width": PAPERS[options.paper][0], "height": PAPERS[options.paper][1]}
    kit = build_kit(campaign)
    if job.kind == "sheets":
        layout = sheet(options.paper, options.card)
        html = env.get_template("sheets.html.j2").render(
            title=title, sheet=layout, pages=_pages_for(kit[job.group], layout), mark=2.6)
        return html, []
    if job.kind == "cards":
        faces = _single_faces(kit[job.group])
        html = env.get_template("single.html.j2").render(
            title=title, size=options.card, cards=faces, bleed=Bleed.even(options.card.bleed))
        return html, faces
    if job.kind in ("rulebook", "challenges"):
        parts = ("rules",) if job.kind == "rulebook" else ("challenges",)
        goals = [campaign.rulebook.goal(g) for g in GOAL_IDS]
        goals += [g for g in campaign.rulebook.goals.values() if not g.builtin]
        html = env.get_template("rulebook.html.j2").render(
            title=title, paper=paper, parts=parts, goals=goals,
            actions=sorted(campaign.actions.items()),
            challenges=list(campaign.rulebook.challenges.values()),
            kit=kit, campaign=campaign, paired=action_pairs(campaign) is not None,
            colour_symbols=SYMBOLS[:len(campaign.colors)],
            example=example_round(campaign))
        return html, []
    # In the page's corners, clear of the text (which starts 14 mm down and 16 mm in) and of
    # the edge the printer cannot reach.
    corner = EDGE + 0.5
    registration = [(corner, corner), (paper["width"] - corner - 10, corner),
                    (corner, paper["height"] - corner - 10),
                    (paper["width"] - corner - 10, paper["height"] - corner - 10)]
    html = env.get_template("calibration.html.j2").render(
        title=title, paper=paper, registration=registration)
    return html, []


def _overflows(document: Any) -> list[str]:
    """Every `.fit` box whose content runs past its own bottom or right edge (issue 11: a word
    wider than its box is clipped as surely as a text too tall)."""
    found = []

    def extent(box: Any) -> tuple[float, float]:
        right = box.position_x + box.margin_width()
        end = box.position_y + box.margin_height()
        for child in getattr(box, "children", []):
            r, e = extent(child)
            right, end = max(right, r), max(end, e)
        return right, end

    def walk(box: Any) -> None:
        element = getattr(box, "element", None)
        if element is not None and "fit" in (element.get("class") or "").split() and \
                getattr(box, "element_tag", None) and box.children:
            right_limit = box.content_box_x() + box.width
            limit = box.content_box_y() + box.height
            extents = [extent(child) for child in box.children]
            if max(e for _, e in extents) > limit + 0.5 or \
                    max(r for r, _ in extents) > right_limit + 0.5:
                found.append(element.get("data-what") or "a text")
                return
        for child in getattr(box, "children", []):
            walk(child)

    for page in document.pages:
        walk(page._page_box)
    return sorted(set(found))


def render_job(campaign: Campaign, job: Job, out_dir: str, options: Options) -> Rendered:
    """Render one document to out_dir/<language>/<name>; runs in a worker process."""
    from weasyprint import HTML  # type: ignore[import-untyped]  # weasyprint has no type hints

    started = time.perf_counter()
    os.environ["SOURCE_DATE_EPOCH"] = FIXED_EPOCH  # this worker's own environment
    translator = Translator(job.language)
    html, faces = html_for(job, campaign, options, translator)
    refused: list[str] = []
    document = HTML(string=html, base_url=str(templates_dir()) + "/",
                    url_fetcher=url_fetcher(refused)).render()
    overflows = _overflows(document)
    identifier = hashlib.sha256(html.encode("utf-8")).hexdigest()[:32].encode()
    pdf = document.write_pdf(pdf_identifier=identifier)
    target = _inside(Path(out_dir), Path(job.language) / job.name)
    write_atomic(target, pdf)
    result = Rendered(job, target, len(document.pages), 0.0, overflows, translator.missing,
                      refused)
    if job.kind == "cards" and options.png:
        sheets = None
        if options.tts:  # the group's Tabletop Simulator sheets, from the same images
            from synergy_forge.printing.tts import GroupSheets

            sheets = GroupSheets(campaign, job.language, job.group, options.card)
        result.pngs = _rasterise(pdf, faces, _inside(Path(out_dir),
                                                     Path(job.language) / "png" / job.group),
                                 sheets.add if sheets else None)
        if sheets:
            sheets.write(_inside(Path(out_dir), Path(job.language) / "tts"))
    result.seconds = time.perf_counter() - started
    return result


def _inside(root: Path, relative: Path) -> Path:
    target = (root / relative).resolve()
    if not target.is_relative_to(root.resolve()):
        raise ValueError(f"{relative} would be written outside {root}")
    return target


def _rasterise(pdf: bytes, faces: list[Face], folder: Path,
               also: Callable[[Face, Any], None] | None = None) -> list[Path]:
    """Each page (one card with its bleed) as a 300 DPI PNG, for print-on-demand services;
    `also` gets each face's image too."""
    import pypdfium2 as pdfium  # type: ignore[import-untyped]  # pypdfium2 has no type hints

    written = []
    document = pdfium.PdfDocument(pdf)
    try:
        for index, face in enumerate(faces):
            page = document[index]
            # The bleed box is the media box here: the whole page, bleed included.
            bitmap = page.render(scale=PNG_DPI / 72, may_draw_forms=False)
            image = bitmap.to_pil()
            if also is not None:
                also(face, image)
            buffer = BytesIO()
            image.save(buffer, format="PNG", dpi=(PNG_DPI, PNG_DPI), optimize=False)
            written.append(write_atomic(folder / f"{face.key}.png", buffer.getvalue()))
    finally:
        document.close()
    return written


def jobs_for(languages: Iterable[str]) -> list[Job]:
    jobs = []
    for language in languages:
        jobs.append(Job("calibration", language))
        jobs += [Job("sheets", language, g) for g in GROUPS]
        jobs += [Job("challenges", language), Job("rulebook", language)]
        jobs += [Job("cards", language, g) for g in GROUPS]
    return jobs


#: The order of the combined print-and-play PDF.
COMBINED = ["calibration.pdf", *(f"{g}.pdf" for g in GROUPS), "challenges.pdf", "rulebook.pdf"]


def combine(folder: Path, language: str) -> Path:
    """One print-and-play PDF of every sheet and page, in printing order."""
    import pypdfium2 as pdfium

    merged = pdfium.PdfDocument.new()
    sources = []
    try:
        for name in COMBINED:
            source = pdfium.PdfDocument(folder / name)
            sources.append(source)
            merged.import_pages(source)
        buffer = BytesIO()
        merged.save(buffer)
    finally:
        for source in sources:
            source.close()
        merged.close()
    return write_atomic(folder / f"print-and-play-{language}.pdf", _reproducible(buffer.getvalue()))


def _reproducible(pdf: bytes) -> bytes:
    """PDFium stamps the save time and a random /ID; make both depend on the content only.

    Each replacement keeps its length, so the cross-reference offsets stay right.
    """
    pdf = re.sub(rb"/CreationDate\(D:\d{14}", b"/CreationDate(D:20260101000000", pdf)
    digest = hashlib.sha256(re.sub(rb"/ID\s*\[[^\]]*\]", b"", pdf)).hexdigest().encode()

    def fixed_id(match: re.Match[bytes]) -> bytes:
        text = match.group(0)
        out, k = bytearray(), 0
        inside = False
        for byte in text:
            char = bytes([byte])
            if char in b"<(":
                inside = True
            elif char in b">)":
                inside = False
            elif inside and char in b"0123456789abcdefABCDEF":
                char = digest[k % len(digest): k % len(digest) + 1]
                k += 1
            out += char
        return bytes(out)

    return re.sub(rb"/ID\s*\[[^\]]*\]", fixed_id, pdf)


def build(campaign: Campaign, out_dir: Path, languages: list[str], options: Options,
          jobs: int | None = None,
          progress: Callable[[Rendered], None] | None = None) -> list[Rendered]:
    """Render every document for every language, on `jobs` processes (default: all cores)."""
    todo = jobs_for(languages)
    # Longest first: the card PDFs with their PNGs take the most time.
    todo.sort(key=lambda j: (j.kind != "cards", j.group != "numbers", j.kind != "sheets"))
    results: list[Rendered] = []
    units = [(job, str(out_dir), options) for job in todo]
    for _, rendered in run_units(render_job, campaign, units, jobs):
        results.append(rendered)
        if progress:
            progress(rendered)
    for language in languages:
        combined = combine(out_dir.resolve() / language, language)
        results.append(Rendered(Job("print-and-play", language), combined, _count(combined),
                                0.0))
        if options.tts:
            from synergy_forge.printing import tts

            started = time.perf_counter()
            export = tts.export(campaign, out_dir / language, language, options.card,
                                options.tts_url_base)
            results.append(Rendered(Job("tts", language), export.saved_object, 0,
                                    time.perf_counter() - started, missing=export.missing,
                                    pngs=export.images))
    return results


def _count(path: Path) -> int:
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(path)
    try:
        return len(document)
    finally:
        document.close()
