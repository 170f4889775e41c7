// The canonical amoebot model (Daymude, Richa, Scheideler; the paper's Section 6, "The Canonical
// Amoebot Model"; docs/amoebot.md): the triangular lattice, contracted and expanded amoebots with
// head and tail, common chirality and a compass offset per amoebot, port labels (6 contracted, 10
// expanded), the operations Connected, Read, Write, Expand, Contract, Pull and Push, and algorithms
// as guarded actions over a View of the acting amoebot and its neighbourhood.
//
// One execution so far, `sequential` (one uniformly random amoebot per activation, each activation
// atomic; AmoebotSim's counters). The View is the only way an algorithm reads or writes other
// amoebots, and it can be limited to a set of amoebots (the lock set of the later `locks`
// execution): an access outside it is a detected error (ScopeError), so the same algorithm code runs
// under both executions.
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace lmx::apps::amoebot {

// ---------------------------------------------------------------------------------------------
// The lattice.

/// A node of the triangular lattice in axial coordinates. Global direction d leads to the node
/// node + direction(d): 0:(1,0) 1:(0,1) 2:(-1,1) 3:(-1,0) 4:(0,-1) 5:(1,-1), counterclockwise.
struct Node {
  std::int32_t x = 0;
  std::int32_t y = 0;
  friend bool operator==(Node, Node) = default;
};
inline constexpr std::array<Node, 6> directions = {{{1, 0}, {0, 1}, {-1, 1}, {-1, 0}, {0, -1}, {1, -1}}};
inline Node step(Node a, int dir) { return {a.x + directions[dir].x, a.y + directions[dir].y}; }
/// Lattice distance (the ring a node lies on around `a`).
int distance(Node a, Node b);
/// The global direction from a to b when they are adjacent, else -1.
int direction_between(Node a, Node b);

// ---------------------------------------------------------------------------------------------
// Amoebots and their ports.

using Port = int;  ///< a port label: 0..5 contracted, 0..9 expanded
inline constexpr Port no_port = -1;
using AmoebotId = std::uint32_t;  ///< the simulator's number; no amoebot ever sees one
inline constexpr AmoebotId no_amoebot = 0xFFFFFFFFu;

/// An amoebot's public memory: a few small variables whose meaning the algorithm defines
/// (hexagon formation: state, parent, dir). Neighbours Read and Write them through ports.
inline constexpr unsigned memory_vars = 6;
struct Memory {
  std::array<std::int8_t, memory_vars> v{};
  friend bool operator==(const Memory&, const Memory&) = default;
};

/// Where a port label of an expanded amoebot sits: on its head or its tail, and the local
/// direction it leads in from that node.
struct PortPlace {
  bool at_tail = false;
  int dir = 0;
};
/// The canonical labelling of an expanded amoebot whose tail lies in local direction `tail_dir`
/// from its head: labels 0..9 run counterclockwise (the common chirality) around the amoebot's
/// outline, the internal head-tail edge excluded; label 0 is the local-direction-0 port of the
/// occupied node lying further in local direction 0 (AmoebotSim's numbering, derived here from the
/// geometry). A contracted amoebot's label is its local direction.
PortPlace expanded_port(int tail_dir, Port label);
/// The inverse: the label of the port at head (at_tail false) or tail in local direction `dir`;
/// no_port for the internal edge.
Port expanded_label(int tail_dir, bool at_tail, int dir);

/// An amoebot in a configuration: its nodes (tail == head when contracted), its compass offset
/// (local direction d is global direction (compass + d) mod 6; all amoebots share the chirality)
/// and its memory.
struct Amoebot {
  Node head;
  Node tail;
  int compass = 0;
  Memory memory;
  [[nodiscard]] bool contracted() const { return head == tail; }
};

/// A configuration: amoebots with positions (not necessarily valid: the checks judge them).
struct Configuration {
  std::vector<Amoebot> amoebots;
};

/// Bad input (a configuration the model refuses, bad run options): one line.
struct ModelError : std::runtime_error {
  using std::runtime_error::runtime_error;
};
/// An algorithm touched an amoebot outside the View's allowed set (the lock set): a detected
/// error, never a silent access.
struct ScopeError : std::logic_error {
  using std::logic_error::logic_error;
};

/// n amoebots grown by random attachment, as AmoebotSim's hexagon formation initialises: amoebot 0
/// (the seed) at (0, 0); then repeatedly a uniformly random candidate node (an empty node next to a
/// placed one) is taken out of the candidate set and, with probability 1 - hole_prob, occupied
/// (its empty neighbours become candidates). A skipped node can become a candidate again later, so
/// holes appear; should the candidates run out, every empty node next to a placed one becomes a
/// candidate again (so that exactly n are placed). All contracted, compasses uniform in 0..5,
/// memory zero. One seed, one configuration. Throws ModelError for n = 0 or hole_prob outside [0, 1).
Configuration random_configuration(std::uint32_t n, double hole_prob, std::uint64_t seed);

// ---------------------------------------------------------------------------------------------
// The checks (on a configuration; the sequential execution also runs them incrementally).

/// Empty if no two amoebots share a node and every expanded amoebot occupies two adjacent nodes;
/// else the first problem, one line.
std::string check_positions(const Configuration& c);
/// Whether the amoebots form one connected system (adjacent nodes connect amoebots).
bool is_connected(const Configuration& c);
/// Empty if the amoebots (all contracted) form a hexagon around `center`: every ring 0..R full and
/// the rest a contiguous arc of ring R + 1; else what is wrong, one line.
std::string check_hexagon(const Configuration& c, Node center);

// ---------------------------------------------------------------------------------------------
// The system: occupancy of a (growing) window of the lattice, amoebots, the operations.

class View;

class System {
 public:
  /// Throws ModelError if check_positions fails.
  explicit System(const Configuration& c);

  [[nodiscard]] std::uint32_t size() const { return static_cast<std::uint32_t>(body_.size()); }
  [[nodiscard]] Configuration snapshot() const;
  [[nodiscard]] Amoebot amoebot(AmoebotId a) const;
  [[nodiscard]] const Memory& memory(AmoebotId a) const { return memory_[a]; }
  Memory& memory(AmoebotId a) { return memory_[a]; }
  /// The amoebot at a node, or no_amoebot.
  [[nodiscard]] AmoebotId at(Node n) const;

  [[nodiscard]] bool contracted(AmoebotId a) const { return body_[a].tail_dir < 0; }
  [[nodiscard]] int ports(AmoebotId a) const { return contracted(a) ? 6 : 10; }
  /// The neighbour reached through port p of a (no_amoebot: none or a bad label).
  [[nodiscard]] AmoebotId neighbour(AmoebotId a, Port p) const {
    const std::uint32_t n = port_target(a, p);
    return n == bad_index ? no_amoebot : occ_[n] - 1;
  }
  /// The neighbour's label of the edge that a's port p is on (the far end), or no_port.
  [[nodiscard]] Port far_port(AmoebotId a, Port p) const;
  /// The distinct neighbouring amoebots of a (at most 6 contracted, 8 expanded).
  int neighbours(AmoebotId a, std::array<AmoebotId, 10>& out) const;

  // The movements, without scope checks (a View checks its scope first). False: the
  // precondition does not hold and nothing changed.
  bool expand(AmoebotId a, Port p);
  bool contract_to_head(AmoebotId a);  ///< Contract(tail): vacate the tail, keep the head
  bool contract_to_tail(AmoebotId a);  ///< Contract(head): vacate the head, keep the tail
  bool pull(AmoebotId a, Port p);
  bool push(AmoebotId a, Port p);

  [[nodiscard]] std::uint64_t moves() const { return moves_; }

  // Implementation details shared with View and the executions.
  static constexpr std::uint32_t bad_index = 0xFFFFFFFFu;
  struct Body {
    std::uint32_t head = 0;     ///< node index
    std::uint32_t tail = 0;     ///< node index (== head when contracted)
    std::int8_t tail_dir = -1;  ///< global direction head -> tail; -1 contracted
    std::uint8_t compass = 0;
  };
  [[nodiscard]] const Body& body(AmoebotId a) const { return body_[a]; }
  /// The node index port p of a leads to (bad_index for a bad label).
  [[nodiscard]] std::uint32_t port_target(AmoebotId a, Port p) const;
  /// The node index of a on which port p sits (bad_index for a bad label).
  [[nodiscard]] std::uint32_t port_origin(AmoebotId a, Port p) const;
  [[nodiscard]] std::uint32_t neighbour_index(std::uint32_t n, int global_dir) const { return n + delta_[global_dir]; }
  [[nodiscard]] AmoebotId occupant(std::uint32_t n) const { return occ_[n] - 1; }
  [[nodiscard]] Node node_of(std::uint32_t n) const;
  /// Nodes vacated by contractions since the last call (the executions' connectivity check).
  std::vector<std::uint32_t>& vacated() { return vacated_; }
  /// Whether the occupied nodes stay connected after `v` was vacated (v's amoebot still holds an
  /// adjacent node): a local test around v, then a bounded search when v joined two arcs.
  [[nodiscard]] bool still_connected_after_vacating(std::uint32_t v) const;
  /// Consistency of an amoebot's record with the occupancy map (empty if fine).
  [[nodiscard]] std::string check_amoebot(AmoebotId a) const;

 private:
  void place(AmoebotId a, std::uint32_t n) { occ_[n] = a + 1; }
  void grow_if_near_border(std::uint32_t n);
  [[nodiscard]] std::uint32_t index_of(Node n) const;

  std::int32_t x0_ = 0, y0_ = 0;  ///< the window's lowest corner
  std::uint32_t width_ = 0, height_ = 0;
  std::array<std::int64_t, 6> delta_{};
  std::vector<std::uint32_t> occ_;  ///< per node: amoebot + 1, 0 empty
  std::vector<Body> body_;
  std::vector<Memory> memory_;
  std::vector<std::uint32_t> vacated_;
  std::uint64_t moves_ = 0;
  mutable std::vector<std::uint32_t> seen_;  ///< search stamps
  mutable std::uint32_t stamp_ = 0;
};

// ---------------------------------------------------------------------------------------------
// The View: what an action may see and do.

/// The acting amoebot and its neighbourhood. Ports are the acting amoebot's labels; Read and Write
/// of a neighbour go through them. With a non-empty `scope`, touching (reading, writing, moving)
/// any amoebot outside it throws ScopeError. Records which amoebots an action changed, so that the
/// execution can wake them and their neighbours.
class View {
 public:
  View(System& s, AmoebotId me, std::span<const AmoebotId> scope = {}) : s_(s), me_(me), scope_(scope) {}

  [[nodiscard]] AmoebotId me() const { return me_; }
  [[nodiscard]] bool contracted() const { return s_.contracted(me_); }
  [[nodiscard]] bool expanded() const { return !s_.contracted(me_); }
  [[nodiscard]] int ports() const { return s_.ports(me_); }
  /// The local direction the tail lies in from the head (-1 contracted).
  [[nodiscard]] int tail_dir() const;
  /// The head's ports in counterclockwise order from just after the tail (6 when contracted:
  /// 0..5), and the tail's ports likewise from just after the head (none when contracted).
  int head_ports(std::array<Port, 6>& out) const;
  int tail_ports(std::array<Port, 5>& out) const;
  /// The local direction port p leads in (from the node it sits on).
  [[nodiscard]] int port_dir(Port p) const;

  // Communication (the canonical model's Connected, Read, Write).
  /// Connected(p): whether a neighbour is on port p.
  [[nodiscard]] bool connected(Port p) const { return s_.neighbour(me_, p) != no_amoebot; }
  /// Read(⊥, x) / Write(⊥, x, v): own memory.
  [[nodiscard]] std::int8_t get(unsigned var) const { return s_.memory(me_).v[var]; }
  void set(unsigned var, std::int8_t value) { s_.memory(me_).v[var] = value; }
  /// Read(p, x): the neighbour's variable (ScopeError outside the scope; the neighbour must exist).
  [[nodiscard]] std::int8_t read(Port p, unsigned var) const { return s_.memory(other(p)).v[var]; }
  /// Write(p, x, v).
  void write(Port p, unsigned var, std::int8_t value);
  /// The neighbour's shape (part of its public state).
  [[nodiscard]] bool neighbour_contracted(Port p) const { return s_.contracted(other(p)); }
  /// Whether the neighbour on port p, stepping from its head in its local direction `dir`, reaches
  /// my head (1), my tail (2) or neither (0). (From the far end of the link: the neighbour's label
  /// of the shared edge.)
  [[nodiscard]] int neighbour_points_at(Port p, int dir) const;
  /// My local direction `dir` in the neighbour's frame (compass offsets differ; the far end's
  /// label gives the difference).
  [[nodiscard]] int to_neighbour_dir(Port p, int dir) const;

  // Movements: false when the precondition fails (nothing changes).
  bool expand(Port p);
  bool contract_to_head();  ///< vacate the tail (AmoebotSim's contractTail)
  bool contract_to_tail();  ///< vacate the head (AmoebotSim's contractHead)
  bool pull(Port p);
  bool push(Port p);

  // For the executions.
  [[nodiscard]] std::span<const AmoebotId> touched() const { return {touched_.data(), touched_count_}; }
  [[nodiscard]] std::uint32_t failed_operations() const { return failed_; }
  [[nodiscard]] std::uint32_t moves() const { return moves_; }
  [[nodiscard]] AmoebotId handover_partner() const { return partner_; }

 private:
  /// The neighbour on port p, checked against the scope.
  [[nodiscard]] AmoebotId other(Port p) const;
  void check_scope(AmoebotId a) const;
  void touch(AmoebotId a);
  bool moved(bool ok, std::uint32_t moves);

  System& s_;
  AmoebotId me_;
  std::span<const AmoebotId> scope_;
  std::array<AmoebotId, 12> touched_{};
  std::uint32_t touched_count_ = 0;
  std::uint32_t failed_ = 0;
  std::uint32_t moves_ = 0;
  AmoebotId partner_ = no_amoebot;
};

// ---------------------------------------------------------------------------------------------
// Algorithms.

/// A guarded action: `guard` reads through the view only; `run` does the compute phase (Read,
/// Write) and at most one movement.
struct Action {
  const char* name;
  bool (*guard)(const View&);
  void (*run)(View&);
};

/// An algorithm: its guarded actions (the first enabled one runs), the initial memory, its final
/// states, whether it promises connectivity, and its final-shape check.
struct Algorithm {
  std::string name;
  std::string description;
  std::vector<Action> actions;
  /// The memory of amoebot `index` of a random configuration (index 0 is the seed).
  void (*init)(Memory& m, std::uint32_t index);
  /// Whether a memory is in a final state (the run's goal: every amoebot final).
  bool (*final_state)(const Memory& m);
  bool keeps_connected = true;
  /// Empty if the configuration is the algorithm's goal shape; else why not.
  std::string (*check_final)(const Configuration& c);
  std::vector<std::string> variables;  ///< names of the memory variables used (for output)
  /// Names of the values of variable 0, the algorithm's state (for the trace and the viewer).
  std::vector<std::string> state_names;
};

/// Hexagon formation, the canonical paper's case study (docs/amoebot.md). Variables: state
/// (hexagon_state), parent and dir (local directions from the head, -1 for none).
const Algorithm& hexagon_formation();
enum HexagonVar : unsigned { hex_state = 0, hex_parent = 1, hex_dir = 2 };
enum HexagonState : std::int8_t { seed = 0, idle = 1, follower = 2, root = 3, retired = 4 };

/// Line formation (docs/amoebot.md, "Line formation"): hexagon formation's forest and states
/// (HexagonState), roots retiring where the line through the seed continues; the line grows both
/// ways along the axis of the seed's local direction 0. Variables as hexagon formation's.
const Algorithm& line_formation();
enum LineVar : unsigned { line_state = 0, line_parent = 1, line_dir = 2 };

/// The shipped algorithms, and one by name (nullptr if none).
const std::vector<const Algorithm*>& algorithms();
const Algorithm* find_algorithm(std::string_view name);

/// A random configuration with the algorithm's initial memory.
Configuration initial_configuration(const Algorithm& alg, std::uint32_t n, double hole_prob, std::uint64_t seed);

// ---------------------------------------------------------------------------------------------
// The sequential execution.

struct RunConfig {
  std::uint32_t n = 200;
  double hole_prob = 0.2;
  std::uint64_t seed = 1;
  /// Stop after this many activations (0: 100 n^2 + 10^6).
  std::uint64_t max_activations = 0;
  /// Give each action a View limited to the acting amoebot and its neighbours (what the locks
  /// execution will lock), so that an access beyond them is caught.
  bool scope_check = true;
  /// Run the incremental checks after every activation (positions of the amoebots an action
  /// touched; connectivity after every contraction when the algorithm promises it).
  bool incremental_checks = true;
  /// Skip the guards of asleep amoebots (their activation is a no-op). Off: every activation
  /// evaluates the guards, and an asleep amoebot with an enabled action is a violation ("wake"),
  /// which checks the wake-up rule; the counters are the same either way.
  bool skip_asleep = true;
  /// Once true, the run ends as interrupted (Ctrl-C in `lmx amoebot run`); read every 2^16
  /// activations.
  const std::atomic<bool>* stop = nullptr;
};

struct Result {
  std::string algorithm;
  std::string execution = "sequential";
  std::uint32_t n = 0;
  std::uint64_t seed = 0;
  double hole_prob = 0;
  std::uint64_t activations = 0;  ///< scheduled activations (one random amoebot each)
  std::uint64_t rounds = 0;       ///< AmoebotSim's rounds (docs/amoebot.md)
  std::uint64_t moves = 0;        ///< expand, contract: 1; pull, push: 2
  std::uint64_t actions = 0;      ///< activations that ran an action
  std::uint64_t handovers = 0;    ///< pulls and pushes (their partner counts as activated for rounds)
  /// The counters when every amoebot was first in a final state (AmoebotSim's hasTerminated,
  /// where its runs stop); the run itself goes on until every amoebot is asleep.
  std::uint64_t final_activations = 0;
  std::uint64_t final_rounds = 0;
  std::uint64_t final_moves = 0;
  bool terminated = false;              ///< every amoebot asleep (no enabled action anywhere)
  bool interrupted = false;             ///< ended by RunConfig::stop / LocksConfig::stop
  bool final_states = false;            ///< every amoebot in a final state
  bool connected = false;               ///< at the end
  bool shape_ok = false;                ///< the algorithm's final shape
  std::string shape_detail;             ///< why not
  std::vector<std::string> violations;  ///< the checks that fired (the run stops at the first)
  double wall_seconds = 0;
  [[nodiscard]] bool ok() const { return violations.empty() && terminated && final_states && shape_ok; }
};

/// Runs the algorithm on the random configuration of cfg (n, hole_prob, seed).
Result run_sequential(const Algorithm& alg, const RunConfig& cfg);
/// Runs the algorithm from a given configuration (n and hole_prob of cfg unused).
Result run_sequential(const Algorithm& alg, const Configuration& start, const RunConfig& cfg);
/// The `lmx amoebot run --json` object.
nlohmann::json to_json(const Result& r);

// ---------------------------------------------------------------------------------------------
// The locks execution (docs/amoebot.md, "The locks execution"): every amoebot a node of lmx's
// simulator, the lattice adjacency its topology (changed through connect and cut as amoebots
// move), each action under an lmx Lock of the amoebot's neighbourhood, concurrent.

/// Test-only faults that the checks must catch.
enum class LocksFault : std::uint8_t {
  none,
  /// The Lock leaves out one neighbour (a Lock over a subset), and the View's scope is the lock
  /// set: an action that reads the neighbour left out is a `scope` violation.
  lock_skips_neighbour,
  /// The Lock leaves out one neighbour, but the framework believes it locked the whole
  /// neighbourhood (the View's scope is every neighbour): the isolation monitor (or, with it off,
  /// the serializability check) must fire.
  unguarded_neighbour,
};

struct LocksConfig {
  std::uint32_t n = 200;
  double hole_prob = 0.2;
  std::uint64_t seed = 1;
  /// The adversary (engine, activation, delivery, variant, K, horizon ...): everything of an
  /// `lmx run` scenario except what the lattice decides (nodes, Delta = 8, topology, dynamics,
  /// workload), which the execution sets and refuses from the user (lmx amoebot run --set).
  nlohmann::json scenario = nlohmann::json::object();
  /// Model rounds (the engine's rounds or time units) before the run is called unterminated
  /// (0: 1000 n + 10^5, divided by the activation probability of the semi-synchronous adversary, at most the engine
  /// limit).
  std::uint64_t max_rounds = 0;
  std::ostream* trace = nullptr;
  /// Once true, the run ends as interrupted (checked before every round).
  const std::atomic<bool>* stop = nullptr;
  /// Run the incremental checks (positions, connectivity) after every action.
  bool incremental_checks = true;
  /// The isolation monitor (each locked neighbour's lock points at the actor); off only in the
  /// test that shows the serializability check catches a broken lock alone.
  bool check_isolation = true;
  LocksFault fault = LocksFault::none;
  /// The baseline of what concurrency buys: one Lock cycle in the whole system at a time, the
  /// next amoebot chosen uniformly among the awake ones (the sequential execution, carried out on
  /// the message-passing model with the same locks, messages and adversary).
  bool one_at_a_time = false;
};

/// What the locks execution measures besides Result's counters.
struct LocksStats {
  double model_rounds = 0;                ///< engine rounds (time units) until termination
  std::uint64_t lock_requests = 0;        ///< Lock calls
  std::uint64_t lock_cycles = 0;          ///< Locks completed
  std::uint64_t incomplete_locks = 0;     ///< completed Locks that missed a current neighbour (retried)
  std::uint64_t sleeps = 0;               ///< Locks that found no action enabled (the amoebot sleeps)
  std::uint64_t aborted = 0;              ///< actions given up at commit: the neighbourhood changed
  std::uint64_t expansion_conflicts = 0;  ///< of those, an Expand whose node was taken meanwhile
  std::uint64_t isolation_checks = 0;
  std::uint64_t serializability_checks = 0;  ///< actions replayed on the sequential copy
  std::uint64_t messages = 0;
  std::uint64_t protocol_actions = 0;  ///< the lock protocol's actions (engine actions)
  std::uint32_t max_acting = 0;        ///< most amoebots between plan and commit at once
  double mean_acting = 0;              ///< their time average over the run
  std::uint32_t max_locking = 0;       ///< most amoebots between a Lock call and the end of their Unlock at once
  double mean_locking = 0;             ///< their time average over the run
  double lock_latency_p50 = 0, lock_latency_p99 = 0;  ///< rounds from Lock call to completion
  /// The run over time, for the report: at most about 2000 samples, evenly spaced in model rounds.
  struct Sample {
    double model_round = 0;
    std::uint64_t amoebot_round = 0;
    std::uint32_t final = 0, awake = 0, acting = 0;
    std::uint64_t moves = 0;
  };
  std::vector<Sample> history;
  nlohmann::json run_summary;  ///< the simulator's `lmx run --json` object for the run
  /// The first failed check's trace excerpt: the last events of the amoebots it names, oldest
  /// first (the simulator's compact event form; empty when every check passed).
  std::vector<std::string> excerpt;
};

/// Runs the algorithm concurrently on lmx locks. Result::activations counts Lock cycles,
/// Result::rounds the model rounds (rounded up). Throws ModelError for bad input (a scenario key
/// the lattice decides, an invalid scenario).
Result run_locks(const Algorithm& alg, const LocksConfig& cfg, LocksStats* stats = nullptr);
/// The same from a given configuration.
Result run_locks(const Algorithm& alg, const Configuration& start, const LocksConfig& cfg, LocksStats* stats = nullptr);
/// `to_json(r)` with the locks execution's figures under "locks".
nlohmann::json to_json(const Result& r, const LocksStats& s);
/// The report's `amoebot` object (docs/amoebot.md, "Report"): the figures, the same configuration
/// run sequentially (`sequential`, if given) and the history.
nlohmann::json report_json(const Result& r, const LocksStats& s, const Result* sequential);

}  // namespace lmx::apps::amoebot
