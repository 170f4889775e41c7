// The golden-script interpreter (testdata/*.txt) on any script, one command per line, with a work
// limit of 5,000 (activations, a round or a run step counting each node) so that no input runs for
// long. Every command must answer with lines
// (errors included), never crash.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "lmx/script/interpreter.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  lmx::script::Interpreter interpreter(5'000);
  std::string_view rest(reinterpret_cast<const char*>(data), size);
  while (!rest.empty()) {
    const auto end = rest.find('\n');
    (void)interpreter.execute(rest.substr(0, end));
    rest.remove_prefix(end == std::string_view::npos ? rest.size() : end + 1);
  }
  return 0;
}
