#!/usr/bin/env bash
# Second opinion on `lmx check`: the hand-written Promela model spin/lmx.pml is verified with SPIN on
# small instances of both variants and its verdicts are compared with `lmx check --json` on the
# same instances (docs/checker.md, "Second opinion: SPIN"). Exit 1 on any disagreement.
# Needs spin and a C compiler (CC, default gcc). The instances run side by side, as many as there are
# processors (JOBS), each into its own directory; results print in the table's order. About a minute
# on a 2-core machine.
set -euo pipefail
cd "$(dirname "$0")/.."
lmx=${LMX:-build/release/tools/lmx/lmx}
spin=${SPIN:-spin}
cc=${CC:-gcc}
model=$PWD/spin/lmx.pml
command -v "$spin" >/dev/null || { echo "spin-compare: $spin not found"; exit 1; }
[ -x "$lmx" ] || { echo "spin-compare: $lmx not found (build it first)"; exit 1; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
jobs=${JOBS:-$(nproc)}
instances=()

# compare NAME VARIANT NODES EDGES DELTA K LOCKS CHANGES PROPS
#   PROPS: all (deadlock, P1, P4) | safety (P1, P4) | win-deadlock (deadlock with a request stuck in WIN)
compare() {
  local name=$1 variant=$2 nodes=$3 edges=$4 delta=$5 k=$6 locks=$7 changes=$8 props=$9
  local defs=(-DNN="$nodes" -DDELTA="$delta" -DK="$k" -DLOCKS="$locks" -DCHANGES="$changes")
  [ "$variant" = repaired ] && defs+=(-DREPAIRED)
  [ "$variant" = fast ] && defs+=(-DREPAIRED -DFAST)
  local e
  for e in ${edges//,/ }; do defs+=(-DE${e/-/}); done
  case $props in
    safety) defs+=(-DNO_DEADLOCK) ;;
    win-deadlock) defs+=(-DSTUCK_ONLY=3) ;;
  esac
  local dir="$tmp/$name-$variant-$props" t0 t1
  mkdir -p "$dir"
  t0=$(date +%s.%N)
  (cd "$dir" && "$spin" -a "${defs[@]}" "$model" >spin.log 2>&1 &&
     "$cc" -O0 -w -DSAFETY -DMEMLIM=1024 -o pan pan.c >cc.log 2>&1 &&
     ./pan -c1 -m200000 >pan.log 2>&1) || true
  t1=$(date +%s.%N)
  local spin_verdict states
  if ! grep -q "errors:" "$dir/pan.log" 2>/dev/null; then
    spin_verdict=error
  elif grep -q "assertion violated (err_deadlock==0)" "$dir/pan.log"; then spin_verdict=deadlock
  elif grep -q "assertion violated (err_p1==0)" "$dir/pan.log"; then spin_verdict=P1
  elif grep -q "assertion violated (err_p4==0)" "$dir/pan.log"; then spin_verdict=P4
  elif grep -q "errors: 0" "$dir/pan.log"; then spin_verdict=pass
  else spin_verdict=error
  fi
  states=$(awk '/states, stored/ {print $1; exit}' "$dir/pan.log" 2>/dev/null || true)
  set +e
  "$lmx" check --json --variant "$variant" --nodes "$nodes" --edges "$edges" --delta "$delta" --k "$k" \
    --locks "$locks" --max-changes "$changes" >"$dir/lmx.json" 2>"$dir/lmx.err"
  set -e
  local lmx_kinds
  lmx_kinds=$(python3 - "$dir/lmx.json" "$props" <<'PY'
import json, sys
j = json.load(open(sys.argv[1]))
props = sys.argv[2]
kinds = set()
for v in j["violations"]:
    if v["kind"] == "deadlock" and props == "all":
        kinds.add("deadlock")
    elif v["kind"] == "deadlock" and props == "win-deadlock" and "stays in WIN" in v.get("detail", ""):
        kinds.add("deadlock")
    elif v["kind"] in ("P1", "P4"):
        kinds.add(v["kind"])
print(",".join(sorted(kinds)) if kinds else "pass", j["states"], "%.1f" % j["seconds"])
PY
  ) || lmx_kinds="error"
  local lk=${lmx_kinds%% *} ok=no
  if [ "$spin_verdict" = pass ] && [ "$lk" = pass ]; then ok=yes
  elif [ "$spin_verdict" != pass ] && [ "$spin_verdict" != error ] && [[ ",$lk," == *",$spin_verdict,"* ]]; then ok=yes
  fi
  printf '%-4s %-34s %-8s %-12s spin: %-8s (%s states, %.1fs)  lmx check: %s (%s states, %ss)\n' \
    "$([ $ok = yes ] && echo ok || echo FAIL)" "$name" "$variant" "$props" "$spin_verdict" "${states:-?}" \
    "$(awk -v a="$t0" -v b="$t1" 'BEGIN {print b - a}')" "$lk" "$(echo "$lmx_kinds" | cut -d' ' -f2)" "$(echo "$lmx_kinds" | cut -d' ' -f3)" \
    >"$dir/result.txt"
}

# queue NAME ... : runs compare in the background, at most $jobs at a time.
queue() {
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n || true; done
  instances+=("$tmp/$1-$2-$9")
  compare "$@" &
}

#        name                              variant  N edges  D K L C props
queue   2n-edge-static                     paper    2 0-1    1 2 1 0 all
queue   2n-edge-static                     repaired 2 0-1    1 2 1 0 all
queue   2n-edge-1change                    paper    2 0-1    1 2 1 1 win-deadlock
queue   2n-edge-1change-safety             paper    2 0-1    1 2 1 1 safety
queue   2n-edge-1change                    repaired 2 0-1    1 2 1 1 all
queue   2n-edge-d2-k3-2changes             repaired 2 0-1    2 3 1 2 all
queue   3n-edge-static                     paper    3 0-1    1 2 1 0 all
queue   3n-edge-static                     repaired 3 0-1    1 2 1 0 all
queue   3n-edge-1change                    paper    3 0-1    1 2 1 1 win-deadlock
queue   3n-edge-1change                    repaired 3 0-1    1 2 1 1 all
queue   2n-edge-static                     fast     2 0-1    1 2 1 0 all
queue   2n-edge-1change                    fast     2 0-1    1 2 1 1 all
queue   2n-edge-d2-k3-2changes             fast     2 0-1    2 3 1 2 all
queue   3n-edge-static                     fast     3 0-1    1 2 1 0 all
queue   3n-edge-1change                    fast     3 0-1    1 2 1 1 all

wait
passed=0 failed=0
for dir in "${instances[@]}"; do
  if [ -f "$dir/result.txt" ]; then
    cat "$dir/result.txt"
    if grep -q '^ok ' "$dir/result.txt"; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  else
    echo "FAIL $(basename "$dir"): no result"
    failed=$((failed + 1))
  fi
done
echo "spin-compare: $passed passed, $failed failed"
[ "$failed" = 0 ]
