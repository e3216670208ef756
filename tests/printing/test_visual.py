"""Visual regression: a few representative cards and the calibration page, rendered and compared
with the reference images in tests/references/ (small, 40 DPI), so that an unintended layout
change fails. After an intended change, look at the new images, then update them with

    SYNERGY_FORGE_UPDATE_REFERENCES=1 PYTHONPATH=$PWD .venv/bin/python -m pytest \
        tests/printing/test_visual.py

and commit tests/references/ (docs/printing.md).
"""

from __future__ import annotations

import os
from io import BytesIO
from pathlib import Path

import numpy as np
import pypdfium2 as pdfium
import pytest
from PIL import Image

from synergy_forge.authoring.loading import read_campaign
from synergy_forge.cardtext.i18n import Translator
from synergy_forge.printing.draw import RenderContext, draw
from synergy_forge.printing.html import html_for
from synergy_forge.printing.jobs import Job, Options
from synergy_forge.printing.kit import build_kit
from synergy_forge.resources import starter_campaign

REFERENCES = Path(__file__).parents[1] / "references"
#: One font configuration and parsed stylesheet for every drawing of this module, as in build.
CONTEXT = RenderContext()
DPI = 40
UPDATE = os.environ.get("SYNERGY_FORGE_UPDATE_REFERENCES") == "1"
#: A pixel counts as changed when a channel moves by more than this (anti-aliasing noise is less)
CHANGED = 48
#: ... and the image as changed when more than this share of its pixels did.
TOLERANCE = 0.002

CARDS = {
    "mission-30": ("missions", "mission-30"),  # challenges, actions, super and hyper
    "goal-yellow-one-higher": ("goals", "goal-1-one-higher"),
    "number-red-3": ("numbers", "number-0-4"),
}


@pytest.fixture(scope="module")
def campaign():
    found = read_campaign(starter_campaign()).campaign
    assert found is not None
    return found


def render(html: str) -> pdfium.PdfDocument:
    """Drawn as build draws it (printing/draw.py: WeasyPrint with the kit's stylesheet)."""
    return pdfium.PdfDocument(BytesIO(draw(html, CONTEXT).pdf))


def image_of(document: pdfium.PdfDocument, index: int = 0) -> Image.Image:
    return document[index].render(scale=DPI / 72).to_pil().convert("RGB")


def compare(name: str, image: Image.Image, tmp_path: Path) -> None:
    reference = REFERENCES / f"{name}.png"
    if UPDATE:
        image.save(reference, optimize=True)
        return
    assert reference.is_file(), f"no reference image {reference}: see this file's docstring"
    expected = np.asarray(Image.open(reference).convert("RGB")).astype(int)
    actual = np.asarray(image).astype(int)
    assert actual.shape == expected.shape, f"{name}: size {actual.shape} != {expected.shape}"
    changed = (np.abs(actual - expected).max(axis=2) > CHANGED).mean()
    if changed > TOLERANCE:
        image.save(tmp_path / f"{name}.png")
        pytest.fail(f"{name}: {changed:.2%} of the pixels changed; the new rendering is "
                    f"{tmp_path / (name + '.png')} (see this file's docstring to update)")


@pytest.mark.parametrize("name", sorted(CARDS))
def test_card_looks_as_before(name, campaign, tmp_path):
    group, key = CARDS[name]
    """The face as build draws it for its PNG: the cards job of its group, narrowed to it."""
    kit = build_kit(campaign)
    face = next(f for card in kit[group] for f in (card.front, card.back) if f.key == key)
    html, faces = html_for(Job("cards", "en", group), campaign, Options(png=False),
                           Translator("en"), only=[face])
    assert faces == [face]
    compare(name, image_of(render(html)), tmp_path)


def test_calibration_page_looks_as_before(campaign, tmp_path):
    html, _ = html_for(Job("calibration", "en"), campaign, Options(png=False), Translator("en"))
    compare("calibration-a4", image_of(render(html)), tmp_path)
