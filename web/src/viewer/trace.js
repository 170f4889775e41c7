// Reads an `lmx-trace/1` file (docs/trace-format.md) once and indexes it: per-event offsets and
// kinds in typed arrays, plus a full checkpoint of the observed system every CHECKPOINT events, so
// that any step is reached by restoring one checkpoint and replaying at most CHECKPOINT lines.
// Strict about required fields, tolerant of extra fields and of event kinds it does not know.
// Population-protocol traces (`agents` and `interact` lines) also get each agent's protocol state
// and the count of each state, kept in the same checkpoints; amoebot traces (`amoebots` and
// `amoebot-*` lines) each amoebot's lattice position and public memory, who is acting and asleep.

export const SCHEMA = 1;
export const CHECKPOINT = 2048;

export const KIND = {
  other: 0, connect: 1, cut: 2, move: 3, call: 4, send: 5, lost: 6, act: 7, done_lock: 8, done_unlock: 9, violation: 10, end: 11, finding: 12, idle: 13, interact: 14, agents: 15,
  amoebots: 16, amoebot_plan: 17, amoebot_act: 18, amoebot_abort: 19, amoebot_sleep: 20,
};
const EV_CODE = {
  connect: 1, cut: 2, move: 3, call: 4, send: 5, lost: 6, act: 7, violation: 10, end: 11, finding: 12, idle: 13, interact: 14, agents: 15,
  amoebots: 16, 'amoebot-plan': 17, 'amoebot-act': 18, 'amoebot-abort': 19, 'amoebot-sleep': 20,
};

const REQUIRED = {
  connect: ['u', 'pu', 'v', 'pv'],
  cut: ['u', 'pu', 'v', 'pv'],
  move: ['node', 'x', 'y'],
  call: ['node', 'op', 'status'],
  send: ['id', 'from', 'port', 'kind', 'value', 'to', 'to_port'],
  lost: ['id', 'reason'],
  act: ['node', 'action', 'port', 'msg', 'lock', 'state', 'phase', 'regs'],
  done: ['node', 'op', 'ports', 'lock_set'],
  violation: ['property', 'nodes'],
  end: ['rounds', 'events', 'hash', 'stalled'],
  finding: ['kind', 'detail'],
  idle: ['node'],
  agents: ['protocol', 'states', 'initial'],
  interact: ['initiator', 'responder', 'before', 'after'],
  amoebots: ['algorithm', 'variables', 'states', 'amoebots'],
  'amoebot-plan': ['node', 'rule'],
  'amoebot-act': ['node', 'rule', 'moves', 'changed'],
  'amoebot-abort': ['node', 'rule'],
  'amoebot-sleep': ['node'],
};
const REGS = ['L', 'R', 'W', 'H', 'A', 'C', 'P'];
export const MESSAGE_KINDS = ['prepare', 'ready', 'request-lock', 'win', 'set-lock', 'ack-lock', 'release-lock', 'ack-unlock'];
export const STATES = ['BOT', 'PREPARE', 'COMPETE', 'WIN', 'LOCKED', 'UNLOCK'];
export const PHASES = ['BOT', 'PREPARE', 'COMPETE'];

export class TraceError extends Error {
  constructor(line, message) {
    super(line ? `line ${line}: ${message}` : message);
    this.line = line;
  }
}

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
function population(full) {
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
// Why an amoebot record cannot be read, or null (n: the number of nodes).
function badRecord(rec, n) {
  if (!Array.isArray(rec) || rec.length < 7) return 'is not [id, head_x, head_y, tail_x, tail_y, compass, [variables]]';
  if (!Number.isInteger(rec[0]) || rec[0] < 0 || (n !== undefined && rec[0] >= n)) return `names an amoebot outside 0..${n === undefined ? 'n' : n - 1}`;
  for (let k = 1; k <= 5; k++) if (!Number.isInteger(rec[k])) return 'has a coordinate or compass that is not an integer';
  if (!Array.isArray(rec[6])) return 'has no list of variables';
  return null;
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

// ---- fast field access on one line's bytes, without a full JSON.parse (the index reads 10^6 lines) ----
// tokenize() walks the line once, checks that strings, objects and arrays are closed, and records
// where each top-level key starts and where its value starts.
const keyStart = new Int32Array(64), keyEnd = new Int32Array(64), valStart = new Int32Array(64);
let keyCount = 0;
const encoder = new TextEncoder();
const decoder = new TextDecoder();
const KEYS = new Map();
const kb = (name) => { const b = encoder.encode(name); KEYS.set(name, b); return b; };

function tokenize(b, i, n) {
  keyCount = 0;
  let depth = 0, expectKey = false;
  while (n > i && (b[n - 1] === 10 || b[n - 1] === 13 || b[n - 1] === 32)) n--;
  while (i < n) {
    const c = b[i];
    if (c === 34) {
      let j = i + 1;
      for (;;) {
        if (j >= n) return false;
        const d = b[j];
        if (d === 92) j += 2; else if (d === 34) break; else j++;
      }
      if (expectKey) {
        let k = j + 1;
        while (b[k] === 32) k++;
        if (b[k] !== 58) return false;
        if (keyCount < 64) { keyStart[keyCount] = i + 1; keyEnd[keyCount] = j; valStart[keyCount] = k + 1; keyCount++; }
        expectKey = false;
        i = k + 1;
        continue;
      }
      i = j + 1;
      continue;
    }
    if (c === 123 || c === 91) { depth++; if (depth === 1) { if (c !== 123) return false; expectKey = true; } }
    else if (c === 125 || c === 93) { depth--; if (depth < 0 || (depth === 0 && i !== n - 1)) return false; }
    else if (c === 44 && depth === 1) expectKey = true;
    i++;
  }
  return depth === 0 && keyCount > 0;
}
function valueAt(b, name) {
  const key = KEYS.get(name) || kb(name), len = key.length;
  outer: for (let k = 0; k < keyCount; k++) {
    const s = keyStart[k];
    if (keyEnd[k] - s !== len) continue;
    for (let q = 0; q < len; q++) if (b[s + q] !== key[q]) continue outer;
    let j = valStart[k];
    while (b[j] === 32) j++;
    return j;
  }
  return -1;
}
function intField(b, key, line, ev, nullable = false) {
  const j = valueAt(b, key);
  if (j < 0) throw new TraceError(line, `"${ev}" event lacks required field "${key}"`);
  if (nullable && b[j] === 110 && b[j + 1] === 117 && b[j + 2] === 108 && b[j + 3] === 108) return null;
  let k = j, neg = false, v = 0;
  if (b[k] === 45) { neg = true; k++; }
  const s = k;
  for (let c = b[k]; c >= 48 && c <= 57; c = b[++k]) v = v * 10 + (c - 48);
  if (k === s) throw new TraceError(line, `"${ev}" event: field "${key}" is not ${nullable ? 'an integer or null' : 'an integer'}`);
  return neg ? -v : v;
}
// The index of `names` whose bytes equal the string value at key, or -1 (-2: key missing or not a string).
function enumField(b, key, names) {
  const j = valueAt(b, key);
  if (j < 0 || b[j] !== 34) return -2;
  let e = j + 1;
  while (e < b.length && b[e] !== 34) e++;
  const len = e - j - 1;
  outer: for (let k = 0; k < names.length; k++) {
    const nb = names[k];
    if (nb.length !== len) continue;
    for (let q = 0; q < len; q++) if (b[j + 1 + q] !== nb[q]) continue outer;
    return k;
  }
  return -1;
}
function strField(b, key) {
  const j = valueAt(b, key);
  if (j < 0 || b[j] !== 34) return null;
  let k = j + 1, out = '';
  for (let c = b[k]; c !== 34 && k - j < 64; c = b[++k]) out += String.fromCharCode(c);
  return out;
}
// The JSON value at key (an array of state names). Arrays of plain ASCII strings, which is what
// lmx writes, are read straight from the bytes (a trace may hold 10^6 interactions); anything
// else is cut out of the line and parsed on its own.
function jsonField(b, key, line, ev) {
  const j = valueAt(b, key);
  const fast = plainStrings(b, j);
  if (fast) return fast;
  let k = j, depth = 0;
  for (; k < b.length; k++) {
    const c = b[k];
    if (c === 34) { for (k++; k < b.length && b[k] !== 34; k++) if (b[k] === 92) k++; if (depth === 0) { k++; break; } }
    else if (c === 91 || c === 123) depth++;
    else if (c === 93 || c === 125) { if (depth === 0) break; if (--depth === 0) { k++; break; } }
    else if (c === 44 && depth === 0) break;
  }
  try {
    return JSON.parse(decoder.decode(b.subarray(j, k)));
  } catch (err) {
    throw new TraceError(line, `"${ev}" event: field "${key}" is not valid JSON (${err.message})`);
  }
}
function plainStrings(b, j) {
  if (b[j] !== 91) return null;
  const out = [];
  let k = j + 1;
  for (;;) {
    while (b[k] === 32) k++;
    if (b[k] === 93 && out.length === 0) return out;
    if (b[k] !== 34) return null;
    let str = '';
    for (k++; b[k] !== 34; k++) {
      const c = b[k];
      if (c === 92 || c >= 128 || c < 32 || c === undefined) return null;
      str += String.fromCharCode(c);
    }
    out.push(str);
    k++;
    while (b[k] === 32) k++;
    if (b[k] === 93) return out;
    if (b[k] !== 44) return null;
    k++;
  }
}
const isPair = (a) => Array.isArray(a) && a.length === 2 && typeof a[0] === 'string' && typeof a[1] === 'string';
function numField(b, key, line, ev) {
  const j = valueAt(b, key);
  if (j < 0) throw new TraceError(line, `"${ev}" event lacks required field "${key}"`);
  let k = j, txt = '';
  for (let c = b[k]; (c >= 48 && c <= 57) || c === 45 || c === 46 || c === 43 || c === 101 || c === 69; c = b[++k]) txt += String.fromCharCode(c);
  const v = Number(txt);
  if (k === j || Number.isNaN(v)) throw new TraceError(line, `"${ev}" event: field "${key}" is not a number`);
  return v;
}
function requireKeys(b, ev, line) {
  for (const f of REQUIRED[ev]) if (valueAt(b, f) < 0) throw new TraceError(line, `"${ev}" event lacks required field "${f}"`);
}

/// Reads the fields the index needs from one event line (bytes b[s..e)). Checks the line's shape
/// and its required fields; full JSON syntax is checked by Trace.validate() and whenever a line is shown.
const EV_NAMES = Object.keys(REQUIRED);
const EV_BYTES = EV_NAMES.map((n) => encoder.encode(n));
const STATE_BYTES = STATES.map((n) => encoder.encode(n));
const PHASE_BYTES = PHASES.map((n) => encoder.encode(n));
const OP_BYTES = ['lock', 'unlock'].map((n) => encoder.encode(n));

class Scanned {
  constructor(ev, code, t, round) {
    this.ev = ev; this.code = code; this.t = t; this.round = round; this.node = -1;
    this.id = -1; this.to = null; this.msg = null; this.u = 0; this.pu = 0; this.v = 0; this.pv = 0;
    this.x = 0; this.y = 0; this.full = null; this.responder = -1; this.before = null; this.after = null;
    this.op = -1; this.rule = null;
  }
}

export function scan(b, s, end, line) {
  if (!tokenize(b, s, end)) throw new TraceError(line, 'malformed JSON (not one complete object on the line)');
  const k = enumField(b, 'ev', EV_BYTES);
  if (k === -2) throw new TraceError(line, 'missing "ev"');
  const ev = k >= 0 ? EV_NAMES[k] : strField(b, 'ev');
  const e = new Scanned(ev, EV_CODE[ev] || 0, intField(b, 't', line, ev), numField(b, 'round', line, ev));
  if (k < 0) return e;
  requireKeys(b, ev, line);
  switch (ev) {
    case 'connect': case 'cut':
      e.u = intField(b, 'u', line, ev); e.pu = intField(b, 'pu', line, ev);
      e.v = intField(b, 'v', line, ev); e.pv = intField(b, 'pv', line, ev); e.node = e.u;
      break;
    case 'move':
      e.node = intField(b, 'node', line, ev); e.x = numField(b, 'x', line, ev); e.y = numField(b, 'y', line, ev);
      break;
    case 'call':
      e.node = intField(b, 'node', line, ev);
      e.op = enumField(b, 'op', OP_BYTES);
      break;
    case 'idle': case 'amoebot-sleep':
      e.node = intField(b, 'node', line, ev);
      break;
    case 'amoebot-plan': case 'amoebot-abort':
      e.node = intField(b, 'node', line, ev);
      e.rule = strField(b, 'rule');
      break;
    case 'send':
      e.id = intField(b, 'id', line, ev); e.node = intField(b, 'from', line, ev);
      e.to = intField(b, 'to', line, ev, true);
      break;
    case 'lost':
      e.id = intField(b, 'id', line, ev);
      break;
    case 'act': {
      e.node = intField(b, 'node', line, ev);
      e.msg = intField(b, 'msg', line, ev, true);
      if (enumField(b, 'state', STATE_BYTES) < 0) throw new TraceError(line, `"act" event: unknown state ${JSON.stringify(strField(b, 'state'))}`);
      if (enumField(b, 'phase', PHASE_BYTES) < 0) throw new TraceError(line, `"act" event: unknown phase ${JSON.stringify(strField(b, 'phase'))}`);
      break;
    }
    case 'done':
      e.node = intField(b, 'node', line, ev);
      e.code = enumField(b, 'op', OP_BYTES) === 0 ? KIND.done_lock : KIND.done_unlock;
      break;
    case 'interact':
      e.node = intField(b, 'initiator', line, ev); e.responder = intField(b, 'responder', line, ev);
      e.before = jsonField(b, 'before', line, ev); e.after = jsonField(b, 'after', line, ev);
      if (!isPair(e.before) || !isPair(e.after)) throw new TraceError(line, '"interact" event: "before" and "after" must each be two state names');
      break;
    case 'violation': case 'end': case 'agents': case 'amoebots': case 'amoebot-act': {
      // rare: parse fully
      let full;
      try { full = JSON.parse(decoder.decode(b.subarray(s, end))); } catch (err) { throw new TraceError(line, `malformed JSON (${err.message})`); }
      checkFields(full, line);
      if (ev === 'violation') e.node = Array.isArray(full.nodes) && Number.isInteger(full.nodes[0]) ? full.nodes[0] : -1;
      if (ev === 'amoebot-act') e.node = full.node;
      e.full = full;
      break;
    }
    default:
      break;
  }
  return e;
}

function edgeKey(e) {
  return e.u < e.v || (e.u === e.v && e.pu < e.pv) ? `${e.u}:${e.pu}` : `${e.v}:${e.pv}`;
}

function checkFields(e, line) {
  if (typeof e !== 'object' || e === null || Array.isArray(e)) throw new TraceError(line, 'not a JSON object');
  if (typeof e.ev !== 'string') throw new TraceError(line, 'missing "ev"');
  if (!Number.isInteger(e.t)) throw new TraceError(line, `missing or non-integer "t" in a "${e.ev}" event`);
  if (typeof e.round !== 'number') throw new TraceError(line, `missing "round" in a "${e.ev}" event`);
  const req = REQUIRED[e.ev];
  if (!req) return;
  for (const f of req) if (!(f in e)) throw new TraceError(line, `"${e.ev}" event lacks required field "${f}"`);
  if (e.ev === 'agents') {
    if (!Array.isArray(e.states) || !e.states.length || !e.states.every((s) => typeof s === 'string')) throw new TraceError(line, '"agents" event: "states" is not a list of state names');
    if (!Array.isArray(e.initial) || !e.initial.every((k) => Number.isInteger(k) && k >= 0 && k < e.states.length)) throw new TraceError(line, '"agents" event: "initial" is not a list of indices into "states"');
  }
  if (e.ev === 'interact' && (!isPair(e.before) || !isPair(e.after))) throw new TraceError(line, '"interact" event: "before" and "after" must each be two state names');
  if (e.ev === 'amoebots') {
    if (!Array.isArray(e.variables) || !e.variables.every((s) => typeof s === 'string')) throw new TraceError(line, '"amoebots" event: "variables" is not a list of names');
    if (!Array.isArray(e.states) || !e.states.every((s) => typeof s === 'string')) throw new TraceError(line, '"amoebots" event: "states" is not a list of state names');
    if (!Array.isArray(e.amoebots)) throw new TraceError(line, '"amoebots" event: "amoebots" is not a list');
    for (const rec of e.amoebots) { const bad = badRecord(rec); if (bad) throw new TraceError(line, `"amoebots" event: the record ${JSON.stringify(rec)} ${bad}`); }
  }
  if (e.ev === 'amoebot-act') {
    if (!Number.isInteger(e.node)) throw new TraceError(line, '"amoebot-act" event: field "node" is not an integer');
    if (!Array.isArray(e.changed)) throw new TraceError(line, '"amoebot-act" event: "changed" is not a list');
    for (const rec of e.changed) { const bad = badRecord(rec); if (bad) throw new TraceError(line, `"amoebot-act" event: the record ${JSON.stringify(rec)} ${bad}`); }
  }
  if (e.ev === 'act') {
    if (typeof e.regs !== 'object' || e.regs === null) throw new TraceError(line, '"act" event: "regs" is not an object');
    for (const r of REGS) if (!Array.isArray(e.regs[r])) throw new TraceError(line, `"act" event: regs lacks "${r}"`);
    if (!STATES.includes(e.state)) throw new TraceError(line, `"act" event: unknown state "${e.state}"`);
    if (!PHASES.includes(e.phase)) throw new TraceError(line, `"act" event: unknown phase "${e.phase}"`);
  }
}

/// Parses and indexes a whole trace. `input` is the file's content (bytes, or a string). Returns a
/// Trace; throws TraceError for an unusable header. A bad event line stops the index there: the
/// trace keeps the events before it and `error` names the line.
export function indexTrace(input, { onProgress } = {}) {
  const bytes = typeof input === 'string' ? encoder.encode(input) : input instanceof Uint8Array ? input : new Uint8Array(input);
  const size = bytes.length;
  if (size === 0) throw new TraceError(0, 'the file is empty: a trace starts with an lmx-trace header line');
  let nl = bytes.indexOf(10);
  const headerText = decoder.decode(bytes.subarray(0, nl < 0 ? size : nl));
  let header;
  try {
    header = JSON.parse(headerText);
  } catch (err) {
    throw new TraceError(1, `the header is not valid JSON (${err.message}); is this an lmx trace?`);
  }
  if (!header || header.type !== 'lmx-trace') throw new TraceError(1, `the header's "type" is ${JSON.stringify(header && header.type)}, expected "lmx-trace"`);
  if (header.schema !== SCHEMA) throw new TraceError(1, `unknown schema version ${JSON.stringify(header.schema)}: this viewer reads lmx-trace schema ${SCHEMA}`);
  const n = header.nodes;
  if (!Number.isInteger(n) || n < 1) throw new TraceError(1, 'the header lacks a positive integer "nodes"');
  if (!Number.isInteger(header.delta)) throw new TraceError(1, 'the header lacks "delta"');

  // Line starts. A final line without '\n' is kept (and flagged if it does not parse).
  let cap = 1 << 16;
  let off = new Float64Array(cap);
  let count = 0;
  let start = nl < 0 ? size : nl + 1;
  while (start < size) {
    if (count + 2 >= cap) { const o = new Float64Array(cap * 2); o.set(off); off = o; cap *= 2; }
    off[count++] = start;
    nl = bytes.indexOf(10, start);
    start = nl < 0 ? size : nl + 1;
  }
  off[count] = size;
  const endsWithNewline = bytes[size - 1] === 10;

  const kind = new Uint8Array(count + 1);
  const round = new Float64Array(count + 1);
  const node = new Int32Array(count + 1).fill(-1);
  const checkpoints = [];
  const state = new SystemState(n);
  state.initialPos = initialPositions(header);
  checkpoints.push(state.clone());
  const warnings = [];
  let error = null;
  let end = null;
  let events = 0;
  let pop = null;  // the agents line: {protocol, states, t, start}
  let amo = null;  // the amoebots line: {algorithm, variables, states, t, start, bbox}
  for (let i = 0; i < count; i++) {
    const line = i + 2;
    const a = off[i], z = off[i + 1];
    if (z - a <= 2 && (z - a === 0 || bytes[a] === 10 || bytes[a] === 13)) {
      if (i === count - 1) break;
      error = new TraceError(line, 'empty line inside the trace');
      break;
    }
    let e;
    try {
      e = scan(bytes, a, z, line);
    } catch (err) {
      const truncated = i === count - 1 && !endsWithNewline;
      error = truncated ? new TraceError(line, 'the line is truncated (the file ends in the middle of it)') : err;
      break;
    }
    const t = i + 1;
    if (e.t !== t && warnings.length < 5) warnings.push(`line ${line}: "t" is ${e.t}, expected ${t}`);
    if (e.node >= n || e.node < -1 || (e.to !== undefined && e.to !== null && (e.to < 0 || e.to >= n)) || e.responder >= n || (e.code === KIND.interact && (e.node < 0 || e.responder < 0))) {
      error = new TraceError(line, `the event names a node outside 0..${n - 1}`);
      break;
    }
    if (e.code === KIND.agents) {
      if (e.full.initial.length !== n) { error = new TraceError(line, `"agents" event: "initial" has ${e.full.initial.length} states for ${n} nodes`); break; }
      pop = { protocol: e.full.protocol, states: e.full.states, t, start: population(e.full) };
    } else if (e.code === KIND.amoebots) {
      const bad = amoebotsProblem(e.full, n);
      if (bad) { error = new TraceError(line, bad); break; }
      amo = { algorithm: e.full.algorithm, variables: e.full.variables, states: e.full.states, t, start: amoebotState(e.full, n), bbox: [Infinity, -Infinity, Infinity, -Infinity] };
      for (const rec of e.full.amoebots) grow(amo.bbox, rec);
    } else if (e.code >= KIND.amoebot_plan && e.code <= KIND.amoebot_sleep) {
      if (!amo) { error = new TraceError(line, `"${e.ev}" event before the "amoebots" line`); break; }
      if (e.code === KIND.amoebot_act) {
        const bad = e.full.changed.map((rec) => badRecord(rec, n)).find(Boolean);
        if (bad) { error = new TraceError(line, `"amoebot-act" event: a changed record ${bad}`); break; }
        for (const rec of e.full.changed) grow(amo.bbox, rec);
      }
    } else if (e.code === KIND.interact) {
      const bad = problem(pop, state.pp, e);
      if (bad) { error = new TraceError(line, bad); break; }
      if (warnings.length < 5 && (pop.states[state.pp.agent[e.node]] !== e.before[0] || pop.states[state.pp.agent[e.responder]] !== e.before[1])) {
        warnings.push(`line ${line}: the interaction's "before" ${e.before.join(',')} is not n${e.node}'s and n${e.responder}'s state`);
      }
    }
    kind[t] = e.code;
    round[t] = e.round;
    node[t] = e.node;
    if (e.code === 0 && warnings.length < 5) warnings.push(`line ${line}: unknown event "${e.ev}" ignored`);
    state.apply(e, t);
    events = t;
    if (e.ev === 'end') end = e.full;
    if (t % CHECKPOINT === 0) checkpoints.push(state.clone());
    if (onProgress && t % 65536 === 0) onProgress(t, count);
  }
  if (!error && !end) warnings.push('the trace has no "end" line: it was cut short, or is still being written');
  if (header.source === 'amoebot' && !amo && !error) warnings.push('an amoebot trace without an "amoebots" line: drawn as a graph');
  return new Trace({ header, bytes, off, kind, round, node, events, checkpoints, end, error, warnings, population: pop, amoebot: amo });
}

// Why an amoebots line cannot be used, or null: one record per node, each id once.
function amoebotsProblem(full, n) {
  if (full.amoebots.length !== n) return `"amoebots" event: ${full.amoebots.length} amoebots for ${n} nodes`;
  const seen = new Uint8Array(n);
  for (const rec of full.amoebots) {
    const bad = badRecord(rec, n);
    if (bad) return `"amoebots" event: a record ${bad}`;
    if (seen[rec[0]]++) return `"amoebots" event: amoebot ${rec[0]} is listed twice`;
  }
  return null;
}
/// Screen coordinates of lattice node (x, y): x + y/2, −y·√3/2 (axial coordinates, direction 1 up and to the right).
export const latticeXY = (x, y) => [x + y / 2, (-y * Math.sqrt(3)) / 2];
// Grows bbox [x0, x1, y0, y1] (screen coordinates) by a record's head and tail.
function grow(bbox, rec) {
  for (const [x, y] of [[rec[1], rec[2]], [rec[3], rec[4]]]) {
    const [sx, sy] = latticeXY(x, y);
    bbox[0] = Math.min(bbox[0], sx); bbox[1] = Math.max(bbox[1], sx);
    bbox[2] = Math.min(bbox[2], sy); bbox[3] = Math.max(bbox[3], sy);
  }
}

// Why an interact line cannot be applied, or null.
function problem(pop, pp, e) {
  if (!pop || !pp) return '"interact" event before the "agents" line';
  for (const s of [...e.before, ...e.after]) if (!pp.index.has(s)) return `"interact" event: unknown state ${JSON.stringify(s)} (the agents line names ${pop.states.join(', ')})`;
  if (e.node === e.responder) return `"interact" event: n${e.node} interacts with itself`;
  return null;
}

function initialPositions(header) {
  const n = header.nodes;
  const pos = new Float64Array(2 * n);
  if (Array.isArray(header.positions) && header.positions.length === n) {
    header.positions.forEach((p, i) => { pos[2 * i] = +p[0]; pos[2 * i + 1] = +p[1]; });
  } else {
    pos.fill(NaN);
  }
  return pos;
}

export class Trace {
  constructor(o) {
    Object.assign(this, o);
    this.n = o.header.nodes;
    this.cache = { t: -1, state: null };
    this.parsedCache = new Map();
  }
  /// The parsed event at position t (1..events). Throws TraceError if the line is not JSON.
  event(t) {
    try {
      return JSON.parse(decoder.decode(this.bytes.subarray(this.off[t - 1], this.off[t])));
    } catch (err) {
      throw new TraceError(t + 1, `malformed JSON (${err.message})`);
    }
  }
  /// As event(t), cached: node registers and messages are shown over many steps.
  parsed(t) {
    let e = this.parsedCache.get(t);
    if (!e) {
      if (this.parsedCache.size > 200000) this.parsedCache.clear();
      e = this.event(t);
      this.parsedCache.set(t, e);
    }
    return e;
  }
  /// The system after events 1..t, ready to draw. Consecutive calls with increasing t replay
  /// incrementally; any other t restores the checkpoint below it and replays at most CHECKPOINT lines.
  stateAt(t) {
    t = Math.max(0, Math.min(this.events, t));
    const c = Math.floor(t / CHECKPOINT);
    let s, from;
    if (this.cache.t >= 0 && this.cache.t <= t && Math.floor(this.cache.t / CHECKPOINT) === c) {
      s = this.cache.state; from = this.cache.t;
    } else {
      s = this.checkpoints[c].clone(); from = c * CHECKPOINT;
    }
    for (let i = from + 1; i <= t; i++) s.apply(scan(this.bytes, this.off[i - 1], this.off[i], i + 1), i);
    this.cache = { t, state: s };
    return new View(s, this);
  }
  /// Drops every event from position t on (a line found damaged by validate()).
  truncate(t) {
    this.events = Math.min(this.events, t - 1);
    this.checkpoints.length = Math.floor(this.events / CHECKPOINT) + 1;
    this.cache = { t: -1, state: null };
    this.end = null;
    if (this.population && this.population.t > this.events) this.population = null;
    if (this.amoebot && this.amoebot.t > this.events) this.amoebot = null;
  }
  /// Next (dir = 1) or previous (dir = -1) event after t whose kind is in `codes`, or -1.
  find(t, codes, dir = 1) {
    const set = new Set(codes);
    for (let i = t + dir; i >= 1 && i <= this.events; i += dir) if (set.has(this.kind[i])) return i;
    return -1;
  }
  /// Full check of every line (JSON syntax and required fields), in slices so that the page stays
  /// responsive. Calls done(error or null).
  validate(done, slice = 50000) {
    let t = 1;
    const run = () => {
      const stop = Math.min(this.events, t + slice - 1);
      for (; t <= stop; t++) {
        try {
          checkFields(this.event(t), t + 1);
        } catch (err) {
          done(err instanceof TraceError ? err : new TraceError(t + 1, String(err)));
          return;
        }
      }
      if (t > this.events) done(null);
      else setTimeout(run, 0);
    };
    run();
  }
}
