#!/usr/bin/env bash
# lmx bench against the SimGrid peer (bench/peers/simgrid/README.md) on the same workload: a random
# graph with Delta = 8, every node locking, the semi-synchronous random adversary (p = 0.5), K = 4,
# the repaired variant, the same seed and rounds; at 10^3, 10^4 and 10^5 nodes. Prints actions/s
# and bytes per node (peak RSS / nodes) of each and their ratios. A few minutes; not run by CI.
#   SIZES   node counts (default "1000 10000 100000")
#   ROUNDS  rounds of both runs (default: 2,000,000 / nodes, at least 20: about 10^6 actions each)
#   SEED    (default 1)
#   LMX_BUILD_DIR, SIMGRID_PEER_BUILD, JOBS: as bench/peers/simgrid/build.sh
set -euo pipefail
cd "$(dirname "$0")/.."
sizes=${SIZES:-"1000 10000 100000"}
seed=${SEED:-1}
build=${LMX_BUILD_DIR:-build/release}
if [ ! -x "$build/tools/lmx/lmx" ]; then
  [ -f "$build/build.ninja" ] || cmake --preset release -B "$build" >&2
  cmake --build "$build" -j "${JOBS:-$(nproc)}" --target lmx >&2
fi
peer=$(bash bench/peers/simgrid/build.sh)
runs=$(mktemp)
trap 'rm -f "$runs"' EXIT
for n in $sizes; do
  rounds=${ROUNDS:-$((2000000 / n > 20 ? 2000000 / n : 20))}
  echo "$n nodes, $rounds rounds: lmx bench ..." >&2
  # The lock workload that lmx bench runs after the whole run is cut to nothing (2 nodes, 1 round).
  "$build/tools/lmx/lmx" bench --nodes "$n" --rounds "$rounds" --seed "$seed" --lock-nodes 2 --lock-rounds 1 \
    --json | sed 's/^/lmx /' >>"$runs"
  echo "$n nodes, $rounds rounds: SimGrid peer ..." >&2
  "$peer" --nodes "$n" --rounds "$rounds" --seed "$seed" --json | sed 's/^/simgrid /' >>"$runs"
done
python3 - "$runs" <<'EOF'
import json, sys

runs = {}
for line in open(sys.argv[1]):
    tool, text = line.split(" ", 1)
    r = json.loads(text)
    runs.setdefault(r["nodes"], {})[tool] = r
print("lmx bench vs lmx::core on SimGrid S4U actors: random graph Delta=8, every node locking, semi-sync p=0.5, K=4")
head = ("nodes", "rounds", "lmx actions/s", "SimGrid actions/s", "lmx/SimGrid", "lmx B/node", "SimGrid B/node",
        "lmx/SimGrid")
print("| " + " | ".join(head) + " |")
print("|" + "|".join("---:" for _ in head) + "|")
for n in sorted(runs):
    lmx, sg = runs[n]["lmx"], runs[n]["simgrid"]
    # bytes per node: each process's peak RSS over the nodes (the peer's from after the graph is read).
    lmx_b, sg_b = lmx["peak_rss_bytes"] / n, sg["bytes_per_node"]
    cells = (f"{n:,}", f"{lmx['rounds']:,}", f"{lmx['actions_per_second']:.3g}", f"{sg['actions_per_second']:.3g}",
             f"{lmx['actions_per_second'] / sg['actions_per_second']:.0f}x", f"{lmx_b:,.0f}", f"{sg_b:,.0f}",
             f"1/{sg_b / lmx_b:.1f}")
    print("| " + " | ".join(cells) + " |")
print("actions/s: actions over the whole run's wall time (lmx: engine steps; SimGrid: Engine::run).")
print("B/node: peak RSS of the process / nodes (VmHWM; the SimGrid peer's counted from after the graph is built).")
for n in sorted(runs):
    lmx, sg = runs[n]["lmx"], runs[n]["simgrid"]
    print(f"{n:,} nodes: actions lmx {lmx['actions']:,}, SimGrid {sg['actions']:,}; lmx's own state "
          f"{lmx['bytes_per_node']:.0f} B/node; SimGrid run {sg['run_seconds']:.1f} s, setup {sg['setup_seconds']:.1f} s")
EOF
