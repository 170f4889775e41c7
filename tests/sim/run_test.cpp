// Runs, determinism, adversary combinations (scenario validation: scenario_test.cpp).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <vector>

#include "lmx/sim/simulation.hpp"

namespace lmx::sim {
namespace {

using nlohmann::json;

Scenario small() {
  Scenario s;
  s.nodes = 60, s.rounds = 60, s.topology.radius = 0.2;
  return s;
}

TEST(Run, OneSeedOneTrace) {
  std::ostringstream a, b;
  RunOptions oa, ob;
  oa.trace = &a, ob.trace = &b;
  const json ra = run(small(), oa), rb = run(small(), ob);
  EXPECT_EQ(ra["trace_hash"], rb["trace_hash"]);
  EXPECT_EQ(a.str(), b.str());
  Scenario other = small();
  other.seed = 2;
  EXPECT_NE(run(other)["trace_hash"], ra["trace_hash"]);
}

TEST(Run, TracingDoesNotChangeTheRun) {
  std::ostringstream out;
  RunOptions o;
  o.trace = &out;
  EXPECT_EQ(run(small(), o)["trace_hash"], run(small())["trace_hash"]);
  // Header first, end last, and every line is JSON.
  std::istringstream in(out.str());
  std::string line, last;
  std::getline(in, line);
  EXPECT_EQ(json::parse(line)["type"], "lmx-trace");
  while (std::getline(in, line)) {
    last = line;
    EXPECT_TRUE(json::accept(line)) << line;
  }
  EXPECT_EQ(json::parse(last)["ev"], "end");
}

TEST(Run, SummaryHasTheContractKeys) {
  const json r = run(small());
  for (const char* key :
       {"scenario", "seed", "variant", "rounds", "locks_requested", "locks_completed", "violations", "stalled",
        "latency_rounds", "messages_per_lock", "actions_per_second", "trace_hash", "properties", "series"})
    EXPECT_TRUE(r.contains(key)) << key;
  EXPECT_GT(r["locks_completed"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(r["trace_hash"].get<std::string>().size(), 16u);
}

// Where a node's bytes go: the parts add up to bytes_per_node, and the fixed-size ones are what
// their layouts say (docs/run-format.md): nine 8-byte channel records at Delta = 8 with packed
// 4-byte far ends and the 16-byte packed state, five records and 5-byte far ends at Delta = 4.
TEST(Run, BytesPerNodeByPartAddUpAndNameTheLayouts) {
  for (const unsigned delta : {8u, 4u}) {
    Scenario s = small();
    s.delta = delta;
    const json r = run(s);
    const json& parts = r["bytes_per_node_by_part"];
    ASSERT_TRUE(parts.is_object()) << r.dump();
    double sum = 0;
    for (const auto& [name, bytes] : parts.items()) {
      EXPECT_GE(bytes.get<double>(), 0.0) << name;
      sum += bytes.get<double>();
    }
    EXPECT_NEAR(sum, r["bytes_per_node"].get<double>(), 1e-9 * sum) << delta;
    for (const char* name :
         {"node_states", "port_sets", "far_ends", "channels", "message_ids", "deferred_writes", "workload", "monitors",
          "positions", "spatial_grid", "mobility_plan", "dynamics", "scheduler", "pipeline"})
      EXPECT_TRUE(parts.contains(name)) << name;
    // One record of 7 bytes a channel, rounded up to 8 a node (channel.hpp): 64 at Delta = 8.
    EXPECT_EQ(parts["channels"].get<double>(), std::ceil(7.0 * (delta + 1) / 8) * 8) << delta;
    EXPECT_EQ(parts["far_ends"].get<double>(), (delta == 8 ? 4.0 : 5.0) * delta) << delta;
    if (delta == 8) {
      EXPECT_EQ(parts["node_states"].get<double>(), 16.0);
    }
    // The application's record (12 bytes, workload.hpp) and a bit a node for its participation.
    EXPECT_GE(parts["workload"].get<double>(), 12.0);
    EXPECT_LT(parts["workload"].get<double>(), 12.5);
    // The scenario's nodes move: each has a position and a waypoint (and a next position while
    // a plan is made ahead, on a second thread), and the grid has cells.
    EXPECT_GE(parts["positions"].get<double>(), 32.0);
    EXPECT_GT(parts["spatial_grid"].get<double>(), 0.0);
  }
}

// The semi-synchronous scan activates nodes at the same rate in every lane of its 64-node words
// and past the last whole word (200 nodes), and so do the geometric skips of small p: counted from
// the trace's actions on a ring where every node keeps locking. A scan that lost a lane, or the
// tail, would leave nodes that never act.
// The summary's fairness and oldest pending requests, against what the trace and the per-node
// counts say (the summary keeps sums and the ten oldest as it goes, not a list per node).
TEST(Run, SummaryFairnessAndOldestPendingRequestsMatchTheTrace) {
  Scenario s = small();
  s.nodes = 300, s.rounds = 25;
  std::ostringstream out;
  RunOptions o;
  o.trace = &out;
  const json r = run(s, o);
  std::map<NodeId, double> open;  // node -> round of its Lock call not yet done
  std::istringstream in(out.str());
  for (std::string line; std::getline(in, line);) {
    const json e = json::parse(line);
    if (e.value("op", "") != "lock") continue;
    if (e["ev"] == "call" && e["status"] == "ok") open[e["node"].get<NodeId>()] = e["round"].get<double>();
    if (e["ev"] == "done") open.erase(e["node"].get<NodeId>());
  }
  ASSERT_GT(open.size(), 10u) << "the test needs more than ten requests pending at the end";
  EXPECT_EQ(r["pending_requests"]["count"].get<std::size_t>(), open.size());
  std::vector<std::pair<double, NodeId>> expected;
  for (const auto& [u, round] : open) expected.emplace_back(round, u);
  std::sort(expected.begin(), expected.end());
  const json& oldest = r["pending_requests"]["oldest"];
  ASSERT_EQ(oldest.size(), 10u);
  for (std::size_t i = 0; i < oldest.size(); ++i) {
    EXPECT_EQ(oldest[i]["node"].get<NodeId>(), expected[i].second) << "place " << i;
    EXPECT_DOUBLE_EQ(oldest[i]["called_at_round"].get<double>(), expected[i].first) << "place " << i;
  }
  double sum = 0, squares = 0;
  for (const auto& x : r["per_node_locks"]) sum += x.get<double>(), squares += x.get<double>() * x.get<double>();
  ASSERT_GT(squares, 0);
  EXPECT_NEAR(r["jain_fairness"].get<double>(), sum * sum / (double(r["per_node_locks"].size()) * squares), 1e-12);
}

TEST(Run, RandomActivationReachesEveryNodeAtOneRate) {
  for (const double p : {0.5, 0.3, 0.03}) {
    Scenario s;
    s.nodes = 200, s.rounds = p < 0.1 ? 4000 : 800, s.engine = lmx::sim::EngineKind::semi_sync,
    s.topology.kind = lmx::sim::TopologyKind::ring;
    s.activation.kind = lmx::sim::ActivationKind::random, s.activation.p = p, s.workload.idle = 1, s.workload.hold = 1;
    std::ostringstream out;
    RunOptions o;
    o.trace = &out;
    (void)run(s, o);
    std::vector<std::uint64_t> acts(s.nodes, 0);
    std::istringstream in(out.str());
    for (std::string line; std::getline(in, line);)
      if (line.find("\"ev\":\"act\"") != std::string::npos) ++acts.at(json::parse(line)["node"].get<NodeId>());
    std::uint64_t low = 0, high = 0, tail = 0;  // lanes 0-31 and 32-63 of the whole words; nodes 192-199
    for (NodeId u = 0; u < s.nodes; ++u) {
      EXPECT_GT(acts[u], 0u) << "p " << p << ": node " << u << " never acted";
      (u >= 192 ? tail : u % 64 < 32 ? low : high) += acts[u];
    }
    const double per_low = double(low) / 96, per_high = double(high) / 96, per_tail = double(tail) / 8;
    EXPECT_NEAR(per_high / per_low, 1.0, 0.15) << "p " << p;
    EXPECT_NEAR(per_tail / per_low, 1.0, 0.3) << "p " << p;
  }
}

struct Combo {
  const char* engine;
  const char* activation;
  const char* delivery;
  const char* topology;
  const char* dynamics;
};

void PrintTo(const Combo& c, std::ostream* os) {
  *os << c.engine << "/" << c.activation << "/" << c.delivery << "/" << c.topology << "/" << c.dynamics;
}

class Adversaries : public ::testing::TestWithParam<Combo> {};

// Safety (P1-P6) must hold under every adversary. Liveness (P7) is reported, not asserted: the
// monitors find stalls of the printed algorithm and of the repair (docs/simulator.md, findings).
TEST_P(Adversaries, SafetyHoldsAndTheRunProgressesOrReportsAStall) {
  const Combo c = GetParam();
  Scenario s;
  s.nodes = 40, s.rounds = 150, s.engine = kind_from_word<EngineKind>(c.engine).value();
  s.activation.kind = kind_from_word<ActivationKind>(c.activation).value();
  s.delivery.kind = kind_from_word<DeliveryKind>(c.delivery).value(), s.delivery.target = 3;
  s.topology.kind = kind_from_word<TopologyKind>(c.topology).value(), s.topology.radius = 0.25, s.topology.degree = 4;
  s.dynamics.kind = kind_from_word<DynamicsKind>(c.dynamics).value(), s.dynamics.target = 3, s.dynamics.bound = 4;
  s.workload.locks = 3;
  if (std::string(c.activation) == "sequential") s.nodes = 10, s.rounds = 3000;
  const json r = run(s);
  for (const char* p : {"P1", "P2", "P3", "P4", "P5", "P6"})
    EXPECT_EQ(r["properties"][p], "pass") << p << ": " << r["violations"].dump(1);
  for (const auto& v : r["violations"]) EXPECT_EQ(v["property"], "P7");
  EXPECT_TRUE(r["locks_completed"].get<std::uint64_t>() > 0 || r["stalled"].get<bool>());
}

INSTANTIATE_TEST_SUITE_P(Sim, Adversaries,
                         ::testing::Values(Combo{"semi-sync", "random", "random", "regular", "static"},
                                           Combo{"semi-sync", "synchronous", "oldest", "ring", "churn"},
                                           Combo{"semi-sync", "sequential", "random", "grid", "static"},
                                           Combo{"semi-sync", "random", "delay-target", "unit-disk", "starve"},
                                           Combo{"semi-sync", "random", "random", "regular", "flap"},
                                           Combo{"semi-sync", "random", "random", "grid", "swizzle"},
                                           Combo{"async", "random", "random", "mobility", "static"},
                                           Combo{"async", "random", "oldest", "regular", "churn"},
                                           Combo{"async", "random", "delay-target", "unit-disk", "flap"}));

}  // namespace
}  // namespace lmx::sim

namespace lmx::sim {
namespace {

// The throughput limit (docs/performance.md): the packing is a maximal 2-packing of the initial
// graph, the limit min(P / T, participants / (idle + T)) with T the measured occupancy, and there
// is no limit for a graph that changes.
TEST(ThroughputLimit, PackingOfKnownGraphsAndTheLimitFromItsParts) {
  Scenario ring;
  ring.name = "ring", ring.nodes = 30, ring.delta = 2, ring.rounds = 600;
  ring.topology.kind = TopologyKind::ring, ring.engine = EngineKind::semi_sync;
  const json r = run(ring);
  const auto& b = r["throughput_bound"];
  EXPECT_EQ(b["two_packing"], 10);  // every third node of a 30-cycle; no more fit
  EXPECT_EQ(b["participants"], 30);
  EXPECT_TRUE(b["static_graph"].get<bool>());
  ASSERT_GT(r["locks_completed"].get<std::uint64_t>(), 0u);
  const double t = b["occupancy_rounds"].get<double>(), idle = b["idle_rounds"].get<double>();
  EXPECT_GT(t, 0.0);
  const double limit = std::min(10.0 / t, 30.0 / (idle + t));
  EXPECT_NEAR(b["locks_per_round"].get<double>(), limit, 1e-9);
  EXPECT_NEAR(r["throughput_over_bound"].get<double>(), r["locks_per_round"].get<double>() / limit, 1e-9);

  Scenario apart = ring;  // no edges: every node is a lock set of its own
  apart.topology.kind = TopologyKind::edges;
  EXPECT_EQ(run(apart)["throughput_bound"]["two_packing"], 30);

  Scenario few = ring;  // only participants count
  few.workload.participation = 0.0;
  const json none = run(few);
  EXPECT_EQ(none["throughput_bound"]["two_packing"], 0);
  EXPECT_TRUE(none["throughput_bound"]["locks_per_round"].is_null());
  EXPECT_TRUE(none["throughput_over_bound"].is_null());

  Scenario moving = small();  // mobility: the initial graph's packing says nothing later
  moving.topology.kind = TopologyKind::mobility;
  const json m = run(moving);
  EXPECT_FALSE(m["throughput_bound"]["static_graph"].get<bool>());
  EXPECT_TRUE(m["throughput_bound"]["locks_per_round"].is_null());
  EXPECT_TRUE(m["throughput_over_bound"].is_null());
}

}  // namespace
}  // namespace lmx::sim
