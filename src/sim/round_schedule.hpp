// The asynchronous engine's executions, seen from the deferred writes and from a second thread:
//  - TickCounts: which nodes the tick being taken may still start an execution at (a count per
//    slot of nodes), for the writes the engine defers to the tick's end (Network::begin_ticks);
//  - RoundSchedule: one round's executions in the calendar's order, taken from the calendar ahead
//    of the round. The times of the executions are drawn from the activation stream alone, in
//    the calendar's order, so the whole round can be taken out of the calendar before any of its
//    executions runs, on another thread while the round before runs (docs/simulator.md, "Threads").
#pragma once

#include <algorithm>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <vector>

#include "lmx/sim/scenario.hpp"

namespace lmx::sim {

/// A count per slot of `slots` (a power of two): the nodes v with v mod slots that the tick being
/// taken still holds. A slot's count is exact, so "none" is certain; "some" may be another node of
/// the slot. Within a tick the counts only fall.
class TickCounts {
 public:
  void assign(std::size_t slots) {
    remaining_.assign(std::bit_ceil(std::max<std::size_t>(slots, 1)), 0);
    mask_ = remaining_.size() - 1;
  }
  [[nodiscard]] bool active() const { return !remaining_.empty(); }
  void add(NodeId v) { ++remaining_[v & mask_]; }
  void take(NodeId v) { --remaining_[v & mask_]; }
  /// Whether v may still start an execution at the tick being taken.
  [[nodiscard]] bool may_start(NodeId v) const { return remaining_[v & mask_] != 0; }
  [[nodiscard]] std::size_t bytes() const { return remaining_.capacity() * sizeof(remaining_[0]); }

 private:
  /// 16 bits: a slot holds at most n / slots nodes of a tick (a node is held once), and the engine
  /// takes at least n / 32 slots.
  std::vector<std::uint16_t> remaining_;
  std::size_t mask_ = 0;
};

/// The executions of the ticks [first, first + ticks), in the calendar's order (by tick, then by
/// node): the nodes in one array, and where each tick's begin.
class RoundSchedule {
 public:
  void clear(std::uint64_t first, std::uint32_t ticks) {
    first_ = first, next_tick_ = 0;
    nodes_.clear();
    tick_begin_.assign(std::size_t{ticks} + 1, 0);
  }
  /// Room for `executions` without growing (a vector's doubling would leave up to twice the room).
  void reserve(std::size_t executions) { nodes_.reserve(executions); }
  /// The next execution: its tick is not before the last one's, and inside the round.
  void add(std::uint64_t t, NodeId u) {
    if (t < first_ || t - first_ >= tick_begin_.size() - 1 || t - first_ + 1 < next_tick_) [[unlikely]]
      throw std::logic_error("sim: an execution outside its round, or out of order, in a round's schedule");
    const auto k = static_cast<std::size_t>(t - first_);
    while (next_tick_ <= k) tick_begin_[next_tick_++] = static_cast<std::uint32_t>(nodes_.size());
    nodes_.push_back(u);
  }
  /// Every execution was added.
  void close() {
    while (next_tick_ < tick_begin_.size()) tick_begin_[next_tick_++] = static_cast<std::uint32_t>(nodes_.size());
  }
  [[nodiscard]] std::uint64_t first() const { return first_; }
  [[nodiscard]] std::uint32_t ticks() const { return static_cast<std::uint32_t>(tick_begin_.size() - 1); }
  /// The executions of tick first() + k: nodes()[begin(k)] up to nodes()[begin(k + 1)].
  [[nodiscard]] std::uint32_t begin(std::uint32_t k) const { return tick_begin_[k]; }
  [[nodiscard]] const std::vector<NodeId>& nodes() const { return nodes_; }
  [[nodiscard]] std::size_t bytes() const { return nodes_.capacity() * sizeof(NodeId) + tick_begin_.capacity() * 4; }

 private:
  std::uint64_t first_ = 0;
  std::size_t next_tick_ = 0;  ///< ticks below this have their begin set
  std::vector<NodeId> nodes_;
  std::vector<std::uint32_t> tick_begin_;
};

}  // namespace lmx::sim
