// Counterexamples: each violation's path from the initial state, re-found step by step on concrete
// states (so that it works with symmetry reduction), written as an lmx-trace/1 (docs/checker.md,
// "Counterexamples").
#include <algorithm>
#include <cstring>
#include <string>
#include <vector>

#include "exploration.hpp"

namespace lmx::check::detail {

namespace {
Label rename_label(Label l, const Renaming& r) {
  const unsigned u = l.node;
  l.node = r.node[u];
  switch (l.move) {
    case Move::lock: {  // the ports requested (Instance::lock_subsets; 0 otherwise), each renamed
      unsigned requested = 0;
      for (unsigned p = 1; p <= max_delta; ++p)
        if ((l.a >> p) & 1u) requested |= 1u << r.port[u][p];
      l.a = static_cast<std::uint8_t>(requested);
      break;
    }
    case Move::deliver: l.a = r.port[u][l.a]; break;
    case Move::cut: l.a = r.port[u][l.a]; break;
    case Move::connect:
      l.a = r.port[u][l.a];
      l.c = r.port[l.b][l.c];
      l.b = r.node[l.b];
      break;
    default: break;
  }
  return l;
}
}  // namespace

void write_counterexamples(Exploration& x) {
  if (x.pending.empty()) return;
  x.progress(Phase::counterexamples, x.res.lifted_states);
  const Model& model = x.model;
  const std::size_t stride = x.stride;
  const std::vector<Renaming> group = x.symmetry ? model.group() : std::vector<Renaming>{};
  std::vector<std::uint8_t> buf(stride);
  for (const Pending& p : x.pending) {
    std::vector<std::uint32_t> chain;
    for (std::uint32_t s = p.state; s != UINT32_MAX; s = x.parent[s]) chain.push_back(s);
    std::reverse(chain.begin(), chain.end());
    std::vector<Label> path;
    Global cur = x.init;
    for (std::size_t i = 1; i < chain.size(); ++i) {
      bool found = false;
      Global chosen;
      Label chosen_label;
      model.successors(cur, [&](const Label& l, const Global& next, const Outcome&) {
        if (found) return;
        bool twisted = false;
        x.pack(next, buf.data(), twisted);
        if (std::memcmp(buf.data(), x.set.at(chain[i]), stride) == 0) {
          found = true;
          chosen = next;
          chosen_label = l;
        }
      });
      path.push_back(chosen_label);
      cur = chosen;
    }
    std::vector<unsigned> nodes = p.nodes;
    Label label = p.label;
    if (x.symmetry) {
      // The path ends in a member of the orbit of the state the violation was found in: rename
      // the violation's nodes and transition to it.
      std::vector<std::uint8_t> target(stride), mine(stride);
      model.pack(cur, target.data());
      Global r;
      for (const Renaming& g : group) {
        model.rename(p.where, g, r);
        model.pack(r, mine.data());
        if (std::memcmp(mine.data(), target.data(), stride) != 0) continue;
        for (unsigned& u : nodes) u = g.node[u];
        label = rename_label(label, g);
        break;
      }
    }
    if (p.has_label) path.push_back(label);
    const std::string detail = p.detail_names_node ? "node " + std::to_string(nodes.at(0)) + " " + p.detail : p.detail;
    const Property kind = p.signature.kind;
    Violation v{kind, nodes, detail, static_cast<unsigned>(path.size()), {}};
    v.trace = write_trace(model, path, std::string(to_string(kind)), nodes, detail);
    x.res.violations.push_back(std::move(v));
  }
  // By property, as their names sort (Property's order).
  std::stable_sort(x.res.violations.begin(), x.res.violations.end(),
                   [](const Violation& a, const Violation& b) { return a.kind < b.kind; });
}

}  // namespace lmx::check::detail
