// tablectl floor's /pit: every table on the floor, in the server's order of what needs
// a floorperson first (controller/floor/floorpit.py, NEEDS), from /api/pit each second.
// No card value is ever shown: the pit's views carry none.
"use strict";
const $ = (id) => document.getElementById(id);
const EVERY = 1000; // ms between fetches


const NEED_WORDS = {
  offline: "offline: its uplink is gone",
  stopped: "play stopped: floorperson called",
  fault: "a fault this shift",
  device: "a device needs attention",
  shuffle: "a shuffle alert to acknowledge",
  gap: "rows missing on the floor",
};

function range([first, last]) { return first === last ? `${first}` : `${first}–${last}`; }

function card(t) {
  const first = t.needs[0];
  const lines = [
    el("h2", {}, t.table, " ", el("small", {}, words(t.game || ""))),
    el("p", { class: first ? "error needs" : "needs" },
      t.needs.length ? t.needs.map((n) => NEED_WORDS[n] || n).join("; ") : "nothing needed"),
    el("p", { class: "state" }, words(t.state || "no state yet") +
      (t.round ? `, round ${t.round}` : "") + (t.shoe ? `, shoe ${t.shoe}` : "")),
  ];
  const devices = Object.entries(t.devices || {});
  if (devices.length) lines.push(el("table", {}, ...devices.map(([n, s]) =>
    el("tr", {}, el("th", {}, n), el("td", { class: s === "connected" ? "" : "error" }, s)))));
  const alert = t.shuffle_alert && t.shuffle_alert.latest;
  if (alert) {
    // The checks by the names tablectl shuffle-report gives them.
    const others = (t.shuffle_alert.shoes || []).filter((s) => s !== alert.shoe);
    lines.push(el("p", { class: "error shuffle", "data-shoe": alert.shoe },
      `shuffle alert, shoe ${alert.shoe}: ${(alert.failed || []).join(", ")}` +
      (others.length ? ` (also shoe ${others.join(", ")})` : "")));
  }
  if (t.missing && t.missing.length)
    lines.push(el("p", { class: "error gap" }, `Rows missing: ${t.missing.map(range).join(", ")}`));
  for (const f of (t.faults && t.faults.last) || [])
    lines.push(el("p", { class: "error" }, `${words(f.type)} ${words(f.cause || "")}: ${f.what}` +
      (f.section ? ` (${f.section})` : "")));
  lines.push(el("p", {}, `Rounds ${t.rounds ?? 0}, per hour ${t.rounds_per_hour ?? "–"}; ` +
    `drop ${t.drop ?? 0}, win ${t.win ?? 0}; row ${t.seq}`));
  return el("section", { class: `table${first ? " need-" + first : ""}`, "data-table": t.table,
    "data-needs": t.needs.join(" "), "data-round": t.round ?? "" }, ...lines);
}

function summary(data) {
  const c = data.counters;
  return el("p", { id: "summary-text" }, `${data.tables.length} tables; broker ` +
    `${data.connected ? "connected" : "not connected"}; rows ${c.received}, ` +
    `duplicates ${c.duplicates}, gaps ${c.gaps} (${c.missing} rows)`);
}

async function refresh() {
  try {
    const reply = await fetch("/api/pit", { credentials: "same-origin" });
    if (reply.status === 401 || reply.status === 403) { location.assign("/login?next=/pit"); return; }
    const data = await reply.json();
    $("tables").replaceChildren(...data.tables.map(card));
    $("broker").replaceChildren(summary(data));
    $("link").textContent = data.connected ? "live" : "broker unreachable";
  } catch (e) {
    $("link").textContent = "floor unreachable";
  }
  setTimeout(refresh, EVERY);
}

document.head.append(el("link", { rel: "stylesheet", href: "/floor-static/floor.css" }));
refresh();
