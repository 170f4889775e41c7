// The random regular graphs (configuration model, src/sim/topology.cpp): the generator shuffles the
// stubs in place inside the edge array; it must give the edges, in order, that the plain version
// gives (stubs in one array, shuffled, then paired into another), for even and odd stub counts.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "sim/rng.hpp"
#include "sim/topology.hpp"

namespace lmx::sim {
namespace regular_topology_test {

std::vector<std::pair<NodeId, NodeId>> two_arrays(NodeId n, unsigned d, Rng& rng) {
  std::vector<NodeId> stubs;
  for (NodeId u = 0; u < n; ++u)
    for (unsigned i = 0; i < d; ++i) stubs.push_back(u);
  for (std::size_t i = stubs.size(); i > 1; --i)
    std::swap(stubs[i - 1], stubs[rng.below(static_cast<std::uint32_t>(i))]);
  std::vector<std::pair<NodeId, NodeId>> edges;
  for (std::size_t i = 0; i + 1 < stubs.size(); i += 2)
    if (stubs[i] != stubs[i + 1]) edges.emplace_back(stubs[i], stubs[i + 1]);
  return edges;
}

TEST(RegularTopology, InPlaceStubsGiveThePlainConfigurationModel) {
  for (const auto& [n, d] : std::vector<std::pair<NodeId, unsigned>>{
           {1, 1}, {2, 1}, {3, 3}, {7, 3}, {10, 4}, {101, 5}, {1000, 8}, {999, 7}}) {
    Scenario s;
    s.nodes = n, s.delta = d, s.topology.kind = TopologyKind::regular;
    for (std::uint64_t seed : {1u, 2u, 99u}) {
      Rng a(seed, topology_stream), b(seed, topology_stream);
      const auto built = build_topology(s, a).edges;
      EXPECT_EQ(built, two_arrays(n, d, b)) << "n=" << n << " d=" << d << " seed=" << seed;
      EXPECT_EQ(a.next(), b.next()) << "the same draws";
    }
  }
}

}  // namespace regular_topology_test
}  // namespace lmx::sim
