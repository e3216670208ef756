// The studio page. The server sends the whole state once (event "state"), then what changed
// (event "change": the campaign's part, the missions' order, and each changed mission's parts
// by file, with the version it follows); the page redraws only the parts of the page that show
// a changed field, in place, with textContent only (user text never becomes HTML), keeping
// every other element (loaded card images, the reader's scroll position) as it is. A change
// that does not follow the version the page has makes it ask for the whole state again.
"use strict";

// updates: events drawn; fetches: whole states asked for after a missed change.
window.studio = { updates: 0, fetches: 0, state: null };

function el(tag, className, text) {
  const node = document.createElement(tag);
  if (className) node.className = className;
  if (text !== undefined && text !== null) node.textContent = String(text);
  return node;
}

function percent(x) { return Math.round(x * 100) + "%"; }

function stars(n) { return n === null || n === undefined ? "" : n + "★"; }

function diagnosticItem(d) {
  const li = el("li", d.severity);
  li.append(el("span", "where", d.where + ": "), el("span", "severity", d.severity),
            el("span", "message", ": " + d.message + " "), el("span", "check", "[" + d.check + "]"));
  return li;
}

function skillText(skill) {
  return skill === null ? "needs more skill than the expert's" : "needs skill " + skill.toFixed(2);
}

// "1 game", "2 games": English plural rules (the studio speaks English).
function games(n) {
  return n + (new Intl.PluralRules("en").select(n) === "one" ? " game" : " games");
}

function estimateLine(estimate) {
  if (!estimate) return "playing…";
  const apart = estimate.players.filter((p) => p.apart)
    .map((p) => p.players + "p " + p.stars).join(", ");
  return estimate.stars + " (" + skillText(estimate.skill) + ", " + games(estimate.games) +
    ")" + (apart ? "; " + apart : "");
}

// Games people played at the table (logged in the campaign's games/), beside the bots' estimate.
function peopleLine(people) {
  if (!people || !people.games) return "";
  return "people: " + people.wins + " of " + people.games + " won, " + percent(people.rate) +
    " [" + percent(people.low) + ", " + percent(people.high) + "]";
}

// One row of the overview per mission, each cell drawn when what it shows changed.
function missionRow() {
  const tr = el("tr");
  const link = el("a");
  const title = el("td");
  title.append(link);
  const cells = { number: el("td"), title, link, stars: el("td"), estimate: el("td"),
                  errors: el("td"), warnings: el("td") };
  tr.append(cells.number, title, cells.stars, cells.estimate, cells.errors, cells.warnings);
  tr.cells_ = cells;
  return tr;
}

function drawRowName(tr, m) {
  const cells = tr.cells_;
  cells.number.textContent = m.number ?? "?";
  cells.link.textContent = m.title || m.file;
  cells.stars.textContent = stars(m.stars);
}

function drawRowCounts(tr, m) {
  const cells = tr.cells_;
  cells.errors.className = "count" + (m.errors ? " bad" : "");
  cells.errors.textContent = m.errors;
  cells.warnings.className = "count" + (m.warnings ? " warn" : "");
  cells.warnings.textContent = m.warnings;
}

function drawRowEstimate(tr, m) {
  const cell = tr.cells_.estimate;
  cell.className = m.estimate && !m.estimate.agrees ? "disagree" : "";
  cell.textContent = m.playable ? estimateLine(m.estimate) : "";
  if (m.people && m.people.games) cell.append(el("div", "people", peopleLine(m.people)));
}

function cardImage(src, label) {
  const img = el("img", "face");
  img.alt = label;
  if (src) img.src = src; else img.classList.add("waiting");
  return img;
}

function setImage(img, src) {
  if (!src) { img.classList.add("waiting"); return; }
  img.classList.remove("waiting");
  if (img.getAttribute("src") !== src) img.src = src;
}

function drawPeople(box, people) {
  if (!people) return;
  box.append(el("h4", null, "Played by people (games/)"));
  if (people.games) {
    box.append(el("p", "people", people.wins + " of " + games(people.games) + " won: win rate " +
                  percent(people.rate) + ", 95% interval [" + percent(people.low) + ", " +
                  percent(people.high) + "]"));
  }
  if (people.earlier) {
    box.append(el("p", "people earlier", games(people.earlier) + " on an earlier version of " +
                  "this mission's rules, not counted"));
  }
}

function drawEstimate(box, m) {
  box.replaceChildren();
  if (!m.playable) { box.append(el("p", null, "No estimate while the file has errors.")); return; }
  drawPeople(box, m.people);
  const e = m.estimate;
  box.append(el("h4", null, "Difficulty (the skill a table needs)"));
  if (!e) { box.append(el("p", null, "playing the first games…")); return; }
  const line = el("p", e.agrees ? "ok" : "disagree",
                  "declared " + stars(m.stars) + ", estimated " + e.stars + ": " +
                  skillText(e.skill) + " (win rate at skill " + e.rungs.map(
                    (r) => r.skill + ": " + percent(r.rate)).join(", ") +
                  "); the experts win " + percent(e.rate) + ", 95% interval [" +
                  percent(e.low) + ", " + percent(e.high) + "]; " + games(e.games) + " in all" +
                  (e.done ? " (done)" : ""));
  if (e.limited_by_bot) {
    line.append(el("div", "disagree", "Limited by the bot: the expert plays this mission " +
                   "worse than it could be played, so the stars are an upper bound."));
  }
  // The skill needed on the skill axis (0 to 1), with the range its intervals allow; ticks
  // at the bounds of the star bands.
  const bar = el("div", "bar");
  bar.title = "skill needed, 0 to 1, with its range; ticks: the star bands' bounds";
  const at = (skill) => (skill === null ? 1 : skill);
  const range = el("div", "range");
  range.style.left = percent(at(e.skill_low));
  range.style.width = percent(at(e.skill_high) - at(e.skill_low));
  const point = el("div", "point");
  point.style.left = percent(at(e.skill));
  bar.append(range, point);
  for (const bound of [0.2, 0.4, 0.6, 0.8]) {
    const tick = el("div", "tick");
    tick.style.left = percent(bound);
    bar.append(tick);
  }
  const table = el("table");
  const head = el("tr");
  head.append(el("th", null, "players"), el("th", null, "stars"), el("th", null, "skill"),
              el("th", null, "experts win"));
  table.append(head);
  for (const p of e.players) {
    const tr = el("tr");
    const played = p.games > 0;
    const experts = el("td", null, played ? percent(p.rate) : "–");
    if (played) experts.title = "95% interval [" + percent(p.low) + ", " + percent(p.high) + "]";
    tr.append(el("td", null, p.players), el("td", p.apart ? "disagree" : null, p.stars),
              el("td", null, p.skill === null ? "more than the experts'" : p.skill.toFixed(2)),
              experts);
    table.append(tr);
  }
  box.append(line, bar, table);
  if (e.losses.length) {
    box.append(el("h4", null, "Why games are lost"));
    const list = el("ul");
    for (const loss of e.losses) list.append(el("li", null, loss.reason + ": " + games(loss.games)));
    box.append(list);
  }
}

function missionSection() {
  const section = el("section", "mission");
  const heading = el("h3");
  const cards = el("div", "cards");
  const side = el("div", "side");
  const diagnostics = el("ul", "diagnostics");
  const fits = el("ul", "diagnostics fits");
  const estimate = el("div", "estimate");
  side.append(diagnostics, fits);
  section.append(heading, cards, side, estimate);
  section.parts = { heading, cards, diagnostics, fits, estimate };
  return section;
}

function drawHeading(section, m) {
  section.parts.heading.replaceChildren(
    el("span", "title", (m.number ?? "?") + ". " + (m.title || "(unreadable)")),
    el("span", "file", m.file));
}

function drawCards(section, m) {
  const parts = section.parts;
  // A mission with only print errors (its rules do not fit) still has its card: show it.
  if (m.card) {
    let images = parts.cards.querySelectorAll("img.face");
    if (images.length !== 2) {
      parts.cards.replaceChildren(cardImage(m.card[0], "front"), cardImage(m.card[1], "back"));
      images = parts.cards.querySelectorAll("img.face");
    }
    setImage(images[0], m.card[0]);
    setImage(images[1], m.card[1]);
  } else {
    const box = el("div", "broken", m.errors ? "This file has errors: no card until they are fixed."
                                             : "No card.");
    parts.cards.replaceChildren(box);
  }
}

function drawProblems(section, m) {
  const parts = section.parts;
  parts.diagnostics.replaceChildren(...m.diagnostics.map(diagnosticItem));
  if (!m.diagnostics.length) parts.diagnostics.append(el("li", "ok", "no problem found"));
  parts.fits.replaceChildren(...m.overflows.map((what) =>
    diagnosticItem({ where: m.file, severity: "warning", message: what + " does not fit on the card",
                     check: "card.fit" })));
}

// Each part of the page, the fields it shows, and how it is drawn: a change redraws the parts
// that show one of its fields, and no other.
const VIEWS = [
  [["number", "title", "file"], (shown, m) => drawHeading(shown.section, m)],
  [["card", "errors"], (shown, m) => drawCards(shown.section, m)],
  [["diagnostics", "overflows", "file"], (shown, m) => drawProblems(shown.section, m)],
  [["playable", "estimate", "people", "stars"], (shown, m) => drawEstimate(shown.section.parts.estimate, m)],
  [["number", "title", "file", "stars"], (shown, m) => drawRowName(shown.row, m)],
  [["errors", "warnings"], (shown, m) => drawRowCounts(shown.row, m)],
  [["playable", "estimate", "people"], (shown, m) => drawRowEstimate(shown.row, m)],
];

// file -> { mission: its fields as last sent, section, row, index }
const shown = new Map();

// Merge a mission's changed fields and redraw the views that show one of them (all of them
// for a mission new to the page).
function drawMission(file, fields) {
  let entry = shown.get(file);
  const fresh = !entry;
  if (fresh) {
    entry = { mission: { file }, section: missionSection(), row: missionRow(), index: -1 };
    shown.set(file, entry);
  }
  // A part is sent whole: of its fields, those whose value changed.
  const changed = new Set(Object.keys(fields).filter(
    (k) => fresh || JSON.stringify(entry.mission[k]) !== JSON.stringify(fields[k])));
  Object.assign(entry.mission, fields);
  for (const [keys, draw] of VIEWS) {
    if (fresh || keys.some((k) => changed.has(k))) draw(entry, entry.mission);
  }
}

// Put each mission's section and row at its place in `order`; drop those no longer there.
function place(order) {
  const main = document.getElementById("missions");
  const body = document.querySelector("#overview tbody");
  const kept = new Set(order);
  for (const [file, entry] of shown) {
    if (!kept.has(file)) { entry.section.remove(); entry.row.remove(); shown.delete(file); }
  }
  order.forEach((file, index) => {
    const entry = shown.get(file);
    if (entry.index !== index) {
      entry.index = index;
      entry.section.id = "m-" + index;
      entry.section.dataset.file = file;
      entry.row.cells_.link.href = "#m-" + index;
    }
    if (main.children[index] !== entry.section) main.insertBefore(entry.section, main.children[index] || null);
    if (body.children[index] !== entry.row) body.insertBefore(entry.row, body.children[index] || null);
  });
  window.studio.state.missions = order.map((file) => shown.get(file).mission);
}

function drawCampaign(part) {
  document.getElementById("campaign").textContent = part.campaign;
  document.title = part.campaign + " · synergy-forge studio";  // the campaign's name, not its folder's
  document.getElementById("folder").textContent = part.folder;
  const problems = document.getElementById("problems");
  problems.hidden = part.problems.length === 0;
  document.getElementById("problem-list").replaceChildren(...part.problems.map(diagnosticItem));
}

function drawn(version) {
  window.studio.state.version = version;
  window.studio.updates += 1;
  const status = document.getElementById("status");
  status.className = "status";
  status.textContent = "live: updated " + new Date().toLocaleTimeString();
}

// The whole state: every part of the page drawn again where it differs from what is shown.
function drawState(state) {
  window.studio.state = { version: state.version, campaign: state.campaign, folder: state.folder,
                          problems: state.problems, missions: [] };
  drawCampaign(state);
  const order = state.missions.map((m) => m.file);
  for (const m of state.missions) drawMission(m.file, m);
  place(order);
  drawn(state.version);
}

// While the whole state is asked for, the changes that come are kept, and applied after it
// (those it already holds are ignored).
let waiting = null;

function fetchState() {
  if (waiting) return;
  waiting = [];
  window.studio.fetches += 1;
  fetch("/api/state").then((r) => r.json()).then(drawState).catch(() => {})
    .finally(() => {
      const kept = waiting;
      waiting = null;
      for (const change of kept) drawChange(change);
    });
}

// A change: applied when it follows the version shown (or one before it: each of its parts is
// as of its own version, later than the page's); older than the page, ignored; after a gap,
// the whole state is asked for again.
function drawChange(change) {
  const state = window.studio.state;
  if (waiting) { waiting.push(change); return; }
  if (!state) return;
  if (change.version <= state.version) return;
  if (change.since > state.version) { fetchState(); return; }
  if ("campaign" in change) {
    Object.assign(state, { campaign: change.campaign, folder: change.folder, problems: change.problems });
    drawCampaign(state);
  }
  for (const [file, fields] of Object.entries(change.missions)) drawMission(file, fields);
  place(change.order || state.missions.map((m) => m.file));
  drawn(change.version);
}
window.studio.drawChange = drawChange;

function connect() {
  const source = new EventSource("/events");
  source.addEventListener("state", (event) => drawState(JSON.parse(event.data)));
  source.addEventListener("change", (event) => drawChange(JSON.parse(event.data)));
  source.onerror = () => {
    const status = document.getElementById("status");
    status.className = "status lost";
    status.textContent = "connection to the studio lost; retrying…";
  };
}

connect();
