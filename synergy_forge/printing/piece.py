"""One piece of the kit drawn in a worker process: its PDF, and its pages' PNGs and Tabletop
Simulator images, into the build's cache. Apart from the build, so that the workers a build
keeps (printing/workers.py) import it without importing the build that uses them."""

from __future__ import annotations

import json
import time
from pathlib import Path

from synergy_forge.cardtext.geometry import CardSize
from synergy_forge.fileio import read_regular, write_beneath
from synergy_forge.printing.draw import PNG_DPI, RenderContext, draw, page_images, png_bytes
from synergy_forge.printing.store import entry, whole


def render_piece(context: RenderContext, html: str, key: str, cache: str,
                 pngs: list[str | None], tts: CardSize | None, root: str) -> float:
    """Render one piece into the cache: KEY.pdf and KEY.json (written last: its presence says
    the PDF is whole), then for each page with a name in `pngs`, NAME.png at 300 DPI and, with
    `tts`, NAME-tts.ppm (the card cut and shrunk for Tabletop Simulator's sheets, printing/tts.py).
    A piece whose PDF is cached already is only rasterised. Runs in a worker process, with
    that worker's own `context`; every file is written inside `root` (the output folder)
    through fileio.write_beneath."""
    started = time.perf_counter()
    out = Path(root)
    folder = Path(cache)
    if entry(folder, key) is not None:
        pdf = read_regular(folder / f"{key}.pdf")
    else:
        drawn = draw(html, context)
        pdf = drawn.pdf
        write_beneath(out, folder / f"{key}.pdf", pdf, durable=False)
        meta = {"pages": drawn.pages, "overflows": drawn.overflows, "refused": drawn.refused,
                "bytes": len(pdf), "dated_fonts": drawn.dated_fonts}
        write_beneath(out, folder / f"{key}.json", json.dumps(meta), durable=False)
    wanted = [index for index, name in enumerate(pngs) if name]
    if wanted:
        from synergy_forge.printing.tts import ppm_bytes, shrink

        for index, image in page_images(pdf, PNG_DPI, wanted):
            name = pngs[index]
            # A face asked for its TTS image alone (a kit built before without --tts, or
            # seeded from one) keeps its whole PNG: the same bytes, as its key is the same,
            # and encoding it again would cost more than the rest of the piece.
            if not whole(folder / f"{name}.png"):
                write_beneath(out, folder / f"{name}.png", png_bytes(image, PNG_DPI, 6),
                              durable=False)
            if tts is not None:
                write_beneath(out, folder / f"{name}-tts.ppm", ppm_bytes(shrink(tts, image)),
                              durable=False)
    return time.perf_counter() - started
