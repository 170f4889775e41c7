// The vector form of the candidate mask gives the portable form's mask on random channel records.
#include "../../src/sim/channel.hpp"

#include <gtest/gtest.h>

#include <random>
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

}  // namespace
}  // namespace lmx::sim
