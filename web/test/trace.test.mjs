// The trace index without a browser: the byte scanner must agree with JSON.parse on every line,
// whatever the key order and spacing a writer uses, and every step must replay to the same state.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { indexTrace, TraceError, CHECKPOINT } from '../src/viewer/trace.js';
import { waitsFor } from '../src/viewer/waits.js';
import { fmtSet, fmtW, fmtP, fmtVal, describe } from '../src/viewer/notation.js';
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

// Population protocols: each agent's state after every step, replayed with JSON.parse.
function referenceAgents(text) {
  const lines = text.split('\n').filter(Boolean).slice(1).map((l) => JSON.parse(l));
  const agents = lines.find((e) => e.ev === 'agents');
  let cur = agents.initial.slice();
  const out = [cur.slice()];
  for (const e of lines) {
    if (e.ev === 'agents') cur = e.initial.slice();
    if (e.ev === 'interact') {
      cur[e.initiator] = agents.states.indexOf(e.after[0]);
      cur[e.responder] = agents.states.indexOf(e.after[1]);
    }
    out.push(cur.slice());
  }
  return { states: agents.states, out };
}

test('pp-majority.jsonl: every step replays to the agents\' reference states and counts, in either key order', () => {
  const text = fixture('pp-majority.jsonl');
  const ref = referenceAgents(text);
  for (const variant of [text, reformat(text)]) {
    const tr = indexTrace(variant);
    assert.equal(tr.error, null);
    assert.deepEqual(tr.warnings, []);
    assert.equal(tr.population.protocol, 'approximate-majority');
    assert.deepEqual(tr.population.states, ref.states);
    const check = (t) => {
      const pp = tr.stateAt(t).pp;
      assert.deepEqual(Array.from(pp.agent), ref.out[t], `t = ${t}`);
      const counts = ref.states.map((_, k) => ref.out[t].filter((x) => x === k).length);
      assert.deepEqual(Array.from(pp.counts), counts, `counts at t = ${t}`);
    };
    for (let t = 0; t <= tr.events; t++) check(t);
    for (let t = tr.events; t >= 0; t -= 13) check(t);
  }
  // the lock-state index is unchanged by the population lines
  const tr = indexTrace(text);
  assert.deepEqual(observed(tr, tr.events), reference(text)[tr.events]);
});

test('pp: a population state survives checkpoints, and bad population lines name the line', () => {
  const lines = fixture('pp-majority.jsonl').split('\n').filter(Boolean);
  const at = lines.findIndex((l) => l.includes('"ev":"agents"'));
  // repeat the interactions until the trace spans several checkpoints
  const inter = lines.filter((l) => l.includes('"ev":"interact"'));
  const body = [];
  while (body.length < 3 * CHECKPOINT) body.push(...inter);
  const long = [...lines.slice(0, at + 1), ...body].map((l, i) => (i ? l.replace(/"t":\d+/, `"t":${i}`) : l)).join('\n') + '\n';
  const ref = referenceAgents(long);
  const tr = indexTrace(long);
  assert.equal(tr.error, null);
  assert.ok(tr.checkpoints.length >= 4);
  for (const t of [CHECKPOINT - 1, CHECKPOINT, 2 * CHECKPOINT + 5, tr.events, 3, CHECKPOINT + 1]) assert.deepEqual(Array.from(tr.stateAt(t).pp.agent), ref.out[t], `t = ${t}`);

  const swap = (i, l) => [...lines.slice(0, i), l, ...lines.slice(i + 1)].join('\n') + '\n';
  const first = lines.findIndex((l) => l.includes('"ev":"interact"'));
  let bad = indexTrace(swap(first, lines[first].replace(/"after":\["(\w+)"/, '"after":["Q"')));
  assert.match(bad.error.message, new RegExp(`^line ${first + 1}: "interact" event: unknown state "Q"`));
  bad = indexTrace(swap(at, lines[at].replace(/"initial":\[\d+,/, '"initial":[')));
  assert.match(bad.error.message, new RegExp(`^line ${at + 1}: "agents" event: "initial" has 9 states for 10 nodes`));
  bad = indexTrace(swap(at, lines[at].replace(/"initial":\[\d+,/, '"initial":[7,')));
  assert.match(bad.error.message, new RegExp(`^line ${at + 1}: "agents" event: "initial" is not a list of indices`));
  bad = indexTrace(swap(at, lines[at].replace('"ev":"agents"', '"ev":"agents-later"')));
  assert.match(bad.error.message, new RegExp(`^line ${first + 1}: "interact" event before the "agents" line`));
  bad = indexTrace(swap(first, lines[first].replace(/"before":\[[^\]]*\]/, '"before":"x"')));
  assert.match(bad.error.message, /"before" and "after" must each be two state names/);
  // a "before" that is not the agents' state is a warning, not an error
  const odd = indexTrace(swap(first, lines[first].replace(/"before":\["\w+"/, '"before":["b"')));
  assert.equal(odd.error, null);
  assert.match(odd.warnings.join(), /the interaction's "before" b,\w+ is not n\d+'s and n\d+'s state/);
  // traces without an agents line have no population
  assert.equal(indexTrace(fixture('demo.jsonl')).population, null);
  assert.equal(indexTrace(fixture('demo.jsonl')).stateAt(50).pp, null);
});

test('interactions and subset Lock calls read well in the event list', () => {
  assert.equal(describe({ ev: 'interact', initiator: 3, responder: 7, before: ['I', 'S'], after: ['I', 'I'] }), 'n3 ⇄ n7: I,S → I,I');
  assert.equal(describe({ ev: 'interact', initiator: 3, responder: 7, before: ['S', 'S'], after: ['S', 'S'] }), 'n3 ⇄ n7: S,S → S,S (no change)');
  assert.equal(describe({ ev: 'call', node: 0, op: 'lock', status: 'ok', requested: [3] }), 'n0 calls Lock on ports {3}');
  assert.equal(describe({ ev: 'call', node: 0, op: 'lock', status: 'ok' }), 'n0 calls Lock');
  assert.equal(describe({ ev: 'agents', protocol: 'epidemic', states: ['I', 'S'], initial: [1, 0, 1] }), 'agents: epidemic, 3 agents in states I, S');
});

// Amoebots: each amoebot's record, who is acting and who is asleep after every step, replayed with JSON.parse.
function referenceAmoebots(text) {
  const lines = text.split('\n').filter(Boolean).slice(1).map((l) => JSON.parse(l));
  const start = lines.find((e) => e.ev === 'amoebots');
  const recs = [];
  for (const r of start.amoebots) recs[r[0]] = r.slice(1, 7);
  const acting = new Map(), asleep = new Set();
  let moves = 0;
  const snap = () => ({ recs: recs.map((r) => JSON.stringify(r)), acting: [...acting].sort((a, b) => a[0] - b[0]), asleep: [...asleep].sort((a, b) => a - b), moves });
  const out = [snap()];
  for (const e of lines) {
    if (e.ev === 'amoebot-plan') acting.set(e.node, e.rule);
    if (e.ev === 'amoebot-act') { for (const r of e.changed) recs[r[0]] = r.slice(1, 7); acting.delete(e.node); moves += e.moves; }
    if (e.ev === 'amoebot-abort') acting.delete(e.node);
    if (e.ev === 'amoebot-sleep') asleep.add(e.node);
    if (e.ev === 'call' && e.op === 'lock') asleep.delete(e.node);
    out.push(snap());
  }
  return { start, out };
}
function observedAmoebots(tr, t) {
  const ab = tr.stateAt(t).ab;
  const recs = [];
  for (let u = 0; u < tr.n; u++) {
    const vars = Array.from(ab.vars.subarray(ab.V * u, ab.V * (u + 1)));
    recs.push(JSON.stringify([...ab.pos.subarray(4 * u, 4 * u + 4)].concat([ab.compass[u], vars])));
  }
  const asleep = [];
  for (let u = 0; u < tr.n; u++) if (ab.asleep[u]) asleep.push(u);
  return { recs, acting: [...ab.acting].map(([u, a]) => [u, a.rule]).sort((a, b) => a[0] - b[0]), asleep, moves: ab.moves };
}

test('amoebot-hexagon.jsonl: every step replays to the amoebots\' reference records, acting and asleep, in either key order', () => {
  const text = fixture('amoebot-hexagon.jsonl');
  const ref = referenceAmoebots(text);
  for (const variant of [text, reformat(text)]) {
    const tr = indexTrace(variant);
    assert.equal(tr.error, null);
    assert.deepEqual(tr.warnings, []);
    assert.equal(tr.amoebot.algorithm, 'hexagon');
    assert.deepEqual(tr.amoebot.states, ['seed', 'idle', 'follower', 'root', 'retired']);
    assert.deepEqual(tr.amoebot.variables, ['state', 'parent', 'dir']);
    assert.ok(tr.checkpoints.length >= 3, 'the fixture spans checkpoints');
    for (let t = 0; t <= tr.events; t += 1) assert.deepEqual(observedAmoebots(tr, t), ref.out[t], `t = ${t}`);
    for (let t = tr.events; t >= 0; t -= 97) assert.deepEqual(observedAmoebots(tr, t), ref.out[t], `back to t = ${t}`);
  }
  // the lattice's bounding box holds every node an amoebot ever occupies
  const tr = indexTrace(text);
  const [x0, x1, y0, y1] = tr.amoebot.bbox;
  for (const e of text.split('\n').filter((l) => l.includes('"ev":"amoebot')).map((l) => JSON.parse(l))) {
    for (const r of e.amoebots || e.changed || []) {
      for (const [x, y] of [[r[1], r[2]], [r[3], r[4]]]) {
        const sx = x + y / 2, sy = (-y * Math.sqrt(3)) / 2;
        assert.ok(sx >= x0 - 1e-9 && sx <= x1 + 1e-9 && sy >= y0 - 1e-9 && sy <= y1 + 1e-9, `(${x}, ${y}) in the box`);
      }
    }
  }
  // the lock-state index is unchanged by the amoebot lines
  assert.deepEqual(observed(tr, tr.events), reference(text)[tr.events]);
  // other traces have no amoebots
  assert.equal(indexTrace(fixture('demo.jsonl')).amoebot, null);
  assert.equal(indexTrace(fixture('demo.jsonl')).stateAt(50).ab, null);
});

test('amoebot lines: bad ones name the line; an amoebot trace without its amoebots line is a warning', () => {
  const lines = fixture('amoebot-hexagon.jsonl').split('\n').filter(Boolean);
  const swap = (i, l) => [...lines.slice(0, i), l, ...lines.slice(i + 1)].join('\n') + '\n';
  const at = lines.findIndex((l) => l.includes('"ev":"amoebots"'));
  const act = lines.findIndex((l) => l.includes('"ev":"amoebot-act"'));
  const plan = lines.findIndex((l) => l.includes('"ev":"amoebot-plan"'));
  const first = lines.findIndex((l) => /"ev":"amoebot-(plan|act|abort|sleep)"/.test(l));
  let bad = indexTrace(swap(at, lines[at].replace('"ev":"amoebots"', '"ev":"amoebots-later"')));
  assert.match(bad.error.message, new RegExp(`^line ${first + 1}: "amoebot-\\w+" event before the "amoebots" line`));
  assert.match(bad.warnings.join(), /unknown event "amoebots-later" ignored/);
  bad = indexTrace(swap(at, lines[at].replace(/"amoebots":\[\[0,[^\]]*\]\],/, '"amoebots":[')));
  assert.match(bad.error.message, new RegExp(`^line ${at + 1}: "amoebots" event: 5 amoebots for 6 nodes`));
  bad = indexTrace(swap(at, lines[at].replace(/"amoebots":\[\[0,0,/, '"amoebots":[[0,0.5,')));
  assert.match(bad.error.message, new RegExp(`^line ${at + 1}: "amoebots" event: the record \\[0,0.5,.* has a coordinate or compass that is not an integer`));
  bad = indexTrace(swap(act, lines[act].replace(/"changed":\[\[\d+,/, '"changed":[[17,')));
  assert.match(bad.error.message, new RegExp(`^line ${act + 1}: "amoebot-act" event: a changed record names an amoebot outside 0..5`));
  bad = indexTrace(swap(act, lines[act].replace(/,"changed":\[.*\]\}$/, '}')));
  assert.match(bad.error.message, new RegExp(`^line ${act + 1}: "amoebot-act" event lacks required field "changed"`));
  bad = indexTrace(swap(plan, lines[plan].replace(/"node":\d+/, '"node":9')));
  assert.match(bad.error.message, new RegExp(`^line ${plan + 1}: the event names a node outside 0..5`));
  const without = indexTrace(lines.filter((l) => !l.includes('"ev":"amoebot')).map((l, i) => (i ? l.replace(/"t":\d+/, `"t":${i}`) : l)).join('\n') + '\n');
  assert.equal(without.error, null);
  assert.equal(without.amoebot, null);
  assert.match(without.warnings.join(), /an amoebot trace without an "amoebots" line: drawn as a graph/);
  // a damaged line after the amoebots line keeps them; before it, drops them
  const tr = indexTrace(fixture('amoebot-hexagon.jsonl'));
  tr.truncate(at + 3);
  assert.ok(tr.amoebot);
  tr.truncate(at);
  assert.equal(tr.amoebot, null);
});

test('amoebot lines read well in the event list', () => {
  const amo = { states: ['seed', 'idle', 'follower', 'root', 'retired'] };
  assert.equal(describe({ ev: 'amoebot-act', node: 12, rule: 'alpha4', moves: 1, changed: [[12, 0, -1, 1, -1, 4, [3, -1, 5]]] }, amo), 'a12 alpha4 (expand)');
  assert.equal(describe({ ev: 'amoebot-act', node: 12, rule: 'alpha6', moves: 1, changed: [[12, 0, -1, 0, -1, 4, [3, -1, 5]]] }, amo), 'a12 alpha6 (contract)');
  assert.equal(describe({ ev: 'amoebot-act', node: 5, rule: 'alpha5', moves: 2, changed: [[5, 0, -1, 0, -1, 4, [3, -1, 4]], [7, 1, -1, 2, -2, 4, [2, 5, -1]]] }, amo), 'a5 alpha5 (pull a7)');
  assert.equal(describe({ ev: 'amoebot-act', node: 22, rule: 'alpha1', moves: 0, changed: [[22, 0, -1, 0, -1, 4, [3, -1, 4]]] }, amo), 'a22 alpha1 (→ root)');
  assert.equal(describe({ ev: 'amoebot-act', node: 22, rule: 'r', moves: 0, changed: [[22, 0, 0, 0, 0, 0, [7]], [3, 1, 0, 1, 0, 0, [1]]] }), 'a22 r (→ 7; writes a3)');
  assert.equal(describe({ ev: 'amoebot-plan', node: 3, rule: 'alpha4' }), 'a3 plans alpha4');
  assert.equal(describe({ ev: 'amoebot-abort', node: 7, rule: 'alpha5' }), 'a7 gives up alpha5');
  assert.equal(describe({ ev: 'amoebot-sleep', node: 3 }), 'a3 sleeps');
  assert.equal(describe({ ev: 'amoebots', algorithm: 'hexagon', variables: ['state'], states: ['seed', 'idle'], amoebots: [[0, 0, 0, 0, 0, 0, [0]], [1, 1, 0, 1, 0, 0, [1]]] }), 'amoebots: hexagon, 2 amoebots in states seed, idle');
});
