#!/usr/bin/env bash
# Installs the Release build into a scratch prefix and builds tests/consumer against it.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
cmake --install build/release --prefix "$prefix/install" >/dev/null
cmake -S tests/consumer -B "$prefix/build" -G Ninja -DCMAKE_PREFIX_PATH="$prefix/install" >/dev/null
cmake --build "$prefix/build" | tail -n 20 || true
test -x "$prefix/build/consumer"
"$prefix/build/consumer"
echo "consumer: 1 passed, 0 failed"
