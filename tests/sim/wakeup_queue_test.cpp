// The calendar queue of asynchronous executions takes (tick, node) pairs in exactly the order of a
// binary heap of pairs, whatever is pushed: the engine's pattern (starts up to two rounds ahead),
// starts beyond the window, starts before the current tick, and pushes into the tick being taken.
#include "sim/wakeup_queue.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <functional>
#include <map>
#include <queue>
#include <random>
#include <set>
#include <stdexcept>
#include <vector>

namespace wakeup_queue_test {

using lmx::sim::NodeId;
using lmx::sim::WakeupQueue;
using Heap = std::priority_queue<std::pair<std::uint64_t, NodeId>, std::vector<std::pair<std::uint64_t, NodeId>>,
                                 std::greater<>>;

/// Runs `rounds` rounds of `ticks` ticks over both queues; each taken execution schedules its next
/// start by `next(t, rng)`, with push_later (as the engine does) where `later` and the start is
/// after the tick being taken. Every pop must agree.
template <class Next>
void compare(NodeId n, std::uint32_t ticks, std::uint32_t window, int rounds, std::uint64_t seed, Next&& next,
             bool later = false) {
  WakeupQueue calendar(window);
  Heap heap;
  std::mt19937_64 rng(seed);
  for (NodeId u = 0; u < n; ++u) {
    const std::uint64_t t = rng() % ticks;
    calendar.push(t, u), heap.push({t, u});
  }
  std::uint64_t taken = 0;
  for (int r = 0; r < rounds; ++r) {
    const std::uint64_t end = std::uint64_t(r + 1) * ticks;
    for (;;) {
      std::uint64_t t = 0;
      NodeId u = 0;
      const bool got = calendar.pop_before(end, t, u);
      const bool expected = !heap.empty() && heap.top().first < end;
      ASSERT_EQ(got, expected) << "round " << r;
      if (!got) break;
      ASSERT_EQ(t, heap.top().first) << "round " << r;
      ASSERT_EQ(u, heap.top().second) << "round " << r;
      heap.pop();
      ++taken;
      const std::uint64_t start = next(t, rng);
      if (later && start > t)
        calendar.push_later(start, u);
      else
        calendar.push(start, u);
      heap.push({start, u});
    }
    ASSERT_EQ(calendar.size(), heap.size());
  }
  EXPECT_GT(taken, std::uint64_t(n) * std::uint64_t(rounds) / 4);
}

TEST(WakeupQueue, TheEnginesPatternInHeapOrder) {
  // A duration in 1..ticks and a gap in 0..ticks-1, as Scheduler::finish_execution draws them.
  for (std::uint64_t seed = 1; seed <= 5; ++seed)
    compare(3000, 1024, 2048, 12, seed,
            [](std::uint64_t t, std::mt19937_64& rng) { return t + 1 + rng() % 1024 + rng() % 1024; });
}

// A few nodes over a wide window leave most buckets empty: pop_before skips them by the buckets'
// bits, across the ring's wrap and its 64-bucket words, and must still take the heap's order.
TEST(WakeupQueue, FewNodesOverAWideWindowInHeapOrder) {
  for (const NodeId n : {NodeId{1}, NodeId{2}, NodeId{7}})
    for (const std::uint32_t window : {16u, 100u, 2048u})
      for (std::uint64_t seed = 1; seed <= 3; ++seed) {
        const std::uint64_t ticks = (window + 1) / 2;
        compare(n, static_cast<std::uint32_t>(ticks), window, 60, seed,
                [ticks](std::uint64_t t, std::mt19937_64& rng) { return t + 1 + rng() % ticks + rng() % ticks; });
        compare(
            n, static_cast<std::uint32_t>(ticks), window, 60, seed,
            [ticks](std::uint64_t t, std::mt19937_64& rng) { return t + 1 + rng() % ticks + rng() % ticks; }, true);
      }
}

// The engine's pushes are delayed by two (push_later): the same order, in each pattern.
TEST(WakeupQueue, DelayedPushesKeepTheHeapOrder) {
  auto engine = [](std::uint64_t t, std::mt19937_64& rng) { return t + 1 + rng() % 1024 + rng() % 1024; };
  for (std::uint64_t seed = 1; seed <= 3; ++seed) compare(3000, 1024, 2048, 12, seed, engine, true);
  compare(
      5000, 8, 16, 40, 7, [](std::uint64_t t, std::mt19937_64& rng) { return t + 1 + rng() % 8 + rng() % 8; }, true);
  // Few nodes: with one or two, the ring holds nothing while a push is still delayed (the jump to
  // the next start must wait for it); with three, the delayed pushes are flushed at each advance.
  for (const NodeId n : {1u, 2u, 3u}) compare(n, 1024, 2048, 50, 4, engine, true);
  compare(
      800, 64, 16, 30, 11,
      [](std::uint64_t t, std::mt19937_64& rng) {
        const auto pick = rng() % 10;
        if (pick == 0) return t;
        if (pick == 1) return t + 5000 + rng() % 100;
        return t + 1 + rng() % 100;
      },
      true);
}

TEST(WakeupQueue, ManyNodesPerTickAreTakenBySmallerNodeFirst) {
  // 8 ticks per round: hundreds of nodes share every tick.
  compare(5000, 8, 16, 40, 7, [](std::uint64_t t, std::mt19937_64& rng) { return t + 1 + rng() % 8 + rng() % 8; });
}

TEST(WakeupQueue, LargeNodeNumbersInFullBucketsAreTakenInOrder) {
  // Buckets of hundreds of nodes (sorted by radix) whose numbers need 31 bits (four passes):
  // nodes spread over 0..2^31 by a multiplier, pushed in a random order.
  WakeupQueue calendar(64);
  Heap heap;
  std::mt19937_64 rng(13);
  for (NodeId i = 0; i < 20000; ++i) {
    const auto u = static_cast<NodeId>((std::uint64_t{i} * 2654435761u) % (NodeId{1} << 31));
    const std::uint64_t t = rng() % 16;
    calendar.push(t, u), heap.push({t, u});
  }
  std::uint64_t t = 0;
  NodeId u = 0;
  while (calendar.pop_before(1000, t, u)) {
    ASSERT_FALSE(heap.empty());
    ASSERT_EQ(t, heap.top().first);
    ASSERT_EQ(u, heap.top().second);
    heap.pop();
  }
  EXPECT_TRUE(heap.empty());
}

TEST(WakeupQueue, EveryDigitWidthOfTheBucketSortTakesTheHeapOrder) {
  // One tick's bucket of each size, its nodes below each bound: the sort's digit width depends on
  // both (6, 8 and 10 bits are each used below), its order must not.
  std::set<unsigned> widths;
  std::mt19937_64 rng(17);
  for (const std::size_t size : {70u, 250u, 1000u, 6000u})
    for (const std::uint64_t bound : {std::uint64_t{1} << 12, std::uint64_t{1} << 20, std::uint64_t{1} << 31}) {
      WakeupQueue calendar(8);
      Heap heap;
      std::set<NodeId> nodes;
      while (nodes.size() < std::min<std::uint64_t>(size, bound / 2)) nodes.insert(static_cast<NodeId>(rng() % bound));
      NodeId any = 0;
      for (const NodeId u : nodes) calendar.push(3, u), heap.push({3, u}), any |= u;
      widths.insert(WakeupQueue::digit_bits(nodes.size(), static_cast<unsigned>(std::bit_width(any))));
      std::uint64_t t = 0;
      NodeId u = 0;
      while (calendar.pop_before(100, t, u)) {
        ASSERT_FALSE(heap.empty());
        ASSERT_EQ(t, heap.top().first);
        ASSERT_EQ(u, heap.top().second) << size << " nodes below " << bound;
        heap.pop();
      }
      EXPECT_TRUE(heap.empty());
    }
  EXPECT_EQ(widths, (std::set<unsigned>{6, 8, 10}));
}

TEST(WakeupQueue, StartsOutsideTheWindowAndIntoTheCurrentTick) {
  // A small window (most starts land beyond it), some starts in the tick being taken, and a few
  // far in the future: the heap beside the ring keeps the order.
  compare(800, 64, 16, 30, 11, [](std::uint64_t t, std::mt19937_64& rng) {
    const auto pick = rng() % 10;
    if (pick == 0) return t;                       // the current tick
    if (pick == 1) return t + 5000 + rng() % 100;  // far beyond the window
    return t + 1 + rng() % 100;
  });
}

TEST(WakeupQueue, AStartBeforeTheCurrentTickIsTakenFirst) {
  WakeupQueue q(16);
  q.push(10, 3);
  std::uint64_t t = 0;
  NodeId u = 0;
  ASSERT_FALSE(q.pop_before(5, t, u));  // the window moved up to tick 5, nothing before it
  q.push(2, 9);                         // behind the window: the heap takes it
  q.push(7, 1);
  ASSERT_TRUE(q.pop_before(100, t, u));
  EXPECT_EQ(std::pair(t, u), std::pair(std::uint64_t{2}, NodeId{9}));
  ASSERT_TRUE(q.pop_before(100, t, u));
  EXPECT_EQ(std::pair(t, u), std::pair(std::uint64_t{7}, NodeId{1}));
  ASSERT_TRUE(q.pop_before(100, t, u));
  EXPECT_EQ(std::pair(t, u), std::pair(std::uint64_t{10}, NodeId{3}));
  EXPECT_FALSE(q.pop_before(100, t, u));
  EXPECT_EQ(q.size(), 0u);
}

// push_later of a start not after the tick being taken is an immediate push: it can be next.
TEST(WakeupQueue, ADelayedPushAtOrBeforeTheCurrentTickIsNotDelayed) {
  WakeupQueue q(16);
  q.push(10, 3), q.push(10, 8);
  std::uint64_t t = 0;
  NodeId u = 0;
  ASSERT_TRUE(q.pop_before(100, t, u));
  EXPECT_EQ(std::pair(t, u), std::pair(std::uint64_t{10}, NodeId{3}));
  q.push_later(10, 5);  // the current tick, before node 8
  q.push_later(4, 6);   // behind the window
  ASSERT_TRUE(q.pop_before(100, t, u));
  EXPECT_EQ(std::pair(t, u), std::pair(std::uint64_t{4}, NodeId{6}));
  ASSERT_TRUE(q.pop_before(100, t, u));
  EXPECT_EQ(std::pair(t, u), std::pair(std::uint64_t{10}, NodeId{5}));
  ASSERT_TRUE(q.pop_before(100, t, u));
  EXPECT_EQ(std::pair(t, u), std::pair(std::uint64_t{10}, NodeId{8}));
  EXPECT_FALSE(q.pop_before(100, t, u));
}

// count_remaining: after every pop, a node may start again at the tick being taken exactly when
// that tick still holds it (with a slot per node), and whenever it does (with slots shared by
// many nodes, when a node of its slot is still held). The counting starts mid-tick, after starts
// were pushed into the tick being taken; then starts are pushed later in the window, with push
// and push_later, and beyond it (held beside the ring until their tick), and a push into or
// before the tick being taken is refused (the counts must only fall).
TEST(WakeupQueue, CountsTheNodesTheTickBeingTakenStillHolds) {
  constexpr NodeId n = 1500;
  for (const std::size_t slots : {std::size_t{2048}, std::size_t{16}}) {
    WakeupQueue q(16);
    std::map<std::uint64_t, std::multiset<NodeId>> held;  // tick -> nodes
    std::mt19937_64 rng(slots);
    for (NodeId u = 0; u < n; ++u) {
      const std::uint64_t t = rng() % 8;
      q.push(t, u), held[t].insert(u);
    }
    std::uint64_t t = 0, pops = 0;
    NodeId u = 0;
    while (q.pop_before(160, t, u)) {
      held[t].erase(held[t].find(u));
      if (++pops == 5) q.count_remaining(slots);  // mid-tick: the bucket is already sorted
      if (pops >= 5) {
        std::vector<bool> slot_held(slots, false);
        for (const NodeId v : held[t]) slot_held[v % slots] = true;
        for (NodeId v = 0; v < n; ++v) {
          const bool holds = held[t].count(v) > 0;
          ASSERT_EQ(q.may_start_in_this_tick(v), slots >= n ? holds : bool(slot_held[v % slots]))
              << "slots " << slots << ", tick " << t << ", node " << v;
        }
      }
      const auto pick = rng() % 8;
      if (pops >= 5 && pick == 0) {
        EXPECT_THROW(q.push(t, u), std::logic_error);
        if (t > 0) {
          EXPECT_THROW(q.push(t - 1, u), std::logic_error);
        }
      }
      // Into this tick only before the counting; now and then beyond the window of 16 ticks.
      const std::uint64_t next = pick == 0 && pops < 5 ? t
                                 : pick == 2           ? t + 20 + rng() % 8
                                                       : t + 1 + rng() % 8 + rng() % 8;
      if (pick == 1)
        q.push_later(next, u);
      else
        q.push(next, u);
      held[next].insert(u);
    }
    EXPECT_GT(pops, std::uint64_t{n} * 4);
  }
}

}  // namespace wakeup_queue_test
