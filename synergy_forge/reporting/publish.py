"""`publish`'s pages (templates/site/): the gallery, a page per mission and campaign.json,
rendered from a workspace.publish.Site in each of its languages, and its report in words.
Every link is relative and nothing comes from another host: the site works from the file
system as from any static host (docs/publish.md)."""

from __future__ import annotations

import json
import os
from typing import Any

from synergy_forge.cardtext.i18n import Translator
from synergy_forge.cardtext.mission import mission_lines
from synergy_forge.core.mission import Mission
from synergy_forge.printing.kit import build_kit
from synergy_forge.reporting import Output
from synergy_forge.reporting.playtest import finding_text
from synergy_forge.resources import templates_dir
from synergy_forge.sim.estimate import Estimate
from synergy_forge.sim.ladder import RUNGS, SKILL_BANDS, TARGET, Reading, wilson
from synergy_forge.typography import typeset
from synergy_forge.workspace.build import KitCheck
from synergy_forge.workspace.publish import MISSIONS, Download, MissionEntry, Published, Site

#: Each language by its own name, for the language switch.
LANGUAGE_NAMES = {"en": "English", "fr": "Français"}
#: The site's data for machines (docs/publish.md).
DATA_FILE = "campaign.json"
#: The chart's plot area in its viewBox: skill 0..1 across, win rate 0..1 up.
CHART = {"left": 44, "right": 300, "top": 12, "bottom": 142}


def page_name(stem: str, language: str, first: str) -> str:
    """STEM.html in the site's first language, STEM.LANG.html in the others."""
    return f"{stem}.html" if language == first else f"{stem}.{language}.html"


def mission_stem(mission: Mission) -> str:
    return f"{MISSIONS}/{mission.number:02d}-{mission.id}"


def _skill(value: float | None) -> float | None:
    return None if value is None else round(value, 3)


def _reading(reading: Reading) -> dict[str, Any]:
    return {"stars": reading.stars, "stars_low": reading.fewest, "stars_high": reading.most,
            "skill_needed": _skill(reading.skill), "skill_low": _skill(reading.skill_low),
            "skill_high": _skill(reading.skill_high)}


def _rungs(estimate: Estimate, players: int | None = None) -> list[dict[str, float]]:
    return [{"skill": s, "win_rate": round(r, 4), "low": round(lo, 4), "high": round(hi, 4)}
            for s, r, lo, hi in estimate.rungs(players)]


def estimate_data(site: Site, estimate: Estimate | None) -> dict[str, Any] | None:
    """A mission's estimate with its provenance: stars and the skill needed with its
    interval, the ladder's win rates, games, seed and version; each player count's own."""
    if estimate is None:
        return None
    games = sum(c.curve.total_games for c in estimate.by_count.values())
    return {**_reading(estimate.reading), "stars_low": estimate.fewest,
            "limited_by_bot": estimate.limited_by_bot, "games": games,
            "games_per_level": site.games, "seed": site.seed, "version": site.version,
            "target_win_rate": TARGET, "rungs": _rungs(estimate),
            "players": {str(p): {**_reading(c.reading), "games": c.curve.total_games,
                                 "rungs": _rungs(estimate, p)}
                        for p, c in sorted(estimate.by_count.items())},
            "players_apart": [c.players for c in estimate.counts_apart()]}


def _interval(i: Any) -> dict[str, float]:
    return {"value": round(i.value, 4), "low": round(i.low, 4), "high": round(i.high, 4)}


def people_data(entry: MissionEntry) -> list[dict[str, Any]]:
    """People's games of a mission per player count, with the model's predicted rate."""
    out = []
    for p in entry.people:
        low, high = wilson(p.wins, p.games)
        out.append({"players": p.players, "games": p.games, "wins": p.wins,
                    "win_rate": round(p.wins / p.games, 4), "low": round(low, 4),
                    "high": round(high, 4), "predicted": _interval(p.prediction.rate),
                    "ladder": _interval(p.prediction.ladder)})
    return out


def play_command(site: Site, mission: Mission) -> str:
    """How to play the mission at a table, one browser per player (docs/table.md)."""
    if site.starter:
        return f"synergy-forge table {mission.number}"
    return f"synergy-forge table {os.path.basename(os.path.abspath(site.folder))} " \
           f"--mission {mission.number}"


def campaign_data(site: Site) -> dict[str, Any]:
    """campaign.json: the site's data for machines (docs/publish.md)."""
    campaign = site.campaign
    first = site.languages[0]
    missions = []
    for entry in site.missions:
        m = entry.mission
        data: dict[str, Any] = {
            "id": m.id, "number": m.number, "title": dict(m.title), "stars": m.stars,
            "hash": entry.hash,
            "page": {lang: page_name(mission_stem(m), lang, first) for lang in site.languages},
            "players": list(m.players), "challenges": list(m.challenges),
            "images": {lang: site.images[(lang, f"mission-{m.number:02d}")]
                       for lang in site.languages if (lang, f"mission-{m.number:02d}")
                       in site.images},
            "estimate": estimate_data(site, entry.estimate),
            "people": people_data(entry)}
        if entry.discrepancy is not None:
            data["discrepancy"] = {**_interval(entry.discrepancy.delta),
                                   "contradicts": entry.discrepancy.contradicts}
        if m.stars_per_count:
            data["stars_per_players"] = {str(p): s for p, s in sorted(m.stars_per_count.items())}
        missions.append(data)
    return {"name": dict(campaign.name), "languages": site.languages,
            "version": site.version, "games": site.games, "seed": site.seed,
            "estimate": {"target_win_rate": TARGET, "rungs": list(RUNGS),
                         "skill_bands": [{"below_skill": b, "stars": s}
                                         for b, s in SKILL_BANDS]},
            "people": None if site.people is None else {
                "logs": site.logs, "games": site.people.games, "left_out": site.left_out,
                "skill": _interval(site.people.skill),
                "middle_half": [round(s, 4) for s in site.people.middle_half]},
            "missions": missions,
            "kit": [{"language": d.language, "kind": d.kind, "group": d.group,
                     "path": d.path, "bytes": d.bytes} for d in site.downloads]}


# -- the pages ----------------------------------------------------------------------------------


def _size(n: int) -> str:
    for unit, scale in (("MB", 1_000_000), ("kB", 1000)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n} B"


def _download_label(download: Download, tr: Translator) -> str:
    """What a file of the kit is, for its link."""
    _ = tr.gettext
    groups = {"missions": _("Mission cards"), "goals": _("Goal cards"),
              "numbers": _("Number cards"), "actions": _("Action cards"),
              "specials": _("Special cards")}
    group = groups.get(download.group, download.group)
    return {"print-and-play": _("The whole kit, ready to print double-sided"),
            "sheets": group, "rulebook": _("How to play"),
            "challenges": _("Challenges"), "calibration": _("Printer check page"),
            "cards": _("{group}, one card a page (for a print shop)").format(group=group),
            "tts": _("Tabletop Simulator saved object"),
            "dtc": _("{group}, for DriveThruCards").format(group=group)}[download.kind]


def _counts(players: tuple[int, ...]) -> str:
    """Player counts as a person reads them: "3–5", "3, 5", "4"."""
    found = sorted(players)
    if len(found) > 2 and found == list(range(found[0], found[-1] + 1)):
        return f"{found[0]}–{found[-1]}"
    return ", ".join(map(str, found))


def _pct(value: float) -> str:
    return f"{round(value * 100)}%"


def _chart(estimate: Estimate, players: int | None = None) -> dict[str, Any]:
    """The ladder's curve as SVG coordinates: the fitted rate over skill with its 95% band,
    the rungs' points, the target line and the skill needed."""
    curve = estimate.curve if players is None else estimate.by_count[players].curve
    left, right, top, bottom = (CHART[k] for k in ("left", "right", "top", "bottom"))

    def x(s: float) -> float:
        return round(left + s * (right - left), 1)

    def y(r: float) -> float:
        return round(bottom - r * (bottom - top), 1)

    steps = [i / 40 for i in range(41)]
    line = " ".join(f"{x(s)},{y(curve.rate(s))}" for s in steps)
    highs = [f"{x(s)},{y(curve.bounds(s)[1])}" for s in steps]
    lows = [f"{x(s)},{y(curve.bounds(s)[0])}" for s in reversed(steps)]
    reading = estimate.reading if players is None else estimate.by_count[players].reading
    return {"line": line, "band": " ".join(highs + lows), "target": y(TARGET),
            "points": [(x(s), y(curve.rate(s)), s, _pct(curve.rate(s))) for s in RUNGS],
            "needed": None if reading.skill is None else x(reading.skill),
            "bands": [x(b) for b, _ in SKILL_BANDS], "x": x, "y": y, **CHART}


def _stars(tr: Translator, n: int) -> str:
    return tr.ngettext("%(num)s star", "%(num)s stars", n) % {"num": n}


def _alt(mission: Mission | None, site: Site, tr: Translator) -> str:
    """What a mission card says, for its image's alt text: its number and title, stars,
    rounds, lives, who may miss, then its rules block and flavour text."""
    _ = tr.gettext
    if mission is None:
        return _("The back of the mission cards")
    head = _("Mission {number}: {title}").format(number=mission.number,
                                                  title=tr.text(mission.title))
    allowed = ", ".join(_("{allowed} at {players} players").format(players=p, allowed=a)
                        for p, a in sorted(mission.allowed_failures.items())
                        if p in mission.players)
    if mission.stars_per_count:
        stars = ", ".join(f"{_('{players}p').format(players=p)} {_stars(tr, s)}"
                          for p, s in sorted(mission.stars_per_count.items()))
    else:
        stars = _stars(tr, mission.stars)
    parts = [head, stars,
             f"{mission.rounds} {_('rounds to win')}", f"{mission.lives} {_('lives')}",
             f"{_('May miss their goal')}: {allowed}"]
    parts += [f"{label}: {text}" for label, text in mission_lines(mission, site.campaign, tr)]
    if mission.flavor:
        parts.append(tr.text(mission.flavor))
    # Typeset whole: the labels joined here get French spacing before their colons too.
    return typeset(". ".join(p.rstrip(".") for p in parts) + ".", tr.language)


def _environment(tr: Translator) -> Any:
    from jinja2 import Environment, FileSystemLoader, StrictUndefined, select_autoescape

    env = Environment(loader=FileSystemLoader(templates_dir() / "site"),
                      autoescape=select_autoescape(["html", "j2"], default_for_string=True),
                      undefined=StrictUndefined, extensions=["jinja2.ext.i18n"],
                      trim_blocks=True, lstrip_blocks=True, keep_trailing_newline=True)
    env.install_gettext_callables(  # type: ignore[attr-defined]
        tr.gettext, tr.ngettext, newstyle=True)
    env.globals.update(t=tr.text, size=_size, pct=_pct, chart=_chart, wilson=wilson)
    return env


def pages(site: Site) -> dict[str, bytes]:
    """Every file of the site but the card images and the kit: each language's gallery and
    mission pages, the style sheet and script, and campaign.json."""
    first = site.languages[0]
    files: dict[str, bytes] = {}
    data = campaign_data(site)
    files[DATA_FILE] = (json.dumps(data, indent=1, ensure_ascii=False) + "\n").encode("utf-8")
    plain = _environment(Translator(first))
    for name in ("site.css", "site.js"):
        files[name] = plain.get_template(f"{name}.j2").render().encode("utf-8")
    kit = build_kit(site.campaign)["missions"]
    other: dict[str, Mission | None] = {}  # the mission on each mission's other side
    for card in kit:
        a, b = card.front.data, card.back.data if card.back.kind == "mission" else None
        other[a.id] = b
        if b is not None:
            other[b.id] = a
    challenges = sorted({c for e in site.missions for c in e.mission.challenges})
    for language in site.languages:
        tr = Translator(language)
        env = _environment(tr)

        def switch(stem: str, depth: str, language: str = language) -> list[dict[str, Any]]:
            return [{"language": lang, "name": LANGUAGE_NAMES.get(lang, lang),
                     "href": depth + page_name(stem, lang, first), "current": lang == language}
                    for lang in site.languages]

        common = {"site": site, "image_size": site.image_size, "language": language,
                  "first": first, "data": data,
                  "campaign_name": tr.text(site.campaign.name), "rungs": RUNGS,
                  "target": TARGET, "bands": SKILL_BANDS}
        missions: list[dict[str, Any]] = []
        for entry in site.missions:
            m = entry.mission
            back = other.get(m.id)
            back_key = f"mission-{back.number:02d}" if back is not None else "back-mission"
            missions.append({
                "entry": entry, "mission": m, "title": tr.text(m.title),
                "flavor": tr.text(m.flavor),
                "href": page_name(mission_stem(m), language, first),
                "front": site.images.get((language, f"mission-{m.number:02d}")),
                "back": site.images.get((language, back_key)),
                "front_alt": _alt(m, site, tr), "back_alt": _alt(back, site, tr),
                "back_mission": back,
                "back_href": page_name(mission_stem(back), language, first)
                if back is not None else None,
                "lines": mission_lines(m, site.campaign, tr),
                "command": play_command(site, m),
                "estimate": entry.estimate,
                "stars_all": sorted({m.stars, *m.stars_per_count.values()}),
                "players": _counts(m.players),
            })
        rulebook = site.campaign.rulebook
        used = [{"id": c, "name": tr.text(rulebook.challenge(c).name),
                 "text": tr.text(rulebook.challenge(c).text),
                 "missions": [e.mission.number for e in site.missions
                              if c in e.mission.challenges]} for c in challenges]
        own_goals = [{"id": g.id, "name": tr.text(g.name), "text": tr.text(g.text),
                      "symbol": g.symbol,
                      "missions": [e.mission.number for e in site.missions
                                   if g.id in e.mission.goals]}
                     for g in rulebook.goals.values() if not g.builtin]
        files[page_name("index", language, first)] = env.get_template("index.html.j2").render(
            **common, depth="", switch=switch("index", ""), missions=missions,
            challenges=used, goals=own_goals,
            downloads=[(d, _download_label(d, tr)) for d in site.downloads
                       if d.language == language],
            players=sorted({p for e in site.missions for p in e.mission.players}),
        ).encode("utf-8")
        for index, item in enumerate(missions):
            stem = mission_stem(item["entry"].mission)
            files[page_name(stem, language, first)] = env.get_template(
                "mission.html.j2").render(
                    **common, depth="../", switch=switch(stem, "../"), m=item,
                    previous=missions[index - 1] if index else None,
                    next=missions[index + 1] if index + 1 < len(missions) else None,
                    finding=finding_text).encode("utf-8")
    return files


def check_text(check: KitCheck) -> Output:
    """What reading the campaign found, on stderr before any work; with an error, that
    nothing was published."""
    notes = [str(d) for d in check.diagnostics]
    if check.campaign is None or check.cards:
        notes.append("the campaign has errors: nothing was published")
    return Output("", "\n".join(notes))


def text(published: Published, out_dir: Any) -> Output:
    """What a publish did, on stdout; a mission without an estimate, on stderr."""
    site = published.site
    index = os.path.join(str(out_dir), "index.html")
    reused = len(site.missions) - published.played
    removed = f", {len(published.removed)} removed" if published.removed else ""
    lines = [f"  estimates: {published.played} played (--games {site.games}, seed "
             f"{site.seed}), {reused} reused from an earlier publish (same play)",
             f"  files: {len(published.written)} written, {published.unchanged} unchanged"
             f"{removed}",
             f"Published {len(site.missions)} mission(s) in {', '.join(site.languages)} "
             f"in {out_dir}: open {index}"]
    if site.people is not None:
        lines.insert(0, f"  people: {site.people.games} game(s) from {site.logs} log(s), "
                        f"{site.left_out} left out (no person, or a mission changed since)")
    elif site.logs:
        lines.insert(0, f"  people: no game of the campaign's missions as they are now with a "
                        f"person in {site.logs} log(s)")
    notes = [f"warning: mission {e.mission.number} {e.mission.id} has no estimate"
             for e in site.missions if e.estimate is None]
    return Output("\n".join(lines), "\n".join(notes))
