// Cheap predicates the simulator's adversary evaluates on every activation, instead of trial
// executions of the core. tests/sim/guards_test.cpp checks each against the core itself.
#pragma once

#include "lmx/core/protocol.hpp"

namespace lmx::sim {

/// Whether the CleanUp action (A1.20) would change anything at a node whose detector snapshot D is
/// empty: some send, or some variable of Table 1. With D empty the helper (A1.22-A1.31) touches
/// nothing while C is nonempty; with C empty it sends ready to H, moves H into A and sets phase
/// to PREPARE if A u H is nonempty, bottom otherwise. So it changes something iff C is empty and
/// either H is nonempty or phase differs from that value. The caller checks the guard; both
/// variants agree here (repair R3 only keeps ports the calling action sends to, and the CleanUp
/// action sends to none).
template <class Word>
[[nodiscard]] constexpr bool clean_up_changes_without_d(const core::NodeState<Word>& s) {
  if (!s.candidates.empty()) return false;
  if (!s.on_hold.empty()) return true;
  const auto phase = s.applicants.empty() ? core::ParticipantPhase::idle : core::ParticipantPhase::prepare;
  return s.phase != phase;
}

/// The guarded actions whose guard holds, as Protocol::enabled_guarded computes them (A1.15, A1.20
/// with repair R1, A2.5, A2.14, A2.30, A3.12), inline: the adversary asks on every activation.
template <class Word>
[[nodiscard]] constexpr core::ActionSet enabled_guarded(const core::NodeState<Word>& s, core::Variant variant) {
  using core::Action;
  using core::InitiatorState;
  using core::ParticipantPhase;
  auto bit = [](Action a, bool on) { return static_cast<unsigned>(on) << static_cast<unsigned>(a); };
  const bool all_replied = s.replied == s.lock_set;
  unsigned bits = bit(Action::check_start, s.state == InitiatorState::prepare && all_replied) |
                  bit(Action::clean_up, s.phase != ParticipantPhase::idle || s.state == InitiatorState::unlock ||
                                            (variant == core::Variant::repaired && s.state == InitiatorState::win)) |
                  bit(Action::check_done, s.state == InitiatorState::win && all_replied) |
                  bit(Action::check_unlocked, s.state == InitiatorState::unlock && all_replied);
  if (s.phase == ParticipantPhase::compete && s.candidates.size() == s.priorities.size())
    bits |= bit(Action::check_priorities, true);
  if (s.state == InitiatorState::compete && s.win_outcomes.size() == s.lock_set.size())
    bits |= bit(Action::check_win, true);
  return core::ActionSet{static_cast<std::uint16_t>(bits)};
}

/// |set| of a set of actions, without the library call GCC emits for std::popcount when the
/// target has no popcount instruction.
[[nodiscard]] constexpr unsigned count_actions(core::ActionSet set) {
  unsigned x = set.bits;
  x -= (x >> 1) & 0x5555u;
  x = (x & 0x3333u) + ((x >> 2) & 0x3333u);
  x = (x + (x >> 4)) & 0x0F0Fu;
  return (x + (x >> 8)) & 0x1Fu;
}

}  // namespace lmx::sim
