"""A mission card's texts: its rules block (what it says beyond its numbers), laid out between
its title and flavour text, and the check that it fits, reported as `CardFinding`s.

`validate` reports the findings at the mission's field (authoring.loading.
overfull_mission_cards); the card's template prints the layout (templates/faces.html.j2), so
that what is checked is what prints.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from synergy_forge.cardtext.fonts import MM_PER_PT, fit, font, lines_needed
from synergy_forge.cardtext.geometry import (
    MISSION_HEAD,
    MISSION_STARS,
    MISSION_STATS,
    POKER,
    RULES_GAP,
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
                   card: CardSize) -> dict[str, Any]:
    """A mission card's boxes: the title and the flavour text take the lines they need (at
    most their boxes), and the rules block (mission_lines) gets all the height left between
    them, its font the largest that fits (from 11 pt down to RULES_MIN_PT); "fits" is False
    when it cannot fit even at that size. "pt" is the rules block's size.
    """
    boxes = card_boxes(card)
    taken: dict[str, dict[str, Any]] = {}
    heights: dict[str, float] = {}
    for name, text in (("title", translator.text(mission.title)),
                       ("flavor", translator.text(mission.flavor))):
        box = boxes[name]
        pt = fit(text, box) or box.min_pt
        lines = (lines_needed(text, box.width, pt, box.bold, box.italic) or 99) if text else 0
        height = min(box.height, lines * pt * box.line_height * MM_PER_PT + 0.3)
        taken[name] = {"style": f"font-size:{pt}pt;height:{height:.2f}mm"}
        heights[name] = height
    stars = stars_lines(mission, translator)
    head = max(MISSION_HEAD, heights["title"], stars["height"] if stars else 0.0)
    top = head + MISSION_STATS
    rules_box = replace(boxes["mission-rules"], height=round(
        card.height - 2 * card.safe - top - heights["flavor"] - 0.6, 2))
    rules = mission_lines(mission, campaign, translator)
    size = fit(list(rules), rules_box, RULES_GAP)
    return {"title": taken["title"], "flavor": taken["flavor"], "lines": rules,
            "fits": size is not None, "pt": size or rules_box.min_pt,
            "head": f"height:{head:.2f}mm", "stars": stars,
            "rules": f"font-size:{size or rules_box.min_pt}pt;top:{top:.2f}mm;"
                     f"height:{rules_box.height}mm"}


#: How a caller that keeps results from one reading to the next (authoring.loading.Kept)
#: answers whether a mission's rules fit in a language: from what it kept, or by calling the
#: function it is given.
Fits = Callable[[Mission, str, Callable[[], bool]], bool]


def mission_card_findings(campaign: Campaign, card: CardSize = POKER,
                          fits: Fits | None = None) -> list[CardFinding]:
    """Each mission card whose rules block does not fit, in each language, at the mission's
    field that makes it long. Computed from the fonts' metrics: no rendering."""
    found: list[CardFinding] = []
    for language in campaign.languages:
        translator = Translator(language)
        for mission in campaign.missions:
            def layout(mission: Mission = mission, translator: Translator = translator) -> bool:
                return bool(mission_layout(mission, campaign, translator, card)["fits"])

            if layout() if fits is None else fits(mission, language, layout):
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
