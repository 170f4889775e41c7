// The network's port queries that mobility's plan and the engine's host use without a branch on
// where a match lies (src/sim/network.hpp): adjacent_ports and upper_ports against the far ends
// read port by port, at Delta = 8 (their fixed comparisons), at Deltas that leave a remainder
// after the groups of four, and with 64-bit port sets.
#include <gtest/gtest.h>

#include <cstdint>
#include <random>

#include "sim/network.hpp"

namespace lmx::sim {
namespace network_ports_test {

template <class Word>
void check(unsigned delta) {
  const NodeId n = 300;
  const std::uint32_t now = 0;
  Network<Word> net(n, delta, false, false, 14, now);
  std::mt19937_64 rng(delta);
  for (int tries = 0; tries < 200000 && net.edges() <= std::uint64_t{n} * delta / 4; ++tries) {
    const auto u = static_cast<NodeId>(rng() % n), v = static_cast<NodeId>(rng() % n);
    if (u == v || net.adjacent(u, v) || net.free_ports(u).empty() || net.free_ports(v).empty()) continue;
    net.link(u, *net.free_ports(u).begin(), v, *net.free_ports(v).begin());
  }
  ASSERT_GT(net.edges(), std::uint64_t{n} * delta / 4) << "the graph must use most ports";
  for (NodeId u = 0; u < n; ++u) {
    std::uint64_t upper = 0;
    for (core::Port p = 1; p <= delta; ++p) upper |= std::uint64_t{net.peer(u, p) > u} << p;
    EXPECT_EQ(net.upper_ports(u), upper) << "Delta " << delta << ", node " << u;
    for (NodeId v = 0; v < n; v += 7) {
      std::uint64_t ports = 0;
      for (core::Port p = 1; p <= delta; ++p) ports |= std::uint64_t{net.peer(u, p) == v} << p;
      EXPECT_EQ(net.adjacent_ports(u, v), ports) << "Delta " << delta << ", " << u << " and " << v;
      EXPECT_EQ(net.adjacent(u, v), ports != 0);
    }
    EXPECT_EQ(net.adjacent_ports(u, no_node), 0u) << "a free port's far node is no neighbour";
  }
}

TEST(NetworkPorts, AdjacentAndUpperPortsAreThoseOfTheFarEnds) {
  for (const unsigned delta : {1u, 3u, 4u, 7u, 8u, 9u, 12u, 15u}) check<std::uint16_t>(delta);
  for (const unsigned delta : {8u, 20u, 63u}) check<std::uint64_t>(delta);
}

}  // namespace network_ports_test
}  // namespace lmx::sim
