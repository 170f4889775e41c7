// An edge-list file's content, read for two networks (64 nodes with Delta = 8, and 6 nodes with
// Delta = 3 as in examples/), then the topology built by the engine through the validator. What
// the reader accepts, the validator must accept too (the same rules, inline); the engine may only
// refuse it for the Delta cap.
#include <cstddef>
#include <cstdint>
#include <set>
#include <sstream>
#include <string>

#include "fuzz_support.hpp"
#include "lmx/sim/simulation.hpp"

namespace {

using lmx::fuzz::require;

void read_and_build(const std::string& text, lmx::sim::NodeId nodes, unsigned delta) {
  using namespace lmx::sim;
  std::istringstream in(text);
  std::vector<std::pair<NodeId, NodeId>> edges;
  try {
    edges = parse_edge_list(in, "fuzz.edges", nodes);
  } catch (const ScenarioError& e) {
    for (const char c : std::string(e.what())) require(static_cast<unsigned char>(c) >= 0x20 && c != 0x7F);
    return;
  }
  std::set<std::pair<NodeId, NodeId>> seen;
  for (auto [u, v] : edges)
    require(u < nodes && v < nodes && u != v && seen.insert({std::min(u, v), std::max(u, v)}).second);
  if (edges.empty()) return;  // kind "edges" needs some edges (or a file)
  Scenario s;
  s.nodes = nodes, s.delta = delta, s.engine = lmx::sim::EngineKind::semi_sync, s.rounds = 2;
  s.topology.kind = lmx::sim::TopologyKind::edges, s.topology.edges = edges;
  const Scenario valid = scenario_from_json(s.to_json());  // must not throw
  try {
    auto engine = make_engine(valid);
    while (engine->step()) {
    }
  } catch (const ScenarioError& e) {
    require(std::string(e.what()).find("Delta") != std::string::npos);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  read_and_build(text, 64, 8);
  read_and_build(text, 6, 3);
  return 0;
}
