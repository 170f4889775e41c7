// Protocol files (docs/population.md, "Protocol files"): TOML read into JSON, then validated key by
// key with one error line per problem, naming the file, the key and what is wrong.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <filesystem>
#include <numeric>
#include <set>

#include "lmx/apps/population.hpp"
#include "lmx/sim/scenario.hpp"

namespace lmx::apps::pp {

using nlohmann::json;

namespace {

/// A state name: letters, digits and _ - . +, at most 32 characters (they head CSV columns).
bool valid_state_name(std::string_view s) {
  if (s.empty() || s.size() > 32) return false;
  return std::all_of(s.begin(), s.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || c == '.' || c == '+';
  });
}

std::string trim(std::string_view s) {
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.front()))) s.remove_prefix(1);
  while (!s.empty() && std::isspace(static_cast<unsigned char>(s.back()))) s.remove_suffix(1);
  return std::string(s);
}

std::string in_quotes(std::string_view s) { return "'" + sim::printable(s, 60) + "'"; }

/// "A, B" -> the two states, or an error naming the rule.
std::pair<AgentState, AgentState> pair_of(const Protocol& p, std::string_view text, const std::string& where,
                                          const std::string& rule) {
  const auto comma = text.find(',');
  if (comma == std::string_view::npos)
    throw ProtocolError(where + ": expected two states separated by a comma in " + in_quotes(rule));
  const std::string a = trim(text.substr(0, comma)), b = trim(text.substr(comma + 1));
  const auto sa = p.state(a), sb = p.state(b);
  if (!sa) throw ProtocolError(where + ": unknown state " + in_quotes(a) + " in " + in_quotes(rule));
  if (!sb) throw ProtocolError(where + ": unknown state " + in_quotes(b) + " in " + in_quotes(rule));
  return {*sa, *sb};
}

StopCondition parse_stop(const Protocol& p, const std::string& text, const std::string& where) {
  StopCondition c;
  c.text = text;
  const std::string t = trim(text);
  if (t == "silent") return c.kind = StopCondition::Kind::silent, c;
  if (t == "consensus") return c.kind = StopCondition::Kind::consensus, c;
  if (t == "never") return c.kind = StopCondition::Kind::never, c;
  // count(S) OP N
  const std::string bad = where +
                          ": expected 'silent', 'consensus', 'never' or 'count(STATE) OP N' (OP one of "
                          "== != < <= > >=), got " +
                          in_quotes(text);
  if (t.rfind("count(", 0) != 0) throw ProtocolError(bad);
  const auto close = t.find(')');
  if (close == std::string::npos) throw ProtocolError(bad);
  const std::string name = trim(std::string_view(t).substr(6, close - 6));
  const auto s = p.state(name);
  if (!s) throw ProtocolError(where + ": unknown state " + in_quotes(name) + " in " + in_quotes(text));
  c.kind = StopCondition::Kind::count, c.state = *s;
  std::string rest = trim(std::string_view(t).substr(close + 1));
  static const std::pair<std::string_view, StopCondition::Compare> ops[] = {
      {"==", StopCondition::Compare::eq}, {"!=", StopCondition::Compare::ne}, {"<=", StopCondition::Compare::le},
      {">=", StopCondition::Compare::ge}, {"<", StopCondition::Compare::lt},  {">", StopCondition::Compare::gt}};
  bool found = false;
  for (auto [op, cmp] : ops)
    if (rest.rfind(op, 0) == 0) {
      c.compare = cmp, rest = trim(std::string_view(rest).substr(op.size())), found = true;
      break;
    }
  if (!found || rest.empty() || rest.size() > 19 ||
      !std::all_of(rest.begin(), rest.end(), [](char ch) { return std::isdigit(static_cast<unsigned char>(ch)); }))
    throw ProtocolError(bad);
  c.value = std::stoull(rest);
  return c;
}

}  // namespace

std::optional<AgentState> Protocol::state(std::string_view n) const {
  for (std::size_t i = 0; i < states.size(); ++i)
    if (states[i] == n) return static_cast<AgentState>(i);
  return std::nullopt;
}

bool Protocol::changes(AgentState a, AgentState b) const {
  for (const Outcome& o : outcomes(a, b))
    if (o.initiator != a || o.responder != b) return true;
  return false;
}

void Protocol::add_rule(AgentState a, AgentState b, Outcome o, const std::string& where) {
  if (rules_.size() != states.size() * states.size()) rules_.assign(states.size() * states.size(), {});
  if (!(o.probability > 0 && o.probability <= 1))
    throw ProtocolError(where + ": a probability must be in (0, 1], got " + json(o.probability).dump());
  auto& list = rules_[static_cast<std::size_t>(a) * states.size() + b];
  for (const Outcome& e : list)
    if (e.initiator == o.initiator && e.responder == o.responder)
      throw ProtocolError(where + ": duplicate rule for the pair (" + states[a] + ", " + states[b] + ") -> (" +
                          states[o.initiator] + ", " + states[o.responder] + ")");
  if (!list.empty() && (o.probability == 1 || list.front().probability == 1))
    throw ProtocolError(where + ": duplicate rule: the pair (" + states[a] + ", " + states[b] +
                        ") already has a rule; give every outcome of a randomised pair a probability (@ p)");
  list.push_back(o);
}

void Protocol::finish(const std::string& where) {
  const std::size_t s = states.size();
  if (s == 0 || s > max_states)
    throw ProtocolError(where + ": key 'states': between 1 and " + std::to_string(max_states) + " states, got " +
                        std::to_string(s));
  if (rules_.size() != s * s) rules_.assign(s * s, {});
  if (outputs.empty()) outputs = states;
  if (outputs.size() != s) throw ProtocolError(where + ": the output map must give every state an output");
  if (initial.size() != s) initial.assign(s, 0);
  table_.assign(s * s, 0);
  for (std::size_t a = 0; a < s; ++a)
    for (std::size_t b = 0; b < s; ++b) {
      auto& list = rules_[a * s + b];
      const double sum = std::accumulate(list.begin(), list.end(), 0.0,
                                         [](double acc, const Outcome& o) { return acc + o.probability; });
      if (!list.empty() && std::abs(sum - 1) > 1e-9)
        throw ProtocolError(where + ": the outcomes of the pair (" + states[a] + ", " + states[b] +
                            ") have probabilities summing to " + json(sum).dump() + ", not 1");
      if (list.size() == 1 && list[0].initiator == a && list[0].responder == b) list.clear();  // a null rule
      if (list.empty())
        table_[a * s + b] = static_cast<std::uint32_t>(a | (b << 8));
      else if (list.size() == 1)
        table_[a * s + b] = static_cast<std::uint32_t>(list[0].initiator | (list[0].responder << 8));
      else
        table_[a * s + b] = randomised;
    }
  if (agents < 2) throw ProtocolError(where + ": key 'agents': a population needs at least 2 agents");
  double total = 0;
  for (double v : initial) {
    if (!(v >= 0) || !std::isfinite(v)) throw ProtocolError(where + ": key 'initial': amounts must be finite and >= 0");
    total += v;
  }
  if (total <= 0) throw ProtocolError(where + ": key 'initial': no agent in any state");
  if (!initial_counts && std::abs(total - 1) > 1e-9)
    throw ProtocolError(where + ": key 'initial': fractions sum to " + json(total).dump() +
                        ", not 1 (give counts as integers, or fractions summing to 1)");
  if (stop.kind == StopCondition::Kind::count && stop.state >= s)
    throw ProtocolError(where + ": key 'stop': unknown state");
}

std::vector<std::uint64_t> Protocol::initial_counts_for(std::uint64_t n) const {
  const double total = std::accumulate(initial.begin(), initial.end(), 0.0);
  std::vector<std::uint64_t> counts(states.size(), 0);
  std::vector<std::pair<double, std::size_t>> remainders;
  std::uint64_t given = 0;
  for (std::size_t i = 0; i < states.size(); ++i) {
    const double exact = initial[i] / total * double(n);
    counts[i] = static_cast<std::uint64_t>(std::floor(exact));
    given += counts[i];
    remainders.emplace_back(exact - std::floor(exact), i);
  }
  // Largest remainder first; ties to the lower state, so that the result does not depend on sorting.
  std::stable_sort(remainders.begin(), remainders.end(), [](auto& x, auto& y) { return x.first > y.first; });
  for (std::size_t i = 0; given < n && i < remainders.size(); ++i, ++given) ++counts[remainders[i].second];
  // A state given a positive amount keeps at least one agent (one infected agent among 1000 stays
  // one among 16), taken from the largest count.
  for (std::size_t i = 0; i < states.size(); ++i)
    if (initial[i] > 0 && counts[i] == 0) {
      auto largest = std::max_element(counts.begin(), counts.end());
      if (*largest > 1) --*largest, ++counts[i];
    }
  return counts;
}

Protocol Protocol::from_function(
    std::string name, std::vector<std::string> state_names,
    const std::function<std::pair<AgentState, AgentState>(AgentState, AgentState)>& delta) {
  Protocol p;
  p.name = std::move(name);
  p.states = std::move(state_names);
  const std::string where = "protocol '" + p.name + "'";
  if (p.states.empty() || p.states.size() > max_states)
    throw ProtocolError(where + ": between 1 and " + std::to_string(max_states) + " states");
  const auto s = static_cast<unsigned>(p.states.size());
  for (unsigned a = 0; a < s; ++a)
    for (unsigned b = 0; b < s; ++b) {
      const auto [c, d] = delta(static_cast<AgentState>(a), static_cast<AgentState>(b));
      if (c >= s || d >= s)
        throw ProtocolError(where + ": the transition function maps (" + std::to_string(a) + ", " + std::to_string(b) +
                            ") outside the states");
      if (c != a || d != b) p.add_rule(static_cast<AgentState>(a), static_cast<AgentState>(b), {c, d, 1}, where);
    }
  p.initial.assign(s, 1.0 / s);
  p.finish(where);
  return p;
}

Protocol averaging(unsigned levels) {
  if (levels < 2 || levels > max_states) throw ProtocolError("averaging: levels must be in 2..256");
  std::vector<std::string> names;
  for (unsigned i = 0; i < levels; ++i) names.push_back("v" + std::to_string(i));
  Protocol p = Protocol::from_function("averaging-" + std::to_string(levels), names, [](AgentState a, AgentState b) {
    const unsigned lo = (a + b) / 2, hi = (a + b + 1) / 2;
    return a <= b ? std::pair{static_cast<AgentState>(lo), static_cast<AgentState>(hi)}
                  : std::pair{static_cast<AgentState>(hi), static_cast<AgentState>(lo)};
  });
  p.description = "discrete averaging: the sum is kept, and the values end within 1 of each other";
  return p;
}

Protocol protocol_from_json(const json& j, const std::string& where) {
  if (!j.is_object()) throw ProtocolError(where + ": a protocol is a table of keys");
  static const std::set<std::string> known = {"name",      "description", "states", "agents", "initial",
                                              "symmetric", "group",       "rules",  "output", "stop"};
  for (const auto& [key, value] : j.items())
    if (!known.count(key))
      throw ProtocolError(
          where + ": unknown key " + in_quotes(key) +
          " (known: name, description, states, agents, initial, symmetric, group, rules, output, stop)");
  Protocol p;
  auto str = [&](const char* key, std::string fallback) {
    if (!j.contains(key)) return fallback;
    if (!j[key].is_string()) throw ProtocolError(where + ": key '" + key + "' must be a string");
    const auto text = j[key].get<std::string>();
    if (!sim::valid_utf8(text)) throw ProtocolError(where + ": key '" + key + "' is not valid UTF-8");
    return text;
  };
  p.name = str("name", std::filesystem::path(where).stem().string());
  if (p.name.empty() || p.name.size() > 100) throw ProtocolError(where + ": key 'name': 1 to 100 characters");
  p.description = str("description", "");

  if (!j.contains("states")) throw ProtocolError(where + ": key 'states' is missing (the list of state names)");
  const json& st = j["states"];
  if (!st.is_array() || st.empty() || st.size() > max_states)
    throw ProtocolError(where + ": key 'states' must be a list of 1 to " + std::to_string(max_states) + " state names");
  for (const json& s : st) {
    if (!s.is_string() || !valid_state_name(s.get<std::string>()))
      throw ProtocolError(where + ": key 'states': " + (s.is_string() ? in_quotes(s.get<std::string>()) : s.dump()) +
                          " is not a state name (1 to 32 letters, digits, _ - . +)");
    if (p.state(s.get<std::string>()))
      throw ProtocolError(where + ": key 'states': duplicate state " + in_quotes(s.get<std::string>()));
    p.states.push_back(s.get<std::string>());
  }

  if (j.contains("symmetric")) {
    if (!j["symmetric"].is_boolean()) throw ProtocolError(where + ": key 'symmetric' must be true or false");
    p.symmetric = j["symmetric"].get<bool>();
  }

  if (j.contains("group")) {
    const json& g = j["group"];
    if (g == "one")
      p.group = GroupRule::one;
    else if (g == "each")
      p.group = GroupRule::each;
    else
      throw ProtocolError(where +
                          ": key 'group' must be \"one\" (one locked neighbour) or \"each\" (every locked "
                          "neighbour, lock-neighbourhood only), got " +
                          sim::printable(g.dump()));
  }

  // initial: counts (integers) or fractions summing to 1.
  p.initial.assign(p.states.size(), 0);
  if (!j.contains("initial")) throw ProtocolError(where + ": key 'initial' is missing (state = count or fraction)");
  if (!j["initial"].is_object() || j["initial"].empty())
    throw ProtocolError(where + ": key 'initial' must be a table of state = count or fraction");
  bool all_integers = true;
  double total = 0;
  for (const auto& [name, amount] : j["initial"].items()) {
    const auto s = p.state(name);
    if (!s) throw ProtocolError(where + ": key 'initial': unknown state " + in_quotes(name));
    if (!amount.is_number() || !(amount.get<double>() >= 0) || !std::isfinite(amount.get<double>()))
      throw ProtocolError(where + ": key 'initial." + sim::printable(name) + "' must be a number >= 0");
    if (!amount.is_number_integer()) all_integers = false;
    p.initial[*s] = amount.get<double>();
    total += p.initial[*s];
  }
  p.initial_counts = all_integers && total > 1;
  if (p.initial_counts) p.agents = static_cast<std::uint64_t>(total);
  if (j.contains("agents")) {
    const json& a = j["agents"];
    if (!a.is_number_integer() || a.get<std::int64_t>() < 2 || a.get<std::int64_t>() > (std::int64_t{1} << 40))
      throw ProtocolError(where + ": key 'agents' must be an integer in 2..2^40");
    p.agents = a.get<std::uint64_t>();
  }

  // rules
  if (!j.contains("rules")) throw ProtocolError(where + ": key 'rules' is missing (a list of \"A, B -> C, D\")");
  if (!j["rules"].is_array()) throw ProtocolError(where + ": key 'rules' must be a list of \"A, B -> C, D\" strings");
  std::set<std::pair<AgentState, AgentState>> written;  // the pairs the file gives, for the symmetric check
  for (std::size_t i = 0; i < j["rules"].size(); ++i) {
    const json& r = j["rules"][i];
    const std::string at = where + ": rules[" + std::to_string(i) + "]";
    if (!r.is_string()) throw ProtocolError(at + ": a rule is a string \"A, B -> C, D\" (optionally \"@ p\")");
    const std::string rule = r.get<std::string>();
    const auto arrow = rule.find("->");
    if (arrow == std::string::npos) throw ProtocolError(at + ": expected \"A, B -> C, D\", got " + in_quotes(rule));
    std::string right = rule.substr(arrow + 2);
    double probability = 1;
    if (const auto atsign = right.find('@'); atsign != std::string::npos) {
      const std::string ptext = trim(std::string_view(right).substr(atsign + 1));
      right = right.substr(0, atsign);
      std::size_t used = 0;
      try {
        probability = std::stod(ptext, &used);
      } catch (const std::exception&) {
        used = 0;
      }
      if (used == 0 || used != ptext.size())
        throw ProtocolError(at + ": the probability after @ must be a number, got " + in_quotes(ptext));
    }
    const auto [a, b] = pair_of(p, std::string_view(rule).substr(0, arrow), at, rule);
    const auto [c, d] = pair_of(p, right, at, rule);
    p.add_rule(a, b, {c, d, probability}, at);
    written.insert({a, b});
  }
  if (p.symmetric) {
    // B, A -> D, C for every rule A, B -> C, D whose mirror the file does not give itself; a mirror
    // given with other outcomes contradicts the switch.
    const auto s = static_cast<unsigned>(p.states.size());
    std::vector<std::vector<Outcome>> given(s * s);
    for (unsigned a = 0; a < s; ++a)
      for (unsigned b = 0; b < s; ++b) given[a * s + b] = p.outcomes(AgentState(a), AgentState(b));
    for (unsigned a = 0; a < s; ++a)
      for (unsigned b = 0; b < s; ++b) {
        if (a == b || !written.count({AgentState(a), AgentState(b)})) continue;
        const auto& mine = given[a * s + b];
        if (written.count({AgentState(b), AgentState(a)})) {
          const auto& theirs = given[b * s + a];
          bool same = mine.size() == theirs.size();
          for (const Outcome& o : mine)
            same = same && std::any_of(theirs.begin(), theirs.end(), [&](const Outcome& t) {
                     return t.initiator == o.responder && t.responder == o.initiator &&
                            std::abs(t.probability - o.probability) < 1e-12;
                   });
          if (!same)
            throw ProtocolError(where + ": key 'symmetric': the rules for (" + p.states[a] + ", " + p.states[b] +
                                ") and (" + p.states[b] + ", " + p.states[a] + ") are not mirror images");
          continue;
        }
        for (const Outcome& o : mine)
          p.add_rule(AgentState(b), AgentState(a), {o.responder, o.initiator, o.probability}, where + ": symmetric");
      }
  }

  if (j.contains("output")) {
    if (!j["output"].is_object()) throw ProtocolError(where + ": key 'output' must be a table of state = output");
    p.outputs = p.states;
    for (const auto& [name, out] : j["output"].items()) {
      const auto s = p.state(name);
      if (!s) throw ProtocolError(where + ": key 'output': unknown state " + in_quotes(name));
      if (!out.is_string() || out.get<std::string>().empty() || out.get<std::string>().size() > 32 ||
          !sim::valid_utf8(out.get<std::string>()))
        throw ProtocolError(where + ": key 'output." + sim::printable(name) +
                            "' must be a string of 1 to 32 characters");
      p.outputs[*s] = out.get<std::string>();
    }
  }
  p.stop = parse_stop(p, str("stop", "silent"), where + ": key 'stop'");
  p.finish(where);
  return p;
}

Protocol protocol_from_toml_file(const std::string& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    throw ProtocolError(sim::printable(path) + (std::filesystem::is_directory(path, ec)
                                                    ? ": a directory, not a protocol file"
                                                    : ": no such protocol file"));
  try {
    json j = sim::scenario_json_from_toml_file(path);
    // The default name is the file's stem, from the path itself (messages show a shortened one).
    if (j.is_object() && !j.contains("name")) j["name"] = std::filesystem::path(path).stem().string();
    return protocol_from_json(j, sim::printable(path));
  } catch (const sim::ScenarioError& e) {
    throw ProtocolError(e.what());
  }
}

Protocol protocol_from_toml(std::string_view text, const std::string& where) {
  try {
    return protocol_from_json(sim::scenario_json_from_toml(text, where), where);
  } catch (const sim::ScenarioError& e) {
    throw ProtocolError(e.what());
  }
}

Protocol load_protocol(const std::string& name_or_path) {
  std::error_code ec;
  if (std::filesystem::exists(name_or_path, ec)) return protocol_from_toml_file(name_or_path);
  for (const ShippedProtocol& s : shipped_protocols())
    if (s.name == name_or_path) return protocol_from_toml(s.toml, std::string(s.name) + ".toml");
  std::string names;
  for (const ShippedProtocol& s : shipped_protocols()) names += (names.empty() ? "" : ", ") + std::string(s.name);
  throw ProtocolError(sim::printable(name_or_path) +
                      ": no such protocol file, nor a shipped protocol (shipped: " + names + ")");
}

json Protocol::to_json() const {
  json rules = json::array();
  const auto s = static_cast<unsigned>(states.size());
  for (unsigned a = 0; a < s; ++a)
    for (unsigned b = 0; b < s; ++b)
      for (const Outcome& o : outcomes(AgentState(a), AgentState(b))) {
        std::string text = states[a] + ", " + states[b] + " -> " + states[o.initiator] + ", " + states[o.responder];
        if (o.probability != 1) text += " @ " + json(o.probability).dump();
        rules.push_back(text);
      }
  // Counts as integers: read back, an amount written 30.0 is a fraction (and the file invalid).
  json init = json::object();
  for (unsigned i = 0; i < s; ++i)
    if (initial[i] > 0)
      init[states[i]] = initial_counts ? json(static_cast<std::uint64_t>(initial[i])) : json(initial[i]);
  json out = json::object();
  for (unsigned i = 0; i < s; ++i) out[states[i]] = outputs[i];
  return {{"name", name},     {"group", group == GroupRule::each ? "each" : "one"},
          {"states", states}, {"agents", agents},
          {"initial", init},  {"rules", rules},
          {"output", out},    {"stop", stop.text}};
}

}  // namespace lmx::apps::pp
