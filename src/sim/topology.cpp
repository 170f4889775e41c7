#include "topology.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <sstream>
#include <unordered_set>

namespace lmx::sim {

namespace {

std::vector<std::pair<NodeId, NodeId>> read_edge_file(const std::string& path, NodeId n) {
  std::ifstream in(path);
  if (!in) throw ScenarioError("cannot read edge-list file '" + path + "'");
  std::vector<std::pair<NodeId, NodeId>> edges;
  std::string line;
  for (unsigned number = 1; std::getline(in, line); ++number) {
    const auto hash = line.find('#');
    if (hash != std::string::npos) line.resize(hash);
    std::istringstream fields(line);
    long long u = 0, v = 0;
    if (!(fields >> u)) continue;  // blank or comment line
    std::string rest;
    if (!(fields >> v) || (fields >> rest) || u < 0 || v < 0 || u >= n || v >= n)
      throw ScenarioError(path + ":" + std::to_string(number) + ": expected two node numbers in 0.." +
                          std::to_string(n - 1));
    edges.emplace_back(static_cast<NodeId>(u), static_cast<NodeId>(v));
  }
  return edges;
}

std::vector<std::pair<double, double>> random_positions(NodeId n, Rng& rng) {
  std::vector<std::pair<double, double>> pos(n);
  for (auto& p : pos) p = {rng.unit(), rng.unit()};
  return pos;
}

void check_simple(const std::vector<std::pair<NodeId, NodeId>>& edges, NodeId n) {
  std::unordered_set<std::uint64_t> seen;
  for (auto [u, v] : edges) {
    if (u >= n || v >= n)
      throw ScenarioError("topology: edge {" + std::to_string(u) + "," + std::to_string(v) +
                          "} names a node outside 0.." + std::to_string(n - 1));
    if (u == v) throw ScenarioError("topology: self-loop at node " + std::to_string(u));
    const std::uint64_t key = (std::uint64_t{std::min(u, v)} << 32) | std::max(u, v);
    if (!seen.insert(key).second)
      throw ScenarioError("topology: duplicate edge {" + std::to_string(u) + "," + std::to_string(v) + "}");
  }
}

}  // namespace

std::vector<std::pair<NodeId, NodeId>> pairs_within(const std::vector<std::pair<double, double>>& pos, double r) {
  std::vector<std::pair<NodeId, NodeId>> out;
  if (r <= 0) return out;
  const auto cells = static_cast<std::uint32_t>(std::max(1.0, std::floor(1.0 / r)));
  std::vector<std::vector<NodeId>> grid(std::size_t{cells} * cells);
  auto cell_of = [&](double c) { return std::min(cells - 1, static_cast<std::uint32_t>(c * cells)); };
  for (NodeId u = 0; u < pos.size(); ++u)
    grid[std::size_t{cell_of(pos[u].second)} * cells + cell_of(pos[u].first)].push_back(u);
  const double r2 = r * r;
  for (NodeId u = 0; u < pos.size(); ++u) {
    const auto cx = cell_of(pos[u].first), cy = cell_of(pos[u].second);
    for (std::uint32_t y = cy ? cy - 1 : 0; y <= std::min(cells - 1, cy + 1); ++y)
      for (std::uint32_t x = cx ? cx - 1 : 0; x <= std::min(cells - 1, cx + 1); ++x)
        for (NodeId v : grid[std::size_t{y} * cells + x]) {
          if (v <= u) continue;
          const double dx = pos[u].first - pos[v].first, dy = pos[u].second - pos[v].second;
          if (dx * dx + dy * dy <= r2) out.emplace_back(u, v);
        }
  }
  std::sort(out.begin(), out.end());
  return out;
}

InitialTopology build_topology(const Scenario& s, Rng& rng) {
  InitialTopology t;
  const NodeId n = s.nodes;
  const auto& kind = s.topology.kind;
  if (kind == "edges") {
    t.edges = s.topology.file.empty() ? s.topology.edges : read_edge_file(s.topology.file, n);
    if (!s.topology.file.empty() && !s.topology.edges.empty())
      t.edges.insert(t.edges.end(), s.topology.edges.begin(), s.topology.edges.end());
    check_simple(t.edges, n);
  } else if (kind == "ring") {
    if (n == 2) t.edges.emplace_back(0, 1);
    if (n >= 3)
      for (NodeId u = 0; u < n; ++u) t.edges.emplace_back(u, (u + 1) % n);
  } else if (kind == "grid") {
    const NodeId w = s.topology.width ? s.topology.width : static_cast<NodeId>(std::ceil(std::sqrt(double(n))));
    for (NodeId u = 0; u < n; ++u) {
      if ((u % w) + 1 < w && u + 1 < n) t.edges.emplace_back(u, u + 1);
      if (u + w < n) t.edges.emplace_back(u, u + w);
    }
  } else if (kind == "regular") {
    // Configuration model: every node gets `degree` stubs, stubs are paired at random, and the
    // self-loops and duplicate pairs this produces are dropped (so degrees are <= degree).
    const unsigned d = s.topology.degree ? s.topology.degree : s.delta;
    std::vector<NodeId> stubs;
    stubs.reserve(std::size_t{n} * d);
    for (NodeId u = 0; u < n; ++u)
      for (unsigned i = 0; i < d; ++i) stubs.push_back(u);
    for (std::size_t i = stubs.size(); i > 1; --i)
      std::swap(stubs[i - 1], stubs[rng.below(static_cast<std::uint32_t>(i))]);
    t.edges.reserve(stubs.size() / 2);
    for (std::size_t i = 0; i + 1 < stubs.size(); i += 2)
      if (stubs[i] != stubs[i + 1]) t.edges.emplace_back(stubs[i], stubs[i + 1]);
    t.cap_is_error = false;  // duplicates are dropped by the engine's connect
  } else {                   // unit-disk, mobility
    t.positions = random_positions(n, rng);
    t.edges = pairs_within(t.positions, s.topology.radius);
    t.cap_is_error = false;
  }
  return t;
}

}  // namespace lmx::sim
