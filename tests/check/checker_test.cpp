// The exhaustive checker: it finds the paper's defects by itself, passes the repaired variant, and
// writes counterexamples that replay on the real core.
#include "lmx/check/checker.hpp"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "../../src/check/model.hpp"
#include "instances.hpp"
#include "lmx/check/replay.hpp"

namespace {
using lmx::check::Instance;
using lmx::core::Variant;

using lmx::check::testing::path_of_three;
using lmx::check::testing::two_nodes;

std::set<std::string> details(const lmx::check::Result& r, const std::string& kind) {
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
  Instance i = two_nodes(Variant::paper, 1, 0);
  EXPECT_EQ(lmx::check::validate(i), "");
  i.edges = {{0, 0}};
  EXPECT_NE(lmx::check::validate(i), "");
  i.edges = {{0, 1}, {1, 0}};
  EXPECT_NE(lmx::check::validate(i), "");
  i = two_nodes(Variant::paper, 1, 0);
  i.nodes = 3;
  i.edges = {{0, 1}, {0, 2}};  // node 0 would need Delta = 2
  EXPECT_NE(lmx::check::validate(i), "");
}

// E2: on a single static edge the paper's algorithm can deadlock in COMPETE.
TEST(Checker, PaperDeadlocksOnAStaticEdge) {
  const auto r = lmx::check::check(two_nodes(Variant::paper, 1, 0));
  EXPECT_EQ(r.verdict, "fail");
  const auto d = details(r, "deadlock");
  ASSERT_FALSE(d.empty());
  EXPECT_NE(d.begin()->find("COMPETE"), std::string::npos);
  EXPECT_FALSE(details(r, "P7").empty());
  for (const auto& v : r.violations) EXPECT_TRUE(replays(v.trace)) << v.kind;
}

// E1 and E2 with 2 nodes and at most 2 topology changes; nothing on the repaired variant.
TEST(Checker, FindsBothDefectsOfThePaperAndNoneWhenRepaired) {
  const auto paper = lmx::check::check(two_nodes(Variant::paper, 1, 1));
  bool win = false, compete = false;
  for (const auto& d : details(paper, "deadlock")) {
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
  EXPECT_EQ(repaired.verdict, "pass");
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
    if (v.kind != "P7" && v.kind != "deadlock") continue;
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
    if (v.kind != "P7" || v.detail.find("WIN") == std::string::npos) continue;
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

TEST(Checker, SafetyHoldsOnThePaperVariantWithSymmetryReduction) {
  Instance i = two_nodes(Variant::paper, 1, 1);
  lmx::check::Options opt;
  opt.liveness = false;
  const auto reduced = lmx::check::check(i, opt);
  opt.symmetry = false;
  const auto full = lmx::check::check(i, opt);
  EXPECT_EQ(reduced.verdict, "pass");
  EXPECT_EQ(full.verdict, "pass");
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
  EXPECT_EQ(full.verdict, "pass");
  EXPECT_EQ(lmx::check::check(three, safety).states, full.states);  // liveness does not change the search
}

// The bit packing is injective: every bag of at most four messages (any kinds and values) packs to
// its own bits and unpacks to itself, and so do the other fields at their extreme values.
TEST(Checker, BitPackingIsInjective) {
  Instance i = two_nodes(Variant::repaired, 2, 3);
  i.nodes = 3;
  i.delta = 2;
  i.k = 3;
  const lmx::check::detail::Model m(i);
  std::vector<std::uint8_t> codes;  // encoded byte + 1, as the bags hold them
  for (unsigned b = 0; b < 255; ++b)
    if (lmx::core::decode(static_cast<std::uint8_t>(b), i.k).ok()) codes.push_back(static_cast<std::uint8_t>(b + 1));
  ASSERT_EQ(codes.size(), i.k + 8);
  std::set<std::vector<std::uint8_t>> seen;
  std::vector<std::uint8_t> buf(m.stride()), again(m.stride());
  unsigned bags = 0;
  const auto n = static_cast<unsigned>(codes.size());
  for (unsigned a = 0; a <= n; ++a)
    for (unsigned b = a; b <= n; ++b)
      for (unsigned c = b; c <= n; ++c)
        for (unsigned d = c; d <= n; ++d) {
          auto g = m.initial();
          std::array<std::uint8_t, lmx::check::channel_capacity> bag{};
          unsigned j = 0;
          for (unsigned x : {a, b, c, d})  // x = n: no message in this slot
            if (x < n) bag[j++] = codes[x];
          g.n[2].chan[1] = bag;
          g.n[1].s.lock_port = 2;
          g.n[0].s.state = lmx::core::InitiatorState::unlock;
          g.n[0].locks_left = 2;
          g.n[1].d = 7;
          m.pack(g, buf.data());
          lmx::check::detail::Global back;
          m.unpack(buf.data(), back);
          EXPECT_EQ(back.n[2].chan[1], bag);
          EXPECT_EQ(back.n[1].s, g.n[1].s);
          EXPECT_EQ(back.n[0].s.state, g.n[0].s.state);
          EXPECT_EQ(back.n[0].link, g.n[0].link);
          EXPECT_EQ(m.packed_state(buf.data(), 0), lmx::core::InitiatorState::unlock);
          m.pack(back, again.data());
          EXPECT_EQ(buf, again);
          seen.insert(buf);
          ++bags;
        }
  EXPECT_EQ(seen.size(), bags);  // C(K + 12, 4) distinct bags, distinct packings
  EXPECT_EQ(bags, 1365u);        // C(15, 4)
}

TEST(Checker, StateLimitGivesIncomplete) {
  lmx::check::Options opt;
  opt.max_states = 100;
  const auto r = lmx::check::check(two_nodes(Variant::repaired, 1, 0), opt);
  EXPECT_EQ(r.verdict, "incomplete");
  EXPECT_EQ(r.limit, "states");
  lmx::check::Options quick;
  quick.max_seconds = 1e-9;  // already over when the search starts
  const auto t = lmx::check::check(two_nodes(Variant::repaired, 1, 0), quick);
  EXPECT_EQ(t.verdict, "incomplete");
  EXPECT_EQ(t.limit, "seconds");
  EXPECT_EQ(lmx::check::check(two_nodes(Variant::repaired, 1, 0)).limit, "");
}

// Renaming nodes and ports is a symmetry of the model, which the reduction relies on: on every
// state of a prefix of an instance whose topology changes (so ports are re-used in every order),
// the canonical form is the same for renamed copies, and the real core's transitions commute with
// renaming (the same successors, renamed, with the same completions and problems). A core that
// treated some port specially (a lowest-port tie-break, say) fails this.
void expect_renaming_commutes(const Instance& i, std::size_t group_size, std::size_t prefix, std::size_t step) {
  const lmx::check::detail::Model m(i);
  const auto group = m.group();
  ASSERT_EQ(group.size(), group_size);
  using lmx::check::detail::Global;
  using lmx::check::detail::Label;
  using lmx::check::detail::Outcome;
  const std::size_t w = m.stride();
  auto successors = [&](const Global& g) {
    std::multiset<std::string> out;
    m.successors(g, [&](const Label&, const Global& next, const Outcome& o) {
      std::string key(w, '\0');
      m.pack(next, reinterpret_cast<std::uint8_t*>(key.data()));
      key += static_cast<char>(o.completed_lock) + static_cast<char>(2 * o.completed_unlock) +
             static_cast<char>(4 * static_cast<int>(o.problem));
      out.insert(key);
    });
    return out;
  };
  std::vector<Global> frontier{m.initial()};
  std::set<std::string> seen;
  std::string canon(w, '\0'), other(w, '\0');
  std::size_t checked = 0, renamed_apart = 0, moved_seen = 0, unmoved_seen = 0;
  while (!frontier.empty() && checked < prefix) {
    const Global g = frontier.front();
    frontier.erase(frontier.begin());
    // `moved` says whether the canonical member differs from the state itself (decided from the
    // renaming chosen, without packing the state a second time).
    auto expect_moved_is_exact = [&](const Global& x) {
      std::string plain(w, '\0'), canonical(w, '\0');
      bool moved = false;
      m.canonical(x, reinterpret_cast<std::uint8_t*>(canonical.data()), &moved);
      m.pack(x, reinterpret_cast<std::uint8_t*>(plain.data()));
      EXPECT_EQ(moved, plain != canonical);
      moved_seen += moved;
      unmoved_seen += !moved;
    };
    m.canonical(g, reinterpret_cast<std::uint8_t*>(canon.data()));
    expect_moved_is_exact(g);
    const auto mine = successors(g);
    for (std::size_t k = 1 + checked % step; k < group.size(); k += step) {  // a spread of renamings
      Global r;
      m.rename(g, group[k], r);
      m.canonical(r, reinterpret_cast<std::uint8_t*>(other.data()));
      ASSERT_EQ(canon, other) << "canonical form differs on a renamed copy";
      expect_moved_is_exact(r);
      std::multiset<std::string> expected;
      for (const auto& key : mine) {
        Global next;
        m.unpack(reinterpret_cast<const std::uint8_t*>(key.data()), next);
        Global renamed;
        m.rename(next, group[k], renamed);
        std::string packed(w, '\0');
        m.pack(renamed, reinterpret_cast<std::uint8_t*>(packed.data()));
        expected.insert(packed + key.substr(w));
      }
      const auto theirs = successors(r);
      ASSERT_EQ(theirs, expected) << "the core's transitions do not commute with a renaming";
      std::string plain(w, '\0'), renamed(w, '\0');
      m.pack(g, reinterpret_cast<std::uint8_t*>(plain.data()));
      m.pack(r, reinterpret_cast<std::uint8_t*>(renamed.data()));
      renamed_apart += plain != renamed;
    }
    ++checked;
    m.successors(g, [&](const Label&, const Global& next, const Outcome&) {
      std::string key(w, '\0');
      m.pack(next, reinterpret_cast<std::uint8_t*>(key.data()));
      if (seen.insert(key).second) frontier.push_back(next);
    });
  }
  EXPECT_EQ(checked, prefix);
  EXPECT_GT(renamed_apart, 0u);  // the renamings did move states
  EXPECT_GT(moved_seen, 0u);
  EXPECT_GT(unmoved_seen, 0u);
}

TEST(Checker, RenamingNodesAndPortsCommutesWithTheCore) {
  expect_renaming_commutes(path_of_three(Variant::repaired, 1, 2), 6u * 8u, 400,
                           5);  // 3! node orders, 2! port orders at each node
  Instance four = two_nodes(Variant::paper, 2, 3);
  four.nodes = 4;
  four.delta = 3;
  four.k = 3;
  four.edges = {{0, 1}, {1, 2}, {1, 3}};
  expect_renaming_commutes(four, 24u * 6u * 6u * 6u * 6u, 60, 997);
}

// Packing and canonical forms read a memo of node records. With a single entry, every record
// but the last looked up is evicted (canonical forms then work on copies) and refilled. On a
// prefix of two instances where ports are re-used (one whose bags are packed in one word, one with
// Delta = 3 and K = 32, whose bags are not), the packed bytes, the canonical forms, the renamings
// and whether the state moved must be those of the default memo, and unpacking must give the
// state back.
void expect_memo_is_transparent(const Instance& i, std::size_t prefix) {
  using lmx::check::detail::Global;
  using lmx::check::detail::Label;
  using lmx::check::detail::Model;
  using lmx::check::detail::Outcome;
  const Model cached(i), evicting(i, 1);
  const std::size_t w = cached.stride();
  std::vector<Global> frontier{cached.initial()};
  std::set<std::string> seen;
  std::size_t checked = 0, moved_seen = 0;
  while (checked < frontier.size() && checked < prefix) {
    const Global g = frontier[checked++];
    std::string a(w, '\0'), b(w, '\0');
    // The models number node records in the order they first pack them, which differs (only the
    // cached one packs the successors): the packed states are compared unpacked.
    auto same = [&](const std::string& x, const std::string& y) {
      Global gx, gy;
      cached.unpack(reinterpret_cast<const std::uint8_t*>(x.data()), gx);
      evicting.unpack(reinterpret_cast<const std::uint8_t*>(y.data()), gy);
      return gx.changes_left == gy.changes_left && std::memcmp(&gx.n, &gy.n, sizeof gx.n) == 0;
    };
    cached.pack(g, reinterpret_cast<std::uint8_t*>(a.data()));
    evicting.pack(g, reinterpret_cast<std::uint8_t*>(b.data()));
    ASSERT_TRUE(same(a, b));
    Global back;
    evicting.unpack(reinterpret_cast<const std::uint8_t*>(b.data()), back);
    ASSERT_EQ(back.changes_left, g.changes_left);
    for (unsigned u = 0; u < i.nodes; ++u)
      ASSERT_EQ(std::memcmp(&back.n[u], &g.n[u], sizeof g.n[u]), 0) << "unpacking does not give node " << u << " back";
    bool moved_a = false, moved_b = false;
    const auto ra = cached.canonical(g, reinterpret_cast<std::uint8_t*>(a.data()), &moved_a);
    const auto rb = evicting.canonical(g, reinterpret_cast<std::uint8_t*>(b.data()), &moved_b);
    ASSERT_TRUE(same(a, b)) << "canonical forms differ";
    ASSERT_EQ(moved_a, moved_b);
    ASSERT_EQ(ra.node, rb.node);
    ASSERT_EQ(ra.port_order, rb.port_order);
    ASSERT_EQ(ra.port, rb.port);
    moved_seen += moved_a;
    cached.successors(g, [&](const Label&, const Global& next, const Outcome&) {
      std::string key(w, '\0');
      cached.canonical(next, reinterpret_cast<std::uint8_t*>(key.data()));
      if (seen.insert(key).second) frontier.push_back(next);
    });
  }
  EXPECT_EQ(checked, prefix);
  EXPECT_GT(moved_seen, 0u);
}

TEST(Checker, TheMemoOfNodeRecordsChangesNoPackedState) {
  const Instance path = path_of_three(Variant::repaired, 1, 2);
  expect_memo_is_transparent(path, 3000);
  Instance wide = two_nodes(Variant::paper, 2, 2);
  wide.nodes = 4;
  wide.delta = 3;
  wide.k = 32;  // a bag takes 18 bits: four do not fit one word
  wide.edges = {{0, 1}, {1, 2}};
  expect_memo_is_transparent(wide, 1500);
  EXPECT_THROW(lmx::check::detail::Model(path, 3), std::invalid_argument);
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
  EXPECT_EQ(lmx::check::check(wide, opt).verdict, "incomplete");
  Instance three = two_nodes(Variant::repaired, 1, 0);
  three.nodes = 3;
  three.delta = 2;
  lmx::check::Options all;
  const auto full = lmx::check::check(three, all);
  ASSERT_EQ(full.verdict, "pass");
  ASSERT_GT(full.lifted_states, 0u);
  all.max_states = full.states + full.lifted_states / 2;  // room for the search, not the rebuild
  const auto capped = lmx::check::check(three, all);
  EXPECT_EQ(capped.states, full.states);
  EXPECT_EQ(capped.verdict, "incomplete");
}

}  // namespace

namespace {
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
    explored_calls += std::string(p.phase) == "exploring";
    if (std::string(p.phase) != "counterexamples") {
      EXPECT_GE(p.part, last_part);  // parts one after another
    }
    last_part = p.part;
    const std::string phase = p.part > 0 ? std::string(p.phase) + " " + std::to_string(p.part) : p.phase;
    if (phases.empty() || phases.back() != phase) phases.push_back(phase);
    if (p.part > 0) {
      EXPECT_EQ(p.parts, 2u);
    }
  };
  const auto r = lmx::check::check(i, opt);
  ASSERT_EQ(r.verdict, "fail");  // the paper's defects: counterexamples are rebuilt at the end
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
    timed.push_back(phase);
    EXPECT_GE(secs, 0.0);
    total += secs;
  }
  EXPECT_EQ(timed, expected);
  EXPECT_NEAR(total, r.cpu_seconds, 0.05);
}
}  // namespace

namespace {

// Two runs of one instance in ways that must not change what is found: the same verdict, states,
// transitions, depth, rebuilt states, sweeps, and counterexamples with their traces.
void expect_same_results(const lmx::check::Result& a, const lmx::check::Result& b) {
  EXPECT_EQ(a.verdict, b.verdict);
  EXPECT_EQ(a.states, b.states);
  EXPECT_EQ(a.transitions, b.transitions);
  EXPECT_EQ(a.max_depth, b.max_depth);
  EXPECT_EQ(a.lifted_states, b.lifted_states);
  EXPECT_EQ(a.deadlock_sweeps, b.deadlock_sweeps);
  ASSERT_EQ(a.violations.size(), b.violations.size());
  for (std::size_t i = 0; i < a.violations.size(); ++i) {
    EXPECT_EQ(a.violations[i].kind, b.violations[i].kind);
    EXPECT_EQ(a.violations[i].detail, b.violations[i].detail);
    EXPECT_EQ(a.violations[i].trace, b.violations[i].trace);
  }
}

// The graph kept in temporary files (--graph-on-disk) is read back as it was written: the same
// verdict, states, transitions, rebuilt states and counterexamples, on a failing instance of the
// paper variant (every kind of liveness violation) and a passing one with renamed end components.
TEST(Checker, TheGraphOnDiskGivesTheSameResults) {
  for (const Instance& inst : {two_nodes(Variant::paper, 2, 2), two_nodes(Variant::repaired, 2, 2)}) {
    lmx::check::Options in_memory, on_disk;
    on_disk.graph_on_disk = true;
    const auto a = lmx::check::check(inst, in_memory);
    const auto b = lmx::check::check(inst, on_disk);
    expect_same_results(a, b);
    EXPECT_GT(a.lifted_states, 0u);  // renamed end components were rebuilt and decided
  }
}

}  // namespace

namespace {

// Storing states as the numbers of their node records changes no result: the same verdict,
// states, transitions, rebuilt states and counterexamples as storing the records, on a failing
// instance of the paper variant, a passing one with renamed end components, and three nodes with
// topology changes. It stores fewer bytes per state, and numbers the records only where it is on.
TEST(Checker, NodeRecordsByNumberGiveTheSameResults) {
  Instance three = two_nodes(Variant::repaired, 1, 1);
  three.nodes = 3;
  for (const Instance& inst : {two_nodes(Variant::paper, 2, 2), two_nodes(Variant::repaired, 2, 2), three}) {
    lmx::check::Options numbered, plain;
    plain.collapse = false;
    const auto a = lmx::check::check(inst, numbered);
    const auto b = lmx::check::check(inst, plain);
    expect_same_results(a, b);
    EXPECT_GT(a.node_records, 0u);
    EXPECT_LT(a.node_records, a.states);
    EXPECT_EQ(b.node_records, 0u);
    EXPECT_LT(a.bytes_per_state, b.bytes_per_state);
  }
}

/// A fresh, empty directory for one test's files, removed with it.
struct ScratchDir {
  std::filesystem::path path;
  explicit ScratchDir(const std::string& name)
      : path(std::filesystem::temp_directory_path() / ("lmx-" + name + "-" + std::to_string(::getpid()))) {
    std::filesystem::remove_all(path);
  }
  ~ScratchDir() { std::filesystem::remove_all(path); }
};

// A run in two (an exploration saved, then resumed in another call) finds what one run finds:
// the same verdict, counts and counterexamples, on a failing paper instance, a passing one with
// renamed end components (rebuilt states), three nodes with a change, and without the reduction,
// numbered records, or memory graph. The saving run stops after the exploration, undecided.
TEST(Checker, AResumedRunFindsWhatOneRunFinds) {
  Instance three = two_nodes(Variant::repaired, 1, 1);
  three.nodes = 3;
  struct Case {
    Instance inst;
    bool symmetry, collapse, graph_on_disk;
  };
  for (const Case& c : {Case{two_nodes(Variant::paper, 2, 2), true, true, false},
                        Case{two_nodes(Variant::repaired, 2, 2), true, true, true}, Case{three, true, true, false},
                        Case{two_nodes(Variant::paper, 1, 1), false, false, false}}) {
    SCOPED_TRACE(lmx::check::describe(c.inst));
    const ScratchDir dir("resume");
    lmx::check::Options whole;
    whole.symmetry = c.symmetry, whole.collapse = c.collapse, whole.graph_on_disk = c.graph_on_disk;
    lmx::check::Options first = whole, second = whole;
    first.save_dir = dir.path.string();
    second.resume_dir = dir.path.string();
    const auto one = lmx::check::check(c.inst, whole);
    const auto saved = lmx::check::check(c.inst, first);
    EXPECT_EQ(saved.verdict, "incomplete");
    EXPECT_EQ(saved.limit, "saved");
    EXPECT_EQ(saved.states, one.states);
    EXPECT_TRUE(saved.violations.empty());
    EXPECT_TRUE(std::filesystem::exists(dir.path / "checkpoint"));
    const auto resumed = lmx::check::check(c.inst, second);
    expect_same_results(one, resumed);
    EXPECT_EQ(resumed.node_records, one.node_records);
    EXPECT_TRUE(resumed.limit.empty());
    EXPECT_GE(resumed.explore_cpu_seconds, saved.explore_cpu_seconds);  // the saved exploration's time counts
  }
}

// Deciding the end components part by part (Options::split_parts: the states no node move
// connects, decided apart) changes no result: the same verdict, states, rebuilt states and
// counterexamples, in the same order, as deciding the whole graph at once. The instances report
// up to 20 violations per kind, found in several parts, so that their order is compared too. One
// edge with Delta = 1 and two topology moves has three parts: the edge with two moves left, no
// edge with one, the edge again with none.
TEST(Checker, DecidingPartByPartFindsWhatTheWholeGraphFinds) {
  Instance three = two_nodes(Variant::paper, 1, 1);
  three.nodes = 3;
  for (const Instance& inst : {two_nodes(Variant::paper, 2, 2), two_nodes(Variant::repaired, 2, 2), three}) {
    SCOPED_TRACE(lmx::check::describe(inst));
    lmx::check::Options parts, whole;
    whole.split_parts = false;
    parts.per_kind = whole.per_kind = 20;
    const auto a = lmx::check::check(inst, whole);
    const auto b = lmx::check::check(inst, parts);
    expect_same_results(a, b);
    EXPECT_EQ(a.analysis_parts, 1u);
    EXPECT_EQ(b.analysis_parts, inst.max_changes == 2 ? 3u : 2u);
  }
  // Without topology moves the graph is one part.
  EXPECT_EQ(lmx::check::check(two_nodes(Variant::repaired, 1, 0)).analysis_parts, 1u);
}

std::string read_text(const std::filesystem::path& path) {
  std::ifstream in(path);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_text(const std::filesystem::path& path, const std::string& text) {
  std::ofstream out(path);
  out << text;
}

// A resumed run records its analysis beside the checkpoint (the deadlock check, then each part
// decided), and a run resumed again goes on from the record: it decides only the parts the record
// lacks, and finds what one run finds (the paper's failing instance, three parts, up to 20
// violations per kind). A record of other options is not used; a malformed one is an error.
TEST(Checker, AResumedAnalysisGoesOnFromItsRecord) {
  const Instance inst = two_nodes(Variant::paper, 2, 2);
  const ScratchDir dir("record");
  lmx::check::Options whole, save, resume;
  whole.per_kind = save.per_kind = resume.per_kind = 20;
  save.save_dir = dir.path.string();
  resume.resume_dir = dir.path.string();
  std::set<unsigned> decided;  // the parts whose end components were decomposed
  resume.progress = [&](const lmx::check::Progress& p) {
    if (std::string(p.phase) == "end components") decided.insert(p.part);
  };
  const auto one = lmx::check::check(inst, whole);
  ASSERT_EQ(one.verdict, "fail");
  ASSERT_EQ(lmx::check::check(inst, save).limit, "saved");
  const auto first = lmx::check::check(inst, resume);
  expect_same_results(one, first);
  EXPECT_EQ(decided, (std::set<unsigned>{1, 2, 3}));
  const std::filesystem::path record = dir.path / "analysis";
  const std::string text = read_text(record);
  ASSERT_NE(text.find("\npart 2 lifted "), std::string::npos) << text;
  EXPECT_NE(text.find("\nfound "), std::string::npos) << text;  // the paper's P7 violations

  decided.clear();
  const auto again = lmx::check::check(inst, resume);
  expect_same_results(one, again);
  EXPECT_TRUE(decided.empty());
  EXPECT_GE(again.cpu_seconds, first.cpu_seconds);  // the earlier sittings' time counts

  // The record cut after its second part: the third is decided again.
  write_text(record, text.substr(0, text.find("\npart 2 lifted ") + 1));
  decided.clear();
  expect_same_results(one, lmx::check::check(inst, resume));
  EXPECT_EQ(decided, (std::set<unsigned>{3}));

  // The deadlock sweeps are taken from the record, not done again.
  const auto sweeps = text.find("deadlock_sweeps ");
  write_text(record, text.substr(0, sweeps) + "deadlock_sweeps 99" + text.substr(text.find('\n', sweeps)));
  EXPECT_EQ(lmx::check::check(inst, resume).deadlock_sweeps, 99u);

  // A record of other options (fewer reports per kind) is decided again, and replaced.
  lmx::check::Options fewer = resume;
  fewer.per_kind = 1;
  decided.clear();
  EXPECT_EQ(lmx::check::check(inst, fewer).verdict, "fail");
  EXPECT_EQ(decided, (std::set<unsigned>{1, 2, 3}));
  EXPECT_NE(read_text(record).find(" per_kind=1 "), std::string::npos);

  write_text(record, read_text(record) + "nonsense 1\n");
  try {
    (void)lmx::check::check(inst, fewer);
    ADD_FAILURE() << "a malformed record was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("a malformed line in"), std::string::npos) << e.what();
  }
}

// A checkpoint is resumed only by the run that saved it, whole: another instance or other options,
// a missing or cut file, no checkpoint at all, or a safety-only run are refused with an error that
// says so, before any analysis.
TEST(Checker, ResumingRefusesAnotherRunsOrABrokenCheckpoint) {
  const Instance inst = two_nodes(Variant::paper, 1, 1);
  const ScratchDir dir("refuse");
  lmx::check::Options save;
  save.save_dir = dir.path.string();
  ASSERT_EQ(lmx::check::check(inst, save).limit, "saved");
  auto refusal = [&](const Instance& i, lmx::check::Options opt) {
    opt.resume_dir = dir.path.string();
    try {
      (void)lmx::check::check(i, opt);
    } catch (const std::exception& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal(two_nodes(Variant::repaired, 1, 1), {}).find("of another run"), std::string::npos);
  lmx::check::Options plain;
  plain.collapse = false;
  EXPECT_NE(refusal(inst, plain).find("of another run"), std::string::npos);
  lmx::check::Options safety;
  safety.liveness = false;
  EXPECT_NE(refusal(inst, safety).find("not safety only"), std::string::npos);
  EXPECT_EQ(refusal(inst, {}), "accepted");  // the checkpoint itself is whole
  std::filesystem::resize_file(dir.path / "graph.flags.bin", 3);
  EXPECT_NE(refusal(inst, {}).find("does not match"), std::string::npos);
  std::filesystem::remove(dir.path / "parents.bin");
  EXPECT_NE(refusal(inst, {}).find("cannot read"), std::string::npos);
  std::filesystem::resize_file(dir.path / "states.bin", 5);  // read before the parent links
  EXPECT_NE(refusal(inst, {}).find("wrong size"), std::string::npos);
  std::filesystem::remove(dir.path / "checkpoint");
  EXPECT_NE(refusal(inst, {}).find("no checkpoint"), std::string::npos);
}

// The table of node records numbers records in order of first sight, gives a known record its
// number again (across its index's growth), reads records back by number, and refuses a record
// past its capacity with an error that names the way out.
TEST(RecordTable, NumbersRecordsInOrderAndReadsThemBack) {
  lmx::check::detail::RecordTable t;
  t.reset(11, 20000);
  auto record = [](std::uint32_t i) {
    std::array<std::uint8_t, 11> r{};
    for (unsigned b = 0; b < r.size(); ++b) r[b] = static_cast<std::uint8_t>((i * 2654435761u) >> (b % 4 * 8));
    r[10] = static_cast<std::uint8_t>(i >> 8);
    return r;
  };
  for (std::uint32_t i = 0; i < 20000; ++i) ASSERT_EQ(t.intern(record(i).data()), i);
  EXPECT_EQ(t.size(), 20000u);
  for (std::uint32_t i = 0; i < 20000; i += 7) {
    ASSERT_EQ(t.intern(record(i).data()), i);
    ASSERT_EQ(std::memcmp(t.at(i), record(i).data(), 11), 0);
  }
  EXPECT_EQ(t.size(), 20000u);
  try {
    (void)t.intern(record(20000).data());
    FAIL() << "a record past the capacity was numbered";
  } catch (const std::length_error& e) {
    EXPECT_NE(std::string(e.what()).find("--no-collapse"), std::string::npos);
  }
  EXPECT_EQ(t.intern(record(5).data()), 5u);  // known records still have their numbers
}

// A state packed with numbered records unpacks to itself, its state registers read the same, and
// two states get the same numbers exactly when they get the same plain packing (and the same
// canonical forms likewise), on every state of a prefix of three nodes with topology changes.
TEST(Checker, NumberedPackingIsInjectiveLikeThePlainOne) {
  using namespace lmx::check::detail;
  const Instance i = path_of_three(Variant::repaired, 1, 2);
  const Model numbered(i), plain(i, Model::default_memo_slots, false);
  ASSERT_TRUE(numbered.collapsed());
  ASSERT_FALSE(plain.collapsed());
  ASSERT_LT(numbered.stride(), plain.stride());
  std::map<std::string, std::string> to_plain, to_numbered, canon_to_plain, canon_to_numbered;
  std::vector<Global> frontier{numbered.initial()};
  std::set<std::string> seen;
  for (std::size_t k = 0; k < frontier.size() && k < 4000; ++k) {
    const Global g = frontier[k];
    std::string a(numbered.stride(), '\0'), b(plain.stride(), '\0');
    numbered.pack(g, reinterpret_cast<std::uint8_t*>(a.data()));
    plain.pack(g, reinterpret_cast<std::uint8_t*>(b.data()));
    ASSERT_EQ(to_plain.emplace(a, b).first->second, b) << "two states share their numbers";
    ASSERT_EQ(to_numbered.emplace(b, a).first->second, a) << "one state got two packings";
    Global back;
    numbered.unpack(reinterpret_cast<const std::uint8_t*>(a.data()), back);
    ASSERT_EQ(back.changes_left, g.changes_left);
    for (unsigned u = 0; u < i.nodes; ++u) {
      ASSERT_EQ(std::memcmp(&back.n[u], &g.n[u], sizeof g.n[u]), 0) << "node " << u << " not unpacked";
      ASSERT_EQ(numbered.packed_state(reinterpret_cast<const std::uint8_t*>(a.data()), u), g.n[u].s.state);
    }
    numbered.canonical(g, reinterpret_cast<std::uint8_t*>(a.data()));
    plain.canonical(g, reinterpret_cast<std::uint8_t*>(b.data()));
    ASSERT_EQ(canon_to_plain.emplace(a, b).first->second, b);
    ASSERT_EQ(canon_to_numbered.emplace(b, a).first->second, a);
    if (!seen.insert(a).second) continue;
    numbered.successors(g, [&](const Label&, const Global& next, const Outcome&) { frontier.push_back(next); });
  }
  EXPECT_GT(numbered.node_records(), 100u);
  EXPECT_GT(canon_to_plain.size(), 1000u);
}

}  // namespace
