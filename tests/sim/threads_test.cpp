// RunOptions::threads (docs/simulator.md, "Threads"): a mobile run plans each round's mobility on
// a second thread while the round before runs, and an asynchronous run takes each round's
// executions out of the calendar there too. The run must be the same for 1, 2 and 3 threads:
// the same summary, trace hash and trace lines, on both engines and with the dynamics that share
// the topology stream with mobility; and the same when the application API changes the graph or
// a position between rounds (the plan made ahead is discarded and its draws given back).
#include <gtest/gtest.h>

#include <cmath>
#include <sstream>
#include <stdexcept>
#include <utility>
#include <vector>

#include "lmx/sim/simulation.hpp"
#include "summary_support.hpp"

namespace lmx::sim {
namespace threads_test {

using nlohmann::json;

struct Outcome {
  json summary;
  std::string trace;
  std::uint64_t planned_ahead = 0;
  std::uint64_t schedules_ahead = 0;
};

/// Nodes enough for the plan to be made ahead (Dynamics::min_nodes_ahead is 4096).
Scenario moving(const char* engine, const char* dynamics) {
  Scenario s;
  s.name = "threads", s.nodes = 5000, s.rounds = 30, s.seed = 7;
  s.engine = kind_from_word<EngineKind>(engine).value();
  s.topology.kind = TopologyKind::mobility, s.topology.radius = 0.02, s.topology.speed = 0.004;
  s.dynamics.kind = kind_from_word<DynamicsKind>(dynamics).value();
  s.dynamics.bound = 3, s.dynamics.batch = 20, s.dynamics.birth = s.dynamics.death = 0.05;
  s.workload.idle = 1, s.workload.hold = 1;
  return s;
}

Outcome run_with(const Scenario& s, unsigned threads, bool lines) {
  Outcome out;
  std::ostringstream trace;
  RunOptions o;
  o.threads = threads;
  if (lines) o.trace = &trace;
  auto e = make_engine(s, o);
  out.summary = test::comparable_summary(e->finish());
  out.planned_ahead = e->mobility_planned_ahead();
  out.schedules_ahead = e->schedules_planned_ahead();
  out.trace = trace.str();
  return out;
}

struct Case {
  const char* engine;
  const char* dynamics;
};
void PrintTo(const Case& c, std::ostream* os) { *os << c.engine << "/" << c.dynamics; }

class Threads : public ::testing::TestWithParam<Case> {};

TEST_P(Threads, TheRunIsTheSameForOneTwoAndThreeThreads) {
  const Case c = GetParam();
  const Scenario s = moving(c.engine, c.dynamics);
  const Outcome one = run_with(s, 1, false);
  EXPECT_EQ(one.planned_ahead, 0u);
  EXPECT_EQ(one.schedules_ahead, 0u);
  EXPECT_GT(one.summary["actions"].get<std::uint64_t>(), 0u);
  EXPECT_GT(one.summary["locks_completed"].get<std::uint64_t>(), 0u);
  for (unsigned threads : {2u, 3u}) {
    const Outcome more = run_with(s, threads, false);
    // Every round but the first was planned ahead (during the round before it): the comparison is not empty.
    EXPECT_EQ(more.planned_ahead, s.rounds - 1) << threads << " threads";
    // And so was every asynchronous round's schedule, on the same thread.
    EXPECT_EQ(more.schedules_ahead, s.engine == EngineKind::async ? s.rounds - 1 : 0u) << threads << " threads";
    EXPECT_EQ(more.summary["trace_hash"], one.summary["trace_hash"]) << threads << " threads";
    EXPECT_EQ(more.summary, one.summary) << threads << " threads";
  }
}

INSTANTIATE_TEST_SUITE_P(Sim, Threads,
                         ::testing::Values(Case{"async", "static"}, Case{"semi-sync", "static"}, Case{"async", "churn"},
                                           Case{"semi-sync", "flap"}, Case{"async", "swizzle"}));

// A run that ends before its last round (every node's one lock done) has the next round's
// schedule in flight on the second thread, never used: the run is still the one thread's (the
// summary waits for the schedule before it counts the calendar's memory, which a schedule being
// made may reallocate).
TEST(ThreadsSchedule, ARunEndingEarlyWaitsForTheScheduleInFlight) {
  Scenario s;
  s.name = "early", s.nodes = 6000, s.rounds = 400, s.seed = 5;
  s.engine = EngineKind::async;
  s.topology.kind = TopologyKind::ring;
  s.workload.idle = 1, s.workload.hold = 1, s.workload.locks = 1;
  const Outcome one = run_with(s, 1, false), two = run_with(s, 2, false);
  ASSERT_LT(one.summary["rounds"].get<std::uint64_t>(), s.rounds) << "the run must end early";
  EXPECT_EQ(one.summary["locks_completed"].get<std::uint64_t>(), s.nodes);
  EXPECT_GT(two.schedules_ahead, 0u);
  EXPECT_EQ(two.summary, one.summary);
}

/// Throws from the `nth` lock completion, once.
struct ThrowingListener : LockListener {
  unsigned nth = 0, seen = 0;
  void locked(NodeId, std::uint64_t) override {
    if (++seen == nth) throw std::runtime_error("listener");
  }
  void unlock_called(NodeId) override {}
  void unlocked(NodeId) override {}
};

// An exception from an execution (here a listener's) may be caught and the run gone on with: the
// rest of the round follows, from the schedule made ahead as from the calendar, and the thrower
// keeps its next execution. The run is the same for 1 and 2 threads.
TEST(ThreadsSchedule, AnExceptionMidRoundGoesOnWhereItLeftTheRound) {
  Scenario s;
  s.name = "exception", s.nodes = 6000, s.rounds = 24, s.seed = 9;
  s.engine = EngineKind::async;
  s.topology.kind = TopologyKind::ring;
  s.workload.idle = 1, s.workload.hold = 1;
  auto run = [&](unsigned threads) {
    ThrowingListener listener;
    listener.nth = 40;
    RunOptions o;
    o.threads = threads, o.listener = &listener;
    auto e = make_engine(s, o);
    unsigned caught = 0;
    std::vector<std::uint64_t> actions;  // after each step
    for (bool more = true; more;) {
      try {
        more = e->step();
      } catch (const std::runtime_error&) {
        ++caught;
      }
      actions.push_back(e->actions());
    }
    EXPECT_EQ(caught, 1u) << threads << " thread(s)";
    return std::pair{test::comparable_summary(e->finish()), actions};
  };
  const auto [one, one_actions] = run(1);
  const auto [two, two_actions] = run(2);
  EXPECT_GT(one["locks_completed"].get<std::uint64_t>(), 40u);
  EXPECT_EQ(two_actions, one_actions);
  EXPECT_EQ(two, one);
}

// The estimate a run is refused on counts the second thread's positions (16 bytes a node) for a
// mobile run with 2 or more threads, and two rounds' schedules (10 bytes a node) for an
// asynchronous one, as the engine's own count does; nothing for a semi-synchronous static graph.
TEST(ThreadsMemory, TheEstimateCountsTheSecondThreadsPositionsAndSchedules) {
  const Scenario s = moving("async", "static");
  EXPECT_EQ(estimate_memory_bytes(s, false, 2) - estimate_memory_bytes(s, false, 1), 26u * s.nodes);
  EXPECT_EQ(estimate_memory_bytes(s, false, 3), estimate_memory_bytes(s, false, 2));
  EXPECT_EQ(estimate_memory_bytes(s, true, 2) - estimate_memory_bytes(s, true, 1), 16u * s.nodes)
      << "with trace lines no schedule is made ahead";
  Scenario ring = s;
  ring.topology = Scenario{}.topology;
  ring.topology.kind = TopologyKind::ring;
  EXPECT_EQ(estimate_memory_bytes(ring, false, 2) - estimate_memory_bytes(ring, false, 1), 10u * s.nodes);
  ring.engine = EngineKind::semi_sync;
  EXPECT_EQ(estimate_memory_bytes(ring, false, 2), estimate_memory_bytes(ring, false, 1));
  RunOptions one, two;
  two.threads = 2;
  const double counted_one = make_engine(s, one)->finish()["bytes_per_node"].get<double>();
  const double counted_two = make_engine(s, two)->finish()["bytes_per_node"].get<double>();
  // The engine's count has the schedules' tick offsets too (1.6 bytes a node at 5 000 nodes).
  EXPECT_NEAR(counted_two - counted_one, 27.6, 1.0);
}

// The estimate a run is refused on is at least what the engine counts of its own arrays, for the
// main job's kind of run (asynchronous, mobile, everyone locking) on one and two threads and for
// the benchmark's (semi-synchronous, a random regular graph), after rounds that fill its queues.
TEST(ThreadsMemory, TheEstimateCoversTheEnginesOwnCount) {
  Scenario main_job = moving("async", "static");
  main_job.nodes = 50000, main_job.rounds = 40;
  main_job.topology.radius = 0.045 * std::sqrt(1000.0 / main_job.nodes), main_job.topology.speed = 0.0004;
  main_job.workload = Scenario{}.workload;
  Scenario regular = main_job;
  regular.engine = EngineKind::semi_sync, regular.topology = Scenario{}.topology;
  regular.topology.kind = TopologyKind::regular, regular.rounds = 20;
  for (const Scenario& s : {main_job, regular})
    for (const unsigned threads : {1u, 2u}) {
      RunOptions o;
      o.threads = threads;
      const double counted = make_engine(s, o)->finish()["bytes_per_node"].get<double>() * s.nodes;
      // Without the 64 MiB it adds for the program itself, which would hide any shortfall here.
      EXPECT_GE(double(estimate_memory_bytes(s, false, threads)) - double(64 << 20), counted)
          << word(s.engine) << " on " << threads << " threads";
    }
}

// An asynchronous run on a graph without mobility takes each round's executions out of the
// calendar on a thread of its own; the run is the one of a single thread.
TEST(ThreadsSchedule, AStaticGraphsRoundsAreScheduledAheadOnASecondThread) {
  Scenario s;
  s.name = "schedule", s.nodes = 6000, s.rounds = 20, s.seed = 11;
  s.engine = EngineKind::async;
  s.topology.kind = TopologyKind::regular, s.topology.degree = 4;
  s.workload.idle = 1, s.workload.hold = 1, s.workload.participation = 0.3;
  const Outcome one = run_with(s, 1, false), two = run_with(s, 2, false);
  EXPECT_EQ(one.schedules_ahead, 0u);
  EXPECT_EQ(two.schedules_ahead, s.rounds - 1);
  EXPECT_EQ(two.planned_ahead, 0u);
  EXPECT_GT(one.summary["locks_completed"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(two.summary, one.summary);
  // Without deferred writes the executions come from the schedule too, without its counts.
  RunOptions o;
  o.threads = 2, o.defer_writes = false;
  auto e = make_engine(s, o);
  EXPECT_EQ(test::comparable_summary(e->finish()), one.summary);
  EXPECT_EQ(e->schedules_planned_ahead(), s.rounds - 1);
}

TEST(ThreadsTrace, TheTraceLinesAreTheSame) {
  // Ten rounds: every line is written out, the cost of this test (the runs' hashes over all
  // thirty are compared above).
  Scenario s = moving("async", "static");
  s.rounds = 10;
  const Outcome one = run_with(s, 1, true), two = run_with(s, 2, true);
  EXPECT_GT(two.planned_ahead, 0u);
  EXPECT_FALSE(one.trace.empty());
  EXPECT_EQ(one.trace, two.trace);
}

/// The application API between rounds: connect and cut (whose port draws come from the topology
/// stream, between two rounds' mobility draws) and move. With threads, each discards the plan
/// made ahead during the round before; the run must be the one without threads.
json driven(const char* engine, unsigned threads, std::uint64_t* planned = nullptr) {
  Scenario s = moving(engine, "static");
  RunOptions o;
  o.threads = threads;
  auto e = make_engine(s, o);
  for (unsigned round = 0; e->step(); ++round) {
    if (round % 3 == 0) {
      // A cut of node 1's lowest edge, then a connection of two nodes with free ports.
      const NodeView v = e->node(1);
      for (core::Port p = 1; p <= s.delta; ++p)
        if (v.neighbours >> p & 1u) {
          EXPECT_EQ(e->cut(1, p), "");
          break;
        }
      (void)e->connect(2 + round, 0, 2500 + round, 0);  // ports drawn by the adversary; may be refused
    }
    if (round % 5 == 1) e->move(round, 0.5, 0.5);
  }
  if (planned) *planned = e->mobility_planned_ahead();
  return test::comparable_summary(e->finish());
}

TEST(ThreadsApi, ChangesFromOutsideBetweenRoundsDiscardThePlanMadeAhead) {
  // Asynchronous too: its schedule, made on the planner's thread, is kept when the plan is not.
  for (const char* engine : {"semi-sync", "async"}) {
    std::uint64_t planned = 0;
    const json one = driven(engine, 1), two = driven(engine, 2, &planned);
    EXPECT_GT(planned, 0u) << engine << ": rounds without an outside change were planned ahead";
    EXPECT_LT(planned, 28u) << engine << ": the rounds after an outside change were planned again, not ahead";
    EXPECT_EQ(two["trace_hash"], one["trace_hash"]) << engine;
    EXPECT_EQ(two, one) << engine;
  }
}

}  // namespace threads_test
}  // namespace lmx::sim
