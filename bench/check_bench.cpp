// Throughput of the exhaustive checker (docs/checker.md): states explored per second on fixed
// instances, reported as the counter `states/s` (and bytes stored per state as `bytes/state`).
// Each iteration runs lmx::check::check on the whole instance: successor generation on the real
// core, packing, the hashed state store and, in full runs, the liveness graph and its analysis.
//
//   build/release/bench/check_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "lmx/check/checker.hpp"

namespace {
using lmx::check::Instance;
using lmx::check::Options;

/// One edge 0-1 among `nodes` nodes, Delta 1, K 2.
Instance one_edge(unsigned nodes, unsigned locks, unsigned changes) {
  Instance inst;
  inst.nodes = nodes;
  inst.edges = {{0, 1}};
  inst.delta = 1;
  inst.k = 2;
  inst.locks = locks;
  inst.max_changes = changes;
  return inst;
}
Instance two_nodes() { return one_edge(2, 2, 2); }    // 2 Lock calls, 2 changes: 187 k states
Instance three_nodes() { return one_edge(3, 1, 0); }  // 1 Lock call, no change: 119 k states

/// Three nodes, no edge, Delta 2, 1 topology change: 2 116 584 states, 89 682 up to renaming.
Instance three_apart() {
  Instance inst = one_edge(3, 1, 1);
  inst.edges = {};
  inst.delta = 2;
  return inst;
}

void run(benchmark::State& state, const Instance& inst, bool liveness, bool symmetry = false) {
  Options opt;
  opt.liveness = liveness;
  opt.symmetry = symmetry;
  std::uint64_t states = 0, bytes = 0;
  for (auto _ : state) {
    const auto r = lmx::check::check(inst, opt);
    states += r.states;
    bytes = r.bytes_per_state;
    benchmark::DoNotOptimize(r.verdict);
  }
  state.counters["states/s"] = benchmark::Counter(static_cast<double>(states), benchmark::Counter::kIsRate);
  state.counters["bytes/state"] = static_cast<double>(bytes);
}

// Symmetry reduction against the full search on one instance, in the same process: the reduced
// run stores fewer states but canonicalises every successor (compare the time per iteration).
void BM_ApartSafetyFull(benchmark::State& s) { run(s, three_apart(), false); }
void BM_ApartSafetySymmetry(benchmark::State& s) { run(s, three_apart(), false, true); }
void BM_ApartFullSymmetry(benchmark::State& s) { run(s, three_apart(), true, true); }

void BM_TwoNodesFull(benchmark::State& s) { run(s, two_nodes(), true); }
void BM_TwoNodesSafety(benchmark::State& s) { run(s, two_nodes(), false); }
void BM_ThreeNodesFull(benchmark::State& s) { run(s, three_nodes(), true); }
void BM_ThreeNodesSafety(benchmark::State& s) { run(s, three_nodes(), false); }
BENCHMARK(BM_TwoNodesFull)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TwoNodesSafety)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ThreeNodesFull)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ThreeNodesSafety)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ApartSafetyFull)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ApartSafetySymmetry)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_ApartFullSymmetry)->Unit(benchmark::kMillisecond);
}  // namespace
