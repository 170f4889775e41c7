// Register values in the paper's notation: ⊥, ∅, {0,2}, {(1,true)}, {(2,3)}.
export const BOT = '⊥';
export function fmtSet(a) { return a.length ? `{${a.join(',')}}` : '∅'; }
export function fmtW(w) { return w.length ? `{${w.map(([l, b]) => `(${l},${b ? 'true' : 'false'})`).join(',')}}` : '∅'; }
export function fmtP(p) { return p.length ? `{${p.map(([l, v]) => `(${l},${v})`).join(',')}}` : '∅'; }
export function fmtVal(v) { return v === 'BOT' || v === null || v === undefined ? BOT : String(v); }
export function fmtNodes(a) { return a.length ? `{${a.map((u) => `n${u}`).join(',')}}` : '∅'; }

/// One line describing an event, for the log and the step label.
export function describe(e) {
  switch (e.ev) {
    case 'connect': return `connect n${e.u}:${e.pu} — n${e.v}:${e.pv}`;
    case 'cut': return `cut n${e.u}:${e.pu} — n${e.v}:${e.pv}`;
    case 'move': return `n${e.node} moves to (${(+e.x).toFixed(3)}, ${(+e.y).toFixed(3)})`;
    case 'call': return `n${e.node} calls ${e.op === 'lock' ? 'Lock' : 'Unlock'}${Array.isArray(e.requested) ? ` on ports ${fmtSet(e.requested)}` : ''}${e.status === 'ok' ? '' : ' (rejected)'}`;
    case 'send': return `n${e.from} sends ${msgText(e)} on port ${e.port}${e.to === null ? ' (no edge: lost)' : ` → n${e.to}:${e.to_port}`} [#${e.id}]`;
    case 'lost': return `message #${e.id} lost (${e.reason})`;
    case 'act': return `n${e.node} ${e.action}${e.port !== null && e.port !== undefined ? ` via port ${e.port}` : ''} → state ${fmtVal(e.state)}, phase ${fmtVal(e.phase)}, lock ${fmtVal(e.lock)}`;
    case 'done': return e.op === 'lock' ? `n${e.node} Lock done: L = ${fmtSet(e.ports)}, lock set ${fmtNodes(e.lock_set)}` : `n${e.node} Unlock done`;
    case 'violation': return `VIOLATION ${e.property}: ${e.detail || ''} (nodes ${fmtNodes(e.nodes || [])})`;
    case 'finding': return `finding (${e.kind}): ${e.detail}${Number.isInteger(e.node) ? ` at n${e.node}` : ''}`;
    case 'agents': return `agents: ${e.protocol}, ${e.initial.length} agents in states ${e.states.join(', ')}`;
    case 'interact': return `n${e.initiator} ⇄ n${e.responder}: ${e.before.join(',')} → ${e.after.join(',')}${e.before[0] === e.after[0] && e.before[1] === e.after[1] ? ' (no change)' : ''}`;
    case 'end': return `end: ${e.rounds} rounds, ${e.events} events${e.stalled ? ', STALLED' : ''}, hash ${e.hash}`;
    default: return `${e.ev} (not known to this viewer)`;
  }
}
export function msgText(m) {
  if (m.kind === 'request-lock') return `request-lock(${m.value})`;
  if (m.kind === 'win') return `win(${m.value ? 'true' : 'false'})`;
  return m.kind;
}
