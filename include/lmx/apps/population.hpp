// Population protocols on lmx locks (paper, Section 6, "Population Protocols"; docs/population.md).
//
// A protocol is data: states, an initial configuration, rules on ordered pairs (initiator,
// responder), an output map and a stop condition. It runs under four schedulers that share one
// seed, one result and one output format:
//   sequential          the classic model: a uniformly random ordered pair of distinct agents per
//                       step on the complete graph, agent-level (parallel time = interactions / n);
//   sequential-graph    a uniformly random edge of the current graph per step, on any topology and
//                       dynamics of `lmx run`;
//   lock-neighbourhood  the paper's first implementation: an agent Locks its neighbourhood, then
//                       interacts with one locked neighbour, then Unlocks;
//   lock-pair           the paper's second: an agent picks a partner first and Locks only the two
//                       of them (core Protocol::lock over a subset).
// The lock schedulers run on lmx's engines with the P1-P7 monitors on, plus an isolation monitor:
// every interaction happens while both agents are in the initiator's lock set, and no agent is in
// two interactions at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lmx/sim/scenario.hpp"
#include "lmx/sim/simulation.hpp"

namespace lmx::apps::pp {

/// An agent's state: protocols have at most 256 states, one byte per agent.
using AgentState = std::uint8_t;
inline constexpr unsigned max_states = 256;

/// Bad protocol input or run options: one line naming the file, the key and the problem.
struct ProtocolError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One possible result of an interaction of an ordered pair.
struct Outcome {
  AgentState initiator = 0;
  AgentState responder = 0;
  double probability = 1;
};

/// When a run has reached its goal.
struct StopCondition {
  enum class Kind : std::uint8_t { silent, consensus, count, never };
  enum class Compare : std::uint8_t { eq, ne, lt, le, gt, ge };
  Kind kind = Kind::silent;
  AgentState state = 0;  ///< count: the state counted
  Compare compare = Compare::eq;
  std::uint64_t value = 0;
  std::string text = "silent";  ///< as written
};

/// How an agent that locked its neighbourhood interacts (the paper's generalisation, Section 6: "one
/// could even generalize the usual pairwise interactions to interactions among the full group of
/// locked neighbors"): with one locked neighbour chosen at random, or with each of them in a random
/// order inside the one critical section. Only the lock-neighbourhood scheduler has groups.
enum class GroupRule : std::uint8_t { one, each };

/// A population protocol. Build one from a file (protocol_from_toml_file) or in code
/// (Protocol::from_function, for protocols with many states).
class Protocol {
 public:
  std::string name;
  std::string description;
  std::vector<std::string> states;   ///< names, indexed by AgentState
  std::vector<std::string> outputs;  ///< per state: its output (default: its name)
  /// Initial configuration: per state, a count (counts = true) or a fraction of the agents.
  std::vector<double> initial;
  bool initial_counts = false;
  std::uint64_t agents = 1000;  ///< the population size a run uses unless told otherwise
  bool symmetric = false;       ///< each rule A,B -> C,D also gives B,A -> D,C
  GroupRule group = GroupRule::one;
  StopCondition stop;

  /// The outcomes of the ordered pair (a, b); empty: the pair does not change (a null rule).
  /// Before any rule is added (a file with `rules = []`), every pair is null.
  [[nodiscard]] const std::vector<Outcome>& outcomes(AgentState a, AgentState b) const {
    static const std::vector<Outcome> none;
    const std::size_t i = static_cast<std::size_t>(a) * states.size() + b;
    return i < rules_.size() ? rules_[i] : none;
  }
  /// Whether some outcome of (a, b) changes a state.
  [[nodiscard]] bool changes(AgentState a, AgentState b) const;
  /// Adds an outcome to (a, b); throws ProtocolError for a duplicate outcome or a probability out
  /// of (0, 1]. finish() checks that each pair's probabilities sum to 1.
  void add_rule(AgentState a, AgentState b, Outcome o, const std::string& where);
  /// Checks the whole protocol (probabilities, outputs, the initial configuration, the stop
  /// condition) and builds the lookup table; throws ProtocolError naming `where`.
  void finish(const std::string& where);

  /// A protocol from a transition function over small integers (the C++ API for protocols with
  /// many states): `delta(a, b)` returns the new (initiator, responder) states.
  static Protocol from_function(std::string name, std::vector<std::string> state_names,
                                const std::function<std::pair<AgentState, AgentState>(AgentState, AgentState)>& delta);

  /// The per-agent counts of the initial configuration for n agents (fractions rounded by largest
  /// remainder, so that they sum to n; a state given a positive amount keeps at least one agent).
  [[nodiscard]] std::vector<std::uint64_t> initial_counts_for(std::uint64_t n) const;
  /// The state named `name`, if any.
  [[nodiscard]] std::optional<AgentState> state(std::string_view name) const;

  /// The lookup table the schedulers use: per ordered pair, a 32-bit entry. Bit 31 clear: a
  /// deterministic pair, new states in bits 0-7 (initiator) and 8-15 (responder). Bit 31 set:
  /// a randomised pair whose outcomes are outcomes(a, b).
  [[nodiscard]] const std::vector<std::uint32_t>& table() const { return table_; }
  static constexpr std::uint32_t randomised = 0x80000000u;

  [[nodiscard]] nlohmann::json to_json() const;

 private:
  std::vector<std::vector<Outcome>> rules_;
  std::vector<std::uint32_t> table_;
};

/// Reads and validates a protocol file (docs/population.md, "Protocol files"); throws ProtocolError.
Protocol protocol_from_toml_file(const std::string& path);
/// The same for TOML text; `where` names it in messages.
Protocol protocol_from_toml(std::string_view text, const std::string& where);
/// The same for JSON (the TOML file's form, after --set overrides); `where` names it in messages.
Protocol protocol_from_json(const nlohmann::json& j, const std::string& where);

/// A protocol shipped with lmx (examples/protocols/NAME.toml, embedded in the library).
struct ShippedProtocol {
  std::string_view name;
  std::string_view toml;
};
const std::vector<ShippedProtocol>& shipped_protocols();
/// A protocol file's path, or a shipped protocol's name ("approximate-majority"): the file if one
/// exists at `name_or_path`, else the shipped protocol of that name; throws ProtocolError.
Protocol load_protocol(const std::string& name_or_path);

/// The shipped protocols' C++ form: discrete averaging over values 0..levels-1 (Berenbrink et al.:
/// a, b -> floor((a+b)/2), ceil((a+b)/2), the smaller value staying with the smaller agent's side).
Protocol averaging(unsigned levels);

// ------------------------------------------------------------------------------------ running

enum class SchedulerKind : std::uint8_t { sequential, sequential_graph, lock_neighbourhood, lock_pair };
std::string_view to_string(SchedulerKind k);
std::optional<SchedulerKind> scheduler_from_word(std::string_view word);

/// P7's horizon (rounds) in lock-scheduler runs whose scenario sets none: every agent locks all
/// the time, far from the uncontended workload the simulator's derived horizon assumes.
inline constexpr std::uint64_t full_contention_horizon = 100000;

struct RunConfig {
  SchedulerKind scheduler = SchedulerKind::sequential;
  std::uint64_t agents = 0;  ///< 0: the protocol's
  std::uint64_t seed = 1;
  /// The graph, engine and adversary of the graph schedulers (`lmx run`'s scenario; nodes = agents),
  /// with a long run: the stop condition or max_time ends it first.
  sim::Scenario scenario = [] {
    sim::Scenario s;
    s.rounds = 1000000;
    return s;
  }();
  /// The longest run, in parallel time (interactions per agent).
  double max_time = 10000;
  /// A history row every this much parallel time (0: none).
  double history_every = 0;
  /// sequential-graph: interactions per round of the graph's dynamics, per agent.
  double interactions_per_round = 1;
  std::ostream* trace = nullptr;  ///< lock schedulers: the lmx-trace/1 lines, with interaction lines
  /// Test-only: the lock schedulers pick a partner among all neighbours instead of the locked
  /// ones (the isolation monitor must fire).
  bool unsafe_partner = false;
  const std::atomic<bool>* stop = nullptr;  ///< once true, the run ends (Ctrl-C)
};

struct HistoryRow {
  double parallel_time = 0;
  std::uint64_t interactions = 0;
  double round = 0;
  std::vector<std::uint64_t> counts;
};

struct Result {
  SchedulerKind scheduler = SchedulerKind::sequential;
  std::uint64_t agents = 0;
  std::uint64_t seed = 0;
  std::uint64_t interactions = 0;            ///< interactions that happened
  std::uint64_t effective_interactions = 0;  ///< those that changed some state
  bool converged = false;                    ///< the stop condition held
  bool interrupted = false;
  double parallel_time = 0;  ///< interactions / agents at the end
  double rounds = 0;         ///< graph schedulers: model rounds
  std::vector<std::uint64_t> initial_counts;
  std::vector<std::uint64_t> final_counts;
  std::string outcome;  ///< the consensus output, or the final counts of the output map
  std::vector<HistoryRow> history;
  // The lock schedulers.
  std::uint64_t lock_cycles = 0;       ///< Locks that completed
  std::uint64_t no_partner = 0;        ///< of which found no partner (locked only the agent itself)
  std::uint64_t messages = 0;          ///< messages sent by the lock protocol
  std::uint64_t lock_requests = 0;     ///< Lock calls
  std::uint64_t isolation_checks = 0;  ///< interactions the isolation monitor checked
  std::vector<sim::Violation> violations;
  nlohmann::json run_summary;  ///< graph schedulers: the engine's `lmx run` summary
  double wall_seconds = 0;
  std::uint64_t memory_bytes = 0;  ///< the sequential scheduler: bytes of agent state
  /// Graph schedulers: the initial graph's connected components and edges (a protocol that is
  /// correct "on every connected graph" is judged on connected ones).
  std::uint64_t components = 0;
  std::uint64_t edges = 0;
};

/// Runs a protocol under a scheduler. Throws ProtocolError (or sim::ScenarioError) for bad options.
Result run(const Protocol& protocol, const RunConfig& config);

/// The `lmx pp run --json` object (docs/population.md, "Results").
nlohmann::json to_json(const Protocol& protocol, const Result& r);
/// The population part of a run report (docs/population.md, "Reports"): the summary's figures,
/// the state names and the history as columns {parallel_time: [...], round: [...], counts: {state: [...]}}.
nlohmann::json report_json(const Protocol& protocol, const Result& r);
/// The history as CSV: parallel_time,interactions,round,<state>... (one row per sample).
void write_history_csv(std::ostream& out, const Protocol& protocol, const Result& r);

}  // namespace lmx::apps::pp
