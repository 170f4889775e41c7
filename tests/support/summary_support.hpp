// The run summary as tests compare two runs of the same scenario: without the fields that measure
// the machine or the simulator's own memory, which differ from run to run.
#pragma once

#include <nlohmann/json.hpp>

namespace lmx::test {

inline nlohmann::json comparable_summary(nlohmann::json summary) {
  for (const char* key : {"actions_per_second", "wall_seconds", "bytes_per_node", "bytes_per_node_by_part"})
    summary.erase(key);
  return summary;
}

}  // namespace lmx::test
