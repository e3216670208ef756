// The studio page: every state pushed by the server is drawn into the page in place, with
// textContent only (user text never becomes HTML), keeping each mission's elements (and so
// its loaded card images and the reader's scroll position) from one state to the next.
"use strict";

window.studio = { updates: 0, state: null };

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

function estimateLine(estimate) {
  if (!estimate) return "playing…";
  const apart = estimate.players.filter((p) => p.apart)
    .map((p) => p.players + "p " + p.stars).join(", ");
  return estimate.stars + " (" + skillText(estimate.skill) + ", " + estimate.games +
    " games)" + (apart ? "; " + apart : "");
}

// Games people played at the table (logged in the campaign's games/), beside the bots' estimate.
function peopleLine(people) {
  if (!people || !people.games) return "";
  return "people: " + people.wins + " of " + people.games + " won, " + percent(people.rate) +
    " [" + percent(people.low) + ", " + percent(people.high) + "]";
}

function drawOverview(state) {
  const body = document.querySelector("#overview tbody");
  const rows = state.missions.map((m, index) => {
    const tr = el("tr");
    const link = el("a", null, m.title || m.file);
    link.href = "#m-" + index;
    const title = el("td");
    title.append(link);
    const estimate = el("td", m.estimate && !m.estimate.agrees ? "disagree" : null,
                        m.playable ? estimateLine(m.estimate) : "");
    if (m.people && m.people.games) estimate.append(el("div", "people", peopleLine(m.people)));
    tr.append(el("td", null, m.number ?? "?"), title, el("td", null, stars(m.stars)), estimate,
              el("td", "count" + (m.errors ? " bad" : ""), m.errors),
              el("td", "count" + (m.warnings ? " warn" : ""), m.warnings));
    return tr;
  });
  body.replaceChildren(...rows);
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
    box.append(el("p", "people", people.wins + " of " + people.games + " games won: win rate " +
                  percent(people.rate) + ", 95% interval [" + percent(people.low) + ", " +
                  percent(people.high) + "]"));
  }
  if (people.earlier) {
    box.append(el("p", "people earlier", people.earlier + " game(s) on an earlier version of " +
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
                  percent(e.low) + ", " + percent(e.high) + "]; " + e.games + " games in all" +
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
    for (const loss of e.losses) list.append(el("li", null, loss.reason + ": " + loss.games + " games"));
    box.append(list);
  }
}

function missionSection(m) {
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

function drawMission(section, m, index) {
  const parts = section.parts;
  section.id = "m-" + index;
  section.dataset.file = m.file;
  parts.heading.replaceChildren(
    el("span", "title", (m.number ?? "?") + ". " + (m.title || "(unreadable)")),
    el("span", "file", m.file));
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
  parts.diagnostics.replaceChildren(...m.diagnostics.map(diagnosticItem));
  if (!m.diagnostics.length) parts.diagnostics.append(el("li", "ok", "no problem found"));
  parts.fits.replaceChildren(...m.overflows.map((what) =>
    diagnosticItem({ where: m.file, severity: "warning", message: what + " does not fit on the card",
                     check: "card.fit" })));
  drawEstimate(parts.estimate, m);
}

const sections = new Map();

function draw(state) {
  document.getElementById("campaign").textContent = state.campaign;
  document.getElementById("folder").textContent = state.folder;
  const problems = document.getElementById("problems");
  problems.hidden = state.problems.length === 0;
  document.getElementById("problem-list").replaceChildren(...state.problems.map(diagnosticItem));
  drawOverview(state);
  const main = document.getElementById("missions");
  const seen = new Set();
  state.missions.forEach((m, index) => {
    let section = sections.get(m.file);
    if (!section) { section = missionSection(m); sections.set(m.file, section); }
    seen.add(m.file);
    drawMission(section, m, index);
    if (main.children[index] !== section) main.insertBefore(section, main.children[index] || null);
  });
  for (const [file, section] of sections) {
    if (!seen.has(file)) { section.remove(); sections.delete(file); }
  }
  window.studio.updates += 1;
  window.studio.state = state;
  const status = document.getElementById("status");
  status.className = "status";
  status.textContent = "live: updated " + new Date().toLocaleTimeString();
}

function connect() {
  const source = new EventSource("/events");
  source.addEventListener("state", (event) => draw(JSON.parse(event.data)));
  source.onerror = () => {
    const status = document.getElementById("status");
    status.className = "status lost";
    status.textContent = "connection to the studio lost; retrying…";
  };
}

connect();
