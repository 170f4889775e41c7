// Mobility's plan (src/sim/dynamics.hpp): the cuts found by the pair scan's confirmation of the
// edges within r are those of the distance test of every edge, in the same order, and so are the
// connections, their ports and the moves; over many rounds, fast and slow nodes, crowded and
// coincident points, one cell for the whole square, and edges far longer than r made from outside.
#include <gtest/gtest.h>

#include <cstdint>
#include <tuple>
#include <utility>
#include <vector>

#include "lmx/core/ports.hpp"
#include "sim/dynamics.hpp"
#include "sim/rng.hpp"

namespace lmx::sim {
namespace mobility_plan_test {

using Ports = core::PortSet<std::uint16_t>;

/// A graph with ports that records every change the plan makes, in order.
class RecordingHost {
 public:
  RecordingHost(NodeId n, unsigned delta, Dynamics& dynamics)
      : delta_(delta),
        dynamics_(dynamics),
        neighbours_(n),
        peer_(std::size_t{n} * delta, no_node),
        peer_port_(std::size_t{n} * delta, 0) {}

  [[nodiscard]] Ports neighbours(NodeId u) const { return Ports(neighbours_[u]); }
  [[nodiscard]] NodeId peer(NodeId u, core::Port p) const { return peer_[slot(u, p)]; }
  [[nodiscard]] core::Port peer_port(NodeId u, core::Port p) const { return peer_port_[slot(u, p)]; }
  [[nodiscard]] std::uint64_t adjacent_ports(NodeId u, NodeId v) const {
    std::uint64_t ports = 0;
    for (core::Port p = 1; p <= delta_; ++p) ports |= std::uint64_t{peer(u, p) == v} << p;
    return v != no_node ? ports : 0;
  }
  [[nodiscard]] bool adjacent(NodeId u, NodeId v) const { return adjacent_ports(u, v) != 0; }
  void prefetch_adjacency(NodeId) const {}
  bool connect_random(NodeId u, NodeId v) {
    if (u == v || adjacent(u, v)) return false;
    const Ports all = Ports::range(1, static_cast<core::Port>(delta_));
    const core::Port pu = dynamics_.random_free_port(all - neighbours(u));
    const core::Port pv = dynamics_.random_free_port(all - neighbours(v));
    if (pu == 0 || pv == 0) return false;
    connect_at(u, pu, v, pv);
    return true;
  }
  void connect_at(NodeId u, core::Port pu, NodeId v, core::Port pv) {
    link(u, pu, v, pv), link(v, pv, u, pu);
    changes.emplace_back('c', u, pu, v, pv);
  }
  void cut_edge(NodeId u, core::Port p) {
    const NodeId v = peer(u, p);
    const core::Port pv = peer_port(u, p);
    unlink(u, p), unlink(v, pv);
    changes.emplace_back('x', u, p, v, pv);
  }
  void cut_pair(NodeId u, NodeId v) {
    for (core::Port p : neighbours(u))
      if (peer(u, p) == v) return cut_edge(u, p);
  }
  [[nodiscard]] bool requesting(NodeId) const { return false; }
  [[nodiscard]] bool in_win(NodeId) const { return false; }
  void moved(NodeId) const {}

  std::vector<std::tuple<char, NodeId, core::Port, NodeId, core::Port>> changes;

 private:
  [[nodiscard]] std::size_t slot(NodeId u, core::Port p) const { return std::size_t{u} * delta_ + p - 1; }
  void link(NodeId u, core::Port pu, NodeId v, core::Port pv) {
    neighbours_[u] = static_cast<std::uint16_t>(neighbours_[u] | (1u << pu));
    peer_[slot(u, pu)] = v, peer_port_[slot(u, pu)] = pv;
  }
  void unlink(NodeId u, core::Port pu) {
    neighbours_[u] = static_cast<std::uint16_t>(neighbours_[u] & ~(1u << pu));
    peer_[slot(u, pu)] = no_node, peer_port_[slot(u, pu)] = 0;
  }
  unsigned delta_;
  Dynamics& dynamics_;
  std::vector<std::uint16_t> neighbours_;
  std::vector<NodeId> peer_;
  std::vector<core::Port> peer_port_;
};

struct Case {
  const char* name;
  NodeId nodes;
  double radius, speed;
  bool clustered;  ///< points on a few sites, many of them coincident
  bool far_edges;  ///< edges between random nodes made from outside every few rounds
};

/// The changes and positions of `rounds` rounds of mobility, by confirmation or by distance.
std::pair<std::vector<std::tuple<char, NodeId, core::Port, NodeId, core::Port>>, std::vector<std::pair<double, double>>>
run(const Case& c, bool by_distance, std::uint64_t rounds) {
  Scenario s;
  s.nodes = c.nodes, s.seed = 11;
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
  RecordingHost host(c.nodes, s.delta, dynamics);
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
       {Case{"default-like", 2000, 0.045 * 0.7071, 0.004 * 0.7071, false, false},
        Case{"fast nodes", 1500, 0.03, 0.05, false, true}, Case{"one cell", 300, 0.9, 0.02, false, true},
        Case{"tiny radius", 3000, 0.002, 0.0005, false, true},
        Case{"coincident points", 400, 0.05, 0.001, true, false}}) {
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
