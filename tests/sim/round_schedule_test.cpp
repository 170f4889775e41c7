// A round's executions taken out of the calendar ahead (round_schedule.hpp, docs/simulator.md
// "Threads"): the schedule's ranges per tick, its refusal of executions out of order or outside
// the round, the tick counts, and the property that makes a schedule ahead possible: the
// asynchronous engine's execution times depend on the seed alone, not on what the executions do.
#include "sim/round_schedule.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "lmx/sim/simulation.hpp"

namespace lmx::sim {
namespace {

TEST(RoundSchedule, EachTickHoldsItsExecutionsInOrder) {
  RoundSchedule s;
  s.clear(2048, 1024);
  s.add(2048, 5), s.add(2048, 9), s.add(2050, 1), s.add(3071, 4);
  s.close();
  EXPECT_EQ(s.first(), 2048u);
  EXPECT_EQ(s.ticks(), 1024u);
  EXPECT_EQ(s.nodes(), (std::vector<NodeId>{5, 9, 1, 4}));
  EXPECT_EQ(s.begin(0), 0u);
  EXPECT_EQ(s.begin(1), 2u);  // tick 0: nodes 5 and 9
  EXPECT_EQ(s.begin(2), 2u);  // tick 1: none
  EXPECT_EQ(s.begin(3), 3u);  // tick 2: node 1
  EXPECT_EQ(s.begin(1023), 3u);
  EXPECT_EQ(s.begin(1024), 4u);  // tick 1023: node 4
  // Cleared for the next round, nothing is left of this one.
  s.clear(3072, 1024);
  s.close();
  EXPECT_TRUE(s.nodes().empty());
  EXPECT_EQ(s.begin(1024), 0u);
}

TEST(RoundSchedule, RefusesAnExecutionOutOfOrderOrOutsideTheRound) {
  RoundSchedule s;
  s.clear(1024, 1024);
  EXPECT_THROW(s.add(1023, 0), std::logic_error);
  EXPECT_THROW(s.add(2048, 0), std::logic_error);
  s.add(1500, 3);
  EXPECT_THROW(s.add(1499, 0), std::logic_error);
  EXPECT_NO_THROW(s.add(1500, 2));  // the same tick again: the calendar's order within it is kept
}

TEST(TickCounts, ASlotMayStartWhileItHoldsANodeOfTheTick) {
  TickCounts c;
  EXPECT_FALSE(c.active());
  c.assign(1000);  // rounded up to 1024 slots
  EXPECT_TRUE(c.active());
  c.add(7), c.add(7 + 1024);
  EXPECT_TRUE(c.may_start(7));
  EXPECT_TRUE(c.may_start(7 + 2048)) << "another node of the slot: some, not certain";
  EXPECT_FALSE(c.may_start(8));
  c.take(7);
  EXPECT_TRUE(c.may_start(7)) << "node 1031 shares the slot";
  c.take(7 + 1024);
  EXPECT_FALSE(c.may_start(7));
}

/// (time, node, end) of every execution of an asynchronous run, from its act and idle lines.
std::vector<std::tuple<std::string, std::uint64_t, std::string>> executions(const Scenario& s, std::uint64_t* acts) {
  std::ostringstream trace;
  RunOptions o;
  o.trace = &trace;
  make_engine(s, o)->finish();
  std::vector<std::tuple<std::string, std::uint64_t, std::string>> out;
  std::istringstream lines(trace.str());
  *acts = 0;
  for (std::string line; std::getline(lines, line);) {
    const auto j = nlohmann::json::parse(line);
    const std::string ev = j.value("ev", "");
    if (ev != "act" && ev != "idle") continue;
    *acts += ev == "act";
    out.emplace_back(j.at("round").dump(), j.at("node").get<std::uint64_t>(), j.value("end", nlohmann::json()).dump());
  }
  return out;
}

// What the executions do (here: how often the nodes lock, and so which actions they have to pick
// from) changes none of their times: the pick has a stream of its own, and the activation stream
// draws only the times. Without that a schedule made ahead would not be the run's.
TEST(RoundSchedule, TheExecutionsTimesDependOnTheSeedAlone) {
  Scenario busy;
  busy.name = "times", busy.nodes = 40, busy.rounds = 25, busy.seed = 3;
  busy.engine = EngineKind::async;
  busy.topology.kind = TopologyKind::regular, busy.topology.degree = 4;
  busy.workload.idle = 1, busy.workload.hold = 1;
  Scenario calm = busy;
  calm.workload.idle = 6, calm.workload.hold = 3;
  std::uint64_t busy_acts = 0, calm_acts = 0;
  const auto a = executions(busy, &busy_acts), b = executions(calm, &calm_acts);
  ASSERT_GT(a.size(), 40u * 20);
  EXPECT_NE(busy_acts, calm_acts) << "the two runs must differ in what their executions do";
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace lmx::sim
