// The breadth-first exploration (docs/checker.md, "The model explored" and Performance).
#include <algorithm>
#include <cstdint>
#include <ctime>
#include <vector>

#include "exploration.hpp"

namespace lmx::check::detail {

namespace {
/// A transition's own problem (P3, internal), reported per kind at most per_kind times. Counting
/// per kind first keeps the (frequent) repeats of a known problem allocation-free.
void report_problem(Exploration& x, const Outcome& o, const Label& l, std::uint32_t from, const Global& g) {
  if (o.problem == Problem::none || x.transition_problems[o.problem == Problem::p3] >= x.opt.per_kind) return;
  ++x.transition_problems[o.problem == Problem::p3];
  const Property kind = problem_kind(o.problem);
  x.report(Pending{{kind}, problem_text(o), {o.problem_node}, from, true, l, g});
}
}  // namespace

void explore(Exploration& x) {
  const std::size_t stride = x.stride;
  StateSet& set = x.set;
  if (!x.resuming) {
    std::vector<std::uint8_t> buf(stride);
    bool twisted = false;
    x.pack(x.init, buf.data(), twisted);
    set.insert(buf.data());
    x.parent.push_back(UINT32_MAX);
    x.check_state(x.init, 0);
  }
  x.progress(Phase::exploring);
  Global g;
  // The successors of the state being expanded, built in place (Model::successors_in); the
  // vector only grows, so that its Globals are not constructed again for every state.
  std::vector<Successor> batch;
  std::vector<std::uint8_t> packed;
  // States are numbered breadth first, so the depth of state i is its level: the levels end at
  // the numbers of states stored when the scan reaches them (no depth stored per state).
  unsigned level = 0;
  std::size_t level_end = 1;
  // A resumed run's states are all expanded already.
  for (auto i = static_cast<std::uint32_t>(x.resuming ? set.size() : 0); i < set.size(); ++i) {
    if (i == level_end) ++level, level_end = set.size();
    if ((i & 4095u) == 0 && x.out_of_time()) break;
    if ((i & 65535u) == 0 && i > 0) x.progress(Phase::exploring);
    const std::uint8_t* here = set.at(i);
    x.model.unpack(here, g);
    if (x.opt.liveness) x.graph.open_state();
    std::size_t count = 0;
    x.model.successors_in(
        g,
        [&]() -> Global& {
          if (count == batch.size()) batch.emplace_back();
          return batch[count].next;
        },
        [&](const Label& l, const Global&, const Outcome& o) {
          batch[count].label = l;
          batch[count].outcome = o;
          ++count;
        });
    x.res.transitions += count;
    if (set.size() + count > x.opt.max_states) {
      x.truncated = true;  // stop storing new states; liveness is not decided on a truncated graph
      x.res.limit = Limit::states;
      for (std::size_t b = 0; b < count; ++b) report_problem(x, batch[b].outcome, batch[b].label, i, g);
      continue;
    }
    set.reserve(count);
    here = set.at(i);  // reserve may have moved the stored states
    packed.resize(count * stride);
    for (std::size_t b = 0; b < count; ++b) {
      Successor& sc = batch[b];
      std::uint8_t* out = packed.data() + b * stride;
      sc.twisted = false;
      sc.nodes = 0;
      if (x.symmetry)
        sc.nodes = x.pack(sc.next, out, sc.twisted);
      else
        x.model.pack_successor(sc.next, g, here, out);
      sc.hash = set.hash(out);
      set.prefetch(sc.hash);
    }
    for (std::size_t b = 0; b < count; ++b) set.prefetch_match(batch[b].hash);
    for (std::size_t b = 0; b < count; ++b) {
      const Label& l = batch[b].label;
      const Outcome& o = batch[b].outcome;
      report_problem(x, o, l, i, g);
      auto [idx, inserted] = set.insert(packed.data() + b * stride, batch[b].hash);
      if (inserted) {
        x.parent.push_back(i);
        x.res.max_depth = level + 1;
        x.check_state(batch[b].next, idx);
      }
      if (!x.opt.liveness || l.move == Move::cut || l.move == Move::connect) continue;
      x.graph.add(l, o, idx, batch[b].nodes, batch[b].twisted);
    }
    if (x.opt.liveness) x.graph.close_state(i, x.identity_nodes);
  }
  x.res.states = set.size();
  x.res.explore_cpu_seconds = static_cast<double>(std::clock() - x.c0) / CLOCKS_PER_SEC + x.saved_cpu;
  if (x.opt.liveness && !x.resuming) x.graph.finish();
  x.graph_bytes = x.graph.bytes();  // the graph is freed early
}

}  // namespace lmx::check::detail
