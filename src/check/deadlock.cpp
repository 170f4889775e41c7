// Deadlock: a pending operation from which no completion is reachable by node moves (docs/checker.md,
// "Properties and how they are decided").
#include <string>
#include <vector>

#include "analysis.hpp"

namespace lmx::check::detail {

namespace {
/// The nodes of a successor whose completion is reachable, from those of the stored state it was
/// renamed to (`map`: node_map of that renaming).
inline std::uint8_t pull(std::uint8_t good, std::uint8_t map, unsigned nodes) {
  unsigned m = 0;
  for (unsigned v = 0; v < nodes; ++v) m |= ((good >> ((map >> (2 * v)) & 3u)) & 1u) << v;
  return static_cast<std::uint8_t>(m);
}

void report_deadlock(Exploration& x, unsigned u, std::uint32_t s) {
  Global at;
  x.model.unpack(x.set.at(s), at);
  const auto stays_in = at.n[u].s.state;
  const std::string where(core::to_string(stays_in));
  x.report(Pending{{Property::deadlock, static_cast<std::uint8_t>(stays_in)},
                   "stays in " + where + ": no completion is reachable by node actions alone",
                   {u},
                   s,
                   false,
                   {},
                   at,
                   true});
}
}  // namespace

void find_deadlocks(Exploration& x, AnalysisLog& log) {
  const Graph& gr = x.graph;
  const std::size_t n = x.set.size();
  const unsigned nodes = x.inst.nodes;
  AnalysisRecord& record = log.record;
  x.progress(Phase::deadlock);
  if (record.deadlock_done) {
    x.res.deadlock_sweeps = record.deadlock_sweeps;
    for (auto [u, s] : record.deadlocks) report_deadlock(x, u, s);
    return;
  }
  // Which completions are reachable, for all nodes at once: good[s] holds the nodes a completion
  // of which is reachable from s by node moves, the least solution of good[s] = (nodes completing
  // at s) | good[t] for every target t of s. Under symmetry reduction an edge leads to a renamed
  // successor, and the set is renamed back along it (pull). The solution is found by sweeps over
  // the graph, last state first (successors are mostly found after their state, breadth first),
  // until no set grows. Each sweep but the last grows some set, and a set grows at most N times,
  // so there are at most n * N + 1 sweeps; each edge to an earlier state on a path to a
  // completion can cost one, and in practice a handful suffice. Sweeping forward needs no
  // reverse graph, which would take as much memory as the graph's targets.
  std::vector<std::uint8_t> good(n, 0);
  for (std::size_t s = 0; s < n; ++s)
    for (std::uint64_t a = gr.state_begin[s]; a < gr.state_begin[s + 1]; ++a)
      if (gr.flags[a] & flag_completes) good[s] = static_cast<std::uint8_t>(good[s] | 1u << ((gr.flags[a] >> 3) & 3u));
  const auto all_nodes = static_cast<std::uint8_t>((1u << nodes) - 1);
  bool swept = true;  // false: stopped by the time limit, and the sets are not complete
  for (bool grew = true; grew;) {
    if (x.out_of_time()) {
      swept = false;
      break;
    }
    grew = false;
    ++x.res.deadlock_sweeps;
    for (std::size_t s = n; s-- > 0;) {
      std::uint8_t reach = good[s];
      if (reach != all_nodes)
        gr.each_target(s, [&](const Graph::Target& t) {
          reach |= x.symmetry ? pull(good[t.to], t.nodes, nodes) : good[t.to];
          return reach != all_nodes;
        });
      if (reach != good[s]) good[s] = reach, grew = true;
    }
  }
  // Deadlock: a pending operation of u from which no completion of u is reachable by node moves.
  for (unsigned u = 0; u < nodes && swept; ++u)
    for (std::size_t s = 0; s < n; ++s) {
      const core::InitiatorState st = x.model.packed_state(x.set.at(s), u);
      if (((good[s] >> u) & 1u) != 0 || st == core::InitiatorState::idle || st == core::InitiatorState::locked)
        continue;
      report_deadlock(x, u, static_cast<std::uint32_t>(s));
    }
  if (swept && log.keep) {  // what was reported (a resumed run has found nothing before)
    record.deadlock_done = true;
    record.deadlock_sweeps = x.res.deadlock_sweeps;
    for (const Pending& p : x.pending) record.deadlocks.emplace_back(p.nodes.at(0), p.state);
    log.save(x);
  }
}

}  // namespace lmx::check::detail
