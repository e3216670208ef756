// The host's page: every seat's link and QR code, who is here, who plays each seat, the
// controls of the evening (docs/table.md, "The host"). Drawn with textContent only; the view
// is pushed by the server (server-sent events) after every change.
"use strict";

const token = decodeURIComponent(location.pathname.split("/").pop());
const api = "/api/host/" + encodeURIComponent(token);
window.host = { updates: 0, view: null };

let view = null;
let notice = "";
let ending = false;  // the end button asked "are you sure?"
let busy = false;

function button(text, onClick, key, className) {
  const b = el("button", "control" + (className ? " " + className : ""), text);
  b.type = "button";
  b.dataset.focus = key;
  b.addEventListener("click", onClick);
  return b;
}

async function send(path, body) {
  if (busy) return;
  busy = true;
  try {
    const response = await fetch(api + path, {
      method: "POST", headers: { "content-type": "application/json" },
      body: JSON.stringify(body || {}), cache: "no-store",
    });
    const data = await response.json();
    if (response.ok) { notice = ""; if (data.host) draw(data); else if (data.ended) ended(); }
    else notice = t("refused", { message: data.error || response.status });
  } catch (error) {
    notice = t("lost-connection");
  } finally {
    busy = false;
    draw(null);
  }
}

// -- drawing ----------------------------------------------------------------------------------

function drawGame() {
  const table = view.table;
  const m = table.mission;
  const title = t("mission-title", { number: m.number, title: localized(m.title) });
  document.getElementById("title").textContent = t("host-title", { title });
  setTitle(t("host-title", { title }), m);
  const state = document.getElementById("game-state");
  if (view.outcome) {
    const o = view.outcome;
    // A rule that failed: which, where and for what input, as every seat sees it.
    const failed = o.reason === "rule-failed";
    state.textContent = (o.won ? "★ " + t("won") : failed ? t("rule-failed") :
      t("lost") + (o.reason ? t("colon") + t("lost-" + o.reason) : "")) + " · " + t("game-n", { game: table.game });
    if (failed) state.append(el("pre", "rule", o.rule));
  } else {
    state.textContent = t("game-on", { game: table.game, round: table.round }) + t("colon") +
      t("lives-left", { lives: table.lives, total: m.lives }) + ", " +
      t("rounds-won", { won: table.rounds_won, rounds: m.rounds });
  }
  document.getElementById("notice").textContent = notice;
  const controls = document.getElementById("game-controls");
  const over = Boolean(view.outcome);
  const same = button(t("rematch-same"), () => send("/rematch", { deal: "same" }), "rematch-same");
  const fresh = button(t("rematch-new"), () => send("/rematch", { deal: "new" }), "rematch-new");
  const next = button(t("next-mission"), () => send("/next", {}), "next");
  for (const b of [same, fresh, next]) b.disabled = !over;
  if (!view.campaign) next.hidden = true;
  controls.replaceChildren(same, fresh, next);
}

function drawSeats() {
  document.getElementById("seats-title").textContent = t("host-seats");
  document.getElementById("seats-help").textContent = t("host-link-help");
  const list = document.getElementById("host-seats");
  list.replaceChildren(...view.seats.map((s) => {
    const seat = view.table.seats[s.seat];
    const li = el("li", "host-seat c" + s.seat);
    const head = el("div");
    const who = el("p", "who");
    who.append(el("span", "symbol", seat.symbol), " ",
               el("strong", null, t("seat", { seat: s.seat }) + " · " + colorName(seat.color)), " ");
    if (s.player === "person" || s.connected) {  // a bot's seat has nobody to be here
      who.append(el("span", "presence " + (s.connected ? "here" : "gone"),
                    s.connected ? t("connected") + " (" + t("pages-open", { pages: s.pages }) + ")" : t("not-connected")));
    }
    if (s.away) who.append(" ", el("span", "badge", t("away-bot", { name: s.playing })));
    const label = el("label");
    label.append(t("played-by") + " ");
    const select = el("select");
    select.dataset.focus = "player-" + s.seat;
    select.append(new Option(t("a-person"), "person"));
    for (const name of view.bots) select.append(new Option(t("bot-name", { name }), name));
    select.value = s.player;
    select.addEventListener("change", () => send("/seat/" + s.seat, { bot: select.value === "person" ? null : select.value }));
    label.append(select);
    head.append(who, label);
    const qr = el("img");
    qr.src = s.qr;
    qr.alt = t("qr-of", { seat: s.seat });
    qr.width = 148;
    qr.height = 148;
    const link = el("div", "link");
    const input = el("input");
    input.type = "text";
    input.readOnly = true;
    input.value = s.link;
    input.setAttribute("aria-label", t("seat", { seat: s.seat }));
    input.dataset.focus = "link-" + s.seat;
    input.addEventListener("focus", () => input.select());
    link.append(input);
    li.append(head, qr, link);
    return li;
  }));
}

function drawAway() {
  document.getElementById("away-title").textContent = t("away-title");
  document.getElementById("away-help").textContent = t("away-help");
  const box = document.getElementById("away-controls");
  const after = el("label");
  after.append(t("away-after") + " ");
  const seconds = el("select");
  seconds.dataset.focus = "away-seconds";
  seconds.append(new Option(t("away-never"), ""));
  for (const s of [30, 60, 120, 300, 600]) seconds.append(new Option(s < 60 ? t("seconds", { n: s }) : t("minutes", { n: s / 60 }), String(s)));
  const current = view.away.seconds;
  if (current !== null && ![30, 60, 120, 300, 600].includes(current)) seconds.append(new Option(t("seconds", { n: current }), String(current)));
  seconds.value = current === null ? "" : String(current);
  after.append(seconds);
  const by = el("label");
  by.append(t("away-by") + " ");
  const bot = el("select");
  bot.dataset.focus = "away-bot";
  for (const name of view.bots) bot.append(new Option(name, name));
  bot.value = view.away.bot;
  by.append(bot);
  const change = () => send("/away", { seconds: seconds.value === "" ? null : Number(seconds.value), bot: bot.value });
  seconds.addEventListener("change", change);
  bot.addEventListener("change", change);
  box.replaceChildren(after, by);
}

function drawWatch() {
  document.getElementById("watch-title").textContent = t("watch-title");
  document.getElementById("watch-help").textContent = t("watch-help");
  const box = document.getElementById("watch-link");
  const input = el("input");
  input.type = "text";
  input.readOnly = true;
  input.value = view.watch.link;
  input.setAttribute("aria-label", t("watch-title"));
  input.dataset.focus = "link-watch";
  input.addEventListener("focus", () => input.select());
  const qr = el("img", "watch-qr");
  qr.src = view.watch.qr;
  qr.alt = t("qr-watch");
  box.replaceChildren(input, qr);
}

function drawEvening() {
  document.getElementById("evening-title").textContent = t("evening");
  const list = document.getElementById("games");
  const none = document.getElementById("no-games");
  none.textContent = t("no-game-yet");
  none.hidden = view.games.length > 0;
  list.hidden = !view.games.length;
  list.replaceChildren(...view.games.map((g, i) => {
    const result = g.outcome.won ? "★ " + t("won") : g.outcome.reason === "rule-failed" ? t("rule-failed") : t("lost");
    const item = el("li", null, t("game-result", { game: g.number, number: g.mission.number,
      title: localized(g.mission.title), result }));
    // The review is of the last game the referee settled (a rule that failed settled none).
    if (i === view.games.length - 1 && g.outcome.reason !== "rule-failed") {
      const review = el("a", "review", t("review"));
      review.href = "/review/" + encodeURIComponent(token) + "?lang=" + encodeURIComponent(page.lang);
      item.append(" · ", review);
    }
    return item;
  }));
}

function drawEnd() {
  document.getElementById("end-title").textContent = t("end-title");
  document.getElementById("end-help").textContent = t("end-help");
  const box = document.getElementById("end-controls");
  if (ending) {
    box.replaceChildren(button(t("end-sure"), () => { ending = false; send("/end", {}); }, "end-sure", "danger"),
                        button(t("cancel"), () => { ending = false; draw(null); }, "cancel"));
  } else {
    box.replaceChildren(button(t("end"), () => { ending = true; draw(null); }, "end", "danger"));
  }
}

function drawStatic() {
  drawLanguage();
  document.getElementById("game-title").textContent = t("game-title");
}

function draw(data) {
  if (data) {
    if (view && data.version < view.version) return;
    view = data;
  }
  if (!view || !page.words) return;
  // Keyboard use: the focus stays on the same control across a redraw.
  const focused = document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.focus : null;
  drawStatic();
  drawGame();
  drawSeats();
  drawAway();
  drawWatch();
  drawEvening();
  drawEnd();
  const again = focused ? document.querySelector('[data-focus="' + CSS.escape(focused) + '"]') : null;
  if (again) again.focus();
  window.host.updates += 1;
  window.host.view = view;
}

function ended() {
  disconnect();
  document.querySelector("main").replaceChildren(el("p", "unknown", t("table-ended")));
  setStatus("table-ended", "lost");
}

async function start() {
  await startLanguage(() => draw(null));
  await follow(api, draw);
}

start();
