// A graph with ports and nothing else: the topology adversary's Host (dynamics.hpp) outside the
// engine, for the benchmark of mobility alone (bench/engine_parts_bench.cpp) and the test of its
// plan (tests/sim/mobility_plan_test.cpp). Each node's occupied ports and, per port, the peer and
// its port; the same adjacency comparisons as Network. It counts the cuts and connections made,
// and records them in order when asked to.
#pragma once

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <vector>

#include "dynamics.hpp"
#include "lmx/core/ports.hpp"
#include "lmx/sim/scenario.hpp"

namespace lmx::sim {

/// Word: the port sets' register, as the engine's (16 bits up to Delta = 15, 64 up to 63).
template <class Word = std::uint16_t>
class PortGraph {
 public:
  using Ports = core::PortSet<Word>;
  /// A change made: 'c' (connect) or 'x' (cut), then u, u's port, v, v's port.
  using Change = std::tuple<char, NodeId, core::Port, NodeId, core::Port>;

  PortGraph(NodeId nodes, unsigned delta, Dynamics& dynamics, bool record = false)
      : delta_(delta),
        record_(record),
        dynamics_(dynamics),
        neighbours_(nodes),
        peer_(std::size_t{nodes} * delta, no_node),
        peer_port_(std::size_t{nodes} * delta, 0) {}

  [[nodiscard]] Ports neighbours(NodeId u) const { return Ports(neighbours_[u]); }
  [[nodiscard]] NodeId peer(NodeId u, core::Port p) const { return peer_[slot(u, p)]; }
  [[nodiscard]] core::Port peer_port(NodeId u, core::Port p) const { return peer_port_[slot(u, p)]; }
  /// As Network::adjacent_ports: every port's peer compared, without a branch on where the match
  /// lies (a free port's peer is no_node).
  [[nodiscard]] std::uint64_t adjacent_ports(NodeId u, NodeId v) const {
    const NodeId* peers = &peer_[slot(u, 1)];
    std::uint64_t ports = 0;
    for (unsigned p = 0; p < delta_; ++p) ports |= std::uint64_t{peers[p] == v} << (p + 1);
    return v != no_node ? ports : 0;
  }
  [[nodiscard]] bool adjacent(NodeId u, NodeId v) const { return adjacent_ports(u, v) != 0; }
  /// As Network::upper_ports: the ports whose peer is above u (a free port's is no_node).
  [[nodiscard]] std::uint64_t upper_ports(NodeId u) const {
    const NodeId* peers = &peer_[slot(u, 1)];
    std::uint64_t ports = 0;
    for (unsigned p = 0; p < delta_; ++p) ports |= std::uint64_t{peers[p] > u} << (p + 1);
    return ports;
  }
  void prefetch_adjacency(NodeId u) const {
    __builtin_prefetch(&neighbours_[u]), __builtin_prefetch(&peer_[std::size_t{u} * delta_]);
  }
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
    ++connects;
    if (record_) changes.emplace_back('c', u, pu, v, pv);
  }
  void cut_edge(NodeId u, core::Port p) {
    const NodeId v = peer(u, p);
    const core::Port pv = peer_port(u, p);
    unlink(u, p), unlink(v, pv);
    ++cuts;
    if (record_) changes.emplace_back('x', u, p, v, pv);
  }
  void cut_pair(NodeId u, NodeId v) {
    for (core::Port p : neighbours(u))
      if (peer(u, p) == v) return cut_edge(u, p);
  }
  [[nodiscard]] bool requesting(NodeId) const { return false; }
  [[nodiscard]] bool in_win(NodeId) const { return false; }
  void moved(NodeId) const {}
  [[nodiscard]] std::uint64_t edges() const {
    std::uint64_t ends = 0;
    for (const auto bits : neighbours_) ends += Ports(bits).size();
    return ends / 2;
  }

  std::uint64_t cuts = 0, connects = 0;
  std::vector<Change> changes;  ///< with `record`, every change in order

 private:
  [[nodiscard]] std::size_t slot(NodeId u, core::Port p) const { return std::size_t{u} * delta_ + p - 1; }
  void link(NodeId u, core::Port pu, NodeId v, core::Port pv) {
    neighbours_[u] = static_cast<Word>(neighbours_[u] | (Word{1} << pu));
    peer_[slot(u, pu)] = v, peer_port_[slot(u, pu)] = pv;
  }
  void unlink(NodeId u, core::Port pu) {
    neighbours_[u] = static_cast<Word>(neighbours_[u] & ~(Word{1} << pu));
    peer_[slot(u, pu)] = no_node, peer_port_[slot(u, pu)] = 0;
  }

  unsigned delta_;
  bool record_;
  Dynamics& dynamics_;
  std::vector<Word> neighbours_;
  std::vector<NodeId> peer_;
  std::vector<core::Port> peer_port_;
};

}  // namespace lmx::sim
