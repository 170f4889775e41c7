// The network's channel records (channel.hpp: one record a node, a channel's count and the
// sender's copy of the far count in one byte): the cap of max_channel_count messages, the two
// halves of the counts byte kept apart, and the run's stop when a channel would exceed the cap.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "lmx/sim/simulation.hpp"
#include "sim/network.hpp"

namespace channel_records_test {

using lmx::sim::max_channel_count;
using lmx::sim::Network;
using lmx::sim::NodeId;
using lmx::sim::Stored;

TEST(ChannelRecords, AChannelHoldsUpToItsCapAndRefusesTheNext) {
  std::uint32_t now = 3;
  Network<std::uint16_t> net{2, 1, false, false, 14, now};
  net.link(0, 1, 1, 1);
  std::vector<std::uint8_t> sent;
  for (unsigned i = 0; i < max_channel_count; ++i) {
    const auto byte = static_cast<std::uint8_t>(0x20 + i);
    ASSERT_TRUE(net.inject(1, 1, byte, 0)) << i;
    sent.push_back(byte);
  }
  EXPECT_EQ(net.count(1, 1), max_channel_count);
  EXPECT_FALSE(net.inject(1, 1, 0x7F, 0));  // one more than the count's 4 bits hold
  EXPECT_EQ(net.count(1, 1), max_channel_count);
  EXPECT_EQ(net.in_transit(), max_channel_count);
  // Every message is there, the refused one not: two inline, the rest in the side table.
  std::vector<std::uint8_t> held;
  for (unsigned i = 0; i < max_channel_count; ++i) {
    const Stored m = net.stored(1, 1, i);
    held.push_back(m.byte);
    EXPECT_EQ(m.stamp, 3u);
  }
  std::sort(held.begin(), held.end());
  EXPECT_EQ(held, sent);
  // A cut loses them all, and the channel is empty again.
  unsigned lost = 0;
  net.unlink(0, 1, [&](NodeId, lmx::core::Port, const Stored&) { ++lost; });
  EXPECT_EQ(lost, max_channel_count);
  EXPECT_EQ(net.count(1, 1), 0u);
  EXPECT_EQ(net.in_transit(), 0u);
}

TEST(ChannelRecords, CountAndSendersCopyShareAByteWithoutMixing) {
  std::uint32_t now = 1;
  // Writes deferred where the engine would: the sender's copies are kept.
  Network<std::uint16_t> net{2, 1, false, true, 14, now};
  net.link(0, 1, 1, 1);
  ASSERT_TRUE(net.inject(1, 1, 0x20, 0));
  ASSERT_TRUE(net.inject(1, 1, 0x21, 0));
  EXPECT_EQ(net.count(1, 1), 2u);
  EXPECT_EQ(net.outgoing(0, 1), 2u);  // node 0's copy of what waits at node 1
  EXPECT_EQ(net.count(0, 1), 0u);
  ASSERT_TRUE(net.inject(0, 1, 0x40, 0));
  EXPECT_EQ(net.count(0, 1), 1u);
  EXPECT_EQ(net.outgoing(0, 1), 2u);
  EXPECT_EQ(net.outgoing(1, 1), 1u);
  // A delivery at node 1 takes one off node 0's copy, not off node 0's own count.
  net.remove(1, 1, 0);
  EXPECT_EQ(net.outgoing(0, 1), 1u);
  EXPECT_EQ(net.count(0, 1), 1u);
  EXPECT_EQ(net.stored(1, 1, 0).byte, 0x21);  // the last message took the delivered one's slot
  EXPECT_EQ(net.along(1, 1, 0, 1), 2u);
  net.remove(0, 1, 0);
  EXPECT_EQ(net.outgoing(1, 1), 0u);
  EXPECT_EQ(net.count(0, 1), 0u);
  EXPECT_EQ(net.outgoing(0, 1), 1u);
}

// A deferred writes' list grows by a quarter at a time: its capacity stays within a quarter of
// the most entries it held (doubled, it was up to twice as many), and its entries stay in order.
TEST(WriteList, GrowsByAQuarterAndKeepsItsEntries) {
  lmx::sim::WriteList list;
  for (std::uint32_t i = 0; i < 100'000; ++i) list.append(i);
  ASSERT_EQ(list.size(), 100'000u);
  for (std::uint32_t i = 0; i < 100'000; ++i) ASSERT_EQ(list.data()[i], i);
  EXPECT_LE(list.bytes(), 100'000u * 4 * 5 / 4);
  const std::size_t bytes = list.bytes();
  list.clear();
  for (std::uint32_t i = 0; i < 1000; ++i) list.append(i);
  EXPECT_EQ(list.bytes(), bytes);  // cleared, it keeps its capacity
}

TEST(ChannelRecords, ARunStopsWhenAChannelWouldExceedItsCap) {
  lmx::sim::Scenario s;
  s.nodes = 2, s.delta = 1, s.engine = lmx::sim::EngineKind::semi_sync, s.rounds = 10, s.seed = 1;
  s.topology.kind = lmx::sim::TopologyKind::edges, s.topology.edges = {{0, 1}};
  s.workload.kind = lmx::sim::WorkloadKind::manual;
  auto e = lmx::sim::make_engine(s, {});
  // Ready messages node 0 never asked for: the core ignores them, so they only fill the channel.
  const std::uint8_t ready = lmx::core::encode(lmx::core::Message{lmx::core::MessageKind::ready, 0});
  for (unsigned i = 0; i <= max_channel_count; ++i) e->inject_message(0, 1, ready);
  const auto& v = e->violations();
  const auto stop = std::find_if(v.begin(), v.end(), [](const lmx::sim::Violation& x) {
    return x.property == "P4" &&
           x.detail.find("more than " + std::to_string(max_channel_count) + " messages") != std::string::npos;
  });
  ASSERT_NE(stop, v.end());
  EXPECT_FALSE(e->step());  // the run has stopped
}

}  // namespace channel_records_test
