// The network's port queries that mobility's plan and the engine's host use without a branch on
// where a match lies (src/sim/network.hpp): adjacent_ports and upper_ports against the far ends
// read port by port, at Delta = 8 (their fixed comparisons), at Deltas that leave a remainder
// after the groups of four, and with 64-bit port sets; and the far ends themselves, packed in one
// word a port (the network of a Delta fixed at compile time) or not, against a record of the links.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <stdexcept>
#include <utility>

#include "sim/network.hpp"

namespace lmx::sim {
namespace network_ports_test {

template <class Word, unsigned FixedDelta = 0>
void check(unsigned delta) {
  const NodeId n = 300;
  const std::uint32_t now = 0;
  Network<Word, FixedDelta> net(n, delta, false, false, 14, now);
  std::mt19937_64 rng(delta);
  // What each port was linked to, and some links cut again (their ports must read free).
  std::map<std::pair<NodeId, core::Port>, std::pair<NodeId, core::Port>> far;
  for (int tries = 0; tries < 200000 && net.edges() <= std::uint64_t{n} * delta / 4; ++tries) {
    const auto u = static_cast<NodeId>(rng() % n), v = static_cast<NodeId>(rng() % n);
    if (u == v || net.adjacent(u, v) || net.free_ports(u).empty() || net.free_ports(v).empty()) continue;
    const core::Port pu = *net.free_ports(u).begin(), pv = *net.free_ports(v).begin();
    net.link(u, pu, v, pv);
    far[{u, pu}] = {v, pv}, far[{v, pv}] = {u, pu};
    if (tries % 5 == 0) {
      net.unlink(u, pu, [](NodeId, core::Port, const Stored&) {});
      far.erase({u, pu}), far.erase({v, pv});
    }
  }
  ASSERT_GT(net.edges(), std::uint64_t{n} * delta / 4) << "the graph must use most ports";
  for (NodeId u = 0; u < n; ++u)
    for (core::Port p = 1; p <= delta; ++p) {
      const auto it = far.find({u, p});
      EXPECT_EQ(net.neighbours(u).contains(p), it != far.end()) << u << " port " << unsigned{p};
      EXPECT_EQ(net.peer(u, p), it == far.end() ? no_node : it->second.first) << u << " port " << unsigned{p};
      if (it != far.end()) {
        EXPECT_EQ(net.peer_port(u, p), it->second.second) << u << " port " << unsigned{p};
      }
    }
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
  check<std::uint16_t, 8>(8);  // packed far ends
}

TEST(NetworkPorts, PackedFarEndsTakeFourBytesAPortAndRefuseTooManyNodes) {
  const std::uint32_t now = 0;
  using Packed = Network<std::uint16_t, 8>;
  static_assert(Packed::packed_far_ends && !Network<std::uint16_t>::packed_far_ends);
  const Packed packed(1000, 8, false, false, 14, now);
  const Network<std::uint16_t> unpacked(1000, 8, false, false, 14, now);
  EXPECT_EQ(unpacked.bytes() - packed.bytes(), 1000u * 8) << "one byte a port fewer";
  EXPECT_THROW(Packed(Packed::max_packed_nodes + 1, 8, false, false, 14, now), std::logic_error);
}

}  // namespace network_ports_test
}  // namespace lmx::sim
