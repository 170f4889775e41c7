// Launches Debian's Chromium headless through playwright-core (no browser is ever downloaded),
// and locates what the tests use: the built pages, the lmx binary, the results folder.
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const here = path.dirname(fileURLToPath(import.meta.url));
export const web = path.dirname(here);
export const results = path.join(web, 'test-results');
fs.mkdirSync(results, { recursive: true });

export const CHROMIUM = process.env.LMX_CHROMIUM || '/usr/bin/chromium';
export const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];

export function viewerUrl(query = '') {
  const file = path.join(web, 'dist', 'index.html');
  if (!fs.existsSync(file)) throw new Error('web/dist/index.html is missing: run `npm run build` in web/');
  return pathToFileURL(file).href + query;
}

/// The lmx binary: $LMX_BIN, else the release build, else the dev build.
export function lmxBin() {
  const root = path.dirname(web);
  const candidates = [process.env.LMX_BIN, path.join(root, 'build/release/tools/lmx/lmx'), path.join(root, 'build/dev/tools/lmx/lmx')];
  const bin = candidates.find((c) => c && fs.existsSync(c));
  if (!bin) throw new Error('no lmx binary: build one (scripts/build.sh release) or set LMX_BIN');
  return bin;
}

export async function launch() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'lmx-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1400, height: 860 },
  });
  context.cleanupDir = profile;
  return context;
}
export async function close(context) {
  if (!context) return;
  await context.close();
  fs.rmSync(context.cleanupDir, { recursive: true, force: true });
}
