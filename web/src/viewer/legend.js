// The viewer's colours (lock states, phases, waits-for arrows, interactions, acting amoebots) and
// the legends that name them: the static key beside the canvas, and the rows of the state legends
// in the Population and Amoebots boxes.
import { MESSAGE_KINDS } from './trace.js';
import { fmtVal } from './notation.js';
import { MSG_COLOUR } from './shapes.js';
import { $ } from './ui.js';

export const STATE_COLOUR = { BOT: '#e5e7eb', PREPARE: '#fde68a', COMPETE: '#fb923c', WIN: '#c084fc', LOCKED: '#22c55e', UNLOCK: '#60a5fa' };
export const PHASE_COLOUR = { BOT: '#94a3b8', PREPARE: '#0ea5e9', COMPETE: '#db2777' };
export const WAIT_COLOUR = { reply: '#2563eb', request: '#ea580c', release: '#64748b' };
export const INTERACT_COLOUR = '#f59e0b';
export const ACTING_COLOUR = '#0f172a';
export const NO_STATE_COLOUR = '#cbd5e1';

// One row of a state legend (population protocols, amoebots): swatch, name, a bar of the share of
// the n nodes in that state, and the count; data attributes for the tests.
export function legendRow({ name, count, n, colour, touched, unit, kind = '', swatch = '' }) {
  const row = document.createElement('div');
  row.className = 'pp-row' + (kind ? ` ${kind}` : '') + (count ? '' : ' empty') + (touched ? ' touched' : '');
  row.dataset.state = name;
  row.dataset.count = String(count);
  row.dataset.colour = colour;
  row.title = `${name}: ${count} of ${n} ${unit}`;
  const span = (className) => {
    const el = document.createElement('span');
    el.className = className;
    return el;
  };
  const sw = span('sw' + (swatch ? ` ${swatch}` : ''));
  sw.style.background = colour;
  const nm = span('name');
  nm.textContent = name;
  const bar = span('bar');
  const fill = document.createElement('span');
  fill.style.width = `${(100 * count) / n}%`;
  fill.style.background = colour;
  bar.append(fill);
  const ct = span('count');
  ct.textContent = String(count);
  row.append(sw, nm, bar, ct);
  return row;
}

// The static legend. In a population-protocol trace the fill shows the protocol state (its own
// legend, with counts, is in the Population box), so the lock state moves to two rings outside it.
export function buildLegend(kind = 'graph') {
  const lg = $('legend');
  const parts = [];
  if (kind === 'amoebot') {
    parts.push('<div class="head">cell fill: algorithm state (see Amoebots)</div>');
    parts.push('<span style="grid-column:1/-1"><span class="sw hex" style="background:#94a3b8"></span>a contracted amoebot: one cell of the lattice</span>');
    parts.push('<span style="grid-column:1/-1"><span class="sw hex" style="background:#94a3b8"></span><span class="bar-key"></span><span class="sw hex" style="background:#cbd5e1"></span>expanded: head (labelled) and tail (paler), joined</span>');
    parts.push('<span style="grid-column:1/-1"><span class="sw hex" style="background:white;border:3px solid hsl(200,70%,45%)"></span>lock set of a LOCKED amoebot, outlined in the locker\'s colour (the locker twice)</span>');
    parts.push(`<span style="grid-column:1/-1"><span class="ring" style="border-color:${ACTING_COLOUR}"></span>acting: planned at its Lock, not yet committed (with the rule)</span>`);
    parts.push('<span style="grid-column:1/-1"><span class="sw" style="background:white;border:1px solid #94a3b8"></span>thin grey border: asleep (its last Lock found nothing enabled)</span>');
    parts.push('<div class="head">dot in the cell: Lock initiator state (none: ⊥)</div>');
    for (const [s, c] of Object.entries(STATE_COLOUR)) if (s !== 'BOT') parts.push(`<span><span class="sw" style="background:${c}"></span>${fmtVal(s)}</span>`);
  } else if (kind === 'population') {
    parts.push('<div class="head">node fill: protocol state (see Population)</div>');
    parts.push('<div class="head">inner ring: initiator state (none: ⊥)</div>');
    for (const [s, c] of Object.entries(STATE_COLOUR)) if (s !== 'BOT') parts.push(`<span><span class="ring" style="border-color:${c}"></span>${fmtVal(s)}</span>`);
    parts.push('<div class="head">outer ring: participant phase (none: ⊥)</div>');
    for (const [s, c] of Object.entries(PHASE_COLOUR)) if (s !== 'BOT') parts.push(`<span><span class="ring" style="border-color:${c}"></span>${fmtVal(s)}</span>`);
    parts.push(`<span style="grid-column:1/-1"><span class="line" style="border-color:${INTERACT_COLOUR};border-top-width:4px"></span>interaction (initiator → responder), fading</span>`);
  } else {
    parts.push('<div class="head">node fill: initiator state</div>');
    for (const [s, c] of Object.entries(STATE_COLOUR)) parts.push(`<span><span class="sw" style="background:${c}"></span>${fmtVal(s)}</span>`);
    parts.push('<div class="head">ring: participant phase</div>');
    for (const [s, c] of Object.entries(PHASE_COLOUR)) parts.push(`<span><span class="ring" style="border-color:${c}${s === 'BOT' ? ';border-width:1px' : ''}"></span>${fmtVal(s)}</span>`);
  }
  parts.push('<div class="head">messages in transit (sender → receiver)</div>');
  for (const k of MESSAGE_KINDS) parts.push(`<span><span class="msg" style="background:${MSG_COLOUR[k]}"></span>${k}</span>`);
  parts.push('<div class="head">waits-for arrows</div>');
  parts.push(`<span><span class="line" style="border-color:${WAIT_COLOUR.reply}"></span>awaits reply</span>`);
  parts.push(`<span><span class="line" style="border-color:${WAIT_COLOUR.request}"></span>awaits request-lock</span>`);
  parts.push(`<span><span class="line" style="border-color:${WAIT_COLOUR.release};border-top-style:dotted"></span>held, awaits release</span>`);
  parts.push('<span><span class="line" style="border-color:#dc2626;border-top-width:4px"></span>blocked cycle</span>');
  parts.push('<div class="head">other</div>');
  parts.push('<span><span class="line" style="border-color:#16a34a;border-top-width:4px"></span>edge just connected</span>');
  parts.push('<span><span class="line" style="border-color:#dc2626;border-top-style:dashed"></span>edge just cut</span>');
  if (kind === 'amoebot') parts.push('<span style="grid-column:1/-1"><span class="line" style="border-color:#64748b;border-top-width:1px"></span>edge of the lock protocol\'s graph (lattice neighbours)</span>');
  else parts.push('<span style="grid-column:1/-1">halo and band: a LOCKED node\'s lock set</span>');
  lg.innerHTML = parts.join('');
}
