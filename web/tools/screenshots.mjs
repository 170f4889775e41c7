#!/usr/bin/env node
// Regenerates the README's two screenshots (docs/img/): the viewer on a 40-node run on a changing
// unit-disk graph at a Lock completion, and on a paper-variant counterexample of the checker.
//   node tools/screenshots.mjs [RUN_TRACE [COUNTEREXAMPLE_TRACE]]
// (defaults: a generated 40-node run; docs/counterexamples/E2-compete-deadlock.jsonl)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { launch, close, web, viewerUrl } from '../test/browser.mjs';

const img = path.join(path.dirname(web), 'docs', 'img');
fs.mkdirSync(img, { recursive: true });
let run = process.argv[2];
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lmx-shots-'));
if (!run) {
  run = path.join(tmp, 'run.jsonl');
  execFileSync(process.execPath, [path.join(web, 'tools/gen-trace.mjs'), 'big', run, '20000', '40']);
}
const browser = await launch();
const page = await browser.newPage({ viewport: { width: 1280, height: 760 } });

async function open(file) {
  await page.goto(viewerUrl());
  await page.waitForSelector('body[data-ready="empty"]');
  await page.setInputFiles('#file', file);
  await page.waitForSelector('body[data-ready="1"]');
}

await open(run);
// a Lock completion 40% into the run: several lock sets, messages in flight
await page.evaluate(() => window.lmxViewer.goto(Math.floor(window.lmxViewer.trace.events * 0.4)));
// the next Lock completion whose lock set has at least three nodes
for (let i = 0; i < 200; i++) {
  await page.click('#next-lock');
  const nodes = await page.locator('#lockset-value').getAttribute('data-nodes');
  if (nodes && nodes.split(',').length >= 3) break;
}
await page.screenshot({ path: path.join(img, 'viewer-run.png') });

await open(process.argv[3] || path.join(path.dirname(web), 'docs', 'counterexamples', 'E2-compete-deadlock.jsonl'));
await page.click('#next-viol');
await page.screenshot({ path: path.join(img, 'viewer-counterexample.png') });

await close(browser);
fs.rmSync(tmp, { recursive: true, force: true });
console.log(`wrote ${path.join('docs', 'img', 'viewer-run.png')} and ${path.join('docs', 'img', 'viewer-counterexample.png')}`);
