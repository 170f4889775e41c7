// What every scenario fuzz target checks once the validator has accepted a scenario: its JSON form
// (what a trace header and `lmx run --json` hold) prints, parses back and validates to the same
// scenario. Only ScenarioError may come out of the validator; anything else escapes and crashes.
#pragma once

#include <nlohmann/json.hpp>

#include "fuzz_support.hpp"
#include "lmx/sim/scenario.hpp"

namespace lmx::fuzz {

/// Validates `j`; for a valid scenario, checks the round trip through text.
inline void validate_and_round_trip(const nlohmann::json& j) {
  sim::Scenario s;
  try {
    s = sim::scenario_from_json(j);
  } catch (const sim::ScenarioError& e) {
    // One line, printable: the message goes to a terminal as it is.
    for (const char c : std::string(e.what())) require(static_cast<unsigned char>(c) >= 0x20 && c != 0x7F);
    return;
  }
  const nlohmann::json once = s.to_json();
  const std::string text = once.dump();  // throws on invalid UTF-8: must not happen
  const sim::Scenario again = sim::scenario_from_json(nlohmann::json::parse(text));
  require(again.to_json() == once);
  require(sim::printable(s.name, sim::max_name_length) == s.name);  // a name needs no escaping
}

}  // namespace lmx::fuzz
