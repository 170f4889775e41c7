// The trace index without a browser: the byte scanner must agree with JSON.parse on every line,
// whatever the key order and spacing a writer uses, and every step must replay to the same state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { indexTrace, TraceError, CHECKPOINT } from '../src/viewer/trace.js';
import { waitsFor } from '../src/viewer/waits.js';
import { fmtSet, fmtW, fmtP, fmtVal } from '../src/viewer/notation.js';
import { here } from './browser.mjs';

const fixture = (name) => fs.readFileSync(path.join(here, 'fixtures', name), 'utf8');

// Reference: replay with JSON.parse, the simplest reading of docs/trace-format.md.
function reference(text) {
  const lines = text.split('\n').filter(Boolean);
  const n = JSON.parse(lines[0]).nodes;
  const nodes = new Array(n).fill(null), transit = new Map(), links = new Map();
  const states = [];
  const snap = () => ({ nodes: nodes.map((e) => (e ? e.t : 0)), transit: [...transit.keys()].sort((a, b) => a - b), links: [...links.keys()].sort() });
  states.push(snap());
  for (const l of lines.slice(1)) {
    const e = JSON.parse(l);
    if (e.ev === 'connect') { links.set(`${e.u}:${e.pu}`, 1); links.set(`${e.v}:${e.pv}`, 1); }
    if (e.ev === 'cut') { links.delete(`${e.u}:${e.pu}`); links.delete(`${e.v}:${e.pv}`); }
    if (e.ev === 'send' && e.to !== null) transit.set(e.id, e);
    if (e.ev === 'lost') transit.delete(e.id);
    if (e.ev === 'act') { if (e.msg !== null) transit.delete(e.msg); nodes[e.node] = e; }
    states.push(snap());
  }
  return states;
}
function observed(tr, t) {
  const v = tr.stateAt(t);
  return {
    nodes: v.nodes.map((e) => (e.t || 0)),
    transit: [...v.transit.keys()].sort((a, b) => a - b),
    links: [...v.links.keys()].map((k) => `${Math.floor(k / 256)}:${k % 256}`).sort(),
  };
}
// The same trace as another writer might print it: keys sorted, spaces after ':' and ','.
function reformat(text) {
  const sortKeys = (x) => (Array.isArray(x) ? x.map(sortKeys) : x && typeof x === 'object'
    ? Object.fromEntries(Object.keys(x).sort().map((k) => [k, sortKeys(x[k])])) : x);
  return text.split('\n').filter(Boolean).map((l) => JSON.stringify(sortKeys(JSON.parse(l))).replace(/([:,])(?=["\d[{n-])/g, '$1 ')).join('\n') + '\n';
}

for (const name of ['demo.jsonl', 'e1.jsonl', 'e1-reconnect.jsonl']) {
  test(`${name}: every step replays to the reference state, in either key order`, () => {
    const text = fixture(name);
    const ref = reference(text);
    for (const variant of [text, reformat(text)]) {
      const tr = indexTrace(variant);
      assert.equal(tr.error, null);
      assert.equal(tr.events, ref.length - 1);
      for (let t = 0; t <= tr.events; t++) assert.deepEqual(observed(tr, t), ref[t], `t = ${t}`);
      for (let t = tr.events; t >= 0; t -= 7) assert.deepEqual(observed(tr, t), ref[t], `back to t = ${t}`);
    }
  });
}

test('a long trace crosses checkpoints and jumps anywhere', async () => {
  const { execFileSync } = await import('node:child_process');
  const os = await import('node:os');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'lmx-trace-test-'));
  const file = path.join(dir, 'run.jsonl');
  execFileSync(process.execPath, [path.join(here, '..', 'tools', 'gen-trace.mjs'), 'big', file, String(3 * CHECKPOINT + 100), '30']);
  const text = fs.readFileSync(file, 'utf8');
  fs.rmSync(dir, { recursive: true, force: true });
  const ref = reference(text);
  const tr = indexTrace(new TextEncoder().encode(text));
  assert.ok(tr.checkpoints.length >= 4);
  for (const t of [0, 1, CHECKPOINT - 1, CHECKPOINT, CHECKPOINT + 1, 2 * CHECKPOINT + 17, tr.events, 5, 3 * CHECKPOINT]) {
    assert.deepEqual(observed(tr, t), ref[t], `t = ${t}`);
  }
  // the lock sets at each completion match the trace's own `done` lines
  for (let t = 1; t <= tr.events; t++) {
    const e = tr.event(t);
    if (e.ev === 'done' && e.op === 'lock') assert.deepEqual(tr.stateAt(t).lockSet(e.node), e.lock_set, `t = ${t}`);
  }
});

test('errors name the line', () => {
  const text = fixture('demo.jsonl');
  const lines = text.split('\n');
  assert.throws(() => indexTrace(''), /the file is empty/);
  assert.throws(() => indexTrace(lines[0].replace('"schema":1', '"schema":2')), (e) => e instanceof TraceError && e.line === 1 && /unknown schema version 2/.test(e.message));
  assert.throws(() => indexTrace('{"type":"other"}\n'), /line 1: the header's "type" is "other"/);
  const bad = indexTrace([...lines.slice(0, 6), '{"ev":"send","t":6,"round":0,"id":1}', ...lines.slice(7)].join('\n'));
  assert.match(bad.error.message, /^line 7: "send" event lacks required field "from"/);
  assert.equal(bad.events, 5);
  const trunc = indexTrace(text.slice(0, text.length - 30));
  assert.match(trunc.error.message, /line \d+: the line is truncated/);
  const noEnd = indexTrace(lines.slice(0, 20).join('\n') + '\n');
  assert.equal(noEnd.error, null);
  assert.match(noEnd.warnings.join(), /no "end" line/);
  // a syntax error the scanner cannot see is found by the full check
  const subtle = indexTrace([...lines.slice(0, 4), lines[4].replace('"D":[]', '"D":[,]'), ...lines.slice(5)].join('\n'));
  return new Promise((resolve) => subtle.validate((err) => { assert.match(err.message, /^line 5: malformed JSON/); resolve(); }));
});

test("registers print in the paper's notation", () => {
  assert.equal(fmtSet([]), '∅');
  assert.equal(fmtSet([0, 2]), '{0,2}');
  assert.equal(fmtW([[1, 1], [2, 0]]), '{(1,true),(2,false)}');
  assert.equal(fmtP([[2, 3]]), '{(2,3)}');
  assert.equal(fmtVal('BOT'), '⊥');
  assert.equal(fmtVal(0), '0');
});

test('waits-for: the E1 reconnection closes a blocked cycle only in the paper variant', () => {
  const tr = indexTrace(fixture('e1-reconnect.jsonl'));
  const at = tr.stateAt(tr.events);
  assert.deepEqual(waitsFor(at, 'paper').cycles, [[0, 1]]);
  // with repair R1, n0's CleanUp is enabled, so n1's wait on n0 is not blocked
  assert.deepEqual(waitsFor(at, 'repaired').cycles, []);
  // the demo never deadlocks
  const demo = indexTrace(fixture('demo.jsonl'));
  for (let t = 0; t <= demo.events; t++) assert.deepEqual(waitsFor(demo.stateAt(t), 'repaired').cycles, [], `t = ${t}`);
});
