// The observed system after some prefix of a trace: SystemState, which the index keeps in its
// checkpoints and replays events onto, the agents' protocol states and the amoebots inside it,
// and View, the same step with node registers and messages parsed, as the page draws it.
import { KIND } from './events.js';

const EMPTY_REGS = { L: [], R: [], W: [], H: [], A: [], C: [], P: [] };
export const IDLE_NODE = { lock: 'BOT', state: 'BOT', phase: 'BOT', regs: EMPTY_REGS, D: [], t: 0, action: null };

/// The observed system after some prefix of the trace, kept compact: each node's last `act` and
/// each message in transit are stored as event positions and parsed only when shown.
export class SystemState {
  constructor(n) {
    this.nodeT = new Float64Array(n);           // position of each node's last act (0: none yet)
    this.links = new Map();                     // u * 256 + port -> {node, port}
    this.edges = new Map();                     // "u:pu" of the smaller end -> {u, pu, v, pv, t}
    this.transit = new Map();                   // message id -> position of its send event
    this.pos = null;                            // Float64Array(2n) once a move happened
    this.locks = 0;                             // completed Lock calls so far
    this.detector = new Map();                  // node -> ports cut since it last acted (D)
    this.pp = null;                             // population protocols, from the agents line on: {agent, counts, index, interactions}
    this.ab = null;                             // amoebots, from the amoebots line on (see amoebotState)
  }
  clone() {
    const c = new SystemState(0);
    c.nodeT = this.nodeT.slice();
    c.links = new Map(this.links);
    c.edges = new Map(this.edges);
    c.transit = new Map(this.transit);
    c.pos = this.pos ? this.pos.slice() : null;
    c.locks = this.locks;
    c.detector = new Map(this.detector);
    c.pp = this.pp && { agent: this.pp.agent.slice(), counts: this.pp.counts.slice(), index: this.pp.index, interactions: this.pp.interactions };
    c.ab = this.ab && cloneAmoebots(this.ab);
    c.initialPos = this.initialPos;
    return c;
  }
  /// Applies one scanned event (see scan()) at position t.
  apply(e, t) {
    switch (e.code) {
      case KIND.connect:
        this.links.set(e.u * 256 + e.pu, { node: e.v, port: e.pv });
        this.links.set(e.v * 256 + e.pv, { node: e.u, port: e.pu });
        this.edges.set(edgeKey(e), { u: e.u, pu: e.pu, v: e.v, pv: e.pv, t });
        break;
      case KIND.cut:
        this.links.delete(e.u * 256 + e.pu);
        this.links.delete(e.v * 256 + e.pv);
        this.edges.delete(edgeKey(e));
        this.detector.set(e.u, [...(this.detector.get(e.u) || []), e.pu]);
        if (e.v !== e.u || e.pv !== e.pu) this.detector.set(e.v, [...(this.detector.get(e.v) || []), e.pv]);
        break;
      case KIND.move:
        if (!this.pos) this.pos = this.initialPos.slice();
        this.pos[2 * e.node] = e.x;
        this.pos[2 * e.node + 1] = e.y;
        break;
      case KIND.send:
        if (e.to !== null) this.transit.set(e.id, t);
        break;
      case KIND.lost:
        this.transit.delete(e.id);
        break;
      case KIND.act:
        if (e.msg !== null) this.transit.delete(e.msg);
        this.nodeT[e.node] = t;
        this.detector.delete(e.node);
        break;
      case KIND.done_lock:
        this.locks += 1;
        break;
      case KIND.agents:
        this.pp = population(e.full);
        break;
      case KIND.interact:
        // indexTrace() refuses an interaction before the agents line or with an unknown state
        if (this.pp) { setAgent(this.pp, e.node, e.after[0]); setAgent(this.pp, e.responder, e.after[1]); this.pp.interactions += 1; }
        break;
      case KIND.call:
        // an amoebot that slept calls Lock again once an action next to it woke it
        if (this.ab && e.op === 0) this.ab.asleep[e.node] = 0;
        break;
      case KIND.amoebots:
        this.ab = amoebotState(e.full, this.nodeT.length);
        break;
      // indexTrace() refuses the amoebot lines below before the amoebots line
      case KIND.amoebot_plan:
        if (this.ab) { this.ab.acting.set(e.node, { rule: e.rule, t }); this.ab.plans += 1; }
        break;
      case KIND.amoebot_act:
        if (this.ab) {
          const ab = this.ab;
          for (const rec of e.full.changed) setAmoebot(ab, rec);
          ab.acting.delete(e.node);
          ab.actions += 1;
          ab.moves += Number(e.full.moves) || 0;
        }
        break;
      case KIND.amoebot_abort:
        if (this.ab) { this.ab.acting.delete(e.node); this.ab.aborts += 1; }
        break;
      case KIND.amoebot_sleep:
        if (this.ab) { this.ab.asleep[e.node] = 1; this.ab.sleeps += 1; }
        break;
      default:
        break;
    }
  }
}

/// Each agent's state index and the count of each state, from an agents line's `states` and `initial`.
export function population(full) {
  const agent = Uint16Array.from(full.initial);
  const counts = new Int32Array(full.states.length);
  for (const k of agent) counts[k] += 1;
  return { agent, counts, index: new Map(full.states.map((s, i) => [s, i])), interactions: 0 };
}
function setAgent(pp, u, name) {
  const k = pp.index.get(name);
  if (k === undefined) return;
  pp.counts[pp.agent[u]] -= 1;
  pp.agent[u] = k;
  pp.counts[k] += 1;
}

/// Amoebots at one step, from an amoebots line (docs/trace-format.md, lmx amoebot run --trace):
/// per amoebot its head and tail (axial lattice coordinates), compass and public memory (its
/// `variables`; the first is the algorithm state), whether it is asleep (it slept at its last Lock
/// and has not called Lock since), the acting amoebots (between amoebot-plan and amoebot-act or
/// amoebot-abort) with their rule, and the counters so far.
export function amoebotState(full, n) {
  const V = full.amoebots.reduce((m, r) => Math.max(m, r[6].length), Math.max(1, full.variables.length));
  const ab = {
    V, pos: new Int32Array(4 * n), compass: new Uint8Array(n), vars: new Float64Array(V * n).fill(NaN),
    asleep: new Uint8Array(n), acting: new Map(), plans: 0, actions: 0, moves: 0, aborts: 0, sleeps: 0,
  };
  for (const rec of full.amoebots) setAmoebot(ab, rec);
  return ab;
}
function cloneAmoebots(ab) {
  return { ...ab, pos: ab.pos.slice(), compass: ab.compass.slice(), vars: ab.vars.slice(), asleep: ab.asleep.slice(), acting: new Map(ab.acting) };
}
// One record [id, head_x, head_y, tail_x, tail_y, compass, [v0, v1, ...]].
function setAmoebot(ab, rec) {
  const u = rec[0];
  ab.pos[4 * u] = rec[1]; ab.pos[4 * u + 1] = rec[2]; ab.pos[4 * u + 2] = rec[3]; ab.pos[4 * u + 3] = rec[4];
  ab.compass[u] = rec[5];
  for (let k = 0; k < ab.V; k++) { const v = rec[6][k]; ab.vars[ab.V * u + k] = typeof v === 'number' ? v : NaN; }
}

/// What the page draws at one step: SystemState with the node registers and messages parsed.
export class View {
  constructor(sys, trace) {
    this.nodes = Array.from(sys.nodeT, (t) => (t ? trace.parsed(t) : IDLE_NODE));
    this.transit = new Map();
    for (const [id, t] of sys.transit) this.transit.set(id, trace.parsed(t));
    this.links = sys.links;
    this.edges = sys.edges;
    this.pos = sys.pos;
    this.locks = sys.locks;
    this.detector = sys.detector;
    // before the agents line (it follows the initial topology) the agents are in their initial states
    this.pp = sys.pp || (trace.population ? trace.population.start : null);
    // likewise the amoebots before the amoebots line
    this.ab = sys.ab || (trace.amoebot ? trace.amoebot.start : null);
  }
  /// The node and port at the other end of u's port, or null.
  peer(u, port) { return port === 0 ? { node: u, port: 0 } : this.links.get(u * 256 + port) || null; }
  /// The lock set of u as the paper defines it: v with lock(v) = label_v(u), plus u if lock(u) = 0.
  lockSet(u) {
    const out = [];
    if (this.nodes[u].lock === 0) out.push(u);
    for (const [key, l] of this.links) {
      if (Math.floor(key / 256) !== u) continue;
      if (this.nodes[l.node].lock === l.port) out.push(l.node);
    }
    return out.sort((a, b) => a - b);
  }
}

function edgeKey(e) {
  return e.u < e.v || (e.u === e.v && e.pu < e.pv) ? `${e.u}:${e.pu}` : `${e.v}:${e.pv}`;
}
