// An amoebot trace in the side panel: the amoebot's rows among the registers, and the Amoebots
// box (the algorithm's states with their counts, the counters, who is acting); also the state name
// and colour of an amoebot, which the canvas uses too.
import { KIND } from './trace.js';
import { legendRow, NO_STATE_COLOUR } from './legend.js';
import { stateColour } from '../common/palette.js';
import { $, ui } from './ui.js';

export const AMOEBOT_ROWS = {
  amoebot: 'the algorithm state of this amoebot', position: 'head and tail, axial lattice coordinates (x, y)',
  compass: 'its compass offset: local direction d is global direction (compass + d) mod 6',
  acting: 'planned an action at its Lock\'s completion, not yet committed or given up', awake: 'awake, or asleep since its last Lock found nothing enabled',
};
// The state index of amoebot u (its first variable), or NaN.
export function abState(ab, u) { return ab.vars[ab.V * u]; }
function abStateName(k) {
  const amo = ui.trace.amoebot;
  if (Number.isNaN(k)) return '—';
  return amo.states[k] !== undefined ? amo.states[k] : `${amo.variables[0] || 'state'} ${k}`;
}
export function abColour(k) {
  if (!Number.isInteger(k) || k < 0) return NO_STATE_COLOUR;
  return stateColour(k);
}
// The register rows of amoebot u: its state, place, compass, other variables, acting and awake.
export function amoebotRows(u) {
  const ab = ui.sys.ab, amo = ui.trace.amoebot, p = ab.pos, i = 4 * u;
  const expanded = p[i] !== p[i + 2] || p[i + 1] !== p[i + 3];
  const rows = [
    ['amoebot', abStateName(abState(ab, u))],
    ['position', expanded ? `head (${p[i]},${p[i + 1]}), tail (${p[i + 2]},${p[i + 3]})` : `(${p[i]},${p[i + 1]}), contracted`],
    ['compass', String(ab.compass[u])],
  ];
  for (let k = 1; k < ab.V; k++) {
    const name = `v:${amo.variables[k] || `v${k}`}`;
    AMOEBOT_ROWS[name] = AMOEBOT_ROWS[name] || 'a variable of its public memory';
    const v = ab.vars[ab.V * u + k];
    rows.push([name, Number.isNaN(v) ? '—' : String(v)]);
  }
  const a = ab.acting.get(u);
  rows.push(['acting', a ? `${a.rule} (planned at t = ${a.t})` : '—']);
  rows.push(['awake', ab.asleep[u] ? 'no (asleep)' : 'yes']);
  return rows;
}

// The algorithm's states with their colour and how many amoebots hold each at the current step,
// then the counters so far and who is acting.
export function updateAmoebots() {
  const tr = ui.trace, ab = ui.sys.ab, amo = tr.amoebot, n = tr.n;
  const counts = new Map();
  for (let u = 0; u < n; u++) { const k = abState(ab, u); counts.set(k, (counts.get(k) || 0) + 1); }
  const keys = amo.states.map((_, k) => k);
  for (const k of [...counts.keys()].sort((a, b) => a - b)) if (!keys.includes(k)) keys.push(k);
  const e = tr.kind[ui.t] === KIND.amoebot_act ? tr.parsed(ui.t) : null;
  const touched = new Set(e ? e.changed.map((r) => r[6][0]) : []);
  const box = $('ab-legend');
  box.innerHTML = '';
  box.classList.toggle('many', keys.length > 8);
  let awake = 0, expanded = 0;
  for (let u = 0; u < n; u++) {
    if (!ab.asleep[u]) awake += 1;
    if (ab.pos[4 * u] !== ab.pos[4 * u + 2] || ab.pos[4 * u + 1] !== ab.pos[4 * u + 3]) expanded += 1;
  }
  Object.assign(box.dataset, {
    total: String([...counts.values()].reduce((a, b) => a + b, 0)), moves: String(ab.moves), actions: String(ab.actions),
    aborts: String(ab.aborts), sleeps: String(ab.sleeps), awake: String(awake), expanded: String(expanded),
    acting: [...ab.acting.keys()].sort((a, b) => a - b).join(','),
  });
  for (const k of keys) {
    const c = counts.get(k) || 0, name = abStateName(k), colour = abColour(k);
    box.append(legendRow({ name, count: c, n, colour, touched: touched.has(k), unit: 'amoebots', kind: 'ab-row', swatch: 'hex' }));
  }
  const plural = (k, w) => `${k.toLocaleString('en')} ${w}${k === 1 ? '' : 's'}`;
  const sum = document.createElement('div');
  sum.className = 'total';
  sum.textContent = `${plural(ab.actions, 'action')}, ${plural(ab.moves, 'move')}, ${plural(ab.aborts, 'action')} given up · ${awake} awake, ${expanded} expanded`;
  const act = document.createElement('div');
  act.className = 'total acting';
  act.textContent = ab.acting.size ? `acting: ${[...ab.acting].map(([u, a]) => `a${u} (${a.rule})`).join(', ')}` : 'acting: none';
  box.append(sum, act);
}
