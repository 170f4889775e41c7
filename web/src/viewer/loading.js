// Opening a trace: index it (trace.js), lay it out, fill the header table, show the boxes and the
// legend that fit it, report its problems, and check every line in the background; a line found
// damaged later cuts the trace before it.
import { indexTrace, TraceError } from './trace.js';
import { computeLayout } from './layout.js';
import { latticeFit } from './lattice.js';
import { buildLegend } from './legend.js';
import { canvas, draw } from './draw.js';
import { goto, select } from './navigation.js';
import { $, ui } from './ui.js';

export function showError(msg) {
  const el = $('error');
  el.textContent = msg;
  el.hidden = !msg;
}

export async function loadText(text, name) {
  showError('');
  document.body.dataset.ready = '0';
  document.body.dataset.shown = '0';
  $('title').textContent = `loading ${name}…`;
  await new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));
  const t0 = performance.now();
  let trace;
  try {
    trace = indexTrace(text);
  } catch (err) {
    ui.trace = null;
    ui.lattice = null;
    showMode(null);
    document.body.classList.remove('loaded');
    $('title').textContent = name;
    showError(`Cannot open ${name}: ${err instanceof TraceError ? err.message : String(err)}`);
    document.body.dataset.ready = 'error';
    draw();
    return;
  }
  ui.trace = trace;
  ui.lattice = trace.amoebot ? latticeFit(trace.amoebot.bbox) : null;
  ui.layout = ui.lattice ? null : computeLayout(trace);
  ui.loadMs = performance.now() - t0;
  ui.selected = null;
  ui.view = { scale: 1, x: 0, y: 0 };
  ui.name = name;
  document.body.classList.add('loaded');
  const h = trace.header;
  $('info').innerHTML = '';
  const rows = [
    ['source', h.source], ['variant', h.variant], ['nodes', h.nodes], ['Δ, K', `${h.delta}, ${h.k}`],
    ['engine', h.engine], ['seed', h.seed], ['scenario', h.scenario && (h.scenario.name || h.scenario.topology) || '—'],
    ['rounds', trace.end ? trace.end.rounds : '—'], ['hash', trace.end ? trace.end.hash : '—'],
    ['stalled', trace.end ? String(trace.end.stalled) : '—'],
  ];
  if (h.scenario && h.scenario.detail) rows.push(['detail', h.scenario.detail]);
  const pop = trace.population;
  if (pop) rows.splice(1, 0, ['protocol', `${pop.protocol} (${pop.states.length} states)`]);
  if (trace.amoebot) rows.splice(1, 0, ['algorithm', `${trace.amoebot.algorithm} (${h.nodes} amoebots)`]);
  $('info').append(table(rows));
  showMode(trace);
  reportProblems();
  const params = new URLSearchParams(location.search);
  goto(params.has('t') ? Number(params.get('t')) : 0);
  if (params.has('node')) select(Number(params.get('node')));
  document.body.dataset.shown = '1';
  ui.shownAt = performance.now();
  // every line's JSON is checked once, in slices, after the first frame
  trace.validate((err) => {
    if (ui.trace !== trace) return;
    if (err && (!trace.error || err.line < trace.error.line)) damaged(err);
    document.body.dataset.ready = trace.error ? 'partial' : '1';
  });
}

// The population or amoebot box, their jump buttons and the legend that fits the trace.
function showMode(trace) {
  const pop = trace && !trace.amoebot ? trace.population : null;
  const amo = trace ? trace.amoebot : null;
  $('pop-box').hidden = !pop;
  $('next-interact').hidden = !pop;
  $('pop-protocol').textContent = pop ? pop.protocol : '';
  $('ab-box').hidden = !amo;
  $('next-amoebot').hidden = !amo;
  $('ab-algorithm').textContent = amo ? amo.algorithm : '';
  canvas.dataset.mode = amo ? 'lattice' : 'graph';
  buildLegend(amo ? 'amoebot' : pop ? 'population' : 'graph');
}

// The trace has a damaged line: keep the events before it.
export function damaged(err) {
  const tr = ui.trace;
  tr.error = err;
  tr.truncate(err.line - 1);
  if (ui.lattice && !tr.amoebot) { ui.lattice = null; ui.layout = computeLayout(tr); }  // the amoebots line was cut off
  showMode(tr);
  reportProblems();
  goto(Math.min(ui.t, tr.events));
}

function reportProblems() {
  const tr = ui.trace;
  const problems = [];
  if (tr.error) problems.push(`${ui.name}, ${tr.error.message}. Showing the ${tr.events} events before it.`);
  for (const w of tr.warnings) problems.push(`${ui.name}: ${w}`);
  showError(problems.join('\n'));
  $('title').textContent = `${ui.name} — ${tr.events.toLocaleString('en')} events`;
  $('scrub').max = String(tr.events);
}

export async function loadFile(file) {
  try {
    loadText(new Uint8Array(await file.arrayBuffer()), file.name);
  } catch (err) {
    showError(`Cannot read ${file.name}: ${err}`);
  }
}

function table(rows) {
  const tb = document.createElement('table');
  tb.className = 'kv';
  for (const [k, v] of rows) {
    const tr = tb.insertRow();
    const th = document.createElement('th');
    th.textContent = k;
    tr.append(th);
    tr.insertCell().textContent = v === undefined || v === null ? '—' : String(v);
  }
  return tb;
}
