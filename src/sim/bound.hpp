// The throughput limit a run is compared with (docs/performance.md, "The throughput limit").
//
// Locked sets are disjoint: a node's lock pointer names one locker, and a lock set is the locker's
// closed neighbourhood. So the lockers whose sets are occupied at one moment form a 2-packing of
// the graph (closed neighbourhoods pairwise disjoint; lockers pairwise at distance >= 3), and by
// Little's law the locks completed per round are at most (lock sets occupied at once) / (rounds
// one lock occupies its set). Each node also locks at most once per idle time plus occupancy.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

#include "lmx/sim/scenario.hpp"
#include "network.hpp"
#include "workload.hpp"

namespace lmx::sim {

/// Whether the run's graph stays as it starts (no mobility, no dynamics): the only graphs the
/// initial packing, and so the limit, says something about.
inline bool graph_stays_put(const Scenario& s) {
  return s.topology.kind != TopologyKind::mobility && s.dynamics.kind == DynamicsKind::static_graph;
}

/// A maximal 2-packing of the closed neighbourhoods of the participating nodes, chosen greedily
/// in order of increasing 2-hop reach (the nodes a choice excludes: degrees of the neighbours
/// summed, plus the degree; ties by node number): the size of a set of lock sets that can all be
/// held at once. A maximal packing, not a maximum one (that is NP-hard): an estimate, which a run
/// may exceed (docs/performance.md).
template <class Net>
std::uint64_t greedy_two_packing(const Net& net, const Workload& work, NodeId n) {
  std::vector<std::pair<std::uint32_t, NodeId>> order;  // (reach, node)
  order.reserve(n);
  // Both passes read the neighbours' records at random places: those of the node `ahead` places on
  // are loaded early (timing only).
  constexpr NodeId ahead = 8;
  for (NodeId u = 0; u < n; ++u) {
    if (u + ahead < n)
      for (auto p : net.neighbours(u + ahead)) net.prefetch_adjacency(net.peer(u + ahead, p));
    if (!work.participating(u)) continue;
    std::uint32_t reach = net.neighbours(u).size();
    for (auto p : net.neighbours(u)) reach += net.neighbours(net.peer(u, p)).size();
    order.emplace_back(reach, u);
  }
  std::sort(order.begin(), order.end());
  std::vector<bool> blocked(n, false);  // within distance 2 of a chosen node
  std::uint64_t chosen = 0;
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i + ahead < order.size()) net.prefetch_adjacency(order[i + ahead].second);
    const NodeId u = order[i].second;
    if (blocked[u]) continue;
    ++chosen;
    blocked[u] = true;
    for (auto p : net.neighbours(u)) {
      const NodeId v = net.peer(u, p);
      blocked[v] = true;
      for (auto q : net.neighbours(v)) blocked[net.peer(v, q)] = true;
    }
  }
  return chosen;
}

/// The limit on locks per round: min(packing / occupancy, participants / (idle + occupancy)),
/// with the occupancy measured in the run (rounds from CheckDone to CheckUnlocked, per lock).
struct ThroughputBound {
  std::uint64_t packing = 0, participants = 0;
  double occupancy_rounds = 0, idle_rounds = 0;
  [[nodiscard]] double locks_per_round() const {
    if (occupancy_rounds <= 0) return 0;
    return std::min(double(packing) / occupancy_rounds, double(participants) / (idle_rounds + occupancy_rounds));
  }
};

}  // namespace lmx::sim
