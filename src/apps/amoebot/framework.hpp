// The locks execution's framework (docs/amoebot.md, "The locks execution"; locks.cpp runs it):
// the plan and its records, and the Framework's state and cycle: Lock requests and the
// one-at-a-time baseline, sleeping and waking, the amoebot rounds, the history samples and the
// trace lines. The plan, the commit and the checks at the end are in framework.cpp.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "lmx/apps/amoebot.hpp"
#include "lmx/sim/simulation.hpp"
#include "sim/rng.hpp"

namespace lmx::apps::amoebot::detail {

using sim::NodeId;

constexpr unsigned lattice_delta = 8;  ///< an expanded amoebot has at most 8 distinct neighbours

/// Everything about an amoebot that an action may read: its body (as lattice nodes: the system's
/// node numbers change when its window grows) and its public memory.
struct Record {
  Node head, tail;
  Memory memory;
  friend bool operator==(const Record&, const Record&) = default;
};

/// A planned action: what the guard evaluation at the Lock's completion saw.
struct Plan {
  int rule = -1;
  std::uint8_t scope_size = 0;
  std::array<AmoebotId, 9> scope{};  ///< the actor first, then its locked neighbours
  std::array<Record, 9> seen{};      ///< their records at the plan
  std::uint8_t near_size = 0;
  std::array<AmoebotId, 8> near{};  ///< the actor's neighbours at the plan
};

inline int first_enabled(const Algorithm& alg, const View& v) {
  for (std::size_t i = 0; i < alg.actions.size(); ++i)
    if (alg.actions[i].guard(v)) return static_cast<int>(i);
  return -1;
}

inline std::string who(AmoebotId a) { return "amoebot " + std::to_string(a); }

/// A count that changes over model time, with its maximum and its time average.
struct Tally {
  std::uint32_t count = 0;
  double since = 0, area = 0;
  void add(int delta, double now, std::uint32_t& max) {
    area += double(count) * (now - since), since = now;
    count = static_cast<std::uint32_t>(int(count) + delta);
    max = std::max(max, count);
  }
  [[nodiscard]] double mean(double now) const { return now > 0 ? (area + double(count) * (now - since)) / now : 0.0; }
};

/// Where an amoebot is in the framework's cycle (`queued`: awake, waiting for its turn in the
/// one-at-a-time baseline).
enum class Phase : std::uint8_t { idle, queued, locking, planned, resting, unlocking };

class Framework final : public sim::LockListener {
 public:
  Framework(const Algorithm& alg, const Configuration& start, const LocksConfig& cfg, Result& r, LocksStats& st)
      : alg_(alg),
        cfg_(cfg),
        r_(r),
        st_(st),
        s_(start),
        shadow_(start),
        n_(s_.size()),
        awake_(n_, 1),
        phase_(n_, Phase::idle),
        plans_(n_),
        is_final_(n_),
        rng_(cfg.seed, sim::application_stream) {
    awake_count_ = n_;
    for (AmoebotId a = 0; a < n_; ++a) is_final_[a] = alg.final_state(s_.memory(a)), not_final_ += !is_final_[a];
  }

  /// The lattice adjacency as an edge list (each pair once).
  std::vector<std::pair<NodeId, NodeId>> edges() const {
    std::vector<std::pair<NodeId, NodeId>> out;
    std::array<AmoebotId, 10> near{};
    for (AmoebotId a = 0; a < n_; ++a) {
      const int k = s_.neighbours(a, near);
      for (int i = 0; i < k; ++i)
        if (near[i] > a) out.emplace_back(a, near[i]);
    }
    return out;
  }

  void attach(sim::Engine& e) { e_ = &e; }

  void start() {
    trace_start();
    record_final();
    starting_ = true;
    for (AmoebotId a = 0; a < n_; ++a) request(a);
    starting_ = false;
    dispatch();
    begin_round();
  }

  // ---------------------------------------------------------------- the lock's callbacks
  // (framework.cpp) the plan at the Lock's completion, the commit at the Unlock call
  void locked(NodeId u, std::uint64_t ports) override;
  void unlock_called(NodeId u) override;
  void unlocked(NodeId u) override;

  // ---------------------------------------------------------------- the end
  /// (framework.cpp) The results and the checks at the end of the run.
  void finish(Result& r);

  [[nodiscard]] bool ended_by_failure() const { return ended_by_failure_; }

 private:
  // ---------------------------------------------------------------- the framework
  void request(AmoebotId u) {
    if (cfg_.one_at_a_time) {
      // The baseline: awake amoebots wait their turn; one Lock cycle in the whole system at a time.
      phase_[u] = Phase::queued;
      queue_.push_back(u);
      return dispatch();
    }
    lock_now(u);
  }
  void dispatch() {
    if (!cfg_.one_at_a_time || starting_ || busy_.count != 0 || queue_.empty() || ended_) return;
    const std::uint32_t i = rng_.below(static_cast<std::uint32_t>(queue_.size()));
    const AmoebotId u = queue_[i];
    queue_[i] = queue_.back(), queue_.pop_back();
    lock_now(u);
  }
  void lock_now(AmoebotId u) {
    phase_[u] = Phase::locking;
    busy(+1);
    ++st_.lock_requests;
    if (cfg_.fault == LocksFault::none) {
      e_->request_lock(u);
      return;
    }
    // The faults: a Lock over every neighbour's port but one (chosen at random).
    const std::uint64_t neighbours = e_->node(u).neighbours;
    std::uint64_t requested = neighbours;
    if (const int count = std::popcount(neighbours); count > 0) {
      unsigned pick = rng_.below(static_cast<std::uint32_t>(count));
      std::uint64_t rest = neighbours;
      while (pick--) rest &= rest - 1;
      requested &= ~(rest & (~rest + 1));
    }
    e_->request_lock(u, requested);
  }
  void release(AmoebotId u) {
    phase_[u] = Phase::resting;
    e_->request_unlock(u);
  }
  void sleep(AmoebotId a) {
    if (awake_[a]) awake_[a] = 0, --awake_count_;
  }
  void wake(AmoebotId a) {
    if (awake_[a]) return;
    awake_[a] = 1, ++awake_count_;
    if (phase_[a] == Phase::idle && !ended_) request(a);
  }
  void wake_around(AmoebotId a) {
    wake(a);
    std::array<AmoebotId, 10> near{};
    const int k = s_.neighbours(a, near);
    for (int i = 0; i < k; ++i) wake(near[i]);
  }
  void wake_around_node(std::uint32_t node) {
    for (int d = 0; d < 6; ++d)
      if (const AmoebotId b = s_.occupant(s_.neighbour_index(node, d)); b != no_amoebot) wake(b);
  }
  void maybe_terminated() {
    if (ended_ || awake_count_ != 0 || busy_.count != 0) return;
    terminated_ = true;
    end();
  }
  void end() {
    if (!ended_) ended_ = true, e_->end_run();
  }
  void fail(const std::string& what, const std::vector<NodeId>& nodes) {
    r_.violations.push_back("round " + std::to_string(e_->now()) + ": " + what);
    e_->report("amoebot", nodes, what);
    ended_by_failure_ = true;
    end();
  }
  void acting(int delta) { acting_.add(delta, e_->now(), st_.max_acting); }
  void busy(int delta) { busy_.add(delta, e_->now(), st_.max_locking); }
  static Record record(const System& s, AmoebotId a) {
    const System::Body& b = s.body(a);
    return {s.node_of(b.head), s.node_of(b.tail), s.memory(a)};
  }

  // (framework.cpp) the commit, with the isolation monitor, the topology update and the
  // serializability replay
  bool isolated(AmoebotId u, const Plan& plan, const char* when);
  void commit(AmoebotId u);
  bool expansion_target_taken(AmoebotId u, const Plan& plan) const;
  void move_edges(AmoebotId u, AmoebotId partner, const Plan& plan,
                  const std::array<std::array<AmoebotId, 10>, 9>& before, const std::array<int, 9>& before_count);
  core::Port port_to(AmoebotId a, AmoebotId b) const {
    for (core::Port p = 1; p <= lattice_delta; ++p)
      if (e_->far_end(a, p).node == b) return p;
    return 0;
  }

  void replay_sequentially(AmoebotId u, int rule, const View& concurrent);

  void note_final(AmoebotId b) {
    const std::uint8_t f = alg_.final_state(s_.memory(b));
    if (f != is_final_[b]) is_final_[b] = f, not_final_ += f ? -1 : 1;
  }
  void record_final() {
    if (reached_final_ || not_final_ != 0) return;
    reached_final_ = true;
    final_cycles_ = st_.lock_cycles, final_moves_ = s_.moves(), final_round_ = double(rounds_);
  }

  // ---------------------------------------------------------------- history
  /// One sample per `every_` model rounds; past 2000 samples every other one is dropped and the
  /// spacing doubles, so a run of any length keeps 1000 to 2000 evenly spaced ones.
  void sample(bool last = false) {
    const double now = e_->now();
    if (!last && now < next_sample_) return;
    st_.history.push_back({now, rounds_, n_ - not_final_, awake_count_, acting_.count, s_.moves()});
    next_sample_ = now + every_;
    if (st_.history.size() > 2000) {
      std::size_t kept = 0;
      for (std::size_t i = 0; i < st_.history.size(); i += 2) st_.history[kept++] = st_.history[i];
      st_.history.resize(kept);
      every_ *= 2;
    }
  }

  // ---------------------------------------------------------------- rounds
  // The amoebot model's rounds, as the sequential execution counts them (a round ends when every
  // amoebot has been activated at least once), with an activation of an awake amoebot being its
  // whole framework cycle (Lock, guards, action, Unlock completed); an asleep amoebot's
  // activation does nothing and is counted as done at once.
  void begin_round() {
    ++epoch_;
    owed_ = 0;
    for (AmoebotId a = 0; a < n_; ++a)
      if (awake_[a] || phase_[a] != Phase::idle) owed_mark_[a] = epoch_, ++owed_;
  }
  void activated(AmoebotId a) {
    if (owed_mark_[a] != epoch_) return;
    owed_mark_[a] = 0;
    if (--owed_ == 0) {
      ++rounds_;
      begin_round();
    }
  }

  // ---------------------------------------------------------------- the trace
  void trace_line(const char* ev, const nlohmann::ordered_json& fields) {
    if (cfg_.trace != nullptr) e_->trace_line(ev, fields);
  }
  nlohmann::ordered_json amoebot_json(AmoebotId a) const {
    const Amoebot am = s_.amoebot(a);
    nlohmann::ordered_json mem = nlohmann::ordered_json::array();
    for (std::size_t i = 0; i < std::max<std::size_t>(1, alg_.variables.size()); ++i) mem.push_back(am.memory.v[i]);
    return {a, am.head.x, am.head.y, am.tail.x, am.tail.y, am.compass, mem};
  }
  void trace_start() {
    if (cfg_.trace == nullptr) return;
    nlohmann::ordered_json all = nlohmann::ordered_json::array();
    for (AmoebotId a = 0; a < n_; ++a) all.push_back(amoebot_json(a));
    e_->trace_line(
        "amoebots",
        {{"algorithm", alg_.name}, {"variables", alg_.variables}, {"states", alg_.state_names}, {"amoebots", all}});
  }
  void trace_act(AmoebotId u, const char* rule, const View& v) {
    if (cfg_.trace == nullptr) return;
    nlohmann::ordered_json changed = nlohmann::ordered_json::array();
    changed.push_back(amoebot_json(u));
    for (const AmoebotId b : v.touched())
      if (b != u) changed.push_back(amoebot_json(b));
    e_->trace_line("amoebot-act", {{"node", u}, {"rule", rule}, {"moves", v.moves()}, {"changed", changed}});
  }

  const Algorithm& alg_;
  const LocksConfig& cfg_;
  Result& r_;
  LocksStats& st_;
  System s_;
  System shadow_;  ///< the sequential copy the committed actions are replayed on
  std::uint32_t n_;
  std::vector<std::uint8_t> awake_;
  std::uint32_t awake_count_ = 0;
  std::vector<Phase> phase_;
  Tally busy_;  ///< amoebots between a Lock call and the end of their Unlock
  std::vector<Plan> plans_;
  std::vector<std::uint8_t> is_final_;
  std::uint32_t not_final_ = 0;
  bool reached_final_ = false;
  std::uint64_t final_cycles_ = 0, final_moves_ = 0;
  double final_round_ = 0;
  sim::Rng rng_;
  sim::Engine* e_ = nullptr;
  bool ended_ = false, terminated_ = false, ended_by_failure_ = false;
  std::vector<std::uint32_t> owed_mark_ = std::vector<std::uint32_t>(n_, 0);
  std::uint32_t epoch_ = 0, owed_ = 0;
  std::uint64_t rounds_ = 0;
  double next_sample_ = 0, every_ = 1;
  std::vector<AmoebotId> queue_;  ///< one-at-a-time: the awake amoebots waiting for their turn
  bool starting_ = false;
  Tally acting_;  ///< amoebots between their plan and their commit
};

}  // namespace lmx::apps::amoebot::detail
