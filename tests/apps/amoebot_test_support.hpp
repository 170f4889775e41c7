// Amoebots placed by hand, for the amoebot tests.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "lmx/apps/amoebot.hpp"

namespace amoebot_test_support {

inline lmx::apps::amoebot::Amoebot contracted_at(lmx::apps::amoebot::Node n, int compass = 0) {
  return {n, n, compass, {}};
}
/// An expanded amoebot: its head at `head`, its tail one step in global direction `global_tail_dir`.
inline lmx::apps::amoebot::Amoebot expanded_at(lmx::apps::amoebot::Node head, int global_tail_dir, int compass = 0) {
  return {head, lmx::apps::amoebot::step(head, global_tail_dir), compass, {}};
}

// Pieces of broken algorithms, to make the executions' checks fire.
inline void broken_init(lmx::apps::amoebot::Memory& m, std::uint32_t) { m = {}; }
inline bool broken_final(const lmx::apps::amoebot::Memory&) { return true; }
inline std::string broken_shape(const lmx::apps::amoebot::Configuration&) { return {}; }
inline bool when_expanded(const lmx::apps::amoebot::View& v) { return v.expanded(); }
inline void contract_to_tail(lmx::apps::amoebot::View& v) { v.contract_to_tail(); }
inline bool when_contracted(const lmx::apps::amoebot::View& v) { return v.contracted() && v.get(0) == 0; }
/// Sets variable 0, then expands towards an occupied node: an enabled action whose movement fails.
inline void expand_into_neighbour(lmx::apps::amoebot::View& v) {
  v.set(0, 1);
  for (lmx::apps::amoebot::Port p = 0; p < 6; ++p)
    if (v.connected(p)) v.expand(p);
}

/// The sequential execution's counters of two runs are equal.
inline void expect_same_counters(const lmx::apps::amoebot::Result& a, const lmx::apps::amoebot::Result& b) {
  EXPECT_EQ(a.activations, b.activations);
  EXPECT_EQ(a.rounds, b.rounds);
  EXPECT_EQ(a.moves, b.moves);
  EXPECT_EQ(a.actions, b.actions);
  EXPECT_EQ(a.handovers, b.handovers);
  EXPECT_EQ(a.final_activations, b.final_activations);
}

}  // namespace amoebot_test_support
