// The engine built for Delta = 8 (RunOptions::fixed_delta; network.hpp, FixedDelta): its port count
// is a constant of its code, and the run must be the generic engine's: the same summary, trace
// hash and trace lines, for both engines, every kind of adversary, variant, topology and dynamics.
// The one difference is how the node states are stored: packed in the paper's 126 bits by the
// Delta = 8 engine (node_states.hpp), which the summary's bits_per_node.layout reports.
#include <gtest/gtest.h>

#include <sstream>
#include <stdexcept>

#include "lmx/sim/simulation.hpp"
#include "sim/network.hpp"
#include "summary_support.hpp"

namespace lmx::sim {
namespace fixed_delta_test {

using nlohmann::json;

struct Case {
  const char* name;
  const char* engine = "semi-sync";
  const char* variant = "fast";
  const char* delivery = "random";
  const char* topology = "regular";
  const char* dynamics = "static";
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.name; }

Scenario scenario_of(const Case& c, unsigned delta = 8) {
  Scenario s;
  s.name = c.name, s.nodes = 500, s.rounds = 30, s.seed = 5, s.delta = delta;
  s.engine = kind_from_word<EngineKind>(c.engine).value();
  EXPECT_TRUE(core::parse_variant(c.variant, s.variant)) << c.variant;
  s.activation.kind = ActivationKind::random, s.activation.p = 0.5;
  s.delivery.kind = kind_from_word<DeliveryKind>(c.delivery).value();
  if (s.delivery.kind == DeliveryKind::delay_target) s.delivery.target = 17, s.delivery.patience = 3;
  s.topology.kind = kind_from_word<TopologyKind>(c.topology).value();
  if (s.topology.kind != TopologyKind::regular) s.topology.radius = 0.05;
  if (s.topology.kind == TopologyKind::mobility) s.topology.speed = 0.005;
  s.dynamics.kind = kind_from_word<DynamicsKind>(c.dynamics).value();
  s.dynamics.bound = 3, s.dynamics.batch = 20, s.dynamics.birth = s.dynamics.death = 0.05;
  s.workload.idle = 1, s.workload.hold = 1;
  return s;
}

struct Result {
  json summary;
  std::string lines;
  unsigned compiled_delta;
};
Result run(const Scenario& s, bool fixed, bool lines) {
  std::ostringstream out;
  RunOptions o;
  o.fixed_delta = fixed, o.scan_block_shift = 6;
  if (lines) o.trace = &out;
  auto e = make_engine(s, o);
  const unsigned compiled = e->compiled_delta();
  return {test::comparable_summary(e->finish()), out.str(), compiled};
}

class FixedDelta : public ::testing::TestWithParam<Case> {};

TEST_P(FixedDelta, TheRunIsTheGenericEnginesRun) {
  const Scenario s = scenario_of(GetParam());
  for (const bool lines : {false, true}) {
    const Result fixed = run(s, true, lines), generic = run(s, false, lines);
    EXPECT_EQ(fixed.compiled_delta, 8u);
    EXPECT_EQ(generic.compiled_delta, 0u);
    EXPECT_GT(generic.summary["actions"].get<std::uint64_t>(), 0u);
    EXPECT_EQ(fixed.summary["trace_hash"], generic.summary["trace_hash"]) << "lines " << lines;
    EXPECT_EQ(fixed.summary["bits_per_node"]["layout"], 126u);
    EXPECT_EQ(generic.summary["bits_per_node"]["layout"], core::layout_state_bits(16));
    json fixed_rest = fixed.summary, generic_rest = generic.summary;
    fixed_rest["bits_per_node"].erase("layout"), generic_rest["bits_per_node"].erase("layout");
    EXPECT_EQ(fixed_rest, generic_rest) << "lines " << lines;
    EXPECT_EQ(fixed.lines, generic.lines);
    if (lines) {
      EXPECT_FALSE(fixed.lines.empty());
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Sim, FixedDelta,
                         ::testing::Values(Case{"semi_sync"}, Case{"semi_sync_paper", "semi-sync", "paper"},
                                           Case{"semi_sync_delay_target", "semi-sync", "repaired", "delay-target"},
                                           Case{"semi_sync_mobility", "semi-sync", "fast", "random", "mobility"},
                                           Case{"async"}, Case{"async_oldest", "async", "repaired", "oldest"},
                                           Case{"async_unit_disk_churn", "async", "fast", "random", "unit-disk",
                                                "churn"},
                                           Case{"async_flap", "async", "repaired", "random", "unit-disk", "flap"},
                                           Case{"async_mobility", "async", "fast", "random", "mobility"}),
                         [](const ::testing::TestParamInfo<Case>& param) { return std::string(param.param.name); });

// Every other Delta runs the generic engine, whatever the option says.
TEST(FixedDeltaOther, OtherDeltasRunTheGenericEngine) {
  for (const unsigned delta : {3u, 7u, 9u, 15u}) {
    const Scenario s = scenario_of(Case{"other"}, delta);
    EXPECT_EQ(make_engine(s, RunOptions{})->compiled_delta(), 0u) << delta;
  }
}

// A network of a fixed Delta refuses to be built for another.
TEST(FixedDeltaOther, ANetworkForAFixedDeltaRefusesAnother) {
  const std::uint32_t now = 0;
  EXPECT_THROW((Network<std::uint16_t, 8>{4, 9, false, false, 14, now}), std::logic_error);
  const Network<std::uint16_t, 8> net{4, 8, false, false, 14, now};
  EXPECT_EQ(net.delta(), 8u);
}

}  // namespace fixed_delta_test
}  // namespace lmx::sim
