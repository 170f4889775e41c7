// The vector form of the candidate mask gives the portable form's mask on random channel records.
#include "sim/channel.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <stdexcept>
#include <vector>

namespace lmx::sim {
namespace {

/// Random records of one node: counts 0..inline_slots, stamps near `now` so that both "sent now"
/// and "sent earlier" occur, and random bytes in the fields the mask must ignore.
std::vector<Channel> random_records(std::mt19937_64& rng, unsigned ports, std::uint16_t now) {
  std::vector<Channel> ch(ports);
  for (auto& c : ch) {
    c.count = static_cast<std::uint8_t>(rng() % (inline_slots + 1));
    for (auto& s : c.stamp) s = static_cast<std::uint16_t>(rng() % 2 ? now : now - 1 - rng() % 3);
    for (auto& b : c.byte) b = static_cast<std::uint8_t>(rng());
    c.outgoing = static_cast<std::uint8_t>(rng());
  }
  // One more record, which the mask must not read: two messages sent earlier, so that reading it
  // would add candidates that the portable form does not have.
  ch.push_back(Channel{{static_cast<std::uint16_t>(now - 1), static_cast<std::uint16_t>(now - 1)}, 2, {0, 0}, 0});
  return ch;
}

TEST(ReceivableMask, PortableFormByHand) {
  // Port 0: one message sent earlier; port 1: two, the second sent now; port 2: empty but with
  // a stale stamp; port 3: two sent earlier.
  std::vector<Channel> ch(4);
  ch[0] = {{6, 9}, 1, {1, 2}, 0};
  ch[1] = {{5, 9}, 2, {1, 2}, 7};
  ch[2] = {{5, 5}, 0, {1, 2}, 0};
  ch[3] = {{3, 4}, 2, {1, 2}, 0};
  EXPECT_EQ(receivable_mask_portable(ch.data(), 4, 9), 0b11'00'01'01u);
  EXPECT_EQ(receivable_mask(ch.data(), 4, 9), 0b11'00'01'01u);
}

#if defined(__SSE2__)
TEST(ReceivableMask, VectorFormEqualsPortable) {
  std::mt19937_64 rng(17);
  for (unsigned ports = 1; ports <= 32; ++ports)
    for (int i = 0; i < 20000; ++i) {
      const auto now = static_cast<std::uint16_t>(rng());
      const auto ch = random_records(rng, ports, now);
      ASSERT_EQ(receivable_mask_sse2(ch.data(), ports, now), receivable_mask_portable(ch.data(), ports, now))
          << "ports " << ports << " now " << now;
    }
}
#endif

TEST(ReceivableMask, FixedPortCountsEqualPortable) {
  std::mt19937_64 rng(23);
  for (unsigned ports = 1; ports <= 32; ++ports) {
    const ReceivableMask mask_of = receivable_mask_for(ports);
    for (int i = 0; i < 2000; ++i) {
      const auto now = static_cast<std::uint16_t>(rng());
      const auto ch = random_records(rng, ports, now);
      ASSERT_EQ(mask_of(ch.data(), now), receivable_mask_portable(ch.data(), ports, now)) << "ports " << ports;
    }
  }
  EXPECT_THROW((void)receivable_mask_for(0), std::invalid_argument);
  EXPECT_THROW((void)receivable_mask_for(33), std::invalid_argument);
}

/// The i-th set bit by clearing the lowest one i times (the loop nth_set_bit replaces).
unsigned nth_set_bit_by_loop(std::uint64_t x, unsigned i) {
  for (; i > 0; --i) x &= x - 1;
  return static_cast<unsigned>(std::countr_zero(x));
}

TEST(Candidates, NthSetBitEqualsTheLoop) {
  std::mt19937_64 rng(29);
  auto check_all = [](std::uint64_t x) {
    const auto bits = static_cast<unsigned>(std::popcount(x));
    for (unsigned i = 0; i < bits; ++i) ASSERT_EQ(nth_set_bit(x, i), nth_set_bit_by_loop(x, i)) << x << " " << i;
  };
  check_all(~std::uint64_t{0});  // 64 bits: prefix sums reach 64 in the last byte
  check_all(std::uint64_t{1} << 63), check_all(1), check_all(0x8000000000000001ull), check_all(0xFF00FF00FF00FF00ull);
  for (int i = 0; i < 200000; ++i) {
    std::uint64_t x = rng();
    // Sparse and dense words as well as uniform ones.
    if (i % 3 == 1) x &= rng() & rng();
    if (i % 3 == 2) x |= rng() | rng();
    if (i % 5 == 0) x &= (std::uint64_t{1} << (rng() % 64)) - 1;
    check_all(x);
  }
}

}  // namespace
}  // namespace lmx::sim
