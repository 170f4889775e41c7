// Reads an `lmx-trace/1` file (docs/trace-format.md) once and indexes it: per-event offsets and
// kinds in typed arrays, plus a full checkpoint of the observed system every CHECKPOINT events, so
// that any step is reached by restoring one checkpoint and replaying at most CHECKPOINT lines.
// Strict about required fields, tolerant of extra fields and of event kinds it does not know.
// Population-protocol traces (`agents` and `interact` lines) also get each agent's protocol state
// and the count of each state, kept in the same checkpoints; amoebot traces (`amoebots` and
// `amoebot-*` lines) each amoebot's lattice position and public memory, who is acting and asleep.
// The parts: events.js (event kinds, required fields, TraceError), scan.js (one line's fields
// read from its bytes), system.js (the observed system at a step, and the View the page draws).
import { KIND, TraceError, badRecord, checkFields } from './events.js';
import { scan } from './scan.js';
import { SystemState, View, population, amoebotState } from './system.js';

export { KIND, MESSAGE_KINDS, STATES, PHASES, TraceError } from './events.js';
export { scan } from './scan.js';
export { IDLE_NODE, SystemState, View, amoebotState } from './system.js';

export const SCHEMA = 1;
export const CHECKPOINT = 2048;

const encoder = new TextEncoder();
const decoder = new TextDecoder();

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
