// The sequential execution (docs/amoebot.md, "The sequential execution"): one uniformly random
// amoebot per activation, each activation atomic; the framework's awaken flags decide termination;
// AmoebotSim's counters; the checks after every activation.
#include <chrono>

#include "lmx/apps/amoebot.hpp"
#include "sim/rng.hpp"

namespace lmx::apps::amoebot {

namespace {

/// AmoebotSim's rounds: a round ends when every amoebot has been activated at least once since
/// the previous round ended (a handover's partner counts as activated).
class SeqRounds {
 public:
  explicit SeqRounds(std::uint32_t n) : mark_(n, 0), n_(n) {}
  void activated(AmoebotId a) {
    if (mark_[a] == epoch_) return;
    mark_[a] = epoch_;
    if (++seen_ == n_) ++rounds, ++epoch_, seen_ = 0;
  }
  std::uint64_t rounds = 0;

 private:
  std::vector<std::uint32_t> mark_;
  std::uint32_t n_;
  std::uint32_t epoch_ = 1;
  std::uint32_t seen_ = 0;
};

/// The awaken flags: an amoebot whose activation finds no enabled action sleeps until an action
/// changes something it can see.
class SeqWake {
 public:
  explicit SeqWake(std::uint32_t n) : awake_(n, 1), count_(n) {}
  [[nodiscard]] bool awake(AmoebotId a) const { return awake_[a] != 0; }
  void sleep(AmoebotId a) {
    if (awake_[a]) awake_[a] = 0, --count_;
  }
  void wake(AmoebotId a) {
    if (!awake_[a]) awake_[a] = 1, ++count_;
  }
  /// a and every amoebot next to one of its nodes.
  void wake_around(const System& s, AmoebotId a) {
    wake(a);
    std::array<AmoebotId, 10> near{};
    const int k = s.neighbours(a, near);
    for (int i = 0; i < k; ++i) wake(near[i]);
  }
  void wake_around_node(const System& s, std::uint32_t node) {
    for (int d = 0; d < 6; ++d) {
      const AmoebotId b = s.occupant(s.neighbour_index(node, d));
      if (b != no_amoebot) wake(b);
    }
  }
  [[nodiscard]] std::uint32_t count() const { return count_; }

 private:
  std::vector<std::uint8_t> awake_;
  std::uint32_t count_;
};

}  // namespace

Result run_sequential(const Algorithm& alg, const RunConfig& cfg) {
  return run_sequential(alg, initial_configuration(alg, cfg.n, cfg.hole_prob, cfg.seed), cfg);
}

Result run_sequential(const Algorithm& alg, const Configuration& start, const RunConfig& cfg) {
  const auto t0 = std::chrono::steady_clock::now();
  Result r;
  r.algorithm = alg.name;
  r.seed = cfg.seed;
  r.hole_prob = cfg.hole_prob;
  System s(start);
  const std::uint32_t n = s.size();
  r.n = n;
  const std::uint64_t limit = cfg.max_activations != 0 ? cfg.max_activations : 100ull * n * n + 1000000ull;
  sim::Rng rng(cfg.seed, sim::activation_stream);
  SeqRounds rounds(n);
  SeqWake wake(n);
  std::array<AmoebotId, 10> scope{};
  std::uint64_t activations = 0, actions = 0, handovers = 0;
  // Which amoebots are in a final state; only an action's own and touched amoebots change.
  std::vector<std::uint8_t> is_final(n);
  std::uint32_t not_final = 0;
  for (AmoebotId a = 0; a < n; ++a) is_final[a] = alg.final_state(s.memory(a)), not_final += !is_final[a];
  bool reached_final = false;
  auto note_final = [&](AmoebotId b) {
    const std::uint8_t f = alg.final_state(s.memory(b));
    if (f != is_final[b]) is_final[b] = f, not_final += f ? -1 : 1;
  };
  auto record_final = [&] {
    if (reached_final || not_final != 0) return;
    reached_final = true;
    r.final_activations = activations, r.final_rounds = rounds.rounds, r.final_moves = s.moves();
  };
  record_final();
  auto fail = [&](const std::string& what) {
    r.violations.push_back("activation " + std::to_string(activations) + ": " + what);
  };

  while (wake.count() > 0 && activations < limit) {
    if ((activations & 0xFFFF) == 0 && cfg.stop != nullptr && cfg.stop->load(std::memory_order_relaxed)) {
      r.interrupted = true;
      break;
    }
    const AmoebotId a = rng.below(n);
    ++activations;
    const bool was_awake = wake.awake(a);
    if (!was_awake && cfg.skip_asleep) {
      rounds.activated(a);
      continue;
    }
    // The scope: this amoebot and its neighbours, what the locks execution will hold.
    int scope_size = 0;
    if (cfg.scope_check) {
      scope[0] = a;
      std::array<AmoebotId, 10> near{};
      const int k = s.neighbours(a, near);
      for (int i = 0; i < k; ++i) scope[++scope_size] = near[i];
      ++scope_size;
    }
    View v(s, a, std::span<const AmoebotId>(scope.data(), static_cast<std::size_t>(scope_size)));
    const Action* ran = nullptr;
    try {
      for (const Action& act : alg.actions)
        if (act.guard(v)) {
          ran = &act;
          act.run(v);
          break;
        }
    } catch (const ScopeError& e) {
      fail(std::string("scope: ") + e.what());
      break;
    }
    if (ran == nullptr) {
      wake.sleep(a);
      rounds.activated(a);
      continue;
    }
    ++actions;
    if (!was_awake) {
      fail("wake: amoebot " + std::to_string(a) + " was asleep with " + ran->name + " enabled");
      break;
    }
    if (v.handover_partner() != no_amoebot) ++handovers, rounds.activated(v.handover_partner());
    rounds.activated(a);
    if (v.failed_operations() != 0)
      fail("validity: action " + std::string(ran->name) + " of amoebot " + std::to_string(a) +
           " was enabled but its operation failed");
    note_final(a);
    for (const AmoebotId b : v.touched()) note_final(b);
    record_final();
    // Wake whoever can see a change: the changed amoebots and their neighbours, and the
    // neighbours of vacated nodes.
    wake.wake_around(s, a);
    for (const AmoebotId b : v.touched()) wake.wake_around(s, b);
    auto& vacated = s.vacated();
    for (const std::uint32_t node : vacated) wake.wake_around_node(s, node);
    if (cfg.incremental_checks) {
      if (std::string why = s.check_amoebot(a); !why.empty()) fail(why);
      for (const AmoebotId b : v.touched())
        if (std::string why = s.check_amoebot(b); !why.empty()) fail(why);
      if (alg.keeps_connected)
        for (const std::uint32_t node : vacated)
          if (!s.still_connected_after_vacating(node))
            fail("connectivity: amoebot " + std::to_string(a) + "'s " + ran->name + " disconnected the system");
    }
    vacated.clear();
    if (!r.violations.empty()) break;
  }

  r.activations = activations;
  r.rounds = rounds.rounds;
  r.moves = s.moves();
  r.actions = actions;
  r.handovers = handovers;
  r.terminated = wake.count() == 0;
  const Configuration end = s.snapshot();
  r.final_states = true;
  for (const Amoebot& am : end.amoebots) r.final_states = r.final_states && alg.final_state(am.memory);
  if (std::string why = check_positions(end); !why.empty()) r.violations.push_back("at the end: " + why);
  r.connected = is_connected(end);
  if (alg.keeps_connected && !r.connected && r.violations.empty())
    r.violations.push_back("at the end: connectivity: the system is disconnected");
  r.shape_detail = alg.check_final(end);
  r.shape_ok = r.shape_detail.empty();
  r.wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return r;
}

nlohmann::json to_json(const Result& r) {
  nlohmann::json j = {
      {"algorithm", r.algorithm},
      {"execution", r.execution},
      {"n", r.n},
      {"seed", r.seed},
      {"hole_prob", r.hole_prob},
      {"activations", r.activations},
      {"rounds", r.rounds},
      {"moves", r.moves},
      {"actions", r.actions},
      {"handovers", r.handovers},
      {"final_states_at", {{"activations", r.final_activations}, {"rounds", r.final_rounds}, {"moves", r.final_moves}}},
      {"terminated", r.terminated},
      {"interrupted", r.interrupted},
      {"final_states", r.final_states},
      {"connected", r.connected},
      {"final_shape_ok", r.shape_ok},
      {"violations", r.violations},
      {"wall_seconds", r.wall_seconds},
      {"activations_per_second", r.wall_seconds > 0 ? double(r.activations) / r.wall_seconds : 0.0}};
  if (!r.shape_ok) j["final_shape_detail"] = r.shape_detail;
  return j;
}

}  // namespace lmx::apps::amoebot
