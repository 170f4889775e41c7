// Launches Debian's Chromium headless through playwright-core (no browser download).
import { chromium } from 'playwright-core';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

export const CHROMIUM = process.env.LMX_CHROMIUM || '/usr/bin/chromium';
export const FLAGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking',
  '--disable-component-update', '--disable-sync'];

export async function launch() {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'lmx-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM, headless: true, args: FLAGS, viewport: { width: 1400, height: 860 },
  });
  context.cleanupDir = profile;
  return context;
}
export async function close(context) {
  await context.close();
  fs.rmSync(context.cleanupDir, { recursive: true, force: true });
}
