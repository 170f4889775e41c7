// Fuzz target: the parser of `lmx check --edges` and the instance's validation
// (lmx::check::parse_edges, lmx::check::validate; docs/checker.md, Flags).
//
// Input: one byte choosing the instance's nodes (1..4) and Delta (1..3), then the text given to
// --edges. Either it is refused with one line naming the option, or every edge it gives is
// between two distinct nodes, given once, with no node past Delta: anything else traps.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "fuzz_support.hpp"
#include "lmx/check/checker.hpp"

namespace {
using lmx::fuzz::require;

/// An error text: one line of printable text, about the option (the input it quotes escaped).
void require_error(const std::string& error) {
  require(error.rfind("--", 0) == 0);
  for (unsigned char c : error) require(c >= 0x20 && c < 0x7f);
}
}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  lmx::check::Instance inst;
  inst.nodes = 1 + data[0] % lmx::check::max_nodes;
  inst.delta = 1 + (data[0] / lmx::check::max_nodes) % lmx::check::max_delta;
  const std::string text(reinterpret_cast<const char*>(data + 1), size - 1);

  std::vector<std::pair<unsigned, unsigned>> edges;
  const std::string parsed = lmx::check::parse_edges(text, edges);
  if (!parsed.empty()) {
    require(parsed.rfind("--edges: ", 0) == 0);
    require_error(parsed);
    return 0;
  }
  // Accepted: the text is its items, each U-V in digits, joined by commas (or empty: no edges).
  std::size_t items = text.empty() ? 0 : 1;
  for (char c : text) {
    require(c == ',' || c == '-' || (c >= '0' && c <= '9'));
    items += c == ',';
  }
  require(edges.size() == items);
  for (const auto& [u, v] : edges) require(u != v);

  inst.edges = edges;
  const std::string valid = lmx::check::validate(inst);
  if (!valid.empty()) {
    require_error(valid);
    return 0;
  }
  std::set<std::pair<unsigned, unsigned>> seen;
  std::vector<unsigned> degree(inst.nodes, 0);
  for (const auto& [u, v] : edges) {
    require(u < inst.nodes && v < inst.nodes);
    require(seen.insert({std::min(u, v), std::max(u, v)}).second);
    require(++degree[u] <= inst.delta && ++degree[v] <= inst.delta);
  }
  require(!lmx::check::describe(inst).empty());
  return 0;
}
