// The event vocabulary of an `lmx-trace/1` file (docs/trace-format.md): each event kind's code,
// the fields each event must have, the states, phases and message kinds an `act` may name, the
// error that names a bad line, and the full check of one parsed event line (checkFields).

export const KIND = {
  other: 0, connect: 1, cut: 2, move: 3, call: 4, send: 5, lost: 6, act: 7, done_lock: 8, done_unlock: 9, violation: 10, end: 11, finding: 12, idle: 13, interact: 14, agents: 15,
  amoebots: 16, amoebot_plan: 17, amoebot_act: 18, amoebot_abort: 19, amoebot_sleep: 20,
};
export const EV_CODE = {
  connect: 1, cut: 2, move: 3, call: 4, send: 5, lost: 6, act: 7, violation: 10, end: 11, finding: 12, idle: 13, interact: 14, agents: 15,
  amoebots: 16, 'amoebot-plan': 17, 'amoebot-act': 18, 'amoebot-abort': 19, 'amoebot-sleep': 20,
};

export const REQUIRED = {
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

// Why an amoebot record cannot be read, or null (n: the number of nodes).
export function badRecord(rec, n) {
  if (!Array.isArray(rec) || rec.length < 7) return 'is not [id, head_x, head_y, tail_x, tail_y, compass, [variables]]';
  if (!Number.isInteger(rec[0]) || rec[0] < 0 || (n !== undefined && rec[0] >= n)) return `names an amoebot outside 0..${n === undefined ? 'n' : n - 1}`;
  for (let k = 1; k <= 5; k++) if (!Number.isInteger(rec[k])) return 'has a coordinate or compass that is not an integer';
  if (!Array.isArray(rec[6])) return 'has no list of variables';
  return null;
}
export const isPair = (a) => Array.isArray(a) && a.length === 2 && typeof a[0] === 'string' && typeof a[1] === 'string';

export function checkFields(e, line) {
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
