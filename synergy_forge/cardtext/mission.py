"""A mission card's texts: its rules block (what it says beyond its numbers), laid out between
its title and flavour text, and the check that it fits, reported as `CardFinding`s.

`validate` reports the findings at the mission's field (authoring.loading.
overfull_mission_cards); the card's template prints the layout (templates/faces.html.j2), so
that what is checked is what prints.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from functools import partial
from typing import Any

from synergy_forge.cardtext.fonts import MM_PER_PT, fit, font, lines_needed
from synergy_forge.cardtext.geometry import (
    MISSION_HEAD,
    MISSION_STARS,
    MISSION_STATS,
    POKER,
    RULES_GAP,
    RULES_MIN_PT,
    CardSize,
    card_boxes,
)
from synergy_forge.cardtext.i18n import Translator
from synergy_forge.core.cards import GOAL_IDS
from synergy_forge.core.mission import Campaign, Mission
from synergy_forge.typography import NBSP, NNBSP

#: The field a mission card's rules block gives as its own when it overflows (its data-what
#: in templates/faces.html.j2): what the check here finds first, before any rendering.
RULES_BLOCK = "challenges"


@dataclass(frozen=True)
class CardFinding:
    """A card text that cannot print as it should: in `source` (a mission file), at `field`."""

    source: str
    field: tuple[str, ...]
    message: str
    check: str
    #: a warning (a card that prints, but sets a smaller size for the others), not an error
    warning: bool = False


def goal_changes(mission: Mission) -> tuple[list[str], list[str]]:
    """(goal ids the mission takes out of the base set, ids it adds), in deck order."""
    removed = [g for g in GOAL_IDS if g not in mission.goals]
    added = [g for g in mission.goals if g not in GOAL_IDS]
    return removed, added


def mission_lines(mission: Mission, campaign: Campaign, tr: Translator) -> list[tuple[str, str]]:
    """What a mission card says beyond its stats row, as (label, text) lines, so that it can be
    played without the rulebook: play order, goal deck, starting hand, each challenge with its
    rule, each action card with its name."""
    _ = tr.gettext
    rulebook = campaign.rulebook
    steps = {"number": _("number"), "goal": _("goal")}
    # How many may miss their goal, by player count, is in the card's stats row, and so are
    # the super and hyper cards (by their letters, S and Ω: their own cards say their rules).
    lines = [(_("Play order"), ", ".join(steps[s] for s in mission.order.split("-")))]
    removed, added = goal_changes(mission)

    def names(ids: list[str]) -> str:
        # The symbol in brackets, held to its name: "without Unique ≠ with…" read as a sum.
        return ", ".join(f"{tr.text(rulebook.goal(g).name)}{NBSP}({rulebook.goal(g).symbol})"
                         for g in ids)

    if not removed and not added:
        deck = _("the 7 base goal cards")
    else:
        parts = [_("the base goal cards")]
        if removed:
            parts.append(_("without {names}").format(names=names(removed)))
        if added:
            parts.append(_("plus {names}").format(names=names(added)))
        deck = parts[0] + " " + ", ".join(parts[1:])
    lines.append((_("Goal deck"), deck))
    if mission.hand_numbers == 10 and mission.hand_goals == len(mission.goals):
        lines.append((_("Starting hand"), _("all your cards")))
    else:
        lines.append((_("Starting hand"), _(
            "{numbers} number and {goals} goal cards; the rest are your decks"
        ).format(numbers=mission.hand_numbers, goals=mission.hand_goals)))
    for cid in mission.challenges:
        challenge = rulebook.challenge(cid)
        lines.append((tr.text(challenge.name), tr.text(challenge.text)))
    if mission.actions:
        # "·" ends a line rather than starts one: it is held to the card before it.
        lines.append((_("Action cards"), f"{NBSP}· ".join(
            f"{a}{NBSP}{tr.text(campaign.actions[a].name)}" for a in mission.actions)))
    return lines


#: The head's number (kit.css .mission .number) and one-number stars, their sizes and the gaps
#: after and before them, in pt and mm.
NUMBER_PT, NUMBER_GAP = 14.0, 1.8
STARS_GAUGE_PT, STARS_GAP = 8.0, 1.0
#: Stars per player count: one line a count ("4p ★★★"), at the largest of these sizes at
#: which the longest line fits the head's stars column (five stars fit at the last).
STARS_PT = (7.0, 6.5, 6.0)
STARS_LINE_HEIGHT = 1.1


def stars_lines(mission: Mission, translator: Translator) -> dict[str, Any] | None:
    """The head's stars column where the stars differ by player count: "lines", (label,
    stars) a count, each label bold; "pt" and "style"; "height" in mm. None where every
    count has the same stars (the five-star gauge)."""
    per_count = mission.stars_per_count
    if len(set(per_count.values())) < 2:
        return None
    # A narrow space after the label: five stars then fit the column at 6 pt.
    lines = [(translator.gettext("{players}p").format(players=count), NNBSP + "★" * stars)
             for count, stars in sorted(per_count.items())]
    label, star = font(bold=True), font()

    def width(pt: float) -> float:
        return max(label.width(text, pt) + star.width(stars, pt) for text, stars in lines)

    pt = next((pt for pt in STARS_PT if width(pt) <= MISSION_STARS), STARS_PT[-1])
    return {"lines": lines, "pt": pt,
            "height": round(len(lines) * pt * STARS_LINE_HEIGHT * MM_PER_PT + 0.5, 2),
            "style": f"font-size:{pt}pt;line-height:{STARS_LINE_HEIGHT}"}


def mission_layout(mission: Mission, campaign: Campaign, translator: Translator,
                   card: CardSize, rules_pt: float | None = None) -> dict[str, Any]:
    """A mission card's boxes: the title on one line at the largest size that fits (TITLE_PT
    down to the rules text's), the flavour text on the lines it needs (at most its box), and
    the rules block (mission_lines) all the height left between them. The rules' size is
    `rules_pt`, the campaign's (campaign_rules_pt: one size on every card of a campaign and
    language), or without it the largest that fits this card alone ("own", from 11 pt down to
    RULES_MIN_PT). "fits" is False when the rules cannot fit even at RULES_MIN_PT; "pt" is
    the rules block's size, "title_pt" the title's (None: not on one line at RULES_MIN_PT).
    """
    boxes = card_boxes(card)
    stars = stars_lines(mission, translator)
    # The title's line runs from the number's figures to the stars, as wide as they leave
    # (card_boxes' "title" is the narrowest: a two-digit number, five stars at 8 pt).
    number = font(bold=True).width(str(mission.number), NUMBER_PT) + NUMBER_GAP
    stars_w = (MISSION_STARS if stars else
               font().width("★" * 5, STARS_GAUGE_PT) + STARS_GAP)
    boxes["title"] = replace(boxes["title"], width=round(
        card.width - 2 * card.safe - max(number, 0.0) - stars_w, 2))
    taken: dict[str, dict[str, Any]] = {}
    heights: dict[str, float] = {}
    sizes: dict[str, float | None] = {}
    for name, text in (("title", translator.text(mission.title)),
                       ("flavor", translator.text(mission.flavor))):
        box = boxes[name]
        sizes[name] = fitted = fit(text, box)
        pt = fitted or box.min_pt
        lines = (lines_needed(text, box.width, pt, box.bold, box.italic, box.condensed) or 99) \
            if text else 0
        height = min(box.height, lines * pt * box.line_height * MM_PER_PT + 0.3)
        if name == "title":  # its one line, as high as the head, its text centred in it
            height = box.height
        taken[name] = {"style": f"font-size:{pt}pt;height:{height:.2f}mm"}
        heights[name] = height
    head = max(MISSION_HEAD, heights["title"], stars["height"] if stars else 0.0)
    top = head + MISSION_STATS
    rules_box = replace(boxes["mission-rules"], height=round(
        card.height - 2 * card.safe - top - heights["flavor"] - 0.6, 2))
    rules = mission_lines(mission, campaign, translator)
    own = fit(list(rules), rules_box, RULES_GAP)
    size = own if rules_pt is None or own is None else min(rules_pt, own)
    return {"title": taken["title"], "flavor": taken["flavor"], "lines": rules,
            "fits": size is not None, "pt": size or rules_box.min_pt, "own": own,
            "title_pt": sizes["title"],
            "head": f"height:{head:.2f}mm;padding-left:{number:.2f}mm;"
                    f"padding-right:{stars_w:.2f}mm", "stars": stars,
            "rules": f"font-size:{size or rules_box.min_pt}pt;top:{top:.2f}mm;"
                     f"height:{rules_box.height}mm"}


#: validate names the mission that sets every card's rules size when that size is at most
#: this above RULES_MIN_PT and the other cards would take at least FORCED_BY pt more.
FORCED_NEAR, FORCED_BY = 0.5, 1.0


def campaign_rules_pt(campaign: Campaign, translator: Translator,
                      card: CardSize = POKER) -> float:
    """The one size of the rules text on every mission card of `campaign` in a language: the
    largest that fits every card (each card's own), and no larger than any title on its one
    line (a title is never smaller than the rules). A card that does not fit even at
    RULES_MIN_PT is reported by mission_card_findings, and leaves the size at that."""
    return _campaign_sizes(campaign, translator, card)[0]


def _campaign_sizes(campaign: Campaign, translator: Translator, card: CardSize,
                    layout: Callable[[Mission], dict[str, Any]] | None = None
                    ) -> tuple[float, dict[int, float]]:
    """(the campaign's rules size, each mission's own limit: its rules' fit and its title's
    one-line size, whichever is smaller), the missions that cannot fit left out. `layout`:
    a mission's own layout in `translator`'s language, where the caller keeps them."""
    largest = card_boxes(card)["mission-rules"].pt
    limits: dict[int, float] = {}
    for mission in campaign.missions:
        own = layout(mission) if layout is not None else \
            mission_layout(mission, campaign, translator, card)
        if own["own"] is not None and own["title_pt"] is not None:
            limits[mission.number] = min(own["own"], own["title_pt"])
    size = min([largest, *limits.values()])
    return max(size, RULES_MIN_PT), limits


#: How a caller that keeps results from one reading to the next (authoring.kept.Kept)
#: gives a mission's own layout in a language (mission_layout without the campaign's rules
#: size): from what it kept, or by calling the function it is given.
Layouts = Callable[[Mission, str, Callable[[], dict[str, Any]]], dict[str, Any]]


def mission_card_findings(campaign: Campaign, card: CardSize = POKER,
                          layouts: Layouts | None = None) -> list[CardFinding]:
    """Each mission card whose rules block does not fit, in each language, at the mission's
    field that makes it long; and, a warning, the one mission whose card alone sets every
    card's rules text smaller than the others would allow (campaign_rules_pt). Computed from
    the fonts' metrics: no rendering."""
    translators = {language: Translator(language) for language in campaign.languages}

    def layout(mission: Mission, language: str) -> dict[str, Any]:
        def compute() -> dict[str, Any]:
            return mission_layout(mission, campaign, translators[language], card)

        return compute() if layouts is None else layouts(mission, language, compute)

    # A card that cannot fit is reported below: its error comes first, before any size's.
    unfit = any(not layout(m, language)["fits"]
                for m in campaign.missions for language in campaign.languages)
    found: list[CardFinding] = []
    for language in campaign.languages:
        translator = translators[language]
        size, limits = _campaign_sizes(campaign, translator, card,
                                       partial(layout, language=language))
        if unfit:
            limits = {}
        lowest = sorted(limits.values())
        # Said where it matters: the cards' text near the smallest a seat reads, and one card
        # alone holding the others a point or more below what they would take.
        if len(lowest) > 1 and lowest[0] <= RULES_MIN_PT + FORCED_NEAR and \
                lowest[1] - lowest[0] >= FORCED_BY:
            number = next(n for n, limit in limits.items() if limit == lowest[0])
            mission = campaign.mission(number)
            field = next((f for f in ("challenges", "actions") if getattr(mission, f)),
                         "title")
            found.append(CardFinding(mission.source, (field,), (
                f"mission {number}'s card ({language}) sets the rules text of every mission "
                f"card to {size:g} pt: without it they would be {lowest[1]:g} pt (shorten its "
                "rules, its title or its flavour text)"), "mission.rules-size", warning=True))
        for mission in campaign.missions:
            if layout(mission, language)["fits"]:
                continue
            field = next((f for f in ("challenges", "actions") if getattr(mission, f)), "id")
            texts = {c: translator.text(campaign.rulebook.challenge(c).text)
                     for c in mission.challenges}
            longest = f" (the longest: '{max(texts, key=lambda c: len(texts[c]))}')" \
                if texts else ""
            found.append(CardFinding(mission.source, (field,), (
                f"mission {mission.number}'s card ({language}): its rules (play order, goal "
                f"deck, starting hand, {len(mission.challenges)} challenge(s), "
                f"{len(mission.actions)} action card(s)) do not fit between its title and "
                f"flavour text at {card_boxes()['mission-rules'].min_pt:g} pt, the smallest "
                "size read from a seat: use fewer "
                f"challenges or shorter challenge texts{longest}, or shorten the title or "
                "flavour text"), "text.fit"))
    return found
