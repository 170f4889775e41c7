#!/usr/bin/env bash
# Every test: install dependencies, build Release and ASan+UBSan (warnings are errors), run the
# suite under both, then the end-to-end checks (CLI, checker cross-checks, browser tests).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each phase's wall time is printed as it ends and again at the end (CI must stay well under 30 min).
timings=()
phase() {
  local name=$1 start=$SECONDS
  shift
  echo "== $name"
  "$@"
  timings+=("$(printf '%5ds  %s' $((SECONDS - start)) "$name")")
  echo "-- $name: $((SECONDS - start)) s"
}
phase setup bash scripts/setup.sh
for preset in release asan; do
  phase "build $preset" bash scripts/build.sh "$preset"
  phase "test $preset" ctest --preset "$preset" -j "$(nproc)"
done
for extra in scripts/test-*.sh; do
  [ -e "$extra" ] || continue
  phase "$extra" bash "$extra"
done
echo "== wall time by phase"
printf '%s\n' "${timings[@]}"
echo "total: $SECONDS s"
