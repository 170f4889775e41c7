#!/usr/bin/env node
// Regenerates the amoebot fixtures of the tests with an lmx binary (LMX_BIN, else the release or
// dev build):
//   test/fixtures/amoebot-hexagon.jsonl  `lmx amoebot run --execution locks --n 6 --seed 5 --trace`:
//                                        hexagon formation of 6 amoebots on lmx locks (~820 KB; a
//                                        run of 30 amoebots writes ~29 MB, so the tests make that
//                                        one themselves)
//   test/fixtures/amoebot-report.json    the data block of `lmx amoebot run --execution locks --n 200
//                                        --seed 1 --report` (the run summary with its `amoebot` part)
// Both runs are deterministic, so the files change only when lmx's output does. A binary without
// `--report` (older than the amoebot report) leaves the report fixture as it is.
//   node tools/amoebot-fixtures.mjs
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { here, lmxBin } from '../test/browser.mjs';

const fixtures = path.join(here, 'fixtures');
const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'lmx-amoebot-fixtures-'));
const wrote = (f) => console.log(`wrote test/fixtures/${f} (${(fs.statSync(path.join(fixtures, f)).size / 1024).toFixed(0)} KiB)`);
try {
  execFileSync(lmxBin(), ['amoebot', 'run', '--execution', 'locks', '--n', '6', '--seed', '5', '--trace', path.join(fixtures, 'amoebot-hexagon.jsonl')], { stdio: 'inherit' });
  wrote('amoebot-hexagon.jsonl');

  const help = execFileSync(lmxBin(), ['amoebot', 'run', '--help'], { encoding: 'utf8' });
  if (!/--report/.test(help)) {
    console.log('this lmx has no `amoebot run --report`: test/fixtures/amoebot-report.json left as it is');
  } else {
    const report = path.join(tmp, 'report.html');
    execFileSync(lmxBin(), ['amoebot', 'run', '--execution', 'locks', '--n', '200', '--seed', '1', '--report', report], { stdio: 'inherit' });
    const html = fs.readFileSync(report, 'utf8');
    const m = html.match(/<script id="lmx-data" type="application\/json">([\s\S]*?)<\/script>/);
    if (!m) throw new Error(`${report} has no data block`);
    fs.writeFileSync(path.join(fixtures, 'amoebot-report.json'), JSON.stringify(JSON.parse(m[1])) + '\n');
    wrote('amoebot-report.json');
  }
} finally {
  fs.rmSync(tmp, { recursive: true, force: true });
}
