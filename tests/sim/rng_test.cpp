// The tabulated geometric draw gives exactly the value of the expression it replaces.
#include "../../src/sim/rng.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace lmx::sim
