// A scenario file's text: TOML parsing, the conversion to the JSON form and the validator. Bad
// text must be one ScenarioError line; a valid scenario must survive its own JSON form.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "scenario_oracle.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  nlohmann::json j;
  try {
    j = lmx::sim::scenario_json_from_toml(text, "fuzz.toml");
  } catch (const lmx::sim::ScenarioError& e) {
    for (const char c : std::string(e.what())) lmx::fuzz::require(static_cast<unsigned char>(c) >= 0x20 && c != 0x7F);
    return 0;
  }
  lmx::fuzz::validate_and_round_trip(j);
  return 0;
}
