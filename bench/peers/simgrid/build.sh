#!/usr/bin/env bash
# Builds lmx_simgrid_peer and prints its path (build output goes to stderr). In lmx's build
# directory when that build has the target (bench/CMakeLists.txt adds this directory and SimGrid
# was found at configure time); otherwise alone, as a CMake project of its own.
#   LMX_BUILD_DIR       lmx's build directory (default build/release)
#   SIMGRID_PEER_BUILD  the directory of the build alone (default build/simgrid-peer)
#   JOBS                parallel compile jobs (default: every core)
set -euo pipefail
cd "$(dirname "$0")/../../.."
build=${LMX_BUILD_DIR:-build/release}
alone=${SIMGRID_PEER_BUILD:-build/simgrid-peer}
jobs=${JOBS:-$(nproc)}
if [ -f "$build/build.ninja" ] && grep -q '^build lmx_simgrid_peer:' "$build/build.ninja"; then
  cmake --build "$build" -j "$jobs" --target lmx_simgrid_peer >&2
  echo "$build/bench/peers/simgrid/lmx_simgrid_peer"
else
  cmake -S bench/peers/simgrid -B "$alone" -G Ninja >&2
  cmake --build "$alone" -j "$jobs" --target lmx_simgrid_peer >&2
  echo "$alone/lmx_simgrid_peer"
fi
