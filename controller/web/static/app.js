// Fills a page from its WebSocket's updates (the server's views: controller/web/models.py);
// commands are POSTs carrying the session's CSRF token. No card value is ever computed
// here: a sealed card is null in every view and is drawn face down.
"use strict";
const page = document.body.dataset.page;
const csrf = document.querySelector('meta[name="csrf"]').content;
const $ = (id) => document.getElementById(id);

function fill(id, ...kids) { const n = $(id); if (n) n.replaceChildren(...kids); }
function section(s) { return s ? ` (${s})` : ""; }

function card(token) {
  return token === null ? el("span", { class: "card sealed" }, "face down") : el("span", { class: "card" }, token);
}

function stateLines(view, status, connected) {
  if (!connected) return [el("p", { class: "error" }, "The daemon cannot be reached.")];
  const lines = [el("p", { id: "table-state" }, `${words(view.state || (status && status.state) || "no table yet")}` +
    (view.round ? `, round ${view.round}` : "") + (view.shoe ? `, shoe ${view.shoe}` : ""))];
  if (status && status.need) lines.push(el("p", { id: "need" }, `Waiting for: ${words(status.need)}`));
  return lines;
}

function devices(status) {
  if (!status || !status.devices) return [];
  return [el("table", {}, ...Object.entries(status.devices).map(([n, s]) =>
    el("tr", {}, el("th", {}, n), el("td", {}, s))))];
}

function refusals(list) {
  return (list || []).slice().reverse().map((r) =>
    el("p", { class: "refused" }, `${words(r.command || r.what || r.type)}: ${r.reason || ""}${section(r.section)}`));
}

function faults(view) {
  const list = view.faults || [];
  const clearing = view.clearing || [];
  if (!list.length && !clearing.length) return [el("p", {}, "No fault.")];
  return [...list.map((f) => el("p", { class: "error" }, `${words(f.words || f.cause || f.type)}${f.device ? " (" + f.device + ")" : ""}${section(f.section)}`)),
    ...clearing.map((c) => el("p", { class: "clearing" }, `To clear: ${c}`))];
}

function resultText(r) {
  if (!r) return "None yet.";
  let text = `Round ${r.round}: ${r.words}`;
  if (r.player_total !== undefined) text += ` — player ${r.player_total}, banker ${r.banker_total}`;
  return text;
}

function payouts(r) {
  if (!r) return [];
  const rows = [];
  for (const [seat, s] of Object.entries(r.seats || {}))
    rows.push(el("tr", {}, el("td", {}, `seat ${seat}`), el("td", {}, `net ${s.net}`),
      el("td", {}, Number(s.vigorish) ? `commission ${s.vigorish}` : "")));
  for (const [box, b] of Object.entries(r.boxes || {}))
    rows.push(el("tr", {}, el("td", {}, `box ${box}`),
      el("td", {}, (b.hands || []).map((h) => `${h.total} ${h.words} ${h.net}`).join("; ")), el("td", {}, `net ${b.net}`)));
  return rows.length ? [el("table", {}, ...rows)] : [];
}

function layout(view) {
  fill("wagers", ...Object.entries(view.wagers || {}).map(([place, bets]) =>
    el("p", {}, `${place}: ` + bets.map((b) => `${words(b.bet)} ${b.amount}`).join(", "))));
  fill("hands", ...(view.hands || []).map((h) => el("p", { class: "hand", "data-place": h.place },
    `${h.place}${h.hand > 1 ? " hand " + h.hand : ""}: `, ...h.cards.map(card),
    h.total !== undefined && h.total !== null ? ` = ${h.total}${h.soft ? " soft" : ""}${h.bust ? " BUST" : ""}` : "")));
  fill("result", el("p", { id: "result-text" }, resultText(view.result)), ...payouts(view.result));
}

// The role's command specs; null while the daemon has not said them (it was away when
// the page loaded): asked again once it is reached.
let specs = null;
let asking = false;
async function loadCommands() {
  asking = true;
  try {
    const reply = await fetch("/api/commands", { credentials: "same-origin" });
    specs = (await reply.json()).commands || null;
  } catch (e) {
    specs = null;
  } finally {
    asking = false;
  }
}

// A field the status fills in: acknowledge_shuffle_alert's shoe is the latest alert's.
const PREFILL = {
  acknowledge_shuffle_alert: (status) => {
    const alert = status && status.shuffle_alert;
    return alert && alert.latest ? { shoe: alert.latest.shoe } : {};
  },
};

function commandForm(name, fields, preset, filled) {
  const inputs = {};
  const form = el("div", { class: "cmd", "data-command": name });
  const button = el("button", { type: "button", "data-name": name }, preset ? `${words(name)} ${preset.decision}` : words(name));
  form.append(button);
  for (const [field, spec] of Object.entries(fields)) {
    if (preset && field in preset) continue;
    const input = el("input", { name: field, placeholder: field + (spec.required ? "" : " (optional)"),
      type: spec.type === "bool" ? "checkbox" : spec.type === "int" ? "number" : "text" });
    if (filled && field in filled) input.value = filled[field];
    inputs[field] = [input, spec];
    form.append(spec.type === "bool" ? el("label", {}, input, ` ${words(field)}`) : input);
  }
  button.addEventListener("click", () => send(name, inputs, preset || {}));
  return form;
}

function showCommands(status) {
  if (!$("commands")) return;
  const accepts = status && status.accepts;
  const names = Object.keys(specs || {}).filter((n) => !accepts || accepts.includes(n));
  const decision = status && status.decision;
  const filled = Object.fromEntries(names.filter((n) => PREFILL[n]).map((n) => [n, PREFILL[n](status)]));
  const key = names.join(",") + JSON.stringify(decision) + JSON.stringify(filled);
  if ($("commands").dataset.key === key) return;
  $("commands").dataset.key = key;
  const forms = [];
  for (const n of names) {
    if (n === "decision" && decision) {
      for (const d of decision.allowed || [])
        forms.push(commandForm(n, specs[n], { box: decision.box, decision: d }));
      if (decision.rescue) forms.push(commandForm(n, specs[n], { box: decision.box, decision: "rescue" }));
    } else forms.push(commandForm(n, specs[n], undefined, filled[n]));
  }
  fill("commands", ...forms);
}

function value(input, spec) {
  if (spec.type === "bool") return input.checked;
  if (input.value === "") return undefined;
  if (spec.type === "int") return parseInt(input.value, 10);
  return input.value;
}

async function send(name, inputs, preset) {
  const args = { ...preset };
  for (const [field, [input, spec]] of Object.entries(inputs)) {
    const v = value(input, spec);
    if (v !== undefined) args[field] = v;
  }
  await post("/api/command", { name, args }, showAnswer);
  // A card a floorperson typed (it may be the hole card, 551.8(e)) does not stay on screen.
  if (inputs.card) inputs.card[0].value = "";
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
  else if (a.outcome === "refused") text = `${words(a.command)} refused: ${a.reason}${section(a.section)}`;
  else text = a.message || "refused";
  fill("answer", el("p", { class: cls, id: "answer-text" }, text));
}

const WINNER = { B: "banker", P: "player", T: "tie" };
function road(id, board, cls) {
  const node = $(id);
  if (!node || !board) return;
  node.replaceChildren(...board.cells.map((c) => el("div", {
    class: `${cls} ${WINNER[c.winner]}${c.natural ? " natural" : ""}`, "data-round": c.round,
    style: `grid-column:${c.col + 1};grid-row:${c.row + 1}` }, cls === "bead" ? c.winner : (c.ties ? c.ties : ""))));
}

function scoreboard(view) {
  if (view.counts) {
    const c = view.counts;
    fill("counts", el("p", { id: "count-text" }, `Banker ${c.banker} · Player ${c.player} · Tie ${c.tie} · naturals ${c.natural}`),
      el("p", {}, words(view.state)));
    road("bead", view.bead_plate, "bead");
    road("road", view.big_road, "road");
  } else {
    fill("counts", el("p", { id: "count-text" }, words(view.state || "")));
    fill("totals", ...(view.dealer_totals || []).slice().reverse().map((d) =>
      el("p", {}, `Round ${d.round}: dealer ${d.dealer_total}${d.busted ? " bust" : ""}${d.blackjack ? " blackjack" : ""}`)));
  }
}

function pit(view) {
  const rows = [el("p", {}, `Rounds ${view.rounds ?? 0}, per hour ${view.rounds_per_hour ?? "–"}`),
    el("p", {}, `Drop ${view.drop ?? 0}, win ${view.win ?? 0}`)];
  for (const group of ["by_result", "by_wager", "by_outcome"])
    for (const [k, v] of Object.entries(view[group] || {}))
      rows.push(el("p", {}, `${words(k)}: drop ${v.drop}, win ${v.win}`));
  fill("shift", ...rows);
  fill("halts", ...(view.faults && view.faults.last.length ? view.faults.last.map((f) =>
    el("p", { class: "error" }, `${words(f.type)} ${words(f.cause || "")}: ${f.what}${section(f.section)}`)) : [el("p", {}, "No fault.")]));
  fill("refusals", ...refusals(view.refusals && view.refusals.last));
}

function pValue(p) {
  if (typeof p !== "number") return "–";
  return p === 0 ? "0" : p < 0.001 ? p.toExponential(1) : p.toFixed(3);
}

// The daemon's status "shuffle_alert" (controller/boards/shufflealerts.py): the latest
// alert not yet acknowledged; while the daemon is away, the same reader's over the
// journal (the table model's). It never stops play; the floorperson decides.
function shuffleAlert(view, status) {
  const node = $("shuffle-alert");
  if (!node) return;
  const alert = status && "shuffle_alert" in status ? status.shuffle_alert : view.shuffle_alert;
  const latest = alert && alert.latest;
  node.hidden = !latest;
  if (!latest) { node.replaceChildren(); return; }
  const others = (alert.shoes || []).filter((s) => s !== latest.shoe);
  node.replaceChildren(
    el("p", { id: "shuffle-alert-text", "data-shoe": latest.shoe },
      `Shuffle alert, shoe ${latest.shoe}: ${(latest.failed || []).join(", ")}; ` +
      `smallest p-value ${pValue(latest.p_value)}` +
      (others.length ? ` (also shoe ${others.join(", ")})` : "")),
    el("small", {}, "Play goes on: acknowledge it in Commands once you have decided."));
}

function render(message) {
  const { view, status, connected } = message;
  document.body.dataset.seq = view.seq;
  document.body.dataset.need = (status && status.need) || "";
  fill("link", connected ? "live" : "daemon unreachable");
  if (page === "scoreboard") { scoreboard(view); return; }
  fill("state", ...stateLines(view, status, connected));
  fill("devices", ...devices(status));
  if (page === "pit") { pit(view); return; }
  fill("refusals", ...refusals(view.refusals));
  fill("halts", ...faults(view));
  fill("prompt", view.prompt || words(view.state || ""), el("small", {}, view.section || ""));
  layout(view);
  if (specs === null && connected && csrf && !asking) loadCommands().then(() => showCommands(status));
  showCommands(status);
  if (page === "floor") shuffleAlert(view, status);
  if (page === "floor") fill("recent", ...(view.recent || []).slice().reverse().map((e) =>
    el("p", {}, `${e.seq} ${words(e.type)}`)));
}

function connect() {
  const scheme = location.protocol === "https:" ? "wss" : "ws";
  const ws = new WebSocket(`${scheme}://${location.host}/ws/${page}`);
  ws.onmessage = (event) => render(JSON.parse(event.data));
  ws.onclose = () => { fill("link", "reconnecting…"); setTimeout(connect, 1000); };
}

function panel() {
  for (const button of document.querySelectorAll("[data-panel]")) {
    button.addEventListener("click", () => {
      const action = button.dataset.panel;
      const args = action === "unplug" ? { device: $("unplug-device").value, ms: 3000 } : {};
      post(`/api/panel/${action}`, { args }, (a) => fill("panel-answer",
        el("p", { class: a.ok ? "done" : "refused", id: "panel-text" }, a.ok ? `${words(action)}: done` : a.message)));
    });
  }
}

if (page !== "login") {
  if ($("verify")) $("verify").addEventListener("click", () =>
    post("/api/verify", {}, (v) => fill("verdict", v.text)));
  panel();
  (csrf && page !== "pit" ? loadCommands() : Promise.resolve()).then(connect);
}
