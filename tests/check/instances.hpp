// Checker instances shared by the checker and mutant tests.
#pragma once

#include "lmx/check/checker.hpp"

namespace lmx::check::testing {

/// Two nodes joined by one edge, Delta = 1, K = 2: the smallest instances of the bounded suite.
inline Instance two_nodes(core::Variant v, unsigned locks, unsigned changes) {
  Instance i;
  i.variant = v;
  i.nodes = 2;
  i.delta = 1;
  i.k = 2;
  i.locks = locks;
  i.max_changes = changes;
  i.edges = {{0, 1}};
  return i;
}

/// The path 0-1-2, Delta = 2, K = 2.
inline Instance path_of_three(core::Variant v, unsigned locks, unsigned changes) {
  Instance i = two_nodes(v, locks, changes);
  i.nodes = 3;
  i.delta = 2;
  i.edges = {{0, 1}, {1, 2}};
  return i;
}

}  // namespace lmx::check::testing
