#!/usr/bin/env bash
# End-to-end checks of `lmx check` (docs/checker.md): the paper variant's two defects are found with
# replayable counterexamples, the repaired variant passes, and --json has the documented fields.
# The mutant suite runs with the C++ tests (tests/check). Takes well under a minute.
set -euo pipefail
cd "$(dirname "$0")/.."
lmx=${LMX:-build/release/tools/lmx/lmx}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "-- paper variant: both defects, replayable"
set +e
"$lmx" check --variant paper --nodes 2 --edges 0-1 --delta 1 --k 2 --locks 2 --max-changes 2 --write "$tmp" >"$tmp/paper.txt"
rc=$?
set -e
cat "$tmp/paper.txt"
[ "$rc" = 1 ] || { echo "expected verdict fail (exit 1), got exit $rc"; exit 1; }
grep -q "deadlock .*stays in COMPETE" "$tmp/paper.txt" || { echo "E2 (COMPETE deadlock) not found"; exit 1; }
grep -q "deadlock .*stays in WIN" "$tmp/paper.txt" || { echo "E1 (WIN deadlock) not found"; exit 1; }
grep -q "P7 .*COMPETE" "$tmp/paper.txt" || { echo "P7 violation in COMPETE not found"; exit 1; }
grep -q "P7 .*WIN" "$tmp/paper.txt" || { echo "P7 violation in WIN not found"; exit 1; }
for t in "$tmp"/*.jsonl docs/counterexamples/*.jsonl; do
  "$lmx" check --replay "$t"
done

echo "-- repaired variant: passes"
"$lmx" check --variant repaired --nodes 2 --edges 0-1 --delta 1 --k 2 --locks 2 --max-changes 2
"$lmx" check --nodes 3 --edges "" --delta 1 --k 2 --locks 1 --max-changes 1 --safety-only
"$lmx" check --nodes 3 --edges 0-1 --delta 1 --k 2 --locks 1 --max-changes 0

echo "-- unbounded Lock calls: every 2-node graph with 2 changes passes (repaired); the paper's defects remain"
for edges in "" 0-1; do
  for delta in 1 2; do
    for k in 2 3; do
      "$lmx" check --variant repaired --nodes 2 --edges "$edges" --delta "$delta" --k "$k" --locks unbounded \
        --max-changes 2 >"$tmp/u.txt"
      head -n 3 "$tmp/u.txt" | tr '\n' ' ' && echo
    done
  done
done
set +e
"$lmx" check --variant paper --nodes 2 --edges 0-1 --delta 1 --k 2 --locks unbounded --max-changes 2 >"$tmp/unbounded.txt"
rc=$?
set -e
[ "$rc" = 1 ] || { echo "expected the paper variant to fail with unbounded Lock calls, got exit $rc"; exit 1; }
grep -q "deadlock .*stays in WIN" "$tmp/unbounded.txt" || { echo "E1 not found with unbounded Lock calls"; exit 1; }
grep -q "deadlock .*stays in COMPETE" "$tmp/unbounded.txt" || { echo "E2 not found with unbounded Lock calls"; exit 1; }

echo "-- Lock over a subset: the repaired and fast variants pass; the paper's defects remain, and replay"
for variant in repaired fast; do
  "$lmx" check --variant "$variant" --nodes 2 --edges 0-1 --delta 2 --k 2 --locks unbounded --max-changes 2 \
    --lock-subsets >"$tmp/s.txt"
  head -n 3 "$tmp/s.txt" | tr '\n' ' ' && echo
done
mkdir -p "$tmp/subsets"
set +e
"$lmx" check --variant paper --nodes 2 --edges 0-1 --delta 2 --k 2 --locks 1 --max-changes 2 --lock-subsets \
  --write "$tmp/subsets" >"$tmp/subsets.txt"
rc=$?
set -e
[ "$rc" = 1 ] || { echo "expected the paper variant to fail with --lock-subsets, got exit $rc"; exit 1; }
grep -q "deadlock .*stays in WIN" "$tmp/subsets.txt" || { echo "E1 not found with --lock-subsets"; exit 1; }
grep -q "deadlock .*stays in COMPETE" "$tmp/subsets.txt" || { echo "E2 not found with --lock-subsets"; exit 1; }
for t in "$tmp"/subsets/*.jsonl; do "$lmx" replay "$t"; done

echo "-- symmetry reduction: the same findings as the full search, and its counterexamples replay"
mkdir -p "$tmp/sym"
for sym in "" --no-symmetry; do
  "$lmx" check --json $sym --variant paper --nodes 3 --edges "" --delta 2 --k 2 --locks 1 --max-changes 1 \
    --write "$tmp/sym" >"$tmp/sym$sym.json" || true
done
python3 - "$tmp/sym.json" "$tmp/sym--no-symmetry.json" <<'PY'
import json, sys
reduced, full = (json.load(open(f)) for f in sys.argv[1:3])
def findings(j):
    return sorted({(v["kind"], v["detail"].split(" ", 2)[2]) for v in j["violations"]})
assert reduced["verdict"] == full["verdict"] == "fail", (reduced["verdict"], full["verdict"])
assert findings(reduced) == findings(full), (findings(reduced), findings(full))
assert reduced["states"] < full["states"], (reduced["states"], full["states"])
print("symmetry ok:", reduced["states"], "states instead of", full["states"], "-", len(reduced["violations"]), "violations")
PY
for t in "$tmp"/sym/*.jsonl; do "$lmx" check --replay "$t" >/dev/null; done

echo "-- --json fields"
"$lmx" check --json --variant paper --nodes 2 --edges 0-1 --delta 1 --k 2 --locks 1 --max-changes 0 >"$tmp/j.json" || true
python3 - "$tmp/j.json" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
for key in ("verdict", "states", "transitions", "seconds", "states_per_second", "bytes_per_state",
            "cpu_seconds", "states_per_cpu_second", "explore_cpu_seconds", "symmetry", "lifted_states",
            "peak_rss_bytes", "deadlock_sweeps", "phase_cpu_seconds", "violations"):
    assert key in j, key
# a failing full run reports its phases, and their processor times add up to the whole run's
assert {"exploring", "deadlock", "end components", "counterexamples"} <= set(j["phase_cpu_seconds"]), j["phase_cpu_seconds"]
assert abs(sum(j["phase_cpu_seconds"].values()) - j["cpu_seconds"]) < 0.05, j
assert j["deadlock_sweeps"] >= 1, j["deadlock_sweeps"]  # a full run sweeps for reachable completions
assert j["peak_rss_bytes"] > 1 << 20, j["peak_rss_bytes"]  # the process's peak memory, not a placeholder
assert j["verdict"] == "fail"
for v in j["violations"]:
    assert {"kind", "nodes", "trace"} <= set(v)
    header = json.loads(v["trace"].splitlines()[0])
    assert header["type"] == "lmx-trace" and header["source"] == "check"
print("json ok:", j["verdict"], j["states"], "states,", len(j["violations"]), "violations")
PY

echo "-- SPIN cross-check"
if [ -x scripts/spin-compare.sh ]; then bash scripts/spin-compare.sh; else echo "not available yet (docs/checker.md)"; fi
echo "test-check: ok"
