// Moving through the trace: to a step (goto), by steps, to the next event of some kinds (jump),
// selecting a node, and playback at the chosen speed.
import { KIND, TraceError } from './trace.js';
import { waitsFor } from './waits.js';
import { draw } from './draw.js';
import { damaged } from './loading.js';
import { updatePanel, updateBanner } from './panel.js';
import { $, ui } from './ui.js';

export function goto(t) {
  const tr = ui.trace;
  if (!tr) return;
  ui.t = Math.max(0, Math.min(tr.events, Math.round(t)));
  try {
    ui.sys = tr.stateAt(ui.t);
    ui.waits = waitsFor(ui.sys, tr.header.variant);
    $('scrub').value = String(ui.t);
    updatePanel();
    draw();
  } catch (err) {
    if (!(err instanceof TraceError) || !err.line) throw err;
    damaged(err);  // a line that the index pass could not see was damaged
  }
}
export function step(d) { goto(ui.t + d); }
export function jump(codes, label) {
  if (!ui.trace) return;
  const t = ui.trace.find(ui.t, codes, 1);
  if (t < 0) { flash(`no further ${label}`); return; }
  goto(t);
  if (ui.trace.kind[t] === KIND.done_lock || ui.trace.kind[t] === KIND.interact || ui.trace.kind[t] === KIND.amoebot_act) select(ui.trace.node[t]);
  else if (ui.trace.kind[t] === KIND.violation && ui.trace.node[t] >= 0) select(ui.trace.node[t]);
}
// A flash shows for 1.5 s after the last one: an earlier flash's timer must not clear a newer one.
let flashTimer = null;
function flash(msg) {
  const b = $('banner');
  b.textContent = msg;
  b.hidden = false;
  b.dataset.transient = '1';
  clearTimeout(flashTimer);
  flashTimer = setTimeout(() => { if (b.dataset.transient === '1') updateBanner(); }, 1500);
}
export function select(u) {
  ui.selected = Number.isInteger(u) && ui.trace && u >= 0 && u < ui.trace.n ? u : null;
  updatePanel();
  draw();
}
export function setPlaying(p) {
  ui.playing = p && !!ui.trace;
  $('play').textContent = ui.playing ? '❚❚ pause' : '▶ play';
  if (ui.playing) { ui.lastFrame = performance.now(); ui.carry = 0; requestAnimationFrame(tick); }
}
function tick(now) {
  if (!ui.playing) return;
  const rate = Number($('speed').value);
  ui.carry += ((now - ui.lastFrame) / 1000) * rate;
  ui.lastFrame = now;
  const k = Math.floor(ui.carry);
  if (k > 0) {
    ui.carry -= k;
    goto(ui.t + k);
    if (ui.t >= ui.trace.events) { setPlaying(false); return; }
  }
  requestAnimationFrame(tick);
}
