"""A finished game's review (sim.review) for people and machines: read from a game log's
records, rendered as text, JSON or an HTML page with its chart, in English or French
(`replay LOG --review`, the table's review page, docs/table.md "The review")."""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from html import escape
from pathlib import Path
from typing import IO, Any

from synergy_forge.authoring.definitions import standard_actions
from synergy_forge.authoring.gamelog import game_from_header, log_lines, parse_record
from synergy_forge.cardtext.glossary import term
from synergy_forge.cardtext.i18n import Translator
from synergy_forge.core.cards import Action
from synergy_forge.core.choices import (
    Choice,
    DecisionKind,
    choice_from_json,
    choice_json,
    choice_text,
)
from synergy_forge.core.engine import Game
from synergy_forge.core.rules import ActionText
from synergy_forge.fileio import open_regular
from synergy_forge.reporting import Output
from synergy_forge.reporting.choicewords import CHOICE_WORDS, say_choice
from synergy_forge.sim.review import (
    ROLLOUTS,
    Memos,
    Review,
    Reviewed,
    assembled,
    ended,
    positions,
    review,
    review_position,
)
from synergy_forge.typography import NBSP, typeset

#: The review's own words (French typeset below, as the table's are), and a choice's
#: (reporting.choicewords: a card or an action named as the seat page names it).
_OWN: dict[str, dict[str, str]] = {
    "en": {
        "title": "Review: mission {number} {title}",
        "summary": "{players} players, {result}. Each chance is the share of games won among "
                   "those played on from that point with the expert at every seat, the cards "
                   "its seat had not seen dealt again each time: at most {rollouts}, fewer "
                   "once its standard error (±) is {points} points or less (seed {seed}).",
        "won": "won", "lost": "lost",
        "chart": "The table's chance of winning after each decision",
        "costliest": "The costliest decisions",
        "none-costly": "No decision lowered the chance by {points} points or more.",
        "cost-line": "#{n}, round {round}, seat {seat} ({color}), {kind} {choice}: "
                     "{before} → {after} (the expert: {expert})",
        "n": "#", "round": "Round", "seat-column": "Seat", "decision": "Decision",
        "choice": "Choice", "by": "By", "expert": "The expert", "before": "Before",
        "after": "After", "change": "Change", "decisions": "Every decision",
        "person": term("player", "en"), "marked": "costly",
        "first-number": "first number card", "goal": "goal card",
        "second-number": "second number card", "take-back": "card taken back",
        "action": "action", "super": "super card", "hyper": "hyper card",
    },
    "fr": {
        "title": "Revue : mission {number} {title}",
        "summary": "{players} joueurs, {result}. Chaque chance est la part des parties gagnées "
                   "parmi celles jouées à partir de ce moment avec l'expert à chaque place, les "
                   "cartes que sa place n'avait pas vues redistribuées à chaque fois : au plus "
                   "{rollouts}, moins dès que son erreur type (±) est de {points} points ou "
                   "moins (graine {seed}).",
        "won": "gagnée", "lost": "perdue",
        "chart": "La chance de gagner de la table après chaque décision",
        "costliest": "Les décisions les plus coûteuses",
        "none-costly": "Aucune décision n'a baissé la chance de {points} points ou plus.",
        "cost-line": "n° {n}, manche {round}, place {seat} ({color}), {kind} {choice} : "
                     "{before} → {after} (l'expert : {expert})",
        "n": "n°", "round": "Manche", "seat-column": "Place", "decision": "Décision",
        "choice": "Choix", "by": "Par", "expert": "L'expert", "before": "Avant",
        "after": "Après", "change": "Écart", "decisions": "Toutes les décisions",
        # the glossary's words: "personne" alone reads "nobody"
        "person": term("player", "fr"), "marked": "coûteuse",
        "first-number": "première " + term("number card", "fr"),
        "goal": term("goal card", "fr"),
        "second-number": "seconde " + term("number card", "fr"), "take-back": "carte reprise",
        "action": "action", "super": term("super card", "fr"),
        "hyper": term("hyper card", "fr"),
    },
}

WORDS: dict[str, dict[str, str]] = {
    language: {key: typeset(text, language) if language == "fr" else text
               for key, text in ({**own, **{k: v[index] for k, v in CHOICE_WORDS.items()}}
                                 ).items()}
    for index, (language, own) in enumerate(_OWN.items())}


@dataclass(frozen=True)
class GameReview:
    """A game's review with what its pages say about the game: the mission, the seats'
    colours and who made each decision (the log's `by`; "" where the log does not say)."""

    review: Review
    game: Game  # as dealt
    by: tuple[str, ...]


def game_steps(records: Sequence[dict[str, Any]], ends: bool = True, game: Game | None = None
               ) -> tuple[Game, list[list[Choice]], list[str]]:
    """The game a log's records deal, its decisions grouped by step (those asked at once
    together), and who made each. Raises ReplayError (bad header) or ValueError (decisions
    that are not the game's, or, with `ends`, that do not end it: read a log with `replay`
    first). Without `ends`: the steps so far of a game being played, a step not yet
    complete left out. `game`: the game the header deals, when already set up."""
    game = game_from_header(records[0]).game if game is None else game
    playing = game.copy()
    decisions = [r for r in records[1:] if r.get("type") == "decision"]
    steps: list[list[Choice]] = []
    at = 0
    while not playing.over:
        pending = playing.pending()
        if not ends and at + len(pending) > len(decisions):
            break
        step = []
        for decision in pending:
            if at >= len(decisions):
                raise ValueError("the log ends before the game does")
            step.append(choice_from_json(decision.kind, decisions[at]["choice"]))
            at += 1
        playing.apply(step)
        steps.append(step)
    seated = records[0].get("bots", [])  # who played each seat, where decisions do not say
    return game, steps, [str(r.get("by") or (seated[r["seat"]] if r["seat"] < len(seated)
                                             else "")) for r in decisions[:at]]


def review_records(records: Sequence[dict[str, Any]], rollouts: int = ROLLOUTS, seed: int = 0,
                   jobs: int = 1, progress: Callable[[int, int], None] | None = None
                   ) -> GameReview:
    """Review the game of a finished log's records (sim.review)."""
    game, steps, by = game_steps(records)
    return GameReview(review(game, steps, rollouts, seed, jobs, progress), game, tuple(by))


def reviewed_records(records: Sequence[dict[str, Any]], reviewed: Sequence[Reviewed],
                     rollouts: int, seed: int) -> GameReview:
    """The review of a finished log's game from its decisions reviewed one by one (a table's,
    during play: `review_decision`)."""
    game, steps, by = game_steps(records)
    return GameReview(assembled(reviewed, rollouts, seed, ended(game, steps).won), game,
                      tuple(by))


def review_decision(records: Sequence[dict[str, Any]], index: int, rollouts: int, seed: int,
                    memos: Memos | None = None, game: Game | None = None) -> Reviewed:
    """Decision `index` of the log's game (finished or not: its steps so far) reviewed, as
    the whole game's review has it (`game`: the game its header deals, when set up)."""
    game, steps, _ = game_steps(records, ends=False, game=game)
    return review_position(positions(game, steps, ends=False)[index], rollouts, seed, memos)


def reviewed_json(item: Reviewed) -> dict[str, Any]:
    """A decision reviewed, as a JSON value (kept in a table's state file)."""
    return {"index": item.index, "round": item.round, "seat": item.seat,
            "kind": str(item.kind), "choice": choice_json(item.choice),
            "expert": choice_json(item.expert), "win_before": item.win_before,
            "win_after": item.win_after, "rollouts": item.rollouts,
            "se_before": item.se_before, "se_after": item.se_after, "se_cost": item.se_cost}


def reviewed_from_json(data: dict[str, Any]) -> Reviewed:
    kind = DecisionKind(data["kind"])
    return Reviewed(int(data["index"]), int(data["round"]), int(data["seat"]), kind,
                    choice_from_json(kind, data["choice"]),
                    choice_from_json(kind, data["expert"]), float(data["win_before"]),
                    float(data["win_after"]), int(data["rollouts"]), float(data["se_before"]),
                    float(data["se_after"]), float(data["se_cost"]))


def work(tasks: IO[str], answers: IO[str]) -> None:
    """A reviewing process's loop (table/review.py starts it): per line of `tasks`, `{"log":
    RECORDS, "index": I, "rollouts": R, "seed": S}`, the line `{"reviewed": …}` (or
    `{"error": …}`) on `answers`, until `tasks` ends. The memos of the last few games' bots
    are kept from one task to the next (a game's header read once: its rulebook is the same
    object, which the memos' keys hold)."""
    games: dict[str, tuple[Game, Memos]] = {}
    for line in tasks:
        try:
            task = json.loads(line)
            header = json.dumps(task["log"][0], sort_keys=True)
            if header not in games:
                while len(games) >= 4:
                    del games[next(iter(games))]
                games[header] = (game_from_header(task["log"][0]).game, Memos.new())
            game, memos = games[header]
            item = review_decision(task["log"], task["index"], task["rollouts"], task["seed"],
                                   memos, game)
            answer: dict[str, Any] = {"reviewed": reviewed_json(item)}
        except Exception as exc:  # said to the table, which says it on its terminal
            answer = {"error": f"{type(exc).__name__}: {exc}"}
        answers.write(json.dumps(answer) + "\n")
        answers.flush()


def review_log(path: Path, rollouts: int = ROLLOUTS, seed: int = 0, jobs: int = 1
               ) -> GameReview:
    """Review the game of the log at `path`, which `replay` has read without error."""
    with open_regular(path) as stream:
        records = [parse_record(number, line) for number, line in log_lines(stream)
                   if line.strip()]
    return review_records(records, rollouts, seed, jobs)


def _decision_json(game: Game, item: Reviewed, by: str) -> dict[str, Any]:
    return {"index": item.index, "round": item.round, "seat": item.seat,
            "color": game.colors[item.seat], "by": by or None, "kind": str(item.kind),
            "choice": choice_json(item.choice), "text": choice_text(item.choice),
            "expert": choice_json(item.expert), "expert_text": choice_text(item.expert),
            "win_before": round(item.win_before, 4), "win_after": round(item.win_after, 4),
            "cost": round(item.cost, 4), "rollouts": item.rollouts,
            "se_before": round(item.se_before, 4), "se_after": round(item.se_after, 4),
            "se_cost": round(item.se_cost, 4), "marked": item.marked}


def review_to_json(result: GameReview) -> dict[str, Any]:
    """The review's documented shape (docs/table.md, "The review")."""
    game, reviewed = result.game, result.review
    by = list(result.by) + [""] * (len(reviewed.decisions) - len(result.by))
    return {"mission": {"id": game.mission.id, "number": game.mission.number,
                        "title": dict(game.mission.title)},
            "players": game.players, "won": reviewed.won, "rollouts": reviewed.rollouts,
            "precision": reviewed.precision, "seed": reviewed.seed,
            "decisions": [_decision_json(game, item, by[item.index])
                          for item in reviewed.decisions]}


def to_json(result: GameReview) -> Output:
    return Output(json.dumps(review_to_json(result), ensure_ascii=False, indent=1) + "\n")


def review_words(language: str) -> dict[str, str]:
    """The review's words in `language` (English for any other): the table serves them with
    its pages' words (`GET /api/words`, under "review-page"), and its review page is drawn with
    those."""
    return dict(WORDS[language if language in WORDS else "en"])


class _Words:
    """The review's words in one language (the table's, when it gives them), and its figures
    and choices said in them."""

    def __init__(self, language: str, words: dict[str, str] | None = None,
                 actions: Mapping[Action, ActionText] | None = None) -> None:
        self.language = language if language in WORDS else "en"
        self.words = words if words is not None else WORDS[self.language]
        self.gettext = Translator(self.language).gettext
        self.actions = standard_actions() if actions is None else actions

    def __call__(self, key: str, **values: Any) -> str:
        return self.words[key].format(**values)

    def color(self, color: str) -> str:
        return self.gettext(color)

    def kind(self, kind: DecisionKind) -> str:
        return self.words[str(kind)]

    def choice(self, game: Game, choice: Choice) -> str:
        """A card or an action as the seat page names it (not the notation: the JSON's)."""
        return say_choice(choice, self.words, self.color, self.language, game.rulebook,
                          self.actions)

    def percent(self, chance: float) -> str:
        """`82%`; in French `82 %`, a no-break space before the sign."""
        return f"{round(chance * 100)}{NBSP if self.language == 'fr' else ''}%"

    def chance(self, chance: float, error: float) -> str:
        """A chance with its standard error, in points: `82% ±4`."""
        return f"{self.percent(chance)} ±{round(error * 100)}"

    def title(self, game: Game) -> str:
        return self("title", number=game.mission.number,
                    title=game.mission.label(self.language))

    def summary(self, result: GameReview) -> str:
        reviewed = result.review
        return self("summary", players=result.game.players,
                    result=self("won" if reviewed.won else "lost"),
                    rollouts=reviewed.rollouts, seed=reviewed.seed,
                    points=round(reviewed.precision * 100))

    def costly(self, result: GameReview) -> list[str]:
        game = result.game
        marked = sorted((r for r in result.review.decisions if r.marked),
                        key=lambda r: -r.cost)
        return [self("cost-line", n=r.index + 1, round=r.round, seat=r.seat,
                     color=self.color(game.colors[r.seat]), kind=self.kind(r.kind),
                     choice=self.choice(game, r.choice), before=self.percent(r.win_before),
                     after=self.percent(r.win_after), expert=self.choice(game, r.expert))
                for r in marked]


def text(result: GameReview, language: str = "en",
         actions: Mapping[Action, ActionText] | None = None) -> Output:
    """The review as lines of text: the summary, every decision, the costliest ones; cards
    and actions named in `language` (action cards by `actions`' names: the campaign's)."""
    say = _Words(language, actions=actions)
    game = result.game
    lines = [say.title(game), say.summary(result), ""]
    header = (say("n"), say("round"), say("seat-column"), say("decision"), say("choice"),
              say("by"), say("expert"), say("before"), say("after"))
    rows = [header]
    by = list(result.by) + [""] * len(result.review.decisions)
    for r in result.review.decisions:
        rows.append((f"{r.index + 1}{'*' if r.marked else ''}", str(r.round),
                     f"{r.seat} {say.color(game.colors[r.seat])}", say.kind(r.kind),
                     say.choice(game, r.choice),
                     say("person") if by[r.index] == "person" else by[r.index],
                     say.choice(game, r.expert), say.chance(r.win_before, r.se_before),
                     say.chance(r.win_after, r.se_after)))
    widths = [max(len(row[i]) for row in rows) for i in range(len(header))]
    lines += ["  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
              for row in rows]
    lines += ["", say("costliest") + say("colon").rstrip()]
    costly = say.costly(result)
    lines += [f"  {line}" for line in costly] or \
        [f"  {say('none-costly', points=round(_mark_from() * 100))}"]
    return Output("\n".join(lines) + "\n")


def _mark_from() -> float:
    from synergy_forge.sim.review import MARK_FROM

    return MARK_FROM


#: The review page's style: the table's server serves it as a file (its CSP allows no
#: inline style); `replay --review --html` writes it inside the page.
STYLE = """
body { font-family: system-ui, sans-serif; margin: 1rem auto; max-width: 72rem; padding: 0 1rem;
  color: #1d1d1f; background: #fff; line-height: 1.4; }
h1 { font-size: 1.4rem; } h2 { font-size: 1.15rem; margin-top: 1.5rem; }
.chart { width: 100%; height: auto; max-width: 60rem; }
.chart.narrow { display: none; }
@media (max-width: 40rem) { .chart.wide { display: none; } .chart.narrow { display: block; } }
@media (min-width: 40rem) and (max-width: 48rem) { .chart.wide text { font-size: 14px; } }
.chart .grid { stroke: #d0d0d0; stroke-width: 1; }
.chart .line { fill: none; stroke: #1b5fa8; stroke-width: 2.5; }
.chart .dot { fill: #1b5fa8; }
.chart .marked { fill: #b3261e; }
.chart text { font-size: 12px; fill: #333; }
.scroll { overflow-x: auto; }
table { border-collapse: collapse; font-size: 0.9rem; }
th, td { padding: 0.2rem 0.5rem; border-bottom: 1px solid #ddd; text-align: left;
  white-space: nowrap; }
td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.choice { white-space: normal; min-width: 11rem; max-width: 18rem; }
tr.marked { background: #fbe9e7; font-weight: 600; }
li.marked { color: #8c1d18; }
"""

@dataclass(frozen=True)
class _Frame:
    """A chart's drawing box, in its own units; the page shows the one that fits its width, so
    that its labels (12 units) are 12 CSS pixels or more on a phone as on a laptop."""

    name: str
    width: int
    height: int
    left: int
    bottom: int
    top: int = 12
    right: int = 8
    #: every round's label says "Round N" (else N, "Round" once, under the percentages)
    words_each_round: bool = True


#: A laptop's or a tablet's chart (up to 60rem wide), and a phone's (up to 40rem: STYLE).
_FRAMES = (_Frame("wide", 720, 240, 44, 28), _Frame("narrow", 340, 200, 56, 28,
                                                    words_each_round=False))
#: The width of a label's character, in the chart's units, at most (text of 14 units, a
#: small tablet's: STYLE), so that no two rounds' labels overlap.
_CHAR = 8.5


def chart_svg(result: GameReview, language: str = "en",
              words: dict[str, str] | None = None, frame: _Frame = _FRAMES[0]) -> str:
    """The chance after each decision as a line (0 to 100%), the marked decisions in red,
    drawn in `frame`; presentation attributes only (no style attribute: the table's CSP)."""
    say = _Words(language, words)
    decisions = result.review.decisions
    count = max(len(decisions), 1)
    right = frame.width - frame.right
    inner_w, inner_h = right - frame.left, frame.height - frame.bottom - frame.top

    def x(i: float) -> float:
        return frame.left + inner_w * (i + 1) / count

    def y(chance: float) -> float:
        return frame.top + inner_h * (1 - chance)

    title = f"chart-title-{frame.name}"
    parts = [f'<svg class="chart {frame.name}" viewBox="0 0 {frame.width} {frame.height}" '
             f'role="img" aria-labelledby="{title}" xmlns="http://www.w3.org/2000/svg">',
             f'<title id="{title}">{escape(say("chart"))}</title>']
    for level in (0, 0.25, 0.5, 0.75, 1):
        parts.append(f'<line class="grid" x1="{frame.left}" x2="{right}" y1="{y(level):.1f}" '
                     f'y2="{y(level):.1f}"/>')
        parts.append(f'<text x="{frame.left - 6}" y="{y(level) + 4:.1f}" text-anchor="end">'
                     f'{say.percent(level)}</text>')
    if decisions:
        points = [(x(-1), y(decisions[0].win_before))] + \
            [(x(r.index), y(r.win_after)) for r in decisions]
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        parts.append(f'<polyline class="line" points="{path}"/>')
    if not frame.words_each_round:
        parts.append(f'<text x="{frame.left - 6}" y="{frame.height - 8}" text-anchor="end">'
                     f'{escape(say("round"))}</text>')
    labelled_to = 0.0  # where the last round's label ends: the next one starts after it
    for r in decisions:
        if r.round and (r.index == 0 or decisions[r.index - 1].round != r.round):
            label = f"{say('round')} {r.round}" if frame.words_each_round else str(r.round)
            at = x(r.index - 1) + 2
            if at >= labelled_to and at + len(label) * _CHAR <= frame.width:
                parts.append(f'<text x="{at:.1f}" y="{frame.height - 8}">'
                             f"{escape(label)}</text>")
                labelled_to = at + len(label) * _CHAR + 6
        if r.marked:
            parts.append(f'<circle class="marked" cx="{x(r.index):.1f}" '
                         f'cy="{y(r.win_after):.1f}" r="6"><title>#{r.index + 1}: '
                         f'{say.percent(r.win_before)} → '
                         f'{say.percent(r.win_after)}</title></circle>')
    parts.append("</svg>")
    return "".join(parts)


def html(result: GameReview, language: str = "en", stylesheet: str | None = None,
         refresh: bool = False, campaign: Mapping[str, str] | None = None,
         icon: str | None = None, words: dict[str, str] | None = None,
         actions: Mapping[Action, ActionText] | None = None) -> Output:
    """The review as a whole page: summary, chart, costliest decisions, every decision. Its
    style inside it, or at `stylesheet` (a URL); `refresh`: the page reloads itself;
    `campaign`: its name by language, in the tab's title; `icon`: the page's icon (a URL);
    `words`: the review's words in `language` as the caller has them (the table's);
    `actions`: the action cards' printed names (the campaign's; else the standard ones)."""
    say = _Words(language, words, actions)
    game = result.game
    by = list(result.by) + [""] * len(result.review.decisions)
    style = f'<link rel="stylesheet" href="{escape(stylesheet)}">' if stylesheet else \
        f"<style>{STYLE}</style>"
    rows = []
    for r in result.review.decisions:
        who = say("person") if by[r.index] == "person" else by[r.index]
        marked = ' class="marked"' if r.marked else ""
        rows.append(
            f'<tr{marked}><td class="num">{r.index + 1}</td>'
            f'<td class="num">{r.round}</td>'
            f"<td>{r.seat} {escape(say.color(game.colors[r.seat]))}</td>"
            f"<td>{escape(say.kind(r.kind))}</td>"
            f'<td class="choice">{escape(say.choice(game, r.choice))}</td>'
            f'<td>{escape(who)}</td><td class="choice">{escape(say.choice(game, r.expert))}</td>'
            f'<td class="num">{say.chance(r.win_before, r.se_before)}</td>'
            f'<td class="num">{say.chance(r.win_after, r.se_after)}</td>'
            f'<td class="num">{round(-r.cost * 100):+d} ±{round(r.se_cost * 100)}</td></tr>')
    costly = say.costly(result)
    listed = "".join(f'<li class="marked">{escape(line)}</li>' for line in costly) or \
        f"<li>{escape(say('none-costly', points=round(_mark_from() * 100)))}</li>"
    head = "".join(f"<th>{escape(say(k))}</th>" for k in (
        "n", "round", "seat-column", "decision", "choice", "by", "expert", "before", "after",
        "change"))
    title = escape(say.title(game))
    named = (campaign or {}).get(say.language) or (campaign or {}).get("en")
    tab = f"{title} · {escape(named)}" if named else title
    extra = ('<meta http-equiv="refresh" content="2">' if refresh else "") + \
        (f'<link rel="icon" href="{escape(icon)}" type="image/svg+xml">' if icon else "")
    page = (f'<!doctype html>\n<html lang="{say.language}"><head><meta charset="utf-8">'
            f'<meta name="viewport" content="width=device-width, initial-scale=1">'
            f"{extra}"
            f"<title>{tab}</title>{style}</head><body><main>"
            f"<h1>{title}</h1><p>{escape(say.summary(result))}</p>"
            f"<h2>{escape(say('chart'))}</h2>"
            f'{"".join(chart_svg(result, language, words, frame) for frame in _FRAMES)}'
            f"<h2>{escape(say('costliest'))}</h2><ol>{listed}</ol>"
            f"<h2>{escape(say('decisions'))}</h2>"
            f'<div class="scroll"><table><thead><tr>{head}</tr></thead><tbody>'
            f'{"".join(rows)}</tbody></table></div></main></body></html>\n')
    return Output(page)
