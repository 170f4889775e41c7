// The application's side of each node (docs/simulator.md, Workloads): when it calls Lock and
// Unlock. `auto` draws idle and hold times from the workload stream; `manual` waits for the
// application API (Engine::request_lock / request_unlock).
#pragma once

#include <cstdint>
#include <unordered_map>
#include <vector>

#include "big_array.hpp"
#include "lmx/sim/scenario.hpp"
#include "rng.hpp"

namespace lmx::sim {

enum class AppPhase : std::uint8_t {
  none,         ///< not participating, or done
  wait_lock,    ///< will call Lock at `timer`
  requesting,   ///< Lock called at `timer`, waiting for CheckDone
  wait_unlock,  ///< LOCKED; will call Unlock at `timer`
  unlocking,    ///< Unlock called, waiting for CheckUnlocked
};

/// A node's application record, 12 bytes. The two counts that can grow past 16 bits keep their
/// low 16 bits here and the rest in a side table of the few nodes that need it (Workload::messages
/// and Workload::locks give them whole): exact counts in 12 bytes where 32-bit fields took 16.
struct App {
  std::uint32_t timer = 0;  ///< call time (wait_*), or the tick the pending request started
  AppPhase phase = AppPhase::none;
  std::uint8_t trials = 0;         ///< competitions of the pending request (saturating)
  std::uint16_t actions = 0;       ///< activations of the requester during the request (saturating)
  std::uint16_t messages_low = 0;  ///< messages the requester sent during the request, mod 2^16
  std::uint16_t locks_low = 0;     ///< completed locks, mod 2^16
};
static_assert(sizeof(App) == 12);

class Workload {
 public:
  Workload(const Scenario& s, NodeId n, std::uint32_t ticks_per_round)
      : sc_(s.workload),
        automatic_(s.workload.kind == WorkloadKind::automatic),
        tpr_(ticks_per_round),
        rng_(s.seed, workload_stream) {
    apps_.resize(n);
    participating_.assign(n, false);
  }

  /// `auto`: each participating node (fraction `participation`) schedules its first Lock.
  void start(std::uint32_t now) {
    if (!automatic_) return;
    for (NodeId u = 0; u < apps_.size(); ++u) {
      participating_[u] = rng_.unit() < sc_.participation;
      if (participating_[u]) schedule_lock(u, true, now);
    }
  }
  /// Uniform on [0, 2 * mean] rounds, in ticks.
  std::uint32_t draw_delay(double mean_rounds) {
    const double ticks = mean_rounds * 2 * tpr_;
    return static_cast<std::uint32_t>(rng_.unit() * (ticks + 1));
  }
  /// The next Lock of u after an idle time (half of one for its first), or none when u has made
  /// its `locks` calls.
  void schedule_lock(NodeId u, bool first, std::uint32_t now) {
    App& a = apps_[u];
    if (sc_.locks && locks(u) >= sc_.locks) {
      a.phase = AppPhase::none;
      return;
    }
    a.phase = AppPhase::wait_lock;
    a.timer = now + (first ? draw_delay(sc_.idle) / 2 : draw_delay(sc_.idle));
  }
  /// After CheckDone: hold the critical section (auto), or leave the call to the application.
  void locked(NodeId u, std::uint32_t now) {
    App& a = apps_[u];
    if (a.phase != AppPhase::requesting) return;
    a.phase = automatic_ ? AppPhase::wait_unlock : AppPhase::none;
    a.timer = now + draw_delay(sc_.hold);
  }
  /// After CheckUnlocked: idle, then Lock again (auto).
  void unlocked(NodeId u, std::uint32_t now) {
    App& a = apps_[u];
    if (a.phase != AppPhase::unlocking) return;
    --unlocking;
    if (automatic_)
      schedule_lock(u, false, now);
    else
      a.phase = AppPhase::none;
  }
  /// Whether every node is done with its calls (checked incrementally: phases only move to none).
  [[nodiscard]] bool all_done() {
    for (; done_scan_ < apps_.size(); ++done_scan_)
      if (apps_[done_scan_].phase != AppPhase::none) return false;
    return true;
  }

  App& app(NodeId u) { return apps_[u]; }
  [[nodiscard]] const App& app(NodeId u) const { return apps_[u]; }

  /// A request begins: its message count starts at 0.
  void start_request(NodeId u) {
    apps_[u].messages_low = 0;
    if (!messages_high_.empty()) [[unlikely]]
      messages_high_.erase(u);
  }
  /// u, requesting, sent `sends` more messages.
  [[gnu::always_inline]] void add_messages(NodeId u, std::uint64_t sends) {
    App& a = apps_[u];
    const std::uint64_t sum = a.messages_low + sends;
    a.messages_low = static_cast<std::uint16_t>(sum);
    if (sum >> 16) [[unlikely]]
      messages_high_[u] += sum >> 16;
  }
  /// The messages u sent during its pending (or last) request.
  [[nodiscard]] std::uint64_t messages(NodeId u) const { return whole(apps_[u].messages_low, messages_high_, u); }
  /// u completed a lock.
  void add_lock(NodeId u) {
    App& a = apps_[u];
    if (++a.locks_low == 0) [[unlikely]]
      ++locks_high_[u];
  }
  /// The locks u completed.
  [[nodiscard]] std::uint64_t locks(NodeId u) const { return whole(apps_[u].locks_low, locks_high_, u); }
  [[nodiscard]] bool participating(NodeId u) const { return participating_[u]; }
  [[nodiscard]] bool automatic() const { return automatic_; }
  [[nodiscard]] std::size_t bytes() const {
    // The side tables: a node and its count, and about as much again for the hash table's links.
    return apps_.capacity() * sizeof(App) + participating_.capacity() / 8 +
           (messages_high_.size() + locks_high_.size()) * 32;
  }

  std::uint64_t pending = 0;    ///< Lock calls waiting for CheckDone
  std::uint64_t unlocking = 0;  ///< Unlock calls waiting for CheckUnlocked

 private:
  using HighParts = std::unordered_map<NodeId, std::uint64_t>;
  [[nodiscard]] static std::uint64_t whole(std::uint16_t low, const HighParts& high, NodeId u) {
    if (high.empty()) return low;
    const auto it = high.find(u);
    return (it == high.end() ? 0 : it->second << 16) | low;
  }
  Scenario::Workload sc_;
  bool automatic_;
  std::uint32_t tpr_;
  Rng rng_;
  BigArray<App> apps_;
  std::vector<bool> participating_;
  NodeId done_scan_ = 0;
  HighParts messages_high_, locks_high_;  ///< the counts' bits above the low 16, where not 0
};

}  // namespace lmx::sim
