// The cell grid of mobility and unit-disk graphs (src/sim/topology.hpp): every pair within r and
// no other, in increasing (u, v) order, against a brute-force scan; reused across calls with
// other points and radii, as mobility reuses it every round.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "sim/rng.hpp"
#include "sim/topology.hpp"

namespace lmx::sim {
namespace cell_grid_test {

std::vector<std::pair<NodeId, NodeId>> brute_force(const std::vector<std::pair<double, double>>& pos, double r) {
  std::vector<std::pair<NodeId, NodeId>> out;
  for (NodeId u = 0; u < pos.size(); ++u)
    for (NodeId v = u + 1; v < pos.size(); ++v) {
      const double dx = pos[u].first - pos[v].first, dy = pos[u].second - pos[v].second;
      if (dx * dx + dy * dy <= r * r) out.emplace_back(u, v);
    }
  return out;
}

// Up to 5,000 nodes: node numbers of two 11-bit digits, so the radix sort of the kept pairs makes
// two passes per end.
TEST(CellGrid, EveryPairWithinTheRadiusInOrderAndReusable) {
  Rng rng(7, application_stream);
  CellGrid grid;
  for (const auto& [n, r] : std::vector<std::pair<NodeId, double>>{{0, 0.1},
                                                                   {1, 0.1},
                                                                   {2, 1.5},
                                                                   {50, 0.3},
                                                                   {400, 0.05},
                                                                   {1000, 0.02},
                                                                   {300, 0.9},
                                                                   {2000, 0.011},
                                                                   {5000, 0.01}}) {
    std::vector<std::pair<double, double>> pos(n);
    for (auto& p : pos) p = {rng.unit(), rng.unit()};
    // Points on cell borders and at the square's edge land in the last cell, not outside.
    if (n > 3) pos[0] = {1.0, 1.0}, pos[1] = {0.0, 0.0}, pos[2] = {r, 1.0 - r};
    std::vector<std::pair<NodeId, NodeId>> seen;
    grid.for_each_pair_within(pos, r, [&](NodeId u, NodeId v) { seen.emplace_back(u, v); });
    EXPECT_EQ(seen, brute_force(pos, r)) << n << " " << r;
    EXPECT_EQ(pairs_within(pos, r), seen);
    // The pairs within r but those excluded, in the same order.
    std::vector<std::pair<NodeId, NodeId>> kept, expected;
    auto excluded = [](NodeId u, NodeId v) { return (u + 3 * v) % 4 == 0; };
    grid.for_each_new_pair_within(
        pos, r, [](NodeId) {}, excluded, [&](NodeId u, NodeId v) { kept.emplace_back(u, v); });
    for (const auto& [u, v] : seen)
      if (!excluded(u, v)) expected.emplace_back(u, v);
    EXPECT_EQ(kept, expected) << n << " " << r;
  }
  std::vector<std::pair<double, double>> pos{{0.5, 0.5}, {0.5, 0.5}};
  EXPECT_TRUE(pairs_within(pos, 0).empty()) << "radius 0: no pairs";
}

}  // namespace cell_grid_test
}  // namespace lmx::sim
