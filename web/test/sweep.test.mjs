// End-to-end test of `lmx sweep --report`: a small sweep is run, and its report is one
// self-contained page with a plot per numeric figure and grid key, each drawn with data, offline.
import { test, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { launch, close, results, lmxBin } from './browser.mjs';

let browser, scratch;
before(async () => {
  scratch = fs.mkdtempSync(path.join(os.tmpdir(), 'lmx-sweep-test-'));
  browser = await launch();
});
after(async () => {
  await close(browser);
  fs.rmSync(scratch, { recursive: true, force: true });
});

async function open(file) {
  const page = await browser.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('request', (r) => { if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) problems.push(`request ${r.url()}`); });
  await page.goto(pathToFileURL(file).href);
  await page.waitForSelector('body[data-ready="1"]');
  return { page, problems };
}

const inked = (locator) => locator.evaluate((c) => {
  const d = c.getContext('2d').getImageData(0, 0, c.width, c.height).data;
  let k = 0;
  for (let i = 3; i < d.length; i += 4) if (d[i] > 0) k++;
  return k;
});

test('lmx sweep --report draws every figure against every grid key', async () => {
  const sweep = path.join(scratch, 'grid.toml');
  fs.writeFileSync(sweep, [
    'name = "grid"', 'description = "browser test"', 'seeds = 2',
    '[scenario]', 'nodes = 24', 'rounds = 100', 'topology.kind = "regular"',
    '[grid]', 'delta = [3, 4, 6]', 'k = [2, 4]', 'engine = ["async", "semi-sync"]', '',
  ].join('\n'));
  execFileSync(lmxBin(), ['sweep', sweep, '--jobs', '2']);
  const out = path.join(scratch, 'grid.html');
  execFileSync(lmxBin(), ['sweep', sweep, '--report', out], { stdio: 'pipe' });
  const html = fs.readFileSync(out, 'utf8');
  assert.doesNotMatch(html, /<script[^>]+src=|<link[^>]+href=|__LMX_SWEEP_DATA__/);
  const { page, problems } = await open(out);
  assert.equal(await page.locator('#error').isVisible(), false);
  const figures = await page.locator('section.figure').count();
  assert.ok(figures >= 15, `${figures} figure sections`);
  const charts = page.locator('div.chart');
  assert.equal(await charts.count(), figures * 3);
  for (const axis of ['delta', 'k', 'engine']) {
    // (actions: a figure every run has; latencies are missing where no Lock completed)
    const chart = page.locator(`div.chart[data-figure="actions"][data-axis="${axis}"]`);
    assert.equal(await chart.count(), 1, axis);
    // one line per combination of the other two keys, one point per value of this one
    const lines = Number(await chart.getAttribute('data-lines'));
    const points = Number(await chart.getAttribute('data-points'));
    assert.equal(lines, { delta: 4, k: 6, engine: 6 }[axis], `${axis}: ${lines} lines`);
    assert.equal(points, 12, `${axis}: ${points} points`);
    assert.ok(await inked(chart.locator('canvas')) > 500, `${axis}: the canvas is blank`);
  }
  // every plot is drawn, or says why not
  for (let i = 0; i < await charts.count(); i++) {
    const c = charts.nth(i);
    const drawn = Number(await c.getAttribute('data-points')) > 0;
    assert.equal(await c.locator(drawn ? 'canvas' : '.empty').count(), 1, `${await c.getAttribute('id')}`);
  }
  assert.equal(await page.locator('#verdicts tr').count(), 7);
  assert.equal(await page.locator('#verdicts tr[data-fails="0"]').count(), 7);
  assert.match(await page.locator('#subtitle').innerText(), /grid · 24 of 24 points stored · 12 grid points × 2 seeds/);
  assert.match(await page.locator('#sweep').innerText(), /browser test/);
  await page.screenshot({ path: path.join(results, 'sweep.png'), fullPage: true });
  assert.deepEqual(problems, []);
  await page.close();
});

test('a sweep of seeds alone plots against the seed', async () => {
  const sweep = path.join(scratch, 'seeds.toml');
  fs.writeFileSync(sweep, 'name = "seeds"\nseeds = 3\n[scenario]\nnodes = 20\nrounds = 30\n');
  execFileSync(lmxBin(), ['sweep', sweep]);
  const out = path.join(scratch, 'seeds.html');
  execFileSync(lmxBin(), ['sweep', sweep, '--report', out], { stdio: 'pipe' });
  const { page, problems } = await open(out);
  const chart = page.locator('div.chart[data-figure="actions"][data-axis="seed"]');
  assert.equal(Number(await chart.getAttribute('data-points')), 3);
  assert.deepEqual(problems, []);
  await page.close();
});
