// The self-contained run report: `lmx report RUN.json [--trace TRACE] -o report.html` inlines the
// run summary (docs/run-format.md) and, when a trace is given, exact per-Lock latencies and the
// trace's violations, into this page. Plots use uPlot; nothing is fetched. A population-protocol
// run (`lmx pp run --report`) adds its figures and the state counts over time; an amoebot run
// (`lmx amoebot run --execution locks --report`) its figures against the sequential execution and
// the run over time.
import uPlot from 'uplot';
import { $, fail, kv, num } from '../common/page.js';
import { stateColour } from '../common/palette.js';

const PROPS = {
  P1: 'Mutual exclusion: lock sets are disjoint',
  P2: 'Isolation: a LOCKED node\'s persistent neighbours point at it',
  P3: 'Success semantics: Lock returns exactly the persistent neighbourhood',
  P4: 'At most two messages in transit per edge',
  P5: 'O(Δ) bits of node state',
  P6: 'Constant-size messages',
  P7: 'Lockout freedom: every Lock completes',
};
const KIND_ORDER = ['prepare', 'ready', 'request-lock', 'win', 'set-lock', 'ack-lock', 'release-lock', 'ack-unlock'];


const code = (s) => { const c = document.createElement('code'); c.textContent = s; return c; };

function flattenScenario(s, prefix = '', out = []) {
  if (s === null || typeof s !== 'object' || Array.isArray(s)) { out.push([prefix, Array.isArray(s) && s.length > 12 ? `[${s.length} items]` : JSON.stringify(s)]); return out; }
  for (const [k, v] of Object.entries(s)) {
    const key = prefix ? `${prefix}.${k}` : k;
    if (v && typeof v === 'object' && !Array.isArray(v) && Object.keys(v).length <= 12) flattenScenario(v, key, out);
    else out.push([key, typeof v === 'string' ? v : Array.isArray(v) && v.length > 12 ? `[${v.length} items]` : JSON.stringify(v)]);
  }
  return out;
}

function width(el) { return Math.max(320, el.clientWidth || 480); }

// Draws one uPlot chart; marks the container with the number of data points drawn. Series with
// `right: true` use a second y axis on the right, labelled `rightLabel`.
function plot(id, { xs, series, xLabel, yLabel, bars = false, step = false, xTime = false, rightLabel = '' }) {
  const el = $(id);
  const points = xs ? xs.length : 0;
  el.dataset.points = String(points);
  if (!points) {
    el.innerHTML = '<div class="empty">no data in this run</div>';
    el.dataset.points = '0';
    return;
  }
  const paths = bars ? uPlot.paths.bars({ size: [0.8, 60] }) : step ? uPlot.paths.stepped({ align: 1 }) : undefined;
  const right = series.some((s) => s.right);
  const opts = {
    width: width(el),
    height: 240,
    scales: { x: { time: xTime }, y: bars ? { range: (u, min, max) => [0, max > 0 ? max * 1.08 : 1] } : {}, ...(right ? { r: { range: (u, min, max) => [0, max > 0 ? max * 1.08 : 1] } } : {}) },
    axes: [{ label: xLabel }, { label: yLabel }, ...(right ? [{ scale: 'r', side: 1, label: rightLabel, grid: { show: false } }] : [])],
    legend: { show: series.length > 1 },
    series: [{ label: xLabel }, ...series.map((s) => ({
      label: s.label, stroke: s.colour, fill: bars ? s.colour + 'aa' : s.fill, width: bars ? 1 : 2, paths, points: { show: false }, ...(s.right ? { scale: 'r' } : {}),
    }))],
  };
  const u = new uPlot(opts, [xs, ...series.map((s) => s.ys)], el);
  el.uplot = u;
}

function categorical(id, labels, ys, colour, yLabel) {
  // uPlot has numeric x: bars at 0..n-1 with the labels as tick values
  const el = $(id);
  if (!labels.length) { el.innerHTML = '<div class="empty">no data in this run</div>'; el.dataset.points = '0'; return; }
  el.dataset.points = String(labels.length);
  const xs = labels.map((_, i) => i);
  const u = new uPlot({
    width: width(el), height: 240, scales: { x: { time: false, range: [-0.6, labels.length - 0.4] }, y: { range: (u, min, max) => [0, max > 0 ? max * 1.08 : 1] } },
    axes: [{ values: (_, ticks) => ticks.map((t) => (Number.isInteger(t) ? labels[t] ?? '' : '')), space: 40, incrs: [1] }, { label: yLabel }],
    legend: { show: false },
    series: [{}, { label: yLabel, stroke: colour, fill: colour + 'aa', paths: uPlot.paths.bars({ size: [0.7, 80] }), points: { show: false } }],
  }, [xs, ys], el);
  el.uplot = u;
}

// A card like the page's own, inserted before `before` (the page's sections stay as they are for
// every other run).
function card(id, title, before, cls = '') {
  const sec = document.createElement('section');
  sec.className = `card ${cls}`.trim();
  sec.id = `${id}-card`;
  const h = document.createElement('h2');
  h.textContent = title;
  const body = document.createElement('div');
  body.id = id;
  if (cls === 'plot') body.className = 'chart';
  sec.append(h, body);
  before.before(sec);
  return body;
}

const counts = (c) => (c && typeof c === 'object' ? Object.entries(c).map(([s, k]) => `${s} ${num(k)}`).join(' · ') : undefined);

// The population part of `lmx pp run --report` (docs/population.md): the run's figures, and the
// count of each state against parallel time, one line per state in the viewer's state colours.
function population(pop, before) {
  const lk = pop.lock || null;
  const rows = [
    ['protocol', pop.protocol], ['scheduler', pop.scheduler], ['agents', num(pop.agents)], ['stop', pop.stop],
    ['converged', pop.converged === undefined ? undefined : String(pop.converged)], ['parallel time', num(pop.parallel_time, 3)],
    ['outcome', pop.outcome], ['interactions', num(pop.interactions)], ['interactions per round', num(pop.interactions_per_round, 4)],
  ];
  if (pop.initial_counts) rows.push(['initial counts', counts(pop.initial_counts)]);
  if (pop.final_counts) rows.push(['final counts', counts(pop.final_counts)]);
  if (lk) {
    rows.push(
      ['lock requests', num(lk.lock_requests)], ['lock cycles', num(lk.lock_cycles)], ['cycles without a partner', num(lk.no_partner)],
      ['messages per interaction', num(lk.messages_per_interaction, 2)], ['lock requests per interaction', num(lk.lock_requests_per_interaction, 3)],
      ['isolation checks', num(lk.isolation_checks)],
    );
  }
  const figures = card('population', 'Population protocol', before);
  figures.append(kv(rows));

  card('plot-population', 'Population: agents in each state over parallel time', before, 'plot');
  const h = pop.history || {};
  const xs = Array.isArray(h.parallel_time) ? h.parallel_time : [];
  // the protocol's order of states (the palette is by index), then any the history adds
  const byName = h.counts && typeof h.counts === 'object' ? h.counts : {};
  const names = [...(Array.isArray(pop.states) ? pop.states : []).filter((s) => s in byName), ...Object.keys(byName).filter((s) => !(pop.states || []).includes(s))];
  const index = (s) => { const k = (pop.states || []).indexOf(s); return k >= 0 ? k : (pop.states || []).length + names.indexOf(s); };
  const series = names.filter((s) => Array.isArray(byName[s]) && byName[s].length === xs.length)
    .map((s) => ({ label: s, ys: byName[s], colour: stateColour(index(s)) }));
  plot('plot-population', series.length ? { xs, series, xLabel: 'parallel time (interactions / agents)', yLabel: 'agents' } : { xs: [], series: [] });
  $('plot-population').dataset.series = series.map((s) => s.label).join(',');
}

// The amoebot part of `lmx amoebot run --execution locks --report` (docs/amoebot.md): the run's
// figures, the same configuration run one amoebot at a time, the lock figures, and the run over
// model rounds (amoebots in a final state, awake and acting; cumulative moves).
const AMOEBOT_LOCKS = [
  ['model_rounds', 'model rounds (lmx engine)', 0], ['lock_cycles', 'Lock cycles', 0], ['lock_requests', 'Lock requests', 0],
  ['sleeps', 'cycles that found nothing enabled (sleeps)', 0], ['incomplete_locks', 'incomplete Locks', 0],
  ['aborted', 'actions given up (neighbourhood changed)', 0], ['expansion_conflicts', 'expansion conflicts', 0],
  ['messages', 'messages', 0], ['messages_per_action', 'messages per action', 1],
  ['lock_latency', 'Lock latency p50 / p99 (model rounds)', null], ['acting', 'acting at once: max / mean', null],
  ['locking', 'locking at once: max / mean', null], ['protocol_actions', 'protocol actions', 0],
  ['isolation_checks', 'isolation checks', 0], ['serializability_checks', 'serializability checks', 0],
];
// figures shown two to a row: [first key, second key, decimals of each]
const LOCK_PAIRS = { lock_latency: ['lock_latency_p50', 'lock_latency_p99', 1, 1], acting: ['max_acting', 'mean_acting', 0, 2], locking: ['max_locking', 'mean_locking', 0, 2] };
const AMOEBOT_SHOWN = new Set(['algorithm', 'execution', 'n', 'seed', 'hole_prob', 'rounds', 'actions', 'moves', 'activations', 'terminated', 'final_shape_ok',
  'final_shape_detail', 'final_states', 'connected', 'handovers', 'final_states_at', 'sequential', 'locks', 'history', 'violations']);
const yesNo = (v) => (v === undefined || v === null ? undefined : v === true ? 'yes' : v === false ? 'no' : String(v));
const ratio = (a, b) => (typeof a === 'number' && typeof b === 'number' && b > 0 ? `× ${num(a / b, 2)}` : '—');
const label = (k) => k.replace(/_/g, ' ');
// A figure of unknown meaning: integers grouped, large numbers rounded, small ones with 3 decimals.
const figure = (v) => (typeof v === 'number' ? num(Number.isInteger(v) || Math.abs(v) < 1000 ? v : Math.round(v), 3) : yesNo(v));

function amoebots(am, before) {
  const seq = am.sequential && typeof am.sequential === 'object' ? am.sequential : null;
  const lk = am.locks && typeof am.locks === 'object' ? am.locks : {};
  const figures = card('amoebot', 'Amoebots', before);
  const rows = [
    ['algorithm', am.algorithm], ['execution', am.execution], ['amoebots', num(am.n)], ['hole probability', num(am.hole_prob, 2)], ['seed', am.seed],
    ['terminated', yesNo(am.terminated)],
    ['final shape', am.final_shape_ok === undefined ? undefined : am.final_shape_ok ? 'ok' : `wrong${am.final_shape_detail ? `: ${am.final_shape_detail}` : ''}`],
  ];
  if (am.final_states !== undefined) rows.push(['every amoebot in a final state', yesNo(am.final_states)]);
  if (am.final_states_at && typeof am.final_states_at === 'object') rows.push(['every amoebot final at', `round ${num(am.final_states_at.rounds)} (${num(am.final_states_at.moves)} moves)`]);
  if (am.handovers !== undefined) rows.push(['handovers (pulls and pushes)', num(am.handovers)]);
  if (am.connected !== undefined) rows.push(['connected at the end', yesNo(am.connected)]);
  for (const [k, v] of Object.entries(am)) if (!AMOEBOT_SHOWN.has(k) && (v === null || typeof v !== 'object')) rows.push([label(k), figure(v)]);
  const t = kv(rows);
  t.id = 'amoebot-figures';
  figures.append(t);

  // the concurrent run against the same configuration one amoebot at a time
  const cmp = card('amoebot-compare', 'Amoebots: concurrent (lmx locks) against sequential', before);
  const ct = document.createElement('table');
  ct.id = 'amoebot-comparison';
  const head = ct.createTHead().insertRow();
  for (const h of ['', 'concurrent', 'sequential', 'ratio']) {
    const th = document.createElement('th');
    th.textContent = h;
    head.append(th);
  }
  const body = ct.createTBody();
  const line = (key, name, a, b, note = '') => {
    const tr = body.insertRow();
    tr.dataset.key = key;
    const th = document.createElement('th');
    th.textContent = name;
    tr.append(th);
    tr.insertCell().textContent = num(a, 0);
    tr.insertCell().textContent = seq ? num(b, 0) : '—';
    tr.insertCell().textContent = seq ? ratio(a, b) : '—';
    if (note) tr.title = note;
  };
  line('rounds', 'rounds (amoebot model)', am.rounds, seq && seq.rounds, 'a round ends when every amoebot has been activated at least once since the last');
  line('actions', 'actions', am.actions, seq && seq.actions);
  line('moves', 'moves', am.moves, seq && seq.moves, 'expand and contract 1, pull and push 2');
  line('activations', 'activations (concurrent: Lock cycles)', am.activations ?? lk.lock_cycles, seq && seq.activations);
  cmp.append(ct);
  cmp.append(Object.assign(document.createElement('div'), {
    className: 'muted note',
    textContent: `concurrent: this run (execution ${am.execution || 'locks'}: each action under an lmx Lock of its neighbourhood); sequential: the same configuration run one amoebot at a time; ratio: concurrent / sequential.`,
  }));
  if (!seq) cmp.append(Object.assign(document.createElement('div'), { className: 'muted', textContent: 'The report has no sequential run of the same configuration.' }));
  else if (seq.terminated === false) cmp.append(Object.assign(document.createElement('div'), { className: 'muted', textContent: 'The sequential run did not terminate.' }));

  // the lock figures, the known ones first, then whatever else the run reports
  const lrows = [];
  const used = new Set();
  for (const [k, name, d] of AMOEBOT_LOCKS) {
    if (LOCK_PAIRS[k]) {
      const [a, b, da, db] = LOCK_PAIRS[k];
      if (lk[a] === undefined && lk[b] === undefined) continue;
      used.add(a); used.add(b);
      lrows.push([name, `${num(lk[a], da)} / ${num(lk[b], db)}`]);
    } else if (lk[k] !== undefined) {
      used.add(k);
      lrows.push([name, num(lk[k], d)]);
    }
  }
  for (const [k, v] of Object.entries(lk)) if (!used.has(k) && (v === null || typeof v !== 'object')) lrows.push([label(k), figure(v)]);
  const lt = kv(lrows);
  lt.id = 'amoebot-locks';
  const lc = card('amoebot-locks-body', 'Amoebots: the locks', before);
  lc.append(lt);

  // the run over model rounds
  const h = am.history && typeof am.history === 'object' ? am.history : {};
  const xs = Array.isArray(h.model_round) ? h.model_round : [];
  const ok = (k) => Array.isArray(h[k]) && h[k].length === xs.length;
  card('plot-amoebot-states', 'Amoebots: final, awake and acting over model rounds', before, 'plot');
  const states = [
    ok('final') && { label: 'in a final state', ys: h.final, colour: '#7c3aed' },
    ok('awake') && { label: 'awake', ys: h.awake, colour: '#2563eb' },
    ok('acting') && { label: 'acting (right axis)', ys: h.acting, colour: '#ea580c', right: true },
  ].filter(Boolean);
  plot('plot-amoebot-states', states.length ? { xs, series: states, xLabel: 'model round', yLabel: 'amoebots', rightLabel: 'acting amoebots' } : { xs: [], series: [] });
  $('plot-amoebot-states').dataset.series = states.map((x) => x.label).join(',');
  card('plot-amoebot-moves', 'Amoebots: cumulative moves over model rounds', before, 'plot');
  const moves = [
    ok('moves') && { label: 'moves', ys: h.moves, colour: '#db2777' },
    ok('amoebot_round') && { label: 'amoebot rounds (right axis)', ys: h.amoebot_round, colour: '#64748b', right: true },
  ].filter(Boolean);
  plot('plot-amoebot-moves', ok('moves') ? { xs, series: moves, xLabel: 'model round', yLabel: 'moves so far', rightLabel: 'amoebot rounds' } : { xs: [], series: [] });
  $('plot-amoebot-moves').dataset.series = ok('moves') ? moves.map((x) => x.label).join(',') : '';
}

function main() {
  let data;
  try {
    data = JSON.parse($('lmx-data').textContent);
  } catch (err) {
    fail(`The report's data block is missing or damaged (${err.message}).`);
    return;
  }
  const run = data.run || {};
  const trace = data.trace || null;
  const sc = run.scenario || {};
  const am = run.amoebot && typeof run.amoebot === 'object' ? run.amoebot : null;
  $('subtitle').textContent = `${am ? `amoebots: ${am.algorithm || '?'}, n ${num(am.n)}` : sc.name || 'run'} · variant ${run.variant ?? '—'} · seed ${run.seed ?? '—'} · ${num(run.rounds)} rounds · generated by lmx ${data.lmx_version || ''}`;

  $('scenario').append(kv(flattenScenario(sc).slice(0, 40)));

  // verdicts
  const props = run.properties || {};
  const vt = document.createElement('table');
  for (const p of Object.keys(PROPS)) {
    const v = props[p];
    const tr = vt.insertRow();
    const b = document.createElement('span');
    b.className = `verdict ${v === 'pass' ? 'pass' : v === 'fail' ? 'fail' : 'na'}`;
    b.textContent = v || 'n/a';
    tr.dataset.property = p;
    tr.dataset.verdict = v || 'n/a';
    const th = document.createElement('th');
    th.textContent = p;
    tr.append(th);
    tr.insertCell().append(b);
    tr.insertCell().textContent = PROPS[p] + (p === 'P4' && run.max_in_transit_per_edge !== undefined ? ` (measured max ${run.max_in_transit_per_edge})` : '')
      + (p === 'P5' && run.bits_per_node ? ` (${run.bits_per_node.layout} bits used; paper's O(Δ) accounting ${run.bits_per_node.paper})` : '');
  }
  $('verdicts').append(vt);
  const viols = [...(run.violations || [])];
  if (trace && trace.violations) for (const v of trace.violations) if (!viols.some((w) => w.property === v.property && w.round === v.round)) viols.push(v);
  if (viols.length) {
    const ul = document.createElement('ul');
    for (const v of viols.slice(0, 50)) {
      const li = document.createElement('li');
      li.textContent = `${v.property} at round ${v.round}: ${v.detail || ''} (nodes ${(v.nodes || []).join(', ')})`;
      ul.append(li);
    }
    $('violations').append(ul);
  }
  if (run.stalled) $('violations').prepend('A global stall was found.');
  // a population protocol's own results come before the lock figures they ran on
  if (run.population && typeof run.population === 'object') population(run.population, $('figures').closest('section'));
  // likewise an amoebot run's (the lock figures below are its Lock calls')
  if (am) amoebots(am, $('figures').closest('section'));

  const lr = run.latency_rounds || {};
  $('figures').append(kv([
    ['Locks requested / completed', `${num(run.locks_requested)} / ${num(run.locks_completed)}`],
    ['latency (rounds) p50 / p90 / p99 / max', [lr.p50, lr.p90, lr.p99, lr.max].map((x) => num(x, 1)).join(' / ')],
    ['mean latency (rounds)', num(lr.mean, 2)],
    ['trials per Lock (mean / max)', run.trials_per_lock ? `${num(run.trials_per_lock.mean, 2)} / ${num(run.trials_per_lock.max)}` : '—'],
    ['messages per Lock', num(run.messages_per_lock, 2)],
    ['Locks per round', num(run.locks_per_round, 4)],
    ['mean LOCKED nodes', num(run.mean_locked, 2)],
    ['Jain fairness index', num(run.jain_fairness, 4)],
    ['max messages in transit per edge', num(run.max_in_transit_per_edge)],
    ['bytes per node', num(run.bytes_per_node, 1)],
    ['actions / s, wall time', `${num(run.actions_per_second, 0)} / ${num(run.wall_seconds, 2)} s`],
    ['trace hash', run.trace_hash ? code(run.trace_hash) : '—'],
  ]));

  // latency histogram: from the trace's exact latencies when present, else the summary's bins
  let edges = run.latency_histogram ? run.latency_histogram.bin_edges : null;
  let counts = run.latency_histogram ? run.latency_histogram.counts : null;
  const lat = trace && Array.isArray(trace.latencies) && trace.latencies.length ? trace.latencies.slice().sort((a, b) => a - b) : null;
  if ((!edges || !counts || !counts.length) && lat) {
    const max = lat[lat.length - 1], bins = Math.min(40, Math.max(1, Math.ceil(max) + 1));
    const w = Math.max(1, Math.ceil((max + 1) / bins));
    edges = Array.from({ length: bins + 1 }, (_, i) => i * w);
    counts = new Array(bins).fill(0);
    for (const x of lat) counts[Math.min(bins - 1, Math.floor(x / w))] += 1;
  }
  if (edges && counts && counts.length) {
    const mids = counts.map((_, i) => (edges[i] + edges[i + 1]) / 2);
    plot('plot-latency-hist', { xs: mids, series: [{ label: 'Locks', ys: counts, colour: '#2563eb' }], xLabel: 'latency (rounds)', yLabel: 'Locks', bars: true });
  } else plot('plot-latency-hist', { xs: [], series: [] });

  // CDF: exact from the trace, else from the histogram
  let cx = [], cy = [];
  if (lat) {
    lat.forEach((x, i) => { if (i + 1 === lat.length || lat[i + 1] !== x) { cx.push(x); cy.push((i + 1) / lat.length); } });
  } else if (edges && counts && counts.length) {
    const total = counts.reduce((a, b) => a + b, 0) || 1;
    let acc = 0;
    cx = [edges[0]]; cy = [0];
    counts.forEach((c, i) => { acc += c; cx.push(edges[i + 1]); cy.push(acc / total); });
  }
  plot('plot-latency-cdf', { xs: cx, series: [{ label: 'fraction of Locks', ys: cy, colour: '#7c3aed' }], xLabel: 'latency (rounds)', yLabel: 'fraction ≤ x', step: !!lat });

  const s = run.series || {};
  const rounds = Array.isArray(s.round) ? s.round : [];
  if (rounds.length > 1 && Array.isArray(s.locks_completed)) {
    // per sample interval -> per round
    const per = s.locks_completed.map((c, i) => c / Math.max(1, i ? rounds[i] - rounds[i - 1] : rounds[0] || 1));
    plot('plot-locks', { xs: rounds, series: [{ label: 'Locks / round', ys: per, colour: '#16a34a' }], xLabel: 'round', yLabel: 'Locks completed per round' });
  } else plot('plot-locks', { xs: [], series: [] });
  if (rounds.length > 1 && Array.isArray(s.locked_nodes)) {
    plot('plot-locked', { xs: rounds, series: [{ label: 'LOCKED nodes', ys: s.locked_nodes, colour: '#ea580c', fill: '#ea580c22' }], xLabel: 'round', yLabel: 'LOCKED nodes' });
  } else plot('plot-locked', { xs: [], series: [] });

  const byKind = run.messages_per_lock_by_kind || {};
  const kinds = [...KIND_ORDER.filter((k) => k in byKind), ...Object.keys(byKind).filter((k) => !KIND_ORDER.includes(k))];
  categorical('plot-messages', kinds, kinds.map((k) => byKind[k] ?? 0), '#0891b2', 'messages per Lock');

  const per = Array.isArray(run.per_node_locks) ? run.per_node_locks.slice().sort((a, b) => a - b) : [];
  if (per.length) {
    plot('plot-fairness', { xs: per.map((_, i) => i), series: [{ label: 'completed Locks', ys: per, colour: '#db2777' }], xLabel: `participating nodes, sorted (Jain index ${num(run.jain_fairness, 4)})`, yLabel: 'completed Locks', bars: true });
  } else plot('plot-fairness', { xs: [], series: [] });

  $('footer').textContent = `Run summary schema ${run.schema ?? '?'}${trace ? `; trace ${trace.name || ''}: ${num(trace.events)} events, ${trace.latencies ? trace.latencies.length : 0} Lock latencies` : ''}. Self-contained: this file loads nothing from the network.`;
  document.body.dataset.ready = '1';
}

try {
  main();
} catch (err) {
  fail(`The report could not be drawn: ${err.message}`);
  document.body.dataset.ready = 'error';
}
