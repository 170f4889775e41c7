#!/usr/bin/env bash
# Installs every Debian package lmx needs to build and test, then builds the web pages. Idempotent.
#
#   scripts/setup.sh           what the build, the tests and `lmx run` need
#   scripts/setup.sh --fuzz    only the fuzzing tools (clang, libFuzzer), for scripts/fuzz*.sh
set -euo pipefail
fuzz=0
case "${1:-}" in
  "") ;;
  --fuzz) fuzz=1 ;;
  *) echo "usage: scripts/setup.sh [--fuzz]" >&2; exit 2 ;;
esac
packages=(
  build-essential cmake ninja-build pkg-config git
  libgtest-dev libgmock-dev libbenchmark-dev librapidcheck-dev
  libcli11-dev nlohmann-json3-dev libfmt-dev libtomlplusplus-dev
  clang-format spin python3
  libcpp-httplib-dev chromium
  libsqlite3-dev sqlite3
  libopenmpi-dev openmpi-bin
  libsimgrid-dev
  pybind11-dev python3-dev python3-pytest python3-numpy python3-pandas
  python3-matplotlib python3-nbclient python3-nbformat python3-ipykernel
)
# The fuzz targets (fuzz/): clang, libFuzzer and clang's sanitizer runtimes (libclang-rt is only
# recommended by clang, and recommendations are not installed here). Not needed by the tests (they
# run the fuzz corpora through the ordinary builds), so CI does not spend time installing them.
[ "$fuzz" = 1 ] && packages=(clang libfuzzer-14-dev libclang-rt-14-dev)
# Node.js and npm build the web pages (web/) and run the browser tests; Debian's when none is there.
[ "$fuzz" = 1 ] || command -v npm >/dev/null 2>&1 || packages+=(nodejs npm)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  sudo_cmd=""
  [ "$(id -u)" -ne 0 ] && sudo_cmd="sudo"
  $sudo_cmd apt-get update
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y --no-install-recommends "${missing[@]}"
fi
[ "$fuzz" = 1 ] && exit 0
# The web viewer and report pages: npm packages pinned by web/package-lock.json, then one build
# into web/dist, which CMake embeds into the lmx binary (tools/lmx/embed_web.cmake).
cd "$(dirname "$0")/../web"
npm ci --no-audit --no-fund --loglevel=error
npm run --silent build
