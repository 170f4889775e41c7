// `--set key=value` overrides, one per line, applied to a scenario's JSON form, then the validator.
// The first byte picks the starting point: nothing (`lmx run --set ...`) or every key written out
// (a trace header's scenario).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "scenario_oracle.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  nlohmann::json j = (data[0] & 1u) ? lmx::sim::Scenario{}.to_json() : nlohmann::json::object();
  std::string_view rest(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    while (!rest.empty()) {
      const auto end = rest.find('\n');
      lmx::sim::apply_override(j, std::string(rest.substr(0, end)));
      rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
    }
  } catch (const lmx::sim::ScenarioError& e) {
    for (const char c : std::string(e.what())) lmx::fuzz::require(static_cast<unsigned char>(c) >= 0x20 && c != 0x7F);
    return 0;
  }
  lmx::fuzz::validate_and_round_trip(j);
  return 0;
}
