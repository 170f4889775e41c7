// Exhaustive exploration of every reachable global state of a small instance of Algorithms 1-3,
// running the real lmx::core handlers, and decision of properties P1-P4, deadlock and P7 there
// (docs/checker.md explains the method and what it proves).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lmx/core/protocol.hpp"

namespace lmx::check {

/// Limits of the explorer's fixed-size global state.
inline constexpr unsigned max_nodes = 4;
inline constexpr unsigned max_delta = 3;
/// Instance::locks for an application that may call Lock any number of times.
inline constexpr unsigned unbounded_locks = 0;
/// Messages a receiving port can hold in the bag model (P4 allows 2 per edge; more is reported).
inline constexpr unsigned channel_capacity = 4;

/// A small instance: the initial graph, the application's budget and the adversary's budget.
struct Instance {
  core::Variant variant = core::default_variant;
  unsigned nodes = 2;
  unsigned delta = 1;
  unsigned k = 2;
  /// Lock calls per node, or unbounded_locks: a node may call Lock again whenever it is idle, so
  /// the instance contains the runs of every bounded number (docs/checker.md, "Unbounded Lock calls").
  unsigned locks = 1;
  unsigned max_changes = 0;                          ///< topology moves (cut or connect) in total
  std::vector<std::pair<unsigned, unsigned>> edges;  ///< initial graph; ports assigned lowest-free first
  /// Lock over a chosen subset (core::Protocol::lock with `requested`; the paper's Section 6): a
  /// Lock call may request any subset of ports 1..Delta, each subset a transition of its own, and
  /// P2/P3 take the requested ports connected at the call as the request's persistent neighbours
  /// (docs/checker.md, "Lock over a subset"). Off: every Lock takes N[u], as in Algorithm 1.
  bool lock_subsets = false;
};

/// The phases of a run, in the order it goes through them (Progress, Result::phase_cpu_seconds).
enum class Phase : std::uint8_t {
  exploring,        ///< the breadth-first search
  deadlock,         ///< reachable completions
  splitting,        ///< the graph into parts
  end_components,   ///< of the union of the regions, and the fairness decision on those whose actions do not rename
  rebuilding,       ///< concrete states for the others
  deciding,         ///< their fairness decision
  counterexamples,  ///< the paths to the violations found, as traces
};

/// A run's verdict: every property holds, one does not, or a limit stopped the run first.
enum class Verdict : std::uint8_t { pass, fail, incomplete };

/// What stopped an incomplete run: Options::max_states, Options::max_seconds, Options::save_dir, or
/// Options::stop.
enum class Limit : std::uint8_t { none, states, seconds, saved, interrupted };

/// The property a violation breaks. Ordered as their names sort ("P1" < ... < "P7" < "deadlock" <
/// "internal"): Result::violations is sorted by it.
enum class Property : std::uint8_t { P1, P2, P3, P4, P7, deadlock, internal };

/// The names of the command line and of `lmx check --json` ("end components", "incomplete", "P7", ...;
/// Limit::none is "").
[[nodiscard]] std::string_view to_string(Phase p);
[[nodiscard]] std::string_view to_string(Verdict v);
[[nodiscard]] std::string_view to_string(Limit l);
[[nodiscard]] std::string_view to_string(Property p);

/// Where a running check is, for a status line (Options::progress).
struct Progress {
  Phase phase = Phase::exploring;
  std::uint64_t states = 0;       ///< stored so far
  std::uint64_t transitions = 0;  ///< generated so far
  unsigned depth = 0;             ///< breadth-first depth reached
  std::uint64_t lifted = 0;       ///< concrete states rebuilt so far
  /// "end components": the round of the union's decomposition under way (from 1; each drops the
  /// actions and states that cannot stay, then splits again what changed), and the states it
  /// decomposes; 0 before the first round and in other phases.
  unsigned round = 0;
  std::uint64_t decomposing = 0;
  /// In the analysis (deadlock excepted): the part under way (from 1) of how many
  /// (Result::analysis_parts); 0 before.
  unsigned part = 0;
  unsigned parts = 0;
};

struct Options {
  bool symmetry = true;  ///< reduce by renaming nodes and ports (both are anonymous to the algorithm)
  bool liveness = true;  ///< deadlock and P7 (needs the transition graph in memory)
  std::uint64_t max_states = 60'000'000;
  /// Keep the liveness graph in temporary files, mapped, instead of anonymous memory: during the
  /// exploration, which only appends to it, the kernel may write its pages out to make room for
  /// the stored states. For runs whose graph and stored states do not fit in memory together; the
  /// analysis reads the graph at random and is slow unless the graph then fits. Same results.
  bool graph_on_disk = false;
  /// Store each state as the numbers of its node records in a table of the distinct records
  /// (collapse compression), instead of the records themselves: about a third of the bytes per
  /// stored state with 3 nodes. Same results.
  bool collapse = true;
  /// Decide end components part by part: the states that node moves cannot connect (different
  /// topology moves left, or different degrees) are decided apart, each part with its own graph,
  /// so that the largest part, not the whole graph, sets the analysis's memory. Same results.
  bool split_parts = true;
  /// Save the finished exploration of a full run (states, node records, parent links, liveness
  /// graph) as files in this directory and stop there (verdict "incomplete", limit "saved"), for
  /// a later run with resume_dir to decide deadlock and P7: an instance whose run is longer than
  /// one sitting runs in two. If the exploration found a violation, nothing is saved and the run
  /// stops with it (verdict "fail"). Empty: off.
  std::string save_dir;
  /// Continue from the exploration saved in this directory (save_dir) of the same instance with
  /// the same symmetry and collapse options, instead of exploring: the results are those of one
  /// run, times included (the saved exploration's are added). Empty: off.
  std::string resume_dir;
  /// Stop after this many wall-clock seconds (0: no limit). Like max_states, a run stopped by it
  /// reports "incomplete": it bounds a sweep's time, and decides nothing that depends on it.
  double max_seconds = 0;
  /// Once true, the run stops as soon as it looks (where it looks at max_seconds) with the verdict
  /// "incomplete" and Limit::interrupted (Ctrl-C from Python).
  const std::atomic<bool>* stop = nullptr;
  /// At most this many counterexamples per (property, signature).
  unsigned per_kind = 1;
  /// Called at the start of each phase and every 2^16 states within one (optional).
  std::function<void(const Progress&)> progress;
};

struct Violation {
  Property kind = Property::internal;
  std::vector<unsigned> nodes;  ///< nodes involved (the stuck node for liveness)
  std::string detail;           ///< human-readable explanation / signature
  unsigned depth = 0;           ///< length of the counterexample's path (BFS: shortest)
  std::string trace;            ///< lmx-trace/1 JSON Lines, source "check"
};

struct Result {
  Verdict verdict = Verdict::incomplete;
  /// The limit that stopped an incomplete run (Limit::none otherwise).
  Limit limit = Limit::none;
  std::uint64_t states = 0;
  std::uint64_t transitions = 0;
  double seconds = 0;                 ///< wall clock
  double cpu_seconds = 0;             ///< processor time (the checker is single-threaded)
  double explore_cpu_seconds = 0;     ///< processor time of the breadth-first exploration alone
  std::uint64_t bytes_per_state = 0;  ///< stored bytes per state (state vector + index + graph + node records)
  unsigned max_depth = 0;
  /// Under symmetry reduction: concrete states rebuilt to decide the end components whose
  /// actions rename their successors (docs/checker.md, "Symmetry"); 0 otherwise.
  std::uint64_t lifted_states = 0;
  /// Distinct node records numbered (Options::collapse; 0 where a record is not wider than its number).
  std::uint64_t node_records = 0;
  /// Sweeps over the graph until the reachable completions were stable (the deadlock check of a
  /// full run; docs/checker.md, "Properties"); 0 in safety runs.
  unsigned deadlock_sweeps = 0;
  /// The parts the end components were decided in (Options::split_parts; docs/checker.md,
  /// "Parts"); 0 in safety runs and runs stopped before the analysis.
  unsigned analysis_parts = 0;
  /// Processor seconds per phase (Progress::phase), in the order the run went through them.
  std::vector<std::pair<Phase, double>> phase_cpu_seconds;
  std::vector<Violation> violations;
};

/// Parses "0-1,1-2" into edges; returns an error text (empty on success).
std::string parse_edges(const std::string& text, std::vector<std::pair<unsigned, unsigned>>& out);
/// Validates an instance; returns an error text (empty when valid).
std::string validate(const Instance& inst);

/// Runs the checker. Throws std::invalid_argument for inconsistent options, CheckpointError for a
/// checkpoint that cannot be resumed, std::runtime_error for a save that cannot be written.
Result check(const Instance& inst, const Options& opt = {});

/// A saved exploration that cannot be resumed: missing, truncated, corrupt (a checksum differs),
/// of another format version or another run, or inconsistent. what() is one line naming the
/// directory, the file and what is wrong with it.
struct CheckpointError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// Everything --resume checks of the exploration saved in opt.resume_dir before it analyses
/// anything (docs/checker.md, "The checkpoint's format"): the header's format version, checksum,
/// fields and run; each file's presence, size and checksum; the counts against the files; and the
/// files' contents (node records, stored states, parent links, the graph's offsets and targets,
/// the record of the analysis), so that the analysis reads nothing out of range. Throws
/// CheckpointError. check() with the same instance and options runs exactly these checks first.
void verify_checkpoint(const Instance& inst, const Options& opt);

/// The 64-bit checksum a checkpoint's header records for each of its files and, on its last
/// line, for the header's own bytes before that line (docs/checker.md, "The checkpoint's format").
std::uint64_t checkpoint_checksum(const void* data, std::size_t size);

/// A one-line description of the instance ("paper nodes=2 edges=0-1 delta=1 k=2 locks=2 changes=2", and
/// " lock-subsets" with Instance::lock_subsets). It is the run's identity in a checkpoint.
std::string describe(const Instance& inst);

}  // namespace lmx::check
