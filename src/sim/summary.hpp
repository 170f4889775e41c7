// The run summary (docs/run-format.md) and the trace header (docs/trace-format.md): what a run
// reports, computed from the engine's parts once the run has ended.
#pragma once

#include <algorithm>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <utility>
#include <vector>

#include "big_array.hpp"
#include "bound.hpp"
#include "lmx/core/protocol.hpp"
#include "lmx/sim/simulation.hpp"
#include "lmx/trace/trace.hpp"
#include "metrics.hpp"
#include "monitors.hpp"
#include "network.hpp"
#include "node_states.hpp"
#include "workload.hpp"

namespace lmx::sim {

/// What the summary reads from an engine at the end of its run.
template <class Word, unsigned FixedDelta = 0>  // FixedDelta: the network's (network.hpp)
struct RunRecord {
  const Scenario& scenario;
  NodeId nodes;
  unsigned delta;
  std::uint32_t now;  ///< the clock, in ticks
  std::uint32_t ticks_per_round;
  std::uint64_t horizon;  ///< P7's, in rounds
  std::uint64_t rounds;   ///< rounds run
  bool stalled, interrupted;
  const EngineStates<Word, FixedDelta>& state;
  const Network<Word, FixedDelta>& net;
  const Workload& work;
  const Monitors<Word, FixedDelta>& monitors;
  const Metrics& metrics;
  std::vector<MemoryPart> memory_parts;  ///< the engine's arrays by part; their sum is bytes_per_node's
  double wall_seconds;
  std::uint64_t events_hash;
};

/// The `lmx run --json` object (schema 1) of a finished run.
template <class Word, unsigned FixedDelta>
nlohmann::json summarize(const RunRecord<Word, FixedDelta>& r) {
  using core::MessageKind;
  using nlohmann::json;
  json props = json::object();
  for (const char* p : {"P1", "P2", "P3", "P4", "P5", "P6", "P7"}) props[p] = r.monitors.fired(p) ? "fail" : "pass";
  const unsigned layout_bits = r.state.stored_bits(), paper_bits = core::paper_state_bits(r.delta, r.scenario.k);
  if (!p5_holds(layout_bits, paper_bits)) props["P5"] = "fail";
  json by_part = json::object();
  for (const MemoryPart& part : r.memory_parts) by_part[part.name] = double(part.bytes) / r.nodes;
  json by_kind = json::object();
  const double locks = double(r.metrics.locks_completed);
  for (unsigned i = 0; i < core::message_kind_count; ++i)
    by_kind[std::string(core::to_string(static_cast<MessageKind>(i)))] =
        locks ? json(double(r.metrics.sent_by_kind[i]) / locks) : json(nullptr);
  // Jain's index over the nodes that lock, from sums (a list of them cost 8 to 16 bytes a node at
  // the run's end, where its peak of memory is).
  std::uint64_t lockers = 0;
  json per_node_j = json::array();
  double sx = 0, sxx = 0;
  for (NodeId u = 0; u < r.nodes; ++u)
    if (const std::uint64_t node_locks = r.work.locks(u); r.work.participating(u) || node_locks) {
      const auto x = double(node_locks);
      sx += x, sxx += x * x, ++lockers;
      if (r.nodes <= 100000) per_node_j.push_back(node_locks);
    }
  const double jain = sxx > 0 ? sx * sx / (double(lockers) * sxx) : 0;
  // Requests still pending at the end, at their age: a latency that is at least this long.
  Histogram pending_age(r.metrics.latency_rounds.scale()), with_pending = r.metrics.latency_rounds;
  // The ten oldest, (call tick, node) smallest first: kept as they come, not as a list of every
  // pending request (8 bytes a node at the run's end).
  constexpr std::size_t shown_at_most = 10;
  std::vector<std::pair<std::uint32_t, NodeId>> oldest;
  for (NodeId u = 0; u < r.nodes; ++u)
    if (r.work.app(u).phase == AppPhase::requesting) {
      const double age = double(r.now - r.work.app(u).timer) / r.ticks_per_round;
      pending_age.add(age), with_pending.add(age);
      const std::pair<std::uint32_t, NodeId> request{r.work.app(u).timer, u};
      if (oldest.size() == shown_at_most && !(request < oldest.back())) continue;
      if (oldest.size() == shown_at_most) oldest.pop_back();
      oldest.insert(std::upper_bound(oldest.begin(), oldest.end(), request), request);
    }
  json oldest_j = json::array();
  for (const auto& [start, u] : oldest) {
    oldest_j.push_back({{"node", u},
                        {"called_at_round", double(start) / r.ticks_per_round},
                        {"age_rounds", double(r.now - start) / r.ticks_per_round},
                        {"state", std::string(core::to_string(r.state.initiator(u)))}});
  }
  const double rounds = double(r.rounds);
  ThroughputBound bound;
  bound.packing = r.metrics.two_packing, bound.participants = r.metrics.participants;
  bound.idle_rounds = r.work.automatic() ? r.scenario.workload.idle : 0.0;
  if (locks > 0)
    bound.occupancy_rounds =
        double(r.metrics.occupancy_ticks + std::int64_t(r.metrics.locks_open) * std::int64_t(r.now)) /
        (double(r.ticks_per_round) * locks);
  // The packing is the initial graph's: a graph that changes during the run (mobility, dynamics)
  // has no limit here.
  const bool static_graph = graph_stays_put(r.scenario);
  const double limit = static_graph ? bound.locks_per_round() : 0.0;
  json result = {
      {"schema", 1},
      {"scenario", r.scenario.to_json()},
      {"seed", r.scenario.seed},
      {"variant", std::string(core::to_string(r.scenario.variant))},
      {"engine", word(r.scenario.engine)},
      {"rounds", r.rounds},
      {"actions", r.metrics.actions},
      {"nodes", r.nodes},
      {"edges", r.net.edges()},
      {"locks_requested", r.metrics.locks_requested},
      {"locks_completed", r.metrics.locks_completed},
      {"locks_pending", r.work.pending},
      {"pending_requests",
       {{"count", r.work.pending},
        {"horizon_rounds", r.horizon},
        {"age_rounds", pending_age.summary()},
        {"oldest", oldest_j}}},
      {"violations", r.monitors.violations_json()},
      {"violation_counts", r.monitors.counts()},
      {"stalled", r.stalled},
      {"interrupted", r.interrupted},
      {"properties", props},
      {"findings", r.monitors.findings_json()},
      {"latency_rounds", r.metrics.latency_rounds.summary()},
      {"latency_rounds_with_pending", with_pending.summary()},
      {"latency_activations", r.metrics.latency_actions.summary()},
      {"latency_messages", r.metrics.latency_messages.summary()},
      {"trials_per_lock",
       {{"mean", locks ? json(double(r.metrics.trials_sum) / locks) : json(nullptr)},
        {"max", locks ? json(r.metrics.trials_max) : json(nullptr)}}},
      {"messages", r.metrics.sent},
      {"messages_lost", r.metrics.lost},
      {"messages_per_lock", locks ? json(double(r.metrics.sent) / locks) : json(nullptr)},
      {"messages_per_lock_by_kind", by_kind},
      {"locks_per_round", rounds ? locks / rounds : 0.0},
      {"mean_locked", rounds ? double(r.metrics.mean_locked_sum) / rounds : 0.0},
      {"throughput_bound",
       {{"two_packing", bound.packing},
        {"participants", bound.participants},
        {"occupancy_rounds", locks ? json(bound.occupancy_rounds) : json(nullptr)},
        {"idle_rounds", bound.idle_rounds},
        {"static_graph", static_graph},
        {"locks_per_round", limit > 0 ? json(limit) : json(nullptr)}}},
      {"throughput_over_bound", limit > 0 && rounds > 0 ? json(locks / rounds / limit) : json(nullptr)},
      {"jain_fairness", lockers == 0 || sxx == 0 ? json(nullptr) : json(jain)},
      {"max_in_transit_per_edge", r.monitors.max_in_transit()},
      {"bits_per_node", {{"layout", layout_bits}, {"paper", paper_bits}}},
      {"bytes_per_node", double(total_bytes(r.memory_parts)) / r.nodes},
      {"bytes_per_node_by_part", by_part},
      {"actions_per_second", r.wall_seconds > 0 ? double(r.metrics.actions) / r.wall_seconds : 0.0},
      {"wall_seconds", r.wall_seconds},
      {"trace_hash", trace::hex64(r.events_hash)},
      {"series",
       {{"round", r.metrics.series_round},
        {"locks_completed", r.metrics.series_locks},
        {"locked_nodes", r.metrics.series_locked},
        {"in_transit", r.metrics.series_transit}}},
      {"latency_histogram", r.metrics.latency_rounds.histogram()},
      {"per_node_locks", per_node_j},
  };
  return result;
}

/// The trace header names everything a replay needs. An edge list read from a file is written
/// inline (and the file name dropped), so that the trace stays replayable after the file is gone or
/// changed: the replayed scenario then builds the same edges in the same order.
inline nlohmann::ordered_json run_header(const Scenario& sc, const std::string& source,
                                         const std::vector<std::pair<NodeId, NodeId>>& initial_edges,
                                         const std::vector<std::pair<double, double>>& positions) {
  Scenario replayable = sc;
  if (sc.topology.kind == TopologyKind::edges && !sc.topology.file.empty()) {
    replayable.topology.file.clear();
    replayable.topology.edges = initial_edges;  // the file's edges, then the inline ones
  }
  nlohmann::ordered_json h = {{"type", "lmx-trace"},
                              {"schema", trace::schema},
                              {"lmx_version", std::string(core::version)},
                              {"source", source},
                              {"variant", std::string(core::to_string(sc.variant))},
                              {"delta", sc.delta},
                              {"k", sc.k},
                              {"nodes", sc.nodes},
                              {"seed", sc.seed},
                              {"engine", word(sc.engine)},
                              {"scenario", nlohmann::ordered_json::parse(replayable.to_json().dump())}};
  if (!positions.empty()) {
    nlohmann::ordered_json pos = nlohmann::ordered_json::array();
    for (auto [x, y] : positions) pos.push_back({x, y});
    h["positions"] = pos;
  }
  return h;
}

}  // namespace lmx::sim
