// Line formation (docs/amoebot.md, "Line formation"): it terminates with a straight line through
// the seed along the axis of the seed's local direction 0 from random configurations of sizes 1 to
// 500 and hole probabilities 0, 0.2 and 0.5 under the sequential execution (View scope checked, the
// wake-up rule checked with skip_asleep off), the line grows at both ends, the final-shape check
// fires on broken lines, and the counters are deterministic per seed.
#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

#include "amoebot_test_support.hpp"
#include "lmx/apps/amoebot.hpp"
#include "lmx_test_support.hpp"

// A named namespace: the test folder is one unity source with amoebot_test.cpp.
namespace amoebot_line_test {

namespace am = lmx::apps::amoebot;

const am::Algorithm& line() { return am::line_formation(); }

am::Result run(std::uint32_t n, double hole, std::uint64_t seed, bool skip_asleep = true) {
  am::RunConfig cfg;
  cfg.n = n, cfg.hole_prob = hole, cfg.seed = seed, cfg.skip_asleep = skip_asleep;
  return am::run_sequential(line(), cfg);
}

void expect_line_formed(const am::Result& r) {
  EXPECT_TRUE(r.violations.empty()) << r.violations.front();
  EXPECT_TRUE(r.terminated);
  EXPECT_TRUE(r.final_states);
  EXPECT_TRUE(r.connected);
  EXPECT_TRUE(r.shape_ok) << r.shape_detail;
  EXPECT_TRUE(r.ok());
  // Every amoebot final no later than the last one fell asleep, and no move after that.
  EXPECT_LE(r.final_activations, r.activations);
  EXPECT_EQ(r.final_moves, r.moves);
}

/// A retired (final) amoebot at `at`; the seed has dir 0, so its axis is its compass.
am::Amoebot line_amoebot(am::Node at, bool is_seed = false, int compass = 0) {
  am::Amoebot a{at, at, compass, {}};
  a.memory.v[am::line_state] = is_seed ? am::seed : am::retired;
  a.memory.v[am::line_parent] = -1;
  a.memory.v[am::line_dir] = 0;
  return a;
}

/// The seed at (0, 0) with compass `compass` and amoebots at k * directions[compass] for k in
/// lo..hi (k = 0 is the seed).
am::Configuration straight_line(int lo, int hi, int compass = 0) {
  am::Configuration c;
  const am::Node u = am::directions[compass];
  c.amoebots.push_back(line_amoebot({0, 0}, true, compass));
  for (int k = lo; k <= hi; ++k)
    if (k != 0) c.amoebots.push_back(line_amoebot({k * u.x, k * u.y}));
  return c;
}

/// An independent scheduler over the System and View alone (not run_sequential): uniformly random
/// activations; stops when a full scan finds no enabled action. The final configuration, so that
/// the tests can look at it.
am::Configuration run_by_hand(const am::Configuration& start, std::uint64_t seed) {
  am::System s(start);
  std::mt19937_64 rng(seed);
  const std::uint32_t n = s.size();
  for (;;) {
    for (std::uint32_t i = 0; i < 4 * n; ++i) {
      am::View v(s, static_cast<am::AmoebotId>(rng() % n));
      for (const am::Action& act : line().actions)
        if (act.guard(v)) {
          act.run(v);
          break;
        }
    }
    bool enabled = false;
    for (am::AmoebotId a = 0; a < n && !enabled; ++a) {
      const am::View v(s, a);
      for (const am::Action& act : line().actions) enabled = enabled || act.guard(v);
    }
    if (!enabled) return s.snapshot();
  }
}

TEST(AmoebotLine, IsShippedUnderItsName) {
  EXPECT_EQ(am::find_algorithm("line"), &line());
  EXPECT_EQ(line().name, "line");
  EXPECT_TRUE(line().keeps_connected);
  EXPECT_EQ(line().variables, (std::vector<std::string>{"state", "parent", "dir"}));
  EXPECT_EQ(line().actions.size(), 6u);
  am::Memory m;
  line().init(m, 0);
  EXPECT_EQ(m.v[am::line_state], am::seed);
  EXPECT_EQ(m.v[am::line_dir], 0) << "the seed's local direction 0 chooses the axis";
  EXPECT_TRUE(line().final_state(m));
  line().init(m, 5);
  EXPECT_EQ(m.v[am::line_state], am::idle);
  EXPECT_FALSE(line().final_state(m));
}

TEST(AmoebotLine, FormsTheLineForEverySizeUpTo60) {
  for (std::uint32_t n = 1; n <= 60; ++n)
    for (const double hole : {0.0, 0.2, 0.5})
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        SCOPED_TRACE(testing::Message() << "n " << n << " hole " << hole << " seed " << seed);
        expect_line_formed(run(n, hole, seed));
      }
}

TEST(AmoebotLine, FormsTheLineForManySeedsAndHoleProbabilities) {
  for (const std::uint32_t n : {75u, 100u, 150u, 200u})
    for (const double hole : {0.0, 0.2, 0.5})
      for (std::uint64_t seed = 1; seed <= 6; ++seed) {
        SCOPED_TRACE(testing::Message() << "n " << n << " hole " << hole << " seed " << seed);
        const am::Result r = run(n, hole, seed);
        expect_line_formed(r);
        EXPECT_GE(r.activations, n);
      }
}

TEST(AmoebotLine, FormsTheLineAtSizesUpTo500) {
  for (const std::uint32_t n : {300u, 500u})
    for (const double hole : {0.0, 0.2, 0.5}) {
      SCOPED_TRACE(testing::Message() << "n " << n << " hole " << hole);
      expect_line_formed(run(n, hole, 1));
    }
}

TEST(AmoebotLine, TheWakeUpRuleHoldsWhenAsleepAmoebotsAreEvaluated) {
  // skip_asleep off: every activation evaluates the guards, and an asleep amoebot with an enabled
  // action would be a `wake` violation. The counters must not change.
  std::vector<std::uint32_t> sizes;
  for (std::uint32_t n = 1; n <= 30; ++n) sizes.push_back(n);
  for (const std::uint32_t n : {50u, 120u, 250u, 500u}) sizes.push_back(n);
  for (const std::uint32_t n : sizes)
    for (const double hole : {0.0, 0.2, 0.5})
      for (std::uint64_t seed = 1; seed <= (n <= 30 ? 4u : 1u); ++seed) {
        SCOPED_TRACE(testing::Message() << "n " << n << " hole " << hole << " seed " << seed);
        const am::Result evaluated = run(n, hole, seed, false), skipped = run(n, hole, seed, true);
        expect_line_formed(evaluated);
        EXPECT_EQ(evaluated.activations, skipped.activations);
        EXPECT_EQ(evaluated.rounds, skipped.rounds);
        EXPECT_EQ(evaluated.moves, skipped.moves);
        EXPECT_EQ(evaluated.actions, skipped.actions);
      }
}

TEST(AmoebotLine, CountersAreDeterministicPerSeed) {
  am::RunConfig cfg;
  cfg.n = 150, cfg.hole_prob = 0.2, cfg.seed = 4;
  const am::Result a = am::run_sequential(line(), cfg), b = am::run_sequential(line(), cfg);
  cfg.scope_check = false;
  cfg.incremental_checks = false;
  const am::Result c = am::run_sequential(line(), cfg);
  for (const am::Result* r : {&b, &c}) amoebot_test_support::expect_same_counters(a, *r);
  cfg.seed = 5;
  const am::Result d = am::run_sequential(line(), cfg);
  EXPECT_NE(a.activations, d.activations);
  EXPECT_TRUE(a.ok());
  EXPECT_TRUE(d.ok());
  EXPECT_GE(a.activations, a.rounds * a.n);
  EXPECT_GT(a.handovers, 0u) << "followers are pulled along";
}

TEST(AmoebotLine, GrowsAtBothEndsAlongTheSeedsAxisUnderEveryCompass) {
  // The seed's compass turns its local direction 0, hence the axis; run by an independent
  // scheduler to look at the final configuration.
  for (int compass = 0; compass < 6; ++compass)
    for (std::uint64_t seed = 1; seed <= 2; ++seed) {
      SCOPED_TRACE(testing::Message() << "compass " << compass << " seed " << seed);
      am::Configuration start = am::initial_configuration(line(), 80, 0.2, seed);
      start.amoebots[0].compass = compass;
      const am::Configuration end = run_by_hand(start, seed);
      EXPECT_EQ(line().check_final(end), "");
      const am::Node u = am::directions[compass];
      int ahead = 0, behind = 0;
      for (const am::Amoebot& a : end.amoebots) {
        EXPECT_TRUE(line().final_state(a.memory));
        // On the axis through the seed at (0, 0): a multiple of u.
        EXPECT_EQ(a.head.x * u.y, a.head.y * u.x) << a.head.x << " " << a.head.y;
        const int k = u.x != 0 ? a.head.x / u.x : a.head.y / u.y;
        ahead += k > 0, behind += k < 0;
      }
      EXPECT_GT(ahead, 0) << "the line grows in the seed's direction 0";
      EXPECT_GT(behind, 0) << "and in the opposite direction";
      EXPECT_EQ(ahead + behind + 1, 80);
      // Retired amoebots' dirs point away from the seed, along the axis.
      for (const am::Amoebot& a : end.amoebots) {
        if (a.memory.v[am::line_state] != am::retired) continue;
        const int global = (a.compass + a.memory.v[am::line_dir]) % 6;
        const int k = u.x != 0 ? a.head.x / u.x : a.head.y / u.y;
        EXPECT_EQ(global, k > 0 ? compass : (compass + 3) % 6);
      }
    }
}

TEST(AmoebotLine, AFormedLineIsFinalAtOnce) {
  for (const auto& [lo, hi] : {std::pair{0, 0}, std::pair{-3, 4}, std::pair{0, 6}, std::pair{-5, 0}}) {
    const am::Result r = am::run_sequential(line(), straight_line(lo, hi, 2), {});
    EXPECT_TRUE(r.ok()) << r.shape_detail;
    EXPECT_EQ(r.moves, 0u);
    EXPECT_EQ(r.actions, 0u);
  }
}

TEST(AmoebotLine, TheFinalShapeCheckAcceptsOnlyAContiguousLineThroughTheSeedOnItsAxis) {
  const auto check = [](const am::Configuration& c) { return line().check_final(c); };
  for (int compass = 0; compass < 6; ++compass) {
    EXPECT_EQ(check(straight_line(-2, 3, compass)), "") << compass;
    EXPECT_EQ(check(straight_line(0, 5, compass)), "") << "one-sided lines count too";
    EXPECT_EQ(check(straight_line(-4, 0, compass)), "");
  }
  EXPECT_EQ(check(straight_line(0, 0)), "") << "the seed alone";
  // The order of the amoebots does not matter.
  am::Configuration shuffled = straight_line(-2, 3);
  std::swap(shuffled.amoebots[0], shuffled.amoebots[4]);
  EXPECT_EQ(check(shuffled), "");

  // A gap: (2, 0) missing, (4, 0) beyond it.
  am::Configuration gap = straight_line(-1, 3);
  gap.amoebots.back().head = gap.amoebots.back().tail = {4, 0};
  EXPECT_NE(check(gap).find("a gap in the line at (3, 0)"), std::string::npos) << check(gap);
  // A bend: the last two amoebots turn off the axis.
  am::Configuration bend = straight_line(0, 4);
  bend.amoebots[3].head = bend.amoebots[3].tail = {2, 1};
  bend.amoebots[4].head = bend.amoebots[4].tail = {2, 2};
  EXPECT_NE(check(bend).find("off the line"), std::string::npos) << check(bend);
  // An amoebot off the line, next to it.
  am::Configuration off = straight_line(-2, 2);
  off.amoebots.push_back(line_amoebot({0, 1}));
  EXPECT_NE(check(off).find("amoebot 5 at (0, 1) is off the line"), std::string::npos) << check(off);
  // A straight line, but along another axis than the seed's direction 0.
  am::Configuration axis = straight_line(-2, 2, 1);
  axis.amoebots[0].compass = 0;
  EXPECT_NE(check(axis).find("off the line"), std::string::npos) << check(axis);
  // The seed's dir chooses the axis: dir 1 under compass 0 is global direction 1.
  am::Configuration turned = straight_line(-2, 2, 1);
  turned.amoebots[0].compass = 0;
  turned.amoebots[0].memory.v[am::line_dir] = 1;
  EXPECT_EQ(check(turned), "");
  // An expanded amoebot at the end (its nodes both on the axis).
  am::Configuration expanded = straight_line(0, 3);
  expanded.amoebots.back().head = {4, 0};
  EXPECT_NE(check(expanded).find("amoebot 3 is expanded"), std::string::npos) << check(expanded);
  // Two amoebots on one node.
  am::Configuration twice = straight_line(0, 3);
  twice.amoebots[3].head = twice.amoebots[3].tail = {2, 0};
  EXPECT_NE(check(twice).find("two amoebots on one node"), std::string::npos) << check(twice);
  // No seed, two seeds.
  am::Configuration none = straight_line(0, 3);
  none.amoebots[0].memory.v[am::line_state] = am::retired;
  EXPECT_EQ(check(none), "no seed");
  am::Configuration two = straight_line(0, 3);
  two.amoebots[2].memory.v[am::line_state] = am::seed;
  EXPECT_EQ(check(two), "more than one seed");
  // Every message is one line.
  for (const am::Configuration* c : {&gap, &bend, &off, &axis, &expanded, &twice})
    EXPECT_EQ(check(*c).find('\n'), std::string::npos);
}

TEST(AmoebotLine, AWrongFinalShapeIsReportedByTheRun) {
  // Every amoebot final, but the line (-2, 0)..(2, 0) goes on at (4, 0) past a gap, reached
  // through (3, -1) and (4, -1) off the axis: nothing is enabled, the run terminates, and the
  // final-shape check says why the shape is wrong.
  am::Configuration c = straight_line(-2, 2);
  for (const am::Node at : {am::Node{3, -1}, am::Node{4, -1}, am::Node{4, 0}}) c.amoebots.push_back(line_amoebot(at));
  const am::Result r = am::run_sequential(line(), c, {});
  EXPECT_TRUE(r.terminated);
  EXPECT_TRUE(r.final_states);
  EXPECT_TRUE(r.connected);
  EXPECT_FALSE(r.shape_ok);
  EXPECT_FALSE(r.ok());
  EXPECT_NE(r.shape_detail.find("amoebot 5 at (3, -1) is off the line"), std::string::npos) << r.shape_detail;
}

#ifdef LMX_BINARY
TEST(AmoebotLineCli, RunsByName) {
  const auto r = lmx::test::run_lmx("amoebot run --algorithm line --n 60 --hole-prob 0.5 --seed 3 --json");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["algorithm"], "line");
  EXPECT_EQ(j["terminated"], true);
  EXPECT_EQ(j["final_shape_ok"], true);
  EXPECT_EQ(j["violations"].size(), 0u);
}
#endif

}  // namespace amoebot_line_test
