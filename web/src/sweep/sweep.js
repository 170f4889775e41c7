// The self-contained sweep report: `lmx sweep SWEEP.toml --report out.html` inlines the sweep
// (axes, seeds, base scenario) and its stored points into this page. For every numeric figure
// there is one plot against each grid key: one line per combination of the other keys (the mean
// over seeds), with the seeds' min–max spread as a band. Plots use uPlot; nothing is fetched.
import uPlot from 'uplot';
import { $, fail, kv, num } from '../common/page.js';

const COLOURS = ['#2563eb', '#dc2626', '#16a34a', '#9333ea', '#ea580c', '#0891b2', '#db2777', '#65a30d', '#4f46e5', '#b45309', '#0f766e', '#be123c'];
const MAX_LINES = COLOURS.length;
const PROPS = ['P1', 'P2', 'P3', 'P4', 'P5', 'P6', 'P7'];

const show = (v) => (typeof v === 'string' ? v : JSON.stringify(v));
const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);

function flatten(s, prefix = '', out = []) {
  if (s === null || typeof s !== 'object' || Array.isArray(s)) { out.push([prefix, Array.isArray(s) && s.length > 12 ? `[${s.length} items]` : show(s)]); return out; }
  for (const [k, v] of Object.entries(s)) flatten(v, prefix ? `${prefix}.${k}` : k, out);
  return out;
}

function width(el) { return Math.max(320, el.clientWidth || 460); }

/// Every combination of the given axes' values (an array of value arrays).
function combinations(axes) {
  let out = [[]];
  for (const a of axes) out = out.flatMap((c) => a.values.map((v) => [...c, v]));
  return out;
}

/// One plot: figure column `fi` against axis `xa`. Lines: combinations of the other axes, as many
/// of them (in order) as fit MAX_LINES; the rest are pooled with the seeds.
function plotFigure(el, data, fi, xa) {
  const axes = data.axes;
  const fig = data.figures[fi];
  const xAxis = axes[xa];
  const others = axes.filter((_, i) => i !== xa);
  const lineAxes = [];
  let lines = 1;
  for (const a of others) {
    if (lines * a.values.length > MAX_LINES) break;
    lineAxes.push(a);
    lines *= a.values.length;
  }
  const pooled = others.filter((a) => !lineAxes.includes(a));
  const numeric = xAxis.values.every((v) => typeof v === 'number');
  const xValues = numeric ? [...xAxis.values].sort((a, b) => a - b) : xAxis.values;
  const xs = numeric ? xValues : xValues.map((_, i) => i);
  const series = [];
  const columns = [xs];
  const bands = [];
  let drawn = 0;
  combinations(lineAxes).forEach((combo, li) => {
    const mean = [], lo = [], hi = [];
    let any = false;
    for (const xv of xValues) {
      const ys = [];
      for (const r of data.rows) {
        if (!same(r.grid[xAxis.key], xv)) continue;
        if (!lineAxes.every((a, j) => same(r.grid[a.key], combo[j]))) continue;
        const y = r.values[fi];
        if (typeof y === 'number') ys.push(y);
      }
      if (ys.length) {
        any = true;
        mean.push(ys.reduce((a, b) => a + b, 0) / ys.length);
        lo.push(Math.min(...ys));
        hi.push(Math.max(...ys));
      } else { mean.push(null); lo.push(null); hi.push(null); }
    }
    if (!any) return;
    const colour = COLOURS[li % COLOURS.length];
    const label = lineAxes.length ? lineAxes.map((a, j) => `${a.key} = ${show(combo[j])}`).join(', ') : fig.label;
    const base = columns.length;
    columns.push(mean, lo, hi);
    series.push({ label, stroke: colour, width: 2, points: { show: true, size: 5 }, spanGaps: true },
      { label: `${label} min`, stroke: colour + '55', width: 1, points: { show: false }, spanGaps: true },
      { label: `${label} max`, stroke: colour + '55', width: 1, points: { show: false }, spanGaps: true });
    bands.push({ series: [base + 2, base + 1], fill: colour + '22' });
    drawn += mean.filter((y) => y !== null).length;
  });
  el.dataset.points = String(drawn);
  el.dataset.lines = String(series.length / 3);
  if (!drawn) { el.innerHTML = '<div class="empty">no stored points with this figure</div>'; return; }
  const positive = numeric && xs.length > 1 && xs[0] > 0;
  const opts = {
    width: width(el),
    height: 230,
    scales: { x: { time: false, distr: positive && xs[xs.length - 1] / xs[0] >= 50 ? 3 : 1, ...(numeric ? {} : { range: [-0.5, xs.length - 0.5] }) } },
    axes: [
      // ticks at the grid's values only: they are the points measured
      numeric ? { label: xAxis.key, splits: () => xs, values: (_, ticks) => ticks.map((t) => show(t)) }
        : { label: xAxis.key, splits: () => xs, values: (_, ticks) => ticks.map((t) => show(xValues[t] ?? '')) },
      { label: fig.label, size: 60 },
    ],
    legend: { show: false },
    series: [{ label: xAxis.key }, ...series],
    bands,
  };
  el.uplot = new uPlot(opts, columns, el);
  const legend = document.createElement('div');
  legend.className = 'legend';
  for (let i = 0; i < series.length; i += 3) {
    const s = document.createElement('span');
    s.style.setProperty('--c', series[i].stroke);
    s.textContent = series[i].label;
    legend.append(s);
  }
  el.after(legend);
  if (pooled.length) {
    const note = document.createElement('div');
    note.className = 'note';
    note.textContent = `pooled with the seeds: ${pooled.map((a) => a.key).join(', ')}`;
    legend.after(note);
  }
}

function main() {
  let data;
  try {
    data = JSON.parse($('lmx-data').textContent);
  } catch (err) {
    fail(`The report's data block is missing or damaged (${err.message}).`);
    return;
  }
  const rows = data.rows || [];
  const gridPoints = (data.axes || []).reduce((n, a) => n * a.values.length, 1);
  $('subtitle').textContent = `${data.name} · ${num(rows.length)} of ${num(data.total_points)} points stored · ${num(gridPoints)} grid points × ${num((data.seeds || []).length)} seeds · generated by lmx ${data.lmx_version || ''}`;
  $('sweep').append(kv([
    ['name', data.name],
    ...(data.description ? [['description', data.description]] : []),
    ['sweep file', data.file],
    ...data.axes.map((a) => [`grid: ${a.key}`, a.values.map(show).join(', ')]),
    ['seeds', (data.seeds || []).length > 12 ? `${data.seeds.length} seeds (${data.seeds[0]} … ${data.seeds[data.seeds.length - 1]})` : (data.seeds || []).join(', ')],
    ['base scenario hash', data.base_hash],
    ...(data.hidden ? [['not shown', `${data.hidden} stored points of other grids or base scenarios (--all shows them)`]] : []),
  ]));
  const base = flatten(data.base || {});
  $('base').append(base.length ? kv(base.slice(0, 60)) : document.createTextNode('the built-in default scenario'));

  // verdicts: how many points fail each property, and which
  const vt = document.createElement('table');
  const failing = [];
  const col = (name) => data.figures.findIndex((f) => f.column === name);
  const stalled = col('stalled');
  for (const p of PROPS) {
    const i = col(p);
    const fails = rows.filter((r) => r.values[i] === 'fail');
    const tr = vt.insertRow();
    tr.dataset.property = p;
    tr.dataset.fails = String(fails.length);
    const th = document.createElement('th');
    th.textContent = p;
    tr.append(th);
    const b = document.createElement('span');
    b.className = `verdict ${fails.length ? 'fail' : rows.length ? 'pass' : 'na'}`;
    b.textContent = fails.length ? 'fail' : rows.length ? 'pass' : 'n/a';
    tr.insertCell().append(b);
    tr.insertCell().textContent = `${data.figures[i].label}: ${fails.length ? `fails in ${fails.length} of ${rows.length} points` : `passes in all ${rows.length} points`}`;
  }
  $('verdicts').append(vt);
  for (const r of rows) {
    const props = PROPS.filter((p) => r.values[col(p)] === 'fail');
    if (props.length || r.values[stalled] === 1) failing.push(`${Object.entries(r.grid).map(([k, v]) => `${k} = ${show(v)}`).join(', ')} seed ${r.seed}: ${[...props, ...(r.values[stalled] === 1 ? ['global stall'] : [])].join(', ')}`);
  }
  if (failing.length) {
    const ul = document.createElement('ul');
    for (const f of failing.slice(0, 50)) { const li = document.createElement('li'); li.textContent = f; ul.append(li); }
    $('verdicts').append(ul);
  }

  // With no grid, the seeds are the x axis.
  const plotData = data.axes.length ? data : { ...data, axes: [{ key: 'seed', values: rows.map((r) => r.seed) }], rows: rows.map((r) => ({ ...r, grid: { seed: r.seed } })) };
  data.figures.forEach((f, fi) => {
    if (f.kind !== 'integer' && f.kind !== 'real') return;
    const card = document.createElement('section');
    card.className = 'card figure';
    card.dataset.figure = f.column;
    const h = document.createElement('h3');
    h.textContent = f.label;
    const rowEl = document.createElement('div');
    rowEl.className = 'row';
    card.append(h, rowEl);
    $('plots').append(card);
    plotData.axes.forEach((a, xa) => {
      const cell = document.createElement('div');
      const chart = document.createElement('div');
      chart.className = 'chart';
      chart.id = `plot-${f.column}-${a.key}`;
      chart.dataset.figure = f.column;
      chart.dataset.axis = a.key;
      cell.append(chart);
      rowEl.append(cell);
      plotFigure(chart, plotData, fi, xa);
    });
  });

  $('footer').textContent = `Each line is the mean over the seeds stored for its grid point; the band spans their minimum to maximum. Base scenario hash ${data.base_hash}. Self-contained: this file loads nothing from the network.`;
  document.body.dataset.ready = '1';
}

try {
  main();
} catch (err) {
  fail(`The report could not be drawn: ${err.message}`);
  document.body.dataset.ready = 'error';
}
