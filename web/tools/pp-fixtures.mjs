#!/usr/bin/env node
// Regenerates the population-protocol fixtures of the tests with an lmx binary (LMX_BIN, else the
// release or dev build):
//   test/fixtures/pp-majority.jsonl   `lmx pp run approximate-majority --scheduler lock-pair` on 10
//                                     agents of a 3-regular graph, stopped at parallel time 1.5
//                                     (the trace's agents and interact lines; ~160 KB)
//   test/fixtures/pp-report.json      the data block of `lmx pp run ... --report` (the run summary
//                                     with its population part) of approximate majority under
//                                     lock-neighbourhood on 40 agents, run to consensus
// Both runs are deterministic (seed 1), so the files change only when lmx's output does.
//   node tools/pp-fixtures.mjs
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { here, lmxBin } from '../test/browser.mjs';

const fixtures = path.join(here, 'fixtures');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lmx-pp-fixtures-'));
const graph = ['--set', 'topology.kind=regular', '--seed', '1'];
try {
  const trace = path.join(fixtures, 'pp-majority.jsonl');
  execFileSync(lmxBin(), ['pp', 'run', 'approximate-majority', '--scheduler', 'lock-pair', '--set', 'agents=10', '--set', 'delta=3',
    '--set', 'max_time=1.5', ...graph, '--trace', trace], { stdio: 'inherit' });

  const report = path.join(tmp, 'report.html');
  execFileSync(lmxBin(), ['pp', 'run', 'approximate-majority', '--scheduler', 'lock-neighbourhood', '--set', 'agents=40', '--set', 'delta=4',
    ...graph, '--report', report], { stdio: 'inherit' });
  const html = fs.readFileSync(report, 'utf8');
  const m = html.match(/<script id="lmx-data" type="application\/json">([\s\S]*?)<\/script>/);
  if (!m) throw new Error(`${report} has no data block`);
  fs.writeFileSync(path.join(fixtures, 'pp-report.json'), JSON.stringify(JSON.parse(m[1])) + '\n');
  for (const f of ['pp-majority.jsonl', 'pp-report.json']) console.log(`wrote test/fixtures/${f} (${(fs.statSync(path.join(fixtures, f)).size / 1024).toFixed(0)} KiB)`);
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
