// Builds the static pages into dist/, each one self-contained HTML file (scripts and styles
// inlined, no module loading), so they work from file://, from `lmx view` and inside a mailed
// report. Output is deterministic for a given package-lock.json.
import * as esbuild from 'esbuild';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const dist = path.join(here, 'dist');
fs.mkdirSync(dist, { recursive: true });

async function bundle(entry) {
  const out = await esbuild.build({
    entryPoints: [path.join(here, entry)], bundle: true, format: 'iife', minify: true, write: false,
    target: ['chrome110', 'firefox110', 'safari16'], legalComments: 'inline', charset: 'utf8',
  });
  return out.outputFiles[0].text;
}
// Inline text must not close the surrounding element early.
const safeJs = (s) => s.replace(/<\/(script)/gi, '<\\/$1').replace(/<!--/g, '<\\!--');
const safeCss = (s) => s.replace(/<\/(style)/gi, '<\\/$1');

async function page(dir, out, extraCss = []) {
  const html = fs.readFileSync(path.join(here, 'src', dir, `${dir === 'viewer' ? 'index' : dir}.html`), 'utf8');
  const css = [...extraCss.map((f) => fs.readFileSync(path.join(here, f), 'utf8')), fs.readFileSync(path.join(here, 'src', dir, 'style.css'), 'utf8')].join('\n');
  const js = await bundle(`src/${dir}/${dir === 'viewer' ? 'main' : dir}.js`);
  const result = html.replace('/*CSS*/', () => safeCss(css)).replace('/*JS*/', () => safeJs(js));
  fs.writeFileSync(path.join(dist, out), result);
  console.log(`web: dist/${out} ${(result.length / 1024).toFixed(0)} KiB`);
}

await page('viewer', 'index.html');
await page('report', 'report.html', ['node_modules/uplot/dist/uPlot.min.css']);
await page('sweep', 'sweep.html', ['node_modules/uplot/dist/uPlot.min.css']);
