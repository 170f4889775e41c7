// The main job's engine parts, each on its own (Google Benchmark). Not tests: nothing asserts a
// time. The scenario is `lmx run`'s built-in default at N nodes (async engine, mobility, radius and
// speed scaled as 1/sqrt(N) by the validator), so each part sees the sizes it sees in the main job.
//
//  - BM_MobilityUpdate/N: one round of the topology adversary's mobility (Dynamics::step): every
//    node moved towards its waypoint, the edges longer than r cut, the cell grid rebuilt and the
//    pairs within r that are not adjacent connected on random free ports (CellGrid). The host is a
//    bare adjacency (peers and port sets); the engine's own bookkeeping per edge change (event
//    hash, monitors, messages lost with a cut edge) is not in it: those sit in the engine's host,
//    which only a whole run reaches. Counters: nodes per second, cuts and connects per round.
//  - BM_AsyncEventSelection/N/form: the asynchronous engine's choice of the next execution: one
//    round of taking every execution that starts in it, smallest (tick, node) first, and scheduling
//    the node's next one (a duration and a gap, each uniform below a round), through the
//    Scheduler and its calendar queue (form 0, the engine's), or through the binary heap of
//    (tick, node) it replaced, with the same draws (form 1, a baseline). Counter: executions per
//    second.
//  - BM_ChannelPick/N: the delivery adversary's pick for an activated node: its receivable
//    messages from its Delta + 1 = 9 channel records (the candidate mask), their count, the random
//    choice among them and the chosen (port, slot) (Candidates::at, nth_set_bit), as
//    Network::receivable and the engine's deliver do it. The nodes are visited in a random order,
//    as the asynchronous executions visit them: at N = 1024 the records stay in cache, at 10^6
//    (72 MB) each activation misses. Records hold 0 to 2 messages, one in 8 of them sent in the
//    current tick (not receivable). Counter: picks per second.
//
//   build/release/bench/engine_parts_bench --benchmark_min_time=0.5
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <functional>
#include <numeric>
#include <queue>
#include <random>
#include <utility>
#include <vector>

#include "lmx/sim/scenario.hpp"
#include "sim/channel.hpp"
#include "sim/dynamics.hpp"
#include "sim/network.hpp"
#include "sim/port_graph.hpp"
#include "sim/rng.hpp"
#include "sim/scheduler.hpp"
#include "sim/topology.hpp"

namespace lmx::sim::engine_parts_bench {

/// `lmx run`'s built-in scenario at n nodes, as the validator makes it (scaled radius and speed).
Scenario main_job(std::uint32_t nodes) { return scenario_from_json({{"nodes", nodes}}); }

// ---------------------------------------------------------------- mobility

void BM_MobilityUpdate(benchmark::State& state) {
  const Scenario s = main_job(static_cast<std::uint32_t>(state.range(0)));
  Dynamics dynamics(s);
  PortGraph<> host(s.nodes, s.delta, dynamics);
  // The engine's set-up: the initial topology from the topology stream, its edges within the cap.
  auto topology = build_topology(s, dynamics.rng());
  dynamics.place(std::move(topology.positions));
  for (auto [u, v] : topology.edges) host.connect_random(u, v);
  std::uint64_t round = 0;
  for (; round < 3; ++round) dynamics.step(host, round);  // the grid's arrays grown to size
  host.cuts = host.connects = 0;
  for (auto _ : state) dynamics.step(host, round++);
  const auto rounds = static_cast<double>(state.iterations());
  state.counters["nodes_per_second"] = benchmark::Counter(double(s.nodes) * rounds, benchmark::Counter::kIsRate);
  state.counters["cuts_per_round"] = double(host.cuts) / rounds;
  state.counters["connects_per_round"] = double(host.connects) / rounds;
  state.counters["mean_degree"] = 2.0 * double(host.edges()) / s.nodes;
}
BENCHMARK(BM_MobilityUpdate)
    ->Arg(10'000)
    ->Arg(100'000)
    ->Arg(1'000'000)
    ->ArgName("nodes")
    ->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- asynchronous event selection

/// Ticks per round of the asynchronous engine (engine.cpp).
constexpr std::uint32_t ticks_per_round = 1024;

/// The binary heap of (start tick, node) that the calendar queue replaced, with the Scheduler's
/// draws from the same stream: the same executions in the same order.
class HeapSelection {
 public:
  HeapSelection(const Scenario& s, NodeId n) : rng_(s.seed, activation_stream) {
    for (NodeId u = 0; u < n; ++u) heap_.push({rng_.below(ticks_per_round), u});
  }
  bool next_execution(std::uint64_t end, std::uint64_t& t, NodeId& u) {
    if (heap_.empty() || heap_.top().first >= end) return false;
    t = heap_.top().first, u = heap_.top().second;
    heap_.pop();
    return true;
  }
  void finish_execution(std::uint64_t start, NodeId u) {
    const std::uint32_t duration = 1 + rng_.below(ticks_per_round);
    const std::uint32_t gap = rng_.below(ticks_per_round);
    heap_.push({start + duration + gap, u});
  }

 private:
  Rng rng_;
  std::priority_queue<std::pair<std::uint64_t, NodeId>, std::vector<std::pair<std::uint64_t, NodeId>>, std::greater<>>
      heap_;
};

/// Rounds of executions through `selection` (Scheduler or HeapSelection), as async_round takes them.
template <class Selection>
void select_rounds(benchmark::State& state, Selection& selection) {
  std::uint64_t round = 0, executions = 0, t = 0, check = 0;
  NodeId u = 0;
  auto one_round = [&] {
    const std::uint64_t end = (round + 1) * ticks_per_round;
    while (selection.next_execution(end, t, u)) {
      check += u;
      selection.finish_execution(t, u);
      ++executions;
    }
    ++round;
  };
  for (int warm = 0; warm < 3; ++warm) one_round();  // past the first round's starts
  executions = 0;
  for (auto _ : state) one_round();
  benchmark::DoNotOptimize(check);
  state.counters["executions_per_second"] = benchmark::Counter(double(executions), benchmark::Counter::kIsRate);
  state.counters["executions_per_round"] = double(executions) / double(state.iterations());
}

void BM_AsyncEventSelection(benchmark::State& state) {
  const Scenario s = main_job(static_cast<std::uint32_t>(state.range(0)));
  if (state.range(1) == 0) {
    Scheduler scheduler(s, ticks_per_round);
    scheduler.start_async(s.nodes);
    select_rounds(state, scheduler);
  } else {
    HeapSelection heap(s, s.nodes);
    select_rounds(state, heap);
  }
}
// 16 and 256 nodes: a sparse calendar (an amoebot system, a small population), most of its 2 048
// buckets empty between two starts.
BENCHMARK(BM_AsyncEventSelection)
    ->ArgsProduct({{16, 256, 10'000, 100'000, 1'000'000}, {0, 1}})
    ->ArgNames({"nodes", "heap"})
    ->Unit(benchmark::kMillisecond);

// ---------------------------------------------------------------- channel pick

void BM_ChannelPick(benchmark::State& state) {
  const auto nodes = static_cast<std::uint32_t>(state.range(0));
  const Scenario s = main_job(nodes);
  const unsigned ports = s.delta + 1;  // port 0, the self-channel, and ports 1..Delta
  constexpr std::uint16_t now = 1;
  std::mt19937_64 random(1);
  const ChannelFields fields{ports};
  std::vector<std::uint8_t> records(std::size_t{nodes} * fields.stride());
  for (std::uint32_t u = 0; u < nodes; ++u)
    for (unsigned p = 0; p < ports; ++p) {
      std::uint8_t* rec = &records[std::size_t{u} * fields.stride()];
      rec[fields.counts(p)] = static_cast<std::uint8_t>(random() % (inline_slots + 1));
      for (unsigned slot = 0; slot < inline_slots; ++slot)
        store_stamp(rec + fields.stamp(slot, p), random() % 8 == 0 ? now : std::uint16_t{0});
    }
  std::vector<NodeId> order(nodes);
  std::iota(order.begin(), order.end(), NodeId{0});
  std::shuffle(order.begin(), order.end(), random);
  Delivery delivery(s, ticks_per_round);  // the default's: uniform among the candidates
  const ReceivableMask receivable = receivable_mask_for(ports);
  std::uint64_t picks = 0, check = 0;
  std::size_t next = 0;
  for (auto _ : state) {
    const NodeId u = order[next];
    next = next + 1 == order.size() ? 0 : next + 1;
    Candidates candidates;
    candidates.masked = true, candidates.mask = receivable(&records[std::size_t{u} * fields.stride()], now);
    candidates.k = core::PortSet<std::uint64_t>(candidates.mask).size();
    if (candidates.k == 0) continue;
    const unsigned pick = delivery.pick(candidates, [](Slot) { return 0; });
    const Slot chosen = candidates.at(pick);
    check += chosen.port * inline_slots + chosen.index;
    ++picks;
  }
  benchmark::DoNotOptimize(check);
  state.counters["picks_per_second"] = benchmark::Counter(double(picks), benchmark::Counter::kIsRate);
  state.counters["activations_per_second"] =
      benchmark::Counter(double(state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ChannelPick)->Arg(1024)->Arg(1'000'000)->ArgName("nodes");

}  // namespace lmx::sim::engine_parts_bench
