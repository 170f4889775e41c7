#!/usr/bin/env bash
# Two lmx builds' speed compared under the same conditions: the same `lmx bench` run by both at
# once, one on each of two CPUs, several times, with the CPUs swapped halfway. On a machine whose
# speed changes within minutes, alternated runs can favour one build by chance; runs side by side
# share every change (docs/performance.md, "The sends' counts in registers, tried and left out").
# Prints, per pair, both builds' actions per second over the run and from the steady round, and
# the second's over the first's; then the medians of those ratios, and their geometric mean with the
# two CPUs' speeds cancelled (the halves weighted alike). Not run by CI.
# Usage: scripts/side-by-side.sh PAIRS OLD NEW [BENCH-ARGS...]
#   default BENCH-ARGS: --nodes 1000000 --rounds 20 --lock-nodes 2 --lock-rounds 1 --threads 1
set -euo pipefail
usage="usage: scripts/side-by-side.sh PAIRS OLD NEW [BENCH-ARGS...]"
[ $# -ge 3 ] || {
  echo "side-by-side.sh: $usage" >&2
  exit 2
}
pairs=$1 old=$2 new=$3
shift 3
[[ $pairs =~ ^[1-9][0-9]*$ ]] || {
  echo "side-by-side.sh: PAIRS must be a positive whole number, not '$pairs'" >&2
  exit 2
}
for b in "$old" "$new"; do
  [ -x "$b" ] || {
    echo "side-by-side.sh: $b is not an executable lmx" >&2
    exit 2
  }
done
command -v taskset >/dev/null || {
  echo "side-by-side.sh: taskset is needed (apt-get install util-linux)" >&2
  exit 2
}
[ "$(nproc)" -ge 2 ] || {
  echo "side-by-side.sh: two CPUs are needed, this process may use $(nproc)" >&2
  exit 2
}
args=("$@")
[ ${#args[@]} -gt 0 ] || args=(--nodes 1000000 --rounds 20 --lock-nodes 2 --lock-rounds 1 --threads 1)
# The first two CPUs this process may run on.
read -r cpu_a cpu_b < <(python3 -c 'import os; c = sorted(os.sched_getaffinity(0)); print(c[0], c[1])')
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
for i in $(seq "$pairs"); do
  # Swapped halfway, so that neither build keeps the CPU that may be the faster one.
  if [ "$i" -le $(((pairs + 1) / 2)) ]; then c_old=$cpu_a c_new=$cpu_b; else c_old=$cpu_b c_new=$cpu_a; fi
  taskset -c "$c_old" "$old" bench "${args[@]}" --json >"$scratch/old-$i.json" 2>"$scratch/old-$i.log" &
  p_old=$!
  taskset -c "$c_new" "$new" bench "${args[@]}" --json >"$scratch/new-$i.json" 2>"$scratch/new-$i.log" &
  p_new=$!
  ok=0
  wait "$p_old" || ok=1
  wait "$p_new" || ok=1
  if [ $ok -ne 0 ]; then
    echo "side-by-side.sh: lmx bench ${args[*]} failed in pair $i:" >&2
    tail -n 3 "$scratch/old-$i.log" "$scratch/new-$i.log" >&2
    exit 1
  fi
done
python3 - "$scratch" "$pairs" <<'EOF'
import json, math, statistics, sys
scratch, pairs = sys.argv[1], int(sys.argv[2])
over, steady = [], []
print(f"{'pair':>4} {'old':>8} {'new':>8} {'ratio':>7}   {'old steady':>10} {'new steady':>10} {'ratio':>7}  trace")
for i in range(1, pairs + 1):
    try:
        old = json.load(open(f"{scratch}/old-{i}.json"))
        new = json.load(open(f"{scratch}/new-{i}.json"))
        a, b = old["actions_per_second"], new["actions_per_second"]
        sa, sb = old["steady_actions_per_second"], new["steady_actions_per_second"]
    except (OSError, ValueError, KeyError) as e:
        sys.exit(f"side-by-side.sh: pair {i}: no summary from lmx bench ({e})")
    if a <= 0 or b <= 0 or sa <= 0 or sb <= 0:
        sys.exit(f"side-by-side.sh: pair {i}: a run made no action")
    over.append(b / a), steady.append(sb / sa)
    same = "same" if old["trace_hash"] == new["trace_hash"] else "DIFFERENT"
    print(f"{i:>4} {a / 1e6:>8.2f} {b / 1e6:>8.2f} {b / a:>7.3f}   {sa / 1e6:>10.2f} {sb / 1e6:>10.2f} {sb / sa:>7.3f}  {same}")
print(f"median ratio new/old: {statistics.median(over):.3f} over the run, {statistics.median(steady):.3f} from the steady round;"
      f" new faster in {sum(r > 1 for r in over)} of {pairs} pairs over the run, {sum(r > 1 for r in steady)} from the steady round")
# The CPUs may differ in speed (on this kind of machine by a third, for hours): a ratio then holds
# that factor, inverted when the CPUs swap. The geometric mean of the two halves' geometric means
# cancels it, each half weighted alike; the halves' own means show whether the CPUs differed.
def gmean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs))
half = (pairs + 1) // 2
if pairs >= 2:
    for name, ratios in (("over the run", over), ("from the steady round", steady)):
        first, second = gmean(ratios[:half]), gmean(ratios[half:])
        print(f"geometric mean new/old {name}: {math.sqrt(first * second):.3f}"
              f" (first half {first:.3f}, second half {second:.3f}: CPUs' speed ratio about {math.sqrt(first / second):.2f})")
EOF
