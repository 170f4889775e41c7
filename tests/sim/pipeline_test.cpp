// The pipelined semi-synchronous round (RunOptions::threads; engine.cpp, "The pipelined round"):
// one thread makes each activated node's choice and core step ahead, another records them in the
// scan's order. The run must be the one of one thread: the same summary and trace hash, on every
// kind of adversary, variant, topology and dynamics, and when a channel overflows its inline
// slots mid-round (the recording thread then waits for the other to finish the round).
#include <gtest/gtest.h>

#include <sstream>

#include "lmx/core/message.hpp"
#include "lmx/sim/simulation.hpp"
#include "summary_support.hpp"

namespace lmx::sim {
namespace pipeline_test {

using nlohmann::json;

struct Case {
  const char* name;
  const char* variant = "fast";
  const char* activation = "random";
  double p = 0.5;
  const char* delivery = "random";
  const char* topology = "regular";
  const char* dynamics = "static";
  unsigned k = 32;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

Scenario scenario_of(const Case& c) {
  Scenario s;
  s.name = c.name, s.nodes = 3000, s.rounds = 120, s.seed = 11, s.k = c.k;
  s.engine = EngineKind::semi_sync;
  EXPECT_TRUE(core::parse_variant(c.variant, s.variant)) << c.variant;
  s.activation.kind = kind_from_word<ActivationKind>(c.activation).value();
  if (s.activation.kind == ActivationKind::random) s.activation.p = c.p;
  s.delivery.kind = kind_from_word<DeliveryKind>(c.delivery).value();
  if (s.delivery.kind == DeliveryKind::delay_target) s.delivery.target = 17, s.delivery.patience = 3;
  s.topology.kind = kind_from_word<TopologyKind>(c.topology).value();
  if (s.topology.kind != TopologyKind::regular) s.topology.radius = 0.03;
  if (s.topology.kind == TopologyKind::mobility) s.topology.speed = 0.004;
  s.dynamics.kind = kind_from_word<DynamicsKind>(c.dynamics).value();
  s.dynamics.bound = 3, s.dynamics.batch = 20, s.dynamics.birth = s.dynamics.death = 0.05;
  s.workload.idle = 1, s.workload.hold = 1;
  return s;
}

/// Blocks of 64 nodes, so that 3000 nodes make 47 of them (the default, 2^14, would make one).
RunOptions options(unsigned threads) {
  RunOptions o;
  o.threads = threads, o.scan_block_shift = 6;
  return o;
}

class Pipeline : public ::testing::TestWithParam<Case> {};

TEST_P(Pipeline, TheRunIsTheSameForOneTwoAndThreeThreads) {
  const Scenario s = scenario_of(GetParam());
  auto one = make_engine(s, options(1));
  const json first = test::comparable_summary(one->finish());
  EXPECT_EQ(one->pipelined_rounds(), 0u);
  EXPECT_GT(first["actions"].get<std::uint64_t>(), 0u);
  for (unsigned threads : {2u, 3u}) {
    auto more = make_engine(s, options(threads));
    const json summary = test::comparable_summary(more->finish());
    // A mobile run's planner takes the second thread; the pipeline needs a third then.
    if (threads == 3 || s.topology.kind != TopologyKind::mobility) {
      EXPECT_EQ(more->pipelined_rounds(), summary["rounds"].get<std::uint64_t>()) << threads << " threads";
    }
    EXPECT_EQ(summary["trace_hash"], first["trace_hash"]) << threads << " threads";
    EXPECT_EQ(summary, first) << threads << " threads";
  }
}

INSTANTIATE_TEST_SUITE_P(
    Sim, Pipeline,
    ::testing::Values(Case{"fast"}, Case{"repaired", "repaired"},
                      Case{"paper", "paper", "random", 0.5, "random", "regular", "static", 4},
                      Case{"synchronous", "fast", "synchronous"}, Case{"sparse", "fast", "random", 0.05},
                      // Most blocks of 64 nodes without an activated node, many in a row.
                      Case{"very_sparse", "fast", "random", 0.004}, Case{"oldest", "repaired", "random", 0.5, "oldest"},
                      Case{"delay_target", "fast", "random", 0.5, "delay-target"},
                      Case{"unit_disk_churn", "fast", "random", 0.5, "random", "unit-disk", "churn"},
                      Case{"flap", "repaired", "random", 0.5, "random", "unit-disk", "flap"},
                      Case{"mobility", "fast", "random", 0.5, "random", "mobility"}),
    [](const ::testing::TestParamInfo<Case>& param) { return std::string(param.param.name); });

/// Messages injected between rounds make channels hold their two inline messages, so that the
/// next sends on those edges overflow them in the middle of a pipelined round (P4 breaks, and
/// the recording thread waits for the choosing one before writing beyond the inline slots).
json overflowing(const char* variant, unsigned threads, std::uint64_t* pipelined = nullptr,
                 std::uint64_t* p4 = nullptr) {
  Case c{"overflow", variant};
  c.p = 0.9;
  const Scenario s = scenario_of(c);
  auto e = make_engine(s, options(threads));
  for (unsigned round = 0; e->step(); ++round) {
    if (round % 10 != 5) continue;
    for (NodeId u = 100; u < 3000; u += 97) {
      const NodeView v = e->node(u);
      for (core::Port p = 1; p <= s.delta; ++p)
        if (v.neighbours >> p & 1u) {
          // Two copies of a message its neighbour could have sent: a prepare (the core answers it).
          e->inject_message(u, p, core::encode(core::Message{core::MessageKind::prepare, 0}));
          e->inject_message(u, p, core::encode(core::Message{core::MessageKind::prepare, 0}));
          break;
        }
    }
  }
  if (pipelined) *pipelined = e->pipelined_rounds();
  json summary = test::comparable_summary(e->finish());
  if (p4) *p4 = summary["violation_counts"].value("P4", std::uint64_t{0});
  return summary;
}

TEST(PipelineOverflow, AChannelOverflowingMidRoundGivesTheOneThreadRun) {
  // The paper's variant also sends twice on a port in one action (errata E3).
  for (const char* variant : {"fast", "paper"}) {
    std::uint64_t pipelined = 0, p4 = 0;
    const json one = overflowing(variant, 1, nullptr, &p4), two = overflowing(variant, 2, &pipelined);
    EXPECT_GT(p4, 0u) << variant << ": the injected messages made channels overflow";
    // Rounds that start with an overflowing channel run on one thread; the others are pipelined.
    EXPECT_GT(pipelined, 0u) << variant;
    EXPECT_LT(pipelined, one["rounds"].get<std::uint64_t>()) << variant;
    EXPECT_EQ(two["trace_hash"], one["trace_hash"]) << variant;
    EXPECT_EQ(two, one) << variant;
  }
}

// With trace lines or without deferred writes a round runs on one thread: the same run.
TEST(PipelineOff, TraceLinesAndImmediateWritesRunOnOneThread) {
  const Scenario s = scenario_of(Case{"lines"});
  std::ostringstream lines;
  RunOptions traced = options(2);
  traced.trace = &lines;
  auto with_lines = make_engine(s, traced);
  const json a = test::comparable_summary(with_lines->finish());
  EXPECT_EQ(with_lines->pipelined_rounds(), 0u);
  RunOptions immediate = options(2);
  immediate.defer_writes = false;
  auto without_deferral = make_engine(s, immediate);
  const json b = test::comparable_summary(without_deferral->finish());
  EXPECT_EQ(without_deferral->pipelined_rounds(), 0u);
  auto pipelined = make_engine(s, options(2));
  const json c = test::comparable_summary(pipelined->finish());
  EXPECT_GT(pipelined->pipelined_rounds(), 0u);
  EXPECT_EQ(a["trace_hash"], c["trace_hash"]);
  EXPECT_EQ(b["trace_hash"], c["trace_hash"]);
}

}  // namespace pipeline_test
}  // namespace lmx::sim

namespace lmx::sim {
namespace pipeline_test {

// The estimate a run is refused on counts what a pipelined round adds (a record per activated
// node, the monitors' view, a second set of lists) at least as the engine's own count has it, and
// not twice as much; one thread adds nothing.
TEST(PipelineMemory, TheEstimateCountsTheRecordsOfAPipelinedRound) {
  Scenario s = scenario_of(Case{"memory"});
  s.nodes = 40000, s.rounds = 6;  // two blocks of the default 2^14 nodes and more
  const double estimated = double(estimate_memory_bytes(s, false, 2)) - double(estimate_memory_bytes(s, false, 1));
  EXPECT_EQ(estimate_memory_bytes(s, false, 3), estimate_memory_bytes(s, false, 2));
  RunOptions one, two;
  two.threads = 2;
  auto single = make_engine(s, one), pipelined = make_engine(s, two);
  const double counted =
      (pipelined->finish()["bytes_per_node"].get<double>() - single->finish()["bytes_per_node"].get<double>()) *
      s.nodes;
  EXPECT_GT(pipelined->pipelined_rounds(), 0u);
  EXPECT_GT(counted, 0.5 * estimated);
  EXPECT_LE(counted, estimated);
  Scenario sequential = s;
  sequential.activation.kind = ActivationKind::sequential;
  EXPECT_EQ(estimate_memory_bytes(sequential, false, 2), estimate_memory_bytes(sequential, false, 1));
  EXPECT_EQ(estimate_memory_bytes(s, true, 2), estimate_memory_bytes(s, true, 1)) << "trace lines: one thread";
}

}  // namespace pipeline_test
}  // namespace lmx::sim
