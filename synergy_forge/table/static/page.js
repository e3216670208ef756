// What the table's pages share (the seat and spectators' page, table.js; the host's,
// host.js; loaded before either): the page's language and its words (/api/words, with
// plurals), elements built with textContent only (no text ever becomes HTML), the status line,
// and the view kept up to date (asked, then pushed: server-sent events).
"use strict";

const page = { lang: "en", words: null };

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function wordsOf() {
  return page.words ? (page.words[page.lang] || page.words.en) : null;
}

// A word with a count is {count, one, other} (table/words.py plurals, from the catalog's
// ngettext forms): the form of its count in the page's language.
function t(key, params) {
  const table = wordsOf();
  let text = table && table[key] !== undefined ? table[key] : key;
  if (typeof text === "object") {
    const n = Number((params || {})[text.count]);
    const category = new Intl.PluralRules(page.lang).select(n);
    text = text[category] !== undefined ? text[category] : text.other;
  }
  for (const [name, value] of Object.entries(params || {})) text = text.split("{" + name + "}").join(String(value));
  return text;
}

function localized(map) {
  if (!map) return "";
  return map[page.lang] || map.en || Object.values(map)[0] || "";
}

function colorName(color) {
  const table = wordsOf();
  return table && table.colors[color] ? table.colors[color] : color;
}

// The tab's title: what the page shows, then its campaign's name (else the table's).
function setTitle(shown, mission) {
  document.title = shown + " · " + (localized(mission.campaign) || t("page-title"));
}

function setStatus(key, className) {
  const status = document.getElementById("status");
  status.className = "status " + (className || "");
  status.textContent = t(key);
  status.dataset.key = key;
}

// The parts of the page outside what it draws: its language, the language buttons' state.
function drawLanguage() {
  document.documentElement.lang = page.lang;
  document.getElementById("lang-group").setAttribute("aria-label", t("language"));
  for (const b of document.querySelectorAll(".lang button")) b.setAttribute("aria-pressed", String(b.dataset.lang === page.lang));
}

// The page's language: ?lang=, else the one last chosen, else the browser's; a language
// button redraws the page with `redraw`. Resolves once the words are in.
async function startLanguage(redraw) {
  let kept = null;
  try { kept = localStorage.getItem("synergy-table-lang"); } catch (error) { /* private mode */ }
  const asked = new URLSearchParams(location.search).get("lang");
  page.lang = asked || kept || ((navigator.language || "en").toLowerCase().startsWith("fr") ? "fr" : "en");
  for (const b of document.querySelectorAll(".lang button")) {
    b.addEventListener("click", () => {
      page.lang = b.dataset.lang;
      try { localStorage.setItem("synergy-table-lang", b.dataset.lang); } catch (error) { /* private mode */ }
      const status = document.getElementById("status");
      if (status.dataset.key) status.textContent = t(status.dataset.key);
      drawLanguage();
      redraw();
    });
  }
  page.words = await (await fetch("/api/words")).json();
  if (!page.words[page.lang]) page.lang = "en";
}

// -- the view, asked and pushed -------------------------------------------------------------

const live = { api: null, draw: null, source: null };

// The view asked once (after a refused choice, back to the tab): false when the link is no
// table's any more (404: ended, stopped, or wrong), which the page then says.
async function refresh() {
  try {
    const response = await fetch(live.api, { cache: "no-store" });
    if (response.status === 404) {
      document.querySelector("main").replaceChildren(el("p", "unknown", t("unknown-seat")));
      setStatus("unknown-seat", "lost");
      return false;
    }
    if (response.ok) live.draw(await response.json());
    return true;
  } catch (error) {
    return true;
  }
}

// The view pushed after every change; the browser reconnects by itself, except when the
// stream was refused for good: then, if the link still answers, again in 2 s.
function connect() {
  disconnect();
  const source = live.source = new EventSource(live.api + "/events");
  source.addEventListener("view", (event) => { setStatus("live", "live"); live.draw(JSON.parse(event.data)); });
  source.onerror = async () => {
    setStatus("lost-connection", "lost");
    if (source.readyState === EventSource.CLOSED && await refresh()) setTimeout(connect, 2000);
  };
}

function disconnect() {
  if (live.source) live.source.close();
  live.source = null;
}

// Follow the view at `api` (GET it, `api`/events pushes it), each one drawn by `draw`; asked
// again on return to the tab, and when the network is back.
async function follow(api, draw) {
  live.api = api;
  live.draw = draw;
  setStatus("connecting");
  if (await refresh()) connect();
  document.addEventListener("visibilitychange", () => { if (!document.hidden) refresh(); });
  window.addEventListener("online", () => { if (live.source) { refresh(); connect(); } });
}
