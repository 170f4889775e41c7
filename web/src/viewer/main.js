// The lmx trace viewer: one static page, no network. Loads a trace from the file picker, a drop,
// or `?trace=URL` (what `lmx view` serves), indexes it once (trace.js) and draws any step on a
// canvas: topology, node state and phase, lock sets, messages in transit, the waits-for relation.
// A population-protocol trace (an `agents` line) also colours each agent by its protocol state;
// an amoebot trace (an `amoebots` line) is drawn on the triangular lattice instead of a graph layout.
import { indexTrace, KIND, TraceError, MESSAGE_KINDS, IDLE_NODE } from './trace.js';
import { waitsFor, enabledGuarded } from './waits.js';
import { fmtSet, fmtW, fmtP, fmtVal, fmtNodes, describe, msgText } from './notation.js';
import { computeLayout } from './layout.js';
import { latticeFit, amoebotCells, hexPath, cellRadius, unitPx } from './lattice.js';
import { MSG_COLOUR, shapes } from './shapes.js';
import { stateColour, stateInk } from '../common/palette.js';

export const STATE_COLOUR = { BOT: '#e5e7eb', PREPARE: '#fde68a', COMPETE: '#fb923c', WIN: '#c084fc', LOCKED: '#22c55e', UNLOCK: '#60a5fa' };
export const PHASE_COLOUR = { BOT: '#94a3b8', PREPARE: '#0ea5e9', COMPETE: '#db2777' };
const WAIT_COLOUR = { reply: '#2563eb', request: '#ea580c', release: '#64748b' };
const FADE = 12;  // topology changes and interactions stay highlighted for this many events
const INTERACT_COLOUR = '#f59e0b';
const ACTING_COLOUR = '#0f172a';
const NO_STATE_COLOUR = '#cbd5e1';

const $ = (id) => document.getElementById(id);
const ui = {
  trace: null, t: 0, selected: null, playing: false, lastFrame: 0, carry: 0,
  layout: null, lattice: null, view: { scale: 1, x: 0, y: 0 }, sys: null, waits: null, loadMs: 0,
};
window.lmxViewer = ui;  // for tests and the console

// ---------- loading ----------
function showError(msg) {
  const el = $('error');
  el.textContent = msg;
  el.hidden = !msg;
}

async function loadText(text, name) {
  showError('');
  document.body.dataset.ready = '0';
  document.body.dataset.shown = '0';
  $('title').textContent = `loading ${name}…`;
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const t0 = performance.now();
  let trace;
  try {
    trace = indexTrace(text);
  } catch (err) {
    ui.trace = null;
    ui.lattice = null;
    showMode(null);
    document.body.classList.remove('loaded');
    $('title').textContent = name;
    showError(`Cannot open ${name}: ${err instanceof TraceError ? err.message : String(err)}`);
    document.body.dataset.ready = 'error';
    draw();
    return;
  }
  ui.trace = trace;
  ui.lattice = trace.amoebot ? latticeFit(trace.amoebot.bbox) : null;
  ui.layout = ui.lattice ? null : computeLayout(trace);
  ui.loadMs = performance.now() - t0;
  ui.selected = null;
  ui.view = { scale: 1, x: 0, y: 0 };
  ui.name = name;
  document.body.classList.add('loaded');
  const h = trace.header;
  $('info').innerHTML = '';
  const rows = [
    ['source', h.source], ['variant', h.variant], ['nodes', h.nodes], ['Δ, K', `${h.delta}, ${h.k}`],
    ['engine', h.engine], ['seed', h.seed], ['scenario', h.scenario && (h.scenario.name || h.scenario.topology) || '—'],
    ['rounds', trace.end ? trace.end.rounds : '—'], ['hash', trace.end ? trace.end.hash : '—'],
    ['stalled', trace.end ? String(trace.end.stalled) : '—'],
  ];
  if (h.scenario && h.scenario.detail) rows.push(['detail', h.scenario.detail]);
  const pop = trace.population;
  if (pop) rows.splice(1, 0, ['protocol', `${pop.protocol} (${pop.states.length} states)`]);
  if (trace.amoebot) rows.splice(1, 0, ['algorithm', `${trace.amoebot.algorithm} (${h.nodes} amoebots)`]);
  $('info').append(table(rows));
  showMode(trace);
  reportProblems();
  const params = new URLSearchParams(location.search);
  goto(params.has('t') ? Number(params.get('t')) : 0);
  if (params.has('node')) select(Number(params.get('node')));
  document.body.dataset.shown = '1';
  ui.shownAt = performance.now();
  // every line's JSON is checked once, in slices, after the first frame
  trace.validate((err) => {
    if (ui.trace !== trace) return;
    if (err && (!trace.error || err.line < trace.error.line)) damaged(err);
    document.body.dataset.ready = trace.error ? 'partial' : '1';
  });
}

// The population or amoebot box, their jump buttons and the legend that fits the trace.
function showMode(trace) {
  const pop = trace && !trace.amoebot ? trace.population : null;
  const amo = trace ? trace.amoebot : null;
  $('pop-box').hidden = !pop;
  $('next-interact').hidden = !pop;
  $('pop-protocol').textContent = pop ? pop.protocol : '';
  $('ab-box').hidden = !amo;
  $('next-amoebot').hidden = !amo;
  $('ab-algorithm').textContent = amo ? amo.algorithm : '';
  canvas.dataset.mode = amo ? 'lattice' : 'graph';
  buildLegend(amo ? 'amoebot' : pop ? 'population' : 'graph');
}

// The trace has a damaged line: keep the events before it.
function damaged(err) {
  const tr = ui.trace;
  tr.error = err;
  tr.truncate(err.line - 1);
  if (ui.lattice && !tr.amoebot) { ui.lattice = null; ui.layout = computeLayout(tr); }  // the amoebots line was cut off
  showMode(tr);
  reportProblems();
  goto(Math.min(ui.t, tr.events));
}

function reportProblems() {
  const tr = ui.trace;
  const problems = [];
  if (tr.error) problems.push(`${ui.name}, ${tr.error.message}. Showing the ${tr.events} events before it.`);
  for (const w of tr.warnings) problems.push(`${ui.name}: ${w}`);
  showError(problems.join('\n'));
  $('title').textContent = `${ui.name} — ${tr.events.toLocaleString('en')} events`;
  $('scrub').max = String(tr.events);
}

async function loadFile(file) {
  try {
    loadText(new Uint8Array(await file.arrayBuffer()), file.name);
  } catch (err) {
    showError(`Cannot read ${file.name}: ${err}`);
  }
}

function table(rows) {
  const tb = document.createElement('table');
  tb.className = 'kv';
  for (const [k, v] of rows) {
    const tr = tb.insertRow();
    const th = document.createElement('th');
    th.textContent = k;
    tr.append(th);
    tr.insertCell().textContent = v === undefined || v === null ? '—' : String(v);
  }
  return tb;
}

// ---------- navigation ----------
function goto(t) {
  const tr = ui.trace;
  if (!tr) return;
  ui.t = Math.max(0, Math.min(tr.events, Math.round(t)));
  try {
    ui.sys = tr.stateAt(ui.t);
    ui.waits = waitsFor(ui.sys, tr.header.variant);
    $('scrub').value = String(ui.t);
    updatePanel();
    draw();
  } catch (err) {
    if (!(err instanceof TraceError) || !err.line) throw err;
    damaged(err);  // a line that the index pass could not see was damaged
  }
}
function step(d) { goto(ui.t + d); }
function jump(codes, label) {
  if (!ui.trace) return;
  const t = ui.trace.find(ui.t, codes, 1);
  if (t < 0) { flash(`no further ${label}`); return; }
  goto(t);
  if (ui.trace.kind[t] === KIND.done_lock || ui.trace.kind[t] === KIND.interact || ui.trace.kind[t] === KIND.amoebot_act) select(ui.trace.node[t]);
  else if (ui.trace.kind[t] === KIND.violation && ui.trace.node[t] >= 0) select(ui.trace.node[t]);
}
function flash(msg) {
  const b = $('banner');
  b.textContent = msg;
  b.hidden = false;
  b.dataset.transient = '1';
  setTimeout(() => { if (b.dataset.transient === '1') updateBanner(); }, 1500);
}
function select(u) {
  ui.selected = Number.isInteger(u) && ui.trace && u >= 0 && u < ui.trace.n ? u : null;
  updatePanel();
  draw();
}
function setPlaying(p) {
  ui.playing = p && !!ui.trace;
  $('play').textContent = ui.playing ? '❚❚ pause' : '▶ play';
  if (ui.playing) { ui.lastFrame = performance.now(); ui.carry = 0; requestAnimationFrame(tick); }
}
function tick(now) {
  if (!ui.playing) return;
  const rate = Number($('speed').value);
  ui.carry += ((now - ui.lastFrame) / 1000) * rate;
  ui.lastFrame = now;
  const k = Math.floor(ui.carry);
  if (k > 0) {
    ui.carry -= k;
    goto(ui.t + k);
    if (ui.t >= ui.trace.events) { setPlaying(false); return; }
  }
  requestAnimationFrame(tick);
}

// ---------- side panel ----------
function updateBanner() {
  const b = $('banner');
  b.dataset.transient = '';
  const w = ui.waits;
  const msgs = [];
  if (w && w.cycles.length) msgs.push(`Deadlock: blocked waits-for cycle ${w.cycles.map((c) => [...c, c[0]].map((u) => `n${u}`).join(' → ')).join('; ')}`);
  if (w && w.dangling.length) msgs.push(`Waiting on a port without an edge: ${w.dangling.map((e) => `n${e.from} (port ${e.port}, ${e.why})`).join('; ')}`);
  b.textContent = msgs.join(' · ');
  b.hidden = msgs.length === 0;
}

function updatePanel() {
  const tr = ui.trace;
  if (!tr) return;
  const t = ui.t;
  $('step-label').textContent = `t = ${t} / ${tr.events}` + (t > 0 ? `, round ${tr.round[t]}` : '') + ` · ${ui.sys.locks} Lock${ui.sys.locks === 1 ? '' : 's'} done · ${ui.sys.transit.size} in transit`;
  $('event-label').textContent = t > 0 ? say(tr.event(t)) : 'initial state (before the first event)';
  // registers
  const reg = $('registers');
  reg.innerHTML = '';
  $('lockset').textContent = '';
  const u = ui.selected;
  $('node-name').textContent = u === null ? `(click ${ui.lattice ? 'an amoebot' : 'a node'})` : ui.lattice ? `a${u}` : `n${u}`;
  if (u !== null) {
    const nd = ui.sys.nodes[u];
    const prevAct = nd.t === t && t > 0;
    const r = nd.regs;
    const rows = [
      ...(ui.sys.pp && !ui.lattice ? [['agent', tr.population.states[ui.sys.pp.agent[u]]]] : []),
      ...(ui.lattice && ui.sys.ab ? amoebotRows(u) : []),
      ['state', fmtVal(nd.state)], ['phase', fmtVal(nd.phase)], ['lock', fmtVal(nd.lock)],
      ['L', fmtSet(r.L)], ['R', fmtSet(r.R)], ['W', fmtW(r.W)], ['H', fmtSet(r.H)],
      ['A', fmtSet(r.A)], ['C', fmtSet(r.C)], ['P', fmtP(r.P)],
    ];
    for (const [k, v] of rows) {
      const row = reg.insertRow();
      row.dataset.reg = k;
      const th = document.createElement('th');
      th.innerHTML = k.length === 1 ? `<i>${k}</i>` : k;
      if (k === 'agent') th.title = 'the protocol state of this agent';
      if (AMOEBOT_ROWS[k]) { th.textContent = k.replace(/^v:/, ''); th.title = AMOEBOT_ROWS[k]; }
      row.append(th);
      row.insertCell().textContent = v;
    }
    const extra = reg.insertRow();
    const th = document.createElement('th');
    th.textContent = 'D used';
    extra.append(th);
    extra.insertCell().textContent = nd === IDLE_NODE ? '∅' : `${fmtSet(nd.D || [])} (consumed by ${nd.action} at t = ${nd.t})`;
    const pendingD = ui.sys.detector.get(u) || [];
    const dRow = reg.insertRow();
    const dth = document.createElement('th');
    dth.textContent = 'D now';
    dRow.append(dth);
    dRow.insertCell().textContent = `${fmtSet([...new Set(pendingD)].sort((a, b) => a - b))} (ports cut since n${u} last acted)`;
    if (prevAct) reg.classList.add('acted'); else reg.classList.remove('acted');
    const ports = [];
    for (let p = 1; p <= tr.header.delta; p++) {
      const peer = ui.sys.peer(u, p);
      if (peer) ports.push(`${p}→n${peer.node}:${peer.port}`);
    }
    const ls = ui.sys.lockSet(u);
    const en = nd === IDLE_NODE ? [] : enabledGuarded(nd, tr.header.variant);
    $('lockset').innerHTML = '';
    const lines = [
      `ports: ${ports.join(' ') || '—'}`,
      `enabled: ${en.join(', ') || '—'}`,
    ];
    for (const l of lines) { const d = document.createElement('div'); d.textContent = l; $('lockset').append(d); }
    const d = document.createElement('div');
    d.id = 'lockset-value';
    d.dataset.nodes = ls.join(',');
    d.textContent = nd.state === 'LOCKED' ? `lock set of n${u}: ${fmtNodes(ls)}` : `lock set of n${u}: ${fmtNodes(ls)} (not LOCKED)`;
    $('lockset').append(d);
  }
  // waits-for
  const w = ui.waits;
  const wb = $('waits');
  wb.innerHTML = '';
  wb.dataset.cycles = w.cycles.map((c) => c.join('>')).join(';');
  wb.dataset.dangling = w.dangling.map((e) => `${e.from}:${e.port}`).join(';');
  for (const c of w.cycles) {
    const d = document.createElement('div');
    d.className = 'cycle';
    d.textContent = `deadlock cycle: ${[...c, c[0]].map((x) => `n${x}`).join(' → ')}`;
    wb.append(d);
  }
  const shown = w.edges.filter((e) => e.cycle || e.to === null || e.kind !== 'release').slice(0, 40);
  for (const e of shown) {
    const d = document.createElement('div');
    d.className = e.to === null ? 'dangling' : e.cycle ? 'cycle' : '';
    d.textContent = `n${e.from} → ${e.to === null ? `port ${e.port} (no edge)` : `n${e.to}`}: ${e.why}${e.pending ? ' (in transit)' : e.blocked ? ' — blocked' : ''}`;
    wb.append(d);
  }
  if (!w.edges.length) wb.textContent = 'nobody waits';
  updateBanner();
  if (ui.sys.pp && !ui.lattice) updatePopulation();
  if (ui.lattice && ui.sys.ab) updateAmoebots();
  // event log around t
  const log = $('log');
  log.innerHTML = '';
  const from = Math.max(1, t - 8), to = Math.min(tr.events, t + 8);
  for (let i = from; i <= to; i++) {
    const li = document.createElement('li');
    const k = tr.kind[i];
    li.className = (i === t ? 'current ' : '') + (k === KIND.violation ? 'k-violation' : k === KIND.done_lock || k === KIND.done_unlock ? 'k-done' : k === KIND.interact ? 'k-interact'
      : k === KIND.amoebot_act ? 'k-amoebot k-amoebot-act' : k >= KIND.amoebots && k <= KIND.amoebot_sleep ? 'k-amoebot' : '');
    li.textContent = `${i}  ${say(tr.event(i))}`;
    li.title = li.textContent;
    li.onclick = () => goto(i);
    log.append(li);
  }
}

// One row of a state legend (population protocols, amoebots): swatch, name, a bar of the share of
// the n nodes in that state, and the count; data attributes for the tests.
function legendRow({ name, count, n, colour, touched, unit, kind = '', swatch = '' }) {
  const row = document.createElement('div');
  row.className = 'pp-row' + (kind ? ` ${kind}` : '') + (count ? '' : ' empty') + (touched ? ' touched' : '');
  row.dataset.state = name;
  row.dataset.count = String(count);
  row.dataset.colour = colour;
  row.title = `${name}: ${count} of ${n} ${unit}`;
  const span = (className) => {
    const el = document.createElement('span');
    el.className = className;
    return el;
  };
  const sw = span('sw' + (swatch ? ` ${swatch}` : ''));
  sw.style.background = colour;
  const nm = span('name');
  nm.textContent = name;
  const bar = span('bar');
  const fill = document.createElement('span');
  fill.style.width = `${(100 * count) / n}%`;
  fill.style.background = colour;
  bar.append(fill);
  const ct = span('count');
  ct.textContent = String(count);
  row.append(sw, nm, bar, ct);
  return row;
}

// The protocol's states with their colour and how many agents hold each at the current step.
function updatePopulation() {
  const tr = ui.trace, pp = ui.sys.pp, n = tr.n;
  const e = tr.kind[ui.t] === KIND.interact ? tr.parsed(ui.t) : null;
  const touched = new Set(e ? [...e.before, ...e.after] : []);
  const box = $('pop-legend');
  box.innerHTML = '';
  box.classList.toggle('many', tr.population.states.length > 8);  // two columns for many states
  box.dataset.total = String(pp.counts.reduce((a, b) => a + b, 0));
  box.dataset.interactions = String(pp.interactions);
  tr.population.states.forEach((name, k) => {
    box.append(legendRow({ name, count: pp.counts[k], n, colour: stateColour(k), touched: touched.has(name), unit: 'agents' }));
  });
  const sum = document.createElement('div');
  sum.className = 'total';
  sum.textContent = `${pp.interactions.toLocaleString('en')} interaction${pp.interactions === 1 ? '' : 's'} so far`;
  box.append(sum);
}

// An event line as the event list and the step label show it.
const say = (e) => describe(e, ui.trace ? ui.trace.amoebot : null);

// ---------- amoebots ----------
const AMOEBOT_ROWS = {
  amoebot: 'the algorithm state of this amoebot', position: 'head and tail, axial lattice coordinates (x, y)',
  compass: 'its compass offset: local direction d is global direction (compass + d) mod 6',
  acting: 'planned an action at its Lock\'s completion, not yet committed or given up', awake: 'awake, or asleep since its last Lock found nothing enabled',
};
// The state index of amoebot u (its first variable), or NaN.
function abState(ab, u) { return ab.vars[ab.V * u]; }
function abStateName(k) {
  const amo = ui.trace.amoebot;
  if (Number.isNaN(k)) return '—';
  return amo.states[k] !== undefined ? amo.states[k] : `${amo.variables[0] || 'state'} ${k}`;
}
function abColour(k) {
  if (!Number.isInteger(k) || k < 0) return NO_STATE_COLOUR;
  return stateColour(k);
}
// The register rows of amoebot u: its state, place, compass, other variables, acting and awake.
function amoebotRows(u) {
  const ab = ui.sys.ab, amo = ui.trace.amoebot, p = ab.pos, i = 4 * u;
  const expanded = p[i] !== p[i + 2] || p[i + 1] !== p[i + 3];
  const rows = [
    ['amoebot', abStateName(abState(ab, u))],
    ['position', expanded ? `head (${p[i]},${p[i + 1]}), tail (${p[i + 2]},${p[i + 3]})` : `(${p[i]},${p[i + 1]}), contracted`],
    ['compass', String(ab.compass[u])],
  ];
  for (let k = 1; k < ab.V; k++) {
    const name = `v:${amo.variables[k] || `v${k}`}`;
    AMOEBOT_ROWS[name] = AMOEBOT_ROWS[name] || 'a variable of its public memory';
    const v = ab.vars[ab.V * u + k];
    rows.push([name, Number.isNaN(v) ? '—' : String(v)]);
  }
  const a = ab.acting.get(u);
  rows.push(['acting', a ? `${a.rule} (planned at t = ${a.t})` : '—']);
  rows.push(['awake', ab.asleep[u] ? 'no (asleep)' : 'yes']);
  return rows;
}

// The algorithm's states with their colour and how many amoebots hold each at the current step,
// then the counters so far and who is acting.
function updateAmoebots() {
  const tr = ui.trace, ab = ui.sys.ab, amo = tr.amoebot, n = tr.n;
  const counts = new Map();
  for (let u = 0; u < n; u++) { const k = abState(ab, u); counts.set(k, (counts.get(k) || 0) + 1); }
  const keys = amo.states.map((_, k) => k);
  for (const k of [...counts.keys()].sort((a, b) => a - b)) if (!keys.includes(k)) keys.push(k);
  const e = tr.kind[ui.t] === KIND.amoebot_act ? tr.parsed(ui.t) : null;
  const touched = new Set(e ? e.changed.map((r) => r[6][0]) : []);
  const box = $('ab-legend');
  box.innerHTML = '';
  box.classList.toggle('many', keys.length > 8);
  let awake = 0, expanded = 0;
  for (let u = 0; u < n; u++) {
    if (!ab.asleep[u]) awake += 1;
    if (ab.pos[4 * u] !== ab.pos[4 * u + 2] || ab.pos[4 * u + 1] !== ab.pos[4 * u + 3]) expanded += 1;
  }
  Object.assign(box.dataset, {
    total: String([...counts.values()].reduce((a, b) => a + b, 0)), moves: String(ab.moves), actions: String(ab.actions),
    aborts: String(ab.aborts), sleeps: String(ab.sleeps), awake: String(awake), expanded: String(expanded),
    acting: [...ab.acting.keys()].sort((a, b) => a - b).join(','),
  });
  for (const k of keys) {
    const c = counts.get(k) || 0, name = abStateName(k), colour = abColour(k);
    box.append(legendRow({ name, count: c, n, colour, touched: touched.has(k), unit: 'amoebots', kind: 'ab-row', swatch: 'hex' }));
  }
  const plural = (k, w) => `${k.toLocaleString('en')} ${w}${k === 1 ? '' : 's'}`;
  const sum = document.createElement('div');
  sum.className = 'total';
  sum.textContent = `${plural(ab.actions, 'action')}, ${plural(ab.moves, 'move')}, ${plural(ab.aborts, 'action')} given up · ${awake} awake, ${expanded} expanded`;
  const act = document.createElement('div');
  act.className = 'total acting';
  act.textContent = ab.acting.size ? `acting: ${[...ab.acting].map(([u, a]) => `a${u} (${a.rule})`).join(', ')}` : 'acting: none';
  box.append(sum, act);
}

// The static legend. In a population-protocol trace the fill shows the protocol state (its own
// legend, with counts, is in the Population box), so the lock state moves to two rings outside it.
function buildLegend(kind = 'graph') {
  const lg = $('legend');
  const parts = [];
  if (kind === 'amoebot') {
    parts.push('<div class="head">cell fill: algorithm state (see Amoebots)</div>');
    parts.push('<span style="grid-column:1/-1"><span class="sw hex" style="background:#94a3b8"></span>a contracted amoebot: one cell of the lattice</span>');
    parts.push('<span style="grid-column:1/-1"><span class="sw hex" style="background:#94a3b8"></span><span class="bar-key"></span><span class="sw hex" style="background:#cbd5e1"></span>expanded: head (labelled) and tail (paler), joined</span>');
    parts.push('<span style="grid-column:1/-1"><span class="sw hex" style="background:white;border:3px solid hsl(200,70%,45%)"></span>lock set of a LOCKED amoebot, outlined in the locker\'s colour (the locker twice)</span>');
    parts.push(`<span style="grid-column:1/-1"><span class="ring" style="border-color:${ACTING_COLOUR}"></span>acting: planned at its Lock, not yet committed (with the rule)</span>`);
    parts.push('<span style="grid-column:1/-1"><span class="sw" style="background:white;border:1px solid #94a3b8"></span>thin grey border: asleep (its last Lock found nothing enabled)</span>');
    parts.push('<div class="head">dot in the cell: Lock initiator state (none: ⊥)</div>');
    for (const [s, c] of Object.entries(STATE_COLOUR)) if (s !== 'BOT') parts.push(`<span><span class="sw" style="background:${c}"></span>${fmtVal(s)}</span>`);
  } else if (kind === 'population') {
    parts.push('<div class="head">node fill: protocol state (see Population)</div>');
    parts.push('<div class="head">inner ring: initiator state (none: ⊥)</div>');
    for (const [s, c] of Object.entries(STATE_COLOUR)) if (s !== 'BOT') parts.push(`<span><span class="ring" style="border-color:${c}"></span>${fmtVal(s)}</span>`);
    parts.push('<div class="head">outer ring: participant phase (none: ⊥)</div>');
    for (const [s, c] of Object.entries(PHASE_COLOUR)) if (s !== 'BOT') parts.push(`<span><span class="ring" style="border-color:${c}"></span>${fmtVal(s)}</span>`);
    parts.push(`<span style="grid-column:1/-1"><span class="line" style="border-color:${INTERACT_COLOUR};border-top-width:4px"></span>interaction (initiator → responder), fading</span>`);
  } else {
    parts.push('<div class="head">node fill: initiator state</div>');
    for (const [s, c] of Object.entries(STATE_COLOUR)) parts.push(`<span><span class="sw" style="background:${c}"></span>${fmtVal(s)}</span>`);
    parts.push('<div class="head">ring: participant phase</div>');
    for (const [s, c] of Object.entries(PHASE_COLOUR)) parts.push(`<span><span class="ring" style="border-color:${c}${s === 'BOT' ? ';border-width:1px' : ''}"></span>${fmtVal(s)}</span>`);
  }
  parts.push('<div class="head">messages in transit (sender → receiver)</div>');
  for (const k of MESSAGE_KINDS) parts.push(`<span><span class="msg" style="background:${MSG_COLOUR[k]}"></span>${k}</span>`);
  parts.push('<div class="head">waits-for arrows</div>');
  parts.push(`<span><span class="line" style="border-color:${WAIT_COLOUR.reply}"></span>awaits reply</span>`);
  parts.push(`<span><span class="line" style="border-color:${WAIT_COLOUR.request}"></span>awaits request-lock</span>`);
  parts.push(`<span><span class="line" style="border-color:${WAIT_COLOUR.release};border-top-style:dotted"></span>held, awaits release</span>`);
  parts.push('<span><span class="line" style="border-color:#dc2626;border-top-width:4px"></span>blocked cycle</span>');
  parts.push('<div class="head">other</div>');
  parts.push('<span><span class="line" style="border-color:#16a34a;border-top-width:4px"></span>edge just connected</span>');
  parts.push('<span><span class="line" style="border-color:#dc2626;border-top-style:dashed"></span>edge just cut</span>');
  if (kind === 'amoebot') parts.push('<span style="grid-column:1/-1"><span class="line" style="border-color:#64748b;border-top-width:1px"></span>edge of the lock protocol\'s graph (lattice neighbours)</span>');
  else parts.push('<span style="grid-column:1/-1">halo and band: a LOCKED node\'s lock set</span>');
  lg.innerHTML = parts.join('');
}

// ---------- drawing ----------
const canvas = $('canvas');
const ctx = canvas.getContext('2d');
const { portLabel, badge, arrow, cross, label } = shapes(ctx);

function transform() {
  const w = canvas.clientWidth, h = canvas.clientHeight;
  const size = Math.min(w, h) - 80;
  const s = size * ui.view.scale;
  const ox = (w - s) / 2 + ui.view.x, oy = (h - s) / 2 + ui.view.y;
  return { s, ox, oy, X: (x) => ox + x * s, Y: (y) => oy + y * s };
}
function nodeXY(u, T) {
  if (ui.lattice) {  // the middle of the amoebot: its cell, or the bar between head and tail
    const { head, tail } = amoebotCells(ui.sys.ab, u, T, ui.lattice);
    return [(head[0] + tail[0]) / 2, (head[1] + tail[1]) / 2];
  }
  const p = ui.sys && ui.sys.pos ? ui.sys.pos : null;
  const x = p && !Number.isNaN(p[2 * u]) ? p[2 * u] : ui.layout.xy[2 * u];
  const y = p && !Number.isNaN(p[2 * u + 1]) ? p[2 * u + 1] : ui.layout.xy[2 * u + 1];
  return [T.X(x), T.Y(y)];
}
function nodeRadius(T) {
  if (ui.lattice) return 0.4 * unitPx(T, ui.lattice);  // about a cell's inradius
  return Math.max(3, Math.min(18, (T.s / Math.sqrt(ui.trace.n)) * 0.18));
}
function hue(u) { return `hsl(${(u * 137.508) % 360}, 70%, 45%)`; }

function draw() {
  const dpr = window.devicePixelRatio || 1;
  const w = canvas.clientWidth, h = canvas.clientHeight;
  if (canvas.width !== Math.round(w * dpr) || canvas.height !== Math.round(h * dpr)) {
    canvas.width = Math.round(w * dpr);
    canvas.height = Math.round(h * dpr);
  }
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  ctx.clearRect(0, 0, w, h);
  const tr = ui.trace;
  if (!tr || !ui.sys) return;
  const T = transform();
  const sys = ui.sys;
  const n = tr.n;
  const r = nodeRadius(T);
  const detail = r >= 9;
  const showPorts = $('show-ports').checked && detail;
  const lattice = !!ui.lattice;

  // amoebots: the cells first, since the protocol's edges, messages and waits lie across them
  if (lattice) drawAmoebots(T, sys);
  // lock sets: translucent band from the locker to each member, halo around members
  for (let u = 0; u < n && !lattice; u++) {
    if (sys.nodes[u].state !== 'LOCKED') continue;
    const members = sys.lockSet(u);
    const [ux, uy] = nodeXY(u, T);
    ctx.save();
    ctx.globalAlpha = 0.28;
    ctx.strokeStyle = ctx.fillStyle = hue(u);
    ctx.lineWidth = r * 1.6;
    ctx.lineCap = 'round';
    for (const v of members) {
      const [vx, vy] = nodeXY(v, T);
      ctx.beginPath(); ctx.moveTo(ux, uy); ctx.lineTo(vx, vy); ctx.stroke();
      ctx.beginPath(); ctx.arc(vx, vy, r * 1.9, 0, 2 * Math.PI); ctx.fill();
    }
    ctx.restore();
  }

  // edges
  ctx.lineWidth = 1.5;
  for (const e of sys.edges.values()) {
    const [ax, ay] = nodeXY(e.u, T), [bx, by] = nodeXY(e.v, T);
    const age = ui.t - e.t;
    ctx.strokeStyle = age < FADE ? '#16a34a' : lattice ? 'rgba(71,85,105,0.45)' : '#94a3b8';
    ctx.lineWidth = age < FADE ? 1.5 + 3 * (1 - age / FADE) : lattice ? 1 : 1.5;
    ctx.beginPath(); ctx.moveTo(ax, ay); ctx.lineTo(bx, by); ctx.stroke();
    if (showPorts && !lattice) { portLabel(ax, ay, bx, by, e.pu); portLabel(bx, by, ax, ay, e.pv); }
  }
  // recent cuts, fading
  for (let t = ui.t; t > Math.max(0, ui.t - FADE); t--) {
    if (tr.kind[t] !== KIND.cut) continue;
    const e = tr.event(t);
    const [ax, ay] = nodeXY(e.u, T), [bx, by] = nodeXY(e.v, T);
    ctx.save();
    ctx.globalAlpha = 1 - (ui.t - t) / FADE;
    ctx.setLineDash([6, 4]);
    ctx.strokeStyle = '#dc2626';
    ctx.lineWidth = 2.5;
    ctx.beginPath(); ctx.moveTo(ax, ay); ctx.lineTo(bx, by); ctx.stroke();
    ctx.restore();
  }

  // waits-for arrows
  if ($('show-waits').checked && ui.waits) {
    for (const e of ui.waits.edges) {
      if (e.kind === 'release' && !e.cycle && e.to !== null) continue;  // drawn only when it matters
      const [ax, ay] = nodeXY(e.from, T);
      if (e.to === null) {
        // a wait on a port that holds no edge: a red stub ending in a cross
        const a = -Math.PI / 2 + e.port * 0.9;
        const bx = ax + Math.cos(a) * r * 4, by = ay + Math.sin(a) * r * 4;
        arrow(ax, ay, bx, by, '#dc2626', 3, [4, 3], r * 0.2);
        cross(bx, by, r * 0.6);
        label(`port ${e.port}: no edge`, bx, by - r, '#b91c1c');
        continue;
      }
      const [bx, by] = nodeXY(e.to, T);
      const colour = e.cycle ? '#dc2626' : WAIT_COLOUR[e.kind];
      ctx.globalAlpha = e.cycle || n <= 60 ? 1 : 0.45;  // large graphs: ordinary waits recede, cycles stand out
      arrow(ax, ay, bx, by, colour, e.cycle ? 4 : 2, e.kind === 'release' ? [2, 3] : [], r + 3, e.cycle ? 14 : 8,
            e.cycle ? `awaits ${e.why.replace(/ on port \d+$/, '').replace(/ from .*$/, '')}` : '');
      ctx.globalAlpha = 1;
    }
  }

  // messages in transit
  if ($('show-msgs').checked) {
    const perEdge = new Map();
    for (const m of sys.transit.values()) {
      const key = `${m.from}>${m.to}`;
      perEdge.set(key, (perEdge.get(key) || 0) + 1);
      const i = perEdge.get(key) - 1;
      const [ax, ay] = nodeXY(m.from, T);
      if (m.from === m.to) {
        const bx = ax + (i - 0.5) * (detail ? 34 : 8), by = ay - r - (detail ? 14 : 5);
        badge(bx, by, m, detail);
        continue;
      }
      const [bx, by] = nodeXY(m.to, T);
      const f = 0.38 + 0.14 * i;
      const dx = bx - ax, dy = by - ay, len = Math.hypot(dx, dy) || 1;
      const off = detail ? 9 : 3;
      badge(ax + dx * f - (dy / len) * off, ay + dy * f + (dx / len) * off, m, detail);
    }
  }

  // interactions of the last FADE events: initiator → responder, the one at this step in full
  const pp = sys.pp;
  const ring = Math.max(1.5, r * 0.16);
  const out = pp ? 2 * (ring + 1.5) : 0;  // the lock-state rings around an agent
  const met = [];
  if (pp) {
    for (let t = ui.t; t > Math.max(0, ui.t - FADE); t--) {
      if (tr.kind[t] !== KIND.interact) continue;
      const e = tr.parsed(t);
      const [ax, ay] = nodeXY(e.initiator, T), [bx, by] = nodeXY(e.responder, T);
      ctx.globalAlpha = t === ui.t ? 1 : 0.6 * (1 - (ui.t - t) / FADE);
      arrow(ax, ay, bx, by, INTERACT_COLOUR, t === ui.t ? 5 : 3, [], r + out + 2, t === ui.t ? 12 : 8);
      ctx.globalAlpha = 1;
      if (t === ui.t) met.push(e.initiator, e.responder);
    }
  }
  canvas.dataset.interaction = met.join(',');

  if (lattice) { drawAmoebotMarks(T, sys, r, detail); return; }
  // nodes
  for (let u = 0; u < n; u++) {
    const nd = sys.nodes[u];
    const [x, y] = nodeXY(u, T);
    if (pp) drawAgent(x, y, r, ring, nd, pp.agent[u]);
    else {
      ctx.beginPath();
      ctx.arc(x, y, r, 0, 2 * Math.PI);
      ctx.fillStyle = STATE_COLOUR[nd.state] || '#fff';
      ctx.fill();
      ctx.lineWidth = nd.phase === 'BOT' ? 1 : Math.max(2, r * 0.3);
      ctx.strokeStyle = PHASE_COLOUR[nd.phase] || '#000';
      ctx.stroke();
    }
    if (met.includes(u)) {  // one of the two agents of this step's interaction
      ctx.beginPath(); ctx.arc(x, y, r + out + 4, 0, 2 * Math.PI);
      ctx.lineWidth = 4; ctx.strokeStyle = INTERACT_COLOUR; ctx.stroke();
    }
    if (nd.t === ui.t && ui.t > 0) {  // acted at this step
      ctx.beginPath(); ctx.arc(x, y, r + out + 4, 0, 2 * Math.PI);
      ctx.lineWidth = 1.5; ctx.strokeStyle = '#0f172a'; ctx.setLineDash([2, 2]); ctx.stroke(); ctx.setLineDash([]);
    }
    if (u === ui.selected) {
      ctx.beginPath(); ctx.arc(x, y, r + out + 7, 0, 2 * Math.PI);
      ctx.lineWidth = 2.5; ctx.strokeStyle = '#2563eb'; ctx.stroke();
    }
    if (detail) {
      ctx.fillStyle = pp ? stateInk(pp.agent[u]) : '#0f172a';
      ctx.font = `600 ${Math.round(r * 0.75)}px system-ui, sans-serif`;
      ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
      ctx.fillText(`n${u}`, x, y);
    }
  }
}

// Amoebots on the lattice: each cell filled with the amoebot's state colour (an expanded amoebot:
// head and paler tail joined by a bar), a dot for the Lock initiator state, the lock set of each
// LOCKED amoebot outlined in the locker's colour, and a ring around each acting amoebot. Marks the
// canvas with what it drew, for the tests.
function drawAmoebots(T, sys) {
  const ab = sys.ab, n = ui.trace.n, L = ui.lattice;
  const unit = unitPx(T, L), R = cellRadius(unit), r = nodeRadius(T);
  const cells = new Array(n);
  const expanded = [];
  let drawn = 0, cellCount = 0;
  for (let u = 0; u < n; u++) {
    const g = amoebotCells(ab, u, T, L);
    cells[u] = g;
    const colour = abColour(abState(ab, u));
    const border = ab.asleep[u] ? '#94a3b8' : '#1e293b', bw = ab.asleep[u] ? 1 : Math.min(3, Math.max(1.2, unit * 0.04));
    if (g.expanded) {
      expanded.push(u);
      hexPath(ctx, g.tail[0], g.tail[1], R);
      ctx.fillStyle = colour; ctx.fill();
      ctx.fillStyle = 'rgba(255,255,255,0.45)'; ctx.fill();  // the tail is paler than the head
      ctx.lineWidth = bw; ctx.strokeStyle = border; ctx.stroke();
      cellCount += 1;
    }
    hexPath(ctx, g.head[0], g.head[1], R);
    ctx.fillStyle = colour; ctx.fill();
    ctx.lineWidth = bw; ctx.strokeStyle = border; ctx.stroke();
    cellCount += 1;
    if (g.expanded) {  // the bar that joins head and tail, over both cells, from below the label to the tail's middle
      const dx = g.tail[0] - g.head[0], dy = g.tail[1] - g.head[1];
      ctx.save();
      ctx.lineCap = 'round';
      ctx.beginPath(); ctx.moveTo(g.head[0] + 0.3 * dx, g.head[1] + 0.3 * dy); ctx.lineTo(g.tail[0], g.tail[1]);
      ctx.strokeStyle = border; ctx.lineWidth = unit * 0.2 + 2 * Math.max(1, bw); ctx.stroke();
      ctx.strokeStyle = colour; ctx.lineWidth = unit * 0.2; ctx.stroke();
      ctx.restore();
    }
    drawn += 1;
    const nd = sys.nodes[u];
    if (nd.state !== 'BOT') {  // the Lock protocol's initiator state, a dot low in the head cell
      ctx.beginPath(); ctx.arc(g.head[0], g.head[1] + 0.5 * r, Math.max(2, 0.2 * r), 0, 2 * Math.PI);
      ctx.fillStyle = STATE_COLOUR[nd.state] || '#000'; ctx.fill();
      ctx.lineWidth = 1; ctx.strokeStyle = '#0f172a'; ctx.stroke();
    }
  }
  // lock sets: every member's cells outlined in the locker's colour, the locker's twice
  const sets = [];
  for (let u = 0; u < n; u++) {
    if (sys.nodes[u].state !== 'LOCKED') continue;
    const members = sys.lockSet(u);
    sets.push(`${u}:${members.join(' ')}`);
    ctx.save();
    ctx.strokeStyle = hue(u);
    ctx.lineJoin = 'round';
    for (const v of members) {
      const g = cells[v];
      for (const [x, y] of g.expanded ? [g.head, g.tail] : [g.head]) {
        ctx.lineWidth = Math.min(7, Math.max(2.5, unit * 0.09));
        hexPath(ctx, x, y, R * 1.02); ctx.stroke();
        if (v === u) { ctx.lineWidth = Math.min(3, Math.max(1.5, unit * 0.04)); hexPath(ctx, x, y, R * 1.22); ctx.stroke(); }
      }
    }
    ctx.restore();
  }
  // acting amoebots: a ring (around both cells of an expanded one) and the rule they planned
  for (const [u, a] of ab.acting) {
    const g = cells[u];
    ctx.save();
    const rr = R * 1.3;
    for (const [w, c] of [[Math.min(8, Math.max(4, unit * 0.12)), 'white'], [Math.min(5, Math.max(2.5, unit * 0.07)), ACTING_COLOUR]]) {
      ctx.lineWidth = w; ctx.strokeStyle = c;
      ctx.beginPath();
      if (g.expanded) {  // a capsule around head and tail
        const dx = g.tail[0] - g.head[0], dy = g.tail[1] - g.head[1], ang = Math.atan2(dy, dx);
        ctx.arc(g.head[0], g.head[1], rr, ang + Math.PI / 2, ang + (3 * Math.PI) / 2);
        ctx.arc(g.tail[0], g.tail[1], rr, ang - Math.PI / 2, ang + Math.PI / 2);
        ctx.closePath();
      } else ctx.arc(g.head[0], g.head[1], rr, 0, 2 * Math.PI);
      ctx.stroke();
    }
    ctx.restore();
  }
  Object.assign(canvas.dataset, {
    amoebots: String(drawn), cells: String(cellCount), expanded: expanded.join(','), lockSets: sets.join(';'),
    acting: [...ab.acting.keys()].sort((a, b) => a - b).join(','),
  });
}

// Over the edges, messages and waits: the amoebots changed by this step's action (dashed), the
// node whose protocol action this step is (dotted), the selected one, and the labels.
function drawAmoebotMarks(T, sys, r, detail) {
  const tr = ui.trace, ab = sys.ab, L = ui.lattice, n = tr.n;
  const unit = unitPx(T, L), R = cellRadius(unit);
  const e = tr.kind[ui.t] === KIND.amoebot_act ? tr.parsed(ui.t) : null;
  const changed = e ? e.changed.map((rec) => rec[0]) : [];
  canvas.dataset.changed = changed.join(',');
  const ring = (u, rr, width, colour, dash) => {
    const g = amoebotCells(ab, u, T, L);
    ctx.save(); ctx.lineWidth = width; ctx.strokeStyle = colour; ctx.setLineDash(dash);
    for (const [x, y] of g.expanded ? [g.head, g.tail] : [g.head]) { ctx.beginPath(); ctx.arc(x, y, rr, 0, 2 * Math.PI); ctx.stroke(); }
    ctx.restore();
  };
  for (const u of changed) ring(u, R * 1.45, 3, INTERACT_COLOUR, [6, 3]);
  for (let u = 0; u < n; u++) {
    if (sys.nodes[u].t === ui.t && ui.t > 0) ring(u, R * 1.55, 1.5, '#0f172a', [2, 2]);
    if (u === ui.selected) ring(u, R * 1.65, 2.5, '#2563eb', []);
  }
  if (!detail) return;
  ctx.font = `600 ${Math.round(Math.min(16, r * 0.6))}px system-ui, sans-serif`;
  ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
  for (let u = 0; u < n; u++) {
    const g = amoebotCells(ab, u, T, L);
    const k = abState(ab, u);
    ctx.fillStyle = Number.isInteger(k) && k >= 0 ? stateInk(k) : '#0f172a';
    ctx.fillText(`a${u}`, g.head[0], g.head[1] - 0.05 * r);
  }
  // the rule each acting amoebot planned, above its ring
  const h = Math.max(12, Math.min(18, Math.round(unit * 0.24)));
  ctx.font = `600 ${h - 2}px system-ui, sans-serif`;
  ctx.textBaseline = 'bottom';
  for (const [u, a] of ab.acting) {
    const g = amoebotCells(ab, u, T, L);
    const x = (g.head[0] + g.tail[0]) / 2, y = Math.min(g.head[1], g.tail[1]) - R * 1.3 - 3;
    const w = ctx.measureText(a.rule).width + 8;
    ctx.fillStyle = ACTING_COLOUR;
    ctx.beginPath(); ctx.roundRect(x - w / 2, y - h, w, h, 3); ctx.fill();
    ctx.fillStyle = 'white'; ctx.fillText(a.rule, x, y - 0.5);
  }
}

// An agent: filled with its protocol state's colour; its lock state in two thin rings outside,
// the initiator state, then the participant phase, each left out while ⊥ (as most agents are
// idle most of the time). White gaps keep the rings from reading as part of the fill.
function drawAgent(x, y, r, w, nd, k) {
  const gap = 1.5;
  const outer = nd.phase !== 'BOT' ? 2 : nd.state !== 'BOT' ? 1 : 0;
  if (outer) { ctx.beginPath(); ctx.arc(x, y, r + outer * (w + gap), 0, 2 * Math.PI); ctx.fillStyle = 'white'; ctx.fill(); }
  if (nd.state !== 'BOT') {
    ctx.beginPath(); ctx.arc(x, y, r + gap + w / 2, 0, 2 * Math.PI);
    ctx.lineWidth = w; ctx.strokeStyle = STATE_COLOUR[nd.state] || '#000'; ctx.stroke();
  }
  if (nd.phase !== 'BOT') {
    ctx.beginPath(); ctx.arc(x, y, r + 2 * gap + 1.5 * w, 0, 2 * Math.PI);
    ctx.lineWidth = w; ctx.strokeStyle = PHASE_COLOUR[nd.phase] || '#000'; ctx.stroke();
  }
  ctx.beginPath();
  ctx.arc(x, y, r, 0, 2 * Math.PI);
  ctx.fillStyle = stateColour(k);
  ctx.fill();
  ctx.lineWidth = 1;
  ctx.strokeStyle = '#334155';
  ctx.stroke();
}

// ---------- input ----------
function nodeAt(px, py) {
  if (!ui.trace) return null;
  const T = transform();
  if (ui.lattice) {  // the amoebot whose head or tail cell holds the point
    const R = cellRadius(unitPx(T, ui.lattice));
    for (let u = 0; u < ui.trace.n; u++) {
      const { head, tail } = amoebotCells(ui.sys.ab, u, T, ui.lattice);
      if (Math.hypot(head[0] - px, head[1] - py) < R || Math.hypot(tail[0] - px, tail[1] - py) < R) return u;
    }
    return null;
  }
  let best = null, bd = Infinity;
  for (let u = 0; u < ui.trace.n; u++) {
    const [x, y] = nodeXY(u, T);
    const d = Math.hypot(x - px, y - py);
    if (d < bd) { bd = d; best = u; }
  }
  return bd < 24 ? best : null;
}
let drag = null;
canvas.addEventListener('mousedown', (e) => { drag = { x: e.clientX, y: e.clientY, vx: ui.view.x, vy: ui.view.y, moved: false }; });
window.addEventListener('mousemove', (e) => {
  if (!drag) return;
  const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
  if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
  if (drag.moved) { ui.view.x = drag.vx + dx; ui.view.y = drag.vy + dy; draw(); }
});
window.addEventListener('mouseup', (e) => {
  if (drag && !drag.moved) {
    const rect = canvas.getBoundingClientRect();
    select(nodeAt(e.clientX - rect.left, e.clientY - rect.top));
  }
  drag = null;
});
canvas.addEventListener('wheel', (e) => {
  e.preventDefault();
  const f = e.deltaY < 0 ? 1.15 : 1 / 1.15;
  const rect = canvas.getBoundingClientRect();
  const mx = e.clientX - rect.left - canvas.clientWidth / 2, my = e.clientY - rect.top - canvas.clientHeight / 2;
  ui.view.x = mx - (mx - ui.view.x) * f;
  ui.view.y = my - (my - ui.view.y) * f;
  ui.view.scale *= f;
  draw();
}, { passive: false });

$('file').addEventListener('change', (e) => { if (e.target.files[0]) loadFile(e.target.files[0]); });
window.addEventListener('dragover', (e) => { e.preventDefault(); document.body.classList.add('dragging'); });
window.addEventListener('dragleave', () => document.body.classList.remove('dragging'));
window.addEventListener('drop', (e) => {
  e.preventDefault();
  document.body.classList.remove('dragging');
  if (e.dataTransfer.files[0]) loadFile(e.dataTransfer.files[0]);
});
$('first').onclick = () => goto(0);
$('last').onclick = () => goto(Infinity);
$('back').onclick = () => step(-1);
$('fwd').onclick = () => step(1);
$('play').onclick = () => setPlaying(!ui.playing);
// dragging the scrubber fires many input events: draw at most one step per frame
let scrubTarget = null;
$('scrub').addEventListener('input', (e) => {
  const first = scrubTarget === null;
  scrubTarget = Number(e.target.value);
  if (first) requestAnimationFrame(() => { const t = scrubTarget; scrubTarget = null; goto(t); });
});
$('next-lock').onclick = () => jump([KIND.done_lock], 'Lock completion');
$('next-interact').onclick = () => jump([KIND.interact], 'interaction');
$('next-amoebot').onclick = () => jump([KIND.amoebot_act], 'amoebot action');
$('next-viol').onclick = () => jump(ui.trace && ui.trace.end && ui.trace.end.stalled ? [KIND.violation, KIND.end] : [KIND.violation], 'violation or stall');
for (const id of ['show-waits', 'show-msgs', 'show-ports']) $(id).addEventListener('change', draw);
window.addEventListener('keydown', (e) => {
  if (e.target instanceof HTMLInputElement && e.target.type !== 'range' && e.target.type !== 'checkbox') return;
  if (e.key === 'ArrowRight') { step(e.shiftKey ? 10 : 1); e.preventDefault(); }
  else if (e.key === 'ArrowLeft') { step(e.shiftKey ? -10 : -1); e.preventDefault(); }
  else if (e.key === ' ') { setPlaying(!ui.playing); e.preventDefault(); }
  else if (e.key === 'Home') goto(0);
  else if (e.key === 'End') goto(Infinity);
  else if (e.key === 'n') $('next-lock').click();
  else if (e.key === 'v') $('next-viol').click();
  else if (e.key === 'i' && !$('next-interact').hidden) $('next-interact').click();
  else if (e.key === 'm' && !$('next-amoebot').hidden) $('next-amoebot').click();
});
window.addEventListener('resize', draw);

buildLegend();
draw();
ui.goto = goto;
ui.select = select;
// where node u is drawn, in CSS pixels of the canvas (for tests)
ui.nodeScreen = (u) => { const T = transform(); const [x, y] = nodeXY(u, T); return { x, y, r: nodeRadius(T) }; };
// where amoebot u's head and tail cells are drawn (CSS pixels), and the cells' circumradius
ui.amoebotScreen = (u) => {
  if (!ui.lattice || !ui.sys || !ui.sys.ab) return null;
  const T = transform();
  const { head, tail, expanded } = amoebotCells(ui.sys.ab, u, T, ui.lattice);
  return { head: { x: head[0], y: head[1] }, tail: { x: tail[0], y: tail[1] }, expanded, R: cellRadius(unitPx(T, ui.lattice)), r: nodeRadius(T) };
};
ui.loadText = loadText;
const src = new URLSearchParams(location.search).get('trace');
if (src) {
  fetch(src)
    .then((r) => { if (!r.ok) throw new Error(`HTTP ${r.status}`); return r.arrayBuffer(); })
    .then((buf) => new Uint8Array(buf))
    .then((text) => loadText(text, decodeURIComponent(src.split('/').pop())))
    .catch((err) => { showError(`Cannot fetch ${src}: ${err.message}`); document.body.dataset.ready = 'error'; });
} else {
  document.body.dataset.ready = 'empty';
}
