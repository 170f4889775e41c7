#!/usr/bin/env node
// Measures how long the viewer takes to open a large trace and to scrub it, in Debian's Chromium.
//   node bench/load.mjs [EVENTS]      (default 1000000; the trace is generated into a temp folder)
//   node bench/load.mjs --trace FILE   [--page dist/index.html]
// Prints: file size, time from choosing the file to the first drawn step (read + index + layout
// + first frame), and the mean and worst time of a jump to a random step (restore + replay + draw).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, close, web, viewerUrl } from '../test/browser.mjs';

const args = process.argv.slice(2);
let trace, tmp, pageUrl = viewerUrl();
const pi = args.indexOf('--page');
if (pi >= 0) { pageUrl = 'file://' + path.resolve(args[pi + 1]); args.splice(pi, 2); }
if (args[0] === '--trace') trace = args[1];
else {
  const events = Number(args[0] || 1e6);
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lmx-bench-'));
  trace = path.join(tmp, `synthetic-${events}.jsonl`);
  execFileSync(process.execPath, [path.join(web, 'tools/gen-trace.mjs'), 'big', trace, String(events)], { stdio: 'inherit' });
}
const size = fs.statSync(trace).size;
const browser = await launch();
const page = await browser.newPage();
await page.goto(pageUrl);
await page.waitForSelector('body[data-ready="empty"]');
await page.evaluate(() => { window.__t0 = 0; document.getElementById('file').addEventListener('change', () => { window.__t0 = performance.now(); }, { capture: true }); });
await page.setInputFiles('#file', trace);
await page.waitForSelector('body[data-shown="1"], body:not([data-shown])[data-ready="1"]', { timeout: 120000 });
const opened = await page.evaluate(() => (window.lmxViewer.shownAt || performance.now()) - window.__t0);
// scrubbing is measured once the background check of every line has finished
await page.waitForSelector('body[data-ready="1"]', { timeout: 300000 });
const r = await page.evaluate(async () => {
  const v = window.lmxViewer;
  const n = v.trace.events;
  const times = [];
  for (let i = 0; i < 100; i++) {
    const t = Math.floor(((i * 7919) % 100) / 100 * n);
    const a = performance.now();
    v.goto(t);
    times.push(performance.now() - a);
  }
  const steps = [];
  v.goto(Math.floor(n / 2));
  for (let i = 0; i < 200; i++) { const a = performance.now(); v.goto(v.t + 1); steps.push(performance.now() - a); }
  const mean = (x) => x.reduce((p, q) => p + q, 0) / x.length;
  return { events: n, indexMs: v.loadMs, jumpMeanMs: mean(times), jumpMaxMs: Math.max(...times), stepMeanMs: mean(steps) };
});
await close(browser);
if (tmp) fs.rmSync(tmp, { recursive: true, force: true });
console.log(`trace: ${r.events.toLocaleString('en')} events, ${(size / 1e6).toFixed(0)} MB`);
console.log(`open (read + index + layout + first frame): ${(opened / 1000).toFixed(2)} s  (index and layout alone: ${(r.indexMs / 1000).toFixed(2)} s)`);
console.log(`jump to a random step: mean ${r.jumpMeanMs.toFixed(1)} ms, worst ${r.jumpMaxMs.toFixed(1)} ms; step forward: mean ${r.stepMeanMs.toFixed(2)} ms`);
