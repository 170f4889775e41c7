// An instance of the checker and the names of its results: parsing --edges, validating, describing
// (docs/checker.md).
#include <sstream>
#include <string>

#include "lmx/check/checker.hpp"

namespace lmx::check {

std::string parse_edges(const std::string& text, std::vector<std::pair<unsigned, unsigned>>& out) {
  out.clear();
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    if (item.empty()) continue;
    const auto dash = item.find('-');
    if (dash == std::string::npos) return "edge '" + item + "' is not of the form U-V";
    try {
      out.emplace_back(static_cast<unsigned>(std::stoul(item.substr(0, dash))),
                       static_cast<unsigned>(std::stoul(item.substr(dash + 1))));
    } catch (...) {
      return "edge '" + item + "' is not of the form U-V";
    }
  }
  return {};
}

std::string validate(const Instance& inst) {
  if (inst.nodes < 1 || inst.nodes > max_nodes) return "--nodes must be 1.." + std::to_string(max_nodes);
  if (inst.delta < 1 || inst.delta > max_delta) return "--delta must be 1.." + std::to_string(max_delta);
  if (inst.k < core::k_min || inst.k > core::k_max) return "--k must be 2..32";
  if (inst.locks > 15) return "--locks must be at most 15";
  if (inst.max_changes > 15) return "--max-changes must be at most 15";
  std::vector<unsigned> degree(inst.nodes, 0);
  for (std::size_t i = 0; i < inst.edges.size(); ++i) {
    auto [u, v] = inst.edges[i];
    if (u >= inst.nodes || v >= inst.nodes || u == v)
      return "edge " + std::to_string(u) + "-" + std::to_string(v) + " is not between two distinct nodes";
    for (std::size_t j = 0; j < i; ++j)
      if ((inst.edges[j].first == u && inst.edges[j].second == v) ||
          (inst.edges[j].first == v && inst.edges[j].second == u))
        return "edge " + std::to_string(u) + "-" + std::to_string(v) + " given twice";
    if (++degree[u] > inst.delta || ++degree[v] > inst.delta) return "a node has more than Delta neighbours";
  }
  return {};
}

std::string describe(const Instance& inst) {
  std::string e;
  for (auto [u, v] : inst.edges) e += (e.empty() ? "" : ",") + std::to_string(u) + "-" + std::to_string(v);
  return std::string(core::to_string(inst.variant)) + " nodes=" + std::to_string(inst.nodes) +
         " edges=" + (e.empty() ? "none" : e) + " delta=" + std::to_string(inst.delta) +
         " k=" + std::to_string(inst.k) +
         " locks=" + (inst.locks == unbounded_locks ? std::string("unbounded") : std::to_string(inst.locks)) +
         " changes=" + std::to_string(inst.max_changes);
}

std::string_view to_string(Phase p) {
  switch (p) {
    case Phase::exploring: return "exploring";
    case Phase::deadlock: return "deadlock";
    case Phase::splitting: return "splitting";
    case Phase::end_components: return "end components";
    case Phase::rebuilding: return "rebuilding";
    case Phase::deciding: return "deciding";
    case Phase::counterexamples: return "counterexamples";
  }
  return "?";
}

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::pass: return "pass";
    case Verdict::fail: return "fail";
    case Verdict::incomplete: return "incomplete";
  }
  return "?";
}

std::string_view to_string(Limit l) {
  switch (l) {
    case Limit::none: return "";
    case Limit::states: return "states";
    case Limit::seconds: return "seconds";
    case Limit::saved: return "saved";
  }
  return "?";
}

std::string_view to_string(Property p) {
  switch (p) {
    case Property::P1: return "P1";
    case Property::P2: return "P2";
    case Property::P3: return "P3";
    case Property::P4: return "P4";
    case Property::P7: return "P7";
    case Property::deadlock: return "deadlock";
    case Property::internal: return "internal";
  }
  return "?";
}

}  // namespace lmx::check
