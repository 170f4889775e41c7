// Sweep files: TOML in, axes and seeds out; the grid's expansion into validated points.
#include "lmx/sweep/sweep.hpp"

#include <fmt/format.h>
#include <toml++/toml.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <set>
#include <sstream>

#include "lmx/sim/simulation.hpp"
#include "lmx/sim/toml_json.hpp"
#include "lmx/trace/trace.hpp"

namespace lmx::sweep {

using nlohmann::json;
namespace fs = std::filesystem;

namespace {

constexpr std::size_t max_axis_values = 100'000;
/// Every point is expanded and checked before the first runs, about 0.7 kB each (its grid, key and
/// scenario): 10^6 points hold about 0.7 GB. 10^7 held 7 GB, more than a dry run should need.
constexpr std::size_t max_points = 1'000'000;
constexpr std::uint64_t max_seed_count = 1'000'000;

json to_json(const toml::node& n, const std::string& where) {
  return sim::json_from_toml(
      n, [&](const toml::node&) { throw SweepError(where + ": dates and times are not sweep values"); });
}

/// A float value as the shortest decimal of 12 significant digits, so that 0.1 + 0.2 steps give 0.3.
double tidy(double v) {
  const double r = std::stod(fmt::format("{:.12g}", v));
  return r == 0 ? 0.0 : r;  // no -0
}

bool is_number(const toml::node* n) { return n && (n->is_integer() || n->is_floating_point()); }

/// Values of a range table: {from, to, step} (arithmetic, step default 1) or {from, to, times}
/// (geometric). Integers when every bound is an integer, floats otherwise. `to` is included when
/// the progression reaches it.
std::vector<json> range_values(const toml::table& t, const std::string& where) {
  for (auto&& [k, v] : t) {
    const std::string key(k.str());
    if (key != "from" && key != "to" && key != "step" && key != "times")
      throw SweepError(where + ": unknown range key '" + key + "' (expected from, to, and step or times)");
  }
  const toml::node* from = t.get("from");
  const toml::node* to = t.get("to");
  const toml::node* step = t.get("step");
  const toml::node* times = t.get("times");
  if (!from || !to) throw SweepError(where + ": a range needs 'from' and 'to'");
  if (step && times) throw SweepError(where + ": a range has 'step' or 'times', not both");
  for (auto [name, n] : {std::pair{"from", from}, {"to", to}, {"step", step}, {"times", times}})
    if (n && !is_number(n)) throw SweepError(where + ": range '" + name + "' must be a number");
  const bool integers =
      from->is_integer() && to->is_integer() && (!step || step->is_integer()) && (!times || times->is_integer());
  auto number = [](const toml::node* n) {
    return n->is_integer() ? static_cast<double>(n->as_integer()->get()) : n->as_floating_point()->get();
  };
  const double lo = number(from), hi = number(to);
  if (!std::isfinite(lo) || !std::isfinite(hi)) throw SweepError(where + ": range bounds must be finite");
  if (lo > hi)
    throw SweepError(where + ": range 'from' " + to_json(*from, where).dump() + " is above 'to' " +
                     to_json(*to, where).dump());
  std::vector<json> values;
  auto too_many = [&] {
    return SweepError(where + ": the range has more than " + std::to_string(max_axis_values) + " values");
  };
  if (times) {
    const double f = number(times);
    if (!(f > 1) || !std::isfinite(f)) throw SweepError(where + ": range 'times' must be above 1");
    if (!(lo > 0)) throw SweepError(where + ": a geometric range needs 'from' above 0");
    if (integers) {
      const auto factor = times->as_integer()->get();
      for (std::int64_t v = from->as_integer()->get(); v <= to->as_integer()->get(); v *= factor) {
        if (values.size() == max_axis_values) throw too_many();
        values.emplace_back(v);
        if (v > std::numeric_limits<std::int64_t>::max() / factor) break;
      }
    } else {
      for (double v = lo; v <= hi * (1 + 1e-12); v *= f) {
        if (values.size() == max_axis_values) throw too_many();
        values.emplace_back(tidy(v));
      }
    }
    return values;
  }
  const double d = step ? number(step) : 1.0;
  if (!(d > 0) || !std::isfinite(d)) throw SweepError(where + ": range 'step' must be above 0");
  if (integers) {
    const std::int64_t a = from->as_integer()->get(), b = to->as_integer()->get();
    const std::int64_t s = step ? step->as_integer()->get() : 1;
    if (static_cast<std::uint64_t>(b - a) / static_cast<std::uint64_t>(s) >= max_axis_values) throw too_many();
    for (std::int64_t v = a; v <= b; v += s) {
      values.emplace_back(v);
      if (v > b - s) break;  // no overflow past `to`
    }
    return values;
  }
  // Counted from `from` (not accumulated) so that rounding does not drift; `to` is reached when it
  // lies within a millionth of a step.
  const double count = std::floor((hi - lo) / d + 1e-6);
  if (count >= static_cast<double>(max_axis_values)) throw too_many();
  for (std::size_t i = 0; i <= static_cast<std::size_t>(count); ++i)
    values.emplace_back(tidy(lo + d * static_cast<double>(i)));
  return values;
}

bool is_range(const toml::table& t) {
  return t.contains("from") || t.contains("to") || t.contains("step") || t.contains("times");
}

struct Entry {
  std::string key;
  const toml::node* node;
  toml::source_position at;
};

/// The [grid] table's leaves: dotted TOML keys and nested tables are the same key.
void collect(const toml::table& t, const std::string& prefix, std::vector<Entry>& out) {
  for (auto&& [k, v] : t) {
    const std::string key = prefix.empty() ? std::string(k.str()) : prefix + "." + std::string(k.str());
    const auto* sub = v.as_table();
    if (sub && !is_range(*sub))
      collect(*sub, key, out);
    else
      out.push_back({key, &v, v.source().begin});
  }
}

std::string fnv1a(const std::string& text) {
  std::uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ull;
  }
  return trace::hex64(h);
}

std::vector<std::uint64_t> parse_seeds(const toml::node& n, const std::string& where) {
  std::vector<std::uint64_t> seeds;
  auto seed_value = [&](const json& v) {
    if (!v.is_number_integer() || (v.is_number_integer() && !v.is_number_unsigned() && v.get<std::int64_t>() < 0))
      throw SweepError(where + ": a seed is a non-negative integer, got " + v.dump());
    return v.get<std::uint64_t>();
  };
  if (auto count = n.as_integer()) {
    if (count->get() < 1 || static_cast<std::uint64_t>(count->get()) > max_seed_count)
      throw SweepError(where + ": a seed count must be in 1.." + std::to_string(max_seed_count) + ", got " +
                       std::to_string(count->get()));
    for (std::int64_t s = 1; s <= count->get(); ++s) seeds.push_back(static_cast<std::uint64_t>(s));
    return seeds;
  }
  std::vector<json> values;
  if (auto a = n.as_array()) {
    for (auto&& v : *a) values.push_back(to_json(v, where));
  } else if (auto t = n.as_table()) {
    if (t->contains("times")) throw SweepError(where + ": seeds take {from, to, step}, not 'times'");
    values = range_values(*t, where);
  } else {
    throw SweepError(where + ": expected a count, a list or a range {from, to}");
  }
  if (values.empty()) throw SweepError(where + ": the list is empty");
  if (values.size() > max_seed_count) throw SweepError(where + ": more than " + std::to_string(max_seed_count));
  std::set<std::uint64_t> seen;
  for (const auto& v : values) {
    const auto s = seed_value(v);
    if (!seen.insert(s).second) throw SweepError(where + ": seed " + std::to_string(s) + " appears twice");
    seeds.push_back(s);
  }
  return seeds;
}

// ------------------------------------------------------------------ population sweeps ([pp])

constexpr std::array<std::string_view, 4> population_keys{"scheduler", "agents", "max_time", "interactions_per_round"};
constexpr std::string_view population_key_list = "scheduler, agents, max_time, interactions_per_round";
constexpr std::string_view scheduler_list = "sequential, sequential-graph, lock-neighbourhood, lock-pair";
// The graph schedulers' limit (the sequential one's is one more): one limit for every scheduler.
constexpr std::uint64_t max_graph_agents = 0xFFFFFFFEull;

/// What is wrong with a population key's value ("" when nothing): a scheduler's name, agents in
/// 2..2^32-2, max_time and interactions_per_round above 0 (as `lmx pp run --set` takes them).
std::string population_value_problem(const std::string& key, const json& v) {
  if (key == "scheduler") {
    if (!v.is_string()) return "expected a scheduler's name (" + std::string(scheduler_list) + "), got " + v.dump();
    if (!apps::pp::scheduler_from_word(v.get<std::string>()))
      return "unknown scheduler '" + sim::printable(v.get<std::string>()) + "' (one of " + std::string(scheduler_list) +
             ")";
    return "";
  }
  if (key == "agents") {
    const bool ok = v.is_number_unsigned()  ? v.get<std::uint64_t>() >= 2 && v.get<std::uint64_t>() <= max_graph_agents
                    : v.is_number_integer() ? v.get<std::int64_t>() >= 2 &&
                                                  v.get<std::int64_t>() <= static_cast<std::int64_t>(max_graph_agents)
                                            : false;
    return ok ? "" : "expected an integer in 2.." + std::to_string(max_graph_agents) + ", got " + v.dump();
  }
  if (!v.is_number() || !std::isfinite(v.get<double>()) || !(v.get<double>() > 0))
    return "expected a number above 0, got " + v.dump();
  return "";
}

/// Keys a population sweep refuses wherever they appear ([pp], [scenario], the grid), with the
/// reason; "" for any other key. `key` is dotted.
std::string population_misplaced(const std::string& key) {
  const std::string head = key.substr(0, key.find('.'));
  if (head == "nodes") return "the population size is 'agents'";
  if (head == "workload") return "the protocol calls Lock and Unlock itself (no workload keys)";
  if (head == "history_every") return "a sweep stores no history (`lmx pp run --history` gives one point's)";
  if (head == "protocol")
    return "one protocol per sweep, named in [pp] (another protocol is another sweep, of another name; it may "
           "share the store)";
  return "";
}

/// The protocol [pp] names: a file relative to the sweep file, else a shipped protocol. Sets
/// `source` to the protocol's TOML as JSON (what the base hash covers: its content, not its path
/// or formatting).
void load_population_protocol(Population& pop, const fs::path& sweep_file, const std::string& at, json& source) {
  const fs::path candidate = (sweep_file.parent_path() / pop.protocol).lexically_normal();
  std::error_code ec;
  try {
    if (!pop.protocol.empty() && fs::is_regular_file(candidate, ec)) {
      pop.protocol_file = candidate;
      apps::pp::Protocol protocol = apps::pp::protocol_from_toml_file(candidate.string());
      source = sim::scenario_json_from_toml_file(candidate.string());
      // Without a name, a protocol is named after its file's stem; the loader takes it from the
      // path as printed in messages, which a long path shortens.
      if (!source.contains("name")) protocol.name = candidate.stem().string();
      pop.loaded = std::make_shared<const apps::pp::Protocol>(std::move(protocol));
    } else {
      std::string names;
      for (const apps::pp::ShippedProtocol& s : apps::pp::shipped_protocols()) {
        names += (names.empty() ? "" : ", ") + std::string(s.name);
        if (s.name != pop.protocol) continue;
        const std::string text_name = std::string(s.name) + ".toml";
        pop.loaded = std::make_shared<const apps::pp::Protocol>(apps::pp::protocol_from_toml(s.toml, text_name));
        source = sim::scenario_json_from_toml(s.toml, text_name);
      }
      if (!pop.loaded)
        throw SweepError(at + ": '" + sim::printable(pop.protocol) +
                         "' is neither a protocol file (relative to the sweep file) nor a shipped protocol (" + names +
                         ")");
    }
  } catch (const apps::pp::ProtocolError& e) {
    throw SweepError(at + ": " + e.what());
  } catch (const sim::ScenarioError& e) {
    throw SweepError(at + ": " + e.what());
  }
  source["name"] = pop.loaded->name;  // a file's name defaults to its stem
}

/// Reads [pp] into sweep.population and checks what only the whole file shows: the schedulers
/// against the scenario keys and interactions_per_round. The grid and [scenario] are read.
void parse_population(Sweep& sweep, const toml::table& t, const fs::path& file, const std::string& where,
                      json& protocol_source) {
  Population pop;
  for (auto&& [k, v] : t) {
    const std::string key(k.str());
    const std::string at = where + ": pp." + key;
    if (key == "protocol") {
      if (!v.is_string() || v.as_string()->get().empty())
        throw SweepError(at + ": expected a shipped protocol's name or a protocol file (relative to the sweep file)");
      pop.protocol = v.as_string()->get();
      continue;
    }
    if (key == "seed") throw SweepError(at + ": seeds are given by 'seeds'");
    if (const auto why = population_misplaced(key); !why.empty()) throw SweepError(at + ": " + why);
    if (std::find(population_keys.begin(), population_keys.end(), key) == population_keys.end())
      throw SweepError(where + ": pp: unknown key '" + key + "' (expected protocol, " +
                       std::string(population_key_list) + "; scenario keys go in [scenario])");
    const json value = to_json(v, at);
    if (const auto problem = population_value_problem(key, value); !problem.empty())
      throw SweepError(at + ": " + problem +
                       (value.is_array() || value.is_object() ? " (swept values go in [grid])" : ""));
    pop.keys[key] = value;
  }
  if (pop.protocol.empty())
    throw SweepError(where +
                     ": pp: missing 'protocol' (a shipped protocol's name, see `lmx pp list`, or a protocol file)");
  load_population_protocol(pop, file, where + ": pp.protocol", protocol_source);

  // The schedulers the points run, and the scenario keys they get.
  const auto axis_of = [&](std::string_view key) {
    return std::find_if(sweep.axes.begin(), sweep.axes.end(), [&](const Axis& a) { return a.key == key; });
  };
  const auto scheduler_axis = axis_of("scheduler");
  std::vector<json> schedulers;
  if (scheduler_axis != sweep.axes.end())
    schedulers = scheduler_axis->values;
  else
    schedulers.push_back(pop.keys.value("scheduler", json(apps::pp::to_string(apps::pp::SchedulerKind::sequential))));
  std::string scenario_key;  // one of the scenario keys the sweep sets, for messages
  for (const auto& a : sweep.axes)
    if (!is_population_key(a.key)) {
      scenario_key =
          "grid key '" + a.key + "' is a scenario key (every grid key but " + std::string(population_key_list) + " is)";
      break;
    }
  if (scenario_key.empty() && (!sweep.base.empty() || !sweep.base_file.empty()))
    scenario_key = sweep.base_file.empty() ? "[scenario] sets scenario key '" + sweep.base.begin().key() + "'"
                                           : "the sweep has a base scenario";
  const bool sequential = std::find(schedulers.begin(), schedulers.end(),
                                    json(apps::pp::to_string(apps::pp::SchedulerKind::sequential))) != schedulers.end();
  if (sequential && !scenario_key.empty()) {
    const bool swept = scheduler_axis != sweep.axes.end();
    throw SweepError(where + ": " + (swept ? "grid key 'scheduler': " : "") +
                     "the sequential scheduler runs on the complete graph, without a scenario, but " + scenario_key +
                     "; scenario keys need sequential-graph, lock-neighbourhood or lock-pair" +
                     (swept ? " (sweep the sequential scheduler in a sweep of its own)" : ""));
  }
  const bool rate_used =
      std::find(schedulers.begin(), schedulers.end(),
                json(apps::pp::to_string(apps::pp::SchedulerKind::sequential_graph))) != schedulers.end();
  if (!rate_used &&
      (pop.keys.contains("interactions_per_round") || axis_of("interactions_per_round") != sweep.axes.end()))
    throw SweepError(where + ": " +
                     (pop.keys.contains("interactions_per_round") ? std::string("pp.interactions_per_round")
                                                                  : std::string("grid key 'interactions_per_round'")) +
                     ": only the sequential-graph scheduler uses it, and the sweep does not run it");
  sweep.population = std::move(pop);
}

}  // namespace

bool is_population_key(const std::string& key) {
  return std::find(population_keys.begin(), population_keys.end(), key) != population_keys.end();
}

bool is_identifier(const std::string& s) {
  if (s.empty() || s.size() > 64) return false;
  if (!(std::isalpha(static_cast<unsigned char>(s[0])) || s[0] == '_')) return false;
  for (char c : s)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_')) return false;
  std::string lower(s);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  return lower.rfind("sqlite_", 0) != 0;
}

std::size_t Sweep::grid_size() const {
  std::size_t n = 1;
  for (const auto& a : axes) n *= a.values.size();
  return n;
}

std::vector<fs::path> Sweep::inputs() const {
  std::vector<fs::path> files{file};
  if (!base_file.empty()) files.push_back(base_file);
  if (base.contains("topology") && base["topology"].is_object() && base["topology"].contains("file") &&
      base["topology"]["file"].is_string() && !base["topology"]["file"].get<std::string>().empty())
    files.emplace_back(base["topology"]["file"].get<std::string>());
  if (population && !population->protocol_file.empty()) files.push_back(population->protocol_file);
  return files;
}

std::string point_key(const json& grid, std::uint64_t seed) { return json{{"grid", grid}, {"seed", seed}}.dump(); }

std::string describe_grid(const json& grid) {
  std::string s = "{";
  for (auto it = grid.begin(); it != grid.end(); ++it)
    s += (s.size() > 1 ? ", " : "") + it.key() + " = " + it.value().dump();
  return s + "}";
}

std::string Point::describe() const { return describe_grid(grid) + " seed " + std::to_string(seed); }

Sweep load_sweep(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  if (!in) throw SweepError("cannot read sweep file '" + file.string() + "'");
  std::stringstream text;
  text << in.rdbuf();
  return parse_sweep(text.str(), file);
}

Sweep parse_sweep(const std::string& text, const fs::path& file) {
  const std::string where = file.string();
  Sweep sweep;
  sweep.source = where;
  sweep.file = fs::absolute(file).lexically_normal();
  const fs::path dir = sweep.file.parent_path();
  toml::table top;
  try {
    top = toml::parse(text, where);
  } catch (const toml::parse_error& e) {
    const auto& at = e.source().begin;
    throw SweepError(where + ":" + std::to_string(at.line) + ":" + std::to_string(at.column) + ": " +
                     std::string(e.description()));
  }
  for (auto&& [k, v] : top) {
    const std::string key(k.str());
    if (key != "name" && key != "description" && key != "base" && key != "scenario" && key != "seeds" &&
        key != "grid" && key != "pp")
      throw SweepError(where + ": unknown key '" + key +
                       "' (expected name, description, base, scenario, seeds, grid, pp)");
  }
  // A [pp] table makes a population sweep: its keys are checked once the grid is read.
  const toml::table* pp = nullptr;
  if (const auto* p = top.get("pp")) {
    if (!p->is_table()) throw SweepError(where + ": 'pp' must be a table (protocol = \"NAME\", population keys)");
    pp = p->as_table();
  }
  // Where a key belongs that a sweep of the other kind takes: "" when it is in its place.
  const auto misplaced = [pp](const std::string& key) -> std::string {
    if (pp) return population_misplaced(key);
    if (is_population_key(key) || key == "protocol")
      return "a population-protocol key: a population sweep names its protocol in a [pp] table";
    return "";
  };

  const auto* name = top.get("name");
  if (!name) throw SweepError(where + ": missing 'name' (the result table's name)");
  if (!name->is_string()) throw SweepError(where + ": 'name' must be a string");
  sweep.name = name->as_string()->get();
  if (!is_identifier(sweep.name))
    throw SweepError(
        where + ": name '" + sweep.name +
        "' is not an identifier (letters, digits and _, not starting with a digit or sqlite_; at most 64)");
  if (const auto* d = top.get("description")) {
    if (!d->is_string()) throw SweepError(where + ": 'description' must be a string");
    sweep.description = d->as_string()->get();
  }

  if (const auto* b = top.get("base")) {
    if (!b->is_string() || b->as_string()->get().empty())
      throw SweepError(where + ": 'base' must be the path of a scenario file");
    // relative to the sweep file, and named in messages as the user would name it
    sweep.base_file = (file.parent_path() / b->as_string()->get()).lexically_normal();
    try {
      sweep.base = sim::scenario_json_from_toml_file(sweep.base_file.string());
    } catch (const sim::ScenarioError& e) {
      throw SweepError(where + ": base: " + e.what());
    }
    // A population sweep's graph has as many nodes as agents: a base file's `nodes` gives way, as
    // under `lmx pp run --scenario`.
    if (pp) {
      sweep.base.erase("nodes");
      if (sweep.base.contains("workload"))
        throw SweepError(where + ": base: scenario key 'workload': " + population_misplaced("workload"));
    }
  }
  if (const auto* s = top.get("scenario")) {
    if (!s->is_table()) throw SweepError(where + ": 'scenario' must be a table of scenario keys");
    json inline_keys = to_json(*s, where + ": scenario");
    if (inline_keys.contains("seed")) throw SweepError(where + ": scenario.seed: seeds are given by 'seeds'");
    for (auto it = inline_keys.begin(); it != inline_keys.end(); ++it) {
      if (const auto why = misplaced(it.key()); !why.empty())
        throw SweepError(where + ": scenario." + it.key() + ": " + why);
      if (pp && is_population_key(it.key()))
        throw SweepError(where + ": scenario." + it.key() + ": a population key: it belongs in [pp]");
    }
    // An edge-list file named here is found next to the sweep file.
    if (inline_keys.contains("topology") && inline_keys["topology"].is_object() &&
        inline_keys["topology"].contains("file") && inline_keys["topology"]["file"].is_string()) {
      const fs::path f = inline_keys["topology"]["file"].get<std::string>();
      if (f.is_relative() && !f.empty()) inline_keys["topology"]["file"] = (dir / f).lexically_normal().string();
    }
    sweep.base.merge_patch(inline_keys);  // TOML has no null, so this is a deep override
  }
  const auto* seeds = top.get("seeds");
  if (!seeds) throw SweepError(where + ": missing 'seeds' (a count, a list or a range {from, to})");
  sweep.seeds = parse_seeds(*seeds, where + ": seeds");

  if (const auto* g = top.get("grid")) {
    if (!g->is_table()) throw SweepError(where + ": 'grid' must be a table of scenario keys");
    std::vector<Entry> entries;
    collect(*g->as_table(), "", entries);
    std::stable_sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) {
      return a.at.line != b.at.line ? a.at.line < b.at.line : a.at.column < b.at.column;
    });
    std::set<std::string> keys;
    for (const auto& e : entries) {
      const std::string at = where + ": grid key '" + e.key + "'";
      if (e.key == "seed") throw SweepError(at + ": seeds are given by 'seeds'");
      if (const auto why = misplaced(e.key); !why.empty()) throw SweepError(at + ": " + why);
      std::size_t start = 0;
      for (;;) {
        const auto dot = e.key.find('.', start);
        if ((dot == std::string::npos ? e.key.size() : dot) == start) throw SweepError(at + ": empty key part");
        if (dot == std::string::npos) break;
        start = dot + 1;
      }
      if (!keys.insert(e.key).second) throw SweepError(at + ": given twice");
      Axis axis{e.key, {}};
      if (const auto* list = e.node->as_array()) {
        for (auto&& v : *list) axis.values.push_back(to_json(v, at));
        if (axis.values.empty()) throw SweepError(at + ": the list is empty");
        if (axis.values.size() > max_axis_values)
          throw SweepError(at + ": more than " + std::to_string(max_axis_values) + " values");
      } else if (const auto* range = e.node->as_table()) {
        axis.values = range_values(*range, at);
        if (axis.values.empty()) throw SweepError(at + ": the range is empty");
      } else {
        throw SweepError(at + ": expected a list of values or a range {from, to, step}, got " +
                         to_json(*e.node, at).dump() + " (a fixed value belongs in [scenario])");
      }
      std::set<json> seen;
      for (const auto& v : axis.values) {
        if (!seen.insert(v).second) throw SweepError(at + ": value " + v.dump() + " appears twice");
        if (pp && is_population_key(e.key))
          if (const auto problem = population_value_problem(e.key, v); !problem.empty())
            throw SweepError(at + ": " + problem);
      }
      sweep.axes.push_back(std::move(axis));
    }
  }
  json protocol_source;
  if (pp) parse_population(sweep, *pp, file, where, protocol_source);

  // The hash sees edge-list paths relative to the sweep file, so a moved folder keeps its results.
  json hashed = sweep.base;
  if (hashed.contains("topology") && hashed["topology"].is_object() && hashed["topology"].contains("file") &&
      hashed["topology"]["file"].is_string())
    hashed["topology"]["file"] =
        fs::absolute(hashed["topology"]["file"].get<std::string>()).lexically_normal().lexically_relative(dir).string();
  hashed.erase("seed");
  // A population sweep's base is also its protocol (its content) and the population keys of [pp].
  if (sweep.population)
    hashed = {{"scenario", std::move(hashed)}, {"protocol", protocol_source}, {"pp", sweep.population->keys}};
  sweep.base_hash = fnv1a(hashed.dump());

  std::size_t points = sweep.seeds.size();
  for (const auto& a : sweep.axes) {
    points *= a.values.size();  // each factor is at most max_axis_values, so a check per factor suffices
    if (points > max_points) throw SweepError(where + ": more than " + std::to_string(max_points) + " points");
  }
  return sweep;
}

std::vector<Point> expand(const Sweep& sweep) {
  const std::string& where = sweep.source;
  std::vector<Point> points;
  points.reserve(sweep.grid_size() * sweep.seeds.size());
  std::vector<std::size_t> at(sweep.axes.size(), 0);
  for (std::size_t g = 0; g < sweep.grid_size(); ++g) {
    json grid = json::object();
    json scenario = sweep.base;
    for (std::size_t a = 0; a < sweep.axes.size(); ++a) {
      const auto& axis = sweep.axes[a];
      grid[axis.key] = axis.values[at[a]];
    }
    // A population point: the population keys are its run's, the others its graph's scenario.
    json run_keys = sweep.population ? sweep.population->keys : json::object();
    for (std::size_t a = 0; a < sweep.axes.size(); ++a) {
      if (sweep.population && is_population_key(sweep.axes[a].key)) {
        run_keys[sweep.axes[a].key] = grid[sweep.axes[a].key];
        continue;
      }
      json value = grid[sweep.axes[a].key];
      // an edge-list file swept in the grid is found beside the sweep file, as in [scenario]
      if (sweep.axes[a].key == "topology.file" && value.is_string() && !value.get<std::string>().empty() &&
          fs::path(value.get<std::string>()).is_relative())
        value = (sweep.file.parent_path() / value.get<std::string>()).lexically_normal().string();
      try {
        lmx::sim::set_dotted_key(scenario, sweep.axes[a].key, value);
      } catch (const lmx::sim::ScenarioError& e) {
        throw SweepError(where + ": point " + describe_grid(grid) + ": grid key '" + sweep.axes[a].key +
                         "': " + e.what());
      }
    }
    std::optional<PopulationRun> run;
    if (sweep.population) {
      // Every value was checked as the file was read; the defaults are `lmx pp run`'s.
      const apps::pp::RunConfig defaults;
      run.emplace();
      run->protocol = sweep.population->loaded;
      run->scheduler = *apps::pp::scheduler_from_word(run_keys.value("scheduler", "sequential"));
      run->agents = run_keys.value("agents", run->protocol->agents);
      run->max_time = run_keys.value("max_time", defaults.max_time);
      run->interactions_per_round = run_keys.value("interactions_per_round", defaults.interactions_per_round);
      if (run->scheduler != apps::pp::SchedulerKind::sequential) {
        // the graph: as many nodes as agents, and a long run (the stop condition or max_time ends it)
        if (!scenario.contains("rounds")) scenario["rounds"] = defaults.scenario.rounds;
        scenario["nodes"] = run->agents;
      }
    }
    for (const auto seed : sweep.seeds) {
      Point p;
      p.grid = grid;
      p.seed = seed;
      p.key = point_key(grid, seed);
      p.grid_index = g;
      p.population = run;
      scenario["seed"] = seed;
      // the sequential scheduler has no graph (and the sweep no scenario keys: parse_sweep saw to it)
      if (!run || run->scheduler != apps::pp::SchedulerKind::sequential) {
        try {
          p.scenario = sim::scenario_from_json(scenario);
        } catch (const sim::ScenarioError& e) {
          std::string message = e.what();
          // a typo of a population key reads as an unknown scenario key
          if (run && message.size() >= 11 && message.compare(message.size() - 11, 11, "unknown key") == 0)
            message += " (nor a population key: " + std::string(population_key_list) + ")";
          throw SweepError(where + ": point " + p.describe() + ": " + message);
        }
      }
      points.push_back(std::move(p));
    }
    // the next grid point: the last axis varies fastest
    for (std::size_t a = sweep.axes.size(); a-- > 0;) {
      if (++at[a] < sweep.axes[a].values.size()) break;
      at[a] = 0;
    }
  }
  return points;
}

}  // namespace lmx::sweep

namespace lmx::sweep {

apps::pp::RunConfig PopulationRun::config(const sim::Scenario& scenario, std::uint64_t seed,
                                          const std::atomic<bool>* stop) const {
  apps::pp::RunConfig c;
  c.scheduler = scheduler;
  c.agents = agents;
  c.seed = seed;
  if (scheduler != apps::pp::SchedulerKind::sequential) c.scenario = scenario;
  c.max_time = max_time;
  c.history_every = 0;
  c.interactions_per_round = interactions_per_round;
  c.stop = stop;
  return c;
}

}  // namespace lmx::sweep
