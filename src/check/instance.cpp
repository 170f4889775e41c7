// An instance of the checker and the names of its results: parsing --edges, validating, describing
// (docs/checker.md).
#include <algorithm>
#include <charconv>
#include <string>

#include "lmx/check/checker.hpp"

namespace lmx::check {

namespace {
/// `text` in quotes, printable: a control or non-ASCII byte as \xNN, so that an error quoting the
/// user's input stays one line.
std::string printable(const std::string& text) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out = "'";
  for (unsigned char c : text) {
    if (c >= 0x20 && c < 0x7f && c != '\\') {
      out += static_cast<char>(c);
      continue;
    }
    out += "\\x";
    out += digits[c >> 4];
    out += digits[c & 15];
  }
  return out + "'";
}
}  // namespace

std::string parse_edges(const std::string& text, std::vector<std::pair<unsigned, unsigned>>& out) {
  out.clear();
  if (text.empty()) return {};  // no edges
  for (std::size_t start = 0, index = 1;; ++index) {
    const std::size_t comma = text.find(',', start);
    const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    if (item.empty())
      return "--edges: item " + std::to_string(index) + " is empty (edges are U-V, separated by commas; '' for none)";
    const std::size_t dash = item.find('-');
    unsigned u = 0, v = 0;
    auto number = [&](std::size_t from, std::size_t to, unsigned& n) {
      const char* first = item.data() + from;
      const char* last = item.data() + to;
      const auto [end, ec] = std::from_chars(first, last, n);
      return first != last && *first >= '0' && *first <= '9' && ec == std::errc{} && end == last;
    };
    if (dash == std::string::npos || !number(0, dash, u) || !number(dash + 1, item.size(), v))
      return "--edges: item " + printable(item) +
             " is not of the form U-V (two node numbers, digits only, joined by '-')";
    if (u == v) return "--edges: item " + printable(item) + " joins node " + std::to_string(u) + " to itself";
    out.emplace_back(u, v);
    if (comma == std::string::npos) return {};
    start = comma + 1;
  }
}

std::string validate(const Instance& inst) {
  auto range = [](const char* flag, unsigned value, unsigned low, unsigned high) {
    return std::string(flag) + " must be " + std::to_string(low) + ".." + std::to_string(high) + ", not " +
           std::to_string(value);
  };
  if (inst.nodes < 1 || inst.nodes > max_nodes) return range("--nodes", inst.nodes, 1, max_nodes);
  if (inst.delta < 1 || inst.delta > max_delta) return range("--delta", inst.delta, 1, max_delta);
  if (inst.k < core::k_min || inst.k > core::k_max) return range("--k", inst.k, core::k_min, core::k_max);
  if (inst.locks > 15) return "--locks must be 1..15 or unbounded, not " + std::to_string(inst.locks);
  if (inst.max_changes > 15) return range("--max-changes", inst.max_changes, 0, 15);
  std::vector<unsigned> degree(inst.nodes, 0);
  for (std::size_t i = 0; i < inst.edges.size(); ++i) {
    auto [u, v] = inst.edges[i];
    const std::string item = "--edges: item '" + std::to_string(u) + "-" + std::to_string(v) + "'";
    if (u == v) return item + " joins node " + std::to_string(u) + " to itself";
    if (u >= inst.nodes || v >= inst.nodes)
      return item + " names node " + std::to_string(std::max(u, v)) + ", but the nodes are 0.." +
             std::to_string(inst.nodes - 1);
    for (std::size_t j = 0; j < i; ++j)
      if ((inst.edges[j].first == u && inst.edges[j].second == v) ||
          (inst.edges[j].first == v && inst.edges[j].second == u))
        return item + " repeats the edge " + std::to_string(inst.edges[j].first) + "-" +
               std::to_string(inst.edges[j].second);
    for (unsigned w : {u, v})
      if (++degree[w] > inst.delta)
        return item + " gives node " + std::to_string(w) + " " + std::to_string(degree[w]) +
               " neighbours, more than --delta " + std::to_string(inst.delta);
  }
  return {};
}

std::string describe(const Instance& inst) {
  std::string e;
  for (auto [u, v] : inst.edges) e += (e.empty() ? "" : ",") + std::to_string(u) + "-" + std::to_string(v);
  return std::string(core::to_string(inst.variant)) + " nodes=" + std::to_string(inst.nodes) +
         " edges=" + (e.empty() ? "none" : e) + " delta=" + std::to_string(inst.delta) +
         " k=" + std::to_string(inst.k) +
         " locks=" + (inst.locks == unbounded_locks ? std::string("unbounded") : std::to_string(inst.locks)) +
         " changes=" + std::to_string(inst.max_changes) + (inst.lock_subsets ? " lock-subsets" : "");
}

std::string_view to_string(Phase p) {
  switch (p) {
    case Phase::exploring: return "exploring";
    case Phase::deadlock: return "deadlock";
    case Phase::splitting: return "splitting";
    case Phase::end_components: return "end components";
    case Phase::rebuilding: return "rebuilding";
    case Phase::deciding: return "deciding";
    case Phase::counterexamples: return "counterexamples";
  }
  return "?";
}

std::string_view to_string(Verdict v) {
  switch (v) {
    case Verdict::pass: return "pass";
    case Verdict::fail: return "fail";
    case Verdict::incomplete: return "incomplete";
  }
  return "?";
}

std::string_view to_string(Limit l) {
  switch (l) {
    case Limit::none: return "";
    case Limit::states: return "states";
    case Limit::seconds: return "seconds";
    case Limit::saved: return "saved";
    case Limit::interrupted: return "interrupted";
  }
  return "?";
}

std::string_view to_string(Property p) {
  switch (p) {
    case Property::P1: return "P1";
    case Property::P2: return "P2";
    case Property::P3: return "P3";
    case Property::P4: return "P4";
    case Property::P7: return "P7";
    case Property::deadlock: return "deadlock";
    case Property::internal: return "internal";
  }
  return "?";
}

}  // namespace lmx::check
