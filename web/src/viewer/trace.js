// Reads an `lmx-trace/1` file (docs/trace-format.md) once and indexes it: per-event offsets and
// kinds in typed arrays, plus a full checkpoint of the observed system every CHECKPOINT events, so
// that any step is reached by restoring one checkpoint and replaying at most CHECKPOINT lines.
// Strict about required fields, tolerant of extra fields and of event kinds it does not know.

export const SCHEMA = 1;
export const CHECKPOINT = 4096;

export const KIND = { other: 0, connect: 1, cut: 2, move: 3, call: 4, send: 5, lost: 6, act: 7, done_lock: 8, done_unlock: 9, violation: 10, end: 11 };
const EV_CODE = { connect: 1, cut: 2, move: 3, call: 4, send: 5, lost: 6, act: 7, violation: 10, end: 11 };

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

/// The observed system after some prefix of the trace.
export class SystemState {
  constructor(n) {
    this.nodes = new Array(n).fill(IDLE_NODE);  // last act of each node (the parsed event)
    this.links = new Map();                     // u * 256 + port -> {node, port}
    this.edges = new Map();                     // "u:pu" of the smaller end -> {u, pu, v, pv, t}
    this.transit = new Map();                   // message id -> send event
    this.pos = null;                            // Float64Array(2n) once a move happened
    this.locks = 0;                             // completed Lock calls so far
    this.detector = new Map();                  // node -> ports cut since it last acted (D)
  }
  clone() {
    const c = new SystemState(0);
    c.nodes = this.nodes.slice();
    c.links = new Map(this.links);
    c.edges = new Map(this.edges);
    c.transit = new Map(this.transit);
    c.pos = this.pos ? this.pos.slice() : null;
    c.locks = this.locks;
    c.detector = new Map(this.detector);
    c.initialPos = this.initialPos;
    return c;
  }
  apply(e) {
    switch (e.ev) {
      case 'connect':
        this.links.set(e.u * 256 + e.pu, { node: e.v, port: e.pv });
        this.links.set(e.v * 256 + e.pv, { node: e.u, port: e.pu });
        this.edges.set(edgeKey(e), { u: e.u, pu: e.pu, v: e.v, pv: e.pv, t: e.t });
        break;
      case 'cut':
        this.links.delete(e.u * 256 + e.pu);
        this.links.delete(e.v * 256 + e.pv);
        this.edges.delete(edgeKey(e));
        this.detector.set(e.u, [...(this.detector.get(e.u) || []), e.pu]);
        if (e.v !== e.u || e.pv !== e.pu) this.detector.set(e.v, [...(this.detector.get(e.v) || []), e.pv]);
        break;
      case 'move':
        if (!this.pos) this.pos = this.initialPos.slice();
        this.pos[2 * e.node] = e.x;
        this.pos[2 * e.node + 1] = e.y;
        break;
      case 'send':
        if (e.to !== null) this.transit.set(e.id, e);
        break;
      case 'lost':
        this.transit.delete(e.id);
        break;
      case 'act':
        if (e.msg !== null && e.msg !== undefined) this.transit.delete(e.msg);
        this.nodes[e.node] = e;
        this.detector.delete(e.node);
        break;
      case 'done':
        if (e.op === 'lock') this.locks += 1;
        break;
      default:
        break;
    }
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

function checkFields(e, line) {
  if (typeof e !== 'object' || e === null || Array.isArray(e)) throw new TraceError(line, 'not a JSON object');
  if (typeof e.ev !== 'string') throw new TraceError(line, 'missing "ev"');
  if (!Number.isInteger(e.t)) throw new TraceError(line, `missing or non-integer "t" in a "${e.ev}" event`);
  if (typeof e.round !== 'number') throw new TraceError(line, `missing "round" in a "${e.ev}" event`);
  const req = REQUIRED[e.ev];
  if (!req) return;
  for (const f of req) if (!(f in e)) throw new TraceError(line, `"${e.ev}" event lacks required field "${f}"`);
  if (e.ev === 'act') {
    if (typeof e.regs !== 'object' || e.regs === null) throw new TraceError(line, '"act" event: "regs" is not an object');
    for (const r of REGS) if (!Array.isArray(e.regs[r])) throw new TraceError(line, `"act" event: regs lacks "${r}"`);
    if (!STATES.includes(e.state)) throw new TraceError(line, `"act" event: unknown state "${e.state}"`);
    if (!PHASES.includes(e.phase)) throw new TraceError(line, `"act" event: unknown phase "${e.phase}"`);
  }
}

/// Parses and indexes a whole trace. `text` is the file's content. Returns a Trace; throws
/// TraceError for an unusable header. A bad event line stops the index there: the trace keeps the
/// events before it and `error` names the line.
export function indexTrace(text, { onProgress } = {}) {
  if (text.length === 0) throw new TraceError(0, 'the file is empty: a trace starts with an lmx-trace header line');
  let nl = text.indexOf('\n');
  const headerText = nl < 0 ? text : text.slice(0, nl);
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
  let start = nl < 0 ? text.length : nl + 1;
  while (start < text.length) {
    if (count + 2 >= cap) { const o = new Float64Array(cap * 2); o.set(off); off = o; cap *= 2; }
    off[count++] = start;
    nl = text.indexOf('\n', start);
    start = nl < 0 ? text.length : nl + 1;
  }
  off[count] = text.length;
  const endsWithNewline = text.endsWith('\n');

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
  let nodeOutOfRange = false;
  for (let i = 0; i < count; i++) {
    const line = i + 2;
    const raw = text.slice(off[i], off[i + 1]);
    if (raw.length < 4 && raw.trim() === '') {
      if (i === count - 1) break;
      error = new TraceError(line, 'empty line inside the trace');
      break;
    }
    let e;
    try {
      e = JSON.parse(raw);
    } catch (err) {
      const truncated = i === count - 1 && !endsWithNewline;
      error = new TraceError(line, truncated ? 'the line is truncated (the file ends in the middle of it)' : `malformed JSON (${err.message})`);
      break;
    }
    try {
      checkFields(e, line);
    } catch (err) {
      error = err;
      break;
    }
    const t = i + 1;
    if (e.t !== t && warnings.length < 5) warnings.push(`line ${line}: "t" is ${e.t}, expected ${t}`);
    let code = EV_CODE[e.ev] || 0;
    if (e.ev === 'done') code = e.op === 'lock' ? KIND.done_lock : KIND.done_unlock;
    kind[t] = code;
    round[t] = e.round;
    const who = e.node ?? e.from ?? e.u ?? (e.nodes && e.nodes[0]);
    node[t] = Number.isInteger(who) ? who : -1;
    if (Number.isInteger(e.node) && (e.node < 0 || e.node >= n)) nodeOutOfRange = true;
    if (code === 0 && warnings.length < 5) warnings.push(`line ${line}: unknown event "${e.ev}" ignored`);
    state.apply(e);
    events = t;
    if (e.ev === 'end') { end = e; }
    if (t % CHECKPOINT === 0) checkpoints.push(state.clone());
    if (onProgress && t % 65536 === 0) onProgress(t, count);
  }
  if (nodeOutOfRange) error = error || new TraceError(0, `an event names a node outside 0..${n - 1}`);
  if (!error && !end) warnings.push('the trace has no "end" line: it was cut short, or is still being written');
  return new Trace({ header, text, off, kind, round, node, events, checkpoints, end, error, warnings, final: state });
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
  }
  /// The parsed event at position t (1..events).
  event(t) { return JSON.parse(this.text.slice(this.off[t - 1], this.off[t])); }
  /// The system after events 1..t. Consecutive calls with increasing t replay incrementally.
  stateAt(t) {
    t = Math.max(0, Math.min(this.events, t));
    const c = Math.floor(t / CHECKPOINT);
    let s, from;
    if (this.cache.t >= 0 && this.cache.t <= t && Math.floor(this.cache.t / CHECKPOINT) === c) {
      s = this.cache.state; from = this.cache.t;
    } else {
      s = this.checkpoints[c].clone(); from = c * CHECKPOINT;
    }
    for (let i = from + 1; i <= t; i++) s.apply(this.event(i));
    this.cache = { t, state: s };
    return s;
  }
  /// Next (dir = 1) or previous (dir = -1) event after t whose kind is in `codes`, or -1.
  find(t, codes, dir = 1) {
    const set = new Set(codes);
    for (let i = t + dir; i >= 1 && i <= this.events; i += dir) if (set.has(this.kind[i])) return i;
    return -1;
  }
}
