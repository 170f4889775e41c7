// Scenario input: TOML and `--set` overrides are first turned into JSON, then one validator checks
// keys, types and ranges and builds the Scenario.
#include "lmx/sim/scenario.hpp"

#include <toml++/toml.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

namespace lmx::sim {

using nlohmann::json;

namespace {

json from_toml(const toml::node& n) {
  if (auto t = n.as_table()) {
    json o = json::object();
    for (auto&& [k, v] : *t) o[std::string(k.str())] = from_toml(v);
    return o;
  }
  if (auto a = n.as_array()) {
    json arr = json::array();
    for (auto&& v : *a) arr.push_back(from_toml(v));
    return arr;
  }
  if (auto v = n.as_integer()) return v->get();
  if (auto v = n.as_floating_point()) return v->get();
  if (auto v = n.as_boolean()) return v->get();
  if (auto v = n.as_string()) return v->get();
  throw ScenarioError("unsupported TOML value (dates and times are not scenario values)");
}

// Reads object `j` strictly: each get() removes the key; finish() rejects what is left.
class Reader {
 public:
  Reader(const json& j, std::string path) : path_(std::move(path)) {
    if (!j.is_object()) throw ScenarioError(where("") + "must be a table");
    for (auto it = j.begin(); it != j.end(); ++it) left_.insert(it.key());
    j_ = &j;
  }
  [[nodiscard]] std::string where(const std::string& key) const {
    return "scenario key '" + (path_.empty() ? key : key.empty() ? path_ : path_ + "." + key) + "': ";
  }
  const json* find(const std::string& key) {
    left_.erase(key);
    auto it = j_->find(key);
    return it == j_->end() ? nullptr : &*it;
  }
  template <class T>
  void get(const std::string& key, T& out) {
    const json* v = find(key);
    if (!v) return;
    if constexpr (std::is_same_v<T, std::string>) {
      if (!v->is_string()) throw ScenarioError(where(key) + "expected a string, got " + v->dump());
      out = v->get<std::string>();
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!v->is_number()) throw ScenarioError(where(key) + "expected a number, got " + v->dump());
      out = v->get<T>();
    } else {
      if (!v->is_number_integer()) throw ScenarioError(where(key) + "expected an integer, got " + v->dump());
      if (v->is_number_unsigned()) {
        const auto x = v->get<std::uint64_t>();
        if (x > std::numeric_limits<T>::max()) throw ScenarioError(where(key) + "value " + v->dump() + " is too large");
        out = static_cast<T>(x);
      } else {
        const auto x = v->get<std::int64_t>();
        if (x < 0) throw ScenarioError(where(key) + "must not be negative, got " + v->dump());
        if (static_cast<std::uint64_t>(x) > std::numeric_limits<T>::max())
          throw ScenarioError(where(key) + "value " + v->dump() + " is too large");
        out = static_cast<T>(x);
      }
    }
  }
  void one_of(const std::string& key, std::string& out, std::initializer_list<const char*> allowed) {
    get(key, out);
    std::string list;
    for (const char* a : allowed) {
      if (out == a) return;
      list += list.empty() ? a : std::string(", ") + a;
    }
    throw ScenarioError(where(key) + "unknown value '" + out + "' (expected one of: " + list + ")");
  }
  void range(const std::string& key, double value, double lo, double hi) const {
    if (!(value >= lo && value <= hi))
      throw ScenarioError(where(key) + "value " + json(value).dump() + " outside " + json(lo).dump() + ".." +
                          json(hi).dump());
  }
  void finish() const {
    if (!left_.empty()) throw ScenarioError(where(*left_.begin()) + "unknown key");
  }

 private:
  const json* j_ = nullptr;
  std::string path_;
  std::set<std::string> left_;
};

Reader section(Reader& top, const std::string& key, const json& empty) {
  const json* v = top.find(key);
  return Reader(v ? *v : empty, key);
}

}  // namespace

json Scenario::to_json() const {
  json edge_list = json::array();
  for (auto [u, v] : topology.edges) edge_list.push_back({u, v});
  return {{"name", name},
          {"nodes", nodes},
          {"delta", delta},
          {"k", k},
          {"variant", std::string(core::to_string(variant))},
          {"engine", engine},
          {"seed", seed},
          {"rounds", rounds},
          {"horizon", horizon},
          {"activation", {{"kind", activation.kind}, {"p", activation.p}}},
          {"delivery", {{"kind", delivery.kind}, {"target", delivery.target}, {"patience", delivery.patience}}},
          {"topology",
           {{"kind", topology.kind},
            {"file", topology.file},
            {"edges", edge_list},
            {"degree", topology.degree},
            {"width", topology.width},
            {"radius", topology.radius},
            {"speed", topology.speed}}},
          {"dynamics",
           {{"kind", dynamics.kind},
            {"birth", dynamics.birth},
            {"death", dynamics.death},
            {"target", dynamics.target},
            {"bound", dynamics.bound},
            {"batch", dynamics.batch}}},
          {"workload",
           {{"kind", workload.kind},
            {"participation", workload.participation},
            {"idle", workload.idle},
            {"hold", workload.hold},
            {"locks", workload.locks}}}};
}

Scenario scenario_from_json(const json& j) {
  Scenario s;
  const json empty = json::object();
  Reader top(j, "");
  top.get("name", s.name);
  top.get("nodes", s.nodes);
  top.get("delta", s.delta);
  top.get("k", s.k);
  std::string variant(core::to_string(s.variant));
  top.get("variant", variant);
  if (!core::parse_variant(variant, s.variant))
    throw ScenarioError(top.where("variant") + "unknown variant '" + variant + "' (expected paper or repaired)");
  top.one_of("engine", s.engine, {"semi-sync", "async"});
  top.get("seed", s.seed);
  top.get("rounds", s.rounds);
  top.get("horizon", s.horizon);
  if (s.nodes < 1 || s.nodes > 100'000'000u) throw ScenarioError(top.where("nodes") + "must be in 1..100000000");
  if (s.delta < 1 || s.delta > 63)
    throw ScenarioError(top.where("delta") + "Delta must be in 1..63, got " + std::to_string(s.delta));
  if (s.k < core::k_min || s.k > core::k_max)
    throw ScenarioError(top.where("k") + "K must be in 2..32, got " + std::to_string(s.k));
  if (s.rounds < 1 || s.rounds > 4'000'000u) throw ScenarioError(top.where("rounds") + "must be in 1..4000000");
  if (s.engine == "async" && s.rounds > 2'000'000u)
    throw ScenarioError(top.where("rounds") + "must be in 1..2000000 for the async engine");

  auto act = section(top, "activation", empty);
  act.one_of("kind", s.activation.kind, {"random", "sequential", "synchronous"});
  act.get("p", s.activation.p);
  act.range("p", s.activation.p, 1e-6, 1.0);
  act.finish();

  auto del = section(top, "delivery", empty);
  del.one_of("kind", s.delivery.kind, {"random", "oldest", "delay-target"});
  del.get("target", s.delivery.target);
  del.get("patience", s.delivery.patience);
  if (s.delivery.target >= s.nodes) throw ScenarioError(del.where("target") + "no such node");
  // Message ages are kept modulo 2^16 ticks (1024 ticks per round for the async engine).
  const unsigned max_patience = s.engine == "async" ? 60 : 60000;
  if (s.delivery.patience < 1 || s.delivery.patience > max_patience)
    throw ScenarioError(del.where("patience") + "must be in 1.." + std::to_string(max_patience) + " for the " +
                        s.engine + " engine");
  del.finish();

  auto topo = section(top, "topology", empty);
  topo.one_of("kind", s.topology.kind, {"edges", "ring", "grid", "regular", "unit-disk", "mobility"});
  topo.get("file", s.topology.file);
  if (const json* e = topo.find("edges")) {
    if (!e->is_array()) throw ScenarioError(topo.where("edges") + "expected an array of [u, v] pairs");
    for (const auto& pair : *e) {
      auto node_number = [](const json& x) {
        return x.is_number_integer() && x.get<std::int64_t>() >= 0 && x.get<std::int64_t>() <= 0xFFFFFFFFll;
      };
      if (!pair.is_array() || pair.size() != 2 || !node_number(pair[0]) || !node_number(pair[1]))
        throw ScenarioError(topo.where("edges") + "expected [u, v] pairs of node numbers, got " + pair.dump());
      s.topology.edges.emplace_back(static_cast<NodeId>(pair[0].get<std::int64_t>()),
                                    static_cast<NodeId>(pair[1].get<std::int64_t>()));
    }
  }
  topo.get("degree", s.topology.degree);
  topo.get("width", s.topology.width);
  topo.get("radius", s.topology.radius);
  topo.get("speed", s.topology.speed);
  topo.range("radius", s.topology.radius, 0.0, 1.5);
  topo.range("speed", s.topology.speed, 0.0, 1.0);
  if (s.topology.degree > s.delta)
    throw ScenarioError(topo.where("degree") + "degree " + std::to_string(s.topology.degree) +
                        " breaks the Delta cap " + std::to_string(s.delta));
  if (s.topology.kind == "edges" && s.topology.file.empty() && s.topology.edges.empty() && s.nodes > 1)
    throw ScenarioError(topo.where("file") + "kind 'edges' needs 'file' or 'edges'");
  topo.finish();

  auto dyn = section(top, "dynamics", empty);
  dyn.one_of("kind", s.dynamics.kind, {"static", "churn", "starve", "flap", "swizzle"});
  dyn.get("birth", s.dynamics.birth);
  dyn.get("death", s.dynamics.death);
  dyn.get("target", s.dynamics.target);
  dyn.get("bound", s.dynamics.bound);
  dyn.get("batch", s.dynamics.batch);
  dyn.range("birth", s.dynamics.birth, 0.0, 1.0);
  dyn.range("death", s.dynamics.death, 0.0, 1.0);
  if (s.dynamics.target >= s.nodes) throw ScenarioError(dyn.where("target") + "no such node");
  if (s.dynamics.bound < 1 || s.dynamics.bound > 1'000'000u)
    throw ScenarioError(dyn.where("bound") + "must be in 1..1000000");
  dyn.finish();

  auto wl = section(top, "workload", empty);
  wl.one_of("kind", s.workload.kind, {"auto", "manual"});
  wl.get("participation", s.workload.participation);
  wl.get("idle", s.workload.idle);
  wl.get("hold", s.workload.hold);
  wl.get("locks", s.workload.locks);
  wl.range("participation", s.workload.participation, 0.0, 1.0);
  wl.range("idle", s.workload.idle, 0.0, 1e6);
  wl.range("hold", s.workload.hold, 0.0, 1e6);
  wl.finish();

  top.finish();
  return s;
}

json scenario_json_from_toml_file(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw ScenarioError("cannot read scenario file '" + path + "'");
  std::stringstream text;
  text << in.rdbuf();
  try {
    const toml::table t = toml::parse(text.str(), path);
    json j = from_toml(t);
    // An edge-list file named relative to the scenario is found next to it.
    if (j.contains("topology") && j["topology"].is_object() && j["topology"].contains("file") &&
        j["topology"]["file"].is_string()) {
      const std::filesystem::path file = j["topology"]["file"].get<std::string>();
      if (file.is_relative() && !file.empty())
        j["topology"]["file"] = (std::filesystem::path(path).parent_path() / file).lexically_normal().string();
    }
    return j;
  } catch (const toml::parse_error& e) {
    const auto& where = e.source().begin;
    throw ScenarioError(path + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) + ": " +
                        std::string(e.description()));
  }
}

void apply_override(json& j, const std::string& assignment) {
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) throw ScenarioError("--set '" + assignment + "': expected key=value");
  const std::string key = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  json value;
  try {
    const toml::table t = toml::parse("v = " + text);
    value = from_toml(*t.get("v"));
  } catch (const toml::parse_error&) {
    value = text;  // a bare word such as `paper` or `semi-sync` is a string
  }
  json* at = &j;
  std::size_t start = 0;
  for (;;) {
    const auto dot = key.find('.', start);
    const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (part.empty()) throw ScenarioError("--set '" + assignment + "': empty key part");
    if (!at->is_object()) throw ScenarioError("--set '" + assignment + "': '" + part + "' is not inside a table");
    if (dot == std::string::npos) {
      (*at)[part] = value;
      return;
    }
    at = &(*at)[part];
    if (at->is_null()) *at = json::object();
    start = dot + 1;
  }
}

}  // namespace lmx::sim
