// What the self-contained pages (run report, sweep report) share: element lookup, the error
// banner, and key-value tables.
export const $ = (id) => document.getElementById(id);

/// Shows `msg` in the page's #error banner.
export function fail(msg) {
  const e = $('error');
  e.textContent = msg;
  e.hidden = false;
}

/// A two-column table of [key, value] rows; a value may be a DOM node; null and undefined show as —.
export function kv(rows) {
  const t = document.createElement('table');
  for (const [k, v] of rows) {
    const tr = t.insertRow();
    const th = document.createElement('th');
    th.textContent = k;
    tr.append(th);
    const td = tr.insertCell();
    if (v instanceof Node) td.append(v); else td.textContent = v === null || v === undefined ? '—' : String(v);
  }
  return t;
}

/// A number for a table: integers grouped, others with `d` decimals; null and undefined as —.
export const num = (x, d = 3) => (x === null || x === undefined ? '—' : typeof x === 'number' ? (Number.isInteger(x) ? x.toLocaleString('en') : x.toFixed(d)) : String(x));
