"""RGB to CMYK for the DriveThruCards decks (printing/dtc.py), without a colour profile.

There is no CMYK ICC profile on this machine, and no colour management in the toolkit. The
textbook conversion (C = 1 - R... with the grey moved to K) assumes inks that absorb one
primary each: real ones print darker, so its mid-tones came out dark and shifted (the kit's
green as a dark teal, with its black text no longer readable on it). Instead, a `Press`
asks PDFium how it shows CMYK: PDFium converts CMYK for the screen with a built-in table
that gives Adobe's U.S. Web Coated (SWOP) preview colours (100% K as #231F20, 100% C as
#00AEEF, as Adobe's applications show them), SWOP being the printing condition the decks
declare (CGATS TR 001). A `Press` renders a grid of CMYK samples once, and each RGB
colour becomes the sample PDFium shows closest to it (CIE76 colour difference, with a little
weight on ink so that the lighter of two near matches wins), among those within the total
ink limit. Greys print on the K plate alone, their K chosen by lightness, so that black is
K 100% and text stays sharp on one plate (and the lightest as the paper). This is a match to
a preview, not a colour-managed conversion: what the print shop's RIP does with it is not
checked (docs/printing.md).
"""

from __future__ import annotations

import io
import zlib
from decimal import Decimal

import numpy as np

#: Total area coverage: DTC's limit on C+M+Y+K, as a fraction.
TAC = 2.4
#: The CMYK grid searched: each ink in steps of 1/STEPS (10%: finer steps found colours
#: no nearer to the kit's, at six times the search).
STEPS = 10
#: An RGB colour whose channels differ by at most this is grey, printed with K alone.
NEUTRAL = 0.02
#: A grey lighter than this much K prints as the paper: a press holds no finer dot, and the
#: kit's paper colour (#fbfaf7, 2% K) is meant as the card stock, not as a tint over it.
MIN_DOT = 0.03
#: Colour difference (CIE76) traded for 100% of ink: among near matches, the lighter inking.
INK_WEIGHT = 2.0
#: Colours searched at once (a block of distances: colours x samples, 20 MB).
BLOCK = 16


def _linear(channel: np.ndarray) -> np.ndarray:
    return np.where(channel <= 0.04045, channel / 12.92, ((channel + 0.055) / 1.055) ** 2.4)


def lab(rgb: np.ndarray) -> np.ndarray:
    """sRGB (0..1, last axis 3) to CIE L*a*b* (D65)."""
    xyz = _linear(np.asarray(rgb, dtype=float)) @ np.array(
        [[0.4124, 0.3576, 0.1805], [0.2126, 0.7152, 0.0722], [0.0193, 0.1192, 0.9505]]).T
    xyz = xyz / np.array([0.9505, 1.0, 1.089])
    f = np.where(xyz > 0.008856, np.cbrt(xyz), 7.787 * xyz + 16 / 116)
    return np.stack([116 * f[..., 1] - 16, 500 * (f[..., 0] - f[..., 1]),
                     200 * (f[..., 1] - f[..., 2])], axis=-1)


def preview(cmyk: np.ndarray) -> np.ndarray:
    """How PDFium shows each CMYK colour (0..1, rows of 4): sRGB 0..1, rows of 3. Drawn as
    one CMYK image, a pixel per colour (which PDFium converts as it converts `k` fills)."""
    import pikepdf
    import pypdfium2 as pdfium

    count = len(cmyk)
    width = 512
    height = max(3, -(-count // width))  # pikepdf makes pages of 3 points at least
    pixels = np.zeros((height * width, 4), dtype=np.uint8)
    pixels[:count] = np.round(np.asarray(cmyk) * 255)
    pdf = pikepdf.new()
    pdf.add_blank_page(page_size=(width, height))
    page = pdf.pages[0]
    image = pdf.make_stream(zlib.compress(pixels.tobytes(), 1), Type=pikepdf.Name.XObject,
                            Subtype=pikepdf.Name.Image, Width=width, Height=height,
                            ColorSpace=pikepdf.Name.DeviceCMYK, BitsPerComponent=8,
                            Filter=pikepdf.Name.FlateDecode)
    page.obj.Resources = pikepdf.Dictionary(XObject=pikepdf.Dictionary(S=image))
    page.obj.Contents = pdf.make_stream(f"{width} 0 0 {height} 0 0 cm /S Do".encode())
    buffer = io.BytesIO()
    pdf.save(buffer)
    document = pdfium.PdfDocument(buffer.getvalue())
    try:
        bgr = document[0].render(scale=1).to_numpy()
    finally:
        document.close()
    return bgr[..., 2::-1].reshape(-1, 3)[:count].astype(float) / 255.0


class Press:
    """RGB to CMYK by the samples PDFium shows (the module's docstring); made once per deck
    (about 0.2 s), each colour then searched among some 11 000 samples."""

    def __init__(self) -> None:
        steps = np.arange(STEPS + 1)
        grid = np.stack(np.meshgrid(steps, steps, steps, steps, indexing="ij"), -1)
        grid = grid.reshape(-1, 4)
        grid = grid[grid.sum(axis=1) <= round(TAC * STEPS)]  # the TAC, in whole steps
        ramp = np.zeros((256, 4))
        ramp[:, 3] = np.arange(256) / 255
        shown = lab(preview(np.concatenate([grid / STEPS, ramp])))
        self.grid = grid
        self.lab = shown[:len(grid)]
        self.norm = (self.lab ** 2).sum(axis=1)
        self.ink = grid.sum(axis=1) / STEPS
        self.k_lightness = shown[len(grid):, 0]  # L* of K alone, 0 to 100%
        self.known: dict[tuple[float, ...], tuple[Decimal, ...]] = {}  # cmyk()'s answers
        self.lattice: np.ndarray | None = None  # image()'s table, made for the first image

    def cmyk_array(self, rgb: np.ndarray) -> np.ndarray:
        """Colours (0..1, rows of 3) to CMYK (rows of 4) within the TAC."""
        rgb = np.clip(np.asarray(rgb, dtype=float).reshape(-1, 3), 0.0, 1.0)
        target = lab(rgb)
        out = np.zeros((len(rgb), 4))
        neutral = (rgb.max(axis=1) - rgb.min(axis=1)) <= NEUTRAL
        # K alone, by lightness: L* falls as K rises (np.interp wants it rising).
        ramp = np.arange(256)[::-1] / 255
        k = np.interp(target[neutral, 0], self.k_lightness[::-1], ramp)
        out[neutral, 3] = np.where(k < MIN_DOT, 0.0, k)
        chromatic = np.flatnonzero(~neutral)
        for start in range(0, len(chromatic), BLOCK):
            rows = chromatic[start:start + BLOCK]
            square = (self.norm[None, :] + (target[rows] ** 2).sum(axis=1)[:, None]
                      - 2 * target[rows] @ self.lab.T)
            distance = np.sqrt(np.maximum(square, 0.0))
            best = np.argmin(distance + INK_WEIGHT * self.ink[None, :], axis=1)
            out[rows] = self.grid[best] / STEPS
        return out

    def cmyk(self, r: float, g: float, b: float) -> tuple[Decimal, ...]:
        """One colour as content streams write it: four decimals, at most TAC in all (each
        colour searched once: a deck sets the same few colours again and again)."""
        key = (r, g, b)
        if key not in self.known:
            values = self.cmyk_array(np.array([r, g, b]))[0]
            self.known[key] = tuple(Decimal(f"{v:.4f}") for v in values)
        return self.known[key]

    def image(self, rgb: np.ndarray) -> np.ndarray:
        """An image's pixels (height x width x 3, 0..1) to CMYK bytes (height x width x 4): a
        lattice of 9 x 9 x 9 colours searched, each pixel interpolated between the eight
        around it (a mean of colours within the TAC is within it)."""
        if self.lattice is None:
            levels = np.linspace(0.0, 1.0, 9)
            lattice = np.stack(np.meshgrid(levels, levels, levels, indexing="ij"), -1)
            self.lattice = self.cmyk_array(lattice.reshape(-1, 3)).reshape(9, 9, 9, 4)
        table = self.lattice
        position = np.clip(rgb, 0.0, 1.0) * 8
        low = np.minimum(np.floor(position).astype(int), 7)
        frac = position - low
        out = np.zeros((*rgb.shape[:-1], 4))
        for corner in np.ndindex(2, 2, 2):
            weight = np.prod([frac[..., i] if c else 1 - frac[..., i]
                              for i, c in enumerate(corner)], axis=0)
            out += weight[..., None] * table[low[..., 0] + corner[0], low[..., 1] + corner[1],
                                             low[..., 2] + corner[2]]
        return np.floor(out * 255 + 1e-6).astype(np.uint8)
