// The seat page, and the spectators' (/watch/TOKEN: the same page without a hand): draws the
// view (docs/table.md) with textContent only (no text ever becomes HTML), sends a tapped
// choice, and redraws on every view the server pushes (server-sent events; the browser
// reconnects by itself, and the view is asked again on return).
"use strict";

const token = decodeURIComponent(location.pathname.split("/").pop());
const watching = location.pathname.split("/")[1] === "watch";
const api = (watching ? "/api/watch/" : "/api/seat/") + encodeURIComponent(token);
window.table = { updates: 0, view: null };

let view = null;
let sending = false;
let notice = "";

// -- cards ------------------------------------------------------------------------------------

function seatOfColor(color) {
  return view.table.seats.findIndex((s) => s.color === color);
}

function symbolOf(color) {
  const seat = view.table.seats[seatOfColor(color)];
  return seat ? seat.symbol : "";
}

function goalDef(id) {
  return view.table.mission.goals.find((g) => g.id === id) || { id, name: { en: id }, symbol: id };
}

function cardText(card) {
  if (!card) return "";
  if (card.kind === "goal") return colorName(card.color) + " " + localized(goalDef(card.value).name);
  return colorName(card.color) + " " + card.value;
}

// A card drawn as on the table: colour band with its symbol, value or goal sign large.
function cardFace(card, tag, extra) {
  const node = el(tag || "span", "card " + card.kind + " c" + seatOfColor(card.color) + (extra ? " " + extra : ""));
  const corner = el("span", "corner", symbolOf(card.color));
  corner.setAttribute("aria-hidden", "true");
  let main;
  if (card.kind === "goal") {
    const goal = goalDef(card.value);
    main = el("span", "big goal-sign", goal.symbol || "?");
    const name = el("span", "name", localized(goal.name));
    main.setAttribute("aria-hidden", "true");
    node.append(corner, main, name);
  } else {
    main = el("span", "big", card.value);
    main.setAttribute("aria-hidden", "true");
    node.append(corner, main);
  }
  node.setAttribute("aria-label", cardText(card));
  node.title = cardText(card);
  return node;
}

function sameCard(a, b) {
  return a && b && a.kind === b.kind && a.color === b.color && a.value === b.value;
}

// -- sending a choice -------------------------------------------------------------------------

async function choose(id) {
  if (sending) return;
  sending = true;
  document.body.classList.add("sending");
  try {
    const response = await fetch(api + "/choose", {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify({ choice: id }), cache: "no-store",
    });
    const data = await response.json();
    if (response.ok) { notice = ""; draw(data); }
    else { notice = t("refused", { message: data.error || response.status }); drawNotice(); refresh(); }
  } catch (error) {
    notice = t("lost-connection"); drawNotice();
  } finally {
    sending = false;
    document.body.classList.remove("sending");
  }
}

function choiceButton(item, content, label) {
  const button = el("button", "choice");
  button.type = "button";
  if (typeof content === "string") button.textContent = content; else button.append(content);
  if (label) button.setAttribute("aria-label", label);
  button.addEventListener("click", () => choose(item.id));
  button.dataset.choice = item.id;
  return button;
}

// -- drawing ----------------------------------------------------------------------------------

function actionText(action) {
  const seatName = (n) => String(n);
  const cards = (action.cards || []).map(cardText).join(" + ");
  const params = { cards, card: action.with ? cardText(action.with) : "",
                   other: action.other, target: action.target,
                   a: action.seats ? seatName(action.seats[0]) : "", b: action.seats ? seatName(action.seats[1]) : "" };
  return t("action-" + action.card, params);
}

function actionName(letter) {
  const found = view.table.mission.actions.find((a) => a.card === letter);
  const name = found ? localized(found.name) : "";
  return name ? letter + " (" + name + ")" : letter;
}

function drawHeader() {
  const m = view.table.mission;
  const title = t("mission-title", { number: m.number, title: localized(m.title) });
  document.getElementById("title").textContent = title;
  setTitle(title, m);
  const seat = view.table.seats[view.seat];
  const counters = document.getElementById("counters");
  counters.replaceChildren(
    watching ? el("span", "you watching", t("watching")) :
      el("span", "you c" + view.seat, seat.symbol + " " + t("you-are", { seat: view.seat, color: colorName(view.color) })),
    el("span", "lives", "♥ " + t("lives-left", { lives: view.table.lives, total: m.lives })),
    el("span", "rounds", "★ " + t("rounds-won", { won: view.table.rounds_won, rounds: m.rounds })),
    el("span", "round", (view.table.game > 1 ? t("game-n", { game: view.table.game }) + " · " : "") +
      (view.table.round ? t("round-n", { round: view.table.round }) : t("before-round"))));
}

function drawNotice() {
  document.getElementById("notice").textContent = notice;
}

function drawTurn() {
  const prompt = document.getElementById("prompt");
  const choices = document.getElementById("choices");
  choices.replaceChildren();
  const step = view.table.step;
  document.getElementById("turn").hidden = Boolean(view.outcome);
  const mine = watching ? null : view.table.seats[view.seat];
  if (view.outcome) {
    prompt.textContent = "";
  } else if (watching) {
    prompt.textContent = t("watch-turn");
  } else if (mine.player === "bot" && view.player !== "person") {
    prompt.textContent = t(mine.away ? "away-you" : "handed", { name: mine.bot });
  } else if (view.decision) {
    prompt.textContent = t("prompt-" + view.decision);
  } else if (view.laid) {
    prompt.textContent = t("you-laid", { what: laidText(view.laid) });
  } else {
    prompt.textContent = t("not-your-turn");
  }
  if (!view.outcome && step.seats.length && !view.decision) {
    const who = step.seats.map((s) => view.table.seats[s].symbol + " " + t("seat", { seat: s })).join(", ");
    choices.append(el("p", "waiting", t("waiting-for", { who })));
  }
  drawNotice();
  // The choices that are no card of the hand: seats, actions, the cards to take back.
  for (const item of view.legal) {
    if (item.kind === "super" || item.kind === "hyper") {
      const seat = view.table.seats[item.seat];
      choices.append(choiceButton(item, seat.symbol + " " + t("give-to", { seat: item.seat }) +
                                  " (" + colorName(seat.color) + ")"));
    } else if (item.kind === "action") {
      const text = item.action ? actionName(item.action.card) + t("colon") + actionText(item.action) : t("no-action");
      choices.append(choiceButton(item, text));
    } else if (item.kind === "take-back") {
      choices.append(choiceButton(item, cardFace(item.card, "span"), cardText(item.card)));
    }
  }
}

function laidText(item) {
  if (item.card) return cardText(item.card);
  if (item.kind === "action") return item.action ? actionName(item.action.card) + t("colon") + actionText(item.action) : t("no-action");
  if (item.seat !== undefined) return t("give-to", { seat: item.seat });
  return "";
}

function drawHand(box, cards, kinds) {
  const legal = view.legal.filter((item) => kinds.includes(item.kind) && item.card);
  box.replaceChildren(...cards.map((card) => {
    const item = legal.find((i) => sameCard(i.card, card));
    if (!item) {
      const face = cardFace(card, "span", legal.length ? "unplayable" : "");
      return face;
    }
    const button = choiceButton(item, cardFace(card, "span"), cardText(card));
    button.classList.add("card-button");
    return button;
  }));
}

function slot(card, label, extra) {
  const box = el("div", "slot");
  box.append(el("span", "slot-label", label));
  if (card) box.append(cardFace(card, "span", extra)); else box.append(el("span", "card empty", "–"));
  return box;
}

function drawSeats() {
  const list = document.getElementById("seats");
  list.replaceChildren(...view.table.seats.map((s) => {
    const li = el("li", "seat c" + s.seat + (s.seat === view.seat ? " mine" : "") + (s.waiting ? " waiting" : ""));
    const who = el("p", "who");
    const kind = s.away ? t("away-bot", { name: s.bot }) : s.seat === view.seat ? t("you") :
      s.player === "bot" ? t("bot", { name: s.bot }) : t("person");
    who.append(el("span", "symbol", s.symbol), " ",
               el("strong", null, t("seat", { seat: s.seat }) + " · " + colorName(s.color)), " ",
               el("span", "kind", kind));
    if (s.player === "person" || s.away) {
      const here = el("span", "presence " + (s.connected ? "here" : "gone"), s.connected ? t("connected") : t("not-connected"));
      who.append(" ", here);
    }
    if (s.super) who.append(" ", el("span", "badge", t("super")));
    if (s.hyper) who.append(" ", el("span", "badge hyper", t("hyper")));
    if (s.waiting) who.append(" ", el("span", "state", t("choosing")));
    if (s.laid) who.append(" ", el("span", "state laid", t("face-down")));
    const cards = el("div", "played");
    const delta = s.delta ? (s.delta > 0 ? "+" : "") + s.delta : "";
    const first = slot(s.table.first, t("first"));
    if (delta) first.append(el("span", "delta", delta));
    cards.append(first, slot(s.table.goal, t("goal")), slot(s.table.second, t("second")));
    const counts = el("p", "counts", t("in-hand", { numbers: t("n-numbers", { n: s.hand.numbers }),
                                                  goals: t("n-goals", { n: s.hand.goals }) }) +
      " · " + t("in-deck", s.deck));
    const discards = el("div", "discards");
    if (s.discards.length) {
      discards.append(el("span", "slot-label", t("discards") + t("colon").trimEnd()));
      for (const c of s.discards) discards.append(el("span", "chip c" + seatOfColor(c.color),
        c.kind === "goal" ? (goalDef(c.value).symbol || c.value) : String(c.value)));
    }
    li.append(who, cards, counts, discards);
    const shown = view.revealed ? view.revealed.hands[s.seat] : null;
    if (shown) {  // the game is over: every hand, for spectators
      for (const [key, cardsOf] of [["hand-at-end", shown.hand.concat(shown.goal_hand)], ["deck-at-end", shown.deck.concat(shown.goal_deck)]]) {
        if (!cardsOf.length) continue;
        const row = el("div", "discards revealed");
        row.append(el("span", "slot-label", t(key) + t("colon").trimEnd()));
        for (const c of cardsOf) row.append(el("span", "chip c" + seatOfColor(c.color),
          c.kind === "goal" ? (goalDef(c.value).symbol || c.value) : String(c.value)));
        li.append(row);
      }
    }
    return li;
  }));
}

function drawMission() {
  const m = view.table.mission;
  document.getElementById("mission-title").textContent = t("mission-title", { number: m.number, title: localized(m.title) }) + " " + "★".repeat(m.stars);
  document.getElementById("flavor").textContent = localized(m.flavor);
  const facts = document.getElementById("mission-facts");
  const rows = [
    [t("rounds"), String(m.rounds)], [t("lives"), String(m.lives)],
    [t("may-miss"), String(m.allowed_failures)],
    [t("order"), t("order-" + m.order)],
    [t("starting-hand"), m.hand.numbers + " + " + m.hand.goals],
  ];
  facts.replaceChildren();
  for (const [term, value] of rows) facts.append(el("dt", null, term), el("dd", null, value));
  if (m.challenges.length) {
    facts.append(el("dt", null, t("challenges")));
    for (const c of m.challenges) {
      const dd = el("dd");
      dd.append(el("strong", null, localized(c.name)), el("span", null, t("colon") + localized(c.text)));
      facts.append(dd);
    }
  }
  if (m.actions.length) {
    facts.append(el("dt", null, t("actions")));
    const used = new Set(view.table.actions_available);
    for (const a of m.actions) {
      const dd = el("dd", used.has(a.card) ? null : "used");
      dd.append(el("strong", null, a.card + " " + localized(a.name)), el("span", null, t("colon") + localized(a.text)));
      facts.append(dd);
    }
  }
  if (m.super) facts.append(el("dt", null, t("super")), el("dd", null, t("super-text")));
  if (m.hyper) facts.append(el("dt", null, t("hyper")), el("dd", null, t("hyper-text")));
  facts.append(el("dt", null, t("goals")));
  const goals = el("dd", "goal-list");
  for (const g of m.goals) {
    goals.append(el("span", "goal-chip", (g.symbol || "") + " " + localized(g.name)));
  }
  facts.append(goals);
}

// A seat's two number cards as the referee added them: an action card's change to a card
// beside its printed value, "(1+1) + 4", so that the sum shown agrees with them.
function arithmetic(s) {
  const term = (printed, effective) => effective === undefined || effective === printed ? String(printed)
    : "(" + printed + (effective > printed ? "+" : "−") + Math.abs(effective - printed) + ")";
  return term(s.first.value, s.first_effective) + " + " + term(s.second.value, s.second_effective);
}

function roundSection(r) {
  const part = el("section", "round-played " + (r.success ? "won" : "failed"));
  part.append(el("h3", null, (r.success ? "✔ " : "✘ ") + t(r.success ? "round-won" : "round-lost", { round: r.round })));
  part.append(el("p", null, t("failures", { failures: r.failures, allowed: r.allowed_failures }) + " · " +
    t("n-lives-left", { lives: r.lives_after }) + ", " +
    t("rounds-won", { won: r.rounds_won_after, rounds: view.table.mission.rounds })));
  for (const a of r.actions) part.append(el("p", "action", t("used-action", { seat: a.seat, card: actionName(a.card), what: actionText(a) })));
  const table = el("table");
  const head = el("tr");
  for (const h of [t("seat", { seat: "" }).trim(), t("number"), t("goal"), t("sum"), ""]) head.append(el("th", null, h));
  table.append(head);
  for (const s of r.seats) {
    const tr = el("tr", "c" + s.seat);
    const goal = goalDef(s.goal_met);
    let result = s.met ? "✔ " + t("met") : "✘ " + t("missed");
    if (!s.counted) result += " · " + t("ignored");
    for (const v of s.violations) result += " · " + t("breaks", { what: v });
    tr.append(el("td", null, view.table.seats[s.seat].symbol + " " + s.seat),
              el("td", null, arithmetic(s)),
              el("td", null, (goal.symbol || "") + " " + localized(goal.name)),
              el("td", null, s.sum), el("td", s.met ? "met" : "missed", result));
    table.append(tr);
  }
  // In a box of its own that scrolls, should a table still not fit its column (the side
  // column of a tablet, a long goal's name): the table, never the page.
  const box = el("div", "table-box");
  box.append(table);
  part.append(box);
  const details = el("details");
  details.append(el("summary", null, t("referee")), el("pre", null, localized(r.texts) || r.text));
  part.append(details);
  return part;
}

// The last round settled stands under the turn, where every player looks; the earlier ones
// aside, the latest first.
function drawHistory() {
  const rounds = view.table.rounds;
  const last = document.getElementById("last-round");
  last.hidden = !rounds.length;
  document.getElementById("last-title").textContent = t("last-round");
  const box = document.getElementById("last-round-body");
  const open = box.querySelector("details") && box.querySelector("details").open;
  box.replaceChildren(...rounds.slice(-1).map(roundSection));
  if (open && box.querySelector("details")) box.querySelector("details").open = true;
  const earlier = rounds.slice(0, -1).reverse();
  const history = document.getElementById("history");
  if (!earlier.length) history.replaceChildren(el("p", "quiet", t(rounds.length ? "no-earlier-round" : "no-round-yet")));
  else history.replaceChildren(...earlier.map(roundSection));
}

function drawOutcome() {
  const box = document.getElementById("outcome");
  const outcome = view.outcome;
  box.hidden = !outcome;
  if (!outcome) return;
  box.className = "outcome " + (outcome.won ? "won" : "lost");
  if (outcome.reason === "rule-failed") {
    // A campaign rule failed in play: which rule, where, for what input (as text, never HTML).
    box.replaceChildren(el("h2", null, t("rule-failed")), el("pre", "rule", outcome.rule));
    if (!watching) box.append(againButton());
    return;
  }
  const head = el("h2", null, outcome.won ? "★ " + t("won") + " ★" : t("lost"));
  box.replaceChildren(head);
  if (!outcome.won && outcome.reason) {
    const who = (outcome.stuck || []).map((s) => view.table.seats[s].symbol + " " + t("seat", { seat: s })).join(", ");
    box.append(el("p", null, t("lost-" + outcome.reason) + (who ? " (" + who + ")" : "")));
  }
  box.append(el("p", null, t("rounds-won", { won: outcome.rounds_won, rounds: view.table.mission.rounds }) + " · " +
    t("lives-left", { lives: outcome.lives, total: view.table.mission.lives })));
  // The review of the game (made while it was played: ready now, or in a few seconds).
  const review = el("a", "review", t("review"));
  review.href = "/review/" + encodeURIComponent(token) + "?lang=" + encodeURIComponent(page.lang);
  box.append(el("p", null), review);
  if (!watching) box.append(againButton());
}

function againButton() {
  const again = el("button", "again", t("again"));
  again.type = "button";
  again.addEventListener("click", playAgain);
  return again;
}

async function playAgain() {
  if (sending) return;
  sending = true;
  try {
    const response = await fetch(api + "/again", { method: "POST", cache: "no-store" });
    const data = await response.json();
    if (response.ok) draw(data); else { notice = t("refused", { message: data.error }); refresh(); }
  } catch (error) {
    notice = t("lost-connection");
  } finally {
    sending = false;
  }
}

function drawStatic() {
  drawLanguage();
  document.getElementById("own").hidden = watching;
  document.getElementById("hand-title").textContent = t("your-hand");
  document.getElementById("goals-title").textContent = t("your-goals");
  document.getElementById("table-title").textContent = t("table");
  document.getElementById("history-title").textContent = t("history");
}

function draw(data) {
  if (data) {
    if (view && data.version < view.version) return;  // an older view arrived late
    view = data;
  }
  if (!view || !page.words) return;
  const active = document.activeElement;
  const focused = active && active.dataset ? active.dataset.choice : null;
  // Played by keyboard: a choice had the focus, or the prompt that stood in for one.
  const keyboard = Boolean(focused) || (active && active.id === "prompt");
  drawStatic();
  drawHeader();
  drawOutcome();
  drawTurn();
  drawHand(document.getElementById("hand"), view.hand, ["first-number", "second-number"]);
  drawHand(document.getElementById("goal-hand"), view.goal_hand, ["goal"]);
  drawSeats();
  drawMission();
  drawHistory();
  // Keyboard play: keep the focus on the same choice; when it is gone (chosen, or the step
  // moved on), on the first choice now, else on the prompt, so that the next Tab or the next
  // turn starts where the play is, not at the top of the page.
  const again = focused ? document.querySelector('[data-choice="' + CSS.escape(focused) + '"]') : null;
  if (again) again.focus();
  else if (keyboard) (document.querySelector("button.choice") || document.getElementById("prompt")).focus();
  window.table.updates += 1;
  window.table.view = view;
}

async function start() {
  await startLanguage(() => { drawStatic(); draw(null); });
  drawStatic();
  await follow(api, draw);
}

start();
