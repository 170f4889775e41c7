// Register values in the paper's notation: ⊥, ∅, {0,2}, {(1,true)}, {(2,3)}.
export const BOT = '⊥';
export function fmtSet(a) { return a.length ? `{${a.join(',')}}` : '∅'; }
export function fmtW(w) { return w.length ? `{${w.map(([l, b]) => `(${l},${b ? 'true' : 'false'})`).join(',')}}` : '∅'; }
export function fmtP(p) { return p.length ? `{${p.map(([l, v]) => `(${l},${v})`).join(',')}}` : '∅'; }
export function fmtVal(v) { return v === 'BOT' || v === null || v === undefined ? BOT : String(v); }
export function fmtNodes(a) { return a.length ? `{${a.map((u) => `n${u}`).join(',')}}` : '∅'; }

/// One line describing an event, for the log and the step label. `amoebot` (the trace's amoebots
/// line: its `states`) names the states of amoebot lines.
export function describe(e, amoebot = null) {
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
    case 'amoebots': return `amoebots: ${e.algorithm}, ${e.amoebots.length} amoebots${e.states.length ? ` in states ${e.states.join(', ')}` : ''}`;
    case 'amoebot-plan': return `a${e.node} plans ${e.rule}`;
    case 'amoebot-act': return `a${e.node} ${e.rule} (${amoebotChange(e, amoebot)})`;
    case 'amoebot-abort': return `a${e.node} gives up ${e.rule}`;
    case 'amoebot-sleep': return `a${e.node} sleeps`;
    case 'end': return `end: ${e.rounds} rounds, ${e.events} events${e.stalled ? ', STALLED' : ''}, hash ${e.hash}`;
    default: return `${e.ev} (not known to this viewer)`;
  }
}
export function msgText(m) {
  if (m.kind === 'request-lock') return `request-lock(${m.value})`;
  if (m.kind === 'win') return `win(${m.value ? 'true' : 'false'})`;
  return m.kind;
}

/// What an amoebot-act line did, read from the line alone (its `moves` and the new records, the
/// acting amoebot's first): `expand`, `contract`, `pull a7`, `push a7`, or, without a movement,
/// the acting amoebot's new state (`→ root`) and the amoebots it wrote to.
export function amoebotChange(e, amoebot = null) {
  const recs = Array.isArray(e.changed) ? e.changed : [];
  const me = recs.find((r) => r[0] === e.node);
  const expanded = (r) => r[1] !== r[3] || r[2] !== r[4];
  const others = recs.filter((r) => r[0] !== e.node);
  if (me && e.moves === 1) return expanded(me) ? 'expand' : 'contract';
  if (me && e.moves === 2) {
    const partner = others.find((r) => expanded(r) !== expanded(me));
    const who = partner ? ` a${partner[0]}` : '';
    return expanded(me) ? `push${who}` : `pull${who}`;
  }
  if (e.moves > 0) return `${e.moves} moves`;
  const v0 = me && Array.isArray(me[6]) ? me[6][0] : undefined;
  const states = amoebot && Array.isArray(amoebot.states) ? amoebot.states : [];
  const state = v0 === undefined ? '' : `→ ${states[v0] !== undefined ? states[v0] : v0}`;
  const writes = others.length ? `writes ${others.map((r) => `a${r[0]}`).join(', ')}` : '';
  return [state, writes].filter(Boolean).join('; ') || 'no change';
}
