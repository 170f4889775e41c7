// Replay of a simulator trace (`lmx replay`, docs/trace-format.md): the header's scenario is run
// again and every line it produces is compared with the file's, in order, so that an edited,
// removed, duplicated or reordered line, a changed header field or bytes after the end line are
// all found, at the first line that differs.
#pragma once

#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <string>

#include "lmx/sim/scenario.hpp"

namespace lmx::sim {

struct ReplayReport {
  bool same = false;                   ///< every line equal, and as many lines
  std::uint64_t lines = 0;             ///< lines of the file compared (the header included)
  std::uint64_t first_difference = 0;  ///< the 1-based line number of the first difference, 0 if none
  std::string expected;                ///< that line in the file ("" where the file had ended)
  std::string got;                     ///< that line in the re-run ("" where the re-run had ended)
  Scenario scenario;                   ///< the header's scenario
  std::string written_by;              ///< the header's lmx_version ("" if it has none)
  nlohmann::json summary;              ///< the re-run's summary (cut short at the first difference)
};

/// Re-runs a trace written by `lmx run --trace` ("source": "run"). `name` names the file in
/// errors. Throws trace::Error for a trace whose header cannot be read and ScenarioError for a
/// header whose scenario is invalid.
ReplayReport replay_run(std::istream& trace, const std::string& name);

}  // namespace lmx::sim
