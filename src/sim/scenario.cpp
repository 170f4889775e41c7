// Scenario input: TOML and `--set` overrides are first turned into JSON, then one validator checks
// keys, types and ranges and builds the Scenario.
#include "lmx/sim/scenario.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>

#include "lmx/sim/toml_json.hpp"

namespace lmx::sim {

using nlohmann::json;

namespace {

/// Decodes the UTF-8 sequence at text[i] and advances i past it; nullopt (advancing one byte) for
/// a byte that does not start a well-formed sequence.
std::optional<char32_t> next_code_point(std::string_view text, std::size_t& i) {
  const auto c = static_cast<unsigned char>(text[i]);
  if (c < 0x80) return ++i, char32_t{c};
  unsigned length = 0;
  char32_t cp = 0, least = 0;
  if ((c & 0xE0) == 0xC0) length = 2, cp = c & 0x1Fu, least = 0x80;
  if ((c & 0xF0) == 0xE0) length = 3, cp = c & 0x0Fu, least = 0x800;
  if ((c & 0xF8) == 0xF0) length = 4, cp = c & 0x07u, least = 0x10000;
  if (length == 0 || i + length > text.size()) return ++i, std::nullopt;
  for (unsigned k = 1; k < length; ++k) {
    const auto d = static_cast<unsigned char>(text[i + k]);
    if ((d & 0xC0) != 0x80) return ++i, std::nullopt;
    cp = (cp << 6) | (d & 0x3Fu);
  }
  if (cp < least || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return ++i, std::nullopt;
  i += length;
  return cp;
}

/// C0 and C1 controls, DEL, and the characters that reorder text on a terminal (bidirectional
/// embeddings, overrides, isolates and marks): a name holding one can disguise the line it is on.
bool disturbs_terminal(char32_t cp) {
  return cp < 0x20 || (cp >= 0x7F && cp <= 0x9F) || cp == 0x061C || cp == 0x200E || cp == 0x200F ||
         (cp >= 0x202A && cp <= 0x202E) || (cp >= 0x2066 && cp <= 0x2069);
}

std::string hex_escape(const char* prefix, unsigned value, int digits) {
  static constexpr char hex[] = "0123456789abcdef";
  std::string out = prefix;
  for (int d = digits - 1; d >= 0; --d) out += hex[(value >> (4 * d)) & 0xFu];
  return out;
}

/// A number as the user would write it: nan and inf by name (JSON would say null).
std::string number_text(double x) {
  if (std::isnan(x)) return "nan";
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  return json(x).dump();
}

/// A JSON value for an error message: one line, printable, not too long.
std::string shown(const json& v) {
  if (v.is_string()) return "\"" + printable(v.get_ref<const std::string&>()) + "\"";
  if (v.is_number_float()) return number_text(v.get<double>());
  return printable(v.dump(-1, ' ', false, json::error_handler_t::replace));
}

/// The location of a TOML value, "FILE:LINE:COL" (or the --set text).
std::string toml_where(const toml::node& n, const std::string& context) {
  const auto& at = n.source().begin;
  if (!n.source().path || at.line == 0) return context;
  return printable(*n.source().path) + ":" + std::to_string(at.line) + ":" + std::to_string(at.column);
}

json from_toml(const toml::node& n, const std::string& context) {
  return json_from_toml(n, [&](const toml::node& date) {
    throw ScenarioError(toml_where(date, context) + ": dates and times are not scenario values");
  });
}

// Reads object `j` strictly: each get() removes the key; finish() rejects what is left.
class Reader {
 public:
  Reader(const json& j, std::string path) : path_(std::move(path)) {
    if (!j.is_object()) throw ScenarioError(where("") + "must be a table");
    for (auto it = j.begin(); it != j.end(); ++it) left_.insert(it.key());
    j_ = &j;
  }
  [[nodiscard]] const std::string& name() const { return path_; }
  [[nodiscard]] std::string where(const std::string& key) const {
    return "scenario key '" + printable(path_.empty() ? key : key.empty() ? path_ : path_ + "." + key) + "': ";
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
      if (!v->is_string()) throw ScenarioError(where(key) + "expected a string, got " + shown(*v));
      const auto& text = v->get_ref<const std::string&>();
      // Scenario strings end up in summaries and trace headers (JSON, which is UTF-8).
      if (!valid_utf8(text)) throw ScenarioError(where(key) + "not valid UTF-8: \"" + printable(text) + "\"");
      out = text;
    } else if constexpr (std::is_floating_point_v<T>) {
      if (!v->is_number()) throw ScenarioError(where(key) + "expected a number, got " + shown(*v));
      out = v->get<T>();
      if (!std::isfinite(out)) throw ScenarioError(where(key) + "expected a finite number, got " + shown(*v));
    } else {
      if (!v->is_number_integer()) throw ScenarioError(where(key) + "expected an integer, got " + shown(*v));
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
  /// A seed: an integer 0..2^63-1 (TOML's integers are signed 64-bit), or a string of decimal
  /// digits for any seed up to 2^64-1.
  void get_seed(const std::string& key, std::uint64_t& out) {
    const json* v = find(key);
    if (!v) return;
    const std::string what = where(key).substr(0, where(key).size() - 2);
    if (v->is_string()) {
      out = parse_seed(v->get_ref<const std::string&>(), what);
    } else if (v->is_number_unsigned()) {
      out = v->get<std::uint64_t>();
    } else if (v->is_number_integer()) {
      if (v->get<std::int64_t>() < 0)
        throw ScenarioError(what + ": expected a whole number in 0..18446744073709551615, got " + v->dump() +
                            " (seeds are not negative)");
      out = static_cast<std::uint64_t>(v->get<std::int64_t>());
    } else {
      throw ScenarioError(what + ": expected a whole number in 0..18446744073709551615, got " + shown(*v));
    }
  }
  /// A kind, given as one of its words.
  template <class Kind>
  void kind(const std::string& key, Kind& out) {
    std::string text(word(out));
    get(key, text);
    if (const auto k = kind_from_word<Kind>(text)) {
      out = *k;
      return;
    }
    std::string list;
    for (std::string_view w : KindWords<Kind>::words) list += (list.empty() ? "" : ", ") + std::string(w);
    throw ScenarioError(where(key) + "unknown value '" + printable(text) + "' (expected one of: " + list + ")");
  }
  void range(const std::string& key, double value, double lo, double hi) const {
    if (!(value >= lo && value <= hi))
      throw ScenarioError(where(key) + "value " + number_text(value) + " outside " + number_text(lo) + ".." +
                          number_text(hi));
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
          {"engine", word(engine)},
          {"seed", seed},
          {"rounds", rounds},
          {"horizon", horizon},
          {"activation", {{"kind", word(activation.kind)}, {"p", activation.p}}},
          {"delivery", {{"kind", word(delivery.kind)}, {"target", delivery.target}, {"patience", delivery.patience}}},
          {"topology",
           {{"kind", word(topology.kind)},
            {"file", topology.file},
            {"edges", edge_list},
            {"degree", topology.degree},
            {"width", topology.width},
            {"radius", topology.radius},
            {"speed", topology.speed}}},
          {"dynamics",
           {{"kind", word(dynamics.kind)},
            {"birth", dynamics.birth},
            {"death", dynamics.death},
            {"target", dynamics.target},
            {"bound", dynamics.bound},
            {"batch", dynamics.batch}}},
          {"workload",
           {{"kind", word(workload.kind)},
            {"participation", workload.participation},
            {"idle", workload.idle},
            {"hold", workload.hold},
            {"locks", workload.locks}}}};
}

namespace {

/// Rejects a value that the chosen kind would ignore: a key set to something else than its default
/// for a kind that never reads it is a mistake the run would not show.
template <class Kind>
void reject_unused(const Reader& r, const std::string& key, bool non_default, Kind chosen,
                   std::initializer_list<Kind> readers) {
  for (const Kind k : readers)
    if (chosen == k) return;
  if (!non_default) return;
  std::string list;
  std::size_t i = 0;
  for (const Kind k : readers) list += (i++ == 0 ? "" : i == readers.size() ? " and " : ", ") + std::string(word(k));
  throw ScenarioError(r.where(key) + r.name() + " kind '" + std::string(word(chosen)) + "' does not use it (only " +
                      list + (readers.size() == 1 ? " does" : " do") + "): remove the key or change " + r.name() +
                      ".kind");
}

void check_name(const Reader& r, const std::string& name) {
  std::size_t i = 0, length = 0;
  while (i < name.size()) {
    const std::size_t at = i;
    const auto cp = next_code_point(name, i);
    if (cp && disturbs_terminal(*cp))
      throw ScenarioError(r.where("name") + "holds the control character " +
                          printable(std::string_view(name).substr(at, i - at)) +
                          " (a name is printed on terminals; use visible characters)");
    ++length;
  }
  if (length > max_name_length)
    throw ScenarioError(r.where("name") + "is " + std::to_string(length) + " characters long, at most " +
                        std::to_string(max_name_length));
}

}  // namespace

Scenario scenario_from_json(const json& j) {
  Scenario s;
  const Scenario defaults;
  const json empty = json::object();
  Reader top(j, "");
  top.get("name", s.name);
  check_name(top, s.name);
  top.get("nodes", s.nodes);
  top.get("delta", s.delta);
  top.get("k", s.k);
  std::string variant(core::to_string(s.variant));
  top.get("variant", variant);
  if (!core::parse_variant(variant, s.variant))
    throw ScenarioError(top.where("variant") + "unknown variant '" + printable(variant) +
                        "' (expected paper, repaired or fast)");
  top.kind("engine", s.engine);
  top.get_seed("seed", s.seed);
  top.get("rounds", s.rounds);
  top.get("horizon", s.horizon);
  if (s.nodes < 1 || s.nodes > 100'000'000u) throw ScenarioError(top.where("nodes") + "must be in 1..100000000");
  if (s.delta < 1 || s.delta > 63)
    throw ScenarioError(top.where("delta") + "Delta must be in 1..63, got " + std::to_string(s.delta));
  if (s.k < core::k_min || s.k > core::k_max)
    throw ScenarioError(top.where("k") + "K must be in 2..32, got " + std::to_string(s.k));
  if (s.rounds < 1 || s.rounds > 4'000'000u) throw ScenarioError(top.where("rounds") + "must be in 1..4000000");
  if (s.engine == EngineKind::async && s.rounds > 2'000'000u)
    throw ScenarioError(top.where("rounds") + "must be in 1..2000000 for the async engine");

  auto act = section(top, "activation", empty);
  act.kind("kind", s.activation.kind);
  act.get("p", s.activation.p);
  act.range("p", s.activation.p, 1e-6, 1.0);
  // The asynchronous engine has its own executions (docs/simulator.md): an activation set for it
  // would be ignored, so it is a mistake to say.
  if (s.engine == EngineKind::async)
    for (const auto& [key, set] : {std::pair{"kind", s.activation.kind != defaults.activation.kind},
                                   std::pair{"p", s.activation.p != defaults.activation.p}})
      if (set)
        throw ScenarioError(act.where(key) +
                            "the async engine does not use it (its executions follow their own timing, "
                            "docs/simulator.md): remove the key or set engine = \"semi-sync\"");
  reject_unused(act, "p", s.activation.p != defaults.activation.p, s.activation.kind, {ActivationKind::random});
  act.finish();

  auto del = section(top, "delivery", empty);
  del.kind("kind", s.delivery.kind);
  del.get("target", s.delivery.target);
  del.get("patience", s.delivery.patience);
  if (s.delivery.target >= s.nodes) throw ScenarioError(del.where("target") + "no such node");
  // Message ages are kept modulo 2^16 ticks (1024 ticks per round for the async engine).
  const unsigned max_patience = s.engine == EngineKind::async ? 60 : 60000;
  if (s.delivery.patience < 1 || s.delivery.patience > max_patience)
    throw ScenarioError(del.where("patience") + "must be in 1.." + std::to_string(max_patience) + " for the " +
                        std::string(word(s.engine)) + " engine");
  reject_unused(del, "target", s.delivery.target != defaults.delivery.target, s.delivery.kind,
                {DeliveryKind::delay_target});
  reject_unused(del, "patience", s.delivery.patience != defaults.delivery.patience, s.delivery.kind,
                {DeliveryKind::delay_target});
  del.finish();

  auto topo = section(top, "topology", empty);
  topo.kind("kind", s.topology.kind);
  topo.get("file", s.topology.file);
  if (s.topology.file.find('\0') != std::string::npos)
    throw ScenarioError(topo.where("file") + "a file name holds no NUL byte");
  if (const json* e = topo.find("edges")) {
    if (!e->is_array()) throw ScenarioError(topo.where("edges") + "expected an array of [u, v] pairs");
    std::set<std::pair<NodeId, NodeId>> seen;
    for (std::size_t i = 0; i < e->size(); ++i) {
      const json& pair = (*e)[i];
      auto node_number = [](const json& x) {
        return x.is_number_integer() && (x.is_number_unsigned() || x.get<std::int64_t>() >= 0) &&
               x.get<std::uint64_t>() <= 0xFFFFFFFFull;
      };
      const std::string which = "edge " + std::to_string(i + 1) + " ";
      if (!pair.is_array() || pair.size() != 2 || !node_number(pair[0]) || !node_number(pair[1]))
        throw ScenarioError(topo.where("edges") + which + "is not a [u, v] pair of node numbers: " + shown(pair));
      const auto u = static_cast<NodeId>(pair[0].get<std::uint64_t>());
      const auto v = static_cast<NodeId>(pair[1].get<std::uint64_t>());
      if (u >= s.nodes || v >= s.nodes)
        throw ScenarioError(topo.where("edges") + which + shown(pair) + " names a node outside 0.." +
                            std::to_string(s.nodes - 1));
      if (u == v) throw ScenarioError(topo.where("edges") + which + "is a self-loop at node " + std::to_string(u));
      if (!seen.insert({std::min(u, v), std::max(u, v)}).second)
        throw ScenarioError(topo.where("edges") + which + shown(pair) + " repeats an earlier edge");
      s.topology.edges.emplace_back(u, v);
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
  if (s.topology.kind == TopologyKind::edges && s.topology.file.empty() && s.topology.edges.empty() && s.nodes > 1)
    throw ScenarioError(topo.where("file") + "kind 'edges' needs 'file' or 'edges'");
  const TopologyKind topology_kind = s.topology.kind;
  reject_unused(topo, "file", !s.topology.file.empty(), topology_kind, {TopologyKind::edges});
  reject_unused(topo, "edges", !s.topology.edges.empty(), topology_kind, {TopologyKind::edges});
  reject_unused(topo, "degree", s.topology.degree != defaults.topology.degree, topology_kind, {TopologyKind::regular});
  reject_unused(topo, "width", s.topology.width != defaults.topology.width, topology_kind, {TopologyKind::grid});
  reject_unused(topo, "radius", s.topology.radius != defaults.topology.radius, topology_kind,
                {TopologyKind::unit_disk, TopologyKind::mobility});
  reject_unused(topo, "speed", s.topology.speed != defaults.topology.speed, topology_kind, {TopologyKind::mobility});
  // Without a radius, the default's mean degree n·π·r² (about 6.4 at 1000 nodes) is kept at every
  // n: a fixed radius would grow the degree, and the work, with n. The default speed scales with the
  // default radius, so that a node crosses its neighbourhood in as many rounds at every n.
  if (topology_kind == TopologyKind::unit_disk || topology_kind == TopologyKind::mobility) {
    const double scale = std::sqrt(double(Scenario::radius_reference_nodes) / double(std::max<NodeId>(s.nodes, 1)));
    if (!topo.find("radius")) s.topology.radius = std::min(1.5, defaults.topology.radius * scale);
    if (!topo.find("speed") && topology_kind == TopologyKind::mobility)
      s.topology.speed = std::min(1.0, defaults.topology.speed * scale);
  }
  topo.finish();

  auto dyn = section(top, "dynamics", empty);
  dyn.kind("kind", s.dynamics.kind);
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
  const DynamicsKind dynamics_kind = s.dynamics.kind;
  reject_unused(dyn, "birth", s.dynamics.birth != defaults.dynamics.birth, dynamics_kind, {DynamicsKind::churn});
  reject_unused(dyn, "death", s.dynamics.death != defaults.dynamics.death, dynamics_kind, {DynamicsKind::churn});
  reject_unused(dyn, "target", s.dynamics.target != defaults.dynamics.target, dynamics_kind, {DynamicsKind::starve});
  reject_unused(dyn, "bound", s.dynamics.bound != defaults.dynamics.bound, dynamics_kind,
                {DynamicsKind::starve, DynamicsKind::flap});
  reject_unused(dyn, "batch", s.dynamics.batch != defaults.dynamics.batch, dynamics_kind,
                {DynamicsKind::flap, DynamicsKind::swizzle});
  dyn.finish();

  auto wl = section(top, "workload", empty);
  wl.kind("kind", s.workload.kind);
  wl.get("participation", s.workload.participation);
  wl.get("idle", s.workload.idle);
  wl.get("hold", s.workload.hold);
  wl.get("locks", s.workload.locks);
  wl.range("participation", s.workload.participation, 0.0, 1.0);
  wl.range("idle", s.workload.idle, 0.0, 1e6);
  wl.range("hold", s.workload.hold, 0.0, 1e6);
  reject_unused(wl, "participation", s.workload.participation != defaults.workload.participation, s.workload.kind,
                {WorkloadKind::automatic});
  reject_unused(wl, "idle", s.workload.idle != defaults.workload.idle, s.workload.kind, {WorkloadKind::automatic});
  reject_unused(wl, "hold", s.workload.hold != defaults.workload.hold, s.workload.kind, {WorkloadKind::automatic});
  reject_unused(wl, "locks", s.workload.locks != defaults.workload.locks, s.workload.kind, {WorkloadKind::automatic});
  wl.finish();

  top.finish();
  return s;
}

namespace {
/// Scenario files are small; this bound keeps a device or a huge file from being read whole.
constexpr std::size_t max_scenario_bytes = 1 << 20;
}  // namespace

json json_from_toml(const toml::node& value, const std::function<void(const toml::node&)>& on_date) {
  if (auto t = value.as_table()) {
    json o = json::object();
    for (auto&& [k, v] : *t) o[std::string(k.str())] = json_from_toml(v, on_date);
    return o;
  }
  if (auto a = value.as_array()) {
    json arr = json::array();
    for (auto&& v : *a) arr.push_back(json_from_toml(v, on_date));
    return arr;
  }
  if (auto v = value.as_integer()) return v->get();
  if (auto v = value.as_floating_point()) return v->get();
  if (auto v = value.as_boolean()) return v->get();
  if (auto v = value.as_string()) return v->get();
  on_date(value);
  throw std::logic_error("json_from_toml: on_date returned");  // it must throw
}

json scenario_json_from_toml_file(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw ScenarioError("scenario file '" + printable(path) + "' is a directory");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw ScenarioError("cannot read scenario file '" + printable(path) + "': " + std::strerror(errno));
  std::string text(max_scenario_bytes + 1, '\0');
  in.read(text.data(), static_cast<std::streamsize>(text.size()));
  if (in.bad()) throw ScenarioError("cannot read scenario file '" + printable(path) + "'");
  text.resize(static_cast<std::size_t>(in.gcount()));
  if (text.size() > max_scenario_bytes)
    throw ScenarioError("scenario file '" + printable(path) + "' is larger than 1 MiB: not a scenario");
  return scenario_json_from_toml(text, path);
}

json scenario_json_from_toml(std::string_view text, const std::string& path) {
  try {
    const toml::table t = toml::parse(text, path);
    json j = from_toml(t, path);
    // An edge-list file named relative to the scenario is found next to it.
    if (j.contains("topology") && j["topology"].is_object() && j["topology"].contains("file") &&
        j["topology"]["file"].is_string()) {
      const std::filesystem::path file = j["topology"]["file"].get<std::string>();
      if (file.is_relative() && !file.empty())
        j["topology"]["file"] = (std::filesystem::path(path).parent_path() / file).lexically_normal().string();
    }
    return j;
  } catch (const toml::parse_error& e) {
    // toml++ says "Error while parsing <what>: <why>"; keep the what and the why, in one line.
    std::string_view said = e.description();
    constexpr std::string_view lead = "Error while parsing ";
    std::string what;
    if (said.substr(0, lead.size()) == lead) {
      said.remove_prefix(lead.size());
      const auto colon = said.find(": ");
      if (colon != std::string_view::npos)
        what = " (" + std::string(said.substr(0, colon)) + ")", said.remove_prefix(colon + 2);
    }
    const auto& where = e.source().begin;
    throw ScenarioError(printable(path) + ":" + std::to_string(where.line) + ":" + std::to_string(where.column) +
                        ": not valid TOML" + printable(what) + ": " + printable(said, 200));
  }
}

void apply_override(json& j, const std::string& assignment) {
  const std::string shown_assignment = "--set '" + printable(assignment) + "'";
  const auto eq = assignment.find('=');
  if (eq == std::string::npos || eq == 0) throw ScenarioError(shown_assignment + ": expected key=value");
  const std::string key = assignment.substr(0, eq);
  const std::string text = assignment.substr(eq + 1);
  json value;
  try {
    const toml::table t = toml::parse("v = " + text);
    const toml::node* v = t.get("v");
    // "a = 1\nb" and the like parse as more than one value: the text was not one TOML value.
    if (v == nullptr || t.size() != 1) throw ScenarioError(shown_assignment + ": the value is not one TOML value");
    value = from_toml(*v, shown_assignment);
  } catch (const toml::parse_error&) {
    value = text;  // a bare word such as `paper` or `semi-sync` is a string
  }
  try {
    set_dotted_key(j, key, value);
  } catch (const ScenarioError& e) {
    throw ScenarioError(shown_assignment + ": " + e.what());
  }
}

void set_dotted_key(json& j, const std::string& key, const json& value) {
  json* at = &j;
  std::size_t start = 0;
  for (;;) {
    const auto dot = key.find('.', start);
    const std::string part = key.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (part.empty()) throw ScenarioError("empty key part");
    if (!at->is_object()) throw ScenarioError("'" + printable(key.substr(0, start - 1)) + "' is not a table");
    if (dot == std::string::npos) {
      (*at)[part] = value;
      return;
    }
    at = &(*at)[part];
    if (at->is_null()) *at = json::object();
    start = dot + 1;
  }
}

std::uint64_t parse_seed(std::string_view text, std::string_view what) {
  const std::string lead = std::string(what) + ": ";
  constexpr std::string_view range = "0..18446744073709551615";
  const bool digits = !text.empty() && text.find_first_not_of("0123456789") == std::string_view::npos;
  if (!digits) {
    const bool negative =
        text.size() > 1 && text[0] == '-' && text.find_first_not_of("0123456789", 1) == std::string_view::npos;
    throw ScenarioError(lead + "expected a whole number in " + std::string(range) + ", got '" + printable(text) + "'" +
                        (negative ? " (seeds are not negative)" : ""));
  }
  std::uint64_t seed = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), seed);
  if (ec != std::errc{} || end != text.data() + text.size())
    throw ScenarioError(lead + "seed " + printable(text) + " is too large (seeds are " + std::string(range) + ")");
  return seed;
}

bool valid_utf8(std::string_view text) {
  for (std::size_t i = 0; i < text.size();)
    if (!next_code_point(text, i)) return false;
  return true;
}

std::string printable(std::string_view text, std::size_t max) {
  std::string out;
  std::size_t i = 0, shown_chars = 0;
  while (i < text.size()) {
    if (shown_chars == max) return out + "...";
    const std::size_t at = i;
    const auto cp = next_code_point(text, i);
    ++shown_chars;
    if (!cp) {
      out += hex_escape("\\x", static_cast<unsigned char>(text[at]), 2);
    } else if (*cp == '\n') {
      out += "\\n";
    } else if (*cp == '\t') {
      out += "\\t";
    } else if (*cp == '\r') {
      out += "\\r";
    } else if (*cp < 0x80 && disturbs_terminal(*cp)) {
      out += hex_escape("\\x", static_cast<unsigned>(*cp), 2);
    } else if (disturbs_terminal(*cp)) {
      out += hex_escape("\\u", static_cast<unsigned>(*cp), 4);
    } else {
      out.append(text.substr(at, i - at));
    }
  }
  return out;
}

}  // namespace lmx::sim
