// The viewer's drawing primitives on a 2D canvas context: port labels, message badges, bent
// arrows (waits-for and messages in flight), crosses and labels, and the message colours.
export const MSG_COLOUR = {
  prepare: '#0284c7', ready: '#0891b2', 'request-lock': '#ea580c', win: '#ca8a04',
  'set-lock': '#7c3aed', 'ack-lock': '#9333ea', 'release-lock': '#16a34a', 'ack-unlock': '#65a30d',
};
const MSG_ABBR = { prepare: 'prep', ready: 'rdy', 'request-lock': 'req', win: 'win', 'set-lock': 'set', 'ack-lock': 'ackL', 'release-lock': 'rel', 'ack-unlock': 'ackU' };

// The primitives bound to one canvas context.
export function shapes(ctx) {
  function portLabel(ax, ay, bx, by, p) {
    const dx = bx - ax, dy = by - ay, len = Math.hypot(dx, dy) || 1;
    const d = Math.min(len * 0.3, 30);
    const x = ax + (dx / len) * d, y = ay + (dy / len) * d;
    ctx.font = '10px system-ui, sans-serif';
    ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
    ctx.fillStyle = 'white'; ctx.fillRect(x - 6, y - 6, 12, 12);
    ctx.fillStyle = '#475569';
    ctx.fillText(String(p), x, y);
  }
  function badge(x, y, m, detail) {
    ctx.fillStyle = MSG_COLOUR[m.kind] || '#000';
    if (!detail) { ctx.beginPath(); ctx.arc(x, y, 2.5, 0, 2 * Math.PI); ctx.fill(); return; }
    const text = m.kind === 'request-lock' ? `req(${m.value})` : m.kind === 'win' ? `win(${m.value ? 'T' : 'F'})` : MSG_ABBR[m.kind] || m.kind;
    ctx.font = '600 10px system-ui, sans-serif';
    const w = ctx.measureText(text).width + 8;
    ctx.beginPath();
    ctx.roundRect(x - w / 2, y - 7, w, 14, 4);
    ctx.fill();
    ctx.fillStyle = 'white';
    ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
    ctx.fillText(text, x, y + 0.5);
  }
  function arrow(ax, ay, bx, by, colour, width, dash, shrink, head = 8, text = '') {
    const dx = bx - ax, dy = by - ay, len = Math.hypot(dx, dy) || 1;
    const ux = dx / len, uy = dy / len;
    // bend a little so that u->v and v->u do not overlap
    const bend = Math.max(10, Math.min(60, len * 0.12));
    const nx = -uy * bend, ny = ux * bend;
    const sx = ax + ux * shrink, sy = ay + uy * shrink, ex = bx - ux * shrink, ey = by - uy * shrink;
    const cx = (sx + ex) / 2 + nx, cy = (sy + ey) / 2 + ny;
    ctx.save();
    ctx.strokeStyle = ctx.fillStyle = colour;
    ctx.lineWidth = width;
    ctx.setLineDash(dash);
    ctx.beginPath(); ctx.moveTo(sx, sy); ctx.quadraticCurveTo(cx, cy, ex, ey); ctx.stroke();
    ctx.setLineDash([]);
    const hx = ex - cx, hy = ey - cy, hl = Math.hypot(hx, hy) || 1;
    const px = hx / hl, py = hy / hl;
    ctx.beginPath();
    ctx.moveTo(ex, ey);
    ctx.lineTo(ex - px * head - py * head * 0.5, ey - py * head + px * head * 0.5);
    ctx.lineTo(ex - px * head + py * head * 0.5, ey - py * head - px * head * 0.5);
    ctx.closePath(); ctx.fill();
    if (text) {
      const mx = 0.25 * sx + 0.5 * cx + 0.25 * ex, my = 0.25 * sy + 0.5 * cy + 0.25 * ey;
      ctx.font = '600 11px system-ui, sans-serif';
      const w = ctx.measureText(text).width + 6;
      ctx.fillStyle = 'rgba(255,255,255,0.85)';
      ctx.fillRect(mx - w / 2, my - 8, w, 16);
      ctx.fillStyle = colour;
      ctx.textAlign = 'center'; ctx.textBaseline = 'middle';
      ctx.fillText(text, mx, my);
    }
    ctx.restore();
  }
  function cross(x, y, s) {
    ctx.save(); ctx.strokeStyle = '#dc2626'; ctx.lineWidth = 3;
    ctx.beginPath(); ctx.moveTo(x - s, y - s); ctx.lineTo(x + s, y + s); ctx.moveTo(x + s, y - s); ctx.lineTo(x - s, y + s); ctx.stroke();
    ctx.restore();
  }
  function label(text, x, y, colour) {
    ctx.font = '600 11px system-ui, sans-serif';
    ctx.textAlign = 'center'; ctx.textBaseline = 'bottom';
    ctx.fillStyle = colour; ctx.fillText(text, x, y);
  }
  return { portLabel, badge, arrow, cross, label };
}
