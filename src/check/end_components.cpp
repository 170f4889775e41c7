// Maximal end components by repeated strongly connected components (docs/checker.md, "P7 as a
// fair end-component problem", and Performance, "Memory of the analysis").
#include "end_components.hpp"

#include <bit>
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
  // The search's call record: the state, the action being followed and a cursor at its next
  // target, so that following an action reads the code on from where it stopped and never looks
  // an offset up again.
  struct Call {
    std::uint64_t pos;           // the cursor: the position of the next target in the code
    std::uint64_t action;        // the action being followed (a graph may have over 2^32)
    std::uint32_t prev;          // the cursor: the target read last
    std::uint32_t state;         // the state it belongs to
    std::uint32_t actions_left;  // the state's actions after this one
    std::uint8_t left;           // its targets not read yet (at most K)
    bool root;                   // no state visited before this one is reachable (yet)
    bool kept;                   // an action of the state stays in its component
  };
  static_assert(sizeof(Call) <= 32, "a call record per state on the search path: keep it small");
  static_assert(core::k_max <= UINT8_MAX);
  // Columns, not vectors: on a large graph nearly every state is on `stack` at once (one giant
  // component), and a vector doubling past a gigabyte would briefly hold two copies.
  Column<std::uint32_t> stack;  // visited states whose component is open, not roots
  Column<Call> calls;
  // Per state: in a component to decompose (bits: the largest runs are near the end of memory),
  // and in this round whether it keeps an action and whether it lost one after following it;
  // per component id: to decompose again.
  std::vector<bool> redo(n, false), keeps(n, false), lost(n, false);
  std::vector<std::uint8_t> dirty;
  bool first = true;
  std::uint32_t next_comp = 0;  // component ids are never reused, so final components keep theirs
  for (unsigned round = 1;; ++round) {
    std::size_t decomposing = 0;
    for (std::size_t s = 0; s < n; ++s) decomposing += redo[s] = in[s] && (first || dirty[comp(s)]);
    first = false;
    if (round_started) round_started(round, decomposing);
    // Strongly connected components over allowed actions (iterative), dropping actions on the way:
    // every state to decompose is visited, and each of its actions read, once per round.
    // - An action with an outcome outside the set is dropped before it is followed. Allowed actions
    //   of a state to decompose lead only to states to decompose (the first time all states are;
    //   later, allowed actions stay in their old component, which is dirty).
    // - An action with an outcome in another component is dropped, and its state's component is
    //   decomposed again (it may split). Whether an outcome w of state s is in s's component is
    //   known when it is read: w visited and open is in it (Tarjan), w closed is not; w visited
    //   from s is in it iff w's component is still open when the search returns to s.
    // - A component whose states all keep an action and lost none is final; a state left without
    //   actions leaves the set, and its component is decomposed again.
    // No component is numbered from an action dropped this way and not another: the end
    // components found, the refinement's fixed point, are the same (they are unique).
    for (std::size_t s = 0; s < n; ++s)
      if (redo[s]) index[s] = unvisited, keeps[s] = false, lost[s] = false;
    dirty.assign(next_comp, 0);  // the components before this round are final, or decomposed now
    bool changed = false;
    std::uint32_t next_index = 0;
    auto is_closed = [&](std::uint32_t w) { return index[w] >= n; };  // visited this round and closed
    // An action's targets are read one at a time as the search follows them; one with several
    // outcomes is checked whole first (one outcome is checked as it is read).
    auto start_action = [&](Call& c) {
      c.left = static_cast<std::uint8_t>(gr.outcomes(c.action));
      if (c.left == 1 || !allowed[c.action]) return;
      Graph::Cursor peek{c.pos, c.prev};
      for (unsigned i = 0; i < c.left; ++i)
        if (!in[gr.next_to(peek)]) {
          allowed[c.action] = false;
          return;
        }
    };
    auto drop_leaving = [&](Call& c) {  // c's action has an outcome in another component
      allowed[c.action] = false;
      lost[c.state] = true;
    };
    for (std::size_t root = 0; root < n; ++root) {
      if (!redo[root] || index[root] != unvisited) continue;
      auto visit = [&](std::uint32_t s) {
        index[s] = next_index++;
        const std::uint64_t a = gr.state_begin[s], end = gr.state_begin[s + 1];
        const Graph::Cursor at = gr.first(s);
        calls.push_back(Call{at.pos, a, at.prev, s, 0, 0, true, false});
        if (a < end) {
          calls.back().actions_left = static_cast<std::uint32_t>(end - a - 1);
          start_action(calls.back());
        } else {
          calls.back().action = UINT64_MAX;  // no action
        }
      };
      visit(static_cast<std::uint32_t>(root));
      while (!calls.empty()) {
        Call& c = calls.back();
        const std::uint32_t s = c.state;
        Graph::Cursor cur{c.pos, c.prev};
        bool descended = false;
        for (;;) {
          if (c.left == 0 || !allowed[c.action]) {                           // the action is done: the next one
            if (c.action != UINT64_MAX && allowed[c.action]) c.kept = true;  // every outcome stays
            for (; c.left > 0; --c.left) gr.next(cur);                       // the code is read in order
            if (c.actions_left == 0) break;
            --c.actions_left;
            ++c.action;
            c.pos = cur.pos, c.prev = cur.prev;
            start_action(c);
            continue;
          }
          --c.left;
          const std::uint32_t w = gr.next_to(cur);
          if (!in[w]) {  // the one outcome of this action (several were checked at its start)
            allowed[c.action] = false;
            continue;
          }
          if (index[w] == unvisited) {
            c.pos = cur.pos, c.prev = cur.prev;
            visit(w);  // invalidates c
            descended = true;
            break;
          }
          if (is_closed(w)) {
            drop_leaving(c);
            continue;
          }
          if (index[w] < index[s]) index[s] = index[w], c.root = false;
        }
        if (descended) continue;
        keeps[s] = c.kept;
        if (c.root) {
          // s and the open states visited after it form its component.
          // Component ids are never reused; they must stay above every visit index.
          if (next_comp >= closed - n) throw std::length_error("check: too many end component iterations");
          const std::uint32_t id = closed - next_comp;
          bool redo_it = false;
          auto close = [&](std::uint32_t m) {
            index[m] = id;
            if (!keeps[m]) in[m] = false, redo_it = true;
            if (lost[m]) redo_it = true;
          };
          while (!stack.empty() && index[stack.back()] >= index[s] && !is_closed(stack.back())) {
            close(stack.back());
            stack.pop_back();
          }
          close(s);
          ++next_comp;
          dirty.push_back(redo_it ? 1 : 0);
          changed = changed || redo_it;
        } else {
          stack.push_back(s);
        }
        calls.pop_back();
        if (calls.empty()) continue;
        Call& parent = calls.back();
        if (is_closed(s))
          drop_leaving(parent);  // s's component closed without the parent: the action leaves it
        else if (index[s] < index[parent.state])
          index[parent.state] = index[s], parent.root = false;
      }
    }
    if (!changed) break;
  }
  // The final components numbered 0, 1, ... in the order of their ids (a bit per id and a count
  // per 64 ids), so that a caller can group the members by counting instead of sorting.
  for (auto* bits : {&redo, &keeps, &lost})
    std::vector<bool>().swap(*bits);  // freed first: the whole graph is in memory
  std::vector<std::uint8_t>().swap(dirty);
  std::vector<std::uint64_t> used((next_comp + 63) / 64, 0);
  for (std::size_t s = 0; s < n; ++s)
    if (in[s]) used[comp(s) / 64] |= std::uint64_t{1} << (comp(s) % 64);
  std::vector<std::uint32_t> before(used.size());
  std::uint32_t total = 0;
  for (std::size_t i = 0; i < used.size(); ++i)
    before[i] = total, total += static_cast<unsigned>(std::popcount(used[i]));
  for (std::size_t s = 0; s < n; ++s) {
    if (!in[s]) {
      index[s] = UINT32_MAX;
      continue;
    }
    const std::uint32_t c = comp(s);
    index[s] =
        before[c / 64] + static_cast<std::uint32_t>(std::popcount(used[c / 64] & ((std::uint64_t{1} << (c % 64)) - 1)));
  }
  return index;
}

}  // namespace lmx::check::detail
