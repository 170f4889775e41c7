// The adversary's cheap predicates against the core itself, over random states of Table 1.
#include "lmx/sim/guards.hpp"

#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <random>

namespace lmx::sim {
namespace {

using namespace lmx::core;

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

template <class Word>
void check_enabled_guarded(unsigned delta) {
  std::mt19937_64 rng(delta + 100);
  for (Variant variant : {Variant::paper, Variant::repaired}) {
    const Protocol<Word> protocol(Config{delta, 4, variant});
    std::array<unsigned, action_count> enabled{};
    for (int i = 0; i < 200000; ++i) {
      const NodeState<Word> s = random_state<Word>(rng, delta);
      const ActionSet expected = protocol.enabled_guarded(s);
      ASSERT_EQ(enabled_guarded(s, variant).bits, expected.bits) << "state " << i << " variant " << to_string(variant);
      ASSERT_EQ(count_actions(expected), static_cast<unsigned>(std::popcount(expected.bits)));
      for (Action a : guarded_actions) enabled[static_cast<unsigned>(a)] += expected.contains(a);
    }
    for (Action a : guarded_actions) EXPECT_GT(enabled[static_cast<unsigned>(a)], 100u) << to_string(a);
  }
}

TEST(Guards, InlineGuardsMatchTheCore) {
  check_enabled_guarded<std::uint8_t>(3);
  check_enabled_guarded<std::uint16_t>(8);
  check_enabled_guarded<std::uint64_t>(40);
}

}  // namespace
}  // namespace lmx::sim
