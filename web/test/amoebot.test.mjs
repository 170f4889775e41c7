// End-to-end tests of the viewer on amoebot traces (`lmx amoebot run --execution locks --trace`) in
// Debian's Chromium: the lattice instead of the graph layout, each amoebot's cells in its state's
// colour, the states legend with counts, expanded amoebots, lock-set outlines, acting amoebots,
// the amoebot lines in the event list, and stepping both ways.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, close, here, results, viewerUrl, lmxBin } from './browser.mjs';

const fixture = (name) => path.join(here, 'fixtures', name);
const STATES = ['seed', 'idle', 'follower', 'root', 'retired'];
let browser;
let scratch;
before(async () => {
  browser = await launch();
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lmx-amoebot-test-'));
});
after(async () => {
  await close(browser);
  fs.rmSync(scratch, { recursive: true, force: true });
});

async function open(file) {
  const page = await browser.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  page.on('request', (r) => { if (!/^(file|data|blob):/.test(r.url())) errors.push(`network request to ${r.url()}`); });
  await page.goto(viewerUrl());
  await page.waitForSelector('body[data-ready="empty"]');
  await page.setInputFiles('#file', file);
  await page.waitForSelector('body[data-ready="1"], body[data-ready="partial"], body[data-ready="error"]', { timeout: 120000 });
  page.errors = errors;
  return page;
}
const text = (page, sel) => page.locator(sel).innerText();
const reg = (page, name) => page.locator(`#registers tr[data-reg="${name}"] td`).innerText();
const canvasData = (page) => page.locator('#canvas').evaluate((c) => ({ ...c.dataset }));
// The states legend: [state, count, colour] in the algorithm's order.
const legend = (page) => page.locator('#ab-legend .ab-row').evaluateAll((rows) => rows.map((r) => [r.dataset.state, Number(r.dataset.count), r.dataset.colour]));
const goto = (page, t) => page.evaluate((t) => window.lmxViewer.goto(t), t);
const rgb = (hex) => [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));
const near = (a, b, tol = 10) => a.every((x, i) => Math.abs(x - b[i]) <= tol);
const pale = (c) => c.map((x) => Math.round(x * 0.55 + 255 * 0.45));  // a tail: its colour under 45 % white

// The count of each state after event t, read from the trace with JSON.parse.
function countsAt(file, t) {
  const state = [];
  for (const line of fs.readFileSync(file, 'utf8').split('\n').filter(Boolean).slice(1, t + 1)) {
    if (!line.includes('"ev":"amoebot')) continue;
    const e = JSON.parse(line);
    for (const r of e.amoebots || e.changed || []) state[r[0]] = r[6][0];
  }
  return STATES.map((_, k) => state.filter((s) => s === k).length);
}

// The colour drawn most often in a 7 × 7 pixel patch of amoebot u's head or tail cell, away from
// its label, its bar and its lock-state dot: above the head's middle, beyond the tail's middle.
const cellPixel = (page, u, which = 'head') => page.evaluate(([u, which]) => {
  const a = window.lmxViewer.amoebotScreen(u);
  let x, y;
  if (which === 'head') { x = a.head.x; y = a.head.y - 0.65 * a.r; } else {
    const dx = a.tail.x - a.head.x, dy = a.tail.y - a.head.y, len = Math.hypot(dx, dy) || 1;
    x = a.tail.x + (dx / len) * 0.6 * a.r; y = a.tail.y + (dy / len) * 0.6 * a.r;
  }
  const dpr = window.devicePixelRatio || 1;
  const d = document.getElementById('canvas').getContext('2d').getImageData(Math.round(x * dpr) - 3, Math.round(y * dpr) - 3, 7, 7).data;
  const seen = new Map();
  for (let i = 0; i < d.length; i += 4) { const k = `${d[i]},${d[i + 1]},${d[i + 2]}`; seen.set(k, (seen.get(k) || 0) + 1); }
  return [...seen].sort((p, q) => q[1] - p[1])[0][0].split(',').map(Number);
}, [u, which]);
// How many canvas pixels have (about) the colour of the lock-set outline of locker u.
const lockerPixels = (page, u) => page.evaluate((u) => {
  const probe = document.createElement('canvas').getContext('2d');
  probe.fillStyle = `hsl(${(u * 137.508) % 360}, 70%, 45%)`;
  const hex = probe.fillStyle;
  const want = [1, 3, 5].map((k) => parseInt(hex.slice(k, k + 2), 16));
  const c = document.getElementById('canvas');
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let k = 0;
  for (let i = 0; i < d.length; i += 4) if (Math.abs(d[i] - want[0]) <= 6 && Math.abs(d[i + 1] - want[1]) <= 6 && Math.abs(d[i + 2] - want[2]) <= 6) k++;
  return k;
}, u);

test('amoebot trace: the lattice, the states legend, moves, lock sets and acting amoebots, stepping both ways', async () => {
  // test/fixtures/amoebot-hexagon.jsonl: lmx amoebot run --execution locks --n 6 --seed 5 (tools/amoebot-fixtures.mjs)
  const page = await open(fixture('amoebot-hexagon.jsonl'));
  assert.equal(await page.evaluate(() => document.body.dataset.ready), '1');
  assert.ok(await page.locator('#error').isHidden(), await page.locator('#error').textContent());
  assert.equal((await canvasData(page)).mode, 'lattice');
  assert.ok(await page.locator('#ab-box').isVisible());
  assert.ok(await page.locator('#next-amoebot').isVisible());
  assert.ok(await page.locator('#pop-box').isHidden());
  assert.ok(await page.locator('#next-interact').isHidden());
  assert.match(await text(page, '#ab-box h2'), /hexagon/);
  assert.match(await text(page, '#info'), /algorithm\s+hexagon \(6 amoebots\)/);
  assert.match(await text(page, '#legend'), /cell fill: algorithm state/);

  // before the first action: every amoebot drawn as one cell, amoebot 0 the seed, the rest idle
  let cd = await canvasData(page);
  assert.equal(cd.amoebots, '6');
  assert.equal(cd.cells, '6');
  assert.equal(cd.expanded, '');
  let rows = await legend(page);
  assert.deepEqual(rows.map(([s]) => s), STATES);
  assert.deepEqual(rows.map(([, k]) => k), [1, 5, 0, 0, 0]);
  assert.equal(new Set(rows.map((r) => r[2])).size, 5, 'one colour per state');
  const colour = Object.fromEntries(rows.map(([s, , c]) => [s, rgb(c)]));
  await page.locator('#show-msgs').uncheck();
  await page.locator('#show-waits').uncheck();
  assert.ok(near(await cellPixel(page, 0), colour.seed), `a0 is drawn ${await cellPixel(page, 0)}, the seed's colour is ${colour.seed}`);
  for (let u = 1; u < 6; u++) assert.ok(near(await cellPixel(page, u), colour.idle), `a${u} is drawn in idle's colour`);

  // `m`: the first committed action; a2 becomes a root under the lock of its neighbourhood
  await page.keyboard.press('m');
  assert.match(await text(page, '#step-label'), /^t = 417 \//);
  assert.equal(await text(page, '#event-label'), 'a2 alpha1 (→ root)');
  assert.match(await text(page, '#log li.current'), /^417\s+a2 alpha1 \(→ root\)$/);
  assert.ok(await page.locator('#log li.current.k-amoebot-act').count(), 'the line is marked as an amoebot action');
  assert.equal(await page.locator('#node-name').textContent(), 'a2');
  assert.equal(await reg(page, 'amoebot'), 'root');
  assert.equal(await reg(page, 'state'), 'LOCKED');
  cd = await canvasData(page);
  assert.equal(cd.changed, '2');
  assert.equal(cd.lockSets, '2:0 2 4 5', 'a2 is LOCKED with the lock set of its Lock completion (t = 408)');
  assert.ok(await lockerPixels(page, 2) > 300, 'the lock set is outlined in a2\'s colour');
  assert.ok(near(await cellPixel(page, 2), colour.root));
  assert.deepEqual((await legend(page)).map(([, k]) => k), [1, 4, 0, 1, 0]);
  assert.deepEqual(countsAt(fixture('amoebot-hexagon.jsonl'), 417), [1, 4, 0, 1, 0]);
  await page.screenshot({ path: path.join(results, 'viewer-amoebot-lockset.png') });
  // the event list shows the other amoebot lines readably
  await goto(page, 409);
  assert.match(await text(page, '#log'), /409\s+a2 plans alpha1/);
  assert.match(await text(page, '#log'), /417\s+a2 alpha1 \(→ root\)/);
  await goto(page, 183);
  assert.equal(await text(page, '#event-label'), 'a4 sleeps');

  // a3 plans an expansion at its Lock: it is acting (ringed, the rule shown) until it commits
  await goto(page, 1068);
  assert.equal(await text(page, '#event-label'), 'a3 plans alpha4');
  assert.equal((await canvasData(page)).acting, '3');
  assert.match(await text(page, '#ab-legend'), /acting: a3 \(alpha4\)/);
  await page.evaluate(() => window.lmxViewer.select(3));
  assert.equal(await reg(page, 'acting'), 'alpha4 (planned at t = 1068)');
  await page.keyboard.press('m');
  assert.equal(await text(page, '#event-label'), 'a3 alpha4 (expand)');
  cd = await canvasData(page);
  assert.equal(cd.acting, '');
  assert.equal(cd.expanded, '3');
  assert.equal(cd.cells, '7', 'the expanded amoebot is drawn as two cells');
  assert.equal(await reg(page, 'position'), 'head (-1,0), tail (0,-1)');
  const a3 = await page.evaluate(() => window.lmxViewer.amoebotScreen(3));
  const unit = Math.hypot(a3.tail.x - a3.head.x, a3.tail.y - a3.head.y);
  const a0 = await page.evaluate(() => window.lmxViewer.amoebotScreen(0));
  assert.ok(Math.abs(Math.hypot(a0.head.x - a3.tail.x, a0.head.y - a3.tail.y) - unit) < 1, 'the tail sits next to the seed, one lattice step away');
  assert.ok(near(await cellPixel(page, 3, 'head'), colour.root), 'the head in the state colour');
  assert.ok(near(await cellPixel(page, 3, 'tail'), pale(colour.root)), `the tail paler: ${await cellPixel(page, 3, 'tail')}`);
  await page.screenshot({ path: path.join(results, 'viewer-amoebot-expanded.png') });
  // one step back: contracted again, still acting
  await page.keyboard.press('ArrowLeft');
  cd = await canvasData(page);
  assert.equal(cd.expanded, '');
  assert.equal(cd.acting, '3');
  assert.equal(await reg(page, 'position'), '(0,-1), contracted', 'it expanded from its tail\'s node');

  // the pull: a2 (expanded) contracts and a4 expands into the node it left
  await goto(page, 3515);
  assert.equal(await text(page, '#event-label'), 'a2 alpha5 (pull a4)');
  assert.equal((await canvasData(page)).expanded, '4');

  // the end: every amoebot is the seed or retired, asleep, contracted
  await page.keyboard.press('End');
  rows = await legend(page);
  assert.deepEqual(rows.map(([s, k]) => [s, k]), [['seed', 1], ['idle', 0], ['follower', 0], ['root', 0], ['retired', 5]]);
  const box = await page.locator('#ab-legend').evaluate((b) => ({ ...b.dataset }));
  assert.deepEqual([box.total, box.expanded, box.awake, box.acting, box.moves, box.actions], ['6', '0', '0', '', '10', '20']);
  for (let u = 1; u < 6; u++) assert.ok(near(await cellPixel(page, u), colour.retired), `a${u} is drawn in retired's colour`);
  await page.screenshot({ path: path.join(results, 'viewer-amoebot-end.png') });
  // back from the end across the checkpoints (every 2,048 events): the states and cells of t = 1077 again
  await goto(page, 1077);
  assert.equal((await canvasData(page)).expanded, '3');
  assert.deepEqual((await legend(page)).map(([, k]) => k), countsAt(fixture('amoebot-hexagon.jsonl'), 1077));

  // another trace in the same page: the graph view, no amoebot box
  await page.evaluate(() => { document.body.dataset.ready = 'reloading'; });
  await page.setInputFiles('#file', fixture('demo.jsonl'));
  await page.waitForSelector('body[data-ready="1"]');
  assert.equal((await canvasData(page)).mode, 'graph');
  assert.ok(await page.locator('#ab-box').isHidden());
  assert.ok(await page.locator('#next-amoebot').isHidden());
  assert.match(await text(page, '#legend'), /node fill: initiator state/);
  await page.keyboard.press('m');
  assert.match(await text(page, '#step-label'), /^t = 0 \//);
  assert.deepEqual(page.errors, []);
  await page.close();
});

test('a real lmx amoebot run (30 amoebots, seed 4) opens on the lattice and ends in a hexagon', async () => {
  const trace = path.join(scratch, 'amoebot.jsonl');
  const out = JSON.parse(execFileSync(lmxBin(), ['amoebot', 'run', '--execution', 'locks', '--n', '30', '--seed', '4', '--trace', trace, '--json'], { encoding: 'utf8' }));
  assert.equal(out.terminated, true);
  const page = await open(trace);
  assert.equal(await page.evaluate(() => document.body.dataset.ready), '1');
  assert.ok(await page.locator('#error').isHidden(), `no warning or error banner: ${await page.locator('#error').textContent()}`);
  let cd = await canvasData(page);
  assert.equal(cd.mode, 'lattice');
  assert.equal(cd.amoebots, '30');
  let rows = await legend(page);
  assert.deepEqual(rows.map(([s]) => s), STATES);
  assert.equal(rows.reduce((a, [, k]) => a + k, 0), 30);

  // step from action to action (`m`) until an amoebot is expanded; every action is under a lock set
  let expandedAt = -1, actions = 0;
  while (expandedAt < 0 && actions < out.actions) {
    await page.keyboard.press('m');
    actions += 1;
    cd = await canvasData(page);
    assert.notEqual(cd.lockSets, '', 'the acting amoebot holds a lock set when it commits');
    assert.match(await text(page, '#event-label'), /^a\d+ alpha\d \(.+\)$/);
    if (cd.expanded) expandedAt = await page.evaluate(() => window.lmxViewer.t);
  }
  assert.ok(expandedAt > 0, 'some amoebot expands');
  assert.equal(Number(cd.cells), 30 + cd.expanded.split(',').length, 'an expanded amoebot is two cells');
  assert.match(await text(page, '#log li.current.k-amoebot-act'), /^\d+\s+a\d+ alpha\d \((expand|pull a\d+|push a\d+)\)$/);
  const [locker] = cd.lockSets.split(':');
  assert.ok(await lockerPixels(page, Number(locker)) > 100, 'the lock set is outlined in its locker\'s colour');
  await page.screenshot({ path: path.join(results, 'viewer-amoebot-30.png') });
  // an action given up, if this run has one, reads as such
  const abort = await page.evaluate(() => { const tr = window.lmxViewer.trace; for (let t = 1; t <= tr.events; t++) if (tr.kind[t] === 19) return t; return -1; });
  if (abort > 0) {
    await goto(page, abort);
    assert.match(await text(page, '#event-label'), /^a\d+ gives up alpha\d$/);
  }

  // the end: the hexagon, every amoebot the seed or retired; the counters are the run's
  await page.keyboard.press('End');
  rows = await legend(page);
  assert.deepEqual(rows.map(([s, k]) => [s, k]), [['seed', 1], ['idle', 0], ['follower', 0], ['root', 0], ['retired', 29]]);
  const box = await page.locator('#ab-legend').evaluate((b) => ({ ...b.dataset }));
  assert.equal(Number(box.moves), out.moves);
  assert.equal(Number(box.actions), out.actions);
  assert.equal(Number(box.aborts), out.locks.aborted);
  assert.equal(Number(box.sleeps), out.locks.sleeps);
  assert.equal(box.expanded, '0');
  await page.screenshot({ path: path.join(results, 'viewer-amoebot-30-end.png') });
  assert.deepEqual(page.errors, []);
  await page.close();
});
