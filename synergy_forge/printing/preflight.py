"""Our own preflight of a DriveThruCards deck (printing/dtc.py): the checks a print shop's
preflight runs on a PDF/X-1a upload, made on the file as written, independently of the code
that wrote it. The build runs it on every deck and stops (exit 1) on what it finds.

- boxes: every page has a TrimBox and a BleedBox, the trim the shop's card, the bleed its
  bleed on every side, BleedBox within MediaBox;
- fonts: every font embedded, none of Type 3;
- colour: only DeviceCMYK (and patterns of CMYK shadings), in every content stream, image
  and shading; no RGB, grey, ICC-based, Lab or named (separation) colour;
- total ink: C+M+Y+K of every colour, image pixel and shading end at most the shop's limit;
- transparency: none (no opacity below 1, soft mask, blend mode or transparency group);
- black text: text in a neutral dark fill is 100% K and overprints (dtc.BLACK_TEXT);
- marks: PDF 1.4 at most, not encrypted, GTS_PDFXVersion and Trapped in the Info
  dictionary, one PDF/X output intent naming a registered condition or embedding a profile.
"""

from __future__ import annotations

from collections.abc import Iterator
from decimal import Decimal
from io import BytesIO
from typing import Any

from synergy_forge.cardtext.geometry import CardSize

POINTS_PER_MM = 72 / 25.4
#: How far a box may be from the card's figure, in points (rounding in the files' numbers).
TOLERANCE = 0.05
_COLOUR_OPERATORS = {"rg", "RG", "g", "G", "k", "K", "sc", "scn", "SC", "SCN", "cs", "CS"}


def preflight(pdf: bytes, card: CardSize, limit: float) -> list[str]:
    """What a print shop's preflight would refuse in `pdf`, a deck of `card`s with at most
    `limit` total ink (2.4 for 240%): one sentence each, page numbers from 1; empty when
    it passes."""
    import pikepdf

    found: list[str] = []
    with pikepdf.open(BytesIO(pdf)) as document:
        if document.is_encrypted:
            found.append("the file is encrypted")
        if document.pdf_version > "1.4":
            found.append(f"PDF {document.pdf_version}: PDF/X-1a:2003 is PDF 1.4 at most")
        found += _marks(document)
        seen: set[tuple[int, int]] = set()
        for number, page in enumerate(document.pages, start=1):
            found += [f"page {number}: {problem}" for problem in _boxes(page, card)]
            for holder, resources in _streams(page.obj, seen):
                found += [f"page {number}: {problem}"
                          for problem in _stream(holder, resources, limit)]
    return list(dict.fromkeys(found))  # each problem once, in order


def _marks(document: Any) -> list[str]:
    info = document.docinfo
    found = []
    if str(info.get("/GTS_PDFXVersion", "")) not in ("PDF/X-1:2001", "PDF/X-1:2003",
                                                      "PDF/X-1a:2001", "PDF/X-1a:2003"):
        found.append("no PDF/X-1a version (GTS_PDFXVersion) in the Info dictionary")
    if str(info.get("/Trapped", "")) not in ("/True", "/False"):
        found.append("Trapped is neither True nor False in the Info dictionary")
    for key in ("/Title", "/CreationDate", "/ModDate"):
        if key not in info:
            found.append(f"no {key[1:]} in the Info dictionary")
    intents = [i for i in document.Root.get("/OutputIntents", []) if i.get("/S") == "/GTS_PDFX"]
    if len(intents) != 1:
        found.append(f"{len(intents)} PDF/X output intents, where one is needed")
    for intent in intents:
        if not str(intent.get("/OutputConditionIdentifier", "")):
            found.append("the output intent names no condition")
        elif "/DestOutputProfile" not in intent and not str(intent.get("/RegistryName", "")):
            found.append("the output intent's condition is not a registered one and it "
                         "embeds no profile")
    return found


def _box(page: Any, name: str) -> list[float] | None:
    box = page.obj.get(f"/{name}")
    return None if box is None else [float(v) for v in box]


def _boxes(page: Any, card: CardSize) -> list[str]:
    media, trim, bleed = (_box(page, n) for n in ("MediaBox", "TrimBox", "BleedBox"))
    found = []
    if trim is None or bleed is None or media is None:
        return [f"no {name}" for name, box in (("MediaBox", media), ("TrimBox", trim),
                                               ("BleedBox", bleed)) if box is None]
    width, height = trim[2] - trim[0], trim[3] - trim[1]
    if abs(width - card.width * POINTS_PER_MM) > TOLERANCE or \
            abs(height - card.height * POINTS_PER_MM) > TOLERANCE:
        found.append(f"TrimBox {width / POINTS_PER_MM:.2f} x {height / POINTS_PER_MM:.2f} mm, "
                     f"not the card's {card.width:g} x {card.height:g} mm")
    sides = (trim[0] - bleed[0], trim[1] - bleed[1], bleed[2] - trim[2], bleed[3] - trim[3])
    if any(abs(side - card.bleed * POINTS_PER_MM) > TOLERANCE for side in sides):
        found.append(f"bleed of {', '.join(f'{s / POINTS_PER_MM:.2f}' for s in sides)} mm, "
                     f"not {card.bleed:g} mm on every side")
    if bleed[0] < media[0] - TOLERANCE or bleed[1] < media[1] - TOLERANCE or \
            bleed[2] > media[2] + TOLERANCE or bleed[3] > media[3] + TOLERANCE:
        found.append("BleedBox beyond the MediaBox")
    return found


def _streams(holder: Any, seen: set[tuple[int, int]]) -> Iterator[tuple[Any, Any]]:
    """(content stream, its resources) of a page and of every form and tiling pattern it
    uses, each once in the document."""
    key = holder.objgen if holder.is_indirect else (id(holder), -1)
    if key in seen:
        return
    seen.add(key)
    resources = holder.get("/Resources")
    yield holder, resources
    if resources is None:
        return
    for xobject in (resources.get("/XObject") or {}).values():
        if xobject.get("/Subtype") == "/Form":
            yield from _streams(xobject, seen)
    for pattern in (resources.get("/Pattern") or {}).values():
        if int(pattern.get("/PatternType", 0)) == 1:
            yield from _streams(pattern, seen)


def _family(name: Any, resources: Any) -> str:
    """A colour space by its family name (/DeviceCMYK, /Pattern, /ICCBased...)."""
    import pikepdf

    spaces = resources.get("/ColorSpace") if resources is not None else None
    value = spaces[name] if spaces is not None and name in spaces else name
    if isinstance(value, pikepdf.Array):
        return str(value[0]) if len(value) else "?"
    return str(value)


def _ink(values: list[Any], limit: float) -> str | None:
    total = sum(float(v) for v in values)
    if any(float(v) < 0 or float(v) > 1 for v in values):
        return f"a colour component out of 0 to 1 ({', '.join(str(v) for v in values)})"
    if total > limit + 1e-6:
        return f"total ink {100 * total:.0f}%, over {100 * limit:.0f}%"
    return None


def _stream(holder: Any, resources: Any, limit: float) -> list[str]:
    import pikepdf

    found: list[str] = []
    if "/Group" in holder and holder.Group.get("/S") == "/Transparency":
        found.append("a transparency group")
    fill = "/DeviceGray"
    colour: tuple[Decimal, ...] = (Decimal(0),) * 3 + (Decimal(1),)
    states: dict[str, Any] = dict((resources.get("/ExtGState") or {}).items()) \
        if resources is not None else {}
    overprint, saved = False, []
    for instruction in pikepdf.parse_content_stream(holder):
        if isinstance(instruction, pikepdf.ContentStreamInlineImage):
            found.append("an inline image")
            continue
        operands, operator = list(instruction.operands), str(instruction.operator)
        if operator == "q":
            saved.append((fill, colour, overprint))
        elif operator == "Q" and saved:
            fill, colour, overprint = saved.pop()
        elif operator in ("rg", "RG", "g", "G"):
            found.append(f"colour in {'RGB' if operator.lower() == 'rg' else 'grey'} ({operator})")
        elif operator in ("cs", "CS"):
            family = _family(operands[0], resources)
            if family not in ("/DeviceCMYK", "/Pattern"):
                found.append(f"colour space {family}")
            if operator == "cs":
                fill = family
        elif operator in ("k", "K", "sc", "scn", "SC", "SCN"):
            numbers = [v for v in operands if not isinstance(v, pikepdf.Name)]
            if operator in ("k", "K") or len(numbers) == 4:
                problem = _ink(numbers, limit)
                if problem:
                    found.append(problem)
            if operator == "k" or (operator in ("sc", "scn") and fill == "/DeviceCMYK"):
                colour = tuple(Decimal(str(v)) for v in numbers)
        elif operator == "gs":
            state = states.get(str(operands[0]))
            if state is not None:
                found += _graphics_state(state)
                if "/op" in state or "/OP" in state:
                    overprint = bool(state.get("/op", state.get("/OP")))
        elif operator in ("Tj", "TJ", "'", '"'):
            c, m, y, k = colour if len(colour) == 4 else (1, 1, 1, 1)
            if c == m == y == 0 and k >= Decimal("0.7") and (k != 1 or not overprint):
                found.append(f"black text at {100 * k:.0f}% K"
                             + ("" if overprint else ", knocking out"))
    found += _resources(resources, limit)
    return found


def _graphics_state(state: Any) -> list[str]:
    found = []
    for key in ("/ca", "/CA"):
        if key in state and float(state[key]) < 1:
            found.append(f"transparency (opacity {key[1:]} {float(state[key]):g})")
    if str(state.get("/SMask", "/None")) != "/None":
        found.append("transparency (a soft mask)")
    if str(state.get("/BM", "/Normal")) not in ("/Normal", "/Compatible"):
        found.append(f"transparency (blend mode {state.BM})")
    return found


def _resources(resources: Any, limit: float) -> list[str]:
    """Images, shadings and fonts of one resource dictionary."""
    import numpy as np
    import pikepdf

    if resources is None:
        return []
    found = []
    for xobject in (resources.get("/XObject") or {}).values():
        if xobject.get("/Subtype") != "/Image" or xobject.get("/ImageMask", False):
            continue
        if "/SMask" in xobject or "/Mask" in xobject:
            found.append("transparency (an image with a mask)")
        if xobject.get("/ColorSpace") != "/DeviceCMYK":
            found.append(f"an image in {xobject.get('/ColorSpace')}")
            continue
        pixels = np.frombuffer(pikepdf.PdfImage(xobject).read_bytes(), dtype=np.uint8)
        if len(pixels) and pixels.reshape(-1, 4).astype(int).sum(axis=1).max() > \
                round(limit * 255) + 2:
            found.append(f"an image over {100 * limit:.0f}% total ink")
    shadings = list((resources.get("/Shading") or {}).values()) + [
        p.Shading for p in (resources.get("/Pattern") or {}).values()
        if int(p.get("/PatternType", 0)) == 2]
    for shading in shadings:
        if shading.get("/ColorSpace") != "/DeviceCMYK":
            found.append(f"a shading in {shading.get('/ColorSpace')}")
            continue
        functions = [shading.Function]
        while functions:
            function = functions.pop()
            if int(function.FunctionType) == 3:
                functions += list(function.Functions)
                continue
            for key in ("/C0", "/C1"):
                problem = _ink(list(function.get(key, [])), limit)
                if problem:
                    found.append(f"a shading: {problem}")
    for font in (resources.get("/Font") or {}).values():
        if font.get("/Subtype") == "/Type3":
            found.append(f"a Type 3 font {font.get('/BaseFont', '')}")
            continue
        described = font.DescendantFonts[0] if font.get("/Subtype") == "/Type0" else font
        descriptor = described.get("/FontDescriptor")
        if descriptor is None or not any(k in descriptor for k in ("/FontFile", "/FontFile2",
                                                                   "/FontFile3")):
            found.append(f"font {font.get('/BaseFont')} not embedded")
    return found
