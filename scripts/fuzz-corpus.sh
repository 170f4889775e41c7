#!/usr/bin/env bash
# The corpus regression run with the libFuzzer builds (docs/reliability.md, "Fuzzing"; ctest runs
# the same corpora through the ordinary builds as Fuzz.Corpus.*): builds every
# fuzz/*_fuzz.cpp (clang, libFuzzer, ASan + UBSan) and runs every file of every corpus in
# fuzz/corpus/ through every target once, without fuzzing. Any crash, leak or undefined behaviour
# fails. Needs clang and libFuzzer (scripts/setup.sh --fuzz installs them).
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang++ >/dev/null 2>&1 || { echo "$(basename "$0"): clang++ not found (scripts/setup.sh --fuzz installs clang and libFuzzer)" >&2; exit 2; }
build=build/fuzz
cmake -S fuzz -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ >/dev/null
cmake --build "$build" -j "$(nproc)"
corpora=(fuzz/corpus/*/)
log=$build/fuzz-corpus.log
failed=()
for target in "$build"/*_fuzz; do
  [ -x "$target" ] || continue
  name=$(basename "$target")
  # -runs=0: execute the corpus once and stop (nothing is written into the corpus directories).
  if "$target" -runs=0 -artifact_prefix="$build/fuzz-corpus-" "${corpora[@]}" >"$log" 2>&1; then
    echo "$name: $(grep DONE "$log" | tail -1)"
  else
    echo "$name: FAILED" >&2
    tail -n 40 "$log" >&2
    failed+=("$name")
  fi
done
if [ ${#failed[@]} -gt 0 ]; then
  echo "fuzz-corpus.sh: a corpus input crashes ${failed[*]}" >&2
  exit 1
fi
