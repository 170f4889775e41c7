// Each monitor of P1-P7 made to fire (by the paper variant's known defect, or by fault injection
// where the algorithm is correct), and shown silent on correct runs.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <sstream>

#include "lmx/sim/simulation.hpp"

namespace lmx::sim {
namespace {

using core::InitiatorState;
using nlohmann::json;

/// A manual-workload scenario on an explicit edge list, synchronous semi-synchronous rounds.
Scenario manual(std::vector<std::pair<NodeId, NodeId>> edges, NodeId nodes, std::uint64_t seed = 1) {
  Scenario s;
  s.name = "manual";
  s.nodes = nodes;
  s.delta = 4;
  s.k = 4, s.variant = lmx::core::Variant::repaired;  // what these tests were written against
  s.engine = lmx::sim::EngineKind::semi_sync;
  s.activation.kind = lmx::sim::ActivationKind::synchronous;
  s.topology.kind = lmx::sim::TopologyKind::edges;
  s.topology.edges = std::move(edges);
  s.workload.kind = lmx::sim::WorkloadKind::manual;
  s.rounds = 200;
  s.seed = seed;
  return s;
}

bool fired(const Engine& e, const std::string& property) {
  const auto& v = e.violations();
  return std::any_of(v.begin(), v.end(), [&](const Violation& x) { return x.property == property; });
}

template <class Pred>
bool step_until(Engine& e, Pred pred, int max_rounds = 100) {
  for (int i = 0; i < max_rounds; ++i) {
    if (pred()) return true;
    if (!e.step()) return pred();
  }
  return pred();
}

core::Port port_to(const Engine& e, NodeId u) {
  // The lowest port of u holding an edge (the tests use nodes of degree 1).
  const auto n = e.node(u).neighbours;
  for (core::Port p = 1; p < 64; ++p)
    if ((n >> p) & 1u) return p;
  return 0;
}

// E1 (docs/errata.md): an initiator in WIN loses the edge that carries its last ack-lock. Drives
// two nodes until u has its own ack-lock but not v's, then cuts the edge. Returns the engine after
// the run, or nullptr if no seed reached the situation.
std::unique_ptr<Engine> run_e1(core::Variant variant) {
  for (std::uint64_t seed = 1; seed < 50; ++seed) {
    Scenario s = manual({{0, 1}}, 2, seed);
    s.variant = variant;
    auto e = make_engine(s);
    EXPECT_TRUE(e->request_lock(0));
    const bool reached = step_until(*e, [&] {
      const NodeView u = e->node(0);
      return u.state == InitiatorState::win && u.replied == 1u && u.phase == core::ParticipantPhase::idle;
    });
    if (!reached || e->node(0).state != InitiatorState::win) continue;
    EXPECT_EQ(e->cut(0, port_to(*e, 0)), "");
    while (e->step()) {
    }
    return e;
  }
  return nullptr;
}

TEST(P7, GlobalStallFiresOnThePaperVariantErrataE1) {
  auto e = run_e1(core::Variant::paper);
  ASSERT_NE(e, nullptr);
  const json r = e->finish();
  EXPECT_TRUE(r["stalled"].get<bool>());
  EXPECT_TRUE(fired(*e, "P7"));
  EXPECT_EQ(e->node(0).state, InitiatorState::win);
  EXPECT_EQ(r["properties"]["P7"], "fail");
}

TEST(P7, RepairedVariantCompletesTheSameRequest) {
  auto e = run_e1(core::Variant::repaired);
  ASSERT_NE(e, nullptr);
  const json r = e->finish();
  EXPECT_FALSE(r["stalled"].get<bool>());
  EXPECT_TRUE(e->violations().empty()) << e->violations().front().detail;
  EXPECT_EQ(e->node(0).state, InitiatorState::locked);
  EXPECT_EQ(e->node(0).lock_set, 1u);  // only port 0: v was not persistent
}

TEST(P7, HorizonReportsLongPendingRequests) {
  Scenario s;
  s.nodes = 30, s.engine = lmx::sim::EngineKind::semi_sync, s.topology.kind = lmx::sim::TopologyKind::ring,
  s.rounds = 30, s.horizon = 1;
  const json r = run(s);
  EXPECT_EQ(r["properties"]["P7"], "fail");
  EXPECT_FALSE(r["stalled"].get<bool>());
}

// P7's queue of Lock calls, behind one request that waits for as long as a neighbour holds its
// lock: the calls of other nodes, completed since, are dropped from it (its memory stays about a
// node's worth of entries past 1024), and the waiting request is still reported at the horizon.
std::uint64_t p7_queue_after(int cycles, bool until_reported) {
  Scenario s = manual({{0, 1}, {2, 3}}, 4);
  s.rounds = 1000000, s.horizon = 150000;
  auto e = make_engine(s);
  EXPECT_TRUE(e->request_lock(1));
  EXPECT_TRUE(step_until(*e, [&] { return e->node(1).state == InitiatorState::locked; }));
  EXPECT_TRUE(e->request_lock(0));  // waits while node 1 holds
  for (int i = 0; i < cycles; ++i) {
    EXPECT_TRUE(e->request_lock(2));
    EXPECT_TRUE(step_until(*e, [&] { return e->node(2).state == InitiatorState::locked; }));
    EXPECT_TRUE(e->request_unlock(2));
    EXPECT_TRUE(step_until(*e, [&] { return e->node(2).state == InitiatorState::idle; }));
  }
  EXPECT_NE(e->node(0).state, InitiatorState::locked);
  EXPECT_FALSE(fired(*e, "P7")) << "the cycles outlasted the horizon: "
                                << (e->violations().empty() ? "" : e->violations().front().detail);
  if (until_reported) {
    EXPECT_TRUE(step_until(
        *e, [&] { return fired(*e, "P7"); }, 200000));
    const auto& v = e->violations();
    EXPECT_TRUE(std::any_of(v.begin(), v.end(), [](const Violation& x) {
      return x.property == "P7" && x.nodes == std::vector<NodeId>{0};
    })) << "the waiting request was dropped from the queue";
  }
  return e->finish()["bytes_per_node"].get<double>() * 4;
}

TEST(P7, QueueDropsCompletedCallsBehindAWaitingRequest) {
  const std::uint64_t few = p7_queue_after(200, false), many = p7_queue_after(4000, true);
  // Kept whole, 3 800 more entries of 8 bytes; dropped past 1024 + 4, at most about 1 030 more.
  EXPECT_LT(many - few, 1100u * 8) << few << " and " << many << " bytes";
}

TEST(P2, FiresWhenAHeldNeighbourForgetsItsLock) {
  auto e = make_engine(manual({{0, 1}, {1, 2}}, 3));
  ASSERT_TRUE(e->request_lock(0));
  ASSERT_TRUE(step_until(*e, [&] { return e->node(0).state == InitiatorState::locked; }));
  EXPECT_TRUE(e->violations().empty());
  e->inject_lock_port(1, core::no_port);  // fault: node 1 forgets that node 0 locked it
  EXPECT_TRUE(fired(*e, "P2"));
  EXPECT_FALSE(e->violations().front().excerpt.empty());
}

TEST(P1, FiresWhenTwoLockedNodesHoldOneNode) {
  auto e = make_engine(manual({{0, 1}, {1, 2}}, 3));
  ASSERT_TRUE(e->request_lock(0));
  ASSERT_TRUE(step_until(*e, [&] { return e->node(0).state == InitiatorState::locked; }));
  e->inject_lock_port(1, core::no_port);  // node 1 is now free to be locked by node 2 too
  ASSERT_TRUE(e->request_lock(2));
  ASSERT_TRUE(step_until(*e, [&] { return e->node(2).state == InitiatorState::locked; }));
  EXPECT_TRUE(fired(*e, "P1"));
}

// The monitors keep a held node's holder as the node's port towards it: a cut must end the
// holding, or the node that a new edge brings to the same port would pass for its holder. Node 0
// locks node 1; node 1 is cut from it and connected, on the same port, to node 2.
std::unique_ptr<Engine> held_node_moved_to_a_new_neighbour() {
  auto e = make_engine(manual({{0, 1}}, 3));
  EXPECT_TRUE(e->request_lock(0));
  EXPECT_TRUE(step_until(*e, [&] { return e->node(0).state == InitiatorState::locked; }));
  const core::Port p1 = port_to(*e, 1);
  EXPECT_EQ(e->cut(1, p1), "");
  EXPECT_EQ(e->connect(1, p1, 2, 0), "");
  return e;
}

TEST(P2, SilentWhenAHeldNodeLosesItsHolderAndGainsANeighbourOnTheSamePort) {
  auto e = held_node_moved_to_a_new_neighbour();
  e->inject_lock_port(1, core::no_port);  // node 1 is held by nobody: no isolation to break
  EXPECT_FALSE(fired(*e, "P2"));
  EXPECT_EQ(e->node(0).state, InitiatorState::locked);
}

TEST(P1, SilentWhenANodeCutFromItsLockedHolderIsLockedByANewNeighbour) {
  auto e = held_node_moved_to_a_new_neighbour();
  ASSERT_TRUE(e->request_lock(2));
  ASSERT_TRUE(step_until(*e, [&] { return e->node(2).state == InitiatorState::locked; }));
  EXPECT_EQ(e->node(0).state, InitiatorState::locked);  // node 0 still LOCKED, holding itself only
  EXPECT_TRUE(e->violations().empty());
}

TEST(P3, FiresWhenANonPersistentNeighbourIsReturned) {
  auto e = make_engine(manual({{0, 1}}, 2));
  ASSERT_TRUE(e->request_lock(0));
  // Wait until node 0 has node 1's ready and nothing is in transit on the edge.
  ASSERT_TRUE(step_until(*e, [&] {
    const NodeView u = e->node(0);
    return u.state == InitiatorState::prepare && (u.replied & 2u) && e->in_transit() == 0;
  }));
  const core::Port p0 = port_to(*e, 0), p1 = port_to(*e, 1);
  ASSERT_EQ(e->cut(0, p0), "");
  ASSERT_EQ(e->connect(0, p0, 1, p1), "");  // node 1 returns: no longer persistent
  e->inject_detector(0, 0);                 // fault: both detectors miss the cut
  e->inject_detector(1, 0);
  ASSERT_TRUE(step_until(*e, [&] { return e->node(0).state == InitiatorState::locked; }));
  EXPECT_TRUE(fired(*e, "P3"));
}

TEST(P4, FiresOnAThirdMessageAlongAnEdge) {
  auto e = make_engine(manual({{0, 1}}, 2));
  const core::Port p = port_to(*e, 0);
  const std::uint8_t prepare = core::encode(core::Message{core::MessageKind::prepare, 0});
  e->inject_message(0, p, prepare);
  e->inject_message(0, p, prepare);
  EXPECT_FALSE(fired(*e, "P4"));
  e->inject_message(0, p, prepare);
  EXPECT_TRUE(fired(*e, "P4"));
  // The channel stays a correct bag past its inline capacity.
  EXPECT_EQ(e->in_transit(), 3u);
}

TEST(P5, StateWithinAConstantFactorOfThePapersCount) {
  for (unsigned delta : {1u, 7u, 8u, 15u, 31u, 63u})
    EXPECT_TRUE(p5_holds(core::layout_state_bits(core::register_bits_for(delta)), core::paper_state_bits(delta, 32)));
  EXPECT_FALSE(p5_holds(1000, 10));
}

TEST(P6, FiresOnAByteThatIsNoMessage) {
  auto e = make_engine(manual({{0, 1}}, 2));
  const std::uint8_t bad = core::encode(core::Message{core::MessageKind::request_lock, 31});  // K = 4
  e->inject_message(1, port_to(*e, 1), bad);
  e->step();
  e->step();
  EXPECT_TRUE(fired(*e, "P6"));
}

TEST(FinePrint, StaleLockPointerIsCountedNotCalledAViolation) {
  auto e = make_engine(manual({{0, 1}}, 3));
  ASSERT_TRUE(e->request_lock(0));
  ASSERT_TRUE(step_until(*e, [&] { return e->node(0).state == InitiatorState::locked; }));
  const core::Port p1 = port_to(*e, 1);
  ASSERT_EQ(e->cut(1, p1), "");
  ASSERT_EQ(e->connect(1, p1, 2, 1), "");  // node 2 takes the port node 1's lock still names
  const json r = e->finish();
  EXPECT_EQ(r["findings"]["stale_lock_pointers"], 1);
  EXPECT_EQ(r["properties"]["P1"], "pass");
}

}  // namespace
}  // namespace lmx::sim

namespace lmx::sim {
namespace {

using nlohmann::json;

// ---------------------------------------------------------------- P7's horizon

/// A request that completes exactly horizon + 1 rounds after its call is late too: the check at the
/// end of each round saw it pending for at most horizon rounds, so it is reported at completion.
TEST(P7, RequestCompletingOneRoundPastTheHorizonIsReported) {
  Scenario s;
  s.nodes = 2, s.delta = 1, s.engine = lmx::sim::EngineKind::semi_sync, s.rounds = 400, s.seed = 3;
  s.topology.kind = lmx::sim::TopologyKind::edges, s.topology.edges = {{0, 1}};
  s.workload.locks = 1, s.workload.idle = 0, s.workload.participation = 1;
  s.horizon = 1000;
  const json slow = run(s);
  ASSERT_EQ(slow["locks_completed"], 2);
  const auto longest = static_cast<std::uint64_t>(slow["latency_rounds"]["max"].get<double>());
  ASSERT_GE(longest, 2u);
  s.horizon = longest - 1;  // the slowest request takes exactly horizon + 1 rounds
  const json late = run(s);
  EXPECT_EQ(late["trace_hash"], slow["trace_hash"]);  // the monitor changes nothing of the run
  EXPECT_GE(late["violation_counts"].value("P7", 0), 1) << late["violations"].dump();
  s.horizon = longest;
  EXPECT_EQ(run(s)["violation_counts"].value("P7", 0), 0);
}

/// The default horizon is derived from the scenario (scenario.hpp, effective_horizon).
TEST(P7, DefaultHorizonIsDerivedFromTheScenario) {
  Scenario s;  // async, Delta = 8
  EXPECT_EQ(s.effective_horizon(), 270u);
  s.engine = lmx::sim::EngineKind::semi_sync, s.activation.p = 0.5;
  EXPECT_EQ(s.effective_horizon(), 540u);
  s.delta = 1, s.engine = lmx::sim::EngineKind::async;
  EXPECT_EQ(s.effective_horizon(), 100u);  // at least 100 rounds
  s.engine = lmx::sim::EngineKind::semi_sync, s.delivery.kind = lmx::sim::DeliveryKind::delay_target,
  s.delivery.patience = 10;
  EXPECT_EQ(s.effective_horizon(), std::uint64_t(30 * (2 / 0.5 + 60)));
  s.horizon = 7;
  EXPECT_EQ(s.effective_horizon(), 7u);
}

/// Under full contention with few priority values, requests wait far longer than the derived
/// horizon: P7 fails, and the summary lists the pending requests with their ages.
TEST(P7, ContentionPastTheHorizonFailsAndPendingRequestsAreListed) {
  Scenario s;
  s.nodes = 200, s.delta = 6, s.k = 2, s.engine = lmx::sim::EngineKind::semi_sync, s.rounds = 600, s.seed = 1;
  s.topology.kind = lmx::sim::TopologyKind::regular, s.workload.idle = 0, s.workload.hold = 0;
  const json r = run(s);
  EXPECT_EQ(r["properties"]["P7"], "fail");
  const json& pending = r["pending_requests"];
  EXPECT_EQ(pending["count"], r["locks_pending"]);
  EXPECT_EQ(pending["horizon_rounds"], s.effective_horizon());
  ASSERT_GT(pending["count"].get<std::uint64_t>(), 0u);
  EXPECT_GT(pending["age_rounds"]["max"].get<double>(), double(s.effective_horizon()));
  ASSERT_FALSE(pending["oldest"].empty());
  double previous = 1e300;
  for (const auto& o : pending["oldest"]) {  // oldest first
    EXPECT_LE(o["age_rounds"].get<double>(), previous);
    previous = o["age_rounds"].get<double>();
  }
  // Latencies with the pending requests counted at their age are at least the completed ones'.
  EXPECT_GE(r["latency_rounds_with_pending"]["max"].get<double>(), pending["age_rounds"]["max"].get<double>());
}

}  // namespace
}  // namespace lmx::sim

namespace lmx::sim {
namespace {

TEST(SubsetLock, LocksOnlyTheRequestedPortsAndP3ExpectsExactlyThose) {
  // Node 1 in the middle of a path 0 - 1 - 2 locks only the port to node 2 (population
  // protocols' lock-pair): CheckDone returns {0, that port}, node 0 stays free, and P3 (which
  // expects port 0 plus the requested persistent neighbours) stays quiet.
  for (const auto variant : {core::Variant::paper, core::Variant::repaired, core::Variant::fast}) {
    Scenario s = manual({{0, 1}, {1, 2}}, 3);
    s.variant = variant;
    std::ostringstream trace;
    lmx::sim::RunOptions o;
    o.trace = &trace;
    auto e = make_engine(s, o);
    core::Port to_2 = 0;
    for (core::Port p = 1; p <= 4; ++p)
      if (e->far_end(1, p).node == 2) to_2 = p;
    ASSERT_NE(to_2, 0);
    ASSERT_TRUE(e->request_lock(1, std::uint64_t{1} << to_2));
    ASSERT_TRUE(step_until(*e, [&] { return e->node(1).state == InitiatorState::locked; }));
    EXPECT_EQ(e->node(1).lock_set, (std::uint64_t{1} << to_2) | 1u) << core::to_string(variant);
    EXPECT_EQ(e->node(0).lock_port, core::no_port) << "node 0 was not asked";
    EXPECT_EQ(e->node(2).lock_port, e->far_end(1, to_2).port);
    EXPECT_TRUE(e->violations().empty()) << e->violations().front().detail;
    EXPECT_NE(trace.str().find("\"requested\":[" + std::to_string(to_2) + "]"), std::string::npos)
        << "the call line names the requested ports";
    // A full Lock afterwards asks every neighbour again.
    ASSERT_TRUE(e->request_unlock(1));
    ASSERT_TRUE(step_until(*e, [&] { return e->node(1).state == InitiatorState::idle; }));
    ASSERT_TRUE(e->request_lock(1));
    ASSERT_TRUE(step_until(*e, [&] { return e->node(1).state == InitiatorState::locked; }));
    EXPECT_EQ(std::popcount(e->node(1).lock_set), 3);
    EXPECT_TRUE(e->violations().empty());
  }
}

}  // namespace
}  // namespace lmx::sim
