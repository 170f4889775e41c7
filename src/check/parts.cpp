// The analysis part by part (docs/checker.md, "Parts"). Node moves change neither the topology nor
// the topology moves left, and renaming keeps both up to isomorphism, so the states with the same
// moves left and the same sorted degrees form a part that no node move leaves: every end component,
// every rebuilt concrete state and every decision lies in one part, and the largest part, not the
// whole graph, sets the memory of the analysis. Each part's states keep their order, so each part
// decides what the whole graph would, and what is found is reported in the order one decision of
// the whole graph would report it.
#include <algorithm>
#include <array>
#include <map>
#include <stdexcept>
#include <string>

#include "analysis.hpp"

namespace lmx::check::detail {

namespace {
/// What no node move changes and every renaming keeps: the topology moves left and the nodes'
/// degrees, sorted (the states with the same key form a part of the analysis).
std::uint32_t part_key(const Global& g, const Instance& inst) {
  std::array<unsigned, max_nodes> degree{};
  for (unsigned u = 0; u < inst.nodes; ++u)
    for (unsigned p = 0; p < inst.delta; ++p) degree[u] += g.n[u].link[p] != no_link;
  std::sort(degree.begin(), degree.end());  // the nodes past inst.nodes have degree 0 in every state
  std::uint32_t key = g.changes_left;
  for (unsigned d : degree) key = key << 2 | d;  // degrees up to max_delta = 3
  return key;
}
}  // namespace

Parts split_into_parts(Exploration& x, AnalysisLog& log) {
  const std::size_t n = x.set.size();
  Parts parts;
  parts.part_of.assign(n, 0);
  if (x.opt.split_parts) {
    std::map<std::uint32_t, unsigned> part_id;  // numbered in order of first appearance
    Global at;
    for (std::size_t s = 0; s < n && part_id.size() <= UINT8_MAX; ++s) {
      x.model.unpack(x.set.at(s), at);
      parts.part_of[s] = static_cast<std::uint8_t>(
          part_id.emplace(part_key(at, x.inst), static_cast<unsigned>(part_id.size())).first->second);
    }
    parts.count = part_id.size() <= UINT8_MAX ? static_cast<unsigned>(part_id.size()) : 1;  // too many: one part
  }
  if (parts.count == 1) release(parts.part_of);
  x.res.analysis_parts = parts.count;
  AnalysisRecord& record = log.record;
  if (!record.parts_done.empty() && record.parts != parts.count)
    throw std::runtime_error("check: the analysis recorded in " + log.path + " has " + std::to_string(record.parts) +
                             " parts, this run " + std::to_string(parts.count));
  record.parts = parts.count;
  parts.done.assign(parts.count, false);
  for (const auto& entry : record.parts_done)
    if (entry.first < parts.count) parts.done[entry.first] = true;
  if (parts.count == 1) return parts;
  x.progress(Phase::splitting);
  const auto& part_of = parts.part_of;
  std::vector<std::uint32_t> local(n);  // a state's number in its part
  {
    std::vector<std::uint32_t> count(parts.count, 0);
    for (std::size_t s = 0; s < n; ++s) local[s] = count[part_of[s]]++;
  }
  parts.graphs.resize(parts.count);
  for (Graph& pg : parts.graphs) {
    pg.k = x.inst.k;
    if (x.symmetry) pg.keep_renamings(x.inst.nodes);
    if (x.opt.graph_on_disk) pg.keep_in_files();
  }
  for (std::size_t s = 0; s < n; ++s)
    if (!parts.done[part_of[s]])
      parts.graphs[part_of[s]].copy_state(x.graph, s, [&](std::uint32_t t) {
        if (part_of[t] != part_of[s]) throw std::logic_error("check: a node move leaves its part");
        return local[t];
      });
  for (Graph& pg : parts.graphs) {
    pg.finish();
    pg.shrink();  // its files were grown by doubling: the disk is needed for the rebuilt graphs
  }
  x.graph = Graph{};
  return parts;
}

}  // namespace lmx::check::detail
