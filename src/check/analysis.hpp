// The analysis of a full run after its exploration: deadlock, the split into parts, and fair end
// components for P7 (docs/checker.md, "Properties and how they are decided"). Internal to lmx::check.
#pragma once

#include <cstdint>
#include <vector>

#include "analysis_record.hpp"
#include "exploration.hpp"

namespace lmx::check::detail {

/// Reachable completions for all nodes at once, and a deadlock reported for every pending
/// operation that no node move can complete (deadlock.cpp). Read from the record if it has them.
void find_deadlocks(Exploration& x, AnalysisLog& log);

/// The stored states split into parts that no node move connects (docs/checker.md, "Parts").
struct Parts {
  unsigned count = 1;
  std::vector<std::uint8_t> part_of;  ///< per stored state (empty with one part)
  std::vector<bool> done;             ///< decided in an earlier sitting (the record has it)
  std::vector<Graph> graphs;          ///< with several parts: each part's graph, its states numbered in it
};

/// Splits the stored states into parts and copies each part's graph out of the whole one, which
/// is then freed (parts.cpp).
Parts split_into_parts(Exploration& x, AnalysisLog& log);

/// P7: the fair end components of every node's region, part by part, on stored states and on the
/// concrete states rebuilt where actions rename (fairness.cpp); reported once all are decided.
void decide_fair_end_components(Exploration& x, AnalysisLog& log, Parts& parts);

}  // namespace lmx::check::detail
