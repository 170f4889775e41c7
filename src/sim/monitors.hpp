// The live monitors of Theorem 1's claims (docs/simulator.md, "Monitors"; docs/model.md for the
// properties P1-P7) and the findings the model's fine print calls for. Each violation is counted,
// written to the trace, and (the first `max_recorded` of them) kept with an excerpt of the most
// recent events that involve its nodes.
#pragma once

#include <algorithm>
#include <cstdint>
#include <deque>
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "big_array.hpp"
#include "lmx/core/protocol.hpp"
#include "lmx/sim/simulation.hpp"
#include "network.hpp"
#include "node_states.hpp"
#include "trace_writer.hpp"
#include "workload.hpp"

namespace lmx::sim {

template <class Word, unsigned FixedDelta = 0>  // FixedDelta: the network's (network.hpp)
class Monitors {
  using Ports = core::PortSet<Word>;
  using State = core::NodeState<Word>;
  using Port = core::Port;

 public:
  /// Violations kept with their excerpts in the summary; every one is counted and traced.
  static constexpr std::size_t max_recorded = 200;
  /// Examples kept of each finding.
  static constexpr std::size_t max_examples = 20;

  Monitors(const Network<Word, FixedDelta>& net, const EngineStates<Word, FixedDelta>& states, TraceWriter<Word>& trace,
           const std::uint32_t& now, std::uint32_t ticks_per_round)
      : net_(net), states_(states), trace_(trace), now_(now), tpr_(ticks_per_round) {
    persistent_.assign(net.nodes(), Word{0});
    held_at_.assign(net.nodes(), core::no_port);
  }

  [[nodiscard]] double now() const { return double(now_) / tpr_; }

  // ---------------------------------------------------------------- the monitors' view of the locks
  // In a pipelined semi-synchronous round (engine.cpp) the choosing thread runs the core's steps
  // ahead of the thread that records them, so the states of the nodes in between are already
  // those after their actions. P1 and P2, which read other nodes' lock variables and LOCKED flags,
  // then read them as recorded so far (view), which is the state at the scan's point where the
  // one-thread round reads it.
  struct Viewed {
    Port lock = core::no_port;
    bool locked = false;
  };
  /// Starts keeping the view (from then on every action's record updates it).
  void start_view() {
    if (viewing()) return;
    view_.resize(states_.size());
    for (std::size_t u = 0; u < states_.size(); ++u)
      view_[u] = {states_.lock_port(NodeId(u)), states_.initiator(NodeId(u)) == core::InitiatorState::locked};
  }
  [[nodiscard]] bool viewing() const { return !view_.empty(); }
  void view(NodeId u, Port lock, bool locked) { view_[u] = {lock, locked}; }
  [[nodiscard]] Port lock_of(NodeId w) const { return viewing() ? view_[w].lock : states_.lock_port(w); }
  [[nodiscard]] bool is_locked(NodeId w) const {
    return viewing() ? view_[w].locked : states_.initiator(w) == core::InitiatorState::locked;
  }

  /// A monitor fired: count it, trace it, and keep it with its excerpt while there is room.
  void report(const std::string& property, std::vector<NodeId> nodes, std::vector<unsigned> ports,
              const std::string& detail) {
    ++counts_[property];
    if (trace_.enabled()) trace_.violation(property, nodes, ports, detail);
    if (violations_.size() >= max_recorded) return;
    Violation v{property, now(), nodes, ports, detail, {}};
    // The excerpt: the most recent events that involve one of the nodes.
    std::vector<std::string> lines;
    trace_.events().for_recent([&](const Ev& e) {
      if (std::find(nodes.begin(), nodes.end(), e.u) == nodes.end() &&
          !((e.kind == EvKind::connect || e.kind == EvKind::cut || e.kind == EvKind::send) &&
            std::find(nodes.begin(), nodes.end(), e.v) != nodes.end()))
        return;
      if (e.kind != EvKind::move) lines.push_back(describe(e));
    });
    const std::size_t keep = 24;
    v.excerpt.assign(lines.size() > keep ? lines.end() - keep : lines.begin(), lines.end());
    violations_.push_back(std::move(v));
  }

  // ---------------------------------------------------------------- persistence (P2, P3)
  /// Lock was called: N(u) now, within the requested ports, is the set of candidates for persistence.
  void lock_called(NodeId u, Ports requested) {
    persistent_[u] = static_cast<Word>(net_.neighbour_bits(u) & requested.bits());
  }
  /// Edge {u, v} was cut: the neighbour is no longer persistent for either end, nor held.
  void cut(NodeId u, Port pu, NodeId v, Port pv) {
    for (auto [x, px] : {std::pair{u, pu}, std::pair{v, pv}}) {
      persistent_[x] = static_cast<Word>(persistent_[x] & ~(Word{1} << px));
      if (held_at_[x] == px) held_at_[x] = core::no_port;  // x was held by the far end
    }
  }
  /// Lock-set fine print (docs/model.md): a node whose lock still names a port whose edge was cut,
  /// and that has not acted since, is counted by the paper's definition in the lock set of
  /// whichever node now connects on that port.
  void linked(NodeId u, Port pu, NodeId v, Port pv) {
    for (auto [x, px, y] : {std::tuple{u, pu, v}, std::tuple{v, pv, u}})
      if (states_.lock_port(x) == px) {
        ++stale_lock_pointers_;
        if (stale_examples_.size() < max_examples)
          stale_examples_.push_back({{"round", now()}, {"node", x}, {"port", px}, {"newcomer", y}});
      }
  }

  // ---------------------------------------------------------------- P1, P2, P3
  /// P2: while a node x is LOCKED, each node it holds (x itself and its persistent neighbours)
  /// keeps its lock pointing at x. Checked whenever a held node's lock variable changes.
  void lock_changed(NodeId w) {
    const NodeId holder = holder_of(w);
    if (holder == no_node) return;
    const Port l = lock_of(w);
    const bool points = holder == w ? l == core::self_port
                                    : (l != core::no_port && l != 0 && l <= net_.delta() && net_.peer(w, l) == holder);
    if (!points) {
      report("P2", {holder, w}, {l},
             "node " + std::to_string(w) + " is held by LOCKED node " + std::to_string(holder) +
                 " but its lock variable changed to " + port_name(l));
    }
  }
  /// CheckDone of u returned `locked`: P3 (the returned ports), then P1 and P2 over the nodes u
  /// now holds (itself and its persistent neighbours).
  void lock_done(NodeId u, Ports locked) {
    const Ports expected = Ports(persistent_[u]) | Ports::of(core::self_port);
    if (!(locked == expected)) {
      std::vector<unsigned> diff;
      for (Port p : (locked - expected) | (expected - locked)) diff.push_back(p);
      report("P3", {u}, diff,
             "CheckDone returned " + ports_text(locked) + " but port 0 plus the persistent neighbours are " +
                 ports_text(expected));
    }
    // Each held node with its port towards u (port 0 for u itself).
    std::vector<std::pair<NodeId, Port>> held{{u, core::self_port}};
    for (Port p : Ports(persistent_[u])) held.emplace_back(net_.peer(u, p), net_.peer_port(u, p));
    for (auto [w, towards_u] : held) {
      const NodeId other = holder_of(w);
      if (other != no_node && other != u && is_locked(other))
        report("P1", {u, other, w}, {},
               "node " + std::to_string(w) + " is held by LOCKED nodes " + std::to_string(u) + " and " +
                   std::to_string(other));
      held_at_[w] = towards_u;
      lock_changed(w);
    }
  }
  /// u called Unlock: it holds nobody any more.
  void release_held(NodeId u) {
    if (held_at_[u] == core::self_port) held_at_[u] = core::no_port;
    for (Port p : net_.neighbours(u)) {
      const NodeId w = net_.peer(u, p);
      if (held_at_[w] == net_.peer_port(u, p)) held_at_[w] = core::no_port;
    }
  }

  // ---------------------------------------------------------------- P4, P6
  /// P4 with `along` messages in transit along the edge at `to`'s port p.
  [[gnu::always_inline]] void edge_bound(NodeId to, Port p, unsigned along) {
    max_in_transit_ = std::max(max_in_transit_, along);
    if (along > 2 && p != core::self_port) [[unlikely]]
      edge_bound_broken(to, p, along);
  }
  [[gnu::noinline]] void edge_bound_broken(NodeId to, Port p, unsigned along) {
    report("P4", {to, net_.peer(to, p)}, {p, net_.peer_port(to, p)},
           std::to_string(along) + " messages in transit along one edge (Theorem 1 allows 2)");
  }
  /// P6: a received byte that is not a message (it is dropped).
  [[gnu::noinline]] void malformed(NodeId u, Port p, std::uint8_t byte, core::DecodeError error) {
    report("P6", {u}, {p},
           "received byte " + std::to_string(byte) + " that is not a message: " + std::string(core::to_string(error)));
  }

  // ---------------------------------------------------------------- findings
  /// The model's rule (iii) (paper, Section 3.1): an action makes at most one Send per port. The
  /// printed algorithm breaks it when an action's CleanUp helper sends ready to H and the action
  /// then sends to L, which may share a port (errata E3). Not one of Theorem 1's claims (P4 counts
  /// the messages along edges separately), so it is a finding, counted and exemplified.
  void send_twice(NodeId u, core::Action a, const core::Effects<Word>& fx) {
    ++double_sends_;
    Ports twice;
    Ports seen;
    for (unsigned g = 0; g < fx.send_count; ++g) twice |= seen & fx.sends[g].ports, seen |= fx.sends[g].ports;
    if (double_send_examples_.size() < max_examples) {
      nlohmann::json kinds = nlohmann::json::array();
      for (unsigned g = 0; g < fx.send_count; ++g)
        kinds.push_back(std::string(core::to_string(fx.sends[g].message.kind)));
      double_send_examples_.push_back({{"round", now()},
                                       {"node", u},
                                       {"action", std::string(core::to_string(a))},
                                       {"ports", ports_text(twice)},
                                       {"kinds", kinds}});
    }
    if (trace_.enabled())
      trace_.finding("send-twice-on-port", u, twice,
                     std::string(core::to_string(a)) + " sends two messages on one port (model rule iii allows one)");
  }
  void priority_overwritten() { ++priority_overwrites_; }

  // ---------------------------------------------------------------- P7
  /// A Lock call at tick `start` (requests are checked in call order).
  void requested(std::uint32_t start, NodeId u) {
    pending_queue_.push_back({start, u});
    pending_peak_ = std::max(pending_peak_, pending_queue_.size());
  }
  /// Reports requests pending longer than `horizon` rounds, oldest first, each once. Called at the
  /// end of every round.
  void check_horizon(const Workload& work, std::uint64_t horizon_rounds) {
    const std::uint64_t horizon = horizon_rounds * tpr_;
    checked_at_ = now_, checked_ = true;
    // A request no longer pending leaves the queue only when it reaches the front, so behind one
    // slow request the queue holds every call made since (about four a node at 10^5 nodes after
    // 300 rounds of the default scenario, 33 bytes a node). Once it holds a node's worth more than
    // after the last drop, those are dropped in place, the order of the rest kept (at most one
    // request a node is pending).
    if (pending_queue_.size() > compact_above()) {
      std::erase_if(pending_queue_, [&](const auto& request) { return !still_pending(work, request); });
      compacted_at_ = pending_queue_.size();
    }
    while (!pending_queue_.empty()) {
      auto [start, u] = pending_queue_.front();
      if (!still_pending(work, {start, u})) {
        pending_queue_.pop_front();
        continue;
      }
      if (now_ - start <= horizon) break;
      report("P7", {u}, {},
             "Lock called at round " + trace_.fmt_round(start) + " still pending at round " + trace_.fmt_round(now_) +
                 ", longer than the horizon of " + std::to_string(horizon_rounds) + " rounds (state " +
                 std::string(core::to_string(states_.initiator(u))) + ")");
      pending_queue_.pop_front();
    }
  }

  /// The request of u called at tick `start` completed now. One that took longer than the horizon
  /// but completed before a check saw it pending that long is reported now: a request completing
  /// exactly horizon + 1 rounds after its call is late too.
  void completed(NodeId u, std::uint32_t start, std::uint64_t horizon_rounds) {
    const std::uint64_t horizon = horizon_rounds * tpr_;
    if (std::uint64_t{now_} - start <= horizon) return;
    const bool seen_late = checked_ && checked_at_ >= start && std::uint64_t{checked_at_} - start > horizon;
    if (seen_late) return;
    report("P7", {u}, {},
           "Lock called at round " + trace_.fmt_round(start) + " completed only after " +
               trace_.fmt_round(now_ - start) + " rounds, more than the horizon of " + std::to_string(horizon_rounds) +
               " rounds");
  }

  // ---------------------------------------------------------------- summary
  [[nodiscard]] const std::vector<Violation>& violations() const { return violations_; }
  [[nodiscard]] const std::map<std::string, std::uint64_t>& counts() const { return counts_; }
  [[nodiscard]] bool fired(const std::string& property) const { return counts_.count(property) != 0; }
  [[nodiscard]] unsigned max_in_transit() const { return max_in_transit_; }
  [[nodiscard]] nlohmann::json violations_json() const {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& v : violations_)
      out.push_back({{"property", v.property},
                     {"round", v.round},
                     {"nodes", v.nodes},
                     {"ports", v.ports},
                     {"detail", v.detail},
                     {"excerpt", v.excerpt}});
    return out;
  }
  [[nodiscard]] nlohmann::json findings_json() const {
    return {{"stale_lock_pointers", stale_lock_pointers_},
            {"stale_lock_pointer_examples", stale_examples_},
            {"priority_overwrites", priority_overwrites_},
            {"send_twice_on_port", double_sends_},
            {"send_twice_on_port_examples", double_send_examples_}};
  }
  [[nodiscard]] std::size_t bytes() const {
    return persistent_.capacity() * sizeof(Word) + held_at_.capacity() + pending_peak_ * 8 +
           view_.capacity() * sizeof(Viewed);
  }

 private:
  /// The LOCKED initiator holding w, or no_node: w itself or the neighbour at w's port held_at_[w].
  [[nodiscard]] NodeId holder_of(NodeId w) const {
    const Port p = held_at_[w];
    return p == core::no_port ? no_node : p == core::self_port ? w : net_.peer(w, p);
  }
  [[nodiscard]] static bool still_pending(const Workload& work, std::pair<std::uint32_t, NodeId> request) {
    const App& a = work.app(request.second);
    return a.phase == AppPhase::requesting && a.timer == request.first;
  }
  /// The queue's length past which check_horizon drops what is no longer pending: a node's worth
  /// more than it kept at the last drop, so that each drop's pass is paid for by as many calls.
  [[nodiscard]] std::size_t compact_above() const { return compacted_at_ + std::max<std::size_t>(net_.nodes(), 1024); }
  [[nodiscard]] std::string describe(const Ev& e) const {
    using core::Action;
    using core::InitiatorState;
    using core::MessageKind;
    using core::ParticipantPhase;
    const std::string r = "round " + trace_.fmt_round(e.tick) + ": ";
    auto msg = [](std::uint8_t byte) {
      const core::Decoded d = core::decode(byte, 32);
      std::string s(core::to_string(d.message.kind));
      if (d.message.kind == MessageKind::request_lock || d.message.kind == MessageKind::win)
        s += "(" + std::to_string(d.message.value) + ")";
      return s;
    };
    switch (e.kind) {
      case EvKind::connect:
        return r + "connect n" + std::to_string(e.u) + ":" + std::to_string(e.b1) + " n" + std::to_string(e.v) + ":" +
               std::to_string(e.b2);
      case EvKind::cut:
        return r + "cut n" + std::to_string(e.u) + ":" + std::to_string(e.b1) + " n" + std::to_string(e.v) + ":" +
               std::to_string(e.b2);
      case EvKind::send:
        return r + "n" + std::to_string(e.u) + " sends " + msg(e.b2) + " on port " + std::to_string(e.b1) +
               (e.v == no_node ? " (no edge)" : " to n" + std::to_string(e.v));
      case EvKind::lost:
        return r + "message " + msg(e.b2) + " lost at n" + std::to_string(e.u) + ":" + std::to_string(e.b1);
      case EvKind::act: {
        std::string s = r + "n" + std::to_string(e.u) + " " + std::string(core::to_string(static_cast<Action>(e.b1)));
        if (e.b3 != 0xFF) s += " " + msg(e.b3) + "@" + std::to_string(e.b2);
        return s + " -> lock=" + port_name(static_cast<Port>(e.v & 0xFF)) +
               " state=" + std::string(core::to_string(static_cast<InitiatorState>((e.v >> 8) & 0xFF))) +
               " phase=" + std::string(core::to_string(static_cast<ParticipantPhase>((e.v >> 16) & 0xFF)));
      }
      case EvKind::call:
        return r + "n" + std::to_string(e.u) + " calls " + (e.b1 ? "Unlock" : "Lock") + (e.b2 ? "" : " (rejected)");
      case EvKind::done: return r + "n" + std::to_string(e.u) + (e.b1 ? " unlocked" : " locked");
      default: return r + "event";
    }
  }

  const Network<Word, FixedDelta>& net_;
  const EngineStates<Word, FixedDelta>& states_;
  TraceWriter<Word>& trace_;
  const std::uint32_t& now_;
  std::uint32_t tpr_;

  BigArray<Word> persistent_;  ///< per node: the neighbours persistent since its Lock call
  /// Per node: where the LOCKED initiator holding it is, as its port (0: itself), or no_port. A
  /// port rather than the initiator's number: a byte a node instead of four (the graph is simple,
  /// so a port names one neighbour, and a cut clears it with the edge).
  BigArray<Port> held_at_;
  std::vector<Viewed> view_;  ///< per node, while kept: its lock variable and LOCKED flag as recorded
  std::deque<std::pair<std::uint32_t, NodeId>> pending_queue_;
  std::size_t compacted_at_ = 0;  ///< its length after the last drop of requests no longer pending
  std::size_t pending_peak_ = 0;  ///< its longest
  std::uint32_t checked_at_ = 0;  ///< the clock at the last horizon check
  bool checked_ = false;

  std::map<std::string, std::uint64_t> counts_;
  std::vector<Violation> violations_;
  unsigned max_in_transit_ = 0;
  std::uint64_t stale_lock_pointers_ = 0, priority_overwrites_ = 0, double_sends_ = 0;
  nlohmann::json stale_examples_ = nlohmann::json::array();
  nlohmann::json double_send_examples_ = nlohmann::json::array();
};

}  // namespace lmx::sim
