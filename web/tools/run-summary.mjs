#!/usr/bin/env node
// Computes a run summary in the `lmx run --json` format (docs/run-format.md) from a trace, for the
// report's fixtures: node tools/run-summary.mjs TRACE > RUN.json
// Figures that a trace cannot give (speed, memory) are null.
import fs from 'node:fs';

const KINDS = ['prepare', 'ready', 'request-lock', 'win', 'set-lock', 'ack-lock', 'release-lock', 'ack-unlock'];

function quantile(sorted, q) {
  if (!sorted.length) return null;
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
}

export function summarize(text) {
  const lines = text.split('\n').filter(Boolean);
  const header = JSON.parse(lines[0]);
  const n = header.nodes;
  const state = new Array(n).fill('BOT');
  const pending = new Map();
  const latencies = [];
  const perNode = new Array(n).fill(0);
  const requested = new Array(n).fill(0);
  const byKind = Object.fromEntries(KINDS.map((k) => [k, 0]));
  const violations = [];
  const transit = new Map();
  const perEdge = new Map();
  let maxPerEdge = 0, actions = 0, sent = 0, locked = 0, end = null, locksDone = 0, locksRequested = 0;
  const perRound = new Map();  // round -> {locks, locked}
  const bump = (r) => { if (!perRound.has(r)) perRound.set(r, { locks: 0, locked }); return perRound.get(r); };
  for (const line of lines.slice(1)) {
    const e = JSON.parse(line);
    switch (e.ev) {
      case 'call': if (e.op === 'lock' && e.status === 'ok') { pending.set(e.node, e.round); locksRequested++; requested[e.node]++; } break;
      case 'send': {
        sent++; byKind[e.kind] = (byKind[e.kind] || 0) + 1;
        if (e.to !== null && e.from !== e.to) {
          const key = e.from < e.to ? `${e.from}-${e.to}` : `${e.to}-${e.from}`;
          transit.set(e.id, key);
          perEdge.set(key, (perEdge.get(key) || 0) + 1);
          maxPerEdge = Math.max(maxPerEdge, perEdge.get(key));
        }
        break;
      }
      case 'lost': case 'act': {
        const id = e.ev === 'lost' ? e.id : e.msg;
        if (id !== null && transit.has(id)) { const k = transit.get(id); perEdge.set(k, perEdge.get(k) - 1); transit.delete(id); }
        if (e.ev === 'act') {
          actions++;
          if (state[e.node] !== 'LOCKED' && e.state === 'LOCKED') locked++;
          if (state[e.node] === 'LOCKED' && e.state !== 'LOCKED') locked--;
          state[e.node] = e.state;
          bump(e.round).locked = locked;
        }
        break;
      }
      case 'done':
        if (e.op === 'lock') {
          locksDone++; perNode[e.node]++;
          if (pending.has(e.node)) { latencies.push(e.round - pending.get(e.node)); pending.delete(e.node); }
          bump(e.round).locks++;
        }
        break;
      case 'violation': violations.push({ property: e.property, round: e.round, nodes: e.nodes, ports: e.ports || [], detail: e.detail || '' }); break;
      case 'end': end = e; break;
      default: break;
    }
  }
  const rounds = end ? end.rounds : 0;
  latencies.sort((a, b) => a - b);
  const mean = latencies.length ? latencies.reduce((a, b) => a + b, 0) / latencies.length : null;
  // series, at most 1000 samples
  const step = Math.max(1, Math.ceil((rounds + 1) / 1000));
  const series = { round: [], locks_completed: [], locked_nodes: [], in_transit: [] };
  let lastLocked = 0;
  for (let r0 = 0; r0 <= rounds; r0 += step) {
    let c = 0;
    for (let r = r0; r < r0 + step; r++) { const p = perRound.get(r); if (p) { c += p.locks; lastLocked = p.locked; } }
    series.round.push(r0 + step - 1); series.locks_completed.push(c); series.locked_nodes.push(lastLocked); series.in_transit.push(null);
  }
  const participants = perNode.filter((_, u) => requested[u] > 0);
  const sum = participants.reduce((a, b) => a + b, 0), sq = participants.reduce((a, b) => a + b * b, 0);
  const bins = 20, max = latencies.length ? latencies[latencies.length - 1] : 0, w = Math.max(1, Math.ceil((max + 1) / bins));
  const counts = new Array(bins).fill(0);
  for (const x of latencies) counts[Math.min(bins - 1, Math.floor(x / w))]++;
  const props = Object.fromEntries(['P1', 'P2', 'P3', 'P4', 'P5', 'P6', 'P7'].map((p) => [p, violations.some((v) => v.property === p || (p === 'P7' && v.property === 'stall')) ? 'fail' : 'pass']));
  if (maxPerEdge > 2) props.P4 = 'fail';
  return {
    schema: 1, scenario: header.scenario, seed: header.seed, variant: header.variant, engine: header.engine || 'semi-sync', rounds, actions,
    locks_requested: locksRequested, locks_completed: locksDone, violations, stalled: end ? end.stalled : false,
    properties: props,
    latency_rounds: { p50: quantile(latencies, 0.5), p90: quantile(latencies, 0.9), p99: quantile(latencies, 0.99), max: latencies.length ? max : null, mean },
    latency_activations: null, latency_messages: null, trials_per_lock: null,
    messages_per_lock: locksDone ? sent / locksDone : null,
    messages_per_lock_by_kind: Object.fromEntries(Object.entries(byKind).map(([k, v]) => [k, locksDone ? v / locksDone : 0])),
    locks_per_round: rounds ? locksDone / rounds : null,
    mean_locked: null, jain_fairness: sq ? (sum * sum) / (participants.length * sq) : null,
    max_in_transit_per_edge: maxPerEdge, bits_per_node: null, bytes_per_node: null, actions_per_second: null, wall_seconds: null,
    trace_hash: end ? end.event_hash : null, series,
    latency_histogram: { bin_edges: Array.from({ length: bins + 1 }, (_, i) => i * w), counts },
    per_node_locks: participants,
  };
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop())) {
  const path = process.argv[2];
  if (!path) { console.error('usage: run-summary.mjs TRACE > RUN.json'); process.exit(2); }
  process.stdout.write(JSON.stringify(summarize(fs.readFileSync(path, 'utf8')), null, 1) + '\n');
}
