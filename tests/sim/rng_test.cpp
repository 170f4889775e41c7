// The tabulated geometric draw gives exactly the value of the expression it replaces; the 64
// trials drawn at once are exactly a comparison of a uniform number with p per lane.
#include "sim/rng.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <vector>

namespace lmx::sim {
namespace {

TEST(Rng, TabulatedGeometricIsExact) {
  Rng rng(7, 0);
  for (double p : {0.5, 0.1, 0.01, 0.3333, 0.9, 0.999999, 1e-9}) {
    const Rng::Geometric g(p);
    auto check = [&](std::uint64_t x) {
      x &= (std::uint64_t{1} << 53) - 1;
      ASSERT_EQ(g.value(x), g.exact(x)) << "p " << p << " x " << x;
    };
    for (int i = 0; i < 1000000; ++i) check(rng.next() >> 11);
    // Around every step point, where rounding matters most, and at the ends of the range.
    for (unsigned k = 0; k < g.used; ++k)
      for (std::int64_t d : {-(std::int64_t{1} << 25), -(std::int64_t{1} << 24) - 1, -(std::int64_t{1} << 24),
                             std::int64_t{-2}, std::int64_t{-1}, std::int64_t{0}, std::int64_t{1}, std::int64_t{2},
                             std::int64_t{1} << 24, (std::int64_t{1} << 24) + 1, std::int64_t{1} << 25})
        check(g.step(k) + static_cast<std::uint64_t>(d));
    check(0), check(1), check((std::uint64_t{1} << 53) - 1);
  }
  // The engine's path: the same stream gives the same draws through either form.
  Rng a(11, 1), b(11, 1);
  const Rng::Geometric g(0.5);
  for (int i = 0; i < 100000; ++i) ASSERT_EQ(a.geometric(g), g.exact(b.next() >> 11));
}

/// The trials of one bernoulli64 call, lane by lane: lane j reads its uniform number's binary
/// digits from bit j of successive words of `words` (drawing more as needed) and compares them with
/// p's digits, found here by doubling (exact in floating point). Returns the successes.
std::uint64_t trials_by_lane(double p, Rng& words) {
  std::vector<int> digits;
  for (double x = p; x > 0;) {
    x *= 2;
    const int d = x >= 1 ? 1 : 0;
    digits.push_back(d), x -= d;
  }
  std::vector<std::uint64_t> drawn;
  std::uint64_t success = 0;
  for (unsigned j = 0; j < 64; ++j)
    for (std::size_t i = 0; i < digits.size(); ++i) {
      while (drawn.size() <= i) drawn.push_back(words.next());
      const int u = static_cast<int>((drawn[i] >> j) & 1);
      if (u != digits[i]) {
        if (u < digits[i]) success |= std::uint64_t{1} << j;  // U < p
        break;
      }
    }
  return success;
}

TEST(Rng, SixtyFourTrialsAreExactComparisonsWithP) {
  for (double p : {0.5, 0.7, 0.1, 1.0 / 3, 0.0625, 0.999999, 1e-6, 0x1.8p-40, 0.75}) {
    Rng a(5, 1), b(5, 1);
    const Rng::Bernoulli64 trials(p);
    for (int call = 0; call < 3000; ++call)
      ASSERT_EQ(a.bernoulli64(trials), trials_by_lane(p, b)) << "p " << p << " call " << call;
    // Both drew the same words: each stops at the last digit a lane needed.
    EXPECT_EQ(a.next(), b.next()) << "p " << p;
  }
}

TEST(Rng, SixtyFourTrialsAtTheEndsAndAtOneHalf) {
  Rng a(9, 2), b(9, 2);
  EXPECT_EQ(a.bernoulli64(Rng::Bernoulli64(1.0)), ~std::uint64_t{0});
  EXPECT_EQ(a.bernoulli64(Rng::Bernoulli64(0.0)), 0u);
  EXPECT_EQ(a.next(), b.next()) << "p = 0 or 1 must draw nothing";
  // p = 1/2 has one digit: one word per 64 trials, a success where its bit is 0.
  const Rng::Bernoulli64 half(0.5);
  for (int i = 0; i < 1000; ++i) ASSERT_EQ(a.bernoulli64(half), ~b.next());
}

TEST(Rng, SixtyFourTrialsSucceedWithProbabilityP) {
  Rng rng(3, 4);
  for (double p : {0.3, 0.9, 0.0625}) {
    const Rng::Bernoulli64 trials(p);
    std::uint64_t successes = 0;
    constexpr int calls = 20000;  // 1.28 M trials: the standard deviation of the rate is below 0.0005
    for (int i = 0; i < calls; ++i) successes += static_cast<unsigned>(std::popcount(rng.bernoulli64(trials)));
    EXPECT_NEAR(static_cast<double>(successes) / (64.0 * calls), p, 0.005) << "p " << p;
  }
}

}  // namespace
}  // namespace lmx::sim
