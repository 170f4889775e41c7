// One run of the checker as an explicit record: what the exploration stored (states, parent links,
// liveness graph), its counters and what it found, which the phases that follow read and extend
// (docs/checker.md, "Source files"). Internal to lmx::check.
#pragma once

#include <array>
#include <chrono>
#include <compare>
#include <cstdint>
#include <ctime>
#include <map>
#include <string>
#include <vector>

#include "graph.hpp"
#include "lmx/check/checker.hpp"
#include "model.hpp"
#include "state_set.hpp"
#include "storage.hpp"

namespace lmx::check::detail {

/// What counterexamples are counted by (at most Options::per_kind each): the property, and for
/// deadlock and P7 the state the stuck node stays in.
struct Signature {
  Property kind = Property::internal;
  std::uint8_t stays_in = 0xFF;  ///< a core::InitiatorState, or 0xFF for none
  auto operator<=>(const Signature&) const = default;
};

/// A violation found; its counterexample is written once the run is over (write_counterexamples).
struct Pending {
  Signature signature;
  std::string detail;
  std::vector<unsigned> nodes;
  std::uint32_t state = 0;  ///< the violating state (or the source of a violating transition)
  bool has_label = false;
  Label label;  ///< the violating transition, for transition problems
  /// The concrete state that `nodes` and `label` refer to: under symmetry reduction the path
  /// found to the stored state may end in another member of its orbit, and they are renamed.
  Global where;
  /// The detail begins with the node it is about ("node 0 stays in ..."), renamed with `nodes`.
  bool detail_names_node = false;
};

/// A fair end component found in the analysis, reported once every part is decided.
struct Found {
  unsigned stage;              ///< 0: decided on stored states, 1: on rebuilt ones
  unsigned node;               ///< whose region it lies in
  std::uint32_t first_stored;  ///< its member's stored state found first
  std::uint32_t member;        ///< that member (in the graph it was decided on)
  std::uint64_t members;       ///< its size
  Global at;                   ///< that member, concrete
};

/// A successor generated and packed before it is looked up: the successors of one state are packed
/// first and their index slots prefetched, so that their (mostly cache-missing) lookups overlap.
struct Successor {
  Label label;
  Outcome outcome;
  Global next;
  std::uint64_t hash;
  std::uint8_t nodes;
  bool twisted;
};

/// A renaming's node part, two bits per node (renamed[v] = bits 2v..2v+1).
inline std::uint8_t node_map(const Renaming& r, unsigned nodes) {
  unsigned m = 0;
  for (unsigned v = 0; v < nodes; ++v) m |= unsigned{r.node[v]} << (2 * v);
  return static_cast<std::uint8_t>(m);
}

/// Frees a vector's memory. (`v = {}` would not: it assigns an empty initializer list, which keeps
/// the capacity.)
template <class T>
void release(std::vector<T>& v) {
  std::vector<T>().swap(v);
}

/// The record of one run. Constructed from the instance and options (which it refers to: they
/// outlive it); the phases below fill it in, in order.
struct Exploration {
  /// `memo_slots`: of the model's memo of node records (Model::default_memo_slots for a run; a
  /// check of a checkpoint alone packs nothing and needs none).
  Exploration(const Instance& instance, const Options& options, std::size_t memo_slots = Model::default_memo_slots);

  // Times (first: the run starts before its model is built): the run's, a resumed run's saved
  // exploration and its analysis in earlier sittings.
  std::chrono::steady_clock::time_point t0 = std::chrono::steady_clock::now();
  std::clock_t c0 = std::clock();
  double saved_cpu = 0, saved_seconds = 0;
  double analysis_cpu_before = 0, analysis_seconds_before = 0;
  std::clock_t phase_start = c0;
  std::size_t current_phase = 0;  ///< in res.phase_cpu_seconds
  unsigned part = 0;              ///< of the analysis under way, from 1 (0: none)

  const Instance& inst;
  const Options& opt;
  const Model model;
  const bool symmetry;  ///< stored states are canonical members of their orbits
  const bool saving, resuming;
  const std::size_t stride;          ///< bytes of a stored state
  StateSet set;                      ///< the stored states, numbered breadth first
  FileColumn<std::uint32_t> parent;  ///< per stored state: the state it was found from (read only for counterexamples)
  Graph graph;                       ///< node moves between stored states (liveness runs)
  std::size_t graph_bytes = 0;       ///< the graph's size when the exploration ended (it is freed early)
  std::uint8_t identity_nodes = 0;   ///< node_map of the identity renaming
  Global init;

  Result res;              ///< counters, limits and times, completed by finish()
  bool truncated = false;  ///< a limit stopped the run (res.limit says which)
  std::vector<Pending> pending;
  std::map<Signature, unsigned> seen;             ///< violations per signature, counted at report()
  std::array<unsigned, 2> transition_problems{};  ///< internal, P3: counted before reporting (no allocation)

  /// Packs g as stored: its canonical member under symmetry reduction, else g itself. Returns
  /// node_map of the renaming from g to what was packed; `twisted`: it is not g itself.
  std::uint8_t pack(const Global& g, std::uint8_t* out, bool& twisted) const {
    twisted = false;
    if (!symmetry) {
      model.pack(g, out);
      return 0;
    }
    return node_map(model.canonical(g, out, &twisted), inst.nodes);
  }
  /// Keeps a violation for its counterexample, unless its signature has per_kind already.
  void report(Pending p);
  /// The invariants on a state stored as number `idx`.
  void check_state(const Global& g, std::uint32_t idx);
  /// Past Options::max_seconds: marks the run truncated by it.
  bool out_of_time();
  /// Enters `phase` (a phase met again adds to its first entry's time) and tells Options::progress.
  void progress(Phase phase, std::uint64_t lifted = 0, unsigned round = 0, std::uint64_t decomposing = 0);
  /// Processor seconds of every phase so far, the one under way included.
  [[nodiscard]] std::vector<std::pair<Phase, double>> phase_cpu_so_far() const;
  /// Wall seconds of this sitting so far.
  [[nodiscard]] double wall_seconds() const;
  /// Completes res: verdict, bytes per state, times.
  Result finish();
};

// The phases, in the order check() runs them (each in its own source file).

/// Breadth-first search from the initial state (or nothing, when resuming): every reachable state
/// stored, invariants checked, the liveness graph built (search.cpp).
void explore(Exploration& x);
/// Reachable completions and deadlocks (deadlock.cpp), then fair end components part by part
/// (parts.cpp, fairness.cpp): the analysis of a full run, recorded beside a resumed checkpoint.
void analyse(Exploration& x);
/// The counterexample of every violation kept, re-derived on concrete states (counterexamples.cpp).
void write_counterexamples(Exploration& x);

}  // namespace lmx::check::detail
