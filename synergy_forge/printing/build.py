"""The build: every document of the kit for every language, drawn in pieces on worker processes.

Every document is drawn in pieces (eight card faces, a group's sheet frames, or the whole
document), each in a worker process (printing/piece.py), cached in OUT/.cache (printing/store.py),
then assembled into the outputs: PDFs merged, sheets imposed from the frames and the cards'
own pages (printing/pdf.py), PNGs and the Tabletop Simulator export placed. Every file is
written atomically to a path inside the output folder, one build at a time
(printing/output.py), through the folders' own descriptors (fileio.write_beneath): a folder
of OUT swapped for a link while the build runs is refused, never followed.
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Collection, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from synergy_forge.cardtext.geometry import CardSize
from synergy_forge.cardtext.i18n import Translator
from synergy_forge.core.mission import Campaign
from synergy_forge.fileio import open_beneath, read_regular, write_beneath
from synergy_forge.pool import run_units
from synergy_forge.printing.components import check as check_components
from synergy_forge.printing.draw import RenderContext
from synergy_forge.printing.html import (
    environment,
    face_documents,
    html_for,
    sheet_for,
    sheet_pages,
    single_faces,
)
from synergy_forge.printing.jobs import COMBINED, Job, Options, Overflow, Rendered, jobs_for
from synergy_forge.printing.kit import Face, build_kit
from synergy_forge.printing.manifest import SHOPS
from synergy_forge.printing.output import (
    TEMP_DIR,
    check_output_folder,
    forget,
    inside,
    kit_folders,
    locked,
)
from synergy_forge.printing.pdf import Placed, impose, merge
from synergy_forge.printing.piece import render_piece
from synergy_forge.printing.store import (
    CACHE_DIR,
    RENDER_VERSION,
    TEMPLATES,
    assets_digest,
    digest,
    entry,
    place,
    prune,
    sheets_listed,
    whole,
)
from synergy_forge.printing.workers import WarmWorkers

#: How far inside its trim a back's panel starts, in mm (templates/kit.css .back-panel).
BACK_FRAME = 3.0

#: Card faces per piece of a cards document. A piece is one WeasyPrint document: fewer,
#: larger pieces cost less (each is parsed, laid out and written with its own font subsets),
#: smaller ones redraw less when one card changes. Eight faces keep a cold build within
#: WeasyPrint's own time and a changed title redraws eight faces (docs/performance.md).
FACES_PER_PIECE = 8


@dataclass
class _Document:
    """A job as the pieces it is drawn in: eight card faces, a group's sheet frames, or the
    whole document; each piece is cached under the hash of its HTML. A cards job also has
    the PNG of each face, cached under the hash of that face's own HTML (the one the studio
    draws), so a piece redrawn for one changed face rasterises that face alone. A sheets job
    is its frames (labels and marks, one page a side) and the pages of its group's cards job,
    imposed on them (pdf.impose): no card is drawn twice."""

    job: Job
    keys: list[str]
    html: list[str]
    missing: set[str]
    faces: list[Face] = field(default_factory=list)  # cards jobs: the face of each page
    face_html: list[str] = field(default_factory=list)  # ... its own document (with PNGs)
    face_keys: list[str] = field(default_factory=list)  # ... its PNG's cache key
    cards: _Document | None = None  # sheets jobs: the cards job they are imposed from
    placed: list[list[Placed]] = field(default_factory=list)  # ... each page's cards
    #: cards jobs: the page of each physical card side, front then back for every card of the
    #: group (a back's page repeated), and the deck's title: its DTC PDF (printing/dtc.py)
    sides: list[int] = field(default_factory=list)
    title: str = ""

    def pieces(self) -> Iterator[tuple[str, str, list[str]]]:
        """(key, HTML, PNG keys of its pages) of each piece."""
        for index, (key, html) in enumerate(zip(self.keys, self.html, strict=True)):
            start = index * FACES_PER_PIECE
            yield key, html, self.face_keys[start:start + FACES_PER_PIECE]


def plan(campaign: Campaign, languages: list[str], options: Options,
         store: Path | None = None, root: Path | None = None) -> list[_Document]:
    """Every document of the build as its pieces. With `store`, the compiled templates are kept
    in STORE/templates/ (Jinja's bytecode cache, checked against the templates' sources):
    compiling them is half the time of a rebuild's HTML. Raises components.KitMismatch when
    the kit would not hold the cards the engine deals and plays (printing/components.py)."""
    assets = assets_digest()
    kit = build_kit(campaign)
    check_components(campaign, kit)  # the printed game is the one the engine plays
    layout = sheet_for(options)
    documents = []
    compiled = None
    if store is not None:
        compiled = _compiled_templates(store / TEMPLATES, root or store.parent)
    for language in languages:
        translator = Translator(language)
        env = environment(translator, campaign, options)
        env.bytecode_cache = compiled
        sheets: list[_Document] = []
        cards_of: dict[str, _Document] = {}
        for job in jobs_for([language]):
            parts: list[Any] = [None]
            faces: list[Face] = []
            if job.kind == "sheets":  # one piece: the frames of the group's sheets
                parts = [kit[job.group]]
            elif job.kind == "cards":
                faces = single_faces(kit[job.group])
                parts = [faces[i:i + FACES_PER_PIECE]
                         for i in range(0, len(faces), FACES_PER_PIECE)]
            html = [html_for(job, campaign, options, translator, only=part, env=env,
                             frame=job.kind == "sheets")[0] for part in parts]
            document = _Document(job, [digest(assets, "pdf", text) for text in html], html,
                                 translator.missing, faces)
            if faces and options.dtc:
                page_of = {face.key: index for index, face in enumerate(faces)}
                document.sides = [page_of[face.key] for card in kit[job.group]
                                  for face in (card.front, card.back)]
                document.title = f"{translator.text(dict(campaign.name))} - {job.group}"
            if faces and options.png:
                document.face_html = [face for text in html for face in face_documents(text)]
                document.face_keys = [digest(assets, "png", text)
                                      for text in document.face_html]
            documents.append(document)
            if job.kind == "sheets":
                sheets.append(document)
            elif job.kind == "cards":
                cards_of[job.group] = document
        for document in sheets:
            cards = document.cards = cards_of[document.job.group]
            page_of = {face.key: index for index, face in enumerate(cards.faces)}
            # A shop's full-bleed back shows its panel alone on a home sheet, inside the
            # paper frame the sheet draws (sheets.html.j2): a duplex shift then shows no
            # neighbour's colour.
            frame = BACK_FRAME if options.full_bleed_backs else 0.0
            document.placed = [
                [Placed(*divmod(page_of[face.key], FACES_PER_PIECE), slot.x, slot.y, slot.bleed,
                        frame if face.kind == "back" else 0.0)
                 for slot, face in page["cards"]]
                for page in sheet_pages(kit[document.job.group], layout)]
    return documents


def _compiled_templates(folder: Path, root: Path) -> Any:
    """Jinja's bytecode cache in `folder`, written through fileio.write_beneath (Jinja's own
    writer follows links)."""
    from io import BytesIO

    from jinja2 import FileSystemBytecodeCache

    os.close(open_beneath(root, folder))

    class Compiled(FileSystemBytecodeCache):
        def load_bytecode(self, bucket: Any) -> None:
            try:
                data = read_regular(Path(self._get_cache_filename(bucket)))
            except OSError:
                return
            bucket.load_bytecode(BytesIO(data))

        def dump_bytecode(self, bucket: Any) -> None:
            buffer = BytesIO()
            bucket.write_bytecode(buffer)
            with contextlib.suppress(OSError):  # not cached: compiled again next time
                write_beneath(root, Path(self._get_cache_filename(bucket)),
                              buffer.getvalue(), durable=False)

    return Compiled(str(folder))


@dataclass
class Built:
    """What a build wrote, the files of an earlier build it removed (output.forget), and how
    many of its `pieces` it `drew` (the others were whole in the cache)."""

    results: list[Rendered]
    removed: list[Path]
    drew: int
    pieces: int


def build(campaign: Campaign, out_dir: Path, languages: list[str], options: Options,
          jobs: int | None = None, progress: Callable[[Rendered], None] | None = None,
          cache: bool = True, workers: Any = None, sources: Collection[Path] = ()) -> Built:
    """Render every document for every language, on `jobs` processes (default: all cores),
    started from the multiprocessing context `workers` (printing.workers.prepare_workers; by
    default they fork from this process), or on the workers `workers` keeps from one build to
    the next (printing.workers.WarmWorkers, `build --watch`). The files an earlier build of
    these languages wrote into `out_dir` that this one did not are removed (output.forget).

    Incremental: each piece (eight card faces, a group's sheet frames, a whole document) is
    kept in OUT/.cache/ under the hash of its final HTML, the assets and the options, and
    rendered again only when that changes (a face's PNG under the hash of its own HTML; the
    imposed sheets under the keys of their frames and cards); entries this build did not use
    are deleted. With cache=False a fresh cache is used and thrown away:
    the output is the same, byte for byte. Raises OutputFolderError before writing anything
    when --out cannot be used: among other reasons, when it is the campaign's folder or inside
    one of its `sources`, the folders its files are read from (output.check_output_folder).

    Every file is written atomically; the outputs also durably (fsync), the cache entries not:
    a crash can leave one empty, and an entry is used only when it is whole (store.entry).
    """
    check_output_folder(out_dir, Path(campaign.source).parent if campaign.source else None,
                        sources, kit_folders(languages))
    with locked(out_dir):
        root = out_dir.resolve()  # the folder the user chose (it may be a link): held
        temp = root / TEMP_DIR
        shutil.rmtree(temp, ignore_errors=True)  # left by a build that was killed
        store = root / CACHE_DIR if cache else temp / "cache"
        os.close(open_beneath(root, store))  # made, below OUT, without following a link
        # WeasyPrint's fonts go to a private folder of this user's, not into OUT: a folder
        # of OUT swapped for a link would lead its writes anywhere.
        warm = isinstance(workers, WarmWorkers)  # its render context is its own, kept
        fonts = None if warm else tempfile.mkdtemp(prefix="synergy-forge-build-")
        context = workers.render if warm else RenderContext(fonts)
        try:
            results, drew, pieces = _build(campaign, root, languages, options, jobs,
                                           progress, store, context, workers)
            written = [path for r in results for path in (r.path, *r.pngs)]
            return Built(results, forget(root, languages, written), drew, pieces)
        finally:
            if fonts is not None:
                context.release()
                shutil.rmtree(fonts, ignore_errors=True)
            shutil.rmtree(temp, ignore_errors=True)  # refuses a link: never follows one


def _build(campaign: Campaign, out_dir: Path, languages: list[str], options: Options,
           jobs: int | None, progress: Callable[[Rendered], None] | None, store: Path,
           context: RenderContext, workers: Any) -> tuple[list[Rendered], int, int]:
    """The documents written, how many pieces were drawn (or rasterised), of how many."""
    documents = plan(campaign, languages, options, store, out_dir)
    pieces: set[str] = set()
    todo: list[tuple[str, str, str, list[str | None], CardSize | None, str]] = []
    owners: dict[str, list[int]] = {}  # piece -> the documents waiting for it
    waiting = [0] * len(documents)
    tts = options.card if options.tts else None
    # Longest first: the card faces with their PNGs take the most time.
    order = sorted(range(len(documents)), key=lambda i: (
        documents[i].job.kind != "cards", documents[i].job.group != "numbers",
        documents[i].job.kind != "sheets"))
    # A face's PNG is keyed by its own HTML: a face on two pages (a number deck has two
    # cards of each value, the same face twice), or in two pieces, is rasterised once, by
    # the first piece that needs it; a document waits for the piece that makes each of its
    # PNGs.
    rasterised_by: dict[str, str] = {}  # PNG name -> the piece making it
    for index in order:
        for key, html, face_keys in documents[index].pieces():
            pieces.add(key)
            pngs: list[str | None] = []
            waits_for: list[str] = []
            for name in face_keys:
                wanted = not whole(store / f"{name}.png") or bool(
                    tts and not whole(store / f"{name}-tts.ppm"))
                if wanted and name in rasterised_by:
                    waits_for.append(rasterised_by[name])
                    wanted = False
                elif name in pngs:  # this piece's own page before this one
                    wanted = False
                pngs.append(name if wanted else None)
            if any(pngs) or entry(store, key) is None:
                if key not in owners:
                    owners[key] = []
                    todo.append((html, key, str(store), pngs, tts, str(out_dir)))
                    rasterised_by.update((name, key) for name in pngs if name)
                waits_for.append(key)
            for piece in waits_for:
                if index not in owners[piece]:
                    owners[piece].append(index)
                    waiting[index] += 1
    for index, document in enumerate(documents):  # sheets wait for their cards' pieces too
        for key in document.cards.keys if document.cards else ():
            if key in owners and index not in owners[key]:
                owners[key].append(index)
                waiting[index] += 1
    used: set[str] = set()
    results: list[Rendered] = []
    seconds = [0.0] * len(documents)
    press: list[Any] = []  # the DTC decks' colour conversion, made for the first one drawn

    def finish(index: int) -> None:
        document = documents[index]
        rendered = _assemble(document, out_dir, store, used)
        rendered.seconds = seconds[index]
        results.append(rendered)
        if options.tts and document.job.kind == "cards":
            # Here, while the workers draw the rest (cards are drawn first): the sheets'
            # composition is hidden behind the drawing instead of following it.
            _tts_sheets(campaign, out_dir, document, options, store, used)
        if document.sides:
            results.append(_dtc_deck(document, rendered.key, out_dir, store, used, press,
                                     options.card))
        if progress:
            progress(rendered)

    for index in order:
        if not waiting[index]:
            finish(index)
    if isinstance(workers, WarmWorkers):
        drawn = workers.run(todo)
    else:
        workers = workers if jobs != 1 else None
        if todo and workers is None:
            import weasyprint  # noqa: F401 - loaded once here: forked workers start with it
        drawn = run_units(render_piece, context, todo, jobs, workers)
    for number, took in drawn:
        for index in owners[todo[number][1]]:
            seconds[index] += took
            waiting[index] -= 1
            if not waiting[index]:
                finish(index)
    by_name = {(r.job.language, r.job.name): r for r in results}
    for language in languages:
        parts = [by_name[(language, name)].path for name in COMBINED]
        duplex = options.layout == "duplex"  # fold sheets are printed on one side
        key = digest("combined", str(duplex),
                     *(by_name[(language, name)].key for name in COMBINED))
        used.add(key)
        source = store / f"{key}.pdf"
        if not whole(source):
            write_beneath(out_dir, source, merge(parts, whole_sheets=duplex), durable=False)
        combined = place(out_dir, inside(out_dir, Path(language) /
                                         f"print-and-play-{language}.pdf"), source)
        results.append(Rendered(Job("print-and-play", language), combined,
                                _combined_pages([by_name[(language, n)].pages
                                                 for n in COMBINED], duplex), 0.0))
        if options.tts:
            results.append(_tts(campaign, out_dir, language, options))
        if options.png and options.shop in SHOPS:
            results += _manifest(campaign, out_dir, language, options,
                                 [d for d in documents if d.job.kind == "cards"
                                  and d.job.language == language])
    prune(out_dir, store, used)
    return results, len(todo), len(pieces)


def _combined_pages(pages: list[int], whole_sheets: bool) -> int:
    """The print-and-play PDF's page count: its documents', and with `whole_sheets` a blank
    page after each odd one but the last (pdf.merge)."""
    return sum(pages) + (sum(n % 2 for n in pages[:-1]) if whole_sheets else 0)


def _assemble(document: _Document, out_dir: Path, store: Path, used: set[str]) -> Rendered:
    """A job's output from its cached pieces: the PDF (pieces merged) and the PNGs."""
    job = document.job
    keys = document.keys + (document.cards.keys if document.cards else [])
    metas = [entry(store, key) or {} for key in keys]  # whole: checked or just drawn
    if not all(metas):
        raise OSError(errno.EIO, f"a cache entry of {job.name} was damaged or taken away "
                      "during the build", str(store))
    used.update(keys)
    pages = sum(m["pages"] for m in metas[:len(document.keys)])
    if document.cards:  # the frames with the cards' pages imposed on them
        key = digest("imposed", *keys, repr(document.placed))
        used.add(key)
        if not whole(store / f"{key}.pdf"):
            write_beneath(out_dir, store / f"{key}.pdf",
                          impose(store / f"{document.keys[0]}.pdf",
                                 [store / f"{k}.pdf" for k in document.cards.keys],
                                 document.placed), durable=False)
    elif len(document.keys) == 1:
        key = document.keys[0]
    else:
        key = digest("merged", *document.keys)
        used.add(key)
        if not whole(store / f"{key}.pdf"):
            write_beneath(out_dir, store / f"{key}.pdf",
                          merge([store / f"{k}.pdf" for k in document.keys]), durable=False)
    target = place(out_dir, inside(out_dir, Path(job.language) / job.name),
                   store / f"{key}.pdf")
    result = Rendered(job, target, pages, 0.0,
                      [Overflow.parse(o) for o in sorted({o for m in metas
                                                          for o in m["overflows"]})],
                      document.missing,
                      [url for m in metas for url in m["refused"]], key=key,
                      dated_fonts=any(m.get("dated_fonts", False) for m in metas))
    if document.face_keys:
        used.update(document.face_keys)
        folder = Path(job.language) / "png" / job.group
        result.pngs = [place(out_dir, inside(out_dir, folder / f"{face.key}.png"),
                             store / f"{name}.png")
                       for face, name in zip(document.faces, document.face_keys, strict=True)]
    return result


def _dtc_deck(cards: _Document, key: str, out_dir: Path, store: Path, used: set[str],
              press: list[Any], card: CardSize) -> Rendered:
    """A group's deck for DriveThruCards (printing/dtc.py), made from its cards document (whose
    cache key is `key`) and cached under the hash of that and of the card order, then
    preflighted (printing/preflight.py). `press` holds the colour conversion
    (printing/press.py) once a deck has made it."""
    from synergy_forge.printing import dtc
    from synergy_forge.printing.preflight import preflight
    from synergy_forge.printing.press import TAC, Press

    started = time.perf_counter()
    job = Job("dtc", cards.job.language, cards.job.group)
    deck = digest("dtc", dtc.VERSION, key, repr(cards.sides), cards.title)
    used.add(deck)
    if not whole(store / f"{deck}.pdf"):
        if not press:
            press.append(Press())
        write_beneath(out_dir, store / f"{deck}.pdf",
                      dtc.deck(store / f"{key}.pdf", cards.sides, cards.title, press[0]),
                      durable=False)
    # Our own preflight, on the file as written (cached or not): what a shop's would refuse
    # stops the build, naming the deck.
    problems = preflight(read_regular(store / f"{deck}.pdf"), card, TAC)
    if problems:
        raise dtc.NotPrintable(f"{cards.title} ({job.name}): the preflight found "
                               + "; ".join(problems[:5])
                               + (f" (and {len(problems) - 5} more)" if len(problems) > 5
                                  else ""))
    target = place(out_dir, inside(out_dir, Path(job.language) / job.name),
                   store / f"{deck}.pdf")
    return Rendered(job, target, len(cards.sides), time.perf_counter() - started, key=deck)


def _tts_sheets(campaign: Campaign, out_dir: Path, cards: _Document, options: Options,
                store: Path, used: set[str]) -> None:
    """A group's Tabletop Simulator sheets (printing/tts.py), laid out from the shrunk card
    images the workers made with the PNGs, cached under the hash of those: a group whose cards
    did not change is not composed again."""
    from synergy_forge.printing import tts

    language, group = cards.job.language, cards.job.group
    key = digest("tts", RENDER_VERSION, group, repr(options.card), *cards.face_keys)
    used.add(key)
    names = sheets_listed(store, key)
    if names is None:
        shrunk = {face.key: str(store / f"{name}-tts.ppm")  # made by render_piece
                  for face, name in zip(cards.faces, cards.face_keys, strict=True)}
        tts.compose_group(None, tts.sheet_files(campaign, language, group), shrunk, str(store),
                          key, out_dir)
        names = json.loads(read_regular(store / f"{key}.json").decode("utf-8"))
    folder = inside(out_dir, Path(language) / "tts")
    for name in names:
        place(out_dir, folder / name, store / f"{key}-{name}")


def _manifest(campaign: Campaign, out_dir: Path, language: str, options: Options,
              cards: list[_Document]) -> list[Rendered]:
    """The print shop's manifest of face, back and quantity (printing/manifest.py), in
    OUT/<lang>/png/ beside the images it names, as CSV and JSON."""
    from synergy_forge.printing import manifest
    from synergy_forge.printing.jobs import PRESETS

    assert options.shop is not None
    shop = manifest.SHOPS[options.shop]
    images = {(d.job.group, face.key): (f"{d.job.group}/{face.key}.png", key)
              for d in cards for face, key in zip(d.faces, d.face_keys, strict=True)}
    rows = manifest.rows(build_kit(campaign), lambda group, face: images[group, face.key])
    title = Translator(language).text(dict(campaign.name))
    written = []
    for name, text in zip(manifest.file_names(options.shop), (
            manifest.csv_text(shop, rows),
            manifest.json_text(shop, rows, title, language, PRESETS[options.shop].pixels)),
            strict=True):
        path = inside(out_dir, Path(language) / "png" / name)
        write_beneath(out_dir, path, text)
        written.append(Rendered(Job("manifest", language, name.name), path,
                                sum(r.quantity for r in rows), 0.0))
    return written


def _tts(campaign: Campaign, out_dir: Path, language: str, options: Options) -> Rendered:
    """The Tabletop Simulator export's saved object, once every group's sheets are placed."""
    from synergy_forge.printing import tts

    started = time.perf_counter()
    export = tts.export(campaign, out_dir / language, language, options.card,
                        options.tts_url_base, out_dir)
    return Rendered(Job("tts", language), export.saved_object, 0,
                    time.perf_counter() - started, missing=export.missing, pngs=export.images)
