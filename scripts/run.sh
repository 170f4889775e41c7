#!/usr/bin/env bash
# The main job: install dependencies, build (Release) and run lmx on its built-in default scenario.
# Extra arguments go to `lmx run`.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh release
./build/release/tools/lmx/lmx info
if ./build/release/tools/lmx/lmx run --help >/dev/null 2>&1; then
  ./build/release/tools/lmx/lmx run "$@"
else
  ./build/release/tools/lmx/lmx demo
fi
