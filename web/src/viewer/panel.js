// The side panel at the current step: the step and event labels, the selected node's registers,
// ports, enabled actions and lock set, the waits-for list and the deadlock banner, the Population
// box, and the event list around the step.
import { KIND, IDLE_NODE } from './trace.js';
import { enabledGuarded } from './waits.js';
import { fmtSet, fmtW, fmtP, fmtVal, fmtNodes, describe } from './notation.js';
import { legendRow } from './legend.js';
import { AMOEBOT_ROWS, amoebotRows, updateAmoebots } from './amoebots.js';
import { goto } from './navigation.js';
import { stateColour } from '../common/palette.js';
import { $, ui } from './ui.js';

export function updateBanner() {
  const b = $('banner');
  b.dataset.transient = '';
  const w = ui.waits;
  const msgs = [];
  if (w && w.cycles.length) msgs.push(`Deadlock: blocked waits-for cycle ${w.cycles.map((c) => [...c, c[0]].map((u) => `n${u}`).join(' → ')).join('; ')}`);
  if (w && w.dangling.length) msgs.push(`Waiting on a port without an edge: ${w.dangling.map((e) => `n${e.from} (port ${e.port}, ${e.why})`).join('; ')}`);
  b.textContent = msgs.join(' · ');
  b.hidden = msgs.length === 0;
}

export function updatePanel() {
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
