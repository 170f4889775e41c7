// The canonical amoebot model (docs/amoebot.md): port labels under every compass, each operation's
// preconditions, the View's scope, random configurations, hexagon formation for several n and hole
// probabilities, each check made to fire, determinism, and `lmx amoebot` end to end.
#include "lmx/apps/amoebot.hpp"

#include <gtest/gtest.h>

#include <set>

#include "amoebot_test_support.hpp"
#include "lmx_test_support.hpp"

namespace {

namespace am = lmx::apps::amoebot;
using am::Amoebot;
using am::Configuration;
using am::Node;
using am::System;
using am::View;

using amoebot_test_support::contracted_at;
using amoebot_test_support::expanded_at;

TEST(AmoebotLattice, DistanceAndDirections) {
  EXPECT_EQ(am::distance({0, 0}, {0, 0}), 0);
  EXPECT_EQ(am::distance({0, 0}, {2, -1}), 2);
  EXPECT_EQ(am::distance({0, 0}, {-3, 3}), 3);
  EXPECT_EQ(am::distance({1, 1}, {-1, -1}), 4);
  for (int d = 0; d < 6; ++d) {
    EXPECT_EQ(am::distance({0, 0}, am::directions[d]), 1);
    EXPECT_EQ(am::direction_between({5, 7}, am::step({5, 7}, d)), d);
    // Directions run counterclockwise: each is the previous one turned by 60 degrees.
    const Node a = am::directions[d], b = am::directions[(d + 1) % 6];
    EXPECT_EQ(b.x, -a.y) << d;
    EXPECT_EQ(b.y, a.x + a.y) << d;
  }
  EXPECT_EQ(am::direction_between({0, 0}, {2, 0}), -1);
}

TEST(AmoebotPorts, ExpandedLabellingFollowsTheOutline) {
  for (int t = 0; t < 6; ++t) {
    std::set<std::pair<bool, int>> places;
    for (am::Port l = 0; l < 10; ++l) {
      const am::PortPlace p = am::expanded_port(t, l);
      EXPECT_FALSE(!p.at_tail && p.dir == t) << "the internal edge is no port";
      EXPECT_FALSE(p.at_tail && p.dir == (t + 3) % 6) << "the internal edge is no port";
      EXPECT_EQ(am::expanded_label(t, p.at_tail, p.dir), l);
      places.insert({p.at_tail, p.dir});
    }
    EXPECT_EQ(places.size(), 10u);
    // Label 0: direction 0 of the node further in direction 0.
    EXPECT_EQ(am::expanded_port(t, 0).dir, 0);
    EXPECT_EQ(am::expanded_port(t, 0).at_tail, t == 0 || t == 1 || t == 5) << t;
    // Five consecutive labels on each node, each turning counterclockwise by one direction.
    for (am::Port l = 0; l < 10; ++l) {
      const am::PortPlace p = am::expanded_port(t, l), q = am::expanded_port(t, (l + 1) % 10);
      if (p.at_tail == q.at_tail) {
        EXPECT_EQ(q.dir, (p.dir + 1) % 6) << t << " " << l;
      }
    }
    EXPECT_EQ(am::expanded_label(t, false, t), am::no_port);
  }
  // Spot checks of AmoebotSim's published numbering: tail in direction 0: labels 3..7 on the head
  // (directions 1..5), 8, 9, 0, 1, 2 on the tail (directions 4, 5, 0, 1, 2).
  EXPECT_FALSE(am::expanded_port(0, 3).at_tail);
  EXPECT_EQ(am::expanded_port(0, 3).dir, 1);
  EXPECT_TRUE(am::expanded_port(0, 8).at_tail);
  EXPECT_EQ(am::expanded_port(0, 8).dir, 4);
  // Tail in direction 2: head labels 7, 8, 9, 0, 1.
  EXPECT_FALSE(am::expanded_port(2, 7).at_tail);
  EXPECT_EQ(am::expanded_port(2, 7).dir, 3);
  EXPECT_EQ(am::expanded_port(2, 2).dir, 0);
  EXPECT_TRUE(am::expanded_port(2, 2).at_tail);
}

TEST(AmoebotPorts, ContractedAndExpandedUnderEveryCompass) {
  // An amoebot surrounded by a full ring of neighbours: contracted its 6 labels reach the 6
  // distinct nodes in local direction order; expanded its 10 labels reach 8 distinct neighbours.
  for (int compass = 0; compass < 6; ++compass) {
    Configuration c;
    c.amoebots.push_back(contracted_at({0, 0}, compass));
    for (int d = 0; d < 6; ++d) c.amoebots.push_back(contracted_at(am::step({0, 0}, d), (compass + d) % 6));
    System s(c);
    for (am::Port p = 0; p < 6; ++p) {
      const am::AmoebotId b = s.neighbour(0, p);
      ASSERT_NE(b, am::no_amoebot);
      EXPECT_EQ(s.amoebot(b).head, am::step({0, 0}, (compass + p) % 6)) << compass << " " << p;
      // The far end: b's label of the shared edge leads back.
      const am::Port q = s.far_port(0, p);
      EXPECT_EQ(s.neighbour(b, q), 0u);
      EXPECT_EQ(s.far_port(b, q), p);
    }
    EXPECT_EQ(s.neighbour(0, 6), am::no_amoebot);
    for (int tail = 0; tail < 6; ++tail) {
      Configuration e;
      e.amoebots.push_back(expanded_at({0, 0}, tail, compass));
      const Node tail_node = am::step({0, 0}, tail);
      std::set<std::pair<int, int>> around;
      for (const Node base : {Node{0, 0}, tail_node})
        for (int d = 0; d < 6; ++d) {
          const Node m = am::step(base, d);
          if (m == Node{0, 0} || m == tail_node || around.count({m.x, m.y})) continue;
          around.insert({m.x, m.y});
          e.amoebots.push_back(contracted_at(m, (d + tail) % 6));
        }
      ASSERT_EQ(around.size(), 8u);
      System se(e);
      EXPECT_EQ(se.ports(0), 10);
      std::set<am::AmoebotId> distinct;
      for (am::Port p = 0; p < 10; ++p) {
        const am::AmoebotId b = se.neighbour(0, p);
        ASSERT_NE(b, am::no_amoebot);
        distinct.insert(b);
        const am::Port q = se.far_port(0, p);
        EXPECT_EQ(se.neighbour(b, q), 0u);
        EXPECT_EQ(se.far_port(b, q), p) << compass << " " << tail << " " << p;
        // The label sits where the labelling says, in the amoebot's own frame.
        const int local_tail = (tail - compass + 6) % 6;
        const am::PortPlace place = am::expanded_port(local_tail, p);
        const Node from = place.at_tail ? tail_node : Node{0, 0};
        EXPECT_EQ(se.amoebot(b).head, am::step(from, (compass + place.dir) % 6));
      }
      EXPECT_EQ(distinct.size(), 8u);
      std::array<am::AmoebotId, 10> near{};
      EXPECT_EQ(se.neighbours(0, near), 8);
    }
  }
}

TEST(AmoebotOperations, ExpandNeedsAContractedAmoebotAndAnEmptyNode) {
  Configuration c;
  c.amoebots = {contracted_at({0, 0}, 2), contracted_at({1, 0})};
  System s(c);
  // Compass 2: local direction 4 is global 0, where amoebot 1 sits.
  EXPECT_FALSE(s.expand(0, 4));
  EXPECT_FALSE(s.expand(0, 6));
  EXPECT_FALSE(s.expand(0, -1));
  EXPECT_EQ(s.moves(), 0u);
  EXPECT_TRUE(s.expand(0, 0));  // global 2
  EXPECT_EQ(s.amoebot(0).head, (Node{-1, 1}));
  EXPECT_EQ(s.amoebot(0).tail, (Node{0, 0}));
  EXPECT_EQ(s.at({-1, 1}), 0u);
  EXPECT_EQ(s.at({0, 0}), 0u);
  EXPECT_FALSE(s.expand(0, 1)) << "an expanded amoebot cannot expand";
  EXPECT_EQ(s.moves(), 1u);
  EXPECT_EQ(s.check_amoebot(0), "");
}

TEST(AmoebotOperations, ContractToHeadOrTail) {
  Configuration c;
  c.amoebots = {expanded_at({0, 0}, 0), contracted_at({0, 1})};
  System s(c);
  EXPECT_FALSE(s.contract_to_head(1)) << "a contracted amoebot cannot contract";
  EXPECT_FALSE(s.contract_to_tail(1));
  System t(c);
  EXPECT_TRUE(s.contract_to_head(0));
  EXPECT_EQ(s.amoebot(0).head, (Node{0, 0}));
  EXPECT_TRUE(s.amoebot(0).contracted());
  EXPECT_EQ(s.at({1, 0}), am::no_amoebot);
  EXPECT_TRUE(t.contract_to_tail(0));
  EXPECT_EQ(t.amoebot(0).head, (Node{1, 0}));
  EXPECT_EQ(t.at({0, 0}), am::no_amoebot);
  EXPECT_EQ(t.vacated().size(), 1u);
}

TEST(AmoebotOperations, PullNeedsAnExpandedPullerAndAContractedNeighbour) {
  // Amoebot 0: head (0,0), tail (1,0). Amoebot 1 contracted at (2,0), next to the tail.
  Configuration c;
  c.amoebots = {expanded_at({0, 0}, 0, 1), contracted_at({2, 0}, 3), expanded_at({-1, 1}, 2)};
  System s(c);
  // Find 0's port to amoebot 1 and to amoebot 2.
  am::Port to1 = am::no_port, to2 = am::no_port;
  for (am::Port p = 0; p < 10; ++p) {
    if (s.neighbour(0, p) == 1u) to1 = p;
    if (s.neighbour(0, p) == 2u) to2 = p;
  }
  ASSERT_NE(to1, am::no_port);
  ASSERT_NE(to2, am::no_port);
  EXPECT_FALSE(s.pull(0, to2)) << "the pulled neighbour must be contracted";
  EXPECT_FALSE(s.pull(1, 0)) << "the puller must be expanded";
  am::Port empty = am::no_port;
  for (am::Port p = 0; p < 10; ++p)
    if (s.neighbour(0, p) == am::no_amoebot) empty = p;
  EXPECT_FALSE(s.pull(0, empty)) << "no neighbour to pull";
  EXPECT_EQ(s.moves(), 0u);
  EXPECT_TRUE(s.pull(0, to1));
  EXPECT_EQ(s.moves(), 2u);
  // 0 contracted into its head; 1 expanded into 0's old tail.
  EXPECT_EQ(s.amoebot(0).head, (Node{0, 0}));
  EXPECT_TRUE(s.amoebot(0).contracted());
  EXPECT_EQ(s.amoebot(1).head, (Node{1, 0}));
  EXPECT_EQ(s.amoebot(1).tail, (Node{2, 0}));
  for (am::AmoebotId a = 0; a < 3; ++a) EXPECT_EQ(s.check_amoebot(a), "");
}

TEST(AmoebotOperations, PushNeedsAContractedPusherAndAnExpandedNeighbour) {
  // Amoebot 0 contracted at (-1,0); amoebot 1 expanded, head (0,0), tail (1,0); 2 contracted at (0,1).
  Configuration c;
  c.amoebots = {contracted_at({-1, 0}, 4), expanded_at({0, 0}, 0, 5), contracted_at({-1, 1})};
  System s(c);
  const am::Port to1 = (0 - 4 + 6) % 6;  // global 0 in 0's frame
  const am::Port to2 = (1 - 4 + 6) % 6;  // global 1: amoebot 2 (contracted)
  EXPECT_FALSE(s.push(0, to2)) << "the pushed neighbour must be expanded";
  EXPECT_FALSE(s.push(1, 0)) << "the pusher must be contracted";
  EXPECT_FALSE(s.push(0, (3 - 4 + 6) % 6)) << "no neighbour there";
  EXPECT_FALSE(s.push(0, 7));
  EXPECT_TRUE(s.push(0, to1));
  EXPECT_EQ(s.moves(), 2u);
  EXPECT_EQ(s.amoebot(0).head, (Node{0, 0}));
  EXPECT_EQ(s.amoebot(0).tail, (Node{-1, 0}));
  EXPECT_EQ(s.amoebot(1).head, (Node{1, 0}));
  EXPECT_TRUE(s.amoebot(1).contracted());
  for (am::AmoebotId a = 0; a < 3; ++a) EXPECT_EQ(s.check_amoebot(a), "");
}

TEST(AmoebotView, ReadWriteThroughPortsAndTheScope) {
  Configuration c;
  c.amoebots = {contracted_at({0, 0}, 0), contracted_at({1, 0}, 3), contracted_at({2, 0}, 1)};
  c.amoebots[1].memory.v[0] = 7;
  System s(c);
  const std::array<am::AmoebotId, 2> lock{0, 1};
  View v(s, 0, lock);
  EXPECT_TRUE(v.connected(0));
  EXPECT_FALSE(v.connected(1));
  EXPECT_EQ(v.read(0, 0), 7);
  v.write(0, 1, -2);
  EXPECT_EQ(s.memory(1).v[1], -2);
  EXPECT_EQ(v.touched().size(), 1u);
  EXPECT_THROW((void)v.read(1, 0), am::ScopeError) << "no neighbour on port 1";
  // My direction 3 (global 3) in amoebot 1's frame (compass 3) is its direction 0.
  EXPECT_EQ(v.to_neighbour_dir(0, 3), 0);
  // Amoebot 1 stepping from its head in its direction 3 (global 0) reaches amoebot 2, in its
  // direction 0 (global 3) reaches me.
  EXPECT_EQ(v.neighbour_points_at(0, 0), 1);
  EXPECT_EQ(v.neighbour_points_at(0, 3), 0);
  // Amoebot 1 with a lock set of itself alone may not touch amoebot 2 or 0.
  const std::array<am::AmoebotId, 1> alone{1};
  View w(s, 1, alone);
  EXPECT_THROW((void)w.read(3, 0), am::ScopeError);
  EXPECT_THROW(w.write(0, 0, 1), am::ScopeError);
  EXPECT_THROW((void)w.neighbour_contracted(0), am::ScopeError);
  EXPECT_FALSE(s.memory(2).v[0] == 1);
  // Without a scope the View reaches every neighbour.
  View u(s, 1);
  EXPECT_EQ(u.read(3, 0), 0);
  EXPECT_EQ(u.read(0, 0), 0);
}

TEST(AmoebotConfigurations, ConnectedValidAndDeterministicBySeed) {
  for (const double hole : {0.0, 0.2, 0.5, 0.95})
    for (std::uint64_t seed = 1; seed <= 5; ++seed) {
      const Configuration c = am::random_configuration(300, hole, seed);
      ASSERT_EQ(c.amoebots.size(), 300u);
      EXPECT_EQ(am::check_positions(c), "");
      EXPECT_TRUE(am::is_connected(c));
      EXPECT_EQ(c.amoebots[0].head, (Node{0, 0}));
      const Configuration again = am::random_configuration(300, hole, seed);
      for (std::size_t i = 0; i < c.amoebots.size(); ++i) {
        EXPECT_EQ(c.amoebots[i].head, again.amoebots[i].head);
        EXPECT_EQ(c.amoebots[i].compass, again.amoebots[i].compass);
      }
    }
  const Configuration a = am::random_configuration(100, 0.2, 1), b = am::random_configuration(100, 0.2, 2);
  bool differ = false;
  for (std::size_t i = 0; i < 100; ++i) differ = differ || !(a.amoebots[i].head == b.amoebots[i].head);
  EXPECT_TRUE(differ);
  std::set<int> compasses;
  for (const Amoebot& x : a.amoebots) compasses.insert(x.compass);
  EXPECT_EQ(compasses.size(), 6u);
  EXPECT_THROW(am::random_configuration(0, 0.2, 1), am::ModelError);
  EXPECT_THROW(am::random_configuration(10, 1.0, 1), am::ModelError);
  EXPECT_THROW(am::random_configuration(10, -0.1, 1), am::ModelError);
  const Configuration one = am::random_configuration(1, 0.5, 3);
  EXPECT_EQ(one.amoebots.size(), 1u);
}

TEST(AmoebotHexagon, TerminatesWithAHexagonForSeveralSizesAndHoleProbabilities) {
  const am::Algorithm& hex = am::hexagon_formation();
  for (const std::uint32_t n : {1u, 2u, 3u, 7u, 8u, 19u, 25u, 60u, 150u})
    for (const double hole : {0.0, 0.2, 0.6})
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        am::RunConfig cfg;
        cfg.n = n, cfg.hole_prob = hole, cfg.seed = seed;
        cfg.skip_asleep = seed != 2;  // seed 2: every activation evaluates the guards (the wake check)
        const am::Result r = am::run_sequential(hex, cfg);
        SCOPED_TRACE(testing::Message() << "n " << n << " hole " << hole << " seed " << seed);
        EXPECT_TRUE(r.violations.empty()) << r.violations.front();
        EXPECT_TRUE(r.terminated);
        EXPECT_TRUE(r.final_states);
        EXPECT_TRUE(r.connected);
        EXPECT_TRUE(r.shape_ok) << r.shape_detail;
        EXPECT_GE(r.activations, n);
        // Every amoebot final before the last one fell asleep, and no move after that.
        EXPECT_LE(r.final_activations, r.activations);
        EXPECT_EQ(r.final_moves, r.moves);
      }
}

TEST(AmoebotHexagon, DeterministicAndTheSameWithOrWithoutSkippingAsleepAmoebots) {
  const am::Algorithm& hex = am::hexagon_formation();
  am::RunConfig cfg;
  cfg.n = 120, cfg.seed = 9;
  const am::Result a = am::run_sequential(hex, cfg), b = am::run_sequential(hex, cfg);
  cfg.skip_asleep = false;
  cfg.scope_check = false;
  const am::Result c = am::run_sequential(hex, cfg);
  for (const am::Result* r : {&b, &c}) amoebot_test_support::expect_same_counters(a, *r);
  cfg.seed = 10;
  const am::Result d = am::run_sequential(hex, cfg);
  EXPECT_NE(a.activations, d.activations);
  EXPECT_TRUE(a.ok());
  // Rounds: at least one activation of every amoebot per round.
  EXPECT_GE(a.activations, a.rounds * a.n);
}

TEST(AmoebotChecks, TwoAmoebotsOnOneNodeAndNonAdjacentExpansion) {
  Configuration c;
  c.amoebots = {contracted_at({0, 0}), contracted_at({1, 0}), contracted_at({0, 0})};
  EXPECT_NE(am::check_positions(c).find("two amoebots on one node"), std::string::npos);
  EXPECT_THROW(System{c}, am::ModelError);
  Configuration e;
  e.amoebots = {expanded_at({0, 0}, 0), contracted_at({1, 0})};
  EXPECT_NE(am::check_positions(e).find("two amoebots on one node"), std::string::npos);
  Configuration far;
  far.amoebots = {{{0, 0}, {2, 0}, 0, {}}};
  EXPECT_NE(am::check_positions(far).find("non-adjacent"), std::string::npos);
  EXPECT_THROW(System{far}, am::ModelError);
}

TEST(AmoebotChecks, DisconnectedSystem) {
  Configuration c;
  c.amoebots = {contracted_at({0, 0}), contracted_at({1, 0}), contracted_at({3, 0})};
  EXPECT_FALSE(am::is_connected(c));
  c.amoebots[2] = expanded_at({3, 0}, 3);  // tail (2,0) bridges the gap
  EXPECT_TRUE(am::is_connected(c));
}

TEST(AmoebotChecks, WrongFinalShapes) {
  // 10 amoebots: ring 0 and ring 1 full (7), three on ring 2 in one arc.
  Configuration good;
  good.amoebots.push_back(contracted_at({0, 0}));
  for (int d = 0; d < 6; ++d) good.amoebots.push_back(contracted_at(am::directions[d]));
  good.amoebots.push_back(contracted_at({0, -2}));
  good.amoebots.push_back(contracted_at({1, -2}));
  good.amoebots.push_back(contracted_at({2, -2}));
  EXPECT_EQ(am::check_hexagon(good, {0, 0}), "");
  Configuration gap = good;
  gap.amoebots[9] = contracted_at({2, 0});  // ring 2, but not next to the arc
  EXPECT_NE(am::check_hexagon(gap, {0, 0}).find("contiguous"), std::string::npos);
  Configuration hole = good;
  hole.amoebots[3] = contracted_at({-2, 2});  // ring 1 loses a node
  EXPECT_NE(am::check_hexagon(hole, {0, 0}).find("ring 1"), std::string::npos);
  Configuration far = good;
  far.amoebots[9] = contracted_at({4, 0});
  EXPECT_NE(am::check_hexagon(far, {0, 0}).find("beyond"), std::string::npos);
  Configuration stretched = good;
  stretched.amoebots[9] = expanded_at({2, -2}, 0);
  EXPECT_NE(am::check_hexagon(stretched, {0, 0}).find("expanded"), std::string::npos);
  EXPECT_NE(am::check_hexagon(good, {1, 0}), "") << "around another centre";
}

// Broken algorithms, to make the execution's checks fire.
using amoebot_test_support::broken_final;
using amoebot_test_support::broken_init;
using amoebot_test_support::broken_shape;
using amoebot_test_support::contract_to_tail;
using amoebot_test_support::expand_into_neighbour;
using amoebot_test_support::when_contracted;
using amoebot_test_support::when_expanded;
void read_empty_port(View& v) {
  for (am::Port p = 0; p < 6; ++p)
    if (!v.connected(p)) v.set(1, v.read(p, 0));
}

TEST(AmoebotChecks, TheExecutionCatchesDisconnectionScopeAndValidity) {
  am::RunConfig cfg;
  // A line: 0 at (0,0), 1 expanded head (1,0) tail (2,0), 2 at (3,0). Contracting 1 into its tail
  // leaves 0 alone.
  Configuration line;
  line.amoebots = {contracted_at({0, 0}), expanded_at({1, 0}, 0), contracted_at({3, 0})};
  const am::Algorithm disconnect{"disconnect", "",           {{"cut", when_expanded, contract_to_tail}},
                                 broken_init,  broken_final, true,
                                 broken_shape, {},           {}};
  am::Result r = am::run_sequential(disconnect, line, cfg);
  ASSERT_FALSE(r.violations.empty());
  EXPECT_NE(r.violations[0].find("connectivity"), std::string::npos) << r.violations[0];
  EXPECT_FALSE(r.connected);
  // The same without the promise: no violation, but the end reports the disconnection.
  am::Algorithm loose = disconnect;
  loose.keeps_connected = false;
  r = am::run_sequential(loose, line, cfg);
  EXPECT_TRUE(r.violations.empty());
  EXPECT_FALSE(r.connected);
  EXPECT_TRUE(r.terminated);
  // Reading through a port with no neighbour: a detected error.
  const am::Algorithm reader{"reader",     "",           {{"read", when_contracted, read_empty_port}},
                             broken_init,  broken_final, true,
                             broken_shape, {},           {}};
  r = am::run_sequential(reader, line, cfg);
  ASSERT_FALSE(r.violations.empty());
  EXPECT_NE(r.violations[0].find("scope"), std::string::npos) << r.violations[0];
  // An enabled action whose movement fails breaks the validity convention.
  const am::Algorithm expander{"expander",   "",           {{"expand", when_contracted, expand_into_neighbour}},
                               broken_init,  broken_final, true,
                               broken_shape, {},           {}};
  r = am::run_sequential(expander, line, cfg);
  ASSERT_FALSE(r.violations.empty());
  EXPECT_NE(r.violations[0].find("validity"), std::string::npos) << r.violations[0];
}

TEST(AmoebotChecks, WrongFinalShapeFromAnAlgorithmIsReported) {
  // Hexagon formation's check applied to a start that is not a hexagon, with every amoebot final.
  Configuration c = am::random_configuration(20, 0.0, 4);
  for (std::size_t i = 0; i < c.amoebots.size(); ++i)
    c.amoebots[i].memory.v[am::hex_state] = i ? am::retired : am::seed;
  c.amoebots[0].memory.v[am::hex_dir] = 0;
  for (std::size_t i = 1; i < c.amoebots.size(); ++i) c.amoebots[i].memory.v[am::hex_dir] = -1;
  const am::Result r = am::run_sequential(am::hexagon_formation(), c, {});
  EXPECT_TRUE(r.terminated);
  EXPECT_FALSE(r.shape_ok);
  EXPECT_FALSE(r.ok());
  EXPECT_FALSE(r.shape_detail.empty());
}

#ifdef LMX_BINARY
using lmx::test::run_lmx;

TEST(AmoebotCli, RunPrintsASummaryAndJson) {
  auto r = run_lmx("amoebot run --n 40 --seed 3");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("terminated"), std::string::npos);
  EXPECT_EQ(lmx::test::line_count(r.out), 1u);
  r = run_lmx("amoebot run --algorithm hexagon --n 40 --hole-prob 0.3 --execution sequential --seed 3 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["n"], 40);
  EXPECT_EQ(j["seed"], 3);
  EXPECT_EQ(j["algorithm"], "hexagon");
  EXPECT_EQ(j["execution"], "sequential");
  EXPECT_EQ(j["terminated"], true);
  EXPECT_EQ(j["final_shape_ok"], true);
  for (const char* key : {"activations", "rounds", "moves", "wall_seconds", "activations_per_second"})
    EXPECT_TRUE(j.contains(key)) << key;
  const auto again =
      nlohmann::json::parse(run_lmx("amoebot run --algorithm hexagon --n 40 --hole-prob 0.3 --seed 3 --json").out);
  EXPECT_EQ(j["activations"], again["activations"]);
  EXPECT_EQ(j["moves"], again["moves"]);
}

TEST(AmoebotCli, BadInputIsOneErrorLineAndExitTwo) {
  for (const char* args :
       {"amoebot run --n 0", "amoebot run --n x", "amoebot run --n -3", "amoebot run --hole-prob 1",
        "amoebot run --hole-prob nan", "amoebot run --hole-prob 0.2x", "amoebot run --seed -1",
        "amoebot run --algorithm square", "amoebot run --execution async", "amoebot run --max-activations many"}) {
    const auto r = run_lmx(std::string(args));
    EXPECT_EQ(r.exit_code, 2) << args << ": " << r.out;
    EXPECT_EQ(lmx::test::line_count(r.out), 1u) << args << ": " << r.out;
  }
  const auto unknown = run_lmx("amoebot run --algorithm square");
  EXPECT_NE(unknown.out.find("one of hexagon"), std::string::npos) << unknown.out;
}

TEST(AmoebotCli, AnUnfinishedRunExitsOne) {
  const auto r = run_lmx("amoebot run --n 100 --max-activations 50 --json");
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_EQ(nlohmann::json::parse(r.out)["terminated"], false);
}
#endif

}  // namespace
