#!/usr/bin/env bash
# Instructions per action of the engine's rounds, counted by valgrind's callgrind: the same count
# for the same binary and input whatever else the machine does, so two builds compare exactly where
# wall-clock figures move by 15 % from one run to the next (docs/performance.md, "Instructions, not
# lines"). Only the rounds are counted (EngineImpl<unsigned short...>::step, Delta 8..15), not the
# set-up. Two workloads, one thread each:
#   main       lmx bench --scenario --nodes 100000 --rounds 6 (async engine, mobile nodes)
#   semi-sync  lmx bench --nodes 200000 --rounds 8 (random 8-regular graph, every node locking)
# Usage: scripts/instructions.sh [LMX...]  (default build/release/tools/lmx/lmx); with two binaries
# it prints the second's counts over the first's. About a minute per binary. Not run by CI.
#   WORKLOADS  which of them (default "main semi-sync")
set -euo pipefail
cd "$(dirname "$0")/.."
command -v valgrind >/dev/null || {
  echo "instructions.sh: valgrind is needed (apt-get install valgrind)" >&2
  exit 2
}
binaries=("$@")
[ ${#binaries[@]} -gt 0 ] || binaries=(build/release/tools/lmx/lmx)
for b in "${binaries[@]}"; do
  [ -x "$b" ] || {
    echo "instructions.sh: $b is not an executable lmx" >&2
    exit 2
  }
done
workloads=${WORKLOADS:-"main semi-sync"}
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
rows=$scratch/rows
: >"$rows"
i=0
for b in "${binaries[@]}"; do
  for w in $workloads; do
    case $w in
      main) args=(bench --scenario --nodes 100000 --rounds 6 --threads 1 --json) ;;
      semi-sync) args=(bench --nodes 200000 --rounds 8 --lock-nodes 2 --lock-rounds 1 --threads 1 --json) ;;
      *)
        echo "instructions.sh: unknown workload '$w' (main, semi-sync)" >&2
        exit 2
        ;;
    esac
    echo "$w: $b ..." >&2
    out=$scratch/$i-$w
    valgrind --tool=callgrind --branch-sim=yes --callgrind-out-file="$out.cg" \
      --toggle-collect='lmx::sim::(anonymous namespace)::EngineImpl<unsigned short*>::step()' \
      "$b" "${args[@]}" >"$out.json" 2>"$out.log" || {
      echo "instructions.sh: $b ${args[*]} failed under valgrind:" >&2
      tail -5 "$out.log" >&2
      exit 1
    }
    printf '%s\t%s\t%s\t%s\t%s\n' "$i" "$b" "$w" "$out.cg" "$out.json" >>"$rows"
  done
  i=$((i + 1))
done
python3 - "$rows" <<'EOF'
import json, sys
rows = [line.rstrip("\n").split("\t") for line in open(sys.argv[1])]
results = {}
print(f"{'workload':<10} {'binary':<40} {'actions':>10} {'instructions':>15} {'per action':>11} {'mispredicted':>13} {'per action':>11}  trace hash")
for index, binary, workload, cg, js in rows:
    summary = None
    events = None
    for line in open(cg):
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("summary:") or line.startswith("totals:"):
            summary = [int(x) for x in line.split()[1:]]
    if not events or not summary:
        sys.exit(f"instructions.sh: no totals in {cg}")
    counts = dict(zip(events, summary))
    run = json.load(open(js))
    actions = run["actions"]
    if actions <= 0:
        sys.exit(f"instructions.sh: {binary} ran no action in {workload}")
    ir, bcm = counts["Ir"], counts.get("Bcm", 0) + counts.get("Bim", 0)
    results[(index, workload)] = (ir, bcm, run["trace_hash"])
    print(f"{workload:<10} {binary:<40} {actions:>10} {ir:>15,} {ir / actions:>11.1f} {bcm:>13,} {bcm / actions:>11.2f}  {run['trace_hash']}")
first = sorted({r[0] for r in rows})
if len(first) > 1:
    for workload in sorted({r[2] for r in rows}):
        base = results[(first[0], workload)]
        for index in first[1:]:
            other = results[(index, workload)]
            same = "same trace" if other[2] == base[2] else "TRACE DIFFERS"
            print(f"{workload}: binary {int(index) + 1} / binary 1: instructions {other[0] / base[0]:.4f}, "
                  f"mispredicted branches {other[1] / max(base[1], 1):.4f} ({same})")
EOF
