// The exhaustive checker: it finds the paper's defects by itself, passes the repaired variant, and
// writes counterexamples that replay on the real core.
#include "lmx/check/checker.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "check_support.hpp"
#include "lmx/check/replay.hpp"
#include "model.hpp"

namespace {
using lmx::check::Instance;
using lmx::check::Limit;
using lmx::check::Phase;
using lmx::check::Property;
using lmx::check::Verdict;
using lmx::check::testing::path_of_three;
using lmx::check::testing::two_nodes;
using lmx::core::Variant;

std::set<std::string> details(const lmx::check::Result& r, Property kind) {
  std::set<std::string> out;
  for (const auto& v : r.violations)
    if (v.kind == kind) out.insert(v.detail);
  return out;
}

bool replays(const std::string& trace) {
  std::istringstream in(trace);
  std::ostringstream report;
  return lmx::check::replay_counterexample(in, report);
}

TEST(Checker, ParsesAndValidatesInstances) {
  std::vector<std::pair<unsigned, unsigned>> e;
  EXPECT_EQ(lmx::check::parse_edges("0-1,1-2", e), "");
  ASSERT_EQ(e.size(), 2u);
  EXPECT_EQ(e[1], std::make_pair(1u, 2u));
  EXPECT_NE(lmx::check::parse_edges("0:1", e), "");
  EXPECT_EQ(lmx::check::parse_edges("", e), "");  // no edges
  EXPECT_TRUE(e.empty());
  // Each item exactly U-V, digits only, two distinct nodes; the error names the item.
  for (const char* bad : {"0-1-2", "0-1,,1-2", "0-1,", ",0-1", " 0-1", "0-1 ", "+0-1", "0-+1", "-1", "1-", "0--1",
                          "0-4294967296", "1-1"}) {
    const std::string said = lmx::check::parse_edges(bad, e);
    EXPECT_EQ(said.rfind("--edges: ", 0), 0u) << bad << ": " << said;
  }
  EXPECT_NE(lmx::check::parse_edges("0-1,2-2", e).find("item '2-2'"), std::string::npos);
  EXPECT_EQ(lmx::check::parse_edges("0-1,,1-2", e).rfind("--edges: item 2 is empty", 0), 0u);
  // The item is quoted printable, so that the error stays one line.
  EXPECT_EQ(lmx::check::parse_edges("0-1,1-2\n\x80", e),
            "--edges: item '1-2\\x0a\\x80' is not of the form U-V (two node numbers, digits only, joined by '-')");
  Instance i = two_nodes(Variant::paper, 1, 0);
  EXPECT_EQ(lmx::check::validate(i), "");
  i.edges = {{0, 0}};
  EXPECT_NE(lmx::check::validate(i), "");
  i.edges = {{0, 1}, {1, 0}};
  EXPECT_NE(lmx::check::validate(i), "");
  i = two_nodes(Variant::paper, 1, 0);
  i.nodes = 3;
  i.edges = {{0, 1}, {0, 2}};  // node 0 would need Delta = 2
  EXPECT_NE(lmx::check::validate(i).find("item '0-2' gives node 0 2 neighbours"), std::string::npos);
  i.edges = {{0, 3}};
  EXPECT_NE(lmx::check::validate(i).find("item '0-3' names node 3"), std::string::npos);
  i.edges = {{2, 1}, {1, 2}};
  EXPECT_NE(lmx::check::validate(i).find("item '1-2' repeats the edge 2-1"), std::string::npos);
  i.edges = {};
  i.k = 40;
  EXPECT_EQ(lmx::check::validate(i), "--k must be 2..32, not 40");
}

// E2: on a single static edge the paper's algorithm can deadlock in COMPETE.
TEST(Checker, PaperDeadlocksOnAStaticEdge) {
  const auto r = lmx::check::check(two_nodes(Variant::paper, 1, 0));
  EXPECT_EQ(r.verdict, Verdict::fail);
  const auto d = details(r, Property::deadlock);
  ASSERT_FALSE(d.empty());
  EXPECT_NE(d.begin()->find("COMPETE"), std::string::npos);
  EXPECT_FALSE(details(r, Property::P7).empty());
  for (const auto& v : r.violations) EXPECT_TRUE(replays(v.trace)) << v.kind;
}

// E1 and E2 with 2 nodes and at most 2 topology changes; nothing on the repaired variant.
TEST(Checker, FindsBothDefectsOfThePaperAndNoneWhenRepaired) {
  const auto paper = lmx::check::check(two_nodes(Variant::paper, 1, 1));
  bool win = false, compete = false;
  for (const auto& d : details(paper, Property::deadlock)) {
    win = win || d.find("WIN") != std::string::npos;
    compete = compete || d.find("COMPETE") != std::string::npos;
  }
  EXPECT_TRUE(win);
  EXPECT_TRUE(compete);
  for (const auto& v : paper.violations) {
    EXPECT_TRUE(replays(v.trace)) << v.kind << ": " << v.detail;
    EXPECT_NE(v.trace.find("\"source\":\"check\""), std::string::npos);
  }
  const auto repaired = lmx::check::check(two_nodes(Variant::repaired, 1, 1));
  EXPECT_EQ(repaired.verdict, Verdict::pass);
  EXPECT_TRUE(repaired.violations.empty());
  EXPECT_GT(repaired.states, 1000u);
}

/// Per node of a counterexample trace: its Lock calls and the state after its last action.
struct NodeEnd {
  unsigned lock_calls = 0;
  std::string state = "BOT";
};
std::map<unsigned, NodeEnd> node_ends(const std::string& trace) {
  std::map<unsigned, NodeEnd> out;
  std::istringstream in(trace);
  for (std::string line; std::getline(in, line);) {
    const auto e = nlohmann::json::parse(line);
    if (e.value("ev", "") == "call" && e["op"] == "lock") ++out[e["node"].get<unsigned>()].lock_calls;
    if (e.value("ev", "") == "act") out[e["node"].get<unsigned>()].state = e["state"].get<std::string>();
  }
  return out;
}

// Under symmetry reduction the path to a violation may end in a renamed copy of the state where it
// was found; the detail must name the node as the trace does, not as the stored copy did.
TEST(Checker, ALivenessViolationNamesTheNodeItsTraceLeavesPending) {
  const auto r = lmx::check::check(two_nodes(Variant::paper, 2, 2));
  unsigned liveness = 0;
  for (const auto& v : r.violations) {
    if (v.kind != Property::P7 && v.kind != Property::deadlock) continue;
    ++liveness;
    ASSERT_EQ(v.nodes.size(), 1u);
    const std::string node = "node " + std::to_string(v.nodes[0]) + " ";
    EXPECT_EQ(v.detail.rfind(node, 0), 0u) << v.detail;
    const std::string state = node_ends(v.trace)[v.nodes[0]].state;
    const bool names_state = v.detail.find("stays in " + state + ":") != std::string::npos ||
                             v.detail.find("can stay in " + state + " forever") != std::string::npos;
    EXPECT_TRUE(names_state) << v.detail << " but the trace leaves it in " << state;
  }
  EXPECT_GE(liveness, 4u);  // E1 and E2, each as deadlock and as P7
}

// The application may stop calling Lock: a state whose only moves are Lock calls lets time pass,
// so a request stuck there is a P7 violation without the other nodes spending their calls first.
TEST(Checker, TimePassesWhenOnlyLockCallsAreLeft) {
  const unsigned locks = 2;
  const Instance inst = two_nodes(Variant::paper, locks, 2);
  const auto r = lmx::check::check(inst);
  bool found = false;
  for (const auto& v : r.violations) {
    if (v.kind != Property::P7 || v.detail.find("WIN") == std::string::npos) continue;
    auto ends = node_ends(v.trace);
    for (unsigned node = 0; node < inst.nodes; ++node)  // a node that never acted is idle
      if (node != v.nodes[0] && ends[node].state == "BOT" && ends[node].lock_calls < locks) found = true;
  }
  EXPECT_TRUE(found) << "no P7 counterexample in WIN leaves the other node idle with Lock calls to spare";
}

// With unbounded Lock calls, forgetting the calls left maps every state of a bounded instance to a
// state of the unbounded one and every transition to a transition with the same label and outcome
// (the unbounded instance offers a superset of the node moves: Lock whenever idle). By induction
// from the initial state, every run of the bounded instance is a run of the unbounded one, which
// is what lets one unbounded verdict stand for every bounded number of calls (docs/checker.md,
// "Unbounded Lock calls"). Checked on every reachable state of a paper instance, stuck ones
// included.
TEST(Checker, UnboundedLockCallsSimulateEveryBoundedInstance) {
  using lmx::check::detail::Global;
  using lmx::check::detail::Label;
  using lmx::check::detail::Model;
  using lmx::check::detail::Outcome;
  const Instance bounded_instance = two_nodes(Variant::paper, 2, 1);
  Instance unbounded_instance = bounded_instance;
  unbounded_instance.locks = lmx::check::unbounded_locks;
  const Model bounded(bounded_instance), unbounded(unbounded_instance);
  auto project = [&](const Global& g) {
    Global p = g;
    for (auto& r : p.n) r.locks_left = 0;
    std::string bytes(unbounded.stride(), '\0');
    unbounded.pack(p, reinterpret_cast<std::uint8_t*>(bytes.data()));
    return std::make_pair(p, bytes);
  };
  auto key = [](const Label& l) {
    return std::string{static_cast<char>(l.move), static_cast<char>(l.node), static_cast<char>(l.a),
                       static_cast<char>(l.b),    static_cast<char>(l.c),    static_cast<char>(l.prio)};
  };
  std::vector<Global> frontier{bounded.initial()};
  std::string initial(bounded.stride(), '\0');
  bounded.pack(frontier[0], reinterpret_cast<std::uint8_t*>(initial.data()));
  std::set<std::string> seen{initial};
  std::size_t lock_calls_beyond_budget = 0;
  for (std::size_t i = 0; i < frontier.size(); ++i) {
    const Global g = frontier[i];
    const auto [p, p_bytes] = project(g);
    // The moves at the image: those of the state, and Lock at every idle node (Lock calls are not
    // tasks, so every task is enabled at a state iff it is at its image: fairness carries over).
    std::set<std::string> offered, offered_tasks, bounded_tasks;
    unbounded.node_moves(p, [&](const Label& l) {
      offered.insert(key(l));
      if (l.move != lmx::check::detail::Move::lock) offered_tasks.insert(key(l));
    });
    std::size_t bounded_moves = 0;
    bounded.node_moves(g, [&](const Label& l) {
      ++bounded_moves;
      ASSERT_TRUE(offered.count(key(l))) << "a node move of the bounded instance is not offered at its image";
      if (l.move != lmx::check::detail::Move::lock) bounded_tasks.insert(key(l));
    });
    ASSERT_EQ(offered_tasks, bounded_tasks);
    // The invariants see the same state.
    std::vector<unsigned> nodes_g, nodes_p;
    std::string detail_g, detail_p;
    ASSERT_EQ(bounded.invariants(g, nodes_g, detail_g), unbounded.invariants(p, nodes_p, detail_p));
    for (const auto& r : g.n)
      lock_calls_beyond_budget += r.s.state == lmx::core::InitiatorState::idle && r.locks_left == 0;
    EXPECT_GE(offered.size(), bounded_moves);
    bounded.successors(g, [&](const Label& l, const Global& next, const Outcome& o) {
      Global image = p;
      Outcome uo;
      unbounded.apply(image, l, uo);
      std::string image_bytes(unbounded.stride(), '\0');
      unbounded.pack(image, reinterpret_cast<std::uint8_t*>(image_bytes.data()));
      ASSERT_EQ(image_bytes, project(next).second) << "a transition does not commute with the projection";
      ASSERT_EQ(uo.completed_lock, o.completed_lock);
      ASSERT_EQ(uo.completed_unlock, o.completed_unlock);
      ASSERT_EQ(uo.problem, o.problem);
      std::string bytes(bounded.stride(), '\0');
      bounded.pack(next, reinterpret_cast<std::uint8_t*>(bytes.data()));
      if (seen.insert(bytes).second) frontier.push_back(next);
    });
  }
  EXPECT_GT(frontier.size(), 10000u);
  EXPECT_GT(lock_calls_beyond_budget, 0u);  // states where only the unbounded instance may call Lock
}

// Lock over a chosen subset (Instance::lock_subsets, docs/checker.md "Lock over a subset"): a Lock
// call may request any subset of ports 1..Delta. The repaired and fast variants pass every
// property on small instances with a topology change, and the instance is larger than the one
// whose Lock takes the whole neighbourhood (requests that leave a neighbour out).
TEST(Checker, LockOverASubsetPassesOnTheRepairedAndFastVariants) {
  for (const Variant v : {Variant::repaired, Variant::fast})
    for (const unsigned locks : {1u, lmx::check::unbounded_locks}) {
      Instance inst = two_nodes(v, locks, 1);
      inst.delta = 2;  // a request may name a port without edge
      SCOPED_TRACE(lmx::check::describe(inst));
      const auto whole = lmx::check::check(inst);
      inst.lock_subsets = true;
      const auto r = lmx::check::check(inst);
      EXPECT_EQ(r.verdict, Verdict::pass);
      EXPECT_TRUE(r.violations.empty());
      EXPECT_EQ(whole.verdict, Verdict::pass);
      EXPECT_GT(r.states, whole.states);
      EXPECT_GT(r.transitions, whole.transitions);
    }
}

// The instance with lock_subsets contains every run of the one without: on every reachable state
// of a paper instance (2 calls, 1 change, Delta = 2), every node move of the plain instance is
// offered with lock_subsets (its Lock as the request of every port 1..Delta), with the same
// successor and outcome, and no other move but the Lock calls of other subsets is added. So a
// pass with lock_subsets is a pass without it.
TEST(Checker, LockOverASubsetContainsEveryRunOfTheWholeNeighbourhood) {
  using lmx::check::detail::Global;
  using lmx::check::detail::Label;
  using lmx::check::detail::Model;
  using lmx::check::detail::Move;
  using lmx::check::detail::Outcome;
  Instance plain_instance = two_nodes(Variant::paper, 2, 1);
  plain_instance.delta = 2;
  Instance subset_instance = plain_instance;
  subset_instance.lock_subsets = true;
  const Model plain(plain_instance), subsets(subset_instance);
  const auto every_port = static_cast<std::uint8_t>(((1u << plain_instance.delta) - 1) << 1);  // ports 1..Delta
  auto same = [](const Global& a, const Global& b) {
    return a.changes_left == b.changes_left && std::memcmp(&a.n, &b.n, sizeof a.n) == 0;
  };
  std::vector<Global> frontier{plain.initial()};
  std::set<std::string> seen;
  std::size_t subset_calls = 0;
  for (std::size_t i = 0; i < frontier.size(); ++i) {
    const Global g = frontier[i];
    std::vector<std::pair<Label, Outcome>> offered;
    std::vector<Global> reached;
    subsets.successors(g, [&](const Label& l, const Global& next, const Outcome& o) {
      offered.emplace_back(l, o);
      reached.push_back(next);
    });
    std::size_t matched = 0;
    plain.successors(g, [&](const Label& l, const Global& next, const Outcome& o) {
      Label want = l;
      if (l.move == Move::lock) want.a = every_port;
      bool found = false;
      for (std::size_t j = 0; j < offered.size() && !found; ++j) {
        const auto& [ol, oo] = offered[j];
        found = ol.move == want.move && ol.node == want.node && ol.a == want.a && ol.b == want.b && ol.c == want.c &&
                ol.prio == want.prio && same(reached[j], next) && oo.completed_lock == o.completed_lock &&
                oo.completed_unlock == o.completed_unlock && oo.problem == o.problem;
      }
      ASSERT_TRUE(found) << "a move of the plain instance is not a move of the one with lock_subsets";
      ++matched;
      std::string bytes(plain.stride(), '\0');
      plain.pack(next, reinterpret_cast<std::uint8_t*>(bytes.data()));
      if (seen.insert(bytes).second) frontier.push_back(next);
    });
    std::size_t other_subsets = 0;  // the Lock calls the plain instance does not make
    for (const auto& lo : offered) other_subsets += lo.first.move == Move::lock && lo.first.a != every_port;
    EXPECT_EQ(offered.size(), matched + other_subsets);
    subset_calls += other_subsets;
  }
  EXPECT_GT(frontier.size(), 10000u);
  EXPECT_GT(subset_calls, 0u);
}

// A counterexample whose Lock asks for a subset replays: the call line names the ports requested,
// and replay locks exactly those. Node 0 asks for no neighbour although it has one, and completes
// with L = {0}: a replay that took the whole neighbourhood would find L = {0, 1} and fail.
TEST(Checker, ATraceWithALockOverASubsetReplays) {
  using lmx::check::detail::Global;
  using lmx::check::detail::Label;
  using lmx::check::detail::Model;
  using lmx::check::detail::Move;
  using lmx::check::detail::Outcome;
  Instance inst = two_nodes(Variant::repaired, 1, 0);
  inst.lock_subsets = true;
  const Model m(inst);
  Global g = m.initial();
  std::vector<Label> path;
  bool completed = false;
  // Node 0's first move that changes the state each time (its Lock over the empty subset first,
  // then its actions and deliveries, priority 0), until its Lock completes; node 1 never calls.
  for (unsigned step = 0; step < 40 && !completed; ++step) {
    bool moved = false;
    Global next_state;
    m.successors(g, [&](const Label& l, const Global& next, const Outcome& o) {
      if (moved || l.node != 0 || l.move == Move::cut || l.move == Move::connect) return;
      if (std::memcmp(&next.n, &g.n, sizeof g.n) == 0) return;  // a CleanUp that changes nothing
      ASSERT_EQ(o.problem, lmx::check::detail::Problem::none);
      moved = true, completed = o.completed_lock;
      path.push_back(l);
      next_state = next;
    });
    ASSERT_TRUE(moved);
    g = next_state;
  }
  ASSERT_TRUE(completed);
  ASSERT_EQ(path.front().move, Move::lock);
  EXPECT_EQ(path.front().a, 0u);  // the empty subset
  EXPECT_EQ(g.n[0].s.lock_set.bits(), 1u);
  const std::string trace = lmx::check::detail::write_trace(m, path, "P3", {0}, "a subset Lock");
  EXPECT_NE(trace.find("\"lock_subsets\":true"), std::string::npos);
  EXPECT_NE(trace.find("\"op\":\"lock\",\"status\":\"ok\",\"requested\":[]"), std::string::npos);
  EXPECT_NE(trace.find("\"ev\":\"done\""), std::string::npos);
  EXPECT_TRUE(replays(trace)) << trace;
  // The paper variant's counterexamples (E1, E2) with subset Locks replay too.
  Instance paper = two_nodes(Variant::paper, 1, 1);
  paper.delta = 2;
  paper.lock_subsets = true;
  const auto r = lmx::check::check(paper);
  ASSERT_FALSE(r.violations.empty());
  for (const auto& v : r.violations) {
    EXPECT_TRUE(replays(v.trace)) << v.kind << ": " << v.detail;
    EXPECT_NE(v.trace.find("\"requested\":"), std::string::npos);
  }
}

TEST(Checker, SafetyHoldsOnThePaperVariantWithSymmetryReduction) {
  Instance i = two_nodes(Variant::paper, 1, 1);
  lmx::check::Options opt;
  opt.liveness = false;
  const auto reduced = lmx::check::check(i, opt);
  opt.symmetry = false;
  const auto full = lmx::check::check(i, opt);
  EXPECT_EQ(reduced.verdict, Verdict::pass);
  EXPECT_EQ(full.verdict, Verdict::pass);
  EXPECT_LT(reduced.states, full.states);
}

TEST(Checker, ReplayRejectsATamperedTrace) {
  const auto r = lmx::check::check(two_nodes(Variant::paper, 1, 0));
  ASSERT_FALSE(r.violations.empty());
  std::string t = r.violations.front().trace;
  const auto at = t.find("\"state\":\"COMPETE\"");
  ASSERT_NE(at, std::string::npos);
  t.replace(at, 17, "\"state\":\"LOCKED\"");
  EXPECT_FALSE(replays(t));
  EXPECT_FALSE(replays("{\"type\":\"other\"}\n"));
}

// Reachable state counts that the independently written Promela model reaches too (plus its one
// set-up state; docs/checker.md, "Second opinion: SPIN"). They pin the packing and the state store:
// a packing that merged distinct states, or a store that lost or duplicated one, changes them.
TEST(Checker, StateCountsAgreeWithTheIndependentModel) {
  lmx::check::Options every;  // the Promela model has no symmetry reduction
  every.symmetry = false;
  EXPECT_EQ(lmx::check::check(two_nodes(Variant::repaired, 1, 0), every).states, 6625u);
  EXPECT_EQ(lmx::check::check(two_nodes(Variant::repaired, 1, 1), every).states, 20429u);
  Instance wide = two_nodes(Variant::repaired, 1, 2);
  wide.delta = 2;
  wide.k = 3;  // two priority planes
  lmx::check::Options safety;
  safety.liveness = false;
  safety.symmetry = false;
  EXPECT_EQ(lmx::check::check(wide, safety).states, 174614u);
  Instance three = two_nodes(Variant::repaired, 1, 0);
  three.nodes = 3;
  const auto full = lmx::check::check(three, every);
  EXPECT_EQ(full.states, 119250u);
  EXPECT_EQ(full.verdict, Verdict::pass);
  EXPECT_EQ(lmx::check::check(three, safety).states, full.states);  // liveness does not change the search
}

TEST(Checker, StateLimitGivesIncomplete) {
  lmx::check::Options opt;
  opt.max_states = 100;
  const auto r = lmx::check::check(two_nodes(Variant::repaired, 1, 0), opt);
  EXPECT_EQ(r.verdict, Verdict::incomplete);
  EXPECT_EQ(r.limit, Limit::states);
  lmx::check::Options quick;
  quick.max_seconds = 1e-9;  // already over when the search starts
  const auto t = lmx::check::check(two_nodes(Variant::repaired, 1, 0), quick);
  EXPECT_EQ(t.verdict, Verdict::incomplete);
  EXPECT_EQ(t.limit, Limit::seconds);
  EXPECT_EQ(lmx::check::check(two_nodes(Variant::repaired, 1, 0)).limit, Limit::none);
}

// The widest instance packs (symmetry reduction packs into a fixed buffer), and states rebuilt
// for the fairness decision count against --max-states: past it the verdict is incomplete.
TEST(Checker, WideInstancesAndTheRebuiltStatesRespectTheLimits) {
  Instance wide = two_nodes(Variant::repaired, 15, 15);
  wide.nodes = 4;
  wide.delta = 3;
  wide.k = 32;
  lmx::check::Options opt;
  opt.max_states = 2000;
  EXPECT_EQ(lmx::check::check(wide, opt).verdict, Verdict::incomplete);
  Instance three = two_nodes(Variant::repaired, 1, 0);
  three.nodes = 3;
  three.delta = 2;
  lmx::check::Options all;
  const auto full = lmx::check::check(three, all);
  ASSERT_EQ(full.verdict, Verdict::pass);
  ASSERT_GT(full.lifted_states, 0u);
  all.max_states = full.states + full.lifted_states / 2;  // room for the search, not the rebuild
  const auto capped = lmx::check::check(three, all);
  EXPECT_EQ(capped.states, full.states);
  EXPECT_EQ(capped.verdict, Verdict::incomplete);
}

// A long run tells where it is: phases in order, the analysis's part after part, states never
// decreasing, the final count equal to the result's.
TEST(Checker, ProgressReportsThePhasesInOrder) {
  Instance i = two_nodes(Variant::paper, 1, 1);
  i.nodes = 3;
  lmx::check::Options opt;
  std::vector<std::string> phases;  // with the part, from the first part on
  std::uint64_t last_states = 0, explored_calls = 0;
  unsigned last_part = 0;
  opt.progress = [&](const lmx::check::Progress& p) {
    EXPECT_GE(p.states, last_states);
    last_states = p.states;
    explored_calls += p.phase == Phase::exploring;
    if (p.phase != Phase::counterexamples) {
      EXPECT_GE(p.part, last_part);  // parts one after another
    }
    last_part = p.part;
    const std::string name(to_string(p.phase));
    const std::string phase = p.part > 0 ? name + " " + std::to_string(p.part) : name;
    if (phases.empty() || phases.back() != phase) phases.push_back(phase);
    if (p.part > 0) {
      EXPECT_EQ(p.parts, 2u);
    }
  };
  const auto r = lmx::check::check(i, opt);
  ASSERT_EQ(r.verdict, Verdict::fail);  // the paper's defects: counterexamples are rebuilt at the end
  ASSERT_GT(r.states, 2u * 65536u);
  EXPECT_GE(explored_calls, 2u);  // every 2^16 states while exploring
  EXPECT_EQ(last_states, r.states);
  // Two parts: the edge with its move left (with renamed end components, rebuilt), then no edge.
  EXPECT_EQ(phases, (std::vector<std::string>{"exploring", "deadlock", "splitting", "end components 1", "rebuilding 1",
                                              "deciding 1", "end components 2", "counterexamples"}));
  const std::vector<std::string> expected = {"exploring",  "deadlock", "splitting",      "end components",
                                             "rebuilding", "deciding", "counterexamples"};
  // The processor time of each phase, in the order first met, adding up to the run's.
  std::vector<std::string> timed;
  double total = 0;
  for (const auto& [phase, secs] : r.phase_cpu_seconds) {
    timed.push_back(std::string(to_string(phase)));
    EXPECT_GE(secs, 0.0);
    total += secs;
  }
  EXPECT_EQ(timed, expected);
  EXPECT_NEAR(total, r.cpu_seconds, 0.05);
}

}  // namespace
