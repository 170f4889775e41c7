// Initial topologies: edge lists and generators. Each returns node pairs; the engine assigns the
// ports (the adversary's choice) and enforces the Delta cap.
#pragma once

#include <utility>
#include <vector>

#include "lmx/sim/scenario.hpp"
#include "rng.hpp"

namespace lmx::sim {

struct InitialTopology {
  std::vector<std::pair<NodeId, NodeId>> edges;
  std::vector<std::pair<double, double>> positions;  ///< empty unless the kind has positions
  bool cap_is_error = true;  ///< explicit topologies must respect Delta; geometric ones drop extra edges
};

/// Throws ScenarioError for unreadable files, bad node numbers, self-loops and duplicate edges.
InitialTopology build_topology(const Scenario& s, Rng& rng);

/// Pairs of nodes closer than r, via a grid of cells of side r (positions in the unit square).
std::vector<std::pair<NodeId, NodeId>> pairs_within(const std::vector<std::pair<double, double>>& pos, double r);

}  // namespace lmx::sim
