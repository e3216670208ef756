"""Rendering the print-and-play kit: Jinja templates to HTML, WeasyPrint to PDF, PDFium to PNG.

Every document is drawn in pieces (a page of sheets, a card face, or the whole document),
each in a worker process, with:
- autoescaping on, and user text only ever passed as data, never compiled as a template;
- a URL fetcher that serves the project's own assets and refuses everything else;
- fixed PDF metadata and identifier, so the same input gives the same bytes;
- a cache of pieces in OUT/.cache under the hash of their final HTML and assets, so that a
  rebuild draws only what changed (the output is the same with or without it);
- atomic writes (temporary file, then rename) to paths inside the output folder, one build at
  a time (a lock), and WeasyPrint's temporary files inside it too;
- a check of every fixed-size text box: text that does not fit is reported with its source.
`CardPreview` draws one face from the same HTML, fast, for the studio.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
import urllib.parse
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from io import BytesIO
from pathlib import Path
from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from synergy_forge.core.cards import GOAL_IDS, Action
from synergy_forge.core.mission import Campaign, Mission
from synergy_forge.errors import UnreadableInput
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
from synergy_forge.printing.workers import worker_context
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
    from weasyprint.urls import URLFetcher

    root = templates_dir().resolve()

    class AssetFetcher(URLFetcher):
        def fetch(self, url: str, headers: Any = None) -> Any:
            parsed = urllib.parse.urlparse(url)
            if parsed.scheme == "file":
                from urllib.request import url2pathname  # (http.client: 30 ms)

                path = Path(url2pathname(parsed.path)).resolve()
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

    def layout(mission: Any) -> dict[str, Any]:
        return mission_layout(mission, campaign, translator, card)

    env.globals.update(
        t=translator.text,
        colours=lambda i: ";".join(f"--{k}:{v}" for k, v in colours(i).items()),
        symbol=lambda i: SYMBOLS[i] if i is not None else "",
        fitted=fitted,
        mission_layout=layout,
        rules_gap=RULES_GAP,
        goal_changes=goal_changes,
        challenge=campaign.rulebook.challenge,
        goal=campaign.rulebook.goal,
        action=lambda letter: actions[Action(letter)],
        default_goals=list(GOAL_IDS),
        language=translator.language,
    )
    return env


def mission_layout(mission: Mission, campaign: Campaign, translator: Translator,
                   card: CardSize) -> dict[str, Any]:
    """A mission card's boxes: the title and the flavour text take the lines they need (at
    most their boxes), and the rules block (kit.mission_lines) gets the height left between
    them, its font fitted to it; "fits" is False when it cannot fit even at the smallest size.
    """
    boxes = card_boxes(card.width, card.height, card.safe)
    taken: dict[str, dict[str, Any]] = {}
    heights: dict[str, float] = {}
    for name, text in (("title", translator.text(mission.title)),
                       ("flavor", translator.text(mission.flavor))):
        box = boxes[name]
        pt = fit(text, box) or box.min_pt
        lines = (lines_needed(text, box.width, pt, box.bold, box.italic) or 99) if text else 0
        height = min(box.height, lines * pt * box.line_height * MM_PER_PT + 0.3)
        taken[name] = {"style": f"font-size:{pt}pt;height:{height:.2f}mm"}
        heights[name] = height
    top = MISSION_HEAD + heights["title"] + MISSION_STATS
    rules_box = replace(boxes["mission-rules"], height=round(
        card.height - 2 * card.safe - top - heights["flavor"] - 1.0, 2))
    rules = mission_lines(mission, campaign, translator)
    size = fit(list(rules), rules_box, RULES_GAP)
    return {"title": taken["title"], "flavor": taken["flavor"], "lines": rules,
            "fits": size is not None,
            "rules": f"font-size:{size or rules_box.min_pt}pt;top:{top:.2f}mm;"
                     f"height:{rules_box.height}mm"}


def card_fit_problems(campaign: Campaign, card: CardSize | None = None
                      ) -> list[tuple[str, tuple[str, ...], str, str]]:
    """What `validate` adds to a campaign's own checks from the printed kit: each mission card
    whose rules block does not fit, in each language, as (mission file, field, message,
    check). Computed from the fonts' metrics like the rest of auto-fit: no rendering."""
    card = card or CardSize()
    found: list[tuple[str, tuple[str, ...], str, str]] = []
    for language in campaign.languages:
        translator = Translator(language)
        for mission in campaign.missions:
            if mission_layout(mission, campaign, translator, card)["fits"]:
                continue
            field = next((f for f in ("challenges", "actions") if getattr(mission, f)), "id")
            texts = {c: translator.text(campaign.rulebook.challenge(c).text)
                     for c in mission.challenges}
            longest = f" (the longest: '{max(texts, key=lambda c: len(texts[c]))}')" \
                if texts else ""
            found.append((mission.source, (field,), (
                f"mission {mission.number}'s card ({language}): its rules (play order, goal "
                f"deck, starting hand, {len(mission.challenges)} challenge(s), "
                f"{len(mission.actions)} action card(s)) do not fit between its title and "
                f"flavour text, even at {card_boxes()['mission-rules'].min_pt:g} pt: use fewer "
                f"challenges or shorter challenge texts{longest}, or shorten the title or "
                "flavour text"), "text.fit"))
    return found


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
    #: the cache key of the PDF (the hash of what it was made from)
    key: str = ""


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


def html_for(job: Job, campaign: Campaign, options: Options, translator: Translator,
             only: list | None = None, env: Environment | None = None,
             side: str | None = None) -> tuple[str, list[Face]]:
    """The final HTML of a job, and (for cards jobs) the face of each page.

    `only` narrows a sheets job to some of its group's cards (one sheet), `side` to its
    "front" or "back" page, and a cards job to some faces (one card face): the pieces an
    incremental build renders and caches. `env` is an environment() to reuse (compiling the
    templates is the slow part).
    """
    env = env or environment(translator, campaign, options.card)
    title = f"{translator.text(dict(campaign.name))} - {job.name}"
    paper = {"width": PAPERS[options.paper][0], "height": PAPERS[options.paper][1]}
    kit = build_kit(campaign) if only is None else {}
    if job.kind == "sheets":
        layout = sheet(options.paper, options.card)
        pages = _pages_for(kit[job.group] if only is None else only, layout)
        pages = [page for page in pages if side is None or page["side"] == side]
        html = env.get_template("sheets.html.j2").render(
            title=title, sheet=layout, pages=pages, mark=2.6)
        return html, []
    if job.kind == "cards":
        faces = _single_faces(kit[job.group]) if only is None else only
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


#: Part of every cache key: bump it when rendering changes in a way the HTML does not show.
RENDER_VERSION = "2"
CACHE_DIR = ".cache"
TEMP_DIR = ".tmp"
LOCK_FILE = ".lock"
TEMPLATES = "templates"  # OUT/.cache/templates/: the compiled templates

#: This process's WeasyPrint font configuration and the kit's stylesheet parsed with it:
#: loading the fonts and parsing the stylesheet once per process instead of once per piece
#: is a quarter of the build's time (docs/performance.md).
_FONTS: Any = None
_KIT_CSS: Any = None


def _font_config() -> Any:
    global _FONTS
    if _FONTS is None:
        import atexit

        from weasyprint.text.fonts import FontConfiguration

        _FONTS = FontConfiguration()
        # Released before the interpreter tears modules down: collected after that, its
        # __del__ fails noisily ("Exception ignored in FontConfiguration.__del__").
        atexit.register(release_fonts)
    return _FONTS


def kit_stylesheet() -> Any:
    """templates/kit.css, parsed once per process with its fonts. Every kit document is drawn
    with it; the documents themselves carry only their page size (no <link>), so that this
    one parsed copy serves them all."""
    global _KIT_CSS
    if _KIT_CSS is None:
        from weasyprint import CSS

        _KIT_CSS = CSS(filename=str(templates_dir() / "kit.css"), url_fetcher=url_fetcher([]),
                       font_config=_font_config())
    return _KIT_CSS


def release_fonts() -> None:
    """Drop this process's font configuration and the temporary folder WeasyPrint copied the
    fonts to (its own clean-up runs only when the object is collected, never at exit)."""
    global _FONTS, _KIT_CSS
    fonts, _FONTS, _KIT_CSS = _FONTS, None, None
    folder = getattr(fonts, "_folder", None)
    if folder:
        shutil.rmtree(folder, ignore_errors=True)
        fonts._folder = None


@dataclass
class Drawn:
    """One HTML document drawn by WeasyPrint: the PDF and what the fit check found."""

    pdf: bytes
    pages: int
    overflows: list[str]
    refused: list[str]


def draw(html: str) -> Drawn:
    """WeasyPrint on one final HTML document: the one implementation behind build and the
    studio's previews, so what the studio shows is what prints."""
    from weasyprint import HTML

    os.environ["SOURCE_DATE_EPOCH"] = FIXED_EPOCH  # this process's own environment
    refused: list[str] = []
    document = HTML(string=html, base_url=str(templates_dir()) + "/",
                    url_fetcher=url_fetcher(refused)).render(
        stylesheets=[kit_stylesheet()], font_config=_font_config())
    identifier = hashlib.sha256(html.encode("utf-8")).hexdigest()[:32].encode()
    pdf = document.write_pdf(pdf_identifier=identifier)
    return Drawn(pdf, len(document.pages), _overflows(document), refused)


def page_images(pdf: bytes, dpi: int = PNG_DPI,
                pages: Iterable[int] | None = None) -> Iterator[tuple[int, Any]]:
    """(page index, PIL image) of each page (or of `pages`) of `pdf` at `dpi`: one card with its
    bleed per page of a cards document (the bleed box is the whole page)."""
    import pypdfium2 as pdfium

    document = pdfium.PdfDocument(pdf)
    try:
        for index in range(len(document)) if pages is None else pages:
            yield index, document[index].render(scale=dpi / 72, may_draw_forms=False).to_pil()
    finally:
        document.close()


def png_bytes(image: Any, dpi: int | None, level: int) -> bytes:
    """`image` as PNG, compressed at zlib `level` (6 for files we publish, 1 for previews and
    intermediate images: twice as fast)."""
    buffer = BytesIO()
    image.save(buffer, format="PNG", optimize=False, compress_level=level,
               **({"dpi": (dpi, dpi)} if dpi else {}))
    return buffer.getvalue()


def rasterise(pdf: bytes, dpi: int = PNG_DPI) -> list[bytes]:
    """Each page as a PNG."""
    return [png_bytes(image, dpi, 6 if dpi == PNG_DPI else 1)
            for _, image in page_images(pdf, dpi)]


class CardPreview:
    """One card face at a time, exactly as `build` draws it (the same HTML, templates, CSS and
    WeasyPrint), fast enough to follow a designer's saves: the templates are compiled and the
    fonts loaded once. Not thread-safe: use it from one thread."""

    def __init__(self, campaign: Campaign, language: str, options: Options | None = None):
        self.options = options or Options()
        self.translator = Translator(language)
        self.env = environment(self.translator, campaign)
        self.use(campaign)

    def use(self, campaign: Campaign) -> None:
        """Draw `campaign`'s cards from now on, keeping the compiled templates: they read the
        campaign (its rules, actions) through the environment's globals, replaced here."""
        self.campaign = campaign
        self.env.globals.update(environment(self.translator, campaign).globals)
        self.kit = build_kit(campaign)

    def html(self, group: str, face: Face) -> str:
        """The face's document, byte for byte the one `build` renders for its PNG."""
        job = Job("cards", self.translator.language, group)
        return html_for(job, self.campaign, self.options, self.translator, only=[face],
                        env=self.env)[0]

    @staticmethod
    def render(html: str, dpi: int = 150) -> tuple[bytes, list[str]]:
        """One face's document to a PNG at `dpi`, and the texts that do not fit."""
        drawn = draw(html)
        return rasterise(drawn.pdf, dpi)[0], drawn.overflows


def _inside(root: Path, relative: Path) -> Path:
    target = (root / relative).resolve()
    if not target.is_relative_to(root.resolve()):
        raise ValueError(f"{relative} would be written outside {root}")
    return target


def render_piece(_shared: Any, html: str, key: str, cache: str, temp: str,
                 pngs: list[str | None], tts: CardSize | None) -> float:
    """Render one piece into the cache: KEY.pdf and KEY.json (written last: its presence says
    the PDF is whole), then for each page with a name in `pngs`, NAME.png at 300 DPI and, with
    `tts`, NAME-tts.png (the card cut and shrunk for Tabletop Simulator's sheets, printing/tts.py).
    A piece whose PDF is cached already is only rasterised. Runs in a worker process."""
    started = time.perf_counter()
    # WeasyPrint copies the fonts into a temporary folder it removes only when collected,
    # which never happens in a pool worker: keep that folder inside --out, removed at the end.
    tempfile.tempdir = temp
    folder = Path(cache)
    if _entry(folder, key) is not None:
        pdf = (folder / f"{key}.pdf").read_bytes()
    else:
        drawn = draw(html)
        pdf = drawn.pdf
        write_atomic(folder / f"{key}.pdf", pdf, durable=False)
        meta = {"pages": drawn.pages, "overflows": drawn.overflows, "refused": drawn.refused,
                "bytes": len(pdf)}
        write_atomic(folder / f"{key}.json", json.dumps(meta), durable=False)
    wanted = [index for index, name in enumerate(pngs) if name]
    if wanted:
        from synergy_forge.printing.tts import shrink

        for index, image in page_images(pdf, PNG_DPI, wanted):
            name = pngs[index]
            write_atomic(folder / f"{name}.png", png_bytes(image, PNG_DPI, 6), durable=False)
            if tts is not None:
                write_atomic(folder / f"{name}-tts.png", png_bytes(shrink(tts, image), None, 1),
                             durable=False)
    return time.perf_counter() - started


def _entry(store: Path, key: str) -> dict[str, Any] | None:
    """A cached piece's facts (pages, texts that overflow, refused URLs), or None when the
    entry is missing or damaged (its PDF not the size it was written with, its facts
    unreadable): it is then drawn again rather than trusted."""
    try:
        meta = json.loads((store / f"{key}.json").read_text(encoding="utf-8"))
        if (store / f"{key}.pdf").stat().st_size == meta["bytes"]:
            return dict(meta)
    except (OSError, ValueError, KeyError, TypeError):
        pass
    return None


def _whole(path: Path) -> bool:
    """A cached image is there and not empty (what a crash or a hand can leave of it)."""
    try:
        return path.stat().st_size > 0
    except OSError:
        return False


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


#: Card faces per piece of a cards document. A piece is one WeasyPrint document: fewer,
#: larger pieces cost less (each is parsed, laid out and written with its own font subsets),
#: smaller ones redraw less when one card changes. Eight faces keep a cold build within
#: WeasyPrint's own time and a changed title redraws eight faces (docs/performance.md).
FACES_PER_PIECE = 8


@dataclass
class _Document:
    """A job as the pieces it is drawn in: one per page of sheets, eight card faces, or the
    whole document; each piece is cached under the hash of its HTML. A cards job also has
    the PNG of each face, cached under the hash of that face's own HTML (the one the studio
    draws), so a piece redrawn for one changed face rasterises that face alone."""

    job: Job
    keys: list[str]
    html: list[str]
    missing: set[str]
    faces: list[Face] = field(default_factory=list)  # cards jobs: the face of each page
    face_html: list[str] = field(default_factory=list)  # ... its own document (with PNGs)
    face_keys: list[str] = field(default_factory=list)  # ... its PNG's cache key

    def pieces(self) -> Iterator[tuple[str, str, list[str]]]:
        """(key, HTML, PNG keys of its pages) of each piece."""
        for index, (key, html) in enumerate(zip(self.keys, self.html, strict=True)):
            start = index * FACES_PER_PIECE
            yield key, html, self.face_keys[start:start + FACES_PER_PIECE]


def _digest(*parts: str | bytes) -> str:
    hasher = hashlib.sha256()
    for part in parts:
        hasher.update(part.encode("utf-8") if isinstance(part, str) else part)
        hasher.update(b"\0")
    return hasher.hexdigest()


def _assets() -> str:
    """What besides the HTML decides the output: every asset file, the renderers' versions."""
    from importlib.metadata import version

    parts: list[str | bytes] = [RENDER_VERSION, version("weasyprint"), version("pypdfium2"),
                                version("pillow")]
    root = templates_dir()
    for path in sorted(root.rglob("*")):
        if path.is_file() and not path.name.endswith(".j2"):  # templates are in the HTML
            parts += [path.relative_to(root).as_posix(), path.read_bytes()]
    return _digest(*parts)


def _plan(campaign: Campaign, languages: list[str], options: Options,
          store: Path | None = None) -> list[_Document]:
    """Every document of the build as its pieces. With `store`, the compiled templates are kept
    in STORE/templates/ (Jinja's bytecode cache, checked against the templates' sources):
    compiling them is half the time of a rebuild's HTML."""
    assets = _assets()
    kit = build_kit(campaign)
    documents = []
    compiled = None
    if store is not None:
        from jinja2 import FileSystemBytecodeCache

        (store / TEMPLATES).mkdir(exist_ok=True)
        compiled = FileSystemBytecodeCache(str(store / TEMPLATES))
    for language in languages:
        translator = Translator(language)
        env = environment(translator, campaign, options.card)
        env.bytecode_cache = compiled
        for job in jobs_for([language]):
            parts: list[Any] = [None]
            sides: list[str | None] = [None]
            faces: list[Face] = []
            if job.kind == "sheets":  # one page a piece: a sheet's front, then its back
                cards = kit[job.group]
                parts = [cards[i:i + PER_SHEET] for i in range(0, len(cards), PER_SHEET)
                         for _ in range(2)]
                sides = ["front", "back"] * (len(parts) // 2)
            elif job.kind == "cards":
                faces = _single_faces(kit[job.group])
                parts = [faces[i:i + FACES_PER_PIECE]
                         for i in range(0, len(faces), FACES_PER_PIECE)]
                sides = [None] * len(parts)
            html = [html_for(job, campaign, options, translator, only=part, env=env,
                             side=side)[0] for part, side in zip(parts, sides, strict=True)]
            document = _Document(job, [_digest(assets, "pdf", text) for text in html], html,
                                 translator.missing, faces)
            if faces and options.png:
                document.face_html = [face for text in html for face in _face_documents(text)]
                document.face_keys = [_digest(assets, "png", text)
                                      for text in document.face_html]
            documents.append(document)
    return documents


#: How single.html.j2 starts each face's page, and ends the document.
FACE_START, DOCUMENT_END = '<section class="sheet">', "</body></html>"


def _face_documents(html: str) -> list[str]:
    """Each face of a cards piece as its own document: what `html_for(only=[face])` gives
    (tested), cut from the piece's HTML instead of rendering the template once more per face.
    Its hash keys the face's PNG: the head (page size, bleed) and the face's own page."""
    head, *pages = html.removesuffix(DOCUMENT_END).split(FACE_START)
    return [head + FACE_START + page + DOCUMENT_END for page in pages]


def _merge(paths: list[Path]) -> bytes:
    """PDFs one after the other in one PDF."""
    import pypdfium2 as pdfium

    merged = pdfium.PdfDocument.new()
    sources = []
    try:
        for path in paths:
            source = pdfium.PdfDocument(path)
            sources.append(source)
            merged.import_pages(source)
        buffer = BytesIO()
        merged.save(buffer)
    finally:
        for source in sources:
            source.close()
        merged.close()
    return _reproducible(buffer.getvalue())


def _place(target: Path, source: Path) -> Path:
    """Copy a cache entry to the output, leaving a file that is already the same alone."""
    data = source.read_bytes()
    if not (target.is_file() and target.stat().st_size == len(data)
            and target.read_bytes() == data):
        write_atomic(target, data)  # an output: durable
    return target


class OutputFolderError(UnreadableInput):
    """--out cannot be used as it is (a usage error: nothing was written)."""


def check_output_folder(out_dir: Path) -> None:
    """Refuse a folder we could be tricked into writing outside of: a symbolic link anywhere
    inside it (the folder itself may be one: the user chose it)."""
    if out_dir.exists() and not out_dir.is_dir():
        raise OutputFolderError(f"{out_dir}: not a folder")
    if not out_dir.exists():
        return
    for folder, subfolders, files in os.walk(out_dir):
        for name in subfolders + files:
            if os.path.islink(os.path.join(folder, name)):
                raise OutputFolderError(
                    f"{os.path.join(folder, name)}: a symbolic link inside the output folder; "
                    "remove it or choose another --out (nothing was written)")


@contextlib.contextmanager
def locked(out_dir: Path) -> Iterator[None]:
    """Hold an exclusive lock on the output folder, so that two builds never mix their files."""
    import fcntl

    out_dir.mkdir(parents=True, exist_ok=True)
    handle = open(out_dir / LOCK_FILE, "a+b")  # noqa: SIM115 - held for the whole build
    try:
        try:
            fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            raise OutputFolderError(f"{out_dir}: another build is writing into this folder; "
                                    "wait for it to finish or choose another --out") from None
        yield
    finally:
        handle.close()  # closing releases the lock


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
          jobs: int | None = None, progress: Callable[[Rendered], None] | None = None,
          cache: bool = True) -> list[Rendered]:
    """Render every document for every language, on `jobs` processes (default: all cores).

    Incremental: each piece (a page of sheets, eight card faces, a whole document) is kept in
    OUT/.cache/ under the hash of its final HTML, the assets and the options, and rendered
    again only when that changes (a face's PNG under the hash of its own HTML); entries this
    build did not use are deleted. With cache=False a fresh cache is used and thrown away:
    the output is the same, byte for byte. Raises OutputFolderError before writing anything
    when --out cannot be used.

    Every file is written atomically; the outputs also durably (fsync), the cache entries not:
    a crash can leave one empty, and an entry is used only when it is whole (`_entry`).
    """
    check_output_folder(out_dir)
    with locked(out_dir):
        temp = out_dir.resolve() / TEMP_DIR
        shutil.rmtree(temp, ignore_errors=True)  # left by a build that was killed
        temp.mkdir()
        store = out_dir.resolve() / CACHE_DIR if cache else temp / "cache"
        store.mkdir(exist_ok=True)
        saved_tempdir = tempfile.tempdir
        try:
            return _build(campaign, out_dir, languages, options, jobs, progress, store, temp)
        finally:
            release_fonts()
            tempfile.tempdir = saved_tempdir
            shutil.rmtree(temp, ignore_errors=True)


def _build(campaign: Campaign, out_dir: Path, languages: list[str], options: Options,
           jobs: int | None, progress: Callable[[Rendered], None] | None, store: Path,
           temp: Path) -> list[Rendered]:
    documents = _plan(campaign, languages, options, store)
    todo: list[tuple[str, str, str, str, list[str | None], CardSize | None]] = []
    owners: dict[str, list[int]] = {}  # piece -> the documents waiting for it
    waiting = [0] * len(documents)
    tts = options.card if options.tts else None
    # Longest first: the card faces with their PNGs take the most time.
    order = sorted(range(len(documents)), key=lambda i: (
        documents[i].job.kind != "cards", documents[i].job.group != "numbers",
        documents[i].job.kind != "sheets"))
    for index in order:
        for key, html, face_keys in documents[index].pieces():
            pngs: list[str | None] = [
                name if not _whole(store / f"{name}.png")
                or (tts and not _whole(store / f"{name}-tts.png")) else None
                for name in face_keys]
            if not any(pngs) and _entry(store, key) is not None:
                continue
            if key not in owners:
                owners[key] = []
                todo.append((html, key, str(store), str(temp), pngs, tts))
            if index not in owners[key]:
                owners[key].append(index)
                waiting[index] += 1
    used: set[str] = set()
    results: list[Rendered] = []
    seconds = [0.0] * len(documents)

    def finish(index: int) -> None:
        document = documents[index]
        rendered = _assemble(document, out_dir, store, options, used)
        rendered.seconds = seconds[index]
        results.append(rendered)
        if options.tts and document.job.kind == "cards":
            # Here, while the workers draw the rest (cards are drawn first): the sheets'
            # composition is hidden behind the drawing instead of following it.
            _tts_sheets(campaign, out_dir, document, options, store, used)
        if progress:
            progress(rendered)

    for index in order:
        if not waiting[index]:
            finish(index)
    context = worker_context() if jobs != 1 else None
    if todo and context is None:
        import weasyprint  # noqa: F401 - loaded once here: forked workers start with it
    for number, took in run_units(render_piece, None, todo, jobs, context):
        for index in owners[todo[number][1]]:
            seconds[index] += took
            waiting[index] -= 1
            if not waiting[index]:
                finish(index)
    by_name = {(r.job.language, r.job.name): r for r in results}
    for language in languages:
        parts = [by_name[(language, name)].path for name in COMBINED]
        key = _digest("combined", *(by_name[(language, name)].key for name in COMBINED))
        used.add(key)
        source = store / f"{key}.pdf"
        if not _whole(source):
            write_atomic(source, _merge(parts), durable=False)
        combined = _place(_inside(out_dir, Path(language) / f"print-and-play-{language}.pdf"),
                          source)
        results.append(Rendered(Job("print-and-play", language), combined,
                                sum(by_name[(language, n)].pages for n in COMBINED), 0.0))
        if options.tts:
            results.append(_tts(campaign, out_dir, language, options))
    _prune(store, used)
    return results


def _assemble(document: _Document, out_dir: Path, store: Path, options: Options,
              used: set[str]) -> Rendered:
    """A job's output from its cached pieces: the PDF (pieces merged) and the PNGs."""
    job = document.job
    metas = [_entry(store, key) or {} for key in document.keys]  # whole: checked or just drawn
    if not all(metas):
        raise OSError(f"{store}: a cache entry of {job.name} was damaged during the build")
    used.update(document.keys)
    if len(document.keys) == 1:
        key = document.keys[0]
    else:
        key = _digest("merged", *document.keys)
        used.add(key)
        if not _whole(store / f"{key}.pdf"):
            write_atomic(store / f"{key}.pdf", _merge([store / f"{k}.pdf" for k in document.keys]),
                         durable=False)
    target = _place(_inside(out_dir, Path(job.language) / job.name), store / f"{key}.pdf")
    result = Rendered(job, target, sum(m["pages"] for m in metas), 0.0,
                      sorted({o for m in metas for o in m["overflows"]}), document.missing,
                      [url for m in metas for url in m["refused"]], key=key)
    if document.face_keys:
        used.update(document.face_keys)
        folder = Path(job.language) / "png" / job.group
        result.pngs = [_place(_inside(out_dir, folder / f"{face.key}.png"),
                              store / f"{name}.png")
                       for face, name in zip(document.faces, document.face_keys, strict=True)]
    return result


def _tts_sheets(campaign: Campaign, out_dir: Path, cards: _Document, options: Options,
                store: Path, used: set[str]) -> None:
    """A group's Tabletop Simulator sheets (printing/tts.py), laid out from the shrunk card
    images the workers made with the PNGs, cached under the hash of those: a group whose cards
    did not change is not composed again."""
    from synergy_forge.printing import tts

    language, group = cards.job.language, cards.job.group
    key = _digest("tts", RENDER_VERSION, group, repr(options.card), *cards.face_keys)
    used.add(key)
    names = _sheets_listed(store, key)
    if names is None:
        shrunk = {face.key: str(store / f"{name}-tts.png")  # made by render_piece
                  for face, name in zip(cards.faces, cards.face_keys, strict=True)}
        tts.compose_group(None, tts.sheet_files(campaign, language, group), shrunk, str(store),
                          key)
        names = json.loads((store / f"{key}.json").read_text(encoding="utf-8"))
    folder = _inside(out_dir, Path(language) / "tts")
    for name in names:
        _place(folder / name, store / f"{key}-{name}")


def _sheets_listed(store: Path, key: str) -> list[str] | None:
    """The sheet files a cached group lists, or None when the listing or a sheet is missing,
    empty or unreadable (the group is then composed again)."""
    try:
        names = json.loads((store / f"{key}.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    if not isinstance(names, list) or not all(
            isinstance(n, str) and n == Path(n).name and not n.startswith(".")
            and _whole(store / f"{key}-{n}") for n in names):
        return None
    return names


def _tts(campaign: Campaign, out_dir: Path, language: str, options: Options) -> Rendered:
    """The Tabletop Simulator export's saved object, once every group's sheets are placed."""
    from synergy_forge.printing import tts

    started = time.perf_counter()
    export = tts.export(campaign, out_dir / language, language, options.card,
                        options.tts_url_base)
    return Rendered(Job("tts", language), export.saved_object, 0,
                    time.perf_counter() - started, missing=export.missing, pngs=export.images)


def _prune(store: Path, used: set[str]) -> None:
    """Delete every cache entry this build did not use (and leftovers of killed writes)."""
    for path in store.iterdir():
        if path.name[:64] not in used and path.name != TEMPLATES:
            path.unlink(missing_ok=True)
