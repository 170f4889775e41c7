// Maximal end components by repeated strongly connected components (docs/checker.md, "P7 as a
// fair end-component problem", and Performance, "Memory of the analysis").
#include "end_components.hpp"

#include <stdexcept>

#include "lmx/core/protocol.hpp"

namespace lmx::check::detail {

std::vector<std::uint32_t> end_components(const Graph& gr, std::vector<bool>& in, std::vector<bool>& allowed,
                                          const std::function<void(unsigned, std::size_t)>& round_started) {
  const std::size_t n = in.size();
  const std::size_t na = gr.flags.size();
  allowed.assign(na, false);
  for (std::size_t s = 0; s < n; ++s)
    if (in[s])
      for (std::uint64_t a = gr.state_begin[s]; a < gr.state_begin[s + 1]; ++a) allowed[a] = true;
  // Tarjan's algorithm in Pearce's form ("A space-efficient algorithm for finding strongly
  // connected components", 2016): one number per state serves as its visit index, its low link
  // and, once its component is closed, that component (numbered down from `closed`, above every
  // visit index, so no minimum picks it): no low-link array, no on-stack flags and no component
  // array, 9 bytes per state less than the textbook form.
  constexpr std::uint32_t unvisited = UINT32_MAX, closed = UINT32_MAX - 1;
  if (n >= closed / 2) throw std::length_error("check: too many states for the end components");
  std::vector<std::uint32_t> index(n, unvisited);
  auto comp = [&](std::size_t s) { return closed - index[s]; };  // for a closed state
  struct Call {
    Graph::Cursor next;    // the next target of the action being followed
    std::uint64_t action;  // the action being followed (a graph may have over 2^32)
    std::uint32_t state;   // the state it belongs to
    std::uint8_t left;     // its targets not read yet (at most K)
    bool root;             // no state visited before this one is reachable (yet)
  };
  static_assert(sizeof(Call) <= 32, "a call record per state on the search path: keep it small");
  static_assert(core::k_max <= UINT8_MAX);
  // Columns, not vectors: on a large graph nearly every state is on `stack` at once (one giant
  // component), and a vector doubling past a gigabyte would briefly hold two copies.
  Column<std::uint32_t> stack;  // visited states whose component is open, not roots
  Column<Call> calls;
  // Per state: in a component to decompose (bits: the largest runs are near the end of memory);
  // per component id: to decompose again.
  std::vector<bool> redo(n, false);
  std::vector<std::uint8_t> dirty;
  bool first = true;
  std::uint32_t next_comp = 0;  // component ids are never reused, so final components keep theirs
  for (unsigned round = 1;; ++round) {
    std::size_t decomposing = 0;
    for (std::size_t s = 0; s < n; ++s) decomposing += redo[s] = in[s] && (first || dirty[comp(s)]);
    first = false;
    if (round_started) round_started(round, decomposing);
    // Drop actions with an outcome outside the set.
    for (std::size_t s = 0; s < n; ++s) {
      if (!redo[s]) continue;
      gr.each_action(s, [&](std::uint64_t a, const Graph::Target* ts, unsigned m) {
        if (!allowed[a]) return;
        for (unsigned i = 0; i < m; ++i)
          if (!in[ts[i].to]) {
            allowed[a] = false;
            break;
          }
      });
    }
    // Strongly connected components over allowed actions (iterative).
    // Allowed actions of a state to decompose lead only to states to decompose (the first time
    // all states are; later, allowed actions stay in their old component, which is dirty).
    for (std::size_t s = 0; s < n; ++s)
      if (redo[s]) index[s] = unvisited;
    std::uint32_t next_index = 0;
    for (std::size_t root = 0; root < n; ++root) {
      if (!redo[root] || index[root] != unvisited) continue;
      auto visit = [&](std::uint32_t s) {
        index[s] = next_index++;
        const std::uint64_t a = gr.state_begin[s];
        calls.push_back(
            Call{gr.first(s), a, s, static_cast<std::uint8_t>(a < gr.state_begin[s + 1] ? gr.outcomes(a) : 0), true});
      };
      visit(static_cast<std::uint32_t>(root));
      while (!calls.empty()) {
        Call& c = calls.back();
        const std::uint32_t s = c.state;
        bool descended = false;
        while (c.action < gr.state_begin[s + 1]) {
          if (!allowed[c.action] || c.left == 0) {
            for (; c.left > 0; --c.left) gr.next(c.next);  // the code is read in order
            ++c.action;
            if (c.action < gr.state_begin[s + 1]) c.left = static_cast<std::uint8_t>(gr.outcomes(c.action));
            continue;
          }
          --c.left;
          const std::uint32_t w = gr.next_to(c.next);
          if (index[w] == unvisited) {
            visit(w);  // invalidates c
            descended = true;
            break;
          }
          if (index[w] < index[s]) index[s] = index[w], c.root = false;  // closed states never lower it
        }
        if (descended) continue;
        if (c.root) {
          // s and the open states visited after it form its component.
          // Component ids are never reused; they must stay above every visit index.
          if (next_comp >= closed - n) throw std::length_error("check: too many end component iterations");
          while (!stack.empty() && index[stack.back()] >= index[s]) {
            index[stack.back()] = closed - next_comp;
            stack.pop_back();
          }
          index[s] = closed - next_comp++;
        } else {
          stack.push_back(s);
        }
        calls.pop_back();
        if (!calls.empty() && index[s] < index[calls.back().state])
          index[calls.back().state] = index[s], calls.back().root = false;
      }
    }
    // Drop actions leaving their component; drop states left without actions.
    dirty.assign(next_comp, 0);
    bool changed = false;
    for (std::size_t s = 0; s < n; ++s) {
      if (!redo[s]) continue;
      bool any = false;
      gr.each_action(s, [&](std::uint64_t a, const Graph::Target* ts, unsigned m) {
        if (!allowed[a]) return;
        for (unsigned i = 0; i < m; ++i)
          if (index[ts[i].to] != index[s]) {
            allowed[a] = false;
            dirty[comp(s)] = 1;  // the component may split: decompose it again
            changed = true;
            break;
          }
        any = any || allowed[a];
      });
      if (!any) {
        in[s] = false;
        dirty[comp(s)] = 1;
        changed = true;
      }
    }
    if (!changed) break;
  }
  for (std::size_t s = 0; s < n; ++s) index[s] = in[s] ? comp(s) : UINT32_MAX;
  return index;
}

}  // namespace lmx::check::detail
