// A simulation scenario: the network, the adversary, the workload and the run length. Scenarios
// come from TOML files (docs/scenarios.md), `--set key=value` overrides, or a trace header (replay);
// all three go through one validator, so every input gets the same error messages.
#pragma once

#include <array>
#include <cmath>
#include <cstdint>
#include <iosfwd>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lmx/core/protocol.hpp"

namespace lmx::sim {

using NodeId = std::uint32_t;
inline constexpr NodeId no_node = 0xFFFFFFFFu;

/// Bad scenario input: the message names the key and the problem in one line.
struct ScenarioError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

// The scenario's kinds. Files, `--set`, summaries and trace headers spell each as a word
// (docs/scenarios.md); code holds an enum, so that a misspelt kind does not compile.
enum class EngineKind : std::uint8_t { semi_sync, async };
enum class ActivationKind : std::uint8_t { random, sequential, synchronous };
enum class DeliveryKind : std::uint8_t { random, oldest, delay_target };
enum class TopologyKind : std::uint8_t { edges, ring, grid, regular, unit_disk, mobility };
enum class DynamicsKind : std::uint8_t { static_graph, churn, starve, flap, swizzle };
enum class WorkloadKind : std::uint8_t { automatic, manual };

/// Each kind's words, in the order of its enum's values.
template <class Kind>
struct KindWords;
template <>
struct KindWords<EngineKind> {
  static constexpr std::array<std::string_view, 2> words{"semi-sync", "async"};
};
template <>
struct KindWords<ActivationKind> {
  static constexpr std::array<std::string_view, 3> words{"random", "sequential", "synchronous"};
};
template <>
struct KindWords<DeliveryKind> {
  static constexpr std::array<std::string_view, 3> words{"random", "oldest", "delay-target"};
};
template <>
struct KindWords<TopologyKind> {
  static constexpr std::array<std::string_view, 6> words{"edges", "ring", "grid", "regular", "unit-disk", "mobility"};
};
template <>
struct KindWords<DynamicsKind> {
  static constexpr std::array<std::string_view, 5> words{"static", "churn", "starve", "flap", "swizzle"};
};
template <>
struct KindWords<WorkloadKind> {
  static constexpr std::array<std::string_view, 2> words{"auto", "manual"};
};

/// A kind's word ("semi-sync", "unit-disk", ...).
template <class Kind>
constexpr std::string_view word(Kind kind) {
  return KindWords<Kind>::words[static_cast<std::size_t>(kind)];
}
/// The kind a word names, if any.
template <class Kind>
constexpr std::optional<Kind> kind_from_word(std::string_view text) {
  for (std::size_t i = 0; i < KindWords<Kind>::words.size(); ++i)
    if (KindWords<Kind>::words[i] == text) return static_cast<Kind>(i);
  return std::nullopt;
}

struct Scenario {
  /// The node count at which the default radius and speed hold as written (they scale with 1/sqrt(n)).
  static constexpr std::uint32_t radius_reference_nodes = 1000;
  std::string name = "default";
  std::uint32_t nodes = 1000;
  unsigned delta = 8;
  /// The simulator's default is the fast variant with the largest K a one-byte message carries
  /// (docs/performance.md: it wins every row of the latency table); the core's default_variant,
  /// which the checker explores by default, stays `repaired`.
  unsigned k = 32;
  core::Variant variant = core::Variant::fast;
  EngineKind engine = EngineKind::async;  ///< semi-sync (rounds) or async (intervals, paper Section 5)
  std::uint64_t seed = 1;
  std::uint64_t rounds = 400;  ///< run length: rounds, or time units for the async engine
  std::uint64_t horizon = 0;   ///< P7: a request pending longer than this is reported (0: derived)

  struct Activation {
    ActivationKind kind = ActivationKind::random;  ///< random (probability p) | sequential | synchronous
    double p = 0.5;
  } activation;

  struct Delivery {
    DeliveryKind kind = DeliveryKind::random;  ///< random | oldest | delay-target
    NodeId target = 0;                         ///< delay-target: the node whose messages are delayed
    std::uint32_t patience = 16;               ///< delay-target: rounds a message may be held back at most
  } delivery;

  struct Topology {
    TopologyKind kind = TopologyKind::mobility;    ///< edges | ring | grid | regular | unit-disk | mobility
    std::string file;                              ///< edges: an edge-list file ("u v" per line)
    std::vector<std::pair<NodeId, NodeId>> edges;  ///< edges: inline list
    unsigned degree = 0;                           ///< regular: target degree (0: delta)
    unsigned width = 0;                            ///< grid: columns (0: square)
    double radius = 0.045;  ///< unit-disk, mobility: connection radius r (if not given: 0.045·sqrt(1000/n))
    double speed = 0.004;   ///< mobility: distance per round (if not given: scaled as the radius)
  } topology;

  struct Dynamics {
    DynamicsKind kind = DynamicsKind::static_graph;  ///< static | churn | starve | flap | swizzle
    double birth = 0.01;      ///< churn: probability that a missing initial edge returns, per round
    double death = 0.01;      ///< churn: probability that a present edge is cut, per round
    NodeId target = 0;        ///< starve: the node whose requests are attacked
    std::uint32_t bound = 8;  ///< hostile strategies: the longest an edge stays cut (rounds)
    std::uint32_t batch = 8;  ///< swizzle: edges cut per attack
  } dynamics;

  struct Workload {
    WorkloadKind kind = WorkloadKind::automatic;  ///< auto (idle, lock, hold, unlock) | manual (application API)
    double participation = 1.0;                   ///< fraction of nodes that lock
    double idle = 4;                              ///< mean rounds between Unlock completing and the next Lock
    double hold = 2;                              ///< mean rounds in the critical section
    std::uint32_t locks = 0;                      ///< locks per participating node (0: continuous)
  } workload;

  /// P7's horizon in rounds: `horizon`, or, when 0, 30 times the time a Lock takes when nothing
  /// contends, and at least 100 rounds (docs/simulator.md, Monitors). That time is estimated as
  /// (Delta + 1) / p rounds (each of a Lock's steps waits for one of up to Delta + 1 partners,
  /// each activated with probability p a round: p = activation.p for the random
  /// semi-synchronous adversary, 1/nodes for the sequential one, 1 for the synchronous one and the
  /// asynchronous engine, whose nodes act about once a round), plus, when the delivery adversary
  /// holds messages back, 6 times its patience (a Lock exchanges 6 messages in turn).
  [[nodiscard]] std::uint64_t effective_horizon() const {
    if (horizon) return horizon;
    double p = 1;
    if (engine == EngineKind::semi_sync && activation.kind == ActivationKind::random) p = activation.p;
    if (engine == EngineKind::semi_sync && activation.kind == ActivationKind::sequential) p = 1.0 / nodes;
    const double held = delivery.kind == DeliveryKind::delay_target ? 6.0 * delivery.patience : 0.0;
    const double derived = std::ceil(30.0 * ((delta + 1) / p + held));
    return derived < 100 ? 100 : derived > 1e15 ? std::uint64_t{1'000'000'000'000'000} : std::uint64_t(derived);
  }
  [[nodiscard]] nlohmann::json to_json() const;
};

/// Validates a scenario given as JSON (unknown keys, types, ranges, finite numbers, keys the chosen
/// kind would ignore, topology feasibility of inline data). Throws ScenarioError.
Scenario scenario_from_json(const nlohmann::json& j);
/// Reads a TOML file into the JSON form (throws ScenarioError on unreadable or malformed files,
/// with FILE:LINE:COL for syntax errors).
nlohmann::json scenario_json_from_toml_file(const std::string& path);
/// The same for TOML text; `path` names it in messages and is where a relative edge-list file is.
nlohmann::json scenario_json_from_toml(std::string_view text, const std::string& path);
/// Applies one `key=value` override (dotted key; value in TOML syntax, bare words taken as strings).
void apply_override(nlohmann::json& j, const std::string& assignment);
/// Sets a dotted key ("topology.radius") in a scenario document, creating tables on the way, as
/// apply_override and the sweep's grid do. Throws ScenarioError for an empty key part or a part
/// under a value that is not a table.
void set_dotted_key(nlohmann::json& j, const std::string& key, const nlohmann::json& value);

// Validation helpers, shared by the validator and the commands.

/// The longest scenario name, in characters.
inline constexpr std::size_t max_name_length = 100;

/// A seed: decimal digits only, 0..2^64-1 (no sign, no blanks). Throws ScenarioError naming
/// `what` (e.g. "--seed") and the text.
std::uint64_t parse_seed(std::string_view text, std::string_view what = "seed");

/// Whether `text` is well-formed UTF-8 (no overlong forms, no surrogates, at most U+10FFFF).
bool valid_utf8(std::string_view text);

/// `text` made safe to print in one line of a terminal: control characters, bytes of invalid
/// UTF-8 and bidirectional-override characters are written as escapes (\n, \x1b, \u202e), and text
/// longer than `max` characters is cut with "...".
std::string printable(std::string_view text, std::size_t max = 80);

/// Reads an edge list ("u v" per line; docs/scenarios.md) for a network of `nodes` nodes. Throws
/// ScenarioError naming `source` and the line for text that is not an edge list (binary, invalid
/// UTF-8, a line that is neither blank, a comment nor two node numbers), for node numbers outside
/// 0..nodes-1, self-loops and duplicate edges.
std::vector<std::pair<NodeId, NodeId>> parse_edge_list(std::istream& in, const std::string& source, NodeId nodes);

}  // namespace lmx::sim
