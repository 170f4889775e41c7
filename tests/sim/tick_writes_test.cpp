// The asynchronous engine's deferred writes (Network::begin_ticks, docs/simulator.md "Deferred
// writes"): a write into a node that may still start an execution in the tick being taken is made
// at once, any other waits for the tick's end and then carries the tick's stamp. Whole runs seldom
// tell the first case from deferring (a message sent in a tick is not receivable in it, and a bag
// removal leaves the same contents either way; only P4's count along an edge and a dormant node's
// look for messages would differ), so this drives a Network and the calendar directly.
#include <gtest/gtest.h>

#include <cstdint>

#include "sim/network.hpp"
#include "sim/wakeup_queue.hpp"

namespace tick_writes_test {

using lmx::sim::Network;
using lmx::sim::NodeId;
using lmx::sim::WakeupQueue;
using Port = lmx::core::Port;

constexpr std::uint8_t message = 0x21;

struct Fixture {
  std::uint32_t now = 0;
  // Four nodes, Delta = 2, writes deferred where the engine would; edges 0-1 and 0-2 on port 1 of
  // node 1 and port 1 of node 2, ports 1 and 2 of node 0.
  Network<std::uint16_t> net{4, 2, false, true, 14, now};
  WakeupQueue calendar{16};
  Fixture() {
    net.link(0, 1, 1, 1);
    net.link(0, 2, 2, 1);
    calendar.count_remaining(1024);
  }
  /// Takes the next execution, which must be node u's at tick t.
  void take(std::uint64_t t, NodeId u) {
    std::uint64_t got_t = 0;
    NodeId got_u = 0;
    ASSERT_TRUE(calendar.pop_before(100, got_t, got_u));
    ASSERT_EQ(got_t, t);
    ASSERT_EQ(got_u, u);
    now = static_cast<std::uint32_t>(t);
  }
};

TEST(TickWrites, IntoANodeLaterInTheTickAtOnceIntoAnyOtherAtTheTicksEnd) {
  Fixture f;
  f.calendar.push(5, 0), f.calendar.push(5, 1), f.calendar.push(9, 2);
  f.net.begin_ticks(f.calendar);
  f.take(5, 0);
  // Node 1 starts later in tick 5: its message is there for it (and for P4's count at its sends).
  const auto to_1 = f.net.post(0, 1, 1, 1, message, 0);
  EXPECT_EQ(f.net.count(1, 1), 1u);
  EXPECT_EQ(to_1.along, 1u);
  // Node 2 does not start in tick 5: the message waits for the tick's end.
  const auto to_2 = f.net.post(0, 2, 2, 1, message, 0);
  EXPECT_EQ(f.net.count(2, 1), 0u);
  EXPECT_EQ(to_2.along, 1u);  // counted from the sender's record all the same
  EXPECT_EQ(f.net.deferred_writes(), 1u);
  f.take(5, 1);
  // Node 1 answers in the same tick: the edge holds both messages.
  EXPECT_EQ(f.net.post(1, 1, 0, 1, message, 0).along, 2u);
  f.net.end_tick();
  EXPECT_EQ(f.net.count(2, 1), 1u);
  EXPECT_EQ(f.net.stored(f.net.channel(2, 1), 0).stamp, 5u);  // the tick it was sent in
  // Node 0 had taken its turn: node 1's answer waited for the tick's end too.
  EXPECT_EQ(f.net.count(0, 1), 1u);
  f.net.end_ticks();
  EXPECT_EQ(f.net.deferred_writes(), 2u);
  EXPECT_EQ(f.net.in_transit(), 3u);
}

// A delivery decrements the sender's copy of the count (`outgoing`) by the same rule, and a send
// into a channel that holds its two inline messages is written at once, after the tick's waiting
// writes.
TEST(TickWrites, DeliveriesAndFullChannelsKeepTheSendersCounts) {
  Fixture f;
  f.calendar.push(3, 2), f.calendar.push(3, 0), f.calendar.push(4, 0);
  f.net.begin_ticks(f.calendar);
  f.take(3, 0);
  f.net.post(0, 2, 2, 1, message, 0);  // node 2 starts later in tick 3: at once
  ASSERT_EQ(f.net.count(2, 1), 1u);
  f.take(3, 2);
  f.net.remove(2, 1, 0);               // node 2 takes it; node 0 is done with tick 3
  f.net.post(2, 1, 0, 2, message, 0);  // and answers, deferred
  f.net.end_tick();
  f.take(4, 0);
  // Node 0's copy fell back to 0 at the tick's end, and the answer has arrived.
  EXPECT_EQ(f.net.post(0, 2, 2, 1, message, 0).along, 2u);
  EXPECT_EQ(f.net.post(0, 2, 2, 1, message, 0).along, 3u);  // P4 broken; both wait (node 2 is not in tick 4)
  EXPECT_EQ(f.net.count(2, 1), 0u);
  // Node 2 now holds two of node 0's messages by node 0's count: a third is written at once, and
  // the two waiting ones are written first (in the other order the second would find no slot).
  EXPECT_EQ(f.net.post(0, 2, 2, 1, message, 0).along, 4u);
  EXPECT_EQ(f.net.count(2, 1), 3u);
  f.net.end_ticks();
  EXPECT_EQ(f.net.count(2, 1), 3u);
  EXPECT_EQ(f.net.in_transit(), 4u);
}

}  // namespace tick_writes_test
