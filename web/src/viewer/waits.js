// The waits-for relation at one step, and its blocked cycles (a deadlock "closing").
//   initiator -> participant: u waits for a reply on port l (ready in PREPARE, win in COMPETE,
//                             ack-lock in WIN, ack-unlock in UNLOCK)
//   participant -> initiator: v waits for request-lock from an applicant (A) or a candidate whose
//                             priority is missing (C without a pair in P)
//   held -> locker:           v's lock points at u, which must eventually send release-lock
// An edge is *blocked* when no message is in transit between the two ends and the node waited on
// has no enabled guarded action; a cycle of blocked edges, or a wait on a port that holds no edge,
// can never resolve by itself.
import { IDLE_NODE } from './trace.js';

const has = (arr, x) => arr.includes(x);

/// Guards of Algorithms 1-3 (docs/algorithm.md) on a node's registers.
export function enabledGuarded(node, variant) {
  const { state, phase, regs } = node;
  const eq = (a, b) => a.length === b.length && a.every((x) => b.includes(x));
  const out = [];
  if (state === 'PREPARE' && eq(regs.R, regs.L)) out.push('CheckStart');
  if (phase !== 'BOT' || state === 'UNLOCK' || (variant !== 'paper' && state === 'WIN')) out.push('CleanUp');
  if (phase === 'COMPETE' && regs.C.length === regs.P.length) out.push('CheckPriorities');
  if (state === 'COMPETE' && regs.W.length === regs.L.length) out.push('CheckWin');
  if (state === 'WIN' && eq(regs.R, regs.L)) out.push('CheckDone');
  if (state === 'UNLOCK' && eq(regs.R, regs.L)) out.push('CheckUnlocked');
  return out;
}

const REPLY = { PREPARE: 'ready', COMPETE: 'win', WIN: 'ack-lock', UNLOCK: 'ack-unlock' };

export function waitsFor(sys, variant) {
  const edges = [];
  const n = sys.nodes.length;
  // messages in transit per unordered node pair (and self)
  const busy = new Set();
  for (const m of sys.transit.values()) busy.add(pairKey(m.from, m.to));
  const enabled = sys.nodes.map((nd) => (nd === IDLE_NODE ? [] : enabledGuarded(nd, variant)));
  const add = (from, port, kind, why) => {
    const p = sys.peer(from, port);
    if (p && p.node === from && port === 0) return;  // waits on itself: drawn as a node badge, not an edge
    const to = p ? p.node : null;
    const pending = p ? busy.has(pairKey(from, to)) : false;
    const blocked = !pending && (to === null || enabled[to].length === 0);
    edges.push({ from, port, to, kind, why, pending, blocked });
  };
  for (let u = 0; u < n; u++) {
    const nd = sys.nodes[u];
    if (nd === IDLE_NODE) continue;
    const { regs } = nd;
    const reply = REPLY[nd.state];
    if (reply) {
      const got = nd.state === 'COMPETE' ? regs.W.map((w) => w[0]) : regs.R;
      for (const l of regs.L) if (!has(got, l)) add(u, l, 'reply', `${reply} on port ${l}`);
    }
    const priced = regs.P.map((p) => p[0]);
    for (const l of regs.A) add(u, l, 'request', `request-lock from applicant port ${l}`);
    for (const l of regs.C) if (!has(priced, l)) add(u, l, 'request', `request-lock from candidate port ${l}`);
    if (typeof nd.lock === 'number' && nd.lock !== 0) add(u, nd.lock, 'release', `release-lock on port ${nd.lock}`);
  }
  // blocked cycles among live edges (Tarjan's SCC over blocked edges)
  const adj = new Map();
  for (const e of edges) if (e.blocked && e.to !== null && e.to !== e.from) {
    if (!adj.has(e.from)) adj.set(e.from, []);
    adj.get(e.from).push(e.to);
  }
  const cycles = sccCycles(adj);
  const onCycle = new Set(cycles.flatMap((c) => c.map((u, i) => `${u}>${c[(i + 1) % c.length]}`)));
  for (const e of edges) e.cycle = e.to !== null && onCycle.has(`${e.from}>${e.to}`);
  const dangling = edges.filter((e) => e.to === null);
  return { edges, cycles, dangling };
}

function pairKey(a, b) { return a < b ? `${a}-${b}` : `${b}-${a}`; }

function sccCycles(adj) {
  let index = 0;
  const idx = new Map(), low = new Map(), stack = [], on = new Set(), out = [];
  const visit = (v) => {
    idx.set(v, index); low.set(v, index); index++;
    stack.push(v); on.add(v);
    for (const w of adj.get(v) || []) {
      if (!idx.has(w)) { visit(w); low.set(v, Math.min(low.get(v), low.get(w))); }
      else if (on.has(w)) low.set(v, Math.min(low.get(v), idx.get(w)));
    }
    if (low.get(v) === idx.get(v)) {
      const comp = [];
      let w;
      do { w = stack.pop(); on.delete(w); comp.push(w); } while (w !== v);
      if (comp.length > 1) out.push(orderCycle(comp, adj));
    }
  };
  for (const v of adj.keys()) if (!idx.has(v)) visit(v);
  return out;
}

// A simple cycle through the component's smallest node, for display.
function orderCycle(comp, adj) {
  const inComp = new Set(comp);
  const startNode = Math.min(...comp);
  const path = [startNode];
  const seen = new Set(path);
  let v = startNode;
  for (;;) {
    const next = (adj.get(v) || []).filter((w) => inComp.has(w));
    if (next.includes(startNode) && path.length > 1) return path;
    const w = next.find((x) => !seen.has(x));
    if (w === undefined) return path;
    path.push(w); seen.add(w); v = w;
  }
}
