// Mobility's plan (src/sim/dynamics.hpp): the cuts found by the pair scan's confirmation of the
// edges within r are those of the distance test of every edge, in the same order, and so are the
// connections, their ports and the moves; over many rounds, fast and slow nodes, crowded and
// coincident points, one cell for the whole square, and edges far longer than r made from outside.
#include <gtest/gtest.h>

#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "sim/dynamics.hpp"
#include "sim/port_graph.hpp"
#include "sim/rng.hpp"

namespace lmx::sim {
namespace mobility_plan_test {

struct Case {
  const char* name;
  unsigned delta;  ///< 8, 12 and 20 keep the confirmed ports in 1, 2 and 8 bytes a node
  NodeId nodes;
  double radius, speed;
  bool clustered;  ///< points on a few sites, many of them coincident
  bool far_edges;  ///< edges between random nodes made from outside every few rounds
};

/// The changes and positions of `rounds` rounds of mobility, by confirmation or by distance.
std::pair<std::vector<PortGraph<std::uint64_t>::Change>, std::vector<std::pair<double, double>>> run(
    const Case& c, bool by_distance, std::uint64_t rounds) {
  Scenario s;
  s.nodes = c.nodes, s.seed = 11, s.delta = c.delta;
  s.topology.kind = TopologyKind::mobility, s.topology.radius = c.radius, s.topology.speed = c.speed;
  Dynamics dynamics(s);
  dynamics.cut_by_distance(by_distance);
  Rng points(3, application_stream);
  std::vector<std::pair<double, double>> positions(c.nodes);
  for (auto& p : positions) {
    p = {points.unit(), points.unit()};
    if (c.clustered) p = {0.25 + 0.5 * double(points.below(2)), 0.25 + 0.5 * double(points.below(2))};
  }
  dynamics.place(positions);
  PortGraph<std::uint64_t> host(c.nodes, s.delta, dynamics, true);
  for (NodeId u = 0; u + 1 < c.nodes; u += 2) host.connect_random(u, u + 1);  // many of them longer than r
  Rng outside(5, application_stream);
  for (std::uint64_t round = 0; round < rounds; ++round) {
    if (c.far_edges && round % 3 == 0)
      for (int i = 0; i < 20; ++i) host.connect_random(outside.below(c.nodes), outside.below(c.nodes));
    dynamics.step(host, round);
  }
  return {host.changes, dynamics.positions()};
}

TEST(MobilityPlan, ConfirmedEdgesGiveTheDistanceTestsCuts) {
  for (const Case& c :
       {Case{"default-like", 8, 2000, 0.045 * 0.7071, 0.004 * 0.7071, false, false},
        Case{"fast nodes", 8, 1500, 0.03, 0.05, false, true}, Case{"one cell", 8, 300, 0.9, 0.02, false, true},
        Case{"tiny radius", 8, 3000, 0.002, 0.0005, false, true},
        Case{"coincident points", 8, 400, 0.05, 0.001, true, false},
        Case{"Delta 12", 12, 1500, 0.04, 0.02, false, true}, Case{"Delta 20", 20, 1500, 0.05, 0.02, false, true}}) {
    const auto [confirmed, confirmed_positions] = run(c, false, 60);
    const auto [distance, distance_positions] = run(c, true, 60);
    std::size_t cuts = 0;
    for (const auto& change : distance) cuts += std::get<0>(change) == 'x';
    EXPECT_GT(cuts, 50u) << c.name << ": the case must cut edges to test anything";
    EXPECT_EQ(confirmed, distance) << c.name;
    EXPECT_EQ(confirmed_positions, distance_positions) << c.name;
  }
}

}  // namespace mobility_plan_test
}  // namespace lmx::sim
