// What the table's pages share (the seat and spectators' page, table.js; the host's,
// host.js; loaded before either): the page's language and its words (/api/words, with
// plurals), elements built with textContent only (no text ever becomes HTML), the status line.
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
