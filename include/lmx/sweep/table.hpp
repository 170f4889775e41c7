// What a sweep's stored points look like to a reader: CSV, one row per point or aggregated over
// seeds per grid point, and the data block of the HTML sweep report.
#pragma once

#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <vector>

#include "lmx/sweep/store.hpp"
#include "lmx/sweep/sweep.hpp"

namespace lmx::sweep {

/// The rows to show: those of the sweep's current points (in grid order, seeds innermost) and of
/// its base scenario, or, with `all`, every stored row (current points first).
struct Selection {
  std::vector<std::string> grid_keys;                         ///< the columns for grid values, in order
  std::span<const Figure> figures = ::lmx::sweep::figures();  ///< the sweep's figure columns (figures(sweep))
  std::vector<Row> rows;
  std::size_t hidden = 0;  ///< stored rows left out (other grids or base scenarios)
};
Selection select(const Sweep& sweep, const std::vector<Point>& points, std::vector<Row> stored, bool all);

/// CSV (RFC 4180): grid keys, seed, then every figure of the sweep; NULL is an empty field.
std::string csv(const Selection& s);
/// CSV with one row per grid point: grid keys, the number of seeds stored, then for each figure
/// over those seeds: numbers (and counts) as mean, min, max; flags as the count of 1s; verdicts as
/// the count of fails; text figures are left out.
std::string csv_by_point(const Selection& s);

/// The sweep report's data: the sweep (name, description, base scenario, axes, seeds), the figures
/// (column, label, kind) and the rows ({grid, seed, values}).
nlohmann::json report_data(const Sweep& sweep, const Selection& s, std::size_t total_points);

}  // namespace lmx::sweep
