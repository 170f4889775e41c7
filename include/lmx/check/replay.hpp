// Re-execution of a checker counterexample (an lmx-trace/1 file with "source":"check") on the real
// core: every topology change, call, delivery and guarded action is replayed and the node's
// registers after each `act` line are compared with the trace. The file is read with the shared
// trace reader: a malformed line, a line out of order or a changed line (the end line's hash) is
// reported with its line number.
#pragma once

#include <iosfwd>
#include <string>

namespace lmx::check {

/// Returns true when every line replays and every `act` line's registers match; writes a short
/// report (one line per mismatch, then a summary) to `report`.
bool replay_counterexample(std::istream& trace, std::ostream& report, const std::string& name = "trace");

}  // namespace lmx::check
