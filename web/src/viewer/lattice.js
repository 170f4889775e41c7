// Amoebot traces drawn on the triangular lattice: where each amoebot's head and tail sit on the
// canvas, and the hexagonal cell of a lattice node. Axial lattice coordinates (x, y) go to
// x + y/2, −y·√3/2 (trace.js, latticeXY), fitted once for the whole run so that the picture does
// not jump while the amoebots move.
import { latticeXY } from './trace.js';

const COS30 = Math.sqrt(3) / 2;

/// The fit of a run's bounding box (screen coordinates of every node an amoebot ever occupies)
/// into the unit square the viewer's transform maps onto the canvas: centre and span in lattice units.
export function latticeFit(bbox) {
  const [x0, x1, y0, y1] = bbox;
  if (!(x1 >= x0) || !(y1 >= y0)) return { cx: 0, cy: 0, span: 2 };
  return { cx: (x0 + x1) / 2, cy: (y0 + y1) / 2, span: Math.max(x1 - x0, y1 - y0) + 1.4 };
}

/// Canvas position of lattice node (x, y) under the viewer's transform T and fit L.
export function cellXY(x, y, T, L) {
  const [sx, sy] = latticeXY(x, y);
  return [T.X(0.5 + (sx - L.cx) / L.span), T.Y(0.5 + (sy - L.cy) / L.span)];
}

/// One lattice unit (the distance of two adjacent nodes) in canvas pixels.
export const unitPx = (T, L) => T.s / L.span;

/// Amoebot u's head and tail on the canvas, from the amoebot state's positions.
export function amoebotCells(ab, u, T, L) {
  const p = ab.pos, i = 4 * u;
  const head = cellXY(p[i], p[i + 1], T, L);
  const expanded = p[i] !== p[i + 2] || p[i + 1] !== p[i + 3];
  const tail = expanded ? cellXY(p[i + 2], p[i + 3], T, L) : head;
  return { head, tail, expanded };
}

/// The path of a lattice node's hexagonal cell, pointy side up, of circumradius R (adjacent
/// cells share a side when R = unit / √3).
export function hexPath(ctx, x, y, R) {
  ctx.beginPath();
  for (let k = 0; k < 6; k++) {
    const a = Math.PI / 6 + (k * Math.PI) / 3;
    const px = x + R * Math.cos(a), py = y + R * Math.sin(a);
    if (k) ctx.lineTo(px, py); else ctx.moveTo(px, py);
  }
  ctx.closePath();
}

/// Circumradius of a drawn cell (a little under the tiling's, so that neighbours keep a gap).
export const cellRadius = (unit) => (0.47 * unit) / COS30;
