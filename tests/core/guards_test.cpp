// The guards defined once in the core (guards_holding, used by Protocol::guard and every host's
// adversary) against the paper's guards written out a second time, and the CleanUp predicate
// against a trial execution of the core, over random states of Table 1.
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <random>

#include "lmx/core/protocol.hpp"

namespace lmx::core {
namespace {

template <class Word>
NodeState<Word> random_state(std::mt19937_64& rng, unsigned delta) {
  // Sparse registers (each port in a set with probability 1/4, often the empty set) so that the
  // boundary cases (C, H, A empty or not) all occur often.
  const Word mask = static_cast<Word>(PortSet<Word>::range(0, static_cast<Port>(delta)).bits());
  auto reg = [&] {
    const unsigned shape = rng() % 4;
    if (shape == 0) return PortSet<Word>{};
    return PortSet<Word>(static_cast<Word>(rng() & rng() & mask));
  };
  NodeState<Word> s;
  s.lock_set = reg(), s.replied = reg(), s.win_outcomes.won = reg(), s.win_outcomes.lost = reg();
  s.on_hold = reg(), s.applicants = reg(), s.candidates = reg();
  s.priorities.ports = reg();
  for (auto& plane : s.priorities.planes) plane = static_cast<Word>(rng() & s.priorities.ports.bits());
  const unsigned l = rng() % (delta + 2);
  s.lock_port = l == delta + 1 ? no_port : static_cast<Port>(l);
  s.state = static_cast<InitiatorState>(rng() % 6);
  s.phase = static_cast<ParticipantPhase>(rng() % 3);
  return s;
}

/// The trial execution the predicate replaces: run CleanUp on a copy and compare.
template <class Word>
bool trial_clean_up_changes(const Protocol<Word>& protocol, const NodeState<Word>& s, PortSet<Word> neighbours) {
  NodeState<Word> copy = s;
  auto draw = [](unsigned) { return 0u; };
  const Effects<Word> fx =
      protocol.step(copy, Activation{Action::clean_up}, Context<Word>{{}, neighbours}, PriorityDraw::from(draw));
  EXPECT_EQ(fx.status, Status::ok);
  return fx.send_count != 0 || !(copy == s);
}

template <class Word>
void check_clean_up_predicate(unsigned delta) {
  std::mt19937_64 rng(delta);
  for (Variant variant : {Variant::paper, Variant::repaired}) {
    const Protocol<Word> protocol(Config{delta, 4, variant});
    const auto neighbours = PortSet<Word>::range(1, static_cast<Port>(delta));
    unsigned enabled = 0, changes = 0;
    for (int i = 0; i < 200000; ++i) {
      const NodeState<Word> s = random_state<Word>(rng, delta);
      if (!protocol.guard(s, Action::clean_up)) continue;
      ++enabled;
      const bool expected = trial_clean_up_changes(protocol, s, neighbours);
      changes += expected;
      ASSERT_EQ(clean_up_changes_without_d(s), expected) << "state " << i << " variant " << to_string(variant);
    }
    // Both outcomes occur often enough for the comparison to mean something.
    EXPECT_GT(enabled, 50000u);
    EXPECT_GT(changes, 5000u);
    EXPECT_GT(enabled - changes, 5000u);
  }
}

TEST(Guards, CleanUpPredicateMatchesTrialExecution) {
  check_clean_up_predicate<std::uint8_t>(3);
  check_clean_up_predicate<std::uint16_t>(8);
  check_clean_up_predicate<std::uint64_t>(40);
}

/// The guards as the paper prints them (Algorithms 1-3), spelled out independently of the core.
template <class Word>
bool paper_guard(const NodeState<Word>& s, Action a, Variant variant) {
  switch (a) {
    case Action::check_start: return s.state == InitiatorState::prepare && s.replied == s.lock_set;  // A1.15
    case Action::clean_up:                                                                           // A1.20 (+ R1)
      return s.phase != ParticipantPhase::idle || s.state == InitiatorState::unlock ||
             (variant != Variant::paper && s.state == InitiatorState::win);
    case Action::check_priorities:  // A2.5
      return s.phase == ParticipantPhase::compete && s.candidates.size() == s.priorities.ports.size();
    case Action::check_win:  // A2.14
      return s.state == InitiatorState::compete &&
             s.win_outcomes.won.size() + s.win_outcomes.lost.size() == s.lock_set.size();
    case Action::check_done: return s.state == InitiatorState::win && s.replied == s.lock_set;         // A2.30
    case Action::check_unlocked: return s.state == InitiatorState::unlock && s.replied == s.lock_set;  // A3.12
    default: return false;
  }
}

template <class Word>
void check_enabled_guarded(unsigned delta) {
  std::mt19937_64 rng(delta + 100);
  for (Variant variant : {Variant::paper, Variant::repaired}) {
    const Protocol<Word> protocol(Config{delta, 4, variant});
    std::array<unsigned, action_count> enabled{};
    for (int i = 0; i < 200000; ++i) {
      const NodeState<Word> s = random_state<Word>(rng, delta);
      const ActionSet set = guards_holding(s, variant);
      ASSERT_EQ(protocol.enabled_guarded(s).bits, set.bits) << "state " << i;
      ASSERT_EQ(set.size(), static_cast<unsigned>(std::popcount(set.bits)));
      for (Action a : guarded_actions) {
        ASSERT_EQ(set.contains(a), paper_guard(s, a, variant))
            << "state " << i << " action " << to_string(a) << " variant " << to_string(variant);
        enabled[static_cast<unsigned>(a)] += set.contains(a);
      }
    }
    for (Action a : guarded_actions) EXPECT_GT(enabled[static_cast<unsigned>(a)], 100u) << to_string(a);
  }
}

TEST(Guards, GuardsAreThePapers) {
  check_enabled_guarded<std::uint8_t>(3);
  check_enabled_guarded<std::uint16_t>(8);
  check_enabled_guarded<std::uint64_t>(40);
}

}  // namespace
}  // namespace lmx::core
