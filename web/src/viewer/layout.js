// Where the viewer draws each node: the positions a trace records (unit-disk and mobility runs),
// or else a deterministic force-directed layout over every edge the trace ever connects.
import { KIND } from './trace.js';

export function computeLayout(trace) {
  const n = trace.n;
  const pos = trace.checkpoints[0].initialPos;
  const xy = new Float64Array(2 * n);
  if (!Number.isNaN(pos[0])) {
    xy.set(pos);
    return { xy, given: true };
  }
  // Stable force-directed layout over every edge that ever existed (deterministic start).
  const edges = [];
  const seen = new Set();
  for (let t = 1; t <= trace.events; t++) {
    if (trace.kind[t] !== KIND.connect) continue;
    const e = trace.event(t);
    const key = e.u < e.v ? `${e.u}-${e.v}` : `${e.v}-${e.u}`;
    if (!seen.has(key) && e.u !== e.v) { seen.add(key); edges.push([e.u, e.v]); }
    if (edges.length > 20000) break;
  }
  for (let i = 0; i < n; i++) {
    const a = (2 * Math.PI * i) / n;
    xy[2 * i] = 0.5 + 0.4 * Math.cos(a);
    xy[2 * i + 1] = 0.5 + 0.4 * Math.sin(a);
  }
  if (n <= 600) {
    const k = 0.6 / Math.sqrt(n);
    for (let it = 0; it < 300; it++) {
      const temp = 0.05 * (1 - it / 300) + 0.002;
      const d = new Float64Array(2 * n);
      for (let i = 0; i < n; i++) for (let j = i + 1; j < n; j++) {
        let dx = xy[2 * i] - xy[2 * j], dy = xy[2 * i + 1] - xy[2 * j + 1];
        const dist = Math.max(1e-4, Math.hypot(dx, dy));
        const f = (k * k) / dist;
        dx /= dist; dy /= dist;
        d[2 * i] += dx * f; d[2 * i + 1] += dy * f; d[2 * j] -= dx * f; d[2 * j + 1] -= dy * f;
      }
      for (const [u, v] of edges) {
        let dx = xy[2 * u] - xy[2 * v], dy = xy[2 * u + 1] - xy[2 * v + 1];
        const dist = Math.max(1e-4, Math.hypot(dx, dy));
        const f = (dist * dist) / k;
        dx /= dist; dy /= dist;
        d[2 * u] -= dx * f; d[2 * u + 1] -= dy * f; d[2 * v] += dx * f; d[2 * v + 1] += dy * f;
      }
      for (let i = 0; i < n; i++) {
        const len = Math.max(1e-9, Math.hypot(d[2 * i], d[2 * i + 1]));
        xy[2 * i] += (d[2 * i] / len) * Math.min(len, temp);
        xy[2 * i + 1] += (d[2 * i + 1] / len) * Math.min(len, temp);
      }
    }
  }
  // normalise into the unit square
  let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity;
  for (let i = 0; i < n; i++) { x0 = Math.min(x0, xy[2 * i]); x1 = Math.max(x1, xy[2 * i]); y0 = Math.min(y0, xy[2 * i + 1]); y1 = Math.max(y1, xy[2 * i + 1]); }
  const s = Math.max(x1 - x0, y1 - y0) || 1;
  for (let i = 0; i < n; i++) { xy[2 * i] = 0.5 + (xy[2 * i] - (x0 + x1) / 2) / s; xy[2 * i + 1] = 0.5 + (xy[2 * i + 1] - (y0 + y1) / 2) / s; }
  return { xy, given: false };
}
