// The record of a resumed run's analysis, kept beside its checkpoint (docs/checker.md, "And in
// more"). Internal to lmx::check.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

#include "exploration.hpp"

namespace lmx::check::detail {

/// What a resumed run has decided so far, kept beside its checkpoint (the file `analysis`) so
/// that a run resumed again goes on from there: the deadlock check's reports, then each part
/// decided, with what it found and the concrete states it rebuilt.
struct AnalysisRecord {
  struct Part {
    std::uint64_t lifted = 0;
    std::vector<Found> found;
  };
  std::string run;  ///< the checkpoint's identity and the options the results depend on
  bool deadlock_done = false;
  unsigned deadlock_sweeps = 0;
  std::vector<std::pair<unsigned, std::uint32_t>> deadlocks;  ///< (node, stored state), as reported
  unsigned parts = 0;
  std::map<unsigned, Part> parts_done;
  std::vector<std::pair<Phase, double>> phase_cpu_seconds;  ///< of the analysis, all sittings
  double seconds = 0;                                       ///< wall seconds of the analysis, all sittings
};

/// Reads the record `analysis` in `dir` if it is one of run `run`; an empty record otherwise (none
/// yet, one of other options, or of an earlier format: the analysis starts over and replaces it).
/// A record of this run whose checksum does not match, or that is malformed or names a node,
/// stored state or part that the exploration `x` has not, is an error (CheckpointError).
AnalysisRecord read_analysis(const std::string& dir, const std::string& run, const Exploration& x);

/// Writes the record `analysis` into `dir` (to a new file, then renamed over the old one: a
/// record is whole or absent), its checksum last. A record that cannot be written costs only the
/// work a later run would redo: it is skipped.
void write_analysis(const std::string& dir, const AnalysisRecord& rec);

/// The analysis's record in a run: read from beside the checkpoint and kept there after each step
/// when resuming; empty, and never written, otherwise.
struct AnalysisLog {
  /// Reads the record of a resumed run, and counts its earlier sittings' times in x.
  explicit AnalysisLog(Exploration& x);
  /// Writes the record with the times so far (when resuming).
  void save(const Exploration& x);
  bool keep = false;
  std::string dir;   ///< where it is kept: the checkpoint's directory
  std::string path;  ///< dir + "/analysis", for messages
  AnalysisRecord record;
};

}  // namespace lmx::check::detail
