// The locks execution's framework cycle (docs/amoebot.md, "The locks execution"; its state is in
// framework.hpp): the plan at the Lock's completion, the commit at the Unlock call with the
// isolation monitor, the topology update and the serializability replay, and the checks at the
// end of the run.
#include "framework.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <span>

namespace lmx::apps::amoebot::detail {

// ---------------------------------------------------------------- the lock's callbacks
void Framework::locked(NodeId u, std::uint64_t ports) {
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

void Framework::unlock_called(NodeId u) {
  if (phase_[u] == Phase::planned) {
    acting(-1);
    commit(u);
    sample();
  }
  phase_[u] = Phase::unlocking;
}

void Framework::unlocked(NodeId u) {
  phase_[u] = Phase::idle;
  busy(-1);
  activated(u);
  if (awake_[u] && !ended_) request(u);
  dispatch();
  maybe_terminated();
}

// ---------------------------------------------------------------- the end
void Framework::finish(Result& r) {
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

// ---------------------------------------------------------------- the commit
/// The isolation monitor: every amoebot of the plan's scope other than u has its lock pointing
/// at u (the port of its edge to u), and u's at itself.
bool Framework::isolated(AmoebotId u, const Plan& plan, const char* when) {
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

void Framework::commit(AmoebotId u) {
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
    same =
        std::find(plan.near.begin(), plan.near.begin() + plan.near_size, near[i]) != plan.near.begin() + plan.near_size;
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
bool Framework::expansion_target_taken(AmoebotId u, const Plan& plan) const {
  if (!s_.contracted(u)) return false;
  // The action has not run; the only planned movement into a node that can be taken from
  // outside is an expansion, so a newly occupied adjacent node is the sign of one.
  for (int d = 0; d < 6; ++d) {
    const AmoebotId b = s_.occupant(s_.neighbour_index(s_.body(u).head, d));
    if (b != no_amoebot &&
        std::find(plan.scope.begin(), plan.scope.begin() + plan.scope_size, b) == plan.scope.begin() + plan.scope_size)
      return true;
  }
  return false;
}

/// The topology follows the lattice: for the amoebots that moved (u and its handover partner),
/// cut the edges to amoebots no longer adjacent, then connect the new neighbours (cuts first,
/// so that no node ever holds more than its final number of edges, at most 8). Pairs that stay
/// adjacent keep their edge: their lock survives the move.
void Framework::move_edges(AmoebotId u, AmoebotId partner, const Plan& plan,
                           const std::array<std::array<AmoebotId, 10>, 9>& before,
                           const std::array<int, 9>& before_count) {
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

/// Serializability: the committed action, replayed one at a time in commit order on a
/// sequential copy of the system (no scope, no locks), is the same rule with the same effect.
void Framework::replay_sequentially(AmoebotId u, int rule, const View& concurrent) {
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
    fail(
        "serializability: " + who(u) + "'s " + alg_.actions[rule].name + " has another effect in the sequential replay",
        {u});
}

}  // namespace lmx::apps::amoebot::detail
