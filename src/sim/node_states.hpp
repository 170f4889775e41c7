// The nodes' Table 1 variables, one record per node. The core's layout (core::NodeState) gives
// every port set a whole register: at Delta = 8 that is 16-bit registers for 9 ports, 30 bytes a
// node. The engine built for Delta = 8 stores each node's variables in the paper's 126 bits
// instead (Section 4's count: L, R, H, A, C one bit per port, W two, P a presence bit and five
// priority bits per port, lock 4 bits, state 3, phase 2), two 64-bit words, 16 bytes a node. The
// core still steps on its own layout: a node's record is unpacked before its action and packed
// after it, so what the core computes is unchanged (tests/sim/node_states_test.cpp: every field
// through a round trip, and the runs of both layouts the same).
#pragma once

#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <type_traits>

#include "big_array.hpp"
#include "lmx/core/protocol.hpp"
#include "lmx/sim/scenario.hpp"

namespace lmx::sim {

/// One node's variables in 126 bits: `lo` holds state, phase, lock and L, R, W (won, lost), H, A;
/// `hi` holds C, P's ports and its five priority planes; 9 bits per port set (ports 0..8).
struct PackedState {
  std::uint64_t lo = 0, hi = 0;
};
static_assert(sizeof(PackedState) == 16);

/// Packing for registers of `Word` at Delta <= 8 (ports 0..8).
template <class Word>
struct StatePacking {
  using State = core::NodeState<Word>;
  using Ports = core::PortSet<Word>;
  static constexpr unsigned set_bits = 9;
  static constexpr std::uint64_t set_mask = (std::uint64_t{1} << set_bits) - 1;
  // Offsets in lo.
  static constexpr unsigned state_at = 0, phase_at = 3, lock_at = 5, lock_set_at = 9, replied_at = 18, won_at = 27,
                            lost_at = 36, on_hold_at = 45, applicants_at = 54;
  // Offsets in hi.
  static constexpr unsigned candidates_at = 0, priority_ports_at = 9, planes_at = 18;
  static_assert(applicants_at + set_bits <= 64 && planes_at + core::priority_planes * set_bits <= 64);
  /// The bits a node's variables occupy (the paper's count at Delta = 8, K = 32).
  static constexpr unsigned stored_bits = 2 * 63;

  [[nodiscard, gnu::always_inline]] static constexpr Ports set(std::uint64_t word, unsigned at) {
    return Ports(static_cast<Word>((word >> at) & set_mask));
  }
  /// lock as 4 bits: 0 for bottom (no_port), port + 1 otherwise.
  [[nodiscard, gnu::always_inline]] static constexpr core::Port lock_of(std::uint64_t lo) {
    return static_cast<core::Port>(((lo >> lock_at) & 0xF) - 1);
  }
  [[nodiscard, gnu::always_inline]] static constexpr core::InitiatorState initiator_of(std::uint64_t lo) {
    return static_cast<core::InitiatorState>((lo >> state_at) & 0x7);
  }
  [[nodiscard]] static constexpr std::uint64_t lock_code(core::Port p) { return (std::uint64_t{p} + 1) & 0xF; }
  /// Whether the lock's 4 bits hold p: bottom or a port 0..14.
  [[nodiscard, gnu::always_inline]] static constexpr bool lock_fits(core::Port p) {
    return p == core::no_port || p < 15;
  }

  [[nodiscard, gnu::always_inline]] static constexpr State unpack(const PackedState& p) {
    State s;
    s.state = initiator_of(p.lo);
    s.phase = static_cast<core::ParticipantPhase>((p.lo >> phase_at) & 0x3);
    s.lock_port = lock_of(p.lo);
    s.lock_set = set(p.lo, lock_set_at), s.replied = set(p.lo, replied_at);
    s.win_outcomes.won = set(p.lo, won_at), s.win_outcomes.lost = set(p.lo, lost_at);
    s.on_hold = set(p.lo, on_hold_at), s.applicants = set(p.lo, applicants_at);
    s.candidates = set(p.hi, candidates_at), s.priorities.ports = set(p.hi, priority_ports_at);
    for (unsigned b = 0; b < core::priority_planes; ++b)
      s.priorities.planes[b] = set(p.hi, planes_at + b * set_bits).bits();
    return s;
  }
  [[nodiscard, gnu::always_inline]] static constexpr PackedState pack(const State& s) {
    auto at = [](Ports ports, unsigned offset) { return std::uint64_t{ports.bits()} << offset; };
    PackedState p;
    p.lo = std::uint64_t(static_cast<unsigned>(s.state)) << state_at |
           std::uint64_t(static_cast<unsigned>(s.phase)) << phase_at | lock_code(s.lock_port) << lock_at |
           at(s.lock_set, lock_set_at) | at(s.replied, replied_at) | at(s.win_outcomes.won, won_at) |
           at(s.win_outcomes.lost, lost_at) | at(s.on_hold, on_hold_at) | at(s.applicants, applicants_at);
    p.hi = at(s.candidates, candidates_at) | at(s.priorities.ports, priority_ports_at);
    for (unsigned b = 0; b < core::priority_planes; ++b)
      p.hi |= std::uint64_t{s.priorities.planes[b]} << (planes_at + b * set_bits);
    return p;
  }
  /// Whether `s` fits the packing: every set within ports 0..8, the lock within lock_fits, and
  /// state and phase among their values (what the core produces at Delta <= 8).
  [[nodiscard]] static constexpr bool fits(const State& s) { return unpack(pack(s)) == s; }
  /// The same for what the core's step could widen, in a dozen instructions: a port set naming a
  /// port above 8, or a lock beyond lock_fits (state and phase are enums of the core's own values).
  /// A core change that widened a field would otherwise lose bits without a word.
  [[nodiscard, gnu::always_inline]] static constexpr bool ports_fit(const State& s) {
    Word sets = s.lock_set.bits() | s.replied.bits() | s.win_outcomes.won.bits() | s.win_outcomes.lost.bits() |
                s.on_hold.bits() | s.applicants.bits() | s.candidates.bits() | s.priorities.ports.bits();
    for (unsigned b = 0; b < core::priority_planes; ++b) sets = static_cast<Word>(sets | s.priorities.planes[b]);
    return (std::uint64_t{sets} >> set_bits) == 0 && lock_fits(s.lock_port);
  }
};

/// Every node's variables. `Packed`: in 16-byte records (StatePacking); otherwise the core's layout.
template <class Word, bool Packed>
class NodeStates {
 public:
  using State = core::NodeState<Word>;
  using Packing = StatePacking<Word>;
  static constexpr bool packed = Packed;
  using Record = std::conditional_t<Packed, PackedState, State>;

  void resize(std::size_t n) { records_.resize(n, store(State{})); }
  [[nodiscard]] std::size_t size() const { return records_.size(); }
  [[nodiscard]] std::size_t bytes() const { return records_.capacity() * sizeof(Record); }
  /// The bits a node's variables occupy.
  [[nodiscard]] static unsigned stored_bits() {
    if constexpr (Packed)
      return Packing::stored_bits;
    else
      return core::layout_state_bits(sizeof(Word) * 8);
  }

  /// u's variables (a copy: write them back with put).
  [[nodiscard, gnu::always_inline]] State get(NodeId u) const { return load(records_[u]); }
  /// Whether put checks every state it stores: in builds with LMX_CHECKED_STORES (the sanitizer
  /// build, which runs the whole suite), not in Release, where the check cost 1-2 % of the
  /// instructions per action (scripts/instructions.sh) for what the tests establish once.
#if defined(LMX_CHECKED_STORES)
  static constexpr bool checked_stores = true;
#else
  static constexpr bool checked_stores = false;
#endif
  /// Stores u's variables (checked in a build with checked_stores).
  [[gnu::always_inline]] void put(NodeId u, const State& s) {
    if constexpr (checked_stores) return put_checked(u, s);
    records_[u] = store(s);
  }
  /// Stores u's variables; packed, a state that does not fit (Packing::ports_fit) is an error.
  void put_checked(NodeId u, const State& s) {
    if constexpr (Packed)
      if (!Packing::ports_fit(s)) [[unlikely]]
        refuse(u);
    records_[u] = store(s);
  }
  [[nodiscard]] State at(NodeId u) const {
    if (u >= records_.size()) throw std::out_of_range("node " + std::to_string(u) + " out of range");
    return get(u);
  }
  /// The fields the engine and the monitors read of other nodes, without unpacking the rest.
  [[nodiscard, gnu::always_inline]] core::InitiatorState initiator(NodeId u) const {
    if constexpr (Packed)
      return Packing::initiator_of(records_[u].lo);
    else
      return records_[u].state;
  }
  [[nodiscard, gnu::always_inline]] core::Port lock_port(NodeId u) const {
    if constexpr (Packed)
      return Packing::lock_of(records_[u].lo);
    else
      return records_[u].lock_port;
  }
  /// Sets u's lock alone (fault injection); a port the packing cannot hold is refused.
  void set_lock_port(NodeId u, core::Port p) {
    if (u >= records_.size()) throw std::out_of_range("node " + std::to_string(u) + " out of range");
    if constexpr (Packed) {
      if (!Packing::lock_fits(p))
        throw std::invalid_argument("lock port " + std::to_string(p) + " does not fit a node of Delta = 8");
      const std::uint64_t field = std::uint64_t{0xF} << Packing::lock_at;
      records_[u].lo = (records_[u].lo & ~field) | (Packing::lock_code(p) << Packing::lock_at);
    } else {
      records_[u].lock_port = p;
    }
  }
  [[noreturn, gnu::noinline]] static void refuse(NodeId u) {
    throw std::logic_error("sim: node " + std::to_string(u) +
                           "'s variables name a port that its 126-bit record (Delta = 8) cannot hold");
  }
  /// u's record, for prefetching.
  [[nodiscard]] const Record* address(NodeId u) const { return &records_[u]; }

 private:
  [[nodiscard, gnu::always_inline]] static State load(const Record& r) {
    if constexpr (Packed)
      return Packing::unpack(r);
    else
      return r;
  }
  [[nodiscard, gnu::always_inline]] static Record store(const State& s) {
    if constexpr (Packed)
      return Packing::pack(s);
    else
      return s;
  }
  BigArray<Record> records_;
};

/// The engine's store: packed where the engine is built for Delta = 8 (make_engine), the core's
/// layout otherwise.
template <class Word, unsigned FixedDelta>
using EngineStates = NodeStates<Word, FixedDelta == 8 && sizeof(Word) * 8 >= 9>;

}  // namespace lmx::sim
