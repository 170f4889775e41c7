// The application's record (workload.hpp): 12 bytes a node, and its message and lock counts exact
// past the 16 bits the record keeps of them.
#include "sim/workload.hpp"

#include <gtest/gtest.h>

#include <cstdint>

namespace workload_test {

using lmx::sim::Workload;

Workload workload_of(lmx::sim::NodeId n) {
  lmx::sim::Scenario s;
  s.nodes = n;
  return Workload(s, n, 1);
}

TEST(Workload, LockCountsAreExactPastSixteenBits) {
  Workload w = workload_of(3);
  for (std::uint64_t i = 0; i < 70'000; ++i) w.add_lock(1);
  for (std::uint64_t i = 0; i < 131'072; ++i) w.add_lock(2);  // exactly 2^17: low bits 0
  w.add_lock(0);
  EXPECT_EQ(w.locks(1), 70'000u);
  EXPECT_EQ(w.locks(2), 131'072u);
  EXPECT_EQ(w.app(2).locks_low, 0u);
  EXPECT_EQ(w.locks(0), 1u);
}

TEST(Workload, MessageCountsAreExactPastSixteenBitsAndRestartWithARequest) {
  Workload w = workload_of(2);
  w.start_request(0), w.start_request(1);
  for (int i = 0; i < 30'000; ++i) w.add_messages(0, 3);  // 90 000: wraps once, in the middle of an add
  w.add_messages(1, 5);
  EXPECT_EQ(w.messages(0), 90'000u);
  EXPECT_EQ(w.messages(1), 5u);
  w.add_messages(0, std::uint64_t{1} << 20);
  EXPECT_EQ(w.messages(0), 90'000u + (std::uint64_t{1} << 20));
  // The next request counts from 0, its high bits too.
  w.start_request(0);
  EXPECT_EQ(w.messages(0), 0u);
  w.add_messages(0, 7);
  EXPECT_EQ(w.messages(0), 7u);
  EXPECT_EQ(w.messages(1), 5u);
}

}  // namespace workload_test
