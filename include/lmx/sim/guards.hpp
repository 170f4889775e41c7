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

}  // namespace lmx::sim
