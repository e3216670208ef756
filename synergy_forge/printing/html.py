"""Jinja templates to the final HTML of each document, or of one piece of it.

Autoescaping is on, and user text is only ever passed as data, never compiled as a template.
"""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from synergy_forge.cardtext.fonts import fit
from synergy_forge.cardtext.geometry import RULES_GAP, card_boxes
from synergy_forge.cardtext.i18n import Translator
from synergy_forge.cardtext.mission import goal_changes, mission_layout
from synergy_forge.core.cards import GOAL_IDS, Action
from synergy_forge.core.mission import Campaign
from synergy_forge.printing.jobs import Job, Options
from synergy_forge.printing.kit import (
    PAPER,
    SYMBOLS,
    Face,
    action_pairs,
    build_kit,
    colours,
    example_round,
)
from synergy_forge.printing.layout import (
    CROSS,
    PAPERS,
    SCALE,
    Bleed,
    Sheet,
    calibration_crosses,
    fold_sheet,
    sheet,
)
from synergy_forge.resources import templates_dir


def sheet_for(options: Options) -> Sheet:
    """The sheets' layout: 3 x 3 for duplex, or pairs to fold (build --layout fold)."""
    if options.layout == "fold":
        return fold_sheet(options.paper, options.card)
    return sheet(options.paper, options.card)


def environment(translator: Translator, campaign: Campaign,
                options: Options | None = None) -> Environment:
    """The templates' environment for one language, with the build's options: the card size,
    light backs and frames (build --ink-saver), full-bleed backs (a print shop's preset)."""
    options = options or Options()
    card = options.card
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
    boxes = card_boxes(card)

    def fitted(text: str, box: str) -> str:
        """The font size of `text` in its box (cardtext): too long a text gets the smallest
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
        full_bleed_backs=options.full_bleed_backs,
        paper_colour=PAPER,
        # The <body>'s classes: what the build's options change in kit.css.
        body_class=" ".join(name for name, on in (("ink-saver", options.ink_saver),
                                                  ("full-bleed-backs", options.full_bleed_backs))
                            if on),
    )
    return env


def sheet_pages(kit_cards: list, layout: Sheet, first: int = 0,
                total: int | None = None) -> list[dict[str, Any]]:
    """Each sheet's front and back page (or its one page to fold), with the (slot, face) of
    each card on it; `first` is the number (from 0) of the first sheet of `kit_cards` in its
    group, `total` the group's number of sheets (for the labels)."""
    pages = []
    per = layout.per_sheet
    count = -(-len(kit_cards) // per)
    for n, start in enumerate(range(0, len(kit_cards), per)):
        chunk = kit_cards[start:start + per]
        number = {"n": first + n + 1, "total": total or count}
        if layout.fold:  # one single-sided page: each back beside its front
            pages.append({"side": "fold", "cards": [
                *zip(layout.fronts, [c.front for c in chunk], strict=False),
                *zip(layout.backs, [c.back for c in chunk], strict=False)], **number})
            continue
        pages.append({"side": "front", "cards": list(zip(layout.fronts, [c.front for c in chunk],
                                                         strict=False)), **number})
        pages.append({"side": "back", "cards": list(zip(layout.backs, [c.back for c in chunk],
                                                        strict=False)), **number})
    return pages


def single_faces(kit_cards: list) -> list[Face]:
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
             side: str | None = None, numbering: tuple[int, int] | None = None,
             frame: bool = False) -> tuple[str, list[Face]]:
    """The final HTML of a job, and (for cards jobs) the face of each page.

    `only` narrows a sheets job to some of its group's cards (one sheet), `side` to its
    "front" or "back" page, and a cards job to some faces (one card face): the pieces an
    incremental build renders and caches; `numbering` is (that sheet's number from 0, the
    group's number of sheets), for its label. `env` is an environment() to reuse (compiling the
    templates is the slow part). `frame` draws a sheets job without its cards: the labels, crop
    marks and cut guides the build imposes the cards' own pages on (pdf.impose).
    """
    env = env or environment(translator, campaign, options)
    title = f"{translator.text(dict(campaign.name))} - {job.name}"
    paper = {"width": PAPERS[options.paper][0], "height": PAPERS[options.paper][1]}
    kit = build_kit(campaign) if only is None else {}
    if job.kind == "sheets":
        layout = sheet_for(options)
        first, total = numbering or (0, None)
        pages = sheet_pages(kit[job.group] if only is None else only, layout, first, total)
        pages = [page for page in pages if side is None or page["side"] == side]
        html = env.get_template("sheets.html.j2").render(
            title=title, sheet=layout, pages=pages, group=job.group, frame=frame)
        return html, []
    if job.kind == "cards":
        faces = single_faces(kit[job.group]) if only is None else only
        html = env.get_template("single.html.j2").render(
            title=title, size=options.card, cards=faces, bleed=Bleed.even(options.card.bleed))
        return html, faces
    if job.kind in ("rulebook", "challenges"):
        parts = ("rules",) if job.kind == "rulebook" else ("challenges",)
        goals = [campaign.rulebook.goal(g) for g in GOAL_IDS]
        # The campaign's own goals the kit prints: those some mission adds to its goal deck
        # (a goal no mission uses is not printed, so the rulebook does not list it either).
        added = {g for m in campaign.missions for g in goal_changes(m)[1]}
        goals += [g for g in campaign.rulebook.goals.values() if not g.builtin and g.id in added]
        html = env.get_template("rulebook.html.j2").render(
            title=title, paper=paper, parts=parts, goals=goals,
            actions=sorted(campaign.actions.items()),
            challenges=list(campaign.rulebook.challenges.values()),
            kit=kit, campaign=campaign, paired=action_pairs(campaign) is not None,
            colour_symbols=SYMBOLS[:len(campaign.colors)],
            example=example_round(campaign))
        return html, []
    html = env.get_template("calibration.html.j2").render(
        title=title, paper=paper, crosses=calibration_crosses(options.paper), cross=CROSS,
        scale=SCALE, fold=options.layout == "fold")
    return html, []


#: How single.html.j2 starts each face's page, and ends the document.
FACE_START, DOCUMENT_END = '<section class="sheet">', "</body></html>"


def face_documents(html: str) -> list[str]:
    """Each face of a cards piece as its own document: what `html_for(only=[face])` gives
    (tested), cut from the piece's HTML instead of rendering the template once more per face.
    Its hash keys the face's PNG: the head (page size, bleed) and the face's own page."""
    head, *pages = html.removesuffix(DOCUMENT_END).split(FACE_START)
    return [head + FACE_START + page + DOCUMENT_END for page in pages]
