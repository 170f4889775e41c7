#!/usr/bin/env bash
# The MPI sweep's overhead: a sweep of 1,000 small points (n = 100, 300 rounds, about 13 ms each)
# on RANKS ranks (default 2), against the ideal (the sum of the points' own run times / RANKS) and
# against a local sweep on as many threads. Each is run REPEATS times (default 3), alternating.
#
#   scripts/sweep-mpi-bench.sh [RANKS] [REPEATS]      (after scripts/build.sh release)
set -euo pipefail
ranks=${1:-2}
repeats=${2:-3}
root=$(cd "$(dirname "$0")/.." && pwd)
lmx=$root/build/release/tools/lmx/lmx
[ -x "$lmx" ] || { echo "build first: scripts/build.sh release" >&2; exit 2; }
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cat >"$work/thousand.toml" <<'TOML'
name = "thousand"
seeds = 250
[scenario]
nodes = 100
rounds = 300
[grid]
delta = [3, 4]
k = [2, 8]
TOML
# Open MPI refuses root unless told twice.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
printf '%-6s %-5s %9s %9s %7s\n' run rep wall_s ideal_s ratio
for rep in $(seq "$repeats"); do
  for how in mpi local; do
    db="$work/$how-$rep.sqlite"
    start=$(date +%s.%N)
    if [ "$how" = mpi ]; then
      mpirun -n "$ranks" --oversubscribe "$lmx" sweep "$work/thousand.toml" --db "$db" >/dev/null
    else
      "$lmx" sweep "$work/thousand.toml" --db "$db" --jobs "$ranks" >/dev/null
    fi
    end=$(date +%s.%N)
    ideal=$(sqlite3 "$db" "SELECT SUM(wall_seconds) / $ranks FROM thousand")
    awk -v h="$how" -v r="$rep" -v s="$start" -v e="$end" -v i="$ideal" \
      'BEGIN { printf "%-6s %-5s %9.2f %9.2f %7.3f\n", h, r, e - s, i, (e - s) / i }'
  done
done
