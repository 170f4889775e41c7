#!/usr/bin/env bash
# Every test: install dependencies, build Release and ASan+UBSan (warnings are errors), run the
# suite under both, then the end-to-end checks (CLI, checker cross-checks, browser tests).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
for preset in release asan; do
  echo "== build $preset"
  bash scripts/build.sh "$preset"
  echo "== test $preset"
  ctest --preset "$preset" -j "$(nproc)"
done
for extra in scripts/test-*.sh; do
  [ -e "$extra" ] || continue
  echo "== $extra"
  bash "$extra"
done
