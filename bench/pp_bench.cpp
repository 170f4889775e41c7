// The sequential scheduler of population protocols on the complete graph, in interactions per
// second, against its baseline: a loop that draws the same pairs the same way and only swaps the
// two agents' bytes (the random memory accesses without the protocol). Run both in one process and
// compare the ratio; machines are noisy, single figures are not.
#include <benchmark/benchmark.h>

#include <vector>

#include "lmx/apps/population.hpp"
#include "sim/rng.hpp"

namespace {

using namespace lmx::apps::pp;

/// Approximate majority, never stopping: every iteration runs max_time parallel time.
void BM_Sequential(benchmark::State& state) {
  Protocol p = load_protocol("approximate-majority");
  p.stop.kind = StopCondition::Kind::never;
  RunConfig c;
  c.agents = static_cast<std::uint64_t>(state.range(0));
  c.max_time = 20;
  std::uint64_t interactions = 0, seed = 1;
  for (auto _ : state) {
    c.seed = seed++;
    interactions += run(p, c).interactions;
  }
  state.counters["interactions_per_s"] = benchmark::Counter(double(interactions), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Sequential)->Arg(1'000'000)->Arg(10'000'000)->Unit(benchmark::kMillisecond);

/// The baseline: the same pair draws over one byte per agent, swapping the two bytes.
void BM_BareSwap(benchmark::State& state) {
  const auto n = static_cast<std::uint32_t>(state.range(0));
  std::vector<std::uint8_t> agents(n);
  for (std::uint32_t i = 0; i < n; ++i) agents[i] = static_cast<std::uint8_t>(i % 3);
  lmx::sim::Rng rng(1, lmx::sim::agent_stream);
  const std::uint64_t per_iteration = std::uint64_t{20} * n;
  std::uint64_t interactions = 0;
  for (auto _ : state) {
    for (std::uint64_t k = 0; k < per_iteration; ++k) {
      const std::uint64_t x = rng.next();
      const auto i = static_cast<std::uint32_t>(((x >> 32) * n) >> 32);
      auto j = static_cast<std::uint32_t>(((x & 0xFFFFFFFFu) * (n - 1)) >> 32);
      j += j >= i;
      std::swap(agents[i], agents[j]);
    }
    interactions += per_iteration;
    benchmark::DoNotOptimize(agents.data());
  }
  state.counters["interactions_per_s"] = benchmark::Counter(double(interactions), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_BareSwap)->Arg(1'000'000)->Arg(10'000'000)->Unit(benchmark::kMillisecond);

}  // namespace
