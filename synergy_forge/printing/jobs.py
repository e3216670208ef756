"""What a build makes: its options, the documents (jobs) of each language, what each gave."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from synergy_forge.cardtext.geometry import DTC_POKER, MPC_POKER, TGC_POKER, CardSize
from synergy_forge.printing.kit import GROUPS


@dataclass(frozen=True)
class Job:
    """One document to render: `kind` is sheets, cards (one per page, for PNGs), rulebook,
    challenges or calibration; dtc is a deck for DriveThruCards (printing/dtc.py), made from
    its group's cards document, not rendered."""

    kind: str
    language: str
    group: str = ""

    @property
    def name(self) -> str:
        if self.kind == "sheets":
            return f"{self.group}.pdf"
        if self.kind == "cards":
            return f"cards-{self.group}.pdf"
        if self.kind == "dtc":
            return f"dtc/{self.group}.pdf"
        if self.kind == "manifest":  # `group`: its file's name (printing/manifest.py)
            return f"png/{self.group}"
        return f"{self.kind}.pdf"


class Overflow(NamedTuple):
    """A text that does not fit in its box on a card: the file it comes from ("" for the
    kit's own texts) and which of its texts (its field: "challenges", "goal G: name")."""

    source: str
    field: str

    @classmethod
    def parse(cls, what: str) -> Overflow:
        """From a box's data-what, "SOURCE|FIELD" (the templates'), once, as it is read."""
        source, _, name = what.partition("|")
        return cls(source, name)


@dataclass
class Rendered:
    job: Job
    path: Path
    pages: int
    seconds: float
    overflows: list[Overflow] = field(default_factory=list)
    missing: set[str] = field(default_factory=set)
    refused: list[str] = field(default_factory=list)
    pngs: list[Path] = field(default_factory=list)
    #: the cache key of the PDF (the hash of what it was made from)
    key: str = ""
    #: a piece of it was drawn where fontTools dates the fonts (draw.fonts_dated_by_fonttools)
    dated_fonts: bool = False


@dataclass(frozen=True)
class Options:
    paper: str = "a4"
    card: CardSize = field(default_factory=CardSize)
    png: bool = True
    #: Tabletop Simulator export (printing/tts.py), made from the PNGs; needs `png`.
    tts: bool = False
    #: Where the TTS sheets will be uploaded: their URLs become this + file name.
    tts_url_base: str | None = None
    #: Light backs and bands: no sheet more than a quarter covered in ink (build --ink-saver).
    ink_saver: bool = False
    #: "duplex": 3 x 3 cards a sheet, fronts then backs; "fold": single-sided sheets, each
    #: back beside its front, to fold (layout.fold_sheet).
    layout: str = "duplex"
    #: A print shop's preset: backs printed to the edge of the bleed, without the paper frame
    #: home duplex needs (a shop's cut, 1/16 in either way, would leave it uneven: a mark).
    full_bleed_backs: bool = False
    #: build --preset dtc: each deck also as DriveThruCards takes it, OUT/<lang>/dtc/<group>.pdf
    #: (front, back, front... in CMYK, PDF/X-1a: printing/dtc.py).
    dtc: bool = False
    #: build --preset: the shop (a key of PRESETS). For tgc and mpc, the PNGs come with a
    #: manifest of face, back and quantity (printing/manifest.py).
    shop: str | None = None


@dataclass(frozen=True)
class Preset:
    """A print shop's card: its size with the bleed it asks for; the 300 DPI PNG of each face
    and back is then exactly the image it takes (docs/printing.md)."""

    shop: str
    card: CardSize
    pixels: tuple[int, int]  # each card image, bleed included, at 300 DPI


#: Each shop's card (cardtext.geometry) and the image it takes of it, bleed included.
PRESETS = {
    "tgc": Preset("The Game Crafter", TGC_POKER, (825, 1125)),
    "mpc": Preset("MakePlayingCards", MPC_POKER, (822, 1122)),
    "dtc": Preset("DriveThruCards", DTC_POKER, (825, 1125)),
}


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
