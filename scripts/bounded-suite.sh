#!/usr/bin/env bash
# The bounded suite of docs/checker.md: every initial graph on 2 and 3 nodes with Delta <= 2, at most
# 2 topology changes, K in {2, 3}, 1 or 2 Lock calls per node. Prints one line per instance and
# exits non-zero if any instance fails.
# Usage: scripts/bounded-suite.sh [VARIANT] [NODES...]   (default: repaired, nodes 2 3)
# Environment: LMX (the lmx binary; default build/release/tools/lmx/lmx), CHANGES (default 2),
# MAX_STATES (default 60000000) and MAX_SECONDS (default 0: none) stop a run as incomplete, LOCKS
# (default "1 2"; "unbounded" runs one instance per graph that stands for every number of calls),
# LOCK_SUBSETS=1 (every instance with --lock-subsets: a Lock may request any subset of its ports).
set -uo pipefail
cd "$(dirname "$0")/.."
lmx=${LMX:-build/release/tools/lmx/lmx}
variant=${1:-repaired}
shift || true
sizes=${*:-2 3}
changes=${CHANGES:-2}
subsets=()
[ "${LOCK_SUBSETS:-0}" = 1 ] && subsets=(--lock-subsets)
status=0
passed=0 failed=0 incomplete=0
graphs() {
  case $1 in
    2) echo "none 0-1" ;;
    3) echo "none 0-1 0-1,1-2 0-1,1-2,0-2" ;;
  esac
}
for n in $sizes; do
  for g in $(graphs "$n"); do
    edges=$g; [ "$g" = none ] && edges=""
    for delta in 1 2; do
      # a path or triangle needs Delta >= 2
      if [ "$delta" = 1 ] && [[ "$g" == *,* ]]; then continue; fi
      for k in 2 3; do
        for locks in ${LOCKS:-1 2}; do
          out=$("$lmx" check --json --variant "$variant" --nodes "$n" --edges "$edges" --delta "$delta" --k "$k" \
                --locks "$locks" --max-changes "$changes" --max-states "${MAX_STATES:-60000000}" \
                --max-seconds "${MAX_SECONDS:-0}" "${subsets[@]}")
          rc=$?
          case $rc in 0) passed=$((passed + 1)) ;; 1) failed=$((failed + 1)) ;; *) incomplete=$((incomplete + 1)) ;; esac
          echo "$out" | python3 -c 'import json,sys; j=json.load(sys.stdin); print("%-70s %-10s states=%-10d transitions=%-11d seconds=%-8.1f kinds=%s" % (j["instance"], j["verdict"], j["states"], j["transitions"], j["seconds"], ",".join(sorted({v["kind"] for v in j["violations"]}))))'
          [ $rc -ne 0 ] && status=1
        done
      done
    done
  done
done
echo "bounded suite ($variant, nodes $sizes${subsets:+, ${subsets[*]}}): $passed pass, $failed fail, $incomplete incomplete"
exit $status
