// The adversary's topology (docs/simulator.md, "Adversaries"): the port it picks for each new edge,
// mobility (random waypoint), and the dynamics between rounds: churn, and the hostile strategies
// starve, flap and swizzle, whose cuts are each restored `bound` rounds later at most.
//
// The engine is the Host: it owns the network and does each topology change (with its trace lines
// and monitor updates); Dynamics decides which changes happen, drawing from the topology stream.
// Host provides: connect_random(u, v) -> bool, cut_edge(u, port), cut_pair(u, v), requesting(u) -> bool,
// in_win(u) -> bool, neighbours(u) -> Ports, peer(u, port) -> NodeId, adjacent(u, v) -> bool,
// prefetch_adjacency(u) (a hint: start loading what adjacent(u, .) reads), moved(u).
#pragma once

#include <cmath>
#include <cstdint>
#include <map>
#include <utility>
#include <vector>

#include "lmx/sim/scenario.hpp"
#include "rng.hpp"
#include "topology.hpp"

namespace lmx::sim {

class Dynamics {
 public:
  explicit Dynamics(const Scenario& s)
      : sc_(s),
        rng_(s.seed, topology_stream),
        mobile_(s.topology.kind == TopologyKind::mobility),
        keep_initial_edges_(s.dynamics.kind == DynamicsKind::churn || s.dynamics.kind == DynamicsKind::swizzle) {}

  /// The topology stream (the initial topology's generator draws from it first).
  Rng& rng() { return rng_; }

  /// The initial positions (if the topology has them); mobile nodes draw their first waypoints.
  void place(std::vector<std::pair<double, double>> positions) {
    positions_ = std::move(positions);
    if (mobile_) waypoints_ = positions_, shuffle_waypoints();
  }
  /// An initial edge was established: churn and swizzle revisit the initial edges (other runs do
  /// not pay for the list).
  void initial_edge(NodeId u, NodeId v) {
    if (keep_initial_edges_) initial_edges_.emplace_back(u, v);
  }
  void initial_edges_done() { initial_edges_.shrink_to_fit(); }

  /// The adversary's port choice: a uniformly random free port (0 if none). Often the port just
  /// freed by a cut, so ports are re-used before their node acts (footnote 1 of the paper).
  template <class Ports>
  core::Port random_free_port(Ports free) {
    if (free.empty()) return 0;
    unsigned pick = rng_.below(free.size());
    for (core::Port p : free)
      if (pick-- == 0) return p;
    return 0;
  }

  /// Topology changes before round `round`'s actions.
  template <class Host>
  void step(Host& host, std::uint64_t round) {
    if (mobile_) mobility_step(host);
    const auto& kind = sc_.dynamics.kind;
    if (kind == DynamicsKind::churn) churn_step(host);
    if (kind == DynamicsKind::starve) starve_step(host, round);
    if (kind == DynamicsKind::flap) flap_step(host, round);
    if (kind == DynamicsKind::swizzle) swizzle_step(host, round);
    // Restorations due now (hostile strategies keep every cut at most `bound` rounds).
    while (!restore_.empty() && restore_.begin()->first <= round) {
      auto [u, v] = restore_.begin()->second;
      restore_.erase(restore_.begin());
      host.connect_random(u, v);
    }
    entered_win_.clear();
  }
  /// A node entered WIN in this round (flap attacks it at the next topology step).
  void entered_win(NodeId u) { entered_win_.push_back(u); }

  [[nodiscard]] const std::vector<std::pair<double, double>>& positions() const { return positions_; }
  std::vector<std::pair<double, double>>& positions() { return positions_; }
  [[nodiscard]] std::size_t bytes() const {
    return positions_.capacity() * 16 + waypoints_.capacity() * 16 + initial_edges_.capacity() * 8 +
           swizzled_.capacity() * 8 + restore_.size() * 64 + entered_win_.capacity() * 4 + grid_.bytes();
  }

 private:
  template <class Host>
  void churn_step(Host& host) {
    // Edge-Markovian: each initial edge is present or absent; present edges die with `death`,
    // absent ones are born again with `birth` (if both ends have a free port).
    for (auto [u, v] : initial_edges_) {
      if (host.adjacent(u, v)) {
        if (rng_.chance(sc_.dynamics.death)) host.cut_pair(u, v);
      } else if (rng_.chance(sc_.dynamics.birth)) {
        host.connect_random(u, v);
      }
    }
  }
  template <class Host>
  void starve_step(Host& host, std::uint64_t round) {
    // Starve a target: whenever it has called Lock and holds neighbours, cut its whole
    // neighbourhood; every edge comes back `bound` rounds later.
    const NodeId t = sc_.dynamics.target;
    if (!host.requesting(t) || host.neighbours(t).empty()) return;
    for (core::Port p : host.neighbours(t)) {
      const NodeId v = host.peer(t, p);
      host.cut_edge(t, p);
      restore_.insert({round + sc_.dynamics.bound, {t, v}});
    }
  }
  template <class Host>
  void flap_step(Host& host, std::uint64_t round) {
    // Flap lock holders: a node that has just won its competition (state WIN, collecting
    // ack-lock) loses one random edge, restored `bound` rounds later.
    unsigned budget = sc_.dynamics.batch;
    for (NodeId u : entered_win_) {
      if (budget == 0) break;
      if (host.neighbours(u).empty() || !host.in_win(u)) continue;
      const auto nb = host.neighbours(u);
      unsigned pick = rng_.below(nb.size());
      for (core::Port p : nb)
        if (pick-- == 0) {
          const NodeId v = host.peer(u, p);
          host.cut_edge(u, p);
          restore_.insert({round + sc_.dynamics.bound, {u, v}});
          --budget;
          break;
        }
    }
  }
  template <class Host>
  void swizzle_step(Host& host, std::uint64_t round) {
    // Swizzle-clog: in cycles of 2 * batch rounds, cut one random edge per round for `batch`
    // rounds, then restore them one per round in random order.
    const std::uint64_t phase = round % (2ull * sc_.dynamics.batch);
    if (phase < sc_.dynamics.batch) {
      if (initial_edges_.empty()) return;
      auto [u, v] = initial_edges_[rng_.below(static_cast<std::uint32_t>(initial_edges_.size()))];
      if (host.adjacent(u, v)) host.cut_pair(u, v), swizzled_.emplace_back(u, v);
    } else if (!swizzled_.empty()) {
      const auto i = rng_.below(static_cast<std::uint32_t>(swizzled_.size()));
      auto [u, v] = swizzled_[i];
      swizzled_[i] = swizzled_.back();
      swizzled_.pop_back();
      host.connect_random(u, v);
    }
  }
  void shuffle_waypoints() {
    for (auto& w : waypoints_) w = {rng_.unit(), rng_.unit()};
  }
  template <class Host>
  void mobility_step(Host& host) {
    // Random waypoint: each node walks towards its waypoint at `speed` per round and draws a new
    // one on arrival. Edges are cut when longer than r and created between nodes within r that
    // both have a free port (the Delta cap).
    const double speed = sc_.topology.speed, r = sc_.topology.radius;
    if (speed <= 0) return;
    const auto n = static_cast<NodeId>(positions_.size());
    for (NodeId u = 0; u < n; ++u) {
      auto& [x, y] = positions_[u];
      const double dx = waypoints_[u].first - x, dy = waypoints_[u].second - y;
      const double dist = std::sqrt(dx * dx + dy * dy);
      if (dist <= speed) {
        x = waypoints_[u].first, y = waypoints_[u].second;
        waypoints_[u] = {rng_.unit(), rng_.unit()};
      } else {
        x += dx / dist * speed, y += dy / dist * speed;
      }
      host.moved(u);
    }
    const double r2 = r * r;
    // The cuts go by node and port (their trace lines and lost messages in that order); the
    // neighbours' positions are read at random, so those of the node `ahead` places on are
    // loaded early.
    constexpr NodeId ahead = 8;
    for (NodeId u = 0; u < n; ++u) {
      if (u + ahead < n)
        for (core::Port p : host.neighbours(u + ahead)) __builtin_prefetch(&positions_[host.peer(u + ahead, p)]);
      for (core::Port p : host.neighbours(u)) {
        const NodeId v = host.peer(u, p);
        if (v < u) continue;
        const double dx = positions_[u].first - positions_[v].first, dy = positions_[u].second - positions_[v].second;
        if (dx * dx + dy * dy > r2) host.cut_edge(u, p);
      }
    }
    // A pair adjacent at the start of the scan stays so (connecting adds only the pair it
    // connects), so the pairs to connect can be found first and connected after, in the same
    // increasing (u, v) order as a scan that tested each pair as it came.
    grid_.for_each_new_pair_within(
        positions_, r, [&host](NodeId u) { host.prefetch_adjacency(u); },
        [&host](NodeId u, NodeId v) { return host.adjacent(u, v); },
        [&host](NodeId u, NodeId v) { host.connect_random(u, v); });
  }

  const Scenario& sc_;
  Rng rng_;
  bool mobile_, keep_initial_edges_;
  std::vector<std::pair<double, double>> positions_, waypoints_;
  CellGrid grid_;  ///< mobility's cells, reused every round
  std::vector<std::pair<NodeId, NodeId>> initial_edges_, swizzled_;
  std::multimap<std::uint64_t, std::pair<NodeId, NodeId>> restore_;
  std::vector<NodeId> entered_win_;
};

}  // namespace lmx::sim
