// The adversary's topology (docs/simulator.md, "Adversaries"): the port it picks for each new edge,
// mobility (random waypoint), and the dynamics between rounds: churn, and the hostile strategies
// starve, flap and swizzle, whose cuts are each restored `bound` rounds later at most.
//
// The engine is the Host: it owns the network and does each topology change (with its trace lines
// and monitor updates); Dynamics decides which changes happen, drawing from the topology stream.
// Host provides: connect_random(u, v) -> bool, connect_at(u, pu, v, pv), cut_edge(u, port),
// cut_pair(u, v), requesting(u) -> bool, in_win(u) -> bool, neighbours(u) -> Ports,
// peer(u, port) -> NodeId, peer_port(u, port) -> Port, adjacent(u, v) -> bool, adjacent_ports(u, v) -> the
// bits of u's ports whose peer is v, upper_ports(u) -> the bits of u's ports whose peer is above u or
// none, prefetch_adjacency(u) (a hint: start loading what adjacent_ports(u, .) reads), moved(u). The mobility planner
// calls only the const ones, which read the graph alone.
//
// Mobility ahead. Mobility decides a round's changes from the positions and the graph alone, and
// nothing else changes the graph while a round's actions run. So its changes are decided in two
// steps: a plan (the new positions, the edges to cut and those to connect with their ports, with
// every draw from the topology stream in the order a direct pass makes them), then the changes
// made in that order. With RunOptions::threads >= 2 the plan of round r + 1 is made on a second
// thread while round r's actions run; a change of the graph or of a position from outside (the
// application API) between the two discards it and rewinds the stream. The run is the same
// either way: same draws, same changes in the same order, same trace.
#pragma once

#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <type_traits>
#include <utility>
#include <vector>

#include "background.hpp"
#include "big_array.hpp"
#include "lmx/core/ports.hpp"
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
    if (mobile_ && sc_.topology.speed > 0) {
      if (ahead_) {
        worker_.wait();
        ahead_ = false, ++planned_ahead_;
        positions_.swap(next_positions_);
      } else {
        plan_mobility(host, positions_);
      }
      apply_mobility(host);
    }
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
  /// Mobility ahead: plan the next round's mobility on the worker thread, from the graph as the
  /// round's actions leave it (they change no edge). Only for mobile runs with `threads` >= 2
  /// and enough nodes that a round takes longer than handing the plan over. `first`, if any, runs
  /// on the worker before the plan (the engine's next schedule), and is done when the next step
  /// or discard_plan returns, or at wait_ahead. Returns whether the worker got the job.
  template <class Host>
  bool plan_ahead(const Host& host, unsigned threads, std::function<void()> first = {}) {
    if (!plans_ahead(threads)) return false;
    rng_before_plan_ = rng_;
    ahead_ = true;
    worker_.run([this, &host, first = std::move(first)] {
      if (first) first();
      plan_mobility(host, next_positions_);
    });
    return true;
  }
  /// Blocks until the worker's job is done (at once if there is none).
  void wait_ahead() { worker_.wait(); }
  /// Whether plan_ahead uses a thread of `threads`.
  [[nodiscard]] bool plans_ahead(unsigned threads) const {
    return threads >= 2 && mobile_ && sc_.topology.speed > 0 && positions_.size() >= min_nodes_ahead;
  }
  /// Something outside changes the graph or a position: a plan made ahead is discarded and its
  /// draws given back, so that the next round plans from what is then true.
  void discard_plan() {
    if (!ahead_) return;
    worker_.wait();
    rng_ = rng_before_plan_, ahead_ = false;
  }
  /// Rounds whose plan was made ahead and used.
  [[nodiscard]] std::uint64_t planned_ahead() const { return planned_ahead_; }
  /// Nodes below which a plan is not made ahead (a round of fewer costs about what the hand-over
  /// does). Changes only timing.
  static constexpr std::size_t min_nodes_ahead = 4096;

  /// For tests: find mobility's cuts by the distance test of every edge, as before the pair scan
  /// confirmed the edges within r (the same cuts; tests/sim/mobility_plan_test.cpp compares them).
  void cut_by_distance(bool on) { cut_by_distance_ = on; }

  /// A node entered WIN in this round (flap attacks it at the next topology step).
  void entered_win(NodeId u) { entered_win_.push_back(u); }

  [[nodiscard]] const std::vector<std::pair<double, double>>& positions() const { return positions_; }
  std::vector<std::pair<double, double>>& positions() { return positions_; }
  /// The bytes held, by part (appended to `parts`; the summary's bytes_per_node_by_part).
  void add_memory_parts(std::vector<MemoryPart>& parts) const {
    parts.push_back({"positions", (positions_.capacity() + next_positions_.capacity() + waypoints_.capacity()) * 16});
    parts.push_back({"spatial_grid", grid_.bytes()});
    parts.push_back({"mobility_plan", plan_bytes()});
    parts.push_back({"dynamics", initial_edges_.capacity() * 8 + swizzled_.capacity() * 8 + restore_.size() * 64 +
                                     entered_win_.capacity() * 4});
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
  /// Mobility's changes for one round, decided before any is made.
  struct Connection {
    NodeId u, v;
    core::Port pu, pv;
  };
  struct MobilityPlan {
    std::vector<std::pair<NodeId, std::pair<double, double>>> arrivals;  ///< new waypoints
    std::vector<std::pair<NodeId, core::Port>> cuts;                     ///< in the order made
    std::vector<Connection> connections;                                 ///< in the order made
  };
  using Bits = core::PortSet<std::uint64_t>;

  /// The plan of a round of random waypoint: each node walks towards its waypoint at `speed` per
  /// round and draws a new one on arrival; edges longer than r are cut, and nodes within r that
  /// both have a free port are connected (the Delta cap), in increasing (u, v) order. Writes the
  /// new positions to `moved` (positions_ itself, or next_positions_ ahead) and plan_; reads the
  /// graph through the host's const calls only.
  template <class Host>
  void plan_mobility(const Host& host, std::vector<std::pair<double, double>>& moved) {
    const double speed = sc_.topology.speed, r = sc_.topology.radius;
    const auto n = static_cast<NodeId>(positions_.size());
    plan_.arrivals.clear(), plan_.cuts.clear(), plan_.connections.clear();
    moved.resize(n);
    for (NodeId u = 0; u < n; ++u) {
      auto [x, y] = positions_[u];
      const double dx = waypoints_[u].first - x, dy = waypoints_[u].second - y;
      const double dist = std::sqrt(dx * dx + dy * dy);
      if (dist <= speed) {
        x = waypoints_[u].first, y = waypoints_[u].second;
        plan_.arrivals.push_back({u, {rng_.unit(), rng_.unit()}});
      } else {
        x += dx / dist * speed, y += dy / dist * speed;
      }
      moved[u] = {x, y};
    }
    const double r2 = r * r;
    constexpr NodeId ahead = 8;
    ++epoch_;
    if (epoch_ == 0) std::fill(touched_.begin(), touched_.end(), 0u), epoch_ = 1;
    if (touched_.size() != n) touched_.assign(n, 0), now_bits_.assign(n, 0);
    auto bits = [&](NodeId u) -> std::uint64_t {
      return touched_[u] == epoch_ ? now_bits_[u] : host.neighbours(u).bits();
    };
    auto set_bits = [&](NodeId u, std::uint64_t b) { touched_[u] = epoch_, now_bits_[u] = b; };
    // The pairs within r and not adjacent, to connect. The scan tests adjacency for every pair
    // within r, so it also confirms at its lower end each edge that stays within r: the edges
    // left unconfirmed are those to cut, found without a distance test per edge (the test of a
    // pair within r is the cut test's float, so an edge is confirmed exactly when the cut test
    // keeps it: (a - b)^2 is the same float as (b - a)^2). Adjacency is the graph's as the round
    // began. A radius of 0 scans no pair (and the cut test keeps coincident nodes).
    const bool scanned = r > 0 && !cut_by_distance_;
    // The cuts go by node and port (their trace lines and lost messages in that order), each
    // made by its edge's lower end. An earlier cut of u's edge leaves u only through a port whose
    // peer is below u, which this pass skips, so u's ports as the round began are the ones a pass
    // that cut as it went would see.
    auto cut = [&](NodeId u, core::Port p, NodeId v) {
      plan_.cuts.emplace_back(u, p);
      set_bits(u, bits(u) & ~(std::uint64_t{1} << p));
      const core::Port pv = host.peer_port(u, p);
      set_bits(v, bits(v) & ~(std::uint64_t{1} << pv));
    };
    // The confirmed ports of every node, bit p - 1 for port p, in as few bytes as Delta needs
    // (one at Delta = 8: 1 MB at 10^6 nodes, read and written at random by the scan).
    const auto& pairs = with_confirmed(n, [&](auto* confirmed) -> const std::vector<std::pair<NodeId, NodeId>>& {
      using Confirmed = std::remove_pointer_t<decltype(confirmed)>;
      const auto& found = grid_.new_pairs_within(
          moved, r, [&host](NodeId u) { host.prefetch_adjacency(u); },
          [&host, confirmed, scanned](NodeId u, NodeId v) {
            const std::uint64_t ports = host.adjacent_ports(u, v);
            if (scanned) confirmed[u] = static_cast<Confirmed>(confirmed[u] | (ports >> 1));
            return ports != 0;
          });
      if (scanned)
        for (NodeId u = 0; u < n; ++u) {
          // u's edges to higher nodes that the scan did not find within r: nearly always none.
          const std::uint64_t unconfirmed =
              (host.neighbours(u).bits() & host.upper_ports(u)) >> 1 & ~std::uint64_t{confirmed[u]};
          confirmed[u] = 0;  // ready for the next round
          if (unconfirmed == 0) [[likely]]
            continue;
          for (core::Port b : Bits(unconfirmed)) {
            const auto p = static_cast<core::Port>(b + 1);
            cut(u, p, host.peer(u, p));
          }
        }
      return found;
    });
    if (!scanned) {
      // The cut test itself. The neighbours' positions are read at random: those of the node
      // `ahead` places on are loaded early.
      for (NodeId u = 0; u < n; ++u) {
        if (u + ahead < n)
          for (core::Port p : host.neighbours(u + ahead)) __builtin_prefetch(&moved[host.peer(u + ahead, p)]);
        for (core::Port p : host.neighbours(u)) {
          const NodeId v = host.peer(u, p);
          if (v < u) continue;
          const double dx = moved[u].first - moved[v].first, dy = moved[u].second - moved[v].second;
          if (dx * dx + dy * dy > r2) cut(u, p, v);
        }
      }
    }
    // Ports of the new pairs: a free one at each end, drawn u's first. A pair within r is never
    // cut, so adjacency before the cuts is adjacency after them; each pair comes once, so none of
    // them is connected by an earlier one.
    const std::uint64_t all = Bits::range(1, static_cast<core::Port>(sc_.delta)).bits();
    // The pairs come by u, so v's records are read at random: those of the pair `ahead` places on
    // are loaded early (the plan's view and the port sets). Changes nothing but timing.
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      if (i + ahead < pairs.size()) {
        const NodeId w = pairs[i + ahead].second;
        __builtin_prefetch(&touched_[w]), __builtin_prefetch(&now_bits_[w]), host.prefetch_adjacency(w);
      }
      const auto [u, v] = pairs[i];
      const std::uint64_t bu = bits(u), bv = bits(v);
      const core::Port pu = random_free_port(Bits(all & ~bu)), pv = random_free_port(Bits(all & ~bv));
      if (pu == 0 || pv == 0) continue;
      plan_.connections.push_back({u, v, pu, pv});
      set_bits(u, bu | std::uint64_t{1} << pu), set_bits(v, bv | std::uint64_t{1} << pv);
    }
  }
  /// f(confirmed) with the confirmed ports of n nodes, all 0, in 1, 2 or 8 bytes a node as Delta
  /// needs; f leaves them 0 again.
  template <class F>
  decltype(auto) with_confirmed(NodeId n, F&& f) {
    auto sized = [n](auto& confirmed) {
      if (confirmed.size() != n) confirmed.assign(n, 0);
      return confirmed.data();
    };
    if (sc_.delta <= 8) return f(sized(confirmed8_));
    if (sc_.delta <= 16) return f(sized(confirmed16_));
    return f(sized(confirmed64_));
  }
  /// Makes the planned changes: moves (each traced), cuts, connections, in the plan's order.
  template <class Host>
  void apply_mobility(Host& host) {
    for (const auto& [u, waypoint] : plan_.arrivals) waypoints_[u] = waypoint;
    const auto n = static_cast<NodeId>(positions_.size());
    for (NodeId u = 0; u < n; ++u) host.moved(u);
    for (const auto& [u, p] : plan_.cuts) host.cut_edge(u, p);
    for (const auto& c : plan_.connections) host.connect_at(c.u, c.pu, c.v, c.pv);
  }
  [[nodiscard]] std::size_t plan_bytes() const {
    return plan_.arrivals.capacity() * 24 + plan_.cuts.capacity() * 8 + plan_.connections.capacity() * 12 +
           touched_.capacity() * 4 + now_bits_.capacity() * 8 + confirmed8_.capacity() + confirmed16_.capacity() * 2 +
           confirmed64_.capacity() * 8;
  }

  const Scenario& sc_;
  Rng rng_;
  bool mobile_, keep_initial_edges_;
  std::vector<std::pair<double, double>> positions_, waypoints_;
  CellGrid grid_;  ///< mobility's cells, reused every round
  MobilityPlan plan_;
  /// The plan's view of the neighbour ports of the nodes its cuts and connections touch: valid
  /// where touched_ holds the plan's epoch_ (no clearing per round).
  std::vector<std::uint32_t> touched_;
  std::vector<std::uint64_t> now_bits_;
  std::uint32_t epoch_ = 0;
  /// Per node, the ports whose edge to a higher node the round's pair scan found within r
  /// (cleared as read), in with_confirmed's width: one of the three is used.
  std::vector<std::uint8_t> confirmed8_;
  std::vector<std::uint16_t> confirmed16_;
  std::vector<std::uint64_t> confirmed64_;
  bool cut_by_distance_ = false;
  /// Mobility ahead: the positions the plan made ahead moves to, the stream before its draws,
  /// and whether such a plan is being made or waits.
  std::vector<std::pair<double, double>> next_positions_;
  Rng rng_before_plan_;
  bool ahead_ = false;
  std::uint64_t planned_ahead_ = 0;
  std::vector<std::pair<NodeId, NodeId>> initial_edges_, swizzled_;
  std::multimap<std::uint64_t, std::pair<NodeId, NodeId>> restore_;
  std::vector<NodeId> entered_win_;
  BackgroundWorker worker_;  ///< last: destroyed first, so a plan in flight ends before the rest
};

}  // namespace lmx::sim
