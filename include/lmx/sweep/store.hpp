// The result store of sweeps: one SQLite table per sweep, one row per finished point (grid values,
// seed, the main figures of its `lmx run --json` summary, or of its `lmx pp run --json` object in a
// population sweep, and the whole summary). docs/sweeps.md gives the schema. Only the thread that
// opened a Store may use it.
#pragma once

#include <cstdint>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "lmx/sweep/sweep.hpp"

struct sqlite3;

namespace lmx::sweep {

/// The store cannot be opened, read or written, or it holds results that do not fit the sweep.
struct StoreError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// How a figure is stored and summarised over seeds (--by-point).
enum class Kind {
  integer,  ///< INTEGER; mean, min, max
  real,     ///< REAL; mean, min, max
  text,     ///< TEXT; not aggregated
  flag,     ///< INTEGER 0/1 from a JSON bool; aggregated as the number of seeds where it is 1
  verdict,  ///< TEXT "pass"/"fail"; aggregated as the number of seeds that fail
  count,    ///< INTEGER: the number of entries of the JSON list (or object) there; mean, min, max
};

/// A column taken from the run summary: its name, where it is in the summary (a JSON pointer,
/// docs/run-format.md; docs/population.md for a population sweep), its kind and a label for plots.
struct Figure {
  std::string_view column;
  std::string_view pointer;
  Kind kind;
  std::string_view label;
};

/// Every figure column of a sweep of scenarios, in table order. A new figure is one line in store.cpp.
std::span<const Figure> figures();
/// Every figure column of a population sweep (from the `lmx pp run --json` object), in table order.
std::span<const Figure> population_figures();
/// The sweep's figure columns: population_figures() for a population sweep, else figures().
std::span<const Figure> figures(const Sweep& sweep);

/// The figure's value in a summary as JSON: null when the key is missing or null.
nlohmann::json figure_value(const Figure& f, const nlohmann::json& summary);

/// One stored point.
struct Row {
  std::string point;                               ///< the point key
  nlohmann::json grid = nlohmann::json::object();  ///< grid column -> value (null where not set)
  std::uint64_t seed = 0;
  std::string lmx_version;
  std::string base_hash;
  std::vector<nlohmann::json> values;  ///< one per figure of the sweep (figures(sweep)), null for NULL
};

class Store {
 public:
  enum class Mode { write, read };
  /// Opens the database and the sweep's table (created, and given columns for new grid keys or
  /// figures, in write mode). Write mode refuses a table that holds points of another base
  /// scenario; both modes refuse a table of the other kind of sweep. Throws StoreError.
  Store(const std::filesystem::path& db, const Sweep& sweep, Mode mode);
  ~Store();
  Store(const Store&) = delete;
  Store& operator=(const Store&) = delete;

  /// Keys of every stored point.
  [[nodiscard]] std::unordered_set<std::string> stored_keys() const;
  /// Stores a finished point (one transaction); false when it was stored already.
  bool put(const Point& point, const nlohmann::json& summary);
  /// Every stored row, in insertion order.
  [[nodiscard]] std::vector<Row> rows() const;
  /// Stored rows made by another lmx version (informative: results may differ).
  [[nodiscard]] std::size_t other_version_rows() const;
  /// Stored rows of another base scenario (only in read mode; write mode refuses them).
  [[nodiscard]] std::size_t other_base_rows() const;
  [[nodiscard]] const std::filesystem::path& path() const { return path_; }

 private:
  void exec(const std::string& sql) const;
  [[nodiscard]] std::string fail(const std::string& what) const;
  sqlite3* db_ = nullptr;
  std::filesystem::path path_;
  std::string table_;
  std::string base_hash_;
  std::span<const Figure> figures_;
};

/// The fixed columns a grid key of a sweep of scenarios may not be named like.
bool is_reserved_column(std::string_view name);
/// The same for the sweep's kind (its own figure columns).
bool is_reserved_column(std::string_view name, const Sweep& sweep);

}  // namespace lmx::sweep
