// RunOptions::skip_dormant (the asynchronous engine skips the executions of nodes with nothing to
// do until a message, a call or a topology change at them): every Lock still completes, with
// every monitor silent; a request, a message and an edge wake a dormant node; idle executions
// mostly disappear; off (the default) and under the delay-target adversary nothing changes.
#include <gtest/gtest.h>

#include <bit>
#include <sstream>

#include "lmx/sim/simulation.hpp"

namespace lmx::sim {
// Named, not anonymous: the unity build puts the simulator's tests in few units.
namespace dormant_test {

Scenario ring_scenario(NodeId n, std::uint64_t seed) {
  Scenario s;
  s.nodes = n;
  s.delta = 4;
  s.engine = EngineKind::async;
  s.topology.kind = TopologyKind::ring;
  s.workload.kind = WorkloadKind::manual;
  s.rounds = 3000;
  s.seed = seed;
  return s;
}

/// Each node locks `times` times, Unlocking at once; the run ends when all are done.
class Repeat final : public LockListener {
 public:
  Repeat(NodeId n, unsigned times) : left_(n, times) {}
  void attach(Engine& e) { e_ = &e; }
  void start() {
    for (NodeId u = 0; u < left_.size(); ++u) e_->request_lock(u);
  }
  void locked(NodeId u, std::uint64_t) override {
    ++completed;
    e_->request_unlock(u);
  }
  void unlock_called(NodeId) override {}
  void unlocked(NodeId u) override {
    if (--left_[u] > 0)
      e_->request_lock(u);
    else if (++finished == left_.size())
      e_->end_run();
  }
  unsigned completed = 0;
  std::size_t finished = 0;

 private:
  std::vector<unsigned> left_;
  Engine* e_ = nullptr;
};

std::size_t count(const std::string& text, const std::string& what) {
  std::size_t c = 0;
  for (std::size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) ++c;
  return c;
}

struct Outcome {
  unsigned completed = 0;
  std::size_t idle_lines = 0;
  std::vector<Violation> violations;
  std::string trace;
};

Outcome run_repeat(const Scenario& s, bool skip, unsigned times) {
  Repeat app(s.nodes, times);
  std::ostringstream trace;
  RunOptions opt;
  opt.trace = &trace;
  opt.listener = &app;
  opt.skip_dormant = skip;
  auto e = make_engine(s, opt);
  app.attach(*e);
  app.start();
  while (e->step()) {
  }
  Outcome o;
  o.completed = app.completed;
  o.violations = e->violations();
  o.trace = trace.str();
  o.idle_lines = count(o.trace, "\"ev\":\"idle\"");
  return o;
}

TEST(SkipDormant, EveryLockCompletesAndIdleExecutionsMostlyDisappear) {
  for (std::uint64_t seed = 1; seed <= 5; ++seed) {
    const Scenario s = ring_scenario(30, seed);
    const Outcome with = run_repeat(s, true, 3), without = run_repeat(s, false, 3);
    EXPECT_EQ(with.completed, 90u) << seed;
    EXPECT_EQ(without.completed, 90u) << seed;
    EXPECT_TRUE(with.violations.empty()) << with.violations[0].detail;
    ASSERT_GT(without.idle_lines, 0u);
    // A node goes dormant after one idle execution, so there are far fewer of them.
    EXPECT_LT(with.idle_lines * 3, without.idle_lines) << seed;
  }
}

TEST(SkipDormant, ARequestAMessageAndAnEdgeWakeADormantNode) {
  Scenario s = ring_scenario(10, 3);
  Repeat app(10, 1);
  RunOptions opt;
  opt.listener = &app;
  opt.skip_dormant = true;
  auto e = make_engine(s, opt);
  app.attach(*e);
  // Nothing requested: every node goes dormant in the first rounds.
  for (int i = 0; i < 20; ++i) ASSERT_TRUE(e->step());
  const std::uint64_t before = e->actions();
  // A request wakes its node, whose messages wake its neighbours: the Lock completes.
  ASSERT_TRUE(e->request_lock(4));
  for (int i = 0; i < 200 && app.completed == 0; ++i) ASSERT_TRUE(e->step());
  EXPECT_EQ(app.completed, 1u);
  EXPECT_GT(e->actions(), before);
  for (int i = 0; i < 50; ++i) ASSERT_TRUE(e->step());
  // An edge cut and connected again while both ends are dormant, then a Lock over it: the far
  // end, woken by the messages, answers.
  const auto port = static_cast<core::Port>(std::countr_zero(e->node(4).neighbours));
  const Link far = e->far_end(4, port);
  ASSERT_NE(far.node, no_node);
  EXPECT_EQ(e->cut(4, port), "");
  for (int i = 0; i < 5; ++i) ASSERT_TRUE(e->step());
  EXPECT_EQ(e->connect(4, port, far.node, far.port), "");
  ASSERT_TRUE(e->request_lock(far.node));
  for (int i = 0; i < 200 && app.completed < 2; ++i) ASSERT_TRUE(e->step());
  EXPECT_EQ(app.completed, 2u);
  EXPECT_TRUE(e->violations().empty());
}

TEST(SkipDormant, OffOrUnderTheDelayTargetAdversaryNothingChanges) {
  Scenario s = ring_scenario(12, 7);
  s.delivery.kind = DeliveryKind::delay_target;
  s.delivery.target = 3;
  const Outcome with = run_repeat(s, true, 2), without = run_repeat(s, false, 2);
  EXPECT_EQ(with.trace, without.trace);
  EXPECT_EQ(with.completed, 24u);
}

}  // namespace dormant_test
}  // namespace lmx::sim
