// Initial topologies: edge lists and generators. Each returns node pairs; the engine assigns the
// ports (the adversary's choice) and enforces the Delta cap.
#pragma once

#include <algorithm>
#include <cstdint>
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

/// Pairs of nodes closer than r, via a grid of cells of side r (positions in the unit square),
/// sorted.
std::vector<std::pair<NodeId, NodeId>> pairs_within(const std::vector<std::pair<double, double>>& pos, double r);

/// The cell grid behind pairs_within, kept between calls: mobility asks for the pairs within r
/// every round, and rebuilding a vector per cell and sorting every pair cost a third of a round.
/// The cells are a counting sort into flat arrays, reused; the pairs come out per node, each
/// node's partners sorted, so that the order is pairs_within's (increasing (u, v)).
class CellGrid {
 public:
  /// Calls f(u, v) for every pair u < v with |pos[u] - pos[v]| <= r, in increasing (u, v) order.
  template <class F>
  void for_each_pair_within(const std::vector<std::pair<double, double>>& pos, double r, F&& f) {
    if (r <= 0) return;
    build(pos, r);
    const double r2 = r * r;
    const auto n = static_cast<NodeId>(pos.size());
    for (NodeId u = 0; u < n; ++u) {
      partners_.clear();
      const std::uint32_t cx = cell_x_[u], cy = cell_y_[u];
      const auto [ux, uy] = pos[u];
      for (std::uint32_t y = cy ? cy - 1 : 0; y <= std::min(cells_ - 1, cy + 1); ++y)
        for (std::uint32_t x = cx ? cx - 1 : 0; x <= std::min(cells_ - 1, cx + 1); ++x) {
          const std::size_t c = std::size_t{y} * cells_ + x;
          for (std::uint32_t i = start_[c]; i < start_[c + 1]; ++i) {
            const NodeId v = members_[i];
            if (v <= u) continue;
            const double dx = ux - pos[v].first, dy = uy - pos[v].second;
            if (dx * dx + dy * dy <= r2) partners_.push_back(v);
          }
        }
      std::sort(partners_.begin(), partners_.end());
      for (const NodeId v : partners_) f(u, v);
    }
  }
  [[nodiscard]] std::size_t bytes() const {
    return (start_.capacity() + members_.capacity() + cell_x_.capacity() + cell_y_.capacity() + partners_.capacity()) *
           4;
  }

 private:
  void build(const std::vector<std::pair<double, double>>& pos, double r);
  std::uint32_t cells_ = 0;
  std::vector<std::uint32_t> start_;  ///< per cell (row-major), the first index in members_; one past the end last
  std::vector<NodeId> members_;       ///< the nodes by cell, each cell's in increasing order
  std::vector<std::uint32_t> cell_x_, cell_y_;
  std::vector<NodeId> partners_;
};

}  // namespace lmx::sim
