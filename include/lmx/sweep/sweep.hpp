// A parameter sweep: a grid of scenario keys times a list of seeds, read from a TOML sweep file
// (docs/sweeps.md). Every point is a full scenario, validated by lmx::sim before anything runs.
// A sweep file with a [pp] table is a population sweep: each point is an `lmx pp run` of one
// protocol (scheduler, run keys and the graph's scenario keys swept), validated the same way.
#pragma once

#include <atomic>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "lmx/apps/population.hpp"
#include "lmx/sim/scenario.hpp"

namespace lmx::sweep {

/// Bad sweep input: the message names the file and the key or point, in one line.
struct SweepError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// One swept scenario key (dotted, as for `lmx run --set`) and its values, in the order given.
struct Axis {
  std::string key;
  std::vector<nlohmann::json> values;
};

/// The [pp] table of a population sweep: the protocol, shared by every point, and the base values
/// of the population keys (scheduler and the run keys, docs/sweeps.md).
struct Population {
  std::string protocol;                              ///< as named in [pp]
  std::filesystem::path protocol_file;               ///< the sweep file's folder / protocol; empty when shipped
  std::shared_ptr<const apps::pp::Protocol> loaded;  ///< the validated protocol
  nlohmann::json keys = nlohmann::json::object();    ///< [pp]'s other keys (population keys), as given
};

/// A population sweep's own keys (not the graph scenario's): scheduler, agents, max_time,
/// interactions_per_round.
bool is_population_key(const std::string& key);

struct Sweep {
  std::string name;                                ///< the result table's name (an identifier)
  std::string description;                         ///< optional free text, shown in the report
  std::string source;                              ///< the sweep file as named on the command line (for messages)
  std::filesystem::path file;                      ///< the sweep file, absolute
  std::filesystem::path base_file;                 ///< the base scenario file, absolute; empty when none
  nlohmann::json base = nlohmann::json::object();  ///< base scenario (file, then [scenario])
  std::string base_hash;                           ///< 16 hex digits over the base scenario (docs/sweeps.md, Resuming)
  std::vector<Axis> axes;                          ///< the grid, in file order (the first axis varies slowest)
  std::vector<std::uint64_t> seeds;
  /// Set for a population sweep (a [pp] table): points are `lmx pp run`s, `base` is the graph's
  /// scenario, and the base hash covers the protocol and [pp] too.
  std::optional<Population> population;

  /// Number of grid points (without seeds).
  [[nodiscard]] std::size_t grid_size() const;
  /// Files the sweep reads (the sweep file, the base scenario, an edge-list file, a protocol file).
  [[nodiscard]] std::vector<std::filesystem::path> inputs() const;
};

/// A population point's run: what apps::pp::run takes besides the scenario and the seed.
struct PopulationRun {
  std::shared_ptr<const apps::pp::Protocol> protocol;
  apps::pp::SchedulerKind scheduler = apps::pp::SchedulerKind::sequential;
  std::uint64_t agents = 0;
  double max_time = 0;
  double interactions_per_round = 0;

  /// The run's configuration for `scenario` and `seed` (no trace, no history).
  [[nodiscard]] apps::pp::RunConfig config(const sim::Scenario& scenario, std::uint64_t seed,
                                           const std::atomic<bool>* stop) const;
};

/// One run of the sweep: grid values and a seed, and the scenario they make.
struct Point {
  nlohmann::json grid = nlohmann::json::object();  ///< axis key -> value
  std::uint64_t seed = 0;
  std::string key;             ///< canonical JSON of {"grid": ..., "seed": ...}, the store's unique key
  std::size_t grid_index = 0;  ///< which grid point (0 .. grid_size()-1), seeds excluded
  /// The scenario; for a population point on a graph, the graph's (nodes = agents), and unused
  /// under the sequential scheduler.
  sim::Scenario scenario;
  std::optional<PopulationRun> population;  ///< set for the points of a population sweep

  /// "{delta = 2, k = 4} seed 3", for messages.
  [[nodiscard]] std::string describe() const;
};

/// Reads and checks a sweep file. Throws SweepError.
Sweep load_sweep(const std::filesystem::path& file);
/// The same from text; `file` locates relative paths and names the input in messages.
Sweep parse_sweep(const std::string& text, const std::filesystem::path& file);

/// Every point, grid-major (the first axis varies slowest), seeds innermost. Each point is
/// validated through sim::scenario_from_json (a population point: its run keys too, and its graph
/// scenario unless it runs on the complete graph); the first that fails throws SweepError naming it.
std::vector<Point> expand(const Sweep& sweep);

/// The canonical point key: compact JSON with sorted keys.
std::string point_key(const nlohmann::json& grid, std::uint64_t seed);
/// The grid part of a point as text: "{delta = 2, k = 4}".
std::string describe_grid(const nlohmann::json& grid);

/// A table or column name SQLite takes unquoted: [A-Za-z_][A-Za-z0-9_]*, not sqlite_*.
bool is_identifier(const std::string& s);

}  // namespace lmx::sweep
