#!/usr/bin/env node
// Deterministic generator of `lmx-trace/1` files (docs/trace-format.md) for the viewer's tests and
// benchmarks. It plays Algorithms 1-3 (docs/algorithm.md) with the same semantics as lmx::core, on
// a small hand-driven network, so the traces look exactly like the simulator's and the checker's.
//
//   node tools/gen-trace.mjs demo   OUT   3-node path, two competing initiators (as `lmx demo`)
//   node tools/gen-trace.mjs e1     OUT   paper variant, E1 (docs/errata.md): edge cut in WIN
//   node tools/gen-trace.mjs e1-reconnect OUT   E1, then the adversary reconnects the same ports
//   node tools/gen-trace.mjs big    OUT [EVENTS [NODES]]   random dynamic graph, about EVENTS events
import fs from 'node:fs';
import { pathToFileURL } from 'node:url';

const STATES = ['BOT', 'PREPARE', 'COMPETE', 'WIN', 'LOCKED', 'UNLOCK'];
const GUARDED = ['CheckStart', 'CleanUp', 'CheckPriorities', 'CheckWin', 'CheckDone', 'CheckUnlocked'];
const RECEIVE = {
  prepare: 'ReceivePrepare', ready: 'ReceiveReady', 'request-lock': 'ReceiveRequest', win: 'ReceiveWin',
  'set-lock': 'ReceiveSetLock', 'ack-lock': 'ReceiveAckLock', 'release-lock': 'ReceiveRelease',
  'ack-unlock': 'ReceiveAckUnlock',
};

// FNV-1a 64-bit over bytes, with 16-bit limbs (no BigInt in the hot loop).
class Fnv {
  constructor() { this.h = [0x2325, 0x8422, 0x9ce4, 0xcbf2]; }  // 0xcbf29ce484222325, low limb first
  update(bytes) {
    let [a, b, c, d] = this.h;
    for (let i = 0; i < bytes.length; i++) {
      a ^= bytes[i];
      // h * 0x100000001b3 = h * 0x1b3 + (h << 40), modulo 2^64
      const r0 = a * 0x1b3;
      const r1 = b * 0x1b3 + (r0 >>> 16);
      const r2 = c * 0x1b3 + ((a << 8) & 0xffff) + (r1 >>> 16);
      const r3 = d * 0x1b3 + (a >>> 8) + ((b << 8) & 0xffff) + (r2 >>> 16);
      a = r0 & 0xffff; b = r1 & 0xffff; c = r2 & 0xffff; d = r3 & 0xffff;
    }
    this.h = [a, b, c, d];
  }
  hex() { return this.h.slice().reverse().map((x) => x.toString(16).padStart(4, '0')).join(''); }
}

function mulberry32(seed) {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export { Fnv };
const sorted = (set) => [...set].sort((x, y) => x - y);

class Writer {
  constructor(path) {
    this.fd = fs.openSync(path, 'w');
    this.t = 0;
    this.hash = new Fnv();
    this.buf = [];
    this.size = 0;
    this.enc = new TextEncoder();
  }
  line(obj) {
    const s = JSON.stringify(obj) + '\n';
    this.hash.update(this.enc.encode(s));
    this.buf.push(s);
    this.size += s.length;
    if (this.size > 1 << 20) this.flush();
  }
  event(ev, round, fields) { this.t += 1; this.line({ ev, t: this.t, round, ...fields }); }
  flush() { fs.writeSync(this.fd, this.buf.join('')); this.buf = []; this.size = 0; }
  close(rounds, stalled) {
    const events = this.t;
    this.t += 1;
    // A synthetic trace has no engine hashing its events: the line hash stands for the event hash.
    const hash = this.hash.hex();
    const s = JSON.stringify({ ev: 'end', t: this.t, round: rounds, rounds, events, hash, event_hash: hash, stalled }) + '\n';
    this.buf.push(s);
    this.flush();
    fs.closeSync(this.fd);
  }
}

function freshState() {
  return { L: new Set(), R: new Set(), Wt: new Set(), Wf: new Set(), H: new Set(), A: new Set(), C: new Set(),
    P: new Map(), lock: null, state: 'BOT', phase: 'BOT' };
}
function cloneState(s) {
  return { L: new Set(s.L), R: new Set(s.R), Wt: new Set(s.Wt), Wf: new Set(s.Wf), H: new Set(s.H), A: new Set(s.A),
    C: new Set(s.C), P: new Map(s.P), lock: s.lock, state: s.state, phase: s.phase };
}
function stateKey(s) {
  return JSON.stringify([sorted(s.L), sorted(s.R), sorted(s.Wt), sorted(s.Wf), sorted(s.H), sorted(s.A), sorted(s.C),
    [...s.P].sort((x, y) => x[0] - y[0]), s.lock, s.state, s.phase]);
}
const eqSet = (a, b) => a.size === b.size && [...a].every((x) => b.has(x));

export class Network {
  constructor(w, n, { delta, k, variant, seed = 1, priorities = [] }) {
    this.w = w; this.delta = delta; this.k = k; this.variant = variant;
    this.rand = mulberry32(seed);
    this.queued = [...priorities];
    this.round = 0;
    this.nextId = 1;
    this.nodes = Array.from({ length: n }, () => ({
      s: freshState(), D: new Set(), links: new Array(delta + 1).fill(null), inbox: [],
    }));
  }
  draw() { return this.queued.length ? this.queued.shift() % this.k : Math.floor(this.rand() * this.k); }
  neighbours(u) {
    const out = new Set();
    this.nodes[u].links.forEach((l, p) => { if (p > 0 && l) out.add(p); });
    return out;
  }
  freePorts(u) { const f = []; for (let p = 1; p <= this.delta; p++) if (!this.nodes[u].links[p]) f.push(p); return f; }
  connect(u, pu, v, pv) {
    this.nodes[u].links[pu] = { node: v, port: pv };
    this.nodes[v].links[pv] = { node: u, port: pu };
    this.w.event('connect', this.round, { u, pu, v, pv });
  }
  cut(u, pu) {
    const { node: v, port: pv } = this.nodes[u].links[pu];
    for (const [x, px] of [[u, pu], [v, pv]]) {
      const keep = [];
      for (const m of this.nodes[x].inbox) {
        if (m.port === px && px !== 0) this.w.event('lost', this.round, { id: m.id, reason: 'cut' });
        else keep.push(m);
      }
      this.nodes[x].inbox = keep;
    }
    this.nodes[u].links[pu] = null; this.nodes[v].links[pv] = null;
    this.nodes[u].D.add(pu); this.nodes[v].D.add(pv);
    this.w.event('cut', this.round, { u, pu, v, pv });
  }
  lockSetOf(u) {
    const out = [];
    if (this.nodes[u].s.lock === 0) out.push(u);
    this.nodes[u].links.forEach((l, p) => {
      if (p > 0 && l && this.nodes[l.node].s.lock === l.port) out.push(l.node);
    });
    return out.sort((a, b) => a - b);
  }
  guard(s, a) {
    switch (a) {
      case 'CheckStart': return s.state === 'PREPARE' && eqSet(s.R, s.L);
      case 'CleanUp': return s.phase !== 'BOT' || s.state === 'UNLOCK' || (this.variant === 'repaired' && s.state === 'WIN');
      case 'CheckPriorities': return s.phase === 'COMPETE' && s.C.size === s.P.size;
      case 'CheckWin': return s.state === 'COMPETE' && s.Wt.size + s.Wf.size === s.L.size;
      case 'CheckDone': return s.state === 'WIN' && eqSet(s.R, s.L);
      case 'CheckUnlocked': return s.state === 'UNLOCK' && eqSet(s.R, s.L);
      default: return false;
    }
  }
  // Runs one action on state s; returns the sends [{ports, kind, value}] and flags.
  run(s, D, N, action, port, msg, draw) {
    const sends = [];
    const send = (ports, kind, value = 0) => { if (ports.size) sends.push({ ports: new Set(ports), kind, value }); };
    const cleanUp = () => {
      for (const l of D) {
        if (s.lock === l) s.lock = null;
        for (const set of [s.L, s.R, s.Wt, s.Wf, s.H, s.A, s.C]) set.delete(l);
        s.P.delete(l);
      }
      if (s.C.size === 0) {
        send(s.H, 'ready');
        for (const l of s.H) s.A.add(l);
        s.H.clear();
        s.phase = s.A.size ? 'PREPARE' : 'BOT';
      }
    };
    let done = false, unlocked = false;
    switch (action) {
      case 'InitLock': cleanUp(); s.state = 'PREPARE'; s.L = new Set([0, ...N]); send(s.L, 'prepare'); break;
      case 'InitUnlock': cleanUp(); s.state = 'UNLOCK'; s.R.clear(); send(s.L, 'release-lock'); break;
      case 'ReceivePrepare':
        cleanUp();
        if (s.phase === 'COMPETE') s.H.add(port);
        else { s.A.add(port); s.phase = 'PREPARE'; send(new Set([port]), 'ready'); }
        break;
      case 'ReceiveReady': cleanUp(); s.R.add(port); break;
      case 'CheckStart': cleanUp(); s.state = 'COMPETE'; s.R.clear(); s.Wt.clear(); s.Wf.clear();
        send(s.L, 'request-lock', draw()); break;
      case 'CleanUp': cleanUp(); break;
      case 'ReceiveRequest':
        cleanUp();
        if (s.A.has(port)) { s.A.delete(port); s.C.add(port); }
        s.P.set(port, msg.value); s.phase = 'COMPETE';
        break;
      case 'CheckPriorities': {
        cleanUp();
        let best = -1, who = [];
        for (const [l, p] of s.P) { if (p > best) { best = p; who = [l]; } else if (p === best) who.push(l); }
        if (s.lock === null && who.length === 1) {
          send(new Set(who), 'win', 1);
          send(new Set([...s.C].filter((l) => l !== who[0])), 'win', 0);
        } else send(s.C, 'win', 0);
        s.P.clear();
        break;
      }
      case 'ReceiveWin': cleanUp(); (msg.value ? s.Wt : s.Wf).add(port); break;
      case 'CheckWin':
        cleanUp();
        if (s.Wf.size) send(s.L, 'request-lock', draw());
        else { s.state = 'WIN'; s.R.clear(); send(s.L, 'set-lock'); }
        s.Wt.clear(); s.Wf.clear();
        break;
      case 'ReceiveSetLock': s.lock = port; s.C.delete(port); cleanUp(); send(new Set([port]), 'ack-lock'); break;
      case 'ReceiveAckLock': cleanUp(); s.R.add(port); break;
      case 'CheckDone': cleanUp(); s.state = 'LOCKED'; s.R.clear(); done = true; break;
      case 'ReceiveRelease': cleanUp(); s.lock = null; send(new Set([port]), 'ack-unlock'); break;
      case 'ReceiveAckUnlock': cleanUp(); s.R.add(port); break;
      case 'CheckUnlocked': cleanUp(); s.state = 'BOT'; s.R.clear(); unlocked = true; break;
      default: throw new Error(action);
    }
    return { sends, done, unlocked };
  }
  // Executes an action at u and writes its lines.
  act(u, action, m = null) {
    const node = this.nodes[u];
    const D = node.D; node.D = new Set();
    const N = this.neighbours(u);
    const r = this.run(node.s, D, N, action, m ? m.port : null, m, () => this.draw());
    const s = node.s;
    const regs = { L: sorted(s.L), R: sorted(s.R), W: [...sorted(s.Wt).map((l) => [l, 1]), ...sorted(s.Wf).map((l) => [l, 0])].sort((x, y) => x[0] - y[0] || y[1] - x[1]),
      H: sorted(s.H), A: sorted(s.A), C: sorted(s.C), P: [...s.P].sort((x, y) => x[0] - y[0]) };
    this.w.event('act', this.round, { node: u, action, port: m ? m.port : null, msg: m ? m.id : null, D: sorted(D),
      lock: s.lock === null ? 'BOT' : s.lock, state: s.state, phase: s.phase, regs });
    for (const g of r.sends) {
      for (const p of sorted(g.ports)) {
        const id = this.nextId++;
        const link = p === 0 ? { node: u, port: 0 } : node.links[p];
        this.w.event('send', this.round, { id, from: u, port: p, kind: g.kind, value: g.value, to: link ? link.node : null, to_port: link ? link.port : null });
        if (!link) this.w.event('lost', this.round, { id, reason: 'no-edge' });
        else this.nodes[link.node].inbox.push({ id, port: link.port, kind: g.kind, value: g.value, sent: this.round });
      }
    }
    if (r.done) this.w.event('done', this.round, { node: u, op: 'lock', ports: sorted(s.L), lock_set: this.lockSetOf(u) });
    if (r.unlocked) this.w.event('done', this.round, { node: u, op: 'unlock', ports: [], lock_set: [] });
    return r;
  }
  call(u, op) {
    const s = this.nodes[u].s;
    const ok = op === 'lock' ? s.state === 'BOT' : s.state === 'LOCKED';
    this.w.event('call', this.round, { node: u, op, status: ok ? 'ok' : 'rejected' });
    if (ok) this.act(u, op === 'lock' ? 'InitLock' : 'InitUnlock');
    return ok;
  }
  deliver(u, port, kind) {
    const node = this.nodes[u];
    const i = node.inbox.findIndex((m) => m.port === port && (!kind || m.kind === kind));
    if (i < 0) throw new Error(`nothing for n${u} at port ${port}`);
    const [m] = node.inbox.splice(i, 1);
    return this.act(u, RECEIVE[m.kind], m);
  }
  effectiveGuarded(u) {
    const node = this.nodes[u];
    for (const a of GUARDED) {
      if (!this.guard(node.s, a)) continue;
      const c = cloneState(node.s);
      const r = this.run(c, node.D, this.neighbours(u), a, null, null, () => 0);
      if (r.sends.length || stateKey(c) !== stateKey(node.s)) return a;
    }
    return null;
  }
  // One round: each node (in order, with probability `p`) runs its first effective guarded action,
  // else receives its oldest message sent before the round began.
  step(p = 1) {
    this.round += 1;
    let any = false;
    for (let u = 0; u < this.nodes.length; u++) {
      if (p < 1 && this.rand() >= p) continue;
      const a = this.effectiveGuarded(u);
      if (a) { this.act(u, a); any = true; continue; }
      const node = this.nodes[u];
      let best = -1;
      node.inbox.forEach((m, i) => { if (m.sent < this.round && (best < 0 || m.id < node.inbox[best].id)) best = i; });
      if (best >= 0) { const [m] = node.inbox.splice(best, 1); this.act(u, RECEIVE[m.kind], m); any = true; }
    }
    return any;
  }
}

function header(w, fields) {
  w.line({ type: 'lmx-trace', schema: 1, lmx_version: '0.1.0', ...fields });
}

function demo(path) {
  const w = new Writer(path);
  header(w, { source: 'demo', variant: 'repaired', delta: 2, k: 4, nodes: 3, seed: 1, engine: 'semi-sync',
    scenario: { name: 'demo', description: 'path n0 - n1 - n2; n0 and n2 both want n1' } });
  const net = new Network(w, 3, { delta: 2, k: 4, variant: 'repaired', priorities: [2, 2, 3, 1, 0, 2] });
  net.connect(0, 1, 1, 1); net.connect(1, 2, 2, 1);
  net.call(0, 'lock'); net.call(2, 'lock');
  const held = [0, 0, 0];
  let round = 0;
  for (let i = 0; i < 200; i++) {
    const any = net.step();
    for (const u of [0, 2]) if (net.nodes[u].s.state === 'LOCKED' && ++held[u] > 2) net.call(u, 'unlock');
    round = net.round;
    const holding = [0, 2].some((u) => net.nodes[u].s.state === 'LOCKED');
    if (!any && !holding) break;
  }
  w.close(round, false);
}

function e1(path, reconnect) {
  const w = new Writer(path);
  const scenario = { name: reconnect ? 'E1 with reconnection' : 'E1', edges: [[0, 1, 1, 1]], locks: [0], max_changes: reconnect ? 2 : 1,
    property: 'P7', detail: reconnect
      ? 'u in WIN loses the ack-lock with its edge; the adversary reconnects the same ports; u and v wait on each other'
      : 'u in WIN loses the ack-lock with its edge; no action of u is enabled' };
  header(w, { source: 'check', variant: 'paper', delta: 1, k: 2, nodes: 2, seed: 0, engine: 'check', scenario,
    positions: [[0.3, 0.5], [0.7, 0.5]] });
  const net = new Network(w, 2, { delta: 1, k: 2, variant: 'paper', priorities: [1] });
  const tick = () => { net.round += 1; };
  net.connect(0, 1, 1, 1);
  tick(); net.call(0, 'lock');
  tick(); net.deliver(0, 0); tick(); net.deliver(1, 1);
  tick(); net.deliver(0, 0); tick(); net.deliver(0, 1);
  tick(); net.act(0, 'CheckStart');
  tick(); net.deliver(0, 0); tick(); net.deliver(1, 1);
  tick(); net.act(0, 'CheckPriorities'); tick(); net.act(1, 'CheckPriorities');
  tick(); net.deliver(0, 0); tick(); net.deliver(0, 1);
  tick(); net.act(0, 'CheckWin');
  tick(); net.deliver(0, 0); tick(); net.deliver(1, 1);
  tick(); net.deliver(0, 0);
  tick(); net.cut(0, 1);
  if (reconnect) { tick(); net.connect(0, 1, 1, 1); }
  w.event('violation', net.round, { property: 'P7', nodes: [0], ports: [1], detail: 'n0 in WIN: Lock can never complete (R = {0}, L = {0,1}); no action enabled, nothing in transit' });
  w.close(net.round, true);
}

function big(path, target, n = 400) {
  const w = new Writer(path);
  const delta = 6, k = 4, seed = 7;
  const radius = 0.08 * Math.sqrt(400 / n);
  const rand = mulberry32(seed * 31 + 1);
  const pos = Array.from({ length: n }, () => [Math.round(rand() * 1e4) / 1e4, Math.round(rand() * 1e4) / 1e4]);
  header(w, { source: 'run', variant: 'repaired', delta, k, nodes: n, seed, engine: 'semi-sync',
    scenario: { name: 'synthetic', topology: 'unit-disk', radius, nodes: n, delta, k, note: 'generated by web/tools/gen-trace.mjs' },
    positions: pos });
  const net = new Network(w, n, { delta, k, variant: 'repaired', seed });
  const r2 = radius * radius;
  const near = (u, v) => (pos[u][0] - pos[v][0]) ** 2 + (pos[u][1] - pos[v][1]) ** 2 < r2;
  const tryConnect = (u, v) => {
    if (u === v || net.nodes[u].links.some((l) => l && l.node === v)) return;
    const fu = net.freePorts(u), fv = net.freePorts(v);
    if (fu.length && fv.length) net.connect(u, fu[Math.floor(rand() * fu.length)], v, fv[Math.floor(rand() * fv.length)]);
  };
  const nearList = Array.from({ length: n }, () => []);
  for (let u = 0; u < n; u++) for (let v = 0; v < n; v++) if (u !== v && near(u, v)) nearList[u].push(v);
  for (let u = 0; u < n; u++) for (let v = u + 1; v < n; v++) if (near(u, v)) tryConnect(u, v);
  const held = new Array(n).fill(0);
  while (w.t < target) {
    net.step(0.8);
    for (let u = 0; u < n; u++) {
      const s = net.nodes[u].s.state;
      if (s === 'BOT' && rand() < 0.05) net.call(u, 'lock');
      else if (s === 'LOCKED' && ++held[u] > 2) { held[u] = 0; net.call(u, 'unlock'); }
    }
    if (rand() < 0.5) {  // topology change: cut a random edge or add one between close nodes
      const u = Math.floor(rand() * n);
      const ports = [...net.neighbours(u)];
      if (ports.length && rand() < 0.5) net.cut(u, ports[Math.floor(rand() * ports.length)]);
      else if (nearList[u].length) tryConnect(u, nearList[u][Math.floor(rand() * nearList[u].length)]);
    }
  }
  w.close(net.round, false);
}

function main() {
  const [what, out, arg] = process.argv.slice(2);
  if (!what || !out) {
    console.error('usage: gen-trace.mjs demo|e1|e1-reconnect|big OUT [EVENTS [NODES]]');
    process.exit(2);
  }
  if (what === 'demo') demo(out);
  else if (what === 'e1') e1(out, false);
  else if (what === 'e1-reconnect') e1(out, true);
  else if (what === 'big') big(out, Number(arg || 1e6), Number(process.argv[5] || 400));
  else { console.error(`unknown trace '${what}'`); process.exit(2); }
}
if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) main();
