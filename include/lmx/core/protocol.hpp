// The local mutual exclusion protocol of Daymude, Richa and Scheideler (SAND 2022), Algorithms 1-3,
// as a pure per-node state machine: no IO, no clock, no global RNG, no allocation.
//
// A host (simulator, checker, robot firmware) owns the channels, the topology and the
// disconnection detector. At each activation it hands the node
//   - the chosen action (and, for a Receive* action, the message and its port),
//   - the detector's snapshot D of ports cut since the node last acted,
//   - the ports that currently hold an edge (N(u), needed by InitLock: L <- N[u]),
//   - a source of randomness for the priority draw,
// and gets back at most one message per port plus events (lock acquired, unlocked).
#pragma once

#include <array>
#include <cstdint>
#include <string_view>

#include "lmx/core/message.hpp"
#include "lmx/core/ports.hpp"

namespace lmx::core {

/// `state` of Table 1: the lock state of an initiator. `idle` is the paper's bottom.
enum class InitiatorState : std::uint8_t { idle, prepare, compete, win, locked, unlock };
/// `phase` of Table 1: the algorithm phase of a participant. `idle` is the paper's bottom.
enum class ParticipantPhase : std::uint8_t { idle, prepare, compete };

/// Which algorithm runs. `paper` is Algorithms 1-3 exactly as printed, kept as the reference with
/// its defects (docs/errata.md); `repaired` applies the smallest repairs that the exhaustive
/// checker proves sufficient, and is the default. `fast` is `repaired` plus two changes for locks
/// under contention (docs/performance.md, "The fast variant"): F1, a participant whose lock is
/// set defers its trial until the lock is released instead of failing every candidate; F2, a tie
/// for the highest priority is broken at random by the participant instead of failing everyone.
enum class Variant : std::uint8_t { paper, repaired, fast };
inline constexpr Variant default_variant = Variant::repaired;

/// Every action of Algorithms 1-3. InitLock and InitUnlock run when the application calls
/// Lock / Unlock; Receive* run when the adversary delivers a message; the rest are guarded.
enum class Action : std::uint8_t {
  init_lock,           // Alg. 1 line 1
  receive_prepare,     // Alg. 1 line 6
  receive_ready,       // Alg. 1 line 12
  check_start,         // Alg. 1 line 15
  clean_up,            // Alg. 1 line 20 (the action; the helper is line 22)
  receive_request,     // Alg. 2 line 1
  check_priorities,    // Alg. 2 line 5
  receive_win,         // Alg. 2 line 11
  check_win,           // Alg. 2 line 14
  receive_set_lock,    // Alg. 2 line 23
  receive_ack_lock,    // Alg. 2 line 27
  check_done,          // Alg. 2 line 30
  init_unlock,         // Alg. 3 line 1
  receive_release,     // Alg. 3 line 6
  receive_ack_unlock,  // Alg. 3 line 9
  check_unlocked,      // Alg. 3 line 12
};
inline constexpr unsigned action_count = 16;

/// A set of actions as a bit mask (bit i = Action i).
struct ActionSet {
  std::uint16_t bits = 0;
  [[nodiscard]] constexpr bool contains(Action a) const { return (bits >> static_cast<unsigned>(a)) & 1u; }
  constexpr void insert(Action a) { bits = static_cast<std::uint16_t>(bits | (1u << static_cast<unsigned>(a))); }
  constexpr void erase(Action a) { bits = static_cast<std::uint16_t>(bits & ~(1u << static_cast<unsigned>(a))); }
  [[nodiscard]] constexpr bool empty() const { return bits == 0; }
  /// |set|, without the library call GCC emits for std::popcount when the target has no popcount
  /// instruction (hosts count the options of every activation).
  [[nodiscard]] constexpr unsigned size() const {
    unsigned x = bits;
    x -= (x >> 1) & 0x5555u;
    x = (x & 0x3333u) + ((x >> 2) & 0x3333u);
    x = (x + (x >> 4)) & 0x0F0Fu;
    return (x + (x >> 8)) & 0x1Fu;
  }
  constexpr bool operator==(const ActionSet&) const = default;
};

/// The guarded (non-message, non-API) actions.
inline constexpr std::array<Action, 6> guarded_actions = {Action::check_start,      Action::clean_up,
                                                          Action::check_priorities, Action::check_win,
                                                          Action::check_done,       Action::check_unlocked};

/// The receive actions by message kind, 4 bits each in one word: a lookup in a register (a local
/// table was built on the stack at every delivery of the simulator).
inline constexpr std::uint32_t receive_action_table = [] {
  constexpr std::array<Action, message_kind_count> table = {
      Action::receive_prepare,  Action::receive_ready,    Action::receive_request, Action::receive_win,
      Action::receive_set_lock, Action::receive_ack_lock, Action::receive_release, Action::receive_ack_unlock};
  static_assert(action_count <= 16 && message_kind_count <= 8);
  std::uint32_t word = 0;
  for (unsigned i = 0; i < message_kind_count; ++i) word |= static_cast<std::uint32_t>(table[i]) << (4 * i);
  return word;
}();
/// The Receive* action that handles a message kind.
[[nodiscard]] constexpr Action receive_action(MessageKind kind) {
  return static_cast<Action>((receive_action_table >> (4 * static_cast<unsigned>(kind))) & 0xFu);
}
[[nodiscard]] constexpr bool is_receive(Action a) {
  switch (a) {
    case Action::receive_prepare:
    case Action::receive_ready:
    case Action::receive_request:
    case Action::receive_win:
    case Action::receive_set_lock:
    case Action::receive_ack_lock:
    case Action::receive_release:
    case Action::receive_ack_unlock: return true;
    default: return false;
  }
}

/// Protocol parameters shared by all nodes of a system.
struct Config {
  unsigned delta = 8;  ///< ports per node, Delta
  unsigned k = 4;      ///< number of priority values, K (2..32)
  Variant variant = default_variant;
};
inline constexpr unsigned k_min = 2;
inline constexpr unsigned k_max = 32;

/// Bits of one priority: ceil(log2 K) for K <= 32.
inline constexpr unsigned priority_planes = 5;

/// W of Table 1: port-outcome pairs of win messages, as two registers (a port may in principle
/// hold both outcomes; the set semantics, and so |W|, stay exact).
template <class Word>
struct WinOutcomes {
  PortSet<Word> won;   ///< ports with (l, true) in W
  PortSet<Word> lost;  ///< ports with (l, false) in W
  [[nodiscard]] constexpr unsigned size() const { return won.size() + lost.size(); }
  constexpr void clear() { won.clear(), lost.clear(); }
  constexpr void erase(PortSet<Word> ports) { won -= ports, lost -= ports; }
  constexpr bool operator==(const WinOutcomes&) const = default;
};

/// P of Table 1: port-priority pairs of the candidates, stored as bit planes so that "the unique
/// highest priority" is five AND operations instead of a scan over ports.
template <class Word>
struct Priorities {
  PortSet<Word> ports;                         ///< ports l with some (l, p) in P
  std::array<Word, priority_planes> planes{};  ///< plane b holds bit b of each port's p
  [[nodiscard]] constexpr unsigned size() const { return ports.size(); }
  [[nodiscard]] constexpr unsigned get(Port l) const {
    unsigned p = 0;
    for (unsigned b = 0; b < priority_planes; ++b) p |= static_cast<unsigned>((planes[b] >> l) & 1u) << b;
    return p;
  }
  constexpr void set(Port l, unsigned p) {
    ports.insert(l);
    for (unsigned b = 0; b < priority_planes; ++b) {
      const Word bit = static_cast<Word>(Word{1} << l);
      planes[b] = static_cast<Word>(((p >> b) & 1u) ? (planes[b] | bit) : (planes[b] & ~bit));
    }
  }
  constexpr void erase(PortSet<Word> gone) {
    ports -= gone;
    for (auto& plane : planes) plane = static_cast<Word>(plane & ~gone.bits());
  }
  constexpr void clear() { *this = Priorities{}; }
  /// Ports that hold the highest priority in P (empty iff P is empty).
  [[nodiscard]] constexpr PortSet<Word> highest() const {
    Word best = ports.bits();
    for (unsigned b = priority_planes; b-- > 0;) {
      const Word with = static_cast<Word>(best & planes[b]);
      if (with != 0) best = with;
    }
    return PortSet<Word>(best);
  }
  constexpr bool operator==(const Priorities&) const = default;
};

/// All variables of Table 1 for one node. Plain data: copy, compare and hash freely.
template <class Word>
struct NodeState {
  using Ports = PortSet<Word>;
  Ports lock_set;                  ///< L: ports u intends to lock
  Ports replied;                   ///< R: ports that replied ready / ack-lock / ack-unlock
  WinOutcomes<Word> win_outcomes;  ///< W
  Ports on_hold;                   ///< H: ports on hold for the next competition to lock u
  Ports applicants;                ///< A: applicants that may join the competition to lock u
  Ports candidates;                ///< C: candidates competing to lock u
  Priorities<Word> priorities;     ///< P: candidates' priorities
  Port lock_port = no_port;        ///< lock: no_port (bottom), 0 (self) or the port of the locker
  InitiatorState state = InitiatorState::idle;
  ParticipantPhase phase = ParticipantPhase::idle;
  constexpr bool operator==(const NodeState&) const = default;
};

/// Register widths offered: Delta <= 7, 15, 31, 63.
using State8 = NodeState<std::uint8_t>;
using State16 = NodeState<std::uint16_t>;
using State32 = NodeState<std::uint32_t>;
using State64 = NodeState<std::uint64_t>;
static_assert(sizeof(State16) <= 32, "Delta <= 15 with K <= 32 must fit 32 bytes");
static_assert(sizeof(State64) <= 128, "Delta <= 63 must fit 128 bytes");

/// The guarded actions whose guard holds (A1.15 CheckStart, A1.20 CleanUp with repair R1, A2.5
/// CheckPriorities, A2.14 CheckWin, A2.30 CheckDone, A3.12 CheckUnlocked). Defined once, inline:
/// the core's Protocol::guard and every host's adversary (which asks at each activation) use it.
template <class Word>
[[nodiscard]] constexpr ActionSet guards_holding(const NodeState<Word>& s, Variant variant) {
  auto bit = [](Action a, bool on) { return static_cast<unsigned>(on) << static_cast<unsigned>(a); };
  const bool all_replied = s.replied == s.lock_set;
  unsigned bits =
      bit(Action::check_start, s.state == InitiatorState::prepare &&
                                   all_replied) |  // A1.15
                                                   // A1.20; REPAIR R1 (docs/errata.md, E1): also in WIN, so that
                                                   // CheckDone cannot wait forever for an ack-lock lost with its edge.
      bit(Action::clean_up, s.phase != ParticipantPhase::idle || s.state == InitiatorState::unlock ||
                                (variant != Variant::paper && s.state == InitiatorState::win)) |
      bit(Action::check_done, s.state == InitiatorState::win && all_replied) |        // A2.30
      bit(Action::check_unlocked, s.state == InitiatorState::unlock && all_replied);  // A3.12
  // A2.5; FAST F1: and lock = bottom. A locked participant would answer win(false) to every
  // candidate (A2.9), so the trial could only fail; it waits for ReceiveRelease (A3.8) instead.
  if (s.phase == ParticipantPhase::compete && s.candidates.size() == s.priorities.size() &&
      (variant != Variant::fast || s.lock_port == no_port))
    bits |= bit(Action::check_priorities, true);
  if (s.state == InitiatorState::compete && s.win_outcomes.size() == s.lock_set.size())  // A2.14
    bits |= bit(Action::check_win, true);
  return ActionSet{static_cast<std::uint16_t>(bits)};
}

/// Whether the CleanUp action (A1.20) would change anything at a node whose detector snapshot D is
/// empty: some send, or some variable of Table 1. With D empty the helper (A1.22-A1.31) touches
/// nothing while C is nonempty; with C empty it sends ready to H, moves H into A and sets phase
/// to PREPARE if A u H is nonempty, bottom otherwise. So it changes something iff C is empty and
/// either H is nonempty or phase differs from that value. (A CleanUp that changes nothing is
/// indistinguishable from no action at all: hosts skip it.) Every variant agrees here: repair R3
/// only keeps ports the calling action sends to, and the CleanUp action sends to none.
template <class Word>
[[nodiscard]] constexpr bool clean_up_changes_without_d(const NodeState<Word>& s) {
  if (!s.candidates.empty()) return false;
  if (!s.on_hold.empty()) return true;
  const auto phase = s.applicants.empty() ? ParticipantPhase::idle : ParticipantPhase::prepare;
  return s.phase != phase;
}

/// The paper's O(Delta) accounting of Table 1 (Section 4, last lemma), in bits: lock takes
/// ceil(log2(Delta + 2)), state 3, phase 2, each of L, R, H, A, C one bit per port 0..Delta, W two
/// bits per port, P one presence bit and ceil(log2 K) priority bits per port.
[[nodiscard]] unsigned paper_state_bits(unsigned delta, unsigned k);
/// The bits our layout actually occupies for registers of `register_bits` bits.
[[nodiscard]] unsigned layout_state_bits(unsigned register_bits);

/// Uniform draw in [0, bound) supplied by the host. Type-erased so the core stays a compiled
/// library; called at most once per activation (CheckStart, CheckWin, and in the fast variant
/// CheckPriorities on a tie), always with bound K.
class PriorityDraw {
 public:
  using Fn = unsigned (*)(void* context, unsigned bound);
  constexpr PriorityDraw(Fn fn, void* context) : fn_(fn), context_(context) {}
  /// Wraps any object with `unsigned operator()(unsigned bound)`.
  template <class F>
  static PriorityDraw from(F& f) {
    return PriorityDraw([](void* c, unsigned bound) { return static_cast<unsigned>((*static_cast<F*>(c))(bound)); },
                        &f);
  }
  unsigned operator()(unsigned bound) const { return fn_(context_, bound); }

 private:
  Fn fn_;
  void* context_;
};

/// What the host tells the node at the start of an activation.
template <class Word>
struct Context {
  PortSet<Word> disconnected;  ///< D: snapshot of the disconnection detector (ports 1..Delta)
  PortSet<Word> neighbours;    ///< N(u): ports 1..Delta that hold an edge now
};

/// One activation: the chosen action and, for Receive* actions, the delivered message.
struct Activation {
  Action action = Action::clean_up;
  Port port = self_port;  ///< port the message arrived on (Receive* only)
  Message message{};      ///< the message (Receive* only)
};

/// One Send(m, ports) group; an action emits at most three groups.
template <class Word>
struct Send {
  PortSet<Word> ports;
  Message message;
};

enum class Status : std::uint8_t {
  ok,
  not_enabled,    ///< the guard is false, or the message kind does not match the action
  rejected,       ///< Lock/Unlock called in a state that forbids it (API contract); nothing changed
  invalid_input,  ///< a port outside 0..Delta, D containing port 0, or a malformed message
};
[[nodiscard]] std::string_view to_string(Status s);

/// Everything an activation produces.
template <class Word>
struct Effects {
  Status status = Status::ok;
  std::array<Send<Word>, 3> sends{};
  std::uint8_t send_count = 0;
  /// Some port was sent two messages in one activation (the model allows one): a protocol defect.
  bool port_sent_twice = false;
  /// A request-lock arrived from a port already in P with another priority; P, as a set of pairs,
  /// would hold two pairs for one port, which the bit planes cannot represent (never happens on
  /// reachable states of either variant; the checker and property tests watch for it).
  bool priority_overwritten = false;
  bool lock_acquired = false;  ///< CheckDone returned L
  bool unlocked = false;       ///< CheckUnlocked finished
  PortSet<Word> locked_ports;  ///< L at CheckDone (the lock set the request obtained)

  [[nodiscard]] PortSet<Word> sent_ports() const {
    PortSet<Word> all;
    for (unsigned i = 0; i < send_count; ++i) all |= sends[i].ports;
    return all;
  }
};

/// Algorithms 1-3 for registers of type Word. Stateless apart from the configuration.
template <class Word>
class Protocol {
 public:
  using Ports = PortSet<Word>;
  using State = NodeState<Word>;
  using Out = Effects<Word>;
  static constexpr unsigned max_delta = Ports::capacity - 1;

  explicit Protocol(Config config);
  [[nodiscard]] const Config& config() const { return config_; }
  /// Ports 0..Delta.
  [[nodiscard]] Ports all_ports() const { return all_ports_; }

  /// Guarded actions whose guard holds (CheckStart, CleanUp, CheckPriorities, CheckWin,
  /// CheckDone, CheckUnlocked): guards_holding for this variant. Receive* actions are enabled by a
  /// waiting message alone.
  [[nodiscard]] ActionSet enabled_guarded(const State& s) const;
  [[nodiscard]] bool guard(const State& s, Action a) const;

  /// Lock: runs InitLock if state = bottom, otherwise returns `rejected` and changes nothing
  /// (the host must then keep the detector's snapshot for the next activation).
  [[nodiscard]] Out lock(State& s, const Context<Word>& ctx) const;
  /// Lock over a chosen subset (Section 6, population protocols: "lock only u and v"): InitLock
  /// with L <- ({0} u requested) n N[u]. `requested` must lie within ports 0..Delta (else
  /// `invalid_input`); ports in it that hold no edge now are dropped as InitLock drops them.
  /// With every port requested it is lock(s, ctx) exactly.
  [[nodiscard]] Out lock(State& s, const Context<Word>& ctx, Ports requested) const;
  /// Unlock: runs InitUnlock if state = LOCKED, otherwise `rejected`.
  [[nodiscard]] Out unlock(State& s, const Context<Word>& ctx) const;
  /// Executes one activation. InitLock / InitUnlock go through lock() / unlock().
  [[nodiscard]] Out step(State& s, const Activation& a, const Context<Word>& ctx, PriorityDraw draw) const;

  /// The same three, with the effects written into `out` (reset first) instead of returned: for
  /// a host that keeps them in a record of its own. Assigning a returned Effects to a member
  /// copies it in wide loads just after the core's narrow stores into it, a stalled
  /// store-to-load forward on every action; written in place, nothing is copied.
  void lock_into(State& s, const Context<Word>& ctx, Ports requested, Out& out) const;
  void unlock_into(State& s, const Context<Word>& ctx, Out& out) const;
  void step_into(State& s, const Activation& a, const Context<Word>& ctx, PriorityDraw draw, Out& out) const;

 private:
  Config config_;
  Ports all_ports_;  // 0..Delta

  /// The CleanUp helper (A1.22). `busy`: the ports the calling action sends to after it (repair
  /// R3 defers releasing a held port among them to a later action; the paper variant ignores it).
  void clean_up(State& s, const Context<Word>& ctx, Out& out, Ports busy = {}) const;
  static void send(Out& out, Ports ports, Message m);
  [[nodiscard]] bool valid(const Context<Word>& ctx) const;

  // One handler per action of Algorithms 1-3 (protocol.cpp); step() dispatches to them.
  void receive_prepare(State& s, Port l, const Context<Word>& ctx, Out& out) const;              // A1.6
  void receive_ready(State& s, Port l, const Context<Word>& ctx, Out& out) const;                // A1.12
  void check_start(State& s, const Context<Word>& ctx, PriorityDraw draw, Out& out) const;       // A1.15
  void clean_up_action(State& s, const Context<Word>& ctx, Out& out) const;                      // A1.20
  void receive_request(State& s, Port l, Message m, const Context<Word>& ctx, Out& out) const;   // A2.1
  void check_priorities(State& s, const Context<Word>& ctx, PriorityDraw draw, Out& out) const;  // A2.5
  void receive_win(State& s, Port l, Message m, const Context<Word>& ctx, Out& out) const;       // A2.11
  void check_win(State& s, const Context<Word>& ctx, PriorityDraw draw, Out& out) const;         // A2.14
  void receive_set_lock(State& s, Port l, const Context<Word>& ctx, Out& out) const;             // A2.23
  void receive_ack_lock(State& s, Port l, const Context<Word>& ctx, Out& out) const;             // A2.27
  void check_done(State& s, const Context<Word>& ctx, Out& out) const;                           // A2.30
  void receive_release(State& s, Port l, const Context<Word>& ctx, Out& out) const;              // A3.6
  void receive_ack_unlock(State& s, Port l, const Context<Word>& ctx, Out& out) const;           // A3.9
  void check_unlocked(State& s, const Context<Word>& ctx, Out& out) const;                       // A3.12
};

extern template class Protocol<std::uint8_t>;
extern template class Protocol<std::uint16_t>;
extern template class Protocol<std::uint32_t>;
extern template class Protocol<std::uint64_t>;

[[nodiscard]] std::string_view to_string(InitiatorState s);
[[nodiscard]] std::string_view to_string(ParticipantPhase p);
[[nodiscard]] std::string_view to_string(Variant v);
[[nodiscard]] std::string_view to_string(Action a);
bool parse_variant(std::string_view name, Variant& out);
bool parse_action(std::string_view name, Action& out);

#ifdef LMX_MUTANTS
/// Test-only seeded defects (docs/checker.md, "Teeth"). Compiled only into the separate
/// `lmx_core_mutants` library (compile definition LMX_MUTANTS); the production core has no hook.
namespace testing {
enum class Mutant : std::uint8_t {
  none,
  skip_cleanup_in_receive_prepare,  ///< ReceivePrepare forgets its CleanUp() call (A1.7)
  priorities_not_reset,             ///< CheckPriorities keeps P (A2.10 dropped)
  win_true_to_ties,     ///< a tie for the highest priority sends win(true) to every tied candidate (fast: F2 skipped)
  held_never_released,  ///< CleanUp never promotes H to applicants (A1.28-A1.29 dropped)
  lost_ack_counted,     ///< CleanUp counts a disconnected port as replied instead of dropping it
  win_ignores_lock,     ///< CheckPriorities ignores lock != bottom (A2.7)
  release_keeps_lock,   ///< ReceiveRelease keeps the lock (A3.8 lock <- bottom dropped)
  set_lock_keeps_candidate,         ///< ReceiveSetLock keeps the locker in C (A2.24)
  check_win_ignores_false,          ///< CheckWin treats every outcome as won (A2.16)
  check_done_early,                 ///< CheckDone fires with one ack-lock still missing (A2.30)
  without_r1,                       ///< the repaired variant without repair R1
  without_r2,                       ///< the repaired variant without repair R2
  without_r3,                       ///< the repaired variant without repair R3
  r2_alt_wait_for_applicants,       ///< instead of R2: CheckPriorities also waits for A = empty (errata E2)
  r2_alt_winner_leaves_candidates,  ///< instead of R2: win(true) removes the winner from C (errata E2)
  f1_defers_while_held,             ///< fast: CheckPriorities also waits while arrivals are on hold (H nonempty)
  subset_ignored,                   ///< Lock over a subset takes L <- N[u] whatever was requested (A1.4)
};
inline constexpr unsigned mutant_count = 18;
/// The active mutant (one per process; the mutant tests run them one after the other).
extern Mutant active_mutant;
[[nodiscard]] std::string_view to_string(Mutant m);
}  // namespace testing
#endif

/// Smallest register width (bits) able to hold ports 0..delta, or 0 if delta > 63.
[[nodiscard]] constexpr unsigned register_bits_for(unsigned delta) {
  return delta <= 7 ? 8 : delta <= 15 ? 16 : delta <= 31 ? 32 : delta <= 63 ? 64 : 0;
}

/// Library version.
inline constexpr std::string_view version = "0.2.0";

}  // namespace lmx::core
