// P7 as a fair end-component problem, decided part by part (docs/checker.md, "P7 as a fair
// end-component problem" and "Symmetry"): the union of the regions decomposed once per part, the
// end components whose actions do not rename decided on stored states, one concrete copy of each of
// the others rebuilt and decided on concrete states.
#include <algorithm>
#include <array>
#include <functional>
#include <span>
#include <string>
#include <tuple>
#include <vector>

#include "analysis.hpp"
#include "end_components.hpp"

namespace lmx::check::detail {

namespace {
using StateAt = std::function<const std::uint8_t*(std::uint32_t)>;
using StoredOf = std::function<std::uint32_t(std::uint32_t)>;

// P7 for every node u: a fair end component inside u's region, decided on graph `fg` (its
// states read with `state_at`, the first `count` of them, those with in_base set considered).
// `stored_of` gives the stored state of one of them (its number among all stored states, or
// for a rebuilt state that of its canonical form): a component is reported at its member whose
// stored state was found first. What is found waits in `found` until every part is decided.
void decide(Exploration& x, const Graph& fg, std::size_t count, const StateAt& state_at, const StoredOf& stored_of,
            const std::vector<bool>& in_base, unsigned stage, std::vector<Found>& found) {
  const Model& model = x.model;
  Global g;
  for (unsigned u = 0; u < x.inst.nodes; ++u) {
    if (x.out_of_time()) return;  // each node's decomposition can take minutes on a large graph
    std::vector<bool> in(count);
    std::vector<bool> allowed;
    for (std::size_t s = 0; s < count; ++s)
      in[s] = in_base[s] && model.packed_state(state_at(s), u) != core::InitiatorState::idle;
    const auto comp = end_components(fg, in, allowed);
    release(in);
    // The members of each component, grouped: the member states sorted by (component, state),
    // and where each component's members begin. One allocation instead of one per component,
    // 4 bytes per member and per component, counted before allocating: this runs while the
    // whole graph is in memory, and an array grown by doubling would take three times as much.
    // The components are numbered 0, 1, ... (end_components), so the members are placed by
    // counting, in state order within each component.
    std::size_t member_count = 0;
    std::uint32_t group_count = 0;
    for (std::size_t s = 0; s < count; ++s)
      if (comp[s] != UINT32_MAX) ++member_count, group_count = std::max(group_count, comp[s] + 1);
    std::vector<std::uint32_t> group_begin(group_count + 1, 0);  // group c: [group_begin[c], group_begin[c + 1])
    for (std::size_t s = 0; s < count; ++s)
      if (comp[s] != UINT32_MAX) ++group_begin[comp[s] + 1];
    for (std::uint32_t c = 0; c < group_count; ++c) group_begin[c + 1] += group_begin[c];
    std::vector<std::uint32_t> member_state(member_count);
    for (std::size_t s = 0; s < count; ++s)  // group_begin[c] moves to the end of group c ...
      if (comp[s] != UINT32_MAX) member_state[group_begin[comp[s]]++] = static_cast<std::uint32_t>(s);
    for (std::uint32_t c = group_count; c > 0; --c) group_begin[c] = group_begin[c - 1];  // ... and back
    group_begin[0] = 0;
    auto members = [&](std::uint32_t c) {
      return std::span<const std::uint32_t>(member_state.data() + group_begin[c], group_begin[c + 1] - group_begin[c]);
    };
    std::vector<std::array<std::uint32_t, 3>> fair_entries;  // (stored state, member, group)
    std::vector<std::uint32_t> words;                        // the members' task words, in the graph's action order
    std::vector<std::uint32_t> cand;                         // a component's candidate tasks
    for (std::uint32_t c = 0; c + 1 < group_begin.size(); ++c) {
      const auto ms = members(c);
      words.clear();
      for (std::uint32_t s : ms) {
        const std::size_t before = words.size();
        model.unpack(state_at(s), g);
        // The task identity does not depend on the outcome (completes_bit is masked off).
        model.node_moves(g, [&](const Label& l) { words.push_back(task_of(l, Outcome{})); });
        if (std::none_of(words.begin() + static_cast<std::ptrdiff_t>(before), words.end(),
                         [](std::uint32_t w) { return (w & fair_bit) != 0; }))
          words.push_back(stutter_task);  // as Graph::close_state
        if (words.size() - before != fg.state_begin[s + 1] - fg.state_begin[s])
          throw std::logic_error("check: the actions of a state differ from those in the graph");
      }
      // Candidate tasks: fair tasks enabled at the first member. The component is fair unless
      // one of them is enabled at every member and taken (an allowed action) at none.
      cand.clear();
      const std::uint64_t first_action = fg.state_begin[ms[0]];
      for (std::uint64_t a = first_action; a < fg.state_begin[ms[0] + 1]; ++a)
        if (fg.flags[a] & flag_fair) cand.push_back(words[a - first_action] & task_mask);
      bool fair = true;
      if (cand.size() <= 64) {
        // One pass over the members' actions, a bit per candidate: where it is enabled at
        // every member so far, and whether it was taken anywhere.
        std::uint64_t everywhere = cand.size() == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << cand.size()) - 1;
        std::uint64_t taken = 0;
        std::size_t w = 0;  // the first word of member s
        for (std::uint32_t s : ms) {
          const std::uint64_t begin = fg.state_begin[s], end = fg.state_begin[s + 1];
          std::uint64_t enabled = 0;
          for (std::uint64_t a = begin; a < end; ++a) {
            const std::uint32_t task = words[w + (a - begin)] & task_mask;
            for (std::size_t i = 0; i < cand.size(); ++i)
              if (cand[i] == task) {
                enabled |= std::uint64_t{1} << i;
                if (allowed[a]) taken |= std::uint64_t{1} << i;
              }
          }
          everywhere &= enabled;
          w += end - begin;
        }
        fair = (everywhere & ~taken) == 0;
      } else {
        for (std::uint32_t task : cand) {
          bool everywhere = true, taken = false;
          std::size_t w = 0;  // the first word of member s
          for (std::uint32_t s : ms) {
            bool enabled = false;
            const std::uint64_t begin = fg.state_begin[s], end = fg.state_begin[s + 1];
            for (std::uint64_t a = begin; a < end; ++a)
              if ((words[w + (a - begin)] & task_mask) == task) {
                enabled = true;
                if (allowed[a]) taken = true;
              }
            w += end - begin;
            if (!enabled) everywhere = false;
          }
          if (everywhere && !taken) {
            fair = false;
            break;
          }
        }
      }
      if (!fair) continue;
      // Report the member whose stored state was found first (breadth first: the shallowest).
      std::uint32_t first = ms[0], first_stored = UINT32_MAX;
      for (std::uint32_t m : ms) {
        const std::uint32_t stored = stored_of(m);
        if (stored < first_stored) first_stored = stored, first = m;
      }
      fair_entries.push_back({first_stored, first, c});
    }
    std::sort(fair_entries.begin(), fair_entries.end());
    for (auto [depth_order, s, c] : fair_entries) {
      Found f{stage, u, depth_order, s, members(c).size(), {}};
      model.unpack(state_at(s), f.at);
      found.push_back(f);
    }
  }
}

/// One concrete copy of each end component of the union whose actions rename (`in_lift`, their
/// states of the part; `lift_comp`, their components in order), rebuilt from one of its stored
/// states (its first) with the concrete states reachable by node moves whose canonical form lies in
/// the same component, then decided. The concrete states above a component of the reduced graph
/// split into renamed copies of one another, each strongly connected (a path from x to a renamed
/// copy g(x) repeats, renamed, until it returns to x, as g has finite order), and every concrete end
/// component above it lies in one of them. Renaming maps a fair end component of node u's region in
/// one copy to one of node g(u)'s region in another, and every node's region is decided: one copy
/// decides them all (docs/checker.md, "Symmetry").
void rebuild_and_decide(Exploration& x, std::size_t pn, const StateAt& state_at, std::vector<bool>& in_lift,
                        std::vector<std::uint32_t>& lift_comp, std::vector<Found>& found) {
  const Model& model = x.model;
  const std::size_t stride = x.stride;
  Result& res = x.res;
  StateSet canon_index(stride);  // the stored states of these components, to look canonical forms up
  StateSet lifted(stride);
  std::vector<std::uint32_t> lifted_comp;  // per rebuilt state: its component
  Graph lg;
  lg.k = x.inst.k;
  if (x.opt.graph_on_disk) lg.keep_in_files();  // the rebuilt graph, too, is only appended to first
  Global c;
  {
    std::vector<std::uint8_t> seeded;
    std::size_t i = 0;
    for (std::size_t s = 0; s < pn; ++s) {
      if (!in_lift[s]) continue;
      canon_index.insert(state_at(static_cast<std::uint32_t>(s)));
      const std::uint32_t comp = lift_comp[i++];
      if (comp >= seeded.size()) seeded.resize(comp + 1, 0);
      if (!seeded[comp])
        seeded[comp] = 1, lifted.insert(state_at(static_cast<std::uint32_t>(s))), lifted_comp.push_back(comp);
    }
  }
  release(in_lift);
  std::vector<std::uint8_t> canon(stride);
  std::vector<Successor> batch;
  std::vector<std::uint8_t> packed;
  for (std::uint32_t s = 0; s < lifted.size(); ++s) {
    // The rebuilt states count against the same limit as the stored ones: past it, P7 is not
    // decided (verdict incomplete) rather than the run running out of memory.
    if (lifted.size() + res.lifted_states + res.states > x.opt.max_states) {
      x.truncated = true;
      res.limit = Limit::states;
      break;
    }
    if ((s & 4095u) == 0 && x.out_of_time()) break;
    if ((s & 65535u) == 0) x.progress(Phase::rebuilding, res.lifted_states + lifted.size());
    model.unpack(lifted.at(s), c);
    lg.open_state();
    // As in the exploration, the successors are packed and their index slots prefetched first,
    // so that their lookups' cache misses overlap; then they are taken in order.
    std::size_t count = 0;  // built in place, as in the exploration; topology moves not kept
    model.successors_in(
        c,
        [&]() -> Global& {
          if (count == batch.size()) batch.emplace_back();
          return batch[count].next;
        },
        [&](const Label& l, const Global&, const Outcome& o) {
          if (l.move == Move::cut || l.move == Move::connect) return;
          batch[count].label = l;
          batch[count].outcome = o;
          ++count;
        });
    lifted.reserve(count);
    packed.resize(count * stride);
    const std::uint8_t* here = lifted.at(s);
    for (std::size_t b = 0; b < count; ++b) {
      model.pack_successor(batch[b].next, c, here, packed.data() + b * stride);
      batch[b].hash = lifted.hash(packed.data() + b * stride);
      lifted.prefetch(batch[b].hash);
    }
    for (std::size_t b = 0; b < count; ++b) lifted.prefetch_match(batch[b].hash);
    for (std::size_t b = 0; b < count; ++b) {
      const Successor& sc = batch[b];
      const std::uint8_t* mine = packed.data() + b * stride;
      if (const std::uint32_t known = lifted.find(mine, sc.hash); known != UINT32_MAX) {
        lg.add(sc.label, sc.outcome, known);  // most successors: no canonical form needed
        continue;
      }
      model.canonical(sc.next, canon.data());
      if (const std::uint32_t stored = canon_index.find(canon.data());
          stored == UINT32_MAX || lift_comp[stored] != lifted_comp[s]) {
        lg.add(sc.label, sc.outcome, Graph::sink_target);  // to the sink, numbered once all are known
        continue;
      }
      lg.add(sc.label, sc.outcome, lifted.insert(mine, sc.hash).first);
      lifted_comp.push_back(lifted_comp[s]);
    }
    lg.close_state(s);
  }
  canon_index = StateSet(stride);  // freed: the decision needs the rebuilt states alone
  release(lift_comp);
  release(lifted_comp);
  const auto sink = static_cast<std::uint32_t>(lifted.size());
  lg.open_state();  // the sink: a stutter loop
  lg.close_state(sink);
  lg.finish(sink);
  res.lifted_states += sink;
  if (x.truncated) return;
  std::vector<bool> in_lifted(sink + 1, true);
  in_lifted[sink] = false;
  x.progress(Phase::deciding, res.lifted_states);
  Global g;
  std::vector<std::uint8_t> buf(stride);
  decide(
      x, lg, sink + 1, [&](std::uint32_t s) { return lifted.at(s); },
      [&](std::uint32_t s) {
        x.set.restore_index();  // released for the analysis; needed again only here, in failing runs
        model.unpack(lifted.at(s), g);
        model.canonical(g, buf.data());
        return x.set.find(buf.data());
      },
      in_lifted, 1, found);
}

/// The fair end components of one part, whose graph is `pg` (freed here) and whose states are the
/// stored states `(*global)[0..]` (with one part, `global` is null: all of them, in order).
void decide_part(Exploration& x, Graph& pg, const std::vector<std::uint32_t>* global, std::vector<Found>& found) {
  const Model& model = x.model;
  const std::size_t pn = pg.states();
  auto stored_of = [&](std::uint32_t s) { return global != nullptr ? (*global)[s] : s; };
  auto state_at = [&](std::uint32_t s) { return x.set.at(stored_of(s)); };
  // Every end component of a node's region (its operation pending) is an end component of the
  // union of the regions (some operation pending), so it lies inside a maximal end component of
  // the union: the union is decomposed once over the part's graph, and each node's decomposition
  // starts from the states left in it (usually a small fraction) instead of from every state.
  std::vector<bool> in_any(pn, false);  // a bit per state, as every membership array of the analysis
  std::vector<bool> allowed_any;        // a bit per action: 7 bytes per state less than a byte each
  for (unsigned u = 0; u < x.inst.nodes; ++u)
    for (std::size_t s = 0; s < pn; ++s)
      if (model.packed_state(state_at(static_cast<std::uint32_t>(s)), u) != core::InitiatorState::idle)
        in_any[s] = true;
  x.progress(Phase::end_components);
  auto union_comp = end_components(pg, in_any, allowed_any, [&](unsigned round, std::size_t decomposing) {
    x.progress(Phase::end_components, 0, round, decomposing);  // a round can take many minutes on a large graph
  });
  // Fairness refers to node and port identities, which a stored (canonical) state may have
  // renamed. A maximal end component of the union whose actions all reach their successors
  // unrenamed is a piece of the concrete MDP and is decided as it is (without symmetry
  // reduction, all of them). The others are decided on concrete states, rebuilt with their node
  // moves (those leaving the set go to a sink outside every region). A concrete end component
  // projects onto an end component of the reduced graph (the canonical form is the same for a
  // whole orbit), so it is found there (docs/checker.md, "Symmetry").
  std::vector<std::uint8_t> twisted_comp;
  if (x.symmetry) {
    std::uint32_t comps = 0;
    for (std::size_t s = 0; s < pn; ++s)
      if (in_any[s]) comps = std::max(comps, union_comp[s] + 1);
    twisted_comp.assign(comps, 0);
    for (std::size_t s = 0; s < pn; ++s) {
      if (!in_any[s]) continue;
      pg.each_action(s, [&](std::uint64_t a, const Graph::Target* ts, unsigned m) {
        if (!allowed_any[a]) return;
        for (unsigned i = 0; i < m; ++i)
          if (ts[i].twisted) twisted_comp[union_comp[s]] = 1;
      });
    }
  }
  release(allowed_any);
  std::vector<bool> in_exact(pn, false), in_lift(pn, false);
  std::vector<std::uint32_t> lift_comp;  // per state with in_lift, in order: its component of the union
  for (std::size_t s = 0; s < pn; ++s) {
    if (!in_any[s]) continue;
    const bool twist = x.symmetry && twisted_comp[union_comp[s]];
    (twist ? in_lift : in_exact)[s] = true;
    if (twist) lift_comp.push_back(union_comp[s]);
  }
  const bool any_lift = !lift_comp.empty();
  // Past this point only in_lift is needed: the union's components are freed before the exact
  // decision, and the reduced graph after it, so that the rebuilt states take their place.
  release(union_comp);
  release(in_any);
  release(twisted_comp);
  decide(x, pg, pn, state_at, stored_of, in_exact, 0, found);
  release(in_exact);
  pg = Graph{};
  if (any_lift && !x.out_of_time()) rebuild_and_decide(x, pn, state_at, in_lift, lift_comp, found);
}
}  // namespace

void decide_fair_end_components(Exploration& x, AnalysisLog& log, Parts& parts) {
  std::vector<Found> found;
  std::vector<std::uint32_t> global;  // with several parts: the part's states, numbered among all stored states
  const std::size_t n = x.set.size();
  for (unsigned p = 0; p < parts.count && !x.truncated; ++p) {
    x.part = p + 1;
    if (parts.done[p]) {
      const AnalysisRecord::Part& done = log.record.parts_done.at(p);
      found.insert(found.end(), done.found.begin(), done.found.end());
      x.res.lifted_states += done.lifted;
      continue;
    }
    const std::size_t found_before = found.size();
    const std::uint64_t lifted_before = x.res.lifted_states;
    Graph& pg = parts.count > 1 ? parts.graphs[p] : x.graph;
    release(global);
    if (parts.count > 1) {
      global.reserve(pg.states());
      for (std::size_t s = 0; s < n; ++s)
        if (parts.part_of[s] == p) global.push_back(static_cast<std::uint32_t>(s));
    }
    decide_part(x, pg, parts.count > 1 ? &global : nullptr, found);
    if (!x.truncated && log.keep) {
      AnalysisRecord::Part& done = log.record.parts_done[p];
      done.lifted = x.res.lifted_states - lifted_before;
      done.found.assign(found.begin() + static_cast<std::ptrdiff_t>(found_before), found.end());
      log.save(x);
    }
  }
  // Reported as one decision of the whole graph would: the components decided on stored states
  // before those on rebuilt ones, node by node, each node's by the stored state found first.
  std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    return std::tie(a.stage, a.node, a.first_stored, a.member) < std::tie(b.stage, b.node, b.first_stored, b.member);
  });
  for (const Found& f : found) {
    const auto stays_in = f.at.n[f.node].s.state;
    const std::string where(core::to_string(stays_in));
    x.report(Pending{{Property::P7, static_cast<std::uint8_t>(stays_in)},
                     "can stay in " + where +
                         " forever under weak fairness with positive probability (a fair end component of " +
                         std::to_string(f.members) + " states)",
                     {f.node},
                     f.first_stored,
                     false,
                     {},
                     f.at,
                     true});
  }
  x.part = 0;
}

}  // namespace lmx::check::detail
