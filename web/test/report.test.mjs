// End-to-end test of `lmx report`: a run summary and its trace become one self-contained HTML file
// whose every plot renders with data, offline.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, close, web, here, results, lmxBin } from './browser.mjs';

let browser, scratch, run, trace;
before(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lmx-report-test-'));
  trace = path.join(scratch, 'run.jsonl');
  run = path.join(scratch, 'run.json');
  // a deterministic 40-node run on a changing unit-disk graph, and its summary
  execFileSync(process.execPath, [path.join(web, 'tools/gen-trace.mjs'), 'big', trace, '20000', '40']);
  fs.writeFileSync(run, execFileSync(process.execPath, [path.join(web, 'tools/run-summary.mjs'), trace]));
  browser = await launch();
});
after(async () => {
  await close(browser);
  fs.rmSync(scratch, { recursive: true, force: true });
});

const PLOTS = ['plot-latency-hist', 'plot-latency-cdf', 'plot-locks', 'plot-locked', 'plot-messages', 'plot-fairness'];

test('lmx report writes one self-contained page whose plots all render with data', async () => {
  const out = path.join(scratch, 'report.html');
  const stdout = execFileSync(lmxBin(), ['report', run, '--trace', trace, '-o', out], { encoding: 'utf8' });
  assert.match(stdout, /wrote .*report\.html/);
  const html = fs.readFileSync(out, 'utf8');
  assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href=|__LMX_REPORT_DATA__/);
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) problems.push(`request ${r.url()}`); });
  await page.goto(pathToFileURL(out).href);
  await page.waitForSelector('body[data-ready="1"]');
  assert.equal(await page.locator('#error').isVisible(), false);
  for (const id of PLOTS) {
    const points = Number(await page.locator(`#${id}`).getAttribute('data-points'));
    assert.ok(points > 0, `${id}: ${points} points`);
    const inked = await page.locator(`#${id} canvas`).evaluate((c) => {
      const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
      let k = 0;
      for (let i = 3; i < d.length; i += 4) if (d[i] > 0) k++;
      return k;
    });
    assert.ok(inked > 500, `${id}: the canvas is blank`);
  }
  assert.equal(await page.locator('#verdicts tr').count(), 7);
  assert.equal(await page.locator('#verdicts tr[data-verdict="pass"]').count(), 7);
  assert.match(await page.locator('#subtitle').innerText(), /synthetic · variant repaired · seed 7/);
  assert.match(await page.locator('#footer').innerText(), /Lock latencies/);
  assert.equal(await page.locator('#population-card, #plot-population-card').count(), 0, 'no population part for a plain run');
  assert.equal(await page.locator('#amoebot-card, #plot-amoebot-states-card').count(), 0, 'no amoebot part for a plain run');
  await page.screenshot({ path: path.join(results, 'report.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test('lmx report without a trace plots from the summary alone', async () => {
  const out = path.join(scratch, 'report-no-trace.html');
  execFileSync(lmxBin(), ['report', run, '-o', out]);
  const page = await browser.newPage();
  await page.goto(pathToFileURL(out).href);
  await page.waitForSelector('body[data-ready="1"]');
  for (const id of PLOTS) assert.ok(Number(await page.locator(`#${id}`).getAttribute('data-points')) > 0, id);
  await page.close();
});

test('lmx report rejects bad input with a message naming the file and line', () => {
  const bad = path.join(scratch, 'bad.json');
  fs.writeFileSync(bad, '{"schema": 9}');
  let r = spawnSync(lmxBin(), ['report', bad, '-o', path.join(scratch, 'x.html')], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /bad\.json: unknown run summary schema 9/);
  const badTrace = path.join(scratch, 'bad.jsonl');
  fs.writeFileSync(badTrace, fs.readFileSync(trace, 'utf8').split('\n').slice(0, 3).join('\n') + '\n{"ev":\n');
  r = spawnSync(lmxBin(), ['report', run, '--trace', badTrace, '-o', path.join(scratch, 'x.html')], { encoding: 'utf8' });
  assert.equal(r.status, 2);
  assert.match(r.stderr, /bad\.jsonl line 4: malformed JSON/);
});

// The page as `lmx report` fills it, from the built template (so this needs no rebuilt binary).
function fillReport(data, name) {
  const out = path.join(scratch, name);
  const json = JSON.stringify(data).replace(/<\//g, '<\\/');
  fs.writeFileSync(out, fs.readFileSync(path.join(web, 'dist', 'report.html'), 'utf8').replace('__LMX_REPORT_DATA__', () => json));
  return out;
}

test('a population-protocol report shows its figures and the state counts over time', async () => {
  // test/fixtures/pp-report.json: the data of `lmx pp run approximate-majority --report` (tools/pp-fixtures.mjs)
  const data = JSON.parse(fs.readFileSync(path.join(here, 'fixtures', 'pp-report.json'), 'utf8'));
  const pop = data.run.population;
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) problems.push(`request ${r.url()}`); });
  await page.goto(pathToFileURL(fillReport(data, 'pp-report.html')).href);
  await page.waitForSelector('body[data-ready="1"]');
  assert.equal(await page.locator('#error').isVisible(), false);
  assert.match(await page.locator('#population-card h2').innerText(), /population protocol/i);
  const figures = await page.locator('#population').innerText();
  for (const re of [/protocol\s+approximate-majority/, /scheduler\s+lock-neighbourhood/, /agents\s+40/, /stop\s+consensus/, /converged\s+true/,
    /parallel time\s+19\.575/, /outcome\s+consensus x/, /interactions\s+783/, /interactions per round\s+0\.1846/, /lock requests\s+821/,
    /lock cycles\s+783/, /cycles without a partner\s+0/, /messages per interaction\s+80\.03/, /lock requests per interaction\s+1\.049/,
    /isolation checks\s+783/, /final counts\s+x 40/]) assert.match(figures, re);
  // the chart: one line per state, every history sample, drawn in the palette's colours
  const chart = page.locator('#plot-population');
  assert.equal(Number(await chart.getAttribute('data-points')), pop.history.parallel_time.length);
  assert.equal(await chart.getAttribute('data-series'), 'x,y,b');
  const strokes = await chart.evaluate((el) => el.uplot.series.slice(1).map((s) => s._stroke || s.stroke()));
  assert.deepEqual(strokes, ['#4e79a7', '#f28e2b', '#e15759']);
  const inked = await page.locator('#plot-population canvas').evaluate((c) => {
    const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
    let k = 0;
    for (let i = 3; i < d.length; i += 4) if (d[i] > 0) k++;
    return k;
  });
  assert.ok(inked > 500, 'the chart is drawn');
  // the population part comes before the lock figures it ran on; the rest of the page is as for any run
  const order = await page.locator('main > section h2').allInnerTexts();
  assert.ok(order.findIndex((t) => /population protocol/i.test(t)) < order.findIndex((t) => /key figures/i.test(t)));
  assert.equal(await page.locator('#verdicts tr').count(), 7);
  await page.screenshot({ path: path.join(results, 'report-pp.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test('a population report without lock figures or history still draws', async () => {
  const data = JSON.parse(fs.readFileSync(path.join(here, 'fixtures', 'pp-report.json'), 'utf8'));
  delete data.run.population.lock;
  delete data.run.population.history;
  const page = await browser.newPage();
  await page.goto(pathToFileURL(fillReport(data, 'pp-bare.html')).href);
  await page.waitForSelector('body[data-ready="1"]');
  assert.doesNotMatch(await page.locator('#population').innerText(), /lock requests/);
  assert.equal(await page.locator('#plot-population').getAttribute('data-points'), '0');
  await page.close();
});

// How many pixels of a chart's canvas are drawn.
const inkOf = (page, id) => page.locator(`#${id} canvas`).evaluate((c) => {
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let k = 0;
  for (let i = 3; i < d.length; i += 4) if (d[i] > 0) k++;
  return k;
});

test('an amoebot report shows its figures against the sequential run, the lock figures and the run over model rounds', async () => {
  // test/fixtures/amoebot-report.json: the data of `lmx amoebot run --execution locks --n 200 --seed 1 --report` (tools/amoebot-fixtures.mjs)
  const data = JSON.parse(fs.readFileSync(path.join(here, 'fixtures', 'amoebot-report.json'), 'utf8'));
  const am = data.run.amoebot;
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) problems.push(`request ${r.url()}`); });
  await page.goto(pathToFileURL(fillReport(data, 'amoebot-report.html')).href);
  await page.waitForSelector('body[data-ready="1"]');
  assert.equal(await page.locator('#error').isVisible(), false);
  // the expected figures come from the fixture, so that it can be regenerated (tools/amoebot-fixtures.mjs)
  const int = (x) => x.toLocaleString('en');
  const esc = (x) => String(x).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  const lk = am.locks, seq = am.sequential;
  const dec = (x, d) => (Number.isInteger(x) ? int(x) : x.toFixed(d));  // as the page prints a figure
  assert.match(await page.locator('#subtitle').innerText(), new RegExp(`^amoebots: hexagon, n 200 · variant fast · seed 1 · ${esc(int(data.run.rounds))} rounds`));
  assert.match(await page.locator('#amoebot-card h2').innerText(), /^amoebots$/i);
  const figures = await page.locator('#amoebot').innerText();
  for (const re of [/algorithm\s+hexagon/, /execution\s+locks/, /amoebots\s+200/, /hole probability\s+0\.20/, /seed\s+1/, /terminated\s+yes/, /final shape\s+ok/,
    new RegExp(`every amoebot final at\\s+round ${esc(int(am.final_states_at.rounds))} \\(${esc(int(am.final_states_at.moves))} moves\\)`),
    new RegExp(`handovers \\(pulls and pushes\\)\\s+${esc(int(am.handovers))}`)]) assert.match(figures, re);

  // concurrent against sequential: the figures and their ratio
  const cmp = Object.fromEntries(await page.locator('#amoebot-comparison tbody tr').evaluateAll((rows) => rows.map((r) => [r.dataset.key, [...r.cells].slice(1).map((c) => c.textContent)])));
  const row = (a, b) => [int(a), int(b), `× ${(a / b).toFixed(2)}`];
  assert.deepEqual(cmp.rounds, row(am.rounds, seq.rounds));
  assert.deepEqual(cmp.actions, row(am.actions, seq.actions));
  assert.deepEqual(cmp.moves, row(am.moves, seq.moves));
  assert.deepEqual(cmp.activations, row(am.activations, seq.activations));
  assert.ok(am.rounds > seq.rounds, 'the concurrent run takes more amoebot rounds here (211 against 65 when this was written)');

  // the lock figures: messages per action, latency, acting at once, and what else the run reports
  const locks = await page.locator('#amoebot-locks').innerText();
  const fig = (name, value) => new RegExp(`${esc(name)}\\s+${esc(value)}`);
  for (const re of [fig('model rounds (lmx engine)', int(lk.model_rounds)), fig('Lock cycles', int(lk.lock_cycles)), fig('(sleeps)', int(lk.sleeps)),
    fig('incomplete Locks', int(lk.incomplete_locks)), fig('actions given up (neighbourhood changed)', int(lk.aborted)),
    fig('messages per action', dec(lk.messages_per_action, 1)),
    fig('Lock latency p50 / p99 (model rounds)', `${dec(lk.lock_latency_p50, 1)} / ${dec(lk.lock_latency_p99, 1)}`),
    fig('acting at once: max / mean', `${lk.max_acting} / ${dec(lk.mean_acting, 2)}`), fig('serializability checks', int(lk.serializability_checks))]) assert.match(locks, re);

  // the run over model rounds: every history sample, on two charts
  const samples = am.history.model_round.length;
  assert.ok(samples > 10);
  for (const k of ['amoebot_round', 'final', 'awake', 'acting', 'moves']) assert.equal(am.history[k].length, samples, k);
  const states = page.locator('#plot-amoebot-states');
  assert.equal(Number(await states.getAttribute('data-points')), samples);
  assert.equal(await states.getAttribute('data-series'), 'in a final state,awake,acting (right axis)');
  assert.equal(await states.evaluate((el) => el.uplot.series[3].scale), 'r', 'acting on its own axis');
  const moves = page.locator('#plot-amoebot-moves');
  assert.equal(Number(await moves.getAttribute('data-points')), samples);
  assert.equal(await moves.getAttribute('data-series'), 'moves,amoebot rounds (right axis)');
  assert.equal(await moves.evaluate((el) => el.uplot.data[1].at(-1)), am.moves, 'the moves end at the run\'s');
  assert.equal(await states.evaluate((el) => el.uplot.data[1].at(-1)), 200, 'every amoebot final at the end');
  for (const id of ['plot-amoebot-states', 'plot-amoebot-moves']) assert.ok(await inkOf(page, id) > 500, `${id} is drawn`);

  // the amoebot part comes before the lock figures it ran on; the rest of the page is as for any run
  const order = await page.locator('main > section h2').allInnerTexts();
  const at = (re) => order.findIndex((t) => re.test(t));
  assert.ok(at(/^amoebots$/i) >= 0 && at(/^amoebots$/i) < at(/key figures/i));
  assert.ok(at(/cumulative moves/i) < at(/key figures/i));
  assert.equal(await page.locator('#population-card').count(), 0);
  assert.equal(await page.locator('#verdicts tr').count(), 7);
  await page.screenshot({ path: path.join(results, 'report-amoebot.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test('an amoebot report without the sequential run, lock figures or history still draws', async () => {
  const data = JSON.parse(fs.readFileSync(path.join(here, 'fixtures', 'amoebot-report.json'), 'utf8'));
  delete data.run.amoebot.sequential;
  delete data.run.amoebot.locks;
  delete data.run.amoebot.history;
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(pathToFileURL(fillReport(data, 'amoebot-bare.html')).href);
  await page.waitForSelector('body[data-ready="1"]');
  assert.equal(await page.locator('#error').isVisible(), false);
  const rounds = await page.locator('#amoebot-comparison tr[data-key="rounds"]').evaluate((r) => [...r.cells].slice(1).map((c) => c.textContent));
  assert.deepEqual(rounds, ['211', '—', '—']);
  assert.match(await page.locator('#amoebot-compare').innerText(), /no sequential run/);
  assert.equal(await page.locator('#plot-amoebot-states').getAttribute('data-points'), '0');
  assert.equal(await page.locator('#plot-amoebot-moves').getAttribute('data-points'), '0');
  assert.deepEqual(problems, []);
  await page.close();
});
