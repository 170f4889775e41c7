// One seed, many streams: each adversary component draws from its own xoshiro256** stream derived
// from the scenario seed with splitmix64, so adding draws to one component never shifts another.
#pragma once

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace lmx::sim {

inline std::uint64_t splitmix64(std::uint64_t& x) {
  std::uint64_t z = (x += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

class Rng {
 public:
  Rng() : Rng(0, 0) {}
  Rng(std::uint64_t seed, std::uint64_t stream) {
    std::uint64_t x = seed ^ (0xD1B54A32D192ED03ull * (stream + 1));
    for (auto& w : s_) w = splitmix64(x);
  }
  std::uint64_t next() {
    const std::uint64_t result = rotl(s_[1] * 5, 7) * 9;
    const std::uint64_t t = s_[1] << 17;
    s_[2] ^= s_[0], s_[3] ^= s_[1], s_[1] ^= s_[2], s_[0] ^= s_[3];
    s_[2] ^= t;
    s_[3] = rotl(s_[3], 45);
    return result;
  }
  /// Uniform in [0, bound), bound >= 1 (Lemire's multiply-shift; the tiny bias is irrelevant here).
  std::uint32_t below(std::uint32_t bound) {
    return static_cast<std::uint32_t>(((next() >> 32) * static_cast<std::uint64_t>(bound)) >> 32);
  }
  /// Uniform in [0, 1).
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  bool chance(double p) { return unit() < p; }
  /// Number of failures before the first success of a Bernoulli(p) sequence.
  std::uint64_t geometric(double p) { return geometric(Geometric(p)); }
  /// A geometric distribution with its logarithm computed once (the activation scan draws one per
  /// activated node); draws the same numbers as geometric(p).
  ///
  /// The draw is floor(log(1 - u) / log(1 - p)) with u = x * 2^-53 for the 53-bit integer x taken
  /// from next(), a non-decreasing step function of x. The constructor finds where the computed
  /// function steps from k to k + 1 (binary search over x, evaluating the very same expression) for
  /// the first `steps` values of k; a draw then compares x with those points instead of calling
  /// std::log. Within `margin` of a step point, or beyond the last one, the draw evaluates the
  /// expression itself, so rounding in log can never make the two paths disagree: away from the
  /// step points the exact value is further from an integer than the rounding error.
  struct Geometric {
    static constexpr unsigned steps = 24;
    static constexpr std::uint64_t margin = std::uint64_t{1} << 24;
    explicit Geometric(double p) : always(p >= 1.0), log1m_p(always ? 0.0 : std::log1p(-p)) {
      for (auto& x : point) x = ~std::uint64_t{0};
      point[0] = 0;
      if (always || !(log1m_p < 0)) return;  // p = 0 (or a NaN): no table, every draw is exact
      std::uint64_t lo = 0;
      for (unsigned k = 0; k < steps; ++k, ++used) {
        // The first x whose value exceeds k (values never exceed k for every x below lo).
        std::uint64_t a = lo, b = std::uint64_t{1} << 53;
        while (a < b) {
          const std::uint64_t mid = a + (b - a) / 2;
          if (exact(mid) > k)
            b = mid;
          else
            a = mid + 1;
        }
        point[k + 1] = a, lo = a;
      }
    }
    [[nodiscard]] std::uint64_t exact(std::uint64_t x) const {
      const double u = 1.0 - static_cast<double>(x) * 0x1.0p-53;  // (0, 1]
      return static_cast<std::uint64_t>(std::floor(std::log(u) / log1m_p));
    }
    /// The least x whose draw exceeds k (k < used).
    [[nodiscard]] std::uint64_t step(unsigned k) const { return point[k + 1]; }
    /// The draw for the 53-bit integer x. Without branches on the (random) result where it is
    /// small: a search loop and a short-circuit test mispredicted on most draws.
    [[nodiscard]] std::uint64_t value(std::uint64_t x) const {
      unsigned k =
          unsigned(x >= point[1]) + unsigned(x >= point[2]) + unsigned(x >= point[3]) + unsigned(x >= point[4]);
      while (k < used && x >= point[k + 1]) ++k;
      // point[0] = 0 only sends the 2^24 smallest x to the exact path; past `used` the points
      // are all ones, never near.
      const bool near = unsigned(point[k + 1] - x <= margin) | unsigned(x - point[k] < margin);
      return k == used || near ? exact(x) : k;
    }
    bool always;        ///< p >= 1: every trial succeeds, nothing is drawn
    double log1m_p;     ///< log(1 - p)
    unsigned used = 0;  ///< step points computed
    /// point[k + 1]: the least x whose draw exceeds k; point[0] = 0, and all ones past `used`.
    std::uint64_t point[steps + 2] = {};
  };
  std::uint64_t geometric(const Geometric& g) {
    if (g.always) return 0;
    return g.value(next() >> 11);
  }

  /// 64 independent Bernoulli(p) trials at once, one per bit, exactly for the double p. Lane j
  /// compares a uniform U_j in [0, 1) with p, reading U_j one binary digit per draw (bit j of
  /// successive next() words) against p's binary expansion, and is settled at the first digit where
  /// they differ: U_j < p iff U_j has the 0 there. A lane whose digits equal all of p's has
  /// U_j >= p. Each draw settles each open lane with probability 1/2, so 64 lanes take about 7
  /// draws for most p, and no more draws than p has digits (one for p = 1/2); the geometric skip
  /// draws once per success and evaluates its table each time.
  struct Bernoulli64 {
    explicit Bernoulli64(double p) : always(p >= 1.0) {
      if (always || !(p > 0)) return;  // p = 0 (or a NaN): no digits, no successes
      int exponent = 0;
      const double fraction = std::frexp(p, &exponent);  // p = fraction * 2^exponent, fraction in [1/2, 1)
      // p = m * 2^(exponent - 53) for the 53-bit integer m: digit i (worth 2^-i, i >= 1) of p is
      // bit 53 - exponent - i of m.
      const auto m = static_cast<std::uint64_t>(std::ldexp(fraction, 53));
      const int last = 53 - exponent;  // the position of m's bit 0
      for (int i = 1; i <= last; ++i) {
        const int bit = last - i;
        digits.push_back(bit < 64 && ((m >> bit) & 1) ? std::uint64_t{~std::uint64_t{0}} : std::uint64_t{0});
      }
      while (!digits.empty() && digits.back() == 0) digits.pop_back();  // trailing zeros settle nothing
    }
    bool always;  ///< p >= 1: every trial succeeds, nothing is drawn
    /// p's binary digits after the point, each as all ones or all zeros, up to its last 1.
    std::vector<std::uint64_t> digits;
  };
  std::uint64_t bernoulli64(const Bernoulli64& b) {
    if (b.always) return ~std::uint64_t{0};
    std::uint64_t open = ~std::uint64_t{0}, success = 0;
    for (std::size_t i = 0; open != 0 && i < b.digits.size(); ++i) {
      const std::uint64_t r = next(), digit = b.digits[i];
      // Without branches on the digit: p's digits come in no pattern a predictor learns.
      success |= open & ~r & digit;  // U's digit 0 against p's 1: U < p
      open &= ~(r ^ digit);          // still equal: the lanes whose digit is p's
    }
    return success;
  }

 private:
  static std::uint64_t rotl(std::uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }
  std::uint64_t s_[4];
};

/// Stream numbers: one per component.
enum Stream : std::uint64_t {
  activation_stream = 1,
  delivery_stream,
  topology_stream,
  workload_stream,
  priority_stream,
  application_stream,  ///< an application's own choices (population protocols: partners, outcomes)
  agent_stream,        ///< population protocols' sequential schedulers: the pairs they draw
  /// The asynchronous engine's pick of an activated node's action among its options (the
  /// semi-synchronous engine picks from the activation stream): the activation stream then draws
  /// only the times of the executions, which a round's schedule takes out of the calendar ahead.
  choice_stream,
};

}  // namespace lmx::sim
