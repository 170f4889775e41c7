#!/usr/bin/env bash
# Runs one fuzz target for a while (docs/reliability.md, "Fuzzing").
#
#   scripts/fuzz.sh TARGET SECONDS [--merge] [LIBFUZZER_OPTION...]
#
# TARGET is a fuzz/TARGET_fuzz.cpp (message, scenario_toml, ...; the _fuzz suffix may be given).
# Builds build/fuzz if needed (clang, libFuzzer, ASan + UBSan), then fuzzes with fuzz/corpus/TARGET
# as the seed corpus. New inputs go to build/fuzz-runs/TARGET/corpus, crashes, leaks and timeouts
# to build/fuzz-runs/TARGET/ (crash-*, leak-*, timeout-*), the log to build/fuzz-runs/TARGET/log.txt;
# the repository's corpus is left alone unless --merge is given, which then adds to it the new
# inputs that cover something it does not (libFuzzer's -merge=1 minimises them). Options such as
# -jobs=1 or -max_len=N are passed to libFuzzer. Runs at nice 10; run one campaign at a time.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v clang++ >/dev/null 2>&1 || { echo "$(basename "$0"): clang++ not found (scripts/setup.sh --fuzz installs clang and libFuzzer)" >&2; exit 2; }

usage() {
  echo "usage: scripts/fuzz.sh TARGET SECONDS [--merge] [LIBFUZZER_OPTION...]" >&2
  echo "targets: $(ls fuzz/*_fuzz.cpp 2>/dev/null | sed 's|fuzz/||; s|_fuzz.cpp||' | tr '\n' ' ')" >&2
  exit 2
}
[ $# -ge 2 ] || usage
name=${1%_fuzz}
seconds=$2
shift 2
[ -f "fuzz/${name}_fuzz.cpp" ] || { echo "fuzz.sh: no fuzz target fuzz/${name}_fuzz.cpp" >&2; usage; }
[[ $seconds =~ ^[0-9]+$ ]] && [ "$seconds" -ge 1 ] || { echo "fuzz.sh: SECONDS must be a whole number >= 1, got '$seconds'" >&2; exit 2; }
merge=0
options=()
for arg in "$@"; do
  case "$arg" in
    --merge) merge=1 ;;
    -*) options+=("$arg") ;;
    *) echo "fuzz.sh: unknown argument '$arg'" >&2; usage ;;
  esac
done

build=build/fuzz
if [ ! -f "$build/build.ninja" ]; then
  nice -n 10 cmake -S fuzz -B "$build" -G Ninja -DCMAKE_CXX_COMPILER=clang++ >/dev/null
fi
nice -n 10 cmake --build "$build" --target "${name}_fuzz" -j 2

run=build/fuzz-runs/$name
corpus=fuzz/corpus/$name
mkdir -p "$run/corpus" "$corpus"
dict=()
[ -f "fuzz/$name.dict" ] && dict=(-dict="fuzz/$name.dict")
echo "fuzz.sh: $name for ${seconds}s; new inputs in $run/corpus, findings in $run/"
set +e
nice -n 10 "$build/${name}_fuzz" -max_total_time="$seconds" -artifact_prefix="$run/" -print_final_stats=1 \
  "${dict[@]}" "${options[@]}" "$run/corpus" "$corpus" 2>&1 | tee "$run/log.txt"
status=${PIPESTATUS[0]}
set -e
if [ "$merge" -eq 1 ]; then
  echo "fuzz.sh: merging the new inputs that add coverage into $corpus"
  nice -n 10 "$build/${name}_fuzz" -merge=1 "${dict[@]}" "$corpus" "$run/corpus" 2>&1 | tail -2
fi
exit "$status"
