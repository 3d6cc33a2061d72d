// Fills a page from its WebSocket's updates; commands are POSTs carrying the CSRF token.
"use strict";
const page = document.body.dataset.page;
const csrf = document.querySelector('meta[name="csrf"]').content;
const $ = (id) => document.getElementById(id);

function el(tag, attrs, ...kids) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (k === "class") node.className = v; else node.setAttribute(k, v);
  }
  for (const kid of kids) node.append(kid instanceof Node ? kid : String(kid));
  return node;
}
function fill(id, ...kids) { const n = $(id); if (n) n.replaceChildren(...kids); }
function words(text) { return String(text).replaceAll("_", " "); }

function card(token) {
  return el("span", { class: token === "sealed" ? "card sealed" : "card" },
    token === "sealed" ? "sealed" : token);
}

function stateLines(status, connected) {
  if (!connected) return [el("p", { class: "error" }, "The daemon cannot be reached.")];
  if (!status) return [el("p", {}, "No table yet.")];
  const lines = [el("p", { id: "table-state" }, `${status.id || "table"}: ${words(status.state)}` +
    (status.round ? `, round ${status.round}` : "") + (status.shoe ? `, shoe ${status.shoe}` : ""))];
  if (status.need) lines.push(el("p", { id: "need" }, `Waiting for: ${status.need}`));
  return lines;
}

function devices(status) {
  if (!status || !status.devices) return [];
  return [el("table", {}, ...Object.entries(status.devices).map(([n, s]) =>
    el("tr", {}, el("th", {}, n), el("td", {}, s))))];
}

function refusals(view) {
  return (view.refusals || []).slice().reverse().map((r) =>
    el("p", { class: "refused" }, `${words(r.what)}: ${r.reason}` + (r.section ? ` (${r.section})` : "")));
}

function halts(view) {
  if (!(view.halts || []).length) return [el("p", {}, "No halt.")];
  return view.halts.map((h) => el("p", { class: "error" },
    `${words(h.cause)}${h.device ? " (" + h.device + ")" : ""}: ${h.detail || ""}` +
    (h.needs_repair ? " — needs a repair, then floor clear" : " — floor clear") +
    (h.section ? ` (${h.section})` : "")));
}

function layout(view) {
  fill("wagers", ...(view.wagers || []).map((w) => el("p", {}, `${w.place}: ${words(w.bet)} ${w.amount}`)));
  fill("hands", ...Object.entries(view.hands || {}).map(([who, cards]) =>
    el("p", {}, `${who}: `, ...cards.map(card))));
  const r = view.result;
  if (!r) { fill("result", "None yet."); return; }
  const text = r.result ? `${r.result} wins${r.natural ? " (natural)" : ""}: player ${r.player_total}, banker ${r.banker_total}`
    : `dealer ${r.dealer_total}`;
  fill("result", el("p", { id: "result-text" }, `Round ${r.round}: ${text}`));
}

let specs = null;
async function loadCommands() {
  const reply = await fetch("/api/commands", { credentials: "same-origin" });
  specs = (await reply.json()).commands || {};
}

function commandForm(name, fields) {
  const inputs = {};
  const form = el("div", { class: "cmd", "data-command": name });
  for (const [field, spec] of Object.entries(fields)) {
    const input = el("input", { name: field, placeholder: field + (spec.required ? "" : " (optional)"),
      type: spec.type === "bool" ? "checkbox" : spec.type === "int" ? "number" : "text" });
    inputs[field] = [input, spec];
    form.append(input);
  }
  const button = el("button", { type: "button" }, words(name));
  button.addEventListener("click", () => send(name, inputs));
  form.prepend(button);
  return form;
}

function showCommands(status) {
  if (!specs || !$("commands")) return;
  const accepts = status && status.accepts;
  const names = Object.keys(specs).filter((n) => !accepts || accepts.includes(n));
  const shown = $("commands").dataset.names;
  if (shown === names.join(",")) return;
  $("commands").dataset.names = names.join(",");
  fill("commands", ...names.map((n) => commandForm(n, specs[n])));
}

function value(input, spec) {
  if (spec.type === "bool") return input.checked;
  if (input.value === "") return undefined;
  if (spec.type === "int") return parseInt(input.value, 10);
  return input.value;
}

async function send(name, inputs) {
  const args = {};
  for (const [field, [input, spec]] of Object.entries(inputs)) {
    const v = value(input, spec);
    if (v !== undefined) args[field] = v;
  }
  await post("/api/command", { name, args }, showAnswer);
}

async function post(url, body, then) {
  const reply = await fetch(url, { method: "POST", credentials: "same-origin",
    headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf },
    body: JSON.stringify(body) });
  then(await reply.json());
}

function showAnswer(a) {
  let text, cls = "refused";
  if (a.outcome === "done") { text = `${words(a.command)}: done`; cls = "done"; }
  else if (a.outcome === "refused") text = `${words(a.command)} refused: ${a.reason}` + (a.section ? ` (${a.section})` : "");
  else text = a.message || "refused";
  fill("answer", el("p", { class: cls, id: "answer-text" }, text));
}

function scoreboard(view, status) {
  const counts = view.counts || {};
  fill("counts", el("p", { id: "count-text" }, ["banker", "player", "tie"].map((k) => `${k} ${counts[k] || 0}`).join(" · ")));
  fill("bead", ...(view.results || []).map((r) => el("div",
    { class: `bead ${r.result}${r.natural ? " natural" : ""}`, "data-round": r.round }, r.result[0].toUpperCase())));
  const road = [];
  let column = 0, row = 0, last = null;
  for (const r of view.results || []) {
    if (r.result === "tie") continue;
    if (last !== null && r.result !== last) { column += 1; row = 0; } else if (last !== null) row += 1;
    last = r.result;
    road.push(el("div", { class: `road ${r.result}${r.natural ? " natural" : ""}`,
      style: `grid-column:${column + 1};grid-row:${Math.min(row, 5) + 1}` }, ""));
  }
  fill("road", ...road);
  fill("totals", ...(view.dealer_totals || []).length ? [el("p", {}, `Dealer totals: ${view.dealer_totals.join(", ")}`)] : []);
  if (status) fill("counts", $("count-text"), el("p", {}, `${words(status.state)}`));
}

function render(message) {
  const { view, status, connected } = message;
  document.body.dataset.seq = view.seq;
  fill("link", connected ? "live" : "daemon unreachable");
  if (page === "scoreboard") { scoreboard(view, status); return; }
  fill("state", ...stateLines(status, connected));
  fill("devices", ...devices(status));
  fill("refusals", ...refusals(view));
  fill("halts", ...halts(view));
  if (view.prompt) fill("prompt", view.prompt.text, el("small", {}, view.prompt.section || ""));
  if (page === "dealer" || page === "floor") { layout(view); showCommands(status); }
  if (page === "floor") fill("recent", ...(view.recent || []).slice().reverse().map((e) =>
    el("p", {}, `${e.seq} ${words(e.type)}`)));
  if (page === "pit") fill("shift", el("p", {}, `Rounds ${view.rounds}, per hour ${view.rounds_per_hour ?? "–"}`),
    el("p", {}, `Drop ${view.drop}, win ${view.win}`),
    ...Object.entries(view.win_by_outcome || {}).map(([k, v]) => el("p", {}, `${k}: ${v}`)));
}

let lastStatus = null;
function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws/${page}`);
  ws.onmessage = (event) => { const m = JSON.parse(event.data); lastStatus = m.status; render(m); };
  ws.onclose = () => { fill("link", "reconnecting…"); setTimeout(connect, 1000); };
}

if (page !== "login") {
  if ($("verify")) $("verify").addEventListener("click", () =>
    post("/api/verify", {}, (v) => fill("verdict", v.text)));
  (csrf ? loadCommands() : Promise.resolve()).then(() => { connect(); });
}
