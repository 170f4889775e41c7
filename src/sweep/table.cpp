// CSV tables and the report data of stored sweep points (table.hpp).
#include "lmx/sweep/table.hpp"

#include <algorithm>
#include <limits>
#include <map>
#include <unordered_map>

#include "lmx/core/protocol.hpp"

namespace lmx::sweep {

using nlohmann::json;

namespace {

std::string field(const std::string& text) {
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string q = "\"";
  for (char c : text) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

std::string field(const json& v) {
  if (v.is_null()) return "";
  if (v.is_string()) return field(v.get<std::string>());
  return field(v.dump());  // numbers in their shortest exact form; lists and tables as JSON
}

/// The kind as the report knows it: a count is an integer.
std::string kind_name(Kind k) {
  switch (k) {
    case Kind::integer:
    case Kind::count: return "integer";
    case Kind::real: return "real";
    case Kind::text: return "text";
    case Kind::flag: return "flag";
    case Kind::verdict: return "verdict";
  }
  return "";
}

}  // namespace

Selection select(const Sweep& sweep, const std::vector<Point>& points, std::vector<Row> stored, bool all) {
  Selection s;
  s.figures = figures(sweep);
  for (const auto& a : sweep.axes) s.grid_keys.push_back(a.key);
  std::unordered_map<std::string, std::size_t> order;
  for (std::size_t i = 0; i < points.size(); ++i) order.emplace(points[i].key, i);
  std::vector<std::pair<std::size_t, Row>> current;
  std::vector<Row> others;
  for (auto& r : stored) {
    auto it = order.find(r.point);
    if (it != order.end() && r.base_hash == sweep.base_hash)
      current.emplace_back(it->second, std::move(r));
    else
      others.push_back(std::move(r));
  }
  std::sort(current.begin(), current.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [i, r] : current) s.rows.push_back(std::move(r));
  if (all) {
    for (auto& r : others) {
      for (auto it = r.grid.begin(); it != r.grid.end(); ++it)
        if (std::find(s.grid_keys.begin(), s.grid_keys.end(), it.key()) == s.grid_keys.end())
          s.grid_keys.push_back(it.key());
      s.rows.push_back(std::move(r));
    }
  } else {
    s.hidden = others.size();
  }
  return s;
}

std::string csv(const Selection& s) {
  std::string out;
  for (const auto& k : s.grid_keys) out += field(k) + ",";
  out += "seed";
  for (const auto& f : s.figures) out += "," + field(std::string(f.column));
  out += "\n";
  for (const auto& r : s.rows) {
    for (const auto& k : s.grid_keys) out += field(r.grid.contains(k) ? r.grid[k] : json(nullptr)) + ",";
    out += std::to_string(r.seed);
    for (const auto& v : r.values) out += "," + field(v);
    out += "\n";
  }
  return out;
}

std::string csv_by_point(const Selection& s) {
  // Rows of one grid point, in the order the grid points first appear.
  std::vector<std::vector<const Row*>> groups;
  std::map<std::string, std::size_t> index;
  for (const auto& r : s.rows) {
    const auto [it, added] = index.emplace(r.grid.dump(), groups.size());
    if (added) groups.emplace_back();
    groups[it->second].push_back(&r);
  }
  std::string out;
  for (const auto& k : s.grid_keys) out += field(k) + ",";
  out += "seeds";
  const auto figs = s.figures;
  for (const auto& f : figs) {
    const std::string c(f.column);
    switch (f.kind) {
      case Kind::integer:
      case Kind::count:
      case Kind::real: out += "," + field(c + "_mean") + "," + field(c + "_min") + "," + field(c + "_max"); break;
      case Kind::flag: out += "," + field(c + "_count"); break;
      case Kind::verdict: out += "," + field(c + "_fail"); break;
      case Kind::text: break;
    }
  }
  out += "\n";
  for (const auto& g : groups) {
    const json& grid = g.front()->grid;
    for (const auto& k : s.grid_keys) out += field(grid.contains(k) ? grid[k] : json(nullptr)) + ",";
    out += std::to_string(g.size());
    for (std::size_t i = 0; i < figs.size(); ++i) {
      const auto& f = figs[i];
      if (f.kind == Kind::text) continue;
      double sum = 0, lo = std::numeric_limits<double>::infinity(), hi = -lo;
      std::size_t n = 0, count = 0;
      for (const Row* r : g) {
        const json& v = r->values[i];
        if (f.kind == Kind::verdict) {
          count += v.is_string() && v.get<std::string>() == "fail";
        } else if (v.is_number()) {
          const double x = v.get<double>();
          sum += x;
          lo = std::min(lo, x);
          hi = std::max(hi, x);
          ++n;
          count += x != 0;
        }
      }
      if (f.kind == Kind::verdict || f.kind == Kind::flag) {
        out += "," + std::to_string(count);
      } else if (n == 0) {
        out += ",,,";
      } else {
        auto number = [&](double x) {
          return f.kind != Kind::real && x == static_cast<double>(static_cast<std::int64_t>(x))
                     ? json(static_cast<std::int64_t>(x))
                     : json(x);
        };
        out += "," + field(json(sum / static_cast<double>(n))) + "," + field(number(lo)) + "," + field(number(hi));
      }
    }
    out += "\n";
  }
  return out;
}

json report_data(const Sweep& sweep, const Selection& s, std::size_t total_points) {
  json axes = json::array();
  for (const auto& k : s.grid_keys) {
    json values = json::array();
    auto axis = std::find_if(sweep.axes.begin(), sweep.axes.end(), [&](const Axis& a) { return a.key == k; });
    if (axis != sweep.axes.end()) {
      for (const auto& v : axis->values) values.push_back(v);
    } else {  // a key of earlier grids (--all): the values its rows hold
      for (const auto& r : s.rows)
        if (r.grid.contains(k) && std::find(values.begin(), values.end(), r.grid[k]) == values.end())
          values.push_back(r.grid[k]);
    }
    axes.push_back({{"key", k}, {"values", values}});
  }
  json figs = json::array();
  for (const auto& f : s.figures)
    figs.push_back({{"column", std::string(f.column)}, {"label", std::string(f.label)}, {"kind", kind_name(f.kind)}});
  json rows = json::array();
  for (const auto& r : s.rows) rows.push_back({{"grid", r.grid}, {"seed", r.seed}, {"values", r.values}});
  // A population sweep's base is its graph scenario and its [pp] table (shown as pp.protocol, ...).
  json base = sweep.base;
  if (sweep.population) {
    json pp = sweep.population->keys;
    pp["protocol"] = sweep.population->protocol;
    base["pp"] = pp;
  }
  return {{"name", sweep.name},
          {"description", sweep.description},
          {"file", sweep.file.filename().string()},
          {"base", base},
          {"base_hash", sweep.base_hash},
          {"axes", axes},
          {"seeds", sweep.seeds},
          {"total_points", total_points},
          {"hidden", s.hidden},
          {"figures", figs},
          {"rows", rows},
          {"lmx_version", std::string(core::version)}};
}

}  // namespace lmx::sweep
