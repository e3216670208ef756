"""`build --preset dtc`: the DriveThruCards decks, read back from the PDFs the build writes
(one small campaign, in French, built once per run: conftest.shop_kit), and the
colour conversion on a made-up PDF that holds what WeasyPrint's do not (RGB images, named
colour spaces, transparency)."""

from __future__ import annotations

import zlib
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

import numpy as np
import pikepdf
import pypdfium2 as pdfium
import pytest
from click.testing import CliRunner

from synergy_forge.authoring.loading import read_campaign
from synergy_forge.cli import main
from synergy_forge.printing import dtc
from synergy_forge.printing.html import single_faces
from synergy_forge.printing.kit import DARK, GROUPS, INKS, NEUTRAL_INK, PAPER, build_kit, text_ink
from synergy_forge.printing.press import Press, lab, preview

INCH = 72.0
TAC = 2.4 + 1e-9
GROUP_OF = {"/DeviceCMYK": 4, "/Pattern": 1}


@pytest.fixture(scope="module")
def built(shop_kit: Path) -> Path:
    """A two-mission campaign built with --preset dtc, French only (conftest.shop_kit, shared
    with test_build's tgc case)."""
    return shop_kit


def content_streams(holder: Any, seen: set | None = None) -> Iterator[tuple[Any, Any]]:
    """(stream, its resources) of `holder` (a page, form XObject or tiling pattern) and of
    every form and tiling pattern it uses, each once."""
    seen = set() if seen is None else seen
    key = holder.objgen if holder.is_indirect else id(holder)
    if key in seen:
        return
    seen.add(key)
    resources = holder.get("/Resources")
    yield holder, resources
    if resources is None:
        return
    for xobject in (resources.get("/XObject") or {}).values():
        if xobject.Subtype == "/Form":
            yield from content_streams(xobject, seen)
    for pattern in (resources.get("/Pattern") or {}).values():
        if pattern.PatternType == 1:
            yield from content_streams(pattern, seen)


def check_colours(pdf: pikepdf.Pdf) -> int:
    """Assert every colour of `pdf` is CMYK within the TAC, with no transparency; the number
    of colour operators seen."""
    seen = 0
    for page in pdf.pages:
        for holder, resources in content_streams(page.obj):
            assert "/Group" not in holder  # no transparency group
            spaces = resources.get("/ColorSpace") if resources is not None else None
            fill = stroke = "/DeviceGray"
            for operands, operator in pikepdf.parse_content_stream(holder):
                op = str(operator)
                assert op not in ("rg", "RG", "g", "G", "BI"), (op, operands)
                if op in ("cs", "CS"):
                    name = operands[0]
                    space = str(spaces[name]) if spaces and name in spaces else str(name)
                    assert space in GROUP_OF, space
                    fill, stroke = (space, stroke) if op == "cs" else (fill, space)
                elif op in ("sc", "scn", "SC", "SCN"):
                    space = fill if op.islower() else stroke
                    assert len(operands) == GROUP_OF[space], (space, operands)
                    if space == "/DeviceCMYK":
                        assert sum(float(v) for v in operands) <= TAC, operands
                        seen += 1
                elif op in ("k", "K"):
                    assert len(operands) == 4
                    assert all(0 <= float(v) <= 1 for v in operands), operands
                    assert sum(float(v) for v in operands) <= TAC, operands
                    seen += 1
            check_resources(resources)
    return seen


def check_resources(resources: Any) -> None:
    if resources is None:
        return
    for state in (resources.get("/ExtGState") or {}).values():
        assert float(state.get("/ca", 1)) == 1 and float(state.get("/CA", 1)) == 1
        assert str(state.get("/SMask", "/None")) == "/None"
    for xobject in (resources.get("/XObject") or {}).values():
        if xobject.Subtype == "/Image":
            assert xobject.ColorSpace == "/DeviceCMYK" and "/SMask" not in xobject
    shadings = list((resources.get("/Shading") or {}).values()) + [
        p.Shading for p in (resources.get("/Pattern") or {}).values() if p.PatternType == 2]
    for shading in shadings:
        assert shading.ColorSpace == "/DeviceCMYK"
        functions = [shading.Function]
        while functions:
            function = functions.pop()
            if function.FunctionType == 3:
                functions += list(function.Functions)
                continue
            for key in ("/C0", "/C1"):
                assert len(function[key]) == 4 and sum(map(float, function[key])) <= TAC


def drawn_form(page: Any) -> Any:
    """The one form XObject a deck's page draws (its face)."""
    instructions = [str(op) for _, op in pikepdf.parse_content_stream(page.obj)]
    assert instructions.count("Do") == 1
    (form,) = page.obj.Resources.XObject.values()
    return form


def page_texts(path: Path) -> list[str]:
    document = pdfium.PdfDocument(path)
    try:
        return [document[i].get_textpage().get_text_range() for i in range(len(document))]
    finally:
        document.close()


@pytest.fixture(scope="module")
def press() -> Press:
    return Press()


def hex_cmyk(press: Press, colour: str) -> list[float]:
    return [float(v) for v in press.cmyk(*(int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)))]


def test_rgb_to_cmyk(press):
    assert hex_cmyk(press, "#ffffff") == [0, 0, 0, 0]  # white: no ink
    assert hex_cmyk(press, "#000000") == [0, 0, 0, 1]  # black: K alone, no rich black
    grey = hex_cmyk(press, "#808080")
    assert grey[:3] == [0, 0, 0] and 0.4 < grey[3] < 0.7
    # the kit's text black: grey enough to print on the K plate alone
    assert hex_cmyk(press, "#1d1d1f") == [0, 0, 0, 1]
    assert hex_cmyk(press, PAPER) == [0, 0, 0, 0]  # the card stock, not a 2% tint over it
    # The kit's inks keep their hue and lightness: mostly their own inks, little K.
    red, yellow, green, blue = (hex_cmyk(press, c) for c in ("#d7263d", "#f2b701", "#2e9e44",
                                                               "#1b6fc2"))
    assert red[1] > 0.8 and red[2] > 0.6 and red[0] <= 0.1 and red[3] <= 0.2
    assert yellow[2] > 0.9 and yellow[1] < 0.4 and yellow[0] <= 0.1
    assert green[0] > 0.6 and green[2] > 0.8 and green[1] <= 0.1 and green[3] <= 0.2
    assert blue[0] > 0.8 and blue[2] <= 0.1
    # every colour within the 240% limit, with each ink between 0 and 100%
    steps = np.linspace(0, 1, 8)
    rgb = np.stack(np.meshgrid(steps, steps, steps), -1).reshape(-1, 3)
    cmyk = press.cmyk_array(rgb)
    assert cmyk.min() >= 0 and cmyk.max() <= 1 and cmyk.sum(axis=1).max() <= TAC
    # The kit's own colours, as PDFium shows their CMYK, are the colours asked for (CIE76
    # colour difference under 6; the textbook C = 1 - R... with K = 1 - max showed the green
    # 20 away, a dark teal): its inks, the text inks made from them, paper, dark, neutral.
    colours = [*INKS, NEUTRAL_INK, PAPER, DARK, *(text_ink(ink) for ink in INKS)]
    rgb = np.array([[int(c[i:i + 2], 16) / 255 for i in (1, 3, 5)] for c in colours])
    difference = np.linalg.norm(lab(preview(press.cmyk_array(rgb))) - lab(rgb), axis=1)
    assert difference.max() < 6, dict(zip(colours, difference.round(1), strict=True))


def made_up_pdf(path: Path, state: dict[str, Any] | None = None) -> None:
    """One card-sized page using RGB in every way the converter handles: rg/RG/g, sc in a
    named ICC RGB space, a form XObject, an RGB image, an axial shading."""
    pdf = pikepdf.new()
    pdf.add_blank_page(page_size=(198, 270))
    page = pdf.pages[0]
    page.obj.TrimBox = pikepdf.Array([9, 9, 189, 261])
    profile = pdf.make_stream(b"not read", N=3)
    image = pdf.make_stream(zlib.compress(bytes([0, 0, 0, 255, 255, 255, 255, 0, 0, 128, 0, 0])),
                            Type=pikepdf.Name.XObject, Subtype=pikepdf.Name.Image, Width=2,
                            Height=2, ColorSpace=pikepdf.Name.DeviceRGB, BitsPerComponent=8,
                            Filter=pikepdf.Name.FlateDecode)
    form = pdf.make_stream(b"0 0 1 rg 0 0 10 10 re f", Type=pikepdf.Name.XObject,
                           Subtype=pikepdf.Name.Form, BBox=[0, 0, 10, 10])
    shading = pikepdf.Dictionary(ShadingType=2, ColorSpace=pikepdf.Name.DeviceRGB,
                                 Coords=[0, 0, 10, 0], Function=pikepdf.Dictionary(
                                     FunctionType=2, Domain=[0, 1], N=1, C0=[0.5, 0, 0],
                                     C1=[1, 1, 1]))
    page.obj.Resources = pikepdf.Dictionary(
        ColorSpace=pikepdf.Dictionary(CS0=pikepdf.Array([pikepdf.Name.ICCBased, profile])),
        XObject=pikepdf.Dictionary(Im0=image, Fm0=form), Shading=pikepdf.Dictionary(Sh0=shading),
        ExtGState=pikepdf.Dictionary(G0=pikepdf.Dictionary(state or {"/ca": 1})))
    page.obj.Contents = pdf.make_stream(
        b"/G0 gs 1 0 0 rg 0 1 0 RG 0.25 g 0.75 G q /CS0 cs 0 0 0 sc /DeviceRGB CS 0.5 0 0 SCN "
        b"Q 1 1 1 rg /Fm0 Do /Im0 Do /Sh0 sh")
    pdf.save(path)


def test_every_colour_of_a_made_up_page_becomes_cmyk(tmp_path, press):
    made_up_pdf(tmp_path / "rgb.pdf")
    with pikepdf.open(tmp_path / "rgb.pdf") as before, pytest.raises(AssertionError):
        check_colours(before)  # the check can fail
    data = dtc.deck(tmp_path / "rgb.pdf", [0, 0], "made up", press)
    assert dtc.deck(tmp_path / "rgb.pdf", [0, 0], "made up", press) == data  # reproducible
    with pikepdf.open(BytesIO(data)) as pdf:
        assert check_colours(pdf) >= 7
        face = drawn_form(pdf.pages[0])
        ops = [(str(op), [float(v) for v in operands])
               for operands, op in pikepdf.parse_content_stream(face)
               if str(op) in ("k", "K", "sc", "SCN")]

        def converted(op: str, r: float, g: float, b: float) -> tuple[str, list[float]]:
            return op, [float(v) for v in press.cmyk(r, g, b)]

        # in the order of the page: red, green, two greys, /CS0's black, a dark red in
        # /DeviceRGB; after Q, white set with rg again (no longer in /CS0)
        assert ops[:7] == [converted("k", 1, 0, 0), converted("K", 0, 1, 0),
                           ("k", [0, 0, 0, ops[2][1][3]]), ("K", [0, 0, 0, ops[3][1][3]]),
                           ("sc", [0, 0, 0, 1]), converted("SCN", 0.5, 0, 0),
                           ("k", [0, 0, 0, 0])]
        assert ops[2][1][3] > ops[3][1][3] > 0  # 0.25 g darker than 0.75 G
        image = face.Resources.XObject.Im0
        assert image.ColorSpace == "/DeviceCMYK" and image.BitsPerComponent == 8
        pixels = np.frombuffer(image.read_bytes(), dtype=np.uint8).reshape(4, 4)
        assert pixels[0].tolist() == [0, 0, 0, 255] and pixels[1].tolist() == [0, 0, 0, 0]
        assert pixels[2].tolist() == [round(v * 255) for v in converted("k", 1, 0, 0)[1]]
        function = face.Resources.Shading.Sh0.Function
        assert [float(v) for v in function.C1] == [0, 0, 0, 0]
        assert "/CS0" not in face.Resources.ColorSpace  # RGB: set nowhere any more


@pytest.mark.parametrize("state", [{"/ca": 0.5}, {"/CA": 0.2}, {"/SMask": pikepdf.Dictionary()},
                                   {"/BM": pikepdf.Name.Multiply}])
def test_transparency_is_refused(tmp_path, state, press):
    made_up_pdf(tmp_path / "clear.pdf", state)
    with pytest.raises(dtc.NotPrintable, match=r"made up: .*PDF/X-1a"):
        dtc.deck(tmp_path / "clear.pdf", [0], "made up", press)


def test_the_decks_are_cmyk_front_back_pages_of_the_card_with_its_bleed(built):
    campaign = read_campaign(built / "camp").campaign
    assert campaign is not None
    kit = build_kit(campaign)
    folder = built / "out" / "fr"
    for group in GROUPS:
        path, cards = folder / "dtc" / f"{group}.pdf", kit[group]
        faces = [face.key for face in single_faces(cards)]
        sides = [faces.index(f.key) for card in cards for f in (card.front, card.back)]
        with pikepdf.open(path) as pdf:
            assert len(pdf.pages) == 2 * len(cards), group
            assert pdf.pdf_version == "1.4"
            assert check_colours(pdf) > 0
            form_of: dict[int, Any] = {}
            for number, page in enumerate(pdf.pages):
                trim = [float(v) for v in page.trimbox]
                assert trim[2] - trim[0] == pytest.approx(2.5 * INCH, abs=0.01)
                assert trim[3] - trim[1] == pytest.approx(3.5 * INCH, abs=0.01)
                media = [float(v) for v in page.mediabox]
                assert [float(v) for v in page.obj.BleedBox] == media
                assert media[2] - media[0] == pytest.approx(2.75 * INCH, abs=0.01)
                assert media[3] - media[1] == pytest.approx(3.75 * INCH, abs=0.01)
                for inner, outer in zip(trim, media, strict=True):  # 1/8 in each side
                    assert abs(inner - outer) == pytest.approx(INCH / 8, abs=0.01)
                # the same face, the same form: a back is one object on every other page
                form_of.setdefault(sides[number], drawn_form(page).objgen)
                assert drawn_form(page).objgen == form_of[sides[number]]
            assert len(set(form_of.values())) == len(form_of)
        # Front, back, front, back: each page shows the text of its face in the cards PDF.
        own = page_texts(folder / f"cards-{group}.pdf")
        assert page_texts(path) == [own[side] for side in sides]
        backs = {card.back.key for card in cards}
        assert all(cards[n // 2].back.key in backs and faces[side] ==
                   (cards[n // 2].back.key if n % 2 else cards[n // 2].front.key)
                   for n, side in enumerate(sides))


def test_the_decks_are_marked_pdfx_with_their_fonts_embedded(built):
    for path in sorted((built / "out" / "fr" / "dtc").glob("*.pdf")):
        with pikepdf.open(path) as pdf:
            info = pdf.docinfo
            assert str(info.GTS_PDFXVersion) == "PDF/X-1:2003"
            assert info.Trapped == "/False" and str(info.Title).startswith("Petite - ")
            (intent,) = pdf.Root.OutputIntents
            assert intent.S == "/GTS_PDFX" and str(intent.OutputConditionIdentifier) == \
                "CGATS TR 001" and str(intent.RegistryName) == "http://www.color.org"
            fonts = [font for page in pdf.pages
                     for holder, resources in content_streams(page.obj) if resources
                     for font in (resources.get("/Font") or {}).values()]
            assert fonts, path.name
            for font in fonts:
                described = font.DescendantFonts[0] if font.Subtype == "/Type0" else font
                assert "/FontFile2" in described.FontDescriptor, font.get("/BaseFont")


def with_lab_colour(pdf: pikepdf.Pdf) -> None:
    page = pdf.pages[0].obj
    page.Resources.ColorSpace.L0 = pikepdf.Array([pikepdf.Name.Lab, pikepdf.Dictionary(
        WhitePoint=[0.9505, 1, 1.089])])
    page.Contents = pdf.make_stream(b"/L0 cs 50 0 0 sc " + page.Contents.read_bytes())


def with_soft_masked_image(pdf: pikepdf.Pdf) -> None:
    image = pdf.pages[0].obj.Resources.XObject.Im0
    image.SMask = pdf.make_stream(bytes([255, 0, 255, 0]), Type=pikepdf.Name.XObject,
                                  Subtype=pikepdf.Name.Image, Width=2, Height=2,
                                  ColorSpace=pikepdf.Name.DeviceGray, BitsPerComponent=8)


@pytest.mark.parametrize(("change", "named"), [(with_lab_colour, "colour space /Lab"),
                                               (with_soft_masked_image, "an image with a mask")])
def test_what_cannot_be_converted_is_refused(tmp_path, press, change, named):
    made_up_pdf(tmp_path / "rgb.pdf")
    with pikepdf.open(tmp_path / "rgb.pdf") as pdf:
        change(pdf)
        pdf.save(tmp_path / "changed.pdf")
    with pytest.raises(dtc.NotPrintable, match=f"made up: {named}: cannot be printed"):
        dtc.deck(tmp_path / "changed.pdf", [0], "made up", press)


def test_the_preset_is_dtc_s_card(tmp_path):
    """DTC's own figures: 2.5 x 3.5 in trimmed, 1/8 in of bleed, 825 x 1125 px at 300 DPI."""
    from synergy_forge.printing.jobs import PRESETS

    preset = PRESETS["dtc"]
    card = preset.card
    assert (card.width, card.height, card.bleed) == (63.5, 88.9, 3.175)
    assert card.safe >= 3.175  # the text inside DTC's safe area
    pixels = tuple(round((side + 2 * card.bleed) / 25.4 * 300) for side in (card.width,
                                                                            card.height))
    assert pixels == preset.pixels == (825, 1125)
    refused = CliRunner().invoke(main, ["build", "--preset", "dtc", "--card-size", "63x88",
                                        "--out", str(tmp_path / "x")])
    assert refused.exit_code == 2 and "--preset sets the card size" in refused.output
    refused = CliRunner().invoke(main, ["build", "--preset", "tgc", "--no-png",
                                        "--out", str(tmp_path / "x")])
    assert refused.exit_code == 2 and "drop --no-png" in refused.output
    assert not (tmp_path / "x").exists()


def test_black_text_is_100_percent_k_and_overprints(built):
    """The kit's black (#1d1d1f) and dark grey (#444, 88% K as converted) text, small
    text above all, printed as screened K and knocked out of the colours under it: in the
    decks every character drawn in a neutral fill of 70% K or more is 100% K, in a graphics
    state that overprints (OP and op true, OPM 1); lighter and coloured text is left alone.
    Read from the decks' content streams, each text-showing operator with the colour and
    overprint in force."""
    texts = {"black": 0, "other": 0}
    for path in sorted((built / "out" / "fr" / "dtc").glob("*.pdf")):
        with pikepdf.open(path) as pdf:
            for page in pdf.pages:
                for holder, resources in content_streams(page.obj):
                    states = dict((resources.get("/ExtGState") or {}).items()) \
                        if resources is not None else {}
                    colour, overprint, saved = [0, 0, 0, 1], False, []
                    for operands, op in pikepdf.parse_content_stream(holder):
                        name = str(op)
                        if name == "q":
                            saved.append((colour, overprint))
                        elif name == "Q":
                            colour, overprint = saved.pop()
                        elif name == "k":
                            colour = [float(v) for v in operands]
                        elif name == "gs" and "/op" in states[str(operands[0])]:
                            state = states[str(operands[0])]
                            overprint = bool(state.op) and int(state.get("/OPM", 0)) == 1
                        elif name in ("Tj", "TJ"):
                            dark = colour[:3] == [0, 0, 0] and colour[3] >= 0.7
                            texts["black" if dark else "other"] += 1
                            if dark:
                                assert colour[3] == 1 and overprint, (path.name, colour)
                            else:
                                assert not overprint, (path.name, colour)
    assert texts["black"] > 100 and texts["other"] > 20, texts


def test_every_deck_passes_our_preflight(built):
    """The build runs printing.preflight on every deck (and stops on what it finds): the
    decks it wrote pass it."""
    from synergy_forge.printing.jobs import PRESETS
    from synergy_forge.printing.preflight import preflight
    from synergy_forge.printing.press import TAC as LIMIT

    decks = sorted((built / "out" / "fr" / "dtc").glob("*.pdf"))
    assert len(decks) == len(GROUPS)
    for path in decks:
        assert preflight(path.read_bytes(), PRESETS["dtc"].card, LIMIT) == [], path.name


def broken(tmp_path: Path, press: Press, change: Any) -> bytes:
    """A made-up page converted into a deck, then changed by `change(pdf)` as a file a
    careless tool could have written."""
    made_up_pdf(tmp_path / "rgb.pdf")
    data = dtc.deck(tmp_path / "rgb.pdf", [0, 0], "made up", press)
    with pikepdf.open(BytesIO(data)) as pdf:
        change(pdf)
        buffer = BytesIO()
        pdf.save(buffer)
    return buffer.getvalue()


def no_trim_box(pdf: pikepdf.Pdf) -> None:
    del pdf.pages[0].obj["/TrimBox"]


def narrow_bleed(pdf: pikepdf.Pdf) -> None:
    pdf.pages[1].obj.BleedBox = pikepdf.Array([4, 4, 194, 266])


def rgb_again(pdf: pikepdf.Pdf) -> None:
    face = drawn_form(pdf.pages[0])
    face.write(b"1 0 0 rg 0 0 5 5 re f " + face.read_bytes())


def heavy_ink(pdf: pikepdf.Pdf) -> None:
    face = drawn_form(pdf.pages[0])
    face.write(b"1 1 1 0 k 0 0 5 5 re f " + face.read_bytes())


def grey_text(pdf: pikepdf.Pdf) -> None:
    face = drawn_form(pdf.pages[0])
    face.write(face.read_bytes() + b" BT 0 0 0 0.88 k /F1 8 Tf (x) Tj ET")


def half_opaque(pdf: pikepdf.Pdf) -> None:
    face = drawn_form(pdf.pages[0])
    face.Resources.ExtGState.G0.ca = 0.5


def no_version(pdf: pikepdf.Pdf) -> None:
    del pdf.docinfo["/GTS_PDFXVersion"]


def no_intent(pdf: pikepdf.Pdf) -> None:
    del pdf.Root["/OutputIntents"]


def font_not_embedded(pdf: pikepdf.Pdf) -> None:
    face = drawn_form(pdf.pages[0])
    face.Resources.Font = pikepdf.Dictionary(F1=pikepdf.Dictionary(
        Type=pikepdf.Name.Font, Subtype=pikepdf.Name.TrueType,
        BaseFont=pikepdf.Name("/Forgotten"), FontDescriptor=pikepdf.Dictionary(
            Type=pikepdf.Name.FontDescriptor, FontName=pikepdf.Name("/Forgotten"))))


@pytest.mark.parametrize(("change", "found"), [
    (no_trim_box, "page 1: no TrimBox"),
    (narrow_bleed, "page 2: bleed of 1.76, 1.76, 1.76, 1.76 mm, not 3.175 mm on every side"),
    (rgb_again, "page 1: colour in RGB (rg)"),
    (heavy_ink, "page 1: total ink 300%, over 240%"),
    (grey_text, "page 1: black text at 88% K, knocking out"),
    (half_opaque, "page 1: transparency (opacity ca 0.5)"),
    (no_version, "no PDF/X-1a version (GTS_PDFXVersion) in the Info dictionary"),
    (no_intent, "0 PDF/X output intents, where one is needed"),
    (font_not_embedded, "page 1: font /Forgotten not embedded"),
])
def test_the_preflight_finds_what_a_shop_would_refuse(tmp_path, press, change, found):
    from synergy_forge.printing.jobs import PRESETS
    from synergy_forge.printing.preflight import preflight

    card = PRESETS["dtc"].card
    made_up_pdf(tmp_path / "rgb.pdf")
    assert preflight(dtc.deck(tmp_path / "rgb.pdf", [0, 0], "made up", press), card, 2.4) == []
    assert found in preflight(broken(tmp_path, press, change), card, 2.4)
