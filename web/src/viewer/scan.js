// One event line read straight from its bytes (scan): the fields the index needs, the line's
// shape and its required fields checked, and the rare lines (violation, end, agents, amoebots,
// amoebot-act) parsed in full.
import { KIND, EV_CODE, REQUIRED, STATES, PHASES, TraceError, isPair, checkFields } from './events.js';

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
