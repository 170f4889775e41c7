// The canvas at the current step: where each node is drawn (layout or lattice, under the pan and
// zoom), and the drawing itself: lock sets, edges and recent cuts, waits-for arrows, messages in
// transit, interactions, then the nodes, agents or amoebots.
import { KIND } from './trace.js';
import { amoebotCells, hexPath, cellRadius, unitPx } from './lattice.js';
import { shapes } from './shapes.js';
import { STATE_COLOUR, PHASE_COLOUR, WAIT_COLOUR, INTERACT_COLOUR, ACTING_COLOUR } from './legend.js';
import { abState, abColour } from './amoebots.js';
import { stateColour, stateInk } from '../common/palette.js';
import { $, ui } from './ui.js';

const FADE = 12;  // topology changes and interactions stay highlighted for this many events

export const canvas = $('canvas');
const ctx = canvas.getContext('2d');
const { portLabel, badge, arrow, cross, label } = shapes(ctx);

export function transform() {
  const w = canvas.clientWidth, h = canvas.clientHeight;
  const size = Math.min(w, h) - 80;
  const s = size * ui.view.scale;
  const ox = (w - s) / 2 + ui.view.x, oy = (h - s) / 2 + ui.view.y;
  return { s, ox, oy, X: (x) => ox + x * s, Y: (y) => oy + y * s };
}
export function nodeXY(u, T) {
  if (ui.lattice) {  // the middle of the amoebot: its cell, or the bar between head and tail
    const { head, tail } = amoebotCells(ui.sys.ab, u, T, ui.lattice);
    return [(head[0] + tail[0]) / 2, (head[1] + tail[1]) / 2];
  }
  const p = ui.sys && ui.sys.pos ? ui.sys.pos : null;
  const x = p && !Number.isNaN(p[2 * u]) ? p[2 * u] : ui.layout.xy[2 * u];
  const y = p && !Number.isNaN(p[2 * u + 1]) ? p[2 * u + 1] : ui.layout.xy[2 * u + 1];
  return [T.X(x), T.Y(y)];
}
export function nodeRadius(T) {
  if (ui.lattice) return 0.4 * unitPx(T, ui.lattice);  // about a cell's inradius
  return Math.max(3, Math.min(18, (T.s / Math.sqrt(ui.trace.n)) * 0.18));
}
function hue(u) { return `hsl(${(u * 137.508) % 360}, 70%, 45%)`; }

export function draw() {
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
