#!/usr/bin/env bash
# RunOptions::threads under ThreadSanitizer: the simulator's tests of a run on several threads
# (tests/sim/threads_test.cpp: mobility planned on a second thread while a round runs;
# tests/sim/pipeline_test.cpp: a semi-synchronous round as a pipeline on two threads) in a
# -fsanitize=thread build of the simulator, which reports any data race between the two.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=build/tsan
cmake -S . -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DCMAKE_UNITY_BUILD=ON -DLMX_BUILD_MPI=OFF \
  -DCMAKE_CXX_FLAGS="-fsanitize=thread -O1" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=thread" >/dev/null
# sim_thread_tests: those two files alone (the other simulator tests cost the build a minute).
cmake --build "$dir" -j "$(nproc)" --target sim_thread_tests
TSAN_OPTIONS="halt_on_error=1 second_deadlock_stack=1" "$dir/tests/sim/sim_thread_tests" --gtest_filter='*Threads*:*Pipeline*' --gtest_brief=1
