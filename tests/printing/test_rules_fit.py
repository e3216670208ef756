"""A mission card's rules block: `validate` fits it from the fonts' metrics (cardtext), `build`
checks the rendered card (printing/draw.py `overflows`). At the default card size the metrics
decide (docs/printing.md): whatever they let through must print without the check finding
it, or `validate` passes a mission that `build` then refuses."""

from __future__ import annotations

import random
import re
from dataclasses import replace
from typing import Any

import pytest

from synergy_forge.authoring.loading import read_campaign
from synergy_forge.cardtext.fonts import MM_PER_PT, lines_needed
from synergy_forge.cardtext.geometry import POKER, RULES_GAP, card_boxes
from synergy_forge.cardtext.i18n import Translator
from synergy_forge.cardtext.mission import mission_layout
from synergy_forge.core.mission import Campaign, Mission
from synergy_forge.resources import starter_campaign

PX = 25.4 / 96  # mm per CSS pixel, WeasyPrint's unit


@pytest.fixture(scope="module")
def starter() -> Campaign:
    campaign = read_campaign(starter_campaign()).campaign
    assert campaign is not None
    return campaign


@pytest.fixture(scope="module")
def context():
    """WeasyPrint's fonts and the kit's stylesheet, loaded once for both languages."""
    from synergy_forge.printing.draw import RenderContext

    context = RenderContext()
    yield context
    context.release()


def rules_blocks(campaign: Campaign, count: int, seed: int = 17) -> list[Mission]:
    """`count` missions of `campaign` with long rules blocks: one to three challenges, goals
    taken out of the deck and added to it, up to three action cards, the super or hyper card,
    a partial hand, the titles and flavour texts of the starter's missions. Together they
    use every challenge, every goal and every action card; and mission 3 of the report that
    found the disagreement (L'intrus, its French rules block 0.2 mm from its box's bottom)."""
    pick = random.Random(seed)
    challenges, goals = list(campaign.rulebook.challenges), list(campaign.rulebook.goals)
    letters, sources = list(campaign.actions), list(campaign.missions)
    missions = []
    for n in range(count):
        source = sources[n % len(sources)]
        taken = [challenges[(n + 5 * k) % len(challenges)] for k in range(1 + n % 3)]
        deck = pick.sample(goals, pick.randint(4, len(goals)))
        actions = [letters[(n + 3 * k) % len(letters)] for k in range(n % 4)]
        missions.append(replace(
            source, id=f"generated-{n}", number=n + 1, challenges=tuple(dict.fromkeys(taken)),
            goals=tuple(deck), actions=tuple(actions), hand_goals=min(7, len(deck)) - n % 2,
            hand_numbers=10 - n % 3, super=n % 3 == 1, hyper=n % 3 == 2,
            stars_per_count={}))  # the head one line high: the rules block is measured
    missions.append(replace(
        sources[0], id="odd-one-out", number=count + 1, challenges=("odd-sum",),
        goals=("close-call", "equal", "unique", "second-highest", "second-lowest"),
        actions=tuple(letters[:2]), hand_numbers=10, hand_goals=5, super=False, hyper=True,
        title={"en": "Odd one out", "fr": "L’intrus"},
        flavor={"en": "Close, but never the same.", "fr": "Proches, mais jamais pareils."}))
    return missions


def tightest(layout: dict[str, Any]) -> dict[str, Any]:
    """The layout with the rules block's box as low as the metrics allow its lines: where the
    rendered block is most likely to run past its box."""
    box = card_boxes()["mission-rules"]
    pt = layout["pt"]
    lines = sum(lines_needed(text, box.width, pt, box.bold) or 99
                for text in layout["lines"])
    needed = lines * pt * box.line_height * MM_PER_PT + RULES_GAP * (len(layout["lines"]) - 1)
    # fonts.fit lets a block 0.01 mm taller than its box through (the boxes' rounding)
    rules = re.sub(r"height:[0-9.]+mm", f"height:{needed - 0.01:.3f}mm", layout["rules"])
    return {**layout, "rules": rules}


def rendered_rules(document: Any) -> list[list[int]]:
    """Each card's rules block as the number of lines of each of its paragraphs."""
    found: list[list[int]] = []

    def walk(box: Any) -> None:
        element = getattr(box, "element", None)
        if element is not None and "rules" in (element.get("class") or "").split() and \
                getattr(box, "element_tag", None):
            found.append([len(p.children) for p in box.children])
            return
        for child in getattr(box, "children", []):
            walk(child)

    for page in document.pages:
        walk(page._page_box)
    return found


@pytest.mark.parametrize("language", ["en", "fr"])
def test_a_rules_block_the_fonts_metrics_fit_prints_without_overflowing_its_box(
        starter, context, language):
    """Every rules block the metrics fit, drawn by WeasyPrint in a box only as high as the
    metrics say its lines need: no paragraph takes more lines than the metrics counted (its
    breaks at hyphens, the French no-break spaces and apostrophes, the bold labels), and the
    build's check finds nothing past the box. Its last paragraph's bottom margin, below the
    box, clips nothing: the check once counted it, and refused L'intrus in French."""
    from weasyprint import HTML

    from synergy_forge.printing.draw import overflows, url_fetcher
    from synergy_forge.printing.html import environment, html_for
    from synergy_forge.printing.jobs import Job, Options
    from synergy_forge.resources import templates_dir

    campaign = replace(starter, missions=tuple(rules_blocks(starter, 40)))
    translator = Translator(language)
    layouts = [mission_layout(m, campaign, translator, POKER) for m in campaign.missions]
    fitting = [m for m, layout in zip(campaign.missions, layouts, strict=True)
               if layout["fits"]]
    assert len(fitting) > 25 and {layout["pt"] for layout in layouts} > {8.0, 9.0}
    campaign = replace(campaign, missions=tuple(fitting))
    env = environment(translator, campaign)
    env.globals["mission_layout"] = lambda mission: tightest(
        mission_layout(mission, campaign, translator, POKER))
    html, faces = html_for(Job("cards", language, "missions"), campaign, Options(), translator,
                           env=env)
    document = HTML(string=html, base_url=str(templates_dir()) + "/",
                    url_fetcher=url_fetcher([])).render(
        stylesheets=[context.stylesheet], font_config=context.fonts)
    box = card_boxes()["mission-rules"]
    for face, printed in zip((f for f in faces if f.kind == "mission"),
                             rendered_rules(document), strict=True):
        layout = mission_layout(face.data, campaign, translator, POKER)
        counted = [lines_needed(text, box.width, layout["pt"], box.bold)
                   for text in layout["lines"]]
        assert all(p <= c for p, c in zip(printed, counted, strict=True)), (face.key, layout)
    assert overflows(document) == []
