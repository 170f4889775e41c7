// The locks execution (docs/amoebot.md, "The locks execution"): the canonical amoebot model's
// concurrency control framework with lmx's Lock. Every amoebot is a node of the simulator; the
// lattice adjacency of the amoebots is the topology, one edge per pair of neighbouring amoebots,
// changed through Engine::connect / cut as they move (the paper's Section 6: "active dynamics").
//
// An awake amoebot calls Lock. At its completion (plan) the framework evaluates the guards over
// the locked neighbourhood and, if an action is enabled, fixes it; the action's operations take
// effect when the amoebot's Unlock call executes (commit), a time later during which the others
// go on. At commit the framework checks that nothing it planned from changed (isolation makes the
// locked amoebots' memory and bodies stay put; only an amoebot moving next to it from outside can
// change its neighbourhood, and then the action is given up and retried), runs the action, updates
// the topology and wakes whoever can see the change. Every commit is replayed on a sequential copy
// of the system (serializability).
#include <algorithm>
#include <bit>
#include <chrono>
#include <cmath>

#include "lmx/apps/amoebot.hpp"
#include "lmx/sim/simulation.hpp"
#include "sim/rng.hpp"

namespace lmx::apps::amoebot {

namespace {

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

int first_enabled(const Algorithm& alg, const View& v) {
  for (std::size_t i = 0; i < alg.actions.size(); ++i)
    if (alg.actions[i].guard(v)) return static_cast<int>(i);
  return -1;
}

std::string who(AmoebotId a) { return "amoebot " + std::to_string(a); }

/// Where an amoebot is in the framework's cycle (`queued`: awake, waiting for its turn in the
/// one-at-a-time baseline).
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
  void locked(NodeId u, std::uint64_t ports) override {
    ++st_.lock_cycles;
    sample();
    if (ended_) return release(u);
    Plan& plan = plans_[u];
    plan = Plan{};
    plan.scope[0] = u, plan.scope_size = 1;
    std::array<AmoebotId, 10> near{};
    const int k = s_.neighbours(u, near);
    // The lock set: the amoebots at the far ends of the returned ports.
    std::uint64_t held = 0;  // bit i: near[i] is locked
    for (std::uint64_t rest = ports & ~std::uint64_t{1}; rest; rest &= rest - 1) {
      const auto port = static_cast<core::Port>(std::countr_zero(rest));
      const NodeId v = e_->far_end(u, port).node;
      for (int i = 0; i < k; ++i)
        if (near[i] == v) held |= std::uint64_t{1} << i;
    }
    const bool whole = held == (std::uint64_t{1} << k) - 1;
    if (!whole && cfg_.fault != LocksFault::unguarded_neighbour) {
      // A neighbour arrived after the Lock call (it is not a persistent neighbour, so it is not
      // locked), or a fault left one out: the guards cannot be evaluated; retry.
      if (cfg_.fault != LocksFault::lock_skips_neighbour) {
        ++st_.incomplete_locks;
        return release(u);
      }
    }
    for (int i = 0; i < k; ++i)
      if ((held >> i & 1u) || cfg_.fault == LocksFault::unguarded_neighbour) plan.scope[plan.scope_size++] = near[i];
    if (cfg_.check_isolation && !isolated(u, plan, "at the plan")) return release(u);
    View v(s_, u, std::span<const AmoebotId>(plan.scope.data(), plan.scope_size));
    int rule = -1;
    try {
      rule = first_enabled(alg_, v);
    } catch (const ScopeError& e) {
      fail("scope: " + who(u) + "'s guards: " + e.what(), {u});
      return release(u);
    }
    if (rule < 0) {
      // Nothing enabled over the whole locked neighbourhood: sleep until a change wakes it. A wake
      // between now and the Unlock sets the flag again, so none is lost.
      sleep(u);
      ++st_.sleeps;
      trace_line("amoebot-sleep", {{"node", u}});
      return release(u);
    }
    plan.rule = rule;
    for (unsigned i = 0; i < plan.scope_size; ++i) plan.seen[i] = record(s_, plan.scope[i]);
    plan.near_size = static_cast<std::uint8_t>(k);
    std::copy(near.begin(), near.begin() + k, plan.near.begin());
    phase_[u] = Phase::planned;
    acting(+1);
    trace_line("amoebot-plan", {{"node", u}, {"rule", alg_.actions[rule].name}});
    e_->request_unlock(u);
  }

  void unlock_called(NodeId u) override {
    if (phase_[u] == Phase::planned) {
      acting(-1);
      commit(u);
      sample();
    }
    phase_[u] = Phase::unlocking;
  }

  void unlocked(NodeId u) override {
    phase_[u] = Phase::idle;
    busy(-1);
    activated(u);
    if (awake_[u] && !ended_) request(u);
    dispatch();
    maybe_terminated();
  }

  // ---------------------------------------------------------------- the end
  void finish(Result& r) {
    r.activations = st_.lock_cycles;
    r.rounds = rounds_;
    r.moves = s_.moves();
    r.terminated = terminated_;
    r.final_activations = final_cycles_;
    r.final_moves = final_moves_;
    r.final_rounds = static_cast<std::uint64_t>(std::ceil(final_round_));
    st_.mean_acting = acting_.mean(e_->now());
    st_.mean_locking = busy_.mean(e_->now());
    sample(true);
    const Configuration end = s_.snapshot();
    if (!ended_by_failure_) {
      // The sequential copy reached the same configuration.
      const Configuration seq = shadow_.snapshot();
      for (AmoebotId a = 0; a < n_; ++a) {
        const Amoebot &x = end.amoebots[a], &y = seq.amoebots[a];
        if (!(x.head == y.head && x.tail == y.tail && x.memory == y.memory)) {
          r.violations.push_back("serializability: at the end, " + who(a) +
                                 " differs from the sequential replay of the committed actions");
          break;
        }
      }
    }
    r.final_states = true;
    for (const Amoebot& am : end.amoebots) r.final_states = r.final_states && alg_.final_state(am.memory);
    if (std::string why = check_positions(end); !why.empty()) r.violations.push_back("at the end: " + why);
    r.connected = is_connected(end);
    if (alg_.keeps_connected && !r.connected && !ended_by_failure_)
      r.violations.push_back("at the end: connectivity: the system is disconnected");
    r.shape_detail = alg_.check_final(end);
    r.shape_ok = r.shape_detail.empty();
    // The topology followed the lattice: every amoebot's edges lead to exactly its neighbours.
    if (!ended_by_failure_)
      for (AmoebotId a = 0; a < n_; ++a) {
        std::array<AmoebotId, 10> near{};
        const int k = s_.neighbours(a, near);
        int edges = 0;
        bool same = true;
        for (core::Port p = 1; p <= lattice_delta; ++p)
          if (const NodeId b = e_->far_end(a, p).node; b != sim::no_node)
            ++edges, same = same && std::find(near.begin(), near.begin() + k, b) != near.begin() + k;
        if (!same || edges != k) {
          r.violations.push_back("topology: at the end, " + who(a) + "'s edges are not its lattice neighbours");
          break;
        }
      }
    // Termination: no amoebot has an enabled action (evaluated over the whole neighbourhood).
    if (terminated_)
      for (AmoebotId a = 0; a < n_; ++a) {
        View v(s_, a);
        if (const int rule = first_enabled(alg_, v); rule >= 0) {
          r.violations.push_back("termination: " + who(a) + " is asleep with " + alg_.actions[rule].name +
                                 " enabled at the end");
          break;
        }
      }
  }

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

  /// The isolation monitor: every amoebot of the plan's scope other than u has its lock pointing
  /// at u (the port of its edge to u), and u's at itself.
  bool isolated(AmoebotId u, const Plan& plan, const char* when) {
    ++st_.isolation_checks;
    if (e_->node(u).lock_port != core::self_port) {
      fail("isolation: " + who(u) + "'s lock does not name itself " + when, {u});
      return false;
    }
    for (unsigned i = 1; i < plan.scope_size; ++i) {
      const AmoebotId v = plan.scope[i];
      const core::Port at_v = e_->node(v).lock_port;
      const sim::Link back = at_v == core::no_port || at_v == core::self_port ? sim::Link{} : e_->far_end(v, at_v);
      if (back.node != u) {
        fail("isolation: " + who(v) + " is in " + who(u) + "'s neighbourhood but its lock does not point at " + who(u) +
                 " " + when,
             {u, v});
        return false;
      }
    }
    return true;
  }

  void commit(AmoebotId u) {
    Plan& plan = plans_[u];
    if (ended_) return;
    const std::span<const AmoebotId> scope(plan.scope.data(), plan.scope_size);
    // Isolation says nobody else touched what the plan read.
    for (unsigned i = 0; i < plan.scope_size; ++i)
      if (record(s_, plan.scope[i]) != plan.seen[i])
        return fail("serializability: " + who(plan.scope[i]) + " changed while " + who(u) +
                        "'s action was planned on it (" + alg_.actions[plan.rule].name + ")",
                    {u, plan.scope[i]});
    if (cfg_.check_isolation && !isolated(u, plan, "at the commit")) return;
    // The neighbourhood may have grown from outside (an amoebot two hops away expanded or was
    // pulled next to u): the plan no longer covers it, so it is given up and retried.
    std::array<AmoebotId, 10> near{};
    const int k = s_.neighbours(u, near);
    bool same = k == plan.near_size;
    for (int i = 0; i < k && same; ++i)
      same = std::find(plan.near.begin(), plan.near.begin() + plan.near_size, near[i]) !=
             plan.near.begin() + plan.near_size;
    if (!same) {
      ++st_.aborted;
      if (expansion_target_taken(u, plan)) ++st_.expansion_conflicts;
      trace_line("amoebot-abort", {{"node", u}, {"rule", alg_.actions[plan.rule].name}});
      return;
    }
    // Neighbour sets before the move, for the topology update.
    std::array<std::array<AmoebotId, 10>, 9> before{};
    std::array<int, 9> before_count{};
    for (unsigned i = 0; i < plan.scope_size; ++i) before_count[i] = s_.neighbours(plan.scope[i], before[i]);

    View v(s_, u, scope);
    const Action& act = alg_.actions[plan.rule];
    try {
      if (const int now = first_enabled(alg_, v); now != plan.rule)
        return fail("serializability: " + who(u) + " planned " + act.name + " but at the commit " +
                        (now < 0 ? std::string("nothing") : alg_.actions[now].name) + " is enabled",
                    {u});
      act.run(v);
    } catch (const ScopeError& e) {
      return fail("scope: " + who(u) + "'s " + act.name + ": " + e.what(), {u});
    }
    ++r_.actions;
    if (v.failed_operations() != 0)
      return fail("validity: " + who(u) + "'s " + act.name + " was enabled but its operation failed", {u});
    if (v.handover_partner() != no_amoebot) ++r_.handovers;
    if (v.moves() != 0) move_edges(u, v.handover_partner(), plan, before, before_count);
    if (ended_) return;
    for (const AmoebotId b : v.touched()) note_final(b);
    note_final(u);
    record_final();
    trace_act(u, act.name, v);
    replay_sequentially(u, plan.rule, v);
    // Wake whoever can see the change.
    wake_around(u);
    for (const AmoebotId b : v.touched()) wake_around(b);
    auto& vacated = s_.vacated();
    for (const std::uint32_t node : vacated) wake_around_node(node);
    if (cfg_.incremental_checks) {
      if (std::string why = s_.check_amoebot(u); !why.empty()) return fail(why, {u});
      for (const AmoebotId b : v.touched())
        if (std::string why = s_.check_amoebot(b); !why.empty()) return fail(why, {u, b});
      if (alg_.keeps_connected)
        for (const std::uint32_t node : vacated)
          if (!s_.still_connected_after_vacating(node))
            return fail("connectivity: " + who(u) + "'s " + act.name + " disconnected the system", {u});
    }
    vacated.clear();
  }

  /// Whether the planned action was an Expand whose target node another amoebot now holds.
  bool expansion_target_taken(AmoebotId u, const Plan& plan) const {
    if (!s_.contracted(u)) return false;
    // The action has not run; the only planned movement into a node that can be taken from
    // outside is an expansion, so a newly occupied adjacent node is the sign of one.
    for (int d = 0; d < 6; ++d) {
      const AmoebotId b = s_.occupant(s_.neighbour_index(s_.body(u).head, d));
      if (b != no_amoebot && std::find(plan.scope.begin(), plan.scope.begin() + plan.scope_size, b) ==
                                 plan.scope.begin() + plan.scope_size)
        return true;
    }
    return false;
  }

  /// The topology follows the lattice: for the amoebots that moved (u and its handover partner),
  /// cut the edges to amoebots no longer adjacent, then connect the new neighbours (cuts first,
  /// so that no node ever holds more than its final number of edges, at most 8). Pairs that stay
  /// adjacent keep their edge: their lock survives the move.
  void move_edges(AmoebotId u, AmoebotId partner, const Plan& plan,
                  const std::array<std::array<AmoebotId, 10>, 9>& before, const std::array<int, 9>& before_count) {
    std::array<AmoebotId, 2> movers{u, partner};
    const int mover_count = partner == no_amoebot ? 1 : 2;
    std::array<std::array<AmoebotId, 10>, 2> after{};
    std::array<int, 2> after_count{};
    std::array<int, 2> index{};
    for (int m = 0; m < mover_count; ++m) {
      after_count[m] = s_.neighbours(movers[m], after[m]);
      index[m] = static_cast<int>(std::find(plan.scope.begin(), plan.scope.begin() + plan.scope_size, movers[m]) -
                                  plan.scope.begin());
      if (index[m] >= plan.scope_size) return fail("scope: " + who(movers[m]) + " moved outside the lock set", {u});
    }
    auto contains = [](const std::array<AmoebotId, 10>& set, int count, AmoebotId x) {
      return std::find(set.begin(), set.begin() + count, x) != set.begin() + count;
    };
    for (int m = 0; m < mover_count; ++m)
      for (int i = 0; i < before_count[index[m]]; ++i) {
        const AmoebotId y = before[index[m]][i];
        if (contains(after[m], after_count[m], y)) continue;
        if (const core::Port p = port_to(movers[m], y); p != 0) e_->cut(movers[m], p);
      }
    for (int m = 0; m < mover_count; ++m)
      for (int i = 0; i < after_count[m]; ++i) {
        const AmoebotId y = after[m][i];
        if (port_to(movers[m], y) != 0) continue;
        if (std::string why = e_->connect(movers[m], 0, y, 0); !why.empty())
          return fail("topology: connecting " + who(movers[m]) + " and " + who(y) + ": " + why, {movers[m], y});
      }
  }
  core::Port port_to(AmoebotId a, AmoebotId b) const {
    for (core::Port p = 1; p <= lattice_delta; ++p)
      if (e_->far_end(a, p).node == b) return p;
    return 0;
  }

  /// Serializability: the committed action, replayed one at a time in commit order on a
  /// sequential copy of the system (no scope, no locks), is the same rule with the same effect.
  void replay_sequentially(AmoebotId u, int rule, const View& concurrent) {
    ++st_.serializability_checks;
    View v(shadow_, u);
    const int now = first_enabled(alg_, v);
    if (now != rule)
      return fail("serializability: the sequential replay of " + who(u) + "'s " + alg_.actions[rule].name + " runs " +
                      (now < 0 ? std::string("nothing") : alg_.actions[now].name),
                  {u});
    alg_.actions[rule].run(v);
    shadow_.vacated().clear();
    auto differs = [&](AmoebotId a) { return record(s_, a) != record(shadow_, a); };
    bool bad = differs(u) || v.handover_partner() != concurrent.handover_partner() ||
               v.touched().size() != concurrent.touched().size();
    for (const AmoebotId b : v.touched()) bad = bad || differs(b);
    if (bad)
      fail("serializability: " + who(u) + "'s " + alg_.actions[rule].name +
               " has another effect in the sequential replay",
           {u});
  }

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

/// The scenario: the user's adversary, and what the lattice decides.
sim::Scenario locks_scenario(const LocksConfig& cfg, std::uint32_t n,
                             const std::vector<std::pair<NodeId, NodeId>>& edges) {
  if (!cfg.scenario.is_object()) throw ModelError("scenario: expected a table of scenario keys");
  for (const char* key : {"nodes", "delta", "topology", "dynamics", "workload", "seed", "rounds"})
    if (cfg.scenario.contains(key))
      throw ModelError(std::string("scenario: '") + key +
                       "' is decided by the amoebot system (the lattice, the framework, --seed, --max-rounds), "
                       "not by the scenario");
  nlohmann::json j = cfg.scenario;
  j["nodes"] = n;
  j["delta"] = lattice_delta;
  j["seed"] = cfg.seed;
  j["rounds"] = cfg.max_rounds != 0 ? cfg.max_rounds : 1;  // the default is set below, once the engine is known
  nlohmann::json list = nlohmann::json::array();
  for (const auto& [u, v] : edges) list.push_back({u, v});
  j["topology"] = {{"kind", "edges"}, {"edges", std::move(list)}};
  j["dynamics"] = {{"kind", "static"}};
  j["workload"] = {{"kind", "manual"}};
  // Every awake amoebot locks at once near the hexagon's surface: waits are longer than the
  // derived horizon assumes (30 uncontended Locks), as for population protocols.
  if (!j.contains("horizon")) j["horizon"] = 100000;
  sim::Scenario sc;
  try {
    sc = sim::scenario_from_json(j);
  } catch (const sim::ScenarioError& e) {
    throw ModelError(e.what());
  }
  if (cfg.max_rounds == 0) {
    // The default: 1000 n + 10^5 rounds of nodes that act about once a round (hexagon formation
    // takes about 150 n under the async engine), scaled by how much less often the semi-synchronous
    // adversary activates a node, within the engines' limits (2 000 000 rounds for the async
    // engine, 4 000 000 for the semi-synchronous one).
    double per_round = 1;
    if (sc.engine == sim::EngineKind::semi_sync && sc.activation.kind == sim::ActivationKind::random)
      per_round = sc.activation.p;
    if (sc.engine == sim::EngineKind::semi_sync && sc.activation.kind == sim::ActivationKind::sequential)
      per_round = 1.0 / n;
    const double limit = sc.engine == sim::EngineKind::async ? 2e6 : 4e6;
    sc.rounds = static_cast<std::uint64_t>(std::min(limit, (1000.0 * n + 1e5) / per_round));
  }
  return sc;
}

}  // namespace

Result run_locks(const Algorithm& alg, const LocksConfig& cfg, LocksStats* stats) {
  return run_locks(alg, initial_configuration(alg, cfg.n, cfg.hole_prob, cfg.seed), cfg, stats);
}

Result run_locks(const Algorithm& alg, const Configuration& start, const LocksConfig& cfg, LocksStats* stats) {
  const auto t0 = std::chrono::steady_clock::now();
  LocksStats local;
  LocksStats& st = stats != nullptr ? *stats : local;
  st = LocksStats{};
  Result r;
  r.algorithm = alg.name;
  r.execution = cfg.one_at_a_time ? "locks-one-at-a-time" : "locks";
  r.seed = cfg.seed;
  r.hole_prob = cfg.hole_prob;
  Framework fw(alg, start, cfg, r, st);
  r.n = static_cast<std::uint32_t>(start.amoebots.size());
  const sim::Scenario sc = locks_scenario(cfg, r.n, fw.edges());
  sim::RunOptions opt;
  opt.source = "amoebot";
  opt.trace = cfg.trace;
  opt.listener = &fw;
  opt.stop = cfg.stop;
  // Most amoebots are asleep most of the time: their nodes' executions would be idle.
  opt.skip_dormant = true;
  auto engine = sim::make_engine(sc, opt);
  fw.attach(*engine);
  fw.start();
  while (engine->step()) {
  }
  const nlohmann::json summary = engine->finish();
  st.model_rounds = engine->now();
  fw.finish(r);
  for (const sim::Violation& v : engine->violations()) {
    if (st.excerpt.empty()) st.excerpt = v.excerpt;
    if (v.property != "amoebot")
      r.violations.push_back(v.property + " at round " + std::to_string(v.round) + ": " + v.detail);
  }
  r.interrupted = cfg.stop != nullptr && cfg.stop->load();
  if (!r.terminated && !r.interrupted && r.violations.empty())
    r.violations.push_back("termination: not every amoebot asleep after " + std::to_string(st.model_rounds) +
                           " model rounds (--max-rounds)");
  if (engine->in_transit() != 0 && r.terminated)
    r.violations.push_back("termination: " + std::to_string(engine->in_transit()) + " messages still in transit");
  st.messages = summary.value("messages", std::uint64_t{0});
  st.run_summary = summary;
  st.protocol_actions = engine->actions();
  // A run interrupted before any Lock completed has no latencies (null).
  if (const auto it = summary.find("latency_rounds"); it != summary.end() && it->is_object()) {
    auto number = [&](const char* key) {
      const auto v = it->find(key);
      return v != it->end() && v->is_number() ? v->get<double>() : 0.0;
    };
    st.lock_latency_p50 = number("p50"), st.lock_latency_p99 = number("p99");
  }
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

nlohmann::json report_json(const Result& r, const LocksStats& s, const Result* sequential) {
  nlohmann::json j = to_json(r, s);
  j.erase("violations");
  if (sequential != nullptr)
    j["sequential"] = {{"rounds", sequential->rounds},
                       {"activations", sequential->activations},
                       {"actions", sequential->actions},
                       {"moves", sequential->moves},
                       {"terminated", sequential->terminated}};
  nlohmann::json h = {{"model_round", nlohmann::json::array()}, {"amoebot_round", nlohmann::json::array()},
                      {"final", nlohmann::json::array()},       {"awake", nlohmann::json::array()},
                      {"acting", nlohmann::json::array()},      {"moves", nlohmann::json::array()}};
  for (const LocksStats::Sample& x : s.history) {
    h["model_round"].push_back(x.model_round);
    h["amoebot_round"].push_back(x.amoebot_round);
    h["final"].push_back(x.final);
    h["awake"].push_back(x.awake);
    h["acting"].push_back(x.acting);
    h["moves"].push_back(x.moves);
  }
  j["history"] = std::move(h);
  return j;
}

nlohmann::json to_json(const Result& r, const LocksStats& s) {
  nlohmann::json j = to_json(r);
  const double per = r.actions ? 1.0 / double(r.actions) : 0.0;
  j["locks"] = {{"model_rounds", s.model_rounds},
                {"lock_requests", s.lock_requests},
                {"lock_cycles", s.lock_cycles},
                {"incomplete_locks", s.incomplete_locks},
                {"sleeps", s.sleeps},
                {"aborted", s.aborted},
                {"expansion_conflicts", s.expansion_conflicts},
                {"isolation_checks", s.isolation_checks},
                {"serializability_checks", s.serializability_checks},
                {"messages", s.messages},
                {"messages_per_action", double(s.messages) * per},
                {"protocol_actions", s.protocol_actions},
                {"protocol_actions_per_second", r.wall_seconds > 0 ? double(s.protocol_actions) / r.wall_seconds : 0.0},
                {"max_acting", s.max_acting},
                {"mean_acting", s.mean_acting},
                {"max_locking", s.max_locking},
                {"mean_locking", s.mean_locking},
                {"lock_latency_p50", s.lock_latency_p50},
                {"lock_latency_p99", s.lock_latency_p99}};
  if (!s.excerpt.empty()) j["locks"]["excerpt"] = s.excerpt;
  return j;
}

}  // namespace lmx::apps::amoebot
