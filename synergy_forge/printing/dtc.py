"""DriveThruCards decks (build --preset dtc): one PDF per deck, a page per physical card side
(front, back, front, back...), each page the card with its bleed, in PDF/X-1a:2003 as far as
it can be made without a colour-managed RIP.

The colours are converted here, once, on the finished PDF, rather than written a second time
as a CMYK palette in the CSS: WeasyPrint draws with more than the stylesheet's colours (its
gradients become RGB shadings, the templates compute inks: kit.text_ink, kit.on), so only the
PDF it writes holds every colour that is printed, and converting there leaves the kit's one
palette (and the screen PDFs, PNGs and contrast checks made from it) as it is.

The conversion is not colour-managed (printing/press.py: each colour matched to how PDFium
shows CMYK, greys on K alone, the total ink within DTC's 240%). What is declared is the
output condition DTC prints to (CGATS TR 001, registered at color.org), without embedding its
profile, which is not on this machine (docs/printing.md).
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from decimal import Decimal
from io import BytesIO
from pathlib import Path
from typing import Any

import numpy as np

from synergy_forge.errors import WrongInput
from synergy_forge.printing.press import Press

#: Part of the cache key of every deck: raise it when what deck() makes changes.
VERSION = "4"  # 4: black text 100% K, overprinting
#: The registered characterisation DTC prints to (ICC's registry), named without a profile.
OUTPUT_CONDITION = "CGATS TR 001"
REGISTRY = "http://www.color.org"
PDFX_VERSION = "PDF/X-1:2003"
#: Fixed dates, as pdf.reproducible stamps them: the same cards give the same bytes.
FIXED_DATE = "D:20260101000000+00'00'"

_RGB_OPERATORS = {"rg": "k", "RG": "K", "g": "k", "G": "K"}
#: Text in a neutral fill this dark or darker prints in 100% K, overprinting.
BLACK_TEXT = Decimal("0.7")
BLACK = (Decimal(0), Decimal(0), Decimal(0), Decimal(1))
#: The graphics states that turn overprint on (for black text) and off, in each form that
#: uses them.
OVERPRINT, KNOCKOUT = "/SFOverprint", "/SFKnockout"


def _black_text(fill: tuple[Decimal, ...]) -> bool:
    c, m, y, k = fill
    return c == m == y == 0 and k >= BLACK_TEXT


def _add_overprint_states(holder: Any) -> None:
    """The OVERPRINT and KNOCKOUT graphics states in `holder`'s resources (its own copy of
    the dictionary: another form may share it)."""
    import pikepdf

    def copy(dictionary: Any) -> Any:
        if dictionary is None:
            return pikepdf.Dictionary()
        return pikepdf.Dictionary({str(key): dictionary[key] for key in dictionary})

    resources = copy(holder.get("/Resources"))
    states = copy(resources.get("/ExtGState"))
    states[OVERPRINT] = pikepdf.Dictionary(Type=pikepdf.Name.ExtGState, OP=True, op=True,
                                           OPM=1)
    states[KNOCKOUT] = pikepdf.Dictionary(Type=pikepdf.Name.ExtGState, OP=False, op=False)
    resources.ExtGState = states
    holder.Resources = resources
_SET_COLOUR = {"sc": False, "scn": False, "SC": True, "SCN": True}  # operator: stroke?


class NotPrintable(WrongInput):
    """A card's PDF holds what PDF/X-1a forbids and this conversion cannot change (exit 1):
    transparency, a colour space other than RGB, grey or CMYK, a font not embedded."""


def _family(space: Any, resources: Any) -> str:
    """What a colour space is, by name: "rgb", "gray", "cmyk", "pattern" or its own name.
    `space` is an operand of cs/CS (a resource name or a device space) or a resource value."""
    import pikepdf

    if isinstance(space, pikepdf.Name):
        device = {"/DeviceRGB": "rgb", "/DeviceGray": "gray", "/DeviceCMYK": "cmyk",
                  "/Pattern": "pattern", "/RGB": "rgb", "/G": "gray", "/CMYK": "cmyk"}
        if str(space) in device:
            return device[str(space)]
        spaces = resources.get("/ColorSpace") if resources is not None else None
        if spaces is None or space not in spaces:
            return str(space)
        return _family(spaces[space], None)
    if isinstance(space, pikepdf.Array) and len(space):
        kind = str(space[0])
        if kind == "/ICCBased":
            return {1: "gray", 3: "rgb", 4: "cmyk"}.get(int(space[1].get("/N", 0)), kind)
        if kind == "/Pattern" and len(space) == 1:
            return "pattern"
        return kind
    return str(space)


class _Converter:
    """Every colour of a PDF to DeviceCMYK, walking each content stream once (page contents,
    form XObjects, tiling patterns), with the shadings, images and graphics states they use;
    what cannot be converted or is transparent raises NotPrintable, naming `where`."""

    def __init__(self, where: str, press: Press) -> None:
        self.where = where
        self.press = press
        self.done: set[tuple[int, int]] = set()
        self.spaces: list[Any] = []  # every /ColorSpace resource dictionary met

    def cmyk(self, operands: Iterable[Any]) -> list[Decimal]:
        """The CMYK of an operator's RGB (3 numbers) or grey (1) operands."""
        values = [float(v) for v in operands]
        return list(self.press.cmyk(*(values * 3 if len(values) == 1 else values)))

    def refuse(self, what: str) -> NotPrintable:
        return NotPrintable(f"{self.where}: {what}: cannot be printed as PDF/X-1a (CMYK, no "
                            "transparency)")

    def first_time(self, obj: Any) -> bool:
        """Whether `obj` (an indirect object) is met for the first time; direct ones are."""
        if not obj.is_indirect:
            return True
        if obj.objgen in self.done:
            return False
        self.done.add(obj.objgen)
        return True

    def stream(self, holder: Any, resources: Any) -> None:
        """One content stream (a form XObject or tiling pattern, whole) and its resources.
        Black and dark grey text (a neutral fill of at least BLACK_TEXT K) prints as 100% K
        overprinting what is under it: a screened grey breaks small letters into dots, and
        black that knocks out leaves a white rim wherever the plates are a hair out of
        register (printing.preflight checks both)."""
        import pikepdf

        if not self.first_time(holder):
            return
        self.resources(resources)
        result = []
        state = ["gray", "gray"]  # fill and stroke colour spaces
        fill: tuple[Decimal, ...] = BLACK  # the fill colour, in CMYK
        saved: list[tuple[list[str], tuple[Decimal, ...]]] = []
        text = overprinting = False
        for instruction in pikepdf.parse_content_stream(holder):
            if isinstance(instruction, pikepdf.ContentStreamInlineImage):
                raise self.refuse("an inline image")
            operands: list[Any] = list(instruction.operands)
            operator = instruction.operator
            name = str(operator)
            if name == "q":
                saved.append((list(state), fill))
            elif name == "Q" and saved:
                state, fill = saved.pop()
            elif name in _RGB_OPERATORS:
                operands, operator = self.cmyk(operands), pikepdf.Operator(
                    _RGB_OPERATORS[name])
            elif name in ("cs", "CS"):
                family = _family(operands[0], resources)
                self._space(family)
                state[name == "CS"] = family  # its sc/scn operands still in that space
                if family in ("rgb", "gray"):
                    operands = [pikepdf.Name.DeviceCMYK]
            elif name in _SET_COLOUR and state[_SET_COLOUR[name]] in ("rgb", "gray"):
                operands = self.cmyk(operands)
            if str(operator) == "k" or (str(operator) in ("sc", "scn") and len(operands) == 4
                                        and state[0] in ("rgb", "gray", "cmyk")):
                fill = tuple(Decimal(str(v)) for v in operands)
            if name == "ET" and overprinting:  # back to the colour and state set outside
                result.append((operands, operator))
                result += [([pikepdf.Name(KNOCKOUT)], pikepdf.Operator("gs")),
                           (list(fill), pikepdf.Operator("k"))]
                text = overprinting = False
                continue
            result.append((operands, operator))
            if name == "BT":
                text = True
            if text and (name == "BT" or str(operator) in ("k", "sc", "scn")):
                black = _black_text(fill)
                if black != overprinting:
                    result.append(([pikepdf.Name(OVERPRINT if black else KNOCKOUT)],
                                   pikepdf.Operator("gs")))
                    overprinting = black
                if black and fill != BLACK:
                    result.append((list(BLACK), pikepdf.Operator("k")))
            elif name == "ET":
                text = False
        if any(op == pikepdf.Operator("gs") and operands[:1] == [pikepdf.Name(OVERPRINT)]
               for operands, op in result):
            _add_overprint_states(holder)
        holder.write(pikepdf.unparse_content_stream(result))
        if "/Group" in holder:  # a transparency group of opaque content: drawn the same
            del holder["/Group"]

    def finish(self) -> None:
        """Once every stream is converted: the colour spaces left in the resources are no
        longer set by any of them (an RGB or grey one became DeviceCMYK where it was set, any
        other was refused), so all but CMYK and patterns go."""
        for spaces in self.spaces:
            for name in list(spaces.keys()):
                if _family(spaces[name], None) not in ("cmyk", "pattern"):
                    del spaces[name]

    def _space(self, family: str) -> None:
        if family not in ("rgb", "gray", "cmyk", "pattern"):
            raise self.refuse(f"colour space {family}")

    def resources(self, resources: Any) -> None:
        """A resource dictionary: its graphics states checked, its colour spaces, XObjects,
        patterns and shadings converted."""
        if resources is None or not self.first_time(resources):
            return
        for state in (resources.get("/ExtGState") or {}).values():
            self.graphics_state(state)
        if "/ColorSpace" in resources:
            self.spaces.append(resources.ColorSpace)  # cleared by finish(), once read
        for xobject in (resources.get("/XObject") or {}).values():
            if xobject.get("/Subtype") == "/Form":
                self.stream(xobject, xobject.get("/Resources"))
            elif xobject.get("/Subtype") == "/Image":
                self.image(xobject)
        for pattern in (resources.get("/Pattern") or {}).values():
            if int(pattern.get("/PatternType", 0)) == 1:
                self.stream(pattern, pattern.get("/Resources"))
            else:
                if "/ExtGState" in pattern:
                    self.graphics_state(pattern.ExtGState)
                self.shading(pattern.Shading)
        for shading in (resources.get("/Shading") or {}).values():
            self.shading(shading)

    def graphics_state(self, state: Any) -> None:
        for key in ("/ca", "/CA"):
            if key in state and float(state[key]) < 1:
                raise self.refuse(f"opacity {key} {float(state[key]):g}")
        if str(state.get("/SMask", "/None")) != "/None":
            raise self.refuse("a soft mask")
        if str(state.get("/BM", "/Normal")) not in ("/Normal", "/Compatible"):
            raise self.refuse(f"blend mode {state.BM}")

    def shading(self, shading: Any) -> None:
        """An axial or radial shading's colour space and functions (types 2 and 3)."""
        if not self.first_time(shading):
            return
        family = _family(shading.ColorSpace, None)
        if family == "cmyk":
            return
        if family not in ("rgb", "gray") or int(shading.ShadingType) not in (1, 2, 3):
            raise self.refuse(f"a shading of type {shading.ShadingType} in {family}")
        shading.ColorSpace = _device_cmyk()
        if "/Background" in shading:
            shading.Background = _array(self.cmyk(shading.Background))
        if _is_array(shading.Function):  # one function per colour component
            raise self.refuse("a shading with a function per component")
        self.function(shading.Function)

    def function(self, function: Any) -> None:
        """An exponential function's two colours; a stitching function's parts."""
        kind = int(function.FunctionType)
        if kind == 3:
            for part in function.Functions:
                self.function(part)
        elif kind == 2 and float(function.get("/N", 1)) == 1:
            # Linear between two colours of at most TAC: every colour between them too.
            for key, default in (("/C0", [0]), ("/C1", [1])):
                function[key] = _array(self.cmyk(function.get(key, default)))
        else:
            raise self.refuse(f"a shading function of type {kind}")

    def image(self, image: Any) -> None:
        """A raster image's pixels to CMYK, 8 bits, Flate-compressed."""
        import pikepdf

        if not self.first_time(image) or image.get("/ImageMask", False):
            return  # a stencil mask is painted in the fill colour, converted where it is set
        if "/SMask" in image or "/Mask" in image:  # transparency, or a colour key in RGB
            raise self.refuse("an image with a mask")
        if _family(image.get("/ColorSpace"), None) == "cmyk":
            return
        pixels = pikepdf.PdfImage(image).as_pil_image().convert("RGB")
        data = self.press.image(np.asarray(pixels, dtype=float) / 255.0).tobytes()
        image.write(zlib.compress(data, 9), filter=pikepdf.Name.FlateDecode)
        image.ColorSpace = pikepdf.Name.DeviceCMYK
        image.BitsPerComponent = 8
        for key in ("/Decode", "/DecodeParms"):
            if key in image:
                del image[key]


def _device_cmyk() -> Any:
    import pikepdf

    return pikepdf.Name.DeviceCMYK


def _is_array(obj: Any) -> bool:
    import pikepdf

    return isinstance(obj, pikepdf.Array)


def _array(values: Iterable[Decimal]) -> Any:
    import pikepdf

    return pikepdf.Array(list(values))


def deck(cards: Path, sides: list[int], title: str, press: Press | None = None) -> bytes:
    """The deck's PDF for DTC: for each entry of `sides` (the card's front, then its back, for
    every card), a page showing that page of `cards` (a cards-<group>.pdf: one face a page,
    bleed included, TrimBox set). Each face is one form XObject, converted to CMYK once and
    drawn on every page that shows it (a back on every other page). `press`: the colour
    conversion, made here unless given (a build makes one for all its decks)."""
    import pikepdf

    out = pikepdf.new()
    with pikepdf.open(cards) as source:
        forms: dict[int, Any] = {}
        for side in sides:
            page = source.pages[side]
            if side not in forms:
                form = page.as_form_xobject()
                form.BBox = page.mediabox  # the whole bleed
                forms[side] = out.copy_foreign(form)
            bleed = pikepdf.Array([float(v) for v in page.mediabox])
            out.pages.append(pikepdf.Page(pikepdf.Dictionary(
                Type=pikepdf.Name.Page, MediaBox=bleed, BleedBox=bleed,
                TrimBox=pikepdf.Array([float(v) for v in page.trimbox]),
                Resources=pikepdf.Dictionary(XObject=pikepdf.Dictionary(Face=forms[side])),
                Contents=out.make_stream(b"q /Face Do Q"))))
    converter = _Converter(title, press or Press())
    for form in forms.values():
        converter.stream(form, form.get("/Resources"))
    converter.finish()
    _check_fonts(converter, forms.values())
    _mark_pdfx(out, title)
    buffer = BytesIO()
    out.save(buffer, deterministic_id=True, compress_streams=True, force_version="1.4",
             object_stream_mode=pikepdf.ObjectStreamMode.disable)
    return buffer.getvalue()


def _check_fonts(converter: _Converter, forms: Iterable[Any]) -> None:
    """Every font the faces use is embedded (PDF/X-1a), none a Type 3 font (its glyphs are
    content streams of their own, with their own colours)."""
    for font in _fonts(forms):
        if font.Subtype == "/Type3":
            raise converter.refuse(f"Type 3 font {font.get('/Name', '')}")
        described = font.DescendantFonts[0] if font.Subtype == "/Type0" else font
        descriptor = described.get("/FontDescriptor")
        if descriptor is None or not any(
                key in descriptor for key in ("/FontFile", "/FontFile2", "/FontFile3")):
            raise converter.refuse(f"font {font.get('/BaseFont')} not embedded")


def _fonts(forms: Iterable[Any]) -> list[Any]:
    """The fonts of `forms` and of every form and tiling pattern inside them."""
    found, todo, seen = [], list(forms), set()
    while todo:
        holder = todo.pop()
        resources = holder.get("/Resources")
        if resources is None or holder.objgen in seen:
            continue
        seen.add(holder.objgen)
        found += list((resources.get("/Font") or {}).values())
        todo += [x for x in (resources.get("/XObject") or {}).values()
                 if x.get("/Subtype") == "/Form"]
        todo += [p for p in (resources.get("/Pattern") or {}).values()
                 if int(p.get("/PatternType", 0)) == 1]
    return found


def _mark_pdfx(pdf: Any, title: str) -> None:
    """PDF/X-1a:2003's marks: its version and trapping in the Info dictionary, the output
    intent (DTC's printing condition, by its registered name), fixed dates."""
    import pikepdf

    pdf.docinfo = pdf.make_indirect(pikepdf.Dictionary(
        Title=pikepdf.String(title), Creator=pikepdf.String("synergy-forge"),
        Producer=pikepdf.String("synergy-forge (WeasyPrint, pikepdf)"),
        CreationDate=pikepdf.String(FIXED_DATE), ModDate=pikepdf.String(FIXED_DATE),
        GTS_PDFXVersion=pikepdf.String(PDFX_VERSION),
        GTS_PDFXConformance=pikepdf.String("PDF/X-1a:2003"), Trapped=pikepdf.Name("/False")))
    pdf.Root.OutputIntents = pikepdf.Array([pikepdf.Dictionary(
        Type=pikepdf.Name.OutputIntent, S=pikepdf.Name.GTS_PDFX,
        OutputConditionIdentifier=pikepdf.String(OUTPUT_CONDITION),
        OutputCondition=pikepdf.String("Commercial offset printing on coated paper (SWOP)"),
        RegistryName=pikepdf.String(REGISTRY), Info=pikepdf.String(OUTPUT_CONDITION))])
