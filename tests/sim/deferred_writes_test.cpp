// Deferred channel writes (RunOptions::defer_writes, docs/simulator.md "Deferred writes") must not
// change a run: the same summary, violations, excerpts and trace hash as writing each message at
// its send, on every kind of scenario that defers, and on a P4 violation found at a deferred send.
#include <gtest/gtest.h>

#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "lmx/sim/simulation.hpp"
#include "summary_support.hpp"

namespace lmx::sim {
namespace {

using nlohmann::json;

struct Both {
  json deferred, immediate;
  std::uint64_t deferred_writes = 0, immediate_writes = 0;
};

Both run_both(const Scenario& s, unsigned block_shift = 12) {
  Both b;
  for (bool defer : {true, false}) {
    RunOptions o;
    o.defer_writes = defer, o.scan_block_shift = block_shift;
    auto e = make_engine(s, o);
    const json r = test::comparable_summary(e->finish());
    (defer ? b.deferred : b.immediate) = r;
    (defer ? b.deferred_writes : b.immediate_writes) = e->deferred_writes();
  }
  return b;
}

struct Case {
  const char* activation;
  const char* delivery;
  const char* topology;
  const char* dynamics;
  core::Variant variant;
  double p = 0.5;  ///< activation probability (random activation)
  unsigned rounds = 25;
  unsigned nodes = 9000;
  unsigned block_shift = 12;  ///< log2 of the scan's block
  EngineKind engine = EngineKind::semi_sync;
};

void PrintTo(const Case& c, std::ostream* os) {
  *os << word(c.engine) << "/" << c.activation << "/" << c.delivery << "/" << c.topology << "/" << c.dynamics << "/"
      << (c.variant == core::Variant::paper ? "paper" : "repaired") << "/p=" << c.p << "/n=" << c.nodes
      << "/block=" << (1u << c.block_shift);
}

class DeferredWrites : public ::testing::TestWithParam<Case> {};

TEST_P(DeferredWrites, ChangeNothingButTheOrderOfMemoryWrites) {
  const Case c = GetParam();
  Scenario s;
  // Three blocks of the scan (2^12 nodes each), so writes cross blocks in both directions.
  s.nodes = c.nodes, s.rounds = c.rounds, s.engine = c.engine, s.variant = c.variant;
  s.activation.kind = kind_from_word<ActivationKind>(c.activation).value(), s.activation.p = c.p;
  s.delivery.kind = kind_from_word<DeliveryKind>(c.delivery).value(), s.delivery.target = c.nodes > 4100 ? 4100 : 100;
  s.topology.kind = kind_from_word<TopologyKind>(c.topology).value(), s.topology.radius = 0.02, s.topology.degree = 6;
  s.dynamics.kind = kind_from_word<DynamicsKind>(c.dynamics).value(), s.dynamics.target = s.delivery.target,
  s.dynamics.bound = 3, s.dynamics.batch = 50;
  s.dynamics.birth = s.dynamics.death = 0.05;
  s.workload.idle = 1, s.workload.hold = 1;
  const Both b = run_both(s, c.block_shift);
  EXPECT_GT(b.deferred_writes, 0u) << "nothing was deferred: the comparison would be empty";
  EXPECT_EQ(b.immediate_writes, 0u);
  EXPECT_GT(b.deferred["actions"].get<std::uint64_t>(), 0u);
  EXPECT_EQ(b.deferred, b.immediate);
}

INSTANTIATE_TEST_SUITE_P(
    Sim, DeferredWrites,
    ::testing::Values(Case{"random", "random", "regular", "static", core::Variant::repaired},
                      Case{"random", "random", "regular", "static", core::Variant::paper},
                      Case{"synchronous", "oldest", "ring", "churn", core::Variant::repaired},
                      Case{"random", "delay-target", "unit-disk", "starve", core::Variant::repaired},
                      Case{"random", "random", "grid", "flap", core::Variant::paper},
                      Case{"random", "oldest", "grid", "swizzle", core::Variant::repaired},
                      Case{"synchronous", "random", "mobility", "static", core::Variant::paper},
                      // Blocks of 4 nodes, which a round's scan often does not
                      // enter: their waiting writes (some from the round
                      // before) are applied at the round's end with their own
                      // ticks, which `oldest` compares.
                      Case{"random", "oldest", "regular", "static", core::Variant::repaired, 0.1, 200, 3000, 2}));

// The asynchronous engine defers writes to the end of each tick (Network::begin_ticks), except
// into a node that may still start an execution in that tick. Its activation is its own, so the
// cases vary the rest; `oldest` compares the messages' stamps, the paper variant's double sends
// and churn's cuts meet writes still waiting, and 400 nodes over 60 rounds put several nodes of
// a tick next to each other.
INSTANTIATE_TEST_SUITE_P(
    Async, DeferredWrites,
    ::testing::Values(
        Case{"random", "random", "regular", "static", core::Variant::repaired, 0.5, 25, 9000, 12, EngineKind::async},
        Case{"random", "random", "regular", "static", core::Variant::paper, 0.5, 25, 9000, 12, EngineKind::async},
        Case{"random", "oldest", "ring", "churn", core::Variant::repaired, 0.5, 25, 9000, 12, EngineKind::async},
        Case{"random", "delay-target", "unit-disk", "starve", core::Variant::repaired, 0.5, 25, 9000, 12,
             EngineKind::async},
        Case{"random", "random", "grid", "flap", core::Variant::paper, 0.5, 25, 9000, 12, EngineKind::async},
        Case{"random", "oldest", "grid", "swizzle", core::Variant::repaired, 0.5, 25, 9000, 12, EngineKind::async},
        Case{"random", "random", "mobility", "static", core::Variant::paper, 0.5, 25, 9000, 12, EngineKind::async},
        Case{"random", "oldest", "regular", "churn", core::Variant::paper, 0.5, 60, 400, 12, EngineKind::async}));

// An application in the asynchronous engine (as the amoebot framework is): its listener cuts and
// connects edges in the middle of a tick, while writes of the tick wait, and idle nodes go dormant
// (RunOptions::skip_dormant), which reads their channels at the end of each execution. Every tenth
// completed Lock, the listener cuts every edge of the graph and connects it again on the same ports
// (the messages in transit are lost, the detectors note the cuts); every node unlocks at once and
// locks again three times.
class CutAndReconnect final : public LockListener {
 public:
  explicit CutAndReconnect(NodeId n) : left_(n, 3) {}
  void attach(Engine& e) { e_ = &e; }
  void start() {
    for (NodeId u = 0; u < left_.size(); ++u) e_->request_lock(u);
  }
  void locked(NodeId u, std::uint64_t) override {
    if (++completed % 10 == 0)
      for (NodeId v = 0; v < left_.size(); ++v)
        for (core::Port p = 1; p <= 4; ++p) {
          const Link far = e_->far_end(v, p);
          if (far.node == no_node || far.node < v) continue;
          EXPECT_EQ(e_->cut(v, p), "");
          EXPECT_EQ(e_->connect(v, p, far.node, far.port), "");
        }
    e_->request_unlock(u);
  }
  void unlock_called(NodeId) override {}
  void unlocked(NodeId u) override {
    if (--left_[u] > 0) e_->request_lock(u);
  }
  unsigned completed = 0;

 private:
  std::vector<unsigned> left_;
  Engine* e_ = nullptr;
};

TEST(DeferredWrites, AnApplicationsMidTickCutsAndDormantNodesChangeNothing) {
  for (const bool dormant : {true, false}) {
    Scenario s;
    s.nodes = 3000, s.delta = 4, s.rounds = 100, s.seed = 5, s.engine = EngineKind::async;
    s.topology.kind = TopologyKind::grid, s.workload.kind = WorkloadKind::manual;
    json summary[2];
    unsigned completed[2] = {0, 0};
    std::uint64_t deferred = 0;
    for (const bool defer : {true, false}) {
      CutAndReconnect app(s.nodes);
      RunOptions o;
      o.defer_writes = defer, o.listener = &app, o.skip_dormant = dormant;
      auto e = make_engine(s, o);
      app.attach(*e);
      app.start();
      while (e->step()) {
      }
      if (defer) deferred = e->deferred_writes();
      summary[defer ? 0 : 1] = test::comparable_summary(e->finish());
      completed[defer ? 0 : 1] = app.completed;
    }
    EXPECT_GT(deferred, 0u);
    EXPECT_GT(completed[0], 100u) << "the listener cut too few times to matter";
    EXPECT_EQ(completed[0], completed[1]);
    EXPECT_EQ(summary[0], summary[1]) << (dormant ? "with" : "without") << " dormant nodes";
  }
}

// P4 found at a deferred send: node 0 already holds two messages from node 8500 (another block),
// so its next send to 8500 makes three along the edge. The report, its round and its excerpt must
// be the ones the immediate writes give, on both engines.
class DeferredWritesP4 : public ::testing::TestWithParam<EngineKind> {};

TEST_P(DeferredWritesP4, TheReportIsTheSameAsWithImmediateWrites) {
  unsigned fired = 0;
  for (std::uint64_t seed = 1; seed <= 12; ++seed) {
    Scenario s;
    s.name = "p4", s.nodes = 9000, s.delta = 4, s.engine = GetParam(), s.rounds = 6, s.seed = seed;
    s.activation.kind = lmx::sim::ActivationKind::synchronous, s.topology.kind = lmx::sim::TopologyKind::edges,
    s.topology.edges = {{0, 8500}, {1, 2}};
    s.workload.kind = lmx::sim::WorkloadKind::manual;
    json violations[2];
    std::uint64_t deferred = 0;
    for (bool defer : {true, false}) {
      RunOptions o;
      o.defer_writes = defer, o.scan_block_shift = 12;  // blocks of 2^12 nodes: node 8500 is two blocks on
      auto e = make_engine(s, o);
      core::Port p = 0;
      for (core::Port q = 1; q <= 4; ++q)
        if (e->node(0).neighbours >> q & 1u) p = q;
      ASSERT_NE(p, 0);
      const std::uint8_t prepare = core::encode(core::Message{core::MessageKind::prepare, 0});
      e->inject_message(0, p, prepare);
      e->inject_message(0, p, prepare);
      ASSERT_TRUE(e->request_lock(0));
      ASSERT_TRUE(e->request_lock(1));
      violations[defer ? 0 : 1] = e->finish()["violations"];  // each with its round and excerpt
      if (defer) deferred = e->deferred_writes();
    }
    EXPECT_EQ(violations[0], violations[1]) << "seed " << seed;
    for (const auto& v : violations[0])
      if (v["property"] == "P4" && deferred > 0) ++fired;
  }
  EXPECT_GT(fired, 0u) << "no seed made node 0 send into the full edge";
}

// A double send (errata E3, paper variant): one action sends twice on one port, so the first
// message may be deferred while the second (its receiver then holding two) is written at once.
// The deferred one must still arrive first, and P4 must count both. The run finds such a double
// send (semi-synchronous: into a later block) in a traced run (writes immediate), then re-runs it
// with one message injected on that edge at the start of its round, so that the second send makes
// three along the edge.
TEST_P(DeferredWritesP4, ADoubleSendAfterADeferredOneKeepsItsOrderAndItsCount) {
  const bool async = GetParam() == EngineKind::async;
  Scenario s;
  s.nodes = 9000, s.rounds = 24, s.engine = GetParam(), s.seed = 1, s.variant = core::Variant::paper;
  s.activation.kind = lmx::sim::ActivationKind::synchronous, s.topology.kind = lmx::sim::TopologyKind::regular,
  s.dynamics.kind = lmx::sim::DynamicsKind::churn;
  s.dynamics.birth = s.dynamics.death = 0.05, s.workload.idle = 1, s.workload.hold = 1;
  // The sends of the action being read; at a double-send finding, the one into a later block.
  struct Found {
    std::uint64_t round;
    NodeId receiver;
    core::Port receiver_port;
  };
  // The message is injected at the start of the double send's round. In the asynchronous engine
  // the receiver may take it before the double send, in the same round: then the next one found.
  // Whether this one gives P4 with immediate writes, and then the same report with deferred ones.
  const auto compare = [&](const Found& f) {
    json summary[2];
    std::uint64_t deferred = 0;
    for (bool defer : {false, true}) {
      RunOptions o;
      o.defer_writes = defer, o.scan_block_shift = 12;  // the blocks the search below assumes
      auto e = make_engine(s, o);
      for (std::uint64_t r = 0; r < f.round; ++r) e->step();
      e->inject_message(f.receiver, f.receiver_port, core::encode(core::Message{core::MessageKind::ready, 0}));
      summary[defer ? 0 : 1] = test::comparable_summary(e->finish());
      if (defer) deferred = e->deferred_writes();
      const json& immediate = summary[1]["violations"];
      if (!defer && (immediate.empty() || immediate[0]["property"] != "P4")) return false;  // no P4
    }
    EXPECT_GT(deferred, 0u);
    EXPECT_EQ(summary[0], summary[1]);  // every violation with its round, detail and excerpt, and the rest
    return true;
  };
  // The traced run (writes immediate) goes a round at a time and its new lines are read after
  // each, so that it stops at the first double send that meets the injected message. Only the
  // act, send and finding lines matter; the others are not parsed.
  std::stringstream trace;
  RunOptions traced;
  traced.trace = &trace;
  auto run = make_engine(s, traced);
  std::vector<json> sends;
  std::string partial;  // a line the run had not finished writing
  unsigned found = 0, compared = 0;
  const auto starts = [](const std::string& line, const char* ev) { return line.rfind(ev, 0) == 0; };
  for (bool more = true; more && compared == 0 && found < 8;) {
    more = run->step();
    std::vector<Found> now;
    for (std::string line; std::getline(trace, line);) {
      if (trace.eof()) {
        partial += line;
        break;
      }
      line = std::exchange(partial, {}) + line;
      if (starts(line, R"({"ev":"act")")) sends.clear();
      if (starts(line, R"({"ev":"send")")) sends.push_back(json::parse(line));
      if (!starts(line, R"({"ev":"finding")")) continue;
      const json j = json::parse(line);
      if (j["kind"] != "send-twice-on-port") continue;
      const NodeId from = j["node"];
      for (const json& send : sends)
        if (send["from"] == from && send["port"] == j["ports"][0] && !send["to"].is_null() &&
            (async || send["to"].get<NodeId>() >> 12 > from >> 12))
          now.push_back({static_cast<std::uint64_t>(j["round"].get<double>()), send["to"], send["to_port"]});
    }
    trace.clear();
    for (const Found& f : now)
      if (found < 8 && compared == 0) ++found, compared += compare(f) ? 1 : 0;
  }
  ASSERT_GT(found, 0u) << "no double send (into a later block) in this run";
  EXPECT_EQ(compared, 1u) << "no double send met the injected message";
}

INSTANTIATE_TEST_SUITE_P(Sim, DeferredWritesP4, ::testing::Values(EngineKind::semi_sync, EngineKind::async),
                         [](const ::testing::TestParamInfo<EngineKind>& engine) {
                           return std::string(engine.param == EngineKind::async ? "async" : "semi_sync");
                         });

}  // namespace
}  // namespace lmx::sim
