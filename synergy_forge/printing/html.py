"""Jinja templates to the final HTML of each document, or of one piece of it.

Autoescaping is on, and user text is only ever passed as data, never compiled as a template.
"""

from __future__ import annotations

from typing import Any

from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

from synergy_forge.cardtext.fonts import Box, fit
from synergy_forge.cardtext.geometry import RULES_GAP, card_boxes
from synergy_forge.cardtext.i18n import Translator
from synergy_forge.cardtext.mission import campaign_rules_pt, goal_changes, mission_layout
from synergy_forge.core.cards import GOAL_IDS, Action
from synergy_forge.core.mission import Campaign
from synergy_forge.printing.components import components
from synergy_forge.printing.jobs import Job, Options
from synergy_forge.printing.kit import (
    PAPER,
    SYMBOLS,
    Face,
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

    def fitted_in(text: str, width: float, height: float, pt: float) -> str:
        """The font size of `text` in a box of its own (a lives or rounds card's text, under
        its circles), from `pt` down to the smallest a card prints."""
        box = Box(width, height, pt)
        return f"font-size:{fit(str(text), box) or box.min_pt}pt"

    # One size of rules text on every mission card of the campaign in this language.
    rules_pt = campaign_rules_pt(campaign, translator, card) if campaign.missions else None

    def layout(mission: Any) -> dict[str, Any]:
        return mission_layout(mission, campaign, translator, card, rules_pt)

    env.globals.update(
        t=translator.text,
        colours=lambda i: ";".join(f"--{k}:{v}" for k, v in colours(i).items()),
        symbol=lambda i: SYMBOLS[i] if i is not None else "",
        fitted=fitted,
        fitted_in=fitted_in,
        mission_layout=layout,
        rules_gap=RULES_GAP,
        goal_changes=goal_changes,
        challenge=campaign.rulebook.challenge,
        goal=campaign.rulebook.goal,
        action=lambda letter: actions[Action(letter)],
        default_goals=list(GOAL_IDS),
        language=translator.language,
        full_bleed_backs=options.full_bleed_backs,
        notice_text=NOTICE,
        challenges_lead=LEAD,
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
        challenges = list(campaign.rulebook.challenges.values())
        html = env.get_template("rulebook.html.j2").render(
            title=title, paper=paper, parts=parts, goals=goals,
            actions=sorted(campaign.actions.items()), challenges=challenges,
            kit=kit, box=components(kit), campaign=campaign,
            colour_symbols=SYMBOLS[:len(campaign.colors)],
            example=example_round(campaign), text_width=TEXT_WIDTH,
            sheet_pt=challenge_sheet_pt(challenges, translator, PAPERS[options.paper])
            if job.kind == "challenges" else None)
        return html, []
    html = env.get_template("calibration.html.j2").render(
        title=title, paper=paper, crosses=calibration_crosses(options.paper), cross=CROSS,
        scale=SCALE, fold=options.layout == "fold")
    return html, []


def N_(message: str) -> str:  # gettext's name for "extract now, translate later"
    return message


#: The fan-made notice (the rulebook's first page, the challenge sheet; measured by
#: challenge_sheet_pt) and the lead of the rulebook's challenge list (rulebook.html.j2).
NOTICE = N_("Synergy is a game by Robert Brouwer, published by Jolly Dutch. This kit is "
            "fan-made and unofficial: it is not affiliated with or endorsed by Jolly Dutch or "
            "Robert Brouwer. To play Synergy, get the published game.")
LEAD = N_("Missions add challenges, in this order as you play. Some are rules every card you "
          "lay must keep: a player who cannot keep them loses the mission for everyone. Others "
          "change how cards count or how your sum is made.")

#: The rulebook's and challenge sheet's width of text, in mm, the same on A4 and Letter (the
#: rulebook's columns, two of 92 mm, hold 60 to 75 characters on both), and their top and
#: bottom margins (rulebook.html.j2's @page).
TEXT_WIDTH = 190.0
TOP_BOTTOM = 12.0 + 14.0
#: The challenge sheet's text: the largest size from LARGEST_PT down to SMALLEST_PT (half
#: points) at which its table fills one page.
LARGEST_PT, SMALLEST_PT = 18.0, 10.0
#: Room left on the sheet for what the metrics do not see (the renderer's own rounding), mm.
SLACK = 4.0


def challenge_sheet_pt(challenges: list[Any], translator: Translator,
                       paper: tuple[float, float]) -> float:
    """The challenge sheet's font size, read across a table: the largest at which its title,
    notice and table (a row per challenge: its name, its rule, the first mission that brings
    it; the columns as rulebook.html.j2 sets them) fit on one page, from the fonts' metrics
    (cardtext.fonts)."""
    from synergy_forge.cardtext.fonts import MM_PER_PT, lines_needed

    width, height = TEXT_WIDTH, paper[1] - TOP_BOTTOM
    texts = [(translator.text(dict(c.name)), translator.text(dict(c.text))) for c in challenges]
    notice = translator.gettext(NOTICE)
    pt = LARGEST_PT
    while pt > SMALLEST_PT:
        line = pt * 1.25 * MM_PER_PT
        name_w = 0.3 * width - 3.0  # a cell's padding, both sides
        from_w = 7 * 0.75 * pt * MM_PER_PT
        text_w = width - name_w - from_w - 9.0
        used = 20 * 1.25 * MM_PER_PT + 4  # the title
        used += (lines_needed(notice, width - 3.3, 0.7 * pt) or 9) * 0.7 * line + 4
        used += line + 2.7  # the header row
        for name, text in texts:
            rows = max(lines_needed(name, name_w, pt, bold=True) or 9,
                       lines_needed(text, text_w, pt) or 9)
            used += rows * line + 2.7
        if used <= height - SLACK:
            return pt
        pt -= 0.5
    return SMALLEST_PT


#: How single.html.j2 starts each face's page, and ends the document.
FACE_START, DOCUMENT_END = '<section class="sheet">', "</body></html>"


def face_documents(html: str) -> list[str]:
    """Each face of a cards piece as its own document: what `html_for(only=[face])` gives
    (tested), cut from the piece's HTML instead of rendering the template once more per face.
    Its hash keys the face's PNG: the head (page size, bleed) and the face's own page."""
    head, *pages = html.removesuffix(DOCUMENT_END).split(FACE_START)
    return [head + FACE_START + page + DOCUMENT_END for page in pages]
