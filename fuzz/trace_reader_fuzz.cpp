// The trace reader (lmx::trace::Reader), through which `lmx replay`, `lmx report --trace` and
// `lmx check --replay` read every trace. Any bytes: only trace::Error may come out, as one
// printable line naming a line the input has; what is accepted is numbered in order, one JSON
// object per line with a string "ev" and "t" equal to its position, and a trace read to its end
// line is complete with nothing after it.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "fuzz_support.hpp"
#include "lmx/trace/trace.hpp"

using lmx::fuzz::printable_line;
using lmx::fuzz::require;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  std::size_t newlines = 0;
  for (const char c : text) newlines += c == '\n';
  std::istringstream in(text);
  std::uint64_t last = 0;
  try {
    lmx::trace::Reader reader(in, "fuzz.jsonl");
    require(reader.header().is_object() && reader.header_line().number == 1);
    last = 1;
    lmx::trace::Line line;
    while (reader.next(line)) {
      require(line.number == last + 1);
      last = line.number;
      require(line.event.is_object() && line.event.at("ev").is_string() && line.ev == line.event.at("ev"));
      require(line.event.at("t").get<std::uint64_t>() == line.number - 1);
      require(line.text.find('\n') == std::string::npos);
      // the typed accessor the readers share: in range or one error line
      if (line.event.contains("round")) {
        try {
          const auto round = lmx::trace::get_uint(reader, line, "round", 0, 1000);
          require(round <= 1000);
        } catch (const lmx::trace::Error& e) {
          require(e.line == line.number && printable_line(e.what()));
        }
      }
    }
    // every line was read: a complete trace ends with its end line, an incomplete one at the file's end
    require(last <= newlines);
    if (reader.complete()) require(last == newlines);
  } catch (const lmx::trace::Error& e) {
    require(printable_line(e.what()));
    require(e.line >= 1 && e.line <= newlines + 1);
  }
  return 0;
}
