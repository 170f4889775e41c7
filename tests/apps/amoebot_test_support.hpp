// Amoebots placed by hand, for the amoebot tests.
#pragma once

#include "lmx/apps/amoebot.hpp"

namespace amoebot_test_support {

inline lmx::apps::amoebot::Amoebot contracted_at(lmx::apps::amoebot::Node n, int compass = 0) {
  return {n, n, compass, {}};
}
/// An expanded amoebot: its head at `head`, its tail one step in global direction `global_tail_dir`.
inline lmx::apps::amoebot::Amoebot expanded_at(lmx::apps::amoebot::Node head, int global_tail_dir, int compass = 0) {
  return {head, lmx::apps::amoebot::step(head, global_tail_dir), compass, {}};
}

}  // namespace amoebot_test_support
