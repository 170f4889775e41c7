// The simulator: the paper's model (docs/model.md) at scale, two engines (semi-synchronous rounds,
// asynchronous intervals), composable adversaries, workloads, live monitors of P1-P7, metrics and
// the lmx-trace/1 writer. docs/simulator.md explains each part.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

#include "lmx/sim/scenario.hpp"

namespace lmx::sim {

/// A monitor's finding. `property` is P1..P7 (or P7 with stall = true for a global stall).
struct Violation {
  std::string property;
  double round = 0;
  std::vector<NodeId> nodes;
  std::vector<unsigned> ports;
  std::string detail;
  std::vector<std::string> excerpt;  ///< the last trace events involving `nodes`, oldest first
};

/// An application on top of the lock (population protocols, amoebots): the engine calls it at
/// each completion and at each Unlock call, after its own bookkeeping, so that it may call the
/// application API (Engine::request_lock, request_unlock, end_run) from inside.
class LockListener {
 public:
  virtual ~LockListener() = default;
  /// CheckDone of u returned `ports` (bit mask: port 0 and the locked neighbours' ports).
  virtual void locked(NodeId u, std::uint64_t ports) = 0;
  /// u's Unlock call is executing now (InitUnlock): its critical section ends here.
  virtual void unlock_called(NodeId u) = 0;
  /// CheckUnlocked of u finished; u may Lock again.
  virtual void unlocked(NodeId u) = 0;
};

struct RunOptions {
  std::ostream* trace = nullptr;  ///< write lmx-trace/1 lines here
  /// Also hand every trace line (with its newline, the `end` line included) to this callback.
  std::function<void(std::string_view)> trace_sink;
  bool hash_lines = false;               ///< compute the line hash even without `trace` (replay)
  std::function<void(double)> progress;  ///< called with the fraction done, at most ~100 times
  std::string source = "run";
  /// Defer writes into other nodes' channels within a semi-synchronous round (faster, same
  /// results; off only to compare, see docs/simulator.md).
  bool defer_writes = true;
  /// With Delta = 8 (the default scenario's and `lmx bench`'s), run the engine built for that Delta,
  /// whose port count is a constant of its code (about 2 % fewer instructions; same results; off
  /// only to compare, see docs/performance.md).
  bool fixed_delta = true;
  /// log2 of the nodes per block of deferred writes (at most 14, the default; tests set less).
  unsigned scan_block_shift = 14;
  /// Checked before every round: once true, the run ends as interrupted (Ctrl-C in `lmx run`).
  const std::atomic<bool>* stop = nullptr;
  /// The application driven by the lock's completions (none: the workload alone calls Lock).
  LockListener* listener = nullptr;
  /// Ends the run as interrupted after this many rounds (none: no such limit; 0: before the
  /// first round); a replay of an interrupted trace stops where the recorded run stopped.
  std::optional<std::uint64_t> stop_after_rounds;
  /// Asynchronous engine only: a node whose execution found nothing to do (no message, no useful
  /// guard, no application call) gets no further executions until something can enable one (a
  /// message posted to it, an application request, an edge of its connected or cut); it then
  /// resumes after a gap uniform in [0, 1) round, as after any execution. Idle executions have no
  /// effect, so this is another asynchronous adversary, not another semantics; it makes a run
  /// where most nodes are idle (amoebots asleep) cost what its busy nodes do. Off by default:
  /// `lmx run` and its traces keep the adversary of docs/simulator.md. Ignored with the
  /// delay-target delivery adversary (a held message is not receivable, yet not nothing to do).
  bool skip_dormant = false;
  /// Threads the run may use (docs/simulator.md, "Threads"). With 2 or more, a mobile run plans
  /// each round's mobility (moves, cuts, connections and their ports) on a second thread while
  /// the round before runs, an asynchronous run takes each round's executions out of its calendar
  /// there too (not with trace lines or skip_dormant), and a semi-synchronous round with deferred
  /// writes runs as a pipeline
  /// on two threads (one choosing and making each node's action, one recording it) where a thread
  /// is left for it: 2 for a static graph, 3 for a mobile one. The run is the same for every
  /// count: same draws, same changes, same trace. More are accepted and not used.
  unsigned threads = 1;
};
/// The most threads the command line and the Python module accept for RunOptions::threads.
inline constexpr unsigned max_threads = 64;

/// What a node looks like from outside (for the application API and tests).
struct NodeView {
  core::Port lock_port = core::no_port;
  core::InitiatorState state = core::InitiatorState::idle;
  core::ParticipantPhase phase = core::ParticipantPhase::idle;
  std::uint64_t lock_set = 0;      ///< L as a bit mask over ports
  std::uint64_t replied = 0;       ///< R
  std::uint64_t neighbours = 0;    ///< ports 1..Delta holding an edge
  std::uint64_t disconnected = 0;  ///< the detector's D
  std::uint32_t locks_completed = 0;
};

/// The far end of an edge.
struct Link {
  NodeId node = no_node;
  core::Port port = 0;
};

/// Engine interface; one implementation per register width, chosen from Delta.
class Engine {
 public:
  virtual ~Engine() = default;
  /// Advances one round (semi-sync) or one time unit (async). Returns false once the run is over.
  virtual bool step() = 0;
  /// Runs to the end and returns the `lmx run --json` object (docs/run-format.md).
  virtual nlohmann::json finish() = 0;

  // The application-facing API (workload kind "manual"; the amoebot application).
  /// Asks u to call Lock at its next activation; false if u's state is not bottom (rejected).
  virtual bool request_lock(NodeId u) = 0;
  /// Asks u to call Lock over a chosen subset at its next activation (core Protocol::lock with
  /// `requested`: a bit mask over ports 1..Delta; bit 0 is implied). False as request_lock.
  virtual bool request_lock(NodeId u, std::uint64_t requested) = 0;
  /// Asks u to call Unlock at its next activation; false unless u is LOCKED.
  virtual bool request_unlock(NodeId u) = 0;
  /// Establishes edge {u, v} on the given ports (0: the adversary picks a free one).
  virtual std::string connect(NodeId u, core::Port pu, NodeId v, core::Port pv) = 0;
  /// Cuts the edge on port pu of u; its messages in transit are lost.
  virtual std::string cut(NodeId u, core::Port pu) = 0;
  /// The node and port at the other end of u's port p ({no_node, 0} if p holds no edge). Node
  /// numbers are the simulator's, for observation and applications; no node ever sees one.
  [[nodiscard]] virtual Link far_end(NodeId u, core::Port p) const = 0;
  /// Ends the run after the current round as if its last round were reached (not interrupted):
  /// an application whose goal is met.
  virtual void end_run() = 0;
  /// An application's monitor found a breach (e.g. "isolation"): recorded and reported like the
  /// P1-P7 findings, with the recent events of `nodes`.
  virtual void report(const std::string& property, const std::vector<NodeId>& nodes, const std::string& detail) = 0;
  /// Writes one application line into the trace (fields besides "ev", "t" and "round"; no-op
  /// without a trace); `ev` names its kind (docs/trace-format.md).
  virtual void trace_line(const char* ev, const nlohmann::ordered_json& fields) = 0;
  /// Moves u (positions are for observation; topology changes go through connect / cut).
  virtual void move(NodeId u, double x, double y) = 0;

  [[nodiscard]] virtual NodeView node(NodeId u) const = 0;
  [[nodiscard]] virtual const std::vector<Violation>& violations() const = 0;
  [[nodiscard]] virtual std::uint64_t in_transit() const = 0;
  /// Actions executed so far (the unit of `actions_per_second`).
  [[nodiscard]] virtual std::uint64_t actions() const = 0;
  [[nodiscard]] virtual double now() const = 0;
  /// Writes into other nodes' channels that waited for the scan to reach their block
  /// (RunOptions::defer_writes); 0 when every write was immediate.
  [[nodiscard]] virtual std::uint64_t deferred_writes() const = 0;
  /// Rounds whose mobility was planned on the second thread (RunOptions::threads); measures
  /// the simulator, not the run, which is the same without.
  [[nodiscard]] virtual std::uint64_t mobility_planned_ahead() const = 0;
  /// Semi-synchronous rounds run as a pipeline on two threads (RunOptions::threads); measures the
  /// simulator, not the run, which is the same without.
  [[nodiscard]] virtual std::uint64_t pipelined_rounds() const = 0;
  /// Asynchronous rounds whose executions were taken out of the calendar on another thread during
  /// the round before (RunOptions::threads); measures the simulator, not the run, which is the
  /// same without.
  [[nodiscard]] virtual std::uint64_t schedules_planned_ahead() const = 0;
  /// The Delta this engine's code was built for (RunOptions::fixed_delta), or 0 for the engine of
  /// any Delta; measures the simulator, not the run, which is the same either way.
  [[nodiscard]] virtual unsigned compiled_delta() const = 0;
  /// Test-only fault injection: overwrite u's lock variable (to make P1/P2 fire). The engine built
  /// for Delta = 8 stores lock in 4 bits (node_states.hpp): a port above 14, other than bottom,
  /// is refused with std::invalid_argument; an unknown node with std::out_of_range.
  virtual void inject_lock_port(NodeId u, core::Port p) = 0;
  /// Test-only fault injection: overwrite u's disconnection detector D (a faulty detector).
  virtual void inject_detector(NodeId u, std::uint64_t ports) = 0;
  /// Test-only fault injection: put a message directly into u's channel on `port` (to make P4/P6 fire).
  virtual void inject_message(NodeId u, core::Port port, std::uint8_t byte) = 0;
};

/// Builds the engine for a scenario (throws ScenarioError for an infeasible topology).
std::unique_ptr<Engine> make_engine(const Scenario& scenario, const RunOptions& options = {});

/// Runs a scenario to the end: make_engine + finish.
nlohmann::json run(const Scenario& scenario, const RunOptions& options = {});

/// The memory a run of the scenario will take, estimated before anything is allocated: the
/// engine's arrays per node and the initial topology while it is built (for unit-disk and mobility
/// graphs the node pairs within the radius, which grow as n^2 r^2). `tracing`: with a trace;
/// `threads`: RunOptions::threads (with 2 or more a mobile run keeps the next positions too).
std::uint64_t estimate_memory_bytes(const Scenario& scenario, bool tracing, unsigned threads = 1);

/// P5: the node state the layout occupies is within a constant factor (8) of the paper's O(Delta)
/// accounting.
bool p5_holds(unsigned layout_bits, unsigned paper_bits);

}  // namespace lmx::sim
