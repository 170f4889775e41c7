// The lmx trace viewer: one static page, no network. Loads a trace from the file picker, a drop,
// or `?trace=URL` (what `lmx view` serves), indexes it once (trace.js) and draws any step on a
// canvas: topology, node state and phase, lock sets, messages in transit, the waits-for relation.
// A population-protocol trace (an `agents` line) also colours each agent by its protocol state;
// an amoebot trace (an `amoebots` line) is drawn on the triangular lattice instead of a graph layout.
// The parts: loading.js opens a trace, navigation.js moves through it, draw.js draws the canvas,
// panel.js and amoebots.js fill the side panel, legend.js holds the colours and the legends; this
// module wires the page's controls to them and starts.
import { KIND } from './trace.js';
import { amoebotCells, cellRadius, unitPx } from './lattice.js';
import { buildLegend } from './legend.js';
import { canvas, transform, nodeXY, nodeRadius, draw } from './draw.js';
import { showError, loadText, loadFile } from './loading.js';
import { goto, step, jump, select, setPlaying } from './navigation.js';
import { $, ui } from './ui.js';

// ---------- input ----------
function nodeAt(px, py) {
  if (!ui.trace) return null;
  const T = transform();
  if (ui.lattice) {  // the amoebot whose head or tail cell holds the point
    const R = cellRadius(unitPx(T, ui.lattice));
    for (let u = 0; u < ui.trace.n; u++) {
      const { head, tail } = amoebotCells(ui.sys.ab, u, T, ui.lattice);
      if (Math.hypot(head[0] - px, head[1] - py) < R || Math.hypot(tail[0] - px, tail[1] - py) < R) return u;
    }
    return null;
  }
  let best = null, bd = Infinity;
  for (let u = 0; u < ui.trace.n; u++) {
    const [x, y] = nodeXY(u, T);
    const d = Math.hypot(x - px, y - py);
    if (d < bd) { bd = d; best = u; }
  }
  return bd < 24 ? best : null;
}
let drag = null;
canvas.addEventListener('mousedown', (e) => { drag = { x: e.clientX, y: e.clientY, vx: ui.view.x, vy: ui.view.y, moved: false }; });
window.addEventListener('mousemove', (e) => {
  if (!drag) return;
  const dx = e.clientX - drag.x, dy = e.clientY - drag.y;
  if (Math.abs(dx) + Math.abs(dy) > 3) drag.moved = true;
  if (drag.moved) { ui.view.x = drag.vx + dx; ui.view.y = drag.vy + dy; draw(); }
});
window.addEventListener('mouseup', (e) => {
  if (drag && !drag.moved) {
    const rect = canvas.getBoundingClientRect();
    select(nodeAt(e.clientX - rect.left, e.clientY - rect.top));
  }
  drag = null;
});
canvas.addEventListener('wheel', (e) => {
  e.preventDefault();
  const f = e.deltaY < 0 ? 1.15 : 1 / 1.15;
  const rect = canvas.getBoundingClientRect();
  const mx = e.clientX - rect.left - canvas.clientWidth / 2, my = e.clientY - rect.top - canvas.clientHeight / 2;
  ui.view.x = mx - (mx - ui.view.x) * f;
  ui.view.y = my - (my - ui.view.y) * f;
  ui.view.scale *= f;
  draw();
}, { passive: false });

$('file').addEventListener('change', (e) => { if (e.target.files[0]) loadFile(e.target.files[0]); });
window.addEventListener('dragover', (e) => { e.preventDefault(); document.body.classList.add('dragging'); });
window.addEventListener('dragleave', () => document.body.classList.remove('dragging'));
window.addEventListener('drop', (e) => {
  e.preventDefault();
  document.body.classList.remove('dragging');
  if (e.dataTransfer.files[0]) loadFile(e.dataTransfer.files[0]);
});
$('first').onclick = () => goto(0);
$('last').onclick = () => goto(Infinity);
$('back').onclick = () => step(-1);
$('fwd').onclick = () => step(1);
$('play').onclick = () => setPlaying(!ui.playing);
// dragging the scrubber fires many input events: draw at most one step per frame
let scrubTarget = null;
$('scrub').addEventListener('input', (e) => {
  const first = scrubTarget === null;
  scrubTarget = Number(e.target.value);
  if (first) requestAnimationFrame(() => { const t = scrubTarget; scrubTarget = null; goto(t); });
});
$('next-lock').onclick = () => jump([KIND.done_lock], 'Lock completion');
$('next-interact').onclick = () => jump([KIND.interact], 'interaction');
$('next-amoebot').onclick = () => jump([KIND.amoebot_act], 'amoebot action');
$('next-viol').onclick = () => jump(ui.trace && ui.trace.end && ui.trace.end.stalled ? [KIND.violation, KIND.end] : [KIND.violation], 'violation or stall');
for (const id of ['show-waits', 'show-msgs', 'show-ports']) $(id).addEventListener('change', draw);
window.addEventListener('keydown', (e) => {
  if (e.target instanceof HTMLInputElement && e.target.type !== 'range' && e.target.type !== 'checkbox') return;
  if (e.key === 'ArrowRight') { step(e.shiftKey ? 10 : 1); e.preventDefault(); }
  else if (e.key === 'ArrowLeft') { step(e.shiftKey ? -10 : -1); e.preventDefault(); }
  else if (e.key === ' ') { setPlaying(!ui.playing); e.preventDefault(); }
  else if (e.key === 'Home') goto(0);
  else if (e.key === 'End') goto(Infinity);
  else if (e.key === 'n') $('next-lock').click();
  else if (e.key === 'v') $('next-viol').click();
  else if (e.key === 'i' && !$('next-interact').hidden) $('next-interact').click();
  else if (e.key === 'm' && !$('next-amoebot').hidden) $('next-amoebot').click();
});
window.addEventListener('resize', draw);

buildLegend();
draw();
ui.goto = goto;
ui.select = select;
// where node u is drawn, in CSS pixels of the canvas (for tests)
ui.nodeScreen = (u) => { const T = transform(); const [x, y] = nodeXY(u, T); return { x, y, r: nodeRadius(T) }; };
// where amoebot u's head and tail cells are drawn (CSS pixels), and the cells' circumradius
ui.amoebotScreen = (u) => {
  if (!ui.lattice || !ui.sys || !ui.sys.ab) return null;
  const T = transform();
  const { head, tail, expanded } = amoebotCells(ui.sys.ab, u, T, ui.lattice);
  return { head: { x: head[0], y: head[1] }, tail: { x: tail[0], y: tail[1] }, expanded, R: cellRadius(unitPx(T, ui.lattice)), r: nodeRadius(T) };
};
ui.loadText = loadText;
const src = new URLSearchParams(location.search).get('trace');
if (src) {
  fetch(src)
    .then((r) => { if (!r.ok) throw new Error(`HTTP ${r.status}`); return r.arrayBuffer(); })
    .then((buf) => new Uint8Array(buf))
    .then((text) => loadText(text, decodeURIComponent(src.split('/').pop())))
    .catch((err) => { showError(`Cannot fetch ${src}: ${err.message}`); document.body.dataset.ready = 'error'; });
} else {
  document.body.dataset.ready = 'empty';
}
