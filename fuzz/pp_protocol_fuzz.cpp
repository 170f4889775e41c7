// A population protocol file's text (docs/population.md, "Protocol files"): TOML parsing, the
// states, rules, initial configuration and output map, and the validator. Bad text must be one
// printable ProtocolError line; a valid protocol must survive its own JSON form, fill its lookup
// table for every ordered pair of states, and share any number of agents out exactly.
#include <cstddef>
#include <cstdint>
#include <numeric>
#include <string>
#include <string_view>

#include "fuzz_support.hpp"
#include "lmx/apps/population.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  namespace pp = lmx::apps::pp;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  pp::Protocol protocol = [&] {
    try {
      return pp::protocol_from_toml(text, "fuzz.toml");
    } catch (const pp::ProtocolError& e) {
      lmx::fuzz::require(lmx::fuzz::printable_line(e.what()));
      return pp::Protocol{};
    }
  }();
  const std::size_t states = protocol.states.size();
  if (states == 0) return 0;  // rejected above
  lmx::fuzz::require(protocol.table().size() == states * states);
  // The JSON form is the file's form after --set: it must give the same protocol back.
  const nlohmann::json j = protocol.to_json();
  const pp::Protocol again = pp::protocol_from_json(j, "round trip");
  lmx::fuzz::require(again.to_json() == j);
  lmx::fuzz::require(again.table() == protocol.table());
  for (const std::uint64_t n : {std::uint64_t{1}, std::uint64_t{7}, std::uint64_t{1000}, protocol.agents}) {
    const auto counts = protocol.initial_counts_for(n);
    lmx::fuzz::require(counts.size() == states);
    lmx::fuzz::require(std::accumulate(counts.begin(), counts.end(), std::uint64_t{0}) == n);
  }
  return 0;
}
