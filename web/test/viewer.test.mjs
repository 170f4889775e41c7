// End-to-end tests of the trace viewer in Debian's Chromium (headless, through playwright-core).
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, close, here, results, viewerUrl, lmxBin } from './browser.mjs';

const fixture = (name) => path.join(here, 'fixtures', name);
let browser;
let scratch;
before(async () => {
  browser = await launch();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lmx-web-test-'));
});
after(async () => {
  await close(browser);
  fs.rmSync(scratch, { recursive: true, force: true });
});

async function open(file) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => { if (!/^(file|data|blob):/.test(r.url()) && !r.url().startsWith('http://127.0.0.1')) errors.push(`network request to ${r.url()}`); });
  await page.goto(viewerUrl());
  await page.waitForSelector('body[data-ready="empty"]');
  if (file) {
    await page.setInputFiles('#file', file);
    await page.waitForSelector('body[data-ready="1"], body[data-ready="partial"], body[data-ready="error"]');
  }
  page.errors = errors;
  return page;
}
const text = (page, sel) => page.locator(sel).innerText();
const reg = (page, name) => page.locator(`#registers tr[data-reg="${name}"] td`).innerText();

test('demo trace: stepping to the first Lock completion shows the lock set', async () => {
  const page = await open(fixture('demo.jsonl'));
  assert.match(await text(page, '#title'), /demo\.jsonl — 105 events/);
  assert.ok(await page.locator('#pop-box').isHidden(), 'no population legend without an agents line');
  await page.click('#next-lock');
  assert.match(await text(page, '#step-label'), /^t = 55 \/ 105, round 13/);
  assert.match(await text(page, '#event-label'), /n0 Lock done: L = \{0,1\}, lock set \{n0,n1\}/);
  assert.equal(await page.locator('#node-name').textContent(), 'n0');
  assert.equal(await reg(page, 'state'), 'LOCKED');
  assert.equal(await reg(page, 'L'), '{0,1}');
  assert.equal(await reg(page, 'lock'), '0');
  assert.equal(await page.locator('#lockset-value').getAttribute('data-nodes'), '0,1');
  assert.match(await text(page, '#lockset-value'), /lock set of n0: \{n0,n1\}$/);
  await page.screenshot({ path: path.join(results, 'viewer-demo-lock.png') });

  // one step back: the act that completed the Lock, one more: n0 still in WIN
  await page.keyboard.press('ArrowLeft');
  assert.match(await text(page, '#step-label'), /^t = 54 /);
  assert.equal(await reg(page, 'state'), 'LOCKED');
  await page.keyboard.press('ArrowLeft');
  assert.equal(await reg(page, 'state'), 'WIN');
  assert.equal(await reg(page, 'R'), '{0,1}');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.match(await text(page, '#step-label'), /^t = 55 /);

  // n1 is held by n0: its lock register names the port to n0 and it waits for release-lock
  await page.evaluate(() => window.lmxViewer.select(1));
  assert.equal(await reg(page, 'lock'), '1');
  assert.equal(await reg(page, 'phase'), 'COMPETE');

  // the second completion is n2's
  await page.click('#next-lock');
  assert.match(await text(page, '#event-label'), /n2 Lock done: L = \{0,1\}, lock set \{n1,n2\}/);
  assert.equal(await page.locator('#lockset-value').getAttribute('data-nodes'), '1,2');
  // no third
  await page.click('#next-lock');
  assert.match(await text(page, '#banner'), /no further Lock completion/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a flash stays 1.5 s after the last one, whatever the earlier ones set', async () => {
  const page = await open(fixture('demo.jsonl'));
  await page.clock.install();
  await page.click('#next-lock');
  await page.click('#next-lock');
  await page.click('#next-lock');
  assert.match(await text(page, '#banner'), /no further Lock completion/);
  await page.clock.runFor(1000);
  await page.click('#next-lock');  // flashes again, 1 s after the first
  await page.clock.runFor(600);    // the first flash's 1.5 s are over, the second's are not
  assert.match(await text(page, '#banner'), /no further Lock completion/);
  await page.clock.runFor(1000);
  assert.doesNotMatch(await page.locator('#banner').textContent(), /no further Lock completion/);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a real lmx run trace opens without warnings and shows a completed lock set', async () => {
  const trace = path.join(scratch, 'run.jsonl');
  const run = spawn(lmxBin(), ['run', '--set', 'nodes=30', '--set', 'rounds=80', '--set', 'topology.radius=0.25', '--trace', trace]);
  const code = await new Promise((resolve) => run.on('exit', resolve));
  assert.equal(code, 0, 'lmx run exits 0');
  const page = await open(trace);
  assert.equal(await page.evaluate(() => document.body.dataset.ready), '1');
  assert.ok(await page.locator('#error').isHidden(), `no warning or error banner: ${await page.locator('#error').textContent()}`);
  // a plain run has no population: no state legend, no interaction button, the lock-state legend
  assert.ok(await page.locator('#pop-box').isHidden());
  assert.ok(await page.locator('#next-interact').isHidden());
  assert.match(await text(page, '#legend'), /node fill: initiator state/);
  await page.click('#next-lock');
  const label = await text(page, '#event-label');
  const m = label.match(/^n(\d+) Lock done: L = \{[\d,]+\}, lock set \{([n\d,]+)\}/);
  assert.ok(m, `a Lock completion is shown: ${label}`);
  // the completing node holds its own lock (lock = 0), so it belongs to its lock set
  assert.equal(await reg(page, 'state'), 'LOCKED');
  assert.equal(await reg(page, 'lock'), '0');
  assert.ok(m[2].split(',').includes(`n${m[1]}`));
  assert.ok((await page.locator('#lockset-value').getAttribute('data-nodes')).split(',').includes(m[1]));
  assert.deepEqual(page.errors, []);
  await page.close();
});

// The population legend: state -> count, in the order of the protocol's states.
const legend = (page) => page.locator('#pop-legend .pp-row').evaluateAll((rows) => rows.map((r) => [r.dataset.state, Number(r.dataset.count), r.dataset.colour]));
// The colour drawn at a point inside node u's disc (below its label), as [r, g, b].
const nodePixel = (page, u) => page.evaluate((u) => {
  const c = document.getElementById('canvas');
  const { x, y, r } = window.lmxViewer.nodeScreen(u);
  const dpr = window.devicePixelRatio || 1;
  const d = c.getContext('2d').getImageData(Math.round(x * dpr), Math.round((y + r * 0.7) * dpr), 1, 1).data;
  return [d[0], d[1], d[2]];
}, u);
const rgb = (hex) => [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));
const near = (a, b) => a.every((x, i) => Math.abs(x - b[i]) <= 8);

test('population trace: agents coloured by protocol state, a legend with counts, interactions highlighted', async () => {
  const page = await open(fixture('pp-majority.jsonl'));
  assert.equal(await page.evaluate(() => document.body.dataset.ready), '1');
  assert.ok(await page.locator('#error').isHidden(), await page.locator('#error').textContent());
  assert.ok(await page.locator('#pop-box').isVisible());
  assert.match(await text(page, '#pop-box h2'), /approximate-majority/);
  assert.match(await text(page, '#info'), /protocol\s+approximate-majority \(3 states\)/);
  assert.match(await text(page, '#legend'), /node fill: protocol state/);

  // before any interaction: the initial states (6 x, 4 y, no b), as the agents line says
  let rows = await legend(page);
  assert.deepEqual(rows.map(([s, k]) => [s, k]), [['x', 6], ['y', 4], ['b', 0]]);
  assert.equal(new Set(rows.map((r) => r[2])).size, 3, 'one colour per state');
  const colour = Object.fromEntries(rows.map(([s, , c]) => [s, c]));
  const initial = [0, 0, 1, 0, 0, 0, 1, 1, 0, 1];  // the fixture's agents line
  for (let u = 0; u < 10; u++) {
    const want = rgb(colour[['x', 'y', 'b'][initial[u]]]);
    const got = await nodePixel(page, u);
    assert.ok(near(got, want), `n${u} is drawn ${got}, its state's colour is ${want}`);
  }
  assert.ok(!near(await nodePixel(page, 0), await nodePixel(page, 2)), 'agents in different states look different');

  // the first interaction: n6 (y) meets n0 (x), n0 becomes blank
  await page.click('#next-interact');
  assert.match(await text(page, '#event-label'), /^n6 ⇄ n0: y,x → y,b$/);
  assert.equal(await page.locator('#canvas').getAttribute('data-interaction'), '6,0');
  assert.equal(await page.locator('#node-name').textContent(), 'n6');
  assert.equal(await reg(page, 'agent'), 'y');
  rows = await legend(page);
  assert.deepEqual(rows.map(([s, k]) => [s, k]), [['x', 5], ['y', 4], ['b', 1]]);
  assert.equal(rows.reduce((a, r) => a + r[1], 0), 10, 'the counts sum to the agents');
  assert.ok(near(await nodePixel(page, 0), rgb(colour.b)), 'n0 is drawn in b\'s colour');
  assert.match(await text(page, '#log li.current'), /n6 ⇄ n0: y,x → y,b/);
  // both agents are ringed in the interaction colour (amber)
  const amber = await page.evaluate(() => {
    const c = document.getElementById('canvas');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let k = 0;
    for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - 245) < 12 && Math.abs(d[i + 1] - 158) < 14 && d[i + 2] < 40) k++;
    return k;
  });
  assert.ok(amber > 300, `the interaction is highlighted (${amber} amber pixels)`);
  await page.screenshot({ path: path.join(results, 'viewer-pp-interaction.png') });
  // one step on, the highlight of this step is gone; one step back, the counts are the initial ones
  await page.keyboard.press('ArrowRight');
  assert.equal(await page.locator('#canvas').getAttribute('data-interaction'), '');
  await page.keyboard.press('ArrowLeft');
  await page.keyboard.press('ArrowLeft');
  assert.deepEqual((await legend(page)).map(([s, k]) => [s, k]), [['x', 6], ['y', 4], ['b', 0]]);

  // the end: every interaction applied, the counts still sum to the agents
  await page.keyboard.press('End');
  rows = await legend(page);
  assert.equal(rows.reduce((a, r) => a + r[1], 0), 10);
  assert.equal(await page.locator('#pop-legend').getAttribute('data-interactions'), '15');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a real lmx pp run trace (moving agents) opens without warnings and ends in the run\'s final counts', async () => {
  const trace = path.join(scratch, 'pp.jsonl');
  const out = JSON.parse(execFileSync(lmxBin(), ['pp', 'run', 'epidemic', '--scheduler', 'lock-neighbourhood', '--set', 'agents=30', '--set', 'delta=4',
    '--set', 'topology.kind=mobility', '--trace', trace, '--json'], { encoding: 'utf8' }));
  const page = await open(trace);
  assert.equal(await page.evaluate(() => document.body.dataset.ready), '1');
  assert.ok(await page.locator('#error').isHidden(), `no warning or error banner: ${await page.locator('#error').textContent()}`);
  assert.deepEqual(Object.fromEntries((await legend(page)).map(([s, k]) => [s, k])), out.initial_counts);
  await page.keyboard.press('End');
  const counts = Object.fromEntries((await legend(page)).map(([s, k]) => [s, k]).filter(([, k]) => k > 0));
  assert.deepEqual(counts, out.final_counts);
  assert.equal(Number(await page.locator('#pop-legend').getAttribute('data-interactions')), out.interactions);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('scrubbing to any step replays from the index', async () => {
  const page = await open(fixture('demo.jsonl'));
  await page.locator('#scrub').evaluate((el) => { el.value = '81'; el.dispatchEvent(new Event('input')); });
  await page.waitForFunction(() => document.getElementById('step-label').textContent.startsWith('t = 81 '));
  assert.match(await text(page, '#step-label'), /^t = 81 \/ 105/);
  assert.match(await text(page, '#event-label'), /n0 Unlock done/);
  await page.keyboard.press('Home');
  assert.match(await text(page, '#step-label'), /^t = 0 \/ 105/);
  await page.keyboard.press('End');
  assert.match(await text(page, '#event-label'), /^end: 29 rounds/);
  await page.close();
});

test('paper-variant counterexample (E1, reconnected): the waits-for cycle is drawn', async () => {
  const page = await open(fixture('e1-reconnect.jsonl'));
  await page.click('#next-viol');
  assert.match(await text(page, '#event-label'), /VIOLATION P7/);
  assert.equal(await page.locator('#waits').getAttribute('data-cycles'), '0>1');
  assert.match(await text(page, '#waits'), /deadlock cycle: n0 → n1 → n0/);
  assert.match(await text(page, '#banner'), /Deadlock: blocked waits-for cycle n0 → n1 → n0/);
  assert.equal(await reg(page, 'state'), 'WIN');
  assert.equal(await reg(page, 'R'), '{0}');
  // the cycle's red arrows are on the canvas
  const red = await page.evaluate(() => {
    const c = document.getElementById('canvas');
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let k = 0;
    for (let i = 0; i < d.length; i += 4) if (d[i] > 200 && d[i + 1] < 70 && d[i + 2] < 70) k++;
    return k;
  });
  assert.ok(red > 200, `expected red cycle arrows on the canvas, found ${red} red pixels`);
  await page.screenshot({ path: path.join(results, 'viewer-e1-cycle.png') });
  // before the cut there is no cycle
  await page.evaluate(() => window.lmxViewer.goto(30));
  assert.equal(await page.locator('#waits').getAttribute('data-cycles'), '');
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('E1 as printed in docs/errata.md: the waits on a cut port are flagged', async () => {
  const page = await open(fixture('e1.jsonl'));
  await page.keyboard.press('End');
  assert.equal(await page.locator('#waits').getAttribute('data-dangling'), '0:1;1:1');
  assert.match(await text(page, '#banner'), /Waiting on a port without an edge: n0 \(port 1, ack-lock on port 1\)/);
  await page.close();
});

function writeBad(name, content) {
  const p = path.join(scratch, name);
  fs.writeFileSync(p, content);
  return p;
}

test('bad input: a clear message naming the line, never a blank page', async () => {
  const demo = fs.readFileSync(fixture('demo.jsonl'), 'utf8');
  const lines = demo.split('\n');
  const cut = demo.slice(0, demo.indexOf('\n', 2000) - 15);
  const cases = [
    [writeBad('empty.jsonl', ''), /empty\.jsonl: the file is empty/],
    [writeBad('schema.jsonl', lines[0].replace('"schema":1', '"schema":7') + '\n'), /line 1: unknown schema version 7: this viewer reads lmx-trace schema 1/],
    [writeBad('notrace.jsonl', 'hello\n'), /line 1: the header is not valid JSON/],
    [writeBad('truncated.jsonl', cut), new RegExp(`line ${cut.split('\n').length}: the line is truncated \\(the file ends in the middle of it\\)`)],
    [writeBad('malformed.jsonl', [...lines.slice(0, 9), '{"ev":"act","t":9,', ...lines.slice(10)].join('\n')), /line 10: malformed JSON/],
    [writeBad('missing.jsonl', [...lines.slice(0, 4), lines[4].replace(/,"state":"[A-Z]+"/, ''), ...lines.slice(5)].join('\n')), /line 5: "act" event lacks required field "state"/],
  ];
  const page = await open(null);
  for (const [file, pattern] of cases) {
    await page.setInputFiles('#file', file);
    await page.waitForFunction((name) => document.getElementById('error').textContent.includes(name), path.basename(file));
    const msg = await text(page, '#error');
    assert.match(msg, pattern, `${path.basename(file)}: ${msg}`);
    assert.ok(await page.locator('#error').isVisible());
  }
  // a damaged line in the middle keeps the events before it viewable (the mark of the previous file
  // is cleared first: the new file is read asynchronously, and a stale "partial" would match early)
  await page.evaluate(() => { document.body.dataset.ready = 'reloading'; });
  await page.setInputFiles('#file', path.join(scratch, 'malformed.jsonl'));
  await page.waitForSelector('body[data-ready="partial"]');
  assert.match(await text(page, '#title'), /8 events/);
  await page.screenshot({ path: path.join(results, 'viewer-bad-input.png') });
  // extra fields are tolerated
  const extra = lines.map((l, i) => (i > 0 && l ? l.replace(/}$/, ',"future_field":{"x":1}}') : l)).join('\n');
  await page.setInputFiles('#file', writeBad('extra.jsonl', extra));
  await page.waitForSelector('body[data-ready="1"]');
  assert.equal(await page.locator('#error').isVisible(), false);
  await page.close();
});

test('lmx view serves the viewer and the trace on 127.0.0.1', async () => {
  const proc = spawn(lmxBin(), ['view', fixture('demo.jsonl'), '--port', '0', '--once'], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  const url = await new Promise((resolve, reject) => {
    proc.stdout.on('data', (d) => { out += d; const m = out.match(/open (http:\/\/127\.0\.0\.1:\d+\/\S+)/); if (m) resolve(m[1]); });
    proc.on('exit', (code) => reject(new Error(`lmx view exited (${code}): ${out}`)));
  });
  const exited = new Promise((resolve) => proc.on('exit', resolve));
  const page = await browser.newPage();
  await page.goto(url);
  await page.waitForSelector('body[data-ready="1"]');
  assert.match(await text(page, '#title'), /demo\.jsonl — 105 events/);
  assert.equal(await exited, 0);
  await page.close();
});
