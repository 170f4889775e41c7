// Simulator micro-benchmarks (Google Benchmark). Not tests: nothing asserts a time.
//
//  - BM_BenchRound/N: one semi-synchronous round of the `lmx bench` scenario (random graph from
//    the configuration model, Delta = 8, every node locking continuously, activation p = 0.5) at N
//    nodes. Counter `actions_per_second`. Small N fits in cache; compare with large N to see the
//    cost of cache misses on the receivers' channels. Arguments: N, and 1 to defer writes into
//    other nodes' channels (the default) or 0 to make them at the send (RunOptions::defer_writes).
//  - BM_TwoNodeEdge: the same at two nodes sharing one edge: every send and delivery hits hot
//    channels, so this is the simulator's own per-action overhead (channel enqueue and delivery,
//    adversary choice, monitors P1-P7, event hash) on top of the core's handler.
//  - BM_ReceivableMask/form: collecting one node's candidates (Delta = 8: nine channel records)
//    from records in L1, in the portable form (0) and, on x86-64, the SSE2 form (1). Counter
//    `masks_per_second`.
//
//   build/release/bench/sim_bench --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "lmx/sim/simulation.hpp"
#include "sim/channel.hpp"

namespace {
using namespace lmx::sim;

Scenario bench_scenario(std::uint32_t nodes) {
  Scenario s;
  s.name = "bench", s.nodes = nodes, s.delta = 8, s.engine = lmx::sim::EngineKind::semi_sync;
  s.k = 4, s.variant = lmx::core::Variant::repaired;  // lmx bench's scenario, whatever the default
  s.rounds = std::uint64_t{1} << 40;  // never ends within a benchmark (and P7's horizon is never reached)
  s.activation.p = 0.5, s.topology.kind = lmx::sim::TopologyKind::regular, s.workload.idle = 0, s.workload.hold = 0;
  return s;
}

void run_rounds(benchmark::State& state, const Scenario& s, bool defer_writes = true) {
  RunOptions options;
  options.defer_writes = defer_writes;
  auto engine = make_engine(s, options);
  for (int warm = 0; warm < 5; ++warm) engine->step();  // past the start-up transient
  const std::uint64_t before = engine->actions();
  for (auto _ : state) engine->step();
  const auto actions = static_cast<double>(engine->actions() - before);
  state.counters["actions_per_second"] = benchmark::Counter(actions, benchmark::Counter::kIsRate);
  state.counters["actions_per_round"] = actions / double(state.iterations());
  if (!engine->violations().empty()) state.SkipWithError("a monitor reported a violation");
}

void BM_BenchRound(benchmark::State& state) {
  run_rounds(state, bench_scenario(static_cast<std::uint32_t>(state.range(0))), state.range(1) != 0);
}
BENCHMARK(BM_BenchRound)
    ->ArgsProduct({{10'000, 100'000, 1'000'000}, {1, 0}})
    ->ArgNames({"nodes", "defer"})
    ->Unit(benchmark::kMillisecond);

void BM_TwoNodeEdge(benchmark::State& state) {
  Scenario s = bench_scenario(2);
  s.delta = 1, s.activation.kind = lmx::sim::ActivationKind::synchronous,
  s.topology.kind = lmx::sim::TopologyKind::edges, s.topology.edges = {{0, 1}};
  run_rounds(state, s);
}
BENCHMARK(BM_TwoNodeEdge);

void BM_ReceivableMask(benchmark::State& state) {
  // 512 nodes' records with random counts and stamps, visited in turn (all in L1).
  constexpr unsigned ports = 9, nodes = 512;
  std::mt19937_64 rng(1);
  const ChannelFields fields{ports};
  std::vector<std::uint8_t> records(std::size_t{nodes} * fields.stride());
  for (unsigned u = 0; u < nodes; ++u)
    for (unsigned p = 0; p < ports; ++p) {
      std::uint8_t* rec = &records[std::size_t{u} * fields.stride()];
      rec[fields.counts(p)] = static_cast<std::uint8_t>(rng() % (inline_slots + 1));
      for (unsigned slot = 0; slot < inline_slots; ++slot)
        store_stamp(rec + fields.stamp(slot, p), static_cast<std::uint16_t>(rng() % 2));
    }
  const bool vector_form = state.range(0) != 0;
  std::uint64_t sum = 0;
  unsigned node = 0;
  for (auto _ : state) {
    const std::uint8_t* ch = &records[std::size_t{node} * fields.stride()];
#if defined(__SSE2__)
    sum += vector_form ? receivable_mask_sse2(ch, ports, 1) : receivable_mask_portable(ch, ports, 1);
#else
    sum += receivable_mask_portable(ch, ports, 1);
#endif
    node = (node + 1) % nodes;
  }
  benchmark::DoNotOptimize(sum);
  state.counters["masks_per_second"] = benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
#if !defined(__SSE2__)
  if (vector_form) state.SkipWithError("no SSE2 on this target");
#endif
}
BENCHMARK(BM_ReceivableMask)->Arg(0)->Arg(1)->ArgName("sse2");

}  // namespace
