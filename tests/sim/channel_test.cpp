// A node's channel record (its fields apart, one line at Delta = 8), and the vector form of the
// candidate mask giving the portable form's mask on random records.
#include "sim/channel.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <stdexcept>
#include <vector>

namespace lmx::sim {
namespace {

/// One node's record of `ports` channels, exactly as long as its fields (so that a read past
/// them is a heap overflow under the sanitizers).
struct Record {
  explicit Record(unsigned ports) : f{ports}, bytes(7 * std::size_t{ports}) {}
  void set(unsigned p, unsigned count, unsigned outgoing, std::uint16_t stamp0, std::uint16_t stamp1) {
    bytes[f.counts(p)] = static_cast<std::uint8_t>(count | outgoing << 4);
    store_stamp(&bytes[f.stamp(0, p)], stamp0), store_stamp(&bytes[f.stamp(1, p)], stamp1);
  }
  [[nodiscard]] const std::uint8_t* data() const { return bytes.data(); }
  ChannelFields f;
  std::vector<std::uint8_t> bytes;
};

/// Random records of one node: counts 0..inline_slots, stamps near `now` so that both "sent now"
/// and "sent earlier" occur, and random bytes in the fields the mask must ignore (the message
/// bytes and the sender's copies).
Record random_record(std::mt19937_64& rng, unsigned ports, std::uint16_t now) {
  Record r(ports);
  for (auto& b : r.bytes) b = static_cast<std::uint8_t>(rng());
  auto stamp = [&] { return static_cast<std::uint16_t>(rng() % 2 ? now : now - 1 - rng() % 3); };
  for (unsigned p = 0; p < ports; ++p) {
    const auto count = static_cast<unsigned>(rng() % (inline_slots + 1));
    const auto s0 = stamp(), s1 = stamp();
    r.set(p, count, static_cast<unsigned>(rng() % 16), s0, s1);
  }
  return r;
}

TEST(ChannelFields, OneLineANodeAtDelta8AndFieldsApart) {
  EXPECT_EQ(ChannelFields{9}.stride(), 64u);  // 63 bytes of fields
  EXPECT_EQ(ChannelFields{5}.stride(), 40u);  // 35
  EXPECT_EQ(ChannelFields{1}.stride(), 8u);   // 7
  // Every field of every port at its own place within the record.
  for (unsigned ports = 1; ports <= 32; ++ports) {
    const ChannelFields f{ports};
    std::vector<int> owner(f.stride(), 0);
    for (unsigned p = 0; p < ports; ++p) {
      for (unsigned slot = 0; slot < inline_slots; ++slot) {
        ++owner[f.stamp(slot, p)], ++owner[f.stamp(slot, p) + 1];
        ++owner[f.byte(slot, p)];
      }
      ++owner[f.counts(p)];
    }
    for (std::size_t i = 0; i < 7 * std::size_t{ports}; ++i)
      ASSERT_EQ(owner[i], 1) << "ports " << ports << " byte " << i;
  }
}

TEST(ReceivableMask, InterleavesTheSlots) {
  EXPECT_EQ(interleave_slots(0x0001u), 0x0001u);  // slot 0 of the first port
  EXPECT_EQ(interleave_slots(0x0100u), 0x0002u);  // its slot 1
  EXPECT_EQ(interleave_slots(0x8000u), 0x8000u);  // slot 1 of the eighth
  EXPECT_EQ(interleave_slots(0x0080u), 0x4000u);  // its slot 0
  EXPECT_EQ(interleave_slots(0xFFFFu), 0xFFFFu);
  EXPECT_EQ(interleave_slots(0x00FFu), 0x5555u);
}

TEST(ReceivableMask, PortableFormByHand) {
  // Port 0: one message sent earlier; port 1: two, the second sent now; port 2: empty but with
  // a stale stamp; port 3: two sent earlier.
  Record r(4);
  r.set(0, 1, 0, 6, 9);
  r.set(1, 2, 7, 5, 9);
  r.set(2, 0, 0, 5, 5);
  r.set(3, 2, 0, 3, 4);
  EXPECT_EQ(receivable_mask_portable(r.data(), 4, 9), 0b11'00'01'01u);
  EXPECT_EQ(receivable_mask(r.data(), 4, 9), 0b11'00'01'01u);
  // The sender's copy (the high half of the counts byte) is not a count.
  r.set(2, 0, 15, 5, 5);
  EXPECT_EQ(receivable_mask(r.data(), 4, 9), 0b11'00'01'01u);
}

#if defined(__SSE2__)
TEST(ReceivableMask, VectorFormEqualsPortable) {
  std::mt19937_64 rng(17);
  for (unsigned ports = 1; ports <= 32; ++ports)
    for (int i = 0; i < 20000; ++i) {
      const auto now = static_cast<std::uint16_t>(rng());
      const auto r = random_record(rng, ports, now);
      ASSERT_EQ(receivable_mask_sse2(r.data(), ports, now), receivable_mask_portable(r.data(), ports, now))
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
      const auto r = random_record(rng, ports, now);
      ASSERT_EQ(mask_of(r.data(), now), receivable_mask_portable(r.data(), ports, now)) << "ports " << ports;
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
