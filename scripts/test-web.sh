#!/usr/bin/env bash
# Browser tests of the trace viewer and the run report: Debian's Chromium, headless, driven by
# playwright-core under node's test runner. Needs the web build (scripts/setup.sh) and an lmx
# binary (default: the Release build). Screenshots go to web/test-results/.
set -euo pipefail
cd "$(dirname "$0")/.."
export LMX_BIN=${LMX_BIN:-$PWD/build/release/tools/lmx/lmx}
if [ ! -x "$LMX_BIN" ]; then
  echo "test-web: no lmx binary at $LMX_BIN (run scripts/build.sh release first)" >&2
  exit 1
fi
if ! "$LMX_BIN" view --help >/dev/null 2>&1; then
  echo "test-web: $LMX_BIN has no 'view' command" >&2
  exit 1
fi
cd web
[ -d node_modules/playwright-core ] || npm ci --no-audit --no-fund --loglevel=error
[ -f dist/index.html ] || npm run --silent build
node --test test/*.test.mjs
