// The report's loaders: a run summary (`lmx report RUN.json`) and a trace summarised for the page
// (`--trace`). The first byte picks the loader, the rest is the file. Only report::Error may come
// out, as one printable line; an accepted summary has every field the page reads, with its type.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz_support.hpp"
#include "report.hpp"

using lmx::fuzz::printable_line;
using lmx::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  const std::string text(reinterpret_cast<const char*>(data) + 1, size - 1);
  try {
    if (data[0] % 2 == 0) {
      const nlohmann::json run = lmx::report::parse_run(text, "fuzz.json");
      require(run.is_object() && run.at("schema") == 1);
      require(run.at("seed").is_number_unsigned() && run.at("series").at("round").is_array());
      for (const auto& v : run.at("per_node_locks")) require(v.is_number());
      lmx::report::check_run(run, "again");  // accepted once, accepted again
    } else {
      std::istringstream in(text);
      const nlohmann::json summary = lmx::report::summarize_trace(in, "fuzz.jsonl", "fuzz.jsonl");
      require(summary.at("complete") == true && summary.at("latencies").is_array());
      require(summary.at("event_hash").is_string() && summary.at("stalled").is_boolean());
      for (const auto& latency : summary.at("latencies")) require(latency.is_number());
    }
  } catch (const lmx::report::Error& e) {
    require(printable_line(e.what()));
  }
  return 0;
}
