// A full run's exploration saved to a directory and read back (docs/checker.md, "A run in two
// sittings"). Internal to lmx::check.
#pragma once

#include <string>

#include "exploration.hpp"

namespace lmx::check::detail {

/// What a checkpoint must match to be resumed: the instance and every option that changes the
/// stored states or the graph.
std::string checkpoint_identity(const Instance& inst, const Options& opt, const Model& model);

/// Writes the finished exploration (node records, states, parent links, graph, then the header)
/// into Options::save_dir.
void save_checkpoint(Exploration& x);

/// Reads the exploration saved in Options::resume_dir back into x (its states, records, parent
/// links and graph, mapped read-only; its counters and times).
void load_checkpoint(Exploration& x);

}  // namespace lmx::check::detail
